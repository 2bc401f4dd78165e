/*
 * join_result.h — the (left_id, right_id) rows a batch join returns.
 */
#ifndef EXACTGPU_JOIN_RESULT_H
#define EXACTGPU_JOIN_RESULT_H

#include "exactgpu.h"

#include "funcapi.h"
#include "utils/tuplestore.h"

#include "join_rows.h"

/* GUC exactgpu.result_memory (kB): result rows kept in memory before spilling. */
#define RESULT_MEMORY_MAX_KB (256 * 1024)	/* the most kept, see join_result.c */
extern int	exactgpu_result_memory_kb;

typedef struct ExactgpuResult
{
	Tuplestorestate *store;
	TupleDesc	desc;
	uint64		rows;
	HeapTuple	row;			/* a (bigint, bigint) row rewritten in place */
	char	   *ids;			/* its two ids: 16 bytes of its data */
	/* ids of other types (the forms with typed ids): Datums from the rows */
	const ExactgpuRows *side[2];	/* NULL: the (bigint, bigint) row above */
	Oid			coltype[2];
} ExactgpuResult;

/*
 * Before reading: the id types the calling SRF returns (its result's first
 * two columns) become what the rows' ids must fit (rows[k].want_idtype).
 */
void		exactgpu_result_want_ids(FunctionCallInfo fcinfo, ExactgpuRows *rows);

/*
 * Materialize mode for the calling SRF, with exactgpu.result_memory; the
 * ids of rows[0] and rows[1] (NULL: integer ids only) go out as the result's
 * column types.
 */
void		exactgpu_result_begin(FunctionCallInfo fcinfo, ExactgpuResult *res,
								  const ExactgpuRows *rows);

/*
 * The forms with typed ids are not STRICT (their id-type arguments are
 * NULLs): a NULL input gives no rows, as STRICT would. True when so.
 */
bool		exactgpu_result_null_inputs(FunctionCallInfo fcinfo);

/* One result row of ids of any type (exactgpu_result_put calls it). */
void		exactgpu_result_put_datums(ExactgpuResult *res, int64 left_id, int64 right_id);

/*
 * One result row: the ids are written into a row formed once, which the
 * tuplestore copies (forming a tuple per row cost half of a row's time).
 */
static inline void
exactgpu_result_put(ExactgpuResult *res, int64 left_id, int64 right_id)
{
	if (res->side[0])
	{
		exactgpu_result_put_datums(res, left_id, right_id);
		return;
	}
	memcpy(res->ids, &left_id, sizeof(int64));
	memcpy(res->ids + sizeof(int64), &right_id, sizeof(int64));
	tuplestore_puttuple(res->store, res->row);
	res->rows++;
}

/*
 * Put n id pairs (2n int64, left then right), each distinct pair once:
 * sorted in place unless already in order. Several rows may share an id.
 */
void		exactgpu_result_put_pairs(ExactgpuResult *res, int64 *pairs, size_t n);

#endif							/* EXACTGPU_JOIN_RESULT_H */
