/*
 * memory_budget.c — the host memory budget of an engine call.
 */
#include "memory_budget.h"

#include <stdio.h>
#include <sys/resource.h>
#include <unistd.h>

#define BUDGET_MIN ((size_t) 16 << 20)

/* Bytes mapped by this process now (VmSize), 0 when unknown. */
static size_t
mapped_bytes(void)
{
	FILE	   *f = fopen("/proc/self/statm", "r");
	unsigned long pages = 0;

	if (f == NULL)
		return 0;
	if (fscanf(f, "%lu", &pages) != 1)
		pages = 0;
	fclose(f);
	return (size_t) pages * (size_t) sysconf(_SC_PAGESIZE);
}

size_t
exg_memory_budget(size_t requested)
{
	long		pages = sysconf(_SC_PHYS_PAGES),
				page = sysconf(_SC_PAGESIZE);
	size_t		budget = requested;
	struct rlimit lim;

	if (budget == 0)
		budget = pages > 0 && page > 0 ? (size_t) pages / 4 * (size_t) page : (size_t) 1 << 30;
	if (getrlimit(RLIMIT_AS, &lim) == 0 && lim.rlim_cur != RLIM_INFINITY)
	{
		size_t		used = mapped_bytes(),
					room = lim.rlim_cur > used ? (size_t) (lim.rlim_cur - used) : 0;

		if (budget > room / 2)
			budget = room / 2;
	}
	return budget < BUDGET_MIN ? BUDGET_MIN : budget;
}
