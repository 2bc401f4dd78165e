/*
 * postgis_box.c — the float box PostGIS's && (BOX2DF) and &&& (GIDX)
 * compare, computed as PostGIS 3 computes it (gserialized_gist_2d.c,
 * libpgcommon/gserialized_gist.c, liblwgeom/gbox.c), without its code:
 *
 *   - a cached box in the serialized header is taken as it is (floats;
 *     an XYM box gets z padded to [-FLT_MAX, FLT_MAX] for &&&);
 *   - otherwise the box of the coordinates, in order, each bound kept by
 *     "x < min ? x : min" (so NaN behaves as PostGIS's does), then rounded
 *     outward to floats (next float down or up, clamped to +-FLT_MAX);
 *   - an empty geometry has no box and meets nothing.
 *
 * The comparison PostGIS then makes is "not (a.lo > b.hi or b.lo > a.hi)"
 * on each axis both boxes have; with && a box whose xmin is NaN is empty,
 * and with &&& an axis where either box's max is FLT_MAX does not filter
 * (padding convention). Here each such case becomes bounds for a plain
 * closed comparison: a NaN lower bound is -inf (it never filters), a NaN
 * upper bound +inf, and &&&'s unfiltered axes [-inf, +inf]. The caller
 * replaces the infinities by finite bounds beyond all data before the
 * engine sees them.
 */
#include "exactgpu.h"

#include <float.h>
#include <math.h>

#include "postgis_box.h"

/* Flag bits of the serialized header (both format versions). */
#define GSF_Z			0x01
#define GSF_M			0x02
#define GSF_BBOX		0x04
#define GSF_GEODETIC	0x08
#define GSF_V2_EXTENDED	0x10	/* version 2: 8 bytes of extended flags */
#define GSF_VERSION2	0x40
#define GSF_FUTURE		0x80

#define GS_POINT		1
#define GS_LINESTRING	2

/* srid (3) + flags (1) + extended flags (8) + a box of 4 dimensions (32) */
#define GS_MAX_HEADER	(4 + 8 + 32)

/* The largest float <= d (and >= -FLT_MAX), as liblwgeom's next_float_down. */
static double
float_down(double d)
{
	float		f;

	if (d > (double) FLT_MAX)
		return FLT_MAX;
	if (d <= (double) -FLT_MAX)
		return -FLT_MAX;
	f = (float) d;
	if ((double) f <= d)
		return f;
	return nextafterf(f, -FLT_MAX);
}

/* The smallest float >= d (and <= FLT_MAX), as liblwgeom's next_float_up. */
static double
float_up(double d)
{
	float		f;

	if (d >= (double) FLT_MAX)
		return FLT_MAX;
	if (d < (double) -FLT_MAX)
		return -FLT_MAX;
	f = (float) d;
	if ((double) f >= d)
		return f;
	return nextafterf(f, FLT_MAX);
}

static void
corrupt(const char *what)
{
	ereport(ERROR,
			(errcode(ERRCODE_DATA_CORRUPTED),
			 errmsg("box join: corrupt serialized geometry: %s", what)));
}

/* Where the flags say the box or payload starts; the flags byte in *flags. */
static size_t
header_end(const uint8 *data, size_t size, uint8 *flags)
{
	size_t		off = 4;

	if (size < 4)
		corrupt("shorter than its header");
	*flags = data[3];
	if (*flags & GSF_FUTURE)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("box join: serialized geometry has flags 0x%02x: a format version newer than 2 is not supported",
						*flags)));
	if (*flags & GSF_GEODETIC)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("box join: a geodetic value is not a geometry")));
	if ((*flags & GSF_VERSION2) && (*flags & GSF_V2_EXTENDED))
		off += 8;
	return off;
}

/*
 * The double box of a point or line's coordinates, in PostGIS's order:
 * false when it has no vertex (empty). nd is the number of ordinates.
 */
static bool
vertices_box(const uint8 *data, size_t size, size_t off, int nd, double *lo, double *hi)
{
	uint32		type,
				n;

	if (size - off < 8)
		corrupt("truncated geometry");
	memcpy(&type, data + off, 4);
	memcpy(&n, data + off + 4, 4);
	off += 8;
	if (n == 0)
		return false;
	if ((size - off) / (nd * sizeof(double)) < n)
		corrupt("truncated coordinates");
	for (uint32 i = 0; i < n; i++)
		for (int k = 0; k < nd; k++)
		{
			double		v;

			memcpy(&v, data + off + ((size_t) i * nd + k) * sizeof(double), sizeof(double));
			if (i == 0)
				lo[k] = hi[k] = v;
			else
			{
				/* FP_MIN / FP_MAX: a NaN bound is replaced by the next vertex */
				lo[k] = lo[k] < v ? lo[k] : v;
				hi[k] = hi[k] > v ? hi[k] : v;
			}
		}
	return true;
}

