/*
 * box_join.c — the box join's entry point: arguments, choice of back-end,
 * statistics. What the back-ends share is in box_join_plan.c.
 */
#include "box_join_internal.h"

#include <stdio.h>
#include <string.h>

#include "gpu.h"
#include "interval_double.h"
#include "join_internal.h"
#include "parallel.h"
#include "stats.h"

/* The caller's sink, run in the caller's floating-point mode. */
typedef struct caller_sink
{
	exg_box_pair_sink sink;
	void	   *arg;
	exg_round_state mode;
} caller_sink;

static exg_status
in_caller_mode(void *arg, const exg_pair *pairs, size_t n)
{
	caller_sink *c = arg;
	exg_round_state engine = exg_round_get();
	exg_status	st;

	exg_round_restore(c->mode);
	st = c->sink(c->arg, pairs, n);
	exg_round_restore(engine);
	return st;
}

exg_status
exg_box_join(const exg_box_set *A, const exg_box_set *B, int naxes,
			 const exg_join_options *opt_in, exg_box_pair_sink sink, void *sink_arg,
			 exg_join_stats *stats, exg_error *err)
{
	exg_join_options opt;
	exg_join_stats local;
	exg_status	st;
	uint64_t	t0 = exg_now_ns(),
				setup0;
	caller_sink cs;

	stats = exg_join_begin(&opt, opt_in, stats, &local);
	if (err)
	{
		err->row = 0;
		err->side = 0;
	}
	if (naxes != 2 && naxes != 3)
		return exg_fail(err, EXG_ERR_ARGUMENT, "box join: boxes must have 2 or 3 axes, not %d", naxes);
	if (A == NULL || B == NULL || sink == NULL ||
		(A->n > 0 && A->box == NULL) || (B->n > 0 && B->box == NULL))
		return exg_fail(err, EXG_ERR_ARGUMENT, "box join: missing input or sink");
	/* cell lists and work items count boxes in 32 bits, with room for a unit */
	if (A->n > EXG_BOX_MAX_INPUT || B->n > EXG_BOX_MAX_INPUT)
		return exg_fail(err, EXG_ERR_TOO_LARGE, "box join: more than %u boxes in one input",
						EXG_BOX_MAX_INPUT);

	/*
	 * Bounds, grid and cells in round-to-nearest without flush-to-zero or
	 * denormals-are-zero, whatever the caller left set: subnormal bounds
	 * read as zero would shrink the domain and lose pairs. The sink runs in
	 * the caller's mode.
	 */
	cs.sink = sink;
	cs.arg = sink_arg;
	cs.mode = exg_round_nearest_enter();
	setup0 = exg_gpu_setup_ns();
	if (exg_join_picks_gpu(&opt, &st, err))
	{
		st = exg_gpu_box_join(A, B, naxes, &opt, in_caller_mode, &cs, stats, err);
		stats->used_gpu = true;
	}
	else if (st == EXG_OK)
	{
		st = exg_box_join_cpu(A, B, naxes, &opt, NULL, NULL, in_caller_mode, &cs, stats, err);
		exg_join_name_cpu(stats, &opt);
		exg_counters_local()->pair_tests += stats->cell_pairs;
	}
	exg_round_restore(cs.mode);
	stats->gpu_setup_ns += exg_gpu_setup_ns() - setup0;
	stats->total_ns = exg_now_ns() - t0;
	if (st == EXG_OK && stats->used_gpu)
		exg_counters_local()->gpu_calls++;
	return st;
}
