/*
 * self_intersect.c — improper contacts between the faces of one surface.
 */
#include "self_intersect.h"

#include <stdlib.h>
#include <string.h>

#include "cancel.h"
#include "interval_double.h"
#include "join_internal.h"
#include "parallel.h"
#include "predicates_cpu.h"
#include "stats.h"

/* Do triangles A and B (both proper, classified: k, s) meet improperly? */
static bool
improper_contact(const double *const *A, int ka, int sa, const double *const *B, int kb, int sb)
{
	int			match[3] = {-1, -1, -1},	/* vertex of B equal to A[i] */
				shared = 0,
				i,
				j;

	for (i = 0; i < 3; i++)
		for (j = 0; j < 3; j++)
			if (exg_cpu_equal3(A[i], B[j]))
			{
				match[i] = j;
				shared++;
				break;
			}
	if (shared == 0 || shared == 3)
		return true;
	if (shared == 1)
	{
		int			ia = match[0] >= 0 ? 0 : (match[1] >= 0 ? 1 : 2);
		int			ib = match[ia];

		return exg_cpu_segment_triangle_3d(A[(ia + 1) % 3], A[(ia + 2) % 3], B[0], B[1], B[2],
										   kb, sb) == EXG_RESULT_INTERSECTS ||
			exg_cpu_segment_triangle_3d(B[(ib + 1) % 3], B[(ib + 2) % 3], A[0], A[1], A[2],
										ka, sa) == EXG_RESULT_INTERSECTS;
	}
	/* a shared edge p q; a and b the third vertices */
	{
		int			ia = match[0] < 0 ? 0 : (match[1] < 0 ? 1 : 2);
		int			ib = 3 - match[(ia + 1) % 3] - match[(ia + 2) % 3];
		const double *p = A[(ia + 1) % 3],
				   *q = A[(ia + 2) % 3],
				   *a = A[ia],
				   *b = B[ib];
		int			u = (ka + 1) % 3,
					v = (ka + 2) % 3;

		(void) sb;
		if (exg_orient3d_ru(A[0], A[1], A[2], b) != 0)
			return false;
		/* coplanar: A's projection along ka is injective on the plane */
		return exg_orient2d_ru(p, q, a, u, v) == exg_orient2d_ru(p, q, b, u, v);
	}
}

exg_status
exg_self_intersections(const exg_prim_set *T, const uint32_t *face, const exg_join_options *opt,
					   exg_pair **pairs_out, size_t *npairs_out, exg_join_stats *stats,
					   exg_error *err)
{
	return exg_self_intersections_grouped(T, face, NULL, opt, pairs_out, npairs_out, stats, err);
}

exg_status
exg_self_intersections_grouped(const exg_prim_set *T, const uint32_t *face, const uint32_t *group,
							   const exg_join_options *opt, exg_pair **pairs_out,
							   size_t *npairs_out, exg_join_stats *stats, exg_error *err)
{
	exg_pair   *cand = NULL,
			   *out;
	size_t		n = 0,
				m = 0;
	exg_prim   *prims;
	double	   *boxes;
	int			canceled = 0;
	uint64_t	t0;
	exg_status	st;
	long		i;

	*pairs_out = NULL;
	*npairs_out = 0;
	if ((st = exg_join(T, T, opt, &cand, &n, stats, err)) != EXG_OK)
		return st;
	t0 = exg_now_ns();
	prims = malloc(sizeof(exg_prim) * (T->nprims ? T->nprims : 1));
	boxes = malloc(sizeof(double) * 6 * (T->nprims ? T->nprims : 1));
	out = malloc(sizeof(exg_pair) * (n ? n : 1));
	if (prims == NULL || boxes == NULL || out == NULL)
	{
		st = exg_fail(err, EXG_ERR_NOMEM, "out of memory checking self-intersections");
		goto done;
	}
#pragma omp parallel num_threads(exg_threads(opt ? opt->worker_threads : 0))
	{
		exg_round_state saved = exg_round_up_enter();

#pragma omp for schedule(static)
		for (i = 0; i < (long) T->nprims; i++)
			exg_join_classify(T, (uint32_t) i, &prims[i], &boxes[6 * i]);
#pragma omp for schedule(dynamic, 4096)
		for (i = 0; i < (long) n; i++)
		{
			const exg_prim *pa = &prims[cand[i].a],
					   *pb = &prims[cand[i].b];
			const double *A[3],
					   *B[3];

			if ((i & (EXG_CANCEL_STRIDE - 1)) == 0 && exg_cancel_requested())
				exg_flag_set(&canceled);
			if (exg_flag_get(&canceled) || cand[i].a >= cand[i].b ||
				face[cand[i].a] == face[cand[i].b] ||
				(group != NULL && group[cand[i].a] != group[cand[i].b]) ||
				pa->kind != EXG_SIMPLEX_TRIANGLE || pb->kind != EXG_SIMPLEX_TRIANGLE)
				continue;
			for (int k = 0; k < 3; k++)
			{
				A[k] = &T->xyz[3 * (size_t) pa->v[k]];
				B[k] = &T->xyz[3 * (size_t) pb->v[k]];
			}
			if (improper_contact(A, pa->k, pa->s, B, pb->k, pb->s))
			{
				uint32_t	fa = face[cand[i].a],
							fb = face[cand[i].b];
				size_t		slot = __atomic_fetch_add(&m, 1, __ATOMIC_RELAXED);

				out[slot].a = fa < fb ? fa : fb;
				out[slot].b = fa < fb ? fb : fa;
			}
		}
		exg_round_restore(saved);
	}
	if (canceled)
	{
		st = exg_fail(err, EXG_ERR_INTERRUPTED, "canceled");
		goto done;
	}
	m = exg_pairs_sort_unique(out, m);
	*pairs_out = out;
	*npairs_out = m;
	out = NULL;
	if (stats)
		stats->phase_ns[EXG_PHASE_MERGE] += exg_now_ns() - t0;
done:
	exg_join_pairs_free(cand);
	free(prims);
	free(boxes);
	free(out);
	return st;
}
