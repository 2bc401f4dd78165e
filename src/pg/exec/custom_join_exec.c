/*
 * custom_join_exec.c — the executor half of the ExactJoin custom join.
 *
 * On its first call the node reads both children whole, keeping each row as
 * a MinimalTuple and each geometry's bytes for the engine; the engine parses
 * the geometries on all cores and joins them (GPU or CPU); the node then
 * hands one joined row upward per call, formed from the two stored rows
 * (the scan tuple is an outer row beside an inner row; the plan's target
 * list and qual read it through INDEX_VAR). Nothing is materialized twice:
 * a LIMIT above stops the streaming, not a result store.
 *
 * The answer is that of the predicate called row by row: a NULL geometry
 * meets nothing (the predicates are strict), an empty one meets nothing, a
 * surface is a surface whatever its solid flag (ST_ExactIntersects3D), or
 * the first argument's bodies are closed volumes (ST_ExactIntersectsSolid3D,
 * as its batch form ST_ExactIntersectsSolid3DJoin joins them). Mixed SRIDs,
 * in 3D a geometry without Z against one with Z, or a body that is not
 * closed are an error wherever they are in the input,
 * as a nested loop without an index, which calls the predicate on every
 * pair, would find them; one with an index calls it only on pairs whose
 * boxes meet.
 */
#include "exactgpu.h"

#include "catalog/pg_class.h"
#include "commands/explain.h"
#include "executor/executor.h"
#include "executor/tuptable.h"
#include "miscadmin.h"
#include "nodes/extensible.h"
#include "nodes/nodeFuncs.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/ruleutils.h"

#include "custom_join.h"
#include "custom_join_common.h"
#include "custom_join_outer.h"
#include "geom_cache.h"
#include "join_driver.h"
#include "join_options.h"
#include "resident_store.h"

/* One input of the engine join: the rows of one child. */
typedef struct ExactJoinSide
{
	ExactJoinChild child;		/* its plan, columns, and the clause's argument */
	bool		keep_nulls;		/* keep rows without geometry (outer of semi/anti) */
	MinimalTuple *tuples;		/* the rows read */
	size_t		ntuples;
	size_t		cap;
	int64	   *row_tuple;		/* engine row -> index into tuples */
	uint64		rows;			/* engine rows (geometry not NULL) */
	uint64		prims;
	uint64		nulls;
	Oid			toastrel;		/* the last TOAST pointer's relation */
	bool		toastrel_shared;	/* is it readable by parallel workers */
} ExactJoinSide;

typedef struct ExactJoinState
{
	CustomScanState css;
	FuncExpr   *clause;
	ExactJoinPredicate pred;
	int			naxes;
	int			device;			/* as planned */
	JoinType	jointype;
	const char *context;		/* the predicate's name, for messages */
	/* side[0] gives the clause's first argument, side[1] its second */
	ExactJoinSide side[2];
	int			outer;			/* which side is the outer child */
	Bitmapset  *clause_params;	/* PARAM_EXEC ids the clause's arguments read */
	MemoryContext run_cxt;		/* one run's rows and result (and the engine's
								 * memory, freed with it) */
	bool		joined;
	ExactgpuJoin *join;			/* the run's batch join (join_driver.c) */
	uint64_t   *pairs;			/* (side 0 row << 32) | side 1 row, sorted */
	size_t		npairs;
	bool	   *matched;		/* semi/anti: outer tuples with a match */
	ExactOuterJoin oj;			/* outer joins, semi/anti with ON clauses (custom_join_outer.c) */
	size_t		next;			/* next pair, or next outer tuple */
	int64		shown_left;		/* tuple of side 0 now in the scan slot */
	/* for EXPLAIN ANALYZE, summed over runs */
	int			runs;
	exg_join_stats stats;
	char		device_used[96];
	double		read_ms;
	int			resident_sides; /* summed over runs: sides borrowed, not read */
	bool		resident_on;	/* the store was on: say what was borrowed and read */
	uint64		resident_rows,
				resident_bytes,
				read_bytes;
	double		join_ms;
} ExactJoinState;

static Node *exact_join_create_state(CustomScan *cscan);
static void exact_join_begin(CustomScanState *node, EState *estate, int eflags);
static TupleTableSlot *exact_join_exec(CustomScanState *node);
static void exact_join_end(CustomScanState *node);
static void exact_join_rescan(CustomScanState *node);
static void exact_join_explain(CustomScanState *node, List *ancestors, ExplainState *es);

