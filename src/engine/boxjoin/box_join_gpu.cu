/*
 * box_join_gpu.cu — the GPU box join end to end: upload (through pinned
 * staging when the input is pageable), summary and validation, grid and
 * work items, then the pair kernel in chunks of work items whose output
 * fits a device buffer, with two of them: while the GPU computes chunk
 * k + 1 into one, chunk k's pairs come back from the other through two
 * pinned host buffers, and the sink consumes one piece while the next is
 * copied (Lo et al.'s CPU-GPU double buffering, Fig. 2).
 *
 * Chunks are sized from the work items' comparisons (a chunk's pairs are
 * at most its comparisons) and the largest hit rate seen so far. A chunk
 * whose pairs overflow its buffer is computed again in parts; its partial
 * output is dropped, so no pair is lost or repeated. Device memory stays
 * within the budget; when the inputs themselves do not fit, the larger
 * input is joined in halves (before any pair reached the sink).
 */
#include <stdio.h>
#include <string.h>

#include <algorithm>
#include <deque>

extern "C" {
#include "cancel.h"
#include "gpu.h"
#include "stats.h"
}
#include "box_join_gpu.cuh"
#include "interval_double.h"
#include "join_gpu.cuh"

#define CAP_MAX ((uint64_t) 1 << 27)	/* pairs per device buffer: 1 GiB */
#define PIECE ((size_t) 1 << 21)	/* pairs per host buffer: 16 MiB */
#define STAGING ((size_t) 16 << 20)	/* bytes per half of the upload staging */
#define CHUNK_MIN ((uint64_t) 1 << 22)	/* comparisons per chunk, ~0.1 ms */
#define CHUNK_MAX ((uint64_t) 1 << 31)	/* ... ~20 ms: bounds the cancel latency */
#define CHUNKS_AIM 8			/* chunks for a join's comparisons, to overlap
								 * the pairs' download with the next chunk */
#define RATE_GUESS 0.25			/* pairs per comparison expected before one is
								 * measured, by a consumer on the device */

/* A CUDA event, destroyed with its scope. */
struct event
{
	cudaEvent_t e;
	bool		timing;			/* from the context's spares (exg_gpu_event_take) */

	explicit	event(bool timing = false) : timing(timing)
	{
		if (timing)
			e = exg_gpu_event_take();
		else
			EXG_CUDA(cudaEventCreateWithFlags(&e, cudaEventDisableTiming));
	}
	~event()
	{
		if (timing)
			exg_gpu_event_give(e);
		else
			(void) cudaEventDestroy(e);
	}
	event(const event &) = delete;
	event &operator=(const event &) = delete;
};

/*
 * Waits for a stream when its scope ends, errors included: declared after
 * the buffers a stream still reads, it runs before their destructors free
 * them, and before a pinned buffer could be reused under a pending copy.
 */
struct stream_fence
{
	cudaStream_t s;

	~stream_fence() { (void) cudaStreamSynchronize(s); }
};

/* Host to device: a kept copy, as is when wholly pinned, else through two halves of staging. */
static void
upload(exg_dbuf<double> &dst, const double *src, size_t count, int threads, cudaStream_t s)
{
	size_t		bytes = sizeof(double) * count;
	void	   *ref = nullptr;
	double	   *kept = bytes ? (double *) exg_gpu_kept_acquire(src, bytes, &ref) : nullptr;

	dst.release();
	if (kept)
	{
		/* kept memory: its device copy */
		dst.p = kept;
		dst.n = count;
		dst.kept = ref;
		return;
	}
	dst.alloc(count);
	if (bytes == 0)
		return;
	if (exg_host_direct(src, bytes))
	{
		EXG_CUDA(cudaMemcpyAsync(dst.p, src, bytes, cudaMemcpyHostToDevice, s));
		return;
	}
	char	   *stage = (char *) exg_pinned_get(EXG_PINNED_UPLOAD, 2 * STAGING);
	event		done[2];
	stream_fence fence = {s};

	/* the CPU fills one half while the DMA engine drains the other */
	for (size_t off = 0, i = 0; off < bytes; off += STAGING, i++)
	{
		size_t		len = bytes - off < STAGING ? bytes - off : STAGING;
		char	   *half = stage + (i % 2) * STAGING;

		if (i >= 2)
			EXG_CUDA(cudaEventSynchronize(done[i % 2].e));
		exg_parallel_memcpy(half, (const char *) src + off, len, threads);
		EXG_CUDA(cudaMemcpyAsync((char *) dst.p + off, half, len, cudaMemcpyHostToDevice, s));
		EXG_CUDA(cudaEventRecord(done[i % 2].e, s));
	}
}

