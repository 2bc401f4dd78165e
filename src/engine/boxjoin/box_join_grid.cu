/*
 * box_join_grid.cu — the box join's mapping phase on the GPU (Lo et al.
 * §III.A) and its block scheduling (§III.B), both on the device: input
 * summary and validation, ragged arrays per side (grid_build.cuh), and the
 * work items of every cell with boxes of both sides, found by a scan.
 */
#include <cub/device/device_scan.cuh>

#include "box_join_gpu.cuh"
#include "grid_build.cuh"

#define SUMMARY_THREADS 256
#define SUMMARY_BLOCKS 1024		/* fixed, so the reduction order is too */

__device__ static void
summary_combine(exg_box_summary &m, const exg_box_summary &o)
{
	for (int k = 0; k < 3; k++)
	{
		m.lo[k] = fmin(m.lo[k], o.lo[k]);
		m.hi[k] = fmax(m.hi[k], o.hi[k]);
		m.extent_sum[k] += o.extent_sum[k];
	}
	m.first_invalid = m.first_invalid < o.first_invalid ? m.first_invalid : o.first_invalid;
}

__global__ static void
k_box_summary(const double *box, uint32_t n, int naxes, exg_box_summary *part)
{
	__shared__ exg_box_summary warp_sum[SUMMARY_THREADS / 32];
	exg_box_summary m;

	for (int k = 0; k < 3; k++)
	{
		m.lo[k] = INFINITY;
		m.hi[k] = -INFINITY;
		m.extent_sum[k] = 0;
	}
	m.first_invalid = UINT64_MAX;
	for (uint64_t i = (uint64_t) blockIdx.x * blockDim.x + threadIdx.x; i < n;
		 i += (uint64_t) gridDim.x * blockDim.x)
	{
		const double *b = &box[2 * naxes * i];

		if (!exg_box_valid(b, naxes))
		{
			m.first_invalid = m.first_invalid < i ? m.first_invalid : i;
			continue;
		}
		for (int k = 0; k < naxes; k++)
		{
			m.lo[k] = fmin(m.lo[k], b[k]);
			m.hi[k] = fmax(m.hi[k], b[naxes + k]);
			m.extent_sum[k] += b[naxes + k] - b[k];
		}
	}
	for (int off = 16; off > 0; off /= 2)
	{
		exg_box_summary o;

		for (int k = 0; k < 3; k++)
		{
			o.lo[k] = __shfl_down_sync(0xffffffffu, m.lo[k], off);
			o.hi[k] = __shfl_down_sync(0xffffffffu, m.hi[k], off);
			o.extent_sum[k] = __shfl_down_sync(0xffffffffu, m.extent_sum[k], off);
		}
		o.first_invalid = __shfl_down_sync(0xffffffffu, m.first_invalid, off);
		summary_combine(m, o);
	}
	if ((threadIdx.x & 31) == 0)
		warp_sum[threadIdx.x / 32] = m;
	__syncthreads();
	if (threadIdx.x == 0)
	{
		for (int w = 1; w < SUMMARY_THREADS / 32; w++)
			summary_combine(m, warp_sum[w]);
		part[blockIdx.x] = m;
	}
}

void
exg_box_summarize_gpu(const exg_box_side_d &side, int naxes, exg_box_summary *sum,
					  cudaStream_t s)
{
	unsigned	blocks = (side.n + SUMMARY_THREADS - 1) / SUMMARY_THREADS;

	blocks = blocks < 1 ? 1 : (blocks > SUMMARY_BLOCKS ? SUMMARY_BLOCKS : blocks);

	exg_dbuf<exg_box_summary> part_d(blocks);
	/* pinned: a pageable copy is staged and waited for by the driver */
	exg_box_summary *part = (exg_box_summary *) exg_pinned_get(EXG_PINNED_SUMMARY,
															   sizeof(exg_box_summary) * blocks);

	k_box_summary<<<blocks, SUMMARY_THREADS, 0, s>>>(side.box, side.n, naxes, part_d.p);
	EXG_CUDA(cudaMemcpyAsync(part, part_d.p, sizeof(exg_box_summary) * blocks,
							 cudaMemcpyDeviceToHost, s));
	EXG_CUDA(cudaStreamSynchronize(s));
	exg_box_summary_init(sum);
	for (unsigned b = 0; b < blocks; b++)
		exg_box_summary_merge(sum, &part[b], 0);
}

/* The cells of box i: exg_box_cells, the same function as the pair rule's. */
struct box_ranges
{
	const double *box;
	exg_box_grid bg;

	__device__ bool operator() (uint32_t i, int32_t *lo, int32_t *hi) const
	{
		return exg_box_cells(&bg, &box[2 * bg.naxes * (size_t) i], lo, hi);
	}
};

void
exg_box_grid_side(exg_box_side_d &side, const exg_box_grid &bg, uint32_t ncells,
				  exg_box_budget &budget, cudaStream_t s)
{
	box_ranges	r = {side.box, bg};
	exg_dbuf<uint32_t> counts;
	size_t		cells_bytes = sizeof(uint32_t) * ((size_t) ncells + 1);

	budget.check(2 * cells_bytes + EXG_BOX_SCRATCH_SLACK);
	side.entries = exg_gpu_grid_count(r, side.n, bg.g, ncells, counts, side.start, s);
	exg_trace_mark("grid: counted");
	budget.hold(cells_bytes);
	budget.check(sizeof(uint32_t) * side.entries + cells_bytes);
	budget.hold(sizeof(uint32_t) * side.entries);
	exg_gpu_grid_fill(r, side.n, bg.g, ncells, side.entries, counts, side.start, side.items, s);
}

