/*
 * simplex.h — the vocabulary of the closed-set predicates: tri-state signs
 * and results, and the kinds a (possibly degenerate) simplex reduces to.
 */
#ifndef EXG_SIMPLEX_H
#define EXG_SIMPLEX_H

/* A sign is -1, 0, 1, or unknown (an interval straddled zero). */
#define EXG_SIGN_UNKNOWN 2

#define EXG_RESULT_DISJOINT 0
#define EXG_RESULT_INTERSECTS 1
#define EXG_RESULT_UNKNOWN 2

/* Kinds of a possibly degenerate simplex. */
#define EXG_SIMPLEX_POINT 0
#define EXG_SIMPLEX_SEGMENT 1
#define EXG_SIMPLEX_TRIANGLE 2

#endif							/* EXG_SIMPLEX_H */
