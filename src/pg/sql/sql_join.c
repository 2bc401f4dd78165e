/*
 * sql_join.c — batch joins from SQL.
 *
 *   ST_ExactIntersects3DJoin(left_sql text, right_sql text)
 *   ST_ExactIntersectsJoin(left_sql text, right_sql text)
 *       each inner query yields (id, geom); rows are read through cursors in
 *       chunks, flattened into engine batches, joined on the GPU (else the
 *       CPU), and the (left_id, right_id) pairs that intersect are returned,
 *       each once.
 *   the same join functions over two exactgpu_batch values (batch_type.c),
 *       so any SQL can feed a join.
 *
 * Rows whose geometry is NULL are skipped; a NULL id is an error; rows that
 * share an id are one object (their pairs are reported once per id pair).
 */
#include "exactgpu.h"

#include "executor/spi.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "storage/dsm.h"
#include "utils/builtins.h"
#include "utils/memutils.h"

#include "exactgpu_engine.h"
#include "geom_cache.h"
#include "join_options.h"
#include "join_result.h"
#include "join_rows.h"

PG_FUNCTION_INFO_V1(exactgpu_join3d_sql);
PG_FUNCTION_INFO_V1(exactgpu_join2d_sql);
PG_FUNCTION_INFO_V1(exactgpu_join3d_batch);
PG_FUNCTION_INFO_V1(exactgpu_join2d_batch);
PG_FUNCTION_INFO_V1(exactgpu_locate3d_sql);
PG_FUNCTION_INFO_V1(exactgpu_locate3d_batch);
PG_FUNCTION_INFO_V1(exactgpu_join3d_volume_sql);
PG_FUNCTION_INFO_V1(exactgpu_join3d_volume_batch);

/* What a batch join computes. */
typedef enum JoinMode
{
	JOIN_INTERSECTS,			/* rows whose geometries meet (surfaces as surfaces) */
	JOIN_VOLUME,				/* left rows are closed bodies as volumes */
	JOIN_LOCATE					/* points (left) in closed bodies (right): deprecated order */
} JoinMode;

static const char *const mode_semantics[] = {"3D", "3D volume", "3D point in solid"};

/* Both sides: rows as read, then their engine batches (malloc'ed). */
typedef struct ExactJoinState
{
	ExactgpuRows rows[2];
	exg_batch	batch[2];
	MemoryContextCallback cb;	/* frees the batches if an ERROR ends the join */
	bool		freed;
} ExactJoinState;

static void
join_state_free(void *arg)
{
	ExactJoinState  *js = arg;

	if (js->freed)
		return;
	exg_batch_free(&js->batch[0]);
	exg_batch_free(&js->batch[1]);
	exactgpu_rows_release(&js->rows[0]);
	exactgpu_rows_release(&js->rows[1]);
	js->freed = true;
}

static ExactJoinState *
join_state_new(int naxes, const char *context)
{
	ExactJoinState  *js = palloc0(sizeof(ExactJoinState));

	for (int k = 0; k < 2; k++)
	{
		exactgpu_rows_init(&js->rows[k], context);
		exg_batch_init(&js->batch[k], naxes, (exg_nonplanar_policy) exactgpu_nonplanar_faces);
	}
	js->cb.func = join_state_free;
	js->cb.arg = js;
	MemoryContextRegisterResetCallback(CurrentMemoryContext, &js->cb);
	return js;
}

/*
 * Parse and flatten both sides' rows: in-line rows on the thread pool,
 * out-of-line ones by parallel workers when it pays (join_read_parallel.c).
 */
static void
join_state_build(ExactJoinState *js, ExactgpuReadReport *rrep)
{
	ExactgpuRows *rows[2] = {&js->rows[0], &js->rows[1]};
	exg_batch  *batch[2] = {&js->batch[0], &js->batch[1]};

	exactgpu_rows_flatten(rows, batch, 2, rrep);
	exactgpu_rows_check_srids(&js->rows[0], &js->rows[1]);
}

/*
 * The engine call of each mode. A volume join whose other side is only
 * points is the point-in-solid join (a point meets a volume iff it is
 * inside or on), which needs no primitive join.
 */
static exg_status
run_join(ExactJoinState *js, JoinMode mode, const exg_join_options *opt, uint64_t **rows,
		 size_t *nrows, exg_join_stats *stats, exg_error *err)
{
	switch (mode)
	{
		case JOIN_LOCATE:
			return exg_batch_locate(&js->batch[0], &js->batch[1], opt, rows, nrows, stats, err);
		case JOIN_VOLUME:
			if (exg_batch_only_points(&js->batch[1]))
				return exg_batch_locate_in(&js->batch[0], &js->batch[1], opt, rows, nrows, stats,
										   err);
			exg_batch_set_volumes(&js->batch[0]);
			return exg_batch_join(&js->batch[0], &js->batch[1], opt, rows, nrows, stats, err);
		case JOIN_INTERSECTS:
			break;
	}
	return exg_batch_join(&js->batch[0], &js->batch[1], opt, rows, nrows, stats, err);
}

