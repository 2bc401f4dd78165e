/*
 * host_alloc.c — big host arrays backed by transparent huge pages.
 */
#include "host_alloc.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

/* Below this, an array is not worth a system call (and seldom spans a huge page). */
#define HUGE_MIN_BYTES ((size_t) 4 << 20)

/* The bracketed choice of a THP sysfs file, e.g. "madvise"; "" if unknown. */
static void
thp_setting(const char *path, char *out, size_t outlen)
{
	char		buf[256];
	FILE	   *f = fopen(path, "r");
	size_t		n = f ? fread(buf, 1, sizeof(buf) - 1, f) : 0;
	char	   *a,
			   *b;

	out[0] = '\0';
	if (f)
		fclose(f);
	buf[n] = '\0';
	if ((a = strchr(buf, '[')) != NULL && (b = strchr(a, ']')) != NULL &&
		(size_t) (b - a - 1) < outlen)
	{
		memcpy(out, a + 1, b - a - 1);
		out[b - a - 1] = '\0';
	}
}

/*
 * Whether to ask for huge pages: only where the kernel gives them without
 * stalling the fault. With THP's defrag at "always", "madvise" or
 * "defer+madvise", a fault in an advised region compacts memory first; on
 * the H100 machine ("madvise", 16 GB of shared buffers and a full page
 * cache) reading the large mine serially took 13-16 s instead of 1.2 s.
 * With "defer" or "never" a huge page is taken if one is free, else small
 * pages. EXACTGPU_TEST_HUGE_PAGES=1 asks regardless (test_host_alloc).
 */
bool
exg_host_huge_pages(void)
{
	static int	decided = -1;
	int			d = __atomic_load_n(&decided, __ATOMIC_RELAXED);

	if (d < 0)
	{
		char		enabled[32],
					defrag[32];
		const char *force = getenv("EXACTGPU_TEST_HUGE_PAGES");

		thp_setting("/sys/kernel/mm/transparent_hugepage/enabled", enabled, sizeof(enabled));
		thp_setting("/sys/kernel/mm/transparent_hugepage/defrag", defrag, sizeof(defrag));
		d = (force && strcmp(force, "1") == 0) ||
			((strcmp(enabled, "always") == 0 || strcmp(enabled, "madvise") == 0) &&
			 (strcmp(defrag, "defer") == 0 || strcmp(defrag, "never") == 0));
		__atomic_store_n(&decided, d, __ATOMIC_RELAXED);
	}
	return d == 1;
}

void *
exg_host_realloc(void *p, size_t bytes)
{
	void	   *q = realloc(p, bytes);

#ifdef MADV_HUGEPAGE
	if (q != NULL && bytes >= HUGE_MIN_BYTES && exg_host_huge_pages())
	{
		/*
		 * Advise the whole pages inside the array, none it may share with
		 * other allocations (test_host_alloc). glibc mostly serves arrays
		 * this big from their own mapping (from the heap once its mmap
		 * threshold has risen after big frees, up to 32 MB). Only advice:
		 * where THP is off, or the kernel has no huge page to give, the
		 * array keeps small pages.
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

void
exg_host_populate(const void *p, size_t bytes, bool write)
{
#if defined(MADV_POPULATE_READ) && defined(MADV_POPULATE_WRITE)
	long		page;
	uintptr_t	lo,
				hi;

	if (bytes < ((size_t) 1 << 20))
		return;					/* a few faults cost less than the call */
	page = sysconf(_SC_PAGESIZE);	/* here, not cached: called from several threads */
	if (page <= 0)
		return;
	/* whole pages inside the range only: a write must not reach outside it */
	lo = ((uintptr_t) p + page - 1) & ~((uintptr_t) page - 1);
	hi = ((uintptr_t) p + bytes) & ~((uintptr_t) page - 1);
	if (hi > lo)
		(void) madvise((void *) lo, hi - lo, write ? MADV_POPULATE_WRITE : MADV_POPULATE_READ);
#else
	(void) p;
	(void) bytes;
	(void) write;
#endif
}
