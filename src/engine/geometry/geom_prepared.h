/*
 * geom_prepared.h — a geometry parsed once and indexed on demand, so that a
 * row-by-row join pays parsing and indexing once per distinct geometry (the
 * PostgreSQL layer caches these across calls, as PostGIS caches its
 * prepared geometries). Views and queries: geom_prepared.c; the
 * intersection tests: geom_intersects.c.
 */
#ifndef EXG_GEOM_PREPARED_H
#define EXG_GEOM_PREPARED_H

#include <stdbool.h>

#include "bvh.h"
#include "geom_prims.h"
#include "geom_shape.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Index a view only when it has more primitives than this (below, brute force wins). */
#define EXG_INDEX_MIN_PRIMS 32

typedef struct exg_view
{
	bool		built;
	bool		indexed;
	exg_prims	prims;
	exg_bvh		bvh;
} exg_view;

typedef struct exg_prepared
{
	exg_shape	shape;			/* owned */
	exg_nonplanar_policy policy;
	exg_view	view3d;
	exg_view	view2d;
	exg_view	areas2d;		/* the 2D areas as exact triangles (and their index) */
	int8_t		closed;			/* closed surface (mod 2): -1 not checked, 0, 1 */
	uint8_t		borrowed;		/* EXG_BORROWED_*: parts in a packed block
								 * (geom_packed.h), not ours to free */
	/* solid/solid_check.h's verdicts, kept with the geometry so that a body
	 * is judged once however many calls use it: solid_judged 0 not yet;
	 * then "" or why it is no valid solid, and "" or why it has no
	 * well-defined inside */
	int8_t		solid_judged;
	char		solid_why[EXG_ERROR_MESSAGE_LEN];
	char		inside_why[EXG_ERROR_MESSAGE_LEN];
} exg_prepared;

/* Parts of an exg_prepared that borrow a packed block; views in the order
 * view3d, view2d, areas2d (so VIEW3D << i is the i-th view's primitives). */
#define EXG_BORROWED_SHAPE		0x01
#define EXG_BORROWED_VIEW3D		0x02
#define EXG_BORROWED_INDEX3D	0x10

/* Take ownership of *shape (which is reset to empty). */
void		exg_prepared_init(exg_prepared *g, exg_shape *shape,
							  exg_nonplanar_policy policy);
void		exg_prepared_free(exg_prepared *g);

/*
 * Build the view of naxes (3, or 2 for polygons as areas) once, and its
 * index when want_index and it has more than EXG_INDEX_MIN_PRIMS primitives.
 */
exg_status	exg_prepared_view(exg_prepared *g, int naxes, bool want_index, exg_error *err);

/*
 * The 2D areas (polygons triangulated exactly in the xy plane, triangles) and
 * their index, built once; an invalid polygon is EXG_ERR_INVALID here.
 */
exg_status	exg_prepared_areas2d(exg_prepared *g, exg_error *err);

/* The 3D view (primitives, and their index when asked for), built once. */
exg_status	exg_prepared_view3d(exg_prepared *g, bool indexed, const exg_view **view,
								exg_error *err);

/* Visit the primitives of v whose boxes meet box: through the index when
 * the view has one, else all; stops at the first visit returning non-zero. */
int			exg_view_query(const exg_view *v, const double *box, exg_bvh_visit_fn visit,
						   void *ctx);

/*
 * Closed-set intersection in 3D and in 2D (geom_intersects.c) (polygons as
 * areas). In 3D every surface is a surface, closed or not, flagged solid
 * (ST_MakeSolid) or not; the volume form is exg_intersects_solid_3d (solid.h).
 */
exg_status	exg_intersects_3d(exg_prepared *a, exg_prepared *b, bool *result,
							  exg_error *err);

exg_status	exg_intersects_2d(exg_prepared *a, exg_prepared *b, bool *result,
							  exg_error *err);

#ifdef __cplusplus
}
#endif

#endif							/* EXG_GEOM_PREPARED_H */
