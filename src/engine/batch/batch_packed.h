/*
 * batch_packed.h — a flattened batch (one join side's rows) packed into one
 * block, and a batch that borrows such a block: the resident store keeps a
 * side of bodies this way, so that a join against bodies that have not
 * changed reads none of them. As for geom_packed.h: offsets, never
 * pointers; never written once packed; every index checked when borrowed.
 */
#ifndef EXG_BATCH_PACKED_H
#define EXG_BATCH_PACKED_H

#include <stddef.h>
#include <stdint.h>

#include "batch.h"
#include "exg_status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Bytes exg_batch_pack needs for b (its rows, vertices and primitives). */
size_t		exg_batch_packed_size(const exg_batch *b);

/* Write b into block (exg_batch_packed_size(b) bytes, 8-byte aligned). */
void		exg_batch_pack(const exg_batch *b, void *block);

/*
 * Make the empty batch b (exg_batch_init'ed with the same axes and policy
 * as the packed one) borrow block: its vertices, primitives and owners stay
 * in the block (b->borrowed), its per-row flags are copied (the join may set
 * them). EXG_ERR_ARGUMENT for a block that is not a batch of this build,
 * of other axes or policy, or whose indices point outside it.
 */
exg_status	exg_batch_borrow_packed(exg_batch *b, const void *block, size_t size, int threads,
									exg_error *err);

/* A batch's counts, as exg_batch_borrow_arrays takes them. */
typedef struct exg_batch_counts
{
	uint64_t	nverts,
				nprims,
				nrows,
				nsolid,
				nrows_z,
				nrows_flat;
} exg_batch_counts;

/*
 * Make the empty batch b borrow a flattened side's arrays laid out
 * elsewhere (a packed block, or another process's side in shared memory):
 * xyz, tri and owner stay there (b->borrowed, read only), the per-row
 * flags are copied (the join may set them). No index is checked: the
 * arrays must be a batch's as it was flattened (exg_batch_borrow_packed
 * checks a block's first; exg_batch_check checks arrays another process
 * wrote).
 */
exg_status	exg_batch_borrow_arrays(exg_batch *b, const exg_batch_counts *c, double *xyz,
									uint32_t *tri, uint32_t *owner, const uint8_t *solid_flags,
									exg_error *err);

#ifdef __cplusplus
}
#endif

#endif							/* EXG_BATCH_PACKED_H */
