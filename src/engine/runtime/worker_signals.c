/*
 * worker_signals.c — starting the worker pool with signals blocked, and no
 * larger than the threads this process can really create (see
 * worker_signals.h).
 */
#include "worker_signals.h"

#include <pthread.h>

#include "parallel.h"

/*
 * Threads (the caller included) known to be creatable: the largest pool a
 * probe could create, or a pool the last failed probe left room for.
 */
static int	creatable = 1;

typedef struct probe_gate
{
	pthread_mutex_t lock;
	pthread_cond_t open;
	int			released;
} probe_gate;

static void *
probe_wait(void *arg)
{
	probe_gate *g = arg;

	pthread_mutex_lock(&g->lock);
	while (!g->released)
		pthread_cond_wait(&g->open, &g->lock);
	pthread_mutex_unlock(&g->lock);
	return NULL;
}

/*
 * Create up to `want` threads, all alive at once, with the attributes the
 * OpenMP runtime uses by default (the process's default stack size); then
 * release and join them. Returns how many were created. Their stacks go
 * to the C library's cache of stacks, where the pool's threads find them.
 */
static int
probe_threads(int want)
{
	pthread_t	tid[EXG_WORKERS_MAX];
	probe_gate	g = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, 0};
	int			made = 0;

	while (made < want && pthread_create(&tid[made], NULL, probe_wait, &g) == 0)
		made++;
	pthread_mutex_lock(&g.lock);
	g.released = 1;
	pthread_cond_broadcast(&g.open);
	pthread_mutex_unlock(&g.lock);
	for (int i = 0; i < made; i++)
		pthread_join(tid[i], NULL);
	return made;
}

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

int
exg_workers_start(int threads)
{
	int			n = threads > 0 ? threads : exg_cpu_count();
	sigset_t	old;

	if (n > EXG_WORKERS_MAX)
		n = EXG_WORKERS_MAX;
	exg_signals_block(&old);
	if (n > creatable)
	{
		int			made = probe_threads(n - 1);

		/*
		 * All made: the pool can have n. A failure: keep one thread's worth
		 * of headroom below what succeeded, as memory may shrink further
		 * before the runtime creates its own.
		 */
		creatable = made == n - 1 ? n : (made > 1 ? made : 1);
	}
	if (n > creatable)
		n = creatable;
#ifdef _OPENMP
	/* regions without num_threads (and exg_threads(0)) now take n too */
	omp_set_num_threads(n);
#endif
	/*
	 * An empty region of n threads: the runtime creates what the pool lacks
	 * (it ends a pool's surplus threads after a smaller region, and makes
	 * them again for a larger one), all with signals blocked.
	 */
#pragma omp parallel num_threads(n)
	{
		__asm__ volatile ("" ::: "memory");
	}
	exg_signals_restore(&old);
	return n;
}