/*
 * Device pairs to the sink, through two pinned host buffers: the copy of
 * one piece overlaps the sink's work on the previous one.
 */
struct drain : exg_box_consumer
{
	exg_box_pair_sink sink;
	void	   *arg;
	exg_join_stats *st;
	cudaStream_t cs;
	exg_pair   *host[2];
	size_t		pending[2] = {0, 0};
	event		copied[2];
	unsigned	next = 0;

	drain(exg_box_pair_sink sk, void *a, exg_join_stats *s, cudaStream_t copy_stream)
		: sink(sk), arg(a), st(s), cs(copy_stream)
	{
		exg_pair   *p = (exg_pair *) exg_pinned_get(EXG_PINNED_PAIRS, 2 * PIECE * sizeof(exg_pair));

		host[0] = p;
		host[1] = p + PIECE;
	}

	void		give(unsigned slot)
	{
		uint64_t	t0 = exg_now_ns();

		EXG_CUDA(cudaEventSynchronize(copied[slot].e));
		st->phase_ns[EXG_PHASE_DOWNLOAD] += exg_now_ns() - t0;
		t0 = exg_now_ns();

		exg_status	rc = sink(arg, host[slot], pending[slot]);

		st->phase_ns[EXG_PHASE_MERGE] += exg_now_ns() - t0;
		st->hits += pending[slot];
		pending[slot] = 0;
		if (rc != EXG_OK)
		{
			exg_gpu_error e;

			e.status = rc;
			snprintf(e.message, sizeof(e.message), "box join stopped by its pair sink (%s)",
					 exg_status_name(rc));
			throw		e;
		}
	}

	void		wait_idle() override { (void) cudaStreamSynchronize(cs); }

	/* All n pairs at dev (complete on the device) to the sink. */
	void		take(exg_pair *dev, uint64_t n, cudaStream_t) override
	{
		for (uint64_t off = 0; off < n; off += PIECE)
		{
			unsigned	slot = next++ % 2;
			size_t		len = n - off < PIECE ? (size_t) (n - off) : PIECE;

			EXG_CUDA(cudaMemcpyAsync(host[slot], dev + off, len * sizeof(exg_pair),
									 cudaMemcpyDeviceToHost, cs));
			EXG_CUDA(cudaEventRecord(copied[slot].e, cs));
			pending[slot] = len;
			if (pending[slot ^ 1])
				give(slot ^ 1);
		}
		for (int k = 0; k < 2; k++)
			if (pending[(next + k) % 2])
				give((next + k) % 2);
	}
};

/* One chunk of work items in flight: its buffer and its events. */
struct chunk
{
	uint64_t	w0,
				w1;
};

/*
 * The join of two sides on the device, summarized: grid, work items, and
 * the chunks of pairs to the consumer.
 */
