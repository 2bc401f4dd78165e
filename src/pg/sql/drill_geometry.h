/*
 * drill_geometry.h — PostGIS values built from the drill family's results
 * (GSERIALIZED version 2, no box: PostGIS computes one when it needs it).
 */
#ifndef EXACTGPU_DRILL_GEOMETRY_H
#define EXACTGPU_DRILL_GEOMETRY_H

#include "exactgpu.h"

/* A LINESTRING ZM of n points of (x, y, z, m). */
Datum		exactgpu_linestring_zm(int32 srid, const double *xyzm, uint32 n);

/* A POINT Z. */
Datum		exactgpu_point_z(int32 srid, const double xyz[3]);

/*
 * A section: MULTILINESTRING of its segments, MULTIPOINT of its points, a
 * GEOMETRYCOLLECTION of both when it has both; when it has neither, an
 * empty MULTILINESTRING if lines_when_empty else an empty MULTIPOINT. With
 * Z when has_z, else XY (the section-local form).
 */
Datum		exactgpu_section_geometry(int32 srid, const exg_section *s, bool has_z,
									  bool lines_when_empty);

#endif							/* EXACTGPU_DRILL_GEOMETRY_H */
