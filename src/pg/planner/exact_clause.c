/*
 * exact_clause.c — which of our predicates a function or a clause is, and
 * how big its geometry arguments are (exact_clause.h).
 */
#include "exactgpu.h"

#include "access/htup_details.h"
#include "catalog/pg_language.h"
#include "catalog/pg_proc.h"
#include "optimizer/optimizer.h"
#include "parser/parsetree.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/syscache.h"

#include "exact_clause.h"
#include "join_cost.h"

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

	return exactgpu_geometry_width_known(root, arg, &w) ? w : EXACT_DEFAULT_WIDTH;
}

ExactJoinPredicate
exactgpu_exact_call_of(Node *clause)
{
	FuncExpr   *f;

	if (clause == NULL || !IsA(clause, FuncExpr))
		return EXACT_PRED_NONE;
	f = (FuncExpr *) clause;
	if (list_length(f->args) != 2)
		return EXACT_PRED_NONE;
	return exactgpu_exact_predicate_of(f->funcid);
}
