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

static void
side_boxes(const exg_gpu_side &side, int naxes, exg_dbuf<double> &box, cudaStream_t s)
{
	box.alloc(2 * (size_t) naxes * side.nprims);
	if (side.nprims)
		k_prim_boxes<<<(side.nprims + 255) / 256, 256, 0, s>>>(side.xyz.p, side.vidx.p, side.arity,
															   side.nprims, naxes, box.p);
	EXG_CUDA(cudaGetLastError());
}

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

	if (box_bytes >= memory_limit)
		throw		exg_gpu_oom{box_bytes};
	side_boxes(a, naxes, box_a, s);
	side_boxes(b, naxes, box_b, s);
	exg_gpu_box_join_device(box_a.p, a.nprims, box_b.p, b.nprims, naxes, opt,
							memory_limit - box_bytes, chunks, &bst);

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
