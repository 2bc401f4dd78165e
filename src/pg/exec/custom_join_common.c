/*
 * custom_join_common.c — the planner and executor plumbing ExactJoin and
 * ExactBoxJoin share (custom_join_common.h): which joins may be batched,
 * the path's costs and flags, the plan node, the children, the scan tuple
 * made of an outer row beside an inner row, rescans, and EXPLAIN's common
 * lines. Each node keeps its clause, its engine call and its counts.
 */
#include "exactgpu.h"

#include "commands/explain.h"
#include "executor/executor.h"
#include "executor/tuptable.h"
#include "nodes/makefuncs.h"
#include "nodes/nodeFuncs.h"
#include "optimizer/cost.h"
#include "optimizer/optimizer.h"
#include "optimizer/pathnode.h"
#include "utils/ruleutils.h"

#include "custom_join.h"
#include "custom_join_common.h"
#include "exactgpu_engine.h"
#include "join_options.h"

/*
 * Only in queries that lock and change no rows but by INSERT: an UPDATE's,
 * DELETE's, MERGE's or FOR UPDATE's recheck of a concurrently changed row
 * (EvalPlanQual) would need this node to redo its join for one row. An
 * INSERT's source rows are never rechecked (not even ON CONFLICT DO UPDATE,
 * which locks and rechecks the existing row only), so INSERT ... SELECT
 * keeps the batch join.
 */
static bool
plain_select(PlannerInfo *root)
{
	for (PlannerInfo *r = root; r != NULL; r = r->parent_root)
		if ((r->parse->commandType != CMD_SELECT && r->parse->commandType != CMD_INSERT) ||
			r->parse->rowMarks != NIL || r->parse->hasModifyingCTE)
			return false;
	return true;
}

bool
exactgpu_join_may_batch(PlannerInfo *root, RelOptInfo *joinrel, JoinType jointype,
						Path *outer_path, Path *inner_path)
{
	if (!exactgpu_enable_batch_join)
		return false;
	if (jointype != JOIN_INNER && jointype != JOIN_SEMI && jointype != JOIN_ANTI &&
		jointype != JOIN_LEFT && jointype != JOIN_RIGHT && jointype != JOIN_FULL)
		return false;
	if (!plain_select(root))
		return false;
	/* the node takes no parameters: it reads both sides whole */
	if (outer_path == NULL || inner_path == NULL ||
		PATH_REQ_OUTER(outer_path) != NULL || PATH_REQ_OUTER(inner_path) != NULL ||
		!bms_is_empty(joinrel->lateral_relids))
		return false;
	return true;
}

/*
 * exactgpu.device = auto: the GPU when the join is not small and there may
 * be one. Planning never opens the GPU driver (exg_gpu_present_hint): that
 * costs a fresh backend a few hundred ms, also for plans that stay on the
 * CPU or never run.
 */
int
exactgpu_join_device(bool small)
{
	int			device = exactgpu_device;

	if (device == EXG_DEVICE_AUTO)
		device = !small && exg_gpu_present_hint() ? EXG_DEVICE_GPU : EXG_DEVICE_CPU;
	return device;
}

/*
 * The path's costs are the caller's startup (both children whole and the
 * join), the other clauses on each joined pair, and a tuple's cost per row.
 */
void
exactgpu_join_add_path(PlannerInfo *root, RelOptInfo *joinrel, JoinType jointype,
					   Path *outer_path, Path *inner_path, Expr *clause,
					   List *others, List *joinquals, List *ints,
					   const CustomPathMethods *methods, double startup, double pairs)
{
	CustomPath *cpath;
	QualCost	qcost,
				jqcost;

	cost_qual_eval(&qcost, others, root);
	cost_qual_eval(&jqcost, joinquals, root);

	cpath = makeNode(CustomPath);
	cpath->path.pathtype = T_CustomScan;
	cpath->path.parent = joinrel;
	cpath->path.pathtarget = joinrel->reltarget;
	cpath->path.param_info = NULL;
	/*
	 * Not parallel-aware, and kept out of parallel workers (parallel
	 * restricted): on a parallel hash or nested loop join's inner side every
	 * process would run the whole batch join, each with a thread pool sized
	 * for the machine and its own GPU context and uploads. It runs once, in
	 * the leader; its children may still be Gathers.
	 */
	cpath->path.parallel_aware = false;
	cpath->path.parallel_safe = false;
	cpath->path.parallel_workers = 0;
	cpath->path.rows = joinrel->rows;
	cpath->path.startup_cost = startup + qcost.startup;
	/* an inner join's quals, an outer join's ON clauses, run on each pair;
	 * an outer join's WHERE clauses on each row it hands out */
	cpath->path.total_cost = cpath->path.startup_cost + jqcost.startup +
		pairs * jqcost.per_tuple +
		(jointype == JOIN_INNER ? pairs : joinrel->rows) * qcost.per_tuple +
		joinrel->rows * cpu_tuple_cost;
	cpath->path.pathkeys = NIL;
	/* the scan tuple is projected to the join's target list (ps_ProjInfo) */
	cpath->flags = CUSTOMPATH_SUPPORT_PROJECTION;
	cpath->custom_paths = list_make2(outer_path, inner_path);
	cpath->custom_private = list_make4(clause, others, ints, joinquals);
	cpath->methods = methods;
	add_path(joinrel, &cpath->path);
}

