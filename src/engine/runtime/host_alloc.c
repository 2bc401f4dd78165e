/*
 * host_alloc.c — big host arrays backed by transparent huge pages.
 */
#include "host_alloc.h"

#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

/* Below this, an array is not worth a system call (and seldom spans a huge page). */
#define HUGE_MIN_BYTES ((size_t) 4 << 20)

void *
exg_host_realloc(void *p, size_t bytes)
{
	void	   *q = realloc(p, bytes);

#ifdef MADV_HUGEPAGE
	if (q != NULL && bytes >= HUGE_MIN_BYTES)
	{
		/*
		 * glibc serves arrays this big from their own mapping: advise the
		 * whole pages inside it. Only advice: where THP is off, or the
		 * kernel has no huge page to give, the array keeps small pages.
		 */
		uintptr_t	page = (uintptr_t) sysconf(_SC_PAGESIZE);
		uintptr_t	lo = ((uintptr_t) q + page - 1) & ~(page - 1),
					hi = ((uintptr_t) q + bytes) & ~(page - 1);

		if (hi > lo)
			(void) madvise((void *) lo, hi - lo, MADV_HUGEPAGE);
	}
#endif
	return q;
}
