/*
 * gserialized_read.c — read PostGIS's on-disk geometry format into a shape.
 *
 * Layout (after the varlena header, which the caller strips), as written by
 * liblwgeom/gserialized1.c (PostGIS 2.x) and gserialized2.c (PostGIS 3.x):
 *
 *   srid      3 bytes, big-endian 21-bit two's complement (top 3 bits unused)
 *   flags     1 byte; bit 0x40 selects the version:
 *               v1: Z 0x01, M 0x02, BBOX 0x04, GEODETIC 0x08, READONLY 0x10,
 *                   SOLID 0x20
 *               v2: Z 0x01, M 0x02, BBOX 0x04, GEODETIC 0x08, EXTENDED 0x10,
 *                   reserved 0x20, version 0x40, reserved-for-versions 0x80
 *   [v2 only, if EXTENDED] uint64 extended flags; SOLID is bit 0x1
 *   [if BBOX] float box: 2 floats per dimension (x, y, then z if Z, then m
 *             if M), or 6 floats when GEODETIC — 16, 24 or 32 bytes
 *   payload   the top geometry, recursively:
 *               point/line/triangle/circstring: type u32, npoints u32, doubles
 *               polygon: type u32, nrings u32, npoints u32 per ring, 4 bytes of
 *                        padding when nrings is odd, then each ring's doubles
 *               collections: type u32, ngeoms u32, then each member in full
 *
 * Integers are in host byte order (PostGIS copies them with memcpy) and every
 * double starts 8-byte aligned relative to the varlena start; we do not rely
 * on that alignment, since the caller's buffer may sit anywhere, and read
 * every value with memcpy.
 *
 * The reader is defensive where liblwgeom is not: every count is checked
 * against the bytes left before anything is read or allocated, the payload
 * must end exactly at size, and collections are walked with an explicit
 * stack so that nesting depth cannot exhaust the C stack.
 */
#include "gserialized_read.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* PostGIS type numbers (liblwgeom.h.in). */
enum
{
	GS_POINT = 1,
	GS_LINESTRING = 2,
	GS_POLYGON = 3,
	GS_MULTIPOINT = 4,
	GS_MULTILINESTRING = 5,
	GS_MULTIPOLYGON = 6,
	GS_GEOMETRYCOLLECTION = 7,
	GS_CIRCULARSTRING = 8,
	GS_COMPOUNDCURVE = 9,
	GS_CURVEPOLYGON = 10,
	GS_MULTICURVE = 11,
	GS_MULTISURFACE = 12,
	GS_POLYHEDRALSURFACE = 13,
	GS_TRIANGLE = 14,
	GS_TIN = 15,
	GS_NUMTYPES = 16
};

/* Flag bits shared by both versions. */
#define GS_FLAG_Z			0x01
#define GS_FLAG_M			0x02
#define GS_FLAG_BBOX		0x04
#define GS_FLAG_GEODETIC	0x08
#define GS_FLAG_VERSION		0x40	/* set: version 2 */
#define GS_FLAG_FUTURE		0x80	/* second version bit, unused so far */
/* Version 1 only. */
#define GS1_FLAG_SOLID		0x20
/* Version 2 only. */
#define GS2_FLAG_EXTENDED	0x10
#define GS2_XFLAG_SOLID		UINT64_C(0x1)

#define GS_HEADER_SIZE		4		/* srid[3] + flags */

static const char *const gs_type_names[GS_NUMTYPES] = {
	"UNKNOWN", "POINT", "LINESTRING", "POLYGON", "MULTIPOINT",
	"MULTILINESTRING", "MULTIPOLYGON", "GEOMETRYCOLLECTION", "CIRCULARSTRING",
	"COMPOUNDCURVE", "CURVEPOLYGON", "MULTICURVE", "MULTISURFACE",
	"POLYHEDRALSURFACE", "TRIANGLE", "TIN"
};

typedef struct gs_header
{
	int32_t		srid;
	bool		has_z;
	bool		has_m;
	bool		is_solid;
	bool		is_geodetic;
	size_t		payload_off;	/* offset of the top geometry's type word */
} gs_header;

