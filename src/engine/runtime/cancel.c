/*
 * cancel.c — the cancel callback registry: the process's callback and
 * each thread's own source.
 */
#include "cancel.h"

#include <stddef.h>

static volatile exg_cancel_fn cancel_callback;
static _Thread_local exg_cancel_source thread_source;

void
exg_set_cancel_callback(exg_cancel_fn fn)
{
	cancel_callback = fn;
}

void
exg_set_thread_cancel(exg_thread_cancel_fn fn, void *arg)
{
	thread_source.fn = fn;
	thread_source.arg = fn ? arg : NULL;
}

exg_cancel_source
exg_cancel_source_get(void)
{
	return thread_source;
}

exg_cancel_source
exg_cancel_source_adopt(exg_cancel_source s)
{
	exg_cancel_source old = thread_source;

	thread_source = s;
	return old;
}

bool
exg_cancel_requested(void)
{
	exg_cancel_source s = thread_source;
	exg_cancel_fn fn = cancel_callback;

	if (s.fn != NULL && s.fn(s.arg))
		return true;
	return fn != NULL && fn();
}
