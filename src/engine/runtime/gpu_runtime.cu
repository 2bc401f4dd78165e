/*
 * gpu_runtime.cu — the process's CUDA context, memory pool and pinned buffers.
 */
#include "gpu_runtime.cuh"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <atomic>
#include <mutex>
#include <vector>

#include <pthread.h>

#include "gpu.h"
#include "host_copy.h"
#include "stats.h"
#include "worker_signals.h"

void
exg_cuda_check(cudaError_t rc, const char *what)
{
	if (rc == cudaSuccess)
		return;
	(void) cudaGetLastError();	/* clear a non-sticky error */
	if (rc == cudaErrorMemoryAllocation)
		throw		exg_gpu_oom{0};

	exg_gpu_error e;

	e.status = EXG_ERR_DEVICE;
	snprintf(e.message, sizeof(e.message), "%s: %s", what, cudaGetErrorString(rc));
	throw		e;
}

/*
 * Contexts: the process's default one (threads never bound) and those of
 * bound threads, pooled per device (a thread that unbinds gives its own
 * back with its pinned buffers, for the next thread to bind). All of them
 * are in `contexts`, for lent buffers returned from any thread and for the
 * per-device memory report.
 */
static std::mutex registry_lock;
static std::vector<exg_gpu_context *> contexts;
static std::atomic<exg_gpu_context *> default_context;
static thread_local exg_gpu_context *bound;
static pthread_key_t bound_key;
static pthread_once_t bound_key_once = PTHREAD_ONCE_INIT;

/* Per device: its pool set to keep freed memory (once), seen by a context. */
#define DEVICES_MAX 64
static bool device_ready[DEVICES_MAX];

/* cudaHostAlloc, timed as setup: pinning is slow (~0.4 ms a MB on the H100 machine). */
static cudaError_t
host_alloc_timed(void **p, size_t bytes)
{
	uint64_t	t0 = exg_now_ns();
	/* portable: a buffer of a context of one device may serve another's copies */
	cudaError_t rc = cudaHostAlloc(p, bytes, cudaHostAllocPortable);

	exg_gpu_setup_add(exg_now_ns() - t0);
	return rc;
}

/* Make device the calling thread's current one, without the host's signals. */
static void
set_device(int device)
{
	/* the first use of a device starts CUDA threads: they must not take the host's signals */
	sigset_t	old;

	exg_signals_block(&old);
	cudaError_t rc = cudaSetDevice(device);

	exg_signals_restore(&old);
	EXG_CUDA(rc);
}

/* A context on device; a bound one's name says which device (joins report it). */
static exg_gpu_context *
context_create(int device, bool bound_one)
{
	uint64_t	t0 = exg_now_ns();
	exg_gpu_context *c = new exg_gpu_context();
	cudaDeviceProp prop;
	size_t		free_b;

	c->device = device;
	try
	{
		set_device(device);
		EXG_CUDA(cudaGetDeviceProperties(&prop, device));
		if (bound_one)
			snprintf(c->name, sizeof(c->name), "GPU %d: %.80s", device, prop.name);
		else
			snprintf(c->name, sizeof(c->name), "%s", prop.name);
		EXG_CUDA(cudaStreamCreateWithFlags(&c->stream, cudaStreamNonBlocking));
		EXG_CUDA(cudaStreamCreateWithFlags(&c->copy_stream, cudaStreamNonBlocking));
		if (device < DEVICES_MAX)
		{
			std::lock_guard<std::mutex> g(registry_lock);

			if (!device_ready[device])
			{
				/* Keep freed blocks in the pool between joins instead of returning them. */
				cudaMemPool_t pool;
				uint64_t	threshold = UINT64_MAX;

				EXG_CUDA(cudaDeviceGetDefaultMemPool(&pool, device));
				EXG_CUDA(cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &threshold));
				device_ready[device] = true;
			}
		}
		EXG_CUDA(cudaMemGetInfo(&free_b, &c->total_memory));
	}
	catch (...)
	{
		if (c->stream)
			(void) cudaStreamDestroy(c->stream);
		if (c->copy_stream)
			(void) cudaStreamDestroy(c->copy_stream);
		delete c;
		exg_gpu_setup_add(exg_now_ns() - t0);
		throw;
	}
	exg_gpu_setup_add(exg_now_ns() - t0);
	return c;
}

