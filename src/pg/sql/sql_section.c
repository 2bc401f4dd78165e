/*
 * sql_section.c — ST_ExactSection: bodies, surfaces and holes cut by a
 * plane, as linework ready to draw.
 *
 *   ST_ExactSection(geom, a, b, c) -> geometry      the plane through a, b, c
 *   ST_ExactSection(geom, section_line, local boolean DEFAULT false) -> geometry
 *       the vertical plane through the section line's first and last points;
 *       local: in section coordinates (x along the line from its first
 *       point, y = elevation)
 */
#include "exactgpu.h"

#include "utils/builtins.h"

#include "drill_geometry.h"
#include "geom_cache.h"

PG_FUNCTION_INFO_V1(exactgpu_section_3points);
PG_FUNCTION_INFO_V1(exactgpu_section_vertical);

static bool
has_faces(const exg_shape *s)
{
	for (size_t c = 0; c < s->ncomps; c++)
		if (s->comps[c].kind == EXG_COMP_POLYGON || s->comps[c].kind == EXG_COMP_TRIANGLE)
			return true;
	return false;
}

static void
plane_point(Datum d, double out[3], int32 *srid, const char *what, const char *context)
{
	exg_shape	p;

	exactgpu_geom_parse(d, &p, context);
	if (p.geom_type != 1 || exg_shape_is_empty(&p) || !p.has_z)
	{
		exg_shape_free(&p);
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("%s: %s must be a non-empty POINT Z", context, what),
				 errhint("The arguments are (geom, a POINT Z, b POINT Z, c POINT Z): the plane through a, b and c; or (geom, section_line) for a vertical section.")));
	}
	memcpy(out, exg_vertex(&p, 0), 3 * sizeof(double));
	*srid = p.srid;
	exg_shape_free(&p);
}

static Datum
section(FunctionCallInfo fcinfo, const double plane[9], int32 plane_srid,
		const double *local_a, const double *local_b, const char *context)
{
	exg_prepared *g = exactgpu_geom_get(fcinfo, 0, NULL, context);
	exg_section s;
	exg_error	err = {0};
	Datum		result;

	if (g->shape.srid != plane_srid)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("%s: operation on mixed SRID geometries (%d and %d)", context,
						g->shape.srid, plane_srid),
				 errhint("Transform one geometry with ST_Transform, or set the SRID with ST_SetSRID.")));
	if (!exg_shape_is_empty(&g->shape) && !g->shape.has_z)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("%s: the geometry to cut has no Z", context),
				 errhint("Sections are 3D: an import may have dropped Z (ogr2ogr -dim XYZ).")));
	if (exg_section_cut(g, plane, &s, &err) != EXG_OK)
	{
		if (err.status == EXG_ERR_ARGUMENT)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("%s: %s", context, err.message),
					 errhint("Give three points that span a plane.")));
		exactgpu_report(&err, context);
	}
	if (local_a)
		exg_section_to_local(&s, local_a, local_b);
	result = exactgpu_section_geometry(g->shape.srid, &s, local_a == NULL,
									   has_faces(&g->shape));
	exg_section_free(&s);
	PG_RETURN_DATUM(result);
}

Datum
exactgpu_section_3points(PG_FUNCTION_ARGS)
{
	const char *context = "ST_ExactSection";
	double		plane[9];
	int32		srid[3];

	plane_point(PG_GETARG_DATUM(1), plane, &srid[0], "a", context);
	plane_point(PG_GETARG_DATUM(2), plane + 3, &srid[1], "b", context);
	plane_point(PG_GETARG_DATUM(3), plane + 6, &srid[2], "c", context);
	if (srid[0] != srid[1] || srid[0] != srid[2])
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("%s: the plane's points have mixed SRIDs (%d, %d, %d)", context,
						srid[0], srid[1], srid[2])));
	return section(fcinfo, plane, srid[0], NULL, NULL, context);
}

/*
 * The vertical plane through (x0, y0) and (x1, y1): the points
 * (x0, y0, 0), (x1, y1, 0) and (x0, y0, 1) are input doubles, so the plane
 * is exactly vertical and every side test exact.
 */
Datum
exactgpu_section_vertical(PG_FUNCTION_ARGS)
{
	const char *context = "ST_ExactSection";
	bool		local = PG_GETARG_BOOL(2);
	exg_shape	line;
	double		plane[9],
				a[2],
				b[2];
	int32		srid;
	size_t		last;

	exactgpu_geom_parse(PG_GETARG_DATUM(1), &line, context);
	if (line.geom_type != 2 || exg_shape_is_empty(&line))
	{
		exg_shape_free(&line);
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("%s: the section line must be a non-empty LINESTRING", context),
				 errhint("The arguments are (geom, section_line LINESTRING): the vertical plane through the line's first and last points.")));
	}
	last = line.nverts - 1;
	a[0] = exg_vertex(&line, 0)[0];
	a[1] = exg_vertex(&line, 0)[1];
	b[0] = exg_vertex(&line, last)[0];
	b[1] = exg_vertex(&line, last)[1];
	srid = line.srid;
	exg_shape_free(&line);
	if (a[0] == b[0] && a[1] == b[1])
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("%s: the section line's first and last points are the same in plan", context),
				 errhint("A vertical section needs a line with two distinct ends (x, y).")));
	plane[0] = a[0];
	plane[1] = a[1];
	plane[2] = 0;
	plane[3] = b[0];
	plane[4] = b[1];
	plane[5] = 0;
	plane[6] = a[0];
	plane[7] = a[1];
	plane[8] = 1;
	return section(fcinfo, plane, srid, local ? a : NULL, local ? b : NULL, context);
}
