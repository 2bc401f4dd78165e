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
 * The batch driver (join_driver.c) reads the rows and boxes them (those
 * stored out of line by parallel workers) and runs the engine's box join,
 * which hands the pairs back chunk by chunk: here they become result rows
 * while the GPU computes the next chunk. When an id occurs in several rows,
 * pairs are collected and each id pair is returned once instead.
 */
#include "exactgpu.h"

#include "miscadmin.h"
#include "utils/builtins.h"
#include "utils/memutils.h"

#include "join_driver.h"
#include "join_result.h"

PG_FUNCTION_INFO_V1(exactgpu_boxjoin2d_sql);
PG_FUNCTION_INFO_V1(exactgpu_boxjoin3d_sql);
PG_FUNCTION_INFO_V1(exactgpu_boxjoin2d_batch);
PG_FUNCTION_INFO_V1(exactgpu_boxjoin3d_batch);

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
 * Does every row have its own id? Ids usually come in order, or as two
 * increasing runs when a synchronized scan started mid-table: both cases
 * are checked in linear time, anything else by sorting a copy.
 */
static bool
ids_unique(const int64 *ids, size_t n)
{
	int64	   *copy;
	size_t		i,
				k;
	bool		unique = true;

	for (i = 1; i < n && ids[i - 1] < ids[i]; i++)
		;
	if (i >= n)
		return true;
	for (k = i + 1; k < n && ids[k - 1] < ids[k]; k++)
		;
	if (k >= n)
		return runs_disjoint(ids, i, ids + i, n - i);
	copy = MemoryContextAllocHuge(CurrentMemoryContext, n * sizeof(int64));
	memcpy(copy, ids, n * sizeof(int64));
	qsort_interruptible(copy, n, sizeof(int64), cmp_int64, NULL);
	for (i = 1; i < n && unique; i++)
		unique = copy[i - 1] != copy[i];
	pfree(copy);
	return unique;
}

/*
 * Where the pairs go: result rows at once while the engine computes the
 * next chunk when ids are unique on both sides, else collected, and each
 * id pair returned once at the end.
 */
typedef struct BoxRows
{
	const ExactgpuJoin *j;
	ExactgpuResult *res;
	bool		stream;
	int64	   *pairs;
	size_t		npairs;
	size_t		cap;
	MemoryContext cxt;
} BoxRows;

static void
box_rows_emit(void *arg, const exg_pair *p, size_t n)
{
	BoxRows    *br = arg;
	const int64 *lid = br->j->box_ids[0],
			   *rid = br->j->box_ids[1];

	if (br->stream)
	{
		for (size_t i = 0; i < n; i++)
		{
			if ((i & 65535) == 65535)
				CHECK_FOR_INTERRUPTS();
			exactgpu_result_put(br->res, lid[p[i].a], rid[p[i].b]);
		}
		return;
	}
	if (br->npairs + n > br->cap)
	{
		br->cap = Max(2 * br->cap, br->npairs + n);
		br->pairs = br->pairs ? repalloc_huge(br->pairs, br->cap * 2 * sizeof(int64))
			: MemoryContextAllocHuge(br->cxt, br->cap * 2 * sizeof(int64));
	}
	for (size_t i = 0; i < n; i++)
	{
		br->pairs[2 * (br->npairs + i)] = lid[p[i].a];
		br->pairs[2 * (br->npairs + i) + 1] = rid[p[i].b];
	}
	br->npairs += n;
}

static void
box_join_and_emit(FunctionCallInfo fcinfo, ExactgpuJoin *j)
{
	ExactgpuResult res;
	BoxRows		br = {0};

	exactgpu_join_read_boxes(j);
	br.j = j;
	br.res = &res;
	br.cxt = CurrentMemoryContext;
	br.stream = ids_unique(j->box_ids[0], j->nbox[0]) && ids_unique(j->box_ids[1], j->nbox[1]);
	exactgpu_result_begin(fcinfo, &res, j->rows);
	exactgpu_join_boxes(j, box_rows_emit, &br);
	if (!br.stream)
		exactgpu_result_put_pairs(&res, br.pairs, br.npairs);
	exactgpu_join_done(j, res.rows);
}

static Datum
box_join_sql(FunctionCallInfo fcinfo, int naxes, const char *context)
{
	ExactgpuJoin *j;

	if (exactgpu_result_null_inputs(fcinfo))
		return (Datum) 0;
	j = exactgpu_join_new(EXACTGPU_JOIN_BOXES, naxes, context);

	exactgpu_result_want_ids(fcinfo, j->rows);
	exactgpu_join_read_queries(j, text_to_cstring(PG_GETARG_TEXT_PP(0)),
							   text_to_cstring(PG_GETARG_TEXT_PP(1)));
	box_join_and_emit(fcinfo, j);
	return (Datum) 0;
}

static Datum
box_join_batches(FunctionCallInfo fcinfo, int naxes, const char *context)
{
	ExactgpuJoin *j;

	if (exactgpu_result_null_inputs(fcinfo))
		return (Datum) 0;
	j = exactgpu_join_new(EXACTGPU_JOIN_BOXES, naxes, context);

	exactgpu_result_want_ids(fcinfo, j->rows);
	exactgpu_join_read_batches(j, PG_GETARG_DATUM(0), PG_GETARG_DATUM(1));
	box_join_and_emit(fcinfo, j);
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