/*
 * Whether the calling thread's current device is the default context's:
 * set when it is made so, cleared when binding (or a report) moves it.
 */
static thread_local bool on_default_device;
static std::mutex default_lock;

exg_gpu_context *
exg_gpu_context_get()
{
	exg_gpu_context *c = bound;

	if (c)
		return c;
	c = default_context.load();
	if (c == nullptr)
	{
		std::lock_guard<std::mutex> g(default_lock);	/* one default, whoever asks first */

		c = default_context.load();
		if (c == nullptr)
		{
			c = context_create(0, false);
			c->is_default = true;
			{
				std::lock_guard<std::mutex> r(registry_lock);

				contexts.push_back(c);
			}
			default_context.store(c);
			on_default_device = true;
		}
	}
	/* a thread that was bound, or that another thread's default found first */
	if (!on_default_device)
	{
		set_device(c->device);
		on_default_device = true;
	}
	return c;
}

std::vector<exg_gpu_context *>
exg_gpu_contexts_of(int device)
{
	std::vector<exg_gpu_context *> v;
	std::lock_guard<std::mutex> g(registry_lock);

	for (exg_gpu_context *c : contexts)
		if (c->device == device)
			v.push_back(c);
	return v;
}

exg_gpu_context *
exg_gpu_context_current()
{
	return bound ? bound : default_context.load();
}

cudaEvent_t
exg_gpu_event_take()
{
	exg_gpu_context *c = exg_gpu_context_get();
	cudaEvent_t e;

	if (c->nspare > 0)
		return c->spare_events[--c->nspare];
	EXG_CUDA(cudaEventCreate(&e));
	return e;
}

void
exg_gpu_events_take(cudaEvent_t *e, int n)
{
	for (int i = 0; i < n; i++)
		e[i] = nullptr;
	try
	{
		for (int i = 0; i < n; i++)
			e[i] = exg_gpu_event_take();
	}
	catch (...)
	{
		exg_gpu_events_give(e, n);
		throw;
	}
}

void
exg_gpu_events_give(cudaEvent_t *e, int n)
{
	for (int i = 0; i < n; i++)
	{
		exg_gpu_event_give(e[i]);
		e[i] = nullptr;
	}
}

void
exg_gpu_event_give(cudaEvent_t e)
{
	exg_gpu_context *c = exg_gpu_context_current();

	if (e == nullptr)
		return;
	if (c && c->nspare < EXG_SPARE_EVENTS)
		c->spare_events[c->nspare++] = e;
	else
		(void) cudaEventDestroy(e);
}

void
exg_trace_sync_slow(cudaStream_t s, const char *label)
{
	/* per device, the thread's last mark's event and its stream: the GPU's own time between two */
	static thread_local cudaEvent_t ev[8][2];
	static thread_local cudaStream_t last_s[8];
	static thread_local int last[8];
	exg_gpu_context *c = exg_gpu_context_current();
	int			d = c && c->device >= 0 && c->device < 8 ? c->device : -1;
	float		ms = -1;
	bool		timed = false;

	/* never with an error pending: the join's own check must see it (it is not cleared here) */
	if (cudaPeekAtLastError() != cudaSuccess)
		return;
	if (d >= 0 && ev[d][0] == nullptr &&
		(cudaEventCreate(&ev[d][0]) != cudaSuccess || cudaEventCreate(&ev[d][1]) != cudaSuccess))
		ev[d][0] = nullptr;
	if (d >= 0 && ev[d][0])
		timed = cudaEventRecord(ev[d][last[d] ^ 1], s) == cudaSuccess;
	(void) cudaStreamSynchronize(s);
	if (timed && last_s[d] == s &&
		cudaEventElapsedTime(&ms, ev[d][last[d]], ev[d][last[d] ^ 1]) != cudaSuccess)
		ms = -1;
	(void) cudaGetLastError();
	if (timed)
	{
		last[d] ^= 1;
		last_s[d] = s;
	}
	exg_trace_record(label, c ? c->device : -1, ms);
}

