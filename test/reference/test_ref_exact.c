/*
 * test_ref_exact.c — self-test of the GMP reference alone (no engine).
 *
 * 1. Hand-made cases with answers worked out on paper: both signs and zero of
 *    each orientation, and for every intersection test touching, sharing,
 *    collinear and coplanar overlap, near misses and degenerate primitives.
 * 2. Randomised cross-checks on small-integer (hence highly degenerate)
 *    configurations: the simplex with and without its early-outs, with the
 *    two hulls swapped, against a second exact solver (Gauss + Fourier–Motzkin),
 *    and the 2D point-in-triangle answer against orientation signs.
 *
 * Exits 1 on any failure.
 *
 *   gcc -std=c11 -O2 -Wall -Wextra -Itest/reference test/reference/test_ref_exact.c \
 *       test/reference/ref_exact.c -lgmp -lm -o test/engine/bin/test_ref_exact
 */
#include "ref_exact.h"

#include <gmp.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

static int	failures = 0;
static int	checks = 0;

#define CHECK(expr, want) check_int((int) (expr), (int) (want), #expr, __LINE__)

static void
check_int(int got, int want, const char *what, int line)
{
	checks++;
	if (got != want)
	{
		failures++;
		fprintf(stderr, "FAIL line %d: %s = %d, expected %d\n", line, what, got, want);
	}
}

#define U53 0x1p-53
#define TINY 0x1p-1074

static void
hand_orientation(void)
{
	/* orient2d: +1 is counter-clockwise */
	CHECK(ref_orient2d((double[]) {0, 0}, (double[]) {1, 0}, (double[]) {0, 1}), 1);
	CHECK(ref_orient2d((double[]) {0, 0}, (double[]) {0, 1}, (double[]) {1, 0}), -1);
	CHECK(ref_orient2d((double[]) {0, 0}, (double[]) {1, 1}, (double[]) {2, 2}), 0);
	CHECK(ref_orient2d((double[]) {1, 1}, (double[]) {1, 1}, (double[]) {5, -3}), 0);
	/* Kettner et al.: (q-p) x (r-p) = -12 u for p = (0.5 + u, 0.5) */
	CHECK(ref_orient2d((double[]) {0.5 + U53, 0.5}, (double[]) {12, 12},
					   (double[]) {24, 24}), -1);
	CHECK(ref_orient2d((double[]) {0.5, 0.5 + U53}, (double[]) {12, 12},
					   (double[]) {24, 24}), 1);
	CHECK(ref_orient2d((double[]) {0.5 + 7 * U53, 0.5 + 7 * U53},
					   (double[]) {12, 12}, (double[]) {24, 24}), 0);
	/* subnormal and huge scales */
	CHECK(ref_orient2d((double[]) {0, 0}, (double[]) {TINY, 0}, (double[]) {0, TINY}), 1);
	CHECK(ref_orient2d((double[]) {0, 0}, (double[]) {0x1p1000, 0},
					   (double[]) {0x1p1000, -TINY}), -1);
	CHECK(ref_orient2d((double[]) {-0x1p1023, 0x1p1023}, (double[]) {0, 0},
					   (double[]) {0x1p1023, -0x1p1023}), 0);
	/* nearly collinear at UTM scale: slope 1 line, one ulp off (ulp(7e6) = 2^-29) */
	CHECK(ref_orient2d((double[]) {500000, 7000000}, (double[]) {500001, 7000001},
					   (double[]) {500002, 7000002 + 0x1p-29}), 1);

	/* orient3d: ((b-a) x (c-a)) . (d-a) */
	double		o[3] = {0, 0, 0},
				x[3] = {1, 0, 0},
				y[3] = {0, 1, 0},
				z[3] = {0, 0, 1},
				mz[3] = {0, 0, -1};

	CHECK(ref_orient3d(o, x, y, z), 1);
	CHECK(ref_orient3d(o, x, y, mz), -1);
	CHECK(ref_orient3d(o, y, x, z), -1);
	CHECK(ref_orient3d(o, x, y, (double[]) {0.3, 0.7, 0}), 0);
	CHECK(ref_orient3d(o, x, y, (double[]) {0.3, 0.3, TINY}), 1);
	CHECK(ref_orient3d(o, x, y, (double[]) {1e300, -1e300, -TINY}), -1);
	CHECK(ref_orient3d(x, x, y, z), 0);
	/* plane x - 2y + z = 0 through (12,12,12), (24,24,24), (24,36,48) */
	double		q3[3] = {12, 12, 12},
				r3[3] = {24, 24, 24},
				s3[3] = {24, 36, 48};

	CHECK(ref_orient3d((double[]) {0.5, 0.5, 0.5}, q3, r3, s3), 0);
	/* normal (q-p) x (r-p) . (s-p) for p below/above: sign of -(x - 2y + z) * k */
	{
		int			above = ref_orient3d((double[]) {0.5 + U53, 0.5, 0.5}, q3, r3, s3);
		int			below = ref_orient3d((double[]) {0.5, 0.5 + U53, 0.5}, q3, r3, s3);

		CHECK(above == -below && above != 0, 1);
		/* moving p by +u in x changes x - 2y + z by +u; by +u in y by -2u */
		CHECK(ref_orient3d((double[]) {0.5 + 2 * U53, 0.5 + U53, 0.5}, q3, r3, s3), 0);
	}
	/* direct: a=(0,0,0), b=(1,0,0), c=(0,1,0): sign is sign of d_z */
	CHECK(ref_orient3d(o, x, y, (double[]) {5e5, 7e6, -0x1p-1000}), -1);
}

