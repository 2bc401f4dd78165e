/*
 * join_options.c — exactgpu.* settings of the joins and the last join's report.
 */
#include "join_options.h"

#include <math.h>

#include "access/htup_details.h"
#include "funcapi.h"
#include "utils/builtins.h"
#include "utils/guc.h"

#include "gpu_service.h"
#include "join_result.h"
#include "exactgpu_engine.h"

int			exactgpu_device = EXG_DEVICE_AUTO;
int			exactgpu_filter_precision = EXG_FILTER_FLOAT;
int			exactgpu_grid_cells = 0;
int			exactgpu_first_stage = EXG_CULL_AUTO;
int			exactgpu_worker_threads = 0;
int			exactgpu_gpu_memory_limit_mb = 0;
int			exactgpu_memory_limit_mb = 0;
int			exactgpu_gpu_min_primitives = 65536;
bool		exactgpu_progress = false;
int			exactgpu_parallel_read = EXACTGPU_PARALLEL_READ_AUTO;
bool		exactgpu_read_in_place = true;
bool		exactgpu_read_biggest_first = true;

/* defined here so that nothing calls back into the module file (exactgpu.c) */
int			exactgpu_nonplanar_faces = EXG_NONPLANAR_ERROR;
bool		exactgpu_preloaded = false;
/* ... nor into the result rows (join_result.c), which read it */
int			exactgpu_result_memory_kb = RESULT_MEMORY_MAX_KB;
/* ... nor into the planner (custom_join.c) from the custom scans' shared code */
bool		exactgpu_enable_batch_join = true;
bool		exactgpu_probe_join = true;

ExactgpuJoinReport exactgpu_last_join;

static const struct config_enum_entry device_options[] = {
	{"auto", EXG_DEVICE_AUTO, false},
	{"gpu", EXG_DEVICE_GPU, false},
	{"cpu", EXG_DEVICE_CPU, false},
	{NULL, 0, false}
};

static const struct config_enum_entry filter_options[] = {
	{"float", EXG_FILTER_FLOAT, false},
	{"double", EXG_FILTER_DOUBLE, false},
	{NULL, 0, false}
};

static const struct config_enum_entry parallel_read_options[] = {
	{"auto", EXACTGPU_PARALLEL_READ_AUTO, false},
	{"always", EXACTGPU_PARALLEL_READ_ALWAYS, false},
	{"off", EXACTGPU_PARALLEL_READ_OFF, false},
	{NULL, 0, false}
};

static const struct config_enum_entry first_stage_options[] = {
	{"auto", EXG_CULL_AUTO, false},
	{"cell_pairs", EXG_CULL_CELL_PAIRS, false},
	{"box_join", EXG_CULL_BOX_JOIN, false},
	{NULL, 0, false}
};

