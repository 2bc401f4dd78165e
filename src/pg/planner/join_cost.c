/*
 * join_cost.c — the prices of join_cost.h: a join's re-reads row by row,
 * and the batch join's read and join.
 */
#include "exactgpu.h"

#include <math.h>

#include "access/heaptoast.h"
#include "access/htup_details.h"
#include "catalog/pg_class.h"
#include "optimizer/cost.h"
#include "parser/parsetree.h"
#include "utils/syscache.h"

#include "exactgpu_engine.h"
#include "gpu_service.h"
#include "join_cost.h"
#include "invalid_rows.h"
#include "join_options.h"
#include "join_probe.h"
#include "join_rows.h"
#include "resident_store.h"

/*
 * Row by row: the outer argument is parsed once per outer row and then
 * cached (it is the most recently used entry on every call); the inner one
 * stays cached when the values it cycles through fit beside it, and is
 * re-read on every call otherwise. Only the larger argument's parses are
 * missing from the call's price (which counts the smaller's every call).
 */
Cost
exactgpu_reparse_cost(double calls, double outer_rows, double outer_width,
					  double inner_values, double inner_width, double room)
{
	Cost		cost = 0;

	if (inner_width > outer_width)
	{
		double		reads = inner_values > room ? calls : Min(calls, inner_values);

		cost += reads * exactgpu_call_reparse_cost(inner_width);
	}
	else
		cost += Min(calls, outer_rows) * exactgpu_call_reparse_cost(outer_width);
	return cost;
}

double
exactgpu_resident_share(PlannerInfo *root, Node *arg, bool as_side)
{
	Var		   *var;
	RangeTblEntry *rte;
	RelOptInfo *rel;
	HeapTuple	tup;
	Oid			toastrelid;
	uint64		geometry_bytes,
				side_bytes;
	double		total;

	if (!exactgpu_resident_enabled() || root == NULL || arg == NULL || !IsA(arg, Var))
		return 0;
	var = (Var *) arg;
	if (var->varlevelsup != 0 || var->varno <= 0 || var->varno >= root->simple_rel_array_size ||
		(rel = root->simple_rel_array[var->varno]) == NULL)
		return 0;
	rte = planner_rt_fetch(var->varno, root);
	if (rte->rtekind != RTE_RELATION)
		return 0;
	tup = SearchSysCache1(RELOID, ObjectIdGetDatum(rte->relid));
	if (!HeapTupleIsValid(tup))
		return 0;
	toastrelid = ((Form_pg_class) GETSTRUCT(tup))->reltoastrelid;
	ReleaseSysCache(tup);
	if (!exactgpu_resident_relation(toastrelid, &geometry_bytes, &side_bytes))
		return 0;
	/* the rows the query reads, taken to be the ones kept (the query asked again) */
	total = Max(rel->rows, 1.0) * exactgpu_geometry_width(root, arg);
	return Min(1.0, (double) (as_side ? side_bytes : geometry_bytes) / total);
}

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
/* ... and once this backend has set its GPU up (exg_gpu_setup_ns() > 0), or
 * when the GPU service runs the join on contexts it made once: 20 ms */
#define EXACT_JOIN_GPU_STARTUP_WARM		7000.0
#define EXACT_JOIN_CPU_STARTUP			50.0


/*
 * The probe join (exec/join_probe.c), which the executor runs instead of
 * the batch join wherever exactgpu_probe_rule takes it: the small side's
 * rows prepared one by one, each (row, body) pair whose boxes meet tested
 * against the body's prepared form (BVH), the bodies borrowed from the
 * resident store, or prepared and kept there by this join when they are
 * not. Measured at one thread on the 2-core build machine, store warm,
 * 20 to 1,000 holes of 850 bytes (33 segments) against the 20 bodies of
 * the demo mine (1 MB each) and of a generated one (minegen --holes 4000
 * --bodies 20 --triangles 2000000: 10 MB each), the phases of the probe's
 * progress NOTICE (bench/results/2026-11-27-cpu2-probe-plan.md).
 *
 * A row prepared for the join (the small side's, and bodies not borrowed):
 * parsed, its views and box index built, 1.6 us a point quiet (15,352
 * points as the bodies of 28 cubes), 6.4 us with the machine loaded; then
 * 0.8 ops a byte (8 us a hole of 850 bytes).
 */
