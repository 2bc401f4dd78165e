/*
 * gpu_memory.cu — a join's device memory: stream-ordered allocations from
 * the device's pool, small ones kept per context for its next joins
 * (gpu_cache.cu; the caches and kept copies that no join uses give way
 * when one fails), the budget a join sizes its buffers by, and the report
 * of a device's memory.
 */
#include <stdio.h>
#include <stdlib.h>

#include <new>

#include "gpu.h"
#include "gpu_runtime.cuh"

/* Run body, turning what it throws into a status (no exceptions cross into C). */
template <typename F>
static exg_status
exg_gpu_guard_plain(exg_error *err, F &&body)
{
	try
	{
		body();
		return EXG_OK;
	}
	catch (exg_gpu_error &e)
	{
		return exg_fail(err, e.status, "%s", e.message);
	}
	catch (exg_gpu_oom &)
	{
		return exg_fail(err, EXG_ERR_DEVICE_MEMORY, "out of GPU memory preparing the device");
	}
	catch (std::bad_alloc &)
	{
		return exg_fail(err, EXG_ERR_NOMEM, "out of host memory preparing the device");
	}
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
	return exg_gpu_alloc_on(bytes, nullptr);
}

void *
exg_gpu_alloc_on(size_t bytes, cudaStream_t s)
{
	void	   *p = nullptr;
	size_t		limit = test_alloc_limit();

	if (limit && bytes > limit)
		throw		exg_gpu_oom{bytes};

	exg_gpu_context *c = exg_gpu_context_get();
	cudaStream_t on = s ? s : c->stream;
	/* the cache serves the context's own stream: a block's reuse is then in its order */
	bool		cached = on == c->stream && exg_gpu_cache_serves(bytes);
	size_t		want = cached ? exg_gpu_cache_class(bytes) : bytes;
	bool		trimmed = false,
				evicted = false;

	if (cached && (p = exg_gpu_cache_take(c, want)) != nullptr)
		return p;
	for (;;)
	{
		cudaError_t rc = cudaMallocAsync(&p, want, on);

		if (rc == cudaErrorMemoryAllocation)
		{
			(void) cudaGetLastError();
			/* the contexts' caches give way first, then kept copies no join uses, once each */
			if (!trimmed)
			{
				/* waited for: another stream's frees, done, serve a large block too */
				trimmed = true;
				if (exg_gpu_cache_trim(c->device, true) > 0)
					continue;
			}
			if (!evicted)
			{
				evicted = true;
				if (exg_gpu_kept_evict(c->device, want) > 0)
					continue;
			}
			throw		exg_gpu_oom{bytes};
		}
		EXG_CUDA(rc);
		try
		{
			exg_gpu_cache_note(c, p, cached ? want : 0);
		}
		catch (std::bad_alloc &)
		{
			(void) cudaFreeAsync(p, on);
			throw;
		}
		return p;
	}
}

/*
 * The device pool's memory: held from the driver, and of it in use by live
 * allocations (not the blocks in the contexts' caches: free for any join).
 */
static void
pool_bytes(int device, uint64_t *reserved, uint64_t *in_use)
{
	cudaMemPool_t pool;
	uint64_t	used = 0;
	size_t		cached = exg_gpu_cached_bytes(device);

	*reserved = 0;
	if (cudaDeviceGetDefaultMemPool(&pool, device) == cudaSuccess)
	{
		(void) cudaMemPoolGetAttribute(pool, cudaMemPoolAttrReservedMemCurrent, reserved);
		(void) cudaMemPoolGetAttribute(pool, cudaMemPoolAttrUsedMemCurrent, &used);
	}
	(void) cudaGetLastError();
	*in_use = used > cached ? used - cached : 0;
}

void
exg_gpu_room_check()
{
	/*
	 * What joins may have, and what this process's other joins on the
	 * device hold now (theirs comes back when they end: two lanes of the
	 * GPU service, two ranges of a split on one device)
	 */
	uint64_t	reserved,
				used;

	pool_bytes(exg_gpu_context_get()->device, &reserved, &used);

	size_t		room = exg_gpu_budget(0) + (size_t) used;

	if (room < EXG_GPU_ROOM_MIN)
	{
		exg_gpu_error e;

		e.status = EXG_ERR_DEVICE_MEMORY;
		snprintf(e.message, sizeof(e.message),
				 "the GPU has %zu MB free for joins: its memory is held by other joins or processes", room >> 20);
		throw		e;
	}
}

void
exg_gpu_free(void *p)
{
	/* Never throw from here: it runs in destructors while unwinding. */
	exg_gpu_context *c = exg_gpu_context_current();

	if (p == nullptr || c == nullptr || exg_gpu_cache_put(c, p))
		return;
	(void) cudaFreeAsync(p, c->stream);
}

size_t
exg_gpu_budget(size_t limit)
{
	size_t		free_b,
				total_b;
	exg_gpu_context *c = exg_gpu_context_get();

	EXG_CUDA(cudaMemGetInfo(&free_b, &total_b));
	/* Memory parked in our pool (the contexts' cached blocks included) counts as available to us. */
	uint64_t	reserved,
				used;

	pool_bytes(c->device, &reserved, &used);

	size_t		parked = reserved > used ? (size_t) (reserved - used) : 0;

	/* and so do the kept copies no join uses: an allocation that fails evicts them */
	size_t		avail = (size_t) ((free_b + parked + exg_gpu_kept_evictable(c->device)) * 0.8);

	return (limit > 0 && limit < avail) ? limit : avail;
}


/*
 * What the first join of a context would pay, paid now: the upload ring,
 * the small pinned buffers, and pool_bytes of device memory allocated and
 * freed, which the pool keeps (it never gives memory back between joins).
 */
extern "C" exg_status
exg_gpu_thread_prepare(size_t upload_bytes, size_t pool_bytes, exg_error *err)
{
	return exg_gpu_guard_plain(err, [&] {
		exg_gpu_context *c = exg_gpu_context_get();

		exg_gpu_ring_reserve(upload_bytes);
		(void) exg_pinned_get(EXG_PINNED_DOWNLOAD, 4096);
		(void) exg_pinned_get(EXG_PINNED_COUNTERS, 4096);
		if (pool_bytes > 0)
		{
			void	   *p = exg_gpu_alloc(pool_bytes);

			exg_gpu_free(p);
			EXG_CUDA(cudaStreamSynchronize(c->stream));
		}
	});
}

/* Pool and device memory of one device set up in this process (zeros otherwise). */
extern "C" void
exg_gpu_device_memory_info(int device, size_t *in_use, size_t *reserved, size_t *free_bytes)
{
	uint64_t	used,
				res;
	size_t		f = 0,
				t = 0;

	*in_use = *reserved = *free_bytes = 0;
	if (!exg_gpu_device_ready(device))
		return;
	pool_bytes(device, &res, &used);
	/* cudaMemGetInfo speaks of the current device: this one, for the call */
	int			prev = exg_gpu_device_enter(device);

	if (cudaMemGetInfo(&f, &t) != cudaSuccess)
		(void) cudaGetLastError();
	exg_gpu_device_leave(device, prev);
	*in_use = used;
	*reserved = res;
	*free_bytes = f;
}

extern "C" void
exg_gpu_memory_info(size_t *in_use, size_t *reserved, size_t *free_bytes)
{
	exg_gpu_context *c = exg_gpu_context_current();

	*in_use = *reserved = *free_bytes = 0;
	if (c == nullptr)
		return;
	exg_gpu_device_memory_info(c->device, in_use, reserved, free_bytes);
}