void
exactgpu_define_join_gucs(void)
{
	DefineCustomEnumVariable("exactgpu.device",
							 "Where batch joins run: auto (the GPU when one is usable), gpu, or cpu.",
							 "gpu raises an error when no GPU is usable; answers never depend on this.",
							 &exactgpu_device, EXG_DEVICE_AUTO, device_options,
							 PGC_USERSET, 0, NULL, NULL, NULL);
	DefineCustomEnumVariable("exactgpu.filter_precision",
							 "First interval filter of GPU joins: float (then double) or double.",
							 NULL, &exactgpu_filter_precision, EXG_FILTER_FLOAT, filter_options,
							 PGC_USERSET, 0, NULL, NULL, NULL);
	DefineCustomIntVariable("exactgpu.grid_cells",
							"Target number of uniform grid cells of a join (0 = automatic).",
							NULL, &exactgpu_grid_cells, 0, 0, 1 << 25,
							PGC_USERSET, 0, NULL, NULL, NULL);
	DefineCustomEnumVariable("exactgpu.parallel_read",
							 "When batch joins read their inputs with parallel workers: auto, always or off.",
							 "auto: when reading serially would take over twice the workers' start-up, as last measured in this backend (they load every library the backend has loaded, unless shared_preload_libraries has them); always: whenever PostgreSQL grants workers and there are 8 MB to read. Answers never depend on this.",
							 &exactgpu_parallel_read, EXACTGPU_PARALLEL_READ_AUTO, parallel_read_options,
							 PGC_USERSET, 0, NULL, NULL, NULL);
	DefineCustomBoolVariable("exactgpu.read_in_place",
							 "Let the parallel read's processes lay a side of out-of-line rows out in place (developer option).",
							 "off: the leader gathers every row into the batch, as before 0.2.0 (for comparison in benchmarks). Answers never depend on this.",
							 &exactgpu_read_in_place, true,
							 PGC_USERSET, GUC_NOT_IN_SAMPLE, NULL, NULL, NULL);
	DefineCustomBoolVariable("exactgpu.read_biggest_first",
							 "Let the parallel read's processes take the biggest rows first (developer option).",
							 "off: they take the rows in query order, as before 0.2.0 (for comparison in benchmarks). Answers and errors never depend on this.",
							 &exactgpu_read_biggest_first, true,
							 PGC_USERSET, GUC_NOT_IN_SAMPLE, NULL, NULL, NULL);
	DefineCustomEnumVariable("exactgpu.join_first_stage",
							 "How exact joins find candidate pairs: auto, cell_pairs (every pair sharing a grid cell) or box_join.",
							 "auto takes the box join on the GPU from 2^20 primitives; answers never depend on this.",
							 &exactgpu_first_stage, EXG_CULL_AUTO, first_stage_options,
							 PGC_USERSET, 0, NULL, NULL, NULL);
	DefineCustomIntVariable("exactgpu.worker_threads",
							"CPU worker threads of a join and of its exact (GMP) stage (0 = all cores).",
							"Never more than the cores of the server, nor more than the backend can create.",
							&exactgpu_worker_threads, 0, 0, 1024,
							PGC_USERSET, 0, NULL, NULL, NULL);
	DefineCustomIntVariable("exactgpu.memory_limit",
							"Host memory one join may take for its grids and for result rows kept in memory (0 = a quarter of the physical memory).",
							"Grids are made coarser to fit; never more than half the room left under the server's address-space limit. Superuser only.",
							&exactgpu_memory_limit_mb, 0, 0, INT_MAX,
							PGC_SUSET, GUC_UNIT_MB, NULL, NULL, NULL);
	DefineCustomIntVariable("exactgpu.gpu_memory_limit",
							"GPU memory a join may use, in MB (0 = 80% of the free memory).",
							"Larger joins run in chunks.",
							&exactgpu_gpu_memory_limit_mb, 0, 0, INT_MAX,
							PGC_USERSET, GUC_UNIT_MB, NULL, NULL, NULL);
	DefineCustomIntVariable("exactgpu.result_memory",
							"Memory the result rows of a batch join may take before they spill to a temporary file.",
							"Like work_mem, but for join results, which can be tens of millions of rows. At most 256MB are kept (a larger first spill could not be canceled quickly), and never more than exactgpu.memory_limit.",
							&exactgpu_result_memory_kb, RESULT_MEMORY_MAX_KB, 64, MAX_KILOBYTES,
							PGC_USERSET, GUC_UNIT_KB, NULL, NULL, NULL);
	DefineCustomIntVariable("exactgpu.gpu_min_primitives",
							"With exactgpu.device = auto, batch joins of fewer primitives (both sides) run on the CPU.",
							"A small join is done on the CPU before a GPU would have started (the first GPU join of a backend creates a CUDA context); 0 sends every join to the GPU. Answers never depend on this.",
							&exactgpu_gpu_min_primitives, 65536, 0, INT_MAX,
							PGC_USERSET, 0, NULL, NULL, NULL);
	DefineCustomBoolVariable("exactgpu.probe_join",
							 "Let a batch join of a few rows against big bodies test only the (row, body) pairs whose boxes meet, against the bodies' prepared forms.",
							 "Taken when one side is small and the other big bodies (kept in the resident store, or small enough to prepare for one join); off: every batch join flattens both sides. Answers never depend on this.",
							 &exactgpu_probe_join, true,
							 PGC_USERSET, 0, NULL, NULL, NULL);
	DefineCustomBoolVariable("exactgpu.progress",
							 "Report the phases of batch joins as NOTICEs.",
							 NULL, &exactgpu_progress, false,
							 PGC_USERSET, 0, NULL, NULL, NULL);
}

/* exactgpu.worker_threads, or the cores for 0 or more than the cores */
static int
threads_configured(void)
{
	int			n = exactgpu_worker_threads;

	/* more threads than cores only slow a join and take PIDs from the server */
	if (n <= 0 || n > exg_engine_cpus())
		n = exg_engine_cpus();
	return n;
}

int
exactgpu_threads(void)
{
	return exg_engine_workers_start(threads_configured());
}

int
exactgpu_threads_for(uint64 work, uint64 per_thread)
{
	return exg_engine_workers_start(exactgpu_threads_planned((double) work, per_thread));
}

int
exactgpu_threads_planned(double work, uint64 per_thread)
{
	int			n = threads_configured();

	if (exactgpu_worker_threads == 0 && per_thread > 0)
		n = (int) Min((double) n, Max(floor(work / per_thread), 1.0));
	return n;
}

size_t
exactgpu_memory_budget(void)
{
	return exg_engine_memory_budget((size_t) exactgpu_memory_limit_mb * 1024 * 1024);
}

