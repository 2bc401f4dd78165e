/*
 * postgis_box.h — the box PostGIS's own && and &&& compare for a geometry
 * Datum (the engine reads it: gserialized_box.h, exg_gs_box). The box join
 * that replaces those operators (custom_join_box*.c) must compare these
 * boxes, not the exact double extents, to return the operator's rows.
 */
#ifndef EXACTGPU_POSTGIS_BOX_H
#define EXACTGPU_POSTGIS_BOX_H

#include "exactgpu.h"

#include "fmgr.h"

#include "exactgpu_engine.h"

/* One geometry's box, ready for closed comparisons (exg_gs_box). */
typedef exg_gs_box PostgisBox;

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
	return exg_gs_box_z_active(b);
}

#endif							/* EXACTGPU_POSTGIS_BOX_H */
