/*
 * gpu_runtime.cuh — the CUDA context of a process, as the join uses it.
 *
 * One device, one stream, a stream-ordered memory pool that keeps freed
 * memory for the next join (so repeated joins do not pay cudaMalloc), and
 * grow-only pinned host buffers for transfers (pageable copies run at a
 * seventh of the pinned bandwidth). Failures are thrown as exg_gpu_error
 * and turned into exg_status at the C boundary; an allocation failure is
 * its own type so that the join can shrink its chunks and retry.
 */
#ifndef EXG_GPU_RUNTIME_CUH
#define EXG_GPU_RUNTIME_CUH

#include <cuda_runtime.h>
#include <stddef.h>
#include <stdint.h>

#include <mutex>
#include <unordered_map>
#include <utility>
#include <vector>

#include "exg_status.h"
#include "trace.h"

struct exg_gpu_error
{
	exg_status	status;
	char		message[EXG_ERROR_MESSAGE_LEN];
};

struct exg_gpu_oom
{
	size_t		bytes;
};

/* Throw on a CUDA error; cudaErrorMemoryAllocation throws exg_gpu_oom. */
void		exg_cuda_check(cudaError_t rc, const char *what);

#define EXG_CUDA(call) exg_cuda_check((call), #call)

/* Pinned host staging: grow-only per slot, kept with the context. */
enum exg_pinned_slot
{
	EXG_PINNED_UPLOAD = 0,		/* the box join's two upload halves (the
								 * other joins upload through the ring) */
	EXG_PINNED_DOWNLOAD,
	EXG_PINNED_PAIRS,			/* the box join's pairs on their way to the sink */
	EXG_PINNED_COUNTERS,		/* small per-chunk counters */
	EXG_PINNED_SCAN,			/* the box join's scan of its work items (its own slot:
								 * the exact join holds DOWNLOAD around a box join) */
	EXG_PINNED_SUMMARY,			/* a box summary's per-block parts */
	EXG_PINNED_SLOTS
};
#define EXG_RING_PIECES 4
#define EXG_SPARE_EVENTS 64

/*
 * A context: one device, its streams, and what a thread's joins hold
 * between joins (grow-only pinned buffers, the upload ring, the result
 * buffer lent to the caller). A process that never binds a thread has one,
 * on device 0, as before; a thread bound to a device
 * (exg_gpu_thread_bind, gpu.h) takes one of its own from a pool kept per
 * device, so that threads join side by side. The device's stream-ordered
 * memory pool is shared by the contexts of a device.
 */
struct exg_gpu_context
{
	int			device;
	cudaStream_t stream;
	cudaStream_t copy_stream;
	size_t		total_memory;
	char		name[96];
	void	   *pinned[EXG_PINNED_SLOTS];
	size_t		pinned_size[EXG_PINNED_SLOTS];
	char	   *ring;			/* EXG_RING_PIECES pieces of ring_piece bytes */
	size_t		ring_piece;
	unsigned	ring_next;
	cudaEvent_t ring_done[EXG_RING_PIECES];
	bool		ring_registered;	/* registered pages, else cudaHostAlloc's */
	void	   *lent;			/* exg_pinned_lend's buffer */
	size_t		lent_size;
	bool		lent_out;		/* under the registry's lock */
	bool		taken;			/* bound to a thread now (pooled contexts) */
	bool		is_default;		/* the process's unbound context */
	cudaEvent_t spare_events[EXG_SPARE_EVENTS];	/* timing events for the next joins */
	int			nspare;

	/*
	 * Device blocks of the context's stream kept for its next joins
	 * (gpu_cache.cu): a join allocates some 30 buffers, and each
	 * cudaMallocAsync took 15-20 us of host time between two of the
	 * device's steps. Under cache_lock: the process's default context
	 * serves every unbound thread, and any thread trims.
	 */
	std::mutex	cache_lock;
	std::unordered_map<void *, size_t> cache_out;	/* handed out: their size class */
	std::vector<std::pair<void *, size_t>> cache_free;	/* oldest first */
	size_t		cache_bytes = 0;
};

/* The contexts made on device so far (they live as long as the process). */
std::vector<exg_gpu_context *> exg_gpu_contexts_of(int device);

/* Adds to exg_gpu_setup_ns (gpu.h): time spent setting the GPU up. */
extern "C" void exg_gpu_setup_add(uint64_t ns);

