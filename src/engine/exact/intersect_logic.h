/*
 * intersect_logic.h — closed-set intersection of points, segments and
 * triangles, decided from orientation signs and exact comparisons alone.
 *
 * Written once, instantiated per number type: the CPU instantiates it with
 * exact signs (never unknown), the GPU with float and double interval signs
 * (which may be unknown). Because the case analysis is shared, the paths
 * cannot drift apart; they differ only in how a sign is obtained.
 *
 * Before including, define:
 *   LG_QUAL               function qualifiers (static inline, __device__ ...)
 *   LG_NAME(x)            name of an instantiated function
 *   LG_O3(a, b, c, d)     sign of ((b-a) x (c-a)) . (d-a), or EXG_SIGN_UNKNOWN
 *   LG_O2(a, b, c, i, j)  sign of the 2D orientation of the points projected
 *                         on axes (i, j), or EXG_SIGN_UNKNOWN
 * and optionally (defaults: points are const double *, read with p[k]):
 *   LG_PT                the type of a point handle
 *   LG_C(p, k)            coordinate k of point p, as an exact double
 * 3D code reads axes 0..2, 2D code reads axes i and j only.
 *
 * Results are EXG_RESULT_DISJOINT, EXG_RESULT_INTERSECTS or EXG_RESULT_UNKNOWN.
 * An unknown sign never leads to a wrong answer: a test says UNKNOWN unless
 * the signs it does know already decide it (an OR with one known true term
 * is true, an AND with one known false term is false).
 *
 * Correctness notes (why these cases suffice):
 *  - A coplanar configuration is decided in a coordinate projection that is
 *    injective on its plane: drop axis k where the plane normal's component
 *    k is non-zero (component k of (b-a)x(c-a) is LG_O2 over the other two
 *    axes in cyclic order, so its sign is exact too).
 *  - Collinear points are ordered along their line by lexicographic order of
 *    (x, y, z), so 1D overlap and the span of a degenerate triangle need only
 *    comparisons of input doubles.
 *  - Two non-coplanar triangles: Guigue and Devillers' test on the line of
 *    the two planes (see triangle_triangle_3d_signs).
 */
#include "simplex.h"

#if !defined(LG_QUAL) || !defined(LG_NAME) || !defined(LG_O3) || !defined(LG_O2)
#error "define LG_QUAL, LG_NAME, LG_O3 and LG_O2 before including intersect_logic.h"
#endif
#ifndef LG_PT
#define LG_PT const double *
#define LG_PT_DEFAULTED
#endif
#ifndef LG_C
#define LG_C(p, k) ((p)[k])
#define LG_C_DEFAULTED
#endif

/* The point handle type, so that "const LG_NAME(pt) *" is an array of handles. */
typedef LG_PT LG_NAME(pt);

/* Known and strictly opposite: both signs decided and of different sign. */
#define LG_OPPOSITE(s, t) ((s) != EXG_SIGN_UNKNOWN && (t) != EXG_SIGN_UNKNOWN && (s) * (t) < 0)
#define LG_UNK(s) ((s) == EXG_SIGN_UNKNOWN)

/* ---- exact comparisons (no arithmetic, so exact on every back-end) ---- */

LG_QUAL int
LG_NAME(equal3)(LG_PT a, LG_PT b)
{
	return LG_C(a, 0) == LG_C(b, 0) && LG_C(a, 1) == LG_C(b, 1) && LG_C(a, 2) == LG_C(b, 2);
}

LG_QUAL int
LG_NAME(equal2)(LG_PT a, LG_PT b, int i, int j)
{
	return LG_C(a, i) == LG_C(b, i) && LG_C(a, j) == LG_C(b, j);
}

/* Lexicographic a < b over the given axes (3 axes in 3D, (i, j) in 2D). */
LG_QUAL int
LG_NAME(lexless)(LG_PT a, LG_PT b, int naxes, int i, int j)
{
	if (LG_C(a, i) != LG_C(b, i))
		return LG_C(a, i) < LG_C(b, i);
	if (naxes == 2 || LG_C(a, j) != LG_C(b, j))
		return LG_C(a, j) < LG_C(b, j);
	return LG_C(a, 3 - i - j) < LG_C(b, 3 - i - j);
}

/* p inside the closed axis-aligned box of a and b, on the given axes. */
LG_QUAL int
LG_NAME(inbox_axis)(LG_PT p, LG_PT a, LG_PT b, int k)
{
	double		ak = LG_C(a, k),
				bk = LG_C(b, k),
				pk = LG_C(p, k);

	return (ak < bk ? ak : bk) <= pk && pk <= (ak < bk ? bk : ak);
}

