/*
 * nestloop_cost.c — what a join that calls one of our predicates on each
 * pair (a nested loop's join filter, a hash or merge join's) really reads.
 *
 * PostgreSQL prices such a filter as the function's cost times the pairs,
 * and our price of a call (support.c) holds its larger argument cached.
 * That is true while the values the inner side cycles through fit in the
 * call site's geometry cache beside the outer's (geom_cache.c keeps 8): 14
 * bodies of 604 kB against 1,680 points, NOT EXISTS as a nested loop, is
 * 23,520 calls that each detoast and parse a body again, over 90 s priced
 * as 35 ms, where the batch join takes 0.35 s. So each such path is charged
 * what it re-reads (join_cost.c), right after the core made it: the join
 * path hook runs at the end of add_paths_to_joinrel, before our own paths
 * are offered and before the join rel's cheapest path is chosen.
 *
 * A path is charged once: the hook is called once per (outer rel, inner
 * rel, join type) and only the paths of that call are looked at (the
 * unique-ified variants of a semi join are inner joins of their own call);
 * what a later call pushes out uncharged is offered again (offer_again).
 * Parameterized index scans that run the predicate are priced where they
 * are made (param_scan_cost.c); their clause is not in the join's filter.
 */
#include "exactgpu.h"

#include <math.h>

#include "nodes/pathnodes.h"
#include "optimizer/cost.h"
#include "optimizer/optimizer.h"
#include "optimizer/pathnode.h"
#include "utils/memutils.h"

#include "exact_clause.h"
#include "join_cost.h"

/* Does the join leave an outer row at its first match (and so visit the inner values unevenly)? */
static bool
stops_early(JoinPath *jp, JoinPathExtraData *extra)
{
	return jp->jointype == JOIN_SEMI || jp->jointype == JOIN_ANTI || extra->inner_unique;
}

/* How many pairs path's filter is called on (per process for a partial path). */
static double
filter_calls(PlannerInfo *root, JoinPath *jp, RestrictInfo *ri, JoinPathExtraData *extra)
{
	double		outer_rows = jp->outerjoinpath->rows,
				inner_rows = jp->innerjoinpath->rows,
				all = outer_rows * inner_rows;

	if (IsA(jp, NestPath))
	{
		/* as final_cost_nestloop: a matched outer row stops early */
		if (stops_early(jp, extra))
		{
			double		frac = extra->semifactors.outer_match_frac;
			double		scan = 2.0 / (extra->semifactors.match_count + 1.0);

			return outer_rows * inner_rows * (frac * Min(scan, 1.0) + (1 - frac));
		}
		return all;
	}
	/* hash and merge joins: the pairs their own clauses let through */
	{
		Selectivity sel = clause_selectivity(root, (Node *) ri->clause, 0, JOIN_INNER,
											 extra->sjinfo);

		return Min(all, jp->path.rows / Max(sel, 1e-10));
	}
}

/* What jp re-reads beyond its calls' price. */
static Cost
reparse_of(PlannerInfo *root, JoinPath *jp, RelOptInfo *outerrel, RelOptInfo *innerrel,
		   JoinPathExtraData *extra)
{
	Cost		cost = 0;
	ListCell   *lc;

	foreach(lc, jp->joinrestrictinfo)
	{
		RestrictInfo *ri = lfirst_node(RestrictInfo, lc);
		FuncExpr   *f;
		Node	   *outer_arg,
				   *inner_arg;

		if (exactgpu_exact_call_of((Node *) ri->clause) == EXACT_PRED_NONE)
			continue;
		f = (FuncExpr *) ri->clause;
		if (bms_is_subset(pull_varnos(root, linitial(f->args)), outerrel->relids) &&
			bms_is_subset(pull_varnos(root, lsecond(f->args)), innerrel->relids))
		{
			outer_arg = linitial(f->args);
			inner_arg = lsecond(f->args);
		}
		else if (bms_is_subset(pull_varnos(root, lsecond(f->args)), outerrel->relids) &&
				 bms_is_subset(pull_varnos(root, linitial(f->args)), innerrel->relids))
		{
			outer_arg = lsecond(f->args);
			inner_arg = linitial(f->args);
		}
		else
			continue;
		/* the inner side cycles through its rel's rows (a parameterized
		 * inner's few rows a loop change from loop to loop); a re-read of a
		 * body the resident store holds prepared is a borrow, not a parse */
		cost += exactgpu_reparse_cost(filter_calls(root, jp, ri, extra),
									  jp->outerjoinpath->rows,
									  exactgpu_geometry_width(root, outer_arg),
									  Max(innerrel->rows, jp->innerjoinpath->rows),
									  exactgpu_geometry_width(root, inner_arg),
									  stops_early(jp, extra) ? EXACT_CACHE_ROOM_EARLY_STOP
									  : EXACT_CACHE_ROOM) *
			(1 - exactgpu_resident_share(root, exactgpu_geometry_width(root, inner_arg) >
										 exactgpu_geometry_width(root, outer_arg)
										 ? inner_arg : outer_arg, false));
	}
	return cost;
}

