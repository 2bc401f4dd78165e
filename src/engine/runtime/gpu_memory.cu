/*
 * gpu_memory.cu — a join's device memory: stream-ordered allocations from
 * the device's pool, small ones kept per context for its next joins (the
 * caches and kept copies that no join uses give way when one fails), and
 * the budget a join sizes its buffers by.
 */
#include <stdio.h>
#include <stdlib.h>

#include <atomic>
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

/*
 * The context caches: blocks up to CACHE_BLOCK_MAX (larger ones are few,
 * and their use dwarfs the call), in size classes of a quarter of a power
 * of two (at most a quarter wasted), at most CACHE_BYTES_MAX and
 * CACHE_BLOCKS_MAX blocks a context, the oldest giving way.
 */
#define CACHE_BLOCK_MAX ((size_t) 64 << 20)
#define CACHE_BYTES_MAX ((size_t) 1 << 30)
#define CACHE_BLOCKS_MAX 256
#define CACHE_DEVICES 64

static std::atomic<size_t> cached_on[CACHE_DEVICES];

static size_t
size_class(size_t bytes)
{
	if (bytes <= 4096)
		return 4096;

	int			k = 63 - __builtin_clzll((unsigned long long) (bytes - 1));	/* 2^k < bytes <= 2^(k+1) */
	size_t		step = (size_t) 1 << (k - 2);

	return (bytes + step - 1) / step * step;
}

static void
cached_add(int device, size_t bytes, bool add)
{
	if (device >= 0 && device < CACHE_DEVICES)
	{
		if (add)
			cached_on[device] += bytes;
		else
			cached_on[device] -= bytes;
	}
}

size_t
exg_gpu_cached_bytes(int device)
{
	return device >= 0 && device < CACHE_DEVICES ? cached_on[device].load() : 0;
}

/* A cached block back to the pool, in the order of its context's stream (after its last use). */
static void
block_free(exg_gpu_context *c, void *p)
{
	/* an error here is this call's alone: it must not surface as another's */
	if (cudaFreeAsync(p, c->stream) != cudaSuccess)
		(void) cudaGetLastError();
}

size_t
exg_gpu_cache_trim(int device, bool wait)
{
	size_t		freed = 0;

	/* never throws: it runs where an allocation failed, and in kept copies' allocation */
	try
	{
		for (exg_gpu_context *c : exg_gpu_contexts_of(device))
		{
			size_t		mine;

			{
				std::lock_guard<std::mutex> g(c->cache_lock);

				for (auto &b : c->cache_free)
					block_free(c, b.first);
				mine = c->cache_bytes;
				cached_add(device, mine, false);
				c->cache_free.clear();
				c->cache_bytes = 0;
			}
			/* the frees done, so that the pool can give the memory to another stream or the driver */
			if (mine && wait && cudaStreamSynchronize(c->stream) != cudaSuccess)
				(void) cudaGetLastError();
			freed += mine;
		}
	}
	catch (...)
	{
	}
	return freed;
}

extern "C" size_t
exg_gpu_device_cached_bytes(int device)
{
	return exg_gpu_cached_bytes(device);
}

extern "C" size_t
exg_gpu_device_cache_trim(int device)
{
	/* the frees on device's streams, from any thread */
	int			prev = exg_gpu_device_enter(device);
	size_t		n = exg_gpu_cache_trim(device, true);

	exg_gpu_device_leave(device, prev);
	return n;
}

/* A block of class bytes from c's cache, or null. */
static void *
cache_take(exg_gpu_context *c, size_t bytes)
{
	std::lock_guard<std::mutex> g(c->cache_lock);

	for (size_t i = 0; i < c->cache_free.size(); i++)
		if (c->cache_free[i].second == bytes)
		{
			void	   *p = c->cache_free[i].first;

			c->cache_out[p] = bytes;	/* first: rehashing may throw */
			c->cache_free.erase(c->cache_free.begin() + (long) i);	/* the rest stay oldest first */
			c->cache_bytes -= bytes;
			cached_add(c->device, bytes, false);
			return p;
		}
	return nullptr;
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
	bool		cached = on == c->stream && bytes <= CACHE_BLOCK_MAX;
	size_t		want = cached ? size_class(bytes) : bytes;
	bool		trimmed = false,
				evicted = false;

	if (cached && (p = cache_take(c, want)) != nullptr)
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
			std::lock_guard<std::mutex> g(c->cache_lock);

			if (cached)
				c->cache_out[p] = want;
			else
			{
				/*
				 * an address once of this cache, freed through another
				 * context: its class would outlive it here
				 */
				c->cache_out.erase(p);
			}
		}
		catch (std::bad_alloc &)
		{
			(void) cudaFreeAsync(p, on);
			throw;
		}
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

	int			device = exg_gpu_context_get()->device;
	size_t		cached = exg_gpu_cached_bytes(device);

	pool_bytes(device, &reserved, &used);
	/* the budget counts the cached blocks already */
	used = used > cached ? used - cached : 0;

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

	if (p == nullptr || c == nullptr)
		return;
	try
	{
		std::lock_guard<std::mutex> g(c->cache_lock);
		auto		it = c->cache_out.find(p);

		if (it != c->cache_out.end())
		{
			size_t		bytes = it->second;

			c->cache_out.erase(it);
			/* full: the oldest blocks go back to the pool (sizes no join asks for any more) */
			while (!c->cache_free.empty() &&
				   (c->cache_bytes + bytes > CACHE_BYTES_MAX || c->cache_free.size() >= CACHE_BLOCKS_MAX))
			{
				block_free(c, c->cache_free.front().first);
				c->cache_bytes -= c->cache_free.front().second;
				cached_add(c->device, c->cache_free.front().second, false);
				c->cache_free.erase(c->cache_free.begin());
			}
			c->cache_free.emplace_back(p, bytes);
			c->cache_bytes += bytes;
			cached_add(c->device, bytes, true);
			return;
		}
	}
	catch (...)
	{
		/* no room to remember it: back to the pool */
	}
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

	/*
	 * and so do the contexts' cached blocks and the kept copies no join
	 * uses: an allocation that fails takes them back
	 */
	size_t		avail = (size_t) ((free_b + parked + exg_gpu_cached_bytes(c->device) +
								   exg_gpu_kept_evictable(c->device)) * 0.8);

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
