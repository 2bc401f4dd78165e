/*
 * test_overlay.c — 2D red-blue segment joins and box joins against brute
 * force: every pair of segments decided by the independent GMP reference
 * (test/reference), every pair of boxes by plain comparisons. Inputs on a
 * small integer grid, so shared endpoints, collinear overlaps, T-junctions
 * and touching boxes are everywhere; plus the same at UTM offsets. The CPU
 * back-end, and the GPU one when a device is present, must give exactly the
 * brute-force pair set.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpu.h"
#include "join.h"
#include "ref_exact.h"
#include "harness.h"

static test_rng rng = {0x6a09e667f3bcc908ull};

static uint32_t
below(uint32_t n)
{
	return (uint32_t) rng_below(&rng, n);
}

/* n segments (or boxes: low corner, high corner) on a grid of side g. */
static void
make_set(double *xyz, uint32_t *idx, uint32_t n, int g, double ox, double oy, int boxes)
{
	for (uint32_t i = 0; i < n; i++)
	{
		double	   *p = &xyz[6 * (size_t) i];

		p[0] = ox + below(g);
		p[1] = oy + below(g);
		p[2] = 0;
		/* short: collinear and touching neighbours are likely */
		p[3] = p[0] + (boxes ? below(4) : (double) below(5) - 2);
		p[4] = p[1] + (boxes ? below(4) : (double) below(5) - 2);
		p[5] = 0;
		idx[2 * i] = 2 * i;
		idx[2 * i + 1] = 2 * i + 1;
	}
}

static int
cmp_pair(const void *x, const void *y)
{
	const exg_pair *a = x,
			   *b = y;

	return a->a != b->a ? (a->a < b->a ? -1 : 1) : (a->b > b->b) - (a->b < b->b);
}


static void
check(const char *name, int g, double ox, double oy, int boxes)
{
	enum { N = 1500 };
	double	   *A = malloc(sizeof(double) * 6 * N),
			   *B = malloc(sizeof(double) * 6 * N);
	uint32_t   *ia = malloc(sizeof(uint32_t) * 2 * N),
			   *ib = malloc(sizeof(uint32_t) * 2 * N);
	exg_pair   *ref = malloc(sizeof(exg_pair) * (size_t) N * N);
	size_t		nref = 0;
	exg_error	err;

	make_set(A, ia, N, g, ox, oy, boxes);
	make_set(B, ib, N, g, ox, oy, boxes);
	for (uint32_t i = 0; i < N; i++)
		for (uint32_t j = 0; j < N; j++)
		{
			const double *a = &A[6 * i],
					   *b = &B[6 * j];
			bool		meet;

			if (boxes)
				meet = a[0] <= b[3] && b[0] <= a[3] && a[1] <= b[4] && b[1] <= a[4];
			else
			{
				double		p[2] = {a[0], a[1]},
							q[2] = {a[3], a[4]},
							r[2] = {b[0], b[1]},
							s[2] = {b[3], b[4]};

				meet = ref_segment_segment_2d(p, q, r, s);
			}
			if (meet)
				ref[nref++] = (exg_pair) {i, j};
		}
	qsort(ref, nref, sizeof(exg_pair), cmp_pair);

	for (int run = 0; run < 4; run++)
	{
		int			dev = run / 2;
		const char *cull = run % 2 ? "box join" : "cell pairs";
		exg_prim_set SA = {A, 2 * N, ia, N, 2, 0, NULL, NULL},
					SB = {B, 2 * N, ib, N, 2, 0, NULL, NULL};
		exg_join_options opt;
		exg_pair   *pairs;
		size_t		n;

		exg_join_options_default(&opt);
		opt.device = dev ? EXG_DEVICE_GPU : EXG_DEVICE_CPU;
		opt.boxes_only = boxes;
		opt.cull = run % 2 ? EXG_CULL_BOX_JOIN : EXG_CULL_CELL_PAIRS;
		if (dev && exg_gpu_device_count(&err) == 0)
			break;
		if (exg_join(&SA, &SB, &opt, &pairs, &n, NULL, &err) != EXG_OK)
		{
			printf("FAIL %s %s %s: %s\n", name, dev ? "GPU" : "CPU", cull, err.message);
			test_failures++;
			continue;
		}
		if (n != nref || memcmp(pairs, ref, n * sizeof(exg_pair)) != 0)
		{
			printf("FAIL %s %s %s: %zu pairs, brute force %zu\n", name, dev ? "GPU" : "CPU", cull, n, nref);
			test_failures++;
		}
		else
			printf("ok   %-34s %s %-10s: %zu pairs, as brute force\n", name, dev ? "GPU" : "CPU", cull, n);
		exg_join_pairs_free(pairs);
	}
	free(A);
	free(B);
	free(ia);
	free(ib);
	free(ref);
}

int
main(void)
{
	check("segments, grid 40 (degenerate)", 40, 0, 0, 0);
	check("segments, grid 40 at UTM", 40, 500000, 7000000, 0);
	check("segments, grid 400", 400, 0, 0, 0);
	check("boxes, grid 40 (touching)", 40, 0, 0, 1);
	check("boxes, grid 400 at UTM", 400, 500000, 7000000, 1);
	printf("test_overlay: %ld failures\n", test_failures);
	return test_failures != 0;
}