static void
join_sides(exg_box_side_d *side, const exg_box_summary *sum, const uint32_t *id_offset,
		   int naxes, const exg_join_options *opt, exg_box_budget &budget,
		   exg_box_consumer &dr, exg_join_stats *st, exg_box_kept_grid *kg = nullptr)
{
	exg_gpu_context *ctx = exg_gpu_context_get();
	cudaStream_t s = ctx->stream;
	exg_box_grid bg;
	exg_box_work work;
	uint64_t	t;

	if (side[0].n == 0 || side[1].n == 0 ||
		!exg_box_grid_choose(&bg, naxes, &sum[0], side[0].n, &sum[1], side[1].n,
							 EXG_BOX_OCCUPANCY_GPU, opt->grid_cells))
		return;
	if (kg)
	{
		/* the kept side's own grid: the same in every join against it */
		exg_box_grid own;
		const exg_box_summary *k = &sum[kg->side];
		uint32_t	n = side[kg->side].n;
		bool		fits = kg->start != nullptr;

		if (kg->start)
			own = kg->bg;
		else
			fits = exg_box_grid_choose(&own, naxes, k, n, k, n, EXG_BOX_OCCUPANCY_GPU,
									   opt->grid_cells);
		/*
		 * ... unless the other side's boxes would make the joint grid much
		 * coarser (larger boxes): entered in the kept grid's finer cells,
		 * each would take many
		 */
		for (int a = 0; a < naxes && fits; a++)
			fits = bg.g.inv_cell[a] == 0 || own.g.inv_cell[a] <= 2 * bg.g.inv_cell[a];
		if (fits)
			bg = own;
		else
			kg = nullptr;
	}
	exg_trace_mark("box: grid chosen");
	exg_gpu_check_cancel();

	/* ---- grid per side (a kept one lent), work items ---- */
	uint32_t	ncells = (uint32_t) ((uint64_t) bg.g.dims[0] * bg.g.dims[1] * bg.g.dims[2]);

	t = exg_now_ns();
	memcpy(st->grid_dims, bg.g.dims, sizeof(bg.g.dims));
	for (int k = 0; k < 2; k++)
		if (kg && kg->start && k == kg->side)
		{
			side[k].start.lend(const_cast<uint32_t *>(kg->start), (size_t) ncells + 1);
			side[k].items.lend(const_cast<uint32_t *>(kg->items), kg->entries);
			side[k].entries = kg->entries;
		}
		else
		{
			exg_box_grid_side(side[k], bg, ncells, budget, s);
			exg_trace_sync(s, "box: a side's grid");
		}
	if (kg && !kg->start)
		kg->keep(bg, side[kg->side], s);
	st->grid_entries += side[0].entries + side[1].entries;
	EXG_CUDA(cudaStreamSynchronize(s));
	st->phase_ns[EXG_PHASE_GRID] += exg_now_ns() - t;
	exg_trace_mark("box: grids");
	exg_gpu_check_cancel();
	t = exg_now_ns();
	exg_box_work_items(side[0], side[1], ncells, work, budget, s);
	exg_trace_sync(s, "box: work items");
	st->phase_ns[EXG_PHASE_CULL] += exg_now_ns() - t;

	uint64_t	total = work.total;

	st->cell_pairs += total;
	if (total == 0)
		return;
	exg_gpu_check_cancel();

	/* ---- two output buffers as large as the budget allows ---- */
	uint64_t	need = total < EXG_BOX_ITEM_MAX ? total : EXG_BOX_ITEM_MAX;
	uint64_t	cap = budget.left() / (2 * sizeof(exg_pair)) / 10 * 9;
	exg_dbuf<exg_pair> out[2];
	exg_dbuf<exg_box_counts> counts_d(2);
	exg_box_counts *counts_h = (exg_box_counts *) exg_pinned_get(EXG_PINNED_COUNTERS,
																 2 * sizeof(exg_box_counts));

	/*
	 * A consumer on the device wants one chunk: buffers for the pairs a
	 * guessed rate expects of all comparisons (a chunk that finds more is
	 * computed again in parts, as any overflow is: the mine's joins find
	 * 2-3%), not for as many pairs as comparisons (the doubled mine's
	 * 1.4 * 10^8 took two chunks of 1 GiB buffers). Else the pairs can
	 * never overflow the first chunk: at most one per comparison.
	 */
	double		rate0 = dr.on_device() ? RATE_GUESS : 1;
	uint64_t	expect = (uint64_t) ((double) total * rate0 / 0.75) + 1;

	cap = cap < CAP_MAX ? cap : CAP_MAX;
	cap = cap < total ? cap : total;
	cap = cap < std::max(expect, need) ? cap : std::max(expect, need);
	if (cap < need)
		throw		exg_gpu_oom{2 * need * sizeof(exg_pair)};
	for (;;)
	{
		try
		{
			out[0].alloc(cap);
			out[1].alloc(cap);
			break;
		}
		catch (exg_gpu_oom &)
		{
			/* smaller buffers, down to one work item's worth, then split the input */
			out[0].release();
			out[1].release();
			if (cap == need)
				throw;
			cap = cap / 2 > need ? cap / 2 : need;
		}
	}

	/* ---- chunks: compute k + 1 while k goes to the sink ---- */
	exg_box_pairs_args x;
	event		began[2] = {event(true), event(true)},
				ended[2] = {event(true), event(true)};
	stream_fence fence_compute = {s};
	struct consumer_fence
	{
		exg_box_consumer &c;

		~consumer_fence() { c.wait_idle(); }
	}			fence_consumer = {dr};
	std::deque<chunk> redo;		/* overflowed chunks' parts, first */
	uint64_t	next = 0;
	double		rate = rate0;	/* pairs per comparison, until measured */
	bool		measured = false;

	for (int k = 0; k < 2; k++)
	{
		x.box[k] = side[k].box;
		x.start[k] = side[k].start.p;
		x.items[k] = side[k].items.p;
		x.id_offset[k] = id_offset[k];
	}
	x.item_start = work.item_start.p;
	x.item_cell = work.item_cell.p;
	x.bg = bg;
	x.cap = cap;

	auto take = [&](chunk &c) -> bool {
		if (!redo.empty())
		{
			c = redo.front();
			redo.pop_front();
			return true;
		}
		if (next == work.nitems)
			return false;
		/*
		 * expected pairs within 3/4 of the buffer (before a rate is
		 * measured, at one pair per comparison, all of it: they cannot
		 * overflow), in about CHUNKS_AIM chunks where a download
		 * overlaps, else as few as fit
		 */
		double		want = (measured || rate0 < 1 ? 0.75 : 1.0) * (double) cap / (rate > 1e-9 ? rate : 1e-9);
		uint64_t	parts = dr.on_device() ? 1 : CHUNKS_AIM;
		uint64_t	aim = total / parts > CHUNK_MIN ? total / parts : CHUNK_MIN;

		want = want < (double) aim ? want : (double) aim;
		want = want < (double) CHUNK_MAX ? want : (double) CHUNK_MAX;
		if (next == 0 && want >= (double) total)
		{
			/* all in one chunk: no copy of the scan */
			c = {0, work.nitems};
			next = work.nitems;
			return true;
		}

		const uint64_t *scan = exg_box_work_scan(work, s);
		uint64_t	limit = scan[next] + (uint64_t) want;
		uint64_t	end = (uint64_t) (std::upper_bound(scan + next + 1, scan + work.nitems + 1, limit) - scan) - 1;

		c = {next, end > next ? end : next + 1};
		next = c.w1;
		return true;
	};
	auto launch = [&](const chunk &c, int slot) {
		x.out = out[slot].p;
		x.counts = counts_d.p + slot;
		EXG_CUDA(cudaMemsetAsync(counts_d.p + slot, 0, sizeof(exg_box_counts), s));
		EXG_CUDA(cudaEventRecord(began[slot].e, s));
		exg_box_pairs_launch(x, c.w0, c.w1, s);
		EXG_CUDA(cudaEventRecord(ended[slot].e, s));
		EXG_CUDA(cudaMemcpyAsync(&counts_h[slot], counts_d.p + slot, sizeof(exg_box_counts),
								 cudaMemcpyDeviceToHost, s));
	};

	chunk		cur,
				nxt;
	bool		have = take(cur);
	int			slot = 0;

	exg_trace_sync(s, "box: buffers");
	if (have)
		launch(cur, slot);
	while (have)
	{
		float		ms = 0;

		EXG_CUDA(cudaStreamSynchronize(s));
		exg_trace_mark("box: chunk's pairs");
		if (cudaEventElapsedTime(&ms, began[slot].e, ended[slot].e) == cudaSuccess)
			st->phase_ns[EXG_PHASE_TEST] += (uint64_t) (ms * 1e6);

		exg_box_counts got = counts_h[slot];
		/* a chunk of all items (one that fits) needs no copy of the scan */
		const uint64_t *scan = cur.w0 == 0 && cur.w1 == work.nitems ? nullptr
			: exg_box_work_scan(work, s);
		uint64_t	comps = scan ? scan[cur.w1] - scan[cur.w0] : total;
		double		r = comps ? (double) got.pairs / (double) comps : 0;
		bool		overflow = got.pairs > cap;

		rate = measured ? (r > rate ? r : rate) : r;
		measured = true;
		if (overflow)
		{
			/* again in parts of about half a buffer each (a work item always fits) */
			uint64_t	parts = got.pairs / (cap / 2) + 1;
			std::deque<chunk> mine;

			scan = exg_box_work_scan(work, s);

			for (uint64_t w = cur.w0; w < cur.w1;)
			{
				uint64_t	limit = scan[w] + comps / parts;
				uint64_t	end = (uint64_t) (std::upper_bound(scan + w + 1, scan + cur.w1 + 1, limit) - scan) - 1;

				end = end > w ? end : w + 1;
				mine.push_back({w, end});
				w = end;
			}
			redo.insert(redo.begin(), mine.begin(), mine.end());
			st->splits++;
		}
		exg_gpu_check_cancel();
		have = take(nxt);
		if (have)
			launch(nxt, slot ^ 1);	/* runs while this chunk is drained */
		if (!overflow)
		{
			st->waves++;
			st->candidates += got.considered;
			dr.take(out[slot].p, got.pairs, s);
			exg_trace_mark("box: chunk taken");
		}
		cur = nxt;
		slot ^= 1;
	}
}

