/*
 * sql_join.c — batch joins from SQL.
 *
 *   ST_ExactIntersects3DJoin(left_sql text, right_sql text)
 *   ST_ExactIntersectsJoin(left_sql text, right_sql text)
 *       each inner query yields (id, geom); rows are read through cursors in
 *       chunks, flattened into engine batches, joined on the GPU (else the
 *       CPU), and the (left_id, right_id) pairs that intersect are returned,
 *       each once.
 *   ST_ExactBatch(id, geom) aggregate -> exactgpu_batch, and the same join
 *       functions over two batches, so any SQL can feed a join.
 *
 * Rows whose geometry is NULL are skipped; a NULL id is an error; rows that
 * share an id are one object (their pairs are reported once per id pair).
 */
#include "exactgpu.h"

#include "access/htup_details.h"
#include "catalog/pg_type.h"
#include "executor/spi.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/syscache.h"

#include "batch.h"
#include "geom_cache.h"
#include "gserialized_read.h"
#include "join_options.h"
#include "stats.h"

PG_FUNCTION_INFO_V1(exactgpu_join3d_sql);
PG_FUNCTION_INFO_V1(exactgpu_join2d_sql);
PG_FUNCTION_INFO_V1(exactgpu_join3d_batch);
PG_FUNCTION_INFO_V1(exactgpu_join2d_batch);
PG_FUNCTION_INFO_V1(exactgpu_locate3d_sql);
PG_FUNCTION_INFO_V1(exactgpu_locate3d_batch);
PG_FUNCTION_INFO_V1(exactgpu_boxjoin2d_sql);
PG_FUNCTION_INFO_V1(exactgpu_boxjoin3d_sql);
PG_FUNCTION_INFO_V1(exactgpu_boxjoin2d_batch);
PG_FUNCTION_INFO_V1(exactgpu_boxjoin3d_batch);
PG_FUNCTION_INFO_V1(exactgpu_batch_in);
PG_FUNCTION_INFO_V1(exactgpu_batch_out);
PG_FUNCTION_INFO_V1(exactgpu_batch_accum);
PG_FUNCTION_INFO_V1(exactgpu_batch_final);

#define FETCH_ROWS 4096

/* What a batch join computes. */
typedef enum JoinMode
{
	JOIN_INTERSECTS,			/* rows whose geometries meet */
	JOIN_LOCATE,				/* points in closed bodies */
	JOIN_BOXES					/* rows whose boxes meet */
} JoinMode;

/* One side of a join: the engine batch (malloc'ed) and the ids of its rows. */
typedef struct ExactJoinSide
{
	MemoryContext mcxt;			/* where ids live: not SPI's, which SPI_finish frees */
	exg_batch	batch;
	int64	   *ids;			/* palloc'ed, one per row */
	size_t		nids;
	size_t		cap;
	int32		srid;
	bool		have_srid;
	uint64		null_geoms;
	bool		boxes;			/* rows enter as their boxes (JOIN_BOXES) */
} ExactJoinSide;

/* Both sides, freed by a reset callback if an ERROR leaves them behind. */
typedef struct ExactJoinState
{
	ExactJoinSide	side[2];
	MemoryContextCallback cb;
	bool		freed;
} ExactJoinState;

static void
join_state_free(void *arg)
{
	ExactJoinState  *js = arg;

	if (js->freed)
		return;
	exg_batch_free(&js->side[0].batch);
	exg_batch_free(&js->side[1].batch);
	js->freed = true;
}

static ExactJoinState *
join_state_new(int naxes, JoinMode mode)
{
	ExactJoinState  *js = palloc0(sizeof(ExactJoinState));
	int			k;

	for (k = 0; k < 2; k++)
	{
		exg_batch_init(&js->side[k].batch, naxes, (exg_nonplanar_policy) exactgpu_nonplanar_faces);
		js->side[k].mcxt = CurrentMemoryContext;
		js->side[k].boxes = mode == JOIN_BOXES;
	}
	js->cb.func = join_state_free;
	js->cb.arg = js;
	MemoryContextRegisterResetCallback(CurrentMemoryContext, &js->cb);
	return js;
}

