/*
 * trace.c — the recording behind trace.h: one array for the process, an
 * atomic cursor, a thread number per thread.
 */
#include "trace.h"

#include <stdlib.h>
#include <string.h>

#include "stats.h"

volatile bool exg_trace_on = false;

static exg_trace_entry entries[EXG_TRACE_MAX];
static int	next_entry;
static int	next_thread;
static __thread int my_thread = -1;

void
exg_trace_enable(bool on)
{
	if (on)
	{
		__atomic_store_n(&next_entry, 0, __ATOMIC_RELAXED);
		__atomic_thread_fence(__ATOMIC_SEQ_CST);
	}
	exg_trace_on = on;
}

void
exg_trace_record(const char *label, int device, float gpu_ms)
{
	int			i;

	if (my_thread < 0)
		my_thread = __atomic_fetch_add(&next_thread, 1, __ATOMIC_RELAXED);
	/* full: not counted further (the cursor would wrap) */
	if (__atomic_load_n(&next_entry, __ATOMIC_RELAXED) >= EXG_TRACE_MAX)
		return;
	i = __atomic_fetch_add(&next_entry, 1, __ATOMIC_RELAXED);
	if (i >= EXG_TRACE_MAX)
		return;
	entries[i].ns = exg_now_ns();
	entries[i].label = label;
	entries[i].thread = my_thread;
	entries[i].device = device;
	entries[i].gpu_ms = gpu_ms;
}

static int
by_time(const void *x, const void *y)
{
	const exg_trace_entry *a = x,
			   *b = y;

	return a->ns < b->ns ? -1 : a->ns > b->ns;
}

int
exg_trace_take(exg_trace_entry *out, int max)
{
	int			n = __atomic_load_n(&next_entry, __ATOMIC_RELAXED);

	if (n > EXG_TRACE_MAX)
		n = EXG_TRACE_MAX;
	if (n > max)
		n = max;
	memcpy(out, entries, sizeof(exg_trace_entry) * (size_t) n);
	qsort(out, (size_t) n, sizeof(exg_trace_entry), by_time);
	return n;
}
