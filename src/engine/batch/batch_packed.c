/*
 * batch_packed.c — packing a flattened batch into one block and borrowing
 * it back (batch_packed.h).
 *
 * Layout: a header, then at 8-byte aligned offsets the per-row flags
 * (solid), the vertices (xyz), the primitives' vertex indices and their
 * owners. A borrower checks every index as exg_batch_borrow does for rows
 * laid out by other processes: the block was written by another backend.
 */
#include "batch_packed.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define PACK_MAGIC	 0x45584742u	/* "EXGB" */
#define PACK_VERSION 1u

typedef struct packed_batch
{
	uint32_t	magic;
	uint32_t	version;
	uint64_t	size;
	int32_t		naxes;
	int32_t		policy;
	uint64_t	nverts,
				nprims,
				nrows,
				nsolid,
				nrows_z,
				nrows_flat;
	uint64_t	off_solid,
				off_xyz,
				off_tri,
				off_owner;
} packed_batch;

static size_t
align8(size_t n)
{
	return (n + 7) & ~(size_t) 7;
}

static size_t
layout(const exg_batch *b, packed_batch *h)
{
	size_t		off = align8(sizeof(packed_batch));

	h->off_solid = off;
	off = align8(off + b->nrows);
	h->off_xyz = off;
	off = align8(off + sizeof(double) * 3 * b->nverts);
	h->off_tri = off;
	off = align8(off + sizeof(uint32_t) * 3 * b->nprims);
	h->off_owner = off;
	off = align8(off + sizeof(uint32_t) * b->nprims);
	return off;
}

size_t
exg_batch_packed_size(const exg_batch *b)
{
	packed_batch h;

	return layout(b, &h);
}

void
exg_batch_pack(const exg_batch *b, void *block)
{
	uint8_t    *p = block;
	packed_batch h;

	memset(&h, 0, sizeof(h));
	h.magic = PACK_MAGIC;
	h.version = PACK_VERSION;
	h.size = layout(b, &h);
	h.naxes = b->naxes;
	h.policy = (int32_t) b->policy;
	h.nverts = b->nverts;
	h.nprims = b->nprims;
	h.nrows = b->nrows;
	h.nsolid = b->nsolid;
	h.nrows_z = b->nrows_z;
	h.nrows_flat = b->nrows_flat;
	memcpy(p, &h, sizeof(h));
	if (b->nrows)
	{
		if (b->solid)
			memcpy(p + h.off_solid, b->solid, b->nrows);
		else
			memset(p + h.off_solid, 0, b->nrows);
	}
	if (b->nverts)
		memcpy(p + h.off_xyz, b->xyz, sizeof(double) * 3 * b->nverts);
	if (b->nprims)
	{
		memcpy(p + h.off_tri, b->tri, sizeof(uint32_t) * 3 * b->nprims);
		memcpy(p + h.off_owner, b->owner, sizeof(uint32_t) * b->nprims);
	}
}

exg_status
exg_batch_borrow_packed(exg_batch *b, const void *block, size_t size, int threads,
						exg_error *err)
{
	const uint8_t *p = block;
	packed_batch h,
				expect;
	const uint32_t *tri,
			   *owner;

	if (b->nrows != 0 || b->nprims != 0 || b->nverts != 0)
		return exg_fail(err, EXG_ERR_ARGUMENT, "only an empty batch borrows a packed one");
	if (size < sizeof(h))
		return exg_fail(err, EXG_ERR_ARGUMENT, "packed batch: block too small");
	memcpy(&h, p, sizeof(h));
	if (h.magic != PACK_MAGIC || h.version != PACK_VERSION || h.size != size ||
		h.naxes != b->naxes || h.policy != (int32_t) b->policy ||
		!exg_batch_counts_fit(h.nverts, h.nprims, h.nrows) ||
		h.nsolid > h.nrows || h.nrows_z + h.nrows_flat > h.nrows)
		return exg_fail(err, EXG_ERR_ARGUMENT, "packed batch: not a block of this build, axes and policy");
	{
		/* the offsets must be the ones its counts give */
		exg_batch	sizes = {0};

		sizes.nrows = h.nrows;
		sizes.nverts = h.nverts;
		sizes.nprims = h.nprims;
		if (layout(&sizes, &expect) != size || expect.off_solid != h.off_solid ||
			expect.off_xyz != h.off_xyz || expect.off_tri != h.off_tri ||
			expect.off_owner != h.off_owner)
			return exg_fail(err, EXG_ERR_ARGUMENT, "packed batch: its arrays disagree with its counts");
	}
	tri = (const uint32_t *) (p + h.off_tri);
	owner = (const uint32_t *) (p + h.off_owner);
	if (exg_batch_arrays_first_bad(tri, owner, h.nprims, h.nverts, h.nrows, threads) != SIZE_MAX)
		return exg_fail(err, EXG_ERR_ARGUMENT, "packed batch: a primitive refers to a vertex or row it does not have");

	{
		exg_batch_counts c = {h.nverts, h.nprims, h.nrows, h.nsolid, h.nrows_z, h.nrows_flat};

		return exg_batch_borrow_arrays(b, &c, (double *) (p + h.off_xyz), (uint32_t *) tri,
									   (uint32_t *) owner, p + h.off_solid, err);
	}
}

exg_status
exg_batch_borrow_arrays(exg_batch *b, const exg_batch_counts *c, double *xyz, uint32_t *tri,
						uint32_t *owner, const uint8_t *solid_flags, exg_error *err)
{
	uint8_t    *solid;

	if (b->nrows != 0 || b->nprims != 0 || b->nverts != 0)
		return exg_fail(err, EXG_ERR_ARGUMENT, "only an empty batch borrows arrays");
	solid = realloc(b->solid, c->nrows ? c->nrows : 1);
	if (solid == NULL)
		return exg_fail(err, EXG_ERR_NOMEM, "out of memory borrowing a batch");
	if (c->nrows)
		memcpy(solid, solid_flags, c->nrows);
	b->solid = solid;
	b->solid_cap = c->nrows;
	/* the batch is empty: it may hold empty buffers of its own */
	if (!b->borrowed)
	{
		free(b->xyz);
		free(b->tri);
		free(b->owner);
	}
	/* read only through these: a borrowed batch is never appended to */
	b->xyz = xyz;
	b->tri = tri;
	b->owner = owner;
	b->verts_cap = b->nverts = c->nverts;
	b->prims_cap = b->nprims = c->nprims;
	b->nrows = c->nrows;
	b->nsolid = c->nsolid;
	b->nrows_z = c->nrows_z;
	b->nrows_flat = c->nrows_flat;
	b->borrowed = true;
	return EXG_OK;
}