LG_QUAL int
LG_NAME(inbox2)(LG_PT p, LG_PT a, LG_PT b, int i, int j)
{
	return LG_NAME(inbox_axis)(p, a, b, i) && LG_NAME(inbox_axis)(p, a, b, j);
}

LG_QUAL int
LG_NAME(inbox3)(LG_PT p, LG_PT a, LG_PT b)
{
	return LG_NAME(inbox_axis)(p, a, b, 0) && LG_NAME(inbox_axis)(p, a, b, 1) &&
		LG_NAME(inbox_axis)(p, a, b, 2);
}

/* Do the closed boxes of point sets A (na points) and B (nb) overlap on axis k? */
LG_QUAL int
LG_NAME(boxes_meet_axis)(const LG_NAME(pt) *A, int na, const LG_NAME(pt) *B,
						 int nb, int k)
{
	double		alo = LG_C(A[0], k),
				ahi = alo,
				blo = LG_C(B[0], k),
				bhi = blo;
	int			t;

	for (t = 1; t < na; t++)
	{
		double		c = LG_C(A[t], k);

		alo = c < alo ? c : alo;
		ahi = c > ahi ? c : ahi;
	}
	for (t = 1; t < nb; t++)
	{
		double		c = LG_C(B[t], k);

		blo = c < blo ? c : blo;
		bhi = c > bhi ? c : bhi;
	}
	return alo <= bhi && blo <= ahi;
}

/* ---- plane normals and projections ---- */

/*
 * Signs of the components of (b-a) x (c-a): n[k] is the 2D orientation over
 * the two other axes in cyclic order. Returns the axis k to drop for an
 * injective projection (n[k] known non-zero), -1 if the three points are
 * certainly collinear, -2 if that cannot be decided.
 */
LG_QUAL int
LG_NAME(normal_axis)(LG_PT a, LG_PT b, LG_PT c, int *s_out)
{
	int			n0 = LG_O2(a, b, c, 1, 2);
	int			n1,
				n2;

	if (n0 == 1 || n0 == -1)
	{
		*s_out = n0;
		return 0;
	}
	n1 = LG_O2(a, b, c, 2, 0);
	if (n1 == 1 || n1 == -1)
	{
		*s_out = n1;
		return 1;
	}
	n2 = LG_O2(a, b, c, 0, 1);
	if (n2 == 1 || n2 == -1)
	{
		*s_out = n2;
		return 2;
	}
	return (LG_UNK(n0) || LG_UNK(n1) || LG_UNK(n2)) ? -2 : -1;
}

/* ---- tests in a 2D projection (axes i, j); also the 2D predicates ---- */

/* Point on closed segment ab, in projection (i, j). Any degeneracy allowed. */
LG_QUAL int
LG_NAME(point_segment_proj)(LG_PT p, LG_PT a, LG_PT b,
							int i, int j)
{
	int			o;

	if (!LG_NAME(inbox2)(p, a, b, i, j))
		return EXG_RESULT_DISJOINT;
	o = LG_O2(a, b, p, i, j);
	if (LG_UNK(o))
		return EXG_RESULT_UNKNOWN;
	return o == 0 ? EXG_RESULT_INTERSECTS : EXG_RESULT_DISJOINT;
}

/*
 * Closed segments pq and rs in projection (i, j). The classic four-sign test
 * is also right for degenerate segments: a zero-length segment makes its two
 * signs zero and reduces the test to the point-on-segment checks.
 */
LG_QUAL int
LG_NAME(segment_segment_proj)(LG_PT p, LG_PT q, LG_PT r,
							  LG_PT s, int i, int j)
{
	LG_PT A[2] = {p, q};
	LG_PT B[2] = {r, s};
	int			d1,
				d2,
				d3,
				d4;

	if (!LG_NAME(boxes_meet_axis)(A, 2, B, 2, i) ||
		!LG_NAME(boxes_meet_axis)(A, 2, B, 2, j))
		return EXG_RESULT_DISJOINT;
	d1 = LG_O2(r, s, p, i, j);
	d2 = LG_O2(r, s, q, i, j);
	if (d1 == d2 && (d1 == 1 || d1 == -1))
		return EXG_RESULT_DISJOINT;
	d3 = LG_O2(p, q, r, i, j);
	d4 = LG_O2(p, q, s, i, j);
	if (d3 == d4 && (d3 == 1 || d3 == -1))
		return EXG_RESULT_DISJOINT;
	if (LG_UNK(d1) || LG_UNK(d2) || LG_UNK(d3) || LG_UNK(d4))
		return EXG_RESULT_UNKNOWN;
	if (d1 * d2 < 0 && d3 * d4 < 0)
		return EXG_RESULT_INTERSECTS;
	if ((d1 == 0 && LG_NAME(inbox2)(p, r, s, i, j)) ||
		(d2 == 0 && LG_NAME(inbox2)(q, r, s, i, j)) ||
		(d3 == 0 && LG_NAME(inbox2)(r, p, q, i, j)) ||
		(d4 == 0 && LG_NAME(inbox2)(s, p, q, i, j)))
		return EXG_RESULT_INTERSECTS;
	return EXG_RESULT_DISJOINT;
}

