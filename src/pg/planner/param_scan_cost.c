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
 * estimated from both columns' statistics (support.c); every one of
 * them (the filter's selectivity is the box overlap's) costs a call, and
 * brings a geometry of the probed table the call must parse: the geometry
 * cache keeps 8, and a probe's rows change from one outer row to the next
 * (probing 10 MB bodies once per drill hole parses a body per call; probing
 * the holes once per body parses each body once). So each such path is
 * charged the calls and parses it was not, after its own core costing
 * (set_rel_pathlist_hook: "it could also modify paths added by the core
 * code"). A call is priced from its arguments' widths (support.c's
 * cost_request: the smaller argument parsed, the larger cached); the
 * larger one's parse is charged here, per row where the probed table holds
 * it, per probe where the outer row does.
 */
#include "exactgpu.h"

#include "nodes/pathnodes.h"
#include "optimizer/cost.h"
#include "optimizer/optimizer.h"
#include "optimizer/paths.h"
#include "optimizer/plancat.h"

#include "exact_clause.h"
#include "join_cost.h"

static set_rel_pathlist_hook_type prev_rel_pathlist_hook = NULL;

/*
 * What a probe of rel costs our predicates among clauses: per row, their
 * calls (priced from the arguments' widths by the support function, which
 * counts the smaller argument's parse) and, where rel's argument is the
 * larger, its parse; per probe, the parse of the outer argument where it
 * is the larger (cached after the probe's first call).
 */
static void
exact_calls_cost(PlannerInfo *root, RelOptInfo *rel, List *clauses, Cost *call, Cost *parse,
				 Cost *per_probe)
{
	ListCell   *lc;

	*call = *parse = *per_probe = 0;
	foreach(lc, clauses)
	{
		RestrictInfo *ri = lfirst_node(RestrictInfo, lc);
		FuncExpr   *f;
		QualCost	qc;
		double		w0,
					w1;
		bool		first_probed;

		if (exactgpu_exact_call_of((Node *) ri->clause) == EXACT_PRED_NONE)
			continue;
		f = (FuncExpr *) ri->clause;
		memset(&qc, 0, sizeof(qc));
		add_function_cost(root, f->funcid, (Node *) f, &qc);
		*call += qc.per_tuple;
		w0 = exactgpu_geometry_width(root, linitial(f->args));
		w1 = exactgpu_geometry_width(root, lsecond(f->args));
		first_probed = bms_equal(pull_varnos(root, linitial(f->args)), rel->relids);
		/* the probed table's values stay cached where they all fit */
		if (first_probed == (w0 >= w1))
		{
			if (rel->tuples > EXACT_CACHE_ROOM_EARLY_STOP)
				*parse += exactgpu_call_reparse_cost(Max(w0, w1));
		}
		else
			*per_probe += exactgpu_call_parse_cost(Max(w0, w1));
	}
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
		Cost		call,
					parse,
					per_probe,
					bitmap_cost;
		Selectivity selec;
		double		charged;

		if (path->param_info == NULL)
			continue;
		/* a bitmap probe pays as an index probe does (left alone, a probe of
		 * 21613 rows costed as 4: with index scans off its nested loop
		 * looked 80x cheaper than the batch join) */
		if (IsA(path, IndexPath))
			selec = ((IndexPath *) path)->indexselectivity;
		else if (IsA(path, BitmapHeapPath))
			cost_bitmap_tree_node(((BitmapHeapPath *) path)->bitmapqual, &bitmap_cost, &selec);
		else
			continue;
		exact_calls_cost(root, rel, path->param_info->ppi_clauses, &call, &parse, &per_probe);
		if (call <= 0)
			continue;
		/* cost_index and cost_bitmap_heap_scan charged the call, not the
		 * parse, on the rows the index condition's (PostGIS's) selectivity
		 * promised */
		charged = clamp_row_est(selec * rel->tuples);
		path->total_cost += Max(path->rows - charged, 0) * (call + parse + cpu_tuple_cost) +
			Min(path->rows, charged) * parse + per_probe;
	}
}

void
exactgpu_param_scan_cost_init(void)
{
	prev_rel_pathlist_hook = set_rel_pathlist_hook;
	set_rel_pathlist_hook = param_scan_cost;
}
