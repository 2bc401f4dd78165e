/*
 * sql_intercepts.c — drill-hole intercepts from SQL.
 *
 *   ST_ExactIntercepts3D(hole, body)            -> SETOF (from_m, to_m)
 *   ST_ExactInterceptPieces3D(hole, body)       -> SETOF (from_m, to_m, length_m,
 *       kind, entry_contact, exit_contact, entry_point, exit_point, piece)
 *   ST_ExactIntercepts3DJoin(holes, bodies)     -> (hole_id, solid_id, from_m, to_m)
 *   ST_ExactInterceptPieces3DJoin(holes, bodies) -> (hole_id, body_id, ...as above)
 *       holes and bodies: inner queries (text) or exactgpu_batch values.
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

#include "exactgpu_engine.h"
#include "geom_cache.h"
#include "join_options.h"
#include "join_rows.h"

PG_FUNCTION_INFO_V1(exactgpu_intercepts_3d);
PG_FUNCTION_INFO_V1(exactgpu_intercept_pieces_3d);
PG_FUNCTION_INFO_V1(exactgpu_intercepts3d_join_sql);
PG_FUNCTION_INFO_V1(exactgpu_intercepts3d_join_batch);
PG_FUNCTION_INFO_V1(exactgpu_intercept_pieces3d_join_sql);
PG_FUNCTION_INFO_V1(exactgpu_intercept_pieces3d_join_batch);

static const char *const contact_names[] = {"start", "end", "face", "edge", "vertex"};
static const char *const kind_names[] = {"through", "along", "grazing"};

/*
 * A PostGIS geometry (GSERIALIZED version 2, no box: PostGIS computes boxes
 * of such values when it needs them) of one POINT or LINESTRING with Z, and
 * M when dims is 4.
 */
static Datum
make_geometry(int32 srid, uint32 type, const double *coords, uint32 npoints, int dims)
{
	Size		size = VARHDRSZ + 4 + 8 + sizeof(double) * dims * npoints;
	uint8	   *g = palloc0(size);
	uint8	   *h = g + VARHDRSZ;
	uint32		s = (uint32) srid;

	SET_VARSIZE(g, size);
	h[0] = (s >> 16) & 0x1f;
	h[1] = (s >> 8) & 0xff;
	h[2] = s & 0xff;
	h[3] = 0x40 | 0x01 | (dims == 4 ? 0x02 : 0);	/* version 2, Z, M */
	memcpy(h + 4, &type, 4);
	memcpy(h + 8, &npoints, 4);
	memcpy(h + 12, coords, sizeof(double) * dims * npoints);
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
put_intercept(Tuplestorestate *store, TupleDesc desc, int nids, int64 hole_id, int64 body_id,
			  int32 srid, const exg_intercept_set *s, const exg_intercept *iv)
{
	Datum		values[11];
	bool		nulls[11] = {false};
	int			k = 0;

	if (nids == 2)
	{
		values[k++] = Int64GetDatum(hole_id);
		values[k++] = Int64GetDatum(body_id);
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
		put_intercept(rsinfo->setResult, rsinfo->setDesc, 0, 0, 0, srid, &set, &set.iv[k]);
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

/* Engine memory of a join, freed by a reset callback if an ERROR ends it. */
typedef struct InterceptJoinState
{
	ExactgpuRows rows[2];		/* holes, bodies */
	exg_batch	batch[2];
	uint64_t   *pairs;
	exg_intercept_set set;
	MemoryContextCallback cb;
} InterceptJoinState;

static void
intercept_join_free(void *arg)
{
	InterceptJoinState *js = arg;

	exg_batch_free(&js->batch[0]);
	exg_batch_free(&js->batch[1]);
	free(js->pairs);
	js->pairs = NULL;
	exg_intercept_set_free(&js->set);
}

typedef struct id_pair
{
	int64		hole;
	int64		body;
	uint64		rows;
} id_pair;

static int
cmp_id_pair(const void *x, const void *y)
{
	const id_pair *a = x,
			   *b = y;

	if (a->hole != b->hole)
		return a->hole < b->hole ? -1 : 1;
	if (a->body != b->body)
		return a->body < b->body ? -1 : 1;
	return (a->rows > b->rows) - (a->rows < b->rows);
}

/* Name the failing row by its id, then raise the error. */
static void
report_row(InterceptJoinState *js, exg_error *err, const char *context)
{
	int			side = err->side != 0;

	if (err->row > 0 && err->row <= js->rows[side].n)
	{
		size_t		len = strlen(err->message);

		snprintf(err->message + len, sizeof(err->message) - len, " (id %lld of the %s)",
				 (long long) js->rows[side].ids[err->row - 1], side ? "bodies" : "holes");
	}
	if (err->status == EXG_ERR_ARGUMENT)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("%s: %s", context, err->message),
				 errhint("Holes are LINESTRINGs (or MULTILINESTRINGs whose parts join end to start), bodies closed surfaces.")));
	exactgpu_report(err, context);
}

/*
 * Both inputs are read into js->rows: the batch join with the bodies as
 * volumes finds the pairs, the engine their intercepts, emitted in the
 * order of (hole id, body id, depth).
 */
static void
intercepts_join(FunctionCallInfo fcinfo, InterceptJoinState *js, uint64 t_start,
				const char *context)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	ExactgpuJoinReport *rep = &exactgpu_last_join;
	exg_join_options opt;
	exg_error	err = {0};
	size_t		npairs = 0,
				k;
	id_pair    *ids;
	uint64		t_join;

	exactgpu_rows_check_srids(&js->rows[0], &js->rows[1]);
	for (k = 0; k < 2; k++)
	{
		exg_row_bytes bytes = exactgpu_rows_bytes(&js->rows[k]);

		if (exg_batch_add_rows(&js->batch[k], &bytes, exactgpu_threads(), &err) != EXG_OK)
		{
			err.side = k;
			report_row(js, &err, context);
		}
	}
	memset(rep, 0, sizeof(*rep));
	rep->left_rows = js->rows[0].n;
	rep->right_rows = js->rows[1].n;
	rep->left_prims = js->batch[0].nprims;
	rep->right_prims = js->batch[1].nprims;
	snprintf(rep->semantics, sizeof(rep->semantics), "3D intercepts");
	t_join = exg_now_ns();
	rep->read_ms = (t_join - t_start) / 1e6;

	exactgpu_join_options(&opt);
	if (exg_intercepts_candidates(&js->batch[0], &js->batch[1], &opt, &js->pairs, &npairs,
								  &rep->stats, &err) != EXG_OK)
		report_row(js, &err, context);

	if (exactgpu_progress)
		ereport(NOTICE,
				(errmsg("%s: read %llu x %llu rows in %.1f ms; %zu (hole, body) pairs found on %s in %.1f ms",
						context, (unsigned long long) rep->left_rows,
						(unsigned long long) rep->right_rows, rep->read_ms, npairs,
						rep->stats.device_name, (exg_now_ns() - t_join) / 1e6)));

	/* in id order, so that the result comes sorted */
	ids = palloc_extended(sizeof(id_pair) * (npairs ? npairs : 1), MCXT_ALLOC_HUGE);
	for (k = 0; k < npairs; k++)
	{
		ids[k].hole = js->rows[0].ids[js->pairs[k] >> 32];
		ids[k].body = js->rows[1].ids[js->pairs[k] & 0xffffffffu];
		ids[k].rows = js->pairs[k];
	}
	qsort(ids, npairs, sizeof(id_pair), cmp_id_pair);
	for (k = 0; k < npairs; k++)
		js->pairs[k] = ids[k].rows;
	{
		exg_row_bytes holes = exactgpu_rows_bytes(&js->rows[0]),
					bodies = exactgpu_rows_bytes(&js->rows[1]);

		if (exg_intercepts_pairs(&holes, &bodies, js->pairs, npairs,
								 (exg_nonplanar_policy) exactgpu_nonplanar_faces,
								 exactgpu_threads(), &js->set, &err) != EXG_OK)
			report_row(js, &err, context);
	}
	rep->join_ms = (exg_now_ns() - t_join) / 1e6;
	if (exactgpu_progress)
		ereport(NOTICE,
				(errmsg("%s: pairs and intercepts in %.1f ms (bodies prepared in %.1f ms, intercepts in %.1f ms): %zu intercepts",
						context, rep->join_ms, js->set.prepare_ns / 1e6, js->set.pairs_ns / 1e6,
						js->set.n)));

	InitMaterializedSRF(fcinfo, 0);
	for (k = 0; k < js->set.n; k++)
	{
		const exg_intercept *iv = &js->set.iv[k];

		put_intercept(rsinfo->setResult, rsinfo->setDesc, 2, ids[iv->pair].hole,
					  ids[iv->pair].body, js->rows[0].srid, &js->set, iv);
	}
	rep->row_pairs = js->set.n;
	pfree(ids);
	intercept_join_free(js);
	rep->total_ms = (exg_now_ns() - t_start) / 1e6;
	rep->valid = true;
}

