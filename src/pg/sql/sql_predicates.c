/*
 * sql_predicates.c — ST_ExactOrientation2D/3D, ST_ExactIntersects3D and
 * ST_ExactIntersects: Datums in, engine call, boolean or sign out.
 */
#include "exactgpu.h"

#include "funcapi.h"

#include "geom_cache.h"
#include "exactgpu_engine.h"
#include "utils/builtins.h"

PG_FUNCTION_INFO_V1(exactgpu_orientation_2d);
PG_FUNCTION_INFO_V1(exactgpu_orientation_3d);
PG_FUNCTION_INFO_V1(exactgpu_intersects_3d);
PG_FUNCTION_INFO_V1(exactgpu_intersects_2d);

/*
 * Read argument argno as one point into xyz. Returns false for an empty
 * point; errors for any other geometry type.
 */
static bool
arg_point(FunctionCallInfo fcinfo, int argno, double *xyz, int32 *srid, bool *has_z,
		  const char *context)
{
	exg_shape	s;

	exactgpu_geom_parse(PG_GETARG_DATUM(argno), &s, context);
	*srid = s.srid;
	*has_z = s.has_z;
	if (s.geom_type != 1 /* POINTTYPE */ )
	{
		exg_shape_free(&s);
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("%s: argument %d must be a POINT", context, argno + 1)));
	}
	if (exg_shape_is_empty(&s))
	{
		exg_shape_free(&s);
		return false;
	}
	memcpy(xyz, s.xyz, 3 * sizeof(double));
	exg_shape_free(&s);
	return true;
}

/*
 * Read npoints point arguments; false if any is empty (the result is NULL).
 * In 3D, points with and without Z do not mix (see exactgpu_check_dims).
 */
static bool
arg_points(FunctionCallInfo fcinfo, int npoints, double (*pts)[3], bool is3d,
		   const char *context)
{
	int32		srid0 = 0,
				srid;
	bool		all = true,
				has_z,
				any_z = false,
				any_flat = false;
	int			i;

	for (i = 0; i < npoints; i++)
	{
		bool		here = arg_point(fcinfo, i, pts[i], &srid, &has_z, context);

		all &= here;
		if (here && is3d)
		{
			exactgpu_check_dims(any_z, any_flat, has_z, !has_z, context);
			any_z |= has_z;
			any_flat |= !has_z;
		}
		if (i == 0)
			srid0 = srid;
		else if (srid != srid0)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("%s: operation on mixed SRID geometries (%d and %d)",
							context, srid0, srid)));
	}
	return all;
}

Datum
exactgpu_orientation_2d(PG_FUNCTION_ARGS)
{
	double		p[3][3];

	if (!arg_points(fcinfo, 3, p, false, "ST_ExactOrientation2D"))
		PG_RETURN_NULL();
	PG_RETURN_INT32(exg_orient2d(p[0], p[1], p[2]));
}

Datum
exactgpu_orientation_3d(PG_FUNCTION_ARGS)
{
	double		p[4][3];

	if (!arg_points(fcinfo, 4, p, true, "ST_ExactOrientation3D"))
		PG_RETURN_NULL();
	PG_RETURN_INT32(exg_orient3d(p[0], p[1], p[2], p[3]));
}

typedef exg_status (*intersects_fn) (exg_prepared *a, exg_prepared *b, bool *result,
									 exg_error *err);

static Datum
intersects_common(FunctionCallInfo fcinfo, intersects_fn fn, bool is3d, const char *context)
{
	exg_prepared *a = exactgpu_geom_get(fcinfo, 0, NULL, context);
	exg_prepared *b = exactgpu_geom_get(fcinfo, 1, a, context);
	exg_error	err = {0};
	bool		result;

	exactgpu_check_srids(&a->shape, &b->shape, context);
	if (is3d)
		exactgpu_check_shape_dims(&a->shape, &b->shape, context);
	if (fn(a, b, &result, &err) != EXG_OK)
		exactgpu_report(&err, context);
	PG_RETURN_BOOL(result);
}

