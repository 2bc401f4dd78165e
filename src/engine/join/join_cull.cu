/*
 * join_cull.cu — implicit thread-to-pair association and two-pass box
 * culling (Menezes et al. 2020/2022): each grid cell gets
 * ceil(nA * nB / EXG_CULL_THREADS) blocks, described by per-block cell /
 * first-pair / last-pair arrays; thread t of block b handles pair
 * first[b] + t of cell[b], i.e. A item p / nB and B item p % nB. Pass 1
 * counts the pairs whose boxes meet (and whose reference cell is this cell),
 * pass 2 writes them at offsets from the scan of the counts, so the writes
 * need no atomics and the output order is deterministic.
 */
#include <cub/device/device_scan.cuh>

#include "join_gpu.cuh"

extern "C" {
#include "cancel.h"
}

__global__ static void
k_cell_blocks(const uint32_t *startA, const uint32_t *startB, uint32_t ncells,
			  uint64_t *nblocks, unsigned long long *pairs_total)
{
	/* pairs_total[1] keeps the largest cell: pair indices within a cell are 32-bit */
	uint32_t	c = blockIdx.x * blockDim.x + threadIdx.x;
	unsigned long long pairs = 0;

	if (c < ncells)
	{
		pairs = (unsigned long long) (startA[c + 1] - startA[c]) * (startB[c + 1] - startB[c]);
		nblocks[c] = (pairs + EXG_CULL_THREADS - 1) / EXG_CULL_THREADS;
		atomicMax(&pairs_total[1], pairs);
	}
	for (int off = 16; off > 0; off /= 2)
		pairs += __shfl_down_sync(0xffffffffu, pairs, off);
	if ((threadIdx.x & 31) == 0 && pairs)
		atomicAdd(pairs_total, pairs);
}

/*
 * One thread per block, which finds its cell by binary search in the scan
 * of blocks per cell: a thread per cell would write a crowded cell's
 * millions of blocks alone, for a second, with no cancel check.
 */
__global__ static void
k_block_arrays(const uint64_t *block_start, const uint32_t *startA, const uint32_t *startB,
			   uint32_t ncells, uint64_t nblocks, uint32_t *cell, uint32_t *first,
			   uint32_t *last)
{
	uint64_t	b = (uint64_t) blockIdx.x * blockDim.x + threadIdx.x;

	if (b >= nblocks)
		return;
	uint32_t	c = exg_owner_of(block_start, ncells, b);
	uint64_t	pairs = (uint64_t) (startA[c + 1] - startA[c]) * (startB[c + 1] - startB[c]);
	uint64_t	f = (b - block_start[c]) * EXG_CULL_THREADS;

	cell[b] = c;
	first[b] = (uint32_t) f;
	last[b] = (uint32_t) ((f + EXG_CULL_THREADS < pairs ? f + EXG_CULL_THREADS : pairs) - 1);
}

void
exg_gpu_block_arrays(const exg_gpu_side &a, const exg_gpu_side &b, uint32_t ncells,
					 exg_gpu_blocks &blocks, cudaStream_t s)
{
	exg_dbuf<uint64_t> per_cell(ncells + 1);
	exg_dbuf<uint64_t> start(ncells + 1);
	exg_dbuf<unsigned long long> pairs_d(2);
	exg_dbuf<uint8_t> tmp;
	size_t		tmp_bytes = 0;
	uint64_t	nblocks = 0;
	unsigned long long pairs[2] = {0, 0};

	EXG_CUDA(cudaMemsetAsync(per_cell.p, 0, sizeof(uint64_t) * (ncells + 1), s));
	EXG_CUDA(cudaMemsetAsync(pairs_d.p, 0, 2 * sizeof(unsigned long long), s));
	k_cell_blocks<<<(ncells + 255) / 256, 256, 0, s>>>(a.cell_start.p, b.cell_start.p, ncells,
														per_cell.p, pairs_d.p);
	EXG_CUDA(cub::DeviceScan::ExclusiveSum(nullptr, tmp_bytes, per_cell.p, start.p, ncells + 1, s));
	tmp.alloc(tmp_bytes);
	EXG_CUDA(cub::DeviceScan::ExclusiveSum(tmp.p, tmp_bytes, per_cell.p, start.p, ncells + 1, s));
	EXG_CUDA(cudaMemcpyAsync(&nblocks, start.p + ncells, sizeof(uint64_t), cudaMemcpyDeviceToHost, s));
	EXG_CUDA(cudaMemcpyAsync(pairs, pairs_d.p, sizeof(pairs), cudaMemcpyDeviceToHost, s));
	EXG_CUDA(cudaStreamSynchronize(s));
	/*
	 * A cell with more pairs than a block counts: a grid that coarse comes
	 * from the memory budget (exactgpu.gpu_memory_limit; on the H100 a
	 * 1 MB budget gave one) or from exactgpu.grid_cells. As for memory that
	 * runs out, halves of the input fill it less (join_or_split), and a
	 * join that does not fit even split runs on the CPU under device auto.
	 */
	if (pairs[1] > 0xffffffffull - EXG_CULL_THREADS)
		throw		exg_gpu_oom{0};
	blocks.nblocks = nblocks;
	blocks.cell_pairs = pairs[0];
	blocks.cell.alloc(nblocks);
	blocks.first.alloc(nblocks);
	blocks.last.alloc(nblocks);
	blocks.offset.alloc(nblocks + 1);
	if (nblocks)
		k_block_arrays<<<(unsigned) ((nblocks + 255) / 256), 256, 0, s>>>(
			start.p, a.cell_start.p, b.cell_start.p, ncells, nblocks, blocks.cell.p,
			blocks.first.p, blocks.last.p);
	EXG_CUDA(cudaGetLastError());
}

