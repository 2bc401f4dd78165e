/*
 * solid.h — closed triangulated surfaces as volumes: exact point location,
 * and whether a solid holds another geometry.
 */
#ifndef EXG_SOLID_H
#define EXG_SOLID_H

#include <stdbool.h>

#include "exg_status.h"
#include "geom_prepared.h"
#include "mesh_edges.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum exg_location
{
	EXG_LOC_OUTSIDE = 0,
	EXG_LOC_INSIDE = 1,
	EXG_LOC_BOUNDARY = 2
} exg_location;

/*
 * Is the surface closed, in the sense point location needs: every edge of
 * its triangles (vertices compared exactly) is shared by an even number of
 * triangles? Cached in g.
 */
/* The edge report of g's triangles with area, and how many there are. */
exg_status	exg_solid_edge_report(exg_prepared *g, exg_edge_report *rep, size_t *ntriangles,
								  exg_error *err);
exg_status	exg_solid_is_closed(exg_prepared *g, bool *closed, exg_error *err);

/*
 * Where p is relative to the closed surface g: on it (boundary), inside or
 * outside. Exact: the triangles of the column above p (through the BVH) are
 * tested with the upward ray of locate_logic.h, whose symbolic perturbation
 * resolves rays through vertices and edges without retries or epsilons; p
 * on a triangle is found by the same exact signs. Crossings are counted mod
 * 2. EXG_ERR_NOT_SOLID unless g bounds a valid solid (solid_check.h), judged
 * once per g.
 */
exg_status	exg_solid_locate(exg_prepared *g, const double *p, exg_location *loc,
							 exg_error *err);

/*
 * Does g meet the closed volume bounded by body (inside or on)? body must
 * bound a valid solid (solid_check.h; EXG_ERR_NOT_SOLID otherwise); g is
 * anything.
 */
exg_status	exg_intersects_solid_3d(exg_prepared *body, exg_prepared *g, bool *result,
									exg_error *err);

/* Does solid g hold some component of h (one vertex of each, located)? */
exg_status	exg_solid_holds_component(exg_prepared *g, const exg_prepared *h, bool *result,
									  exg_error *err);

#ifdef __cplusplus
}
#endif

#endif							/* EXG_SOLID_H */