/* Add one row (id, detoasted geometry) to a side. */
static void
side_add(ExactJoinSide *side, int64 id, const struct varlena *geom, const char *context)
{
	exg_shape	shape;
	exg_error	err = {0};
	exg_status	st;

	exg_shape_init(&shape);
	if (exg_gserialized_read((const uint8_t *) VARDATA(geom), VARSIZE(geom) - VARHDRSZ, &shape,
							 &err) != EXG_OK)
		exactgpu_report(&err, context);
	if (side->have_srid && shape.srid != side->srid)
	{
		int32		srid = shape.srid;

		exg_shape_free(&shape);
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("%s: operation on mixed SRID geometries (%d and %d)", context, side->srid, srid)));
	}
	side->srid = shape.srid;
	side->have_srid = true;
	st = side->boxes ? exg_batch_add_box(&side->batch, &shape, &err)
		: exg_batch_add(&side->batch, &shape, &err);
	exg_shape_free(&shape);
	if (st != EXG_OK)
		exactgpu_report(&err, context);
	if (side->nids == side->cap)
	{
		side->cap = side->cap ? 2 * side->cap : 1024;
		side->ids = side->ids ? repalloc_huge(side->ids, side->cap * sizeof(int64))
			: MemoryContextAllocHuge(side->mcxt, side->cap * sizeof(int64));
	}
	side->ids[side->nids++] = id;
}

static bool
is_geometry_type(Oid typid)
{
	HeapTuple	tup = SearchSysCache1(TYPEOID, ObjectIdGetDatum(typid));
	bool		yes;

	if (!HeapTupleIsValid(tup))
		return false;
	yes = strcmp(NameStr(((Form_pg_type) GETSTRUCT(tup))->typname), "geometry") == 0;
	ReleaseSysCache(tup);
	return yes;
}

/* Read an inner query through a cursor, FETCH_ROWS rows at a time. */
static void
side_read_sql(ExactJoinSide *side, const char *sql, const char *which, const char *context)
{
	SPIPlanPtr	plan = SPI_prepare(sql, 0, NULL);
	Portal		portal;
	bool		checked = false;

	if (plan == NULL)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("%s: cannot prepare the %s query: %s", context, which,
						SPI_result_code_string(SPI_result))));
	portal = SPI_cursor_open(NULL, plan, NULL, NULL, true);
	for (;;)
	{
		uint64		r;
		TupleDesc	desc;

		CHECK_FOR_INTERRUPTS();
		SPI_cursor_fetch(portal, true, FETCH_ROWS);
		if (SPI_processed == 0)
			break;
		desc = SPI_tuptable->tupdesc;
		if (!checked)
		{
			Oid			idtype = SPI_gettypeid(desc, 1);

			if (desc->natts != 2 ||
				!(idtype == INT8OID || idtype == INT4OID || idtype == INT2OID) ||
				!is_geometry_type(SPI_gettypeid(desc, 2)))
				ereport(ERROR,
						(errcode(ERRCODE_DATATYPE_MISMATCH),
						 errmsg("%s: the %s query must return two columns (id integer or bigint, geom geometry)",
								context, which)));
			checked = true;
		}
		for (r = 0; r < SPI_processed; r++)
		{
			HeapTuple	tup = SPI_tuptable->vals[r];
			bool		idnull,
						gnull;
			Datum		id = SPI_getbinval(tup, desc, 1, &idnull);
			Datum		g = SPI_getbinval(tup, desc, 2, &gnull);
			struct varlena *v;
			Oid			idtype = SPI_gettypeid(desc, 1);

			if (idnull)
				ereport(ERROR,
						(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
						 errmsg("%s: the %s query returned a NULL id", context, which)));
			if (gnull)
			{
				side->null_geoms++;
				continue;
			}
			v = PG_DETOAST_DATUM(g);
			side_add(side, idtype == INT8OID ? DatumGetInt64(id) :
					 idtype == INT4OID ? DatumGetInt32(id) : DatumGetInt16(id), v, context);
			if ((Pointer) v != DatumGetPointer(g))
				pfree(v);
		}
		SPI_freetuptable(SPI_tuptable);
	}
	SPI_cursor_close(portal);
}

/* ---- the batch type: (id, serialized geometry) rows in one varlena ---- */

#define BATCH_MAGIC 0x45584742	/* "EXGB" */

typedef struct BatchHeader
{
	int32		vl_len_;
	uint32		magic;
	uint32		nrows;
	uint32		pad;
	/* then per row: int64 id, uint32 bytes, uint32 pad, geometry varlena, padded to 8 */
} BatchHeader;

