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
	if (s != 2)
	{
		cnt->orient_filtered++;
		return s;
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
	if (s != 2)
	{
		cnt->orient_filtered++;
		return s;
	}
	return exg_orient3d_exact_counted(a, b, c, d);
}

#endif							/* EXG_ORIENT_CASCADE_H */
