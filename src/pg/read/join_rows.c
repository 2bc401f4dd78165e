/*
 * join_rows.c — reading the inner query of a batch join.
 *
 * The rows go straight from the executor to a DestReceiver: no cursor, no
 * SPI tuple table, no copies of the tuples. Each geometry's bytes are
 * appended to one buffer (detoasted first when compressed or out of line),
 * its SRID checked from the header; parsing is left to the engine, which
 * does it on all cores.
 */
#include "exactgpu.h"

#include "access/genam.h"
#include "access/htup_details.h"
#include "access/table.h"
#include "catalog/indexing.h"
#include "catalog/pg_class.h"
#include "catalog/pg_extension.h"
#include "catalog/pg_type.h"
#include "commands/extension.h"
#include "executor/spi.h"
#include "executor/tuptable.h"
#include "nodes/plannodes.h"
#include "miscadmin.h"
#include "utils/fmgroids.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/plancache.h"
#include "utils/syscache.h"

#include "join_rows.h"

#include "exactgpu_engine.h"

typedef struct RowReceiver
{
	DestReceiver pub;
	const char *which;
	ExactgpuRows *out;
	Oid			idtype;
	uint64		rows;
	MemoryContext detoast_cxt;
	Oid			toastrel;		/* the last TOAST relation seen, and */
	bool		toastrel_shared;	/* whether parallel workers can read it */
} RowReceiver;

void
exactgpu_rows_init(ExactgpuRows *rows, const char *context)
{
	memset(rows, 0, sizeof(*rows));
	rows->mcxt = CurrentMemoryContext;
	rows->context = context;
}

exg_row_bytes
exactgpu_rows_bytes(const ExactgpuRows *rows)
{
	exg_row_bytes b = {rows->data, rows->off, rows->n};

	return b;
}

/*
 * A row of another SRID than the side's first: named by its id where the
 * ids are the user's (the set-returning functions).
 */
static void
srid_error(const ExactgpuRows *rows, int32 srid, bool has_id, int64 id)
{
	if (has_id && rows->side_name)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("%s: operation on mixed SRID geometries (%d and %d) (id %s of the %s)",
						rows->context, rows->srid, srid, exactgpu_rows_id_text(rows, id),
						rows->side_name)));
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
			 errmsg("%s: operation on mixed SRID geometries (%d and %d)", rows->context,
					rows->srid, srid)));
}

void
exactgpu_rows_add(ExactgpuRows *rows, int64 id, const uint8 *gser, Size len)
{
	exg_error	err = {0};
	int32		srid;

	if (exg_gserialized_srid(gser, len, &srid, &err) != EXG_OK)
		exactgpu_report(&err, rows->context);
	if (rows->have_srid && srid != rows->srid)
		srid_error(rows, srid, true, id);
	rows->srid = srid;
	rows->have_srid = true;
	if (rows->n + 1 >= rows->cap)
	{
		rows->cap = rows->cap ? 2 * rows->cap : 4096;
		rows->ids = rows->ids ? repalloc_huge(rows->ids, rows->cap * sizeof(int64))
			: MemoryContextAllocHuge(rows->mcxt, rows->cap * sizeof(int64));
		rows->off = rows->off ? repalloc_huge(rows->off, (rows->cap + 1) * sizeof(size_t))
			: MemoryContextAllocHuge(rows->mcxt, (rows->cap + 1) * sizeof(size_t));
		rows->off[0] = 0;
	}
	if (rows->len + len > rows->data_cap)
	{
		rows->data_cap = Max(2 * rows->data_cap, rows->len + len + 65536);
		rows->data = rows->data ? repalloc_huge(rows->data, rows->data_cap)
			: MemoryContextAllocHuge(rows->mcxt, rows->data_cap);
	}
	memcpy(rows->data + rows->len, gser, len);
	rows->len += len;
	rows->ids[rows->n++] = id;
	rows->off[rows->n] = rows->len;
	rows->n_inline = rows->n;
}

