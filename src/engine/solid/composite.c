/*
 * composite.c — exact length-weighted composites of assay intervals.
 *
 * Every double is a rational, so max, min, differences, products and sums
 * of them are exact in mpq; the only rounding is the final quotient (and
 * the reported lengths), each once, to the nearest double.
 */
#include "composite.h"

#include <math.h>
#include <stdint.h>
#include <string.h>

void
exg_composite_init(exg_composite *c, double from, double to)
{
	c->from = from;
	c->to = to;
	mpq_inits(c->length, c->metal, c->mid_length, c->mid_metal, c->tmp[0], c->tmp[1], c->tmp[2],
			  NULL);
	c->intervals = 0;
}

void
exg_composite_clear(exg_composite *c)
{
	mpq_clears(c->length, c->metal, c->mid_length, c->mid_metal, c->tmp[0], c->tmp[1], c->tmp[2],
			   NULL);
}

void
exg_composite_add(exg_composite *c, double a, double b, double g)
{
	/* max and min of doubles are exact */
	double		lo = a > c->from ? a : c->from,
				hi = b < c->to ? b : c->to;

	if (lo < hi)
	{
		c->intervals++;
		mpq_set_d(c->tmp[0], hi);
		mpq_set_d(c->tmp[1], lo);
		mpq_sub(c->tmp[0], c->tmp[0], c->tmp[1]);
		mpq_add(c->length, c->length, c->tmp[0]);
		mpq_set_d(c->tmp[1], g);
		mpq_mul(c->tmp[0], c->tmp[0], c->tmp[1]);
		mpq_add(c->metal, c->metal, c->tmp[0]);
	}
	/* midpoint rule: from <= (a + b) / 2 < to, i.e. 2 from <= a + b < 2 to */
	mpq_set_d(c->tmp[0], a);
	mpq_set_d(c->tmp[1], b);
	mpq_add(c->tmp[2], c->tmp[0], c->tmp[1]);
	mpq_div_2exp(c->tmp[2], c->tmp[2], 1);
	mpq_set_d(c->tmp[0], c->from);
	mpq_set_d(c->tmp[1], c->to);
	if (mpq_cmp(c->tmp[2], c->tmp[0]) >= 0 && mpq_cmp(c->tmp[2], c->tmp[1]) < 0)
	{
		mpq_set_d(c->tmp[0], b);
		mpq_set_d(c->tmp[1], a);
		mpq_sub(c->tmp[0], c->tmp[0], c->tmp[1]);
		mpq_add(c->mid_length, c->mid_length, c->tmp[0]);
		mpq_set_d(c->tmp[1], g);
		mpq_mul(c->tmp[0], c->tmp[0], c->tmp[1]);
		mpq_add(c->mid_metal, c->mid_metal, c->tmp[0]);
	}
}

double
exg_mpq_nearest_double(const mpq_t q)
{
	double		d = mpq_get_d(q);
	double		other = mpq_sgn(q) >= 0 ? nextafter(d, INFINITY) : nextafter(d, -INFINITY);
	mpq_t		m,
				e;
	int			cmp;

	mpq_inits(m, e, NULL);
	mpq_set_d(m, d);
	if (mpq_equal(m, q))
	{
		mpq_clears(m, e, NULL);
		return d;
	}
	/* q lies strictly between d and other (d truncated towards zero) */
	mpq_set_d(e, other);
	mpq_add(m, m, e);
	mpq_div_2exp(m, m, 1);
	cmp = mpq_cmp(q, m);
	mpq_clears(m, e, NULL);
	if (mpq_sgn(q) < 0)
		cmp = -cmp;
	if (cmp > 0)
		return other;
	if (cmp == 0)
	{
		uint64_t	bits;

		memcpy(&bits, &d, sizeof(bits));
		return (bits & 1) ? other : d;
	}
	return d;
}

void
exg_composite_result_of(exg_composite *c, exg_composite_result *r)
{
	r->intervals = c->intervals;
	r->sampled = exg_mpq_nearest_double(c->length);
	r->mid_length = exg_mpq_nearest_double(c->mid_length);
	if (mpq_sgn(c->length) > 0)
	{
		mpq_div(c->tmp[0], c->metal, c->length);
		r->grade = exg_mpq_nearest_double(c->tmp[0]);
	}
	else
		r->grade = NAN;
	if (mpq_sgn(c->mid_length) > 0)
	{
		mpq_div(c->tmp[0], c->mid_metal, c->mid_length);
		r->mid_grade = exg_mpq_nearest_double(c->tmp[0]);
	}
	else
		r->mid_grade = NAN;
}
