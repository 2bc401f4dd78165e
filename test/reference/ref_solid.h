/*
 * ref_solid.h — slow, independent, GMP-only reference answers about closed
 * triangulated surfaces, used to check the engine's solid operations:
 *
 *  - point location (outside / inside / boundary) by the parity of a ray
 *    with a pseudo-random, slightly tilted rational direction, retried with
 *    the next direction whenever the ray meets an edge, a vertex or a
 *    triangle's plane (every such event is detected exactly);
 *  - improper contact of two triangles (they meet outside the hull of the
 *    vertices they share), by enumerating the vertices of an exact LP;
 *  - the exact stretches of a polyline (a drill hole) inside a closed solid,
 *    as rational parameters of its segments.
 *
 * Nothing here shares a formula with src/engine. Coordinates are converted
 * exactly (mpq_set_d) to integers over one power of two; the only other
 * floating-point operations are comparisons of doubles. Arguments must be
 * finite. Functions are thread-safe (per-call or per-thread GMP scratch);
 * a ref_solid is read-only once built and may be shared by threads.
 */
#ifndef EXG_REF_SOLID_H
#define EXG_REF_SOLID_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <gmp.h>

#ifdef __cplusplus
extern "C" {
#endif

#define REF_OUTSIDE 0
#define REF_INSIDE 1
#define REF_BOUNDARY 2

/* A closed surface prepared once for many queries (opaque). */
typedef struct ref_solid ref_solid;

/*
 * Triangles tri[3 t .. 3 t + 2] (vertex indices into xyz, 3 doubles each),
 * t < ntri. The inputs are copied. The surface should be closed (every edge
 * used an even number of times); parity is then well defined.
 */
ref_solid  *ref_solid_new(const double *xyz, const uint32_t *tri, size_t ntri);
void		ref_solid_free(ref_solid *s);

/* REF_OUTSIDE, REF_INSIDE or REF_BOUNDARY (on some closed triangle). */
int			ref_solid_locate(const ref_solid *s, const double p[3]);
int			ref_solid_locate_q(const ref_solid *s, mpq_t p[3]);

/* One-shot form of the above. */
int			ref_locate(const double *xyz, const uint32_t *tri, size_t ntri,
					   const double p[3]);

/* Exactly zero-area triangle (collinear or repeated vertices)? */
bool		ref_triangle_degenerate(const double T[3][3]);

/*
 * Do the closed triangles A and B (non-degenerate) meet in a point outside
 * the convex hull of their common vertices (equal coordinates)? Duplicates
 * (all three vertices common) count as improper. A degenerate triangle
 * never does (the engine leaves those to validity checks): false.
 */
bool		ref_improper_contact(const double A[3][3], const double B[3][3]);

/*
 * The maximal closed stretches of the polyline hole[0 .. 3 nverts) lying in
 * the closed solid (inside or on the surface), in order along the hole.
 * Each end is (segment k, exact parameter t in [0, 1]); the point is
 * hole_k + t (hole_{k+1} - hole_k). A stretch may have zero length (the hole
 * touches the surface). Triangles of zero area are ignored here.
 */
typedef struct ref_stretch
{
	size_t		k_from;
	mpq_t		t_from;
	size_t		k_to;
	mpq_t		t_to;
} ref_stretch;

size_t		ref_solid_intercepts(const ref_solid *s, const double *hole, size_t nverts,
								 ref_stretch **out);
void		ref_stretches_free(ref_stretch *st, size_t n);

/* Location of the hole's point at parameter t of segment k. */
int			ref_solid_locate_on_hole(const ref_solid *s, const double *hole, size_t k,
									 const mpq_t t);

#ifdef __cplusplus
}
#endif

#endif							/* EXG_REF_SOLID_H */