void
exactgpu_rows_defer_toast(ExactgpuRows *rows)
{
	rows->defer_toast = true;
}

/*
 * Keep the TOAST pointer only: it stays valid for the rest of the statement
 * (the statement's snapshot protects the value from vacuum), in this backend
 * and in parallel workers, which share that snapshot.
 */
void
exactgpu_rows_add_toast(ExactgpuRows *rows, int64 id, const struct varlena *v)
{
	struct varatt_external ext;

	Assert(VARATT_IS_EXTERNAL_ONDISK(v) && VARSIZE_EXTERNAL(v) == TOAST_POINTER_SIZE);
	if (rows->ntoast == rows->toast_cap)
	{
		rows->toast_cap = rows->toast_cap ? 2 * rows->toast_cap : 256;
		rows->toast = rows->toast
			? repalloc_huge(rows->toast, rows->toast_cap * sizeof(ExactgpuToastRow))
			: MemoryContextAllocHuge(rows->mcxt, rows->toast_cap * sizeof(ExactgpuToastRow));
	}
	rows->toast[rows->ntoast].id = id;
	memcpy(rows->toast[rows->ntoast].ptr, v, TOAST_POINTER_SIZE);
	rows->ntoast++;
	VARATT_EXTERNAL_GET_POINTER(ext, v);
	rows->toast_bytes += ext.va_rawsize;
}

void
exactgpu_rows_check_srids(const ExactgpuRows *left, const ExactgpuRows *right)
{
	if (left->have_srid && right->have_srid && left->srid != right->srid)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("%s: operation on mixed SRID geometries (%d and %d)", left->context,
						left->srid, right->srid)));
}

/* A row read by the parallel read: its SRID must be the side's. */
void
exactgpu_rows_note_srid(ExactgpuRows *rows, int32 srid, size_t toast_row)
{
	if (rows->have_srid && srid != rows->srid)
		srid_error(rows, srid, toast_row < rows->ntoast, toast_row < rows->ntoast ?
				   rows->toast[toast_row].id : 0);
	rows->srid = srid;
	rows->have_srid = true;
}

/* The TOAST rows' ids follow the others': batch row i is ids[i]. */
void
exactgpu_rows_append_toast_ids(ExactgpuRows *rows)
{
	size_t		n = rows->n + rows->ntoast;

	if (rows->ntoast == 0)
		return;
	rows->ids = rows->ids ? repalloc_huge(rows->ids, (n + 1) * sizeof(int64))
		: MemoryContextAllocHuge(rows->mcxt, (n + 1) * sizeof(int64));
	for (size_t i = 0; i < rows->ntoast; i++)
		rows->ids[rows->n + i] = rows->toast[i].id;
	rows->n = n;
	rows->cap = n + 1;
	rows->ntoast = 0;
}


/* PostGIS's geometry type: "geometry" in the postgis extension's schema. */
static Oid
postgis_geometry_typid(void)
{
	Oid			ext = get_extension_oid("postgis", true);
	Oid			nsp = InvalidOid;
	Relation	rel;
	ScanKeyData key;
	SysScanDesc scan;
	HeapTuple	tup;

	if (!OidIsValid(ext))
		return InvalidOid;
	rel = table_open(ExtensionRelationId, AccessShareLock);
	ScanKeyInit(&key, Anum_pg_extension_oid, BTEqualStrategyNumber, F_OIDEQ,
				ObjectIdGetDatum(ext));
	scan = systable_beginscan(rel, ExtensionOidIndexId, true, NULL, 1, &key);
	tup = systable_getnext(scan);
	if (HeapTupleIsValid(tup))
		nsp = ((Form_pg_extension) GETSTRUCT(tup))->extnamespace;
	systable_endscan(scan);
	table_close(rel, AccessShareLock);
	if (!OidIsValid(nsp))
		return InvalidOid;
	return GetSysCacheOid2(TYPENAMENSP, Anum_pg_type_oid, CStringGetDatum("geometry"),
						   ObjectIdGetDatum(nsp));
}