static void
hand_3d(void)
{
	double		o[3] = {0, 0, 0},
				x[3] = {1, 0, 0},
				y[3] = {0, 1, 0},
				z[3] = {0, 0, 1};
	double		h[3] = {0.5, 0, 0};		/* midpoint of o-x */

	/* point-point */
	CHECK(ref_point_point_3d(x, (double[]) {1, 0, 0}), 1);
	CHECK(ref_point_point_3d(x, (double[]) {nextafter(1, 2), 0, 0}), 0);
	CHECK(ref_point_point_3d((double[]) {-0.0, 0, 0}, o), 1);

	/* point-segment */
	CHECK(ref_point_segment_3d(h, o, x), 1);
	CHECK(ref_point_segment_3d(x, o, x), 1);
	CHECK(ref_point_segment_3d((double[]) {2, 0, 0}, o, x), 0);
	CHECK(ref_point_segment_3d((double[]) {-TINY, 0, 0}, o, x), 0);
	CHECK(ref_point_segment_3d((double[]) {0.5, TINY, 0}, o, x), 0);
	CHECK(ref_point_segment_3d((double[]) {1, 1, 1}, o, (double[]) {3, 3, 3}), 1);
	CHECK(ref_point_segment_3d((double[]) {1, 1, nextafter(1, 0)}, o,
							   (double[]) {3, 3, 3}), 0);
	CHECK(ref_point_segment_3d(x, x, x), 1);	/* degenerate segment */
	CHECK(ref_point_segment_3d(y, x, x), 0);

	/* point-triangle */
	CHECK(ref_point_triangle_3d((double[]) {0.25, 0.25, 0}, o, x, y), 1);
	CHECK(ref_point_triangle_3d((double[]) {0.5, 0.5, 0}, o, x, y), 1);	/* on hypotenuse */
	CHECK(ref_point_triangle_3d(y, o, x, y), 1);
	CHECK(ref_point_triangle_3d((double[]) {0.25, 0.25, TINY}, o, x, y), 0);
	CHECK(ref_point_triangle_3d((double[]) {0.5, nextafter(0.5, 1), 0}, o, x, y), 0);
	CHECK(ref_point_triangle_3d((double[]) {1, 1, 0}, o, x, y), 0);
	/* tilted plane x + y + z = 1 */
	CHECK(ref_point_triangle_3d((double[]) {0.25, 0.25, 0.5}, x, y, z), 1);
	CHECK(ref_point_triangle_3d((double[]) {0.25, 0.25, nextafter(0.5, 1)}, x, y, z), 0);
	/* collinear triangle = segment o..(2,0,0) */
	CHECK(ref_point_triangle_3d(x, o, (double[]) {2, 0, 0}, h), 1);
	CHECK(ref_point_triangle_3d((double[]) {3, 0, 0}, o, (double[]) {2, 0, 0}, h), 0);
	CHECK(ref_point_triangle_3d(x, x, x, x), 1);
	CHECK(ref_point_triangle_3d(o, x, x, x), 0);

	/* segment-segment */
	CHECK(ref_segment_segment_3d(o, (double[]) {2, 2, 0}, (double[]) {2, 0, 0},
								 (double[]) {0, 2, 0}), 1);	/* X crossing */
	CHECK(ref_segment_segment_3d(o, (double[]) {2, 2, 0}, (double[]) {2, 0, 1},
								 (double[]) {0, 2, 1}), 0);	/* skew */
	CHECK(ref_segment_segment_3d(o, (double[]) {2, 2, 0}, (double[]) {2, 0, 0},
								 (double[]) {1, 1, 0}), 1);	/* T touching */
	CHECK(ref_segment_segment_3d(o, (double[]) {2, 2, 0}, (double[]) {2, 0, 0},
								 (double[]) {nextafter(1, 2), 1, 0}), 0);
	CHECK(ref_segment_segment_3d(o, (double[]) {2, 0, 0}, x, (double[]) {3, 0, 0}), 1);
	CHECK(ref_segment_segment_3d(o, x, x, (double[]) {3, 0, 0}), 1);	/* end to end */
	CHECK(ref_segment_segment_3d(o, x, (double[]) {nextafter(1, 2), 0, 0},
								 (double[]) {3, 0, 0}), 0);
	CHECK(ref_segment_segment_3d(o, x, y, (double[]) {1, 1, 0}), 0);	/* parallel */
	CHECK(ref_segment_segment_3d(h, h, o, x), 1);
	CHECK(ref_segment_segment_3d(h, h, h, h), 1);
	CHECK(ref_segment_segment_3d(h, h, y, y), 0);

	/* segment-triangle */
	CHECK(ref_segment_triangle_3d((double[]) {0.2, 0.2, -1}, (double[]) {0.2, 0.2, 1},
								  o, x, y), 1);	/* piercing */
	CHECK(ref_segment_triangle_3d((double[]) {0.6, 0.6, -1}, (double[]) {0.6, 0.6, 1},
								  o, x, y), 0);	/* misses past hypotenuse */
	CHECK(ref_segment_triangle_3d((double[]) {0, 0, -1}, z, o, x, y), 1);	/* through vertex */
	CHECK(ref_segment_triangle_3d((double[]) {0.2, 0.2, 0}, (double[]) {0.2, 0.2, 1},
								  o, x, y), 1);	/* ends on the face */
	CHECK(ref_segment_triangle_3d((double[]) {0.2, 0.2, TINY}, (double[]) {0.2, 0.2, 1},
								  o, x, y), 0);
	CHECK(ref_segment_triangle_3d((double[]) {-1, 0.5, 0}, (double[]) {2, 0.5, 0},
								  o, x, y), 1);	/* in plane, across */
	CHECK(ref_segment_triangle_3d((double[]) {1, 1, 0}, (double[]) {2, 0.5, 0},
								  o, x, y), 0);	/* in plane, outside */
	CHECK(ref_segment_triangle_3d((double[]) {0, 0, 1}, (double[]) {1, 1, 1},
								  o, x, y), 0);	/* parallel above */
	CHECK(ref_segment_triangle_3d((double[]) {1, 1, -1}, (double[]) {0, 0, 1},
								  o, x, y), 1);	/* crosses at (0.5,0.5,0) on edge */
	CHECK(ref_segment_triangle_3d(h, h, o, x, y), 1);	/* point on edge */
	CHECK(ref_segment_triangle_3d((double[]) {0.5, -1, 0}, (double[]) {0.5, 1, 0},
								  o, x, h), 1);	/* collinear triangle crossed */
	CHECK(ref_segment_triangle_3d((double[]) {0.5, -1, 1}, (double[]) {0.5, 1, 1},
								  o, x, h), 0);

	/* triangle-triangle */
	CHECK(ref_triangle_triangle_3d(o, (double[]) {2, 0, 0}, (double[]) {0, 2, 0},
								   (double[]) {1, 1, 0}, (double[]) {-1, 1, 0},
								   (double[]) {1, -1, 0}), 1);	/* coplanar overlap */
	/* star of David: reflect through the centroid (1, 1)/... of 0,(3,0),(0,3) */
	CHECK(ref_triangle_triangle_3d(o, (double[]) {3, 0, 0}, (double[]) {0, 3, 0},
								   (double[]) {2, 2, 0}, (double[]) {-1, 2, 0},
								   (double[]) {2, -1, 0}), 1);
	CHECK(ref_triangle_triangle_3d(o, x, y, (double[]) {1, 1, 0}, (double[]) {2, 1, 0},
								   (double[]) {1, 2, 0}), 0);	/* coplanar disjoint */
	CHECK(ref_triangle_triangle_3d(o, x, y, (double[]) {0.5, 0.5, 0},
								   (double[]) {2, 1, 0}, (double[]) {1, 2, 0}), 1);	/* touch */
	CHECK(ref_triangle_triangle_3d(o, x, y, x, (double[]) {5, 5, 5},
								   (double[]) {7, 1, 2}), 1);	/* shared vertex */
	CHECK(ref_triangle_triangle_3d(o, x, y, x, y, (double[]) {1, 1, 0}), 1);	/* shared edge */
	CHECK(ref_triangle_triangle_3d(o, x, y, x, y, z), 1);
	CHECK(ref_triangle_triangle_3d(o, x, y, (double[]) {0, 0, 1}, (double[]) {1, 0, 1},
								   (double[]) {0, 1, 1}), 0);	/* parallel planes */
	CHECK(ref_triangle_triangle_3d(o, (double[]) {2, 0, 0}, (double[]) {0, 2, 0},
								   (double[]) {0.5, 0.5, -1}, (double[]) {0.5, 0.5, 1},
								   (double[]) {5, 5, 0}), 1);	/* piercing */
	CHECK(ref_triangle_triangle_3d(o, x, y, (double[]) {0.25, 0.25, 0},
								   (double[]) {0.25, 0.25, 1}, (double[]) {1, 1, 1}), 1);	/* vertex on face */
	CHECK(ref_triangle_triangle_3d(o, x, y, (double[]) {0.25, 0.25, TINY},
								   (double[]) {0.25, 0.25, 1}, (double[]) {1, 1, 1}), 0);
	/* edge-edge contact between non-coplanar triangles: edge (0,0,0)-(2,0,0)
	 * and edge (1,-1,0)-(1,1,0) raised off the plane on opposite sides */
	CHECK(ref_triangle_triangle_3d(o, (double[]) {2, 0, 0}, (double[]) {1, 0, 1},
								   (double[]) {1, -1, 0}, (double[]) {1, 1, 0},
								   (double[]) {1, 0, -1}), 1);
	CHECK(ref_triangle_triangle_3d(o, (double[]) {2, 0, 0}, (double[]) {1, 0, 1},
								   (double[]) {1, -1, -TINY}, (double[]) {1, 1, -TINY},
								   (double[]) {1, 0, -1}), 0);
	/* degenerate: two collinear triangles (segments) crossing */
	CHECK(ref_triangle_triangle_3d(o, (double[]) {2, 2, 2}, (double[]) {1, 1, 1},
								   (double[]) {2, 0, 0}, (double[]) {0, 2, 2},
								   (double[]) {1, 1, 1}), 1);
	CHECK(ref_triangle_triangle_3d(o, (double[]) {2, 2, 2}, (double[]) {1, 1, 1},
								   (double[]) {2, 0, 0}, (double[]) {0, 2, 2},
								   (double[]) {2, 0, 0}), 1);
	CHECK(ref_triangle_triangle_3d(o, (double[]) {2, 2, 2}, (double[]) {1, 1, 1},
								   (double[]) {2, 0, 0}, (double[]) {0, 2, 3},
								   (double[]) {2, 0, 0}), 0);
	CHECK(ref_triangle_triangle_3d(h, h, h, o, x, y), 1);
	CHECK(ref_triangle_triangle_3d(z, z, z, o, x, y), 0);
	/* UTM scale: shared edge, third vertices on opposite sides */
	{
		double		a[3] = {500000.25, 7000000.5, -500},
					b[3] = {500003.5, 7000001.75, -499.5},
					c[3] = {500001, 7000004, -501},
					d[3] = {500001, 7000004, -498};

		CHECK(ref_triangle_triangle_3d(a, b, c, b, a, d), 1);
		CHECK(ref_triangle_triangle_3d(a, b, c, (double[]) {500000.25, 7000000.5, -499.75},
									   (double[]) {500003.5, 7000001.75, -499.25}, d), 0);
	}
}