/* ---- the join itself ---- */

static int
cmp_rows_by_id(const void *x, const void *y, void *arg)
{
	const int64 *ids = arg;
	int64		a = ids[*(const uint32 *) x],
				b = ids[*(const uint32 *) y];

	return (a > b) - (a < b);
}

/*
 * The place of each row of a side in the result's order (exg_batch.order):
 * by id, rows that share an id at one place, so that the engine's one sort
 * of the row pairs leaves them in id order, each id pair once. *place_ids
 * gets the id of each place. NULL, with the rows' ids as place ids, when
 * the ids grow strictly with the rows, as they usually do.
 */
static uint32 *
rows_order(const ExactgpuRows *rows, int64 **place_ids)
{
	size_t		n = rows->n,
				i,
				places = 0;
	uint32	   *by_id,
			   *order;
	int64	   *pid;

	*place_ids = rows->ids;
	for (i = 1; i < n && rows->ids[i - 1] < rows->ids[i]; i++)
		;
	if (i >= n)
		return NULL;
	by_id = palloc_extended(n * sizeof(uint32), MCXT_ALLOC_HUGE);
	for (i = 0; i < n; i++)
		by_id[i] = (uint32) i;
	qsort_interruptible(by_id, n, sizeof(uint32), cmp_rows_by_id, rows->ids);
	order = palloc_extended(n * sizeof(uint32), MCXT_ALLOC_HUGE);
	pid = palloc_extended(n * sizeof(int64), MCXT_ALLOC_HUGE);
	for (i = 0; i < n; i++)
	{
		int64		id = rows->ids[by_id[i]];

		if (places == 0 || id != pid[places - 1])
			pid[places++] = id;
		order[by_id[i]] = (uint32) (places - 1);
	}
	pfree(by_id);
	*place_ids = pid;
	return order;
}

/*
 * Join the two sides and fill the SRF's tuplestore with (left_id, right_id):
 * intersecting rows, or points in closed bodies.
 */
