/*
 * batch_devices.c — one batch join over several GPUs (exg_batch_join_devices):
 * one side's rows cut into row ranges of about equal primitives, each range
 * joined against the whole other side on a thread of its own bound to its
 * device (exg_gpu_thread_bind), all at once, and the ranges' row pairs
 * merged into the order exg_batch_join_as gives on one device.
 *
 * A range is a view of the batch: its primitives and owners are a slice,
 * its vertices, flags and order the whole batch's, so that its pairs name
 * rows exactly as the whole join names them and the union of the ranges'
 * pairs is the whole join's (every primitive is in one range; a pair of
 * rows is found where its primitives are). A side kept on the devices
 * (exg_gpu_keep) is not uploaded again for any range: a slice of kept
 * memory is served by the device's copy. The side every range joins whole
 * is staged once into page-locked memory, where it is not there already,
 * for every GPU to copy it from (the side cut, when the whole one is kept).
 */
#include "batch.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cancel.h"
#include "worker_signals.h"
#include "gpu.h"
#include "parallel.h"
#include "stats.h"
#include "trace.h"

/* What the whole join runs, decided once as exg_batch_join_as decides it. */
typedef enum join_road
{
	ROAD_JOIN,					/* exg_batch_join(L, R) */
	ROAD_LOCATE,				/* exg_batch_locate(L = points, R = bodies) */
	ROAD_LOCATE_IN				/* exg_batch_locate_in(L = bodies, R = points) */
} join_road;

typedef struct chunk_job
{
	join_road	road;
	const exg_batch *L;
	const exg_batch *R;
	int			device;			/* < 0: the CPU */
	bool		taken;			/* by a pool thread (under pool_lock) */
	exg_join_options opt;
	exg_cancel_source cancel;
	uint64_t   *rows;
	size_t		nrows;
	exg_join_stats stats;
	exg_status	status;
	exg_error	err;
} chunk_job;

static exg_status
run_road(join_road road, const exg_batch *L, const exg_batch *R, const exg_join_options *opt,
		 uint64_t **rows, size_t *n, exg_join_stats *stats, exg_error *err)
{
	switch (road)
	{
		case ROAD_LOCATE:
			return exg_batch_locate(L, R, opt, rows, n, stats, err);
		case ROAD_LOCATE_IN:
			return exg_batch_locate_in(L, R, opt, rows, n, stats, err);
		case ROAD_JOIN:
			break;
	}
	return exg_batch_join(L, R, opt, rows, n, stats, err);
}

static void
chunk_main(chunk_job *j)
{
	uint64_t	t0 = exg_now_ns();

	exg_trace_mark("range: start");
	exg_set_thread_cancel(j->cancel.fn, j->cancel.arg);
	if (j->device >= 0)
	{
		/* a pool thread stays bound between jobs: binding to the same device again is free */
		j->status = exg_gpu_thread_bind(j->device, &j->err);
	}
	else
	{
		j->opt.device = EXG_DEVICE_CPU;
		j->status = EXG_OK;
	}
	if (j->status == EXG_OK)
		j->status = run_road(j->road, j->L, j->R, &j->opt, &j->rows, &j->nrows, &j->stats,
							 &j->err);
	exg_set_thread_cancel(NULL, NULL);
	/* the range's own time, start to end, whatever its join reported */
	j->stats.total_ns = exg_now_ns() - t0;
	exg_trace_mark("range: end");
}

/* The view of b's primitives [p0, p1): all else shared with b. */
static exg_batch
slice_of(const exg_batch *b, size_t p0, size_t p1)
{
	exg_batch	v = *b;

	v.tri = b->tri + 3 * p0;
	v.owner = b->owner + p0;
	v.nprims = p1 - p0;
	v.prims_cap = v.nprims;
	v.verts_cap = v.nverts;
	v.solid_cap = b->solid_cap;
	v.borrowed = true;			/* never freed or grown through the view */
	v.slice = true;				/* the GPU copies the vertices it reads alone */
	return v;
}

/*
 * The side every range joins whole, when in pageable memory (a GPU
 * service's request), copied once into page-locked memory that every
 * range's GPU then reads at PCIe speed: else each range stages it through
 * its own context's ring, all at once (two ranges of the doubled large
 * mine in the service: 9 ms each for its 46 MB of holes). One buffer for
 * the process, grown and kept (page-locking is slow), of at most
 * STAGE_MAX, as the upload ring pins at most 128 MB: pinning a side of
 * gigabytes would take a second and hold the memory for the service's
 * life; a join that finds the buffer taken, or a side larger, goes
 * without.
 */
