/*
 * geom_packed.h — a prepared geometry packed into one block of memory, and
 * a prepared geometry that borrows such a block.
 *
 * The resident store (src/pg/resident/) keeps prepared geometries in shared
 * memory, where every backend and worker reads the same bytes, possibly at
 * another address: so a packed block holds offsets, never pointers, and is
 * never written once packed. A borrowing exg_prepared points into the block
 * for the parts that were packed (the shape and every view built by then)
 * and builds whatever else a caller asks for in its own memory, so the
 * answers are those of the unpacked geometry: the packed arrays are
 * byte-for-byte the ones the engine built.
 */
#ifndef EXG_GEOM_PACKED_H
#define EXG_GEOM_PACKED_H

#include <stddef.h>

#include "exg_status.h"
#include "geom_prepared.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Bytes exg_prepared_pack needs for g as it is now (its built views). */
size_t		exg_prepared_packed_size(const exg_prepared *g);

/*
 * Write g into block (exg_prepared_packed_size(g) bytes, 8-byte aligned).
 * The block is self-contained: it may be copied or mapped anywhere.
 */
void		exg_prepared_pack(const exg_prepared *g, void *block);

/*
 * Make *out a prepared geometry borrowing block (packed by
 * exg_prepared_pack, of size bytes): nothing is copied. The block must stay
 * unchanged and mapped until exg_prepared_free(out), which frees only what
 * *out built itself. EXG_ERR_ARGUMENT when the block is not a packed
 * geometry of this build (a torn or foreign block is refused, not read).
 */
exg_status	exg_prepared_borrow(const void *block, size_t size, exg_prepared *out,
								exg_error *err);

#ifdef __cplusplus
}
#endif

#endif							/* EXG_GEOM_PACKED_H */
