/*
 * custom_join_box.c — the planner half of ExactBoxJoin: joins whose clause
 * is PostGIS's geometry && geometry or geometry &&& geometry, one argument
 * from each side, are offered a CustomPath that reads both sides once and
 * joins their boxes in one batch (custom_join_box_exec.c), beside
 * PostgreSQL's nested loop + GiST paths; add_path keeps the cheaper.
 *
 * The operator is recognised by its function (geometry_overlaps, C symbol
 * gserialized_overlaps_2d; geometry_overlaps_nd, gserialized_overlaps) in a
 * postgis library, on two geometry arguments, whatever the schema.
 */
#include "exactgpu.h"

#include "access/htup_details.h"
#include "catalog/pg_language.h"
#include "catalog/pg_namespace.h"
#include "catalog/pg_proc.h"
#include "catalog/pg_type.h"
#include "nodes/makefuncs.h"
#include "nodes/nodeFuncs.h"
#include "optimizer/clauses.h"
#include "optimizer/cost.h"
#include "optimizer/optimizer.h"
#include "optimizer/pathnode.h"
#include "optimizer/paths.h"
#include "optimizer/restrictinfo.h"
#include "parser/parse_func.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/syscache.h"

#include "custom_join.h"
#include "custom_join_box.h"
#include "custom_join_common.h"
#include "join_options.h"

/*
 * Costs, in the planner's units. Each row of both sides is stored and its
 * box read from the header once (a tuple and an operator); a pair costs a
 * fraction of an operator (a box comparison in a grid cell, on all cores).
 */
#define BOX_JOIN_PAIR_FRACTION	0.1
#define BOX_JOIN_CPU_STARTUP	10.0
/* A GPU box join pays the context, the uploads and launches (a few ms). */
#define BOX_JOIN_GPU_STARTUP	1000.0
/* Rows of both sides from which the GPU pays for its start. */
#define BOX_JOIN_GPU_MIN_ROWS	200000.0

static CustomPathMethods box_join_path_methods;

/* A type's name without its schema (palloc'd), NULL if there is none. */
static char *
type_name(Oid typid)
{
	HeapTuple	tup = SearchSysCache1(TYPEOID, ObjectIdGetDatum(typid));
	char	   *name;

	if (!HeapTupleIsValid(tup))
		return NULL;
	name = pstrdup(NameStr(((Form_pg_type) GETSTRUCT(tup))->typname));
	ReleaseSysCache(tup);
	return name;
}

/*
 * 0 for PostGIS's geometry &&, 1 for geometry &&&, -1 for anything else;
 * *addbbox gets postgis_addbbox(geometry) of the same schema.
 */
static int
box_operator_kind(Oid funcid, Oid *addbbox)
{
	HeapTuple	tup = SearchSysCache1(PROCOID, ObjectIdGetDatum(funcid));
	Form_pg_proc proc;
	int			kind = -1;

	if (!HeapTupleIsValid(tup))
		return -1;
	proc = (Form_pg_proc) GETSTRUCT(tup);
	if (proc->prolang == ClanguageId && proc->pronargs == 2 &&
		proc->proargtypes.values[0] == proc->proargtypes.values[1])
	{
		bool		isnull;
		Datum		d;
		char	   *src,
				   *bin,
				   *base,
				   *type;
		const char *name = NameStr(proc->proname);

		d = SysCacheGetAttr(PROCOID, tup, Anum_pg_proc_prosrc, &isnull);
		src = isnull ? NULL : TextDatumGetCString(d);
		d = SysCacheGetAttr(PROCOID, tup, Anum_pg_proc_probin, &isnull);
		bin = isnull ? NULL : TextDatumGetCString(d);
		base = bin ? strrchr(bin, '/') : NULL;
		base = base ? base + 1 : bin;
		type = type_name(proc->proargtypes.values[0]);
		if (src && base && type && strncmp(base, "postgis", 7) == 0 && strcmp(type, "geometry") == 0)
		{
			if (strcmp(name, "geometry_overlaps") == 0 && strcmp(src, "gserialized_overlaps_2d") == 0)
				kind = 0;
			else if (strcmp(name, "geometry_overlaps_nd") == 0 && strcmp(src, "gserialized_overlaps") == 0)
				kind = 1;
		}
		if (kind >= 0)
		{
			char	   *nsp = get_namespace_name(proc->pronamespace);
			Oid			argtype = proc->proargtypes.values[0];

			*addbbox = nsp ? LookupFuncName(list_make2(makeString(nsp), makeString("postgis_addbbox")),
											1, &argtype, true) : InvalidOid;
			if (!OidIsValid(*addbbox))
				kind = -1;
		}
	}
	ReleaseSysCache(tup);
	return kind;
}