/* One open collection while walking the payload. */
typedef struct gs_frame
{
	uint32_t	type;
	uint32_t	remaining;		/* members not read yet */
} gs_frame;

typedef struct gs_reader
{
	const uint8_t *data;
	size_t		size;
	size_t		off;
	size_t		stride;			/* bytes per vertex: 8 * (2 + Z + M) */
	bool		has_z;
	exg_shape  *out;
	exg_error  *err;
} gs_reader;

static exg_status
corrupt(exg_error *err, const char *what, size_t off)
{
	(void) exg_fail(err, EXG_ERR_CORRUPT,
					"corrupt serialized geometry: %s at byte %zu", what, off);
	return EXG_ERR_CORRUPT;
}

/* Sign-extend the 21-bit SRID exactly as gserialized{1,2}_get_srid do. */
static int32_t
gs_srid(const uint8_t *data)
{
	uint32_t	raw = ((uint32_t) (data[0] & 0x1F) << 16) |
		((uint32_t) data[1] << 8) | (uint32_t) data[2];

	return (raw & 0x100000) ? (int32_t) raw - 0x200000 : (int32_t) raw;
}

static exg_status
gs_read_header(const uint8_t *data, size_t size, gs_header *h, exg_error *err)
{
	uint8_t		flags;
	size_t		off = GS_HEADER_SIZE;

	if (data == NULL || size < GS_HEADER_SIZE)
		return corrupt(err, "shorter than the 4-byte header", 0);

	flags = data[3];
	h->srid = gs_srid(data);
	h->has_z = (flags & GS_FLAG_Z) != 0;
	h->has_m = (flags & GS_FLAG_M) != 0;
	h->is_geodetic = (flags & GS_FLAG_GEODETIC) != 0;
	h->is_solid = false;

	/*
	 * 0x80 is the second version bit in both layouts, kept for the version
	 * after 2; reading such bytes as version 1 or 2 would silently misplace
	 * everything that follows.
	 */
	if (flags & GS_FLAG_FUTURE)
		return exg_fail(err, EXG_ERR_UNSUPPORTED,
						"serialized geometry has flags 0x%02x: a format version newer than 2 is not supported",
						flags);
	if (flags & GS_FLAG_VERSION)
	{
		if (flags & GS2_FLAG_EXTENDED)
		{
			uint64_t	xflags;

			if (size - off < sizeof(xflags))
				return corrupt(err, "truncated extended flags", off);
			memcpy(&xflags, data + off, sizeof(xflags));
			h->is_solid = (xflags & GS2_XFLAG_SOLID) != 0;
			off += sizeof(xflags);
		}
	}
	else
		h->is_solid = (flags & GS1_FLAG_SOLID) != 0;

	if (flags & GS_FLAG_BBOX)
	{
		/* gbox_serialized_size: a geodetic box is always 3-D (geocentric). */
		size_t		ndims = h->is_geodetic ? 3 : 2 + (size_t) h->has_z + (size_t) h->has_m;
		size_t		box = 2 * ndims * sizeof(float);

		if (size - off < box)
			return corrupt(err, "truncated bounding box", off);
		off += box;
	}
	h->payload_off = off;
	return EXG_OK;
}

exg_status
exg_gserialized_srid(const uint8_t *data, size_t size, int32_t *srid,
					 exg_error *err)
{
	/* Only the header bytes, so a caller may pass a detoasted slice. */
	if (data == NULL || size < GS_HEADER_SIZE)
		return corrupt(err, "shorter than the 4-byte header", 0);
	*srid = gs_srid(data);
	return EXG_OK;
}

static exg_status
read_u32(gs_reader *rd, uint32_t *v, const char *what)
{
	if (rd->size - rd->off < sizeof(*v))
		return corrupt(rd->err, what, rd->off);
	memcpy(v, rd->data + rd->off, sizeof(*v));
	rd->off += sizeof(*v);
	return EXG_OK;
}

/*
 * Are there bytes for n vertices at offset off? Divides instead of
 * multiplying so that a hostile n cannot wrap n * stride around.
 */
