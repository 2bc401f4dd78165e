/*
 * gs_write.h — writing GSERIALIZED bytes (as PostGIS 3 stores geometries),
 * for the tests and benchmarks of the read path that need many rows of real
 * bytes without a server. The layout is the one gserialized_read.c reads and
 * test_gserialized.c pins against bytes PostGIS itself wrote: header (srid,
 * flags, extended flags when solid, a float box), then the payload as type
 * and count words and doubles. The caller writes the payload in order:
 *
 *   gsw_begin(&w, has_z, has_m, solid);
 *   gsw_head(&w, 15, ntri);                       TIN of ntri members
 *   for each: gsw_head(&w, 14, 4); 4 x gsw_vertex(&w, x, y, z, m);
 *   gsw_end(&w);                                  w.b[0 .. w.n) are the bytes
 *
 * Polygons: gsw_polygon_head(&w, nrings, counts), then every ring's vertices.
 * The box is written as zeros: readers skip it. (The engine's own writer,
 * src/engine/geometry/gserialized_write.c, writes only the points and lines
 * the engine returns; this one stays apart so that the reader's tests do
 * not build their input with engine code.)
 */
#ifndef EXG_TEST_GS_WRITE_H
#define EXG_TEST_GS_WRITE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct gs_writer
{
	uint8_t    *b;
	size_t		n;
	size_t		cap;
	int			ndims;			/* doubles per vertex: 2 + Z + M */
	bool		has_z;
	bool		has_m;
} gs_writer;

static inline void
gsw_put(gs_writer *w, const void *p, size_t n)
{
	if (w->n + n > w->cap)
	{
		size_t		cap = w->cap ? w->cap : 256;

		while (cap < w->n + n)
			cap *= 2;
		w->b = realloc(w->b, cap);
		if (w->b == NULL)
		{
			fprintf(stderr, "gs_write: out of memory\n");
			exit(2);
		}
		w->cap = cap;
	}
	memcpy(w->b + w->n, p, n);
	w->n += n;
}

static inline void
gsw_u32(gs_writer *w, uint32_t v)
{
	gsw_put(w, &v, sizeof(v));
}

/* Start a geometry (w's buffer is kept and reused): SRID 32719, version 2. */
static inline void
gsw_begin(gs_writer *w, bool has_z, bool has_m, bool solid)
{
	uint32_t	s = 32719;
	uint8_t		hdr[4] = {(uint8_t) (s >> 16), (uint8_t) (s >> 8), (uint8_t) s, 0};
	int			bdims = 2 + has_z + has_m;
	float		zero = 0;

	w->n = 0;
	w->has_z = has_z;
	w->has_m = has_m;
	w->ndims = 2 + has_z + has_m;
	hdr[3] = (uint8_t) ((has_z ? 0x01 : 0) | (has_m ? 0x02 : 0) | 0x04 | 0x40 | (solid ? 0x10 : 0));
	gsw_put(w, hdr, 4);
	if (solid)
	{
		uint64_t	x = 1;

		gsw_put(w, &x, sizeof(x));
	}
	for (int d = 0; d < 2 * bdims; d++)
		gsw_put(w, &zero, sizeof(zero));
}

/* Type word and count (points of a point/line/triangle, members of a collection). */
static inline void
gsw_head(gs_writer *w, uint32_t type, uint32_t count)
{
	gsw_u32(w, type);
	gsw_u32(w, count);
}

static inline void
gsw_polygon_head(gs_writer *w, uint32_t nrings, const uint32_t *counts)
{
	gsw_u32(w, 3);
	gsw_u32(w, nrings);
	for (uint32_t r = 0; r < nrings; r++)
		gsw_u32(w, counts[r]);
	if (nrings % 2)
		gsw_u32(w, 0);
}

/* One vertex: z and m written only where the geometry has them. */
static inline void
gsw_vertex(gs_writer *w, double x, double y, double z, double m)
{
	gsw_put(w, &x, sizeof(x));
	gsw_put(w, &y, sizeof(y));
	if (w->has_z)
		gsw_put(w, &z, sizeof(z));
	if (w->has_m)
		gsw_put(w, &m, sizeof(m));
}

static inline void
gsw_vertex3(gs_writer *w, const double *p)
{
	gsw_vertex(w, p[0], p[1], p[2], 0);
}

static inline void
gsw_free(gs_writer *w)
{
	free(w->b);
	memset(w, 0, sizeof(*w));
}

/* Rows of serialized geometries in one buffer, as exg_row_bytes wants them. */
typedef struct gs_rows
{
	uint8_t    *data;
	size_t		n,
				cap;
	size_t	   *off;			/* n + 1 */
	size_t		nrows,
				rcap;
} gs_rows;

static inline void
gs_rows_add(gs_rows *r, const gs_writer *w)
{
	if (r->nrows + 2 > r->rcap)
	{
		r->rcap = r->rcap ? 2 * r->rcap : 64;
		r->off = realloc(r->off, r->rcap * sizeof(size_t));
	}
	if (r->n + w->n > r->cap)
	{
		size_t		cap = r->cap ? r->cap : 4096;

		while (cap < r->n + w->n)
			cap *= 2;
		r->data = realloc(r->data, cap);
		r->cap = cap;
	}
	if (r->off == NULL || r->data == NULL)
	{
		fprintf(stderr, "gs_write: out of memory\n");
		exit(2);
	}
	if (r->nrows == 0)
		r->off[0] = 0;
	memcpy(r->data + r->n, w->b, w->n);
	r->n += w->n;
	r->off[++r->nrows] = r->n;
}

static inline void
gs_rows_free(gs_rows *r)
{
	free(r->data);
	free(r->off);
	memset(r, 0, sizeof(*r));
}

#endif							/* EXG_TEST_GS_WRITE_H */