#define STAGE_MIN ((size_t) 8 << 20)
#define STAGE_MAX ((size_t) 256 << 20)
#define STAGE_ALIGN ((size_t) 64)
#define STAGE_PIECE ((size_t) 1 << 20)

/* Are b's vertices and triangles kept on the devices (the resident bodies)? */
static bool
kept_on_devices(const exg_batch *b)
{
	return exg_gpu_kept_covers(b->xyz, sizeof(double) * 3 * b->nverts) &&
		exg_gpu_kept_covers(b->tri, sizeof(uint32_t) * 3 * b->nprims);
}

static pthread_mutex_t stage_lock = PTHREAD_MUTEX_INITIALIZER;
static char *stage_buf;
static size_t stage_cap;

/*
 * view = W over staged copies of its vertices, primitives and their rows
 * (which a GPU maps its row pairs with); false to go without (lock held).
 */
static bool
stage_whole(const exg_batch *W, exg_batch *view)
{
	const void *src[3] = {W->xyz, W->tri, W->owner};
	size_t		len[3] = {sizeof(double) * 3 * W->nverts, sizeof(uint32_t) * 3 * W->nprims,
		sizeof(uint32_t) * W->nprims},
				at[3],
				total = 0,
				npieces = 0;

	for (int k = 0; k < 3; k++)
	{
		at[k] = total;
		total += (len[k] + STAGE_ALIGN - 1) / STAGE_ALIGN * STAGE_ALIGN;
	}
	/*
	 * small, large, kept on the devices (the resident bodies), or page-locked
	 * already: by the vertices and primitives (rows below 4 MB go through
	 * the ring as fast); the rows staged with them where they fit
	 */
	if (at[1] + len[1] < STAGE_MIN || at[1] + len[1] > STAGE_MAX || kept_on_devices(W) ||
		(exg_host_uploads_direct(W->xyz, len[0]) && exg_host_uploads_direct(W->tri, len[1])))
		return false;
	if (total > STAGE_MAX)
	{
		len[2] = 0;
		total = at[2];
	}
	if (total > stage_cap)
	{
		size_t		want = total + total / 4;

		exg_host_free(stage_buf);
		stage_cap = 0;
		if ((stage_buf = exg_host_alloc(want < STAGE_MAX ? want : STAGE_MAX)) == NULL)
			return false;
		if (!exg_host_uploads_direct(stage_buf, total))
		{
			/* not page-locked (exg_host_alloc fell back to malloc): no gain, not kept */
			exg_host_free(stage_buf);
			stage_buf = NULL;
			return false;
		}
		stage_cap = want < STAGE_MAX ? want : STAGE_MAX;
	}
	for (int k = 0; k < 3; k++)
		npieces += (len[k] + STAGE_PIECE - 1) / STAGE_PIECE;
	{
		/* the arrays in pieces on every thread (copied one after the other,
		 * the smaller went on one: 3 ms of 4.6 for the 46 MB above) */
#pragma omp parallel for schedule(dynamic)
		for (size_t i = 0; i < npieces; i++)
		{
			size_t		off = i * STAGE_PIECE;
			int			k = 0;

			/* the array piece i falls in, and its offset there */
			while (off >= (len[k] + STAGE_PIECE - 1) / STAGE_PIECE * STAGE_PIECE)
			{
				off -= (len[k] + STAGE_PIECE - 1) / STAGE_PIECE * STAGE_PIECE;
				k++;
			}
			memcpy(stage_buf + at[k] + off, (const char *) src[k] + off,
				   len[k] - off < STAGE_PIECE ? len[k] - off : STAGE_PIECE);
		}
	}
	*view = *W;
	view->xyz = (double *) stage_buf;
	view->tri = (uint32_t *) (stage_buf + at[1]);
	if (len[2] > 0)
		view->owner = (uint32_t *) (stage_buf + at[2]);
	view->verts_cap = view->nverts;
	view->prims_cap = view->nprims;
	view->borrowed = true;		/* never freed or grown through the view */
	return true;
}

/*
 * Primitive bounds of k ranges of about equal size, each ending at a row's
 * end: bound[c] .. bound[c + 1].
 */
