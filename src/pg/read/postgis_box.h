/*
 * postgis_box.h — the box PostGIS's own && and &&& compare for a geometry:
 * its float box (BOX2DF for &&, GIDX for &&&), read from the serialized
 * header when the geometry carries one and otherwise computed from the
 * coordinates and rounded outward to floats, as PostGIS does. The box join
 * that replaces those operators (custom_join_box*.c) must compare these
 * boxes, not the exact double extents, to return the operator's rows.
 */
#ifndef EXACTGPU_POSTGIS_BOX_H
#define EXACTGPU_POSTGIS_BOX_H

#include "exactgpu.h"

#include <math.h>

#include "fmgr.h"

/*
 * One geometry's box, ready for closed comparisons: ndims axes (x, y, then
 * z, then m), lo[k] <= hi[k] for rows of PostGIS-written data. -inf in lo or
 * +inf in hi marks an end that never filters (a NaN bound, whose comparisons
 * are all false in PostGIS; &&&'s padded or FLT_MAX-topped axes: both ends);
 * infinite float bounds are kept in order as +-2 * FLT_MAX.
 */
typedef struct PostgisBox
{
	int			ndims;			/* 0: no box (empty geometry): meets nothing */
	double		lo[4];
	double		hi[4];
} PostgisBox;

/*
 * The box of geometry datum g as && (nd false: BOX2DF, 2 axes) or &&&
 * (nd true: GIDX, 2, 3 or 4 axes) sees it. addbbox is PostGIS's
 * postgis_addbbox(geometry), called only for the rare geometries that have
 * no cached box and are not points or lines (polygons, collections and
 * curves stripped of their box): PostGIS then computes the box from the
 * whole object (outer rings only, arcs), which is left to PostGIS itself.
 */
void		postgis_box_of(Datum g, bool nd, FmgrInfo *addbbox, PostgisBox *out);

/* Does the (full, 3-axis capable) box filter on z? */
static inline bool
postgis_box_z_active(const PostgisBox *b)
{
	return b->ndims >= 3 && !(isinf(b->lo[2]) && b->lo[2] < 0 && isinf(b->hi[2]) && b->hi[2] > 0);
}

#endif							/* EXACTGPU_POSTGIS_BOX_H */
