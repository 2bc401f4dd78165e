/*
 * join_result.c — the result rows of batch joins.
 *
 * A join may return tens of millions of rows; with the tuplestore's default
 * budget (work_mem) they would all go through a temporary file, which costs
 * more than the join itself. exactgpu.result_memory sets that budget.
 */
#include "exactgpu.h"

#include "access/htup_details.h"
#include "catalog/pg_type.h"
#include "miscadmin.h"
#include "utils/memutils.h"

#include "join_options.h"
#include "join_result.h"

void
exactgpu_result_want_ids(FunctionCallInfo fcinfo, ExactgpuRows *rows)
{
	TupleDesc	desc;

	if (get_call_result_type(fcinfo, NULL, &desc) != TYPEFUNC_COMPOSITE || desc->natts < 2)
		ereport(ERROR,
				(errcode(ERRCODE_INTERNAL_ERROR), errmsg("return type must be a row type")));
	for (int k = 0; k < 2; k++)
		rows[k].want_idtype = TupleDescAttr(desc, k)->atttypid;
}

bool
exactgpu_result_null_inputs(FunctionCallInfo fcinfo)
{
	if (!PG_ARGISNULL(0) && !PG_ARGISNULL(1))
		return false;
	InitMaterializedSRF(fcinfo, 0);
	return true;
}

void
exactgpu_result_put_datums(ExactgpuResult *res, int64 left_id, int64 right_id)
{
	Datum		values[2];
	bool		nulls[2] = {false, false};

	values[0] = exactgpu_rows_id_datum(res->side[0], left_id, res->coltype[0]);
	values[1] = exactgpu_rows_id_datum(res->side[1], right_id, res->coltype[1]);
	tuplestore_putvalues(res->store, res->desc, values, nulls);
	res->rows++;
}

void
exactgpu_result_begin(FunctionCallInfo fcinfo, ExactgpuResult *res, const ExactgpuRows *rows)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	MemoryContext old;
	TupleDesc	desc;

	if (rsinfo == NULL || !IsA(rsinfo, ReturnSetInfo) ||
		!(rsinfo->allowedModes & SFRM_Materialize))
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("set-valued function called in context that cannot accept a set")));
	old = MemoryContextSwitchTo(rsinfo->econtext->ecxt_per_query_memory);
	if (get_call_result_type(fcinfo, NULL, &desc) != TYPEFUNC_COMPOSITE)
		ereport(ERROR,
				(errcode(ERRCODE_INTERNAL_ERROR), errmsg("return type must be a row type")));
	desc = CreateTupleDescCopy(desc);
	if (desc->natts != 2)
		ereport(ERROR,
				(errcode(ERRCODE_INTERNAL_ERROR), errmsg("result rows must be two ids")));
	/* integer ids into (bigint, bigint): one row rewritten in place, else Datums */
	memset(res->side, 0, sizeof(res->side));
	if (rows != NULL &&
		!(TupleDescAttr(desc, 0)->atttypid == INT8OID && TupleDescAttr(desc, 1)->atttypid == INT8OID &&
		  rows[0].keys == NULL && rows[1].keys == NULL))
		for (int k = 0; k < 2; k++)
		{
			res->side[k] = &rows[k];
			res->coltype[k] = TupleDescAttr(desc, k)->atttypid;
		}
	/*
	 * Rows kept in memory within the join's memory budget (memory_limit is
	 * superuser's, result_memory anyone's), and never more than
	 * RESULT_MEMORY_MAX_KB: when the rows first exceed the budget the
	 * tuplestore writes them all to its file in one go, with no check for
	 * cancel; 1 GB of rows took 3 s there (a cancel 3 s late), 256 MB
	 * takes a few hundred ms. Later rows are written as they come, and
	 * the result loops check for cancel between them.
	 */
	res->store = tuplestore_begin_heap((rsinfo->allowedModes & SFRM_Materialize_Random) != 0,
									   false,
									   (int) Min(Min((size_t) exactgpu_result_memory_kb,
													 (size_t) RESULT_MEMORY_MAX_KB),
												 exactgpu_memory_budget() / 1024));
	res->desc = desc;
	res->rows = 0;
	res->row = NULL;
	res->ids = NULL;
	if (res->side[0] == NULL)
	{
		Datum		zero[2] = {Int64GetDatum(0), Int64GetDatum(0)};
		bool		nulls[2] = {false, false};

		if (TupleDescAttr(desc, 0)->atttypid != INT8OID ||
			TupleDescAttr(desc, 1)->atttypid != INT8OID)
			ereport(ERROR,
					(errcode(ERRCODE_INTERNAL_ERROR),
					 errmsg("result rows must be (bigint, bigint)")));
		/* two aligned 8-byte values, no nulls: the data is the two ids */
		res->row = heap_form_tuple(desc, zero, nulls);
		res->ids = (char *) res->row->t_data + res->row->t_data->t_hoff;
	}
	rsinfo->returnMode = SFRM_Materialize;
	rsinfo->setResult = res->store;
	rsinfo->setDesc = desc;
	MemoryContextSwitchTo(old);
}

static int
cmp_pairs(const void *x, const void *y, void *arg)
{
	const int64 *a = x,
			   *b = y;

	if (a[0] != b[0])
		return a[0] < b[0] ? -1 : 1;
	return (a[1] > b[1]) - (a[1] < b[1]);
}

void
exactgpu_result_put_pairs(ExactgpuResult *res, int64 *pairs, size_t n)
{
	size_t		i;

	/* ids usually grow with the rows: sort only when they do not */
	for (i = 1; i < n && cmp_pairs(&pairs[2 * i - 2], &pairs[2 * i], NULL) <= 0; i++)
		;
	if (i < n)
		qsort_interruptible(pairs, n, 2 * sizeof(int64), cmp_pairs, NULL);
	for (i = 0; i < n; i++)
	{
		if ((i & 65535) == 0)
			CHECK_FOR_INTERRUPTS();
		if (i > 0 && pairs[2 * i] == pairs[2 * i - 2] && pairs[2 * i + 1] == pairs[2 * i - 1])
			continue;
		exactgpu_result_put(res, pairs[2 * i], pairs[2 * i + 1]);
	}
}