/* Surfaces are surfaces here, flagged solid or not (see the volume form below). */
Datum
exactgpu_intersects_3d(PG_FUNCTION_ARGS)
{
	return intersects_common(fcinfo, exg_intersects_3d, true, "ST_ExactIntersects3D");
}

Datum
exactgpu_intersects_2d(PG_FUNCTION_ARGS)
{
	return intersects_common(fcinfo, exg_intersects_2d, false, "ST_ExactIntersects");
}

PG_FUNCTION_INFO_V1(exactgpu_intersects_solid_3d);

/*
 * ST_ExactIntersectsSolid3D(solid, geom): does geom meet the closed volume
 * that the closed surface solid bounds (inside or on)? Container first, as
 * PostGIS's ST_Contains(a, b); the solid is cached across calls.
 */
Datum
exactgpu_intersects_solid_3d(PG_FUNCTION_ARGS)
{
	const char *context = "ST_ExactIntersectsSolid3D";
	exg_prepared *solid = exactgpu_geom_get(fcinfo, 0, NULL, context);
	exg_prepared *g = exactgpu_geom_get(fcinfo, 1, solid, context);
	exg_error	err = {0};
	bool		result;

	exactgpu_check_body_arg(&solid->shape, 0, exactgpu_shape_has_face(&g->shape),
							"ST_ExactIntersectsSolid3D(solid geometry, geom geometry): the container first",
							context);
	exactgpu_check_srids(&solid->shape, &g->shape, context);
	/* judged once per stored body, with this session's settings; before the
	 * dimension check, so that a body without Z is said to have none */
	if (!exg_shape_is_empty(&solid->shape))
		exactgpu_require_solid(fcinfo, solid, false, context);
	exactgpu_check_shape_dims(&solid->shape, &g->shape, context);
	if (exg_intersects_solid_3d(solid, g, &result, &err) != EXG_OK)
		exactgpu_report(&err, context);
	PG_RETURN_BOOL(result);
}

PG_FUNCTION_INFO_V1(exactgpu_locate_3d);

/*
 * ST_ExactLocate3D(solid, point): 'inside', 'outside' or 'boundary' of the
 * closed surface, exactly. The surface is cached across calls (one body
 * against many samples); an empty surface has no inside.
 */
Datum
exactgpu_locate_3d(PG_FUNCTION_ARGS)
{
	static const char *names[] = {"outside", "inside", "boundary"};
	const char *context = "ST_ExactLocate3D";
	exg_prepared *solid = exactgpu_geom_get(fcinfo, 0, NULL, context);
	double		p[3];
	int32		srid;
	bool		has_z;
	exg_location loc;
	exg_error	err = {0};

	if (!exg_shape_is_empty(&solid->shape))
	{
		exg_shape	other;
		bool		other_is_surface;

		exactgpu_geom_parse(PG_GETARG_DATUM(1), &other, context);
		other_is_surface = exactgpu_shape_has_face(&other);
		exg_shape_free(&other);
		exactgpu_check_body_arg(&solid->shape, 0, other_is_surface,
								"ST_ExactLocate3D(body geometry, point geometry): the container first",
								context);
	}
	if (!arg_point(fcinfo, 1, p, &srid, &has_z, context))
		PG_RETURN_NULL();
	if (srid != solid->shape.srid)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("%s: operation on mixed SRID geometries (%d and %d)", context,
						solid->shape.srid, srid)));
	if (exg_shape_is_empty(&solid->shape))
		PG_RETURN_TEXT_P(cstring_to_text(names[EXG_LOC_OUTSIDE]));
	/* before the dimension check: a body without Z is said to have none */
	exactgpu_require_solid(fcinfo, solid, false, context);
	exactgpu_check_dims(solid->shape.has_z, !solid->shape.has_z, has_z, !has_z, context);
	if (exg_solid_locate(solid, p, &loc, &err) != EXG_OK)
		exactgpu_report(&err, context);
	PG_RETURN_TEXT_P(cstring_to_text(names[loc]));
}
