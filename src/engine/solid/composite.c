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
#include <stdlib.h>
#include <string.h>

void
exg_composite_init(exg_composite *c, double from, double to)
{
	c->from = from;
	c->to = to;
	mpq_inits(c->length, c->metal, c->mid_length, c->mid_metal, c->tmp[0], c->tmp[1], c->tmp[2],
			  NULL);
	c->intervals = 0;
	c->parts = NULL;
	c->nparts = c->cap = 0;
	c->nomem = false;
}

void
exg_composite_clear(exg_composite *c)
{
	mpq_clears(c->length, c->metal, c->mid_length, c->mid_metal, c->tmp[0], c->tmp[1], c->tmp[2],
			   NULL);
	free(c->parts);
	c->parts = NULL;
}

static void
keep_part(exg_composite *c, double a, double b, double lo, double hi)
{
	if (c->nparts == c->cap)
	{
		size_t		cap = c->cap ? 2 * c->cap : 64;
		double	   *grown = realloc(c->parts, sizeof(double) * 4 * cap);

		if (grown == NULL)
		{
			c->nomem = true;
			return;
		}
		c->parts = grown;
		c->cap = cap;
	}
	c->parts[4 * c->nparts] = a;
	c->parts[4 * c->nparts + 1] = b;
	c->parts[4 * c->nparts + 2] = lo;
	c->parts[4 * c->nparts + 3] = hi;
	c->nparts++;
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
		keep_part(c, a, b, lo, hi);
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

/* Inside parts by their start, then end: overlaps are then neighbours' business. */
static int
cmp_part(const void *x, const void *y)
{
	const double *p = x,
			   *q = y;

	if (p[2] != q[2])
		return p[2] < q[2] ? -1 : 1;
	if (p[3] != q[3])
		return p[3] < q[3] ? -1 : 1;
	return 0;
}

/*
 * The union of the inside parts (sampled), exactly: sorted by start, each
 * part extends the current run or starts a new one. Parts overlap with
 * positive length iff some part starts before the run so far ends.
 */
static void
covered(exg_composite *c, exg_composite_result *r, mpq_t sampled)
{
	double		run_lo,
				run_hi;
	const double *run_owner;
	size_t		i;

	mpq_set_ui(sampled, 0, 1);
	r->overlaps = false;
	if (c->nparts == 0)
		return;
	qsort(c->parts, c->nparts, 4 * sizeof(double), cmp_part);
	run_lo = c->parts[2];
	run_hi = c->parts[3];
	run_owner = c->parts;
	for (i = 1; i <= c->nparts; i++)
	{
		const double *p = &c->parts[4 * i];

		if (i < c->nparts && p[2] < run_hi)
		{
			if (!r->overlaps)
			{
				r->overlaps = true;
				r->first[0] = run_owner[0];
				r->first[1] = run_owner[1];
				r->second[0] = p[0];
				r->second[1] = p[1];
			}
			if (p[3] > run_hi)
			{
				run_hi = p[3];
				run_owner = p;
			}
			continue;
		}
		/* the run [run_lo, run_hi] ends: add its length exactly */
		mpq_set_d(c->tmp[0], run_hi);
		mpq_set_d(c->tmp[1], run_lo);
		mpq_sub(c->tmp[0], c->tmp[0], c->tmp[1]);
		mpq_add(sampled, sampled, c->tmp[0]);
		if (i < c->nparts)
		{
			run_lo = p[2];
			run_hi = p[3];
			run_owner = p;
		}
	}
}

bool
exg_composite_result_of(exg_composite *c, exg_composite_result *r)
{
	mpq_t		sampled;

	if (c->nomem)
		return false;
	mpq_init(sampled);
	covered(c, r, sampled);
	r->intervals = c->intervals;
	r->sampled = exg_mpq_nearest_double(sampled);
	/* the intercept's length less what is covered, and the parts' total
	 * less what is covered: each exact, rounded once */
	mpq_set_d(c->tmp[0], c->to);
	mpq_set_d(c->tmp[1], c->from);
	mpq_sub(c->tmp[0], c->tmp[0], c->tmp[1]);
	mpq_sub(c->tmp[0], c->tmp[0], sampled);
	r->unsampled = exg_mpq_nearest_double(c->tmp[0]);
	mpq_sub(c->tmp[0], c->length, sampled);
	r->overlap = exg_mpq_nearest_double(c->tmp[0]);
	mpq_clear(sampled);
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
	return true;
}
