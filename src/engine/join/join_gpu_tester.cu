/*
 * join_gpu_tester.cu — the tests of candidate keys on the device, wave
 * after wave (exg_gpu_tester): the float filter, double intervals for its
 * unknowns, hits kept on the device, what is still undecided collected for
 * GMP. Both first stages feed it (join_gpu.cu's cell pairs, the box join of
 * join_gpu_boxes.cu), so it lives apart from either.
 */
extern "C" {
#include "stats.h"
}
#include "join_gpu.cuh"

/* Replace buf by a larger buffer of n elements that keeps its first keep. */
static void
grow_keeping(exg_dbuf<uint64_t> &buf, uint64_t n, uint64_t keep, cudaStream_t s)
{
	exg_dbuf<uint64_t> bigger(n);

	EXG_CUDA(cudaMemcpyAsync(bigger.p, buf.p, sizeof(uint64_t) * keep, cudaMemcpyDeviceToDevice, s));
	std::swap(buf.p, bigger.p);
	std::swap(buf.n, bigger.n);
}

exg_gpu_tester::exg_gpu_tester(const exg_gpu_side &a_, const exg_gpu_side &b_, int shift_,
							   const exg_join_options *opt, uint64_t hits_cap,
							   uint64_t wave_cap, exg_gpu_counts *pinned_counts,
							   cudaStream_t s_)
	: a(a_), b(b_), shift(shift_), double_only(opt->filter == EXG_FILTER_DOUBLE),
	  boxes_only(opt->boxes_only), s(s_), hits(hits_cap), unknown(wave_cap), counts_d(1),
	  counts_h(pinned_counts)
{
}

void
exg_gpu_tester::test(const uint64_t *keys, uint64_t n)
{
	/* first filter; if the hits overflow their buffer, grow it and test again */
	for (;;)
	{
		uint64_t	t0 = exg_now_ns();

		counts_h->hits = nhits;
		counts_h->unknown = 0;
		EXG_CUDA(cudaMemcpyAsync(counts_d.p, counts_h, sizeof(exg_gpu_counts),
								 cudaMemcpyHostToDevice, s));
		exg_gpu_test(a, b, keys, n, shift, double_only, hits.p, hits.n, unknown.p, counts_d.p, s,
					 boxes_only);
		EXG_CUDA(cudaMemcpyAsync(counts_h, counts_d.p, sizeof(exg_gpu_counts),
								 cudaMemcpyDeviceToHost, s));
		EXG_CUDA(cudaStreamSynchronize(s));
		test_ns += exg_now_ns() - t0;
		if (counts_h->hits <= hits.n)
			break;
		grow_keeping(hits, counts_h->hits + counts_h->hits / 2, nhits, s);
	}
	uint64_t	nunknown = counts_h->unknown;

	nhits = counts_h->hits;
	unknown_first += nunknown;
	if (nunknown == 0)
		return;

	const uint64_t *left = unknown.p;
	exg_dbuf<uint64_t> unknown2;
	uint64_t	t0 = exg_now_ns();

	/* double intervals for what the float filter left undecided */
	if (!double_only)
	{
		unknown2.alloc(nunknown);
		if (nhits + nunknown > hits.n)
			grow_keeping(hits, nhits + nunknown, nhits, s);
		counts_h->hits = nhits;
		counts_h->unknown = 0;
		EXG_CUDA(cudaMemcpyAsync(counts_d.p, counts_h, sizeof(exg_gpu_counts),
								 cudaMemcpyHostToDevice, s));
		exg_gpu_test(a, b, unknown.p, nunknown, shift, true, hits.p, hits.n, unknown2.p,
					 counts_d.p, s);
		EXG_CUDA(cudaMemcpyAsync(counts_h, counts_d.p, sizeof(exg_gpu_counts),
								 cudaMemcpyDeviceToHost, s));
		EXG_CUDA(cudaStreamSynchronize(s));
		nhits = counts_h->hits;
		nunknown = counts_h->unknown;
		unknown_second += nunknown;
		left = unknown2.p;
	}
	size_t		old = undecided.size();

	undecided.resize(old + nunknown);
	EXG_CUDA(cudaMemcpyAsync(undecided.data() + old, left, sizeof(uint64_t) * nunknown,
							 cudaMemcpyDeviceToHost, s));
	EXG_CUDA(cudaStreamSynchronize(s));
	if (!double_only)
		refine_ns += exg_now_ns() - t0;
}