void
exg_gpu_stream_idle()
{
	exg_gpu_context *c = exg_gpu_context_current();

	if (c && cudaStreamSynchronize(c->stream) != cudaSuccess)
		(void) cudaGetLastError();
}

int
exg_gpu_device_enter(int device)
{
	int			prev = -1;

	if (cudaGetDevice(&prev) != cudaSuccess)
	{
		(void) cudaGetLastError();
		prev = -1;
	}
	if (prev != device)
		(void) cudaSetDevice(device);
	(void) cudaGetLastError();
	return prev;
}

void
exg_gpu_device_leave(int device, int prev)
{
	bool		ready;

	if (prev == device)
		return;
	{
		std::lock_guard<std::mutex> g(registry_lock);

		ready = prev >= 0 && prev < DEVICES_MAX && device_ready[prev];
	}
	/*
	 * Back to the thread's device if this process uses it; never to one it
	 * does not (setting a device creates its context: memory and time on a
	 * GPU no join asked for). The default context sets its device again.
	 */
	if (ready)
		(void) cudaSetDevice(prev);
	else
		on_default_device = false;
	(void) cudaGetLastError();
}

/* A thread that ends bound gives its context back to the pool. */
static void
bound_thread_exit(void *p)
{
	exg_gpu_context *c = (exg_gpu_context *) p;
	std::lock_guard<std::mutex> g(registry_lock);

	c->taken = false;
}

static void
bound_key_create(void)
{
	(void) pthread_key_create(&bound_key, bound_thread_exit);
}

extern "C" int
exg_gpu_thread_device(void)
{
	return bound ? bound->device : -1;
}

extern "C" void
exg_gpu_thread_unbind(void)
{
	exg_gpu_context *c = bound;

	if (c == nullptr)
		return;
	/* its last copies and frees done before another thread takes it */
	(void) cudaStreamSynchronize(c->stream);
	(void) cudaStreamSynchronize(c->copy_stream);
	bound = nullptr;
	(void) pthread_setspecific(bound_key, nullptr);
	{
		std::lock_guard<std::mutex> g(registry_lock);

		c->taken = false;
	}
	/* the thread's current device is still the bound one: an unbound join sets it again */
	on_default_device = false;
}

extern "C" exg_status
exg_gpu_thread_bind(int device, exg_error *err)
{
	int			n;

	if (bound && bound->device == device)
		return EXG_OK;
	exg_gpu_thread_unbind();
	n = exg_gpu_device_count(err);
	if (n <= 0)
		return err ? err->status : EXG_ERR_DEVICE;
	if (device < 0 || device >= n || device >= DEVICES_MAX)
		return exg_fail(err, EXG_ERR_ARGUMENT, "no GPU %d: %d device%s visible", device, n,
						n == 1 ? "" : "s");
	pthread_once(&bound_key_once, bound_key_create);
	try
	{
		exg_gpu_context *c = nullptr;

		on_default_device = false;
		{
			std::lock_guard<std::mutex> g(registry_lock);

			for (exg_gpu_context *k : contexts)
				if (!k->is_default && !k->taken && k->device == device)
				{
					c = k;
					c->taken = true;
					break;
				}
		}
		if (c)
		{
			try
			{
				set_device(device);
			}
			catch (...)
			{
				std::lock_guard<std::mutex> g(registry_lock);

				c->taken = false;
				throw;
			}
		}
		else
		{
			c = context_create(device, true);
			c->taken = true;
			std::lock_guard<std::mutex> g(registry_lock);

			contexts.push_back(c);
		}
		bound = c;
		(void) pthread_setspecific(bound_key, c);
		return EXG_OK;
	}
	catch (exg_gpu_error &e)
	{
		return exg_fail(err, e.status, "binding GPU %d: %s", device, e.message);
	}
	catch (exg_gpu_oom &)
	{
		return exg_fail(err, EXG_ERR_DEVICE_MEMORY, "binding GPU %d: out of GPU memory", device);
	}
	catch (std::bad_alloc &)
	{
		return exg_fail(err, EXG_ERR_NOMEM, "binding GPU %d: out of host memory", device);
	}
}