const CustomScanMethods exactgpu_join_scan_methods = {
	.CustomName = EXACT_JOIN_NAME,
	.CreateCustomScanState = exact_join_create_state,
};

static const CustomExecMethods exact_join_exec_methods = {
	.CustomName = EXACT_JOIN_NAME,
	.BeginCustomScan = exact_join_begin,
	.ExecCustomScan = exact_join_exec,
	.EndCustomScan = exact_join_end,
	.ReScanCustomScan = exact_join_rescan,
	.ExplainCustomScan = exact_join_explain,
};

static Node *
exact_join_create_state(CustomScan *cscan)
{
	return exactgpu_join_create_state(cscan, sizeof(ExactJoinState), &exact_join_exec_methods);
}

static void
run_reset(ExactJoinState *ejs)
{
	if (ejs->run_cxt)
		MemoryContextDelete(ejs->run_cxt);	/* frees the join's engine memory */
	ejs->run_cxt = NULL;
	ejs->join = NULL;
	ejs->pairs = NULL;
	ejs->npairs = 0;
	ejs->joined = false;
	ejs->matched = NULL;
	ejs->next = 0;
	ejs->shown_left = -1;
	for (int k = 0; k < 2; k++)
	{
		ejs->side[k].tuples = NULL;
		ejs->side[k].ntuples = ejs->side[k].cap = 0;
		ejs->side[k].row_tuple = NULL;
	}
}

static void
exact_join_begin(CustomScanState *node, EState *estate, int eflags)
{
	ExactJoinState *ejs = (ExactJoinState *) node;
	CustomScan *cscan = (CustomScan *) node->ss.ps.plan;
	List	   *priv = cscan->custom_private;
	bool		swapped;
	int			first = 0;

	ejs->clause = linitial_node(FuncExpr, cscan->custom_exprs);
	ejs->pred = (ExactJoinPredicate) intVal(list_nth(priv, EJP_PREDICATE));
	ejs->naxes = ejs->pred == EXACT_PRED_2D ? 2 : 3;
	swapped = intVal(list_nth(priv, EJP_SWAPPED)) != 0;
	ejs->device = intVal(list_nth(priv, EJP_DEVICE));
	ejs->jointype = (JoinType) intVal(list_nth(priv, EJP_JOINTYPE));
	ejs->context = ejs->pred == EXACT_PRED_2D ? "ST_ExactIntersects" :
		ejs->pred == EXACT_PRED_SOLID3D ? "ST_ExactIntersectsSolid3D" : "ST_ExactIntersects3D";
	ejs->outer = swapped ? 1 : 0;
	ejs->clause_params = exactgpu_join_exec_params((Node *) ejs->clause->args);
	for (int c = 0; c < 2; c++)
	{
		/* child c (0 outer, 1 inner) feeds side k */
		int			k = c == 0 ? ejs->outer : 1 - ejs->outer;
		ExactJoinSide *s = &ejs->side[k];

		exactgpu_join_init_child(node, &s->child, c, list_nth(ejs->clause->args, k),
								 estate, eflags, &first);
		s->keep_nulls = exactgpu_outer_keeps_nulls(ejs->jointype, c);
	}
	exactgpu_outer_begin(&ejs->oj, node, ejs->jointype, ejs->outer);
	Assert(first == node->ss.ss_ScanTupleSlot->tts_tupleDescriptor->natts);
	exactgpu_join_init_filter(node);
	ejs->shown_left = -1;
}

/* Put a stored row of side k into its columns of the scan slot. */
static void
show_row(ExactJoinState *ejs, int k, MinimalTuple tup)
{
	exactgpu_join_show_row(&ejs->css, &ejs->side[k].child, tup);
}

/*
 * Can a parallel worker detoast v? Not from a temporary table: its pages
 * live in this backend's local buffers ("cannot access temporary tables
 * during a parallel operation").
 */
static bool
toast_shared(ExactJoinSide *s, const struct varlena *v)
{
	struct varatt_external ext;

	VARATT_EXTERNAL_GET_POINTER(ext, v);
	if (ext.va_toastrelid != s->toastrel)
	{
		s->toastrel = ext.va_toastrelid;
		s->toastrel_shared = get_rel_persistence(ext.va_toastrelid) != RELPERSISTENCE_TEMP;
	}
	return s->toastrel_shared;
}

