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

#ifdef __cplusplus
}
#endif

#endif							/* EXG_BATCH_PACKED_H */
