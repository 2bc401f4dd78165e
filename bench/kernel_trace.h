/*
 * kernel_trace.h — the GPU's own timeline of a stretch of a bench: every
 * kernel, copy and memset with its device, stream, start and duration,
 * from CUPTI's activity records (libcupti loaded at run time: the bench
 * needs it only when asked, and the device machine gets it carried). For
 * finding where a join's GPU time goes where no profiler is installed.
 */
#ifndef KERNEL_TRACE_H
#define KERNEL_TRACE_H

#include <stdbool.h>
#include <stdio.h>

/* Start recording; false (and why, on stderr) when CUPTI cannot be loaded. */
bool		kernel_trace_start(void);

/* Stop, and print what was recorded in time order (µs from the first). */
void		kernel_trace_stop(FILE *out);

#endif