static InterceptJoinState *
intercept_join_new(const char *context)
{
	InterceptJoinState *js = palloc0(sizeof(InterceptJoinState));

	for (int k = 0; k < 2; k++)
	{
		exactgpu_rows_init(&js->rows[k], context);
		exg_batch_init(&js->batch[k], 3, (exg_nonplanar_policy) exactgpu_nonplanar_faces);
	}
	js->cb.func = intercept_join_free;
	js->cb.arg = js;
	MemoryContextRegisterResetCallback(CurrentMemoryContext, &js->cb);
	return js;
}

static Datum
join_sql(FunctionCallInfo fcinfo, const char *context)
{
	uint64		t0 = exg_now_ns();
	char	   *holes_sql = text_to_cstring(PG_GETARG_TEXT_PP(0));
	char	   *bodies_sql = text_to_cstring(PG_GETARG_TEXT_PP(1));
	InterceptJoinState *js = intercept_join_new(context);

	if (SPI_connect() != SPI_OK_CONNECT)
		ereport(ERROR, (errcode(ERRCODE_INTERNAL_ERROR), errmsg("%s: SPI_connect failed", context)));
	exactgpu_read_query_rows(holes_sql, "holes", &js->rows[0]);
	exactgpu_read_query_rows(bodies_sql, "bodies", &js->rows[1]);
	SPI_finish();
	intercepts_join(fcinfo, js, t0, context);
	return (Datum) 0;
}

static Datum
join_batches(FunctionCallInfo fcinfo, const char *context)
{
	uint64		t0 = exg_now_ns();
	InterceptJoinState *js = intercept_join_new(context);

	exactgpu_read_batch_rows(PG_GETARG_DATUM(0), "holes", &js->rows[0]);
	exactgpu_read_batch_rows(PG_GETARG_DATUM(1), "bodies", &js->rows[1]);
	intercepts_join(fcinfo, js, t0, context);
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
