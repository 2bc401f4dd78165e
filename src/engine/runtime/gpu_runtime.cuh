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

#include "exg_status.h"

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

struct exg_gpu_context
{
	int			device;
	cudaStream_t stream;
	cudaStream_t copy_stream;
	size_t		total_memory;
	char		name[96];
};

/* Adds to exg_gpu_setup_ns (gpu.h): time spent setting the GPU up. */
extern "C" void exg_gpu_setup_add(uint64_t ns);

/* The process's context, created on first use (never in the postmaster). */
exg_gpu_context *exg_gpu_context_get();

/* Stream-ordered device allocation from the pool; freed with exg_gpu_free. */
void	   *exg_gpu_alloc(size_t bytes);
void		exg_gpu_free(void *p);

/* A device array freed when it goes out of scope (errors included). */
template <typename T>
struct exg_dbuf
{
	T		   *p = nullptr;
	size_t		n = 0;

	exg_dbuf() = default;
	explicit exg_dbuf(size_t count) { alloc(count); }
	exg_dbuf(const exg_dbuf &) = delete;
	exg_dbuf &operator=(const exg_dbuf &) = delete;
	~exg_dbuf() { release(); }
	void		alloc(size_t count)
	{
		release();
		p = static_cast<T *>(exg_gpu_alloc(sizeof(T) * (count ? count : 1)));
		n = count;
	}
	void		release()
	{
		if (p)
			exg_gpu_free(p);
		p = nullptr;
		n = 0;
	}
};

/* Pinned host staging: grow-only per slot, kept for the process. */
enum exg_pinned_slot
{
	EXG_PINNED_UPLOAD = 0,		/* the box join's two upload halves (the
								 * other joins upload through the ring) */
	EXG_PINNED_DOWNLOAD,
	EXG_PINNED_PAIRS,			/* the box join's pairs on their way to the sink */
	EXG_PINNED_COUNTERS,		/* small per-chunk counters */
	EXG_PINNED_SCAN,			/* the box join's scan of its work items (its own slot:
								 * the exact join holds DOWNLOAD around a box join) */
	EXG_PINNED_SLOTS
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