/*
 * The calling thread's context: its bound one, else the process's default
 * (device 0), created on first use (never in the postmaster).
 */
exg_gpu_context *exg_gpu_context_get();

/* The calling thread's context if it has one already (never creates; may be NULL). */
exg_gpu_context *exg_gpu_context_current();

/*
 * A timing event of the calling thread's context, and back: a join times
 * its phases with some 30 events, and creating and destroying them took
 * about 60 us of a 4 ms join; the context keeps them for the next one.
 */
cudaEvent_t exg_gpu_event_take();
void		exg_gpu_event_give(cudaEvent_t e);

/* n of them into e (all given back if one cannot be had, and the error thrown), and back */
void		exg_gpu_events_take(cudaEvent_t *e, int n);
void		exg_gpu_events_give(cudaEvent_t *e, int n);

/*
 * A trace mark after the GPU work queued on s (trace.h): when tracing, the
 * stream is waited for first, so that the mark ends that work's own time.
 */
void		exg_trace_sync_slow(cudaStream_t s, const char *label);

inline void
exg_trace_sync(cudaStream_t s, const char *label)
{
	if (exg_trace_on)
		exg_trace_sync_slow(s, label);
}

/*
 * Wait for the calling thread's stream (never throws): at the end of a
 * join, so that the frees its buffers queued are done and the pool's
 * in-use count is back where it was (exg_gpu_memory_info) when it returns.
 */
void		exg_gpu_stream_idle();

/*
 * The keep cache (gpu_keep.cu, gpu.h's exg_gpu_keep): the device copy of
 * kept host memory holding [host, host + bytes) on the calling thread's
 * device, uploaded on first use, pinned against eviction until
 * exg_gpu_kept_release(*ref); NULL when the range is not kept or there is
 * no room for it (the caller uploads as usual).
 */
void	   *exg_gpu_kept_acquire(const void *host, size_t bytes, void **ref);
void		exg_gpu_kept_release(void *ref);

/*
 * Device memory derived from the kept copy ref (which the caller holds)
 * and kept with it, under the keep budget: the block of key. Found: it is
 * returned, ready in the order of stream s, its size in *bytes, *make
 * false. Not found: *bytes are allocated and returned with *make true; the
 * caller fills them on s, then calls exg_gpu_kept_derived_done(ref, p, s,
 * ok) (ok false: it is freed). NULL: no room, or another join is making it
 * (the caller makes its own, not kept). make NULL: a lookup alone, of a
 * block of any size.
 */
void	   *exg_gpu_kept_derived(void *ref, const uint64_t key[4], size_t *bytes, cudaStream_t s,
								 bool *make);
void		exg_gpu_kept_derived_done(void *ref, void *p, cudaStream_t s, bool ok);

/*
 * The host's copy of a derived block's header (what its maker knew on the
 * host: a box, a summary, a grid), so that a join that finds the block
 * reads it without a copy back and a wait: set (by the maker) or read
 * (false: none of n bytes was set).
 */
#define EXG_KEPT_HEAD_MAX 256
bool		exg_gpu_kept_derived_head(void *ref, const void *p, void *head, size_t n, bool set);

/*
 * Free device memory held by kept copies on device no one uses now, least
 * recently used first, until at least bytes are freed; returns the bytes
 * freed. Bytes of such copies: exg_gpu_kept_evictable.
 */
size_t		exg_gpu_kept_evict(int device, size_t bytes);
size_t		exg_gpu_kept_evictable(int device);

/*
 * Make device the calling thread's current one for a moment (a report, a
 * free of a kept copy); exg_gpu_device_leave(device, the returned value)
 * gives the thread its device back where this process uses it.
 */
int			exg_gpu_device_enter(int device);
void		exg_gpu_device_leave(int device, int prev);

/*
 * Stream-ordered device allocation from the pool, in the order of the
 * context's stream (exg_gpu_alloc_on: of stream s, for an upload on another
 * stream); freed with exg_gpu_free, on the context's stream. Small blocks
 * of the context's stream go back to the context's cache instead, for its
 * next allocation of their size class (in the same stream order).
 */
void	   *exg_gpu_alloc(size_t bytes);
void	   *exg_gpu_alloc_on(size_t bytes, cudaStream_t s);
void		exg_gpu_free(void *p);

