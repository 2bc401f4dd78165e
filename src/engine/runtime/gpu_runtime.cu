/*
 * gpu_runtime.cu — the process's CUDA context, memory pool and pinned buffers.
 */
#include "gpu_runtime.cuh"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <vector>

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

static exg_gpu_context *the_context;
static uint64_t setup_ns;		/* exg_gpu_setup_ns */

extern "C" uint64_t
exg_gpu_setup_ns(void)
{
	return setup_ns;
}

extern "C" void
exg_gpu_setup_add(uint64_t ns)
{
	setup_ns += ns;
}

/* cudaHostAlloc, timed as setup: pinning is slow (~0.4 ms a MB on the H100 machine). */
static cudaError_t
host_alloc_timed(void **p, size_t bytes)
{
	uint64_t	t0 = exg_now_ns();
	cudaError_t rc = cudaHostAlloc(p, bytes, cudaHostAllocDefault);

	setup_ns += exg_now_ns() - t0;
	return rc;
}

exg_gpu_context *
exg_gpu_context_get()
{
	if (the_context)
		return the_context;

	uint64_t	t0 = exg_now_ns();
	exg_gpu_context *c = new exg_gpu_context();
	cudaDeviceProp prop;
	cudaMemPool_t pool;
	uint64_t	threshold = UINT64_MAX;
	size_t		free_b;

	c->device = 0;
	{
		/* the context starts CUDA threads: without the host's signals */
		sigset_t	old;

		exg_signals_block(&old);
		cudaError_t rc = cudaSetDevice(c->device);

		exg_signals_restore(&old);
		EXG_CUDA(rc);
	}
	EXG_CUDA(cudaGetDeviceProperties(&prop, c->device));
	snprintf(c->name, sizeof(c->name), "%s", prop.name);
	EXG_CUDA(cudaStreamCreateWithFlags(&c->stream, cudaStreamNonBlocking));
	EXG_CUDA(cudaStreamCreateWithFlags(&c->copy_stream, cudaStreamNonBlocking));
	/* Keep freed blocks in the pool between joins instead of returning them. */
	EXG_CUDA(cudaDeviceGetDefaultMemPool(&pool, c->device));
	EXG_CUDA(cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &threshold));
	EXG_CUDA(cudaMemGetInfo(&free_b, &c->total_memory));
	the_context = c;
	setup_ns += exg_now_ns() - t0;
	return c;
}

/*
 * Fault injection for tests: EXACTGPU_TEST_ALLOC_LIMIT=N makes any single
 * device allocation above N bytes fail as if the GPU were out of memory, so
 * that the join's shrink-and-split path can be exercised on a large GPU.
 */
static size_t
test_alloc_limit()
{
	const char *v = getenv("EXACTGPU_TEST_ALLOC_LIMIT");

	return v ? (size_t) strtoull(v, nullptr, 10) : 0;
}

void *
exg_gpu_alloc(size_t bytes)
{
	void	   *p = nullptr;
	size_t		limit = test_alloc_limit();

	if (limit && bytes > limit)
		throw		exg_gpu_oom{bytes};

	cudaError_t rc = cudaMallocAsync(&p, bytes, exg_gpu_context_get()->stream);

	if (rc == cudaErrorMemoryAllocation)
	{
		(void) cudaGetLastError();
		throw		exg_gpu_oom{bytes};
	}
	EXG_CUDA(rc);
	return p;
}

void
exg_gpu_free(void *p)
{
	/* Never throw from here: it runs in destructors while unwinding. */
	if (p && the_context)
		(void) cudaFreeAsync(p, the_context->stream);
}

static void *pinned[EXG_PINNED_SLOTS];
static size_t pinned_size[EXG_PINNED_SLOTS];

void *
exg_pinned_get(exg_pinned_slot slot, size_t bytes)
{
	if (bytes <= pinned_size[slot])
		return pinned[slot];
	if (pinned[slot])
		(void) cudaFreeHost(pinned[slot]);
	pinned[slot] = nullptr;
	pinned_size[slot] = 0;
	/* Round up generously: pinning is slow, so grow rarely. */
	size_t		want = bytes + bytes / 2 + (1 << 20);

	EXG_CUDA(host_alloc_timed(&pinned[slot], want));
	pinned_size[slot] = want;
	return pinned[slot];
}