/* Everything one join (or one half of a split one) holds on the device. */
static exg_status
run_join(const exg_box_set *A, const exg_box_set *B, const uint32_t *id_offset, int naxes,
		 const exg_join_options *opt, drain &dr, exg_join_stats *st, exg_error *err)
{
	exg_gpu_context *ctx = exg_gpu_context_get();
	cudaStream_t s = ctx->stream;
	exg_box_budget budget(opt->gpu_memory_limit);
	exg_box_side_d side[2];
	const exg_box_set *in[2] = {A, B};
	exg_box_summary sum[2];
	uint64_t	t = exg_now_ns();

	snprintf(st->device_name, sizeof(st->device_name), "%s", ctx->name);

	/* ---- upload, then validate and bound each side ---- */
	budget.hold(sizeof(double) * 2 * naxes * ((size_t) A->n + B->n));
	for (int k = 0; k < 2; k++)
	{
		side[k].n = in[k]->n;
		upload(side[k].owned, in[k]->box, 2 * (size_t) naxes * in[k]->n, opt->worker_threads, s);
		side[k].box = side[k].owned.p;
	}
	EXG_CUDA(cudaStreamSynchronize(s));
	st->phase_ns[EXG_PHASE_UPLOAD] += exg_now_ns() - t;
	t = exg_now_ns();
	for (int k = 0; k < 2; k++)
	{
		exg_box_summarize_gpu(side[k], naxes, &sum[k], s);
		if (sum[k].first_invalid != UINT64_MAX)
			return exg_box_invalid(err, k, id_offset[k] + sum[k].first_invalid,
								   &in[k]->box[2 * naxes * sum[k].first_invalid], naxes);
	}
	st->phase_ns[EXG_PHASE_CLASSIFY] += exg_now_ns() - t;
	join_sides(side, sum, id_offset, naxes, opt, budget, dr, st);
	return EXG_OK;
}

