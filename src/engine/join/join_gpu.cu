/*
 * join_gpu.cu — the GPU join, end to end: upload through pinned staging,
 * prepare and grid both sides, cull in two passes, test candidates in waves
 * that fit the memory budget, re-test the float filter's unknowns with
 * double intervals, sort the hits on the device, download, and hand what is
 * still undecided to the CPU's GMP worker pool.
 *
 * If the device runs out of memory the left input is split in halves and
 * each half joined separately (the halves' results are disjoint and, being
 * ranges of left ids, concatenate in order).
 */
#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_select.cuh>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <algorithm>
#include <vector>

extern "C" {
#include "cancel.h"
#include "gpu.h"
#include "host_copy.h"
#include "join_internal.h"
#include "stats.h"
}
#include "join_gpu.cuh"

#define EXG_LEND_MAX ((size_t) 1 << 30)
#define EXG_WAVE_MAX ((uint64_t) 1 << 28)	/* candidates per wave: ~50 ms of tests */

/* Pairs of one (sub-)join: in the lent pinned buffer, or malloc'ed. */
struct join_result
{
	exg_pair   *p = nullptr;
	size_t		n = 0;
	bool		lent = false;

	void		release()
	{
		if (p && !(lent && exg_pinned_return(p)))
			free(p);
		p = nullptr;
		n = 0;
	}
};

static int
bits_for(uint32_t n)
{
	int			b = 1;

	while (b < 32 && ((uint64_t) 1 << b) < n)
		b++;
	return b;
}

/* The least and the greatest of n indices, into span[0] and span[1] (set to UINT32_MAX, 0). */
__global__ static void
k_index_span(const uint32_t *idx, size_t n, uint32_t *span)
{
	uint32_t	lo = UINT32_MAX,
				hi = 0;

	for (size_t i = (size_t) blockIdx.x * blockDim.x + threadIdx.x; i < n;
		 i += (size_t) gridDim.x * blockDim.x)
	{
		lo = min(lo, idx[i]);
		hi = max(hi, idx[i]);
	}
	for (int off = 16; off > 0; off /= 2)
	{
		lo = min(lo, __shfl_down_sync(0xffffffffu, lo, off));
		hi = max(hi, __shfl_down_sync(0xffffffffu, hi, off));
	}
	if ((threadIdx.x & 31) == 0)
	{
		atomicMin(&span[0], lo);
		atomicMax(&span[1], hi);
	}
}

void
exg_gpu_upload_side(exg_gpu_side &d, const exg_prim_set *S, cudaStream_t s)
{
	size_t		nidx = (size_t) S->arity * S->nprims;
	uint32_t	span[2] = {0, S->nverts ? S->nverts - 1 : 0};
	bool		none = S->nverts == 0 || (S->slice && nidx == 0);	/* a range of no
																	 * primitive reads no vertex */

	d.nprims = S->nprims;
	d.arity = S->arity;
	d.host_xyz = S->xyz;
	d.host_vidx = S->vidx;
	/* kept memory (the resident store's bodies) from its device copy, the rest uploaded */
	exg_gpu_upload_array(d.vidx, S->vidx, nidx, s);
	if (!none && S->slice && !exg_gpu_kept_covers(S->xyz, sizeof(double) * 3 * S->nverts))
	{
		/*
		 * A range of rows: the vertices its indices name, found here (a
		 * pass over them on the host took 0.3-0.4 ms of a 4 ms range),
		 * are all that is copied and prepared
		 */
		exg_dbuf<uint32_t> span_d;
		const uint32_t init[2] = {UINT32_MAX, 0};
		unsigned	blocks = (unsigned) std::min<size_t>((nidx + 255) / 256, 1024);

		/* of the upload's stream, which may not be the context's */
		span_d.alloc(2, s);
		/* pageable: both copies done when the calls return */
		EXG_CUDA(cudaMemcpyAsync(span_d.p, init, sizeof(init), cudaMemcpyHostToDevice, s));
		k_index_span<<<blocks, 256, 0, s>>>(d.vidx.p, nidx, span_d.p);
		EXG_CUDA(cudaGetLastError());
		EXG_CUDA(cudaMemcpyAsync(span, span_d.p, sizeof(span), cudaMemcpyDeviceToHost, s));
		EXG_CUDA(cudaStreamSynchronize(s));
	}
	d.vfirst = none ? 0 : span[0];
	d.nverts = none ? 0 : span[1] + 1;
	exg_gpu_upload_array(d.xyz, S->xyz, (size_t) 3 * d.nverts, s, (size_t) 3 * d.vfirst);
}

