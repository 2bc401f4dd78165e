/*
 * sql_boxjoin.c — box joins from SQL.
 *
 *   ST_BoxJoin(left_sql text, right_sql text)      2D boxes
 *   ST_3DBoxJoin(left_sql text, right_sql text)    3D boxes
 *       (and the same over two exactgpu_batch values)
 *   RETURNS TABLE(left_id bigint, right_id bigint): the row pairs whose
 *   closed boxes meet (touching counts). A box is the exact extent of a
 *   geometry's double coordinates, not PostGIS's float box, so the answer is
 *   the exact one; empty and NULL geometries have no box and meet nothing.
 *
 * Rows are read straight from the executor (geometries stored out of line
 * boxed by parallel workers, join_read_parallel.c) into box arrays; the engine
 * (exg_box_join) hands the pairs back chunk by chunk and they become result
 * rows while the GPU computes the next chunk. When an id occurs in several
 * rows, pairs are collected and each id pair is returned once instead.
 */
#include "exactgpu.h"

#include "executor/spi.h"
#include "miscadmin.h"
#include "utils/builtins.h"
#include "utils/memutils.h"

#include "exactgpu_engine.h"
#include "join_options.h"
#include "join_result.h"
#include "join_rows.h"

PG_FUNCTION_INFO_V1(exactgpu_boxjoin2d_sql);
PG_FUNCTION_INFO_V1(exactgpu_boxjoin3d_sql);
PG_FUNCTION_INFO_V1(exactgpu_boxjoin2d_batch);
PG_FUNCTION_INFO_V1(exactgpu_boxjoin3d_batch);

/* One side: its rows as read, then a box and an id per non-empty row. */
typedef struct BoxSide
{
	ExactgpuRows rows;
	int			naxes;
	double	   *box;			/* 2 * naxes doubles per box */
	int64	   *ids;
	size_t		n;
} BoxSide;

/* Keep the rows with a box (empty geometries meet nothing). */
static void
box_side_compact(BoxSide *side, uint8 *has_box, const char *context)
{
	size_t		nrows = side->rows.n,
				d2 = 2 * side->naxes,
				n = 0;

	side->ids = side->rows.ids;
	for (size_t i = 0; i < nrows; i++)
		if (has_box[i])
		{
			if (n != i)
			{
				memmove(&side->box[d2 * n], &side->box[d2 * i], d2 * sizeof(double));
				side->ids[n] = side->ids[i];
			}
			n++;
		}
	side->n = n;
	pfree(has_box);
	if (n > EXG_BOX_MAX_INPUT)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("%s: more than %u boxes in one input", context, EXG_BOX_MAX_INPUT)));
}

/*
 * Exact boxes of both sides' rows: in line on all cores, out of line
 * (TOAST) by parallel workers when it pays (join_read_parallel.c).
 */
static void
box_sides_build(BoxSide *side, ExactgpuReadReport *rrep, const char *context)
{
	ExactgpuRows *rows[2] = {&side[0].rows, &side[1].rows};
	double	   *box[2];
	uint8	   *has_box[2];

	exactgpu_rows_boxes(rows, 2, side[0].naxes, box, has_box, rrep);
	for (int k = 0; k < 2; k++)
	{
		side[k].box = box[k];
		box_side_compact(&side[k], has_box[k], context);
	}
}

static int
cmp_int64(const void *x, const void *y, void *arg)
{
	int64		a = *(const int64 *) x,
				b = *(const int64 *) y;

	return (a > b) - (a < b);
}

/* Do two strictly increasing runs share no id? (a merge) */
static bool
runs_disjoint(const int64 *x, size_t nx, const int64 *y, size_t ny)
{
	size_t		i = 0,
				j = 0;

	while (i < nx && j < ny)
	{
		if (x[i] == y[j])
			return false;
		if (x[i] < y[j])
			i++;
		else
			j++;
	}
	return true;
}

/*
 * Does every row of the side have its own id? Ids usually come in order, or
 * as two increasing runs when a synchronized scan started mid-table: both
 * cases are checked in linear time, anything else by sorting a copy.
 */
