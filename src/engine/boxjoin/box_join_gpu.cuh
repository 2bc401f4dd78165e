/*
 * box_join_gpu.cuh — the pieces of the GPU box join (box_join.h says what
 * it computes, box_join_internal.h why each pair comes exactly once):
 *
 *   box_join_grid.cu   summary and validation of the input, grid per side,
 *                      work items ("block scheduling", Lo et al. §III.B)
 *   box_join_pairs.cu  the tiled intersection kernel and its compact output
 *   box_join_gpu.cu    upload, chunks, double-buffered download to the sink,
 *                      memory budget and out-of-memory fallback
 *
 * A work item is (cell, up to 32 boxes of the side with more boxes in the
 * cell, up to EXG_BOX_SEG boxes of the other): one warp, one box per lane,
 * the other side streamed through shared memory in tiles of 32. Lo et al.
 * give a cell's T boxes to a block of T threads; a warp per item lets cells
 * of tens of boxes (the automatic grid's aim) fill the hardware, and the
 * segment bound keeps any one item's output below the smallest output
 * buffer, so a chunk that overflows can always be split until it fits.
 */
#ifndef EXG_BOX_JOIN_GPU_CUH
#define EXG_BOX_JOIN_GPU_CUH

#include <stdint.h>

#include "box_join_internal.h"
#include "gpu_runtime.cuh"

#define EXG_BOX_TILE 32			/* boxes per tile = lanes of a warp */
#define EXG_BOX_SEG 2048		/* tile-side boxes of one work item at most */
#define EXG_BOX_ITEM_MAX ((uint64_t) EXG_BOX_TILE * EXG_BOX_SEG)	/* its comparisons */

/*
 * The bytes a join may hold on the device (opt->gpu_memory_limit, else 80%
 * of free), counted by the join itself: what lives to the end is held,
 * scratch space is only checked while it exists. Going over throws
 * exg_gpu_oom, as a failed allocation does.
 */
#define EXG_BOX_SCRATCH_SLACK ((size_t) 1 << 18)	/* CUB scan storage, ~16 B per 4k items */

struct exg_box_budget
{
	size_t		limit;
	size_t		held = 0;

	explicit	exg_box_budget(size_t opt_limit) : limit(exg_gpu_budget(opt_limit)) {}
	size_t		left() const { return limit - held; }
	void		check(size_t bytes) const
	{
		if (bytes > left())
			throw		exg_gpu_oom{bytes};
	}
	void		hold(size_t bytes)
	{
		check(bytes);
		held += bytes;
	}
};

/* One side on the device: its boxes and its ragged array over the grid. */
struct exg_box_side_d
{
	uint32_t	n = 0;
	exg_dbuf<double> owned;		/* the boxes when the join uploaded them */
	const double *box = nullptr;	/* 2 * naxes per box */
	exg_dbuf<uint32_t> start;	/* ncells + 1 */
	exg_dbuf<uint32_t> items;
	uint64_t	entries = 0;
};

/* Bounds, extents and the first invalid box of a side (deterministic). */
void		exg_box_summarize_gpu(const exg_box_side_d &side, int naxes, exg_box_summary *sum,
								  cudaStream_t s);

/* The side's ragged array over bg's grid. */
void		exg_box_grid_side(exg_box_side_d &side, const exg_box_grid &bg, uint32_t ncells,
							  exg_box_budget &budget, cudaStream_t s);

/* The work items, and on the host the scan of their comparisons. */
struct exg_box_work
{
	uint64_t	nitems = 0;
	uint64_t	total = 0;		/* comparisons of all items */
	exg_dbuf<uint64_t> item_start;	/* per cell, ncells + 1: first work item */
	exg_dbuf<uint32_t> item_cell;	/* per work item */
	exg_dbuf<uint64_t> scan;	/* nitems + 1: comparisons before item w */
	const uint64_t *cost_scan = nullptr;	/* its host copy, once exg_box_work_scan made it */
};

void		exg_box_work_items(const exg_box_side_d &a, const exg_box_side_d &b, uint32_t ncells,
							   exg_box_work &w, exg_box_budget &budget, cudaStream_t s);

/*
 * The comparisons before each work item, on the host: copied on first use
 * (a join done in one chunk never needs them, and for the doubled mine's
 * grid they are megabytes).
 */
const uint64_t *exg_box_work_scan(exg_box_work &w, cudaStream_t s);

/* Work item w of cell c (first = its index in the cell's items). */
struct exg_box_item
{
	bool		swap;			/* the warp's lanes hold B's boxes, tiles A's */
	uint32_t	lane_first;		/* first box of the lane side (offset in the cell's list) */
	uint32_t	lanes;			/* lanes with a box */
	uint32_t	tile_first;		/* first box of the tile side */
	uint32_t	tile_count;
};

