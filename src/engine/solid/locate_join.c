/*
 * locate_join.c — batch point-in-solid: entry point, checks and choice of
 * back-end (locate_join_cpu.c, locate_join_gpu.cu).
 */
#include "locate_join.h"

#include <stdlib.h>

#include "gpu.h"
#include "join_internal.h"
#include "solid_check.h"
#include "stats.h"

/* The join, the bodies' indices and ids read first unless the caller vouches for them. */
static exg_status
locate_run(const double *pts, uint32_t npts, const exg_solid_set *S,
		   const exg_join_options *opt_in, bool check, exg_pair **pairs_out, size_t *npairs_out,
		   exg_join_stats *stats, exg_error *err)
{
	exg_join_options opt;
	exg_join_stats local;
	exg_status	st;
	uint64_t	t0 = exg_now_ns(),
				setup0;
	uint32_t	t;

	stats = exg_join_begin(&opt, opt_in, stats, &local);
	*pairs_out = NULL;
	*npairs_out = 0;
	if (S->tris.arity != 3)
		return exg_fail(err, EXG_ERR_ARGUMENT, "bodies must be given as triangles");
	if (check && (st = exg_prim_set_check(&S->tris, "bodies", opt.worker_threads, err)) != EXG_OK)
		return st;
	if (npts > 0 && pts == NULL)
		return exg_fail(err, EXG_ERR_ARGUMENT, "points: missing array");
	for (t = 0; check && t < S->tris.nprims; t++)
		if (S->body[t] >= S->nbodies || (t > 0 && S->body[t] < S->body[t - 1]))
			return exg_fail(err, EXG_ERR_ARGUMENT,
							"bodies: body ids must be non-decreasing and below %u", S->nbodies);
	/* every body with a well-defined inside (parity counts an overlap as outside) */
	if ((st = exg_solid_set_check(&S->tris, S->body, S->nbodies, 1, &opt, err)) != EXG_OK)
		return st;
	stats->phase_ns[EXG_PHASE_CLASSIFY] = exg_now_ns() - t0;
	if (npts == 0 || S->tris.nprims == 0)
	{
		/* no pairs, allocated as every result is (exg_join_pairs_free) */
		*pairs_out = malloc(sizeof(exg_pair));
		return *pairs_out ? EXG_OK
			: exg_fail(err, EXG_ERR_NOMEM, "out of memory collecting pairs");
	}

	setup0 = exg_gpu_setup_ns();
	if (exg_join_picks_gpu(&opt, &st, err))
	{
		st = exg_gpu_locate(pts, npts, S, &opt, pairs_out, npairs_out, stats, err);
		stats->used_gpu = (st == EXG_OK);
	}
	else if (st != EXG_OK)
		return st;
	else
	{
		st = exg_locate_cpu(pts, npts, S, &opt, pairs_out, npairs_out, stats, err);
		exg_join_name_cpu(stats, &opt);
	}
	stats->gpu_setup_ns += exg_gpu_setup_ns() - setup0;
	stats->total_ns = exg_now_ns() - t0;
	if (st == EXG_OK)
	{
		stats->hits = *npairs_out;
		if (stats->used_gpu)
			exg_counters_local()->gpu_calls++;
	}
	return st;
}

exg_status
exg_locate_join(const double *pts, uint32_t npts, const exg_solid_set *S,
				const exg_join_options *opt, exg_pair **pairs_out, size_t *npairs_out,
				exg_join_stats *stats, exg_error *err)
{
	return locate_run(pts, npts, S, opt, true, pairs_out, npairs_out, stats, err);
}

exg_status
exg_locate_join_checked_sets(const double *pts, uint32_t npts, const exg_solid_set *S,
							 const exg_join_options *opt, exg_pair **pairs_out,
							 size_t *npairs_out, exg_join_stats *stats, exg_error *err)
{
	return locate_run(pts, npts, S, opt, false, pairs_out, npairs_out, stats, err);
}