/* Does thread's pair pass the box test (and belong to this cell)? */
struct cull_args
{
	const uint32_t *cell;
	const uint32_t *first;
	const uint32_t *last;
	const uint32_t *startA;
	const uint32_t *itemsA;
	const uint32_t *startB;
	const uint32_t *itemsB;
	const float *boxA;
	const float *boxB;
	exg_grid	g;
	bool		by_reference;
};

__device__ __forceinline__ bool
cull_pair(const cull_args &x, uint64_t blk, uint32_t *ia, uint32_t *ib)
{
	uint32_t	c = x.cell[blk];
	uint32_t	p = x.first[blk] + threadIdx.x;

	if (p > x.last[blk])
		return false;
	uint32_t	nB = x.startB[c + 1] - x.startB[c];

	*ia = x.itemsA[x.startA[c] + p / nB];
	*ib = x.itemsB[x.startB[c] + p % nB];

	const float *a = &x.boxA[6 * (size_t) *ia];
	const float *b = &x.boxB[6 * (size_t) *ib];

	if (a[0] > b[3] || b[0] > a[3] || a[1] > b[4] || b[1] > a[4] || a[2] > b[5] || b[2] > a[5])
		return false;
	if (!x.by_reference)
		return true;
	/* Reference cell: the cell of the low corner of the boxes' intersection. */
	double		ref[3] = {fmax((double) a[0], (double) b[0]), fmax((double) a[1], (double) b[1]),
	fmax((double) a[2], (double) b[2])};

	return exg_grid_cell_id(&x.g, exg_grid_axis(&x.g, 0, ref[0]), exg_grid_axis(&x.g, 1, ref[1]),
							exg_grid_axis(&x.g, 2, ref[2])) == c;
}

#define WARPS_PER_BLOCK (EXG_CULL_THREADS / 32)
#define CULL_SLICE ((uint64_t) 1 << 22)	/* blocks per count launch: 10^9 pairs */

/* Pass 1: the box tests; one bit per pair is kept for pass 2. */
__global__ static void
k_cull_count(cull_args x, uint64_t b0, uint64_t *counts, uint32_t *bits)
{
	uint64_t	blk = b0 + blockIdx.x;
	uint32_t	ia,
				ib;
	bool		keep = cull_pair(x, blk, &ia, &ib);
	unsigned	mask = __ballot_sync(0xffffffffu, keep);
	int			n = __syncthreads_count(keep);

	if ((threadIdx.x & 31) == 0)
		bits[blk * WARPS_PER_BLOCK + threadIdx.x / 32] = mask;
	if (threadIdx.x == 0)
		counts[blk] = (uint64_t) n;
}

