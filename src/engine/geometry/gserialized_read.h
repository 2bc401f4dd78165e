/*
 * gserialized_read.h — read PostGIS's on-disk geometry format into a shape.
 *
 * Reads the serialized form directly (GSERIALIZED version 1 of PostGIS 2.x
 * and version 2 of PostGIS 3.x) without linking liblwgeom; knows nothing of
 * PostgreSQL: the caller detoasts the datum and passes the bytes that follow
 * the varlena header.
 */
#ifndef EXG_GSERIALIZED_READ_H
#define EXG_GSERIALIZED_READ_H

#include <stddef.h>
#include <stdint.h>

#include "exg_status.h"
#include "geom_shape.h"

#ifdef __cplusplus
extern "C" {
#endif

/*
 * Parse size bytes at data (everything after the 4-byte varlena header:
 * srid[3], flags, optional extended flags, optional box, payload) into out,
 * which must be freshly initialized with exg_shape_init. On failure out is
 * left freed/empty and err says why:
 *   EXG_ERR_CORRUPT      truncated or malformed bytes (never reads past size),
 *                        an unknown type number, a member type its collection
 *                        cannot hold, or bytes left over after the geometry
 *   EXG_ERR_UNSUPPORTED  curves (CIRCULARSTRING, COMPOUNDCURVE, CURVEPOLYGON,
 *                        MULTICURVE, MULTISURFACE), geography (GEODETIC flag),
 *                        or flag 0x80 (a format version after 2)
 *   EXG_ERR_NONFINITE    NaN or infinite coordinate (POINT(NaN NaN) is empty)
 *   EXG_ERR_INVALID      a triangle that is not 4 vertices, first == last
 *   EXG_ERR_TOO_LARGE    more parts, rings or vertices than a shape indexes
 *   EXG_ERR_NOMEM        allocation failure
 *   EXG_ERR_ARGUMENT     out is NULL
 */
exg_status	exg_gserialized_read(const uint8_t *data, size_t size, exg_shape *out,
								 exg_error *err);

/*
 * The SRID alone, from the first 3 bytes (0 = unknown); needs only size >= 4,
 * so a detoasted slice of the header is enough.
 */
exg_status	exg_gserialized_srid(const uint8_t *data, size_t size, int32_t *srid,
								 exg_error *err);

#ifdef __cplusplus
}
#endif

#endif							/* EXG_GSERIALIZED_READ_H */