/*
 * Point in closed non-degenerate triangle abc in projection (i, j), where
 * the triangle's orientation there is s (+1 or -1).
 */
LG_QUAL int
LG_NAME(point_triangle_proj)(LG_PT p, LG_PT a, LG_PT b,
							 LG_PT c, int i, int j, int s)
{
	int			e1 = LG_O2(a, b, p, i, j);
	int			e2,
				e3;

	if (e1 == -s)
		return EXG_RESULT_DISJOINT;
	e2 = LG_O2(b, c, p, i, j);
	if (e2 == -s)
		return EXG_RESULT_DISJOINT;
	e3 = LG_O2(c, a, p, i, j);
	if (e3 == -s)
		return EXG_RESULT_DISJOINT;
	if (LG_UNK(e1) || LG_UNK(e2) || LG_UNK(e3))
		return EXG_RESULT_UNKNOWN;
	return EXG_RESULT_INTERSECTS;
}

/* OR of tri-state results: fold r into *acc; returns 1 when decided true. */
LG_QUAL int
LG_NAME(or_fold)(int *acc, int r)
{
	if (r == EXG_RESULT_INTERSECTS)
	{
		*acc = EXG_RESULT_INTERSECTS;
		return 1;
	}
	if (r == EXG_RESULT_UNKNOWN)
		*acc = EXG_RESULT_UNKNOWN;
	return 0;
}

/* Closed segment pq against closed non-degenerate triangle abc, projected. */
LG_QUAL int
LG_NAME(segment_triangle_proj)(LG_PT p, LG_PT q, LG_PT a,
							   LG_PT b, LG_PT c, int i, int j, int s)
{
	int			acc = EXG_RESULT_DISJOINT;

	/* Either pq crosses the boundary or it lies inside, p with it. */
	if (LG_NAME(or_fold)(&acc, LG_NAME(point_triangle_proj)(p, a, b, c, i, j, s)) ||
		LG_NAME(or_fold)(&acc, LG_NAME(segment_segment_proj)(p, q, a, b, i, j)) ||
		LG_NAME(or_fold)(&acc, LG_NAME(segment_segment_proj)(p, q, b, c, i, j)) ||
		LG_NAME(or_fold)(&acc, LG_NAME(segment_segment_proj)(p, q, c, a, i, j)))
		return EXG_RESULT_INTERSECTS;
	return acc;
}

/* Two closed non-degenerate triangles, projected; s, t their orientations. */
LG_QUAL int
LG_NAME(triangle_triangle_proj)(const LG_NAME(pt) *T, int s, const LG_NAME(pt) *U,
								int t, int i, int j)
{
	int			acc = EXG_RESULT_DISJOINT;
	int			e,
				f;

	/* Boundaries cross, or (no crossing) one triangle holds the other. */
	for (e = 0; e < 3; e++)
		for (f = 0; f < 3; f++)
			if (LG_NAME(or_fold)(&acc, LG_NAME(segment_segment_proj)(T[e], T[(e + 1) % 3],
																	 U[f], U[(f + 1) % 3],
																	 i, j)))
				return EXG_RESULT_INTERSECTS;
	if (LG_NAME(or_fold)(&acc, LG_NAME(point_triangle_proj)(U[0], T[0], T[1], T[2], i, j, s)) ||
		LG_NAME(or_fold)(&acc, LG_NAME(point_triangle_proj)(T[0], U[0], U[1], U[2], i, j, t)))
		return EXG_RESULT_INTERSECTS;
	return acc;
}

/* ---- 3D tests on non-degenerate primitives ---- */

