/*
 * gpu_memory.cu — a join's device memory: stream-ordered allocations from
 * the device's pool (kept copies that no join uses give way when one
 * fails) and the budget a join sizes its buffers by.
 */
#include <stdlib.h>

#include "gpu.h"
#include "gpu_runtime.cuh"

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

	exg_gpu_context *c = exg_gpu_context_get();

	for (int attempt = 0;; attempt++)
	{
		cudaError_t rc = cudaMallocAsync(&p, bytes, c->stream);

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
	cudaMemPool_t pool;
	size_t		parked = 0;

	if (cudaDeviceGetDefaultMemPool(&pool, c->device) == cudaSuccess)
	{
		uint64_t	reserved = 0,
					used = 0;

		(void) cudaMemPoolGetAttribute(pool, cudaMemPoolAttrReservedMemCurrent, &reserved);
		(void) cudaMemPoolGetAttribute(pool, cudaMemPoolAttrUsedMemCurrent, &used);
		parked = reserved > used ? (size_t) (reserved - used) : 0;
	}
	/* and so do kept copies no join uses: an allocation that fails evicts them */
	size_t		avail = (size_t) ((free_b + parked + exg_gpu_kept_evictable(c->device)) * 0.8);

	return (limit > 0 && limit < avail) ? limit : avail;
}

