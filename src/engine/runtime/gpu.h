/*
 * gpu.h — what the engine asks of the GPU back-end.
 *
 * Implemented by the .cu files of each family when the extension is built with CUDA, and by
 * src/engine/runtime/gpu_absent.c otherwise. Availability is decided at run time:
 * a CUDA build on a machine without a GPU or driver reports no device.
 */
#ifndef EXG_GPU_H
#define EXG_GPU_H

#include <stdbool.h>
#include <stddef.h>

#include "box_join.h"
#include "exg_status.h"
#include "join.h"
#include "locate_join.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Number of usable CUDA devices; 0 (and a reason in err) when none. */
int			exg_gpu_device_count(exg_error *err);

/*
 * Whether a GPU may be usable, for a planner that must not open the driver:
 * exg_gpu_device_count's answer once it has been asked in this process,
 * before that whether the NVIDIA driver's control device exists (and
 * CUDA_VISIBLE_DEVICES does not hide every device). Never opens the driver.
 */
bool		exg_gpu_present_hint(void);

/*
 * The join on the GPU (see join.h). Only called when exg_gpu_device_count()
 * says a device is usable.
 */
exg_status	exg_gpu_join(const exg_prim_set *A, const exg_prim_set *B,
						 const exg_join_options *opt, exg_pair **pairs_out,
						 size_t *npairs_out, exg_join_stats *stats, exg_error *err);

/* exg_box_join on the GPU (arguments already checked; see box_join.h). */
exg_status	exg_gpu_box_join(const exg_box_set *A, const exg_box_set *B, int naxes,
							 const exg_join_options *opt, exg_box_pair_sink sink, void *sink_arg,
							 exg_join_stats *stats, exg_error *err);

/* exg_test_pairs on the GPU. */
exg_status	exg_gpu_test_pairs(const exg_prim_set *A, const exg_prim_set *B,
							   const exg_pair *pairs, size_t n, const exg_join_options *opt,
							   uint8_t *result, exg_join_stats *stats, exg_error *err);

/* exg_locate_join on the GPU (inputs already checked). */
exg_status	exg_gpu_locate(const double *pts, uint32_t npts, const exg_solid_set *S,
						   const exg_join_options *opt, exg_pair **pairs_out,
						   size_t *npairs_out, exg_join_stats *stats, exg_error *err);

/*
 * Host memory for join inputs: page-locked when a GPU is usable (the join
 * then copies it to the device without staging), plain malloc otherwise.
 */
void	   *exg_host_alloc(size_t bytes);
void		exg_host_free(void *p);

/*
 * [p, p + bytes) and the whole pages it lies on stay mapped at this address
 * for the rest of the process (PostgreSQL's main shared memory, where the
 * parallel read lays rows out): a GPU join that reads its inputs there pins
 * those pages on first use, keeps them pinned, and copies without staging.
 * False (nothing kept) without a GPU build or past 64 ranges. Thread-safe.
 */
bool		exg_host_lasting(const void *p, size_t bytes);

/*
 * Is [p, p + bytes) copied to a GPU as it is (page-locked: exg_host_alloc'ed,
 * or lasting memory, pinned here on first ask), not staged? False without a
 * GPU build.
 */
bool		exg_host_uploads_direct(const void *p, size_t bytes);

/* Bytes of lasting memory pinned so far in this process (tests). */
size_t		exg_host_lasting_pinned_bytes(void);

/* Take back a result buffer lent by the GPU join; false if p is not one. */
bool		exg_gpu_pairs_return(void *p);

/*
 * Device memory of this process on the calling thread's device (its bound
 * one, else device 0): held by live allocations of the join's pool (should
 * return to 0 after every join: no leaks; kept copies are not in the pool),
 * reserved by the pool for reuse, and free on the device. Zeros without a
 * GPU context.
 */
void		exg_gpu_memory_info(size_t *in_use, size_t *reserved, size_t *free_bytes);

/*
 * Nanoseconds the calling thread has spent setting the GPU up: opening the
 * driver, creating the CUDA context, allocating pinned host buffers. A join
 * reports the difference across it (exg_join_stats.gpu_setup_ns), so the
 * first GPU join of a backend says what it paid beyond joining (and a later
 * one what growing the pinned buffers cost it); 0 without a usable GPU.
 * Per thread, so that concurrent joins each report their own.
 */
uint64_t	exg_gpu_setup_ns(void);

/*
 * ---- Several threads, several devices (a process that serves many joins) ----
 *
 * A process that never calls exg_gpu_thread_bind has one context on device
 * 0 (the first of CUDA_VISIBLE_DEVICES) and runs one GPU join at a time,
 * as a backend does. A thread bound to a device gets a context of its own
 * there (streams, pinned buffers, upload ring, lent result buffer; taken
 * from a pool kept per device, so binding again is cheap): threads bound
 * to the same or different devices then join concurrently, each with its
 * own exg_join_options (give each a share of worker_threads).
 */

