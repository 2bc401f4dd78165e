/*
 * host_alloc.h — big host arrays backed by transparent huge pages.
 *
 * A join's batch arrays run to hundreds of MB (840 MB for 10^7 triangles).
 * In 4 kB pages, touching them is ~200,000 page faults and freeing them as
 * many page releases: on the H100 machine (THP in "madvise" mode) that was
 * most of the 80 ms gathering the parallel read's rows and of the 77 ms
 * after the join. Asking for huge pages makes both 512 times fewer.
 *
 * Only for arrays allocated once at their final size: where THP's defrag
 * is "madvise", each huge page faulted in may first compact memory, and
 * arrays grown by doubling on 16 threads (the serial read's per-thread
 * parts) took 15.9 s there instead of 1.2 s.
 */
#ifndef EXG_HOST_ALLOC_H
#define EXG_HOST_ALLOC_H

#include <stdbool.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* realloc(p, bytes), with huge pages asked for when the array is big. */
void	   *exg_host_realloc(void *p, size_t bytes);

/*
 * Map the pages of [p, p + bytes) into this process's page tables in one
 * call (MADV_POPULATE_READ or _WRITE; nothing where the kernel lacks them):
 * memory shared with other processes (the parallel read's segments) is
 * otherwise faulted in page by page when written, ~200,000 faults for
 * 840 MB. (Read faults on shared memory map 16 pages at a time: reading,
 * the bulk call measured slower.)
 */
void		exg_host_populate(const void *p, size_t bytes, bool write);

/* Does exg_host_realloc ask for huge pages on this kernel (host_alloc.c says when)? */
bool		exg_host_huge_pages(void);

#ifdef __cplusplus
}
#endif

#endif							/* EXG_HOST_ALLOC_H */
