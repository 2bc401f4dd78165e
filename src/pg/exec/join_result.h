/*
 * join_result.h — the (left_id, right_id) rows a batch join returns.
 */
#ifndef EXACTGPU_JOIN_RESULT_H
#define EXACTGPU_JOIN_RESULT_H

#include "exactgpu.h"

#include "funcapi.h"
#include "utils/tuplestore.h"

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
} ExactgpuResult;

/* Materialize mode for the calling SRF, with exactgpu.result_memory. */
void		exactgpu_result_begin(FunctionCallInfo fcinfo, ExactgpuResult *res);

/*
 * One result row: the ids are written into a row formed once, which the
 * tuplestore copies (forming a tuple per row cost half of a row's time).
 */
static inline void
exactgpu_result_put(ExactgpuResult *res, int64 left_id, int64 right_id)
{
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
