/*
 * pair_sort.c — pairs in (a, b) order, each once. Joins return millions of
 * pairs, and qsort's comparisons took a third to a half of a CPU join
 * (350-600 ms of about 1 s for 4.7 * 10^6 pairs on 16 threads): an LSD
 * radix sort by the bytes of the key (a, b) instead, on the worker pool,
 * skipping the bytes every pair shares (ids below 2^24 leave six passes of
 * eight), then one pass that drops repeats. Pairs already in order of
 * their left side (a GPU join's, mapped to rows) are sorted run by run.
 */
#include "join_internal.h"

#include <stdlib.h>
#include <string.h>

#include "parallel.h"

#define RADIX_MIN 2048			/* fewer pairs: qsort is as fast */
#define INSERTION_MAX 32		/* fewer pairs: sorted in place, one by one */

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

#define MAX_PARTS 64				/* threads of the parallel passes at most */
#define PART_MIN ((size_t) 1 << 16)	/* pairs per thread at least */

/*
 * Stable passes from the low byte up; false when out of memory. Each pass
 * runs on the worker pool: every thread counts the bytes of its own slice,
 * the counts are laid out slice after slice within each byte value (which
 * keeps the pass stable), and every thread moves its slice.
 */
static bool
radix_sort(exg_pair *pairs, size_t n, int threads)
{
	int			parts = exg_threads(threads);
	size_t	   *count;
	size_t		total[8][256] = {{0}};
	exg_pair   *tmp = malloc(n * sizeof(exg_pair));
	exg_pair   *src = pairs,
			   *dst = tmp;

	if (parts > MAX_PARTS)
		parts = MAX_PARTS;
	if ((size_t) parts > n / PART_MIN)
		parts = n / PART_MIN > 0 ? (int) (n / PART_MIN) : 1;
	count = calloc((size_t) parts * 256, sizeof(size_t));
	if (count == NULL || tmp == NULL)
	{
		free(count);
		free(tmp);
		return false;
	}
#pragma omp parallel num_threads(parts)
	{
		size_t		mine[8][256] = {{0}};

#pragma omp for schedule(static)
		for (size_t i = 0; i < n; i++)
			for (int d = 0; d < 8; d++)
				mine[d][key_byte(&pairs[i], d)]++;
#pragma omp critical
		for (int d = 0; d < 8; d++)
			for (int k = 0; k < 256; k++)
				total[d][k] += mine[d][k];
	}
	for (int d = 0; d < 8; d++)
	{
		/* every pair has the same byte here (the totals do not depend on order) */
		if (total[d][key_byte(&src[0], d)] == n)
			continue;
#pragma omp parallel num_threads(parts)
		{
			size_t		t = (size_t) exg_thread_num(),
						nt = (size_t) exg_team_size(),
						lo = n / nt * t + (t < n % nt ? t : n % nt),
						hi = lo + n / nt + (t < n % nt);
			size_t	   *c = &count[256 * t];

			memset(c, 0, 256 * sizeof(size_t));
			for (size_t i = lo; i < hi; i++)
				c[key_byte(&src[i], d)]++;
#pragma omp barrier
#pragma omp single
			{
				size_t		off = 0;

				for (int k = 0; k < 256; k++)
					for (size_t u = 0; u < nt; u++)
					{
						size_t		m = count[256 * u + k];

						count[256 * u + k] = off;
						off += m;
					}
			}
			for (size_t i = lo; i < hi; i++)
				dst[c[key_byte(&src[i], d)]++] = src[i];
		}
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
	return exg_pairs_sort_unique_threads(pairs, n, 0);
}

/* Sort one run of pairs (any length). */
static void
sort_run(exg_pair *p, size_t n, int threads)
{
	if (n <= INSERTION_MAX)
	{
		for (size_t i = 1; i < n; i++)
		{
			exg_pair	x = p[i];
			size_t		j = i;

			for (; j > 0 && pair_cmp(&p[j - 1], &x) > 0; j--)
				p[j] = p[j - 1];
			p[j] = x;
		}
	}
	else if (n < RADIX_MIN || !radix_sort(p, n, threads))
		qsort(p, n, sizeof(exg_pair), pair_cmp);
}

size_t
exg_pairs_sort_unique_threads(exg_pair *pairs, size_t n, int threads)
{
	size_t		m = 0,
				i,
				j,
				run = 1,
				longest = 1;

	if (n == 0)
		return 0;
	/* pairs often come sorted (one primitive per row, an ordered producer) */
	for (i = 1; i < n && pair_cmp(&pairs[i - 1], &pairs[i]) <= 0; i++)
		;
	/*
	 * ... or sorted by their left side only: a GPU join's primitive pairs
	 * mapped to rows (a batch's owners are in row order), each left row's
	 * pairs then sorted where they are (40,000 pairs in runs of about two,
	 * on the 2-core build machine: 0.46 ms, the radix sort 0.58)
	 */
	for (j = 1; j < n && pairs[j - 1].a <= pairs[j].a; j++)
	{
		run = pairs[j - 1].a == pairs[j].a ? run + 1 : 1;
		longest = run > longest ? run : longest;
	}
	if (i < n && j == n && longest <= INSERTION_MAX)
	{
		/* one pass: each pair moves back within its own short run only */
		for (size_t k = i; k < n; k++)
		{
			exg_pair	x = pairs[k];
			size_t		q = k;

			for (; q > 0 && pairs[q - 1].a == x.a && pairs[q - 1].b > x.b; q--)
				pairs[q] = pairs[q - 1];
			pairs[q] = x;
		}
	}
	else if (i < n && j == n)
	{
		for (size_t s = 0, e; s < n; s = e)
		{
			for (e = s + 1; e < n && pairs[e].a == pairs[s].a; e++)
				;
			sort_run(&pairs[s], e - s, threads);
		}
	}
	else if (i < n)
		sort_run(pairs, n, threads);
	for (i = 0; i < n; i++)
		if (m == 0 || pairs[i].a != pairs[m - 1].a || pairs[i].b != pairs[m - 1].b)
			pairs[m++] = pairs[i];
	return m;
}
