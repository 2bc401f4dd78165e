/*
 * sql_intercepts.c — drill-hole intercepts from SQL.
 *
 *   ST_ExactIntercepts3D(hole, body)            -> SETOF (from_m, to_m)
 *   ST_ExactInterceptPieces3D(hole, body)       -> SETOF (from_m, to_m, length_m,
 *       kind, entry_contact, exit_contact, entry_point, exit_point, piece)
 *   ST_ExactIntercepts3DJoin(holes, bodies)     -> (hole_id, solid_id, from_m, to_m)
 *   ST_ExactInterceptPieces3DJoin(holes, bodies) -> (hole_id, body_id, ...as above)
 *       holes and bodies: inner queries (text) or exactgpu_batch values.
 *   ... (holes, bodies, NULL::<hole id type>, NULL::<body id type>)
 *       the same with (left_key, right_key) of the ids' types first.
 *
 * The join forms run the batch intersection join with every body as its
 * volume (so holes wholly inside a body are found too), then compute the
 * intercepts of each (hole, body) pair on the worker pool, each body indexed
 * once. Inner queries are prepared as the user wrote them (a trailing
 * semicolon or comment is fine) and read by position: the first column is
 * the id, the second the geometry, whatever their names.
 */
#include "exactgpu.h"

#include "executor/spi.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "utils/builtins.h"
#include "utils/memutils.h"

#include "geom_cache.h"
#include "join_driver.h"
#include "join_result.h"

PG_FUNCTION_INFO_V1(exactgpu_intercepts_3d);
PG_FUNCTION_INFO_V1(exactgpu_intercept_pieces_3d);
PG_FUNCTION_INFO_V1(exactgpu_intercepts3d_join_sql);
PG_FUNCTION_INFO_V1(exactgpu_intercepts3d_join_batch);
PG_FUNCTION_INFO_V1(exactgpu_intercept_pieces3d_join_sql);
PG_FUNCTION_INFO_V1(exactgpu_intercept_pieces3d_join_batch);

static const char *const contact_names[] = {"start", "end", "face", "edge", "vertex"};
static const char *const kind_names[] = {"through", "along", "grazing"};

/*
 * A PostGIS geometry (written by the engine: gserialized_write.h) of one
 * POINT (type 1) or LINESTRING (type 2) with Z, and M when dims is 4.
 */
static Datum
make_geometry(int32 srid, uint32 type, const double *coords, uint32 npoints, int dims)
{
	Size		size = VARHDRSZ + exg_gserialized_vertices_size(npoints, true, dims == 4);
	uint8	   *g = palloc0(size);

	SET_VARSIZE(g, size);
	exg_gserialized_write_vertices(g + VARHDRSZ, srid, (exg_gs_vertices_type) type, coords,
								   npoints, true, dims == 4);
	return PointerGetDatum(g);
}

/* The piece as a LINESTRING ZM (M = depth); a grazing point is repeated. */
static Datum
piece_geometry(int32 srid, const exg_intercept_set *s, const exg_intercept *iv)
{
	const double *v = &s->xyzm[4 * iv->first_vertex];

	if (iv->nvertices >= 2)
		return make_geometry(srid, 2, v, (uint32) iv->nvertices, 4);
	else
	{
		double		twice[8];

		memcpy(twice, v, 4 * sizeof(double));
		memcpy(twice + 4, v, 4 * sizeof(double));
		return make_geometry(srid, 2, twice, 2, 4);
	}
}

/*
 * One result row: [ids,] from_m, to_m and, for the pieces forms, the rest.
 * nids is 0 (row-level) or 2 (joins); the descriptor says which form.
 */
