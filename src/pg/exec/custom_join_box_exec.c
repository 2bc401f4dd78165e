/*
 * custom_join_box_exec.c — the executor half of ExactBoxJoin.
 *
 * On its first call the node reads both children whole: each row's box as
 * PostGIS's operator sees it (postgis_box.c) and, when the plan reads that
 * side's columns, the row itself as a MinimalTuple. The box join engine
 * (GPU or CPU) hands the meeting pairs back chunk by chunk; they are kept
 * as pairs of row numbers (or, for semi and anti joins, as marks on the
 * outer rows), and the node then hands one joined row upward per call. A
 * LIMIT above stops the streaming, not a result store.
 *
 * &&& compares only the axes both boxes have, so rows are grouped: rows
 * that filter on z (3 or 4 axes, z not padded) are joined on 3 axes among
 * themselves, every other pairing on x and y alone; m, where both rows have
 * it, is checked on each reported pair (the engine has at most 3 axes).
 * Bounds that never filter (NaN, padding) become the bounds of all data on
 * that axis, which meet everything on it under closed comparisons.
 */
#include "exactgpu.h"

#include <float.h>
#include <math.h>

#include "commands/explain.h"
#include "executor/executor.h"
#include "executor/tuptable.h"
#include "miscadmin.h"
#include "nodes/extensible.h"
#include "nodes/nodeFuncs.h"
#include "optimizer/optimizer.h"
#include "access/sysattr.h"
#include "utils/memutils.h"
#include "utils/ruleutils.h"

#include "custom_join_box.h"
#include "custom_join_common.h"
#include "join_driver.h"
#include "join_options.h"
#include "postgis_box.h"

#define KIND_NDIMS	0x0f		/* low bits of a box row's kind: its axes */
#define KIND_Z		0x10		/* it filters on z */

/* The rows of one child. */
typedef struct BoxJoinSide
{
	ExactJoinChild child;		/* its plan, columns, and the clause's argument */
	AttrNumber	geom_attno;		/* > 0: the argument is this column of the child */
	bool		keep_all;		/* count rows without a box (outer of semi/anti) */
	bool		keep_tuples;	/* the plan reads this side's columns */
	MinimalTuple *tuples;
	uint64		ntuples;
	uint64		tcap;
	/* rows with a box: box row i is tuple box_tuple[i] */
	uint32	   *box_tuple;
	double	   *box;			/* 2 * naxes doubles a row: lows, then highs */
	double	   *m;				/* &&&: 2 a row (lo, hi), for rows of 4 axes */
	uint8	   *kind;			/* &&&: KIND_ bits */
	uint64		nbox;
	uint64		bcap;
	uint64		nz;				/* rows that filter on z */
	uint64		read;			/* rows the child returned */
	uint64		nulls;
	uint64		empties;
} BoxJoinSide;

typedef struct BoxJoinState
{
	CustomScanState css;
	OpExpr	   *clause;
	bool		nd;				/* &&& */
	int			naxes;			/* axes stored a row: 3 for &&&, 2 for && */
	int			device;			/* as planned */
	JoinType	jointype;
	const char *context;
	FmgrInfo	addbbox;
	BoxJoinSide side[2];		/* 0: the outer child, 1: the inner child */
	Bitmapset  *clause_params;
	MemoryContext run_cxt;
	bool		joined;
	uint64	   *pairs;			/* (outer tuple << 32) | inner tuple */
	uint64		npairs;
	uint64		pcap;
	bool	   *matched;		/* semi/anti: outer tuples with a match */
	uint64		next;
	/* for EXPLAIN ANALYZE, summed over runs */
	int			runs;
	int			calls;
	exg_join_stats stats;
	uint64		kept;
	char		device_used[96];
	double		read_ms;
	double		join_ms;
} BoxJoinState;

static Node *box_join_create_state(CustomScan *cscan);
static void box_join_begin(CustomScanState *node, EState *estate, int eflags);
static TupleTableSlot *box_join_exec(CustomScanState *node);
static void box_join_end(CustomScanState *node);
static void box_join_rescan(CustomScanState *node);
static void box_join_explain(CustomScanState *node, List *ancestors, ExplainState *es);

const CustomScanMethods exactgpu_box_join_scan_methods = {
	.CustomName = EXACT_BOX_JOIN_NAME,
	.CreateCustomScanState = box_join_create_state,
};

