/*
 * predicates.c — the public exact predicates (predicates.h): each call sets
 * upward rounding for the interval filter, decides with the shared logic and
 * restores the caller's rounding mode.
 */
#include "predicates.h"

#include "predicates_cpu.h"

int
exg_orient2d(const double a[2], const double b[2], const double c[2])
{
	exg_round_state saved = exg_round_up_enter();
	int			s = exg_orient2d_ru(a, b, c, 0, 1);

	exg_round_restore(saved);
	return s;
}

int
exg_orient3d(const double a[3], const double b[3], const double c[3], const double d[3])
{
	exg_round_state saved = exg_round_up_enter();
	int			s = exg_orient3d_ru(a, b, c, d);

	exg_round_restore(saved);
	return s;
}

/* Classify both simplices (3 vertices each, repeated for lower dimensions) and test. */
static bool
simplices_meet(const double *a0, const double *a1, const double *a2, int adim,
			   const double *b0, const double *b1, const double *b2, int bdim,
			   int naxes)
{
	exg_round_state saved = exg_round_up_enter();
	exg_cpu_simplex A,
				B;
	int			r;

	if (adim == 2)
		exg_cpu_classify_triangle(a0, a1, a2, naxes, &A);
	else
		exg_cpu_classify_segment(a0, a1, naxes, &A);
	if (bdim == 2)
		exg_cpu_classify_triangle(b0, b1, b2, naxes, &B);
	else
		exg_cpu_classify_segment(b0, b1, naxes, &B);
	r = naxes == 3 ? exg_cpu_simplex_simplex_3d(&A, &B) : exg_cpu_simplex_simplex_2d(&A, &B);
	exg_round_restore(saved);
	return r == EXG_RESULT_INTERSECTS;
}

bool
exg_point_point_3d(const double p[3], const double q[3])
{
	return p[0] == q[0] && p[1] == q[1] && p[2] == q[2];
}

bool
exg_point_segment_3d(const double p[3], const double a[3], const double b[3])
{
	return simplices_meet(p, p, p, 1, a, b, b, 1, 3);
}

bool
exg_point_triangle_3d(const double p[3], const double a[3], const double b[3],
					  const double c[3])
{
	return simplices_meet(p, p, p, 1, a, b, c, 2, 3);
}

bool
exg_segment_segment_3d(const double p[3], const double q[3], const double r[3],
					   const double s[3])
{
	return simplices_meet(p, q, q, 1, r, s, s, 1, 3);
}

bool
exg_segment_triangle_3d(const double p[3], const double q[3], const double a[3],
						const double b[3], const double c[3])
{
	return simplices_meet(p, q, q, 1, a, b, c, 2, 3);
}

bool
exg_triangle_triangle_3d(const double a[3], const double b[3], const double c[3],
						 const double d[3], const double e[3], const double f[3])
{
	return simplices_meet(a, b, c, 2, d, e, f, 2, 3);
}

bool
exg_point_segment_2d(const double p[2], const double a[2], const double b[2])
{
	return simplices_meet(p, p, p, 1, a, b, b, 1, 2);
}

bool
exg_point_triangle_2d(const double p[2], const double a[2], const double b[2],
					  const double c[2])
{
	return simplices_meet(p, p, p, 1, a, b, c, 2, 2);
}

bool
exg_segment_segment_2d(const double p[2], const double q[2], const double r[2],
					   const double s[2])
{
	return simplices_meet(p, q, q, 1, r, s, s, 1, 2);
}

bool
exg_segment_triangle_2d(const double p[2], const double q[2], const double a[2],
						const double b[2], const double c[2])
{
	return simplices_meet(p, q, q, 1, a, b, c, 2, 2);
}

bool
exg_triangle_triangle_2d(const double a[2], const double b[2], const double c[2],
						 const double d[2], const double e[2], const double f[2])
{
	return simplices_meet(a, b, c, 2, d, e, f, 2, 2);
}