static void
side_read_batch(ExactJoinSide *side, const BatchHeader *b, const char *which, const char *context)
{
	const char *p = (const char *) b + sizeof(BatchHeader);
	const char *end = (const char *) b + VARSIZE(b);
	uint32		r;

	if (VARSIZE(b) < sizeof(BatchHeader) || b->magic != BATCH_MAGIC)
		ereport(ERROR,
				(errcode(ERRCODE_DATA_CORRUPTED),
				 errmsg("%s: the %s batch is not an exactgpu_batch", context, which)));
	for (r = 0; r < b->nrows; r++)
	{
		int64		id;
		uint32		bytes;

		if ((r & 1023) == 0)
			CHECK_FOR_INTERRUPTS();
		if (end - p < 16)
			ereport(ERROR, (errcode(ERRCODE_DATA_CORRUPTED),
							errmsg("%s: truncated %s batch", context, which)));
		memcpy(&id, p, 8);
		memcpy(&bytes, p + 8, 4);
		p += 16;
		if ((size_t) (end - p) < bytes || bytes < VARHDRSZ)
			ereport(ERROR, (errcode(ERRCODE_DATA_CORRUPTED),
							errmsg("%s: truncated %s batch", context, which)));
		side_add(side, id, (const struct varlena *) p, context);
		p += TYPEALIGN(8, bytes);
	}
}

/* ---- the join itself ---- */

static int
cmp_pairs(const void *x, const void *y)
{
	const int64 *a = x,
			   *b = y;

	if (a[0] != b[0])
		return a[0] < b[0] ? -1 : 1;
	return (a[1] > b[1]) - (a[1] < b[1]);
}

/*
 * Join the two sides and fill the SRF's tuplestore with (left_id, right_id):
 * intersecting rows, points in closed bodies, or rows whose boxes meet.
 */
static void
join_and_emit(FunctionCallInfo fcinfo, ExactJoinState *js, JoinMode mode, uint64 t_start,
			  const char *context)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	ExactgpuJoinReport *rep = &exactgpu_last_join;
	exg_join_options opt;
	exg_error	err = {0};
	uint64_t   *rows = NULL;
	size_t		nrows = 0,
				i,
				m = 0;
	int64	   *pairs;
	uint64		t_join;

	if (js->side[0].have_srid && js->side[1].have_srid && js->side[0].srid != js->side[1].srid)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("%s: operation on mixed SRID geometries (%d and %d)", context,
						js->side[0].srid, js->side[1].srid)));

	memset(rep, 0, sizeof(*rep));
	rep->left_rows = js->side[0].nids;
	rep->right_rows = js->side[1].nids;
	rep->left_prims = js->side[0].batch.nprims;
	rep->right_prims = js->side[1].batch.nprims;
	snprintf(rep->semantics, sizeof(rep->semantics), "%s",
			 mode == JOIN_LOCATE ? "3D point in solid" :
			 mode == JOIN_BOXES ? (js->side[0].batch.naxes == 3 ? "3D boxes" : "2D boxes") :
			 (js->side[0].batch.naxes == 3 ? "3D" : "2D"));
	t_join = exg_now_ns();
	rep->read_ms = (t_join - t_start) / 1e6;
	if (exactgpu_progress)
		ereport(NOTICE,
				(errmsg("%s: read %llu x %llu rows (%llu x %llu primitives) in %.1f ms", context,
						(unsigned long long) rep->left_rows, (unsigned long long) rep->right_rows,
						(unsigned long long) rep->left_prims, (unsigned long long) rep->right_prims,
						rep->read_ms)));

	exactgpu_join_options(&opt);
	opt.boxes_only = mode == JOIN_BOXES;
	if ((mode == JOIN_LOCATE ? exg_batch_locate(&js->side[0].batch, &js->side[1].batch, &opt, &rows, &nrows,
								   &rep->stats, &err)
		 : exg_batch_join(&js->side[0].batch, &js->side[1].batch, &opt, &rows, &nrows,
						  &rep->stats, &err)) != EXG_OK)
	{
		/* name the row by its id */
		if (err.row > 0 && err.row <= js->side[err.side != 0].nids)
		{
			size_t		len = strlen(err.message);

			snprintf(err.message + len, sizeof(err.message) - len, " (id %lld of the %s input)",
					 (long long) js->side[err.side != 0].ids[err.row - 1],
					 err.side ? "right" : "left");
		}
		exactgpu_report(&err, context);
	}
	rep->join_ms = (exg_now_ns() - t_join) / 1e6;
	if (exactgpu_progress)
		ereport(NOTICE,
				(errmsg("%s: joined on %s in %.1f ms: %llu candidate pairs, %llu primitive hits, %llu decided by GMP",
						context, rep->stats.device_name, rep->join_ms,
						(unsigned long long) rep->stats.candidates,
						(unsigned long long) rep->stats.hits,
						(unsigned long long) rep->stats.exact_pairs)));

	/* row indices -> ids; several rows may share an id: sort and keep each pair once */
	pairs = MemoryContextAllocHuge(CurrentMemoryContext, sizeof(int64) * 2 * (nrows ? nrows : 1));
	for (i = 0; i < nrows; i++)
	{
		pairs[2 * i] = js->side[0].ids[rows[i] >> 32];
		pairs[2 * i + 1] = js->side[1].ids[rows[i] & 0xffffffffu];
	}
	free(rows);
	join_state_free(js);
	/* ids usually grow with the rows: sort only when they do not */
	for (i = 1; i < nrows && cmp_pairs(&pairs[2 * i - 2], &pairs[2 * i]) <= 0; i++)
		;
	if (i < nrows)
		qsort(pairs, nrows, 2 * sizeof(int64), cmp_pairs);

	InitMaterializedSRF(fcinfo, 0);
	for (i = 0; i < nrows; i++)
	{
		Datum		values[2];
		bool		nulls[2] = {false, false};

		if (i > 0 && pairs[2 * i] == pairs[2 * i - 2] && pairs[2 * i + 1] == pairs[2 * i - 1])
			continue;
		if ((i & 65535) == 0)
			CHECK_FOR_INTERRUPTS();
		values[0] = Int64GetDatum(pairs[2 * i]);
		values[1] = Int64GetDatum(pairs[2 * i + 1]);
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
		m++;
	}
	pfree(pairs);
	rep->row_pairs = m;
	rep->total_ms = (exg_now_ns() - t_start) / 1e6;
	rep->valid = true;
}