/* PostGIS geometry or a domain over it; a type merely named so is not. */
static bool
is_geometry_type(Oid typid)
{
	Oid			geometry = postgis_geometry_typid();

	return OidIsValid(geometry) && getBaseType(typid) == geometry;
}

static void
rows_startup(DestReceiver *self, int operation, TupleDesc desc)
{
	RowReceiver *rr = (RowReceiver *) self;
	Oid			idtype = desc->natts == 2 ? TupleDescAttr(desc, 0)->atttypid : InvalidOid;

	if (desc->natts != 2 || !is_geometry_type(TupleDescAttr(desc, 1)->atttypid))
	{
		/* the forms with typed ids take ids of any type with equality */
		if (OidIsValid(rr->out->want_idtype) && rr->out->want_idtype != INT8OID)
			ereport(ERROR,
					(errcode(ERRCODE_DATATYPE_MISMATCH),
					 errmsg("%s: the %s query must return two columns (id of the type given, geom geometry)",
							rr->out->context, rr->which)));
		ereport(ERROR,
				(errcode(ERRCODE_DATATYPE_MISMATCH),
				 errmsg("%s: the %s query must return two columns (id integer or bigint, geom geometry)",
						rr->out->context, rr->which)));
	}
	/* ids of another type only where the result can carry them */
	exactgpu_rows_check_id_type(rr->out, idtype, rr->which);
	rr->idtype = getBaseType(idtype);
	rr->out->idtype = rr->idtype;
}

/*
 * Can a parallel worker detoast v? Not from a temporary table: its pages
 * live in this backend's local buffers.
 */
static bool
toast_shared(RowReceiver *rr, const struct varlena *v)
{
	struct varatt_external ext;

	VARATT_EXTERNAL_GET_POINTER(ext, v);
	if (ext.va_toastrelid != rr->toastrel)
	{
		rr->toastrel = ext.va_toastrelid;
		rr->toastrel_shared = get_rel_persistence(ext.va_toastrelid) != RELPERSISTENCE_TEMP;
	}
	return rr->toastrel_shared;
}

/*
 * exactgpu_rows_add for a row of the user's: a row of another SRID than the
 * side's first is named by its id, or left out in skip mode.
 */
void
exactgpu_rows_add_named(ExactgpuRows *rows, int64 id, const uint8 *gser, Size len)
{
	exg_error	err = {0};
	int32		srid;

	/* exactgpu_rows_add names the row in its error; skip mode leaves it out */
	if (rows->skip_invalid && rows->have_srid &&
		exg_gserialized_srid(gser, len, &srid, &err) == EXG_OK && srid != rows->srid)
	{
		exactgpu_rows_note_skipped(rows, id, false,
								   psprintf("SRID %d, not the SRID %d of the side's first row",
											srid, rows->srid));
		return;
	}
	exactgpu_rows_add(rows, id, gser, len);
}