static bool
box_side_ids_unique(const BoxSide *side)
{
	int64	   *copy;
	size_t		i,
				k;
	bool		unique = true;

	for (i = 1; i < side->n && side->ids[i - 1] < side->ids[i]; i++)
		;
	if (i >= side->n)
		return true;
	for (k = i + 1; k < side->n && side->ids[k - 1] < side->ids[k]; k++)
		;
	if (k >= side->n)
		return runs_disjoint(side->ids, i, side->ids + i, side->n - i);
	copy = MemoryContextAllocHuge(CurrentMemoryContext, side->n * sizeof(int64));
	memcpy(copy, side->ids, side->n * sizeof(int64));
	qsort_interruptible(copy, side->n, sizeof(int64), cmp_int64, NULL);
	for (i = 1; i < side->n && unique; i++)
		unique = copy[i - 1] != copy[i];
	pfree(copy);
	return unique;
}

/*
 * Where the engine's pair chunks go. The engine calls the sink on this
 * thread, between its own GPU steps: a PostgreSQL ERROR raised here must not
 * unwind through the engine, so it is caught, kept, and rethrown once the
 * engine has returned.
 */
typedef struct BoxSink
{
	const BoxSide *left;
	const BoxSide *right;
	ExactgpuResult *res;
	bool		stream;			/* ids unique on both sides: rows out at once */
	int64	   *pairs;			/* otherwise collected here */
	size_t		npairs;
	size_t		cap;
	ErrorData  *error;
} BoxSink;

static exg_status
box_sink(void *arg, const exg_pair *p, size_t n)
{
	BoxSink    *bs = arg;
	MemoryContext cxt = CurrentMemoryContext;
	volatile exg_status st = EXG_OK;

	PG_TRY();
	{
		const int64 *lid = bs->left->ids,
				   *rid = bs->right->ids;

		CHECK_FOR_INTERRUPTS();
		if (bs->stream)
			for (size_t i = 0; i < n; i++)
			{
				if ((i & 65535) == 65535)
					CHECK_FOR_INTERRUPTS();
				exactgpu_result_put(bs->res, lid[p[i].a], rid[p[i].b]);
			}
		else
		{
			if (bs->npairs + n > bs->cap)
			{
				bs->cap = Max(2 * bs->cap, bs->npairs + n);
				bs->pairs = bs->pairs ? repalloc_huge(bs->pairs, bs->cap * 2 * sizeof(int64))
					: MemoryContextAllocHuge(cxt, bs->cap * 2 * sizeof(int64));
			}
			for (size_t i = 0; i < n; i++)
			{
				bs->pairs[2 * (bs->npairs + i)] = lid[p[i].a];
				bs->pairs[2 * (bs->npairs + i) + 1] = rid[p[i].b];
			}
			bs->npairs += n;
		}
	}
	PG_CATCH();
	{
		MemoryContextSwitchTo(cxt);
		bs->error = CopyErrorData();
		FlushErrorState();
		st = EXG_ERR_INTERRUPTED;
	}
	PG_END_TRY();
	return st;
}