/* Whether device's pool is set up in this process (a context was made on it). */
bool		exg_gpu_device_ready(int device);

/*
 * Each context's cache of its stream's blocks (gpu_cache.cu): whether a
 * block of bytes is cached, its size class, a cached block of that class
 * (null if none), p handed out as of class bytes (0: not of the cache),
 * and p back into c's cache (false: not of the cache, or no room to note
 * it: free it to the pool).
 */
bool		exg_gpu_cache_serves(size_t bytes);
size_t		exg_gpu_cache_class(size_t bytes);
void	   *exg_gpu_cache_take(exg_gpu_context *c, size_t bytes);
void		exg_gpu_cache_note(exg_gpu_context *c, void *p, size_t bytes);
bool		exg_gpu_cache_put(exg_gpu_context *c, void *p);

/* Bytes in the caches of device's contexts: free for any join, given back on demand. */
size_t		exg_gpu_cached_bytes(int device);

/*
 * Every cache of device's contexts back to the pool (in their streams'
 * order; wait: and those streams waited for, so that the pool can give the
 * memory to the driver); the bytes given back.
 */
size_t		exg_gpu_cache_trim(int device, bool wait);

/* A device array freed when it goes out of scope (errors included). */
template <typename T>
struct exg_dbuf
{
	T		   *p = nullptr;
	size_t		n = 0;
	void	   *kept = nullptr;	/* p is a kept copy (exg_gpu_upload_array), not ours */
	bool		lent = false;	/* p is someone else's (derived from a kept copy) */

	exg_dbuf() = default;
	explicit exg_dbuf(size_t count) { alloc(count); }
	exg_dbuf(const exg_dbuf &) = delete;
	exg_dbuf &operator=(const exg_dbuf &) = delete;
	~exg_dbuf() { release(); }
	/* on: the stream the memory is first used on (nullptr: the context's) */
	void		alloc(size_t count, cudaStream_t on = nullptr)
	{
		release();
		p = static_cast<T *>(exg_gpu_alloc_on(sizeof(T) * (count ? count : 1), on));
		n = count;
	}
	/* p lent by its owner: never freed through this */
	void		lend(T *q, size_t count)
	{
		release();
		p = q;
		n = count;
		lent = true;
	}
	void		release()
	{
		if (kept)
			exg_gpu_kept_release(kept);
		else if (p && !lent)
			exg_gpu_free(p);
		p = nullptr;
		n = 0;
		kept = nullptr;
		lent = false;
	}
};

/*
 * A block derived from a kept copy (exg_gpu_kept_derived), given back when
 * it goes out of scope: as made where done() was called, else freed.
 */
struct exg_gpu_derived
{
	void	   *ref = nullptr;
	char	   *p = nullptr;
	bool		make = false;
	cudaStream_t s = nullptr;
	size_t		bytes = 0;

	exg_gpu_derived() = default;
	exg_gpu_derived(const exg_gpu_derived &) = delete;
	exg_gpu_derived &operator=(const exg_gpu_derived &) = delete;

	/* the block of key on ref's copy, found or to make (of n bytes); false: none */
	bool		find(void *kept_ref, const uint64_t key[4], size_t n, cudaStream_t on)
	{
		ref = kept_ref;
		s = on;
		bytes = n;
		p = kept_ref ? (char *) exg_gpu_kept_derived(kept_ref, key, &bytes, on, &make) : nullptr;
		return p != nullptr;
	}
	/* the block of key if made already (its size in bytes) */
	bool		lookup(void *kept_ref, const uint64_t key[4], cudaStream_t on)
	{
		ref = kept_ref;
		s = on;
		p = kept_ref ? (char *) exg_gpu_kept_derived(kept_ref, key, &bytes, on, nullptr) : nullptr;
		return p != nullptr;
	}
	/* its header's host copy: read (false: none), or set by its maker */
	bool		head(void *out, size_t n) const
	{
		return exg_gpu_kept_derived_head(ref, p, out, n, false);
	}
	void		set_head(const void *in, size_t n) const
	{
		(void) exg_gpu_kept_derived_head(ref, p, const_cast<void *>(in), n, true);
	}
	/* made: its kernels are queued on s */
	void		done()
	{
		if (make)
			exg_gpu_kept_derived_done(ref, p, s, true);
		make = false;
	}
	~exg_gpu_derived()
	{
		if (make)
			exg_gpu_kept_derived_done(ref, p, s, false);
	}
};

