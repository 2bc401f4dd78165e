/*
 * custom_join_common.h — what the two custom join nodes, ExactJoin
 * (custom_join.c, custom_join_exec.c) and ExactBoxJoin (custom_join_box.c,
 * custom_join_box_exec.c), do alike. Both read an outer and an inner child
 * whole, in the leader, and hand out a scan tuple that is an outer row
 * beside an inner row; only the clause, the engine call and what EXPLAIN
 * counts differ, so the planner and executor plumbing lives here once.
 */
#ifndef EXACTGPU_CUSTOM_JOIN_COMMON_H
#define EXACTGPU_CUSTOM_JOIN_COMMON_H

#include "exactgpu.h"

#include "commands/explain.h"
#include "executor/executor.h"
#include "nodes/extensible.h"
#include "nodes/pathnodes.h"

#include "exactgpu_engine.h"

/* Planner half */

/* May a join of these paths be batched at all (whatever its clause)? */
bool		exactgpu_join_may_batch(PlannerInfo *root, RelOptInfo *joinrel, JoinType jointype,
									Path *outer_path, Path *inner_path);

/* The device to plan for under exactgpu.device: the CPU for small joins
 * (and where no GPU may be, without asking the driver). */
int			exactgpu_join_device(bool small);

/* Offer the batch join of outer_path and inner_path on clause (others: the
 * join's other clauses, an outer join's WHERE clauses; joinquals: an outer
 * join's other ON clauses, which decide what matches; ints: the node's
 * integers) to joinrel. */
void		exactgpu_join_add_path(PlannerInfo *root, RelOptInfo *joinrel, JoinType jointype,
								   Path *outer_path, Path *inner_path, Expr *clause,
								   List *others, List *joinquals, List *ints,
								   const CustomPathMethods *methods, double startup,
								   double pairs);

/* PlanCustomPath of both nodes: the CustomScan of a path made as above. */
Plan	   *exactgpu_join_plan_node(CustomPath *best_path, List *tlist, List *clauses,
									List *custom_plans, const CustomScanMethods *methods);

/* Executor half */

/* One child as the scan tuple sees it. */
typedef struct ExactJoinChild
{
	PlanState  *ps;
	int			first;			/* its first column in the scan tuple */
	int			natts;
	TupleTableSlot *slot;		/* to deform a stored row */
	ExprState  *geom;			/* the clause's argument read from this child */
} ExactJoinChild;

Node	   *exactgpu_join_create_state(CustomScan *cscan, Size size,
									   const CustomExecMethods *methods);
Bitmapset  *exactgpu_join_exec_params(Node *expr);
void		exactgpu_join_init_child(CustomScanState *node, ExactJoinChild *child, int c,
									 Expr *arg, EState *estate, int eflags, int *first);
void		exactgpu_join_show_row(CustomScanState *node, const ExactJoinChild *child,
								   MinimalTuple tup);
Datum		exactgpu_join_eval_arg(CustomScanState *node, const ExactJoinChild *child,
								   TupleTableSlot *slot, bool *isnull);
TupleTableSlot *exactgpu_join_scan(CustomScanState *node, ExecScanAccessMtd next_row);
bool		exactgpu_join_rescan_keeps(CustomScanState *node, Bitmapset *clause_params,
									   bool joined);
void		exactgpu_join_rescan_children(CustomScanState *node);
void		exactgpu_join_end_children(CustomScanState *node);

/* The join's other clauses (after its clause in custom_exprs), checked on each joined row. */
List	   *exactgpu_join_filter_clauses(CustomScanState *node);

/* BeginCustomScan: those clauses become the node's qual (ExecScan checks them). */
void		exactgpu_join_init_filter(CustomScanState *node);

/* EXPLAIN: the clause and filter, the join type and planned device, the runs, the times */
void		exactgpu_join_explain_clause(CustomScanState *node, List *ancestors,
										 ExplainState *es, const char *label, Node *clause);
void		exactgpu_join_explain_filter(CustomScanState *node, List *ancestors,
										 ExplainState *es, JoinType jointype);
void		exactgpu_join_explain_kind(JoinType jointype, int device, ExplainState *es);
bool		exactgpu_join_explain_runs(int runs, const char *device_used, ExplainState *es);
void		exactgpu_join_explain_times(double read_ms, double join_ms,
										const exg_join_stats *s, ExplainState *es);

#endif							/* EXACTGPU_CUSTOM_JOIN_COMMON_H */