static void
range_bounds(const exg_batch *b, int k, size_t *bound)
{
	bound[0] = 0;
	for (int c = 1; c < k; c++)
	{
		size_t		p = b->nprims * (size_t) c / (size_t) k;

		if (p < bound[c - 1])
			p = bound[c - 1];
		if (p > 0 && p < b->nprims && b->owner[p] == b->owner[p - 1])
		{
			/* the end of p's row: owners never decrease (batch.h), so by halving */
			size_t		lo = p,
						hi = b->nprims;
			uint32_t	row = b->owner[p];

			while (lo < hi)
			{
				size_t		mid = lo + (hi - lo) / 2;

				if (b->owner[mid] == row)
					lo = mid + 1;
				else
					hi = mid;
			}
			p = lo;
		}
		bound[c] = p;
	}
	bound[k] = b->nprims;
}

/* k sorted, repeat-free runs into one (each pair once); NULL when out of memory. */
static uint64_t *
merge_runs(chunk_job *jobs, int k, size_t *n_out)
{
	size_t		total = 0,
				m = 0;
	size_t	   *at;
	uint64_t   *out;
	bool		in_order = true;	/* each run after the one before: the new side's ranges */

	for (int c = 0; c < k; c++)
	{
		total += jobs[c].nrows;
		for (int p = c - 1; p >= 0 && in_order && jobs[c].nrows; p--)
			if (jobs[p].nrows)
			{
				in_order = jobs[p].rows[jobs[p].nrows - 1] < jobs[c].rows[0];
				break;
			}
	}
	out = malloc(sizeof(uint64_t) * (total ? total : 1));
	if (out == NULL)
		return NULL;
	if (in_order)
	{
		/* one after the other, no row in two (the k-way loop took 0.16 ms for 20,000 rows) */
		for (int c = 0; c < k; c++)
		{
			if (jobs[c].nrows)
				memcpy(out + m, jobs[c].rows, sizeof(uint64_t) * jobs[c].nrows);
			m += jobs[c].nrows;
		}
		*n_out = m;
		return out;
	}
	if ((at = calloc((size_t) k, sizeof(size_t))) == NULL)
	{
		free(out);
		return NULL;
	}
	for (;;)
	{
		int			best = -1;

		for (int c = 0; c < k; c++)
			if (at[c] < jobs[c].nrows &&
				(best < 0 || jobs[c].rows[at[c]] < jobs[best].rows[at[best]]))
				best = c;
		if (best < 0)
			break;
		/* rows sharing a place in the order may pair in two ranges: once */
		if (m == 0 || out[m - 1] != jobs[best].rows[at[best]])
			out[m++] = jobs[best].rows[at[best]];
		at[best]++;
	}
	free(at);
	*n_out = m;
	return out;
}

static void
stats_add(exg_join_stats *sum, const exg_join_stats *s)
{
	for (int k = 0; k < EXG_JOIN_PHASES; k++)
		sum->phase_ns[k] += s->phase_ns[k];
	sum->grid_entries += s->grid_entries;
	sum->hits += s->hits;		/* primitive (or located) pairs: each found in one range */
	sum->cell_pairs += s->cell_pairs;
	sum->candidates += s->candidates;
	sum->unknown_first += s->unknown_first;
	sum->unknown_second += s->unknown_second;
	sum->exact_pairs += s->exact_pairs;
	sum->waves += s->waves;
	sum->splits += s->splits;
	sum->contained += s->contained;
	sum->used_gpu |= s->used_gpu;
	sum->gpu_setup_ns += s->gpu_setup_ns;
}

/*
 * "GPU 0: <name>" for one range; "3 ranges on GPUs 0,1,0: <name>" for
 * several (a bound context's name is "GPU <d>: <name>").
 */
static void
device_names(const chunk_job *jobs, int k, char *out, size_t size)
{
	const char *name = jobs[0].stats.device_name;
	const char *colon = strstr(name, ": ");
	size_t		n;

	if (k == 1)
	{
		snprintf(out, size, "%s", name);
		return;
	}
	n = (size_t) snprintf(out, size, "%d ranges on %s ", k, jobs[0].device >= 0 ? "GPUs" : "CPUs");
	for (int c = 0; c < k && n < size; c++)
		n += (size_t) snprintf(out + n, size - n, c ? ",%d" : "%d", jobs[c].device);
	if (n < size && jobs[0].device >= 0)
		snprintf(out + n, size - n, ": %.60s", colon ? colon + 2 : name);
}