static bool
have_vertices(const gs_reader *rd, size_t off, uint32_t n)
{
	return off <= rd->size && (size_t) n <= (rd->size - off) / rd->stride;
}

static void
load_vertex(const gs_reader *rd, size_t off, double xyz[3])
{
	memcpy(&xyz[0], rd->data + off, sizeof(double));
	memcpy(&xyz[1], rd->data + off + sizeof(double), sizeof(double));
	/* Without Z the third ordinate, if any, is M: dropped. */
	if (rd->has_z)
		memcpy(&xyz[2], rd->data + off + 2 * sizeof(double), sizeof(double));
	else
		xyz[2] = 0.0;
}

/*
 * Append n vertices read from off as a new ring of the current component.
 * The vertices were reserved for the whole geometry (exg_gserialized_read),
 * so this is one loop of copies and finiteness checks, with the errors of
 * exg_shape_add_vertex; where that reservation failed (memory), or the ring
 * would pass the shape's id limit, the ring goes vertex by vertex through
 * exg_shape_add_vertex, whose errors are the reference.
 */
static exg_status
add_ring(gs_reader *rd, size_t off, uint32_t n)
{
	exg_shape  *s = rd->out;
	exg_status	st;
	double	   *dst;
	size_t		base;

	st = exg_shape_begin_ring(s, rd->err);
	if (st != EXG_OK)
		return st;
	base = s->nverts;
	if (base + n > s->verts_cap || base + n > UINT32_MAX)
	{
		for (uint32_t i = 0; i < n; i++, off += rd->stride)
		{
			double		v[3];

			load_vertex(rd, off, v);
			st = exg_shape_add_vertex(s, v[0], v[1], v[2], rd->err);
			if (st != EXG_OK)
				return st;
		}
		return EXG_OK;
	}
	dst = s->xyz + 3 * base;
	for (uint32_t i = 0; i < n; i++, off += rd->stride, dst += 3)
	{
		load_vertex(rd, off, dst);
		if (!isfinite(dst[0]) || !isfinite(dst[1]) || !isfinite(dst[2]))
		{
			/* the vertices before it were added, as one at a time */
			s->nverts = base + i;
			s->ring_start[s->nrings] = s->nverts;
			return exg_fail(rd->err, EXG_ERR_NONFINITE,
							"geometry has a non-finite coordinate (NaN or infinity) at vertex %zu",
							s->nverts);
		}
	}
	s->nverts = base + n;
	s->ring_start[s->nrings] = s->nverts;
	return EXG_OK;
}

static exg_status
read_point(gs_reader *rd)
{
	uint32_t	n = 0;
	double		v[3];
	exg_status	st;

	st = read_u32(rd, &n, "truncated point");
	if (st != EXG_OK)
		return st;
	if (n > 1)
		return corrupt(rd->err, "point with more than one vertex", rd->off - 4);
	if (!have_vertices(rd, rd->off, n))
		return corrupt(rd->err, "truncated point coordinates", rd->off);
	if (n == 0)
		return EXG_OK;			/* POINT EMPTY as PostGIS 3 writes it */

	load_vertex(rd, rd->off, v);
	/* POINT(NaN NaN) is how WKB spells POINT EMPTY; lwin_wkb.c agrees. */
	if (isnan(v[0]) && isnan(v[1]))
	{
		rd->off += rd->stride;
		return EXG_OK;
	}
	st = exg_shape_begin_comp(rd->out, EXG_COMP_POINT, false, rd->err);
	if (st == EXG_OK)
		st = add_ring(rd, rd->off, 1);
	rd->off += rd->stride;
	return st;
}

static exg_status
read_linestring(gs_reader *rd)
{
	uint32_t	n = 0;
	exg_status	st;

	st = read_u32(rd, &n, "truncated linestring");
	if (st != EXG_OK)
		return st;
	if (!have_vertices(rd, rd->off, n))
		return corrupt(rd->err, "linestring vertex count exceeds the data", rd->off - 4);
	if (n > 0)
	{
		/* A one-vertex linestring occupies a point, not a segment. */
		st = exg_shape_begin_comp(rd->out, n == 1 ? EXG_COMP_POINT : EXG_COMP_LINE,
								  false, rd->err);
		if (st == EXG_OK)
			st = add_ring(rd, rd->off, n);
	}
	rd->off += (size_t) n * rd->stride;
	return st;
}