static void
box_join_and_emit(FunctionCallInfo fcinfo, BoxSide *side, uint64 t_start, const char *context)
{
	ExactgpuJoinReport *rep = &exactgpu_last_join;
	exg_join_options opt;
	exg_error	err = {0};
	exg_box_set A,
				B;
	ExactgpuResult res;
	BoxSink		bs = {0};
	uint64		t_join;

	ExactgpuReadReport rrep;

	/* the rows read in line first, as before; the TOAST rows' once read */
	exactgpu_rows_check_srids(&side[0].rows, &side[1].rows);
	box_sides_build(side, &rrep, context);
	exactgpu_rows_check_srids(&side[0].rows, &side[1].rows);
	A.box = side[0].box;
	A.n = (uint32) side[0].n;
	B.box = side[1].box;
	B.n = (uint32) side[1].n;
	memset(rep, 0, sizeof(*rep));
	rep->read_workers = rrep.workers;
	rep->read_parallel = rrep.parallel;
	rep->left_rows = side[0].rows.n;
	rep->right_rows = side[1].rows.n;
	rep->left_prims = side[0].n;
	rep->right_prims = side[1].n;
	snprintf(rep->semantics, sizeof(rep->semantics), "%dD boxes", side[0].naxes);
	bs.stream = box_side_ids_unique(&side[0]) && box_side_ids_unique(&side[1]);
	t_join = exg_now_ns();
	rep->read_ms = (t_join - t_start) / 1e6;
	if (exactgpu_progress)
		ereport(NOTICE,
				(errmsg("%s: read %llu x %llu rows (%zu x %zu boxes) in %.1f ms", context,
						(unsigned long long) side[0].rows.n, (unsigned long long) side[1].rows.n,
						side[0].n, side[1].n, rep->read_ms),
				 errdetail("%s: detoast %.1f ms, boxes here %.1f ms, rows boxed by workers %.1f ms (%d of %d parallel workers), workers released %.1f ms",
						   rrep.parallel ? "parallel" : "serial", rrep.detoast_ms, rrep.parse_ms,
						   rrep.wait_ms, rrep.workers, rrep.workers_planned, rrep.release_ms)));

	exactgpu_result_begin(fcinfo, &res);
	bs.left = &side[0];
	bs.right = &side[1];
	bs.res = &res;
	exactgpu_join_options(&opt);
	if (exg_box_join(&A, &B, side[0].naxes, &opt, box_sink, &bs, &rep->stats, &err) != EXG_OK)
	{
		if (bs.error)
			ReThrowError(bs.error);
		if (err.row > 0 && err.row <= side[err.side != 0].n)
		{
			size_t		len = strlen(err.message);

			snprintf(err.message + len, sizeof(err.message) - len, " (id %lld of the %s input)",
					 (long long) side[err.side != 0].ids[err.row - 1], err.side ? "right" : "left");
		}
		exactgpu_report(&err, context);
	}
	rep->join_ms = (exg_now_ns() - t_join) / 1e6;
	if (!bs.stream)
		exactgpu_result_put_pairs(&res, bs.pairs, bs.npairs);
	if (exactgpu_progress)
		ereport(NOTICE,
				(errmsg("%s: joined on %s in %.1f ms (%.1f ms of them making result rows): %llu box comparisons, %llu pairs",
						context, rep->stats.device_name, rep->join_ms,
						rep->stats.phase_ns[EXG_PHASE_MERGE] / 1e6,
						(unsigned long long) rep->stats.candidates,
						(unsigned long long) rep->stats.hits)));
	rep->row_pairs = res.rows;
	rep->total_ms = (exg_now_ns() - t_start) / 1e6;
	rep->valid = true;
}

static BoxSide *
box_sides_new(int naxes, const char *context)
{
	BoxSide    *side = palloc0(2 * sizeof(BoxSide));

	for (int k = 0; k < 2; k++)
	{
		exactgpu_rows_init(&side[k].rows, context);
		side[k].naxes = naxes;
	}
	return side;
}

static Datum
box_join_sql(FunctionCallInfo fcinfo, int naxes, const char *context)
{
	uint64		t0 = exg_now_ns();
	char	   *left_sql = text_to_cstring(PG_GETARG_TEXT_PP(0));
	char	   *right_sql = text_to_cstring(PG_GETARG_TEXT_PP(1));
	BoxSide    *side = box_sides_new(naxes, context);

	if (SPI_connect() != SPI_OK_CONNECT)
		ereport(ERROR, (errcode(ERRCODE_INTERNAL_ERROR), errmsg("%s: SPI_connect failed", context)));
	/* big geometries stay TOAST pointers until parallel workers take them */
	exactgpu_rows_defer_toast(&side[0].rows);
	exactgpu_rows_defer_toast(&side[1].rows);
	exactgpu_read_query_rows(left_sql, "left", &side[0].rows);
	exactgpu_read_query_rows(right_sql, "right", &side[1].rows);
	SPI_finish();
	box_join_and_emit(fcinfo, side, t0, context);
	return (Datum) 0;
}

static Datum
box_join_batches(FunctionCallInfo fcinfo, int naxes, const char *context)
{
	uint64		t0 = exg_now_ns();
	BoxSide    *side = box_sides_new(naxes, context);

	exactgpu_read_batch_rows(PG_GETARG_DATUM(0), "left", &side[0].rows);
	exactgpu_read_batch_rows(PG_GETARG_DATUM(1), "right", &side[1].rows);
	box_join_and_emit(fcinfo, side, t0, context);
	return (Datum) 0;
}

Datum
exactgpu_boxjoin2d_sql(PG_FUNCTION_ARGS)
{
	return box_join_sql(fcinfo, 2, "ST_BoxJoin");
}

Datum
exactgpu_boxjoin3d_sql(PG_FUNCTION_ARGS)
{
	return box_join_sql(fcinfo, 3, "ST_3DBoxJoin");
}

Datum
exactgpu_boxjoin2d_batch(PG_FUNCTION_ARGS)
{
	return box_join_batches(fcinfo, 2, "ST_BoxJoin");
}

Datum
exactgpu_boxjoin3d_batch(PG_FUNCTION_ARGS)
{
	return box_join_batches(fcinfo, 3, "ST_3DBoxJoin");
}
