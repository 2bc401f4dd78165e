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
#include "join_rows.h"
#include "exactgpu_engine.h"
#include "join_options.h"

static set_join_pathlist_hook_type prev_join_pathlist_hook = NULL;

/*
 * What the batch join costs, in the planner's units. Each constant is a
 * phase of the join measured at one thread on the 2-core build machine
 * (EXPLAIN ANALYZE of the cases of bench/sql/cost_model.sh, 2026-11-24:
 * bench/results/2026-11-24-cpu2-cost-model-threads.md), where one
 * cpu_operator_cost ("an op") is about 7.25 ns
 * (bench/results/2026-11-24-cpu2-cost-model.md).
 *
 * In the leader, one process (serial):
 */
/* a row read from a child, beyond cpu_tuple_cost: 0.15 us (100,000 points) */
#define EXACT_JOIN_ROW_OPS				16.0
/* a row stored in line copied: 0.8 ns a byte (20,000 holes of 812 bytes) */
#define EXACT_JOIN_COPY_OPS_PER_BYTE	0.1
/* a row stored out of line detoasted: 1.0-1.4 ns a byte (30 bodies of 690 kB,
 * 100 of 104 kB); 1.7 on the H100 machine (h100-read3) */
#define EXACT_JOIN_DETOAST_OPS_PER_BYTE	0.18

/* On the worker pool (parallel): */
/* parsing: 0.4 (bodies) to 1.0 (holes) ns a byte */
#define EXACT_JOIN_PARSE_OPS_PER_BYTE	0.1
/* 2D polygons are triangulated as they are parsed: 21 ns a byte (2,000
 * 33-gons); a point row's first bytes parse as in 3D */
#define EXACT_JOIN_PARSE_2D_OPS_PER_BYTE 3.0
#define EXACT_JOIN_POINT_BYTES			64.0
/* a primitive classified and put in the grid: 0.24-0.28 us (262,800 to
 * 674,097 primitives; 45 rather than 33-39 ops keeps the 20,000 holes x 100
 * bodies of 55 kB a nested loop on 2 cores, as it measured) */
#define EXACT_JOIN_PREP_OPS				45.0
/* a row pair of the box estimate: 0.5-1.0 us of tests (holes x bodies) */
#define EXACT_JOIN_PAIR_OPS				140.0
/*
 * ... of a point-in-solid join: a candidate is located through its body's
 * column, 2.5 us (15,353 samples x 29 bodies) against 0.3 us for a segment
 * against a triangle; priced so that this case, 5.6x slower batched than
 * row by row, stays a nested loop, and its EXISTS form (1.5x faster
 * batched: the nested loop's semi join is priced as an inner one) does not.
 */
#define EXACT_JOIN_SOLID_PAIR_OPS		320.0
/* The primitives of a row are not known: about 32 bytes each (a hole's
 * segment 26, a 2D polygon's triangle 19, a TIN's triangle 104 bytes). */
#define EXACT_JOIN_BYTES_PER_PRIM		32.0

/*
 * t threads run the parallel phases t^0.55 times faster: 1.37-1.57x on 2
 * (the 2-core machine, quiet), 2.8-6.4x on 11-16 (the H100 machine's 16
 * cores; its forced batch joins against these phases scaled by its slower
 * cores, on which the same nested loops ran 1.4-2.1x slower:
 * bench/results/2026-11-24-h100-custom-join-cost.md).
 */
#define EXACT_JOIN_THREAD_EXPONENT		0.55
/*
 * The parallel read: p processes detoast and flatten the out-of-line rows
 * p^0.73 times faster (16 read the large mine's bodies 7.6x faster than
 * one: 308 against 2,334 ms, h100-read3).
 */
#define EXACT_JOIN_READ_EXPONENT		0.73

/* The GPU, measured on the H100 machine (h100-read3, h100-custom-join-2): */
/* upload: the large mine's 1 GB in 34-59 ms, about 0.06 ns a byte */
#define EXACT_JOIN_UPLOAD_OPS_PER_BYTE	0.01
/* the join: 71-106 ms for its 10.6 million primitives, about 8 ns each */
#define EXACT_JOIN_GPU_PRIM_OPS			1.0
/*
 * A GPU join's fixed cost: 15-25 ms a join once the GPU is set up, and
 * 194-359 ms to set it up in a backend's first (25,000 units, 72 ms at
 * 2.9 us a unit, between the two). Starting the CPU's: the pool's dispatch.
 */
#define EXACT_JOIN_GPU_STARTUP			25000.0
/* ... and once this backend has set its GPU up (exg_gpu_setup_ns() > 0): 20 ms */
#define EXACT_JOIN_GPU_STARTUP_WARM		7000.0
#define EXACT_JOIN_CPU_STARTUP			50.0
/* A geometry column without statistics: a few dozen vertices. */
#define EXACT_JOIN_DEFAULT_WIDTH		1024


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