static const CustomExecMethods box_join_exec_methods = {
	.CustomName = EXACT_BOX_JOIN_NAME,
	.BeginCustomScan = box_join_begin,
	.ExecCustomScan = box_join_exec,
	.EndCustomScan = box_join_end,
	.ReScanCustomScan = box_join_rescan,
	.ExplainCustomScan = box_join_explain,
};

static Node *
box_join_create_state(CustomScan *cscan)
{
	return exactgpu_join_create_state(cscan, sizeof(BoxJoinState), &box_join_exec_methods);
}

static void
run_reset(BoxJoinState *bjs)
{
	if (bjs->run_cxt)
		MemoryContextDelete(bjs->run_cxt);
	bjs->run_cxt = NULL;
	bjs->joined = false;
	bjs->pairs = NULL;
	bjs->npairs = bjs->pcap = 0;
	bjs->matched = NULL;
	bjs->next = 0;
	for (int c = 0; c < 2; c++)
	{
		BoxJoinSide *s = &bjs->side[c];

		s->tuples = NULL;
		s->ntuples = s->tcap = 0;
		s->box_tuple = NULL;
		s->box = s->m = NULL;
		s->kind = NULL;
		s->nbox = s->bcap = s->nz = 0;
		s->read = s->nulls = s->empties = 0;
	}
}

static void
box_join_begin(CustomScanState *node, EState *estate, int eflags)
{
	BoxJoinState *bjs = (BoxJoinState *) node;
	CustomScan *cscan = (CustomScan *) node->ss.ps.plan;
	List	   *priv = cscan->custom_private;
	Bitmapset  *used = NULL;
	bool		swapped;
	int			first = 0;
	Expr	   *arg;

	bjs->clause = linitial_node(OpExpr, cscan->custom_exprs);
	bjs->nd = intVal(list_nth(priv, EBP_ND)) != 0;
	bjs->naxes = bjs->nd ? 3 : 2;
	swapped = intVal(list_nth(priv, EBP_SWAPPED)) != 0;
	bjs->device = intVal(list_nth(priv, EBP_DEVICE));
	bjs->jointype = (JoinType) intVal(list_nth(priv, EBP_JOINTYPE));
	bjs->context = bjs->nd ? "ExactBoxJoin (&&&)" : "ExactBoxJoin (&&)";
	fmgr_info((Oid) intVal(list_nth(priv, EBP_ADDBBOX)), &bjs->addbbox);
	bjs->clause_params = exactgpu_join_exec_params((Node *) bjs->clause->args);
	/* the scan tuple's columns the target list and the qual read */
	pull_varattnos((Node *) cscan->scan.plan.targetlist, INDEX_VAR, &used);
	pull_varattnos((Node *) exactgpu_join_filter_clauses(node), INDEX_VAR, &used);
	for (int c = 0; c < 2; c++)
	{
		BoxJoinSide *s = &bjs->side[c];
		ExactJoinChild *ch = &s->child;

		arg = list_nth(bjs->clause->args, swapped ? 1 - c : c);
		exactgpu_join_init_child(node, ch, c, arg, estate, eflags, &first);
		/* a plain column (the usual case) is read from the child's row itself */
		if (IsA(arg, Var) && ((Var *) arg)->varno == INDEX_VAR &&
			((Var *) arg)->varattno > ch->first && ((Var *) arg)->varattno <= ch->first + ch->natts)
			s->geom_attno = ((Var *) arg)->varattno - ch->first;
		s->keep_all = c == 0 && bjs->jointype != JOIN_INNER;
		/* a whole-row reference (attno 0) reads every column */
		s->keep_tuples = bms_is_member(0 - FirstLowInvalidHeapAttributeNumber, used);
		for (int a = 1; a <= ch->natts && !s->keep_tuples; a++)
			s->keep_tuples = bms_is_member(ch->first + a - FirstLowInvalidHeapAttributeNumber, used);
	}
	Assert(first == node->ss.ss_ScanTupleSlot->tts_tupleDescriptor->natts);
	exactgpu_join_init_filter(node);
}

/* Put a stored row of child c into its columns of the scan slot. */
static void
show_row(BoxJoinState *bjs, int c, MinimalTuple tup)
{
	exactgpu_join_show_row(&bjs->css, &bjs->side[c].child, tup);
}

static void *
grow(MemoryContext cxt, void *p, size_t old_n, size_t new_n, size_t elem)
{
	if (p == NULL)
		return MemoryContextAllocHuge(cxt, new_n * elem);
	(void) old_n;
	return repalloc_huge(p, new_n * elem);
}

