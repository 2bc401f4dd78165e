/*
 * sql_shard.c — ST_ExactShardsFor: which shards a row must be loaded on,
 * by exact box tests on the doubles (docs/sharding.md).
 *
 * In C rather than SQL: the comparisons need the box's coordinates, which
 * SQL reaches only through PostGIS's functions, and an extension's SQL
 * function must pin its search_path (regress `security`) while PostGIS's
 * schema is not known when exactgpu is installed.
 */
#include "exactgpu.h"

#include "catalog/pg_type.h"
#include "utils/array.h"
#include "utils/lsyscache.h"

#include "geom_cache.h"
#include "exactgpu_engine.h"

PG_FUNCTION_INFO_V1(exactgpu_shards_for_geom);
PG_FUNCTION_INFO_V1(exactgpu_shards_for_box);

/* PostGIS's BOX3D (liblwgeom.h), the value of its box3d type: double extents. */
typedef struct PostgisBox3D
{
	double		xmin,
				ymin,
				zmin;
	double		xmax,
				ymax,
				zmax;
	int32		srid;
} PostgisBox3D;

/*
 * The 1-based positions of the extents that [lo, hi] meets (closed boxes,
 * touching counts), in order; NULL extents are skipped. has_z false: xy only.
 */
static ArrayType *
shards_meeting(const double lo[3], const double hi[3], bool has_z, ArrayType *extents)
{
	Oid			elemtype = ARR_ELEMTYPE(extents);
	int16		typlen;
	bool		typbyval;
	char		typalign;
	Datum	   *elems;
	bool	   *nulls;
	int			n,
				nout = 0;
	Datum	   *out;

	if (ARR_NDIM(extents) > 1)
		ereport(ERROR,
				(errcode(ERRCODE_ARRAY_SUBSCRIPT_ERROR),
				 errmsg("ST_ExactShardsFor: extents must be a one-dimensional array of box3d")));
	get_typlenbyvalalign(elemtype, &typlen, &typbyval, &typalign);
	if (typbyval || typlen != (int16) (offsetof(PostgisBox3D, srid) + sizeof(int32)))
		ereport(ERROR,
				(errcode(ERRCODE_DATATYPE_MISMATCH),
				 errmsg("ST_ExactShardsFor: extents must be box3d values")));
	deconstruct_array(extents, elemtype, typlen, typbyval, typalign, &elems, &nulls, &n);
	out = palloc(Max(n, 1) * sizeof(Datum));
	for (int i = 0; i < n; i++)
	{
		const PostgisBox3D *e;

		if (nulls[i])
			continue;
		e = (const PostgisBox3D *) DatumGetPointer(elems[i]);
		if (lo[0] <= e->xmax && e->xmin <= hi[0] &&
			lo[1] <= e->ymax && e->ymin <= hi[1] &&
			(!has_z || (lo[2] <= e->zmax && e->zmin <= hi[2])))
			out[nout++] = Int32GetDatum(i + 1);
	}
	return construct_array(out, nout, INT4OID, sizeof(int32), true, TYPALIGN_INT);
}

/* ST_ExactShardsFor(geom geometry, extents box3d[]) */
Datum
exactgpu_shards_for_geom(PG_FUNCTION_ARGS)
{
	exg_shape	shape;
	double		lo[3],
				hi[3];
	ArrayType  *result;

	exactgpu_geom_parse(PG_GETARG_DATUM(0), &shape, "ST_ExactShardsFor");
	if (!exg_shape_extent(&shape, lo, hi))
	{
		/* an empty geometry meets nothing */
		exg_shape_free(&shape);
		PG_RETURN_ARRAYTYPE_P(construct_empty_array(INT4OID));
	}
	result = shards_meeting(lo, hi, shape.has_z, PG_GETARG_ARRAYTYPE_P(1));
	exg_shape_free(&shape);
	PG_RETURN_ARRAYTYPE_P(result);
}

/* ST_ExactShardsFor(box box3d, extents box3d[], has_z boolean) */
Datum
exactgpu_shards_for_box(PG_FUNCTION_ARGS)
{
	const PostgisBox3D *b = (const PostgisBox3D *) PG_GETARG_POINTER(0);
	double		lo[3] = {b->xmin, b->ymin, b->zmin},
				hi[3] = {b->xmax, b->ymax, b->zmax};

	PG_RETURN_ARRAYTYPE_P(shards_meeting(lo, hi, PG_GETARG_BOOL(2), PG_GETARG_ARRAYTYPE_P(1)));
}