void	   *exg_pinned_get(exg_pinned_slot slot, size_t bytes);

/*
 * The result buffer lent to the caller of a join (pinned, so results come
 * back at full PCIe speed and with no extra copy): NULL while the previous
 * one is still on loan. exg_pinned_return gives it back; false if p is not it.
 */
void	   *exg_pinned_lend(size_t bytes);
bool		exg_pinned_return(void *p);

/*
 * Pageable host bytes to the device (on stream s) through a ring of pinned
 * pieces: the worker pool fills one piece while the DMA engine drains the
 * others, and a piece is refilled only after its copy is done. The ring is
 * sized to the job up to 4 x 32 MB and kept for the process, so a join of
 * any size pins at most 128 MB (pinning a whole 1.3 GB input took 0.5-0.7 s
 * on the H100 machine, and held it for the backend's life).
 */
void		exg_gpu_upload_pageable(void *dst, const void *src, size_t n, cudaStream_t s);

/* The calling thread's ring grown now for an upload of n bytes (exg_gpu_thread_prepare). */
void		exg_gpu_ring_reserve(size_t n);

/* n bytes to the device: as is when pinned (exg_host_direct), else through the ring. */
void		exg_gpu_upload_bytes(void *dst, const void *src, size_t n, cudaStream_t s);

/*
 * count elements at src into d: the kept device copy when src lies in
 * kept memory (d borrows it; nothing is copied), else a new array of d's
 * filled by exg_gpu_upload_bytes from element first on (those before it
 * are left unset: no one reads them), both in the order of stream s (on a
 * stream other than the context's, that stream must wait for s before it
 * uses or frees d). Every upload of a join's input that may come from the
 * resident store goes through here.
 */
template <typename T>
void
exg_gpu_upload_array(exg_dbuf<T> &d, const T *src, size_t count, cudaStream_t s,
					 size_t first = 0)
{
	size_t		bytes = sizeof(T) * count;
	void	   *ref = nullptr;

	d.release();
	if (bytes > 0)
	{
		T		   *dev = static_cast<T *>(exg_gpu_kept_acquire(src, bytes, &ref));

		if (dev != nullptr)
		{
			d.p = dev;
			d.n = count;
			d.kept = ref;
			return;
		}
	}
	d.alloc(count, s);
	first = first < count ? first : count;
	exg_gpu_upload_bytes(d.p + first, src + first, sizeof(T) * (count - first), s);
}

/* Is p page-locked host memory (so it can be copied to the device as is)? */
bool		exg_is_pinned(const void *p);

/*
 * May [p, p + n) be copied to the device as is? Yes when it lies in pinned
 * memory: a cudaHostAlloc'ed buffer, or memory the caller declared lasting
 * (exg_host_lasting), which this pins on first use and keeps pinned.
 */
bool		exg_host_direct(const void *p, size_t n);

/* Bytes the join may use now: the caller's limit, else 80% of free memory. */
size_t		exg_gpu_budget(size_t limit);

/*
 * Throw EXG_ERR_DEVICE_MEMORY when the device itself (whatever the caller's
 * limit) has less than EXG_GPU_ROOM_MIN bytes for joins, counting what this
 * process's joins hold there now: its memory is held by another process,
 * and halving a join would only repeat the failure, on grids made coarse to
 * fit (seconds, where the CPU takes milliseconds).
 */
#define EXG_GPU_ROOM_MIN ((size_t) 64 << 20)
void		exg_gpu_room_check();

/*
 * The last index c < n with starts[c] <= x, for a non-decreasing starts
 * with starts[0] <= x: the owner of slot x in a scan of per-owner counts
 * (owners with no slots share their start with the next one, and lose).
 */
__device__ __forceinline__ uint32_t
exg_owner_of(const uint64_t *starts, uint32_t n, uint64_t x)
{
	uint32_t	lo = 0,
				hi = n - 1;

	while (lo < hi)
	{
		uint32_t	mid = lo + (hi - lo + 1) / 2;

		if (starts[mid] <= x)
			lo = mid;
		else
			hi = mid - 1;
	}
	return lo;
}

#endif							/* EXG_GPU_RUNTIME_CUH */