static Datum
join_sql(FunctionCallInfo fcinfo, int naxes, JoinMode mode, const char *context)
{
	uint64		t0 = exg_now_ns();
	char	   *left_sql = text_to_cstring(PG_GETARG_TEXT_PP(0));
	char	   *right_sql = text_to_cstring(PG_GETARG_TEXT_PP(1));
	ExactJoinState  *js = join_state_new(naxes, mode);

	if (SPI_connect() != SPI_OK_CONNECT)
		ereport(ERROR, (errcode(ERRCODE_INTERNAL_ERROR), errmsg("%s: SPI_connect failed", context)));
	side_read_sql(&js->side[0], left_sql, "left", context);
	side_read_sql(&js->side[1], right_sql, "right", context);
	SPI_finish();
	join_and_emit(fcinfo, js, mode, t0, context);
	return (Datum) 0;
}

static Datum
join_batches(FunctionCallInfo fcinfo, int naxes, JoinMode mode, const char *context)
{
	uint64		t0 = exg_now_ns();
	ExactJoinState  *js = join_state_new(naxes, mode);
	BatchHeader *l = (BatchHeader *) PG_DETOAST_DATUM(PG_GETARG_DATUM(0));
	BatchHeader *r = (BatchHeader *) PG_DETOAST_DATUM(PG_GETARG_DATUM(1));

	side_read_batch(&js->side[0], l, "left", context);
	side_read_batch(&js->side[1], r, "right", context);
	join_and_emit(fcinfo, js, mode, t0, context);
	return (Datum) 0;
}

Datum
exactgpu_join3d_sql(PG_FUNCTION_ARGS)
{
	return join_sql(fcinfo, 3, JOIN_INTERSECTS, "ST_ExactIntersects3DJoin");
}

Datum
exactgpu_join2d_sql(PG_FUNCTION_ARGS)
{
	return join_sql(fcinfo, 2, JOIN_INTERSECTS, "ST_ExactIntersectsJoin");
}

Datum
exactgpu_join3d_batch(PG_FUNCTION_ARGS)
{
	return join_batches(fcinfo, 3, JOIN_INTERSECTS, "ST_ExactIntersects3DJoin");
}

Datum
exactgpu_join2d_batch(PG_FUNCTION_ARGS)
{
	return join_batches(fcinfo, 2, JOIN_INTERSECTS, "ST_ExactIntersectsJoin");
}

Datum
exactgpu_locate3d_sql(PG_FUNCTION_ARGS)
{
	return join_sql(fcinfo, 3, JOIN_LOCATE, "ST_ExactLocate3DJoin");
}

