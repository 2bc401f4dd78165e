/*
 * join_cpu_pair.h — the CPU join's exact pair test with per-triangle planes.
 *
 * A triangle meets tens of others in a join, and each triangle-triangle
 * test starts with the six signs of one triangle's vertices against the
 * other's plane. Keeping each triangle's normal (and the magnitudes the
 * static filter's bound needs, orient_static.h) turns each of those signs
 * into a dot product and a compare; a sign the static filter cannot certify
 * is recomputed by the full cascade (intervals, GMP) from the vertices.
 * The case analysis after the signs is the shared one (intersect_logic.h),
 * so the result is exg_join_pair_meets's, bit for bit.
 */
#ifndef EXG_JOIN_CPU_PAIR_H
#define EXG_JOIN_CPU_PAIR_H

#include "join_internal.h"
#include "orient_static.h"
#include "predicates_cpu.h"

/* Sign of orient3d(T, d) through T's plane; exact. Assumes upward rounding. */
static inline int
exg_join_plane_sign(const exg_plane_static *q, const exg_cpu_pt *T, const double *d)
{
	int			s = exg_plane_side_static(q, d);

	if (s != EXG_SIGN_UNKNOWN)
		return s;
	return exg_orient3d_ru(T[0], T[1], T[2], d);
}

/*
 * Exact closed-set test of two classified primitives whose boxes meet;
 * qa, qb their planes (used for triangles only). Assumes upward rounding.
 */
static inline bool
exg_join_cpu_pair_meets(const exg_prim_set *A, const exg_prim *pa, const exg_plane_static *qa,
						const exg_prim_set *B, const exg_prim *pb, const exg_plane_static *qb)
{
	exg_cpu_simplex sa,
				sb;
	int			su[3],
				st[3];

	if (pa->kind != EXG_SIMPLEX_TRIANGLE || pb->kind != EXG_SIMPLEX_TRIANGLE)
		return exg_join_pair_meets(A, pa, B, pb);
	exg_cpu_simplex_of(A->xyz, pa, &sa);
	exg_cpu_simplex_of(B->xyz, pb, &sb);
	/* as exg_cpu_simplex_simplex_3d: a shared vertex decides at once */
	if (exg_cpu_share_vertex(&sa, &sb, 3))
		return true;
	/* exg_cpu_triangle_triangle_3d with its signs from the planes */
	for (int e = 0; e < 3; e++)
		su[e] = exg_join_plane_sign(qa, sa.v, sb.v[e]);
	if (su[0] == su[1] && su[1] == su[2] && su[0] != 0)
		return false;
	for (int e = 0; e < 3; e++)
		st[e] = exg_join_plane_sign(qb, sb.v, sa.v[e]);
	return exg_cpu_triangle_triangle_3d_signs(sa.v, sa.k, sa.s, sb.v, sb.k, sb.s, su,
											  st) == EXG_RESULT_INTERSECTS;
}

#endif							/* EXG_JOIN_CPU_PAIR_H */