void *
exg_pinned_get(exg_pinned_slot slot, size_t bytes)
{
	exg_gpu_context *c = exg_gpu_context_get();

	if (bytes <= c->pinned_size[slot])
		return c->pinned[slot];
	if (c->pinned[slot])
		(void) cudaFreeHost(c->pinned[slot]);
	c->pinned[slot] = nullptr;
	c->pinned_size[slot] = 0;
	/* Round up generously: pinning is slow, so grow rarely. */
	size_t		want = bytes + bytes / 2 + (1 << 20);

	EXG_CUDA(host_alloc_timed(&c->pinned[slot], want));
	c->pinned_size[slot] = want;
	return c->pinned[slot];
}

#define RING_PIECE_MAX ((size_t) 32 << 20)
#define RING_ROUND ((size_t) 1 << 20)

/*
 * The ring's memory: pages touched here, then registered with the driver,
 * which pins them in a tenth of cudaHostAlloc's time (H100 machine, 64 MB:
 * 4 ms against 27-42 ms; touching them is a few ms more). Where registering
 * is refused, cudaHostAlloc.
 */
static void
ring_alloc(exg_gpu_context *c, size_t bytes)
{
	uint64_t	t0 = exg_now_ns();
	void	   *p = nullptr;

	if (posix_memalign(&p, 1 << 21, bytes) == 0)
	{
		memset(p, 0, bytes);
		if (cudaHostRegister(p, bytes, cudaHostRegisterPortable) == cudaSuccess)
		{
			c->ring = (char *) p;
			c->ring_registered = true;
			exg_gpu_setup_add(exg_now_ns() - t0);
			return;
		}
		(void) cudaGetLastError();
		free(p);
		p = nullptr;
	}
	exg_gpu_setup_add(exg_now_ns() - t0);
	/* ring stays NULL if this throws: never a stale pointer for ring_free */
	EXG_CUDA(host_alloc_timed(&p, bytes));
	c->ring = (char *) p;
	c->ring_registered = false;
}

static void
ring_free(exg_gpu_context *c)
{
	if (c->ring && c->ring_registered)
	{
		(void) cudaHostUnregister(c->ring);
		free(c->ring);
	}
	else if (c->ring)
		(void) cudaFreeHost(c->ring);
	c->ring = nullptr;
	c->ring_piece = 0;
}

/* The context's ring, grown (never shrunk) to pieces for an upload of n bytes. */
static void
ring_reserve(exg_gpu_context *c, size_t n)
{
	size_t		piece = (n + EXG_RING_PIECES - 1) / EXG_RING_PIECES;

	piece = (piece + RING_ROUND - 1) / RING_ROUND * RING_ROUND;
	if (piece > RING_PIECE_MAX)
		piece = RING_PIECE_MAX;
	for (int i = 0; i < EXG_RING_PIECES; i++)
		if (c->ring_done[i] == nullptr)
			EXG_CUDA(cudaEventCreateWithFlags(&c->ring_done[i], cudaEventDisableTiming));
	if (piece > c->ring_piece)
	{
		/* a bigger ring: the old one's copies finished first */
		for (int i = 0; i < EXG_RING_PIECES; i++)
			EXG_CUDA(cudaEventSynchronize(c->ring_done[i]));
		ring_free(c);
		ring_alloc(c, EXG_RING_PIECES * piece);
		c->ring_piece = piece;
	}
}

void
exg_gpu_ring_reserve(size_t n)
{
	if (n > 0)
		ring_reserve(exg_gpu_context_get(), n);
}

