/*
 * pair_sort.c — pairs in (a, b) order, each once. Joins return millions of
 * pairs, and qsort's comparisons took a third to a half of a CPU join
 * (350-600 ms of about 1 s for 4.7 * 10^6 pairs on 16 threads): an LSD
 * radix sort by the bytes of the key (a, b) instead, skipping the bytes
 * every pair shares (ids below 2^24 leave six passes of eight), then one
 * pass that drops repeats.
 */
#include "join_internal.h"

#include <stdlib.h>
#include <string.h>

#define RADIX_MIN 2048			/* fewer pairs: qsort is as fast */

static int
pair_cmp(const void *x, const void *y)
{
	const exg_pair *p = x,
			   *q = y;

	if (p->a != q->a)
		return p->a < q->a ? -1 : 1;
	return (p->b > q->b) - (p->b < q->b);
}

/* Byte d of the key (a << 32) | b, 0 the least significant. */
static inline unsigned
key_byte(const exg_pair *p, int d)
{
	return d < 4 ? (p->b >> (8 * d)) & 255u : (p->a >> (8 * (d - 4))) & 255u;
}

/* Stable passes from the low byte up; false when out of memory. */
static bool
radix_sort(exg_pair *pairs, size_t n)
{
	size_t	   *count = calloc(8 * 256, sizeof(size_t));
	exg_pair   *tmp = malloc(n * sizeof(exg_pair));
	exg_pair   *src = pairs,
			   *dst = tmp;

	if (count == NULL || tmp == NULL)
	{
		free(count);
		free(tmp);
		return false;
	}
	for (size_t i = 0; i < n; i++)
		for (int d = 0; d < 8; d++)
			count[256 * d + key_byte(&pairs[i], d)]++;
	for (int d = 0; d < 8; d++)
	{
		size_t	   *c = &count[256 * d];
		size_t		off = 0;

		/* every pair has the same byte here (the counts do not depend on order) */
		if (c[key_byte(&src[0], d)] == n)
			continue;
		for (int k = 0; k < 256; k++)
		{
			size_t		m = c[k];

			c[k] = off;
			off += m;
		}
		for (size_t i = 0; i < n; i++)
			dst[c[key_byte(&src[i], d)]++] = src[i];
		{
			exg_pair   *t = src;

			src = dst;
			dst = t;
		}
	}
	if (src != pairs)
		memcpy(pairs, src, n * sizeof(exg_pair));
	free(tmp);
	free(count);
	return true;
}

size_t
exg_pairs_sort_unique(exg_pair *pairs, size_t n)
{
	size_t		m = 0;

	if (n == 0)
		return 0;
	if (n < RADIX_MIN || !radix_sort(pairs, n))
		qsort(pairs, n, sizeof(exg_pair), pair_cmp);
	for (size_t i = 0; i < n; i++)
		if (m == 0 || pairs[i].a != pairs[m - 1].a || pairs[i].b != pairs[m - 1].b)
			pairs[m++] = pairs[i];
	return m;
}
