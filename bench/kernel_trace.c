/*
 * kernel_trace.c — kernel_trace.h over CUPTI's activity API, its functions
 * looked up with dlsym so that the bench runs without libcupti.
 */
#include "kernel_trace.h"

#if defined(EXG_WITH_CUDA) && __has_include(<cupti_activity.h>)

#include <cupti_activity.h>
#include <dlfcn.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef struct span
{
	uint64_t	start,
				end;
	uint32_t	device,
				stream;
	char		what[64];
} span;

#define SPANS_MAX 65536

static span *spans;
static int	nspans;
static void *lib;

static CUptiResult (*p_register) (CUpti_BuffersCallbackRequestFunc, CUpti_BuffersCallbackCompleteFunc);
static CUptiResult (*p_enable) (CUpti_ActivityKind);
static CUptiResult (*p_disable) (CUpti_ActivityKind);
static CUptiResult (*p_flush) (uint32_t);
static CUptiResult (*p_next) (uint8_t *, size_t, CUpti_Activity **);

static const CUpti_ActivityKind kinds[] = {
	CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, CUPTI_ACTIVITY_KIND_MEMCPY, CUPTI_ACTIVITY_KIND_MEMSET
};

static void
buffer_requested(uint8_t **buffer, size_t *size, size_t *max_records)
{
	*size = (size_t) 8 << 20;
	*buffer = aligned_alloc(8, *size);
	*max_records = 0;
}

static void
add(uint64_t start, uint64_t end, uint32_t device, uint32_t stream, const char *what)
{
	if (nspans >= SPANS_MAX)
		return;
	spans[nspans] = (span) {start, end, device, stream, ""};
	snprintf(spans[nspans].what, sizeof(spans[nspans].what), "%s", what);
	nspans++;
}

static void
buffer_completed(CUcontext ctx, uint32_t stream, uint8_t *buffer, size_t size, size_t valid)
{
	CUpti_Activity *r = NULL;

	(void) ctx;
	(void) stream;
	(void) size;
	while (p_next(buffer, valid, &r) == CUPTI_SUCCESS)
	{
		char		what[64];

		if (r->kind == CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL || r->kind == CUPTI_ACTIVITY_KIND_KERNEL)
		{
			CUpti_ActivityKernel10 *k = (CUpti_ActivityKernel10 *) r;

			snprintf(what, sizeof(what), "%s<<<%u>>>", k->name ? k->name : "?", k->gridX);
			add(k->start, k->end, k->deviceId, k->streamId, what);
		}
		else if (r->kind == CUPTI_ACTIVITY_KIND_MEMCPY)
		{
			CUpti_ActivityMemcpy6 *m = (CUpti_ActivityMemcpy6 *) r;
			static const char *dir[] = {"?", "HtoD", "DtoH", "HtoA", "AtoH", "AtoA", "AtoD", "DtoA", "DtoD", "HtoH", "PtoP"};

			snprintf(what, sizeof(what), "memcpy %s %llu B", m->copyKind < 11 ? dir[m->copyKind] : "?",
					 (unsigned long long) m->bytes);
			add(m->start, m->end, m->deviceId, m->streamId, what);
		}
		else if (r->kind == CUPTI_ACTIVITY_KIND_MEMSET)
		{
			CUpti_ActivityMemset4 *m = (CUpti_ActivityMemset4 *) r;

			snprintf(what, sizeof(what), "memset %llu B", (unsigned long long) m->bytes);
			add(m->start, m->end, m->deviceId, m->streamId, what);
		}
	}
	free(buffer);
}

bool
kernel_trace_start(void)
{
	const char *path = getenv("CUPTI_LIB");

	if (lib == NULL)
	{
		lib = dlopen(path ? path : "libcupti.so.13", RTLD_NOW);
		if (lib == NULL)
		{
			fprintf(stderr, "kernel_trace: %s\n", dlerror());
			return false;
		}
		p_register = (CUptiResult (*) (CUpti_BuffersCallbackRequestFunc, CUpti_BuffersCallbackCompleteFunc))
			dlsym(lib, "cuptiActivityRegisterCallbacks");
		p_enable = (CUptiResult (*) (CUpti_ActivityKind)) dlsym(lib, "cuptiActivityEnable");
		p_disable = (CUptiResult (*) (CUpti_ActivityKind)) dlsym(lib, "cuptiActivityDisable");
		p_flush = (CUptiResult (*) (uint32_t)) dlsym(lib, "cuptiActivityFlushAll");
		p_next = (CUptiResult (*) (uint8_t *, size_t, CUpti_Activity **)) dlsym(lib, "cuptiActivityGetNextRecord");
		if (!p_register || !p_enable || !p_disable || !p_flush || !p_next ||
			p_register(buffer_requested, buffer_completed) != CUPTI_SUCCESS)
		{
			fprintf(stderr, "kernel_trace: CUPTI's activity API not usable\n");
			dlclose(lib);
			lib = NULL;
			return false;
		}
		spans = malloc(sizeof(span) * SPANS_MAX);
	}
	nspans = 0;
	for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++)
		if (p_enable(kinds[i]) != CUPTI_SUCCESS)
			fprintf(stderr, "kernel_trace: activity kind %d not enabled\n", (int) kinds[i]);
	return true;
}

static int
by_start(const void *a, const void *b)
{
	const span *x = a,
			   *y = b;

	return x->start < y->start ? -1 : x->start > y->start;
}

void
kernel_trace_stop(FILE *out)
{
	uint64_t	t0;

	if (lib == NULL)
		return;
	p_flush(1);
	for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++)
		(void) p_disable(kinds[i]);
	p_flush(1);
	qsort(spans, (size_t) nspans, sizeof(span), by_start);
	t0 = nspans ? spans[0].start : 0;
	fprintf(out, "  start_us    dur_us  dev stream  what\n");
	for (int i = 0; i < nspans; i++)
		fprintf(out, "%10.1f %9.1f  %3u %6u  %s\n", (spans[i].start - t0) / 1e3,
				(spans[i].end - spans[i].start) / 1e3, spans[i].device, spans[i].stream, spans[i].what);
}

#else

bool
kernel_trace_start(void)
{
	fprintf(stderr, "kernel_trace: built without CUDA or CUPTI's headers\n");
	return false;
}

void
kernel_trace_stop(FILE *out)
{
	(void) out;
}

#endif
