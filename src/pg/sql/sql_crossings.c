/*
 * sql_crossings.c — ST_ExactCrossings3D: where a hole meets a surface that
 * need not be closed (a fault, a contact, the topography), and how.
 *
 *   ST_ExactCrossings3D(hole geometry, surface geometry)
 *     -> SETOF (depth_m float8, to_m float8, kind text, point geometry, face integer)
 *
 * The decisions are exact and the numbers rounded once (crossings.h).
 */
#include "exactgpu.h"

#include "funcapi.h"
#include "utils/builtins.h"

#include "drill_geometry.h"
#include "geom_cache.h"

PG_FUNCTION_INFO_V1(exactgpu_crossings_3d);

static const char *const kind_names[] = {"through", "touch", "along"};

static void
read_hole(Datum d, exg_drill_hole *h, const char *context)
{
	struct varlena *v = PG_DETOAST_DATUM(d);
	exg_error	err = {0};

	if (exg_drill_hole_read((const uint8 *) VARDATA(v), VARSIZE(v) - VARHDRSZ, h, &err) != EXG_OK)
	{
		if (err.status == EXG_ERR_ARGUMENT)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("%s: the first argument must be a hole: %s", context, err.message),
					 errhint("The arguments are (hole LINESTRING Z or LINESTRING ZM, surface TIN Z or POLYHEDRALSURFACE Z).")));
		exactgpu_report(&err, context);
	}
	if ((Pointer) v != DatumGetPointer(d))
		pfree(v);
}

Datum
exactgpu_crossings_3d(PG_FUNCTION_ARGS)
{
	const char *context = "ST_ExactCrossings3D";
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	exg_drill_hole hole;
	exg_prepared *surface;
	const exg_view *view;
	exg_crossing *cr = NULL;
	exg_error	err = {0};
	size_t		ncr = 0,
				k,
				nfaces = 0;

	read_hole(PG_GETARG_DATUM(0), &hole, context);
	surface = exactgpu_geom_get(fcinfo, 1, NULL, context);
	InitMaterializedSRF(fcinfo, 0);
	if (hole.empty || exg_shape_is_empty(&surface->shape))
	{
		exg_drill_hole_free(&hole);
		return (Datum) 0;
	}
	if (hole.srid != surface->shape.srid)
	{
		exg_drill_hole_free(&hole);
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("%s: operation on mixed SRID geometries (%d and %d)", context,
						hole.srid, surface->shape.srid),
				 errhint("Transform one geometry with ST_Transform, or set the SRID with ST_SetSRID.")));
	}
	if (!hole.has_z || !surface->shape.has_z)
	{
		bool		hole_flat = !hole.has_z;

		exg_drill_hole_free(&hole);
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("%s: the %s has no Z", context, hole_flat ? "hole" : "surface"),
				 errhint("Crossings are 3D: give both geometries Z (an import may have dropped it: ogr2ogr -dim XYZ).")));
	}
	if (hole.n < 2)
	{
		exg_drill_hole_free(&hole);
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("%s: the hole has no length (one distinct vertex)", context)));
	}
	if (exg_prepared_view3d(surface, true, &view, &err) != EXG_OK)
	{
		exg_drill_hole_free(&hole);
		exactgpu_report(&err, context);
	}
	for (k = 0; k < view->prims.nprims; k++)
		nfaces += view->prims.prims[k].kind == EXG_SIMPLEX_TRIANGLE;
	if (nfaces == 0)
	{
		exg_drill_hole_free(&hole);
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("%s: the second argument has no faces with an area", context),
				 errhint("The arguments are (hole LINESTRING Z or LINESTRING ZM, surface TIN Z or POLYHEDRALSURFACE Z).")));
	}
	if (exg_crossings(surface, hole.xyz, hole.m, hole.n, &cr, &ncr, &err) != EXG_OK)
	{
		exg_drill_hole_free(&hole);
		exactgpu_report(&err, context);
	}
	for (k = 0; k < ncr; k++)
	{
		Datum		values[5];
		bool		nulls[5] = {false};

		values[0] = Float8GetDatum(cr[k].from);
		values[1] = Float8GetDatum(cr[k].to);
		values[2] = CStringGetTextDatum(kind_names[cr[k].kind]);
		values[3] = exactgpu_point_z(hole.srid, cr[k].point);
		values[4] = Int32GetDatum((int32) cr[k].face);
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
	}
	free(cr);
	exg_drill_hole_free(&hole);
	return (Datum) 0;
}
