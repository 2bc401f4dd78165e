/*
 * box_join.h — red-blue join of iso-oriented boxes (2D or 3D), after
 * PRI-GC (Lo et al.) and beyond: every pair (a, b) whose CLOSED boxes meet
 * (touching counts), compared exactly on the input doubles, each pair
 * reported exactly once by the reference-point rule (no dedupe pass).
 *
 * GPU back-end: a uniform grid as ragged arrays, several blocks per cell,
 * tiles of one side's boxes in shared memory, compact pair output, and the
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
 * exg_box_join, in no particular order; over all chunks every meeting pair
 * comes exactly once. The chunk is only valid during the call. Returning
 * anything but EXG_OK stops the join, which then returns that status (and
 * frees everything it holds).
 */
typedef exg_status (*exg_box_pair_sink) (void *arg, const exg_pair *pairs, size_t n);

/*
 * Join A and B (same naxes). opt: device, grid_cells (0 = automatic),
 * worker_threads, gpu_memory_limit are honoured; filter and dedupe are
 * ignored. stats may be NULL; stats->candidates counts box comparisons that
 * passed the cell rule, stats->hits the pairs given to the sink.
 */
exg_status	exg_box_join(const exg_box_set *A, const exg_box_set *B, int naxes,
						 const exg_join_options *opt, exg_box_pair_sink sink, void *sink_arg,
						 exg_join_stats *stats, exg_error *err);

#ifdef __cplusplus
}
#endif

#endif							/* EXG_BOX_JOIN_H */