__global__ static void
k_keys_to_pairs(uint64_t *keys, uint64_t n, int shift)
{
	uint64_t	i = (uint64_t) blockIdx.x * blockDim.x + threadIdx.x;

	if (i < n)
	{
		uint64_t	k = keys[i];
		exg_pair	p = {(uint32_t) (k >> shift), (uint32_t) (k & ((1ull << shift) - 1))};

		reinterpret_cast<exg_pair *>(keys)[i] = p;
	}
}

/*
 * A side's rows on the device (exg_join_options.row_pairs): its owners
 * (kept with the resident bodies, copied with a side copied anyway) and
 * the slice of its order that they name.
 */
struct row_side
{
	exg_dbuf<uint32_t> owner,
				order;
	uint32_t	first = 0;		/* order's index 0: the side's first row */
	int			bits = 1;		/* the bits of its greatest place */
};

struct row_ref
{
	const uint32_t *owner,
			   *order;
	uint32_t	first;
};

/* Places of the order read on the host for their greatest; beyond, 32 bits. */
#define ROW_ORDER_SCAN_MAX ((size_t) 1 << 16)

/* Are S's rows mapped on the device at no copy that would cost more than the mapping saves? */
static bool
rows_pay_on_device(const exg_prim_set *S)
{
	/* a kept side's 4 bytes a primitive copied each join would cost more than they save */
	return !exg_gpu_kept_covers(S->xyz, sizeof(double) * 3 * S->nverts) ||
		exg_gpu_kept_covers(S->owner, sizeof(uint32_t) * S->nprims);
}

static void
upload_rows(row_side &r, const exg_prim_set *S, cudaStream_t s)
{
	if (S->nprims == 0)
		return;
	uint32_t	first = S->owner[0],
				last = S->owner[S->nprims - 1];	/* owners never decrease */
	uint64_t	greatest = last;

	exg_gpu_upload_array(r.owner, S->owner, S->nprims, s);
	if (S->order)
	{
		size_t		n = (size_t) last - first + 1;

		exg_gpu_upload_array(r.order, S->order + first, n, s);
		greatest = UINT32_MAX;
		if (n <= ROW_ORDER_SCAN_MAX)
		{
			greatest = 0;
			for (size_t i = 0; i < n; i++)
				greatest = std::max<uint64_t>(greatest, S->order[first + i]);
		}
	}
	r.first = first;
	while (r.bits < 32 && ((uint64_t) 1 << r.bits) <= greatest)
		r.bits++;
}

/* Primitive keys (a << shift | b) into place keys (row a << row_shift | row b). */
__global__ static void
k_keys_to_rows(uint64_t *keys, uint64_t n, int shift, row_ref a, row_ref b, int row_shift)
{
	uint64_t	i = (uint64_t) blockIdx.x * blockDim.x + threadIdx.x;

	if (i < n)
	{
		uint64_t	k = keys[i];
		uint32_t	ra = a.owner[(uint32_t) (k >> shift)],
					rb = b.owner[(uint32_t) (k & ((1ull << shift) - 1))];

		if (a.order)
			ra = a.order[ra - a.first];
		if (b.order)
			rb = b.order[rb - b.first];
		keys[i] = ((uint64_t) ra << row_shift) | rb;
	}
}

struct phase_clock
{
	cudaEvent_t ev[EXG_JOIN_PHASES + 1];
	bool		recorded[EXG_JOIN_PHASES + 1] = {};

	phase_clock() { exg_gpu_events_take(ev, EXG_JOIN_PHASES + 1); }
	~phase_clock() { exg_gpu_events_give(ev, EXG_JOIN_PHASES + 1); }
	/* mark the end of a phase (index + 1) or the start (index 0) */
	void		mark(int slot, cudaStream_t s)
	{
		EXG_CUDA(cudaEventRecord(ev[slot], s));
		recorded[slot] = true;
	}
};

