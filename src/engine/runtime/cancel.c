/*
 * cancel.c — the cancel callback registry.
 */
#include "cancel.h"

#include <stddef.h>

static volatile exg_cancel_fn cancel_callback;

void
exg_set_cancel_callback(exg_cancel_fn fn)
{
	cancel_callback = fn;
}

bool
exg_cancel_requested(void)
{
	exg_cancel_fn fn = cancel_callback;

	return fn != NULL && fn();
}