/* The scan tuple: every column of the outer child, then of the inner child. */
static List *
scan_tlist_of(List *outer_tlist, List *inner_tlist)
{
	List	   *tlist = NIL;
	AttrNumber	resno = 1;
	ListCell   *lc;

	foreach(lc, list_concat_copy(outer_tlist, inner_tlist))
	{
		TargetEntry *tle = lfirst_node(TargetEntry, lc);

		tlist = lappend(tlist, makeTargetEntry(copyObject(tle->expr), resno++, NULL, false));
	}
	return tlist;
}

/*
 * The path's custom_private is (clause, other clauses, integers, an outer
 * join's other ON clauses); the plan keeps the clause, the ON clauses as one
 * expression (TRUE when none) and then the other clauses in custom_exprs
 * (so setrefs.c makes their Vars INDEX_VAR references) and the integers as
 * Integer nodes.
 * The other clauses are not the plan's qual: EXPLAIN would print that as a
 * scan's Filter, without the relations' names (show_scan_qual prefixes only
 * under VERBOSE); the node checks them as its qual all the same
 * (exactgpu_join_init_filter) and shows them as a join's filter.
 */
Plan *
exactgpu_join_plan_node(CustomPath *best_path, List *tlist, List *clauses,
						List *custom_plans, const CustomScanMethods *methods)
{
	CustomScan *cscan = makeNode(CustomScan);
	Plan	   *outer = linitial(custom_plans);
	Plan	   *inner = lsecond(custom_plans);
	Expr	   *clause = linitial(best_path->custom_private);
	List	   *others = lsecond(best_path->custom_private);
	List	   *ints = lthird(best_path->custom_private);
	List	   *priv = NIL;
	ListCell   *lc;

	/* a join rel has no restriction clauses of its own; ours ride in the path */
	Assert(clauses == NIL);
	foreach(lc, ints)
		priv = lappend(priv, makeInteger(lfirst_int(lc)));
	cscan->scan.plan.targetlist = tlist;
	cscan->scan.plan.qual = NIL;
	cscan->scan.scanrelid = 0;
	cscan->flags = best_path->flags;
	cscan->custom_plans = custom_plans;
	/* an outer join's other ON clauses (implicit AND, custom_join_outer.c),
	 * then the other clauses (the node's filter) */
	cscan->custom_exprs = lcons(copyObject(clause),
								lcons(make_ands_explicit(copyObject(lfourth(best_path->custom_private))),
									  list_copy(others)));
	cscan->custom_private = priv;
	cscan->custom_scan_tlist = scan_tlist_of(outer->targetlist, inner->targetlist);
	cscan->methods = methods;
	return &cscan->scan.plan;
}

/* The node's state: size bytes, zeroed, beginning with a CustomScanState. */
Node *
exactgpu_join_create_state(CustomScan *cscan, Size size, const CustomExecMethods *methods)
{
	CustomScanState *css = palloc0(size);

	NodeSetTag(css, T_CustomScanState);
	css->flags = cscan->flags;
	css->methods = methods;
	return (Node *) css;
}

static bool
exec_params_walker(Node *node, Bitmapset **ids)
{
	if (node == NULL)
		return false;
	if (IsA(node, Param) && ((Param *) node)->paramkind == PARAM_EXEC)
		*ids = bms_add_member(*ids, ((Param *) node)->paramid);
	return expression_tree_walker(node, exec_params_walker, ids);
}

/* The PARAM_EXEC ids an expression reads (what a rescan must compare). */
Bitmapset *
exactgpu_join_exec_params(Node *expr)
{
	Bitmapset  *ids = NULL;

	exec_params_walker(expr, &ids);
	return ids;
}

