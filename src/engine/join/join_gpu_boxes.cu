/*
 * join_gpu_boxes.cu — the box join as the first stage of the exact GPU
 * join: every primitive's exact box (the min and max of its vertices'
 * doubles: no rounding), the box join of box_join_gpu.cu on them with its
 * pairs left on the device, and each chunk of pairs turned into candidate
 * keys in place and tested in waves while the box join computes the next.
 *
 * Against the cell-pair cull (join_cull.cu) it compares each pair of a
 * cell once per tile instead of once per thread, needs no count pass, and
 * its candidates are the pairs whose exact boxes meet, never more.
 */
#include <algorithm>

extern "C" {
#include "stats.h"
}
#include "box_join_gpu.cuh"
#include "join_gpu.cuh"

/* Box of each primitive: naxes low coordinates, then naxes high ones. */
__global__ static void
k_prim_boxes(const double *xyz, const uint32_t *vidx, int arity, uint32_t n, int naxes,
			 double *box)
{
	uint32_t	i = blockIdx.x * blockDim.x + threadIdx.x;

	if (i >= n)
		return;
	const uint32_t *v = &vidx[(size_t) arity * i];
	bool		finite = true;

	for (int k = 0; k < 3; k++)
		for (int t = 0; t < arity; t++)
			finite &= isfinite(xyz[3 * (size_t) v[t] + k]);
	for (int k = 0; k < naxes; k++)
	{
		double		lo = xyz[3 * (size_t) v[0] + k],
					hi = lo;

		for (int t = 1; t < arity; t++)
		{
			double		c = xyz[3 * (size_t) v[t] + k];

			lo = fmin(lo, c);
			hi = fmax(hi, c);
		}
		/* fmin/fmax drop a NaN: a NaN box is what the summary refuses */
		box[2 * naxes * (size_t) i + k] = finite ? lo : NAN;
		box[2 * naxes * (size_t) i + naxes + k] = finite ? hi : NAN;
	}
}

/* A pair (a, b) becomes the key a << shift | b, in the same 8 bytes. */
__global__ static void
k_pairs_to_keys(exg_pair *pairs, uint64_t n, int shift)
{
	uint64_t	i = (uint64_t) blockIdx.x * blockDim.x + threadIdx.x;

	if (i < n)
	{
		exg_pair	p = pairs[i];

		reinterpret_cast<uint64_t *>(pairs)[i] = ((uint64_t) p.a << shift) | p.b;
	}
}

/* Each chunk of the box join's pairs through the tester, in waves. */
struct test_chunks : exg_box_consumer
{
	exg_gpu_tester &t;
	uint64_t	pairs = 0;

	explicit	test_chunks(exg_gpu_tester &tester) : t(tester) {}

	bool		on_device() const override { return true; }

	void		take(exg_pair *dev, uint64_t n, cudaStream_t s) override
	{
		uint64_t	wave = t.unknown.n;

		/* a chunk whose boxes all missed: a launch of 0 blocks is an error */
		if (n == 0)
			return;
		static_assert(sizeof(exg_pair) == sizeof(uint64_t), "a pair and a key share a slot");
		k_pairs_to_keys<<<(unsigned) ((n + 255) / 256), 256, 0, s>>>(dev, n, t.shift);
		EXG_CUDA(cudaGetLastError());
		for (uint64_t off = 0; off < n; off += wave)
		{
			t.test(reinterpret_cast<const uint64_t *>(dev) + off, std::min(wave, n - off));
			exg_gpu_check_cancel();
		}
		pairs += n;
	}
};

/* A block kept with a kept side starts with its boxes' summary, in this many bytes. */
#define SUMMARY_BYTES 256
static_assert(sizeof(exg_box_summary) <= SUMMARY_BYTES, "a summary fits its header");

/* The summary of n boxes at box into the block's header, made on s (a side kept). */
static void
summary_into(char *block, const double *box, uint32_t n, int naxes, exg_box_summary *sum,
			 cudaStream_t s)
{
	exg_box_side_d d;

	d.n = n;
	d.box = box;
	exg_box_summarize_gpu(d, naxes, sum, s);
	/* pageable: copied out before the call returns */
	EXG_CUDA(cudaMemcpyAsync(block, sum, sizeof(*sum), cudaMemcpyHostToDevice, s));
}

/* The summary from a kept block: the host's copy of its header, else the header. */
static void
summary_from(const exg_gpu_derived &kept, exg_box_summary *sum, cudaStream_t s)
{
	if (kept.head(sum, sizeof(*sum)))
		return;
	EXG_CUDA(cudaMemcpyAsync(sum, kept.p, sizeof(*sum), cudaMemcpyDeviceToHost, s));
	EXG_CUDA(cudaStreamSynchronize(s));
}

bool
exg_gpu_side_exact_boxes(const exg_gpu_side &side, int naxes, exg_dbuf<double> &box,
						 exg_box_summary *sum, cudaStream_t s)
{
	size_t		count = 2 * (size_t) naxes * side.nprims;
	exg_gpu_derived kept;
	uint64_t	key[4];

	if (exg_gpu_side_keep_key(side, EXG_KEPT_EXACT_BOXES, naxes, key) &&
		kept.find(side.xyz.kept, key, SUMMARY_BYTES + sizeof(double) * count, s))
	{
		box.lend((double *) (kept.p + SUMMARY_BYTES), count);
		if (!kept.make)
		{
			summary_from(kept, sum, s);
			return true;
		}
	}
	else
		box.alloc(count);
	if (side.nprims)
		k_prim_boxes<<<(side.nprims + 255) / 256, 256, 0, s>>>(side.xyz.p, side.vidx.p, side.arity,
															   side.nprims, naxes, box.p);
	EXG_CUDA(cudaGetLastError());
	exg_trace_sync(s, "box: primitive boxes");
	if (!kept.make)
		return false;
	summary_into(kept.p, box.p, side.nprims, naxes, sum, s);
	kept.set_head(sum, sizeof(*sum));
	kept.done();
	return true;
}