/* Point on closed segment ab (a != b) in 3D: collinear and inside the box. */
LG_QUAL int
LG_NAME(point_segment_3d)(LG_PT p, LG_PT a, LG_PT b)
{
	int			unknown = 0;
	int			k;

	if (!LG_NAME(inbox3)(p, a, b))
		return EXG_RESULT_DISJOINT;
	for (k = 0; k < 3; k++)
	{
		int			o = LG_O2(a, b, p, (k + 1) % 3, (k + 2) % 3);

		if (o == 1 || o == -1)
			return EXG_RESULT_DISJOINT;
		unknown |= LG_UNK(o);
	}
	return unknown ? EXG_RESULT_UNKNOWN : EXG_RESULT_INTERSECTS;
}

/* Point in closed triangle abc; k is its projection axis, s its orientation there. */
LG_QUAL int
LG_NAME(point_triangle_3d)(LG_PT p, LG_PT a, LG_PT b,
						   LG_PT c, int k, int s)
{
	LG_PT A[1] = {p};
	LG_PT B[3] = {a, b, c};
	int			o;

	if (!LG_NAME(boxes_meet_axis)(A, 1, B, 3, 0) ||
		!LG_NAME(boxes_meet_axis)(A, 1, B, 3, 1) ||
		!LG_NAME(boxes_meet_axis)(A, 1, B, 3, 2))
		return EXG_RESULT_DISJOINT;
	o = LG_O3(a, b, c, p);
	if (LG_UNK(o))
		return EXG_RESULT_UNKNOWN;
	if (o != 0)
		return EXG_RESULT_DISJOINT;
	return LG_NAME(point_triangle_proj)(p, a, b, c, (k + 1) % 3, (k + 2) % 3, s);
}

/* Closed segments pq (p != q) and rs (r != s) in 3D. */
LG_QUAL int
LG_NAME(segment_segment_3d)(LG_PT p, LG_PT q, LG_PT r,
							LG_PT s)
{
	LG_PT A[2] = {p, q};
	LG_PT B[2] = {r, s};
	int			o,
				k,
				sg;

	if (!LG_NAME(boxes_meet_axis)(A, 2, B, 2, 0) ||
		!LG_NAME(boxes_meet_axis)(A, 2, B, 2, 1) ||
		!LG_NAME(boxes_meet_axis)(A, 2, B, 2, 2))
		return EXG_RESULT_DISJOINT;
	o = LG_O3(p, q, r, s);
	if (LG_UNK(o))
		return EXG_RESULT_UNKNOWN;
	if (o != 0)
		return EXG_RESULT_DISJOINT;

	/* Coplanar: find the plane through a non-collinear triple, if any. */
	k = LG_NAME(normal_axis)(p, q, r, &sg);
	if (k == -1)
		k = LG_NAME(normal_axis)(p, q, s, &sg);
	if (k == -2)
		return EXG_RESULT_UNKNOWN;
	if (k >= 0)
		return LG_NAME(segment_segment_proj)(p, q, r, s, (k + 1) % 3, (k + 2) % 3);

	/* All four on one line: overlap of lexicographic intervals. */
	{
		LG_PT plo = LG_NAME(lexless)(q, p, 3, 0, 1) ? q : p;
		LG_PT phi = plo == p ? q : p;
		LG_PT rlo = LG_NAME(lexless)(s, r, 3, 0, 1) ? s : r;
		LG_PT rhi = rlo == r ? s : r;

		if (LG_NAME(lexless)(phi, rlo, 3, 0, 1) || LG_NAME(lexless)(rhi, plo, 3, 0, 1))
			return EXG_RESULT_DISJOINT;
		return EXG_RESULT_INTERSECTS;
	}
}

/*
 * Closed segment pq (p != q) against closed non-degenerate triangle abc with
 * projection axis k and orientation s there; sp, sq are O3(a, b, c, p) and
 * O3(a, b, c, q), passed in because triangle-triangle already has them.
 */