void
exg_gpu_box_join_device(const double *boxA, uint32_t na, const double *boxB, uint32_t nb,
						int naxes, const exg_join_options *opt, size_t memory_limit,
						exg_box_consumer &c, exg_join_stats *st, const exg_box_summary *known_a,
						const exg_box_summary *known_b, exg_box_kept_grid *kept)
{
	/*
	 * The host's share (summary merge, domain, grid) in round-to-nearest
	 * without FTZ/DAZ, as exg_box_join sets it: under the caller's DAZ,
	 * fmin/fmax read subnormal bounds as zero, the domain shrinks and the
	 * boxes beyond it are entered nowhere. Restored however this ends.
	 */
	struct nearest_scope
	{
		exg_round_state saved = exg_round_nearest_enter();

		~nearest_scope() { exg_round_restore(saved); }
	}			nearest;
	/*
	 * measured again, the caller's share its ceiling: another range may
	 * have taken memory on the device since the caller measured
	 */
	exg_box_budget budget(memory_limit);
	exg_box_side_d side[2];
	exg_box_summary sum[2];
	const uint32_t no_offset[2] = {0, 0};
	uint64_t	t = exg_now_ns();

	side[0].n = na;
	side[0].box = boxA;
	side[1].n = nb;
	side[1].box = boxB;
	for (int k = 0; k < 2; k++)
	{
		const exg_box_summary *known = k ? known_b : known_a;

		if (known)
			sum[k] = *known;
		else
		{
			exg_box_summarize_gpu(side[k], naxes, &sum[k], exg_gpu_context_get()->stream);
			exg_trace_mark("box: summarized");
		}
		if (sum[k].first_invalid != UINT64_MAX)
		{
			exg_gpu_error e;

			e.status = EXG_ERR_ARGUMENT;
			snprintf(e.message, sizeof(e.message),
					 "%s input: primitive %llu has a non-finite coordinate",
					 k ? "right" : "left", (unsigned long long) sum[k].first_invalid);
			throw		e;
		}
	}
	st->phase_ns[EXG_PHASE_CLASSIFY] += exg_now_ns() - t;
	join_sides(side, sum, no_offset, naxes, opt, budget, c, st, kept);
}