/*
 * Read every row of side k's child: keep the row, and hand its geometry's
 * bytes to rows (engine row i is tuple row_tuple[i]).
 */
static void
read_side(ExactJoinState *ejs, int k, ExactgpuRows *rows)
{
	ExactJoinSide *s = &ejs->side[k];
	ExprContext *econtext = ejs->css.ss.ps.ps_ExprContext;
	TupleTableSlot *scan = ejs->css.ss.ss_ScanTupleSlot;
	uint64		n = 0;

	/* the argument sees this side's columns, the other side's are NULL */
	ExecClearTuple(scan);
	show_row(ejs, 1 - k, NULL);
	for (;;)
	{
		TupleTableSlot *slot = ExecProcNode(s->child.ps);
		Datum		g;
		bool		gnull;
		MemoryContext old;

		if (TupIsNull(slot))
			break;
		if ((++n & 4095) == 0)
			CHECK_FOR_INTERRUPTS();
		ResetExprContext(econtext);
		g = exactgpu_join_eval_arg(&ejs->css, &s->child, slot, &gnull);
		if (gnull)
		{
			s->nulls++;
			if (!s->keep_nulls)
				continue;		/* a strict predicate: this row meets nothing */
		}
		old = MemoryContextSwitchTo(ejs->run_cxt);
		if (s->ntuples == s->cap)
		{
			s->cap = s->cap ? 2 * s->cap : 1024;
			s->tuples = s->tuples ? repalloc_huge(s->tuples, s->cap * sizeof(MinimalTuple))
				: palloc_extended(s->cap * sizeof(MinimalTuple), MCXT_ALLOC_HUGE);
		}
		s->tuples[s->ntuples] = ExecCopySlotMinimalTuple(slot);
		MemoryContextSwitchTo(old);
		if (!gnull)
		{
			struct varlena *v = (struct varlena *) DatumGetPointer(g);

			/* out of line on disk: left to the parallel reader (exactgpu_rows_flatten) */
			if (VARATT_IS_EXTERNAL_ONDISK(v) && VARSIZE_EXTERNAL(v) == TOAST_POINTER_SIZE &&
				toast_shared(s, v))
			{
				exactgpu_rows_add_toast(rows, (int64) s->ntuples, v);
				s->ntuples++;
				continue;
			}
			/* compressed or otherwise external: detoasted in the per-row context */
			if (VARATT_IS_EXTERNAL(v) || VARATT_IS_COMPRESSED(v))
			{
				old = MemoryContextSwitchTo(econtext->ecxt_per_tuple_memory);
				v = PG_DETOAST_DATUM(g);
				MemoryContextSwitchTo(old);
			}
			exactgpu_rows_add(rows, (int64) s->ntuples, (const uint8 *) VARDATA_ANY(v),
							  VARSIZE_ANY_EXHDR(v));
		}
		s->ntuples++;
	}
	ResetExprContext(econtext);
	ExecClearTuple(scan);
}