/* Sort (and with the sort rule, unique) n keys in place on the device. */
static uint64_t
sort_keys(exg_dbuf<uint64_t> &keys, uint64_t n, int end_bit, bool unique, cudaStream_t s)
{
	if (n == 0)
		return 0;
	exg_dbuf<uint64_t> alt(n);
	exg_dbuf<uint8_t> tmp;
	size_t		tmp_bytes = 0;
	cub::DoubleBuffer<uint64_t> db(keys.p, alt.p);

	EXG_CUDA(cub::DeviceRadixSort::SortKeys(nullptr, tmp_bytes, db, (int64_t) n, 0, end_bit, s));
	tmp.alloc(tmp_bytes);
	EXG_CUDA(cub::DeviceRadixSort::SortKeys(tmp.p, tmp_bytes, db, (int64_t) n, 0, end_bit, s));
	if (db.Current() != keys.p)
		EXG_CUDA(cudaMemcpyAsync(keys.p, db.Current(), sizeof(uint64_t) * n,
								 cudaMemcpyDeviceToDevice, s));
	if (!unique)
		return n;

	exg_dbuf<unsigned long long> nsel(1);
	unsigned long long m = 0;

	tmp_bytes = 0;
	EXG_CUDA(cub::DeviceSelect::Unique(nullptr, tmp_bytes, keys.p, alt.p, nsel.p, (int64_t) n, s));
	tmp.alloc(tmp_bytes);
	EXG_CUDA(cub::DeviceSelect::Unique(tmp.p, tmp_bytes, keys.p, alt.p, nsel.p, (int64_t) n, s));
	EXG_CUDA(cudaMemcpyAsync(&m, nsel.p, sizeof(m), cudaMemcpyDeviceToHost, s));
	EXG_CUDA(cudaStreamSynchronize(s));
	EXG_CUDA(cudaMemcpyAsync(keys.p, alt.p, sizeof(uint64_t) * m, cudaMemcpyDeviceToDevice, s));
	return m;
}

/* Move the tester's results out and its counts and times into st. */
static void
finish_tests(exg_gpu_tester &t, exg_dbuf<uint64_t> &hits, uint64_t &nhits,
			 std::vector<uint64_t> &undecided, exg_join_stats *st)
{
	std::swap(hits.p, t.hits.p);
	std::swap(hits.n, t.hits.n);
	nhits = t.nhits;
	undecided.swap(t.undecided);
	st->unknown_first += t.unknown_first;
	st->unknown_second += t.unknown_second;
	st->phase_ns[EXG_PHASE_TEST] += t.test_ns;
	st->phase_ns[EXG_PHASE_REFINE] += t.refine_ns;
}

/*
 * One join of A against B entirely on the device; throws on failure. keep:
 * the side prepared first may be kept prepared with its kept input (not for
 * the halves of a join that ran out of memory).
 */