#define PROBE_PREPARE_ROW_OPS			400.0
#define PROBE_PREPARE_OPS_PER_BYTE		0.8
/* a resident body: its key (the first TOAST chunk, through the TOAST
 * table's index), pinned and borrowed: 6-11 us */
#define PROBE_BODY_OPS					1000.0
/* a body stored out of line and not kept yet: also detoasted and its block
 * written into the store, 7.9-8.1 ns a byte in all (20 bodies of 1 MB
 * 147-174 ms, of 10 MB 1,571-1,750 ms: the store emptied first) */
#define PROBE_KEEP_OPS_PER_BYTE			0.3
/* a (row, body) box test, every row against every body: about 12 ns
 * (28 cubes x 15,352 points, 5 ms beside the phases the NOTICE names) */
#define PROBE_BOX_OPS					2.0
/*
 * A pair's tests: every primitive of the small row (EXACT_JOIN_BYTES_PER_PRIM)
 * descends the body's BVH and tests the triangles near it, as many as the
 * square root of the body's bytes foretells (a segment's box meets a patch
 * of the surface): 4 us a pair whose boxes meet with bodies of 1 MB, 11 us
 * with 10 MB. The constant is per pair of the planner's estimate (the box
 * operator's join selectivity, as EXACT_JOIN_PAIR_OPS is), which on both
 * mines was 4.8-6.1x the pairs whose boxes met: 0.69 us an estimated pair
 * with bodies of 1 MB, 2.25 us with 10 MB (500 holes).
 */
#define PROBE_PAIR_OPS_PER_PRIM_SQRT_BYTE 0.0036

/*
 * The probe's price: side[body] the bodies, kept[body] the share of them
 * resident (exactgpu_resident_share, as prepared geometries); width[k] the
 * sides' average row bytes. The leader reads every row (as the batch join
 * does), prepares the small side's rows and the bodies not borrowed (those
 * stored out of line it keeps); the box tests and the pairs' tests run on
 * threads sized to the small side, as at run time.
 */
