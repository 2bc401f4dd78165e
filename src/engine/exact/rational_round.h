/*
 * rational_round.h — a rational rounded once to the nearest double: what
 * every exact construction (intercept depths and points, composites,
 * crossings, sections) returns, computed in GMP and rounded here, once.
 */
#ifndef EXG_RATIONAL_ROUND_H
#define EXG_RATIONAL_ROUND_H

#include <gmp.h>

/*
 * The nearest double to q, ties to even (mpq_get_d truncates towards zero).
 * q must lie within the double range.
 */
double		exg_mpq_nearest_double(const mpq_t q);

#endif							/* EXG_RATIONAL_ROUND_H */
