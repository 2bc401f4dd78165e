/*
 * foreign_join.c — a join on an exactgpu predicate whose rows live on other
 * servers is left to those servers.
 *
 * Joining on the coordinator means pulling every geometry of both sides
 * through postgres_fdw, as text (hex EWKB, twice its binary size): for ore
 * bodies, megabytes a row. Two plans do better: both sides foreign tables of
 * one server whose `extensions` option lists exactgpu (postgres_fdw ships the
 * whole join, predicate included, and the server joins locally, by its own
 * ExactJoin), and a partitionwise join (enable_partitionwise_join, partition
 * keys equated) of tables whose partitions are, pair by pair, foreign tables
 * of such servers (each child join shipped so, the coordinator appending
 * their pairs).
 *
 * PostgreSQL's costs cannot see this: postgres_fdw charges fdw_tuple_cost a
 * row and nothing a byte, so a local merge join pulling four bodies of a
 * megabyte looks cheaper than a remote join returning a hundred pairs; and
 * before ANALYZE it guesses a foreign table's width at tens of bytes. So no
 * comparison is attempted on those numbers: for such joins, ExactJoin is not
 * offered, and every path that would join locally is charged disable_cost
 * (as enable_* = off does): the servers' plan wins whenever postgres_fdw
 * offers it, and a local plan remains when it does not (a clause it cannot
 * ship, a partitionwise join that fails), so a plan is always found.
 * Where the FDW's own join path lost to a local one before the charge, it
 * is asked for again (exactgpu_join_leave_to_servers).
 */
#include "exactgpu.h"

#include "catalog/dependency.h"
#include "catalog/pg_proc.h"
#include "commands/defrem.h"
#include "commands/extension.h"
#include "foreign/fdwapi.h"
#include "foreign/foreign.h"
#include "nodes/nodeFuncs.h"
#include "nodes/pathnodes.h"
#include "optimizer/cost.h"
#include "partitioning/partbounds.h"
#include "utils/builtins.h"
#include "utils/varlena.h"

#include "foreign_join.h"

/* Does the foreign server ship exactgpu's functions (its `extensions` option)? */
static bool
server_ships_exactgpu(Oid serverid)
{
	ForeignServer *server = GetForeignServer(serverid);
	ListCell   *lc;

	foreach(lc, server->options)
	{
		DefElem    *def = lfirst_node(DefElem, lc);
		List	   *names = NIL;
		ListCell   *ln;

		if (strcmp(def->defname, "extensions") != 0)
			continue;
		if (!SplitIdentifierString(pstrdup(defGetString(def)), ',', &names))
			return false;		/* postgres_fdw rejects such an option anyway */
		foreach(ln, names)
			if (strcmp((char *) lfirst(ln), "exactgpu") == 0)
				return true;
	}
	return false;
}

/* The server of a foreign relation (table, partition, join) shipping exactgpu, or InvalidOid. */
static Oid
exactgpu_server_of(RelOptInfo *rel)
{
	if (rel == NULL || !OidIsValid(rel->serverid) || !server_ships_exactgpu(rel->serverid))
		return InvalidOid;
	return rel->serverid;
}

/* Is a function of the exactgpu extension called in the node? */
static bool
calls_exactgpu_walker(Node *node, Oid *ext)
{
	Oid			funcid = InvalidOid;

	if (node == NULL)
		return false;
	if (IsA(node, FuncExpr))
		funcid = ((FuncExpr *) node)->funcid;
	else if (IsA(node, OpExpr))
		funcid = ((OpExpr *) node)->opfuncid;
	if (OidIsValid(funcid) && getExtensionOfObject(ProcedureRelationId, funcid) == *ext)
		return true;
	return expression_tree_walker(node, calls_exactgpu_walker, ext);
}

static bool
joins_on_exactgpu(List *restrictlist)
{
	Oid			ext = get_extension_oid("exactgpu", true);
	ListCell   *lc;

	if (!OidIsValid(ext))
		return false;
	foreach(lc, restrictlist)
		if (calls_exactgpu_walker((Node *) lfirst_node(RestrictInfo, lc)->clause, &ext))
			return true;
	return false;
}

