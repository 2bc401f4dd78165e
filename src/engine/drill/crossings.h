/*
 * crossings.h — where a drill hole meets a surface that need not be closed
 * (a fault, a contact, the topography), and how.
 */
#ifndef EXG_CROSSINGS_H
#define EXG_CROSSINGS_H

#include <stddef.h>
#include <stdint.h>

#include "exg_status.h"
#include "geom_prepared.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum exg_crossing_kind
{
	EXG_CROSSING_THROUGH = 0,	/* one point; the hole passes to the other side */
	EXG_CROSSING_TOUCH = 1,		/* one point; the hole stays on its side */
	EXG_CROSSING_ALONG = 2		/* a stretch of positive length in the surface */
} exg_crossing_kind;

/*
 * One connected piece of (hole ∩ surface), closed sets: from..to are its
 * depths (equal for a point), point its first point with each coordinate
 * rounded once to the nearest double (a hole vertex is itself), face the
 * smallest 1-based number of a face containing that point.
 */
typedef struct exg_crossing
{
	double		from;
	double		to;
	double		point[3];
	uint32_t	face;
	uint8_t		kind;			/* exg_crossing_kind */
} exg_crossing;

/*
 * Every crossing of the polyline xyz[0 .. 3n) (n >= 1; no two consecutive
 * vertices equal) with the surfaces of g (triangles and polygon faces;
 * zero-area faces are left out), in order along the hole. m, when not
 * NULL, gives each vertex's measured depth; depths are then interpolated in
 * M (exactly, rounded once), else measured along the polyline from its
 * first vertex as the intercepts do. *out is malloc'ed.
 *
 * Decisions are exact: where the hole meets a face is a rational parameter
 * of its segment (GMP); the pieces are the connected components of the
 * union of those closed parameter intervals, so a crossing through an edge
 * or vertex shared by several faces is one crossing. A one-point piece at
 * the hole's first or last vertex, or on the surface's rim (an edge used by
 * one face), is a touch. Elsewhere it is 'through' when the hole, moved by
 * the symbolic translation (e, e^2, e^3), e -> 0 (simulation of
 * simplicity), crosses the faces meeting that point an odd number of
 * times: on a surface that is a 2-manifold around the point that says the
 * hole changes sides.
 */
exg_status	exg_crossings(exg_prepared *g, const double *xyz, const double *m, size_t n,
						  exg_crossing **out, size_t *nout, exg_error *err);

#ifdef __cplusplus
}
#endif

#endif							/* EXG_CROSSINGS_H */
