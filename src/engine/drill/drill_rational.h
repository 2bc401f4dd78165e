/*
 * drill_rational.h — the exact rational arithmetic the drill family's
 * constructions share: points of segments at rational parameters, the
 * orient3d value; rounding once is exg_mpq_nearest_double (rational_round.h).
 */
#ifndef EXG_DRILL_RATIONAL_H
#define EXG_DRILL_RATIONAL_H

#include <gmp.h>

#include "rational_round.h"

/* out = ((b - a) x (c - a)) . (d - a), exactly. */
void		exg_q_orient3d(mpq_t out, const double *a, const double *b, const double *c,
						   const double *d);

/* out[k] = p[k] + t (q[k] - p[k]) rounded once to the nearest double. */
void		exg_q_point_on_segment(double out[3], const double *p, const double *q,
								   const mpq_t t);

/* value = a + t (b - a), exactly. */
void		exg_q_lerp(mpq_t value, double a, double b, const mpq_t t);

#endif							/* EXG_DRILL_RATIONAL_H */
