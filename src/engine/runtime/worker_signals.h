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
 */
#ifndef EXG_WORKER_SIGNALS_H
#define EXG_WORKER_SIGNALS_H

#include <signal.h>

#ifdef __cplusplus
extern "C" {
#endif

/*
 * Make sure the worker pool holds at least `threads` threads (0: as many as
 * OpenMP would use), all created with every signal blocked. Cheap once the
 * pool is that large. Call from the host's main thread.
 */
void		exg_workers_start(int threads);

/* Block every signal in this thread; returns the previous mask in *old. */
void		exg_signals_block(sigset_t *old);

/* Put the mask saved by exg_signals_block back. */
void		exg_signals_restore(const sigset_t *old);

#ifdef __cplusplus
}
#endif

#endif							/* EXG_WORKER_SIGNALS_H */
