/*
 * rational_round.c — a rational rounded once to the nearest double
 * (rational_round.h).
 */
#include "rational_round.h"

#include <math.h>
#include <stdint.h>
#include <string.h>

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
