/*
 * triangulate.h — exact triangulation of a polygon with holes in the plane.
 *
 * Used to turn POLYGON faces (of polygons and polyhedral surfaces) into
 * triangles for every predicate: in 3D the caller projects a planar face onto
 * a coordinate plane in which it keeps its area, triangulates there and lifts
 * the vertex indices back; in 2D it triangulates the xy projection.
 */
#ifndef EXG_TRIANGULATE_H
#define EXG_TRIANGULATE_H

#include <stddef.h>
#include <stdint.h>

#include "exg_status.h"

#ifdef __cplusplus
extern "C" {
#endif

/*
 * Triangulate the polygon whose rings are given as 2D vertices.
 *
 *   xy          2 doubles (x, y) per vertex; nverts vertices in all
 *   ring_start  nrings + 1 offsets: ring r is vertices [ring_start[r], ring_start[r+1])
 *               ring 0 is the exterior ring, the others are holes; rings are
 *               given WITHOUT the closing vertex, in either orientation
 *
 * On EXG_OK, *tris_out (malloc'ed, caller frees) holds 3 * *ntris_out vertex
 * indices (into xy). Guarantees, decided with exact predicates only:
 *   - the union of the closed output triangles equals the closed polygon
 *     region exactly (exterior minus open holes);
 *   - no output triangle is degenerate (zero area);
 *   - duplicate consecutive vertices and collinear vertices are tolerated.
 * A polygon whose exterior ring has zero area gives EXG_OK with *ntris_out = 0
 * (the caller then uses its rings' linework, which is then its whole point
 * set); a hole of it that bounds area is invalid. Otherwise an invalid
 * polygon (see triangulate.c: a ring not simple, a hole that bounds no area,
 * crosses or leaves the exterior or lies in another hole, rings overlapping
 * along a segment, a disconnected interior) gives EXG_ERR_INVALID with a
 * message. This is the one validity rule of every form of every function.
 * O(n log n) time for n vertices; allocation failure gives EXG_ERR_NOMEM,
 * a cancel EXG_ERR_INTERRUPTED.
 */
exg_status	exg_triangulate_polygon(const double *xy, size_t nverts,
									const size_t *ring_start, size_t nrings,
									uint32_t **tris_out, size_t *ntris_out,
									exg_error *err);

#ifdef __cplusplus
}
#endif

#endif							/* EXG_TRIANGULATE_H */
