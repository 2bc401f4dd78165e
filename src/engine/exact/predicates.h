/*
 * predicates.h — exact geometric predicates over input doubles.
 *
 * Every function returns the exact answer for the real numbers its double
 * arguments denote: a double interval filter decides most calls and GMP
 * decides the rest (orient_cascade.h, orient_exact.c). Intersection tests
 * are on CLOSED sets: touching, shared vertices, collinear and coplanar
 * overlap all count as intersecting. Any argument may be degenerate: a
 * segment whose endpoints coincide is a point, a triangle whose vertices are
 * collinear is the segment (or point) they span.
 *
 * 3D points are double[3] (x, y, z); 2D points are double[2] (x, y).
 */
#ifndef EXG_PREDICATES_H
#define EXG_PREDICATES_H

#include <stdbool.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Sign of (b - a) x (c - a): +1 counter-clockwise (left turn), -1 clockwise, 0 collinear. */
int			exg_orient2d(const double a[2], const double b[2], const double c[2]);

/* Sign of ((b - a) x (c - a)) . (d - a). */
int			exg_orient3d(const double a[3], const double b[3], const double c[3],
						 const double d[3]);

/* Closed-set intersection in 3D. */
bool		exg_point_point_3d(const double p[3], const double q[3]);
bool		exg_point_segment_3d(const double p[3], const double a[3], const double b[3]);
bool		exg_point_triangle_3d(const double p[3], const double a[3],
								  const double b[3], const double c[3]);
bool		exg_segment_segment_3d(const double p[3], const double q[3],
								   const double r[3], const double s[3]);
bool		exg_segment_triangle_3d(const double p[3], const double q[3],
									const double a[3], const double b[3],
									const double c[3]);
bool		exg_triangle_triangle_3d(const double a[3], const double b[3],
									 const double c[3], const double d[3],
									 const double e[3], const double f[3]);

/* Closed-set intersection in 2D; triangles are filled areas. */
bool		exg_point_segment_2d(const double p[2], const double a[2], const double b[2]);
bool		exg_point_triangle_2d(const double p[2], const double a[2],
								  const double b[2], const double c[2]);
bool		exg_segment_segment_2d(const double p[2], const double q[2],
								   const double r[2], const double s[2]);
bool		exg_segment_triangle_2d(const double p[2], const double q[2],
									const double a[2], const double b[2],
									const double c[2]);
bool		exg_triangle_triangle_2d(const double a[2], const double b[2],
									 const double c[2], const double d[2],
									 const double e[2], const double f[2]);

#ifdef __cplusplus
}
#endif

#endif							/* EXG_PREDICATES_H */