/* Both children read and joined (join_driver.c): the pairs, or the matched outer rows. */
static void
run_join(ExactJoinState *ejs)
{
	ExactgpuJoin *j;
	ExactgpuJoinReport *rep = &exactgpu_last_join;
	MemoryContext old;

	ejs->run_cxt = AllocSetContextCreate(ejs->css.ss.ps.state->es_query_cxt, "ExactJoin run",
										 ALLOCSET_DEFAULT_SIZES);
	old = MemoryContextSwitchTo(ejs->run_cxt);
	j = exactgpu_join_new(ejs->pred == EXACT_PRED_SOLID3D ? EXACTGPU_JOIN_VOLUME
						  : EXACTGPU_JOIN_INTERSECTS, ejs->naxes, ejs->context);
	MemoryContextSwitchTo(old);
	ejs->join = j;
	/* rows are named by tuple numbers, which say nothing to the user */
	j->name_rows = false;
	/* exactgpu.device = auto: as planned (the CPU for small joins) */
	j->planned_cpu = ejs->device == EXG_DEVICE_CPU;
	/* as a nested loop, which calls no predicate when a side is empty */
	j->lazy = true;
	for (int k = 0; k < 2; k++)
		exactgpu_rows_defer_toast(&j->rows[k]);
	/* the outer child first, as a nested loop would start */
	read_side(ejs, ejs->outer, &j->rows[ejs->outer]);
	read_side(ejs, 1 - ejs->outer, &j->rows[1 - ejs->outer]);
	exactgpu_join_run(j, false);
	ejs->pairs = j->pairs;
	ejs->npairs = j->npairs;
	for (int k = 0; k < 2; k++)
	{
		ejs->side[k].row_tuple = j->rows[k].ids;
		ejs->side[k].rows = j->rows[k].n;
	}
	ejs->side[0].prims = rep->left_prims;
	ejs->side[1].prims = rep->right_prims;

	if (ejs->oj.active)
	{
		ExactOuterSide sides[2];

		for (int k = 0; k < 2; k++)
		{
			sides[k].child = &ejs->side[k].child;
			sides[k].tuples = ejs->side[k].tuples;
			sides[k].ntuples = ejs->side[k].ntuples;
			sides[k].row_tuple = ejs->side[k].row_tuple;
		}
		exactgpu_outer_start(&ejs->oj, ejs->run_cxt, ejs->pairs, ejs->npairs, sides);
	}
	else if (ejs->jointype != JOIN_INNER)
	{
		ExactJoinSide *o = &ejs->side[ejs->outer];

		ejs->matched = MemoryContextAllocExtended(ejs->run_cxt, Max(o->ntuples, 1) * sizeof(bool),
												  MCXT_ALLOC_HUGE | MCXT_ALLOC_ZERO);
		for (size_t i = 0; i < ejs->npairs; i++)
		{
			uint64_t	row = ejs->outer == 0 ? ejs->pairs[i] >> 32 : ejs->pairs[i] & 0xffffffffu;

			ejs->matched[o->row_tuple[row]] = true;
		}
		exactgpu_join_free(j);
		ejs->pairs = NULL;
	}
	ejs->joined = true;
	ejs->next = 0;
	ejs->shown_left = -1;
	exactgpu_join_done(j, ejs->npairs);

	/* EXPLAIN ANALYZE's sums */
	ejs->runs++;
	ejs->read_ms += rep->read_ms;
	ejs->resident_sides += rep->read_resident;
	ejs->resident_on |= exactgpu_resident_enabled();
	ejs->resident_rows += rep->resident_rows;
	ejs->resident_bytes += rep->resident_bytes;
	ejs->read_bytes += rep->read_bytes;
	ejs->join_ms += rep->join_ms;
	ejs->stats.candidates += rep->stats.candidates;
	ejs->stats.hits += rep->stats.hits;
	ejs->stats.exact_pairs += rep->stats.exact_pairs;
	ejs->stats.contained += rep->stats.contained;
	ejs->stats.waves += rep->stats.waves;
	ejs->stats.splits += rep->stats.splits;
	ejs->stats.gpu_setup_ns += rep->stats.gpu_setup_ns;
	for (int p = 0; p < EXG_JOIN_PHASES; p++)
		ejs->stats.phase_ns[p] += rep->stats.phase_ns[p];
	memcpy(ejs->device_used, rep->stats.device_name, sizeof(ejs->device_used));
}

/* ExecScan's access method: the next joined row in the scan slot. */
static TupleTableSlot *
next_row(ScanState *ss)
{
	ExactJoinState *ejs = (ExactJoinState *) ss;
	TupleTableSlot *scan = ss->ss_ScanTupleSlot;

	if (!ejs->joined)
		run_join(ejs);
	if (ejs->oj.active)
		return exactgpu_outer_next(&ejs->oj, &ejs->css);
	if (ejs->jointype == JOIN_INNER)
	{
		ExactJoinSide *s0 = &ejs->side[0],
				   *s1 = &ejs->side[1];

		if (ejs->next >= ejs->npairs)
			return ExecClearTuple(scan);
		{
			uint64_t	p = ejs->pairs[ejs->next++];
			int64		left = s0->row_tuple[p >> 32];
			int64		right = s1->row_tuple[p & 0xffffffffu];

			/* the pairs are sorted by left row: reuse its columns while it lasts */
			ExecClearTuple(scan);
			if (left != ejs->shown_left)
			{
				show_row(ejs, 0, s0->tuples[left]);
				ejs->shown_left = left;
			}
			show_row(ejs, 1, s1->tuples[right]);
			return ExecStoreVirtualTuple(scan);
		}
	}
	else
	{
		ExactJoinSide *o = &ejs->side[ejs->outer];
		bool		want = ejs->jointype == JOIN_SEMI;

		while (ejs->next < o->ntuples && ejs->matched[ejs->next] != want)
			ejs->next++;
		if (ejs->next >= o->ntuples)
			return ExecClearTuple(scan);
		ExecClearTuple(scan);
		show_row(ejs, 1 - ejs->outer, NULL);
		show_row(ejs, ejs->outer, o->tuples[ejs->next++]);
		return ExecStoreVirtualTuple(scan);
	}
}