/*
 * The ranges run on threads kept for the process: a thread's bound context,
 * its OpenMP team and its counters outlive one join, so that a join over
 * devices pays no thread or team start-up (measured on two H100s: a 3 ms
 * join took 4.3 ms cut in two on threads started per join). Created with
 * every signal blocked: the host's handlers run on its own threads only.
 * Jobs wait in a queue. Each thread serves one device (or the CPU) for its
 * life, and there are at least as many threads of a device as its jobs
 * queued or running (up to POOL_MAX in all), so the ranges of one join run
 * at once: a thread that moved to another device would bind another
 * context, whose pinned buffers and block cache may have to grow (a
 * cudaHostAlloc, and a cudaFreeHost that waits for the whole device: 2-7
 * ms added to 1 join in 4 of the doubled mine's when any thread took any
 * job). A thread that preferred its last device could still move when the
 * threads woke in another order; threads of one device never do (the
 * medians were no different on 2 x H100: 3.50-3.65 ms each way).
 */
#define POOL_MAX 64
#define POOL_SLOTS 65			/* the CPU's threads, then each device's */

static int
slot_of(int device)
{
	return device < 0 ? 0 : device + 1 < POOL_SLOTS ? device + 1 : POOL_SLOTS - 1;
}

/*
 * Ranges per device of a new side cut against kept bodies: a device's
 * second range runs its fixed steps (copies, syncs, the box join's set-up)
 * while the first one's kernels run. Measured on 2 x H200 (bench_devices,
 * 2026-11-27): the doubled mine 4.00 ms with one range per GPU, 3.88 with
 * two, 4.04 with three; the large mine 2.58, 2.24, 2.66.
 */
#define NEW_SIDE_RANGES 2
/*
 * ... while the ranges number at most this: on 4 x H200 two per GPU were
 * slower than one (the doubled mine 4.04 ms against 3.19; the large 3.54
 * against 2.41): eight ranges' host steps crowd one process.
 */
#define NEW_SIDE_RANGES_MAX 4

typedef struct job_batch
{
	chunk_job  *jobs;
	int			k;
	int			left;			/* jobs not finished */
	pthread_cond_t done;
	struct job_batch *queue_next;
} job_batch;

static pthread_mutex_t pool_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t pool_wake = PTHREAD_COND_INITIALIZER;
static job_batch *queue_head;
static int	pool_threads[POOL_SLOTS];
static int	pool_idle[POOL_SLOTS];
static int	pool_total;

static void *
pool_main(void *arg)
{
	int			slot = (int) (intptr_t) arg;

	pthread_mutex_lock(&pool_lock);
	for (;;)
	{
		job_batch  *b;
		chunk_job  *j = NULL;

		/* the first job of this thread's device waiting */
		for (b = queue_head; b != NULL && j == NULL; b = j ? b : b->queue_next)
			for (int c = 0; c < b->k && j == NULL; c++)
				if (!b->jobs[c].taken && slot_of(b->jobs[c].device) == slot)
					j = &b->jobs[c];
		if (j == NULL)
		{
			pool_idle[slot]++;
			pthread_cond_wait(&pool_wake, &pool_lock);
			pool_idle[slot]--;
			continue;
		}
		j->taken = true;
		pthread_mutex_unlock(&pool_lock);
		chunk_main(j);
		pthread_mutex_lock(&pool_lock);
		if (--b->left == 0)
			pthread_cond_signal(&b->done);
	}
	return NULL;
}

/* Run the jobs on the pool's threads, all at once; false if no thread could start. */
static bool
run_jobs(chunk_job *jobs, int k)
{
	job_batch	b = {jobs, k, k, PTHREAD_COND_INITIALIZER, NULL};
	job_batch **tail;
	int			queued[POOL_SLOTS] = {0};
	bool		ok = true;

	pthread_mutex_lock(&pool_lock);
	for (tail = &queue_head; *tail != NULL; tail = &(*tail)->queue_next)
		for (int c = 0; c < (*tail)->k; c++)
			if (!(*tail)->jobs[c].taken)
				queued[slot_of((*tail)->jobs[c].device)]++;
	*tail = &b;
	for (int c = 0; c < k; c++)
		queued[slot_of(jobs[c].device)]++;
	/* enough threads of each device for every job of it waiting, this join's included */
	for (int c = 0; c < k; c++)
	{
		int			slot = slot_of(jobs[c].device);

		while (pool_idle[slot] < queued[slot] && pool_total < POOL_MAX)
		{
			pthread_t	tid;
			pthread_attr_t attr;
			sigset_t	old;
			int			rc;

			exg_signals_block(&old);
			pthread_attr_init(&attr);
			pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
			rc = pthread_create(&tid, &attr, pool_main, (void *) (intptr_t) slot);
			pthread_attr_destroy(&attr);
			exg_signals_restore(&old);
			if (rc != 0)
				break;
			pool_threads[slot]++;
			pool_total++;
			queued[slot]--;		/* the new thread takes one */
		}
		/* a device with no thread at all would never run its jobs */
		if (pool_threads[slot] == 0)
			ok = false;
	}
	if (!ok)
	{
		/* a device without a thread: take the join back out of the queue */
		for (tail = &queue_head; *tail != &b; tail = &(*tail)->queue_next)
			;
		*tail = b.queue_next;
	}
	else
	{
		pthread_cond_broadcast(&pool_wake);
		while (b.left > 0)
			pthread_cond_wait(&b.done, &pool_lock);
		for (tail = &queue_head; *tail != &b; tail = &(*tail)->queue_next)
			;
		*tail = b.queue_next;
	}
	pthread_mutex_unlock(&pool_lock);
	pthread_cond_destroy(&b.done);
	return ok;
}

