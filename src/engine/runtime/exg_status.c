/*
 * exg_status.c — error reporting helpers of the engine.
 */
#include "exg_status.h"

#include <stdarg.h>
#include <stdio.h>

exg_status
exg_fail(exg_error *err, exg_status st, const char *fmt,...)
{
	if (err != NULL)
	{
		va_list		ap;

		err->status = st;
		va_start(ap, fmt);
		vsnprintf(err->message, sizeof(err->message), fmt, ap);
		va_end(ap);
	}
	return st;
}

const char *
exg_status_name(exg_status st)
{
	switch (st)
	{
		case EXG_OK:
			return "ok";
		case EXG_ERR_NOMEM:
			return "out of memory";
		case EXG_ERR_CORRUPT:
			return "corrupt geometry";
		case EXG_ERR_UNSUPPORTED:
			return "unsupported geometry";
		case EXG_ERR_NONFINITE:
			return "non-finite coordinate";
		case EXG_ERR_NONPLANAR:
			return "non-planar face";
		case EXG_ERR_INVALID:
			return "invalid polygon";
		case EXG_ERR_TOO_LARGE:
			return "input too large";
		case EXG_ERR_INTERRUPTED:
			return "interrupted";
		case EXG_ERR_DEVICE:
			return "device error";
		case EXG_ERR_ARGUMENT:
			return "bad argument";
		case EXG_ERR_NOT_SOLID:
			return "not a solid";
		case EXG_ERR_WRONG_KIND:
			return "wrong kind of geometry";
		case EXG_ERR_DEVICE_MEMORY:
			return "out of GPU memory";
	}
	return "unknown status";
}
