/*
 * orient_static.h — the CPU cascade's first stage: a semi-static filter.
 * The orientation determinant in plain double arithmetic, its sign trusted
 * when the value exceeds an error bound computed from the magnitudes of the
 * coordinate differences (Shewchuk 1997, section 4.3; CGAL's static filters
 * for Orientation_2/3 use the same constants for round-to-nearest). No
 * intervals, no rounding-mode switch: a few multiplications and compares.
 * It answers -1, 0, 1 or EXG_SIGN_UNKNOWN; an unknown goes to the double
 * intervals (orient_cascade.h), then to GMP.
 *
 * WHY THE BOUND HOLDS (a proof, not a tuning):
 * u = 2^-52. Every IEEE operation on doubles, in ANY rounding mode (the
 * cascade runs under upward rounding, other callers under nearest), returns
 * fl(x) with |fl(x) - x| < ulp(x) <= u |x| when x is normal; a sum or
 * difference whose exact result is subnormal is exact (both operands are
 * multiples of 2^-1074); a product that underflows is off by at most
 * eta = 2^-1074 in absolute value. Overflow is excluded by the range test.
 *
 * orient3d, as orient_formula.h evaluates it: u = b - a, v = c - a,
 * w = d - a (each rounded), n = u x v (nx = uy vz - uz vy, ...), then
 * D~ = (wx nx + wy ny) + wz nz. Let m_k = max(|u~_k|, |v~_k|, |w~_k|) over
 * the rounded differences and M = mx my mz.
 *  (1) Rounding of the differences: |u_k - u~_k| <= u|u_k| and
 *      |u_k| <= m_k / (1 - u). D is trilinear, so D(u,v,w) - D(u~,v~,w~) =
 *      D(u-u~, v, w) + D(u~, v-v~, w) + D(u~, v~, w-w~); each 3x3 determinant
 *      has 6 terms, each the product of one x, one y and one z entry, one of
 *      them from the perturbation: <= 6 u M / (1-u)^3 each, 18 u M (1 + 4u)
 *      in all.
 *  (2) Evaluation over the rounded differences: each nk is a difference of
 *      two products of magnitude <= (product of two m's), so
 *      |nk~ - nk| <= 2 (2u + u^2) m m; each term wk nk then has error
 *      <= 2 M (3u + 3u^2 + u^3) and magnitude <= 2 M (1+u)^3; the two sums
 *      add u (4M) (1+u)^3 and u (6M) (1+u)^4: 28 u M + 54 u^2 M + O(u^3).
 *  (3) Underflow of the 6 + 3 products adds at most
 *      2 eta (1+u)^2 (mx + my + mz) + 3 eta; with every m_k >= 2^-300 this
 *      is below 2^-172 M.
 * So |D~ - D| <= 46 u M + 110 u^2 M + 2^-172 M < 1.02141e-14 M, and the
 * computed bound C mx my mz, C = 1.0215e-14, loses at most a factor
 * (1-u)^3 to its own three roundings (no underflow: every factor is
 * >= 2^-300): still above. D~ > bound therefore means D > 0.
 * Range: m_k in [2^-300, 2^340] keeps every product, D~ (<= 6 M (1+u)^5)
 * and the bound normal and finite; outside it (tiny or huge coordinates,
 * an overflowed difference, NaN) the filter says unknown. One exception:
 * when every difference on an axis is zero (computed differences are zero
 * exactly when the coordinates are equal), D has a zero column: D = 0.
 *
 * orient2d (D = ux vy - uy vx over axes i, j; M = mi mj): (1) gives
 * 4 u M / (1-u)^2, (2) gives 2 M (2u + u^2), underflow 2 eta (1+u);
 * |D~ - D| <= 8 u M + 10 u^2 M + 2^-120 M for m in [2^-450, 2^500]
 * (M >= 2^-900): C = 1.7764e-15 > 8u = 1.77636e-15 with room to spare.
 *
 * For round-to-nearest alone u would be 2^-53 and the constants halve,
 * which gives CGAL's 5.11e-15 and 8.89e-16; ours hold in every mode, so
 * no caller has to switch modes for them.
 *
 * The precomputed-plane form (exg_plane_static) evaluates the same
 * expression in the same order, keeping n and max(|u~_k|, |v~_k|) per
 * triangle: the same bound applies, also when the normal was computed
 * under another rounding mode than the dot product (the model above is per
 * operation, whatever its mode). The compiler must not contract or
 * reassociate (-ffp-contract=off, no -ffast-math: Makefile).
 */
#ifndef EXG_ORIENT_STATIC_H
#define EXG_ORIENT_STATIC_H

#include <float.h>
#include <math.h>

#include "orient_formula.h"
#include "simplex.h"

/* Excess precision (x87) would break the per-operation model: no filter. */
#if defined(FLT_EVAL_METHOD) && FLT_EVAL_METHOD != 0
#define EXG_STATIC_FILTER 0
#else
#define EXG_STATIC_FILTER 1
#endif

#define EXG_O3_STATIC_C 1.0215e-14
#define EXG_O3_STATIC_MIN 0x1p-300
#define EXG_O3_STATIC_MAX 0x1p340
#define EXG_O2_STATIC_C 1.7764e-15
#define EXG_O2_STATIC_MIN 0x1p-450
#define EXG_O2_STATIC_MAX 0x1p500

#define EXG_SD_DIFF(x, y) ((x) - (y))
#define EXG_SD_MUL(x, y) ((x) * (y))
#define EXG_SD_SUB(x, y) ((x) - (y))
#define EXG_SD_ADD(x, y) ((x) + (y))

