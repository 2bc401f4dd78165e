/*
 * trace.h — a developer's timeline of one join: labelled host timestamps
 * from every thread, off unless a bench turns it on. Where a mark follows
 * GPU work, exg_trace_sync (gpu_runtime.cuh) waits for the stream first, so
 * that a step's time is its own and not the next synchronization's; that
 * changes the timing it shows (no overlap), which is why it is off in
 * production and on only to find where a join's milliseconds go.
 */
#ifndef EXG_TRACE_H
#define EXG_TRACE_H

#include <stdbool.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct exg_trace_entry
{
	uint64_t	ns;				/* exg_now_ns() */
	const char *label;			/* a string literal */
	int			thread;			/* a small number per thread, in order of first mark */
	int			device;			/* the thread's bound device, or -1 */
	float		gpu_ms;			/* exg_trace_sync: the stream's time since the
								 * thread's last such mark on it, or -1 */
} exg_trace_entry;

#define EXG_TRACE_MAX 8192

/* Whether marks are recorded (one relaxed read: free when off). */
extern volatile bool exg_trace_on;

/* Turn recording on or off; on clears what was recorded. */
void		exg_trace_enable(bool on);

/*
 * Record label now, with the thread's device (or -1) and the GPU's time
 * since the last mark (or -1); entries beyond EXG_TRACE_MAX are dropped.
 */
void		exg_trace_record(const char *label, int device, float gpu_ms);

static inline void
exg_trace_mark(const char *label)
{
	if (exg_trace_on)
		exg_trace_record(label, -1, -1);
}

/* Copy up to max entries recorded since enable, in time order; their count. */
int			exg_trace_take(exg_trace_entry *out, int max);

#ifdef __cplusplus
}
#endif

#endif							/* EXG_TRACE_H */
