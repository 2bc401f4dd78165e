/*
 * gpu_memory.cu — a join's device memory: stream-ordered allocations from
 * the device's pool (kept copies that no join uses give way when one
 * fails) and the budget a join sizes its buffers by.
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

	for (int attempt = 0;; attempt++)
	{
		cudaError_t rc = cudaMallocAsync(&p, bytes, s ? s : c->stream);

		if (rc == cudaErrorMemoryAllocation)
		{
			(void) cudaGetLastError();
			/* kept copies no join uses give way to the join, once */
			if (attempt == 0 && exg_gpu_kept_evict(c->device, bytes) > 0)
				continue;
			throw		exg_gpu_oom{bytes};
		}
		EXG_CUDA(rc);
		return p;
	}
}

/* The device pool's memory: held from the driver, and of it in use by live allocations. */
static void
pool_bytes(int device, uint64_t *reserved, uint64_t *used)
{
	cudaMemPool_t pool;

	*reserved = *used = 0;
	if (cudaDeviceGetDefaultMemPool(&pool, device) == cudaSuccess)
	{
		(void) cudaMemPoolGetAttribute(pool, cudaMemPoolAttrReservedMemCurrent, reserved);
		(void) cudaMemPoolGetAttribute(pool, cudaMemPoolAttrUsedMemCurrent, used);
	}
	(void) cudaGetLastError();
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

	if (p && c)
		(void) cudaFreeAsync(p, c->stream);
}

size_t
exg_gpu_budget(size_t limit)
{
	size_t		free_b,
				total_b;
	exg_gpu_context *c = exg_gpu_context_get();

	EXG_CUDA(cudaMemGetInfo(&free_b, &total_b));
	/* Memory parked in our pool counts as available to us. */
	uint64_t	reserved,
				used;

	pool_bytes(c->device, &reserved, &used);

	size_t		parked = reserved > used ? (size_t) (reserved - used) : 0;

	/* and so do kept copies no join uses: an allocation that fails evicts them */
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