static const char *
join_options(exg_join_options *opt, uint64 work, uint64 per_thread, bool planned_cpu,
			 bool for_service)
{
	const char *cpu_because = NULL;

	exg_join_options_default(opt);
	opt->device = (exg_device) exactgpu_device;
	if (opt->device == EXG_DEVICE_AUTO)
	{
		if (work < (uint64) exactgpu_gpu_min_primitives)
			cpu_because = "below exactgpu.gpu_min_primitives";
		else if (planned_cpu)
			cpu_because = "as planned";
		if (cpu_because)
			opt->device = EXG_DEVICE_CPU;
	}
	opt->filter = (exg_filter_precision) exactgpu_filter_precision;
	opt->grid_cells = (uint32_t) exactgpu_grid_cells;
	opt->cull = (exg_cull_stage) exactgpu_first_stage;
	opt->worker_threads = per_thread > 0 ? exactgpu_threads_for(work, per_thread)
		: exactgpu_threads();
	opt->gpu_memory_limit = (size_t) exactgpu_gpu_memory_limit_mb * 1024 * 1024;
	opt->memory_limit = exactgpu_memory_budget();
	/*
	 * With the GPU service a backend creates no CUDA context: what the
	 * service does not run (box joins, a body's self-join) runs here on
	 * the CPU, and says so.
	 */
	if (!for_service && opt->device != EXG_DEVICE_CPU && exactgpu_service_serves())
	{
		opt->device = EXG_DEVICE_CPU;
		cpu_because = "the GPU service runs batch joins only";
	}
	return cpu_because;
}

const char *
exactgpu_join_options(exg_join_options *opt, uint64 work, uint64 per_thread, bool planned_cpu)
{
	return join_options(opt, work, per_thread, planned_cpu, false);
}

const char *
exactgpu_join_options_service(exg_join_options *opt, uint64 work, uint64 per_thread,
							  bool planned_cpu)
{
	return join_options(opt, work, per_thread, planned_cpu, true);
}

PG_FUNCTION_INFO_V1(exactgpu_last_join_stats);

/* One row: the last batch join of this backend, phase by phase. */
Datum
exactgpu_last_join_stats(PG_FUNCTION_ARGS)
{
	const ExactgpuJoinReport *r = &exactgpu_last_join;
	const exg_join_stats *s = &r->stats;
	TupleDesc	tupdesc;
	Datum		v[30];
	bool		n[30] = {0};
	int			i = 0;
	char		grid[64];

	if (!r->valid)
		PG_RETURN_NULL();
	if (get_call_result_type(fcinfo, NULL, &tupdesc) != TYPEFUNC_COMPOSITE)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("exactgpu_last_join_stats: function returning record called in context that cannot accept type record")));
	tupdesc = BlessTupleDesc(tupdesc);
	snprintf(grid, sizeof(grid), "%ux%ux%u", s->grid_dims[0], s->grid_dims[1], s->grid_dims[2]);

	v[i++] = CStringGetTextDatum(s->device_name);
	v[i++] = CStringGetTextDatum(r->semantics);
	v[i++] = Int64GetDatum((int64) r->left_rows);
	v[i++] = Int64GetDatum((int64) r->right_rows);
	v[i++] = Int64GetDatum((int64) r->left_prims);
	v[i++] = Int64GetDatum((int64) r->right_prims);
	v[i++] = CStringGetTextDatum(grid);
	v[i++] = Int64GetDatum((int64) s->candidates);
	v[i++] = Int64GetDatum((int64) s->hits);
	v[i++] = Int64GetDatum((int64) s->unknown_first);
	v[i++] = Int64GetDatum((int64) s->unknown_second);
	v[i++] = Int64GetDatum((int64) s->exact_pairs);
	v[i++] = Int64GetDatum((int64) r->row_pairs);
	v[i++] = Float8GetDatum(r->read_ms);
	v[i++] = Float8GetDatum(s->phase_ns[EXG_PHASE_UPLOAD] / 1e6);
	v[i++] = Float8GetDatum((s->phase_ns[EXG_PHASE_CLASSIFY] + s->phase_ns[EXG_PHASE_GRID]) / 1e6);
	v[i++] = Float8GetDatum((s->phase_ns[EXG_PHASE_CULL] + s->phase_ns[EXG_PHASE_TEST] +
							 s->phase_ns[EXG_PHASE_REFINE]) / 1e6);
	v[i++] = Float8GetDatum(s->phase_ns[EXG_PHASE_EXACT] / 1e6);
	v[i++] = Float8GetDatum((s->phase_ns[EXG_PHASE_DEDUPE] + s->phase_ns[EXG_PHASE_DOWNLOAD] +
							 s->phase_ns[EXG_PHASE_MERGE]) / 1e6);
	v[i++] = Float8GetDatum(r->join_ms);
	v[i++] = Float8GetDatum(r->total_ms);
	v[i++] = Int32GetDatum((int32) s->waves);
	v[i++] = Int32GetDatum((int32) s->splits);
	v[i++] = Int64GetDatum((int64) s->contained);
	v[i++] = CStringGetTextDatum(r->read_parallel ? "parallel" : "serial");
	v[i++] = Int32GetDatum((int32) r->read_workers);
	v[i++] = Int32GetDatum((int32) r->read_resident);
	v[i++] = Int64GetDatum((int64) r->resident_rows);
	v[i++] = Int64GetDatum((int64) r->resident_bytes);
	v[i++] = Int64GetDatum((int64) r->read_bytes);
	PG_RETURN_DATUM(HeapTupleGetDatum(heap_form_tuple(tupdesc, v, n)));
}
