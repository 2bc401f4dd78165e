/*
 * locate_join.c — batch point-in-solid: entry point, checks and choice of
 * back-end (locate_join_cpu.c, locate_join_gpu.cu).
 */
#include "locate_join.h"

#include <stdlib.h>

#include "gpu.h"
#include "join_internal.h"
#include "mesh_edges.h"
#include "solid_check.h"
#include "stats.h"

/*
 * Every body with a well-defined inside (solid_check.h): closed, and not
 * overlapping itself (parity counts an overlap as outside)? EXG_ERR_NOT_SOLID
 * naming the first that is not.
 */
static exg_status
check_bodies(const exg_solid_set *S, const exg_join_options *opt, exg_error *err)
{
	exg_edge_report *rep = malloc(sizeof(exg_edge_report) * (S->nbodies ? S->nbodies : 1));
	bool	   *oriented = malloc(sizeof(bool) * (S->nbodies ? S->nbodies : 1));
	exg_status	st;
	uint32_t	b;

	if (rep == NULL || oriented == NULL)
	{
		free(rep);
		free(oriented);
		return exg_fail(err, EXG_ERR_NOMEM, "out of memory checking bodies");
	}
	st = exg_mesh_edges(&S->tris, S->body, S->nbodies, rep, err);
	for (b = 0; st == EXG_OK && b < S->nbodies; b++)
	{
		oriented[b] = rep[b].unbalanced == 0;
		if (rep[b].odd)
		{
			st = exg_fail(err, EXG_ERR_NOT_SOLID,
						  "not closed: %llu edges used by an odd number of faces, e.g. (%.17g %.17g %.17g)-(%.17g %.17g %.17g)",
						  (unsigned long long) rep[b].odd, rep[b].example[0], rep[b].example[1],
						  rep[b].example[2], rep[b].example[3], rep[b].example[4], rep[b].example[5]);
			if (err)
			{
				err->row = (uint64_t) b + 1;
				err->side = 1;
			}
		}
	}
	if (st == EXG_OK)
		st = exg_solid_set_check_self(&S->tris, S->body, S->nbodies, oriented, 1, opt, err);
	free(rep);
	free(oriented);
	return st;
}

exg_status
exg_locate_join(const double *pts, uint32_t npts, const exg_solid_set *S,
				const exg_join_options *opt_in, exg_pair **pairs_out, size_t *npairs_out,
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
	if ((st = exg_prim_set_check(&S->tris, "bodies", opt.worker_threads, err)) != EXG_OK)
		return st;
	if (npts > 0 && pts == NULL)
		return exg_fail(err, EXG_ERR_ARGUMENT, "points: missing array");
	for (t = 0; t < S->tris.nprims; t++)
		if (S->body[t] >= S->nbodies || (t > 0 && S->body[t] < S->body[t - 1]))
			return exg_fail(err, EXG_ERR_ARGUMENT,
							"bodies: body ids must be non-decreasing and below %u", S->nbodies);
	if ((st = check_bodies(S, &opt, err)) != EXG_OK)
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