LG_QUAL int
LG_NAME(segment_triangle_3d_signs)(LG_PT p, LG_PT q, LG_PT a,
								   LG_PT b, LG_PT c, int k, int s,
								   int sp, int sq)
{
	int			t1,
				t2,
				t3;

	if (sp == sq && (sp == 1 || sp == -1))
		return EXG_RESULT_DISJOINT;
	if (LG_UNK(sp) || LG_UNK(sq))
		return EXG_RESULT_UNKNOWN;
	if (sp == 0 && sq == 0)
		return LG_NAME(segment_triangle_proj)(p, q, a, b, c, (k + 1) % 3, (k + 2) % 3, s);

	/*
	 * pq meets the plane in exactly one point X; X is in the closed triangle
	 * iff line pq passes all three directed edges on the same side (or on
	 * them).
	 */
	t1 = LG_O3(p, q, a, b);
	t2 = LG_O3(p, q, b, c);
	if (LG_OPPOSITE(t1, t2))
		return EXG_RESULT_DISJOINT;
	t3 = LG_O3(p, q, c, a);
	if (LG_OPPOSITE(t1, t3) || LG_OPPOSITE(t2, t3))
		return EXG_RESULT_DISJOINT;
	if (LG_UNK(t1) || LG_UNK(t2) || LG_UNK(t3))
		return EXG_RESULT_UNKNOWN;
	return EXG_RESULT_INTERSECTS;
}

LG_QUAL int
LG_NAME(segment_triangle_3d)(LG_PT p, LG_PT q, LG_PT a,
							 LG_PT b, LG_PT c, int k, int s)
{
	LG_PT A[2] = {p, q};
	LG_PT B[3] = {a, b, c};

	if (!LG_NAME(boxes_meet_axis)(A, 2, B, 3, 0) ||
		!LG_NAME(boxes_meet_axis)(A, 2, B, 3, 1) ||
		!LG_NAME(boxes_meet_axis)(A, 2, B, 3, 2))
		return EXG_RESULT_DISJOINT;
	return LG_NAME(segment_triangle_3d_signs)(p, q, a, b, c, k, s,
											  LG_O3(a, b, c, p), LG_O3(a, b, c, q));
}

/* Coplanar non-degenerate triangles, decided in T's injective projection. */
LG_QUAL int
LG_NAME(triangle_triangle_coplanar)(const LG_NAME(pt) *T, int kT, int sT,
									const LG_NAME(pt) *U)
{
	int			i = (kT + 1) % 3,
				j = (kT + 2) % 3;
	int			t = LG_O2(U[0], U[1], U[2], i, j);

	if (LG_UNK(t))
		return EXG_RESULT_UNKNOWN;
	return LG_NAME(triangle_triangle_proj)(T, sT, U, t, i, j);
}

/*
 * Guigue and Devillers' interval test (2003) for two non-coplanar triangles
 * once their vertices are ordered so that p1 (and p2) is alone on its side
 * of the other's plane: the line of the two planes crosses both triangles
 * and the closed intervals overlap iff neither check finds a strict
 * separation. Two more orientations decide it.
 */
LG_QUAL int
LG_NAME(gd_check_min_max)(LG_PT p1, LG_PT q1, LG_PT r1, LG_PT p2, LG_PT q2, LG_PT r2)
{
	int			a = LG_O3(q1, p2, p1, q2);
	int			b;

	if (a == 1)
		return EXG_RESULT_DISJOINT;
	b = LG_O3(p1, p2, r1, r2);
	if (b == 1)
		return EXG_RESULT_DISJOINT;
	return (LG_UNK(a) || LG_UNK(b)) ? EXG_RESULT_UNKNOWN : EXG_RESULT_INTERSECTS;
}

/*
 * Order the second triangle so that p2 is alone on its side of the first's
 * plane (signs dp2, dq2, dr2), then check. The branches only choose an
 * order; the check itself is written once, which keeps GPU code small.
 */
LG_QUAL int
LG_NAME(gd_tri_tri)(LG_PT p1, LG_PT q1, LG_PT r1, LG_PT p2, LG_PT q2, LG_PT r2,
					int dp2, int dq2, int dr2)
{
	/* rot: 0 = (p2 q2 r2), 1 = (r2 p2 q2), 2 = (q2 r2 p2); flip: swap q1, r1 */
	int			rot,
				flip;
	LG_NAME(pt) a2,
				b2,
				c2;

	if (dp2 > 0)
	{
		flip = (dq2 > 0 || dr2 > 0);
		rot = dq2 > 0 ? 1 : (dr2 > 0 ? 2 : 0);
	}
	else if (dp2 < 0)
	{
		flip = !(dq2 < 0 || dr2 < 0);
		rot = dq2 < 0 ? 1 : (dr2 < 0 ? 2 : 0);
	}
	else if (dq2 < 0)
	{
		flip = dr2 >= 0;
		rot = dr2 >= 0 ? 2 : 0;
	}
	else if (dq2 > 0)
	{
		flip = dr2 > 0;
		rot = dr2 > 0 ? 0 : 2;
	}
	else
	{
		/* dq2 == 0 and dp2 == 0: dr2 != 0 (all zero is coplanar, the caller's) */
		flip = dr2 < 0;
		rot = 1;
	}
	a2 = rot == 0 ? p2 : (rot == 1 ? r2 : q2);
	b2 = rot == 0 ? q2 : (rot == 1 ? p2 : r2);
	c2 = rot == 0 ? r2 : (rot == 1 ? q2 : p2);
	return flip ? LG_NAME(gd_check_min_max)(p1, r1, q1, a2, b2, c2)
		: LG_NAME(gd_check_min_max)(p1, q1, r1, a2, b2, c2);
}