Datum
exactgpu_locate3d_batch(PG_FUNCTION_ARGS)
{
	return join_batches(fcinfo, 3, JOIN_LOCATE, "ST_ExactLocate3DJoin");
}

Datum
exactgpu_boxjoin2d_sql(PG_FUNCTION_ARGS)
{
	return join_sql(fcinfo, 2, JOIN_BOXES, "ST_BoxJoin");
}

Datum
exactgpu_boxjoin3d_sql(PG_FUNCTION_ARGS)
{
	return join_sql(fcinfo, 3, JOIN_BOXES, "ST_3DBoxJoin");
}

Datum
exactgpu_boxjoin2d_batch(PG_FUNCTION_ARGS)
{
	return join_batches(fcinfo, 2, JOIN_BOXES, "ST_BoxJoin");
}

Datum
exactgpu_boxjoin3d_batch(PG_FUNCTION_ARGS)
{
	return join_batches(fcinfo, 3, JOIN_BOXES, "ST_3DBoxJoin");
}

/* ---- ST_ExactBatch(id, geom) aggregate ---- */

Datum
exactgpu_batch_in(PG_FUNCTION_ARGS)
{
	ereport(ERROR,
			(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
			 errmsg("exactgpu_batch values cannot be typed in"),
			 errhint("Build one with the aggregate ST_ExactBatch(id, geom).")));
	PG_RETURN_NULL();
}

Datum
exactgpu_batch_out(PG_FUNCTION_ARGS)
{
	BatchHeader *b = (BatchHeader *) PG_DETOAST_DATUM(PG_GETARG_DATUM(0));

	PG_RETURN_CSTRING(psprintf("exactgpu_batch(%u rows, %u bytes)", b->nrows, VARSIZE(b)));
}

Datum
exactgpu_batch_accum(PG_FUNCTION_ARGS)
{
	MemoryContext aggcxt;
	StringInfo	state;
	int64		id;
	struct varlena *g;
	uint32		bytes,
				pad = 0;
	static const char zeros[8] = {0};

	if (!AggCheckCallContext(fcinfo, &aggcxt))
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("ST_ExactBatch: called outside an aggregate")));
	if (PG_ARGISNULL(0))
	{
		MemoryContext old = MemoryContextSwitchTo(aggcxt);
		BatchHeader h = {0};

		state = makeStringInfo();
		h.magic = BATCH_MAGIC;
		appendBinaryStringInfo(state, (const char *) &h, sizeof(h));
		MemoryContextSwitchTo(old);
	}
	else
		state = (StringInfo) PG_GETARG_POINTER(0);
	if (PG_ARGISNULL(2))
		PG_RETURN_POINTER(state);	/* NULL geometries are skipped */
	if (PG_ARGISNULL(1))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("ST_ExactBatch: NULL id")));
	id = PG_GETARG_INT64(1);
	g = PG_DETOAST_DATUM(PG_GETARG_DATUM(2));
	bytes = VARSIZE(g);
	if ((Size) state->len + 16 + TYPEALIGN(8, bytes) >= MaxAllocSize)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("ST_ExactBatch: the batch exceeds 1 GB"),
				 errhint("Use the form ST_ExactIntersects3DJoin(left_sql, right_sql), which reads rows through cursors.")));
	{
		MemoryContext old = MemoryContextSwitchTo(aggcxt);

		appendBinaryStringInfo(state, (const char *) &id, 8);
		appendBinaryStringInfo(state, (const char *) &bytes, 4);
		appendBinaryStringInfo(state, (const char *) &pad, 4);
		appendBinaryStringInfo(state, (const char *) g, bytes);
		appendBinaryStringInfo(state, zeros, TYPEALIGN(8, bytes) - bytes);
		((BatchHeader *) state->data)->nrows++;
		MemoryContextSwitchTo(old);
	}
	PG_RETURN_POINTER(state);
}

Datum
exactgpu_batch_final(PG_FUNCTION_ARGS)
{
	StringInfo	state;
	BatchHeader *b;

	if (PG_ARGISNULL(0))
	{
		b = palloc0(sizeof(BatchHeader));
		b->magic = BATCH_MAGIC;
	}
	else
	{
		state = (StringInfo) PG_GETARG_POINTER(0);
		b = palloc(state->len);
		memcpy(b, state->data, state->len);
	}
	SET_VARSIZE(b, PG_ARGISNULL(0) ? sizeof(BatchHeader) : (Size) ((StringInfo) PG_GETARG_POINTER(0))->len);
	PG_RETURN_POINTER(b);
}