#define RING_PIECES 4
#define RING_PIECE_MAX ((size_t) 32 << 20)
#define RING_ROUND ((size_t) 1 << 20)

static char *ring;
static size_t ring_piece;
static unsigned ring_next;
static cudaEvent_t ring_done[RING_PIECES];

static bool ring_registered;	/* registered pages, else cudaHostAlloc's */

/*
 * The ring's memory: pages touched here, then registered with the driver,
 * which pins them in a tenth of cudaHostAlloc's time (H100 machine, 64 MB:
 * 4 ms against 27-42 ms; touching them is a few ms more). Where registering
 * is refused, cudaHostAlloc.
 */
static void
ring_alloc(size_t bytes)
{
	uint64_t	t0 = exg_now_ns();
	void	   *p = nullptr;

	if (posix_memalign(&p, 1 << 21, bytes) == 0)
	{
		memset(p, 0, bytes);
		if (cudaHostRegister(p, bytes, cudaHostRegisterDefault) == cudaSuccess)
		{
			ring = (char *) p;
			ring_registered = true;
			setup_ns += exg_now_ns() - t0;
			return;
		}
		(void) cudaGetLastError();
		free(p);
		p = nullptr;
	}
	setup_ns += exg_now_ns() - t0;
	/* ring stays NULL if this throws: never a stale pointer for ring_free */
	EXG_CUDA(host_alloc_timed(&p, bytes));
	ring = (char *) p;
	ring_registered = false;
}

static void
ring_free()
{
	if (ring && ring_registered)
	{
		(void) cudaHostUnregister(ring);
		free(ring);
	}
	else if (ring)
		(void) cudaFreeHost(ring);
	ring = nullptr;
	ring_piece = 0;
}

void
exg_gpu_upload_pageable(void *dst, const void *src, size_t n, cudaStream_t s)
{
	size_t		piece = (n + RING_PIECES - 1) / RING_PIECES;

	if (n == 0)
		return;
	piece = (piece + RING_ROUND - 1) / RING_ROUND * RING_ROUND;
	if (piece > RING_PIECE_MAX)
		piece = RING_PIECE_MAX;
	for (int i = 0; i < RING_PIECES; i++)
		if (ring_done[i] == nullptr)
			EXG_CUDA(cudaEventCreateWithFlags(&ring_done[i], cudaEventDisableTiming));
	if (piece > ring_piece)
	{
		/* a bigger ring: the old one's copies finished first */
		for (int i = 0; i < RING_PIECES; i++)
			EXG_CUDA(cudaEventSynchronize(ring_done[i]));
		ring_free();
		ring_alloc(RING_PIECES * piece);
		ring_piece = piece;
	}
	for (size_t off = 0; off < n; off += ring_piece)
	{
		size_t		len = n - off < ring_piece ? n - off : ring_piece;
		unsigned	k = ring_next;
		char	   *p = ring + (size_t) k * ring_piece;

		ring_next = (ring_next + 1) % RING_PIECES;
		EXG_CUDA(cudaEventSynchronize(ring_done[k]));
		exg_copy_parallel(p, (const char *) src + off, len);
		EXG_CUDA(cudaMemcpyAsync((char *) dst + off, p, len, cudaMemcpyHostToDevice, s));

		cudaError_t rc = cudaEventRecord(ring_done[k], s);

		/* without its event the piece's copy is untracked: wait for it here */
		if (rc != cudaSuccess)
			(void) cudaStreamSynchronize(s);
		exg_cuda_check(rc, "cudaEventRecord(ring_done[k], s)");
	}
}