void
exg_gpu_upload_pageable(void *dst, const void *src, size_t n, cudaStream_t s)
{
	exg_gpu_context *c = exg_gpu_context_get();

	if (n == 0)
		return;
	ring_reserve(c, n);
	for (size_t off = 0; off < n; off += c->ring_piece)
	{
		size_t		len = n - off < c->ring_piece ? n - off : c->ring_piece;
		unsigned	k = c->ring_next;
		char	   *p = c->ring + (size_t) k * c->ring_piece;

		c->ring_next = (c->ring_next + 1) % EXG_RING_PIECES;
		EXG_CUDA(cudaEventSynchronize(c->ring_done[k]));
		exg_copy_parallel(p, (const char *) src + off, len);
		EXG_CUDA(cudaMemcpyAsync((char *) dst + off, p, len, cudaMemcpyHostToDevice, s));

		cudaError_t rc = cudaEventRecord(c->ring_done[k], s);

		/* without its event the piece's copy is untracked: wait for it here */
		if (rc != cudaSuccess)
			(void) cudaStreamSynchronize(s);
		exg_cuda_check(rc, "cudaEventRecord(ring_done[k], s)");
	}
}

void
exg_gpu_upload_bytes(void *dst, const void *src, size_t n, cudaStream_t s)
{
	if (n == 0)
		return;
	if (exg_host_direct(src, n))
		EXG_CUDA(cudaMemcpyAsync(dst, src, n, cudaMemcpyHostToDevice, s));
	else
		exg_gpu_upload_pageable(dst, src, n, s);
}

void *
exg_pinned_lend(size_t bytes)
{
	exg_gpu_context *c = exg_gpu_context_get();

	{
		std::lock_guard<std::mutex> g(registry_lock);

		if (c->lent_out)
			return nullptr;
	}
	if (bytes > c->lent_size)
	{
		if (c->lent)
			(void) cudaFreeHost(c->lent);
		c->lent = nullptr;
		c->lent_size = 0;
		size_t		want = bytes + bytes / 4 + (1 << 20);

		if (host_alloc_timed(&c->lent, want) != cudaSuccess)
		{
			(void) cudaGetLastError();
			c->lent = nullptr;
			return nullptr;
		}
		c->lent_size = want;
	}
	std::lock_guard<std::mutex> g(registry_lock);

	c->lent_out = true;
	return c->lent;
}

/* The lent buffer may come back on another thread than the join's: any context's. */
bool
exg_pinned_return(void *p)
{
	if (p == nullptr)
		return false;

	std::lock_guard<std::mutex> g(registry_lock);

	for (exg_gpu_context *c : contexts)
		if (c->lent == p && c->lent_out)
		{
			c->lent_out = false;
			return true;
		}
	return false;
}

bool
exg_is_pinned(const void *p)
{
	cudaPointerAttributes attr;

	if (cudaPointerGetAttributes(&attr, p) != cudaSuccess)
	{
		(void) cudaGetLastError();
		return false;
	}
	return attr.type == cudaMemoryTypeHost;
}

/*
 * Memory the caller keeps mapped for the process's life (exg_host_lasting),
 * and the parts of it pinned here: page-aligned, disjoint; under
 * lasting_lock, as any thread may join.
 */
struct host_range
{
	uintptr_t	lo,
				hi;
};
static std::vector<host_range> lasting;
static std::vector<host_range> lasting_pins;
/* The driver refused to pin lasting memory once: not asked again (slow to ask). */
static bool lasting_refused;
static std::mutex lasting_lock;

#define LASTING_MAX 64
/* Below this an array goes through the ring: as fast, and nothing pinned. */
#define LASTING_MIN_BYTES ((size_t) 4 << 20)

/* Add [lo, hi) to v, merged with the ranges it overlaps or touches. */
static void
range_merge(std::vector<host_range> &v, uintptr_t lo, uintptr_t hi)
{
	for (size_t i = 0; i < v.size();)
		if (v[i].lo <= hi && lo <= v[i].hi)
		{
			lo = v[i].lo < lo ? v[i].lo : lo;
			hi = v[i].hi > hi ? v[i].hi : hi;
			v.erase(v.begin() + i);
		}
		else
			i++;
	v.push_back({lo, hi});
}

extern "C" bool
exg_host_lasting(const void *p, size_t bytes)
{
	uintptr_t	lo = (uintptr_t) p;

	std::lock_guard<std::mutex> g(lasting_lock);

	if (p == nullptr || bytes == 0 || lasting.size() >= LASTING_MAX)
		return false;
	try
	{
		range_merge(lasting, lo, lo + bytes);
	}
	catch (...)
	{
		return false;
	}
	return true;
}

