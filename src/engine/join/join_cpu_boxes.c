/*
 * join_cpu_boxes.c — the CPU join with the box join as its first stage:
 * the primitives' exact boxes go through the CPU box join (a grid per
 * side, work units, the reference-point rule: each meeting pair once), and
 * its worker threads test each unit's candidates exactly (interval -> GMP
 * cascade) where they are found, so candidates are never stored; only the
 * intersecting pairs reach the calling thread, which collects them.
 */
#include "join_internal.h"
#include "join_cpu_pair.h"

#include <stdlib.h>
#include <string.h>

#include "box_join_internal.h"
#include "cancel.h"
#include "interval_double.h"
#include "parallel.h"
#include "stats.h"

/* What the worker threads' filter reads, and what it counts. */
typedef struct exact_filter
{
	const exg_prim_set *A,
			   *B;
	const exg_prim *pa,
			   *pb;
	const exg_plane_static *qa,
			   *qb;
	uint64_t	candidates;		/* pairs tested (atomic) */
	int			canceled;
} exact_filter;

/* Keep the pairs that intersect; called by box join workers. */
static size_t
keep_intersecting(void *arg, exg_pair *pairs, size_t n)
{
	exact_filter *f = arg;
	exg_round_state saved;
	size_t		i,
				m = 0;

	if (exg_flag_get(&f->canceled))
		return 0;
	__atomic_fetch_add(&f->candidates, (uint64_t) n, __ATOMIC_RELAXED);
	saved = exg_round_up_enter();
	for (i = 0; i < n; i++)
	{
		/* a unit may hold millions of candidates; a GMP test takes microseconds */
		if ((i & 4095) == 4095 && (exg_flag_get(&f->canceled) || exg_cancel_requested()))
		{
			exg_flag_set(&f->canceled);
			break;
		}
		if (exg_join_cpu_pair_meets(f->A, &f->pa[pairs[i].a], &f->qa[pairs[i].a],
									f->B, &f->pb[pairs[i].b], &f->qb[pairs[i].b]))
			pairs[m++] = pairs[i];
	}
	exg_round_restore(saved);
	return m;
}

/* Collect the hits on the calling thread. */
static exg_status
collect(void *arg, const exg_pair *pairs, size_t n)
{
	exg_pair_buffer *out = arg;

	if (!exg_pair_reserve(out, n))
		return EXG_ERR_NOMEM;
	memcpy(out->p + out->n, pairs, n * sizeof(exg_pair));
	out->n += n;
	return EXG_OK;
}

exg_status
exg_join_cpu_boxes(const exg_prim_set *A, const exg_prim_set *B, const exg_join_options *opt,
				   exg_pair **pairs_out, size_t *npairs_out, exg_join_stats *stats,
				   exg_error *err)
{
	int			threads = exg_threads(opt->worker_threads);
	exg_prim   *pa = NULL,
			   *pb = NULL;
	double	   *ba = NULL,
			   *bb = NULL;
	exg_plane_static *qa = NULL,
			   *qb = NULL;
	exg_pair_buffer hits = {0};
	exact_filter f = {A, B, NULL, NULL, NULL, NULL, 0, 0};
	exg_join_stats bst = {0};
	exg_round_state mode;
	uint64_t	t = exg_now_ns();
	exg_status	st;

	if ((st = exg_join_classify_all(A, threads, &pa, &ba, &qa, err)) != EXG_OK ||
		(st = exg_join_classify_all(B, threads, &pb, &bb, &qb, err)) != EXG_OK)
		goto done;
	stats->phase_ns[EXG_PHASE_CLASSIFY] = exg_now_ns() - t;
	f.pa = pa;
	f.pb = pb;
	f.qa = qa;
	f.qb = qb;

	/* the box join's cells in round-to-nearest, without FTZ/DAZ (box_join.h) */
	{
		exg_box_set sa = {ba, A->nprims},
					sb = {bb, B->nprims};

		mode = exg_round_nearest_enter();
		st = exg_box_join_cpu(&sa, &sb, 3, opt, keep_intersecting, &f, collect, &hits, &bst, err);
		exg_round_restore(mode);
	}
	if (st == EXG_OK && f.canceled)
		st = exg_fail(err, EXG_ERR_INTERRUPTED, "canceled");
	/* a non-finite coordinate fails here with the box join's EXG_ERR_ARGUMENT (join.h) */
	memcpy(stats->grid_dims, bst.grid_dims, sizeof(bst.grid_dims));
	stats->grid_entries = bst.grid_entries;
	stats->cell_pairs = bst.cell_pairs;
	stats->candidates = f.candidates;
	stats->waves = bst.waves;
	stats->phase_ns[EXG_PHASE_GRID] = bst.phase_ns[EXG_PHASE_GRID];
	stats->phase_ns[EXG_PHASE_CULL] = bst.phase_ns[EXG_PHASE_CULL];
	stats->phase_ns[EXG_PHASE_TEST] = bst.phase_ns[EXG_PHASE_TEST];
	exg_counters_local()->pair_tests += f.candidates;
	if (st != EXG_OK)
		goto done;

	t = exg_now_ns();
	*npairs_out = exg_pairs_sort_unique_threads(hits.p, hits.n, threads);
	*pairs_out = hits.p ? hits.p : malloc(sizeof(exg_pair));
	hits.p = NULL;
	if (*pairs_out == NULL)
		st = exg_fail(err, EXG_ERR_NOMEM, "out of memory for join results");
	stats->phase_ns[EXG_PHASE_DEDUPE] = exg_now_ns() - t;

done:
	free(hits.p);
	free(pa);
	free(pb);
	free(ba);
	free(bb);
	free(qa);
	free(qb);
	return st;
}