__host__ __device__ inline exg_box_item
exg_box_item_decode(uint32_t na, uint32_t nb, uint64_t local)
{
	exg_box_item it;
	uint32_t	nl = na >= nb ? na : nb,
				nt = na >= nb ? nb : na;
	uint64_t	nseg = (nt + EXG_BOX_SEG - 1) / EXG_BOX_SEG;

	it.swap = nb > na;
	it.lane_first = (uint32_t) (local / nseg) * EXG_BOX_TILE;
	it.tile_first = (uint32_t) (local % nseg) * EXG_BOX_SEG;
	it.lanes = nl - it.lane_first < EXG_BOX_TILE ? nl - it.lane_first : EXG_BOX_TILE;
	it.tile_count = nt - it.tile_first < EXG_BOX_SEG ? nt - it.tile_first : EXG_BOX_SEG;
	return it;
}

/* Per-chunk counters of the pair kernel (device memory). */
struct exg_box_counts
{
	unsigned long long pairs;	/* all meeting pairs, also beyond the buffer */
	unsigned long long considered;	/* comparisons that passed the cell rule */
};

/* What the pair kernel reads and writes. */
struct exg_box_pairs_args
{
	const double *box[2];		/* A, B */
	const uint32_t *start[2];
	const uint32_t *items[2];
	const uint64_t *item_start;
	const uint32_t *item_cell;
	exg_box_grid bg;
	uint32_t	id_offset[2];	/* added to the ids written (split inputs) */
	exg_pair   *out;
	uint64_t	cap;
	exg_box_counts *counts;
};

/* The pairs of work items [w0, w1): at most cap written, all counted. */
void		exg_box_pairs_launch(const exg_box_pairs_args &x, uint64_t w0, uint64_t w1,
								 cudaStream_t s);

/*
 * Where the box join's pairs go, chunk by chunk: n pairs at dev, complete
 * on the device (ordered on stream s, which the join keeps using). The
 * consumer may overwrite them; they are gone after the call. It may throw
 * what the GPU join's guard catches (exg_gpu_oom included).
 */
struct exg_box_consumer
{
	virtual void take(exg_pair *dev, uint64_t n, cudaStream_t s) = 0;
	/* Called before the join frees its buffers: end any work still reading them. */
	virtual void wait_idle() {}
	/*
	 * Does it consume on the device, in the join's stream? Then nothing
	 * overlaps a chunk's pairs with the next chunk's, and fewer, larger
	 * chunks save each one's launches and round trip.
	 */
	virtual bool on_device() const { return false; }
	virtual ~exg_box_consumer() = default;
};

/*
 * One side's grid kept from join to join (the resident bodies'): chosen
 * from that side alone, its bounds the domain (a box of the other side
 * outside them meets none of its boxes; the reference-point rule holds on
 * any domain holding both sides' common bounds), so that it serves every
 * join against it, unless the other side's boxes would want much coarser
 * cells. start NULL: the join builds it and hands it to keep before it
 * reads it.
 */
struct exg_box_kept_grid
{
	int			side = 0;		/* 0: A, 1: B */
	exg_box_grid bg = {};
	const uint32_t *start = nullptr;	/* ncells + 1 */
	const uint32_t *items = nullptr;
	uint64_t	entries = 0;

	virtual void keep(const exg_box_grid &, const exg_box_side_d &, cudaStream_t) {}
	virtual ~exg_box_kept_grid() = default;
};

/*
 * The box join of boxes already on the device (2 * naxes doubles each, A
 * then B), within memory_limit bytes (0: 80% of free), its pairs left on
 * the device for c. Throws on failure: exg_gpu_oom (no split here: the
 * caller owns the inputs), EXG_ERR_ARGUMENT for a box with a non-finite
 * coordinate (lo <= hi holds for primitive boxes). opt: grid_cells.
 * known_a, known_b: a side's summary (exg_box_summarize_gpu) where the
 * caller has it (kept with the side), else made here. kept: a side's grid
 * kept between joins, else NULL.
 */
void		exg_gpu_box_join_device(const double *boxA, uint32_t na, const double *boxB,
									uint32_t nb, int naxes, const exg_join_options *opt,
									size_t memory_limit, exg_box_consumer &c,
									exg_join_stats *st, const exg_box_summary *known_a = nullptr,
									const exg_box_summary *known_b = nullptr,
									exg_box_kept_grid *kept = nullptr);

#endif							/* EXG_BOX_JOIN_GPU_CUH */
