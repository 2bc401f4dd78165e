/*
 * box_join.h — red-blue join of iso-oriented boxes (2D or 3D), after
 * PRI-GC (Lo et al.) and beyond: every pair (a, b) whose CLOSED boxes meet
 * (touching counts), compared exactly on the input doubles, each pair
 * reported exactly once by the reference-point rule (no dedupe pass).
 *
 * GPU back-end: a uniform grid as ragged arrays, work items of up to 32
 * boxes of a cell (several per large cell, scheduled by a scan), tiles of
 * the other side's boxes in shared memory, compact pair output, and the
 * output handed to the caller chunk by chunk while the GPU already works on
 * the next chunk (double-buffered pinned downloads). CPU back-end (OpenMP):
 * the same grid and rule. Both report the same set of pairs.
 */
#ifndef EXG_BOX_JOIN_H
#define EXG_BOX_JOIN_H

#include <stddef.h>
#include <stdint.h>

#include "exg_status.h"
#include "join.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Boxes per input at most: per-cell counts plus a work unit stay in 32 bits. */
#define EXG_BOX_MAX_INPUT (UINT32_MAX - 65536u)

/*
 * n boxes of naxes (2 or 3) axes: box i is box[2*naxes*i .. 2*naxes*(i+1)),
 * its low corner (naxes doubles) then its high corner; finite, lo <= hi.
 */
typedef struct exg_box_set
{
	const double *box;
	uint32_t	n;
} exg_box_set;

/*
 * Receives the pairs, chunk after chunk, always on the thread that called
 * exg_box_join and in the caller's floating-point mode, in no particular
 * order; over all chunks every meeting pair comes exactly once. The chunk is only valid during the call. Returning
 * anything but EXG_OK stops the join, which then returns that status (and
 * frees everything it holds).
 */
typedef exg_status (*exg_box_pair_sink) (void *arg, const exg_pair *pairs, size_t n);

/*
 * Join A and B (same naxes), at most EXG_BOX_MAX_INPUT boxes a side, in
 * any rounding mode, with FTZ/DAZ set or not (the engine works in
 * round-to-nearest without them and puts the caller's mode back). opt:
 * device, grid_cells (0 = automatic), worker_threads, gpu_memory_limit are
 * honoured; filter and dedupe are ignored. An invalid box (non-finite coordinate, lo > hi) fails with
 * EXG_ERR_ARGUMENT before any pair is delivered, err->side 0 (A) or 1 (B)
 * and err->row its index + 1 (0 for other errors). A sink's non-OK status is
 * returned with a generic message in err.
 *
 * stats may be NULL. stats->cell_pairs counts the box comparisons made
 * (pairs sharing a cell), stats->candidates those that passed the cell rule
 * (each pair at most once), stats->hits the pairs given to the sink;
 * waves: chunks (GPU) or rounds (CPU) delivered; splits: chunks computed
 * again after their output overflowed, and input halvings when the device
 * memory was short. phase_ns: UPLOAD, CLASSIFY (validation and bounds),
 * GRID, CULL (work items), TEST (comparisons), DOWNLOAD (waits for pairs to
 * come back), MERGE (time in the sink); on the GPU they overlap.
 */
exg_status	exg_box_join(const exg_box_set *A, const exg_box_set *B, int naxes,
						 const exg_join_options *opt, exg_box_pair_sink sink, void *sink_arg,
						 exg_join_stats *stats, exg_error *err);

#ifdef __cplusplus
}
#endif

#endif							/* EXG_BOX_JOIN_H */
