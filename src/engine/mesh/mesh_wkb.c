/*
 * mesh_wkb.c — a mesh as the EWKB of a TIN Z, which PostGIS's binary input
 * reads without any decimal conversion: every coordinate arrives as the
 * very double of the mesh. Little endian, the SRID flag when there is one.
 */
#include "mesh.h"

#include <string.h>

#define WKB_Z_FLAG		0x80000000u
#define WKB_SRID_FLAG	0x20000000u
#define WKB_TIN			16u
#define WKB_TRIANGLE	17u
/* byte order, type, ring count, point count, 4 points of 3 doubles */
#define WKB_TRIANGLE_BYTES (1 + 4 + 4 + 4 + 4 * 24)

exg_status
exg_mesh_ewkb_size(const exg_mesh *m, uint32_t first, uint32_t n, int32_t srid, size_t *size,
				   exg_error *err)
{
	if ((uint64_t) first + n > m->ntris)
		return exg_fail(err, EXG_ERR_ARGUMENT, "triangles %u to %u of %u", first + 1,
						first + n, m->ntris);
	if (n > EXG_MESH_MAX_TRIANGLES)
		return exg_fail(err, EXG_ERR_TOO_LARGE,
						"%u triangles in one TIN (at most %u: a value stays below 1 GB)",
						n, EXG_MESH_MAX_TRIANGLES);
	*size = 1 + 4 + (srid != 0 ? 4 : 0) + 4 + (size_t) n * WKB_TRIANGLE_BYTES;
	return EXG_OK;
}

static uint8_t *
put_u32(uint8_t *b, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		b[i] = (uint8_t) (v >> (8 * i));
	return b + 4;
}

static uint8_t *
put_point(uint8_t *b, const double *p)
{
	for (int k = 0; k < 3; k++)
	{
		uint64_t	u;

		memcpy(&u, &p[k], sizeof(u));
		for (int i = 0; i < 8; i++)
			b[i] = (uint8_t) (u >> (8 * i));
		b += 8;
	}
	return b;
}

void
exg_mesh_ewkb_write(const exg_mesh *m, uint32_t first, uint32_t n, int32_t srid, uint8_t *buf)
{
	uint8_t    *b = buf;

	*b++ = 1;
	b = put_u32(b, WKB_TIN | WKB_Z_FLAG | (srid != 0 ? WKB_SRID_FLAG : 0));
	if (srid != 0)
		b = put_u32(b, (uint32_t) srid);
	b = put_u32(b, n);
	for (uint32_t t = first; t < first + n; t++)
	{
		const uint32_t *v = &m->tri[3 * (size_t) t];

		*b++ = 1;
		b = put_u32(b, WKB_TRIANGLE | WKB_Z_FLAG);
		b = put_u32(b, 1);
		b = put_u32(b, 4);
		for (int k = 0; k < 4; k++)
			b = put_point(b, &m->xyz[3 * (size_t) v[k % 3]]);
	}
}