static void
join_and_emit(FunctionCallInfo fcinfo, ExactJoinState *js, JoinMode mode, uint64 t_start,
			  const char *context)
{
	ExactgpuResult res;
	ExactgpuJoinReport *rep = &exactgpu_last_join;
	exg_join_options opt;
	exg_error	err = {0};
	uint64_t   *rows = NULL;
	size_t		nrows = 0;
	int64	   *place_ids[2];
	uint64		t_join;
	ExactgpuReadReport rrep;

	join_state_build(js, &rrep);
	memset(rep, 0, sizeof(*rep));
	rep->read_workers = rrep.workers;
	rep->read_parallel = rrep.parallel;
	rep->left_rows = js->rows[0].n;
	rep->right_rows = js->rows[1].n;
	rep->left_prims = js->batch[0].nprims;
	rep->right_prims = js->batch[1].nprims;
	if (js->batch[0].naxes == 3)
		exactgpu_check_dims(js->batch[0].nrows_z, js->batch[0].nrows_flat,
							js->batch[1].nrows_z, js->batch[1].nrows_flat, context);
	snprintf(rep->semantics, sizeof(rep->semantics), "%s",
			 js->batch[0].naxes == 3 ? mode_semantics[mode] : "2D");
	t_join = exg_now_ns();
	rep->read_ms = (t_join - t_start) / 1e6;
	if (exactgpu_progress)
		ereport(NOTICE,
				(errmsg("%s: read %llu x %llu rows (%llu x %llu primitives) in %.1f ms", context,
						(unsigned long long) rep->left_rows, (unsigned long long) rep->right_rows,
						(unsigned long long) rep->left_prims, (unsigned long long) rep->right_prims,
						rep->read_ms),
				 errdetail("query %.1f ms, then %s: detoast %.1f ms, rows parsed here %.1f ms, rows flattened by workers %.1f ms (%d of %d parallel workers, running %.1f to %.1f ms after their launch), gathered %.1f ms (%d of 2 sides laid out in place by the processes: segments made %.1f ms, rows laid out %.1f ms), workers and shared memory released %.1f ms; the processes flattening, summed: detoast %.1f ms, parse %.1f ms, copy %.1f ms, the last done %.1f ms after the launch",
						   rep->read_ms - rrep.detoast_ms - rrep.parse_ms - rrep.wait_ms -
						   rrep.gather_ms - rrep.release_ms,
						   rrep.parallel ? "parallel" : "serial", rrep.detoast_ms, rrep.parse_ms,
						   rrep.wait_ms, rrep.workers, rrep.workers_planned, rrep.first_start_ms,
						   rrep.last_start_ms, rrep.gather_ms, rrep.in_place, rrep.place_create_ms, rrep.place_wait_ms, rrep.release_ms,
						   rrep.work_detoast_ms, rrep.work_parse_ms, rrep.work_copy_ms,
						   rrep.last_done_ms),
				 rrep.release_ms > 0.1 * rep->read_ms && min_dynamic_shared_memory == 0 ?
				 errhint("The parallel read's shared memory was mapped and released for this join: min_dynamic_shared_memory (set at server start, e.g. 4GB for joins of 10^7 triangles) keeps it ready.") : 0));

	exactgpu_join_options_for(&opt, rep->left_prims + rep->right_prims);
	for (int k = 0; k < 2; k++)
		js->batch[k].order = rows_order(&js->rows[k], &place_ids[k]);
	if (run_join(js, mode, &opt, &rows, &nrows, &rep->stats, &err) != EXG_OK)
	{
		/* name the row by its id */
		if (err.row > 0 && err.row <= js->rows[err.side != 0].n)
		{
			size_t		len = strlen(err.message);

			snprintf(err.message + len, sizeof(err.message) - len, " (id %lld of the %s input)",
					 (long long) js->rows[err.side != 0].ids[err.row - 1],
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
						(unsigned long long) rep->stats.exact_pairs),
				 rep->stats.gpu_setup_ns > 0 ?
				 errdetail("Of it, %.1f ms setting the GPU up (driver, CUDA context, pinned buffers): paid by a backend's first GPU join, and by a join that needs bigger pinned buffers than the joins before it.",
						   rep->stats.gpu_setup_ns / 1e6) : 0));

	/*
	 * The pairs come sorted by id, each id pair once (rows_order): out as
	 * they are. The engine's malloc'ed array is freed on every path.
	 */
	join_state_free(js);
	PG_TRY();
	{
		exactgpu_result_begin(fcinfo, &res);
		for (size_t i = 0; i < nrows; i++)
		{
			if ((i & 65535) == 0)
				CHECK_FOR_INTERRUPTS();
			exactgpu_result_put(&res, place_ids[0][rows[i] >> 32],
								place_ids[1][rows[i] & 0xffffffffu]);
		}
	}
	PG_FINALLY();
	{
		free(rows);
	}
	PG_END_TRY();
	rep->row_pairs = res.rows;
	rep->total_ms = (exg_now_ns() - t_start) / 1e6;
	rep->valid = true;
}

static Datum
join_sql(FunctionCallInfo fcinfo, int naxes, JoinMode mode, const char *context)
{
	uint64		t0 = exg_now_ns();
	char	   *left_sql = text_to_cstring(PG_GETARG_TEXT_PP(0));
	char	   *right_sql = text_to_cstring(PG_GETARG_TEXT_PP(1));
	ExactJoinState  *js = join_state_new(naxes, context);

	if (SPI_connect() != SPI_OK_CONNECT)
		ereport(ERROR, (errcode(ERRCODE_INTERNAL_ERROR), errmsg("%s: SPI_connect failed", context)));
	/* big geometries stay TOAST pointers until parallel workers take them */
	exactgpu_rows_defer_toast(&js->rows[0]);
	exactgpu_rows_defer_toast(&js->rows[1]);
	exactgpu_read_query_rows(left_sql, "left", &js->rows[0]);
	exactgpu_read_query_rows(right_sql, "right", &js->rows[1]);
	SPI_finish();
	join_and_emit(fcinfo, js, mode, t0, context);
	return (Datum) 0;
}

static Datum
join_batches(FunctionCallInfo fcinfo, int naxes, JoinMode mode, const char *context)
{
	uint64		t0 = exg_now_ns();
	ExactJoinState  *js = join_state_new(naxes, context);

	exactgpu_read_batch_rows(PG_GETARG_DATUM(0), "left", &js->rows[0]);
	exactgpu_read_batch_rows(PG_GETARG_DATUM(1), "right", &js->rows[1]);
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

/* ST_ExactIntersectsSolid3DJoin(solids, geoms): container first, bodies as volumes. */
Datum
exactgpu_join3d_volume_sql(PG_FUNCTION_ARGS)
{
	return join_sql(fcinfo, 3, JOIN_VOLUME, "ST_ExactIntersectsSolid3DJoin");
}

Datum
exactgpu_join3d_volume_batch(PG_FUNCTION_ARGS)
{
	return join_batches(fcinfo, 3, JOIN_VOLUME, "ST_ExactIntersectsSolid3DJoin");
}
