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
#include "join.h"
#include "join_options.h"

bool		exactgpu_enable_batch_join = true;

static set_join_pathlist_hook_type prev_join_pathlist_hook = NULL;

/*
 * Cost constants, in the planner's units. The batch join parses each row
 * once (about one operator per 8 bytes of geometry) and then settles a
 * candidate row pair for a fraction of the declared call (procost *
 * cpu_operator_cost, 25 for our COST 10000): measured 17 s row by row
 * against 0.8 s batched on 2,000 holes x 30 bodies, so 1/20. (Row-by-row
 * calls are priced from their widths, sql_support.c; both halves were left
 * as they were measured: bench/results/2026-11-24-cpu2-cost-model.md.)
 */
#define EXACT_JOIN_PAIR_FRACTION	(1.0 / 20.0)
/* Starting a batch join: the worker pool's dispatch, allocations (two calls). */
#define EXACT_JOIN_CPU_STARTUP		50.0
/* A GPU join pays context, uploads and launches: worth it from 4x that work. */
#define EXACT_JOIN_GPU_STARTUP		25000.0
#define EXACT_JOIN_GPU_MIN_WORK		(4.0 * EXACT_JOIN_GPU_STARTUP)
/* A geometry column without statistics: a few dozen vertices. */
#define EXACT_JOIN_DEFAULT_WIDTH	1024

static CustomPathMethods exact_join_path_methods;

/*
 * Which of our predicates funcid is, if any: recognised by the C symbol of
 * this module, whatever the schema.
 */
ExactJoinPredicate
exactgpu_exact_predicate_of(Oid funcid)
{
	HeapTuple	tup = SearchSysCache1(PROCOID, ObjectIdGetDatum(funcid));
	Form_pg_proc proc;
	bool		isnull;
	Datum		d;
	ExactJoinPredicate pred = EXACT_PRED_NONE;

	if (!HeapTupleIsValid(tup))
		return EXACT_PRED_NONE;
	proc = (Form_pg_proc) GETSTRUCT(tup);
	if (proc->prolang == ClanguageId && proc->pronargs == 2)
	{
		char	   *src,
				   *bin,
				   *base;

		d = SysCacheGetAttr(PROCOID, tup, Anum_pg_proc_prosrc, &isnull);
		src = isnull ? NULL : TextDatumGetCString(d);
		d = SysCacheGetAttr(PROCOID, tup, Anum_pg_proc_probin, &isnull);
		bin = isnull ? NULL : TextDatumGetCString(d);
		base = bin ? strrchr(bin, '/') : NULL;
		base = base ? base + 1 : bin;
		if (src && base && (strcmp(base, "exactgpu") == 0 || strcmp(base, "exactgpu.so") == 0))
		{
			if (strcmp(src, "exactgpu_intersects_3d") == 0)
				pred = EXACT_PRED_3D;
			else if (strcmp(src, "exactgpu_intersects_2d") == 0)
				pred = EXACT_PRED_2D;
			else if (strcmp(src, "exactgpu_intersects_solid_3d") == 0)
				pred = EXACT_PRED_SOLID3D;
		}
	}
	ReleaseSysCache(tup);
	return pred;
}

/*
 * The average width of a geometry argument, if the planner can know it:
 * pg_statistic's for a column (PostGIS's own ANALYZE measures its
 * geometries detoasted, so bodies kept out of line count at their full
 * size, not as 18-byte TOAST pointers), the actual size for a constant.
 */
bool
exactgpu_geometry_width_known(PlannerInfo *root, Node *arg, double *width)
{
	if (arg == NULL)
		return false;
	if (IsA(arg, Const))
	{
		Const	   *c = (Const *) arg;

		if (c->constisnull || c->constlen != -1)
			return false;
		*width = VARSIZE_ANY(DatumGetPointer(c->constvalue));
		return true;
	}
	if (IsA(arg, Var) && root != NULL)
	{
		Var		   *var = (Var *) arg;

		if (var->varlevelsup == 0 && var->varattno > 0 &&
			var->varno > 0 && var->varno < root->simple_rel_array_size)
		{
			RangeTblEntry *rte = planner_rt_fetch(var->varno, root);

			if (rte->rtekind == RTE_RELATION)
			{
				int32		w = get_attavgwidth(rte->relid, var->varattno);

				if (w > 0)
				{
					*width = w;
					return true;
				}
			}
		}
	}
	return false;
}

