/*
 * grid_build.cuh — a uniform grid as ragged arrays on the device, for any
 * kind of item (Lo et al. §III.A): count the items of each cell with
 * atomics, exclusive scan, fill. Items of cell c are
 * items[start[c] .. start[c + 1]).
 *
 * Ranges is a functor: bool r(uint32_t i, int32_t lo[3], int32_t hi[3])
 * gives the cells of item i per axis (false: item i is in no cell). Count
 * and fill are separate so that the caller can check the number of entries
 * (and its memory) before the items array is allocated.
 */
#ifndef EXG_GRID_BUILD_CUH
#define EXG_GRID_BUILD_CUH

#include <cub/device/device_scan.cuh>

#include "gpu_runtime.cuh"
#include "join_grid.h"

template <class Ranges>
__global__ static void
k_grid_enter(Ranges r, uint32_t n, exg_grid g, uint32_t *counter, uint32_t *items,
			 unsigned long long *entries)
{
	uint32_t	i = blockIdx.x * blockDim.x + threadIdx.x;
	unsigned long long mine = 0;
	int32_t		lo[3],
				hi[3];

	if (i < n && r(i, lo, hi))
		for (int32_t z = lo[2]; z <= hi[2]; z++)
			for (int32_t y = lo[1]; y <= hi[1]; y++)
				for (int32_t x = lo[0]; x <= hi[0]; x++)
				{
					uint32_t	slot = atomicAdd(&counter[exg_grid_cell_id(&g, x, y, z)], 1u);

					if (items)
						items[slot] = i;
					mine++;
				}
	if (entries == nullptr)
		return;
	for (int off = 16; off > 0; off /= 2)
		mine += __shfl_down_sync(0xffffffffu, mine, off);
	if ((threadIdx.x & 31) == 0 && mine)
		atomicAdd(entries, mine);
}

template <class Ranges>
__global__ static void
k_grid_entries(Ranges r, uint32_t n, unsigned long long *entries)
{
	uint32_t	i = blockIdx.x * blockDim.x + threadIdx.x;
	unsigned long long mine = 0;
	int32_t		lo[3],
				hi[3];

	if (i < n && r(i, lo, hi))
		mine = (unsigned long long) (hi[0] - lo[0] + 1) * (unsigned long long) (hi[1] - lo[1] + 1) *
			(unsigned long long) (hi[2] - lo[2] + 1);
	for (int off = 16; off > 0; off /= 2)
		mine += __shfl_down_sync(0xffffffffu, mine, off);
	if ((threadIdx.x & 31) == 0 && mine)
		atomicAdd(entries, mine);
}

/*
 * The entries a grid would have, counted without building it (no per-cell
 * arrays): what exg_grid_fits weighs before the count pass allocates.
 */
template <class Ranges>
uint64_t
exg_gpu_grid_entries(Ranges r, uint32_t n, cudaStream_t s)
{
	exg_dbuf<unsigned long long> entries_d(1);
	unsigned long long entries = 0;

	EXG_CUDA(cudaMemsetAsync(entries_d.p, 0, sizeof(unsigned long long), s));
	if (n)
		k_grid_entries<<<(n + 255) / 256, 256, 0, s>>>(r, n, entries_d.p);
	EXG_CUDA(cudaGetLastError());
	EXG_CUDA(cudaMemcpyAsync(&entries, entries_d.p, sizeof(entries), cudaMemcpyDeviceToHost, s));
	EXG_CUDA(cudaStreamSynchronize(s));
	return entries;
}

/*
 * Count pass: counts (ncells + 1, scratch kept for the fill) and start
 * (ncells + 1, the exclusive scan). Returns the number of entries; more
 * than 2^32 - 1 throws EXG_ERR_TOO_LARGE (the arrays are 32-bit).
 */
template <class Ranges>
uint64_t
exg_gpu_grid_count(Ranges r, uint32_t n, const exg_grid &g, uint32_t ncells,
				   exg_dbuf<uint32_t> &counts, exg_dbuf<uint32_t> &start, cudaStream_t s)
{
	exg_dbuf<unsigned long long> entries_d(1);
	exg_dbuf<uint8_t> tmp;
	size_t		tmp_bytes = 0;
	unsigned long long entries = 0;

	counts.alloc(ncells + 1);
	start.alloc(ncells + 1);
	EXG_CUDA(cudaMemsetAsync(counts.p, 0, sizeof(uint32_t) * (ncells + 1), s));
	EXG_CUDA(cudaMemsetAsync(entries_d.p, 0, sizeof(unsigned long long), s));
	if (n)
		k_grid_enter<<<(n + 255) / 256, 256, 0, s>>>(r, n, g, counts.p, nullptr, entries_d.p);
	EXG_CUDA(cub::DeviceScan::ExclusiveSum(nullptr, tmp_bytes, counts.p, start.p, ncells + 1, s));
	tmp.alloc(tmp_bytes);
	EXG_CUDA(cub::DeviceScan::ExclusiveSum(tmp.p, tmp_bytes, counts.p, start.p, ncells + 1, s));
	EXG_CUDA(cudaMemcpyAsync(&entries, entries_d.p, sizeof(entries), cudaMemcpyDeviceToHost, s));
	EXG_CUDA(cudaStreamSynchronize(s));
	if (entries > 0xffffffffull)
	{
		exg_gpu_error e = {EXG_ERR_TOO_LARGE,
		"more than 2^32 grid entries: choose another grid size (exactgpu.grid_cells)"};

		throw		e;
	}
	return entries;
}

/* Fill pass: items (entries long) from the count pass's counts and start. */
template <class Ranges>
void
exg_gpu_grid_fill(Ranges r, uint32_t n, const exg_grid &g, uint32_t ncells, uint64_t entries,
				  exg_dbuf<uint32_t> &counts, const exg_dbuf<uint32_t> &start,
				  exg_dbuf<uint32_t> &items, cudaStream_t s)
{
	items.alloc(entries);
	/* counts becomes the fill cursor, starting at each cell's start */
	EXG_CUDA(cudaMemcpyAsync(counts.p, start.p, sizeof(uint32_t) * ncells, cudaMemcpyDeviceToDevice, s));
	if (n)
		k_grid_enter<<<(n + 255) / 256, 256, 0, s>>>(r, n, g, counts.p, items.p, nullptr);
	EXG_CUDA(cudaGetLastError());
}

#endif							/* EXG_GRID_BUILD_CUH */