/* The join, or on running out of device memory, the larger side in halves. */
static exg_status
join_or_split(const exg_box_set *A, const exg_box_set *B, const uint32_t *id_offset, int naxes,
			  const exg_join_options *opt, drain &dr, exg_join_stats *st, exg_error *err,
			  int depth)
{
	const exg_join_stats before = *st;

	try
	{
		return run_join(A, B, id_offset, naxes, opt, dr, st, err);
	}
	catch (exg_gpu_oom &)
	{
		/* run_join allocates all it needs before its first pair goes out */
		if (st->hits != before.hits)
		{
			exg_gpu_error e = {EXG_ERR_DEVICE_MEMORY, "out of GPU memory in the middle of the box join"};

			throw		e;
		}
		/* the attempt compared nothing: only its time counts */
		st->cell_pairs = before.cell_pairs;
		st->grid_entries = before.grid_entries;
		st->candidates = before.candidates;
	}
	exg_gpu_room_check();
	bool		split_a = A->n >= B->n;
	const exg_box_set *S = split_a ? A : B;

	if (S->n < 2 || depth > 24)
	{
		exg_gpu_error e = {EXG_ERR_DEVICE_MEMORY, "the box join does not fit in GPU memory even split"};

		throw		e;
	}
	/* report an invalid box before any half's pairs reach the sink */
	if (depth == 0)
		for (int k = 0; k < 2; k++)
		{
			const exg_box_set *in = k ? B : A;
			exg_box_summary sum;

			exg_box_summarize(in, naxes, opt->worker_threads, &sum);
			if (sum.first_invalid != UINT64_MAX)
				return exg_box_invalid(err, k, sum.first_invalid,
									   &in->box[2 * naxes * sum.first_invalid], naxes);
		}
	st->splits++;
	for (int h = 0; h < 2; h++)
	{
		uint32_t	first = h ? S->n / 2 : 0;
		exg_box_set half = {S->box + 2 * naxes * (size_t) first, h ? S->n - first : S->n / 2};
		uint32_t	off[2] = {id_offset[0], id_offset[1]};
		exg_status	rc;

		off[split_a ? 0 : 1] += first;
		rc = join_or_split(split_a ? &half : A, split_a ? B : &half, off, naxes, opt, dr, st, err,
						   depth + 1);
		if (rc != EXG_OK)
			return rc;
	}
	return EXG_OK;
}

extern "C" exg_status
exg_gpu_box_join(const exg_box_set *A, const exg_box_set *B, int naxes,
				 const exg_join_options *opt, exg_box_pair_sink sink, void *sink_arg,
				 exg_join_stats *stats, exg_error *err)
{
	return exg_gpu_guard(err, "in the GPU box join", [&] {
		exg_gpu_context *ctx = exg_gpu_context_get();
		stream_fence idle = {ctx->stream};	/* last: the frees of all buffers done */
		drain		dr(sink, sink_arg, stats, ctx->copy_stream);
		stream_fence fence = {ctx->copy_stream};
		const uint32_t no_offset[2] = {0, 0};

		exg_gpu_room_check();
		return join_or_split(A, B, no_offset, naxes, opt, dr, stats, err, 0);
	});
}