static void
jobs_free(chunk_job *jobs, int k)
{
	for (int c = 0; c < k; c++)
		free(jobs[c].rows);
	free(jobs);
}

exg_status
exg_batch_join_devices(exg_batch *L, const exg_batch *R, exg_batch_join_mode mode,
					   const int *devices, int nchunks, int split_side,
					   const exg_join_options *opt, uint64_t **rows_out, size_t *nrows_out,
					   exg_join_stats *stats, exg_join_stats *chunk_stats, exg_error *err)
{
	exg_join_options base;
	exg_join_stats local;
	join_road	road = ROAD_JOIN;
	const exg_batch *S;
	chunk_job  *jobs;
	size_t	   *bound;
	exg_batch  *views,
				staged;
	bool		stage_held = false;
	int			k = nchunks,
				failed = -1,
				share;
	uint64_t	t0 = exg_now_ns();
	exg_status	st = EXG_OK;

	exg_trace_mark("devices: start");
	*rows_out = NULL;
	*nrows_out = 0;
	if (stats == NULL)
		stats = &local;
	memset(stats, 0, sizeof(*stats));
	if (devices == NULL || nchunks < 1)
		return exg_fail(err, EXG_ERR_ARGUMENT, "a join over devices needs at least one device");
	if (opt)
		base = *opt;
	else
		exg_join_options_default(&base);

	/* the road, once, before any thread reads the batches (set_volumes writes L) */
	switch (mode)
	{
		case EXG_BATCH_LOCATE:
			road = ROAD_LOCATE;
			break;
		case EXG_BATCH_VOLUMES:
			if (exg_batch_only_points(R))
				road = ROAD_LOCATE_IN;
			else
				exg_batch_set_volumes(L);
			break;
		case EXG_BATCH_INTERSECTS:
			break;
	}

	/*
	 * The side cut in ranges: the one asked for; else the one with more
	 * primitives, unless that side lives on the devices (the resident
	 * bodies, kept: each device keeps them prepared, boxed and gridded,
	 * exg_gpu_kept_derived) and the join is of primitives, when the other
	 * one is cut, so that each device does its share of what is new.
	 */
	if (split_side != 0 && split_side != 1)
	{
		const exg_batch *big = R->nprims > L->nprims ? R : L;

		split_side = big == R ? 1 : 0;
		if (road == ROAD_JOIN && devices[0] >= 0 && kept_on_devices(big))
		{
			split_side = 1 - split_side;
			if (nchunks > 1 && nchunks * NEW_SIDE_RANGES <= NEW_SIDE_RANGES_MAX)
				k = nchunks * NEW_SIDE_RANGES;
		}
	}
	S = split_side ? R : L;
	/* a batch's rows are runs in order (batch.h): ranges of whole rows */
	if (S->nprims < (size_t) k)
		k = 1;

	/* each range its share of the CPU's threads (for GMP, merges) */
	share = base.worker_threads > 0 ? base.worker_threads : exg_cpu_count();
	share = share / k > 0 ? share / k : 1;

	jobs = calloc((size_t) k, sizeof(chunk_job));
	bound = calloc((size_t) k + 1, sizeof(size_t));
	views = calloc((size_t) k, sizeof(exg_batch));
	if (jobs == NULL || bound == NULL || views == NULL)
	{
		free(jobs);
		free(bound);
		free(views);
		return exg_fail(err, EXG_ERR_NOMEM, "out of memory splitting a join over devices");
	}
	range_bounds(S, k, bound);
	{
		/*
		 * The side every range joins whole, staged once for every GPU where
		 * it pays; where that one is kept there (the resident bodies), the
		 * side cut, from which each range copies the vertices it reads
		 * (slice_of).
		 */
		const exg_batch *W = split_side ? L : R,
				   *C = S;

		if (k > 1 && devices[0] >= 0 && pthread_mutex_trylock(&stage_lock) == 0)
		{
			stage_held = true;
			if (stage_whole(W, &staged))
				W = &staged;
			else if (kept_on_devices(W) && stage_whole(S, &staged))
				C = &staged;
		}
		for (int c = 0; c < k; c++)
		{
			views[c] = k == 1 ? *C : slice_of(C, bound[c], bound[c + 1]);
			jobs[c].road = road;
			jobs[c].L = split_side ? W : &views[c];
			jobs[c].R = split_side ? &views[c] : W;
			jobs[c].device = devices[c % nchunks];
			jobs[c].opt = base;
			jobs[c].opt.worker_threads = share;
			jobs[c].cancel = exg_cancel_source_get();
			jobs[c].status = EXG_OK;
		}
	}

	exg_trace_mark("devices: jobs queued");
	if (!run_jobs(jobs, k))
	{
		if (stage_held)
			pthread_mutex_unlock(&stage_lock);
		jobs_free(jobs, k);
		free(bound);
		free(views);
		return exg_fail(err, EXG_ERR_NOMEM, "could not start a thread for the devices");
	}
	for (int c = 0; c < k; c++)
		if (jobs[c].status != EXG_OK && (failed < 0 || jobs[c].status == EXG_ERR_INTERRUPTED))
			failed = c;
	/* no range reads the staged copy any more (a rerun below joins L and R) */
	if (stage_held)
		pthread_mutex_unlock(&stage_lock);

	if (failed >= 0 && jobs[failed].status != EXG_ERR_INTERRUPTED && k > 1)
	{
		/*
		 * A range failed: the whole join once more, on the first device, so
		 * that the error (and the row it names) is the one exg_batch_join_as
		 * reports, whichever range met it first.
		 */
		chunk_job	whole = jobs[0];

		whole.L = L;
		whole.R = R;
		whole.rows = NULL;
		whole.nrows = 0;
		whole.taken = false;
		memset(&whole.stats, 0, sizeof(whole.stats));
		memset(&whole.err, 0, sizeof(whole.err));
		whole.opt.worker_threads = base.worker_threads;
		jobs_free(jobs, k);
		jobs = calloc(1, sizeof(chunk_job));
		if (jobs == NULL)
		{
			free(whole.rows);
			free(bound);
			free(views);
			return exg_fail(err, EXG_ERR_NOMEM, "out of memory joining over devices");
		}
		jobs[0] = whole;
		k = 1;
		failed = -1;
		if (!run_jobs(jobs, 1))
		{
			jobs_free(jobs, 1);
			free(bound);
			free(views);
			return exg_fail(err, EXG_ERR_NOMEM, "could not start a thread for the devices");
		}
		if (jobs[0].status != EXG_OK)
			failed = 0;
	}
	if (failed >= 0)
	{
		if (err)
			*err = jobs[failed].err;
		st = jobs[failed].status;
	}
	else
	{
		exg_trace_mark("devices: jobs done");
		*rows_out = merge_runs(jobs, k, nrows_out);
		exg_trace_mark("devices: merged");
		if (*rows_out == NULL)
			st = exg_fail(err, EXG_ERR_NOMEM, "out of memory merging a join over devices");
	}
	if (st == EXG_OK)
	{
		for (int c = 0; c < k; c++)
			stats_add(stats, &jobs[c].stats);
		memcpy(stats->grid_dims, jobs[0].stats.grid_dims, sizeof(stats->grid_dims));
		device_names(jobs, k, stats->device_name, sizeof(stats->device_name));
		if (chunk_stats)
		{
			/* a listed device's ranges summed; its wall time the longest */
			memset(chunk_stats, 0, sizeof(exg_join_stats) * (size_t) nchunks);
			for (int c = 0; c < k; c++)
			{
				exg_join_stats *to = &chunk_stats[c % nchunks];

				if (c < nchunks)
					*to = jobs[c].stats;
				else
				{
					stats_add(to, &jobs[c].stats);
					if (jobs[c].stats.total_ns > to->total_ns)
						to->total_ns = jobs[c].stats.total_ns;
				}
			}
		}
	}
	stats->total_ns = exg_now_ns() - t0;
	jobs_free(jobs, k);
	free(bound);
	free(views);
	return st;
}