/* Pass 2: the kept pairs, written from the bits without repeating the tests. */
__global__ static void
k_cull_write(cull_args x, uint64_t first_block, uint64_t b0, const uint64_t *offset,
			 const uint32_t *bits, int key_shift, uint64_t *keys)
{
	__shared__ int warp_base[WARPS_PER_BLOCK];
	uint64_t	blk = first_block + blockIdx.x;
	int			warp = threadIdx.x / 32,
				lane = threadIdx.x & 31;
	unsigned	mask = bits[blk * WARPS_PER_BLOCK + warp];

	if (threadIdx.x < WARPS_PER_BLOCK)
	{
		int			sum = 0;

		for (int w = 0; w < (int) threadIdx.x; w++)
			sum += __popc(bits[blk * WARPS_PER_BLOCK + w]);
		warp_base[threadIdx.x] = sum;
	}
	__syncthreads();
	if (!(mask & (1u << lane)))
		return;

	uint32_t	c = x.cell[blk];
	uint32_t	p = x.first[blk] + threadIdx.x;
	uint32_t	nB = x.startB[c + 1] - x.startB[c];
	uint32_t	ia = x.itemsA[x.startA[c] + p / nB];
	uint32_t	ib = x.itemsB[x.startB[c] + p % nB];
	int			rank = warp_base[warp] + __popc(mask & ((1u << lane) - 1));

	keys[offset[blk] - offset[b0] + rank] = ((uint64_t) ia << key_shift) | ib;
}

static cull_args
make_args(const exg_gpu_side &a, const exg_gpu_side &b, const exg_grid &g, bool by_reference,
		  const exg_gpu_blocks &blocks)
{
	cull_args	x;

	x.cell = blocks.cell.p;
	x.first = blocks.first.p;
	x.last = blocks.last.p;
	x.startA = a.cell_start.p;
	x.itemsA = a.cell_items.p;
	x.startB = b.cell_start.p;
	x.itemsB = b.cell_items.p;
	x.boxA = a.boxes.p;
	x.boxB = b.boxes.p;
	x.g = g;
	x.by_reference = by_reference;
	return x;
}

void
exg_gpu_cull_count(const exg_gpu_side &a, const exg_gpu_side &b, const exg_grid &g,
				   bool by_reference, exg_gpu_blocks &blocks, cudaStream_t s)
{
	exg_dbuf<uint64_t> counts(blocks.nblocks + 1);
	exg_dbuf<uint8_t> tmp;
	size_t		tmp_bytes = 0;

	blocks.bits.alloc(blocks.nblocks * WARPS_PER_BLOCK);
	EXG_CUDA(cudaMemsetAsync(counts.p + blocks.nblocks, 0, sizeof(uint64_t), s));
	/* In slices of blocks, polling for cancel in between (~20 ms each). */
	for (uint64_t b0 = 0; b0 < blocks.nblocks; b0 += CULL_SLICE)
	{
		uint64_t	n = blocks.nblocks - b0 < CULL_SLICE ? blocks.nblocks - b0 : CULL_SLICE;

		k_cull_count<<<(unsigned) n, EXG_CULL_THREADS, 0, s>>>(
			make_args(a, b, g, by_reference, blocks), b0, counts.p, blocks.bits.p);
		if (b0 + n < blocks.nblocks)
		{
			EXG_CUDA(cudaStreamSynchronize(s));
			if (exg_cancel_requested())
				throw		exg_gpu_canceled();
		}
	}
	EXG_CUDA(cub::DeviceScan::ExclusiveSum(nullptr, tmp_bytes, counts.p, blocks.offset.p,
										   blocks.nblocks + 1, s));
	tmp.alloc(tmp_bytes);
	EXG_CUDA(cub::DeviceScan::ExclusiveSum(tmp.p, tmp_bytes, counts.p, blocks.offset.p,
										   blocks.nblocks + 1, s));
	EXG_CUDA(cudaGetLastError());
}

void
exg_gpu_cull_write(const exg_gpu_side &a, const exg_gpu_side &b, const exg_grid &g,
				   bool by_reference, const exg_gpu_blocks &blocks, uint64_t b0, uint64_t b1,
				   int key_shift, uint64_t *cands, cudaStream_t s)
{
	/* launches of at most CULL_SLICE blocks; offsets stay relative to b0 */
	for (uint64_t s0 = b0; s0 < b1; s0 += CULL_SLICE)
	{
		uint64_t	n = b1 - s0 < CULL_SLICE ? b1 - s0 : CULL_SLICE;

		k_cull_write<<<(unsigned) n, EXG_CULL_THREADS, 0, s>>>(
			make_args(a, b, g, by_reference, blocks), s0, b0, blocks.offset.p, blocks.bits.p,
			key_shift, cands);
	}
	EXG_CUDA(cudaGetLastError());
}
