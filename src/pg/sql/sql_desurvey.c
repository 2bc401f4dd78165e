/*
 * sql_desurvey.c — ST_ExactDesurvey: a drill hole's trace from its collar
 * and downhole surveys.
 *
 *   ST_ExactDesurvey(collar geometry, depths float8[], azimuths float8[],
 *                    dips float8[], method text DEFAULT 'minimum_curvature',
 *                    end_depth float8 DEFAULT NULL, step float8 DEFAULT NULL)
 *     -> geometry (LINESTRING ZM)
 *
 * The formulas and their order of operations are in desurvey.c.
 */
#include "exactgpu.h"

#include "catalog/pg_type.h"
#include "utils/array.h"
#include "utils/builtins.h"

#include "drill_geometry.h"
#include "geom_cache.h"

PG_FUNCTION_INFO_V1(exactgpu_desurvey);

/* The doubles of a float8[] argument; NULL elements are an error. */
static double *
float8_array(ArrayType *a, const char *what, int *n, const char *context)
{
	Datum	   *elems;
	bool	   *nulls;
	double	   *out;
	int			k;

	if (ARR_NDIM(a) > 1)
		ereport(ERROR,
				(errcode(ERRCODE_ARRAY_SUBSCRIPT_ERROR),
				 errmsg("%s: %s must be a one-dimensional array", context, what)));
	deconstruct_array(a, FLOAT8OID, 8, FLOAT8PASSBYVAL, TYPALIGN_DOUBLE, &elems, &nulls, n);
	out = palloc(sizeof(double) * (*n > 0 ? *n : 1));
	for (k = 0; k < *n; k++)
	{
		if (nulls[k])
			ereport(ERROR,
					(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
					 errmsg("%s: %s[%d] is NULL", context, what, k + 1),
					 errhint("Leave out the surveys with a missing value, e.g. array_agg(...) FILTER (WHERE azimuth IS NOT NULL AND dip IS NOT NULL).")));
		out[k] = DatumGetFloat8(elems[k]);
	}
	return out;
}

static exg_desurvey_method
parse_method(text *t, const char *context)
{
	char	   *m = text_to_cstring(t);

	if (strcmp(m, "minimum_curvature") == 0)
		return EXG_DESURVEY_MINIMUM_CURVATURE;
	if (strcmp(m, "tangent") == 0)
		return EXG_DESURVEY_TANGENT;
	if (strcmp(m, "balanced_tangent") == 0)
		return EXG_DESURVEY_BALANCED_TANGENT;
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
			 errmsg("%s: unknown desurvey method \"%s\"", context, m),
			 errhint("Use 'minimum_curvature' (the default), 'tangent' or 'balanced_tangent'.")));
	return EXG_DESURVEY_MINIMUM_CURVATURE;
}

Datum
exactgpu_desurvey(PG_FUNCTION_ARGS)
{
	const char *context = "ST_ExactDesurvey";
	exg_shape	collar;
	exg_error	err = {0};
	exg_desurvey_method method = EXG_DESURVEY_MINIMUM_CURVATURE;
	double	   *depths,
			   *az,
			   *dip,
			   *trace = NULL,
				end_depth = NAN,
				step = NAN,
				c[3];
	int			nd,
				na,
				ni;
	size_t		nout;
	int32		srid;
	Datum		result;

	/* a hole without collar or surveys has no trace */
	if (PG_ARGISNULL(0) || PG_ARGISNULL(1) || PG_ARGISNULL(2) || PG_ARGISNULL(3))
		PG_RETURN_NULL();
	if (!PG_ARGISNULL(4))
		method = parse_method(PG_GETARG_TEXT_PP(4), context);
	if (!PG_ARGISNULL(5))
	{
		end_depth = PG_GETARG_FLOAT8(5);
		if (isnan(end_depth))
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("%s: the end depth is NaN", context),
					 errhint("Pass NULL to end the hole at its last survey.")));
	}

	if (PG_NARGS() > 6 && !PG_ARGISNULL(6))
	{
		step = PG_GETARG_FLOAT8(6);
		if (isnan(step))
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("%s: the step is NaN", context),
					 errhint("Pass NULL for the survey stations only.")));
	}

	exactgpu_geom_parse(PG_GETARG_DATUM(0), &collar, context);
	if (collar.geom_type != 1 || exg_shape_is_empty(&collar) || !collar.has_z)
	{
		bool		is_point = collar.geom_type == 1 && !exg_shape_is_empty(&collar);

		exg_shape_free(&collar);
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("%s: the collar must be a non-empty POINT Z%s", context,
						is_point ? " (it has no Z)" : ""),
				 errhint("Give the collar its elevation: ST_MakePoint(easting, northing, elevation), or ST_Force3D(geom, elevation).")));
	}
	srid = collar.srid;
	memcpy(c, exg_vertex(&collar, 0), sizeof(c));
	exg_shape_free(&collar);

	depths = float8_array(PG_GETARG_ARRAYTYPE_P(1), "depths", &nd, context);
	az = float8_array(PG_GETARG_ARRAYTYPE_P(2), "azimuths", &na, context);
	dip = float8_array(PG_GETARG_ARRAYTYPE_P(3), "dips", &ni, context);
	if (nd != na || nd != ni)
		ereport(ERROR,
				(errcode(ERRCODE_ARRAY_SUBSCRIPT_ERROR),
				 errmsg("%s: depths, azimuths and dips must have the same length (%d, %d, %d)",
						context, nd, na, ni),
				 errhint("Aggregate them from the same rows, each ordered by depth: array_agg(depth ORDER BY depth), array_agg(azimuth ORDER BY depth), array_agg(dip ORDER BY depth).")));
	if (exg_desurvey(c, depths, az, dip, (size_t) nd, method, end_depth, step, &trace, &nout,
					 &err) != EXG_OK)
	{
		if (err.status == EXG_ERR_NONFINITE)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("%s: %s", context, err.message),
					 errhint("Every depth, azimuth and dip must be a finite number: leave out or fix the survey rows with NaN or infinity.")));
		if (err.status == EXG_ERR_ARGUMENT)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("%s: %s", context, err.message),
					 errhint("Surveys: depth along the hole from the collar (increasing), azimuth in degrees clockwise from grid north, dip in degrees, negative downward (-90 straight down).")));
		exactgpu_report(&err, context);
	}
	result = exactgpu_linestring_zm(srid, trace, (uint32) nout);
	free(trace);
	PG_RETURN_DATUM(result);
}