/* Keep the box of child c's tuple t (already counted). */
static void
add_box(BoxJoinState *bjs, BoxJoinSide *s, uint64 t, const PostgisBox *pb)
{
	int			a = bjs->naxes;
	double	   *b;

	if (s->nbox == s->bcap)
	{
		uint64		cap = s->bcap ? 2 * s->bcap : 1024;

		s->box_tuple = grow(bjs->run_cxt, s->box_tuple, s->bcap, cap, sizeof(uint32));
		s->box = grow(bjs->run_cxt, s->box, s->bcap, cap, 2 * a * sizeof(double));
		if (bjs->nd)
		{
			s->kind = grow(bjs->run_cxt, s->kind, s->bcap, cap, sizeof(uint8));
			s->m = grow(bjs->run_cxt, s->m, s->bcap, cap, 2 * sizeof(double));
		}
		s->bcap = cap;
	}
	b = &s->box[2 * a * s->nbox];
	for (int k = 0; k < a; k++)
	{
		b[k] = k < pb->ndims ? pb->lo[k] : -INFINITY;
		b[a + k] = k < pb->ndims ? pb->hi[k] : INFINITY;
		/* PostGIS writes no such box; the engine could not take it */
		if (b[k] > b[a + k])
			ereport(ERROR,
					(errcode(ERRCODE_DATA_CORRUPTED),
					 errmsg("%s: a geometry's bounding box has min %g > max %g on axis %c",
							bjs->context, b[k], b[a + k], "xyz"[k])));
	}
	if (bjs->nd)
	{
		bool		z = postgis_box_z_active(pb);

		s->kind[s->nbox] = (uint8) pb->ndims | (z ? KIND_Z : 0);
		s->nz += z;
		s->m[2 * s->nbox] = pb->ndims == 4 ? pb->lo[3] : -INFINITY;
		s->m[2 * s->nbox + 1] = pb->ndims == 4 ? pb->hi[3] : INFINITY;
	}
	s->box_tuple[s->nbox++] = (uint32) t;
}

/* Read every row of child c: its box, and the row when the plan reads it. */
static void
read_side(BoxJoinState *bjs, int c)
{
	BoxJoinSide *s = &bjs->side[c];
	ExprContext *econtext = bjs->css.ss.ps.ps_ExprContext;
	TupleTableSlot *scan = bjs->css.ss.ss_ScanTupleSlot;

	ExecClearTuple(scan);
	show_row(bjs, 1 - c, NULL);
	for (;;)
	{
		TupleTableSlot *slot = ExecProcNode(s->child.ps);
		Datum		g;
		bool		gnull;
		PostgisBox	pb;
		MemoryContext old;

		if (TupIsNull(slot))
			break;
		if ((++s->read & 4095) == 0)
			CHECK_FOR_INTERRUPTS();
		ResetExprContext(econtext);
		if (s->geom_attno > 0)
			g = slot_getattr(slot, s->geom_attno, &gnull);
		else					/* the other side's columns are NULL */
			g = exactgpu_join_eval_arg(&bjs->css, &s->child, slot, &gnull);
		pb.ndims = 0;
		if (gnull)
			s->nulls++;			/* the operator is strict: meets nothing */
		else
		{
			old = MemoryContextSwitchTo(econtext->ecxt_per_tuple_memory);
			postgis_box_of(g, bjs->nd, &bjs->addbbox, &pb);
			MemoryContextSwitchTo(old);
			if (pb.ndims == 0)
				s->empties++;	/* empty: no box, meets nothing */
		}
		if (pb.ndims == 0 && !s->keep_all)
			continue;
		if (s->ntuples >= EXG_BOX_MAX_INPUT)
			ereport(ERROR,
					(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
					 errmsg("%s: more than %u rows on one side", bjs->context, EXG_BOX_MAX_INPUT),
					 errhint("Set exactgpu.enable_batch_join = off for this query.")));
		if (s->keep_tuples)
		{
			if (s->ntuples == s->tcap)
			{
				uint64		cap = s->tcap ? 2 * s->tcap : 1024;

				s->tuples = grow(bjs->run_cxt, s->tuples, s->tcap, cap, sizeof(MinimalTuple));
				s->tcap = cap;
			}
			old = MemoryContextSwitchTo(bjs->run_cxt);
			s->tuples[s->ntuples] = ExecCopySlotMinimalTuple(slot);
			MemoryContextSwitchTo(old);
		}
		if (pb.ndims > 0)
			add_box(bjs, s, s->ntuples, &pb);
		s->ntuples++;
	}
	ResetExprContext(econtext);
	ExecClearTuple(scan);
}

