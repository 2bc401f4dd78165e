/*
 * worker_signals.c — starting the worker pool with signals blocked (see
 * worker_signals.h).
 */
#include "worker_signals.h"

#include <pthread.h>

#include "parallel.h"

static int	started;			/* threads created so far, all signal-free */

void
exg_signals_block(sigset_t *old)
{
	sigset_t	all;

	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, old);
}

void
exg_signals_restore(const sigset_t *old)
{
	pthread_sigmask(SIG_SETMASK, old, NULL);
}

void
exg_workers_start(int threads)
{
	int			n = exg_threads(threads);
	sigset_t	old;

	if (n <= started)
		return;
	exg_signals_block(&old);
	/* an empty region of n threads: the pool creates what it lacks now */
#pragma omp parallel num_threads(n)
	{
		__asm__ volatile ("" ::: "memory");
	}
	exg_signals_restore(&old);
	started = n;
}