/* The same, or a few dozen vertices when it cannot be known. */
double
exactgpu_geometry_width(PlannerInfo *root, Node *arg)
{
	double		w;

	return exactgpu_geometry_width_known(root, arg, &w) ? w : EXACT_JOIN_DEFAULT_WIDTH;
}

/* A function's declared COST (procost), its support function not asked. */
static float4
declared_cost(Oid funcid)
{
	HeapTuple	tup = SearchSysCache1(PROCOID, ObjectIdGetDatum(funcid));
	float4		cost;

	if (!HeapTupleIsValid(tup))
		elog(ERROR, "cache lookup failed for function %u", funcid);
	cost = ((Form_pg_proc) GETSTRUCT(tup))->procost;
	ReleaseSysCache(tup);
	return cost;
}

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
	bool		swapped = false;
	ExactJoinPredicate pred = EXACT_PRED_NONE;
	ListCell   *lc;
	double		w_out,
				w_in,
				pairs,
				work,
				call_cost,
				startup;
	int			device;

	if (prev_join_pathlist_hook)
		prev_join_pathlist_hook(root, joinrel, outerrel, innerrel, jointype, extra);
	exactgpu_box_join_pathlist(root, joinrel, outerrel, innerrel, jointype, extra);
	if (!exactgpu_join_may_batch(root, joinrel, jointype, outer_path, inner_path))
		return;

	foreach(lc, extra->restrictlist)
	{
		RestrictInfo *ri = lfirst_node(RestrictInfo, lc);

		if (pred == EXACT_PRED_NONE && !ri->pseudoconstant &&
			(pred = match_exact_clause(root, ri->clause, outerrel->relids, innerrel->relids,
									   &swapped)) != EXACT_PRED_NONE)
			clause = ri->clause;
		else
			others = lappend(others, ri->clause);
	}
	if (pred == EXACT_PRED_NONE)
		return;
	/* a semi or anti join answers per outer row: the clause must be all of it */
	if (jointype != JOIN_INNER && others != NIL)
		return;

	/* cost: both children whole, each row parsed once, each candidate pair batched */
	w_out = exactgpu_geometry_width(root, (Node *) (swapped ? lsecond(((FuncExpr *) clause)->args)
										   : linitial(((FuncExpr *) clause)->args)));
	w_in = exactgpu_geometry_width(root, (Node *) (swapped ? linitial(((FuncExpr *) clause)->args)
										  : lsecond(((FuncExpr *) clause)->args)));
	/* the clause's selectivity is that of the box overlap (sql_support.c) */
	pairs = clamp_row_est(outer_path->rows * inner_path->rows *
						  clause_selectivity(root, (Node *) clause, 0, JOIN_INNER, extra->sjinfo));
	/*
	 * A pair is priced as a fraction of the declared call (procost), not of
	 * the width-aware row-by-row call the support function answers: what the
	 * batch pays per pair does not shrink with a cached argument.
	 */
	call_cost = declared_cost(((FuncExpr *) clause)->funcid) * cpu_operator_cost;
	work = (outer_path->rows * (cpu_tuple_cost + exactgpu_parse_cost(w_out)) +
			inner_path->rows * (cpu_tuple_cost + exactgpu_parse_cost(w_in)) +
			pairs * call_cost * EXACT_JOIN_PAIR_FRACTION);
	/* too small to pay for a GPU's start: the CPU back-end */
	device = exactgpu_join_device(work < EXACT_JOIN_GPU_MIN_WORK);
	startup = outer_path->total_cost + inner_path->total_cost + work +
		(device == EXG_DEVICE_GPU ? EXACT_JOIN_GPU_STARTUP : EXACT_JOIN_CPU_STARTUP);
	exactgpu_join_add_path(root, joinrel, jointype, outer_path, inner_path, clause, others,
						   list_make4_int(pred, swapped, device, jointype),
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
