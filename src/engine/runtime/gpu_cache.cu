/*
 * gpu_cache.cu — each context's cache of the device blocks of its stream:
 * a join allocates some 30 buffers, and from the device's pool each cost
 * 15-20 us of host time between two of the device's steps (CUPTI, two
 * ranges of a split on one device). A freed block waits in its context
 * for the next allocation of its size class, which, on the same stream,
 * comes after its last use. The caches count as free memory; an
 * allocation that fails, or a kept copy that does not fit, gives every
 * cache of the device back first.
 */
#include <atomic>
#include <new>

#include "gpu.h"
#include "gpu_runtime.cuh"

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

bool
exg_gpu_cache_serves(size_t bytes)
{
	return bytes <= CACHE_BLOCK_MAX;
}

size_t
exg_gpu_cache_class(size_t bytes)
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

void *
exg_gpu_cache_take(exg_gpu_context *c, size_t bytes)
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

void
exg_gpu_cache_note(exg_gpu_context *c, void *p, size_t bytes)
{
	std::lock_guard<std::mutex> g(c->cache_lock);

	if (bytes)
		c->cache_out[p] = bytes;
	else
	{
		/* an address once of this cache, freed through another context: its class would outlive it */
		c->cache_out.erase(p);
	}
}

bool
exg_gpu_cache_put(exg_gpu_context *c, void *p)
{
	try
	{
		std::lock_guard<std::mutex> g(c->cache_lock);
		auto		it = c->cache_out.find(p);

		if (it == c->cache_out.end())
			return false;

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
		return true;
	}
	catch (...)
	{
		/* no room to remember it: back to the pool */
		return false;
	}
}
