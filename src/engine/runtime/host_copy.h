/*
 * host_copy.h — copying big host buffers on the worker pool.
 *
 * One thread copies at a few GB/s; the GPU upload's pinned staging and the
 * gathering of flattened rows are memory-bound copies of hundreds of MB, so
 * they are split over the pool's threads (which never call PostgreSQL).
 */
#ifndef EXG_HOST_COPY_H
#define EXG_HOST_COPY_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* memcpy(dst, src, n) on the worker pool when n is large, else here. */
void		exg_copy_parallel(void *dst, const void *src, size_t n);

#ifdef __cplusplus
}
#endif

#endif							/* EXG_HOST_COPY_H */
