/*
 * sql_stats.c — exactgpu_stats() and exactgpu_stats_reset(): how often the
 * filters decided and how often exact arithmetic was needed, per backend.
 */
#include "exactgpu.h"

#include "access/htup_details.h"
#include "funcapi.h"

#include "exactgpu_engine.h"
#include "utils/builtins.h"

PG_FUNCTION_INFO_V1(exactgpu_stats);
PG_FUNCTION_INFO_V1(exactgpu_stats_reset);

Datum
exactgpu_stats(PG_FUNCTION_ARGS)
{
	TupleDesc	tupdesc;
	exg_counters c;
	Datum		values[9];
	bool		nulls[9] = {0};

	if (get_call_result_type(fcinfo, NULL, &tupdesc) != TYPEFUNC_COMPOSITE)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("exactgpu_stats: function returning record called in context that cannot accept type record")));
	tupdesc = BlessTupleDesc(tupdesc);

	exg_counters_snapshot(&c);
	values[0] = Int64GetDatum((int64) c.orient_evals);
	values[1] = Int64GetDatum((int64) c.orient_filtered);
	values[2] = Int64GetDatum((int64) c.orient_exact);
	values[3] = Float8GetDatum((double) c.exact_ns / 1e6);
	values[4] = Float8GetDatum(c.orient_evals ? (double) c.orient_exact / (double) c.orient_evals : 0.0);
	values[5] = Int64GetDatum((int64) c.pair_tests);
	values[6] = Int64GetDatum((int64) c.gpu_calls);
	values[7] = Int64GetDatum((int64) c.gpu_pair_tests);
	values[8] = Int64GetDatum((int64) c.gpu_unknown);
	PG_RETURN_DATUM(HeapTupleGetDatum(heap_form_tuple(tupdesc, values, nulls)));
}

Datum
exactgpu_stats_reset(PG_FUNCTION_ARGS)
{
	exg_counters_reset();
	PG_RETURN_VOID();
}

PG_FUNCTION_INFO_V1(exactgpu_device_info);

/* The GPU build and how many devices this backend can use (and why not). */
Datum
exactgpu_device_info(PG_FUNCTION_ARGS)
{
	TupleDesc	tupdesc;
	Datum		values[6];
	bool		nulls[6] = {0};
	exg_error	err = {0};
	int			n;
	size_t		in_use,
				reserved,
				free_bytes;

	if (get_call_result_type(fcinfo, NULL, &tupdesc) != TYPEFUNC_COMPOSITE)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("exactgpu_device_info: function returning record called in context that cannot accept type record")));
	tupdesc = BlessTupleDesc(tupdesc);
	n = exg_gpu_device_count(&err);
	values[0] = CStringGetTextDatum(exg_gpu_build_info());
	values[1] = Int32GetDatum(n);
	values[2] = CStringGetTextDatum(n > 0 ? "ok" : err.message);
	exg_gpu_memory_info(&in_use, &reserved, &free_bytes);
	values[3] = Float8GetDatum(in_use / 1048576.0);
	values[4] = Float8GetDatum(reserved / 1048576.0);
	values[5] = Float8GetDatum(free_bytes / 1048576.0);
	PG_RETURN_DATUM(HeapTupleGetDatum(heap_form_tuple(tupdesc, values, nulls)));
}