static bool
rows_receive(TupleTableSlot *slot, DestReceiver *self)
{
	RowReceiver *rr = (RowReceiver *) self;
	bool		idnull,
				gnull;
	Datum		id,
				g;
	struct varlena *v;
	int64		idv;

	if ((++rr->rows & 4095) == 0)
		CHECK_FOR_INTERRUPTS();
	id = slot_getattr(slot, 1, &idnull);
	g = slot_getattr(slot, 2, &gnull);
	/* as in ST_ExactBatch: a row without geometry is skipped, id or not */
	if (gnull)
	{
		rr->out->null_geoms++;
		return true;
	}
	if (idnull)
	{
		if (rr->out->skip_invalid)
		{
			exactgpu_rows_note_skipped(rr->out, 0, true, "a NULL id");
			return true;
		}
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("%s: the %s query returned a NULL id", rr->out->context, rr->which)));
	}
	if (rr->idtype == INT8OID)
		idv = DatumGetInt64(id);
	else if (rr->idtype == INT4OID)
		idv = DatumGetInt32(id);
	else if (rr->idtype == INT2OID)
		idv = DatumGetInt16(id);
	else
		idv = exactgpu_rows_key(rr->out, rr->idtype, id);
	v = (struct varlena *) DatumGetPointer(g);
	if (rr->out->defer_toast && VARATT_IS_EXTERNAL_ONDISK(v) && toast_shared(rr, v))
	{
		exactgpu_rows_add_toast(rr->out, idv, v);
		return true;
	}
	/* in line and plain (either header size): read in place; else detoast.
	 * An out-of-line pointer also has a 1-byte header: test it first. */
	if (!VARATT_IS_EXTERNAL(v) && !VARATT_IS_COMPRESSED(v))
		exactgpu_rows_add_named(rr->out, idv, (const uint8 *) VARDATA_ANY(v), VARSIZE_ANY_EXHDR(v));
	else
	{
		MemoryContext old = MemoryContextSwitchTo(rr->detoast_cxt);
		struct varlena *d = PG_DETOAST_DATUM(g);

		MemoryContextSwitchTo(old);
		exactgpu_rows_add_named(rr->out, idv, (const uint8 *) VARDATA(d), VARSIZE(d) - VARHDRSZ);
		MemoryContextReset(rr->detoast_cxt);
	}
	return true;
}

static void
rows_shutdown(DestReceiver *self)
{
}

static void
rows_destroy(DestReceiver *self)
{
}

/*
 * The inner queries only read (they run read-only): say so for an INSERT,
 * UPDATE or DELETE with RETURNING, or a WITH that changes data, before
 * PostgreSQL's "not allowed in a non-volatile function" would.
 */
static void
refuse_writes(SPIPlanPtr plan, const char *context, const char *which)
{
	ListCell   *lp;

	foreach(lp, SPI_plan_get_plan_sources(plan))
	{
		CachedPlanSource *source = (CachedPlanSource *) lfirst(lp);
		ListCell   *lq;

		foreach(lq, source->query_list)
		{
			Query	   *q = lfirst_node(Query, lq);

			if (q->commandType == CMD_UTILITY)
				ereport(ERROR,
						(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
						 errmsg("%s: the %s query must be a query that reads rows (SELECT, VALUES, TABLE), not %s",
								context, which, GetCommandTagName(source->commandTag))));
			if (q->commandType != CMD_SELECT || q->hasModifyingCTE)
				ereport(ERROR,
						(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
						 errmsg("%s: the %s query must only read rows, not change them (%s)",
								context, which,
								q->hasModifyingCTE ? "a WITH that changes data"
								: GetCommandTagName(source->commandTag)),
						 errhint("Change the rows first, then join them with a SELECT.")));
		}
	}
}

/*
 * Does the plan only funnel a table's rows to this backend: a Gather over a
 * parallel scan that filters nothing and computes nothing? Then every
 * geometry crosses a shared-memory queue, and the scan's workers hold the
 * cores that the read's own workers (read_flatten.c) need: on the
 * 2-core build machine such a plan over 20,000 holes made the read 1.5x
 * slower. A plan whose workers filter or compute keeps its parallelism.
 */
static bool
plan_only_funnels(SPIPlanPtr plan)
{
	CachedPlan *cplan = SPI_plan_get_cached_plan(plan);
	bool		funnel = false;

	if (cplan == NULL)
		return false;
	if (list_length(cplan->stmt_list) == 1)
	{
		PlannedStmt *ps = linitial_node(PlannedStmt, cplan->stmt_list);
		Plan	   *top = ps->planTree;
		Plan	   *scan = top ? outerPlan(top) : NULL;

		if (top && IsA(top, Gather) && top->qual == NIL && top->initPlan == NIL &&
			scan && IsA(scan, SeqScan) && scan->qual == NIL && scan->initPlan == NIL)
		{
			ListCell   *lc;

			funnel = true;
			foreach(lc, scan->targetlist)
				if (!IsA(lfirst_node(TargetEntry, lc)->expr, Var))
					funnel = false;
		}
	}
	ReleaseCachedPlan(cplan, NULL);
	return funnel;
}