/*
 * A path charged in one call of the hook can be pushed out in a later call
 * for the same join rel by one not yet charged (the other join order, made
 * by add_path before the hook sees it), and add_path frees what it pushes
 * out. So each charged path is kept as a copy and offered again, charged,
 * after the later call's own paths are charged: add_path then compares like
 * with like. The copies live in the planner's memory context and are
 * forgotten with it (and are not kept where paths are made in a context of
 * their own, as GEQO's).
 */
typedef struct ChargedPath
{
	RelOptInfo *joinrel;
	Path	   *path;			/* as it is in the join rel's list, if still there */
	Path	   *copy;
	bool		partial;
} ChargedPath;

static List *charged = NIL;
static MemoryContext charged_cxt = NULL;

static void
forget_charged(void *arg)
{
	charged = NIL;
	charged_cxt = NULL;
}

static Path *
copy_path(Path *path)
{
	Size		size = IsA(path, NestPath) ? sizeof(NestPath) :
		IsA(path, HashPath) ? sizeof(HashPath) : sizeof(MergePath);
	Path	   *copy = palloc(size);

	memcpy(copy, path, size);
	return copy;
}

static void
remember(RelOptInfo *joinrel, Path *path, bool partial)
{
	ChargedPath *c;

	if (charged_cxt == NULL)
	{
		MemoryContextCallback *cb = palloc0(sizeof(MemoryContextCallback));

		cb->func = forget_charged;
		MemoryContextRegisterResetCallback(CurrentMemoryContext, cb);
		charged_cxt = CurrentMemoryContext;
	}
	else if (charged_cxt != CurrentMemoryContext)
		return;
	c = palloc(sizeof(ChargedPath));
	c->joinrel = joinrel;
	c->path = path;
	c->copy = copy_path(path);
	c->partial = partial;
	charged = lappend(charged, c);
}

/* Offer again joinrel's charged paths that a later call pushed out. */
static void
offer_again(RelOptInfo *joinrel)
{
	ListCell   *lc;

	if (charged_cxt != CurrentMemoryContext)
		return;
	foreach(lc, charged)
	{
		ChargedPath *c = lfirst(lc);
		List	   *paths;

		if (c->joinrel != joinrel || c->path == NULL)
			continue;
		paths = c->partial ? joinrel->partial_pathlist : joinrel->pathlist;
		if (list_member_ptr(paths, c->path))
			continue;
		c->path = c->copy;
		c->copy = copy_path(c->path);
		if (c->partial)
			add_partial_path(joinrel, c->path);
		else
			add_path(joinrel, c->path);
		paths = c->partial ? joinrel->partial_pathlist : joinrel->pathlist;
		/* lost again, fairly this time: nothing to keep */
		if (!list_member_ptr(paths, c->path))
			c->path = NULL;
	}
}

static void
charge_paths(PlannerInfo *root, RelOptInfo *joinrel, bool partial, RelOptInfo *outerrel,
			 RelOptInfo *innerrel, JoinType jointype, JoinPathExtraData *extra)
{
	JoinType	made = jointype == JOIN_UNIQUE_INNER || jointype == JOIN_UNIQUE_OUTER
		? JOIN_INNER : jointype;
	ListCell   *lc;

	foreach(lc, partial ? joinrel->partial_pathlist : joinrel->pathlist)
	{
		Path	   *path = lfirst(lc);
		JoinPath   *jp;
		Cost		cost;

		if (!IsA(path, NestPath) && !IsA(path, HashPath) && !IsA(path, MergePath))
			continue;
		jp = (JoinPath *) path;
		if (jp->jointype != made || jp->outerjoinpath->parent != outerrel ||
			jp->innerjoinpath->parent != innerrel)
			continue;
		cost = reparse_of(root, jp, outerrel, innerrel, extra);
		if (cost <= 0)
			continue;
		path->total_cost += cost;
		remember(joinrel, path, partial);
	}
}

void
exactgpu_nestloop_cost(PlannerInfo *root, RelOptInfo *joinrel, RelOptInfo *outerrel,
					   RelOptInfo *innerrel, JoinType jointype, JoinPathExtraData *extra)
{
	charge_paths(root, joinrel, false, outerrel, innerrel, jointype, extra);
	charge_paths(root, joinrel, true, outerrel, innerrel, jointype, extra);
	offer_again(joinrel);
}