/*
 * Bind the calling thread to device (0 .. exg_gpu_device_count() - 1):
 * every GPU join it runs from now on runs there. EXG_ERR_DEVICE with the
 * reason when there is no usable GPU (and always without a CUDA build), so
 * that the caller falls back; EXG_ERR_ARGUMENT for a device not visible.
 * Binding again rebinds; a thread that ends bound gives its context back.
 */
exg_status	exg_gpu_thread_bind(int device, exg_error *err);

/*
 * Pay now what the calling thread's first GPU join would (a service
 * thread, before its first client): the upload ring for uploads of up to
 * upload_bytes (at most 128 MB is pinned whatever the size), the small
 * pinned buffers, and pool_bytes of device memory taken into the device's
 * pool (kept there for the joins). On the bound context, else the
 * default. EXG_ERR_DEVICE / EXG_ERR_NOMEM with the reason.
 */
exg_status	exg_gpu_thread_prepare(size_t upload_bytes, size_t pool_bytes, exg_error *err);

/* Give the calling thread's context back (its work finished first); no-op if unbound. */
void		exg_gpu_thread_unbind(void);

/* The calling thread's bound device, -1 when unbound. */
int			exg_gpu_thread_device(void);

/* exg_gpu_memory_info for one device (zeros for one this process never used). */
void		exg_gpu_device_memory_info(int device, size_t *in_use, size_t *reserved,
									   size_t *free_bytes);

/*
 * Device memory of device's contexts kept for their next joins (blocks of
 * up to 64 MB, at most 1 GB a context: a join makes some 30 allocations,
 * and each from the pool cost 15-20 us of host time between two of the
 * device's steps). Counted free for joins (the budget) and never in use
 * (exg_gpu_device_memory_info); an allocation that fails gives every cache
 * of the device back first. 0 for a device this process never used.
 */
size_t		exg_gpu_device_cached_bytes(int device);

/* Give every cache of device's contexts back to the device's pool; the bytes given. */
size_t		exg_gpu_device_cache_trim(int device);

/* Setup time of the whole process (exg_gpu_setup_ns is the calling thread's). */
uint64_t	exg_gpu_setup_total_ns(void);

/*
 * ---- Device copies of immutable host memory (the keep cache) ----
 *
 * exg_gpu_keep declares [host, host + bytes) immutable and mapped at this
 * address until it is forgotten (a packed block of the resident store):
 * forget it BEFORE its memory is freed or written again, or a later join
 * reading other data at that address would be served the old copy (a
 * check of the range's ends and of words spread over it, at every use,
 * catches most such reuse and forgets the range, but not all);
 * tag is the caller's name for it (e.g. the entry's key hash and
 * generation). From then on, every upload of a GPU join that copies from
 * within the range (a batch's vertices, triangles, owners; a slice of
 * them) uses a device copy of the whole range, made on the first such
 * join on each device and kept: a join against bodies that have not
 * changed uploads only the other side. Pairs are the same either way.
 * Declaring a range forgets older ones it overlaps and any other range of
 * the same tag; a forgotten range's copies are freed once no join uses
 * them (never while one does). Copies are evicted least recently used
 * first to stay within the budget, and when a join's device allocation
 * fails. False without a CUDA build (nothing kept, nothing to do).
 * Thread-safe.
 */
bool		exg_gpu_keep(const void *host, size_t bytes, uint64_t tag);
void		exg_gpu_keep_forget(uint64_t tag);

/* Does [host, host + bytes) lie within one kept range (copied from its device copies)? */
bool		exg_gpu_kept_covers(const void *host, size_t bytes);
void		exg_gpu_keep_forget_all(void);

/*
 * Device bytes kept copies may hold, per device (0: keep nothing); idle
 * copies beyond it are evicted now. Default: half of each device's memory.
 */
void		exg_gpu_keep_budget(size_t bytes);

typedef struct exg_gpu_keep_stats
{
	size_t		bytes_kept;		/* device bytes held by copies (loading included) */
	size_t		bytes_in_use;	/* of them, copies a join is using now */
	uint64_t	copies;			/* copies on this device */
	uint64_t	ranges;			/* ranges declared (all devices) */
	uint64_t	hits;			/* uploads served by a copy */
	uint64_t	misses;			/* uploads from kept memory that had to copy it */
	uint64_t	bytes_saved;	/* bytes the hits did not upload */
	uint64_t	bytes_uploaded; /* bytes copied to make copies */
	uint64_t	evictions;
	size_t		derived_bytes;	/* of bytes_kept, what joins derived from copies
								 * (prepared primitives, exact boxes) */
	uint64_t	derived_made;	/* derived blocks made */
	uint64_t	derived_hits;	/* joins that found one made */
	size_t		budget;			/* this device's budget (0 until known) */
} exg_gpu_keep_stats;

/* The cache's counters on one device since the process began; false for no such device. */
bool		exg_gpu_keep_info(int device, exg_gpu_keep_stats *out);

/* One line describing the GPU build, e.g. "CUDA 13.0 (sm_90)" or "none". */
const char *exg_gpu_build_info(void);

#ifdef __cplusplus
}
#endif

#endif							/* EXG_GPU_H */
