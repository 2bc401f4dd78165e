/*
 * orient_exact.h — orientation signs in exact integer arithmetic (GMP).
 *
 * The last stage of the cascade: called only when the interval filters
 * cannot decide. Thread-safe; never allocates through PostgreSQL.
 */
#ifndef EXG_ORIENT_EXACT_H
#define EXG_ORIENT_EXACT_H

#ifdef __cplusplus
extern "C" {
#endif

/* Exact sign of the 2D orientation of a, b, c projected on axes (i, j). */
int			exg_orient2d_exact(const double *a, const double *b, const double *c,
							   int i, int j);

/* Exact sign of ((b - a) x (c - a)) . (d - a). */
int			exg_orient3d_exact(const double *a, const double *b, const double *c,
							   const double *d);

#ifdef __cplusplus
}
#endif

#endif							/* EXG_ORIENT_EXACT_H */
