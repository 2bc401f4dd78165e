/*
 * resident_batch.c — join sides of bodies kept flattened in the resident
 * store (resident_batch.h).
 *
 * The block: a header (magic, row count, SRID), the rows' keys, then the
 * engine's packed batch (batch_packed.h). A hit is checked row key by row
 * key before the batch is borrowed; the borrowed arrays live in the main
 * shared memory, which a GPU join pins once and uploads from directly
 * (exg_host_lasting), as it does the parallel read's in-place rows.
 */
#include "exactgpu.h"

#include "common/hashfn.h"
#include "storage/shmem.h"

#include "exactgpu_engine.h"
#include "join_options.h"
#include "resident_batch.h"

#define BATCH_MAGIC 0x45584752u	/* "EXGR" */
/* Sides whose rows average less are not kept: their probes would cost
 * about what reading them does. */
#define BATCH_MIN_ROW_BYTES ((uint64) 64 << 10)

typedef struct BatchHeader
{
	uint32		magic;
	int32		srid;
	uint64		nrows;
	uint64		batch_off;		/* the packed batch, after the keys */
} BatchHeader;

static Size
keys_end(size_t nrows)
{
	return MAXALIGN(sizeof(BatchHeader)) + MAXALIGN(sizeof(ResidentKey) * nrows);
}

bool
exactgpu_resident_batch_get(ExactgpuRows *rows, exg_batch *batch, ResidentBatchWant *want)
{
	const BatchHeader *h;
	const void *block;
	Size		size;
	ResidentKey *keys;
	uint64		hash;
	exg_error	err = {0};

	memset(want, 0, sizeof(*want));
	if (!exactgpu_resident_enabled() || rows->n > 0 || rows->ntoast == 0 ||
		rows->toast_bytes < BATCH_MIN_ROW_BYTES * rows->ntoast)
		return false;
	/*
	 * Keyed by the batch's own policy, which its block records and a borrow
	 * checks: the setting may have changed since the batch was made (an
	 * inner query's set_config), and a block kept under the setting's key
	 * would then fail every later borrow.
	 */
	keys = palloc(sizeof(ResidentKey) * rows->ntoast);
	for (size_t i = 0; i < rows->ntoast; i++)
		if (!exactgpu_resident_key((const struct varlena *) rows->toast[i].ptr,
								   (int32) batch->policy, &keys[i]))
		{
			pfree(keys);
			return false;
		}
	hash = hash_bytes_extended((const unsigned char *) keys,
							   (int) (sizeof(ResidentKey) * rows->ntoast), 0x45584752);
	memset(&want->key, 0, sizeof(want->key));
	want->key.valueid = (Oid) rows->ntoast;
	want->key.rawsize = batch->naxes;
	want->key.extinfo = (uint32) hash;
	want->key.chunk_xmin = (TransactionId) (hash >> 32);
	want->key.kind = RESIDENT_KIND_SIDE | (int32) batch->policy;
	/* the planner's summary counts a side of one table's bodies */
	want->covers = 0;
	for (size_t i = 0; i < rows->ntoast; i++)
	{
		want->covers += (Size) keys[i].rawsize;
		if (i == 0)
			want->key.side_toastrelid = keys[0].toastrelid;
		else if (keys[i].toastrelid != keys[0].toastrelid)
			want->key.side_toastrelid = InvalidOid;
	}
	want->rows = keys;
	want->nrows = rows->ntoast;

	block = exactgpu_resident_get(&want->key, &size);
	if (block != NULL)
	{
		h = block;
		if (size >= keys_end(rows->ntoast) && h->magic == BATCH_MAGIC &&
			h->nrows == rows->ntoast && h->batch_off == keys_end(rows->ntoast) &&
			memcmp((const char *) block + MAXALIGN(sizeof(BatchHeader)), keys,
				   sizeof(ResidentKey) * rows->ntoast) == 0)
		{
			if (exg_batch_borrow_packed(batch, (const char *) block + h->batch_off,
										size - h->batch_off, exactgpu_threads(), &err) != EXG_OK)
				exactgpu_report(&err, rows->context);
			if (h->nrows > 0)
				exactgpu_rows_note_srid(rows, h->srid, SIZE_MAX);
			exactgpu_rows_append_toast_ids(rows);
			if (ShmemAddrIsValid(block) && ShmemAddrIsValid((const char *) block + size - 1))
			{
				struct
				{
					ResidentKey key;
					const void *block;
					Size		size;
				}			id;

				(void) exg_host_lasting(block, size);
				/* what is at this address, under this key: a block never
				 * changes once kept, and another block here has another key
				 * or another address */
				memset(&id, 0, sizeof(id));
				id.key = want->key;
				id.block = block;
				id.size = size;
				rows->kept_block = block;
				rows->kept_size = size;
				rows->kept_tag = hash_bytes_extended((const unsigned char *) &id, sizeof(id),
													 0x4b455054) | 1;
			}
			pfree(keys);
			want->rows = NULL;
			return true;
		}
		/* another side's list under the same hash: read as ever, keep nothing */
		exactgpu_resident_unpin(block);
		return false;
	}
	want->wanted = true;
	return false;
}

typedef struct FillArg
{
	const ResidentBatchWant *want;
	const ExactgpuRows *rows;
	const exg_batch *batch;
} FillArg;

static void
fill_block(void *dst, void *arg)
{
	FillArg    *a = arg;
	BatchHeader h = {0};

	h.magic = BATCH_MAGIC;
	h.srid = a->rows->srid;
	h.nrows = a->want->nrows;
	h.batch_off = keys_end(a->want->nrows);
	memcpy(dst, &h, sizeof(h));
	memcpy((char *) dst + MAXALIGN(sizeof(BatchHeader)), a->want->rows,
		   sizeof(ResidentKey) * a->want->nrows);
	exg_batch_pack(a->batch, (char *) dst + h.batch_off);
}

void
exactgpu_resident_batch_keep(const ResidentBatchWant *want, const ExactgpuRows *rows,
							 const exg_batch *batch)
{
	FillArg		a = {want, rows, batch};
	const void *block;

	if (!want->wanted || batch->nrows != want->nrows)
		return;
	block = exactgpu_resident_put(&want->key, keys_end(want->nrows) + exg_batch_packed_size(batch),
								  want->covers, fill_block, &a);
	/* this join reads its own copy: the next one the kept block */
	if (block != NULL)
		exactgpu_resident_unpin(block);
}