/*
 * The box join's grid of a kept side (the bodies'), kept with it in one
 * block: a header (the grid and its entry count), the cell starts, the
 * entries. Made by the first join against it (keep), then lent.
 */
struct kept_box_grid : exg_box_kept_grid
{
	/* the block's header */
	struct head
	{
		exg_box_grid bg;
		uint64_t	entries;
	};
	static_assert(sizeof(head) <= SUMMARY_BYTES, "a grid's header fits");

	void	   *ref = nullptr;
	uint64_t	key[4];
	exg_gpu_derived found;

	static size_t ncells(const exg_box_grid &g)
	{
		return (size_t) g.g.dims[0] * g.g.dims[1] * g.g.dims[2];
	}

	/* where the entries start: after the header and the cell starts, 256-aligned */
	static size_t items_at(const exg_box_grid &g)
	{
		return SUMMARY_BYTES + (sizeof(uint32_t) * (ncells(g) + 1) + 255) / 256 * 256;
	}

	/* the side's kept grid, or none yet (keep will make it); false: not kept */
	bool		find(const exg_gpu_side &gs, int which, int naxes, cudaStream_t s)
	{
		head		h;

		if (!exg_gpu_side_keep_key(gs, EXG_KEPT_BOX_GRID, naxes, key))
			return false;
		side = which;
		ref = gs.xyz.kept;
		if (found.lookup(ref, key, s))
		{
			/* the header: the host's copy, else from the block */
			if (!found.head(&h, sizeof(h)))
			{
				EXG_CUDA(cudaMemcpyAsync(&h, found.p, sizeof(h), cudaMemcpyDeviceToHost, s));
				EXG_CUDA(cudaStreamSynchronize(s));
			}
			bg = h.bg;
			entries = h.entries;
			start = (const uint32_t *) (found.p + SUMMARY_BYTES);
			items = (const uint32_t *) (found.p + items_at(bg));
		}
		return true;
	}

	void		keep(const exg_box_grid &g, const exg_box_side_d &d, cudaStream_t s) override
	{
		exg_gpu_derived made;
		head		h = {g, d.entries};

		if (!made.find(ref, key, items_at(g) + sizeof(uint32_t) * d.entries, s) || !made.make)
			return;
		/* pageable: copied out before the call returns */
		EXG_CUDA(cudaMemcpyAsync(made.p, &h, sizeof(h), cudaMemcpyHostToDevice, s));
		EXG_CUDA(cudaMemcpyAsync(made.p + SUMMARY_BYTES, d.start.p,
								 sizeof(uint32_t) * (ncells(g) + 1), cudaMemcpyDeviceToDevice, s));
		if (d.entries)
			EXG_CUDA(cudaMemcpyAsync(made.p + items_at(g), d.items.p, sizeof(uint32_t) * d.entries,
									 cudaMemcpyDeviceToDevice, s));
		made.set_head(&h, sizeof(h));
		made.done();
	}
};

void
exg_gpu_box_stage(const exg_gpu_side &a, const exg_gpu_side &b, bool flat,
				  const exg_join_options *opt, size_t memory_limit, exg_gpu_tester &t,
				  exg_join_stats *st)
{
	cudaStream_t s = t.s;
	int			naxes = flat ? 2 : 3;
	exg_dbuf<double> box_a,
				box_b;
	exg_join_stats bst = {};
	test_chunks chunks(t);
	uint64_t	t0 = exg_now_ns(),
				tested0 = t.test_ns + t.refine_ns;
	size_t		box_bytes = sizeof(double) * 2 * naxes * ((size_t) a.nprims + b.nprims);

	exg_box_summary sum_a,
				sum_b;
	bool		known_a,
				known_b;

	if (box_bytes >= memory_limit)
		throw		exg_gpu_oom{box_bytes};
	known_a = exg_gpu_side_exact_boxes(a, naxes, box_a, &sum_a, s);
	known_b = exg_gpu_side_exact_boxes(b, naxes, box_b, &sum_b, s);
	exg_trace_sync(s, "box: exact boxes");

	/* a kept side's grid (automatic sizes only: exactgpu.grid_cells picks per join) */
	kept_box_grid kg;
	bool		use_kg = opt->grid_cells == 0 &&
		(kg.find(a, 0, naxes, s) || kg.find(b, 1, naxes, s));
	exg_trace_sync(s, "box: kept grid looked up");
	exg_gpu_box_join_device(box_a.p, a.nprims, box_b.p, b.nprims, naxes, opt,
							memory_limit - box_bytes, chunks, &bst, known_a ? &sum_a : nullptr,
							known_b ? &sum_b : nullptr, use_kg ? &kg : nullptr);
	memcpy(st->grid_dims, bst.grid_dims, sizeof(bst.grid_dims));
	st->grid_entries += bst.grid_entries;
	st->cell_pairs += bst.cell_pairs;
	st->candidates += chunks.pairs;
	st->waves += bst.waves;	/* chunks; their re-runs after an overflow are not input splits */
	st->phase_ns[EXG_PHASE_GRID] += bst.phase_ns[EXG_PHASE_GRID];

	uint64_t	box_ns = exg_now_ns() - t0 - (t.test_ns + t.refine_ns - tested0);

	st->phase_ns[EXG_PHASE_CULL] += box_ns > bst.phase_ns[EXG_PHASE_GRID]
		? box_ns - bst.phase_ns[EXG_PHASE_GRID] : 0;
}
