/*
 * composite.h — length-weighted grades of assay intervals over an intercept.
 *
 * An assay interval [a, b] (depths along the hole) with grade g, cut by an
 * intercept [f, t], contributes exactly its inside part [max(a, f),
 * min(b, t)]: the sums of lengths and of length x grade are kept as exact
 * rationals of the input doubles, and the grade is their quotient rounded
 * once. The midpoint rule that mining packages use (an interval counts
 * wholly when its midpoint (a + b) / 2 is in [f, t), else not at all) is
 * kept beside it, exactly too, for comparison.
 *
 * Assay intervals of one hole should not overlap: an overlap counts the core
 * it covers twice. The inside parts are kept, so that the result says how
 * much of the intercept is covered once or more (sampled), not at all
 * (unsampled) and more than once (overlap), and names a pair that overlaps.
 */
#ifndef EXG_COMPOSITE_H
#define EXG_COMPOSITE_H

#include <gmp.h>
#include <stdbool.h>

#include "rational_round.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct exg_composite
{
	double		from;
	double		to;
	mpq_t		length;			/* inside parts, summed */
	mpq_t		metal;			/* inside part x grade, summed */
	mpq_t		mid_length;		/* midpoint rule: whole intervals counted */
	mpq_t		mid_metal;
	mpq_t		tmp[3];
	unsigned long intervals;	/* intervals with a part of positive length inside */
	double	   *parts;			/* 4 per such interval: a, b, inside lo, hi (malloc'ed) */
	size_t		nparts;
	size_t		cap;
	bool		nomem;			/* a part could not be kept: no overlap report */
} exg_composite;

/* Start a composite over the intercept [from, to] (from <= to). */
void		exg_composite_init(exg_composite *c, double from, double to);
void		exg_composite_clear(exg_composite *c);

/* Add one assay interval [a, b] (a <= b) of grade g. */
void		exg_composite_add(exg_composite *c, double a, double b, double g);

/* The results, each rounded once to the nearest double. */
typedef struct exg_composite_result
{
	double		sampled;		/* length of the intercept covered by assays (once or more) */
	double		unsampled;		/* length of the intercept covered by none */
	double		overlap;		/* inside parts' total length less sampled: core counted
								 * more than once (0 when no intervals overlap) */
	bool		overlaps;		/* two inside parts overlap with positive length */
	double		first[2];		/* then two such intervals (a, b), the earliest pair */
	double		second[2];
	double		grade;			/* metal / sampled; NaN when nothing sampled */
	double		mid_length;		/* midpoint rule: length of intervals counted */
	double		mid_grade;		/* NaN when none counted */
	unsigned long intervals;
} exg_composite_result;

/* false when memory ran out keeping the parts (r is then not filled). */
bool		exg_composite_result_of(exg_composite *c, exg_composite_result *r);


#ifdef __cplusplus
}
#endif

#endif							/* EXG_COMPOSITE_H */