/* Work items per cell: lane groups of the larger side times segments of the other. */
__global__ static void
k_cell_items(const uint32_t *startA, const uint32_t *startB, uint32_t ncells, uint64_t *per_cell)
{
	uint32_t	c = blockIdx.x * blockDim.x + threadIdx.x;

	if (c > ncells)
		return;
	if (c == ncells)
	{
		per_cell[c] = 0;
		return;
	}
	uint32_t	na = startA[c + 1] - startA[c],
				nb = startB[c + 1] - startB[c],
				nl = na > nb ? na : nb,
				nt = na > nb ? nb : na;

	per_cell[c] = nt ? (uint64_t) ((nl + EXG_BOX_TILE - 1) / EXG_BOX_TILE) *
		((nt + EXG_BOX_SEG - 1) / EXG_BOX_SEG) : 0;
}

/* Each work item's cell (binary search in the scan) and comparisons. */
__global__ static void
k_item_cells(const uint64_t *item_start, uint32_t ncells, const uint32_t *startA,
			 const uint32_t *startB, uint64_t nitems, uint32_t *item_cell, uint64_t *cost)
{
	for (uint64_t w = (uint64_t) blockIdx.x * blockDim.x + threadIdx.x; w <= nitems;
		 w += (uint64_t) gridDim.x * blockDim.x)
	{
		if (w == nitems)
		{
			cost[w] = 0;
			continue;
		}
		/* the cell of item w: it has items, w among them */
		uint32_t	lo = exg_owner_of(item_start, ncells, w);

		exg_box_item it = exg_box_item_decode(startA[lo + 1] - startA[lo], startB[lo + 1] - startB[lo],
											  w - item_start[lo]);

		item_cell[w] = lo;
		cost[w] = (uint64_t) it.lanes * it.tile_count;
	}
}

/* Exclusive scan of n + 1 values of in into out (CUB, temporary storage freed). */
static void
scan_u64(const uint64_t *in, uint64_t *out, uint64_t n, cudaStream_t s)
{
	exg_dbuf<uint8_t> tmp;
	size_t		tmp_bytes = 0;

	EXG_CUDA(cub::DeviceScan::ExclusiveSum(nullptr, tmp_bytes, in, out, (int64_t) n + 1, s));
	tmp.alloc(tmp_bytes);
	EXG_CUDA(cub::DeviceScan::ExclusiveSum(tmp.p, tmp_bytes, in, out, (int64_t) n + 1, s));
}

void
exg_box_work_items(const exg_box_side_d &a, const exg_box_side_d &b, uint32_t ncells,
				   exg_box_work &w, exg_box_budget &budget, cudaStream_t s)
{
	budget.check(2 * sizeof(uint64_t) * ((size_t) ncells + 1) + EXG_BOX_SCRATCH_SLACK);
	budget.hold(sizeof(uint64_t) * ((size_t) ncells + 1));
	{
		exg_dbuf<uint64_t> per_cell(ncells + 1);

		w.item_start.alloc(ncells + 1);
		k_cell_items<<<(ncells + 256) / 256, 256, 0, s>>>(a.start.p, b.start.p, ncells, per_cell.p);
		scan_u64(per_cell.p, w.item_start.p, ncells, s);
	}
	EXG_CUDA(cudaMemcpyAsync(&w.nitems, w.item_start.p + ncells, sizeof(uint64_t),
							 cudaMemcpyDeviceToHost, s));
	EXG_CUDA(cudaStreamSynchronize(s));
	exg_trace_mark("box: items counted");

	budget.check(sizeof(uint32_t) * w.nitems + 2 * sizeof(uint64_t) * (w.nitems + 1) +
				 EXG_BOX_SCRATCH_SLACK);
	budget.hold(sizeof(uint32_t) * w.nitems + sizeof(uint64_t) * (w.nitems + 1));
	{
		exg_dbuf<uint64_t> cost(w.nitems + 1);
		uint64_t	blocks = (w.nitems + 256) / 256;

		w.scan.alloc(w.nitems + 1);
		w.item_cell.alloc(w.nitems);
		k_item_cells<<<(unsigned) (blocks < 65536 ? blocks : 65536), 256, 0, s>>>(
			w.item_start.p, ncells, a.start.p, b.start.p, w.nitems, w.item_cell.p, cost.p);
		scan_u64(cost.p, w.scan.p, w.nitems, s);
	}
	/* the total alone (pageable: copied when the call returns) */
	EXG_CUDA(cudaMemcpyAsync(&w.total, w.scan.p + w.nitems, sizeof(uint64_t), cudaMemcpyDeviceToHost, s));
	EXG_CUDA(cudaStreamSynchronize(s));
	w.cost_scan = nullptr;
}

const uint64_t *
exg_box_work_scan(exg_box_work &w, cudaStream_t s)
{
	if (w.cost_scan == nullptr)
	{
		uint64_t   *host = (uint64_t *) exg_pinned_get(EXG_PINNED_SCAN, sizeof(uint64_t) * (w.nitems + 1));

		EXG_CUDA(cudaMemcpyAsync(host, w.scan.p, sizeof(uint64_t) * (w.nitems + 1),
								 cudaMemcpyDeviceToHost, s));
		EXG_CUDA(cudaStreamSynchronize(s));
		w.cost_scan = host;
	}
	return w.cost_scan;
}
