/*
 * host_copy.c — copying big host buffers on the worker pool.
 */
#include "host_copy.h"

#include <string.h>

#include "parallel.h"

/* Below this, threads cost more than they save. */
#define COPY_PARALLEL_MIN ((size_t) 16 << 20)
/* Each thread copies pieces of this size (page-multiple, so pieces of
 * pinned or freshly touched memory do not share pages). */
#define COPY_PIECE ((size_t) 4 << 20)

void
exg_copy_parallel(void *dst, const void *src, size_t n)
{
	size_t		pieces = (n + COPY_PIECE - 1) / COPY_PIECE;

	if (n < COPY_PARALLEL_MIN)
	{
		memcpy(dst, src, n);
		return;
	}
#pragma omp parallel for schedule(static)
	for (size_t i = 0; i < pieces; i++)
	{
		size_t		off = i * COPY_PIECE,
					len = n - off < COPY_PIECE ? n - off : COPY_PIECE;

		memcpy((char *) dst + off, (const char *) src + off, len);
	}
}
