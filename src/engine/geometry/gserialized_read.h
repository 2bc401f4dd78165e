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

#include <math.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

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

/*
 * The components of a simple geometry straight from its bytes, for readers
 * that want its vertices without building a shape (the batch joins'
 * flattening: batch_add.c). Simple: a POINT, LINESTRING, TRIANGLE, MULTIPOINT,
 * MULTILINESTRING or TIN, not geodetic, every member of the collection's
 * own type. Walked as exg_gserialized_read walks it, each component is what
 * that reader would store: a non-empty point, a linestring (one vertex: a
 * point), a closed four-vertex triangle; empty ones are skipped (POINT
 * EMPTY, POINT(NaN NaN), no vertices). Anything else, and anything the
 * reader would refuse except non-finite coordinates (which the caller
 * checks on the vertices it loads), ends the walk with ok = false: read
 * those bytes with exg_gserialized_read, whose result and error are the
 * reference.
 *
 *   exg_gs_simple it;
 *   if (exg_gs_simple_begin(data, size, &it))
 *       while (exg_gs_simple_next(&it, &kind, &off, &n))
 *           ... n vertices at data + off, stride it.stride (exg_gs_vertex) ...
 *   if (!it.ok) ... not simple: exg_gserialized_read ...
 */
typedef struct exg_gs_simple
{
	const uint8_t *data;
	size_t		size;
	size_t		off;			/* next member's type word */
	size_t		stride;			/* bytes per vertex: 8 * (2 + Z + M) */
	bool		has_z;
	bool		ok;				/* false: not simple, or not well formed */
	uint32_t	member_type;	/* PostGIS type number of the members */
	uint32_t	remaining;		/* members not read yet */
} exg_gs_simple;

/* Start walking; false (it->ok false) when the bytes are not a simple geometry. */
bool		exg_gs_simple_begin(const uint8_t *data, size_t size, exg_gs_simple *it);

/* Vertex at byte off: x, y and z (0 without Z; M is dropped), as the reader loads it. */
static inline void
exg_gs_vertex(const exg_gs_simple *it, size_t off, double xyz[3])
{
	memcpy(&xyz[0], it->data + off, sizeof(double));
	memcpy(&xyz[1], it->data + off + sizeof(double), sizeof(double));
	if (it->has_z)
		memcpy(&xyz[2], it->data + off + 2 * sizeof(double), sizeof(double));
	else
		xyz[2] = 0.0;
}

/*
 * The next non-empty component: its kind (EXG_COMP_POINT, _LINE or
 * _TRIANGLE), the offset of its first vertex and its vertex count (1, >= 2,
 * 4). False at the end (it->ok: the bytes ended exactly there) or where the
 * walk stops (it->ok false).
 */
static inline bool
exg_gs_simple_next(exg_gs_simple *it, exg_comp_kind *kind, size_t *off, uint32_t *n)
{
	while (it->ok && it->remaining > 0)
	{
		uint32_t	w[2];
		size_t		o = it->off;

		it->remaining--;
		if (it->size - o < sizeof(w))
			goto refuse;
		memcpy(w, it->data + o, sizeof(w));
		o += sizeof(w);
		/* the member's type (1 point, 2 linestring, 14 triangle), then its vertex count */
		if (w[0] != it->member_type || w[1] > (it->size - o) / it->stride)
			goto refuse;
		it->off = o + (size_t) w[1] * it->stride;
		if (w[1] == 0)
			continue;
		*off = o;
		*n = w[1];
		if (w[0] == 2)
		{
			*kind = w[1] == 1 ? EXG_COMP_POINT : EXG_COMP_LINE;
			return true;
		}
		if (w[0] == 1)
		{
			double		v[3];

			if (w[1] > 1)
				goto refuse;
			exg_gs_vertex(it, o, v);
			if (isnan(v[0]) && isnan(v[1]))
				continue;		/* POINT(NaN NaN): empty */
			*kind = EXG_COMP_POINT;
			return true;
		}
		/* a triangle: four vertices, closed (compared as the reader compares) */
		{
			double		a[3],
						b[3];

			if (w[1] != 4)
				goto refuse;
			exg_gs_vertex(it, o, a);
			exg_gs_vertex(it, o + 3 * it->stride, b);
			if (!(a[0] == b[0] && a[1] == b[1] && a[2] == b[2]))
				goto refuse;
			*kind = EXG_COMP_TRIANGLE;
			return true;
		}
	}
	/* the end: the bytes must end there too */
	if (it->off != it->size)
		it->ok = false;
	return false;
refuse:
	it->ok = false;
	return false;
}

#ifdef __cplusplus
}
#endif

#endif							/* EXG_GSERIALIZED_READ_H */
