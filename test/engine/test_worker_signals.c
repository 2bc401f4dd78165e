/*
 * test_worker_signals.c — after exg_workers_start, every worker thread of the
 * pool blocks every signal (a PostgreSQL handler must never run on one),
 * the calling thread's own mask is unchanged, and a later, larger pool also
 * comes up with signals blocked.
 */
#include <omp.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>

#include "worker_signals.h"
#include "harness.h"


/* Count the workers (not the master) of an n-thread region that take SIGINT or SIGALRM. */
static int
workers_open_to_signals(int n)
{
	int			open = 0;

#pragma omp parallel num_threads(n) reduction(+:open)
	{
		sigset_t	cur;

		pthread_sigmask(SIG_BLOCK, NULL, &cur);
		if (omp_get_thread_num() != 0 &&
			(!sigismember(&cur, SIGINT) || !sigismember(&cur, SIGALRM)))
			open++;
	}
	return open;
}

static void
expect(const char *what, int got, int want)
{
	printf("%s %s: %d (want %d)\n", got == want ? "ok  " : "FAIL", what, got, want);
	test_failures += got != want;
}

int
main(void)
{
	sigset_t	cur;

	exg_workers_start(4);
	expect("workers of 4 open to SIGINT/SIGALRM", workers_open_to_signals(4), 0);
	pthread_sigmask(SIG_BLOCK, NULL, &cur);
	expect("main thread still takes SIGINT", sigismember(&cur, SIGINT) == 0, 1);
	exg_workers_start(7);
	expect("workers of 7 open to SIGINT/SIGALRM", workers_open_to_signals(7), 0);
	expect("workers of 3 open to SIGINT/SIGALRM", workers_open_to_signals(3), 0);
	printf("test_worker_signals: %ld failures\n", test_failures);
	return test_failures != 0;
}