/*
 * Will PostgreSQL try a partitionwise join whose partition pairs all sit on
 * one exactgpu server each? build_joinrel_partition_info has set the join's
 * scheme (same scheme, partition keys equated); try_partitionwise_join runs
 * after this hook and pairs the partitions in bound order.
 */
static bool
partitionwise_on_servers(RelOptInfo *joinrel, RelOptInfo *outerrel, RelOptInfo *innerrel)
{
	if (joinrel->part_scheme == NULL || !joinrel->consider_partitionwise_join ||
		!outerrel->consider_partitionwise_join || !innerrel->consider_partitionwise_join ||
		outerrel->part_scheme != innerrel->part_scheme ||
		outerrel->nparts <= 0 || outerrel->nparts != innerrel->nparts ||
		outerrel->part_rels == NULL || innerrel->part_rels == NULL ||
		!partition_bounds_equal(outerrel->part_scheme->partnatts,
								outerrel->part_scheme->parttyplen,
								outerrel->part_scheme->parttypbyval,
								outerrel->boundinfo, innerrel->boundinfo))
		return false;
	for (int i = 0; i < outerrel->nparts; i++)
	{
		RelOptInfo *o = outerrel->part_rels[i],
				   *n = innerrel->part_rels[i];
		Oid			server;

		if (o == NULL || n == NULL)
			continue;			/* pruned: contributes nothing */
		server = exactgpu_server_of(o);
		if (!OidIsValid(server) || exactgpu_server_of(n) != server)
			return false;
	}
	return true;
}

/* Charge disable_cost to the paths that join here rather than on a server. */
static List *
disable_local_paths(List *paths)
{
	ListCell   *lc;

	foreach(lc, paths)
	{
		Path	   *path = (Path *) lfirst(lc);

		if (IsA(path, ForeignPath) || path->total_cost >= disable_cost)
			continue;
		path->startup_cost += disable_cost;
		path->total_cost += disable_cost;
	}
	return paths;
}

static int
path_total_cost_cmp(const ListCell *a, const ListCell *b)
{
	Cost		ca = ((Path *) lfirst(a))->total_cost,
				cb = ((Path *) lfirst(b))->total_cost;

	return ca < cb ? -1 : ca > cb;
}

static bool
has_foreign_path(List *paths)
{
	ListCell   *lc;

	foreach(lc, paths)
		if (IsA(lfirst(lc), ForeignPath))
			return true;
	return false;
}

bool
exactgpu_join_leave_to_servers(PlannerInfo *root, RelOptInfo *joinrel,
							   RelOptInfo *outerrel, RelOptInfo *innerrel,
							   JoinType jointype, JoinPathExtraData *extra)
{
	Oid			server = exactgpu_server_of(outerrel);
	bool		remote;

	remote = (OidIsValid(server) && exactgpu_server_of(innerrel) == server) ||
		partitionwise_on_servers(joinrel, outerrel, innerrel);
	if (!remote || !joins_on_exactgpu(extra->restrictlist))
		return false;
	/* add_path keeps the list cheapest first; local paths now come last */
	joinrel->pathlist = disable_local_paths(joinrel->pathlist);
	list_sort(joinrel->pathlist, path_total_cost_cmp);
	joinrel->partial_pathlist = disable_local_paths(joinrel->partial_pathlist);
	list_sort(joinrel->partial_pathlist, path_total_cost_cmp);

	/*
	 * The FDW's join path was offered before this hook, priced against the
	 * local paths as they were; add_path may have dropped it for a local
	 * path that looked cheaper, or dropped it since, when the join's other
	 * order added more. Offer it again now: the FDW remembers a join it has
	 * seen in fdw_private (postgres_fdw: its PgFdwRelationInfo), so that is
	 * cleared first. It costs the FDW's estimate again (with
	 * use_remote_estimate, an EXPLAIN on the server).
	 */
	if (!has_foreign_path(joinrel->pathlist) && joinrel->fdwroutine != NULL &&
		joinrel->fdwroutine->GetForeignJoinPaths != NULL)
	{
		joinrel->fdw_private = NULL;
		joinrel->fdwroutine->GetForeignJoinPaths(root, joinrel, outerrel, innerrel,
												 jointype, extra);
	}
	return true;
}
