/*
 * pair_rows.c — a join's primitive pairs as pairs of the rows the
 * primitives make (exg_join_options.row_pairs): where the GPU did not map
 * them on the device (the CPU back-ends, the pairs GMP decided).
 */
#include "join_internal.h"

#include "parallel.h"

/* Pairs mapped on one thread below this many. */
#define ROWS_PARALLEL_MIN 8192

static inline uint32_t
place_of(const exg_prim_set *S, uint32_t prim)
{
	uint32_t	row = S->owner[prim];

	return S->order ? S->order[row] : row;
}

size_t
exg_pairs_to_rows(const exg_prim_set *A, const exg_prim_set *B, exg_pair *pairs, size_t n, int threads)
{
	/*
	 * The pairs come in (a, b) order, so B's owners are read at random, a
	 * cache miss each in resident bodies' 80 MB of owners (40,000 pairs of
	 * the doubled large mine: 1.2-1.8 ms on one thread).
	 */
	int			t = n >= ROWS_PARALLEL_MIN ? exg_threads(threads) : 1;

#pragma omp parallel for schedule(static) num_threads(t) if (t > 1)
	for (size_t i = 0; i < n; i++)
	{
		exg_pair	p = pairs[i];

		pairs[i].a = place_of(A, p.a);
		pairs[i].b = place_of(B, p.b);
	}
	return exg_pairs_sort_unique_threads(pairs, n, threads);
}
