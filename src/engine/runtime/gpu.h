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
 * False (nothing kept) without a GPU build or past 64 ranges. Call from the
 * thread that runs the joins.
 */
bool		exg_host_lasting(const void *p, size_t bytes);

/* Bytes of lasting memory pinned so far in this process (tests). */
size_t		exg_host_lasting_pinned_bytes(void);

/* Take back a result buffer lent by the GPU join; false if p is not one. */
bool		exg_gpu_pairs_return(void *p);

/*
 * Device memory of this process: held by live allocations of the join's
 * pool (should return to 0 after every join: no leaks), reserved by the
 * pool for reuse, and free on the device. Zeros without a GPU context.
 */
void		exg_gpu_memory_info(size_t *in_use, size_t *reserved, size_t *free_bytes);

/*
 * Nanoseconds this process has spent setting the GPU up: opening the
 * driver, creating the CUDA context, allocating pinned host buffers. A join
 * reports the difference across it (exg_join_stats.gpu_setup_ns), so the
 * first GPU join of a backend says what it paid beyond joining (and a later
 * one what growing the pinned buffers cost it); 0 without a usable GPU.
 */
uint64_t	exg_gpu_setup_ns(void);

/* One line describing the GPU build, e.g. "CUDA 13.0 (sm_90)" or "none". */
const char *exg_gpu_build_info(void);

#ifdef __cplusplus
}
#endif

#endif							/* EXG_GPU_H */
