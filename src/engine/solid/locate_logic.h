/*
 * locate_logic.h — what one triangle of a closed surface says about where a
 * point p is: p lies on it, or the upward ray from p crosses it, or neither.
 * Counting crossings mod 2 over a closed surface gives inside/outside.
 *
 * The ray is vertical (+z) from p moved symbolically to
 * (px + e, py + e^2), e > 0 infinitesimal (simulation of simplicity). The
 * moved ray never meets a projected edge or vertex, so every crossing is
 * through a triangle's interior and the parity is that of a generic ray;
 * vertical triangles (zero area in xy) are never crossed. Where the exact
 * sign of orient2d(u, w, p) is zero, the moved point's sign is that of
 * (uy - wy), else of (wx - ux): comparisons of input doubles, no arithmetic.
 * The point itself is not moved for the on-surface test, so "on" is exact.
 *
 * Included at the end of intersect_logic.h, so every instantiation has it.
 */
#define EXG_RAY_MISS 0
#define EXG_RAY_CROSS 1
#define EXG_RAY_ON 2
#define EXG_RAY_UNKNOWN 3

/* Sign of orient2d(u, w, p') in xy for the moved p', given s = orient2d(u, w, p). */
LG_QUAL int
LG_NAME(moved_sign)(LG_PT u, LG_PT w, int s)
{
	if (s != 0)
		return s;
	if (LG_C(u, 1) != LG_C(w, 1))
		return LG_C(u, 1) > LG_C(w, 1) ? 1 : -1;
	return LG_C(w, 0) > LG_C(u, 0) ? 1 : (LG_C(w, 0) < LG_C(u, 0) ? -1 : 0);
}

/* Triangle t (classified) against point p: an EXG_RAY_* value. */
LG_QUAL int
LG_NAME(ray_simplex)(LG_PT p, const LG_NAME(simplex) *t)
{
	LG_PT a = t->v[0];
	LG_PT b = t->v[1];
	LG_PT c = t->v[2];
	int			sz,
				e1,
				e2,
				e3,
				o;

	/* at a vertex: on the surface, no sign needed (interval signs could
	 * not certify it: samples taken at mesh vertices would all go to GMP) */
	if (LG_NAME(equal3)(p, a) || LG_NAME(equal3)(p, b) || LG_NAME(equal3)(p, c))
		return EXG_RAY_ON;
	if (t->kind == EXG_SIMPLEX_POINT)
		return EXG_RAY_MISS;
	if (t->kind == EXG_SIMPLEX_SEGMENT)
	{
		int			r = LG_NAME(point_segment_3d)(p, a, b);

		return r == EXG_RESULT_UNKNOWN ? EXG_RAY_UNKNOWN
			: (r == EXG_RESULT_INTERSECTS ? EXG_RAY_ON : EXG_RAY_MISS);
	}
	/* a proper triangle: its normal's z sign says whether it is vertical */
	sz = t->k == 2 ? t->s : LG_O2(a, b, c, 0, 1);
	if (LG_UNK(sz))
		return EXG_RAY_UNKNOWN;
	if (sz == 0)
	{
		int			r = LG_NAME(point_triangle_3d)(p, a, b, c, t->k, t->s);

		return r == EXG_RESULT_UNKNOWN ? EXG_RAY_UNKNOWN
			: (r == EXG_RESULT_INTERSECTS ? EXG_RAY_ON : EXG_RAY_MISS);
	}
	e1 = LG_O2(a, b, p, 0, 1);
	if (e1 == -sz)
		return EXG_RAY_MISS;
	e2 = LG_O2(b, c, p, 0, 1);
	if (e2 == -sz)
		return EXG_RAY_MISS;
	e3 = LG_O2(c, a, p, 0, 1);
	if (e3 == -sz)
		return EXG_RAY_MISS;
	if (LG_UNK(e1) || LG_UNK(e2) || LG_UNK(e3))
		return EXG_RAY_UNKNOWN;
	/* p is over or under the closed triangle: on it iff on its plane */
	o = LG_O3(a, b, c, p);
	if (LG_UNK(o))
		return EXG_RAY_UNKNOWN;
	if (o == 0)
		return EXG_RAY_ON;
	if (o == sz)				/* above the plane: the upward ray misses */
		return EXG_RAY_MISS;
	if (LG_NAME(moved_sign)(a, b, e1) != sz || LG_NAME(moved_sign)(b, c, e2) != sz ||
		LG_NAME(moved_sign)(c, a, e3) != sz)
		return EXG_RAY_MISS;
	return EXG_RAY_CROSS;
}
