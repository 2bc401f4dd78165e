/*
 * test_predicates.c — hand-made cases for the exact predicates, the interval
 * filter's soundness and the rounding-mode contract. The broad differential
 * check against the independent GMP reference is test_differential.c.
 */
#include <fenv.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "interval_double.h"
#include "orient_exact.h"
#include "predicates.h"
#include "stats.h"
#include "harness.h"


static void
test_orientation_signs(void)
{
	double		a[3] = {0, 0, 0},
				b[3] = {1, 0, 0},
				c[3] = {0, 1, 0},
				up[3] = {0, 0, 1},
				down[3] = {0, 0, -1},
				in[3] = {0.25, 0.25, 0};

	CHECK(exg_orient2d(a, b, c) == 1);
	CHECK(exg_orient2d(a, c, b) == -1);
	CHECK(exg_orient2d(a, b, (double[2]) {2, 0}) == 0);
	CHECK(exg_orient3d(a, b, c, up) == 1);
	CHECK(exg_orient3d(a, b, c, down) == -1);
	CHECK(exg_orient3d(a, b, c, in) == 0);
}

/*
 * Kettner et al.'s classroom example: the naive double formula gets the sign
 * wrong on much of this grid; the exact sign is known by construction for the
 * points on the diagonal (collinear with q and r) and checked against GMP.
 */
static void
test_kettner_grid(void)
{
	const double u = ldexp(1.0, -53);
	double		q[2] = {12, 12},
				r[2] = {24, 24};
	int			naive_wrong = 0;
	int			i,
				j;

	for (i = 0; i < 256; i++)
		for (j = 0; j < 256; j++)
		{
			double		p[2] = {0.5 + i * u, 0.5 + j * u};
			int			s = exg_orient2d(p, q, r);
			double		naive = (q[0] - p[0]) * (r[1] - p[1]) - (q[1] - p[1]) * (r[0] - p[0]);
			int			ns = (naive > 0) - (naive < 0);

			CHECK(s == exg_orient2d_exact(p, q, r, 0, 1));
			if (p[0] == p[1])
				CHECK(s == 0);
			naive_wrong += ns != s;
		}
	/* The point of the example: floating point alone is wrong here. */
	CHECK(naive_wrong > 0);
}

/* Upward rounding must be restored to the caller's mode, whatever it was. */
static void
test_rounding_mode_restored(void)
{
	int			modes[4] = {FE_TONEAREST, FE_DOWNWARD, FE_UPWARD, FE_TOWARDZERO};
	double		a[3] = {0.1, 0.2, 0.3},
				b[3] = {0.4, 0.5, 0.6},
				c[3] = {0.7, 0.8, 0.9},
				d[3] = {1.0, 1.1, 1.3};
	int			k;

	for (k = 0; k < 4; k++)
	{
		fesetround(modes[k]);
		(void) exg_orient3d(a, b, c, d);
		(void) exg_triangle_triangle_3d(a, b, c, b, c, d);
		CHECK(fegetround() == modes[k]);
	}
	fesetround(FE_TONEAREST);
}

/* Interval products enclose the exact product, NaN and infinity included. */
static void
test_interval_enclosure(void)
{
	exg_round_state saved = exg_round_up_enter();
	exg_dinterval x = exg_di_diff(0.1, 0.3);	/* encloses 0.1 - 0.3 */
	exg_dinterval y = exg_di_mul(x, x);
	exg_dinterval big = exg_di_diff(1e308, -1e308);	/* overflows: hi = inf */
	exg_dinterval z = exg_di_mul(big, exg_di_diff(0, 0));	/* inf * 0 = NaN */

	exg_round_restore(saved);
	CHECK(x.lo <= x.hi && x.lo < 0 && x.hi < 0);
	CHECK(y.lo > 0 && y.lo <= y.hi);
	CHECK(isinf(big.hi));
	CHECK(exg_di_sign(z) == 2);
}

