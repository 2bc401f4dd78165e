/*
 * custom_join_outer.h — what ExactJoin does beyond handing out the pairs of
 * an inner join (custom_join_exec.c): outer joins (LEFT, RIGHT, FULL; the
 * rows of a kept side that match nothing come back with NULLs for the
 * other side's columns) and semi and anti joins whose ON clause has more
 * than the exact predicate. The other ON clauses decide what matches: a
 * pair that fails one is no match, as in PostgreSQL's own join nodes; the
 * plan's qual (an outer join's WHERE clauses) then filters every row
 * handed out, null-extended ones too.
 */
#ifndef EXACTGPU_CUSTOM_JOIN_OUTER_H
#define EXACTGPU_CUSTOM_JOIN_OUTER_H

#include "exactgpu.h"

#include "commands/explain.h"
#include "executor/executor.h"

#include "custom_join_common.h"

/* One side of the engine join (side 0 gives the clause's first argument). */
typedef struct ExactOuterSide
{
	const ExactJoinChild *child;
	MinimalTuple *tuples;		/* the rows read, NULL geometries among them */
	size_t		ntuples;
	const int64 *row_tuple;		/* engine row -> index into tuples */
} ExactOuterSide;

typedef struct ExactOuterJoin
{
	bool		active;			/* this join is ours to hand out */
	JoinType	jointype;
	int			outer;			/* which side the outer child gives */
	List	   *joinquals;		/* the other ON clauses (implicit AND) */
	ExprState  *joinqual;
	/* one run */
	const uint64_t *pairs;		/* (side 0 row << 32) | side 1 row */
	size_t		npairs;
	ExactOuterSide side[2];
	bool	   *matched[2];		/* per tuple of a kept side */
	int			phase;			/* 0 pairs, 1 and 2 the kept sides' unmatched rows */
	size_t		next;
} ExactOuterJoin;

/* From BeginCustomScan, once the children are started. */
void		exactgpu_outer_begin(ExactOuterJoin *oj, CustomScanState *node, JoinType jointype,
								 int outer);

/* Must the child (0 outer, 1 inner) keep its rows without geometry? */
bool		exactgpu_outer_keeps_nulls(JoinType jointype, int child);

/* A run's pairs (kept until the run ends) and rows, in cxt. */
void		exactgpu_outer_start(ExactOuterJoin *oj, MemoryContext cxt, const uint64_t *pairs,
								 size_t npairs, const ExactOuterSide side[2]);

/* The same run handed out again (a rescan that keeps it). */
void		exactgpu_outer_restart(ExactOuterJoin *oj);

/* The next row in the scan slot, or an empty slot at the end. */
TupleTableSlot *exactgpu_outer_next(ExactOuterJoin *oj, CustomScanState *node);

/* EXPLAIN: the other ON clauses. */
void		exactgpu_outer_explain(ExactOuterJoin *oj, CustomScanState *node, List *ancestors,
								   ExplainState *es);

#endif							/* EXACTGPU_CUSTOM_JOIN_OUTER_H */