static exg_status
read_triangle(gs_reader *rd, bool is_patch)
{
	uint32_t	n = 0;
	size_t		first,
				last;
	exg_status	st;

	st = read_u32(rd, &n, "truncated triangle");
	if (st != EXG_OK)
		return st;
	if (!have_vertices(rd, rd->off, n))
		return corrupt(rd->err, "triangle vertex count exceeds the data", rd->off - 4);
	if (n == 0)
		return EXG_OK;

	/*
	 * liblwgeom stores whatever it was given, but its parsers only build
	 * closed four-vertex triangles, and the engine relies on that shape.
	 */
	if (n != 4)
		return exg_fail(rd->err, EXG_ERR_INVALID,
						"triangle has %u vertices; a triangle needs 4 (closed)", n);
	first = rd->off;
	last = rd->off + 3 * rd->stride;
	{
		double		a[3],
					b[3];

		load_vertex(rd, first, a);
		load_vertex(rd, last, b);
		if (!(a[0] == b[0] && a[1] == b[1] && a[2] == b[2]))
			return exg_fail(rd->err, EXG_ERR_INVALID,
							"triangle ring is not closed (first vertex differs from last)");
	}
	st = exg_shape_begin_comp(rd->out, EXG_COMP_TRIANGLE, is_patch, rd->err);
	if (st == EXG_OK)
		st = add_ring(rd, rd->off, n);
	rd->off += (size_t) n * rd->stride;
	return st;
}

static exg_status
read_polygon(gs_reader *rd, bool is_patch)
{
	uint32_t	nrings = 0;
	size_t		counts,
				ord;
	bool		empty;
	exg_status	st;

	st = read_u32(rd, &nrings, "truncated polygon");
	if (st != EXG_OK)
		return st;

	/*
	 * The per-ring counts are padded to a multiple of 8 bytes, so that with
	 * the type and nrings words the ordinates stay double-aligned.
	 */
	counts = rd->off;
	if ((size_t) nrings > (rd->size - counts) / 4 ||
		(nrings % 2 == 1 && rd->size - counts - (size_t) nrings * 4 < 4))
		return corrupt(rd->err, "polygon ring count exceeds the data", counts - 4);
	ord = counts + (size_t) nrings * 4 + (nrings % 2 ? 4 : 0);

	/* Validate every ring before building anything. */
	{
		size_t		o = ord;

		for (uint32_t r = 0; r < nrings; r++)
		{
			uint32_t	n = 0;

			memcpy(&n, rd->data + counts + 4 * (size_t) r, sizeof(n));
			if (!have_vertices(rd, o, n))
				return corrupt(rd->err, "polygon ring vertex count exceeds the data",
							   counts + 4 * (size_t) r);
			o += (size_t) n * rd->stride;
		}
		rd->off = o;
	}

	/*
	 * lwpoly_is_empty: no rings or an empty shell makes the whole polygon
	 * empty. Empty holes remove nothing, so they are not stored.
	 */
	empty = nrings == 0;
	if (!empty)
	{
		uint32_t	n0;

		memcpy(&n0, rd->data + counts, sizeof(n0));
		empty = n0 == 0;
	}
	if (empty)
		return EXG_OK;

	st = exg_shape_begin_comp(rd->out, EXG_COMP_POLYGON, is_patch, rd->err);
	for (uint32_t r = 0; st == EXG_OK && r < nrings; r++)
	{
		uint32_t	n = 0;

		memcpy(&n, rd->data + counts + 4 * (size_t) r, sizeof(n));
		if (n > 0)
			st = add_ring(rd, ord, n);
		ord += (size_t) n * rd->stride;
	}
	return st;
}

