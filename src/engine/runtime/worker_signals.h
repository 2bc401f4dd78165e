/*
 * worker_signals.h — the engine's threads never run the host's signal
 * handlers.
 *
 * PostgreSQL signals its backends (cancel, timeouts, latches) process-wide,
 * and the kernel hands each signal to any thread that does not block it. A
 * handler run on a worker thread would race the backend's own state. Threads
 * inherit the signal mask of the thread that creates them, and the OpenMP
 * pool keeps its threads for later regions: so the pool is started, as
 * large as it will be, with every signal blocked.
 *
 * The OpenMP runtime (libgomp) ends the process when it cannot create a
 * thread ("Thread creation failed"), as under an address-space limit
 * (ulimit -v) where every thread's stack counts. So the pool is sized by a
 * probe first: the threads are created here, where a failure is an answer,
 * and the pool never asks the runtime for more than the probe got.
 */
#ifndef EXG_WORKER_SIGNALS_H
#define EXG_WORKER_SIGNALS_H

#include <signal.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Most threads a pool may have. */
#define EXG_WORKERS_MAX 256

/*
 * Make the worker pool `threads` threads (0: one per core), all created
 * with every signal blocked, or fewer when this process cannot create that
 * many; returns the pool's size (>= 1), which later regions must not
 * exceed. Also the default team size of regions that name none. Cheap when
 * the pool already has that size. Call from the host's main thread, before
 * each engine call that may run parallel regions (a smaller region shrinks
 * the runtime's pool).
 */
int			exg_workers_start(int threads);

/* Block every signal in this thread; returns the previous mask in *old. */
void		exg_signals_block(sigset_t *old);

/* Put the mask saved by exg_signals_block back. */
void		exg_signals_restore(const sigset_t *old);

#ifdef __cplusplus
}
#endif

#endif							/* EXG_WORKER_SIGNALS_H */