extern "C" size_t
exg_host_lasting_pinned_bytes(void)
{
	size_t		n = 0;
	std::lock_guard<std::mutex> g(lasting_lock);

	for (const host_range &r : lasting_pins)
		n += r.hi - r.lo;
	return n;
}

/* Every context's copies done: pages about to be unpinned may be read by any. */
static void
all_streams_idle()
{
	std::lock_guard<std::mutex> g(registry_lock);

	for (exg_gpu_context *c : contexts)
	{
		(void) cudaStreamSynchronize(c->stream);
		(void) cudaStreamSynchronize(c->copy_stream);
	}
}

/*
 * Pin the lasting range that holds [p, p + n), whole pages, merged with
 * the pins it overlaps (unpinned first, once the device is idle: a copy
 * may still read them). Its time counts as setup: paid once.
 */
static bool
lasting_pin(uintptr_t p, size_t n)
{
	uintptr_t	page = (uintptr_t) sysconf(_SC_PAGESIZE);
	uintptr_t	lo = 0,
				hi = 0;
	uint64_t	t0;
	bool		ok;

	for (const host_range &r : lasting)
		if (r.lo <= p && p + n <= r.hi)
		{
			lo = r.lo / page * page;
			hi = (r.hi + page - 1) / page * page;
			break;
		}
	if (hi == 0 || lasting_refused)
		return false;
	t0 = exg_now_ns();
	for (size_t i = 0; i < lasting_pins.size();)
		if (lasting_pins[i].lo < hi && lo < lasting_pins[i].hi)
		{
			all_streams_idle();
			(void) cudaHostUnregister((void *) lasting_pins[i].lo);
			lo = lasting_pins[i].lo < lo ? lasting_pins[i].lo : lo;
			hi = lasting_pins[i].hi > hi ? lasting_pins[i].hi : hi;
			lasting_pins.erase(lasting_pins.begin() + i);
		}
		else
			i++;
	ok = lasting_pins.size() < LASTING_MAX &&
		cudaHostRegister((void *) lo, hi - lo, cudaHostRegisterPortable) == cudaSuccess;
	if (ok)
		lasting_pins.push_back({lo, hi});
	else if (lasting_pins.size() < LASTING_MAX)
	{
		(void) cudaGetLastError();
		lasting_refused = true;
	}
	exg_gpu_setup_add(exg_now_ns() - t0);
	return ok;
}

bool
exg_host_direct(const void *p, size_t n)
{
	uintptr_t	a = (uintptr_t) p;

	{
		std::lock_guard<std::mutex> g(lasting_lock);

		for (const host_range &r : lasting_pins)
			if (r.lo <= a && a < r.hi)
				return a + n <= r.hi || (n >= LASTING_MIN_BYTES && lasting_pin(a, n));
		if (n >= LASTING_MIN_BYTES && lasting_pin(a, n))
			return true;
	}
	/* a cudaHostAlloc'ed buffer: the whole array is in it */
	return exg_is_pinned(p);
}

extern "C" bool
exg_host_uploads_direct(const void *p, size_t bytes)
{
	return p != nullptr && bytes > 0 && exg_host_direct(p, bytes);
}

extern "C" void *
exg_host_alloc(size_t bytes)
{
	void	   *p = nullptr;

	try
	{
		exg_gpu_context_get();
	}
	catch (...)
	{
		return malloc(bytes);
	}
	if (host_alloc_timed(&p, bytes ? bytes : 1) != cudaSuccess)
	{
		(void) cudaGetLastError();
		return malloc(bytes);
	}
	return p;
}

extern "C" void
exg_host_free(void *p)
{
	if (p == nullptr)
		return;
	if (exg_is_pinned(p))
		(void) cudaFreeHost(p);
	else
		free(p);
}

extern "C" bool
exg_gpu_pairs_return(void *p)
{
	return exg_pinned_return(p);
}

bool
exg_gpu_device_ready(int device)
{
	std::lock_guard<std::mutex> g(registry_lock);

	return device >= 0 && device < DEVICES_MAX && device_ready[device];
}