/*
 * Bounds that never filter (+-inf) become the bounds of all finite data on
 * their axis, over both sides: closed comparisons then let them meet every
 * box on that axis, as PostGIS does, and the engine gets finite boxes.
 */
static void
clamp_open_bounds(BoxJoinState *bjs)
{
	int			a = bjs->naxes;

	for (int k = 0; k < a; k++)
	{
		double		lo = INFINITY,
					hi = -INFINITY;

		for (int c = 0; c < 2; c++)
		{
			BoxJoinSide *s = &bjs->side[c];

			for (uint64 i = 0; i < s->nbox; i++)
			{
				double		l = s->box[2 * a * i + k],
							h = s->box[2 * a * i + a + k];

				if (isfinite(l))
				{
					lo = Min(lo, l);
					hi = Max(hi, l);
				}
				if (isfinite(h))
				{
					lo = Min(lo, h);
					hi = Max(hi, h);
				}
			}
		}
		if (lo > hi)
			lo = hi = 0;
		for (int c = 0; c < 2; c++)
		{
			BoxJoinSide *s = &bjs->side[c];

			for (uint64 i = 0; i < s->nbox; i++)
			{
				double	   *b = &s->box[2 * a * i];

				if (!isfinite(b[k]))
					b[k] = lo;
				if (!isfinite(b[a + k]))
					b[a + k] = hi;
			}
		}
	}
}

/* Where one engine call's pairs go. */
typedef struct BoxSinkArg
{
	BoxJoinState *bjs;
	const uint32 *map[2];		/* call row -> box row of each child; NULL: the same */
	bool		check_m;
} BoxSinkArg;

/* The pairs of one engine call, a chunk at a time (join_driver.c catches an ERROR). */
static void
box_pairs_emit(void *arg, const exg_pair *p, size_t n)
{
	BoxSinkArg *sa = arg;
	BoxJoinState *bjs = sa->bjs;
	const BoxJoinSide *s0 = &bjs->side[0],
			   *s1 = &bjs->side[1];

	if (bjs->jointype == JOIN_INNER && bjs->npairs + n > bjs->pcap)
	{
		uint64		cap = Max(2 * bjs->pcap, bjs->npairs + n);

		bjs->pairs = grow(bjs->run_cxt, bjs->pairs, bjs->pcap, cap, sizeof(uint64));
		bjs->pcap = cap;
	}
	for (size_t i = 0; i < n; i++)
	{
		uint32		r0 = sa->map[0] ? sa->map[0][p[i].a] : p[i].a,
					r1 = sa->map[1] ? sa->map[1][p[i].b] : p[i].b;

		/* m, compared only when both boxes have it */
		if (sa->check_m && (s0->kind[r0] & KIND_NDIMS) == 4 && (s1->kind[r1] & KIND_NDIMS) == 4 &&
			(s0->m[2 * r0] > s1->m[2 * r1 + 1] || s1->m[2 * r1] > s0->m[2 * r0 + 1]))
			continue;
		if (bjs->jointype == JOIN_INNER)
			bjs->pairs[bjs->npairs++] = ((uint64) s0->box_tuple[r0] << 32) | s1->box_tuple[r1];
		else
			bjs->matched[s0->box_tuple[r0]] = true;
		bjs->kept++;
	}
}

/*
 * The box rows of child c that a call takes (z: those that filter on z or
 * those that do not; all: every row), as naxes-axis boxes: the stored array
 * itself when it fits, else a copy, with the map back to box rows.
 */
static const double *
call_boxes(BoxJoinState *bjs, int c, int naxes, int which, uint32 *n, const uint32 **map)
{
	BoxJoinSide *s = &bjs->side[c];
	int			a = bjs->naxes;
	double	   *out;
	uint32	   *m;
	uint32		k = 0;

	*map = NULL;
	if ((which < 0 || (which == 1 && s->nz == s->nbox) || (which == 0 && s->nz == 0)) && naxes == a)
	{
		*n = (uint32) s->nbox;
		return s->box;
	}
	out = MemoryContextAllocHuge(bjs->run_cxt, Max(s->nbox, 1) * 2 * naxes * sizeof(double));
	m = MemoryContextAllocHuge(bjs->run_cxt, Max(s->nbox, 1) * sizeof(uint32));
	for (uint64 i = 0; i < s->nbox; i++)
	{
		if (which >= 0 && ((s->kind[i] & KIND_Z) != 0) != (which == 1))
			continue;
		for (int j = 0; j < naxes; j++)
		{
			out[2 * naxes * k + j] = s->box[2 * a * i + j];
			out[2 * naxes * k + naxes + j] = s->box[2 * a * i + a + j];
		}
		m[k++] = (uint32) i;
	}
	*n = k;
	*map = m;
	return out;
}