static TupleTableSlot *
exact_join_exec(CustomScanState *node)
{
	return exactgpu_join_scan(node, next_row);
}

static void
exact_join_end(CustomScanState *node)
{
	ExactJoinState *ejs = (ExactJoinState *) node;

	run_reset(ejs);
	exactgpu_join_end_children(node);
}

/*
 * The joined rows again, as a hash join keeps its table, unless a
 * parameter they read changed (exactgpu_join_rescan_keeps).
 */
static void
exact_join_rescan(CustomScanState *node)
{
	ExactJoinState *ejs = (ExactJoinState *) node;

	if (exactgpu_join_rescan_keeps(node, ejs->clause_params, ejs->joined))
	{
		ejs->next = 0;
		ejs->shown_left = -1;
		exactgpu_outer_restart(&ejs->oj);
		return;
	}
	run_reset(ejs);
	exactgpu_join_rescan_children(node);
}

static void
exact_join_explain(CustomScanState *node, List *ancestors, ExplainState *es)
{
	ExactJoinState *ejs = (ExactJoinState *) node;

	exactgpu_join_explain_clause(node, ancestors, es, "Exact Predicate", (Node *) ejs->clause);
	exactgpu_outer_explain(&ejs->oj, node, ancestors, es);
	exactgpu_join_explain_filter(node, ancestors, es, ejs->jointype);
	exactgpu_join_explain_kind(ejs->jointype, ejs->device, es);
	if (!exactgpu_join_explain_runs(ejs->runs, ejs->device_used, es))
		return;
	ExplainPropertyInteger("Outer Rows Read", NULL, ejs->side[ejs->outer].rows, es);
	ExplainPropertyInteger("Inner Rows Read", NULL, ejs->side[1 - ejs->outer].rows, es);
	/* only where the store took part: plans without it read as before */
	if (ejs->resident_sides > 0)
		ExplainPropertyInteger("Resident Sides", NULL, ejs->resident_sides, es);
	if (ejs->resident_on)
	{
		ExplainPropertyInteger("Resident Rows", NULL, ejs->resident_rows, es);
		ExplainPropertyInteger("Resident Bytes", NULL, ejs->resident_bytes, es);
		ExplainPropertyInteger("Bytes Read", NULL, ejs->read_bytes, es);
	}
	ExplainPropertyInteger("Outer Primitives", NULL, ejs->side[ejs->outer].prims, es);
	ExplainPropertyInteger("Inner Primitives", NULL, ejs->side[1 - ejs->outer].prims, es);
	ExplainPropertyInteger("Candidates", NULL, ejs->stats.candidates, es);
	ExplainPropertyInteger("Primitive Hits", NULL, ejs->stats.hits, es);
	ExplainPropertyInteger("GMP Pairs", NULL, ejs->stats.exact_pairs, es);
	ExplainPropertyInteger("Contained Pairs", NULL, ejs->stats.contained, es);
	ExplainPropertyInteger("Waves", NULL, ejs->stats.waves, es);
	ExplainPropertyInteger("Splits", NULL, ejs->stats.splits, es);
	if (es->timing)
	{
		const exg_join_stats *s = &ejs->stats;

		exactgpu_join_explain_times(ejs->read_ms, ejs->join_ms, s, es);
		ExplainPropertyFloat("Test Time", "ms",
							 (s->phase_ns[EXG_PHASE_CULL] + s->phase_ns[EXG_PHASE_TEST] +
							  s->phase_ns[EXG_PHASE_REFINE]) / 1e6, 3, es);
		ExplainPropertyFloat("Exact Time", "ms", s->phase_ns[EXG_PHASE_EXACT] / 1e6, 3, es);
		ExplainPropertyFloat("Output Time", "ms",
							 (s->phase_ns[EXG_PHASE_DEDUPE] + s->phase_ns[EXG_PHASE_DOWNLOAD] +
							  s->phase_ns[EXG_PHASE_MERGE]) / 1e6, 3, es);
	}
}