/*
 * Start child c (0 outer, 1 inner) of the plan: its columns follow *first
 * in the scan tuple, and arg (the clause's argument from its side) is
 * evaluated on the scan tuple.
 */
void
exactgpu_join_init_child(CustomScanState *node, ExactJoinChild *child, int c, Expr *arg,
						 EState *estate, int eflags, int *first)
{
	CustomScan *cscan = (CustomScan *) node->ss.ps.plan;
	TupleDesc	desc;

	child->ps = ExecInitNode(list_nth(cscan->custom_plans, c), estate, eflags);
	node->custom_ps = lappend(node->custom_ps, child->ps);
	desc = ExecGetResultType(child->ps);
	child->first = *first;
	child->natts = desc->natts;
	*first += desc->natts;
	child->slot = ExecInitExtraTupleSlot(estate, desc, &TTSOpsMinimalTuple);
	child->geom = ExecInitExpr(arg, &node->ss.ps);
}

/* Put a stored row of a child into its columns of the scan slot (NULL: nulls). */
void
exactgpu_join_show_row(CustomScanState *node, const ExactJoinChild *child, MinimalTuple tup)
{
	TupleTableSlot *scan = node->ss.ss_ScanTupleSlot;

	if (tup == NULL)
	{
		memset(scan->tts_isnull + child->first, true, child->natts * sizeof(bool));
		return;
	}
	ExecStoreMinimalTuple(tup, child->slot, false);
	slot_getallattrs(child->slot);
	memcpy(scan->tts_values + child->first, child->slot->tts_values, child->natts * sizeof(Datum));
	memcpy(scan->tts_isnull + child->first, child->slot->tts_isnull, child->natts * sizeof(bool));
}

/*
 * The clause's argument of a child's row just read (slot): it sees this
 * child's columns, the other child's are NULL (the caller showed them so).
 */
Datum
exactgpu_join_eval_arg(CustomScanState *node, const ExactJoinChild *child,
					   TupleTableSlot *slot, bool *isnull)
{
	ExprContext *econtext = node->ss.ps.ps_ExprContext;
	TupleTableSlot *scan = node->ss.ss_ScanTupleSlot;

	ExecClearTuple(scan);
	slot_getallattrs(slot);
	memcpy(scan->tts_values + child->first, slot->tts_values, child->natts * sizeof(Datum));
	memcpy(scan->tts_isnull + child->first, slot->tts_isnull, child->natts * sizeof(bool));
	ExecStoreVirtualTuple(scan);
	econtext->ecxt_scantuple = scan;
	return ExecEvalExprSwitchContext(child->geom, econtext, isnull);
}

/* No row locks are taken through these nodes (the planner refuses those queries). */
static bool
recheck_row(ScanState *ss, TupleTableSlot *slot)
{
	return true;
}

/* ExecCustomScan: ExecScan over next_row, with the qual and projection. */
TupleTableSlot *
exactgpu_join_scan(CustomScanState *node, ExecScanAccessMtd next_row)
{
	return ExecScan(&node->ss, next_row, recheck_row);
}

/*
 * As a hash join keeps its table: when no parameter of a child or of the
 * clause's arguments (clause_params) changed, the joined rows can be handed
 * out again (returns true); otherwise the caller drops its run and calls
 * exactgpu_join_rescan_children. Parameters of the plan's qual and target
 * list alone leave the pairs as they are.
 */
bool
exactgpu_join_rescan_keeps(CustomScanState *node, Bitmapset *clause_params, bool joined)
{
	bool		changed = bms_overlap(node->ss.ps.chgParam, clause_params);
	ListCell   *lc;

	foreach(lc, node->custom_ps)
	{
		PlanState  *child = lfirst(lc);

		if (node->ss.ps.chgParam != NULL)
			UpdateChangedParamSet(child, node->ss.ps.chgParam);
		changed |= child->chgParam != NULL;
	}
	return joined && !changed;
}

/* Both children read anew: the one whose parameters changed rescans itself on its next call. */
void
exactgpu_join_rescan_children(CustomScanState *node)
{
	ListCell   *lc;

	foreach(lc, node->custom_ps)
	{
		PlanState  *child = lfirst(lc);

		if (child->chgParam == NULL)
			ExecReScan(child);
	}
}

void
exactgpu_join_end_children(CustomScanState *node)
{
	ListCell   *lc;

	foreach(lc, node->custom_ps)
		ExecEndNode((PlanState *) lfirst(lc));
}