static void
run_join(const exg_prim_set *A, const exg_prim_set *B, const exg_join_options *opt, bool keep,
		 join_result &res, exg_join_stats *st)
{
	exg_trace_mark("join: run");
	exg_gpu_context *ctx = exg_gpu_context_get();
	cudaStream_t s = ctx->stream;
	bool		by_ref = opt->dedupe == EXG_DEDUPE_REFERENCE_CELL;
	int			shift = bits_for(B->nprims);
	int			end_bit = shift + bits_for(A->nprims);
	phase_clock clk;
	exg_gpu_side a,
				b;
	/*
	 * Row pairs mapped on the device (with the reference-cell rule, whose
	 * hits are each once): what is downloaded is sorted rows, where the
	 * host took 0.2-0.4 ms a range of the doubled mine to map and sort
	 * them, and up to 3 ms when its threads were slow to wake
	 */
	bool		rows_dev = opt->row_pairs && by_ref && rows_pay_on_device(A) && rows_pay_on_device(B);
	row_side	ra,
				rb;

	snprintf(st->device_name, sizeof(st->device_name), "%s", ctx->name);

	/*
	 * ---- upload and classify: the side with more vertices first (the
	 * resident bodies: kept, nothing to copy), its box the origin, its
	 * vertex records and primitives queued; then the other side copied on
	 * the copy stream (staged by this thread where pageable) while the
	 * device makes them, then its own, and the joint box ----
	 */
	bool		a_kept = exg_gpu_kept_covers(A->xyz, sizeof(double) * 3 * A->nverts),
				b_kept = exg_gpu_kept_covers(B->xyz, sizeof(double) * 3 * B->nverts);
	/* a side kept on the device first (its prepared blocks are kept with it) */
	bool		b_first = a_kept != b_kept ? b_kept : B->nverts >= A->nverts;
	exg_gpu_side &first = b_first ? b : a,
			   &second = b_first ? a : b;
	cudaStream_t cs = ctx->copy_stream;
	phase_clock up;

	/* the copy stream's work done before any buffer of the sides is freed (a throw included) */
	struct copies_fence
	{
		cudaStream_t cs;

		~copies_fence() { (void) cudaStreamSynchronize(cs); }
	}			fence = {cs};
	exg_dbuf<double> misc(9);
	double	   *host_misc = (double *) exg_pinned_get(EXG_PINNED_DOWNLOAD, 4096);
	double		origin[3];

	clk.mark(0, s);
	up.mark(0, s);
	exg_trace_sync(s, "join: start");
	exg_gpu_upload_side(first, b_first ? B : A, s);
	up.mark(1, s);
	exg_trace_sync(s, "join: first side up");
	exg_gpu_prepare_first(first, keep, misc.p, host_misc, origin, s);
	exg_trace_sync(s, "join: first side prepared");
	EXG_CUDA(cudaStreamWaitEvent(cs, up.ev[1]));
	up.mark(3, cs);
	exg_gpu_upload_side(second, b_first ? A : B, cs);
	if (rows_dev)
	{
		upload_rows(ra, A, cs);
		upload_rows(rb, B, cs);
	}
	second.may_keep = keep;		/* its exact boxes and box grid, where kept (not its records:
								 * they depend on the first side's origin) */
	up.mark(2, cs);
	exg_trace_sync(cs, "join: second side up");
	EXG_CUDA(cudaStreamWaitEvent(s, up.ev[2]));
	exg_gpu_vertex_box(second, misc.p, false, s);
	exg_trace_sync(s, "join: second side's box");
	exg_gpu_prepare_side(second, origin, misc.p + 6, s);
	EXG_CUDA(cudaMemcpyAsync(host_misc, misc.p, 9 * sizeof(double), cudaMemcpyDeviceToHost, s));
	clk.mark(1 + EXG_PHASE_CLASSIFY, s);
	EXG_CUDA(cudaStreamSynchronize(s));
	exg_trace_mark("join: second side prepared");
	{
		/* the upload: the first side's, then the second's (beside the first's classification) */
		float		ms1 = 0,
					ms2 = 0;

		if (cudaEventElapsedTime(&ms1, up.ev[0], up.ev[1]) == cudaSuccess &&
			cudaEventElapsedTime(&ms2, up.ev[3], up.ev[2]) == cudaSuccess)
			st->phase_ns[EXG_PHASE_UPLOAD] += (uint64_t) ((ms1 + ms2) * 1e6);
	}

	exg_dbuf<uint64_t> hits;
	uint64_t	nhits = 0;
	std::vector<uint64_t> unknown_host;

	/* ---- candidates: the box join, or every pair sharing a cell ---- */
	size_t		budget = exg_gpu_budget(opt->gpu_memory_limit);
	uint64_t	total = 0;

	exg_trace_mark("join: budget");
	exg_gpu_counts *counts_h = (exg_gpu_counts *) (host_misc + 16);

	if (exg_join_culls_by_box_join(opt, true, (uint64_t) A->nprims + B->nprims))
	{
		/*
		 * Half the memory for the box join, half for the waves and the hits
		 * (which grow when needed). A chunk of pairs is tested in waves of at
		 * most 2^24 keys: large enough to fill the device, and small enough
		 * that the buffers never force a split of the input.
		 */
		uint64_t	hits_cap = std::max<uint64_t>(1024, std::min<uint64_t>(budget / 64, (uint64_t) 1 << 24));
		uint64_t	wave_cap = budget / 2 > 8 * hits_cap ? (budget / 2 - 8 * hits_cap) / 24 : 0;

		wave_cap = std::min<uint64_t>(std::max<uint64_t>(wave_cap, 4 * EXG_CULL_THREADS), (uint64_t) 1 << 24);
		clk.mark(1 + EXG_PHASE_GRID, s);
		clk.mark(1 + EXG_PHASE_CULL, s);

		exg_gpu_tester tester(a, b, shift, opt, hits_cap, wave_cap, counts_h, s);
		uint64_t	candidates0 = st->candidates;	/* st adds up the halves of a split */

		exg_trace_mark("join: tester made");

		exg_gpu_box_stage(a, b, host_misc[2] == host_misc[5], opt, budget / 2, tester, st);
		total = st->candidates - candidates0;
		finish_tests(tester, hits, nhits, unknown_host, st);
		exg_trace_sync(s, "join: box stage done");
	}
	else
	{
		double		gbox[6],
					mean[3];

		/* ---- grid over the translated box ---- */
		for (int k = 0; k < 3; k++)
		{
			gbox[k] = host_misc[k] - origin[k];
			gbox[3 + k] = host_misc[3 + k] - origin[k];
			mean[k] = host_misc[6 + k] / (double) ((uint64_t) A->nprims + B->nprims);
		}
		exg_grid	g;

		exg_grid_choose(&g, gbox, (uint64_t) A->nprims + B->nprims, mean, opt->grid_cells);
		{
			/*
			 * A quarter of the budget for the grids: per cell two starts,
			 * the count scratch and the block arrays; per entry the item
			 * and its share of the block arrays. The rest is for the waves.
			 */
			const exg_gpu_side *sides[2] = {&a, &b};
			double		extent[3] = {gbox[3] - gbox[0], gbox[4] - gbox[1], gbox[5] - gbox[2]};

			exg_gpu_grid_fit(sides, 2, g, extent, 24, 12, budget / 4, s);
		}
		uint32_t	ncells = (uint32_t) ((uint64_t) g.dims[0] * g.dims[1] * g.dims[2]);

		memcpy(st->grid_dims, g.dims, sizeof(g.dims));
		exg_gpu_grid_side(a, g, ncells, s);
		exg_gpu_grid_side(b, g, ncells, s);
		st->grid_entries += a.nentries + b.nentries;
		clk.mark(1 + EXG_PHASE_GRID, s);
		exg_gpu_check_cancel();

		/* ---- cull: block arrays, count pass, scan ---- */
		exg_gpu_blocks blocks;

		exg_gpu_block_arrays(a, b, ncells, blocks, s);
		st->cell_pairs += blocks.cell_pairs;
		exg_gpu_cull_count(a, b, g, by_ref, blocks, s);
		EXG_CUDA(cudaMemcpyAsync(&total, blocks.offset.p + blocks.nblocks, sizeof(total),
								 cudaMemcpyDeviceToHost, s));
		EXG_CUDA(cudaStreamSynchronize(s));
		st->candidates += total;
		exg_gpu_check_cancel();

		/* ---- waves of candidates that fit the budget ---- */
		uint64_t	hits_cap = total < budget / 32 ? total : budget / 32;
		uint64_t	wave_cap = (budget - 8 * hits_cap) / 16;

		if (hits_cap < 1024)
			hits_cap = 1024;
		if (wave_cap < 4 * EXG_CULL_THREADS)
			wave_cap = 4 * EXG_CULL_THREADS;
		/* Waves also bound how long the device runs between two cancel checks. */
		if (wave_cap > EXG_WAVE_MAX)
			wave_cap = EXG_WAVE_MAX;
		if (wave_cap > total)
			wave_cap = total ? total : 1;

		exg_gpu_tester tester(a, b, shift, opt, hits_cap, wave_cap, counts_h, s);
		exg_dbuf<uint64_t> cands(wave_cap);
		std::vector<uint64_t> offsets;

		if (total > wave_cap)
		{
			offsets.resize(blocks.nblocks + 1);
			EXG_CUDA(cudaMemcpyAsync(offsets.data(), blocks.offset.p, sizeof(uint64_t) * offsets.size(),
									 cudaMemcpyDeviceToHost, s));
			EXG_CUDA(cudaStreamSynchronize(s));
		}
		clk.mark(1 + EXG_PHASE_CULL, s);

		uint64_t	cull_ns = 0;

		for (uint64_t b0 = 0; b0 < blocks.nblocks;)
		{
			uint64_t	b1 = blocks.nblocks,
						base = 0,
						n = total;
			uint64_t	t0 = exg_now_ns();

			if (!offsets.empty())
			{
				/* the most blocks whose candidates fit one wave (at least one block) */
				uint64_t	lo = b0 + 1,
							hi = blocks.nblocks;

				base = offsets[b0];
				while (lo < hi)
				{
					uint64_t	mid = lo + (hi - lo + 1) / 2;

					if (offsets[mid] - base <= wave_cap)
						lo = mid;
					else
						hi = mid - 1;
				}
				b1 = lo;
				n = offsets[b1] - base;
			}
			st->waves++;
			exg_gpu_cull_write(a, b, g, by_ref, blocks, b0, b1, shift, cands.p, s);
			EXG_CUDA(cudaStreamSynchronize(s));
			cull_ns += exg_now_ns() - t0;
			tester.test(cands.p, n);
			b0 = b1;
			exg_gpu_check_cancel();
		}
		st->phase_ns[EXG_PHASE_CULL] += cull_ns;
		finish_tests(tester, hits, nhits, unknown_host, st);
	}
	clk.mark(1 + EXG_PHASE_REFINE, s);

	/* ---- order (and with the sort rule, dedupe) the hits on the device ---- */
	int			key_shift = shift;

	if (rows_dev && nhits)
	{
		k_keys_to_rows<<<(unsigned) ((nhits + 255) / 256), 256, 0, s>>>(
			hits.p, nhits, shift, row_ref{ra.owner.p, ra.order.p, ra.first},
			row_ref{rb.owner.p, rb.order.p, rb.first}, rb.bits);
		key_shift = rb.bits;
		end_bit = ra.bits + rb.bits;
	}
	/* rows_dev: the primitive pairs, each once; their rows made each once on the host */
	uint64_t	prim_hits = nhits = sort_keys(hits, nhits, end_bit, !by_ref, s);

	if (nhits)
		k_keys_to_pairs<<<(unsigned) ((nhits + 255) / 256), 256, 0, s>>>(hits.p, nhits, key_shift);
	EXG_CUDA(cudaGetLastError());
	clk.mark(1 + EXG_PHASE_DEDUPE, s);
	exg_trace_sync(s, "join: hits sorted");

	/* ---- GMP on the CPU for what the intervals left, while the device sorts ---- */
	uint64_t	t0 = exg_now_ns();
	std::vector<exg_pair> extra;

	if (!unknown_host.empty())
	{
		std::vector<exg_pair> cand(unknown_host.size());
		size_t		nextra = 0;
		exg_error	e = {};

		for (size_t i = 0; i < unknown_host.size(); i++)
			cand[i] = {(uint32_t) (unknown_host[i] >> shift),
				(uint32_t) (unknown_host[i] & ((1ull << shift) - 1))};
		size_t		ncand = exg_pairs_sort_unique(cand.data(), cand.size());

		uint64_t	exact = 0;

		extra.resize(ncand);
		if (exg_join_exact_batch(A, B, cand.data(), ncand, opt->worker_threads, extra.data(),
								 &nextra, &exact, &e) != EXG_OK)
		{
			if (e.status == EXG_ERR_INTERRUPTED)
				throw		exg_gpu_canceled();
			exg_gpu_error ge;

			ge.status = e.status;
			memcpy(ge.message, e.message, sizeof(ge.message));
			throw		ge;
		}
		extra.resize(nextra);
		/* the pairs GMP decided, as on the CPU: the CPU's own filters
		 * settle some of those the device left open */
		st->exact_pairs += exact;
	}
	if (opt->row_pairs)
	{
		/* primitive pairs counted, as without rows */
		st->hits += prim_hits + extra.size();
		if (rows_dev)
			extra.resize(exg_pairs_to_rows(A, B, extra.data(), extra.size(), opt->worker_threads));
	}
	st->phase_ns[EXG_PHASE_EXACT] += exg_now_ns() - t0;
	exg_trace_mark("join: exact done");

	/* ---- download into the buffer the caller gets ---- */
	size_t		nout = nhits + extra.size();

	/*
	 * Results come back into the lent pinned buffer, but pinning more than
	 * EXG_LEND_MAX bytes costs more than the slower pageable copy saves.
	 */
	res.p = sizeof(exg_pair) * nout <= EXG_LEND_MAX
		? (exg_pair *) exg_pinned_lend(sizeof(exg_pair) * (nout + 1)) : nullptr;
	res.lent = res.p != nullptr;
	if (!res.lent)
		res.p = (exg_pair *) malloc(sizeof(exg_pair) * (nout + 1));
	if (res.p == nullptr)
		throw		std::bad_alloc();
	res.n = nout;
	EXG_CUDA(cudaMemcpyAsync(res.p, hits.p, sizeof(exg_pair) * nhits, cudaMemcpyDeviceToHost, s));
	clk.mark(1 + EXG_PHASE_DOWNLOAD, s);
	EXG_CUDA(cudaStreamSynchronize(s));
	exg_trace_mark("join: downloaded");

	/* merge the GMP hits in, from the back, in place */
	t0 = exg_now_ns();
	if (!extra.empty())
	{
		size_t		i = nhits,
					j = extra.size(),
					m = nout;

		while (j > 0)
		{
			bool		take_extra = i == 0 ||
				extra[j - 1].a > res.p[i - 1].a ||
				(extra[j - 1].a == res.p[i - 1].a && extra[j - 1].b > res.p[i - 1].b);

			res.p[--m] = take_extra ? extra[--j] : res.p[--i];
		}
	}
	/* rows of primitive pairs: sorted already, made each once (rows_dev), else made here */
	if (rows_dev)
		res.n = exg_pairs_sort_unique(res.p, res.n);
	else if (opt->row_pairs)
		res.n = exg_pairs_to_rows(A, B, res.p, res.n, opt->worker_threads);
	st->phase_ns[EXG_PHASE_MERGE] += exg_now_ns() - t0;

	/* device-side phase times from the events */
	/*
	 * classify: from the start, the uploads included (the first side's,
	 * none when kept; the second side's runs beside the first side's
	 * classification, so that it is in both phases)
	 */
	static const int timed[] = {EXG_PHASE_CLASSIFY, EXG_PHASE_GRID,
	EXG_PHASE_DEDUPE, EXG_PHASE_DOWNLOAD};
	int			prev_slot[] = {0, 1 + EXG_PHASE_CLASSIFY,
		1 + EXG_PHASE_REFINE, 1 + EXG_PHASE_DEDUPE};

	for (int t = 0; t < 4; t++)
	{
		float		ms = 0;

		if (cudaEventElapsedTime(&ms, clk.ev[prev_slot[t]], clk.ev[1 + timed[t]]) == cudaSuccess)
			st->phase_ns[timed[t]] += (uint64_t) (ms * 1e6);
	}
	{
		float		ms = 0;

		if (cudaEventElapsedTime(&ms, clk.ev[1 + EXG_PHASE_GRID], clk.ev[1 + EXG_PHASE_CULL]) == cudaSuccess)
			st->phase_ns[EXG_PHASE_CULL] += (uint64_t) (ms * 1e6);
	}
	exg_counters *c = exg_counters_local();

	c->gpu_pair_tests += total;
	c->gpu_unknown += st->unknown_first;
	exg_trace_mark("join: end");
}