static void
hand_2d(void)
{
	double		o[2] = {0, 0},
				x[2] = {1, 0},
				y[2] = {0, 1},
				h[2] = {0.5, 0};

	CHECK(ref_point_segment_2d(h, o, x), 1);
	CHECK(ref_point_segment_2d((double[]) {0.5, TINY}, o, x), 0);
	CHECK(ref_point_segment_2d((double[]) {2, 0}, o, x), 0);
	CHECK(ref_point_segment_2d(o, o, o), 1);
	CHECK(ref_point_segment_2d(x, o, o), 0);

	CHECK(ref_point_triangle_2d((double[]) {0.25, 0.25}, o, x, y), 1);
	CHECK(ref_point_triangle_2d((double[]) {0.5, 0.5}, o, x, y), 1);
	CHECK(ref_point_triangle_2d(x, o, x, y), 1);
	CHECK(ref_point_triangle_2d((double[]) {0.5, nextafter(0.5, 1)}, o, x, y), 0);
	CHECK(ref_point_triangle_2d((double[]) {0.25, 0.25}, o, y, x), 1);	/* clockwise */
	CHECK(ref_point_triangle_2d(h, o, x, (double[]) {2, 0}), 1);	/* collinear triangle */
	CHECK(ref_point_triangle_2d((double[]) {0.5, TINY}, o, x, (double[]) {2, 0}), 0);

	CHECK(ref_segment_segment_2d(o, (double[]) {2, 2}, (double[]) {2, 0}, (double[]) {0, 2}), 1);
	CHECK(ref_segment_segment_2d(o, (double[]) {2, 2}, (double[]) {2, 0}, (double[]) {1, 1}), 1);
	CHECK(ref_segment_segment_2d(o, (double[]) {2, 2}, (double[]) {2, 0},
								 (double[]) {nextafter(1, 2), 1}), 0);
	CHECK(ref_segment_segment_2d(o, (double[]) {2, 0}, x, (double[]) {3, 0}), 1);	/* overlap */
	CHECK(ref_segment_segment_2d(o, x, x, (double[]) {3, 0}), 1);
	CHECK(ref_segment_segment_2d(o, x, (double[]) {2, 0}, (double[]) {3, 0}), 0);
	CHECK(ref_segment_segment_2d(o, x, y, (double[]) {1, 1}), 0);
	CHECK(ref_segment_segment_2d(h, h, o, x), 1);
	CHECK(ref_segment_segment_2d(h, h, y, y), 0);

	CHECK(ref_segment_triangle_2d((double[]) {-1, 0.25}, (double[]) {-0.5, 0.25}, o, x, y), 0);
	CHECK(ref_segment_triangle_2d((double[]) {-1, 0.25}, (double[]) {0, 0.25}, o, x, y), 1);
	CHECK(ref_segment_triangle_2d((double[]) {-1, 0.25}, (double[]) {3, 0.25}, o, x, y), 1);
	CHECK(ref_segment_triangle_2d((double[]) {0.1, 0.1}, (double[]) {0.2, 0.2}, o, x, y), 1);	/* inside */
	CHECK(ref_segment_triangle_2d((double[]) {1, 1}, (double[]) {0, 2}, o, x, y), 0);
	CHECK(ref_segment_triangle_2d((double[]) {1, 0}, (double[]) {0, 2}, o, x, y), 1);	/* at vertex */

	CHECK(ref_triangle_triangle_2d(o, (double[]) {3, 0}, (double[]) {0, 3},
								   (double[]) {2, 2}, (double[]) {-1, 2}, (double[]) {2, -1}), 1);
	CHECK(ref_triangle_triangle_2d(o, x, y, (double[]) {1, 1}, (double[]) {2, 1},
								   (double[]) {1, 2}), 0);
	CHECK(ref_triangle_triangle_2d(o, x, y, (double[]) {0.5, 0.5}, (double[]) {2, 1},
								   (double[]) {1, 2}), 1);
	CHECK(ref_triangle_triangle_2d(o, x, y, (double[]) {0.5, nextafter(0.5, 1)},
								   (double[]) {2, 1}, (double[]) {1, 2}), 0);
	CHECK(ref_triangle_triangle_2d(o, x, y, x, y, (double[]) {1, 1}), 1);	/* shared edge */
	CHECK(ref_triangle_triangle_2d(o, (double[]) {4, 0}, (double[]) {0, 4},
								   (double[]) {1, 1}, (double[]) {2, 1}, (double[]) {1, 2}), 1);	/* contained */
	CHECK(ref_triangle_triangle_2d(h, h, h, o, x, y), 1);
	CHECK(ref_triangle_triangle_2d((double[]) {-1, -1}, (double[]) {-1, -1}, (double[]) {-1, -1},
								   o, x, y), 0);
	CHECK(ref_triangle_triangle_2d((double[]) {-1, 0.5}, (double[]) {2, 0.5}, (double[]) {0.5, 0.5},
								   o, x, y), 1);	/* collinear triangle across */
}

