/*
 * sql_resident.c — the resident store of prepared geometry from SQL:
 *
 *   exactgpu_resident_stats()      one row: on?, capacity, bytes, entries,
 *                                  hits, misses, inserts, evictions, not kept,
 *                                  solid verdicts kept and found
 *   exactgpu_resident_entries()    a row per kept block: a prepared geometry
 *                                  (its TOAST table, value OID and first
 *                                  chunk's xmin: its identity) or a join side
 *                                  of bodies; bytes, pins, written yet
 *   exactgpu_resident_keep(geom)   keep one value (the prewarm's step)
 *   exactgpu_resident_evict()      evict every value no one has pinned
 *
 * (exactgpu_prewarm(table, column) is SQL over exactgpu_resident_keep.)
 */
#include "exactgpu.h"

#include "funcapi.h"
#include "utils/builtins.h"

#include "geom_cache.h"
#include "resident_store.h"

PG_FUNCTION_INFO_V1(exactgpu_resident_stats_sql);
PG_FUNCTION_INFO_V1(exactgpu_resident_entries_sql);
PG_FUNCTION_INFO_V1(exactgpu_resident_keep);
PG_FUNCTION_INFO_V1(exactgpu_resident_evict);

Datum
exactgpu_resident_stats_sql(PG_FUNCTION_ARGS)
{
	TupleDesc	desc;
	ResidentStats st;
	Datum		values[11];
	bool		nulls[11] = {0};

	if (get_call_result_type(fcinfo, NULL, &desc) != TYPEFUNC_COMPOSITE)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("exactgpu_resident_stats: a composite result is required")));
	exactgpu_resident_stats(&st);
	values[0] = BoolGetDatum(st.enabled);
	values[1] = Int64GetDatum((int64) st.capacity);
	values[2] = Int64GetDatum((int64) st.bytes);
	values[3] = Int64GetDatum(st.entries);
	values[4] = Int64GetDatum((int64) st.hits);
	values[5] = Int64GetDatum((int64) st.misses);
	values[6] = Int64GetDatum((int64) st.inserts);
	values[7] = Int64GetDatum((int64) st.evictions);
	values[8] = Int64GetDatum((int64) st.not_kept);
	values[9] = Int64GetDatum((int64) st.notes_kept);
	values[10] = Int64GetDatum((int64) st.notes_found);
	PG_RETURN_DATUM(HeapTupleGetDatum(heap_form_tuple(BlessTupleDesc(desc), values, nulls)));
}

Datum
exactgpu_resident_entries_sql(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	ResidentEntryInfo *list;
	int			n;

	InitMaterializedSRF(fcinfo, 0);
	n = exactgpu_resident_list(&list);
	for (int i = 0; i < n; i++)
	{
		Datum		values[7];
		bool		nulls[7] = {0};
		bool		side = list[i].toastrelid == InvalidOid;

		/* a join side's identity is its rows' list, kept in its block */
		values[0] = CStringGetTextDatum(side ? "join side" : "geometry");
		values[1] = ObjectIdGetDatum(list[i].toastrelid);
		nulls[1] = side;
		values[2] = ObjectIdGetDatum(list[i].valueid);
		nulls[2] = side;
		values[3] = TransactionIdGetDatum(list[i].chunk_xmin);
		nulls[3] = side;
		values[4] = Int64GetDatum((int64) list[i].size);
		values[5] = Int32GetDatum(list[i].pins);
		values[6] = BoolGetDatum(list[i].ready);
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
	}
	return (Datum) 0;
}

Datum
exactgpu_resident_keep(PG_FUNCTION_ARGS)
{
	PG_RETURN_BOOL(exactgpu_geom_make_resident(PG_GETARG_DATUM(0), "exactgpu_resident_keep"));
}

Datum
exactgpu_resident_evict(PG_FUNCTION_ARGS)
{
	PG_RETURN_INT64(exactgpu_resident_evict_all());
}