size_t
exg_gpu_budget(size_t limit)
{
	size_t		free_b,
				total_b;

	exg_gpu_context_get();
	EXG_CUDA(cudaMemGetInfo(&free_b, &total_b));
	/* Memory parked in our pool counts as available to us. */
	cudaMemPool_t pool;
	size_t		parked = 0;

	if (cudaDeviceGetDefaultMemPool(&pool, the_context->device) == cudaSuccess)
	{
		uint64_t	reserved = 0,
					used = 0;

		(void) cudaMemPoolGetAttribute(pool, cudaMemPoolAttrReservedMemCurrent, &reserved);
		(void) cudaMemPoolGetAttribute(pool, cudaMemPoolAttrUsedMemCurrent, &used);
		parked = reserved > used ? (size_t) (reserved - used) : 0;
	}
	size_t		avail = (size_t) ((free_b + parked) * 0.8);

	return (limit > 0 && limit < avail) ? limit : avail;
}

static void *lent;
static size_t lent_size;
static bool lent_out;

void *
exg_pinned_lend(size_t bytes)
{
	if (lent_out)
		return nullptr;
	if (bytes > lent_size)
	{
		if (lent)
			(void) cudaFreeHost(lent);
		lent = nullptr;
		lent_size = 0;
		size_t		want = bytes + bytes / 4 + (1 << 20);

		if (host_alloc_timed(&lent, want) != cudaSuccess)
		{
			(void) cudaGetLastError();
			lent = nullptr;
			return nullptr;
		}
		lent_size = want;
	}
	lent_out = true;
	return lent;
}

bool
exg_pinned_return(void *p)
{
	if (p == nullptr || p != lent || !lent_out)
		return false;
	lent_out = false;
	return true;
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
 * and the parts of it pinned here: page-aligned, disjoint. Called from the
 * thread that runs the joins only.
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

	for (const host_range &r : lasting_pins)
		n += r.hi - r.lo;
	return n;
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
			(void) cudaDeviceSynchronize();
			(void) cudaHostUnregister((void *) lasting_pins[i].lo);
			lo = lasting_pins[i].lo < lo ? lasting_pins[i].lo : lo;
			hi = lasting_pins[i].hi > hi ? lasting_pins[i].hi : hi;
			lasting_pins.erase(lasting_pins.begin() + i);
		}
		else
			i++;
	ok = lasting_pins.size() < LASTING_MAX &&
		cudaHostRegister((void *) lo, hi - lo, cudaHostRegisterDefault) == cudaSuccess;
	if (ok)
		lasting_pins.push_back({lo, hi});
	else if (lasting_pins.size() < LASTING_MAX)
	{
		(void) cudaGetLastError();
		lasting_refused = true;
	}
	setup_ns += exg_now_ns() - t0;
	return ok;
}

bool
exg_host_direct(const void *p, size_t n)
{
	uintptr_t	a = (uintptr_t) p;

	for (const host_range &r : lasting_pins)
		if (r.lo <= a && a < r.hi)
			return a + n <= r.hi || (n >= LASTING_MIN_BYTES && lasting_pin(a, n));
	if (n >= LASTING_MIN_BYTES && lasting_pin(a, n))
		return true;
	/* a cudaHostAlloc'ed buffer: the whole array is in it */
	return exg_is_pinned(p);
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

extern "C" void
exg_gpu_memory_info(size_t *in_use, size_t *reserved, size_t *free_bytes)
{
	cudaMemPool_t pool;
	uint64_t	used = 0,
				res = 0;
	size_t		f = 0,
				t = 0;

	*in_use = *reserved = *free_bytes = 0;
	if (the_context == nullptr)
		return;
	if (cudaDeviceGetDefaultMemPool(&pool, the_context->device) == cudaSuccess)
	{
		(void) cudaMemPoolGetAttribute(pool, cudaMemPoolAttrUsedMemCurrent, &used);
		(void) cudaMemPoolGetAttribute(pool, cudaMemPoolAttrReservedMemCurrent, &res);
	}
	if (cudaMemGetInfo(&f, &t) != cudaSuccess)
		(void) cudaGetLastError();
	*in_use = used;
	*reserved = res;
	*free_bytes = f;
}
