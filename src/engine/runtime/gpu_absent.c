/*
 * gpu_absent.c — the GPU back-end of a build without CUDA: no device, ever.
 */
#include "gpu.h"

#include <stdlib.h>
#include <string.h>

int
exg_gpu_device_count(exg_error *err)
{
	exg_fail(err, EXG_ERR_DEVICE, "exactgpu was built without CUDA");
	return 0;
}

bool
exg_gpu_present_hint(void)
{
	return false;
}

const char *
exg_gpu_build_info(void)
{
	return "none (built without CUDA)";
}

exg_status
exg_gpu_join(const exg_prim_set *A, const exg_prim_set *B, const exg_join_options *opt,
			 exg_pair **pairs_out, size_t *npairs_out, exg_join_stats *stats,
			 exg_error *err)
{
	(void) A;
	(void) B;
	(void) opt;
	(void) pairs_out;
	(void) npairs_out;
	(void) stats;
	return exg_fail(err, EXG_ERR_DEVICE, "exactgpu was built without CUDA");
}

exg_status
exg_gpu_box_join(const exg_box_set *A, const exg_box_set *B, int naxes,
				 const exg_join_options *opt, exg_box_pair_sink sink, void *sink_arg,
				 exg_join_stats *stats, exg_error *err)
{
	(void) A;
	(void) B;
	(void) naxes;
	(void) opt;
	(void) sink;
	(void) sink_arg;
	(void) stats;
	return exg_fail(err, EXG_ERR_DEVICE, "exactgpu was built without CUDA");
}

exg_status
exg_gpu_test_pairs(const exg_prim_set *A, const exg_prim_set *B, const exg_pair *pairs,
				   size_t n, const exg_join_options *opt, uint8_t *result,
				   exg_join_stats *stats, exg_error *err)
{
	(void) A;
	(void) B;
	(void) pairs;
	(void) n;
	(void) opt;
	(void) result;
	(void) stats;
	return exg_fail(err, EXG_ERR_DEVICE, "exactgpu was built without CUDA");
}

exg_status
exg_gpu_locate(const double *pts, uint32_t npts, const exg_solid_set *S,
			   const exg_join_options *opt, exg_pair **pairs_out, size_t *npairs_out,
			   exg_join_stats *stats, exg_error *err)
{
	(void) pts;
	(void) npts;
	(void) S;
	(void) opt;
	(void) pairs_out;
	(void) npairs_out;
	(void) stats;
	return exg_fail(err, EXG_ERR_DEVICE, "exactgpu was built without CUDA");
}

uint64_t
exg_gpu_setup_ns(void)
{
	return 0;
}

void *
exg_host_alloc(size_t bytes)
{
	return malloc(bytes ? bytes : 1);
}

void
exg_host_free(void *p)
{
	free(p);
}

bool
exg_host_lasting(const void *p, size_t bytes)
{
	(void) p;
	(void) bytes;
	return false;
}

bool
exg_host_uploads_direct(const void *p, size_t bytes)
{
	(void) p;
	(void) bytes;
	return false;
}

size_t
exg_host_lasting_pinned_bytes(void)
{
	return 0;
}

bool
exg_gpu_pairs_return(void *p)
{
	(void) p;
	return false;
}

void
exg_gpu_memory_info(size_t *in_use, size_t *reserved, size_t *free_bytes)
{
	*in_use = *reserved = *free_bytes = 0;
}

exg_status
exg_gpu_thread_bind(int device, exg_error *err)
{
	(void) device;
	return exg_fail(err, EXG_ERR_DEVICE, "exactgpu was built without CUDA");
}

void
exg_gpu_thread_unbind(void)
{
}

int
exg_gpu_thread_device(void)
{
	return -1;
}

void
exg_gpu_device_memory_info(int device, size_t *in_use, size_t *reserved, size_t *free_bytes)
{
	(void) device;
	*in_use = *reserved = *free_bytes = 0;
}

size_t
exg_gpu_device_cached_bytes(int device)
{
	(void) device;
	return 0;
}

size_t
exg_gpu_device_cache_trim(int device)
{
	(void) device;
	return 0;
}

uint64_t
exg_gpu_setup_total_ns(void)
{
	return 0;
}

bool
exg_gpu_keep(const void *host, size_t bytes, uint64_t tag)
{
	(void) host;
	(void) bytes;
	(void) tag;
	return false;
}

void
exg_gpu_keep_forget(uint64_t tag)
{
	(void) tag;
}

void
exg_gpu_keep_forget_all(void)
{
}

void
exg_gpu_keep_budget(size_t bytes)
{
	(void) bytes;
}

bool
exg_gpu_keep_info(int device, exg_gpu_keep_stats *out)
{
	(void) device;
	memset(out, 0, sizeof(*out));
	return false;
}

bool
exg_gpu_kept_covers(const void *host, size_t bytes)
{
	(void) host;
	(void) bytes;
	return false;
}

exg_status
exg_gpu_thread_prepare(size_t upload_bytes, size_t pool_bytes, exg_error *err)
{
	(void) upload_bytes;
	(void) pool_bytes;
	return exg_fail(err, EXG_ERR_DEVICE, "exactgpu was built without CUDA");
}
