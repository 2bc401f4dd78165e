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
 *
 * Each function has a second form whose last two arguments are values of
 * the ids' types (NULL::text, NULL::uuid, ...) and whose result columns
 * left_key, right_key have those types: the same C functions, which return
 * the ids as the columns the call resolved to (join_result.c).
 */
#include "exactgpu.h"

#include "miscadmin.h"
#include "utils/builtins.h"

#include "join_driver.h"
#include "join_result.h"

PG_FUNCTION_INFO_V1(exactgpu_join3d_sql);
PG_FUNCTION_INFO_V1(exactgpu_join2d_sql);
PG_FUNCTION_INFO_V1(exactgpu_join3d_batch);
PG_FUNCTION_INFO_V1(exactgpu_join2d_batch);
PG_FUNCTION_INFO_V1(exactgpu_locate3d_sql);
PG_FUNCTION_INFO_V1(exactgpu_locate3d_batch);
PG_FUNCTION_INFO_V1(exactgpu_join3d_volume_sql);
PG_FUNCTION_INFO_V1(exactgpu_join3d_volume_batch);

/*
 * Join both sides (join_driver.c) and fill the SRF's tuplestore with
 * (left_id, right_id): intersecting rows, or points in closed bodies. The
 * pairs come sorted by id, each id pair once: out as they are.
 */
static void
join_and_emit(FunctionCallInfo fcinfo, ExactgpuJoin *j)
{
	ExactgpuResult res;

	exactgpu_join_run(j, true);
	exactgpu_result_begin(fcinfo, &res, j->rows);
	for (size_t i = 0; i < j->npairs; i++)
	{
		if ((i & 65535) == 0)
			CHECK_FOR_INTERRUPTS();
		exactgpu_result_put(&res, j->place_ids[0][j->pairs[i] >> 32],
							j->place_ids[1][j->pairs[i] & 0xffffffffu]);
	}
	exactgpu_join_free(j);
	exactgpu_join_done(j, res.rows);
}

static Datum
join_sql(FunctionCallInfo fcinfo, int naxes, ExactgpuJoinKind kind, const char *context)
{
	ExactgpuJoin *j;

	if (exactgpu_result_null_inputs(fcinfo))
		return (Datum) 0;
	j = exactgpu_join_new(kind, naxes, context);

	exactgpu_result_want_ids(fcinfo, j->rows);
	exactgpu_join_read_queries(j, text_to_cstring(PG_GETARG_TEXT_PP(0)),
							   text_to_cstring(PG_GETARG_TEXT_PP(1)));
	join_and_emit(fcinfo, j);
	return (Datum) 0;
}

static Datum
join_batches(FunctionCallInfo fcinfo, int naxes, ExactgpuJoinKind kind, const char *context)
{
	ExactgpuJoin *j;

	if (exactgpu_result_null_inputs(fcinfo))
		return (Datum) 0;
	j = exactgpu_join_new(kind, naxes, context);

	exactgpu_result_want_ids(fcinfo, j->rows);
	exactgpu_join_read_batches(j, PG_GETARG_DATUM(0), PG_GETARG_DATUM(1));
	join_and_emit(fcinfo, j);
	return (Datum) 0;
}

Datum
exactgpu_join3d_sql(PG_FUNCTION_ARGS)
{
	return join_sql(fcinfo, 3, EXACTGPU_JOIN_INTERSECTS, "ST_ExactIntersects3DJoin");
}

Datum
exactgpu_join2d_sql(PG_FUNCTION_ARGS)
{
	return join_sql(fcinfo, 2, EXACTGPU_JOIN_INTERSECTS, "ST_ExactIntersectsJoin");
}

Datum
exactgpu_join3d_batch(PG_FUNCTION_ARGS)
{
	return join_batches(fcinfo, 3, EXACTGPU_JOIN_INTERSECTS, "ST_ExactIntersects3DJoin");
}

Datum
exactgpu_join2d_batch(PG_FUNCTION_ARGS)
{
	return join_batches(fcinfo, 2, EXACTGPU_JOIN_INTERSECTS, "ST_ExactIntersectsJoin");
}

Datum
exactgpu_locate3d_sql(PG_FUNCTION_ARGS)
{
	return join_sql(fcinfo, 3, EXACTGPU_JOIN_LOCATE, "ST_ExactLocate3DJoin");
}

Datum
exactgpu_locate3d_batch(PG_FUNCTION_ARGS)
{
	return join_batches(fcinfo, 3, EXACTGPU_JOIN_LOCATE, "ST_ExactLocate3DJoin");
}

/* ST_ExactIntersectsSolid3DJoin(solids, geoms): container first, bodies as volumes. */
Datum
exactgpu_join3d_volume_sql(PG_FUNCTION_ARGS)
{
	return join_sql(fcinfo, 3, EXACTGPU_JOIN_VOLUME, "ST_ExactIntersectsSolid3DJoin");
}

Datum
exactgpu_join3d_volume_batch(PG_FUNCTION_ARGS)
{
	return join_batches(fcinfo, 3, EXACTGPU_JOIN_VOLUME, "ST_ExactIntersectsSolid3DJoin");
}