static void
test_closed_set_3d(void)
{
	double		a[3] = {0, 0, 0},
				b[3] = {4, 0, 0},
				c[3] = {0, 4, 0};
	double		above[3] = {1, 1, 1},
				below[3] = {1, 1, -1},
				onface[3] = {1, 1, 0},
				onedge[3] = {2, 0, 0},
				far[3] = {9, 9, 0};

	/* a segment piercing, touching at a vertex, lying in the face */
	CHECK(exg_segment_triangle_3d(above, below, a, b, c));
	CHECK(exg_segment_triangle_3d(above, onface, a, b, c));
	CHECK(exg_segment_triangle_3d(above, a, a, b, c));
	CHECK(exg_segment_triangle_3d(onedge, far, a, b, c));
	CHECK(!exg_segment_triangle_3d(far, (double[3]) {9, 9, 1}, a, b, c));
	CHECK(!exg_segment_triangle_3d(above, (double[3]) {1, 1, 2}, a, b, c));
	/* zero-length segment = point */
	CHECK(exg_segment_triangle_3d(onface, onface, a, b, c));
	CHECK(!exg_segment_triangle_3d(above, above, a, b, c));
	/* collinear (degenerate) triangle = segment */
	CHECK(exg_segment_triangle_3d((double[3]) {1, -1, 0}, (double[3]) {1, 1, 0},
								  a, onedge, b));
	CHECK(!exg_segment_triangle_3d((double[3]) {5, -1, 0}, (double[3]) {5, 1, 0},
								   a, onedge, b));
	/* triangles sharing only a vertex, sharing an edge, coplanar overlap */
	CHECK(exg_triangle_triangle_3d(a, b, c, a, (double[3]) {-1, 0, 3}, (double[3]) {0, -1, 3}));
	CHECK(exg_triangle_triangle_3d(a, b, c, a, b, (double[3]) {0, -4, 0}));
	CHECK(exg_triangle_triangle_3d(a, b, c, onface, (double[3]) {5, 5, 0}, (double[3]) {1, 6, 0}));
	CHECK(!exg_triangle_triangle_3d(a, b, c, (double[3]) {3, 3, 0}, (double[3]) {5, 5, 0},
									(double[3]) {3, 6, 0}));
	/* parallel planes one ulp apart */
	CHECK(!exg_triangle_triangle_3d(a, b, c, (double[3]) {0, 0, 0x1p-1074},
									(double[3]) {4, 0, 0x1p-1074}, (double[3]) {0, 4, 0x1p-1074}));
	/* collinear segments: overlapping, touching at an end, apart */
	CHECK(exg_segment_segment_3d(a, b, onedge, (double[3]) {6, 0, 0}));
	CHECK(exg_segment_segment_3d(a, onedge, onedge, b));
	CHECK(!exg_segment_segment_3d(a, onedge, (double[3]) {nextafter(2, 3), 0, 0}, b));
	CHECK(exg_point_segment_3d(onedge, a, b));
	CHECK(exg_point_triangle_3d(onedge, a, b, c));
	CHECK(!exg_point_triangle_3d(above, a, b, c));
}

/* UTM-sized coordinates: a point exactly on a segment and one ulp off it. */
static void
test_utm_degeneracy(void)
{
	double		a[3] = {500000.0, 7000000.0, -500.0};
	double		b[3] = {500016.0, 7000032.0, -532.0};
	double		mid[3] = {500008.0, 7000016.0, -516.0};
	double		off[3] = {500008.0, nextafter(7000016.0, 8e6), -516.0};

	CHECK(exg_point_segment_3d(mid, a, b));
	CHECK(!exg_point_segment_3d(off, a, b));
	CHECK(exg_point_segment_2d(mid, a, b));
	CHECK(!exg_point_segment_2d(off, a, b));
}

static void
test_closed_set_2d(void)
{
	double		a[2] = {0, 0},
				b[2] = {4, 0},
				c[2] = {0, 4};

	CHECK(exg_point_triangle_2d((double[2]) {2, 2}, a, b, c));	/* on hypotenuse */
	CHECK(!exg_point_triangle_2d((double[2]) {2, nextafter(2, 3)}, a, b, c));
	CHECK(exg_segment_triangle_2d((double[2]) {1, 1}, (double[2]) {1.5, 1}, a, b, c));	/* inside */
	CHECK(exg_segment_segment_2d(a, b, (double[2]) {4, 0}, (double[2]) {5, 5}));
	CHECK(exg_triangle_triangle_2d(a, b, c, (double[2]) {1, 1}, (double[2]) {1.5, 1},
								   (double[2]) {1, 1.5}));	/* contained */
	CHECK(!exg_triangle_triangle_2d(a, b, c, (double[2]) {3, 3}, (double[2]) {5, 3},
									(double[2]) {3, 5}));
}

static void
test_counters(void)
{
	exg_counters before,
				after;
	double		p[2] = {0x1.0000000000001p-1, 0.5},
				q[2] = {12, 12},
				r[2] = {24, 24};

	exg_counters_snapshot(&before);
	(void) exg_orient2d(p, q, r);	/* one ulp off collinear: the filter cannot decide */
	exg_counters_snapshot(&after);
	CHECK(after.orient_evals == before.orient_evals + 1);
	CHECK(after.orient_exact == before.orient_exact + 1);
	exg_counters_reset();
	exg_counters_snapshot(&after);
	CHECK(after.orient_evals == 0);
}

int
main(void)
{
	test_orientation_signs();
	test_kettner_grid();
	test_rounding_mode_restored();
	test_interval_enclosure();
	test_closed_set_3d();
	test_utm_degeneracy();
	test_closed_set_2d();
	test_counters();
	if (test_failures)
	{
		fprintf(stderr, "test_predicates: %ld failures\n", test_failures);
		return 1;
	}
	printf("test_predicates: all checks passed\n");
	return 0;
}