/* min and max without libm calls (fmin/fmax are not inlined under -frounding-math) */
static inline double
exg_dmin(double a, double b)
{
	return a < b ? a : b;
}

static inline double
exg_dmax(double a, double b)
{
	return a > b ? a : b;
}

static inline double
exg_max3_abs(double a, double b, double c)
{
	double		m = fabs(a),
				t = fabs(b);

	m = t > m ? t : m;
	t = fabs(c);
	return t > m ? t : m;
}

/* Sign of D~ against the bound C mx my mz; see the proof above. */
static inline int
exg_static_sign3(double det, double mx, double my, double mz)
{
	double		lo = exg_dmin(mx, exg_dmin(my, mz)),
				hi = exg_dmax(mx, exg_dmax(my, mz));

	if (EXG_STATIC_FILTER && lo >= EXG_O3_STATIC_MIN && hi <= EXG_O3_STATIC_MAX)
	{
		double		eps = EXG_O3_STATIC_C * mx * my * mz;

		if (det > eps)
			return 1;
		if (det < -eps)
			return -1;
	}
	return EXG_SIGN_UNKNOWN;
}

/* orient3d of a, b, c, d (orient_formula.h's sign), or unknown. */
static inline int
exg_orient3d_static(const double *a, const double *b, const double *c, const double *d)
{
	double		det;
	double		ux = b[0] - a[0],
				uy = b[1] - a[1],
				uz = b[2] - a[2],
				vx = c[0] - a[0],
				vy = c[1] - a[1],
				vz = c[2] - a[2],
				wx = d[0] - a[0],
				wy = d[1] - a[1],
				wz = d[2] - a[2];
	double		mx = exg_max3_abs(ux, vx, wx),
				my = exg_max3_abs(uy, vy, wy),
				mz = exg_max3_abs(uz, vz, wz);
	int			s;

	EXG_ORIENT3D_FORMULA(double, EXG_SD_DIFF, EXG_SD_MUL, EXG_SD_SUB, EXG_SD_ADD,
						 a, b, c, d, det);
	s = exg_static_sign3(det, mx, my, mz);
	if (s == EXG_SIGN_UNKNOWN &&
		isfinite(fabs(ux) + fabs(uy) + fabs(uz) + fabs(vx) + fabs(vy) + fabs(vz) +
				 fabs(wx) + fabs(wy) + fabs(wz)) &&
		((ux == 0 && vx == 0 && wx == 0) || (uy == 0 && vy == 0 && wy == 0) ||
		 (uz == 0 && vz == 0 && wz == 0)))
		return 0;				/* a zero column (finite differences only) */
	return s;
}

/* orient2d of a, b, c on axes (i, j), or unknown. */
static inline int
exg_orient2d_static(const double *a, const double *b, const double *c, int i, int j)
{
	double		det;
	double		ux = b[i] - a[i],
				uy = b[j] - a[j],
				vx = c[i] - a[i],
				vy = c[j] - a[j];
	double		mi = exg_dmax(fabs(ux), fabs(vx)),
				mj = exg_dmax(fabs(uy), fabs(vy));

	EXG_ORIENT2D_FORMULA(double, EXG_SD_DIFF, EXG_SD_MUL, EXG_SD_SUB, a, b, c, i, j, det);
	if (EXG_STATIC_FILTER && exg_dmin(mi, mj) >= EXG_O2_STATIC_MIN &&
		exg_dmax(mi, mj) <= EXG_O2_STATIC_MAX)
	{
		double		eps = EXG_O2_STATIC_C * mi * mj;

		if (det > eps)
			return 1;
		if (det < -eps)
			return -1;
	}
	if (isfinite(fabs(ux) + fabs(uy) + fabs(vx) + fabs(vy)) &&
		((ux == 0 && vx == 0) || (uy == 0 && vy == 0)))
		return 0;				/* a zero column (finite differences only) */
	return EXG_SIGN_UNKNOWN;
}

/*
 * A triangle abc's plane for many orient3d(a, b, c, d): its normal as
 * orient_formula.h computes it, a copy of a, and max(|u~_k|, |v~_k|) per
 * axis (the rounded differences' part of m_k).
 */
typedef struct exg_plane_static
{
	double		n[3];
	double		a[3];
	double		m[3];
} exg_plane_static;

static inline void
exg_plane_static_init(const double *a, const double *b, const double *c, exg_plane_static *p)
{
	EXG_CROSS_FORMULA(double, EXG_SD_DIFF, EXG_SD_MUL, EXG_SD_SUB, a, b, c,
					  p->n[0], p->n[1], p->n[2]);
	for (int k = 0; k < 3; k++)
	{
		p->a[k] = a[k];
		p->m[k] = exg_dmax(fabs(b[k] - a[k]), fabs(c[k] - a[k]));
	}
}

/* orient3d(a, b, c, d) from abc's plane, or unknown (never the zero-column shortcut). */
static inline int
exg_plane_side_static(const exg_plane_static *p, const double *d)
{
	double		det;
	double		wx = d[0] - p->a[0],
				wy = d[1] - p->a[1],
				wz = d[2] - p->a[2];
	double		mx = fabs(wx),
				my = fabs(wy),
				mz = fabs(wz);

	mx = p->m[0] > mx ? p->m[0] : mx;
	my = p->m[1] > my ? p->m[1] : my;
	mz = p->m[2] > mz ? p->m[2] : mz;
	EXG_PLANE_SIDE_FORMULA(double, EXG_SD_DIFF, EXG_SD_MUL, EXG_SD_ADD,
						   p->n[0], p->n[1], p->n[2], p->a, d, det);
	return exg_static_sign3(det, mx, my, mz);
}

#endif							/* EXG_ORIENT_STATIC_H */
