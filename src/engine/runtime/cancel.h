/*
 * cancel.h — how long engine loops learn that the user wants them to stop.
 *
 * The PostgreSQL layer installs a callback that only READS its interrupt
 * flags (it never calls ProcessInterrupts), so the engine may poll it from
 * any thread; the engine then unwinds with EXG_ERR_INTERRUPTED and the
 * backend raises the real error on its own thread.
 *
 * A process running several joins at once (the GPU service) cancels them
 * one by one: each join's thread sets a cancel source of its own
 * (exg_set_thread_cancel), checked before the process callback. The worker
 * threads of a parallel region are other threads: a region that polls on
 * behalf of a join carries its caller's source to them
 * (exg_cancel_source_get before the region, exg_cancel_source_adopt in it).
 */
#ifndef EXG_CANCEL_H
#define EXG_CANCEL_H

#include <stdbool.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef bool (*exg_cancel_fn) (void);

void		exg_set_cancel_callback(exg_cancel_fn fn);

/*
 * True when the calling thread's source (if any) or the process callback
 * (if any) asks to stop.
 */
bool		exg_cancel_requested(void);

/* A cancel source of one thread: fn(arg) true asks to stop; fn may be NULL. */
typedef bool (*exg_thread_cancel_fn) (void *arg);

typedef struct exg_cancel_source
{
	exg_thread_cancel_fn fn;
	void	   *arg;
} exg_cancel_source;

/* Set (fn non-NULL) or clear (fn NULL) the calling thread's source. */
void		exg_set_thread_cancel(exg_thread_cancel_fn fn, void *arg);

/* The calling thread's source ({NULL, NULL} when none). */
exg_cancel_source exg_cancel_source_get(void);

/* Make s the calling thread's source; returns the one it had (to restore). */
exg_cancel_source exg_cancel_source_adopt(exg_cancel_source s);

/* Poll every this many iterations of a hot loop (a power of two). */
#define EXG_CANCEL_STRIDE 4096

#ifdef __cplusplus
}
#endif

#endif							/* EXG_CANCEL_H */