static bool
is_curve_type(uint32_t type)
{
	return type == GS_CIRCULARSTRING || type == GS_COMPOUNDCURVE ||
		type == GS_CURVEPOLYGON || type == GS_MULTICURVE ||
		type == GS_MULTISURFACE;
}

static bool
is_collection_type(uint32_t type)
{
	return type == GS_MULTIPOINT || type == GS_MULTILINESTRING ||
		type == GS_MULTIPOLYGON || type == GS_GEOMETRYCOLLECTION ||
		type == GS_POLYHEDRALSURFACE || type == GS_TIN;
}

/* lwcollection_allows_subtype, restricted to the linear types we read. */
static bool
allows_member(uint32_t coll, uint32_t member)
{
	switch (coll)
	{
		case GS_GEOMETRYCOLLECTION:
			return true;
		case GS_MULTIPOINT:
			return member == GS_POINT;
		case GS_MULTILINESTRING:
			return member == GS_LINESTRING;
		case GS_MULTIPOLYGON:
		case GS_POLYHEDRALSURFACE:
			return member == GS_POLYGON;
		case GS_TIN:
			return member == GS_TRIANGLE;
	}
	return false;
}

/*
 * Walk the payload: a stack of open collections, each counting down the
 * members still to read. Nesting costs heap, never C stack.
 */
static exg_status
read_payload(gs_reader *rd)
{
	gs_frame	local[16];
	gs_frame   *stack = local;
	size_t		depth = 0,
				cap = sizeof(local) / sizeof(local[0]);
	bool		top = true;
	exg_status	st = EXG_OK;

	while (st == EXG_OK && (top || depth > 0))
	{
		uint32_t	type = 0;
		size_t		type_off = rd->off;
		const gs_frame *parent;

		if (depth > 0 && stack[depth - 1].remaining == 0)
		{
			depth--;
			continue;
		}
		if (depth > 0)
			stack[depth - 1].remaining--;
		parent = depth > 0 ? &stack[depth - 1] : NULL;
		top = false;

		st = read_u32(rd, &type, "truncated geometry type");
		if (st != EXG_OK)
			break;
		if (type == 0 || type >= GS_NUMTYPES)
		{
			st = exg_fail(rd->err, EXG_ERR_CORRUPT,
						  "corrupt serialized geometry: unknown geometry type %u at byte %zu",
						  type, type_off);
			break;
		}
		if (is_curve_type(type))
		{
			st = exg_fail(rd->err, EXG_ERR_UNSUPPORTED,
						  "curved geometry type %s is not supported; linearize it first with ST_CurveToLine",
						  gs_type_names[type]);
			break;
		}
		if (parent != NULL && !allows_member(parent->type, type))
		{
			st = exg_fail(rd->err, EXG_ERR_CORRUPT,
						  "corrupt serialized geometry: %s cannot be a member of %s (byte %zu)",
						  gs_type_names[type], gs_type_names[parent->type], type_off);
			break;
		}

		if (is_collection_type(type))
		{
			uint32_t	ngeoms = 0;

			st = read_u32(rd, &ngeoms, "truncated collection");
			if (st != EXG_OK)
				break;
			/* Every member takes at least its type and count words. */
			if ((size_t) ngeoms > (rd->size - rd->off) / 8)
			{
				st = corrupt(rd->err, "collection member count exceeds the data", type_off + 4);
				break;
			}
			if (depth == cap)
			{
				gs_frame   *grown;

				if (stack == local)
				{
					grown = malloc(2 * cap * sizeof(gs_frame));
					if (grown != NULL)
						memcpy(grown, local, sizeof(local));
				}
				else
					grown = realloc(stack, 2 * cap * sizeof(gs_frame));
				if (grown == NULL)
				{
					st = exg_fail(rd->err, EXG_ERR_NOMEM, "out of memory reading geometry");
					break;
				}
				stack = grown;
				cap *= 2;
			}
			stack[depth].type = type;
			stack[depth].remaining = ngeoms;
			depth++;
			continue;
		}

		switch (type)
		{
			case GS_POINT:
				st = read_point(rd);
				break;
			case GS_LINESTRING:
				st = read_linestring(rd);
				break;
			case GS_POLYGON:
				st = read_polygon(rd, parent != NULL &&
								  parent->type == GS_POLYHEDRALSURFACE);
				break;
			case GS_TRIANGLE:
				st = read_triangle(rd, parent != NULL && parent->type == GS_TIN);
				break;
		}
	}

	if (stack != local)
		free(stack);
	return st;
}