static Cost
probe_join_cost(const ExactgpuProbeSide side[2], const double width[2], const double kept[2],
				double pairs, int body)
{
	const ExactgpuProbeSide *bodies = &side[body],
			   *rows = &side[1 - body];
	double		resident = Max(0.0, Min(kept[body], 1.0)),
				toast_bytes = bodies->bytes - bodies->inline_bytes,
				borrowed = bodies->toast_rows * resident,
				serial,
				parallel;
	int			threads;

	serial = (side[0].rows + side[1].rows) *
		(cpu_tuple_cost + EXACT_JOIN_ROW_OPS * cpu_operator_cost) +
		(side[0].inline_bytes + side[1].inline_bytes) * EXACT_JOIN_COPY_OPS_PER_BYTE * cpu_operator_cost;
	serial += ((rows->rows + bodies->rows - borrowed) * PROBE_PREPARE_ROW_OPS +
			   (rows->bytes + bodies->bytes - toast_bytes * resident) * PROBE_PREPARE_OPS_PER_BYTE +
			   toast_bytes * (1 - resident) * PROBE_KEEP_OPS_PER_BYTE +
			   borrowed * PROBE_BODY_OPS) * cpu_operator_cost;
	parallel = (side[0].rows * side[1].rows * PROBE_BOX_OPS +
				pairs * Max(1.0, width[1 - body] / EXACT_JOIN_BYTES_PER_PRIM) *
				PROBE_PAIR_OPS_PER_PRIM_SQRT_BYTE * sqrt(width[body])) * cpu_operator_cost;
	threads = exactgpu_threads_planned(rows->bytes / EXACTGPU_PROBE_BYTES_PER_VERTEX,
									   PRIMS_PER_THREAD);
	/* one thread runs without the pool (no parallel region to start) */
	return serial + parallel / pow(threads, EXACT_JOIN_THREAD_EXPONENT) +
		(threads > 1 ? EXACT_JOIN_CPU_STARTUP : 0);
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
Cost
exactgpu_batch_join_cost(ExactJoinPredicate pred, const double rows[2], const double width[2],
						 const double resident[2], const double kept[2], double pairs,
						 int *device)
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
	bool		service;
	ExactgpuProbeSide side[2];
	int			body;

	/* the executor's rule, asked of the estimates: the probe's price where it will probe */
	for (int k = 0; k < 2; k++)
	{
		side[k].rows = rows[k];
		side[k].bytes = rows[k] * width[k];
		/* out of line as below */
		side[k].toast_rows = width[k] > TOAST_TUPLE_THRESHOLD ? rows[k] : 0;
		side[k].inline_bytes = width[k] > TOAST_TUPLE_THRESHOLD ? 0 : side[k].bytes;
	}
	/*
	 * Without the store the executor probes only bodies of at most 1 MB in
	 * all, each prepared for that one join: there the batch join's price
	 * stays, as the nested loops it is weighed against are priced from the
	 * box estimate, which for many small rows can be several times the
	 * rows (28 cubes x 15,352 points, custom_join_solid: the probe 29 ms,
	 * the nested loop 8.4 ms; the probe priced, 20,261 against the nested
	 * loop's 29,760).
	 */
	body = !exactgpu_resident_enabled() ? -1 :
		exactgpu_probe_rule(pred == EXACT_PRED_SOLID3D ? EXACTGPU_JOIN_VOLUME : EXACTGPU_JOIN_INTERSECTS,
							pred == EXACT_PRED_2D ? 2 : 3,
							exactgpu_invalid_rows == EXACTGPU_INVALID_ROWS_SKIP, side);
	if (body >= 0)
	{
		*device = EXG_DEVICE_CPU;
		return probe_join_cost(side, width, kept, pairs, body);
	}

	for (int k = 0; k < 2; k++)
	{
		/* a resident side's rows are still read, its bytes borrowed, not parsed */
		double		unread = Max(0.0, Min(resident[k], 1.0)),
					b = rows[k] * width[k] * (1 - unread);

		nrows += rows[k];
		bytes += b;
		/* PostGIS stores geometries compressed in line up to about 2 kB */
		if (width[k] > TOAST_TUPLE_THRESHOLD)
		{
			toast_bytes += b;
			toast_rows += rows[k] * (1 - unread);
		}
		else
			inline_bytes += b;
		prims += rows[k] * Max(1.0, width[k] / EXACT_JOIN_BYTES_PER_PRIM);
		parse += b * EXACT_JOIN_PARSE_OPS_PER_BYTE;
		if (pred == EXACT_PRED_2D)
			parse += rows[k] * (1 - unread) * Max(0.0, width[k] - EXACT_JOIN_POINT_BYTES) *
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
	service = exactgpu_service_has_gpus();
	gpu = serial + parse +
		(exg_gpu_setup_ns() > 0 || service ? EXACT_JOIN_GPU_STARTUP_WARM : EXACT_JOIN_GPU_STARTUP) +
		(bytes * EXACT_JOIN_UPLOAD_OPS_PER_BYTE + prims * EXACT_JOIN_GPU_PRIM_OPS + pairs) *
		cpu_operator_cost;

	*device = exactgpu_device;
	if (*device == EXG_DEVICE_AUTO)
		*device = prims >= exactgpu_gpu_min_primitives && gpu < cpu &&
			(service || exg_gpu_present_hint())
			? EXG_DEVICE_GPU : EXG_DEVICE_CPU;
	return *device == EXG_DEVICE_GPU ? gpu : cpu;
}