void
exactgpu_read_query_rows(const char *sql, const char *which, ExactgpuRows *rows)
{
	const char *context = rows->context;
	/* parallel plans allowed: the planner may scan big tables with workers */
	SPIPlanPtr	plan = SPI_prepare_cursor(sql, 0, NULL, CURSOR_OPT_PARALLEL_OK);
	SPIExecuteOptions opts = {0};
	RowReceiver rr = {0};
	int			rc;

	if (plan == NULL)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("%s: cannot prepare the %s query: %s", context, which,
						SPI_result_code_string(SPI_result))));
	/* one statement that returns rows (a SELECT, VALUES, TABLE, ...) */
	if (!SPI_is_cursor_plan(plan))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("%s: the %s query must be a single statement that returns rows", context,
						which)));
	refuse_writes(plan, context, which);
	if (plan_only_funnels(plan))
	{
		SPI_freeplan(plan);
		plan = SPI_prepare_cursor(sql, 0, NULL, 0);
		if (plan == NULL)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("%s: cannot prepare the %s query: %s", context, which,
							SPI_result_code_string(SPI_result))));
	}
	rr.pub.receiveSlot = rows_receive;
	rr.pub.rStartup = rows_startup;
	rr.pub.rShutdown = rows_shutdown;
	rr.pub.rDestroy = rows_destroy;
	rr.pub.mydest = DestNone;
	rr.which = which;
	rr.out = rows;
	rr.detoast_cxt = AllocSetContextCreate(CurrentMemoryContext, "exactgpu detoast",
										   ALLOCSET_DEFAULT_SIZES);
	opts.read_only = true;
	opts.dest = &rr.pub;
	rc = SPI_execute_plan_extended(plan, &opts);
	if (rc < 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("%s: the %s query failed: %s", context, which, SPI_result_code_string(rc))));
	MemoryContextDelete(rr.detoast_cxt);
	SPI_freeplan(plan);
	exactgpu_rows_order_keys(rows);
}

static int
cmp_rows_by_id(const void *x, const void *y, void *arg)
{
	const int64 *ids = arg;
	int64		a = ids[*(const uint32 *) x],
				b = ids[*(const uint32 *) y];

	return (a > b) - (a < b);
}

/*
 * The place of each row of a side in the result's order (exg_batch.order):
 * by id, rows that share an id at one place, so that the engine's one sort
 * of the row pairs leaves them in id order, each id pair once. *place_ids
 * gets the id of each place. NULL, with the rows' ids as place ids, when
 * the ids grow strictly with the rows, as they usually do.
 */
uint32 *
exactgpu_rows_order(const ExactgpuRows *rows, int64 **place_ids)
{
	size_t		n = rows->n,
				i,
				places = 0;
	uint32	   *by_id,
			   *order;
	int64	   *pid;

	*place_ids = rows->ids;
	for (i = 1; i < n && rows->ids[i - 1] < rows->ids[i]; i++)
		;
	if (i >= n)
		return NULL;
	by_id = palloc_extended(n * sizeof(uint32), MCXT_ALLOC_HUGE);
	for (i = 0; i < n; i++)
		by_id[i] = (uint32) i;
	qsort_interruptible(by_id, n, sizeof(uint32), cmp_rows_by_id, rows->ids);
	order = palloc_extended(n * sizeof(uint32), MCXT_ALLOC_HUGE);
	pid = palloc_extended(n * sizeof(int64), MCXT_ALLOC_HUGE);
	for (i = 0; i < n; i++)
	{
		int64		id = rows->ids[by_id[i]];

		if (places == 0 || id != pid[places - 1])
			pid[places++] = id;
		order[by_id[i]] = (uint32) (places - 1);
	}
	pfree(by_id);
	*place_ids = pid;
	return order;
}
