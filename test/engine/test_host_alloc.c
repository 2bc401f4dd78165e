/*
 * test_host_alloc.c — exg_host_realloc: realloc's contract (contents kept
 * across growth and shrinking, NULL start), and its huge page advice lands
 * on the whole pages inside a big array only: never on a partial page at
 * either end (which it may share with other allocations), never on a small
 * array. The advice is read back from /proc/self/smaps (VmFlags "hg").
 */
#include <malloc.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "harness.h"
#include "host_alloc.h"

/* Does the mapping holding address a carry the huge page advice? -1: not found. */
static int
advised(uintptr_t a)
{
	FILE	   *f = fopen("/proc/self/smaps", "r");
	char		line[512];
	int			in = 0,
				found = -1;

	if (f == NULL)
		return -1;
	while (fgets(line, sizeof(line), f))
	{
		unsigned long lo,
					hi;

		if (sscanf(line, "%lx-%lx ", &lo, &hi) == 2 && strchr(line, '-') < strchr(line, ' '))
			in = a >= lo && a < hi;
		else if (in && strncmp(line, "VmFlags:", 8) == 0)
		{
			found = strstr(line, " hg") != NULL;
			break;
		}
	}
	fclose(f);
	return found;
}

static void
fill(unsigned char *p, size_t n, unsigned seed)
{
	for (size_t i = 0; i < n; i++)
		p[i] = (unsigned char) (i * 131 + seed);
}

static size_t
mismatches(const unsigned char *p, size_t n, unsigned seed)
{
	size_t		bad = 0;

	for (size_t i = 0; i < n; i++)
		bad += p[i] != (unsigned char) (i * 131 + seed);
	return bad;
}

/* A big array's advice covers its whole pages, and nothing else. */
static void
check_advice(const char *what, unsigned char *q, size_t bytes)
{
	uintptr_t	page = (uintptr_t) sysconf(_SC_PAGESIZE),
				a = (uintptr_t) q,
				lo = (a + page - 1) & ~(page - 1),
				hi = (a + bytes) & ~(page - 1);

	CHECK(advised(lo) == 1, "%s: first whole page not advised", what);
	CHECK(advised(hi - 1) == 1, "%s: last whole page not advised", what);
	CHECK(advised((lo + hi) / 2) == 1, "%s: middle not advised", what);
	if (a < lo)
		CHECK(advised(a) == 0, "%s: the partial page before the array advised", what);
	if (a + bytes > hi)
		CHECK(advised(hi) == 0, "%s: the partial page after the array advised", what);
}

int
main(void)
{
	/* big arrays from their own mappings, whatever was freed before */
	int			thp = access("/sys/kernel/mm/transparent_hugepage/enabled", F_OK) == 0;
	size_t		small = (size_t) 1 << 20,
				big = ((size_t) 9 << 20) + 100,
				bigger = ((size_t) 24 << 20) + 4000;
	unsigned char *p;

	mallopt(M_MMAP_THRESHOLD, 128 * 1024);
	/* the advice's page arithmetic, whatever this kernel's THP settings */
	setenv("EXACTGPU_TEST_HUGE_PAGES", "1", 1);
	CHECK(exg_host_huge_pages(), "EXACTGPU_TEST_HUGE_PAGES=1 not honoured");

	/* from NULL, small: no advice */
	p = exg_host_realloc(NULL, small);
	CHECK(p != NULL);
	fill(p, small, 1);
	if (thp)
		CHECK(advised((uintptr_t) p + small / 2) == 0, "a 1 MB array advised");

	/* grown past the threshold: contents kept, whole pages advised */
	p = exg_host_realloc(p, big);
	CHECK(p != NULL);
	CHECK(mismatches(p, small, 1) == 0, "contents lost growing 1 MB -> 9 MB");
	fill(p, big, 2);
	if (thp)
		check_advice("grown to 9 MB", p, big);

	/* grown again (mremap may move it): kept and advised */
	p = exg_host_realloc(p, bigger);
	CHECK(p != NULL);
	CHECK(mismatches(p, big, 2) == 0, "contents lost growing 9 MB -> 24 MB");
	if (thp)
		check_advice("grown to 24 MB", p, bigger);

	/* shrunk: the kept part intact */
	p = exg_host_realloc(p, big);
	CHECK(p != NULL);
	CHECK(mismatches(p, big, 2) == 0, "contents lost shrinking 24 MB -> 9 MB");
	free(p);

	/* a fresh big array, written after the advice */
	p = exg_host_realloc(NULL, bigger);
	CHECK(p != NULL);
	fill(p, bigger, 3);
	CHECK(mismatches(p, bigger, 3) == 0);
	if (thp)
		check_advice("fresh 24 MB", p, bigger);
	free(p);

	if (!thp)
		printf("  no transparent huge pages in this kernel: advice not checked\n");
	return test_summary("test_host_alloc");
}
