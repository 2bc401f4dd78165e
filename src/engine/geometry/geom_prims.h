/*
 * geom_prims.h — the primitives of a shape, as the predicates consume them.
 *
 * 3D view (ST_ExactIntersects3D): points, segments and triangles. Polygon
 * faces are triangulated (exactly, in a projection where they keep their
 * area); each primitive is classified once, so a collinear triangle is
 * stored as the segment it spans and pair tests need no degeneracy checks.
 *
 * 2D view (ST_ExactIntersects): points and segments (linework plus every
 * ring edge), and the areas (polygons, triangles) for containment tests,
 * each component with one representative vertex.
 *
 * Vertex indices refer to the shape's xyz array, which must outlive the view.
 */
#ifndef EXG_GEOM_PRIMS_H
#define EXG_GEOM_PRIMS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "exg_status.h"
#include "geom_shape.h"
#include "simplex.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A classified primitive: kind is EXG_SIMPLEX_POINT/SEGMENT/TRIANGLE. */
typedef struct exg_prim
{
	uint32_t	v[3];			/* vertex indices (unused ones repeat the last) */
	int8_t		kind;
	int8_t		k;				/* triangle: projection axis to drop */
	int8_t		s;				/* triangle: orientation in that projection */
	int8_t		naxes;			/* 3 for the 3D view, 2 for the 2D view */
} exg_prim;

typedef struct exg_prims
{
	const double *xyz;			/* borrowed from the shape */
	exg_prim   *prims;
	size_t		nprims;
	size_t		cap;
	double	   *boxes;			/* 6 per primitive, see bvh.h */
	uint32_t   *comp;			/* 3D view: the shape component (face) of each */
	double		box[6];			/* of all primitives */
} exg_prims;

/* What to do with a polygon face whose vertices are not exactly coplanar. */
typedef enum exg_nonplanar_policy
{
	EXG_NONPLANAR_ERROR = 0,	/* EXG_ERR_NONPLANAR */
	EXG_NONPLANAR_TRIANGULATE	/* triangulate its projection and lift it */
} exg_nonplanar_policy;

exg_status	exg_prims_build_3d(const exg_shape *s, exg_nonplanar_policy policy,
							   exg_prims *out, exg_error *err);

/*
 * Append the primitives of polygon component ci of s (a face: triangles,
 * or its rings' linework when it spans no area), exactly as
 * exg_prims_build_3d makes them, to p (whose xyz becomes s->xyz; p may
 * hold earlier primitives of s, or be reset with nprims = 0 and reused).
 * Upward rounding must be active (exg_round_up_enter). For readers that
 * flatten the other components themselves (batch_add.c); on failure p keeps
 * what it had, plus possibly some of this face's primitives.
 */
exg_status	exg_prims_add_face_3d(exg_prims *p, const exg_shape *s, size_t ci,
								  exg_nonplanar_policy policy, exg_error *err);

/* 2D view: primitives are points and segments (naxes = 2). */
exg_status	exg_prims_build_2d(const exg_shape *s, exg_prims *out, exg_error *err);

/*
 * 2D areas: the polygons (triangulated exactly in the xy plane, by the same
 * triangulator and validity rule as the batch joins) and triangles of the
 * shape, as triangles (naxes = 2). A polygon whose exterior ring bounds no
 * area adds nothing (its rings are linework, in the 2D view).
 */
exg_status	exg_prims_build_areas_2d(const exg_shape *s, exg_prims *out, exg_error *err);

void		exg_prims_free(exg_prims *p);

#ifdef __cplusplus
}
#endif

#endif							/* EXG_GEOM_PRIMS_H */
