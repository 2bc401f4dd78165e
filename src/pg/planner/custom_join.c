/*
 * custom_join.c — the planner half of the ExactJoin custom join: which joins
 * it takes, what it costs, and the plan node it becomes.
 *
 * A join whose clause is ST_ExactIntersects3D(a, b), ST_ExactIntersects(a, b)
 * or ST_ExactIntersectsSolid3D(a, b), a from one side and b from the other, is offered a CustomPath beside
 * PostgreSQL's own nested loop (+ GiST) paths; add_path keeps whichever is
 * cheaper. The children are the sides' cheapest plans, so their filters,
 * key types and columns are whatever the query has.
 */
#include "exactgpu.h"

#include <math.h>

#include "access/heaptoast.h"
#include "access/htup_details.h"
#include "catalog/pg_language.h"
#include "catalog/pg_proc.h"
#include "nodes/makefuncs.h"
#include "nodes/nodeFuncs.h"
#include "optimizer/clauses.h"
#include "optimizer/cost.h"
#include "optimizer/optimizer.h"
#include "optimizer/pathnode.h"
#include "optimizer/paths.h"
#include "optimizer/planmain.h"
#include "optimizer/plancat.h"
#include "optimizer/restrictinfo.h"
#include "parser/parsetree.h"
#include "utils/builtins.h"
#include "utils/guc.h"
#include "utils/lsyscache.h"
#include "utils/syscache.h"

#include "custom_join.h"
#include "custom_join_box.h"
#include "custom_join_common.h"
#include "foreign_join.h"
#include "join_cost.h"
#include "join_rows.h"
#include "exactgpu_engine.h"
#include "join_options.h"

static set_join_pathlist_hook_type prev_join_pathlist_hook = NULL;

static CustomPathMethods exact_join_path_methods;

/*
 * If clause is one of our predicates with one argument from each side,
 * return which and whether its first argument is the inner side's.
 */
static ExactJoinPredicate
match_exact_clause(PlannerInfo *root, Expr *clause, Relids outer, Relids inner, bool *swapped)
{
	FuncExpr   *f;
	Relids		r0,
				r1;
	ExactJoinPredicate pred;

	if (!IsA(clause, FuncExpr))
		return EXACT_PRED_NONE;
	f = (FuncExpr *) clause;
	if (list_length(f->args) != 2 || (pred = exactgpu_exact_predicate_of(f->funcid)) == EXACT_PRED_NONE)
		return EXACT_PRED_NONE;
	/* each argument is read once per row, not once per pair */
	if (contain_volatile_functions((Node *) f->args) || contain_subplans((Node *) f->args))
		return EXACT_PRED_NONE;
	r0 = pull_varnos(root, linitial(f->args));
	r1 = pull_varnos(root, lsecond(f->args));
	if (bms_is_empty(r0) || bms_is_empty(r1))
		return EXACT_PRED_NONE;
	if (bms_is_subset(r0, outer) && bms_is_subset(r1, inner))
		*swapped = false;
	else if (bms_is_subset(r0, inner) && bms_is_subset(r1, outer))
		*swapped = true;
	else
		return EXACT_PRED_NONE;
	return pred;
}