/* One engine call: child 0's rows (which0) against child 1's (which1). */
static void
engine_call(BoxJoinState *bjs, ExactgpuBoxCalls *bc, int naxes, int which0, int which1)
{
	BoxSinkArg	sa = {0};
	exg_box_set A,
				B;

	A.box = call_boxes(bjs, 0, naxes, which0, &A.n, &sa.map[0]);
	B.box = call_boxes(bjs, 1, naxes, which1, &B.n, &sa.map[1]);
	if (A.n == 0 || B.n == 0)
		return;
	sa.bjs = bjs;
	sa.check_m = bjs->nd;
	exactgpu_box_calls_join(bc, &A, &B, naxes, box_pairs_emit, &sa);
}

static void
run_join(BoxJoinState *bjs)
{
	ExactgpuBoxCalls bc;
	uint64		t0 = exg_now_ns(),
				kept0 = bjs->kept,
				rows[2],
				boxes[2];
	BoxJoinSide *s0 = &bjs->side[0],
			   *s1 = &bjs->side[1];
	const exg_join_stats *st = &bc.stats;

	bjs->run_cxt = AllocSetContextCreate(bjs->css.ss.ps.state->es_query_cxt, "ExactBoxJoin run",
										 ALLOCSET_DEFAULT_SIZES);
	/* the outer child first, as a nested loop would start */
	read_side(bjs, 0);
	read_side(bjs, 1);
	if (bjs->jointype != JOIN_INNER)
		bjs->matched = MemoryContextAllocExtended(bjs->run_cxt, Max(s0->ntuples, 1) * sizeof(bool),
												  MCXT_ALLOC_HUGE | MCXT_ALLOC_ZERO);
	clamp_open_bounds(bjs);

	/* exactgpu.device = auto: as planned, and the CPU below gpu_min_primitives */
	exactgpu_box_calls_begin(&bc, bjs->context, s0->nbox + s1->nbox,
							 bjs->device == EXG_DEVICE_CPU, t0);
	if (!bjs->nd)
		engine_call(bjs, &bc, 2, -1, -1);
	else
	{
		/* each pairing of rows once: z against z on 3 axes, the rest on 2 */
		engine_call(bjs, &bc, 3, 1, 1);
		if (s1->nz < s1->nbox)
			engine_call(bjs, &bc, 2, -1, 0);
		if (s0->nz < s0->nbox && s1->nz > 0)
			engine_call(bjs, &bc, 2, 0, 1);
	}
	bjs->joined = true;
	bjs->next = 0;
	/* a side whose columns the plan never reads stays NULL in the scan tuple */
	for (int c = 0; c < 2; c++)
		if (!bjs->side[c].keep_tuples)
			show_row(bjs, c, NULL);

	rows[0] = s0->ntuples;
	rows[1] = s1->ntuples;
	boxes[0] = s0->nbox;
	boxes[1] = s1->nbox;
	exactgpu_box_calls_end(&bc, bjs->nd ? "PostGIS &&&" : "PostGIS &&", rows, boxes,
						   bjs->kept - kept0);

	/* EXPLAIN ANALYZE's sums */
	bjs->calls += bc.calls;
	bjs->stats.candidates += st->candidates;
	bjs->stats.hits += st->hits;
	bjs->stats.cell_pairs += st->cell_pairs;
	bjs->stats.waves += st->waves;
	bjs->stats.splits += st->splits;
	bjs->stats.gpu_setup_ns += st->gpu_setup_ns;
	for (int p = 0; p < EXG_JOIN_PHASES; p++)
		bjs->stats.phase_ns[p] += st->phase_ns[p];
	bjs->stats.total_ns += st->total_ns;
	bjs->stats.used_gpu |= st->used_gpu;
	memcpy(bjs->stats.grid_dims, st->grid_dims, sizeof(bjs->stats.grid_dims));
	if (bc.calls > 0 || bjs->device_used[0] == '\0')
		memcpy(bjs->device_used, st->device_name, sizeof(bjs->device_used));
	bjs->runs++;
	bjs->read_ms += exactgpu_last_join.read_ms;
	bjs->join_ms += exactgpu_last_join.join_ms;
}

