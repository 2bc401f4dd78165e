/*
 * test_drill.c — the drill family's rounding core and angle reduction.
 *
 * exg_mpq_nearest_double must round a rational to the nearest double, ties to even:
 * checked on midpoints of adjacent doubles (the tie), a hair either side of
 * them, and exact doubles, over random magnitudes and both signs. The
 * expected answers come from the construction (a, b adjacent; q built from
 * them), not from the code. exg_sincosd must be exact at multiples of 90
 * degrees and keep the symmetries of sine and cosine to the bit, which is
 * what makes a vertical hole stay exactly under its collar.
 */
#include <gmp.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "desurvey.h"
#include "drill_rational.h"
#include "harness.h"

static bool
even_last_bit(double d)
{
	uint64_t	bits;

	memcpy(&bits, &d, sizeof(bits));
	return (bits & 1) == 0;
}

static void
check_nearest(test_rng *r)
{
	mpq_t		q,
				h;
	int			k;

	mpq_inits(q, h, NULL);
	for (k = 0; k < 200000; k++)
	{
		double		a = ldexp(rng_uniform(r) + 0.5, (int) rng_below(r, 200) - 100);
		double		b;

		if (rng_below(r, 2))
			a = -a;
		b = nextafter(a, a > 0 ? INFINITY : -INFINITY);
		/* exact double */
		mpq_set_d(q, a);
		CHECK(exg_mpq_nearest_double(q) == a);
		/* the midpoint: ties to even */
		mpq_set_d(q, a);
		mpq_set_d(h, b);
		mpq_add(q, q, h);
		mpq_div_2exp(q, q, 1);
		CHECK(exg_mpq_nearest_double(q) == (even_last_bit(a) ? a : b), "tie between %a and %a", a, b);
		/* a hair (2^-200 of the gap) towards b, then towards a */
		mpq_set_d(h, b);
		{
			mpq_t		gap;

			mpq_init(gap);
			mpq_set_d(gap, a);
			mpq_sub(gap, h, gap);
			mpq_div_2exp(gap, gap, 200);
			mpq_add(h, q, gap);
			CHECK(exg_mpq_nearest_double(h) == b, "just past the midpoint of %a and %a", a, b);
			mpq_sub(h, q, gap);
			CHECK(exg_mpq_nearest_double(h) == a, "just short of the midpoint of %a and %a", a, b);
			mpq_clear(gap);
		}
	}
	mpq_clears(q, h, NULL);
}

static void
check_sincosd(test_rng *r)
{
	static const double right[][3] = {
		{0, 0, 1}, {90, 1, 0}, {180, 0, -1}, {270, -1, 0}, {360, 0, 1},
		{-90, -1, 0}, {450, 1, 0}, {-720, 0, 1}, {1e6 * 360, 0, 1}};
	int			k;

	for (k = 0; k < (int) (sizeof(right) / sizeof(right[0])); k++)
	{
		double		s,
					c;

		exg_sincosd(right[k][0], &s, &c);
		CHECK(s == right[k][1] && c == right[k][2], "sincosd(%g) = (%a, %a)", right[k][0], s, c);
	}
	for (k = 0; k < 100000; k++)
	{
		double		x = (rng_uniform(r) - 0.5) * 2000,
					s1,
					c1,
					s2,
					c2;

		exg_sincosd(x, &s1, &c1);
		exg_sincosd(-x, &s2, &c2);
		CHECK(s1 == -s2 && c1 == c2, "odd sine, even cosine at %a", x);
		/* a period: x + 360 is exact for |x| < 360 and integers k: compare there */
		x = floor(x);
		exg_sincosd(x, &s1, &c1);
		exg_sincosd(x + 360, &s2, &c2);
		CHECK(s1 == s2 && c1 == c2, "period at %a", x);
		/* complements, where 90 - y is exact (Sterbenz: y in [45, 90]) */
		{
			double		y = 45 + 45 * rng_uniform(r),
						s3,
						c3,
						s4,
						c4;

			exg_sincosd(y, &s3, &c3);
			exg_sincosd(90 - y, &s4, &c4);
			CHECK(s3 == c4 && c3 == s4, "complement at %a", y);
		}
		CHECK(fabs(s1 * s1 + c1 * c1 - 1) < 4e-16, "sin^2 + cos^2 at %a", x);
	}
}

int
main(void)
{
	test_rng	r = {20261127};

	check_nearest(&r);
	check_sincosd(&r);
	return test_summary("test_drill");
}