static void
join_or_split(const exg_prim_set *A, const exg_prim_set *B, const exg_join_options *opt,
			  join_result &res, exg_join_stats *st, int depth)
{
	exg_join_stats before = *st;

	try
	{
		run_join(A, B, opt, depth == 0, res, st);
		return;
	}
	catch (exg_gpu_oom &)
	{
		/* forget the failed attempt's counts; the halves will count again */
		uint32_t	splits = st->splits;

		*st = before;
		st->splits = splits;
		res.release();
	}
	exg_gpu_room_check();
	/*
	 * Halve the larger input and join each half with the other input; ids of
	 * the second half are shifted back. Halves of A give disjoint runs of
	 * (a, b) order that concatenate; halves of B give two sorted runs to merge.
	 */
	bool		split_a = A->nprims >= B->nprims;
	const exg_prim_set *S = split_a ? A : B;

	if (S->nprims < 2 || depth > 24)
	{
		exg_gpu_error e = {EXG_ERR_DEVICE_MEMORY, "the join does not fit in GPU memory even split"};

		throw		e;
	}
	exg_prim_set half = *S;
	uint32_t	first = S->nprims / 2;
	join_result r1,
				r2;

	st->splits++;
	half.nprims = first;
	join_or_split(split_a ? &half : A, split_a ? B : &half, opt, r1, st, depth + 1);
	half.vidx = S->vidx + (size_t) first * S->arity;
	if (opt->row_pairs)
		half.owner += first;
	half.nprims = S->nprims - first;
	try
	{
		join_or_split(split_a ? &half : A, split_a ? B : &half, opt, r2, st, depth + 1);
	}
	catch (...)
	{
		r1.release();
		throw;
	}
	res.p = (exg_pair *) malloc(sizeof(exg_pair) * (r1.n + r2.n + 1));
	if (res.p == nullptr)
	{
		r1.release();
		r2.release();
		throw		std::bad_alloc();
	}
	res.n = r1.n + r2.n;
	res.lent = false;
	for (size_t i = 0; i < r2.n && !opt->row_pairs; i++)
	{
		if (split_a)
			r2.p[i].a += first;
		else
			r2.p[i].b += first;
	}
	{
		size_t		i = 0,
					j = 0,
					m = 0;

		while (i < r1.n || j < r2.n)
		{
			bool		take2 = i == r1.n ||
				(j < r2.n && (r2.p[j].a < r1.p[i].a ||
							  (r2.p[j].a == r1.p[i].a && r2.p[j].b < r1.p[i].b)));

			res.p[m++] = take2 ? r2.p[j++] : r1.p[i++];
		}
	}
	/* row pairs: a row whose primitives both halves hold is in each (sorted already) */
	if (opt->row_pairs)
		res.n = exg_pairs_sort_unique(res.p, res.n);
	r1.release();
	r2.release();
}

