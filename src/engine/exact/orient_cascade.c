/*
 * orient_cascade.c — the counted GMP stage of the CPU cascade.
 */
#include "orient_cascade.h"

int
exg_orient2d_exact_counted(const double *a, const double *b, const double *c,
						   int i, int j)
{
	exg_counters *cnt = exg_counters_local();
	uint64_t	t0 = exg_now_ns();
	int			s = exg_orient2d_exact(a, b, c, i, j);

	cnt->orient_exact++;
	cnt->exact_ns += exg_now_ns() - t0;
	return s;
}

int
exg_orient3d_exact_counted(const double *a, const double *b, const double *c,
						   const double *d)
{
	exg_counters *cnt = exg_counters_local();
	uint64_t	t0 = exg_now_ns();
	int			s = exg_orient3d_exact(a, b, c, d);

	cnt->orient_exact++;
	cnt->exact_ns += exg_now_ns() - t0;
	return s;
}
