/*
 * custom_join_outer.c — ExactJoin's outer joins, and its semi and anti
 * joins with more ON clauses than the exact predicate (custom_join_outer.h).
 *
 * The engine gives every pair the predicate holds on; the other ON clauses
 * are evaluated on each such pair as it is formed, and a pair that passes
 * them marks both its rows matched. An outer join hands out the passing
 * pairs as they come (a LIMIT above stops early), then the kept sides' rows
 * that no pair matched, null-extended: as PostgreSQL's hash join hands out
 * its unmatched inner rows after its outer rows, and for the same reason (a
 * row is unmatched only once every pair has been seen). A row whose
 * geometry is NULL is read all the same and matches nothing, as the strict
 * predicate answers NULL for it.
 */
#include "exactgpu.h"

#include "miscadmin.h"
#include "nodes/makefuncs.h"
#include "optimizer/optimizer.h"

#include "custom_join_outer.h"

/* Does the join keep side k's unmatched rows? */
static bool
kept(const ExactOuterJoin *oj, int k)
{
	switch (oj->jointype)
	{
		case JOIN_LEFT:
		case JOIN_SEMI:
		case JOIN_ANTI:
			return k == oj->outer;
		case JOIN_RIGHT:
			return k != oj->outer;
		case JOIN_FULL:
			return true;
		default:
			return false;
	}
}

void
exactgpu_outer_begin(ExactOuterJoin *oj, CustomScanState *node, JoinType jointype, int outer)
{
	CustomScan *cscan = (CustomScan *) node->ss.ps.plan;

	memset(oj, 0, sizeof(*oj));
	oj->jointype = jointype;
	oj->outer = outer;
	/* the ON clauses beside the predicate, as one expression (TRUE when none) */
	oj->joinquals = make_ands_implicit((Expr *) lsecond(cscan->custom_exprs));
	oj->joinqual = ExecInitQual(oj->joinquals, &node->ss.ps);
	/* a semi or anti join on the predicate alone is custom_join_exec.c's */
	oj->active = jointype == JOIN_LEFT || jointype == JOIN_RIGHT || jointype == JOIN_FULL ||
		((jointype == JOIN_SEMI || jointype == JOIN_ANTI) && oj->joinquals != NIL);
}

bool
exactgpu_outer_keeps_nulls(JoinType jointype, int child)
{
	switch (jointype)
	{
		case JOIN_LEFT:
		case JOIN_SEMI:
		case JOIN_ANTI:
			return child == 0;
		case JOIN_RIGHT:
			return child == 1;
		case JOIN_FULL:
			return true;
		default:
			return false;
	}
}

void
exactgpu_outer_start(ExactOuterJoin *oj, MemoryContext cxt, const uint64_t *pairs,
					 size_t npairs, const ExactOuterSide side[2])
{
	oj->pairs = pairs;
	oj->npairs = npairs;
	for (int k = 0; k < 2; k++)
	{
		oj->side[k] = side[k];
		oj->matched[k] = MemoryContextAllocExtended(cxt, Max(side[k].ntuples, 1) * sizeof(bool),
													MCXT_ALLOC_HUGE | MCXT_ALLOC_ZERO);
	}
	oj->phase = 0;
	oj->next = 0;
}

void
exactgpu_outer_restart(ExactOuterJoin *oj)
{
	for (int k = 0; k < 2; k++)
		if (oj->matched[k])
			memset(oj->matched[k], 0, Max(oj->side[k].ntuples, 1) * sizeof(bool));
	oj->phase = 0;
	oj->next = 0;
}

/* The scan tuple of two stored rows (either NULL: that side's columns NULL). */
static TupleTableSlot *
form_row(ExactOuterJoin *oj, CustomScanState *node, MinimalTuple t0, MinimalTuple t1)
{
	TupleTableSlot *scan = node->ss.ss_ScanTupleSlot;

	ExecClearTuple(scan);
	exactgpu_join_show_row(node, oj->side[0].child, t0);
	exactgpu_join_show_row(node, oj->side[1].child, t1);
	return ExecStoreVirtualTuple(scan);
}

/*
 * The next pair that passes the other ON clauses, marked matched; NULL at
 * the end of the pairs.
 */
static TupleTableSlot *
next_match(ExactOuterJoin *oj, CustomScanState *node)
{
	ExprContext *econtext = node->ss.ps.ps_ExprContext;

	while (oj->next < oj->npairs)
	{
		uint64_t	p = oj->pairs[oj->next++];
		int64		t0 = oj->side[0].row_tuple[p >> 32];
		int64		t1 = oj->side[1].row_tuple[p & 0xffffffffu];
		TupleTableSlot *slot;

		if ((oj->next & 4095) == 0)
			CHECK_FOR_INTERRUPTS();
		ResetExprContext(econtext);
		slot = form_row(oj, node, oj->side[0].tuples[t0], oj->side[1].tuples[t1]);
		econtext->ecxt_scantuple = slot;
		if (!ExecQual(oj->joinqual, econtext))
			continue;
		oj->matched[0][t0] = true;
		oj->matched[1][t1] = true;
		return slot;
	}
	return NULL;
}

TupleTableSlot *
exactgpu_outer_next(ExactOuterJoin *oj, CustomScanState *node)
{
	bool		emit_pairs = oj->jointype != JOIN_SEMI && oj->jointype != JOIN_ANTI;

	if (oj->phase == 0)
	{
		TupleTableSlot *slot;

		while ((slot = next_match(oj, node)) != NULL)
			if (emit_pairs)
				return slot;
		oj->phase = 1;
		oj->next = 0;
	}
	/* phase 1: the outer child's side; phase 2: the inner child's */
	while (oj->phase <= 2)
	{
		int			k = oj->phase == 1 ? oj->outer : 1 - oj->outer;
		ExactOuterSide *s = &oj->side[k];
		/* a semi join hands out the matched outer rows, the others the unmatched */
		bool		want = oj->jointype == JOIN_SEMI;

		if (kept(oj, k))
			while (oj->next < s->ntuples)
			{
				size_t		t = oj->next++;

				if ((oj->next & 4095) == 0)
					CHECK_FOR_INTERRUPTS();
				if (oj->matched[k][t] != want)
					continue;
				return k == 0 ? form_row(oj, node, s->tuples[t], NULL)
					: form_row(oj, node, NULL, s->tuples[t]);
			}
		oj->phase++;
		oj->next = 0;
	}
	return ExecClearTuple(node->ss.ss_ScanTupleSlot);
}

void
exactgpu_outer_explain(ExactOuterJoin *oj, CustomScanState *node, List *ancestors,
					   ExplainState *es)
{
	if (oj->joinquals != NIL)
		exactgpu_join_explain_clause(node, ancestors, es, "Join Filter",
									 (Node *) make_ands_explicit(oj->joinquals));
}
