/*
 * kernel_trace.c — kernel_trace.h over CUPTI's activity API, its functions
 * looked up with dlsym so that the bench runs without libcupti.
 */
#include "kernel_trace.h"

#if defined(EXG_WITH_CUDA) && __has_include(<cupti_activity.h>)

#include <cupti_activity.h>
#include <cupti_callbacks.h>
#include <dlfcn.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef struct span
{
	uint64_t	start,
				end;
	uint32_t	device,			/* HOST_DEVICE: a runtime API call */
				stream;			/* of a call: its thread, numbered from 0 */
	char		what[64];
} span;

#define HOST_DEVICE 99
#define THREADS_MAX 64
#define API_SHOWN_NS 5000		/* calls shorter than this are summed, not listed */

#define SPANS_MAX 65536

static span *spans;
static int	nspans;
static void *lib;

static CUptiResult (*p_register) (CUpti_BuffersCallbackRequestFunc, CUpti_BuffersCallbackCompleteFunc);
static CUptiResult (*p_enable) (CUpti_ActivityKind);
static CUptiResult (*p_disable) (CUpti_ActivityKind);
static CUptiResult (*p_flush) (uint32_t);
static CUptiResult (*p_next) (uint8_t *, size_t, CUpti_Activity **);
static CUptiResult (*p_cbname) (CUpti_CallbackDomain, uint32_t, const char **);
static uint32_t thread_ids[THREADS_MAX];
static int	nthreads;

static const CUpti_ActivityKind kinds[] = {
	CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, CUPTI_ACTIVITY_KIND_MEMCPY, CUPTI_ACTIVITY_KIND_MEMSET,
	CUPTI_ACTIVITY_KIND_RUNTIME
};

/* A host thread's number in the listing. */
static uint32_t
thread_no(uint32_t id)
{
	for (int i = 0; i < nthreads; i++)
		if (thread_ids[i] == id)
			return (uint32_t) i;
	if (nthreads < THREADS_MAX)
		thread_ids[nthreads++] = id;
	return (uint32_t) (nthreads - 1);
}

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
		else if (r->kind == CUPTI_ACTIVITY_KIND_RUNTIME)
		{
			CUpti_ActivityAPI *a = (CUpti_ActivityAPI *) r;
			const char *name = NULL;

			if (!p_cbname || p_cbname(CUPTI_CB_DOMAIN_RUNTIME_API, a->cbid, &name) != CUPTI_SUCCESS)
				name = NULL;
			snprintf(what, sizeof(what), "api %s", name ? name : "?");
			add(a->start, a->end, HOST_DEVICE, thread_no(a->threadId), what);
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
		p_cbname = (CUptiResult (*) (CUpti_CallbackDomain, uint32_t, const char **))
			dlsym(lib, "cuptiGetCallbackName");
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
	nthreads = 0;
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

/*
 * Per host thread: its span, the time inside runtime calls by name (the
 * rest of the span is the host's own work or idle), the calls counted.
 */
static void
summarize_threads(FILE *out, uint64_t t0)
{
	for (int t = 0; t < nthreads; t++)
	{
		char		names[32][64];
		uint64_t	ns[32] = {0},
					calls[32] = {0},
					first = UINT64_MAX,
					last = 0,
					inside = 0;
		int			nn = 0;

		for (int i = 0; i < nspans; i++)
		{
			const span *x = &spans[i];
			int			k;

			if (x->device != HOST_DEVICE || x->stream != (uint32_t) t)
				continue;
			first = x->start < first ? x->start : first;
			last = x->end > last ? x->end : last;
			inside += x->end - x->start;
			for (k = 0; k < nn && strcmp(names[k], x->what) != 0; k++)
				;
			if (k == nn && nn < 32)
				snprintf(names[nn++], 64, "%s", x->what);
			if (k < nn)
			{
				ns[k] += x->end - x->start;
				calls[k]++;
			}
		}
		if (first == UINT64_MAX)
			continue;
		fprintf(out, "\nhost thread %d: %.1f to %.1f us; inside runtime calls %.1f us:", t,
				(first - t0) / 1e3, (last - t0) / 1e3, inside / 1e3);
		for (int k = 0; k < nn; k++)
			if (ns[k] >= 2000)
				fprintf(out, " %s %.1f (%llu)", names[k] + 4, ns[k] / 1e3, (unsigned long long) calls[k]);
		fprintf(out, "\n");
	}
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
	fprintf(out, "  start_us    dur_us  dev stream  what (host: runtime calls of %d us or more, by thread)\n",
			API_SHOWN_NS / 1000);
	for (int i = 0; i < nspans; i++)
	{
		const span *x = &spans[i];

		if (x->device == HOST_DEVICE && x->end - x->start < API_SHOWN_NS)
			continue;
		if (x->device == HOST_DEVICE)
			fprintf(out, "%10.1f %9.1f  host thread %2u  %s\n", (x->start - t0) / 1e3,
					(x->end - x->start) / 1e3, x->stream, x->what);
		else
			fprintf(out, "%10.1f %9.1f  %3u %6u  %s\n", (x->start - t0) / 1e3,
					(x->end - x->start) / 1e3, x->device, x->stream, x->what);
	}
	summarize_threads(out, t0);
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