/*
 * Closed non-degenerate triangles T and U (vertex handle triples) with
 * projection axes kT, kU and orientations sT, sU there, given the signs of
 * U's vertices against T's plane (su) and of T's against U's (st): a filter
 * that keeps triangle normals computes those more cheaply, with the same
 * formula (orient_formula.h).
 *
 * Coplanar triangles are decided in a projection; otherwise Guigue and
 * Devillers' test: permute T so that its first vertex is alone on its side
 * of U's plane, then U likewise (gd_tri_tri). Their analysis covers every
 * sign pattern with zeros (vertices on the other plane) for non-degenerate
 * triangles, as the independent reference confirms (test_differential).
 */
LG_QUAL int
LG_NAME(triangle_triangle_3d_signs)(const LG_NAME(pt) *T, int kT, int sT,
									const LG_NAME(pt) *U, int kU, int sU,
									const int *su, const int *st)
{
	LG_NAME(pt) p1 = T[0],
				q1 = T[1],
				r1 = T[2],
				p2 = U[0],
				q2 = U[1],
				r2 = U[2];
	int			dp1 = st[0],
				dq1 = st[1],
				dr1 = st[2],
				dp2 = su[0],
				dq2 = su[1],
				dr2 = su[2];

	(void) kU;
	(void) sU;
	/* U strictly on one side of T's plane, or T of U's: disjoint. */
	if (dp2 == dq2 && dq2 == dr2 && (dp2 == 1 || dp2 == -1))
		return EXG_RESULT_DISJOINT;
	if (dp1 == dq1 && dq1 == dr1 && (dp1 == 1 || dp1 == -1))
		return EXG_RESULT_DISJOINT;
	if (dp2 == 0 && dq2 == 0 && dr2 == 0)
		return LG_NAME(triangle_triangle_coplanar)(T, kT, sT, U);
	if (LG_UNK(dp1) || LG_UNK(dq1) || LG_UNK(dr1) ||
		LG_UNK(dp2) || LG_UNK(dq2) || LG_UNK(dr2))
		return EXG_RESULT_UNKNOWN;

	/*
	 * Rotate T so that p1 is alone on its side of U's plane; when T's
	 * rotation differs in orientation from the reference case, U is taken
	 * in the other order (q2 <-> r2, with their signs).
	 */
	{
		int			rot,
					flip;
		LG_NAME(pt) a1,
					b1,
					c1;

		if (dp1 > 0)
		{
			rot = dq1 > 0 ? 2 : (dr1 > 0 ? 1 : 0);
			flip = (dq1 > 0 || dr1 > 0);
		}
		else if (dp1 < 0)
		{
			rot = dq1 < 0 ? 2 : (dr1 < 0 ? 1 : 0);
			flip = !(dq1 < 0 || dr1 < 0);
		}
		else if (dq1 < 0)
		{
			rot = dr1 >= 0 ? 1 : 0;
			flip = dr1 >= 0;
		}
		else if (dq1 > 0)
		{
			rot = dr1 > 0 ? 0 : 1;
			flip = dr1 > 0;
		}
		else if (dr1 != 0)
		{
			rot = 2;
			flip = dr1 < 0;
		}
		else
			return EXG_RESULT_UNKNOWN;	/* all of T on U's plane while U is not on T's:
										 * impossible for exact signs */
		/* rot 0 = (p1 q1 r1), 1 = (q1 r1 p1), 2 = (r1 p1 q1) */
		a1 = rot == 0 ? p1 : (rot == 1 ? q1 : r1);
		b1 = rot == 0 ? q1 : (rot == 1 ? r1 : p1);
		c1 = rot == 0 ? r1 : (rot == 1 ? p1 : q1);
		return flip ? LG_NAME(gd_tri_tri)(a1, b1, c1, p2, r2, q2, dp2, dr2, dq2)
			: LG_NAME(gd_tri_tri)(a1, b1, c1, p2, q2, r2, dp2, dq2, dr2);
	}
}

