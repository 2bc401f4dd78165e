/*
 * join_exact.c — the exact CPU pieces every back-end shares: classification
 * of a primitive, the exact test of a pair, and the GMP worker pool that
 * decides pairs a filter left open (the GPU join's last stage,
 * exg_test_pairs on the CPU).
 */
#include "join_internal.h"

#include <stdlib.h>

#include "cancel.h"
#include "parallel.h"
#include "predicates_cpu.h"
#include "stats.h"

void
exg_join_classify(const exg_prim_set *S, uint32_t i, exg_prim *out, double *box)
{
	const uint32_t *vi = &S->vidx[(size_t) i * S->arity];
	const double *x = S->xyz;
	exg_cpu_simplex sx = {0};
	int			t,
				k;

	if (S->arity == 3)
		exg_cpu_classify_triangle(&x[3 * vi[0]], &x[3 * vi[1]], &x[3 * vi[2]], 3, &sx);
	else
		exg_cpu_classify_segment(&x[3 * vi[0]], &x[3 * vi[S->arity - 1]], 3, &sx);
	out->kind = (int8_t) sx.kind;
	out->k = (int8_t) (sx.kind == EXG_SIMPLEX_TRIANGLE ? sx.k : 0);
	out->s = (int8_t) sx.s;
	out->naxes = 3;
	for (t = 0; t < 3; t++)
		out->v[t] = (uint32_t) ((sx.v[t] - x) / 3);
	for (k = 0; k < 3; k++)
	{
		box[k] = box[3 + k] = x[3 * vi[0] + k];
		for (t = 1; t < S->arity; t++)
		{
			double		c = x[3 * vi[t] + k];

			box[k] = c < box[k] ? c : box[k];
			box[3 + k] = c > box[3 + k] ? c : box[3 + k];
		}
	}
}

bool
exg_join_pair_meets(const exg_prim_set *A, const exg_prim *pa, const exg_prim_set *B,
					const exg_prim *pb)
{
	exg_cpu_simplex sa,
				sb;
	exg_counters *c = exg_counters_local();
	uint64_t	gmp_before = c->orient_exact;
	bool		meets;

	exg_cpu_simplex_of(A->xyz, pa, &sa);
	exg_cpu_simplex_of(B->xyz, pb, &sb);
	meets = exg_cpu_simplex_simplex_3d(&sa, &sb) == EXG_RESULT_INTERSECTS;
	/* the pairs GMP decided, as the GPU join counts them (stats->exact_pairs) */
	c->exact_pairs += c->orient_exact != gmp_before;
	return meets;
}

/*
 * Decide each pair exactly on the worker pool: result[t] = 1 when they meet.
 * The one CPU loop behind the GPU join's GMP stage and exg_test_pairs.
 */
static exg_status
decide_pairs(const exg_prim_set *A, const exg_prim_set *B, const exg_pair *pairs, size_t n,
			 int threads, uint8_t *result, uint64_t *exact_pairs, exg_error *err)
{
	int			canceled = 0;
	uint64_t	exact = 0;
	exg_cancel_source cancel_src = exg_cancel_source_get();	/* for the workers */

#pragma omp parallel num_threads(exg_threads(threads))
	{
		exg_cancel_source cancel_saved = exg_cancel_source_adopt(cancel_src);
		exg_round_state saved = exg_round_up_enter();
		exg_counters *c = exg_counters_local();
		uint64_t	exact0 = c->exact_pairs;
		long		t;

#pragma omp for schedule(dynamic, 64)
		for (t = 0; t < (long) n; t++)
		{
			exg_prim	pa,
						pb;
			double		box[6];

			if (exg_flag_get(&canceled))
				continue;
			if ((t & 1023) == 0 && exg_cancel_requested())
				exg_flag_set(&canceled);
			exg_join_classify(A, pairs[t].a, &pa, box);
			exg_join_classify(B, pairs[t].b, &pb, box);
			result[t] = exg_join_pair_meets(A, &pa, B, &pb);
		}
		__atomic_fetch_add(&exact, c->exact_pairs - exact0, __ATOMIC_RELAXED);
		exg_cancel_source_adopt(cancel_saved);
		exg_round_restore(saved);
	}
	if (exact_pairs)
		*exact_pairs = exact;
	return canceled ? exg_fail(err, EXG_ERR_INTERRUPTED, "canceled") : EXG_OK;
}

exg_status
exg_join_decide_pairs(const exg_prim_set *A, const exg_prim_set *B, const exg_pair *pairs,
					  size_t n, int threads, uint8_t *result, exg_error *err)
{
	return decide_pairs(A, B, pairs, n, threads, result, NULL, err);
}

exg_status
exg_join_exact_batch(const exg_prim_set *A, const exg_prim_set *B, const exg_pair *cands,
					 size_t n, int threads, exg_pair *hits_out, size_t *nhits,
					 uint64_t *exact_pairs, exg_error *err)
{
	uint8_t    *hit = calloc(n ? n : 1, 1);
	size_t		i,
				m = 0;
	exg_status	st;

	if (hit == NULL)
		return exg_fail(err, EXG_ERR_NOMEM, "out of memory for exact re-evaluation");
	if ((st = decide_pairs(A, B, cands, n, threads, hit, exact_pairs, err)) != EXG_OK)
	{
		free(hit);
		return st;
	}
	for (i = 0; i < n; i++)
		if (hit[i])
			hits_out[m++] = cands[i];
	*nhits = m;
	free(hit);
	return EXG_OK;
}
