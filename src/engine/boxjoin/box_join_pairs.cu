/*
 * box_join_pairs.cu — the intersection-checking kernel of the box join
 * (Lo et al. §III.B, steps 1-4), one warp per work item:
 *
 *  1. each lane loads its box (of the side with more boxes in the cell) into
 *     registers, with the bits of the reference-point rule for this cell;
 *  2. the warp loads the other side's boxes cooperatively into shared memory,
 *     32 at a time (each box read from global memory once per work item);
 *  3. each lane compares its box with the tile: the rule (an OR of two masks)
 *     and the closed test on the doubles, a bit per tile box;
 *  4. the set bits become pairs staged in shared memory (ranks by ballot) and
 *     are written with one global atomic per STAGE pairs or per work item.
 *
 * The counter counts every pair, also those beyond the buffer (cap), so
 * that the host learns how large a chunk's output really was.
 */
#include "box_join_gpu.cuh"

#define WARPS 8					/* work items per block */
#define STAGE 128				/* staged pairs per warp */
#define FULL 0xffffffffu

template <int D>
struct tile_box
{
	double		c[2 * D];		/* low corner, high corner */
	uint32_t	id;
	unsigned	mask;			/* exg_box_lo_mask in this cell */
};

/* Write the warp's n staged pairs at a place reserved by one atomic. */
__device__ static void
flush(const exg_pair *stage, int n, const exg_box_pairs_args &x, int lane)
{
	unsigned long long base = 0;

	__syncwarp();
	if (lane == 0)
		base = atomicAdd(&x.counts->pairs, (unsigned long long) n);
	base = __shfl_sync(FULL, base, 0);
	for (int i = lane; i < n; i += 32)
		if (base + i < x.cap)
			x.out[base + i] = stage[i];
	__syncwarp();
}

template <int D>
__global__ static void __launch_bounds__(WARPS * 32)
k_box_pairs(exg_box_pairs_args x, uint64_t w0, uint64_t w1)
{
	__shared__ tile_box<D> tiles[WARPS][EXG_BOX_TILE];
	__shared__ exg_pair stages[WARPS][STAGE];
	const int	warp = threadIdx.x / 32,
				lane = threadIdx.x % 32;
	const uint64_t w = w0 + (uint64_t) blockIdx.x * WARPS + warp;

	if (w >= w1)
		return;					/* the whole warp: no block-wide sync below */

	tile_box<D> *tile = tiles[warp];
	exg_pair   *stage = stages[warp];
	const uint32_t c = x.item_cell[w];
	const uint32_t a0 = x.start[0][c],
				b0 = x.start[1][c];
	const exg_box_item it = exg_box_item_decode(x.start[0][c + 1] - a0, x.start[1][c + 1] - b0,
												w - x.item_start[c]);
	const int	ls = it.swap,	/* side of the lanes' boxes; the tiles' is 1 - ls */
				ts = 1 - ls;
	const uint32_t *lane_items = x.items[ls] + (ls ? b0 : a0) + it.lane_first;
	const uint32_t *tile_items = x.items[ts] + (ts ? b0 : a0) + it.tile_first;
	int32_t		cc[3];
	double		mine[2 * D];
	uint32_t	my_id = 0;
	unsigned	my_mask = 1u << D;	/* an empty lane: never passes the rule */
	unsigned long long considered = 0;
	int			staged = 0;

	exg_box_cell_coords(&x.bg.g, c, cc);
	for (int k = 0; k < D; k++)
	{
		mine[k] = INFINITY;		/* and meets nothing */
		mine[D + k] = -INFINITY;
	}
	if ((uint32_t) lane < it.lanes)
	{
		const double *b;

		my_id = lane_items[lane];
		b = &x.box[ls][2 * D * (size_t) my_id];
		for (int k = 0; k < 2 * D; k++)
			mine[k] = b[k];
		my_mask = exg_box_lo_mask(&x.bg, b, cc);
	}

	for (uint32_t t0 = 0; t0 < it.tile_count; t0 += EXG_BOX_TILE)
	{
		const int	m = it.tile_count - t0 < EXG_BOX_TILE ? it.tile_count - t0 : EXG_BOX_TILE;
		unsigned	bits = 0;

		__syncwarp();
		if (lane < m)
		{
			uint32_t	id = tile_items[t0 + lane];
			const double *b = &x.box[ts][2 * D * (size_t) id];

			for (int k = 0; k < 2 * D; k++)
				tile[lane].c[k] = b[k];
			tile[lane].id = id;
			tile[lane].mask = exg_box_lo_mask(&x.bg, b, cc);
		}
		__syncwarp();
		for (int j = 0; j < m; j++)
		{
			bool		rule = exg_box_rule(my_mask, tile[j].mask, D);

			considered += rule;
			bits |= (unsigned) (rule & exg_box_meets(mine, tile[j].c, D)) << j;
		}
		/* one pair per lane per round, ranked by ballot, until no lane has one */
		while (__any_sync(FULL, bits))
		{
			bool		has = bits != 0;
			int			j = __ffs(bits) - 1;
			unsigned	who = __ballot_sync(FULL, has);

			bits &= bits - 1;
			if (has)
			{
				uint32_t	other = tile[j].id;
				uint32_t	a = ls ? other : my_id,
							b = ls ? my_id : other;

				stage[staged + __popc(who & ((1u << lane) - 1))] =
					exg_pair{a + x.id_offset[0], b + x.id_offset[1]};
			}
			staged += __popc(who);
			if (staged > STAGE - 32)
			{
				flush(stage, staged, x, lane);
				staged = 0;
			}
		}
	}
	if (staged)
		flush(stage, staged, x, lane);
	for (int off = 16; off > 0; off /= 2)
		considered += __shfl_down_sync(FULL, considered, off);
	if (lane == 0 && considered)
		atomicAdd(&x.counts->considered, considered);
}

void
exg_box_pairs_launch(const exg_box_pairs_args &x, uint64_t w0, uint64_t w1, cudaStream_t s)
{
	uint64_t	blocks = (w1 - w0 + WARPS - 1) / WARPS;

	if (blocks == 0)
		return;
	if (x.bg.naxes == 2)
		k_box_pairs<2><<<(unsigned) blocks, WARPS * 32, 0, s>>>(x, w0, w1);
	else
		k_box_pairs<3><<<(unsigned) blocks, WARPS * 32, 0, s>>>(x, w0, w1);
	EXG_CUDA(cudaGetLastError());
}