/* ExecScan's access method: the next joined row in the scan slot. */
static TupleTableSlot *
next_row(ScanState *ss)
{
	BoxJoinState *bjs = (BoxJoinState *) ss;
	TupleTableSlot *scan = ss->ss_ScanTupleSlot;
	BoxJoinSide *s0 = &bjs->side[0],
			   *s1 = &bjs->side[1];

	if (!bjs->joined)
		run_join(bjs);
	ExecClearTuple(scan);
	if (bjs->jointype == JOIN_INNER)
	{
		uint64		p;

		if (bjs->next >= bjs->npairs)
			return scan;
		p = bjs->pairs[bjs->next++];
		if (s0->keep_tuples)
			show_row(bjs, 0, s0->tuples[p >> 32]);
		if (s1->keep_tuples)
			show_row(bjs, 1, s1->tuples[p & 0xffffffffu]);
		return ExecStoreVirtualTuple(scan);
	}
	else
	{
		bool		want = bjs->jointype == JOIN_SEMI;

		while (bjs->next < s0->ntuples && bjs->matched[bjs->next] != want)
			bjs->next++;
		if (bjs->next >= s0->ntuples)
			return scan;
		if (s0->keep_tuples)
			show_row(bjs, 0, s0->tuples[bjs->next]);
		bjs->next++;
		return ExecStoreVirtualTuple(scan);
	}
}

static TupleTableSlot *
box_join_exec(CustomScanState *node)
{
	return exactgpu_join_scan(node, next_row);
}

static void
box_join_end(CustomScanState *node)
{
	BoxJoinState *bjs = (BoxJoinState *) node;

	run_reset(bjs);
	exactgpu_join_end_children(node);
}

/*
 * The joined rows again, as a hash join keeps its table, unless a
 * parameter they read changed (exactgpu_join_rescan_keeps).
 */
static void
box_join_rescan(CustomScanState *node)
{
	BoxJoinState *bjs = (BoxJoinState *) node;

	if (exactgpu_join_rescan_keeps(node, bjs->clause_params, bjs->joined))
	{
		bjs->next = 0;
		return;
	}
	run_reset(bjs);
	exactgpu_join_rescan_children(node);
}

static void
box_join_explain(CustomScanState *node, List *ancestors, ExplainState *es)
{
	BoxJoinState *bjs = (BoxJoinState *) node;
	const exg_join_stats *s = &bjs->stats;

	exactgpu_join_explain_clause(node, ancestors, es, "Box Operator", (Node *) bjs->clause);
	exactgpu_join_explain_filter(node, ancestors, es, bjs->jointype);
	ExplainPropertyText("Boxes", bjs->nd ? "PostGIS GIDX (float, rounded outward)"
						: "PostGIS BOX2DF (float, rounded outward)", es);
	exactgpu_join_explain_kind(bjs->jointype, bjs->device, es);
	if (!exactgpu_join_explain_runs(bjs->runs, bjs->device_used, es))
		return;
	ExplainPropertyInteger("Engine Calls", NULL, bjs->calls, es);
	ExplainPropertyInteger("Outer Rows Read", NULL, bjs->side[0].read, es);
	ExplainPropertyInteger("Inner Rows Read", NULL, bjs->side[1].read, es);
	ExplainPropertyInteger("Outer Boxes", NULL, bjs->side[0].nbox, es);
	ExplainPropertyInteger("Inner Boxes", NULL, bjs->side[1].nbox, es);
	ExplainPropertyInteger("Candidates", NULL, s->candidates, es);
	ExplainPropertyInteger("Box Pairs", NULL, s->hits, es);
	ExplainPropertyInteger("Pairs Kept", NULL, bjs->kept, es);
	ExplainPropertyInteger("Waves", NULL, s->waves, es);
	ExplainPropertyInteger("Splits", NULL, s->splits, es);
	if (es->timing)
	{
		exactgpu_join_explain_times(bjs->read_ms, bjs->join_ms, s, es);
		ExplainPropertyFloat("Test Time", "ms",
							 (s->phase_ns[EXG_PHASE_CULL] + s->phase_ns[EXG_PHASE_TEST]) / 1e6, 3, es);
		ExplainPropertyFloat("Output Time", "ms",
							 (s->phase_ns[EXG_PHASE_DOWNLOAD] + s->phase_ns[EXG_PHASE_MERGE]) / 1e6, 3, es);
	}
}