/* The same, computing the plane signs with LG_O3. */
LG_QUAL int
LG_NAME(triangle_triangle_3d)(const LG_NAME(pt) *T, int kT, int sT,
							  const LG_NAME(pt) *U, int kU, int sU)
{
	int			su[3],
				st[3];
	int			e;

	if (!LG_NAME(boxes_meet_axis)(T, 3, U, 3, 0) ||
		!LG_NAME(boxes_meet_axis)(T, 3, U, 3, 1) ||
		!LG_NAME(boxes_meet_axis)(T, 3, U, 3, 2))
		return EXG_RESULT_DISJOINT;
	for (e = 0; e < 3; e++)
		su[e] = LG_O3(T[0], T[1], T[2], U[e]);
	if (su[0] == su[1] && su[1] == su[2] && (su[0] == 1 || su[0] == -1))
		return EXG_RESULT_DISJOINT;
	for (e = 0; e < 3; e++)
		st[e] = LG_O3(U[0], U[1], U[2], T[e]);
	return LG_NAME(triangle_triangle_3d_signs)(T, kT, sT, U, kU, sU, su, st);
}

/* ---- degenerate inputs: classify each simplex, then dispatch ---- */

/* A point, segment or triangle after removing degeneracy. */
typedef struct LG_NAME(simplex)
{
	int			kind;			/* EXG_SIMPLEX_* */
	int			k;				/* triangle: projection axis (3D) */
	int			s;				/* triangle: orientation in that projection */
	LG_PT		v[3];
} LG_NAME(simplex);

/* Segment pq in 3D or 2D (naxes): a point when its ends coincide. */
LG_QUAL void
LG_NAME(classify_segment)(LG_PT p, LG_PT q, int naxes, LG_NAME(simplex) *out)
{
	int			same = naxes == 3 ? LG_NAME(equal3)(p, q) : LG_NAME(equal2)(p, q, 0, 1);

	out->kind = same ? EXG_SIMPLEX_POINT : EXG_SIMPLEX_SEGMENT;
	out->k = 2;
	out->s = 0;
	out->v[0] = p;
	out->v[1] = q;
	out->v[2] = q;
}

/*
 * Triangle abc in 3D or 2D: a collinear one becomes the segment between its
 * lexicographic extremes (or a point). Returns 0, or EXG_RESULT_UNKNOWN when
 * the signs cannot tell whether it is degenerate.
 */
LG_QUAL int
LG_NAME(classify_triangle)(LG_PT a, LG_PT b, LG_PT c,
						   int naxes, LG_NAME(simplex) *out)
{
	LG_NAME(pt) lo,
				hi;

	out->v[0] = a;
	out->v[1] = b;
	out->v[2] = c;
	/*
	 * A repeated vertex (how segments and points travel as triangles) makes
	 * the triangle degenerate for sure: no orientation needed, which matters
	 * for interval signs, since u x u is an interval around 0, never 0.
	 */
	if (naxes == 3 ? (LG_NAME(equal3)(a, b) || LG_NAME(equal3)(b, c) || LG_NAME(equal3)(a, c))
		: (LG_NAME(equal2)(a, b, 0, 1) || LG_NAME(equal2)(b, c, 0, 1) || LG_NAME(equal2)(a, c, 0, 1)))
		out->k = -1;
	else if (naxes == 3)
		out->k = LG_NAME(normal_axis)(a, b, c, &out->s);
	else
	{
		out->s = LG_O2(a, b, c, 0, 1);
		out->k = LG_UNK(out->s) ? -2 : (out->s != 0 ? 2 : -1);
	}
	if (out->k == -2)
		return EXG_RESULT_UNKNOWN;
	if (out->k >= 0)
	{
		out->kind = EXG_SIMPLEX_TRIANGLE;
		return 0;
	}
	lo = hi = a;
	if (LG_NAME(lexless)(b, lo, naxes, 0, 1))
		lo = b;
	if (LG_NAME(lexless)(c, lo, naxes, 0, 1))
		lo = c;
	if (LG_NAME(lexless)(hi, b, naxes, 0, 1))
		hi = b;
	if (LG_NAME(lexless)(hi, c, naxes, 0, 1))
		hi = c;
	LG_NAME(classify_segment)(lo, hi, naxes, out);
	return 0;
}

/*
 * Do A and B have a vertex in common (coordinates compared exactly, on the
 * given axes)? Then they meet: a shortcut that needs no orientation, which
 * matters on the GPU, where interval signs never certify a touching contact
 * and adjacent faces of a mesh would all go to GMP.
 */
