/*
 * batch_type.c — exactgpu_batch: (id, serialized geometry) rows in one
 * varlena, built by the aggregate ST_ExactBatch(id, geom), so that any SQL
 * can feed a batch join.
 */
#include "exactgpu.h"

#include "fmgr.h"
#include "lib/stringinfo.h"
#include "utils/memutils.h"
#include "miscadmin.h"

#include "join_rows.h"

PG_FUNCTION_INFO_V1(exactgpu_batch_in);
PG_FUNCTION_INFO_V1(exactgpu_batch_out);
PG_FUNCTION_INFO_V1(exactgpu_batch_accum);
PG_FUNCTION_INFO_V1(exactgpu_batch_final);

#define BATCH_MAGIC 0x45584742	/* "EXGB" */

typedef struct BatchHeader
{
	int32		vl_len_;
	uint32		magic;
	uint32		nrows;
	uint32		pad;
	/* then per row: int64 id, uint32 bytes, uint32 pad, geometry varlena, padded to 8 */
} BatchHeader;

void
exactgpu_read_batch_rows(Datum batch, const char *which, ExactgpuRows *rows)
{
	const char *context = rows->context;
	const BatchHeader *b = (const BatchHeader *) PG_DETOAST_DATUM(batch);
	const char *p = (const char *) b + sizeof(BatchHeader);
	const char *end = (const char *) b + VARSIZE(b);
	uint32		r;

	if (VARSIZE(b) < sizeof(BatchHeader) || b->magic != BATCH_MAGIC)
		ereport(ERROR,
				(errcode(ERRCODE_DATA_CORRUPTED),
				 errmsg("%s: the %s batch is not an exactgpu_batch", context, which)));
	for (r = 0; r < b->nrows; r++)
	{
		int64		id;
		uint32		bytes;

		if ((r & 1023) == 0)
			CHECK_FOR_INTERRUPTS();
		if (end - p < 16)
			ereport(ERROR, (errcode(ERRCODE_DATA_CORRUPTED),
							errmsg("%s: truncated %s batch", context, which)));
		memcpy(&id, p, 8);
		memcpy(&bytes, p + 8, 4);
		p += 16;
		if ((size_t) (end - p) < bytes || bytes < VARHDRSZ)
			ereport(ERROR, (errcode(ERRCODE_DATA_CORRUPTED),
							errmsg("%s: truncated %s batch", context, which)));
		exactgpu_rows_add(rows, id, (const uint8 *) p + VARHDRSZ, bytes - VARHDRSZ);
		p += TYPEALIGN(8, bytes);
	}
}


/* ---- ST_ExactBatch(id, geom) aggregate ---- */

Datum
exactgpu_batch_in(PG_FUNCTION_ARGS)
{
	ereport(ERROR,
			(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
			 errmsg("exactgpu_batch values cannot be typed in"),
			 errhint("Build one with the aggregate ST_ExactBatch(id, geom).")));
	PG_RETURN_NULL();
}

Datum
exactgpu_batch_out(PG_FUNCTION_ARGS)
{
	BatchHeader *b = (BatchHeader *) PG_DETOAST_DATUM(PG_GETARG_DATUM(0));

	PG_RETURN_CSTRING(psprintf("exactgpu_batch(%u rows, %u bytes)", b->nrows, VARSIZE(b)));
}

Datum
exactgpu_batch_accum(PG_FUNCTION_ARGS)
{
	MemoryContext aggcxt;
	StringInfo	state;
	int64		id;
	struct varlena *g;
	uint32		bytes,
				pad = 0;
	static const char zeros[8] = {0};

	if (!AggCheckCallContext(fcinfo, &aggcxt))
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("ST_ExactBatch: called outside an aggregate")));
	if (PG_ARGISNULL(0))
	{
		MemoryContext old = MemoryContextSwitchTo(aggcxt);
		BatchHeader h = {0};

		state = makeStringInfo();
		h.magic = BATCH_MAGIC;
		appendBinaryStringInfo(state, (const char *) &h, sizeof(h));
		MemoryContextSwitchTo(old);
	}
	else
		state = (StringInfo) PG_GETARG_POINTER(0);
	if (PG_ARGISNULL(2))
		PG_RETURN_POINTER(state);	/* NULL geometries are skipped */
	if (PG_ARGISNULL(1))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("ST_ExactBatch: NULL id")));
	id = PG_GETARG_INT64(1);
	g = PG_DETOAST_DATUM(PG_GETARG_DATUM(2));
	bytes = VARSIZE(g);
	if ((Size) state->len + 16 + TYPEALIGN(8, bytes) >= MaxAllocSize)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("ST_ExactBatch: the batch exceeds 1 GB"),
				 errhint("Use the form ST_ExactIntersects3DJoin(left_sql, right_sql), which reads rows through cursors.")));
	{
		MemoryContext old = MemoryContextSwitchTo(aggcxt);

		appendBinaryStringInfo(state, (const char *) &id, 8);
		appendBinaryStringInfo(state, (const char *) &bytes, 4);
		appendBinaryStringInfo(state, (const char *) &pad, 4);
		appendBinaryStringInfo(state, (const char *) g, bytes);
		appendBinaryStringInfo(state, zeros, TYPEALIGN(8, bytes) - bytes);
		((BatchHeader *) state->data)->nrows++;
		MemoryContextSwitchTo(old);
	}
	PG_RETURN_POINTER(state);
}

Datum
exactgpu_batch_final(PG_FUNCTION_ARGS)
{
	StringInfo	state;
	BatchHeader *b;

	if (PG_ARGISNULL(0))
	{
		b = palloc0(sizeof(BatchHeader));
		b->magic = BATCH_MAGIC;
	}
	else
	{
		state = (StringInfo) PG_GETARG_POINTER(0);
		b = palloc(state->len);
		memcpy(b, state->data, state->len);
	}
	SET_VARSIZE(b, PG_ARGISNULL(0) ? sizeof(BatchHeader) : (Size) ((StringInfo) PG_GETARG_POINTER(0))->len);
	PG_RETURN_POINTER(b);
}