static void
exact_join_pathlist(PlannerInfo *root, RelOptInfo *joinrel, RelOptInfo *outerrel,
					RelOptInfo *innerrel, JoinType jointype, JoinPathExtraData *extra)
{
	Path	   *outer_path = outerrel->cheapest_total_path;
	Path	   *inner_path = innerrel->cheapest_total_path;
	Expr	   *clause = NULL;
	List	   *others = NIL;
	List	   *joinquals = NIL;
	bool		swapped = false;
	ExactJoinPredicate pred = EXACT_PRED_NONE;
	ListCell   *lc;
	double		rows[2],
				width[2],
				resident[2],
				kept[2],
				pairs,
				startup;
	int			device;
	bool		outer_join = jointype == JOIN_LEFT || jointype == JOIN_RIGHT ||
		jointype == JOIN_FULL;

	if (prev_join_pathlist_hook)
		prev_join_pathlist_hook(root, joinrel, outerrel, innerrel, jointype, extra);
	/* first the core's paths priced for what they re-read, then ours beside them */
	exactgpu_nestloop_cost(root, joinrel, outerrel, innerrel, jointype, extra);
	exactgpu_box_join_pathlist(root, joinrel, outerrel, innerrel, jointype, extra);
	if (exactgpu_join_leave_to_servers(root, joinrel, outerrel, innerrel, jointype, extra))
		return;					/* the servers join it (foreign_join.c) */
	if (!exactgpu_join_may_batch(root, joinrel, jointype, outer_path, inner_path))
		return;

	foreach(lc, extra->restrictlist)
	{
		RestrictInfo *ri = lfirst_node(RestrictInfo, lc);
		/* an outer join's WHERE clauses filter its null-extended rows too */
		bool		filter = outer_join && RINFO_IS_PUSHED_DOWN(ri, joinrel->relids);

		if (pred == EXACT_PRED_NONE && !ri->pseudoconstant && !filter &&
			(pred = match_exact_clause(root, ri->clause, outerrel->relids, innerrel->relids,
									   &swapped)) != EXACT_PRED_NONE)
			clause = ri->clause;
		else if (jointype == JOIN_INNER || filter)
			others = lappend(others, ri->clause);
		else
			joinquals = lappend(joinquals, ri->clause);
	}
	if (pred == EXACT_PRED_NONE)
		return;
	/* cost: both children whole, then the batch join of their rows */
	rows[0] = outer_path->rows;
	rows[1] = inner_path->rows;
	width[0] = exactgpu_geometry_width(root, (Node *) (swapped ? lsecond(((FuncExpr *) clause)->args)
													   : linitial(((FuncExpr *) clause)->args)));
	width[1] = exactgpu_geometry_width(root, (Node *) (swapped ? linitial(((FuncExpr *) clause)->args)
													   : lsecond(((FuncExpr *) clause)->args)));
	/* the clause's selectivity is that of the box overlap (support.c) */
	pairs = clamp_row_est(outer_path->rows * inner_path->rows *
						  clause_selectivity(root, (Node *) clause, 0, JOIN_INNER, extra->sjinfo));
	/* what the store keeps: sides flattened (the batch join's), bodies
	 * prepared (the probe's) */
	for (int k = 0; k < 2; k++)
	{
		Node	   *arg = (Node *) list_nth(((FuncExpr *) clause)->args, k == 0 ? swapped : !swapped);

		resident[k] = exactgpu_resident_share(root, arg, true);
		kept[k] = exactgpu_resident_share(root, arg, false);
	}
	startup = outer_path->total_cost + inner_path->total_cost +
		exactgpu_batch_join_cost(pred, rows, width, resident, kept, pairs, &device);
	exactgpu_join_add_path(root, joinrel, jointype, outer_path, inner_path, clause, others,
						   joinquals, list_make4_int(pred, swapped, device, jointype),
						   &exact_join_path_methods, startup, pairs);
}

static Plan *
exact_join_plan(PlannerInfo *root, RelOptInfo *rel, CustomPath *best_path, List *tlist,
				List *clauses, List *custom_plans)
{
	return exactgpu_join_plan_node(best_path, tlist, clauses, custom_plans,
								   &exactgpu_join_scan_methods);
}

void
exactgpu_custom_join_init(void)
{
	DefineCustomBoolVariable("exactgpu.enable_batch_join",
							 "Lets the planner run joins on ST_ExactIntersects3D, ST_ExactIntersects or ST_ExactIntersectsSolid3D (Custom Scan ExactJoin) and on PostGIS's geometry && / &&& (Custom Scan ExactBoxJoin) as one batch join.",
							 "Like enable_hashjoin: off leaves those joins to nested loops calling the predicate row by row.",
							 &exactgpu_enable_batch_join, true,
							 PGC_USERSET, 0, NULL, NULL, NULL);
	exact_join_path_methods.CustomName = EXACT_JOIN_NAME;
	exact_join_path_methods.PlanCustomPath = exact_join_plan;
	/* parallel workers rebuild the plan node from its name */
	RegisterCustomScanMethods(&exactgpu_join_scan_methods);
	prev_join_pathlist_hook = set_join_pathlist_hook;
	set_join_pathlist_hook = exact_join_pathlist;
	exactgpu_param_scan_cost_init();
}
