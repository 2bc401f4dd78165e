/*
 * sql_service.c — the GPU service from SQL (gpu_service.h):
 *
 *   exactgpu_gpu_service_stats()    one row: running?, pid, starts, state,
 *                                   GPUs, lanes, joins served / failed /
 *                                   cancelled, queued and running now,
 *                                   set-up time at its start
 *   exactgpu_gpu_service_devices()  a row per GPU: name, memory of its pool
 *                                   in use, kept for reuse, free; joins;
 *                                   resident bodies kept on it; the
 *                                   blocks its threads keep for reuse
 */
#include "exactgpu.h"

#include "funcapi.h"
#include "utils/builtins.h"

#include "gpu_service.h"

PG_FUNCTION_INFO_V1(exactgpu_gpu_service_stats);
PG_FUNCTION_INFO_V1(exactgpu_gpu_service_devices);

Datum
exactgpu_gpu_service_stats(PG_FUNCTION_ARGS)
{
	TupleDesc	desc;
	ExactgpuServiceInfo info;
	Datum		v[12];
	bool		n[12] = {0};

	if (get_call_result_type(fcinfo, NULL, &desc) != TYPEFUNC_COMPOSITE)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("exactgpu_gpu_service_stats: a composite result is required")));
	exactgpu_service_info(&info);
	v[0] = BoolGetDatum(info.running);
	v[1] = Int32GetDatum(info.pid);
	n[1] = info.pid == 0;
	v[2] = Int32GetDatum((int32) info.generation);
	v[3] = CStringGetTextDatum(info.state);
	v[4] = Int32GetDatum(info.ndevices);
	v[5] = Int32GetDatum(info.lanes);
	v[6] = Int64GetDatum((int64) info.joins_served);
	v[7] = Int64GetDatum((int64) info.joins_failed);
	v[8] = Int64GetDatum((int64) info.joins_cancelled);
	v[9] = Int32GetDatum(info.queued);
	v[10] = Int32GetDatum(info.running_joins);
	v[11] = Float8GetDatum(info.setup_ms);
	PG_RETURN_DATUM(HeapTupleGetDatum(heap_form_tuple(BlessTupleDesc(desc), v, n)));
}

Datum
exactgpu_gpu_service_devices(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	ExactgpuServiceInfo info;

	InitMaterializedSRF(fcinfo, 0);
	exactgpu_service_info(&info);
	for (int d = 0; d < info.ndevices && d < EXACTGPU_SERVICE_MAX_DEVICES; d++)
	{
		const ExactgpuServiceDevice *dev = &info.dev[d];
		Datum		v[15];
		bool		n[15] = {0};

		v[0] = Int32GetDatum(d);
		v[1] = CStringGetTextDatum(dev->name);
		v[2] = Int64GetDatum((int64) dev->in_use_bytes);
		v[3] = Int64GetDatum((int64) dev->reserved_bytes);
		v[4] = Int64GetDatum((int64) dev->free_bytes);
		v[5] = Int64GetDatum((int64) dev->joins);
		v[6] = Int64GetDatum((int64) dev->kept_bytes);
		v[7] = Int64GetDatum((int64) dev->keep_hits);
		v[8] = Int64GetDatum((int64) dev->keep_misses);
		v[9] = Int64GetDatum((int64) dev->keep_bytes_saved);
		v[10] = Int64GetDatum((int64) dev->keep_evictions);
		v[11] = Int64GetDatum((int64) dev->kept_prepared_bytes);
		v[12] = Int64GetDatum((int64) dev->prepared_made);
		v[13] = Int64GetDatum((int64) dev->prepared_reused);
		v[14] = Int64GetDatum((int64) dev->cached_bytes);
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, v, n);
	}
	return (Datum) 0;
}
