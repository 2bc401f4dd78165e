/*
 * ref_exact.h — a slow, independent, GMP-only reference for every predicate
 * of src/engine/exact/predicates.h, used to check the engine in tests.
 *
 * Independence is the point: nothing here shares a formula with the engine.
 * Orientation is a rational determinant (mpq). Every intersection test is one
 * question — do the convex hulls of two finite point sets meet? — answered as
 * the linear feasibility problem
 *
 *     sum_i l_i P_i = sum_j m_j Q_j,   l_i, m_j >= 0,   sum l_i = sum m_j = 1
 *
 * by an exact phase-1 simplex (Bland's rule, integer-preserving pivots) over
 * the coordinates scaled to one common power of two. A closed segment or
 * triangle is the convex hull of its vertices, so degenerate inputs (equal
 * endpoints, collinear triangles) need no special case at all, and "closed
 * set" semantics come for free: touching is a feasible point on the boundary.
 *
 * The only floating-point operations on coordinates are mpq_set_d (exact) and
 * comparisons of doubles (exact) in a bounding-box early-out. Arguments must
 * be finite. All functions are thread-safe (per-thread GMP workspaces).
 */
#ifndef EXG_REF_EXACT_H
#define EXG_REF_EXACT_H

#include <stdbool.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Sign of (b - a) x (c - a): +1 counter-clockwise, -1 clockwise, 0 collinear. */
int			ref_orient2d(const double a[2], const double b[2], const double c[2]);

/* Sign of ((b - a) x (c - a)) . (d - a). */
int			ref_orient3d(const double a[3], const double b[3], const double c[3],
						 const double d[3]);

/* Closed-set intersection in 3D. */
bool		ref_point_point_3d(const double p[3], const double q[3]);
bool		ref_point_segment_3d(const double p[3], const double a[3], const double b[3]);
bool		ref_point_triangle_3d(const double p[3], const double a[3],
								  const double b[3], const double c[3]);
bool		ref_segment_segment_3d(const double p[3], const double q[3],
								   const double r[3], const double s[3]);
bool		ref_segment_triangle_3d(const double p[3], const double q[3],
									const double a[3], const double b[3],
									const double c[3]);
bool		ref_triangle_triangle_3d(const double a[3], const double b[3],
									 const double c[3], const double d[3],
									 const double e[3], const double f[3]);

/* Closed-set intersection in 2D; triangles are filled areas. */
bool		ref_point_segment_2d(const double p[2], const double a[2], const double b[2]);
bool		ref_point_triangle_2d(const double p[2], const double a[2],
								  const double b[2], const double c[2]);
bool		ref_segment_segment_2d(const double p[2], const double q[2],
								   const double r[2], const double s[2]);
bool		ref_segment_triangle_2d(const double p[2], const double q[2],
									const double a[2], const double b[2],
									const double c[2]);
bool		ref_triangle_triangle_2d(const double a[2], const double b[2],
									 const double c[2], const double d[2],
									 const double e[2], const double f[2]);

/*
 * The general question behind all of the above: do conv(P) and conv(Q) meet?
 * dim is 2 or 3; np, nq in 1..3; P and Q hold np (nq) points of dim doubles
 * each, packed. use_early_outs = false skips the exact shortcuts (bounding
 * boxes, shared vertices) so that tests can exercise the simplex alone.
 */
bool		ref_hulls_intersect(int dim, int np, const double *P, int nq,
								const double *Q, bool use_early_outs);

/*
 * A second exact solver for the same question, used only to cross-check the
 * simplex in test_ref_exact: Gaussian elimination of the equalities followed
 * by Fourier–Motzkin elimination of the sign constraints, in mpq. Slow.
 */
bool		ref_hulls_intersect_fm(int dim, int np, const double *P, int nq,
								   const double *Q);

/* Frees the calling thread's GMP workspace (optional; for leak checkers). */
void		ref_exact_release_thread(void);

#ifdef __cplusplus
}
#endif

#endif							/* EXG_REF_EXACT_H */
