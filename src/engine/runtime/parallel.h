/*
 * parallel.h — the CPU worker pool (OpenMP) as the engine uses it.
 *
 * Worker threads run engine code only: they never call back into
 * PostgreSQL; cancellation reaches them through exg_cancel_requested(),
 * which only reads flags.
 */
#ifndef EXG_PARALLEL_H
#define EXG_PARALLEL_H

#ifdef _OPENMP
#include <omp.h>
#endif

static inline int
exg_max_threads(void)
{
#ifdef _OPENMP
	return omp_get_max_threads();
#else
	return 1;
#endif
}

/* Cores this process may run on. */
static inline int
exg_cpu_count(void)
{
#ifdef _OPENMP
	return omp_get_num_procs();
#else
	return 1;
#endif
}

/* Threads a parallel region should use: the caller's choice, else all. */
static inline int
exg_threads(int requested)
{
	return requested > 0 ? requested : exg_max_threads();
}

/* This thread's number in the parallel region (0 outside one). */
static inline int
exg_thread_num(void)
{
#ifdef _OPENMP
	return omp_get_thread_num();
#else
	return 0;
#endif
}

/* Threads in the current parallel region (1 outside one). */
static inline int
exg_team_size(void)
{
#ifdef _OPENMP
	return omp_get_num_threads();
#else
	return 1;
#endif
}

/* A flag set by any worker and read by all: stop early. */
static inline void
exg_flag_set(int *flag)
{
	__atomic_store_n(flag, 1, __ATOMIC_RELAXED);
}

static inline int
exg_flag_get(const int *flag)
{
	return __atomic_load_n(flag, __ATOMIC_RELAXED);
}

#endif							/* EXG_PARALLEL_H */
