/*
 * engine_host.c — the runtime as the host sees it (engine_host.h): thin
 * doors onto the worker pool, the memory budget and the page mapping, so
 * that the host includes none of the runtime's internal headers.
 */
#include "engine_host.h"

#include "host_alloc.h"
#include "memory_budget.h"
#include "parallel.h"
#include "worker_signals.h"

int
exg_engine_cpus(void)
{
	return exg_cpu_count();
}

int
exg_engine_workers_start(int threads)
{
	return exg_workers_start(threads);
}

size_t
exg_engine_memory_budget(size_t requested)
{
	return exg_memory_budget(requested);
}

void
exg_engine_prefault(const void *p, size_t bytes, bool write)
{
	exg_host_populate(p, bytes, write);
}
