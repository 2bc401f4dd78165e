/*
 * drill_geometry.c — PostGIS values for desurveyed holes, crossing points
 * and sections, written directly in PostGIS's serialized form.
 */
#include "drill_geometry.h"

#define GS_POINT 1
#define GS_LINESTRING 2
#define GS_MULTIPOINT 4
#define GS_MULTILINESTRING 5
#define GS_COLLECTION 7

typedef struct gsbuf
{
	uint8	   *b;
	Size		off;
} gsbuf;

static void
put_u32(gsbuf *g, uint32 v)
{
	memcpy(g->b + g->off, &v, 4);
	g->off += 4;
}

static void
put_doubles(gsbuf *g, const double *v, Size n)
{
	memcpy(g->b + g->off, v, n * sizeof(double));
	g->off += n * sizeof(double);
}

/* Varlena and GSERIALIZED v2 header: SRID, flags (version bit, Z, M). */
static gsbuf
gs_begin(Size payload, int32 srid, bool z, bool m)
{
	gsbuf		g;
	uint32		s = (uint32) srid;
	Size		size = VARHDRSZ + 4 + payload;

	g.b = palloc0(size);
	SET_VARSIZE(g.b, size);
	g.b[VARHDRSZ] = (s >> 16) & 0x1f;
	g.b[VARHDRSZ + 1] = (s >> 8) & 0xff;
	g.b[VARHDRSZ + 2] = s & 0xff;
	g.b[VARHDRSZ + 3] = 0x40 | (z ? 0x01 : 0) | (m ? 0x02 : 0);
	g.off = VARHDRSZ + 4;
	return g;
}

Datum
exactgpu_linestring_zm(int32 srid, const double *xyzm, uint32 n)
{
	gsbuf		g = gs_begin(8 + sizeof(double) * 4 * (Size) n, srid, true, true);

	put_u32(&g, GS_LINESTRING);
	put_u32(&g, n);
	put_doubles(&g, xyzm, 4 * (Size) n);
	return PointerGetDatum(g.b);
}

Datum
exactgpu_point_z(int32 srid, const double xyz[3])
{
	gsbuf		g = gs_begin(8 + sizeof(double) * 3, srid, true, false);

	put_u32(&g, GS_POINT);
	put_u32(&g, 1);
	put_doubles(&g, xyz, 3);
	return PointerGetDatum(g.b);
}

static void
put_lines(gsbuf *g, const exg_section *s, int dims)
{
	double		v[6];

	put_u32(g, GS_MULTILINESTRING);
	put_u32(g, (uint32) s->nseg);
	for (size_t i = 0; i < s->nseg; i++)
	{
		const double *p = &s->seg[6 * i];

		put_u32(g, GS_LINESTRING);
		put_u32(g, 2);
		if (dims == 3)
			put_doubles(g, p, 6);
		else
		{
			v[0] = p[0];
			v[1] = p[1];
			v[2] = p[3];
			v[3] = p[4];
			put_doubles(g, v, 4);
		}
	}
}

static void
put_points(gsbuf *g, const exg_section *s, int dims)
{
	put_u32(g, GS_MULTIPOINT);
	put_u32(g, (uint32) s->npts);
	for (size_t i = 0; i < s->npts; i++)
	{
		put_u32(g, GS_POINT);
		put_u32(g, 1);
		put_doubles(g, &s->pts[3 * i], dims);
	}
}

Datum
exactgpu_section_geometry(int32 srid, const exg_section *s, bool has_z, bool lines_when_empty)
{
	int			dims = has_z ? 3 : 2;
	Size		lines = 8 + s->nseg * (8 + 2 * dims * sizeof(double));
	Size		points = 8 + s->npts * (8 + dims * sizeof(double));
	bool		want_lines = s->nseg > 0 || (s->npts == 0 && lines_when_empty);
	bool		want_points = s->npts > 0 || (s->nseg == 0 && !lines_when_empty);
	gsbuf		g;

	if (s->nseg > (Size) 0x7ffffff || s->npts > (Size) 0x7ffffff)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("the section has too many pieces for one geometry")));
	if (want_lines && want_points)
	{
		g = gs_begin(8 + lines + points, srid, has_z, false);
		put_u32(&g, GS_COLLECTION);
		put_u32(&g, 2);
		put_lines(&g, s, dims);
		put_points(&g, s, dims);
	}
	else if (want_lines)
	{
		g = gs_begin(lines, srid, has_z, false);
		put_lines(&g, s, dims);
	}
	else
	{
		g = gs_begin(points, srid, has_z, false);
		put_points(&g, s, dims);
	}
	return PointerGetDatum(g.b);
}