extern "C" exg_status
exg_gpu_join(const exg_prim_set *A, const exg_prim_set *B, const exg_join_options *opt,
			 exg_pair **pairs_out, size_t *npairs_out, exg_join_stats *stats, exg_error *err)
{
	join_result res;
	exg_status	st = exg_gpu_guard(err, "in the GPU join", [&] {
		exg_trace_mark("join: guarded");
		exg_gpu_room_check();
		exg_trace_mark("join: room checked");
		join_or_split(A, B, opt, res, stats, 0);
		return EXG_OK;
	});
	exg_gpu_stream_idle();

	if (st != EXG_OK)
	{
		res.release();
		return st;
	}
	stats->used_gpu = true;
	*pairs_out = res.p;
	*npairs_out = res.n;
	return EXG_OK;
}

/*
 * exg_test_pairs on the GPU: prepare both sides as for a join, then run the
 * float test, the double re-test and GMP on the given pairs only.
 */
extern "C" exg_status
exg_gpu_test_pairs(const exg_prim_set *A, const exg_prim_set *B, const exg_pair *pairs,
				   size_t n, const exg_join_options *opt, uint8_t *result,
				   exg_join_stats *st, exg_error *err)
{
	return exg_gpu_guard(err, "in the GPU pair test", [&] {
		exg_gpu_context *ctx = exg_gpu_context_get();
		cudaStream_t s = ctx->stream;
		int			shift = bits_for(B->nprims);
		exg_gpu_side a,
					b;
		exg_dbuf<double> misc(9);
		double		host_misc[9],
					origin[3];
		std::vector<uint64_t> keys(n);

		snprintf(st->device_name, sizeof(st->device_name), "%s", ctx->name);
		exg_gpu_upload_side(a, A, s);
		exg_gpu_upload_side(b, B, s);
		exg_gpu_vertex_box(a, b, misc.p, s);
		EXG_CUDA(cudaMemsetAsync(misc.p + 6, 0, 3 * sizeof(double), s));
		EXG_CUDA(cudaMemcpyAsync(host_misc, misc.p, 6 * sizeof(double), cudaMemcpyDeviceToHost, s));
		EXG_CUDA(cudaStreamSynchronize(s));
		for (int k = 0; k < 3; k++)
			origin[k] = host_misc[k] + (host_misc[3 + k] - host_misc[k]) / 2;
		exg_gpu_prepare_side(a, origin, misc.p + 6, s);
		exg_gpu_prepare_side(b, origin, misc.p + 6, s);

		for (size_t i = 0; i < n; i++)
			keys[i] = ((uint64_t) pairs[i].a << shift) | pairs[i].b;
		exg_dbuf<uint64_t> keys_d(n),
					hits(n),
					unknown(n),
					unknown2(n);
		exg_dbuf<exg_gpu_counts> counts_d(1);
		exg_gpu_counts counts = {0, 0, 0};

		exg_gpu_upload_pageable(keys_d.p, keys.data(), 8 * n, s);
		EXG_CUDA(cudaMemcpyAsync(counts_d.p, &counts, sizeof(counts), cudaMemcpyHostToDevice, s));
		bool		double_only = opt->filter == EXG_FILTER_DOUBLE;

		/* both filters queued, the second on the first's unknowns as counted on the device */
		exg_gpu_test(a, b, keys_d.p, n, shift, double_only, hits.p, n, &counts_d.p->hits,
					 unknown.p, &counts_d.p->unknown, s);
		if (!double_only)
			exg_gpu_test(a, b, unknown.p, n, shift, true, hits.p, n, &counts_d.p->hits,
						 unknown2.p, &counts_d.p->unknown2, s, false, &counts_d.p->unknown);
		EXG_CUDA(cudaMemcpyAsync(&counts, counts_d.p, sizeof(counts), cudaMemcpyDeviceToHost, s));
		EXG_CUDA(cudaStreamSynchronize(s));
		uint64_t	nhits = counts.hits,
					nunk = double_only ? counts.unknown : counts.unknown2;
		const uint64_t *left = double_only ? unknown.p : unknown2.p;

		st->unknown_first = counts.unknown;
		if (!double_only)
			st->unknown_second = counts.unknown2;
		std::vector<uint64_t> hit_keys(nhits),
					left_keys(nunk);

		EXG_CUDA(cudaMemcpyAsync(hit_keys.data(), hits.p, 8 * nhits, cudaMemcpyDeviceToHost, s));
		EXG_CUDA(cudaMemcpyAsync(left_keys.data(), left, 8 * nunk, cudaMemcpyDeviceToHost, s));
		EXG_CUDA(cudaStreamSynchronize(s));

		/* GMP for the rest, then answer each pair by looking its key up */
		std::vector<exg_pair> cand(nunk),
					extra(nunk);
		size_t		nextra = 0;

		for (size_t i = 0; i < nunk; i++)
			cand[i] = {(uint32_t) (left_keys[i] >> shift), (uint32_t) (left_keys[i] & ((1ull << shift) - 1))};
		uint64_t	exact = 0;
		exg_status	rc = exg_join_exact_batch(A, B, cand.data(), nunk, opt->worker_threads,
											  extra.data(), &nextra, &exact, err);

		if (rc != EXG_OK)
			return rc;
		st->exact_pairs = exact;
		for (size_t i = 0; i < nextra; i++)
			hit_keys.push_back(((uint64_t) extra[i].a << shift) | extra[i].b);
		std::sort(hit_keys.begin(), hit_keys.end());
		for (size_t i = 0; i < n; i++)
			result[i] = std::binary_search(hit_keys.begin(), hit_keys.end(), keys[i]);
		st->candidates = n;
		st->used_gpu = true;
		exg_counters_local()->gpu_pair_tests += n;
		return EXG_OK;
	});
}
