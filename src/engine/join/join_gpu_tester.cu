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
	/* gives back what it took before it throws: the destructor will not run */
	exg_gpu_events_take(refine_ev, 2);
}

exg_gpu_tester::~exg_gpu_tester()
{
	exg_gpu_events_give(refine_ev, 2);
}

void
exg_gpu_tester::test(const uint64_t *keys, uint64_t n)
{
	bool		refine = !double_only && !boxes_only;
	exg_dbuf<uint64_t> unknown2;
	uint64_t	t0 = exg_now_ns();
	float		refine_ms = 0;

	/*
	 * Both filters queued at once, their counts left on the device (the
	 * double intervals find there how many keys the float filter left),
	 * then one round trip; if the hits overflowed their buffer, it is
	 * grown and the wave tested again.
	 */
	for (;;)
	{
		counts_h->hits = nhits;
		counts_h->unknown = 0;
		counts_h->unknown2 = 0;
		EXG_CUDA(cudaMemcpyAsync(counts_d.p, counts_h, sizeof(exg_gpu_counts),
								 cudaMemcpyHostToDevice, s));
		exg_gpu_test(a, b, keys, n, shift, double_only, hits.p, hits.n, &counts_d.p->hits,
					 unknown.p, &counts_d.p->unknown, s, boxes_only);
		if (refine)
		{
			/* after the float filter's scratch went back to the pool, in stream order */
			if (unknown2.p == nullptr)
				unknown2.alloc(n);
			EXG_CUDA(cudaEventRecord(refine_ev[0], s));
			exg_gpu_test(a, b, unknown.p, n, shift, true, hits.p, hits.n, &counts_d.p->hits,
						 unknown2.p, &counts_d.p->unknown2, s, false, &counts_d.p->unknown);
			EXG_CUDA(cudaEventRecord(refine_ev[1], s));
		}
		EXG_CUDA(cudaMemcpyAsync(counts_h, counts_d.p, sizeof(exg_gpu_counts),
								 cudaMemcpyDeviceToHost, s));
		EXG_CUDA(cudaStreamSynchronize(s));
		exg_trace_mark("test: wave's filters");
		if (counts_h->hits <= hits.n)
			break;
		grow_keeping(hits, counts_h->hits + counts_h->hits / 2, nhits, s);
	}
	if (refine && cudaEventElapsedTime(&refine_ms, refine_ev[0], refine_ev[1]) != cudaSuccess)
	{
		(void) cudaGetLastError();
		refine_ms = 0;
	}
	nhits = counts_h->hits;
	unknown_first += counts_h->unknown;
	if (refine)
		unknown_second += counts_h->unknown2;

	/* what the intervals left undecided, for GMP */
	uint64_t	nleft = refine ? counts_h->unknown2 : counts_h->unknown;
	uint64_t	t1 = exg_now_ns();

	if (nleft > 0)
	{
		size_t		old = undecided.size();

		undecided.resize(old + nleft);
		EXG_CUDA(cudaMemcpyAsync(undecided.data() + old, refine ? unknown2.p : unknown.p,
								 sizeof(uint64_t) * nleft, cudaMemcpyDeviceToHost, s));
		EXG_CUDA(cudaStreamSynchronize(s));
	}
	{
		/* the double filter and the download of what it left; without one, all is the test */
		uint64_t	refine_ns_now = refine ? (uint64_t) (refine_ms * 1e6) + (exg_now_ns() - t1) : 0;
		uint64_t	wall = exg_now_ns() - t0;

		refine_ns += refine_ns_now < wall ? refine_ns_now : wall;
		test_ns += wall - (refine_ns_now < wall ? refine_ns_now : wall);
	}
}