List *
exactgpu_join_filter_clauses(CustomScanState *node)
{
	CustomScan *cscan = (CustomScan *) node->ss.ps.plan;

	/* after the clause and the ON clauses (exactgpu_join_plan_node) */
	return list_copy_tail(cscan->custom_exprs, 2);
}

void
exactgpu_join_init_filter(CustomScanState *node)
{
	List	   *filter = exactgpu_join_filter_clauses(node);

	/* ExecScan checks ps.qual on each joined row, and counts what it removes */
	if (filter != NIL)
		node->ss.ps.qual = ExecInitQual(filter, &node->ss.ps);
}

/*
 * An expression of the node (the join clause, an outer join's ON clauses),
 * deparsed as EXPLAIN shows a join's (relations named).
 */
void
exactgpu_join_explain_clause(CustomScanState *node, List *ancestors, ExplainState *es,
							 const char *label, Node *clause)
{
	List	   *dpctx = set_deparse_context_plan(es->deparse_cxt, node->ss.ps.plan, ancestors);
	bool		useprefix = list_length(es->rtable) > 1 || es->verbose;

	ExplainPropertyText(label, deparse_expression(clause, dpctx, useprefix, false), es);
}

/*
 * The node's filter (exactgpu_join_init_filter) with the rows it removed
 * under ANALYZE, labelled as PostgreSQL's joins label it: an inner (semi,
 * anti) join's other clauses are its Join Filter; an outer join's are
 * WHERE clauses, checked on the null-extended rows too: its Filter.
 */
void
exactgpu_join_explain_filter(CustomScanState *node, List *ancestors, ExplainState *es,
							 JoinType jointype)
{
	List	   *filter = exactgpu_join_filter_clauses(node);
	Instrumentation *instr = node->ss.ps.instrument;
	bool		outer = jointype == JOIN_LEFT || jointype == JOIN_RIGHT || jointype == JOIN_FULL;

	if (filter == NIL)
		return;
	exactgpu_join_explain_clause(node, ancestors, es, outer ? "Filter" : "Join Filter",
								 (Node *) make_ands_explicit(filter));
	/* as explain.c's show_instrumentation_count */
	if (es->analyze && instr != NULL &&
		(instr->nfiltered1 > 0 || es->format != EXPLAIN_FORMAT_TEXT))
		ExplainPropertyFloat(outer ? "Rows Removed by Filter" : "Rows Removed by Join Filter",
							 NULL, instr->nloops > 0 ? instr->nfiltered1 / instr->nloops : 0, 0, es);
}

void
exactgpu_join_explain_kind(JoinType jointype, int device, ExplainState *es)
{
	if (jointype != JOIN_INNER)
		ExplainPropertyText("Join Type",
							jointype == JOIN_SEMI ? "Semi" : jointype == JOIN_ANTI ? "Anti" :
							jointype == JOIN_LEFT ? "Left" : jointype == JOIN_RIGHT ? "Right" :
							"Full", es);
	ExplainPropertyText("Device", device == EXG_DEVICE_GPU ? "GPU" : "CPU", es);
}

/* EXPLAIN ANALYZE's first lines; false when there is nothing to count (no analyze, no run). */
bool
exactgpu_join_explain_runs(int runs, const char *device_used, ExplainState *es)
{
	if (!es->analyze || runs == 0)
		return false;
	ExplainPropertyText("Device Used", device_used, es);
	if (runs > 1)
		ExplainPropertyInteger("Batch Joins", NULL, runs, es);
	return true;
}

/* The times both nodes show first (es->timing), summed over runs. */
void
exactgpu_join_explain_times(double read_ms, double join_ms, const exg_join_stats *s,
							ExplainState *es)
{
	ExplainPropertyFloat("Read Time", "ms", read_ms, 3, es);
	ExplainPropertyFloat("Join Time", "ms", join_ms, 3, es);
	/* only where the GPU was set up in this query (a backend's first GPU
	 * join, or one that grew the pinned buffers) */
	if (s->gpu_setup_ns > 0)
		ExplainPropertyFloat("GPU Setup Time", "ms", s->gpu_setup_ns / 1e6, 3, es);
	ExplainPropertyFloat("Upload Time", "ms", s->phase_ns[EXG_PHASE_UPLOAD] / 1e6, 3, es);
	ExplainPropertyFloat("Prepare Time", "ms",
						 (s->phase_ns[EXG_PHASE_CLASSIFY] + s->phase_ns[EXG_PHASE_GRID]) / 1e6, 3, es);
}