/* A float bound for a closed comparison: see the file's comment. */
static double
bound_lo(double f)
{
	if (isnan(f))
		return -INFINITY;
	if (isinf(f))
		return f > 0 ? 2.0 * (double) FLT_MAX : -2.0 * (double) FLT_MAX;
	return f;
}

static double
bound_hi(double f)
{
	if (isnan(f))
		return INFINITY;
	if (isinf(f))
		return f > 0 ? 2.0 * (double) FLT_MAX : -2.0 * (double) FLT_MAX;
	return f;
}

void
postgis_box_of(Datum g, bool nd, FmgrInfo *addbbox, PostgisBox *out)
{
	struct varlena *v = (struct varlena *) DatumGetPointer(g);
	const uint8 *data;
	size_t		size,
				off;
	uint8		flags;
	int			nord;
	/* the float box, x y z m, as PostGIS holds it */
	double		flo[4] = {0, 0, 0, 0},
				fhi[4] = {0, 0, 0, 0};

	out->ndims = 0;
	/* the header alone is enough when it carries a box */
	if (VARATT_IS_EXTERNAL(v) || VARATT_IS_COMPRESSED(v))
		v = PG_DETOAST_DATUM_SLICE(g, 0, GS_MAX_HEADER);
	data = (const uint8 *) VARDATA_ANY(v);
	size = VARSIZE_ANY_EXHDR(v);
	off = header_end(data, size, &flags);
	if (!(flags & GSF_BBOX))
	{
		uint32		type;

		/* the whole value: in line it is already (a short header is fine) */
		if (v != (struct varlena *) DatumGetPointer(g))
		{
			v = PG_DETOAST_DATUM(g);
			data = (const uint8 *) VARDATA_ANY(v);
			size = VARSIZE_ANY_EXHDR(v);
			off = header_end(data, size, &flags);
		}
		if (size - off < 4)
			corrupt("truncated geometry");
		memcpy(&type, data + off, 4);
		if (type != GS_POINT && type != GS_LINESTRING)
		{
			/* polygons, collections, curves without a box: PostGIS adds it */
			Datum		boxed = FunctionCall1(addbbox, PointerGetDatum(v));

			v = (struct varlena *) DatumGetPointer(boxed);
			if (VARATT_IS_EXTERNAL(v) || VARATT_IS_COMPRESSED(v))
				v = PG_DETOAST_DATUM(boxed);
			data = (const uint8 *) VARDATA_ANY(v);
			size = VARSIZE_ANY_EXHDR(v);
			off = header_end(data, size, &flags);
			if (!(flags & GSF_BBOX))
				return;			/* PostGIS found no box: empty */
		}
	}
	nord = 2 + ((flags & GSF_Z) != 0) + ((flags & GSF_M) != 0);
	if (flags & GSF_BBOX)
	{
		float		f[8];

		if (size - off < 2 * nord * sizeof(float))
			corrupt("truncated bounding box");
		memcpy(f, data + off, 2 * nord * sizeof(float));
		for (int k = 0; k < nord; k++)
		{
			flo[k] = f[2 * k];
			fhi[k] = f[2 * k + 1];
		}
	}
	else
	{
		double		lo[4],
					hi[4];

		if (!vertices_box(data, size, off, nord, lo, hi))
			return;				/* empty */
		for (int k = 0; k < nord; k++)
		{
			flo[k] = float_down(lo[k]);
			fhi[k] = float_up(hi[k]);
		}
	}
	/* XYM: the third ordinate is m; for &&& m is the fourth axis, z padded */
	if ((flags & GSF_M) && !(flags & GSF_Z))
	{
		flo[3] = flo[2];
		fhi[3] = fhi[2];
		flo[2] = -FLT_MAX;
		fhi[2] = FLT_MAX;
	}

	if (!nd)
	{
		/* BOX2DF: empty when xmin is NaN */
		if (isnan(flo[0]))
			return;
		out->ndims = 2;
		for (int k = 0; k < 2; k++)
		{
			out->lo[k] = bound_lo(flo[k]);
			out->hi[k] = bound_hi(fhi[k]);
		}
		return;
	}
	/* GIDX: x y, z when Z, and 4 axes (z padded or not) when M */
	out->ndims = (flags & GSF_M) ? 4 : (flags & GSF_Z) ? 3 : 2;
	for (int k = 0; k < out->ndims; k++)
	{
		if (fhi[k] == FLT_MAX)
		{
			/* gidx_overlaps skips an axis whose max is FLT_MAX (padding) */
			out->lo[k] = -INFINITY;
			out->hi[k] = INFINITY;
		}
		else
		{
			out->lo[k] = bound_lo(flo[k]);
			out->hi[k] = bound_hi(fhi[k]);
		}
	}
}
