/*
 * gserialized_box.c — the float box PostGIS's && (BOX2DF) and &&& (GIDX)
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
#include "gserialized_box.h"

#include <float.h>
#include <math.h>
#include <string.h>

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

static exg_status
corrupt(exg_error *err, const char *what)
{
	return exg_fail(err, EXG_ERR_CORRUPT, "corrupt serialized geometry: %s", what);
}

/* Where the flags say the box or payload starts (*off); the flags byte in *flags. */
static exg_status
header_end(const uint8_t *data, size_t size, uint8_t *flags, size_t *off, exg_error *err)
{
	*off = 4;
	if (size < 4)
		return corrupt(err, "shorter than its header");
	*flags = data[3];
	if (*flags & GSF_FUTURE)
		return exg_fail(err, EXG_ERR_UNSUPPORTED,
						"serialized geometry has flags 0x%02x: a format version newer than 2 is not supported",
						*flags);
	if (*flags & GSF_GEODETIC)
		return exg_fail(err, EXG_ERR_UNSUPPORTED, "a geodetic value is not a geometry");
	if ((*flags & GSF_VERSION2) && (*flags & GSF_V2_EXTENDED))
		*off += 8;
	return EXG_OK;
}

/*
 * The double box of a point or line's coordinates, in PostGIS's order:
 * *some false when it has no vertex (empty). nd is the number of ordinates.
 */
static exg_status
vertices_box(const uint8_t *data, size_t size, size_t off, int nd, double *lo, double *hi,
			 bool *some, exg_error *err)
{
	uint32_t	type,
				n;

	if (size - off < 8)
		return corrupt(err, "truncated geometry");
	memcpy(&type, data + off, 4);
	memcpy(&n, data + off + 4, 4);
	off += 8;
	*some = n > 0;
	if (n == 0)
		return EXG_OK;
	if ((size - off) / (nd * sizeof(double)) < n)
		return corrupt(err, "truncated coordinates");
	for (uint32_t i = 0; i < n; i++)
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
	return EXG_OK;
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

exg_status
exg_gserialized_operator_box(const uint8_t *data, size_t size, exg_gs_box_bytes bytes, bool nd,
							 exg_gs_box *out, exg_gs_box_want *want, exg_error *err)
{
	size_t		off;
	uint8_t		flags = 0;
	int			nord;
	exg_status	st;
	/* the float box, x y z m, as PostGIS holds it */
	double		flo[4] = {0, 0, 0, 0},
				fhi[4] = {0, 0, 0, 0};

	out->ndims = 0;
	*want = EXG_GS_BOX_DONE;
	st = header_end(data, size, &flags, &off, err);
	if (st != EXG_OK)
		return st;
	if (!(flags & GSF_BBOX))
	{
		uint32_t	type;

		if (bytes == EXG_GS_BOX_PREFIX)
		{
			*want = EXG_GS_BOX_WANT_WHOLE;
			return EXG_OK;
		}
		if (bytes == EXG_GS_BOX_ADDED)
			return EXG_OK;		/* PostGIS found no box: empty */
		if (size - off < 4)
			return corrupt(err, "truncated geometry");
		memcpy(&type, data + off, 4);
		if (type != GS_POINT && type != GS_LINESTRING)
		{
			/* polygons, collections, curves without a box: PostGIS adds it */
			*want = EXG_GS_BOX_WANT_ADDED;
			return EXG_OK;
		}
	}
	nord = 2 + ((flags & GSF_Z) != 0) + ((flags & GSF_M) != 0);
	if (flags & GSF_BBOX)
	{
		float		f[8];

		if (size - off < 2 * nord * sizeof(float))
			return corrupt(err, "truncated bounding box");
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
		bool		some;

		st = vertices_box(data, size, off, nord, lo, hi, &some, err);
		if (st != EXG_OK || !some)
			return st;			/* !some: empty */
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
			return EXG_OK;
		out->ndims = 2;
		for (int k = 0; k < 2; k++)
		{
			out->lo[k] = bound_lo(flo[k]);
			out->hi[k] = bound_hi(fhi[k]);
		}
		return EXG_OK;
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
	return EXG_OK;
}
