/*
 * self_intersect.h — pairs of faces of one triangulated surface that meet
 * other than in what they share (a common edge or vertex), decided exactly.
 *
 * Candidates come from the engine's join of the triangles with themselves
 * (grid, culling, interval filters, on the GPU when there is one); each
 * meeting pair of triangles from different faces is then classified by the
 * vertices it shares, compared exactly:
 *  - none: they meet, which is wrong;
 *  - one vertex v: they meet only in v unless the edge opposite v in one
 *    meets the other triangle (if their intersection held a point q != v,
 *    the extreme points of that convex set other than v lie on those
 *    opposite edges, or are vertices, which lie on them too);
 *  - one edge: only in the edge unless they are coplanar with their third
 *    vertices on the same side of it;
 *  - all three (a repeated face): wrong.
 * Degenerate (zero-area) triangles are left out: validity reports them.
 */
#ifndef EXG_SELF_INTERSECT_H
#define EXG_SELF_INTERSECT_H

#include <stdint.h>

#include "exg_status.h"
#include "join.h"

#ifdef __cplusplus
extern "C" {
#endif

/*
 * Face pairs (a < b) of the triangles T whose faces (face[t]) meet
 * improperly, sorted, each once; release with free(). Triangles of one face
 * (a polygon's triangulation) are not compared with each other.
 */
exg_status	exg_self_intersections(const exg_prim_set *T, const uint32_t *face,
								   const exg_join_options *opt, exg_pair **pairs_out,
								   size_t *npairs_out, exg_join_stats *stats, exg_error *err);

/*
 * The same over the triangles of several surfaces at once: group[t] (NULL:
 * one surface) is t's surface, and triangles of different surfaces are not
 * compared (two bodies may overlap; one body may not overlap itself).
 */
exg_status	exg_self_intersections_grouped(const exg_prim_set *T, const uint32_t *face,
										   const uint32_t *group,
										   const exg_join_options *opt, exg_pair **pairs_out,
										   size_t *npairs_out, exg_join_stats *stats,
										   exg_error *err);

#ifdef __cplusplus
}
#endif

#endif							/* EXG_SELF_INTERSECT_H */
