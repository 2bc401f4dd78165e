/*
 * pair_buffer.c — a growable array of pairs, one per worker thread, where
 * the CPU back-ends (joins, box join, point location) collect what they find.
 */
#include "join_internal.h"

#include <stdlib.h>

bool
exg_pair_reserve(exg_pair_buffer *h, size_t room)
{
	if (h->cap - h->n < room)
	{
		size_t		ncap = h->cap ? 2 * h->cap : 256;
		exg_pair   *np;

		if (ncap < h->n + room)
			ncap = h->n + room;
		np = realloc(h->p, ncap * sizeof(exg_pair));
		if (np == NULL)
			return false;
		h->p = np;
		h->cap = ncap;
	}
	return true;
}

bool
exg_pair_push(exg_pair_buffer *h, uint32_t a, uint32_t b)
{
	if (!exg_pair_reserve(h, 1))
		return false;
	h->p[h->n].a = a;
	h->p[h->n].b = b;
	h->n++;
	return true;
}
