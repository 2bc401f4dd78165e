/*
 * gserialized_write.c — a POINT or LINESTRING in PostGIS's serialized
 * format, version 2 (the layout: gserialized_read.c):
 *
 *   srid      3 bytes, big-endian, the low 21 bits of the SRID
 *   flags     version 2 (0x40), Z (0x01), M (0x02); no box, no extended flags
 *   payload   type u32, npoints u32, then the doubles, in host byte order
 *
 * As PostGIS lays it out, every double starts 8-byte aligned relative to
 * the varlena start (4 + 4 + 8 bytes before the first).
 */
#include "gserialized_write.h"

#include <string.h>

#define GS_HEADER_SIZE	4		/* srid[3] + flags */
#define GS_FLAG_Z		0x01
#define GS_FLAG_M		0x02
#define GS_FLAG_VERSION	0x40	/* set: version 2 */

size_t
exg_gserialized_vertices_size(uint32_t npoints, bool has_z, bool has_m)
{
	size_t		ordinates = 2 + (has_z ? 1 : 0) + (has_m ? 1 : 0);

	return GS_HEADER_SIZE + 2 * sizeof(uint32_t) + sizeof(double) * ordinates * npoints;
}

size_t
exg_gserialized_write_vertices(uint8_t *out, int32_t srid, exg_gs_vertices_type type,
							   const double *xyzm, uint32_t npoints, bool has_z, bool has_m)
{
	size_t		ordinates = 2 + (has_z ? 1 : 0) + (has_m ? 1 : 0);
	uint32_t	s = (uint32_t) srid,
				t = (uint32_t) type;

	/* PostGIS keeps 21 bits of the SRID (gserialized2_set_srid) */
	out[0] = (uint8_t) ((s >> 16) & 0x1f);
	out[1] = (uint8_t) ((s >> 8) & 0xff);
	out[2] = (uint8_t) (s & 0xff);
	out[3] = (uint8_t) (GS_FLAG_VERSION | (has_z ? GS_FLAG_Z : 0) | (has_m ? GS_FLAG_M : 0));
	memcpy(out + 4, &t, sizeof(t));
	memcpy(out + 8, &npoints, sizeof(npoints));
	memcpy(out + 12, xyzm, sizeof(double) * ordinates * npoints);
	return exg_gserialized_vertices_size(npoints, has_z, has_m);
}