LG_QUAL int
LG_NAME(share_vertex)(const LG_NAME(simplex) *A, const LG_NAME(simplex) *B, int naxes)
{
	for (int i = 0; i <= A->kind; i++)
		for (int j = 0; j <= B->kind; j++)
			if (naxes == 3 ? LG_NAME(equal3)(A->v[i], B->v[j])
				: LG_NAME(equal2)(A->v[i], B->v[j], 0, 1))
				return 1;
	return 0;
}

/* Closed-set intersection of two classified simplices in 3D. */
LG_QUAL int
LG_NAME(simplex_simplex_3d)(const LG_NAME(simplex) *A, const LG_NAME(simplex) *B)
{
	const LG_NAME(simplex) *t;

	if (LG_NAME(share_vertex)(A, B, 3))
		return EXG_RESULT_INTERSECTS;
	if (A->kind > B->kind)
	{
		t = A;
		A = B;
		B = t;
	}
	switch (A->kind * 3 + B->kind)
	{
		case EXG_SIMPLEX_POINT * 3 + EXG_SIMPLEX_POINT:
			return LG_NAME(equal3)(A->v[0], B->v[0]);
		case EXG_SIMPLEX_POINT * 3 + EXG_SIMPLEX_SEGMENT:
			return LG_NAME(point_segment_3d)(A->v[0], B->v[0], B->v[1]);
		case EXG_SIMPLEX_POINT * 3 + EXG_SIMPLEX_TRIANGLE:
			return LG_NAME(point_triangle_3d)(A->v[0], B->v[0], B->v[1], B->v[2], B->k, B->s);
		case EXG_SIMPLEX_SEGMENT * 3 + EXG_SIMPLEX_SEGMENT:
			return LG_NAME(segment_segment_3d)(A->v[0], A->v[1], B->v[0], B->v[1]);
		case EXG_SIMPLEX_SEGMENT * 3 + EXG_SIMPLEX_TRIANGLE:
			return LG_NAME(segment_triangle_3d)(A->v[0], A->v[1], B->v[0], B->v[1], B->v[2],
												B->k, B->s);
		default:
			return LG_NAME(triangle_triangle_3d)(A->v, A->k, A->s, B->v, B->k, B->s);
	}
}

/* Closed-set intersection of two classified simplices in 2D (x, y). */
LG_QUAL int
LG_NAME(simplex_simplex_2d)(const LG_NAME(simplex) *A, const LG_NAME(simplex) *B)
{
	const LG_NAME(simplex) *t;

	if (LG_NAME(share_vertex)(A, B, 2))
		return EXG_RESULT_INTERSECTS;
	if (A->kind > B->kind)
	{
		t = A;
		A = B;
		B = t;
	}
	switch (A->kind * 3 + B->kind)
	{
		case EXG_SIMPLEX_POINT * 3 + EXG_SIMPLEX_POINT:
			return LG_NAME(equal2)(A->v[0], B->v[0], 0, 1);
		case EXG_SIMPLEX_POINT * 3 + EXG_SIMPLEX_SEGMENT:
			return LG_NAME(point_segment_proj)(A->v[0], B->v[0], B->v[1], 0, 1);
		case EXG_SIMPLEX_POINT * 3 + EXG_SIMPLEX_TRIANGLE:
			return LG_NAME(point_triangle_proj)(A->v[0], B->v[0], B->v[1], B->v[2], 0, 1, B->s);
		case EXG_SIMPLEX_SEGMENT * 3 + EXG_SIMPLEX_SEGMENT:
			return LG_NAME(segment_segment_proj)(A->v[0], A->v[1], B->v[0], B->v[1], 0, 1);
		case EXG_SIMPLEX_SEGMENT * 3 + EXG_SIMPLEX_TRIANGLE:
			return LG_NAME(segment_triangle_proj)(A->v[0], A->v[1], B->v[0], B->v[1], B->v[2],
												  0, 1, B->s);
		default:
			return LG_NAME(triangle_triangle_proj)(A->v, A->s, B->v, B->s, 0, 1);
	}
}

/* Point location by ray parity, on the same signs. */
#include "locate_logic.h"

#undef LG_OPPOSITE
#undef LG_UNK
#ifdef LG_PT_DEFAULTED
#undef LG_PT
#undef LG_PT_DEFAULTED
#endif
#ifdef LG_C_DEFAULTED
#undef LG_C
#undef LG_C_DEFAULTED
#endif
