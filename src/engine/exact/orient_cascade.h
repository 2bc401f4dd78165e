/*
 * orient_cascade.h — exact orientation signs on the CPU: a semi-static
 * filter first (orient_static.h: plain doubles and a proven error bound),
 * then double intervals, GMP when the interval straddles zero.
 *
 * These inline functions assume upward rounding is active: callers bracket
 * a batch of predicates with exg_round_up_enter / exg_round_restore (see
 * interval_double.h), and must restore the mode before returning to code
 * that is not ours.
 */
#ifndef EXG_ORIENT_CASCADE_H
#define EXG_ORIENT_CASCADE_H

#include <stdbool.h>

#include "interval_double.h"
#include "orient_exact.h"
#include "orient_formula.h"
#include "orient_static.h"
#include "stats.h"

/* Out of line: counts, times and runs the GMP stage. */
int			exg_orient2d_exact_counted(const double *a, const double *b,
									   const double *c, int i, int j);
int			exg_orient3d_exact_counted(const double *a, const double *b,
									   const double *c, const double *d);

/*
 * Two of the points are the same (in the axes used): the determinant is
 * exactly zero, but its interval is not [0, 0] when the two equal products
 * it subtracts are inexact, so it would go to GMP. Sweeps and walks ask
 * this often (a vertex against an edge it ends: 465,100 GMP calls, a sixth
 * of the time, triangulating a 10^5-vertex face). Checked only after the
 * filters failed.
 */
static inline bool
exg_same_point2(const double *p, const double *q, int i, int j)
{
	return p[i] == q[i] && p[j] == q[j];
}

static inline bool
exg_orient2d_coincident(const double *a, const double *b, const double *c, int i, int j)
{
	return exg_same_point2(a, b, i, j) || exg_same_point2(a, c, i, j) ||
		exg_same_point2(b, c, i, j);
}

static inline bool
exg_same_point3(const double *p, const double *q)
{
	return p[0] == q[0] && p[1] == q[1] && p[2] == q[2];
}

static inline bool
exg_orient3d_coincident(const double *a, const double *b, const double *c, const double *d)
{
	return exg_same_point3(a, b) || exg_same_point3(a, c) || exg_same_point3(a, d) ||
		exg_same_point3(b, c) || exg_same_point3(b, d) || exg_same_point3(c, d);
}

static inline int
exg_orient2d_ru(const double *a, const double *b, const double *c, int i, int j)
{
	exg_counters *cnt = exg_counters_local();
	exg_dinterval det;
	int			s = exg_orient2d_static(a, b, c, i, j);

	cnt->orient_evals++;
	if (s != EXG_SIGN_UNKNOWN)
	{
		cnt->orient_filtered++;
		return s;
	}
	EXG_ORIENT2D_FORMULA(exg_dinterval, exg_di_diff, exg_di_mul, exg_di_sub,
						 a, b, c, i, j, det);
	s = exg_di_sign(det);
	if (s != 2 || exg_orient2d_coincident(a, b, c, i, j))
	{
		cnt->orient_filtered++;
		return s != 2 ? s : 0;
	}
	return exg_orient2d_exact_counted(a, b, c, i, j);
}

static inline int
exg_orient3d_ru(const double *a, const double *b, const double *c, const double *d)
{
	exg_counters *cnt = exg_counters_local();
	exg_dinterval det;
	int			s = exg_orient3d_static(a, b, c, d);

	cnt->orient_evals++;
	if (s != EXG_SIGN_UNKNOWN)
	{
		cnt->orient_filtered++;
		return s;
	}
	EXG_ORIENT3D_FORMULA(exg_dinterval, exg_di_diff, exg_di_mul, exg_di_sub,
						 exg_di_add, a, b, c, d, det);
	s = exg_di_sign(det);
	if (s != 2 || exg_orient3d_coincident(a, b, c, d))
	{
		cnt->orient_filtered++;
		return s != 2 ? s : 0;
	}
	return exg_orient3d_exact_counted(a, b, c, d);
}

#endif							/* EXG_ORIENT_CASCADE_H */
