/*
 * join.c — the join's entry points: validation, choice of back-end (CPU
 * cell pairs, CPU box join, GPU) and the release of their results. The
 * pieces the back-ends share are in join_setup.c, join_exact.c and
 * pair_buffer.c, so that no back-end calls back into this dispatcher.
 */
#include "join_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpu.h"
#include "stats.h"

void
exg_join_pairs_free(exg_pair *pairs)
{
	if (pairs != NULL && !exg_gpu_pairs_return(pairs))
		free(pairs);
}

/* The join, its inputs' indices read first unless the caller vouches for them. */
static exg_status
join_run(const exg_prim_set *A, const exg_prim_set *B, const exg_join_options *opt_in,
		 bool check, exg_pair **pairs_out, size_t *npairs_out, exg_join_stats *stats,
		 exg_error *err)
{
	exg_join_options opt;
	exg_join_stats local;
	exg_status	st;
	uint64_t	t0 = exg_now_ns(),
				setup0 = exg_gpu_setup_ns();

	stats = exg_join_begin(&opt, opt_in, stats, &local);
	*pairs_out = NULL;
	*npairs_out = 0;
	if (check &&
		((st = exg_prim_set_check(A, "left input", opt.worker_threads, err)) != EXG_OK ||
		 (st = exg_prim_set_check(B, "right input", opt.worker_threads, err)) != EXG_OK))
		return st;

	/* an empty batch has no owners to point at */
	if (opt.row_pairs && ((A->nprims > 0 && A->owner == NULL) || (B->nprims > 0 && B->owner == NULL)))
		return exg_fail(err, EXG_ERR_ARGUMENT, "row pairs asked of a join whose sets have no rows");
	if (exg_join_picks_gpu(&opt, &st, err))
	{
		st = exg_gpu_join(A, B, &opt, pairs_out, npairs_out, stats, err);
		stats->used_gpu = (st == EXG_OK);
	}
	else if (st != EXG_OK)
		return st;
	else
	{
		exg_counters before,
					after;

		/* the workers count in their own blocks: the sum, before and after */
		exg_counters_snapshot(&before);
		st = exg_join_culls_by_box_join(&opt, false, (uint64_t) A->nprims + B->nprims)
			? exg_join_cpu_boxes(A, B, &opt, pairs_out, npairs_out, stats, err)
			: exg_join_cpu(A, B, &opt, pairs_out, npairs_out, stats, err);
		if (st == EXG_OK && opt.row_pairs)
		{
			stats->hits = *npairs_out;
			*npairs_out = exg_pairs_to_rows(A, B, *pairs_out, *npairs_out, opt.worker_threads);
		}
		exg_counters_snapshot(&after);
		stats->exact_pairs = after.exact_pairs - before.exact_pairs;
		exg_join_name_cpu(stats, &opt);
	}
	stats->gpu_setup_ns += exg_gpu_setup_ns() - setup0;
	stats->total_ns = exg_now_ns() - t0;
	if (st == EXG_OK)
	{
		exg_counters *c = exg_counters_local();

		/* row pairs: the back-end counted the primitive pairs */
		if (!opt.row_pairs)
			stats->hits = *npairs_out;
		if (stats->used_gpu)
			c->gpu_calls++;
	}
	return st;
}

exg_status
exg_join(const exg_prim_set *A, const exg_prim_set *B, const exg_join_options *opt,
		 exg_pair **pairs_out, size_t *npairs_out, exg_join_stats *stats, exg_error *err)
{
	return join_run(A, B, opt, true, pairs_out, npairs_out, stats, err);
}

exg_status
exg_join_checked_sets(const exg_prim_set *A, const exg_prim_set *B, const exg_join_options *opt,
					  exg_pair **pairs_out, size_t *npairs_out, exg_join_stats *stats,
					  exg_error *err)
{
	return join_run(A, B, opt, false, pairs_out, npairs_out, stats, err);
}

exg_status
exg_test_pairs(const exg_prim_set *A, const exg_prim_set *B, const exg_pair *pairs, size_t n,
			   const exg_join_options *opt, uint8_t *result, exg_join_stats *stats,
			   exg_error *err)
{
	exg_join_stats local;
	exg_status	st;
	size_t		i;

	if (stats == NULL)
		stats = &local;
	memset(stats, 0, sizeof(*stats));
	if ((st = exg_prim_set_check(A, "left input", opt ? opt->worker_threads : 1, err)) != EXG_OK ||
		(st = exg_prim_set_check(B, "right input", opt ? opt->worker_threads : 1, err)) != EXG_OK)
		return st;
	for (i = 0; i < n; i++)
		if (pairs[i].a >= A->nprims || pairs[i].b >= B->nprims)
			return exg_fail(err, EXG_ERR_ARGUMENT, "pair %zu out of range", i);
	if (exg_join_picks_gpu(opt, &st, err))
		return exg_gpu_test_pairs(A, B, pairs, n, opt, result, stats, err);
	if (st != EXG_OK)
		return st;

	if ((st = exg_join_decide_pairs(A, B, pairs, n, opt->worker_threads, result, err)) != EXG_OK)
		return st;
	stats->candidates = n;
	snprintf(stats->device_name, sizeof(stats->device_name), "CPU");
	return EXG_OK;
}