/* ------------------------------------------------------------------ */

static uint64_t
splitmix64(uint64_t *s)
{
	uint64_t	z = (*s += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static void
random_cross_checks(int rounds)
{
	uint64_t	s = 12345;
	long		agree_true = 0,
				agree_false = 0;

	for (int it = 0; it < rounds; it++)
	{
		int			dim = 2 + (it & 1);
		int			np = 1 + (int) (splitmix64(&s) % 3);
		int			nq = 1 + (int) (splitmix64(&s) % 3);
		int			range = 2 + (int) (splitmix64(&s) % 4);
		double		scale = ldexp(1.0, (int) (splitmix64(&s) % 9) - 4);
		double		P[9],
					Q[9];

		for (int i = 0; i < np * dim; i++)
			P[i] = scale * (double) (int) (splitmix64(&s) % range);
		for (int i = 0; i < nq * dim; i++)
			Q[i] = scale * (double) (int) (splitmix64(&s) % range);
		/* sometimes a half-step coordinate, sometimes an exact copy */
		if (splitmix64(&s) % 4 == 0)
			P[splitmix64(&s) % (np * dim)] += 0.5 * scale;
		if (splitmix64(&s) % 8 == 0)
			P[0] = nextafter(P[0], (splitmix64(&s) & 1) ? INFINITY : -INFINITY);

		bool		a = ref_hulls_intersect(dim, np, P, nq, Q, true);
		bool		b = ref_hulls_intersect(dim, np, P, nq, Q, false);
		bool		c = ref_hulls_intersect(dim, nq, Q, np, P, false);
		bool		d = ref_hulls_intersect_fm(dim, np, P, nq, Q);

		checks++;
		if (a != b || b != c || c != d)
		{
			failures++;
			fprintf(stderr, "FAIL random cross-check dim=%d np=%d nq=%d: "
					"early=%d simplex=%d swapped=%d fm=%d\n  P:", dim, np, nq, a, b, c, d);
			for (int i = 0; i < np * dim; i++)
				fprintf(stderr, " %a", P[i]);
			fprintf(stderr, "\n  Q:");
			for (int i = 0; i < nq * dim; i++)
				fprintf(stderr, " %a", Q[i]);
			fprintf(stderr, "\n");
		}
		if (d)
			agree_true++;
		else
			agree_false++;

		/* point in a non-degenerate 2D triangle <=> no two strict opposite signs */
		if (dim == 2 && np == 1 && nq == 3)
		{
			int			o0 = ref_orient2d(&Q[0], &Q[2], &Q[4]);

			if (o0 != 0)
			{
				int			s1 = ref_orient2d(&Q[0], &Q[2], P);
				int			s2 = ref_orient2d(&Q[2], &Q[4], P);
				int			s3 = ref_orient2d(&Q[4], &Q[0], P);
				bool		inside = s1 * o0 >= 0 && s2 * o0 >= 0 && s3 * o0 >= 0;

				CHECK(inside, d);
			}
		}
	}
	printf("random cross-checks: %d rounds, %ld intersecting, %ld disjoint\n",
		   rounds, agree_true, agree_false);
}

static void
orientation_permutations(int rounds)
{
	uint64_t	s = 777;

	for (int it = 0; it < rounds; it++)
	{
		double		p[12];

		for (int i = 0; i < 12; i++)
			p[i] = (double) (int) (splitmix64(&s) % 4) - 1.5 * (double) (splitmix64(&s) % 2);
		int			o2 = ref_orient2d(&p[0], &p[2], &p[4]);

		CHECK(ref_orient2d(&p[2], &p[4], &p[0]), o2);
		CHECK(ref_orient2d(&p[2], &p[0], &p[4]), -o2);
		int			o3 = ref_orient3d(&p[0], &p[3], &p[6], &p[9]);

		CHECK(ref_orient3d(&p[3], &p[0], &p[6], &p[9]), -o3);
		CHECK(ref_orient3d(&p[3], &p[6], &p[0], &p[9]), o3);
		CHECK(ref_orient3d(&p[9], &p[3], &p[6], &p[0]), -o3);
		/* orient2d is orient3d against a point lifted straight up */
		double		a[3] = {p[0], p[1], 0},
					b[3] = {p[2], p[3], 0},
					c[3] = {p[4], p[5], 0},
					d[3] = {p[0], p[1], 1};

		CHECK(ref_orient3d(a, b, c, d), o2);
	}
}

/*
 * Orientation by a second formula: the homogeneous determinant
 * det [a 1; b 1; c 1] (= +orient2d) and det [a 1; b 1; c 1; d 1]
 * (= -orient3d, expanding along the column of ones after subtracting row a),
 * summed over all permutations (Leibniz) in mpq.
 */
static int
leibniz_sign(int n, const double *rows)
{
	mpq_t		m[16],
				term,
				sum;
	int			perm[4] = {0, 1, 2, 3};
	int			result;

	mpq_init(term);
	mpq_init(sum);
	for (int i = 0; i < n * n; i++)
	{
		mpq_init(m[i]);
		mpq_set_d(m[i], rows[i]);
	}
	/* iterate permutations by Heap's algorithm, tracking parity */
	int			c[4] = {0, 0, 0, 0},
				parity = 1,
				i = 0;

	for (;;)
	{
		mpq_set_si(term, parity, 1);
		for (int r = 0; r < n; r++)
			mpq_mul(term, term, m[r * n + perm[r]]);
		mpq_add(sum, sum, term);
		while (i < n && c[i] >= i)
			c[i++] = 0;
		if (i >= n)
			break;
		int			j = (i % 2 == 0) ? 0 : c[i],
					t = perm[j];

		perm[j] = perm[i];
		perm[i] = t;
		parity = -parity;
		c[i]++;
		i = 0;
	}
	result = mpq_sgn(sum);
	for (int k = 0; k < n * n; k++)
		mpq_clear(m[k]);
	mpq_clear(term);
	mpq_clear(sum);
	return result;
}

static double
random_coordinate(uint64_t *s, int kind)
{
	uint64_t	r = splitmix64(s);

	switch (kind)
	{
		case 0:					/* small integers and halves */
			return (double) (int) (r % 7) * 0.5 - 1.5;
		case 1:					/* full-precision in [-1, 1) */
			return ldexp((double) (int64_t) (r >> 11) - 0x1p52, -52);
		default:				/* any exponent */
			return ldexp((double) (int64_t) (r >> 11) - 0x1p52,
						 (int) (splitmix64(s) % 2000) - 1074 - 52 + 0);
	}
}

static void
orientation_second_formula(int rounds)
{
	uint64_t	s = 4242;

	for (int it = 0; it < rounds; it++)
	{
		int			kind = it % 3;
		double		p[12],
					m3[9],
					m4[16];

		for (int i = 0; i < 12; i++)
			p[i] = random_coordinate(&s, kind);
		/* make a third of them exactly degenerate: d := a, or c := b */
		if (it % 5 == 0)
			for (int k = 0; k < 3; k++)
				p[9 + k] = p[k];
		if (it % 7 == 0)
			for (int k = 0; k < 2; k++)
				p[4 + k] = p[2 + k];
		for (int r = 0; r < 3; r++)
		{
			m3[3 * r] = p[2 * r];
			m3[3 * r + 1] = p[2 * r + 1];
			m3[3 * r + 2] = 1;
		}
		for (int r = 0; r < 4; r++)
		{
			for (int k = 0; k < 3; k++)
				m4[4 * r + k] = p[3 * r + k];
			m4[4 * r + 3] = 1;
		}
		CHECK(ref_orient2d(&p[0], &p[2], &p[4]), leibniz_sign(3, m3));
		CHECK(ref_orient3d(&p[0], &p[3], &p[6], &p[9]), -leibniz_sign(4, m4));
	}
}

int
main(int argc, char **argv)
{
	int			rounds = 200000;

	if (argc > 1 && argv[1][0] == '-' && argv[1][1] == '-' && argv[1][2] == 'q')
		rounds = 20000;
	hand_orientation();
	hand_3d();
	hand_2d();
	orientation_permutations(20000);
	orientation_second_formula(30000);
	random_cross_checks(rounds);
	printf("test_ref_exact: %d checks, %d failures\n", checks, failures);
	ref_exact_release_thread();
	return failures ? 1 : 0;
}