static void
put_intercept(Tuplestorestate *store, TupleDesc desc, int nids, Datum hole_id, Datum body_id,
			  int32 srid, const exg_intercept_set *s, const exg_intercept *iv)
{
	Datum		values[11];
	bool		nulls[11] = {false};
	int			k = 0;

	if (nids == 2)
	{
		values[k++] = hole_id;
		values[k++] = body_id;
	}
	values[k++] = Float8GetDatum(iv->from);
	values[k++] = Float8GetDatum(iv->to);
	if (desc->natts > k)
	{
		values[k++] = Float8GetDatum(iv->to - iv->from);
		values[k++] = CStringGetTextDatum(kind_names[iv->kind]);
		values[k++] = CStringGetTextDatum(contact_names[iv->entry_contact]);
		values[k++] = CStringGetTextDatum(contact_names[iv->exit_contact]);
		values[k++] = make_geometry(srid, 1, iv->entry, 1, 3);
		values[k++] = make_geometry(srid, 1, iv->exit, 1, 3);
		values[k++] = piece_geometry(srid, s, iv);
	}
	Assert(k == desc->natts);
	tuplestore_putvalues(store, desc, values, nulls);
}

/* ---- row by row ---- */

static Datum
intercepts_row(FunctionCallInfo fcinfo, const char *context)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	exg_prepared *body = exactgpu_geom_get(fcinfo, 1, NULL, context);
	exg_shape	hole;
	exg_error	err = {0};
	exg_intercept_set set = {0};
	double	   *xyz = NULL,
			   *md = NULL,
			   *pxyz,
			   *pmd = NULL;
	size_t		n = 0,
				nmd = 0,
				k;
	int32		srid;
	bool		hole_is_surface,
				hole_z,
				hole_empty;
	exg_status	hole_st;
	struct varlena *hole_bytes = PG_DETOAST_DATUM(PG_GETARG_DATUM(0));

	/* the engine's arrays are malloc'ed: copied into palloc'ed ones at once,
	 * so that an ERROR below leaks nothing */
	exactgpu_geom_parse(PointerGetDatum(hole_bytes), &hole, context);
	srid = hole.srid;
	hole_is_surface = exactgpu_shape_has_face(&hole);
	hole_z = hole.has_z;
	hole_empty = exg_shape_is_empty(&hole);
	hole_st = exg_hole_polyline(&hole, &xyz, &n, &err);
	exg_shape_free(&hole);
	pxyz = palloc(sizeof(double) * 3 * (n + 1));
	if (n > 0)
		memcpy(pxyz, xyz, sizeof(double) * 3 * n);
	free(xyz);
	exactgpu_check_body_arg(&body->shape, 1, hole_is_surface,
							psprintf("%s(hole geometry, body geometry): the hole first", context),
							context);
	if (hole_st != EXG_OK)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("%s: %s", context, err.message),
				 errhint("Depth runs along the hole from its first vertex (or is its M): a hole is one LINESTRING, or a MULTILINESTRING whose parts join end to start.")));
	if (srid != body->shape.srid)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("%s: operation on mixed SRID geometries (%d and %d)", context, srid,
						body->shape.srid)));
	/* depths from M when the hole has it, else along the hole from its first vertex */
	if (exg_hole_measures((const uint8_t *) VARDATA(hole_bytes), VARSIZE(hole_bytes) - VARHDRSZ,
						  &md, &nmd, &err) != EXG_OK)
		exactgpu_report(&err, context);
	if (md != NULL && nmd == n)
	{
		pmd = palloc(sizeof(double) * (n + 1));
		memcpy(pmd, md, sizeof(double) * n);
	}
	free(md);
	InitMaterializedSRF(fcinfo, 0);
	if (n > 0 && !exg_shape_is_empty(&body->shape))
	{
		exactgpu_require_solid(fcinfo, body, false, context);
		if (!hole_empty)
			exactgpu_check_dims(hole_z, !hole_z, body->shape.has_z, !body->shape.has_z, context);
		if (exg_intercepts_detail_md(body, pxyz, pmd, n, &set, &err) != EXG_OK)
		{
			exg_intercept_set_free(&set);
			exactgpu_report(&err, context);
		}
	}
	for (k = 0; k < set.n; k++)
		put_intercept(rsinfo->setResult, rsinfo->setDesc, 0, (Datum) 0, (Datum) 0, srid, &set,
					  &set.iv[k]);
	exg_intercept_set_free(&set);
	return (Datum) 0;
}

