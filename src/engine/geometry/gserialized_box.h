/*
 * gserialized_box.h — the box PostGIS's own && and &&& compare for a
 * serialized geometry: its float box (BOX2DF for &&, GIDX for &&&), read
 * from the header when the geometry carries one and otherwise computed
 * from the coordinates and rounded outward to floats, as PostGIS does. The
 * box join that replaces those operators must compare these boxes, not the
 * exact double extents, to return the operator's rows.
 *
 * Knows nothing of PostgreSQL: the caller detoasts (a slice of the header
 * first, since a cached box is all it needs) and, for the rare geometries
 * that have no cached box and are not points or lines (polygons,
 * collections, curves stripped of their box), has PostGIS add the box
 * (postgis_addbbox): PostGIS computes it from the whole object (outer rings
 * only, arcs), which is left to PostGIS itself.
 */
#ifndef EXG_GSERIALIZED_BOX_H
#define EXG_GSERIALIZED_BOX_H

#include <math.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "exg_status.h"

#ifdef __cplusplus
extern "C" {
#endif

/*
 * The bytes of a serialized value a box needs at most when the header
 * carries one: srid (3) + flags (1) + extended flags (8) + a box of 4
 * dimensions (32).
 */
#define EXG_GS_BOX_HEADER_BYTES	(4 + 8 + 32)

/*
 * One geometry's box, ready for closed comparisons: ndims axes (x, y, then
 * z, then m), lo[k] <= hi[k] for rows of PostGIS-written data. -inf in lo or
 * +inf in hi marks an end that never filters (a NaN bound, whose comparisons
 * are all false in PostGIS; &&&'s padded or FLT_MAX-topped axes: both ends);
 * infinite float bounds are kept in order as +-2 * FLT_MAX.
 */
typedef struct exg_gs_box
{
	int			ndims;			/* 0: no box (empty geometry): meets nothing */
	double		lo[4];
	double		hi[4];
} exg_gs_box;

/* What the caller hands over. */
typedef enum exg_gs_box_bytes
{
	EXG_GS_BOX_PREFIX,			/* the value's first bytes (at least
								 * EXG_GS_BOX_HEADER_BYTES, or all of it) */
	EXG_GS_BOX_WHOLE,			/* the whole value */
	EXG_GS_BOX_ADDED			/* the whole value as postgis_addbbox returned
								 * it: without a cached box it has none */
} exg_gs_box_bytes;

/* What the reader needs to finish. */
typedef enum exg_gs_box_want
{
	EXG_GS_BOX_DONE,			/* *out is the box */
	EXG_GS_BOX_WANT_WHOLE,		/* no cached box in the prefix: call again
								 * with the whole value */
	EXG_GS_BOX_WANT_ADDED		/* no cached box, not a point or line: call
								 * again with postgis_addbbox's value */
} exg_gs_box_want;

/*
 * The box of the serialized geometry at data (size bytes after the varlena
 * header) as && (nd false: BOX2DF, 2 axes) or &&& (nd true: GIDX, 2, 3 or
 * 4 axes) sees it, or what is needed to tell it (*want). Fails with
 * EXG_ERR_CORRUPT (truncated bytes) or EXG_ERR_UNSUPPORTED (a geodetic
 * value, a format version after 2).
 */
exg_status	exg_gserialized_operator_box(const uint8_t *data, size_t size, exg_gs_box_bytes bytes,
										 bool nd, exg_gs_box *out, exg_gs_box_want *want,
										 exg_error *err);

/* Does the (full, 3-axis capable) box filter on z? */
static inline bool
exg_gs_box_z_active(const exg_gs_box *b)
{
	return b->ndims >= 3 && !(isinf(b->lo[2]) && b->lo[2] < 0 && isinf(b->hi[2]) && b->hi[2] > 0);
}

#ifdef __cplusplus
}
#endif

#endif							/* EXG_GSERIALIZED_BOX_H */
