/*
 * join_setup.c — what every join's entry point does before it runs a
 * back-end: options and stats, input checks, the choice of the CPU or the
 * GPU and of the first stage. Shared by the joins, the box join and the
 * point location, which is why it is not in any one dispatcher.
 */
#include "join_internal.h"

#include <stdio.h>
#include <string.h>

#include "gpu.h"
#include "parallel.h"

void
exg_join_options_default(exg_join_options *opt)
{
	memset(opt, 0, sizeof(*opt));
	opt->device = EXG_DEVICE_AUTO;
	opt->filter = EXG_FILTER_FLOAT;
	opt->dedupe = EXG_DEDUPE_REFERENCE_CELL;
}

exg_status
exg_prim_set_check(const exg_prim_set *S, const char *name, int threads, exg_error *err)
{
	uint64_t	i,
				n,
				bad;
	int			t;

	if (S->arity < 1 || S->arity > 3)
		return exg_fail(err, EXG_ERR_ARGUMENT, "%s: primitives must have 1 to 3 vertices", name);
	if (S->nprims > 0 && (S->xyz == NULL || S->vidx == NULL))
		return exg_fail(err, EXG_ERR_ARGUMENT, "%s: missing arrays", name);
	n = (uint64_t) S->nprims * (uint64_t) S->arity;

	/*
	 * Every index read once; on the threads when there are many (10^7
	 * triangles: 3 * 10^7 indices, ~25 ms on one thread, before a GPU join
	 * of ~50). The first bad one is reported, as a sequential check would.
	 */
	bad = UINT64_MAX;
	t = n >= ((uint64_t) 1 << 20) ? exg_threads(threads) : 1;
#pragma omp parallel for schedule(static) num_threads(t) if (t > 1) reduction(min:bad)
	for (i = 0; i < n; i++)
		if (S->vidx[i] >= S->nverts && i < bad)
			bad = i;
	if (bad != UINT64_MAX)
		return exg_fail(err, EXG_ERR_ARGUMENT, "%s: vertex index %u out of range", name,
						S->vidx[bad]);
	return EXG_OK;
}

exg_join_stats *
exg_join_begin(exg_join_options *opt, const exg_join_options *opt_in, exg_join_stats *stats,
			   exg_join_stats *local)
{
	if (opt_in)
		*opt = *opt_in;
	else
		exg_join_options_default(opt);
	if (stats == NULL)
		stats = local;
	memset(stats, 0, sizeof(*stats));
	return stats;
}

bool
exg_join_picks_gpu(const exg_join_options *opt, exg_status *st, exg_error *err)
{
	exg_error	gpu_err = {0};

	*st = EXG_OK;
	if (opt->device != EXG_DEVICE_CPU && exg_gpu_device_count(&gpu_err) > 0)
		return true;
	if (opt->device == EXG_DEVICE_GPU)
		*st = exg_fail(err, EXG_ERR_DEVICE, "GPU requested but none is usable: %s",
					   gpu_err.message);
	return false;
}

void
exg_join_name_cpu(exg_join_stats *stats, const exg_join_options *opt)
{
	snprintf(stats->device_name, sizeof(stats->device_name), "CPU (%d threads)",
			 exg_threads(opt->worker_threads));
}

/*
 * EXG_CULL_AUTO takes the box join on the GPU from this many primitives
 * (both sides) on. Measured on an H100 (bench/results/2026-11-23-h100-
 * first-stage.md): 16% faster on the 1.4 * 10^6-triangle mesh pair, 5x
 * less cull time on 10^8 triangles, 0.4 ms slower on the 10^6-triangle
 * mine (fixed costs). On the CPU the exact tests and the final sort
 * dominate and neither stage wins everywhere (-16% to +30%): cell pairs.
 */
#define EXG_BOX_STAGE_MIN_PRIMS ((uint64_t) 1 << 20)

bool
exg_join_culls_by_box_join(const exg_join_options *opt, bool gpu, uint64_t nprims)
{
	/* the box join reports each pair once by its own rule, and only candidates */
	if (opt->dedupe != EXG_DEDUPE_REFERENCE_CELL || opt->boxes_only)
		return false;
	switch (opt->cull)
	{
		case EXG_CULL_CELL_PAIRS:
			return false;
		case EXG_CULL_BOX_JOIN:
			return true;
		case EXG_CULL_AUTO:
			break;
	}
	return gpu && nprims >= EXG_BOX_STAGE_MIN_PRIMS;
}
