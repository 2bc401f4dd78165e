/*
 * gserialized_write.h — write PostGIS's on-disk geometry format: the one
 * writer of serialized geometries (the reader is gserialized_read.h).
 *
 * Writes what the engine returns as geometries: a POINT or a LINESTRING,
 * in version 2 of the format (PostGIS 3.x), without a cached box (PostGIS
 * computes the box of such a value when it needs one, and writes none
 * itself for points and two-point lines). Knows nothing of PostgreSQL: the
 * caller allocates the value and sets its varlena header; these are the
 * bytes after it.
 */
#ifndef EXG_GSERIALIZED_WRITE_H
#define EXG_GSERIALIZED_WRITE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The geometry types the writer writes (PostGIS type numbers). */
typedef enum exg_gs_vertices_type
{
	EXG_GS_WRITE_POINT = 1,
	EXG_GS_WRITE_LINESTRING = 2
} exg_gs_vertices_type;

/*
 * Bytes of a POINT or LINESTRING of npoints vertices of 2 + has_z + has_m
 * ordinates each (after the varlena header).
 */
size_t		exg_gserialized_vertices_size(uint32_t npoints, bool has_z, bool has_m);

/*
 * Write it at out (exg_gserialized_vertices_size bytes): SRID srid (0:
 * unknown), type, then npoints vertices from xyzm, each x, y, then z if
 * has_z, then m if has_m, as they are in memory. Returns the bytes written.
 */
size_t		exg_gserialized_write_vertices(uint8_t *out, int32_t srid, exg_gs_vertices_type type,
										   const double *xyzm, uint32_t npoints, bool has_z,
										   bool has_m);

#ifdef __cplusplus
}
#endif

#endif							/* EXG_GSERIALIZED_WRITE_H */
