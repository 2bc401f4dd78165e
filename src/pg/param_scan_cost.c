/*
 * param_scan_cost.c — what a nested loop's parameterized index scan costs
 * when its filter is one of our predicates.
 *
 * A nested loop runs ST_ExactIntersects3D (etc.) through the lossy index
 * condition our support function adds (&&& or &&): PostgreSQL charges the
 * filter once per row the index is expected to return, and takes that
 * number from PostGIS's restriction estimate of the box operator, which has
 * no statistics for a parameter and answers a fixed 1e-4 of the table. On
 * the large mine that is 2 rows a probe where 236 come back: the nested
 * loop looked 100x cheaper than it is, and the planner kept it over the
 * batch join (10.4 s against 2.0 s). The rows such a scan returns are
 * estimated from both columns' statistics (sql_support.c); every one of
 * them (the filter's selectivity is the box overlap's) costs a call. So
 * each such path is charged the calls it was not, after its own core
 * costing (set_rel_pathlist_hook: "it could also modify paths added by the
 * core code").
 */
#include "exactgpu.h"

#include "nodes/pathnodes.h"
#include "optimizer/cost.h"
#include "optimizer/optimizer.h"
#include "optimizer/paths.h"
#include "optimizer/plancat.h"

#include "custom_join.h"

static set_rel_pathlist_hook_type prev_rel_pathlist_hook = NULL;

/* The per-call cost of our predicates among clauses. */
static Cost
exact_calls_cost(PlannerInfo *root, List *clauses)
{
	Cost		cost = 0;
	ListCell   *lc;

	foreach(lc, clauses)
	{
		RestrictInfo *ri = lfirst_node(RestrictInfo, lc);
		QualCost	qc;

		if (!IsA(ri->clause, FuncExpr) ||
			exactgpu_exact_predicate_of(((FuncExpr *) ri->clause)->funcid) == EXACT_PRED_NONE)
			continue;
		memset(&qc, 0, sizeof(qc));
		add_function_cost(root, ((FuncExpr *) ri->clause)->funcid, (Node *) ri->clause, &qc);
		cost += qc.per_tuple;
	}
	return cost;
}

static void
param_scan_cost(PlannerInfo *root, RelOptInfo *rel, Index rti, RangeTblEntry *rte)
{
	ListCell   *lc;

	if (prev_rel_pathlist_hook)
		prev_rel_pathlist_hook(root, rel, rti, rte);
	foreach(lc, rel->pathlist)
	{
		Path	   *path = lfirst(lc);
		IndexPath  *ipath;
		Cost		call;
		double		charged;

		if (path->param_info == NULL || !IsA(path, IndexPath))
			continue;
		call = exact_calls_cost(root, path->param_info->ppi_clauses);
		if (call <= 0)
			continue;
		/* cost_index charged the filter on the index condition's rows */
		ipath = (IndexPath *) path;
		charged = clamp_row_est(ipath->indexselectivity * rel->tuples);
		if (path->rows > charged)
			path->total_cost += (path->rows - charged) * (call + cpu_tuple_cost);
	}
}

void
exactgpu_param_scan_cost_init(void)
{
	prev_rel_pathlist_hook = set_rel_pathlist_hook;
	set_rel_pathlist_hook = param_scan_cost;
}