Datum
exactgpu_intercepts_3d(PG_FUNCTION_ARGS)
{
	return intercepts_row(fcinfo, "ST_ExactIntercepts3D");
}

Datum
exactgpu_intercept_pieces_3d(PG_FUNCTION_ARGS)
{
	return intercepts_row(fcinfo, "ST_ExactInterceptPieces3D");
}

/* ---- the join forms ---- */

/*
 * The batch join with the bodies as volumes finds the (hole, body) pairs,
 * the engine their intercepts (join_driver.c), emitted in the order of
 * (hole id, body id, depth).
 */
static void
intercepts_join(FunctionCallInfo fcinfo, ExactgpuJoin *j)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	uint64		rows;

	exactgpu_join_run(j, false);
	InitMaterializedSRF(fcinfo, 0);
	for (size_t k = 0; k < j->set.n; k++)
	{
		const exg_intercept *iv = &j->set.iv[k];
		uint64		pair = j->pairs[iv->pair];

		/* ids as the result's columns: bigint, or the types the call gave */
		put_intercept(rsinfo->setResult, rsinfo->setDesc, 2,
					  exactgpu_rows_id_datum(&j->rows[0], j->rows[0].ids[pair >> 32],
											 TupleDescAttr(rsinfo->setDesc, 0)->atttypid),
					  exactgpu_rows_id_datum(&j->rows[1], j->rows[1].ids[pair & 0xffffffffu],
											 TupleDescAttr(rsinfo->setDesc, 1)->atttypid),
					  j->rows[0].srid, &j->set, iv);
	}
	rows = j->set.n;
	exactgpu_join_free(j);
	exactgpu_join_done(j, rows);
}

static Datum
join_sql(FunctionCallInfo fcinfo, const char *context)
{
	ExactgpuJoin *j;

	if (exactgpu_result_null_inputs(fcinfo))
		return (Datum) 0;
	j = exactgpu_join_new(EXACTGPU_JOIN_INTERCEPTS, 3, context);

	exactgpu_result_want_ids(fcinfo, j->rows);
	exactgpu_join_read_queries(j, text_to_cstring(PG_GETARG_TEXT_PP(0)),
							   text_to_cstring(PG_GETARG_TEXT_PP(1)));
	intercepts_join(fcinfo, j);
	return (Datum) 0;
}

static Datum
join_batches(FunctionCallInfo fcinfo, const char *context)
{
	ExactgpuJoin *j;

	if (exactgpu_result_null_inputs(fcinfo))
		return (Datum) 0;
	j = exactgpu_join_new(EXACTGPU_JOIN_INTERCEPTS, 3, context);

	exactgpu_result_want_ids(fcinfo, j->rows);
	exactgpu_join_read_batches(j, PG_GETARG_DATUM(0), PG_GETARG_DATUM(1));
	intercepts_join(fcinfo, j);
	return (Datum) 0;
}

Datum
exactgpu_intercepts3d_join_sql(PG_FUNCTION_ARGS)
{
	return join_sql(fcinfo, "ST_ExactIntercepts3DJoin");
}

Datum
exactgpu_intercepts3d_join_batch(PG_FUNCTION_ARGS)
{
	return join_batches(fcinfo, "ST_ExactIntercepts3DJoin");
}

Datum
exactgpu_intercept_pieces3d_join_sql(PG_FUNCTION_ARGS)
{
	return join_sql(fcinfo, "ST_ExactInterceptPieces3DJoin");
}

Datum
exactgpu_intercept_pieces3d_join_batch(PG_FUNCTION_ARGS)
{
	return join_batches(fcinfo, "ST_ExactInterceptPieces3DJoin");
}
