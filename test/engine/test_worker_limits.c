/*
 * test_worker_limits.c — the worker pool under an address-space limit
 * (ulimit -v, as containers run PostgreSQL): where the OpenMP runtime would
 * end the process on a failed thread creation ("Thread creation failed"),
 * exg_workers_start sizes the pool to what can be created, and parallel
 * regions of that size run. Each case runs in a child process with its own
 * RLIMIT_AS, so the machine is never at risk.
 */
#define _GNU_SOURCE
#include <omp.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "worker_signals.h"

static int	failures;

static void
expect(const char *what, int ok)
{
	printf("%s %s\n", ok ? "ok  " : "FAIL", what);
	failures += !ok;
}

/* This process's mapped address space in bytes (VmSize). */
static size_t
vm_size(void)
{
	FILE	   *f = fopen("/proc/self/status", "r");
	char		line[256];
	size_t		kb = 0;

	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "VmSize: %zu kB", &kb) == 1)
			break;
	if (f)
		fclose(f);
	return kb * 1024;
}

static size_t
default_stack(void)
{
	pthread_attr_t a;
	size_t		s = 0;

	pthread_getattr_default_np(&a);
	pthread_attr_getstacksize(&a, &s);
	pthread_attr_destroy(&a);
	return s;
}

/*
 * In a child with room for about `stacks` more thread stacks: start a pool
 * of `want`, then run two regions of the pool's size. Exit code: 10 + the
 * pool's size, or 100 + the threads a region saw when it differs (libgomp
 * itself exits with 1 after "Thread creation failed").
 */
static int
child(int want, double stacks)
{
	struct rlimit lim;
	int			pool,
				seen = 0;

	/* the runtime's own first team, as a backend has one before any join */
#pragma omp parallel num_threads(1)
	{
	}
	lim.rlim_cur = lim.rlim_max = vm_size() + (size_t) (stacks * default_stack());
	if (setrlimit(RLIMIT_AS, &lim) != 0)
		_exit(99);
	pool = exg_workers_start(want);
	for (int r = 0; r < 2; r++)
	{
#pragma omp parallel num_threads(pool)
		{
#pragma omp master
			seen = omp_get_num_threads();
		}
		if (seen != pool)
			_exit(100 + seen);
	}
	/* a larger request again: probed anew, never beyond what exists */
	if (exg_workers_start(want) > pool + 1)
		_exit(98);
	_exit(10 + pool);
}

static void
run_case(int want, double stacks, int min_pool, int max_pool)
{
	pid_t		pid;
	int			status = 0,
				pool;
	char		what[160];

	fflush(stdout);
	pid = fork();
	if (pid == 0)
		child(want, stacks);
	waitpid(pid, &status, 0);
	if (WIFSIGNALED(status))
	{
		snprintf(what, sizeof(what), "%d threads asked, room for %.1f stacks: child killed by signal %d (%s)",
				 want, stacks, WTERMSIG(status), strsignal(WTERMSIG(status)));
		expect(what, 0);
		return;
	}
	pool = WEXITSTATUS(status) - 10;
	snprintf(what, sizeof(what), "%d threads asked, room for %.1f stacks: pool of %d (want %d..%d; child exit code %d)",
			 want, stacks, pool, min_pool, max_pool, WEXITSTATUS(status));
	expect(what, pool >= min_pool && pool <= max_pool);
}

int
main(void)
{
	printf("default thread stack: %zu kB\n", default_stack() / 1024);
	/* the audit's case: far more threads than the address space allows */
	run_case(64, 3.5, 1, 4);
	/* no room for a single extra thread: a pool of one, still no abort */
	run_case(16, 0.2, 1, 1);
	/* room enough: the pool as asked */
	run_case(4, 40, 4, 4);
	printf("test_worker_limits: %d failures\n", failures);
	return failures != 0;
}