/*
 * If clause is one of the operators with one argument from each side,
 * return its kind and whether its first argument is the inner side's.
 */
static int
match_box_clause(PlannerInfo *root, Expr *clause, Relids outer, Relids inner, bool *swapped,
				 Oid *addbbox)
{
	OpExpr	   *op;
	Relids		r0,
				r1;
	int			kind;

	if (!IsA(clause, OpExpr))
		return -1;
	op = (OpExpr *) clause;
	if (list_length(op->args) != 2)
		return -1;
	set_opfuncid(op);
	/* each argument is read once per row, not once per pair */
	if (contain_volatile_functions((Node *) op->args) || contain_subplans((Node *) op->args))
		return -1;
	r0 = pull_varnos(root, linitial(op->args));
	r1 = pull_varnos(root, lsecond(op->args));
	if (bms_is_empty(r0) || bms_is_empty(r1))
		return -1;
	if (bms_is_subset(r0, outer) && bms_is_subset(r1, inner))
		*swapped = false;
	else if (bms_is_subset(r0, inner) && bms_is_subset(r1, outer))
		*swapped = true;
	else
		return -1;
	if ((kind = box_operator_kind(op->opfuncid, addbbox)) < 0)
		return -1;
	return kind;
}

void
exactgpu_box_join_pathlist(PlannerInfo *root, RelOptInfo *joinrel, RelOptInfo *outerrel,
						   RelOptInfo *innerrel, JoinType jointype, JoinPathExtraData *extra)
{
	Path	   *outer_path = outerrel->cheapest_total_path;
	Path	   *inner_path = innerrel->cheapest_total_path;
	Expr	   *clause = NULL;
	List	   *others = NIL;
	bool		swapped = false;
	Oid			addbbox = InvalidOid;
	int			kind = -1;
	ListCell   *lc;
	double		pairs,
				work,
				startup;
	int			device;

	/* no outer joins: the box join's node hands out pairs only */
	if (jointype != JOIN_INNER && jointype != JOIN_SEMI && jointype != JOIN_ANTI)
		return;
	if (!exactgpu_join_may_batch(root, joinrel, jointype, outer_path, inner_path))
		return;

	foreach(lc, extra->restrictlist)
	{
		RestrictInfo *ri = lfirst_node(RestrictInfo, lc);

		if (kind < 0 && !ri->pseudoconstant &&
			(kind = match_box_clause(root, ri->clause, outerrel->relids, innerrel->relids,
									 &swapped, &addbbox)) >= 0)
			clause = ri->clause;
		else
			others = lappend(others, ri->clause);
	}
	if (kind < 0)
		return;
	/* a semi or anti join answers per outer row: the clause must be all of it */
	if (jointype != JOIN_INNER && others != NIL)
		return;

	/* the operator's own join selectivity (PostGIS's statistics) */
	pairs = clamp_row_est(outer_path->rows * inner_path->rows *
						  clause_selectivity(root, (Node *) clause, 0, JOIN_INNER, extra->sjinfo));
	work = (outer_path->rows + inner_path->rows) * (cpu_tuple_cost + cpu_operator_cost) +
		pairs * cpu_operator_cost * BOX_JOIN_PAIR_FRACTION;
	/* too small to pay for a GPU's start: the CPU back-end */
	device = exactgpu_join_device(outer_path->rows + inner_path->rows < BOX_JOIN_GPU_MIN_ROWS);
	startup = outer_path->total_cost + inner_path->total_cost + work +
		(device == EXG_DEVICE_GPU ? BOX_JOIN_GPU_STARTUP : BOX_JOIN_CPU_STARTUP);
	exactgpu_join_add_path(root, joinrel, jointype, outer_path, inner_path, clause, others,
						   NIL, list_make5_int(kind, swapped, device, jointype, (int) addbbox),
						   &box_join_path_methods, startup, pairs);
}

static Plan *
box_join_plan(PlannerInfo *root, RelOptInfo *rel, CustomPath *best_path, List *tlist,
			  List *clauses, List *custom_plans)
{
	return exactgpu_join_plan_node(best_path, tlist, clauses, custom_plans,
								   &exactgpu_box_join_scan_methods);
}

void
exactgpu_box_join_init(void)
{
	box_join_path_methods.CustomName = EXACT_BOX_JOIN_NAME;
	box_join_path_methods.PlanCustomPath = box_join_plan;
	RegisterCustomScanMethods(&exactgpu_box_join_scan_methods);
}
