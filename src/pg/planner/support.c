/*
 * support.c — planner support for ST_ExactIntersects3D / ST_ExactIntersects.
 *
 * As PostGIS does for ST_3DIntersects and ST_Intersects: when an argument is
 * an indexed geometry column, add the lossy index condition "boxes overlap"
 * (&&& or && in 3D, && in 2D), so a plain JOIN ... ON ST_ExactIntersects3D
 * uses a GiST (or SP-GiST, BRIN) index on either side; and estimate the
 * function's selectivity as that of the box operator; and price a call
 * from its arguments' widths.
 */
#include "exactgpu.h"

#include "access/htup_details.h"
#include "access/stratnum.h"
#include "catalog/namespace.h"
#include "catalog/pg_type.h"
#include "nodes/makefuncs.h"
#include "nodes/nodeFuncs.h"
#include "nodes/supportnodes.h"
#include "nodes/value.h"
#include "optimizer/optimizer.h"
#include "optimizer/plancat.h"
#include "utils/lsyscache.h"
#include "utils/syscache.h"

#include "exact_clause.h"
#include "join_cost.h"

PG_FUNCTION_INFO_V1(exactgpu_support_3d);
PG_FUNCTION_INFO_V1(exactgpu_support_2d);

/* The box-overlap operator opname(geom, geom) from the geometry type's schema. */
static Oid
box_operator(Oid geomtype, const char *opname)
{
	HeapTuple	tup = SearchSysCache1(TYPEOID, ObjectIdGetDatum(geomtype));
	Oid			nsp;
	char	   *nspname;
	Oid			opoid;

	if (!HeapTupleIsValid(tup))
		return InvalidOid;
	nsp = ((Form_pg_type) GETSTRUCT(tup))->typnamespace;
	ReleaseSysCache(tup);
	nspname = get_namespace_name(nsp);
	if (nspname == NULL)
		return InvalidOid;
	opoid = OpernameGetOprid(list_make2(makeString(nspname), makeString(pstrdup(opname))),
							 geomtype, geomtype);
	return opoid;
}

static Node *
selectivity_request(SupportRequestSelectivity *req, bool is3d)
{
	Oid			geomtype;
	Oid			opoid;

	if (list_length(req->args) != 2)
		return NULL;
	geomtype = exprType(linitial(req->args));
	opoid = box_operator(geomtype, is3d ? "&&&" : "&&");
	if (!OidIsValid(opoid))
		return NULL;
	/*
	 * A join clause is also estimated as a restriction of one side, the
	 * other side's column a parameter (varRelid set): the rows a nested
	 * loop's parameterized index scan returns per outer row. The box
	 * operator's restriction estimate has no statistics for a parameter and
	 * answers a fixed 1e-4 (2 rows a loop where 236 came back), which makes
	 * the nested loop look 100x cheaper than it is; the join estimate,
	 * from both columns' statistics, is the one that fits. (It once was
	 * left alone below 64 kB of arguments, where it cancelled COST 10000's
	 * overpricing of small calls; calls are now priced from their widths,
	 * cost_request.)
	 */
	if (req->is_join ||
		bms_membership(pull_varnos(req->root, (Node *) req->args)) == BMS_MULTIPLE)
		req->selectivity = join_selectivity(req->root, opoid, req->args, req->inputcollid,
											req->is_join ? req->jointype : JOIN_INNER,
											req->is_join ? req->sjinfo : NULL);
	else
		req->selectivity = restriction_selectivity(req->root, opoid, req->args,
												   req->inputcollid, req->varRelid);
	return (Node *) req;
}

/*
 * The cost of a call from its arguments' widths, where the planner knows
 * both (columns with statistics, constants): the declared COST 10000 (25
 * units, some 70 us here) prices a point in a cube as a 10 MB body parsed
 * afresh; a call whose larger argument is cached takes 1 to 3 us
 * (custom_join.h). Where a width is unknown the declared cost stands.
 */
static Node *
cost_request(SupportRequestCost *req)
{
	FuncExpr   *f;
	double		w0,
				w1;

	if (req->node == NULL || !IsA(req->node, FuncExpr))
		return NULL;
	f = (FuncExpr *) req->node;
	if (list_length(f->args) != 2 ||
		!exactgpu_geometry_width_known(req->root, linitial(f->args), &w0) ||
		!exactgpu_geometry_width_known(req->root, lsecond(f->args), &w1))
		return NULL;
	req->startup = 0;
	/* a constant is parsed once, the other argument on every call */
	if (IsA(linitial(f->args), Const) != IsA(lsecond(f->args), Const))
		req->per_tuple = EXACT_CALL_OPS * cpu_operator_cost +
			exactgpu_call_parse_cost(IsA(linitial(f->args), Const) ? w1 : w0);
	else
		req->per_tuple = exactgpu_call_cost(w0, w1);
	return (Node *) req;
}

static Node *
index_condition_request(SupportRequestIndexCondition *req, bool is3d)
{
	FuncExpr   *clause;
	Node	   *indexed,
			   *other;
	Oid			oproid;
	char	   *opname;

	if (!is_funcclause(req->node))
		return NULL;
	clause = (FuncExpr *) req->node;
	if (list_length(clause->args) != 2 || req->indexarg > 1)
		return NULL;
	indexed = list_nth(clause->args, req->indexarg);
	other = list_nth(clause->args, 1 - req->indexarg);
	if (!is_pseudo_constant_for_index(req->root, other, req->index))
		return NULL;

	/* Overlap is strategy 3 in every PostGIS geometry opfamily (GiST, SP-GiST, BRIN). */
	oproid = get_opfamily_member(req->opfamily, exprType(indexed), exprType(other),
								 RTOverlapStrategyNumber);
	if (!OidIsValid(oproid))
		return NULL;
	/* 2D box overlap is necessary for 3D intersection; 3D box overlap is not for 2D. */
	opname = get_opname(oproid);
	if (opname == NULL || !(strcmp(opname, "&&") == 0 || (is3d && strcmp(opname, "&&&") == 0)))
		return NULL;

	req->lossy = true;
	return (Node *) list_make1(make_opclause(oproid, BOOLOID, false, (Expr *) indexed,
											 (Expr *) other, InvalidOid, InvalidOid));
}

static Datum
support_common(FunctionCallInfo fcinfo, bool is3d)
{
	Node	   *rawreq = (Node *) PG_GETARG_POINTER(0);
	Node	   *ret = NULL;

	if (IsA(rawreq, SupportRequestSelectivity))
		ret = selectivity_request((SupportRequestSelectivity *) rawreq, is3d);
	else if (IsA(rawreq, SupportRequestCost))
		ret = cost_request((SupportRequestCost *) rawreq);
	else if (IsA(rawreq, SupportRequestIndexCondition))
		ret = index_condition_request((SupportRequestIndexCondition *) rawreq, is3d);
	PG_RETURN_POINTER(ret);
}

Datum
exactgpu_support_3d(PG_FUNCTION_ARGS)
{
	return support_common(fcinfo, true);
}

Datum
exactgpu_support_2d(PG_FUNCTION_ARGS)
{
	return support_common(fcinfo, false);
}
