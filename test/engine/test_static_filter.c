/*
 * test_static_filter.c — the CPU's semi-static orientation filter
 * (orient_static.h) on its own, against the independent GMP reference:
 *   - every sign it gives equals the exact sign, over every adversarial
 *     family (static_bound aims at its bound and range limits), in all four
 *     IEEE rounding modes (the bound is claimed for any mode), for the
 *     generic form and the precomputed-plane form;
 *   - outside its range (differences beyond 2^340 or below 2^-300 in 3D,
 *     overflowed differences, NaN) it says unknown, zero columns excepted;
 *   - on well-conditioned inputs it decides (else it would be dead weight);
 *   - the CPU join's triangle-triangle test with per-triangle planes
 *     (join_cpu_pair.h) equals the reference on every family's cases.
 *
 *   test/engine/bin/test_static_filter [--cases N]
 */
#include <fenv.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "adversarial.h"
#include "interval_double.h"
#include "join_cpu_pair.h"
#include "orient_static.h"
#include "ref_exact.h"
#include "harness.h"


static const int modes[4] = {FE_TONEAREST, FE_UPWARD, FE_DOWNWARD, FE_TOWARDZERO};
static const char *const mode_names[4] = {"nearest", "upward", "downward", "toward zero"};

/* Every family's orient cases: a known static sign is the exact sign. */
static void
test_against_reference(long per_family)
{
	long		decided[4][2] = {{0}},
				total[2] = {0},
				wrong = 0;

	for (int f = 0; f < ADV_NFAMILIES; f++)
		for (int pd = 0; pd < 2; pd++)
		{
			adv_pred	p = pd ? ADV_ORIENT3D : ADV_ORIENT2D;
			uint64_t	size = adv_family_size((adv_family) f, p);
			long		n = size == ADV_UNBOUNDED || size > (uint64_t) per_family ? per_family : (long) size;

			for (long i = 0; i < n; i++)
			{
				double		x[12];
				int			ref;

				if (!adv_generate((adv_family) f, p, ADV_DEFAULT_SEED, (uint64_t) i, x))
					continue;
				total[pd]++;
				if (pd)
					ref = ref_orient3d(&x[0], &x[3], &x[6], &x[9]);
				else
				{
					/* the 2D case on axes (0, 1) of 3D points */
					double		a[3] = {x[0], x[1], 0},
								b[3] = {x[2], x[3], 0},
								c[3] = {x[4], x[5], 0};

					memcpy(&x[0], a, sizeof(a));
					memcpy(&x[3], b, sizeof(b));
					memcpy(&x[6], c, sizeof(c));
					ref = ref_orient2d((double[2]) {a[0], a[1]}, (double[2]) {b[0], b[1]},
									   (double[2]) {c[0], c[1]});
				}
				for (int m = 0; m < 4; m++)
				{
					int			s,
								sp = EXG_SIGN_UNKNOWN;

					fesetround(modes[m]);
					if (pd)
					{
						exg_plane_static q;

						s = exg_orient3d_static(&x[0], &x[3], &x[6], &x[9]);
						exg_plane_static_init(&x[0], &x[3], &x[6], &q);
						sp = exg_plane_side_static(&q, &x[9]);
					}
					else
						s = exg_orient2d_static(&x[0], &x[3], &x[6], 0, 1);
					fesetround(FE_TONEAREST);
					if ((s != EXG_SIGN_UNKNOWN && s != ref) || (sp != EXG_SIGN_UNKNOWN && sp != ref))
					{
						if (wrong++ < 10)
							fprintf(stderr, "WRONG SIGN %s %s case %ld, mode %s: static %d plane %d exact %d\n",
									adv_family_name((adv_family) f), pd ? "orient3d" : "orient2d", i,
									mode_names[m], s, sp, ref);
					}
					decided[m][pd] += s != EXG_SIGN_UNKNOWN;
				}
			}
		}
	CHECK(wrong == 0);
	printf("reference: %ld orient2d and %ld orient3d cases in 4 rounding modes, %ld wrong signs\n",
		   total[0], total[1], wrong);
	for (int m = 0; m < 4; m++)
		printf("  %-12s decided %ld orient2d, %ld orient3d\n", mode_names[m], decided[m][0],
			   decided[m][1]);
}

