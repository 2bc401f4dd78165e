/*
 * stats.h — counters that show users how often exact arithmetic was needed.
 *
 * Counters are per thread (no atomics on the hot path) and summed on demand:
 * each thread that counts gets a block in a global list the first time; a
 * block is recycled when its thread exits, its counts kept.
 */
#ifndef EXG_STATS_H
#define EXG_STATS_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct exg_counters
{
	uint64_t	orient_evals;		/* orientation predicates evaluated on the CPU */
	uint64_t	orient_filtered;	/* ... decided by a filter (static or double intervals) */
	uint64_t	orient_exact;		/* ... sent to GMP */
	uint64_t	exact_ns;			/* nanoseconds spent in GMP */
	uint64_t	pair_tests;			/* primitive pair tests (bounding boxes passed) */
	uint64_t	gpu_pair_tests;		/* pair tests run on the GPU */
	uint64_t	gpu_unknown;		/* GPU pair tests left undecided by the float filter */
	uint64_t	gpu_calls;			/* engine calls that used the GPU */
} exg_counters;

#define EXG_COUNTERS_N (sizeof(exg_counters) / sizeof(uint64_t))

/* This thread's counters (never NULL: falls back to a shared spare block). */
exg_counters *exg_counters_local(void);

/* Sum of all threads' counters since the last reset. */
void		exg_counters_snapshot(exg_counters *sum);

/* Zero every thread's counters. Call only while no engine work runs. */
void		exg_counters_reset(void);

/* Monotonic clock in nanoseconds, for timing phases. */
uint64_t	exg_now_ns(void);

#ifdef __cplusplus
}
#endif

#endif							/* EXG_STATS_H */
