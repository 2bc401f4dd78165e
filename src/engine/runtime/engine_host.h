/*
 * engine_host.h — what the host (the PostgreSQL layer) asks of the
 * engine's runtime: its processors, its worker pool, the memory budget of
 * a join, and pages mapped ahead of the engine's writes. The runtime's own
 * headers (worker_signals.h, memory_budget.h, parallel.h, host_alloc.h)
 * carry the engine's internals too (signal masks, OpenMP team helpers,
 * huge-page reallocation); the host reaches the runtime through these
 * four functions instead, by way of exactgpu_engine.h.
 */
#ifndef EXG_ENGINE_HOST_H
#define EXG_ENGINE_HOST_H

#include <stdbool.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The processors the engine's threads may run on. */
int			exg_engine_cpus(void);

/*
 * Start the worker pool with `threads` threads (0: one per core), deaf to
 * the host's signals, fewer when the process cannot create that many;
 * returns the pool's size (worker_signals.h). Call before each engine call
 * that may run on several threads.
 */
int			exg_engine_workers_start(int threads);

/*
 * Host bytes one join may take for its grids and cell arrays when asked
 * for `requested` (0: the default), within the process's address-space
 * limit (memory_budget.h).
 */
size_t		exg_engine_memory_budget(size_t requested);

/*
 * Map the pages of [p, p + bytes) in one call ahead of the engine's writes
 * (write) or reads (host_alloc.h: shared memory is otherwise faulted in
 * page by page).
 */
void		exg_engine_prefault(const void *p, size_t bytes, bool write);

#ifdef __cplusplus
}
#endif

#endif							/* EXG_ENGINE_HOST_H */