/* Out of range: unknown (the interval and exact stages take over). */
static void
test_range(void)
{
	double		a[3] = {0, 0, 0},
				b[3] = {1, 0, 0},
				c[3] = {0, 1, 0},
				d[3] = {0.25, 0.25, 1};
	double		t[4][3];

	/* in range: decided */
	CHECK(exg_orient3d_static(a, b, c, d) == 1);
	CHECK(exg_orient2d_static(a, b, c, 0, 1) == 1);
	for (int scale = -1074; scale <= 1023; scale += 1)
	{
		int			s3,
					s2;
		double		f = ldexp(1.0, scale);

		for (int k = 0; k < 3; k++)
		{
			t[0][k] = a[k] * f;
			t[1][k] = b[k] * f;
			t[2][k] = c[k] * f;
			t[3][k] = d[k] * f;
		}
		s3 = exg_orient3d_static(t[0], t[1], t[2], t[3]);
		s2 = exg_orient2d_static(t[0], t[1], t[2], 0, 1);
		/* max differences are f: the range is [2^-300, 2^340] (3D), [2^-450, 2^500] (2D) */
		CHECK(s3 == ((scale >= -300 && scale <= 340) ? 1 : EXG_SIGN_UNKNOWN));
		CHECK(s2 == ((scale >= -450 && scale <= 500) ? 1 : EXG_SIGN_UNKNOWN));
	}
	/* differences that overflow, though every coordinate is finite */
	{
		double		p[3] = {-DBL_MAX, 0, 0},
					q[3] = {DBL_MAX, 0, 1},
					r[3] = {0, 1, 0},
					s[3] = {0, 0, 5};

		CHECK(exg_orient3d_static(p, q, r, s) == EXG_SIGN_UNKNOWN);
		CHECK(exg_orient2d_static(p, q, r, 0, 1) == EXG_SIGN_UNKNOWN);
	}
	/* NaN and infinity: never a sign, not even through a zero column */
	{
		double		n[3] = {NAN, 0, 0},
					i[3] = {INFINITY, 0, 0};

		CHECK(exg_orient3d_static(a, b, c, n) == EXG_SIGN_UNKNOWN);
		CHECK(exg_orient3d_static(a, (double[3]) {0, 0, 0}, (double[3]) {0, 0, 0}, i) ==
			  EXG_SIGN_UNKNOWN);
		CHECK(exg_orient2d_static(a, n, c, 0, 1) == EXG_SIGN_UNKNOWN);
	}
	/* a zero column is an exact zero whatever the magnitudes */
	{
		double		p[3] = {1e300, 5, 1e-310},
					q[3] = {-1e300, 5, 7},
					r[3] = {3, 5, -1e200},
					s[3] = {4, 5, 2};

		CHECK(exg_orient3d_static(p, q, r, s) == 0);
		CHECK(exg_orient2d_static(p, q, r, 1, 2) == 0);
	}
	/*
	 * Near the bound: p, q, r span the plane z = x + y, s lies above it by
	 * delta (exact sign +1, |D| = delta, M ~ 1): unknown for delta = 2^-52,
	 * far below the bound 1.02e-14; decided for 2^-40.
	 */
	{
		double		p[3] = {0, 0, 0},
					q[3] = {1, 0, 1},
					r[3] = {0, 1, 1},
					s[3] = {0.5, 0.5, 1 + 0x1p-52};

		CHECK(ref_orient3d(p, q, r, s) == 1);
		CHECK(exg_orient3d_static(p, q, r, s) == EXG_SIGN_UNKNOWN);
		s[2] = 1 + 0x1p-40;
		CHECK(exg_orient3d_static(p, q, r, s) == 1);
	}
}

/* The join's pair test with planes, on every family's triangle pairs. */
static void
test_join_pair(long per_family)
{
	long		total = 0,
				wrong = 0;
	exg_round_state saved = exg_round_up_enter();

	for (int f = 0; f < ADV_NFAMILIES; f++)
	{
		uint64_t	size = adv_family_size((adv_family) f, ADV_TRIANGLE_TRIANGLE_3D);
		long		n = size == ADV_UNBOUNDED || size > (uint64_t) per_family ? per_family : (long) size;

		for (long i = 0; i < n; i++)
		{
			double		x[18],
						box[6];
			uint32_t	idx[3] = {0, 1, 2};
			exg_prim_set A = {&x[0], 3, idx, 1, 3, 0, NULL, NULL},
						B = {&x[9], 3, idx, 1, 3, 0, NULL, NULL};
			exg_prim	pa,
						pb;
			exg_plane_static qa,
						qb;
			bool		ref,
						got;

			if (!adv_generate((adv_family) f, ADV_TRIANGLE_TRIANGLE_3D, ADV_DEFAULT_SEED,
							  (uint64_t) i, x))
				continue;
			total++;
			exg_join_classify(&A, 0, &pa, box);
			exg_join_classify(&B, 0, &pb, box);
			exg_plane_static_init(&x[3 * pa.v[0]], &x[3 * pa.v[1]], &x[3 * pa.v[2]], &qa);
			exg_plane_static_init(&x[9 + 3 * pb.v[0]], &x[9 + 3 * pb.v[1]], &x[9 + 3 * pb.v[2]], &qb);
			got = exg_join_cpu_pair_meets(&A, &pa, &qa, &B, &pb, &qb);
			ref = ref_triangle_triangle_3d(&x[0], &x[3], &x[6], &x[9], &x[12], &x[15]);
			if (got != ref && wrong++ < 10)
				fprintf(stderr, "WRONG PAIR %s case %ld: join %d exact %d\n",
						adv_family_name((adv_family) f), i, got, ref);
		}
	}
	exg_round_restore(saved);
	CHECK(wrong == 0);
	printf("join pair test with planes: %ld triangle pairs, %ld wrong\n", total, wrong);
}

/* Well-conditioned random triangles and points: the filter decides. */
static void
test_decides(void)
{
	long		n = 100000,
				known = 0;

	for (long i = 0; i < n; i++)
	{
		double		x[12];

		adv_generate(ADV_UNIFORM, ADV_ORIENT3D, 7, (uint64_t) i, x);
		known += exg_orient3d_static(&x[0], &x[3], &x[6], &x[9]) != EXG_SIGN_UNKNOWN;
	}
	printf("uniform orient3d: %ld of %ld decided by the static filter\n", known, n);
	/* the uniform family snaps 30% of its points onto exact degeneracies */
	CHECK(known > n * 6 / 10);
}

int
main(int argc, char **argv)
{
	long		cases = 20000;

	for (int i = 1; i < argc; i++)
		if (!strcmp(argv[i], "--cases") && i + 1 < argc)
			cases = atol(argv[++i]);
	test_range();
	test_decides();
	test_against_reference(cases);
	test_join_pair(cases);
	ref_exact_release_thread();
	if (test_failures)
	{
		printf("test_static_filter: %ld FAILURES\n", test_failures);
		return 1;
	}
	printf("test_static_filter: all checks passed\n");
	return 0;
}