/*
 * The batch join of rows[k] rows of width[k] bytes (outer, inner) with
 * `pairs` row pairs estimated, children excluded, on the device the
 * executor will use: the serial part (reading, detoasting) once, the
 * parallel part (parsing, the engine) divided by what the threads gain.
 * Under exactgpu.device = auto the GPU where one may be, the join is big
 * enough for it (exactgpu.gpu_min_primitives, as the executor decides) and
 * it is the cheaper; *device says which.
 */
static Cost
batch_join_cost(ExactJoinPredicate pred, const double rows[2], const double width[2],
				double pairs, int *device)
{
	double		nrows = 0,
				bytes = 0,
				toast_bytes = 0,
				toast_rows = 0,
				inline_bytes = 0,
				prims = 0,
				parse = 0,
				serial,
				engine,
				pair_ops,
				procs,
				read_speedup,
				cpu,
				gpu;
	int			threads,
				parse_threads;

	for (int k = 0; k < 2; k++)
	{
		double		b = rows[k] * width[k];

		nrows += rows[k];
		bytes += b;
		/* PostGIS stores geometries compressed in line up to about 2 kB */
		if (width[k] > TOAST_TUPLE_THRESHOLD)
		{
			toast_bytes += b;
			toast_rows += rows[k];
		}
		else
			inline_bytes += b;
		prims += rows[k] * Max(1.0, width[k] / EXACT_JOIN_BYTES_PER_PRIM);
		parse += b * EXACT_JOIN_PARSE_OPS_PER_BYTE;
		if (pred == EXACT_PRED_2D)
			parse += rows[k] * Max(0.0, width[k] - EXACT_JOIN_POINT_BYTES) *
				EXACT_JOIN_PARSE_2D_OPS_PER_BYTE;
	}
	parse *= cpu_operator_cost;

	/* the leader reads every row; out-of-line ones it detoasts, unless workers do */
	serial = nrows * (cpu_tuple_cost + EXACT_JOIN_ROW_OPS * cpu_operator_cost) +
		inline_bytes * EXACT_JOIN_COPY_OPS_PER_BYTE * cpu_operator_cost;
	procs = 1 + exactgpu_read_workers_planned(toast_rows, inline_bytes, bytes);
	read_speedup = pow(procs, EXACT_JOIN_READ_EXPONENT);
	serial += toast_bytes * EXACT_JOIN_DETOAST_OPS_PER_BYTE * cpu_operator_cost / read_speedup;

	/* parsing on the pool, a row to a thread at most (or by the read's workers) */
	parse_threads = exactgpu_threads_planned(bytes, EXACTGPU_PARSE_BYTES_PER_THREAD);
	parse_threads = (int) Min((double) parse_threads, Max(nrows, 1.0));
	parse /= procs > 1 ? read_speedup : pow(parse_threads, EXACT_JOIN_THREAD_EXPONENT);

	/* the engine on the CPU: threads sized to the primitives, as at run time */
	pair_ops = pred == EXACT_PRED_SOLID3D ? EXACT_JOIN_SOLID_PAIR_OPS : EXACT_JOIN_PAIR_OPS;
	engine = (prims * EXACT_JOIN_PREP_OPS + pairs * pair_ops) * cpu_operator_cost;
	threads = exactgpu_threads_planned(prims, PRIMS_PER_THREAD);
	cpu = serial + parse + engine / pow(threads, EXACT_JOIN_THREAD_EXPONENT) +
		EXACT_JOIN_CPU_STARTUP;

	/* on the GPU: the same read, the uploads, the join */
	gpu = serial + parse +
		(exg_gpu_setup_ns() > 0 ? EXACT_JOIN_GPU_STARTUP_WARM : EXACT_JOIN_GPU_STARTUP) +
		(bytes * EXACT_JOIN_UPLOAD_OPS_PER_BYTE + prims * EXACT_JOIN_GPU_PRIM_OPS + pairs) *
		cpu_operator_cost;

	*device = exactgpu_device;
	if (*device == EXG_DEVICE_AUTO)
		*device = prims >= exactgpu_gpu_min_primitives && gpu < cpu && exg_gpu_present_hint()
			? EXG_DEVICE_GPU : EXG_DEVICE_CPU;
	return *device == EXG_DEVICE_GPU ? gpu : cpu;
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
	double		rows[2],
				width[2],
				pairs,
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
	startup = outer_path->total_cost + inner_path->total_cost +
		batch_join_cost(pred, rows, width, pairs, &device);
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