bool
exg_gs_simple_begin(const uint8_t *data, size_t size, exg_gs_simple *it)
{
	gs_header	h = {0};
	uint32_t	type;

	memset(it, 0, sizeof(*it));
	if (gs_read_header(data, size, &h, NULL) != EXG_OK || h.is_geodetic ||
		size - h.payload_off < sizeof(type))
		return false;
	memcpy(&type, data + h.payload_off, sizeof(type));
	it->data = data;
	it->size = size;
	it->stride = sizeof(double) * (2 + (size_t) h.has_z + (size_t) h.has_m);
	it->has_z = h.has_z;
	switch (type)
	{
		case GS_POINT:
		case GS_LINESTRING:
		case GS_TRIANGLE:
			/* the top geometry is the one member */
			it->member_type = type;
			it->remaining = 1;
			it->off = h.payload_off;
			break;
		case GS_MULTIPOINT:
		case GS_MULTILINESTRING:
		case GS_TIN:
			{
				uint32_t	ngeoms;

				if (size - h.payload_off < 2 * sizeof(uint32_t))
					return false;
				memcpy(&ngeoms, data + h.payload_off + sizeof(type), sizeof(ngeoms));
				it->off = h.payload_off + 2 * sizeof(uint32_t);
				/* read_payload's bound: each member takes 8 bytes at least */
				if ((size_t) ngeoms > (size - it->off) / 8)
					return false;
				it->member_type = type == GS_MULTIPOINT ? GS_POINT :
					type == GS_MULTILINESTRING ? GS_LINESTRING : GS_TRIANGLE;
				it->remaining = ngeoms;
				break;
			}
		default:
			return false;
	}
	it->ok = true;
	return true;
}

exg_status
exg_gserialized_read(const uint8_t *data, size_t size, exg_shape *out,
					 exg_error *err)
{
	gs_header	h = {0};
	gs_reader	rd;
	exg_status	st;

	if (out == NULL)
		return exg_fail(err, EXG_ERR_ARGUMENT, "no shape to read the geometry into");
	st = gs_read_header(data, size, &h, err);
	if (st != EXG_OK)
		goto fail;
	if (h.is_geodetic)
	{
		/* Planar predicates on longitude/latitude would answer a different question. */
		st = exg_fail(err, EXG_ERR_UNSUPPORTED,
					  "geography (geodetic) values are not supported; cast to geometry");
		goto fail;
	}

	out->srid = h.srid;
	out->has_z = h.has_z;
	out->has_m = h.has_m;
	out->is_solid = h.is_solid;
	if (size - h.payload_off >= 4)
		memcpy(&out->geom_type, data + h.payload_off, sizeof(uint32_t));

	rd.data = data;
	rd.size = size;
	rd.off = h.payload_off;
	rd.stride = sizeof(double) * (2 + (size_t) h.has_z + (size_t) h.has_m);
	/*
	 * Every vertex takes stride bytes of the payload: room for them all at
	 * once, rather than doubling (whose copies and page faults were a tenth
	 * of reading big bodies). Reading starts from an empty shape, so what
	 * it held need not be kept.
	 */
	if (out->nverts == 0 && (size - h.payload_off) / rd.stride > out->verts_cap)
		exg_shape_reserve_vertices(out, (size - h.payload_off) / rd.stride);
	rd.has_z = h.has_z;
	rd.out = out;
	rd.err = err;

	st = read_payload(&rd);
	if (st != EXG_OK)
		goto fail;
	if (rd.off != size)
	{
		st = corrupt(err, "trailing bytes after the geometry", rd.off);
		goto fail;
	}
	return EXG_OK;

fail:
	exg_shape_free(out);
	return st;
}
