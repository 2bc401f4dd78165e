/*
 * cancel.h — how long engine loops learn that the user wants them to stop.
 *
 * The PostgreSQL layer installs a callback that only READS its interrupt
 * flags (it never calls ProcessInterrupts), so the engine may poll it from
 * any thread; the engine then unwinds with EXG_ERR_INTERRUPTED and the
 * backend raises the real error on its own thread.
 */
#ifndef EXG_CANCEL_H
#define EXG_CANCEL_H

#include <stdbool.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef bool (*exg_cancel_fn) (void);

void		exg_set_cancel_callback(exg_cancel_fn fn);
bool		exg_cancel_requested(void);

/* Poll every this many iterations of a hot loop (a power of two). */
#define EXG_CANCEL_STRIDE 4096

#ifdef __cplusplus
}
#endif

#endif							/* EXG_CANCEL_H */
