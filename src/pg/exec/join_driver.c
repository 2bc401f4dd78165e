/*
 * join_driver.c — the one batch-join driver (join_driver.h): read, check,
 * options, engine, errors named by row, report.
 *
 * Data flow: rows (ids + serialized geometries, join_rows.c) → batches or
 * boxes (the parallel read, read/read_*.c) → the engine's join →
 * row pairs, handed back to the caller, which turns them into result rows
 * or joined tuples.
 */
#include "exactgpu.h"

#include "access/detoast.h"
#include "executor/spi.h"
#include "miscadmin.h"
#include "storage/dsm.h"
#include "utils/memutils.h"

#include "geom_cache.h"
#include "gpu_service.h"
#include "invalid_rows.h"
#include "join_driver.h"
#include "join_options.h"
#include "join_probe.h"

/* exactgpu_last_join_stats().semantics of each kind in 3D */
static const char *const kind_semantics[] = {
	"3D", "3D volume", "3D point in solid", "3D intercepts", "3D boxes"
};

/* the engine's batch join of each kind that has one (the engine decides
 * how: exg_batch_join_as) */
static const exg_batch_join_mode kind_mode[] = {
	EXG_BATCH_INTERSECTS, EXG_BATCH_VOLUMES, EXG_BATCH_LOCATE
};

/* ---- the join's life ---- */

static void
join_free(void *arg)
{
	ExactgpuJoin *j = arg;

	for (int k = 0; k < 2; k++)
	{
		exg_batch_free(&j->batch[k]);
		exactgpu_rows_release(&j->rows[k]);
	}
	free(j->pairs);
	j->pairs = NULL;
	j->npairs = 0;
	exg_intercept_set_free(&j->set);
}

ExactgpuJoin *
exactgpu_join_new(ExactgpuJoinKind kind, int naxes, const char *context)
{
	ExactgpuJoin *j = palloc0(sizeof(ExactgpuJoin));

	j->t_start = exg_now_ns();
	j->kind = kind;
	j->naxes = naxes;
	j->context = context;
	j->name_rows = true;
	j->side_name[0] = kind == EXACTGPU_JOIN_INTERCEPTS ? "holes" : "left input";
	j->side_name[1] = kind == EXACTGPU_JOIN_INTERCEPTS ? "bodies" : "right input";
	for (int k = 0; k < 2; k++)
	{
		exactgpu_rows_init(&j->rows[k], context);
		exg_batch_init(&j->batch[k], naxes, (exg_nonplanar_policy) exactgpu_nonplanar_faces);
	}
	j->cb.func = join_free;
	j->cb.arg = j;
	MemoryContextRegisterResetCallback(CurrentMemoryContext, &j->cb);
	return j;
}

void
exactgpu_join_free(ExactgpuJoin *j)
{
	join_free(j);
}

/* The queries' and batch values' names in messages: "left", "holes", ... */
static const char *
read_name(const ExactgpuJoin *j, int k)
{
	if (j->kind == EXACTGPU_JOIN_INTERCEPTS)
		return k ? "bodies" : "holes";
	return k ? "right" : "left";
}

/*
 * The set-returning functions' rows (ids the user's): under
 * exactgpu.invalid_rows = 'skip' every row is read in line, so that a row
 * can be checked, and left out, before its side is flattened again.
 */
static void
read_mode(ExactgpuJoin *j)
{
	exactgpu_invalid_rows_reset();
	for (int k = 0; k < 2; k++)
	{
		/* ids are the user's: rows that cannot be used are named by them */
		j->rows[k].side_name = j->side_name[k];
		j->rows[k].skip_invalid = exactgpu_invalid_rows == EXACTGPU_INVALID_ROWS_SKIP;
	}
}

void
exactgpu_join_read_queries(ExactgpuJoin *j, const char *left_sql, const char *right_sql)
{
	if (SPI_connect() != SPI_OK_CONNECT)
		ereport(ERROR,
				(errcode(ERRCODE_INTERNAL_ERROR), errmsg("%s: SPI_connect failed", j->context)));
	/*
	 * Big geometries stay TOAST pointers until parallel workers take them;
	 * the intercepts read each pair's hole and body from their bytes after
	 * the join, so their rows are read in line.
	 */
	read_mode(j);
	if (j->kind != EXACTGPU_JOIN_INTERCEPTS && !j->rows[0].skip_invalid)
	{
		exactgpu_rows_defer_toast(&j->rows[0]);
		exactgpu_rows_defer_toast(&j->rows[1]);
	}
	exactgpu_read_query_rows(left_sql, read_name(j, 0), &j->rows[0]);
	exactgpu_read_query_rows(right_sql, read_name(j, 1), &j->rows[1]);
	SPI_finish();
}

void
exactgpu_join_read_batches(ExactgpuJoin *j, Datum left, Datum right)
{
	read_mode(j);
	exactgpu_read_batch_rows(left, read_name(j, 0), &j->rows[0]);
	exactgpu_read_batch_rows(right, read_name(j, 1), &j->rows[1]);
}

/* ---- errors and reports ---- */

/* Raise an engine failure, the failing row named by its id where it has one. */
static void
join_fail(const ExactgpuJoin *j, exg_error *err, const int64 *const ids[2], const size_t n[2])
{
	int			side = err->side != 0;

	if (j->name_rows && err->row > 0 && err->row <= n[side])
	{
		size_t		len = strlen(err->message);
		char	   *id = exactgpu_rows_id_text(&j->rows[side], ids[side][err->row - 1]);

		snprintf(err->message + len, sizeof(err->message) - len, " (id %s of the %s)", id,
				 j->side_name[side]);
	}
	if (j->kind == EXACTGPU_JOIN_INTERCEPTS && err->status == EXG_ERR_ARGUMENT)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("%s: %s", j->context, err->message),
				 errhint("Holes are LINESTRINGs (or MULTILINESTRINGs whose parts join end to start), bodies closed surfaces.")));
	exactgpu_report(err, j->context);
}

static void
join_fail_rows(const ExactgpuJoin *j, exg_error *err)
{
	const int64 *const ids[2] = {j->rows[0].ids, j->rows[1].ids};
	const size_t n[2] = {j->rows[0].n, j->rows[1].n};

	join_fail(j, err, ids, n);
}

/* The device the engine named, and why the CPU was forced where it was. */
static void
name_device(exg_join_stats *stats, const char *cpu_because)
{
	size_t		len = strlen(stats->device_name);

	if (cpu_because && len > 0)
		snprintf(stats->device_name + len, sizeof(stats->device_name) - len, ", %s",
				 cpu_because);
}

/*
 * exactgpu_last_join_stats()'s first fields, and the first progress
 * NOTICE, once both sides are read (items: primitives or boxes).
 */
static ExactgpuJoinReport *
report_read(const ExactgpuJoin *j, const char *semantics, const uint64 rows[2],
			const uint64 items[2], const char *unit, uint64 t_start)
{
	ExactgpuJoinReport *rep = &exactgpu_last_join;
	const ExactgpuReadReport *rr = &j->read;

	memset(rep, 0, sizeof(*rep));
	rep->read_workers = rr->workers;
	rep->read_parallel = rr->parallel;
	rep->read_resident = rr->resident_sides;
	rep->resident_rows = rr->resident_rows;
	rep->resident_bytes = rr->resident_bytes;
	rep->read_bytes = rr->read_bytes;
	rep->left_rows = rows[0];
	rep->right_rows = rows[1];
	rep->left_prims = items[0];
	rep->right_prims = items[1];
	snprintf(rep->semantics, sizeof(rep->semantics), "%s", semantics);
	rep->read_ms = (exg_now_ns() - t_start) / 1e6;
	if (exactgpu_progress)
		ereport(NOTICE,
				(errmsg("%s: read %llu x %llu rows (%llu x %llu %s) in %.1f ms%s", j->context,
						(unsigned long long) rep->left_rows, (unsigned long long) rep->right_rows,
						(unsigned long long) rep->left_prims, (unsigned long long) rep->right_prims,
						unit, rep->read_ms,
						rr->resident_sides == 2 ? ", both sides borrowed from the resident store" :
						rr->resident_sides == 1 ? ", one side borrowed from the resident store" : ""),
				 errdetail("query %.1f ms, then %s: detoast %.1f ms, rows parsed here %.1f ms, rows flattened by workers %.1f ms (%d of %d parallel workers, running %.1f to %.1f ms after their launch), gathered %.1f ms (%d of 2 sides laid out in place by the processes: segments made %.1f ms, rows laid out %.1f ms), workers and shared memory released %.1f ms; the processes flattening, summed: detoast %.1f ms, parse %.1f ms, copy %.1f ms, the last done %.1f ms after the launch",
						   rep->read_ms - rr->detoast_ms - rr->parse_ms - rr->wait_ms -
						   rr->gather_ms - rr->release_ms,
						   rr->parallel ? "parallel" : "serial", rr->detoast_ms, rr->parse_ms,
						   rr->wait_ms, rr->workers, rr->workers_planned, rr->first_start_ms,
						   rr->last_start_ms, rr->gather_ms, rr->in_place, rr->place_create_ms,
						   rr->place_wait_ms, rr->release_ms, rr->work_detoast_ms,
						   rr->work_parse_ms, rr->work_copy_ms, rr->last_done_ms),
				 rr->release_ms > 0.1 * rep->read_ms && min_dynamic_shared_memory == 0 ?
				 errhint("The parallel read's shared memory was mapped and released for this join: min_dynamic_shared_memory (set at server start, e.g. 4GB for joins of 10^7 triangles) keeps it ready.") : 0));
	return rep;
}

/* The second progress NOTICE, once the engine is done. */
static void
report_joined(const ExactgpuJoin *j, const ExactgpuJoinReport *rep)
{
	const exg_join_stats *s = &rep->stats;

	if (!exactgpu_progress)
		return;
	if (j->kind == EXACTGPU_JOIN_BOXES)
		ereport(NOTICE,
				(errmsg("%s: joined on %s in %.1f ms (%.1f ms of them making result rows): %llu box comparisons, %llu pairs",
						j->context, s->device_name, rep->join_ms,
						s->phase_ns[EXG_PHASE_MERGE] / 1e6,
						(unsigned long long) s->candidates, (unsigned long long) s->hits)));
	else if (j->kind == EXACTGPU_JOIN_INTERCEPTS)
		ereport(NOTICE,
				(errmsg("%s: %zu (hole, body) pairs found on %s, and their intercepts, in %.1f ms (bodies prepared in %.1f ms, intercepts in %.1f ms): %zu intercepts",
						j->context, j->npairs, s->device_name, rep->join_ms,
						j->set.prepare_ns / 1e6, j->set.pairs_ns / 1e6, j->set.n)));
	else
		ereport(NOTICE,
				(errmsg("%s: joined on %s in %.1f ms: %llu candidate pairs, %llu primitive hits, %llu decided by GMP",
						j->context, s->device_name, rep->join_ms,
						(unsigned long long) s->candidates, (unsigned long long) s->hits,
						(unsigned long long) s->exact_pairs),
				 rep->service ?
				 errdetail("In the GPU service: inputs laid out %.1f ms (%llu kB copied, the rest by address), queued %.1f ms, joined %.1f ms (upload %.1f, prepare %.1f, test %.1f, exact %.1f ms), pairs back %.1f ms.",
						   rep->service_send_ms,
						   (unsigned long long) (rep->service_bytes_sent + 1023) / 1024,
						   rep->service_queued_ms, rep->service_run_ms,
						   s->phase_ns[EXG_PHASE_UPLOAD] / 1e6,
						   (s->phase_ns[EXG_PHASE_CLASSIFY] + s->phase_ns[EXG_PHASE_GRID]) / 1e6,
						   (s->phase_ns[EXG_PHASE_CULL] + s->phase_ns[EXG_PHASE_TEST] +
							s->phase_ns[EXG_PHASE_REFINE]) / 1e6,
						   s->phase_ns[EXG_PHASE_EXACT] / 1e6, rep->service_back_ms) :
				 s->gpu_setup_ns > 0 ?
				 errdetail("Of it, %.1f ms setting the GPU up (driver, CUDA context, pinned buffers): paid by a backend's first GPU join, and by a join that needs bigger pinned buffers than the joins before it.",
						   s->gpu_setup_ns / 1e6) : 0));
}

void
exactgpu_join_done(ExactgpuJoin *j, uint64 row_pairs)
{
	ExactgpuJoinReport *rep = &exactgpu_last_join;

	rep->row_pairs = row_pairs;
	rep->total_ms = (exg_now_ns() - j->t_start) / 1e6;
	rep->valid = true;
}

/* ---- joins of batches ---- */

static bool skip_failed_row(ExactgpuJoin *j, const exg_error *err);

typedef struct id_pair
{
	int64		left;
	int64		right;
	uint64		rows;
} id_pair;

static int
cmp_id_pair(const void *x, const void *y, void *arg)
{
	const id_pair *a = x,
			   *b = y;

	if (a->left != b->left)
		return a->left < b->left ? -1 : 1;
	if (a->right != b->right)
		return a->right < b->right ? -1 : 1;
	return (a->rows > b->rows) - (a->rows < b->rows);
}

/* Sort the row pairs by (left id, right id), each row pair kept. */
static void
sort_pairs_by_id(ExactgpuJoin *j)
{
	id_pair    *ids = palloc_extended(sizeof(id_pair) * (j->npairs ? j->npairs : 1),
									  MCXT_ALLOC_HUGE);
	size_t		k;

	for (k = 0; k < j->npairs; k++)
	{
		ids[k].left = j->rows[0].ids[j->pairs[k] >> 32];
		ids[k].right = j->rows[1].ids[j->pairs[k] & 0xffffffffu];
		ids[k].rows = j->pairs[k];
	}
	qsort_interruptible(ids, j->npairs, sizeof(id_pair), cmp_id_pair, NULL);
	for (k = 0; k < j->npairs; k++)
		j->pairs[k] = ids[k].rows;
	pfree(ids);
}

/*
 * The intercepts of every pair (in id order), from the rows' bytes; false
 * when a row was left out (skip mode) and the join must run again.
 */
static bool
run_intercepts(ExactgpuJoin *j)
{
	exg_row_bytes holes = exactgpu_rows_bytes(&j->rows[0]),
				bodies = exactgpu_rows_bytes(&j->rows[1]);
	exg_error	err = {0};

	sort_pairs_by_id(j);
	if (exg_intercepts_pairs(&holes, &bodies, j->pairs, j->npairs,
							 (exg_nonplanar_policy) exactgpu_nonplanar_faces,
							 exactgpu_threads(), &j->set, &err) != EXG_OK)
	{
		if (skip_failed_row(j, &err))
			return false;
		join_fail_rows(j, &err);
	}
	return true;
}

/* A join the GPU service ran: said after its device, with its queue and copy. */
static void
name_service(exg_join_stats *stats, const ExactgpuServiceResult *res)
{
	size_t		len = strlen(stats->device_name);

	snprintf(stats->device_name + len, sizeof(stats->device_name) - len,
			 " via the GPU service (queued %.1f ms, %llu kB copied)", res->queued_ms,
			 (unsigned long long) (res->bytes_sent + 1023) / 1024);
}

/*
 * The join in the GPU service (gpu_service.h): the same engine call, made
 * by the process that owns the GPUs; the device name says where it ran
 * and how long it queued.
 */
static exg_status
run_in_service(ExactgpuJoin *j, const exg_join_options *opt, ExactgpuJoinReport *rep,
			   exg_error *err)
{
	ExactgpuServiceResult res;
	ExactgpuServiceKeep keep[2];
	exg_status	st;

	for (int k = 0; k < 2; k++)
	{
		keep[k].block = j->rows[k].kept_block;
		keep[k].bytes = j->rows[k].kept_size;
		keep[k].tag = j->rows[k].kept_tag;
	}
	st = exactgpu_service_run(j->kind == EXACTGPU_JOIN_INTERCEPTS ?
							  EXACTGPU_SERVICE_INTERCEPTS : EXACTGPU_SERVICE_BATCH_JOIN,
							  j->kind == EXACTGPU_JOIN_INTERCEPTS ? 0 : (int) kind_mode[j->kind],
							  &j->batch[0], &j->batch[1], keep, opt, &res, &rep->stats, err);
	j->pairs = res.pairs;
	j->npairs = res.npairs;
	rep->service = true;
	rep->service_queued_ms = res.queued_ms;
	rep->service_send_ms = res.send_ms;
	rep->service_bytes_sent = res.bytes_sent;
	rep->service_run_ms = res.run_ms;
	rep->service_back_ms = res.back_ms;
	name_service(&rep->stats, &res);
	return st;
}

/* ---- rows left out (exactgpu.invalid_rows = 'skip') ---- */

/* Is a failure naming a row about that row's geometry (not memory, cancel, GPU)? */
static bool
row_is_invalid(const exg_error *err)
{
	switch (err->status)
	{
		case EXG_ERR_CORRUPT:
		case EXG_ERR_UNSUPPORTED:
		case EXG_ERR_NONFINITE:
		case EXG_ERR_NONPLANAR:
		case EXG_ERR_INVALID:
		case EXG_ERR_ARGUMENT:
		case EXG_ERR_NOT_SOLID:
		case EXG_ERR_WRONG_KIND:
			return true;
		default:
			return false;
	}
}

/*
 * Does side k (0/1) of the 3D join have a row without Z beside a row with Z
 * on either side? (exactgpu_check_dims's condition) Then *row is the first
 * such row read in line, or n when it is not one of those (the rows
 * flattened from TOAST pointers have no bytes here).
 */
static bool
find_flat_row(const ExactgpuJoin *j, int k, size_t *row)
{
	const ExactgpuRows *r = &j->rows[k];

	*row = r->n;
	if (!(j->batch[k].nrows_flat > 0 &&
		  (j->batch[0].nrows_z > 0 || j->batch[1].nrows_z > 0)))
		return false;
	for (size_t i = 0; r->off && i < r->n_inline; i++)
	{
		exg_shape	s;
		exg_error	err = {0};
		bool		flat;

		exg_shape_init(&s);
		flat = exg_gserialized_read(r->data + r->off[i], r->off[i + 1] - r->off[i], &s,
									&err) == EXG_OK && !s.has_z && !exg_shape_is_empty(&s);
		exg_shape_free(&s);
		if (flat)
		{
			*row = i;
			break;
		}
	}
	return true;
}

/*
 * In a 3D join a geometry without Z meets none with Z (the batch would read
 * its z as 0): an error naming such a row, where one was read in line.
 */
static void
check_dims_named(const ExactgpuJoin *j, bool holes_only)
{
	for (int k = 0; k < (holes_only ? 1 : 2); k++)
	{
		size_t		row;

		if (find_flat_row(j, k, &row) && row < j->rows[k].n && j->name_rows)
		{
			char	   *id = exactgpu_rows_id_text(&j->rows[k], j->rows[k].ids[row]);

			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("%s: a geometry without Z meets a geometry with Z in a 3D function (id %s of the %s)",
							j->context, id, j->side_name[k]),
					 errdetail("exactgpu does not guess an elevation for 2D geometries."),
					 errhint("Give the 2D geometry its elevation with ST_Force3D(geom, z), or compare in 2D with ST_ExactIntersects / ST_ExactIntersectsJoin.")));
		}
	}
	if (holes_only)
	{
		if (j->batch[0].nrows_flat > 0 && j->batch[1].nrows_z > 0)
			exactgpu_check_dims(false, true, true, false, j->context);
		return;
	}
	exactgpu_check_dims(j->batch[0].nrows_z > 0, j->batch[0].nrows_flat > 0,
						j->batch[1].nrows_z > 0, j->batch[1].nrows_flat > 0, j->context);
}

/*
 * Is a row of a point-in-solid join's points a point (or points)? As the
 * reader stores it: a one-vertex LINESTRING is its point, a zero-length
 * one is a line, which the flattening would read as its point (a segment
 * that starts with a repeated vertex classifies as one), where
 * ST_ExactLocate3D and the probe refuse it. Unreadable bytes: true (the
 * flattening names them in its own words).
 */
static bool
row_is_points(const uint8 *g, size_t len)
{
	exg_gs_simple it;
	exg_comp_kind kind;
	size_t		off;
	uint32		n;
	exg_shape	s;
	exg_error	err = {0};
	bool		points = true;

	if (exg_gs_simple_begin(g, len, &it))
	{
		while (exg_gs_simple_next(&it, &kind, &off, &n))
			if (kind != EXG_COMP_POINT)
				return false;
		if (it.ok)
			return true;
	}
	/* collections and the rest */
	exg_shape_init(&s);
	if (exg_gserialized_read(g, len, &s, &err) == EXG_OK)
		for (size_t c = 0; c < s.ncomps; c++)
			points &= s.comps[c].kind == EXG_COMP_POINT;
	exg_shape_free(&s);
	return points;
}

/* The points of a point-in-solid join (side 0): a row that is not one is refused, named. */
static void
check_points_named(ExactgpuJoin *j)
{
	ExactgpuRows *r = &j->rows[0];

	for (size_t i = 0; i < r->n + r->ntoast; i++)
	{
		const uint8 *g;
		size_t		len;
		struct varlena *v = NULL;

		if ((i & 1023) == 0)
			CHECK_FOR_INTERRUPTS();
		if (i < r->n)
		{
			g = r->data + r->off[i];
			len = r->off[i + 1] - r->off[i];
		}
		else
		{
			v = detoast_attr((struct varlena *) r->toast[i - r->n].ptr);
			g = (const uint8 *) VARDATA(v);
			len = VARSIZE(v) - VARHDRSZ;
		}
		if (!row_is_points(g, len))
		{
			/* named by its id (a TOAST row's is not among the ids yet) */
			int64		id = i < r->n ? r->ids[i] : r->toast[i - r->n].id;
			const int64 *const ids[2] = {&id, NULL};
			const size_t n[2] = {1, 0};
			exg_error	err = {0};

			exg_fail(&err, EXG_ERR_WRONG_KIND, "a row of the points is not a point");
			err.row = 1;
			err.side = 0;
			join_fail(j, &err, ids, n);
		}
		if (v)
			pfree(v);
	}
}

/*
 * Skip mode, before the first flatten: leave out the rows that do not read
 * as the flatten reads them (malformed, NaN, curves, a face that is not
 * planar, ...), and in a join that checks dimensions the rows without Z
 * when a row of either side has Z. Rows the engine refuses later (open or
 * inside-out bodies, holes that are no lines, ...) are left out as it
 * names them (skip_failed_row).
 */
static void
skip_unreadable(ExactgpuJoin *j, bool check_z)
{
	uint8	   *flat[2];
	bool		any_z = false;

	if (!j->rows[0].skip_invalid)
		return;
	for (int k = 0; k < 2; k++)
	{
		ExactgpuRows *r = &j->rows[k];
		exg_batch	scratch;
		exg_shape	shape;
		size_t		i = 0;

		Assert(r->ntoast == 0);
		flat[k] = palloc0(r->n + 1);
		exg_batch_init(&scratch, j->naxes, (exg_nonplanar_policy) exactgpu_nonplanar_faces);
		exg_shape_init(&shape);
		while (i < r->n)
		{
			exg_error	err = {0};
			const uint8 *g = r->data + r->off[i];
			size_t		len = r->off[i + 1] - r->off[i];
			exg_status	st;

			if ((i & 1023) == 0)
				CHECK_FOR_INTERRUPTS();
			if (j->kind == EXACTGPU_JOIN_BOXES)
			{
				/* boxes read coordinates only: no faces to triangulate */
				exg_shape	s;

				exg_shape_init(&s);
				st = exg_gserialized_read(g, len, &s, &err);
				exg_shape_free(&s);
			}
			else
			{
				exg_batch_reset(&scratch);
				st = exg_batch_add_serialized(&scratch, g, len, &shape, &err);
			}
			if (st == EXG_OK && k == 0 && j->kind == EXACTGPU_JOIN_LOCATE &&
				!row_is_points(g, len))
				st = exg_fail(&err, EXG_ERR_WRONG_KIND, "a row of the points is not a point");
			if (st != EXG_OK)
			{
				if (!row_is_invalid(&err))
				{
					exg_batch_free(&scratch);
					exg_shape_free(&shape);
					exactgpu_report(&err, j->context);
				}
				exactgpu_rows_drop(r, i, err.message);
				continue;
			}
			if (j->kind != EXACTGPU_JOIN_BOXES)
			{
				flat[k][i] = scratch.nrows_flat > 0;
				any_z |= scratch.nrows_z > 0;
			}
			i++;
		}
		exg_batch_free(&scratch);
		exg_shape_free(&shape);
	}
	if (check_z && any_z)
		for (int k = 0; k < 2; k++)
			for (size_t i = j->rows[k].n; i-- > 0;)
				if (flat[k][i])
					exactgpu_rows_drop(&j->rows[k], i,
									   "has no Z, in a 3D join whose other rows have Z");
	pfree(flat[0]);
	pfree(flat[1]);
}

/*
 * Skip mode: the engine refused a row (err->row of side err->side): leave
 * it out and say the join must run again. Its batches and pairs go; the
 * rows, all in line, are flattened again.
 */
static bool
skip_failed_row(ExactgpuJoin *j, const exg_error *err)
{
	int			side = err->side != 0;
	ExactgpuRows *r = &j->rows[side];

	if (!r->skip_invalid || err->row == 0 || err->row > r->n || !row_is_invalid(err))
		return false;
	exactgpu_rows_drop(r, err->row - 1, err->message);
	free(j->pairs);
	j->pairs = NULL;
	j->npairs = 0;
	exg_intercept_set_free(&j->set);
	memset(&j->set, 0, sizeof(j->set));
	for (int k = 0; k < 2; k++)
	{
		exg_batch_free(&j->batch[k]);
		exactgpu_rows_release(&j->rows[k]);
		exg_batch_init(&j->batch[k], j->naxes, (exg_nonplanar_policy) exactgpu_nonplanar_faces);
	}
	return true;
}

/* The engine's join of the two batches: in the GPU service, or here. */
static exg_status
engine_join(ExactgpuJoin *j, const exg_join_options *opt, ExactgpuJoinReport *rep,
			exg_error *err)
{
	if (opt->device != EXG_DEVICE_CPU && exactgpu_service_serves())
		return run_in_service(j, opt, rep, err);
	if (j->kind == EXACTGPU_JOIN_INTERCEPTS)
		return exg_intercepts_candidates(&j->batch[0], &j->batch[1], opt, &j->pairs,
										 &j->npairs, &rep->stats, err);
	return exg_batch_join_as(&j->batch[0], &j->batch[1], kind_mode[j->kind], opt,
							 &j->pairs, &j->npairs, &rep->stats, err);
}

/*
 * One run of the join (kinds INTERSECTS, VOLUME, LOCATE, INTERCEPTS) over
 * the rows as they are: false when it left a row out and must run again.
 */
static bool
join_run_once(ExactgpuJoin *j, bool by_id)
{
	ExactgpuRows *rows[2] = {&j->rows[0], &j->rows[1]};
	exg_batch  *batch[2] = {&j->batch[0], &j->batch[1]};
	ExactgpuJoinReport *rep;
	exg_join_options opt;
	const char *cpu_because;
	exg_error	err = {0};
	exg_status	st = EXG_OK;
	uint64		nrows[2],
				nprims[2];

	/* a few rows against big bodies: only the pairs whose boxes meet are
	 * tested, against the bodies' prepared forms (join_probe.c) */
	if (exactgpu_join_probe(j, by_id))
		return true;
	/* (in skip mode skip_unreadable left such rows out) */
	if (j->kind == EXACTGPU_JOIN_LOCATE && !j->rows[0].skip_invalid)
		check_points_named(j);
	/* in-line rows parsed on the thread pool, out-of-line ones by parallel
	 * workers when it pays; batch row i is the row of ids[i] */
	exactgpu_rows_flatten(rows, batch, 2, &j->read);
	exactgpu_rows_check_srids(&j->rows[0], &j->rows[1]);
	/* as the predicates row by row: in 3D a geometry without Z meets none
	 * with Z (the batch would read its z as 0) */
	if (j->naxes == 3 && j->kind != EXACTGPU_JOIN_INTERCEPTS)
		check_dims_named(j, false);
	/* intercepts: a hole without Z against bodies with Z, as row by row (a
	 * body without Z the engine refuses in its own words: it bounds no
	 * volume) */
	else if (j->naxes == 3)
		check_dims_named(j, true);
	for (int k = 0; k < 2; k++)
	{
		nrows[k] = j->rows[k].n;
		nprims[k] = j->batch[k].nprims;
	}
	rep = report_read(j, j->naxes == 3 ? kind_semantics[j->kind] : "2D", nrows, nprims,
					  "primitives", j->t_start);

	j->t_join = exg_now_ns();
	cpu_because = exactgpu_join_options_service(&opt, nprims[0] + nprims[1], PRIMS_PER_THREAD,
												j->planned_cpu);
	if (by_id)
		for (int k = 0; k < 2; k++)
			j->batch[k].order = exactgpu_rows_order(&j->rows[k], &j->place_ids[k]);
	if (j->lazy && (nrows[0] == 0 || nrows[1] == 0))
		snprintf(rep->stats.device_name, sizeof(rep->stats.device_name),
				 "none (an input is empty)");
	else
	{
		st = engine_join(j, &opt, rep, &err);
		/*
		 * A GPU whose memory is held (by another process: the join split
		 * its input as far as it goes): under exactgpu.device = auto the
		 * same join on the CPU, said in the device name (the service's
		 * lanes do the same themselves).
		 */
		if (st == EXG_ERR_DEVICE_MEMORY && exactgpu_device == EXG_DEVICE_AUTO)
		{
			opt.device = EXG_DEVICE_CPU;
			memset(&err, 0, sizeof(err));
			st = engine_join(j, &opt, rep, &err);
			cpu_because = "the GPU's memory ran out";
		}
		if (st != EXG_OK)
		{
			if (skip_failed_row(j, &err))
				return false;
			join_fail_rows(j, &err);
		}
		name_device(&rep->stats, cpu_because);
	}
	/* the batches are done with: their memory goes before the rows go out */
	for (int k = 0; k < 2; k++)
	{
		exg_batch_free(&j->batch[k]);
		exactgpu_rows_release(&j->rows[k]);
	}
	if (j->kind == EXACTGPU_JOIN_INTERCEPTS && !run_intercepts(j))
		return false;
	rep->join_ms = (exg_now_ns() - j->t_join) / 1e6;
	report_joined(j, rep);
	return true;
}

void
exactgpu_join_run(ExactgpuJoin *j, bool by_id)
{
	Assert(j->kind != EXACTGPU_JOIN_BOXES);
	for (int k = 0; k < 2; k++)
		if (!j->name_rows)
			j->rows[k].side_name = NULL;	/* ids are tuple numbers */
	skip_unreadable(j, j->naxes == 3);
	while (!join_run_once(j, by_id))
		;
	if (j->rows[0].skip_invalid)
		exactgpu_invalid_rows_publish(j->rows, 2, j->context);
}

/* ---- box joins ---- */

/* Keep the rows of side k with a box (empty geometries meet nothing). */
static void
boxes_compact(ExactgpuJoin *j, int k, uint8 *has_box)
{
	size_t		nrows = j->rows[k].n,
				d2 = 2 * j->naxes,
				n = 0;
	double	   *box = j->box[k];
	int64	   *ids = j->rows[k].ids;

	for (size_t i = 0; i < nrows; i++)
		if (has_box[i])
		{
			if (n != i)
			{
				memmove(&box[d2 * n], &box[d2 * i], d2 * sizeof(double));
				ids[n] = ids[i];
			}
			n++;
		}
	j->box_ids[k] = ids;
	j->nbox[k] = n;
	pfree(has_box);
	if (n > EXG_BOX_MAX_INPUT)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("%s: more than %u boxes in one input", j->context, EXG_BOX_MAX_INPUT)));
}

void
exactgpu_join_read_boxes(ExactgpuJoin *j)
{
	ExactgpuRows *rows[2] = {&j->rows[0], &j->rows[1]};
	uint8	   *has_box[2];
	uint64		nrows[2],
				nbox[2];
	char		semantics[32];

	Assert(j->kind == EXACTGPU_JOIN_BOXES);
	for (int k = 0; k < 2; k++)
		if (!j->name_rows)
			j->rows[k].side_name = NULL;	/* ids are tuple numbers */
	skip_unreadable(j, false);
	/* in line on all cores, out of line (TOAST) by parallel workers when it pays */
	exactgpu_rows_boxes(rows, 2, j->naxes, j->box, has_box, &j->read);
	exactgpu_rows_check_srids(&j->rows[0], &j->rows[1]);
	for (int k = 0; k < 2; k++)
	{
		nrows[k] = j->rows[k].n;
		boxes_compact(j, k, has_box[k]);
		nbox[k] = j->nbox[k];
	}
	snprintf(semantics, sizeof(semantics), "%dD boxes", j->naxes);
	report_read(j, semantics, nrows, nbox, "boxes", j->t_start);
	if (j->rows[0].skip_invalid)
		exactgpu_invalid_rows_publish(j->rows, 2, j->context);
}

/*
 * Where the engine's pair chunks go. The engine calls the sink on this
 * thread, between its own GPU steps: a PostgreSQL ERROR raised by emit
 * must not unwind through the engine, so it is caught, kept, and rethrown
 * once the engine has returned.
 */
typedef struct BoxSink
{
	ExactgpuBoxEmit emit;
	void	   *arg;
	ErrorData  *error;
} BoxSink;

static exg_status
box_sink(void *arg, const exg_pair *p, size_t n)
{
	BoxSink    *bs = arg;
	MemoryContext cxt = CurrentMemoryContext;
	volatile exg_status st = EXG_OK;

	PG_TRY();
	{
		CHECK_FOR_INTERRUPTS();
		bs->emit(bs->arg, p, n);
	}
	PG_CATCH();
	{
		MemoryContextSwitchTo(cxt);
		bs->error = CopyErrorData();
		FlushErrorState();
		st = EXG_ERR_INTERRUPTED;
	}
	PG_END_TRY();
	return st;
}

/*
 * The box join in the GPU service: its pairs come back at once and go to
 * emit in chunks, as the engine's sink would hand them.
 */
static exg_status
box_join_in_service(const exg_box_set *A, const exg_box_set *B, int naxes,
					const exg_join_options *opt, ExactgpuBoxEmit emit, void *arg,
					exg_join_stats *stats, exg_error *err)
{
	ExactgpuServiceResult res;
	exg_status	st;

	st = exactgpu_service_box_join(A, B, naxes, opt, &res, stats, err);
	if (st != EXG_OK)
		return st;
	name_service(stats, &res);
	PG_TRY();
	{
		const exg_pair *pairs = (const exg_pair *) res.pairs;

		for (size_t k = 0; k < res.npairs; k += 65536)
			emit(arg, pairs + k, Min(res.npairs - k, (size_t) 65536));
	}
	PG_FINALLY();
	{
		free(res.pairs);
	}
	PG_END_TRY();
	return EXG_OK;
}

/* One engine box join; a failure (or emit's ERROR) raised here. */
static void
box_join(const ExactgpuJoin *j, const char *context, const exg_box_set *A,
		 const exg_box_set *B, int naxes, const exg_join_options *opt, ExactgpuBoxEmit emit,
		 void *arg, exg_join_stats *stats)
{
	BoxSink		bs = {emit, arg, NULL};
	exg_error	err = {0};
	exg_status	st;

	if (opt->device != EXG_DEVICE_CPU && exactgpu_service_serves())
		st = box_join_in_service(A, B, naxes, opt, emit, arg, stats, &err);
	else
		st = exg_box_join(A, B, naxes, opt, box_sink, &bs, stats, &err);
	if (st != EXG_OK)
	{
		if (bs.error)
			ReThrowError(bs.error);
		if (j)
		{
			const int64 *const ids[2] = {j->box_ids[0], j->box_ids[1]};
			const size_t n[2] = {j->nbox[0], j->nbox[1]};

			join_fail(j, &err, ids, n);
		}
		exactgpu_report(&err, context);
	}
}

void
exactgpu_join_boxes(ExactgpuJoin *j, ExactgpuBoxEmit emit, void *arg)
{
	ExactgpuJoinReport *rep = &exactgpu_last_join;
	exg_join_options opt;
	const char *cpu_because;
	exg_box_set A = {j->box[0], (uint32) j->nbox[0]},
				B = {j->box[1], (uint32) j->nbox[1]};

	j->t_join = exg_now_ns();
	cpu_because = exactgpu_join_options_service(&opt, j->nbox[0] + j->nbox[1], 0,
												j->planned_cpu);
	box_join(j, j->context, &A, &B, j->naxes, &opt, emit, arg, &rep->stats);
	name_device(&rep->stats, cpu_because);
	rep->join_ms = (exg_now_ns() - j->t_join) / 1e6;
	report_joined(j, rep);
}

/* ---- ExactBoxJoin's calls ---- */

void
exactgpu_box_calls_begin(ExactgpuBoxCalls *bc, const char *context, uint64 nboxes,
						 bool planned_cpu, uint64 t_start)
{
	memset(bc, 0, sizeof(*bc));
	bc->context = context;
	bc->t_start = t_start;
	bc->t_join = exg_now_ns();
	bc->cpu_because = exactgpu_join_options_service(&bc->opt, nboxes, 0, planned_cpu);
}

void
exactgpu_box_calls_join(ExactgpuBoxCalls *bc, const exg_box_set *A, const exg_box_set *B,
						int naxes, ExactgpuBoxEmit emit, void *arg)
{
	exg_join_stats st;
	exg_join_stats *sum = &bc->stats;

	memset(&st, 0, sizeof(st));
	box_join(NULL, bc->context, A, B, naxes, &bc->opt, emit, arg, &st);
	bc->calls++;
	sum->candidates += st.candidates;
	sum->hits += st.hits;
	sum->cell_pairs += st.cell_pairs;
	sum->waves += st.waves;
	sum->splits += st.splits;
	sum->gpu_setup_ns += st.gpu_setup_ns;
	for (int p = 0; p < EXG_JOIN_PHASES; p++)
		sum->phase_ns[p] += st.phase_ns[p];
	sum->total_ns += st.total_ns;
	sum->used_gpu |= st.used_gpu;
	memcpy(sum->grid_dims, st.grid_dims, sizeof(sum->grid_dims));
	memcpy(sum->device_name, st.device_name, sizeof(sum->device_name));
}

void
exactgpu_box_calls_end(ExactgpuBoxCalls *bc, const char *semantics, uint64 rows[2],
					   uint64 boxes[2], uint64 row_pairs)
{
	ExactgpuJoinReport *rep = &exactgpu_last_join;
	double		join_ms = (exg_now_ns() - bc->t_join) / 1e6;

	memset(rep, 0, sizeof(*rep));
	rep->left_rows = rows[0];
	rep->right_rows = rows[1];
	rep->left_prims = boxes[0];
	rep->right_prims = boxes[1];
	rep->row_pairs = row_pairs;
	rep->stats = bc->stats;
	rep->read_ms = (bc->t_join - bc->t_start) / 1e6;
	rep->join_ms = join_ms;
	rep->total_ms = rep->read_ms + rep->join_ms;
	snprintf(rep->semantics, sizeof(rep->semantics), "%s", semantics);
	if (bc->calls == 0)
		snprintf(rep->stats.device_name, sizeof(rep->stats.device_name),
				 "none (an input is empty)");
	else
		name_device(&rep->stats, bc->cpu_because);
	memcpy(bc->stats.device_name, rep->stats.device_name, sizeof(bc->stats.device_name));
	rep->valid = true;
	if (exactgpu_progress)
		ereport(NOTICE,
				(errmsg("%s: read %llu x %llu rows (%llu x %llu boxes) in %.1f ms; joined on %s in %.1f ms (%d engine calls): %llu box comparisons, %llu pairs",
						bc->context, (unsigned long long) rows[0], (unsigned long long) rows[1],
						(unsigned long long) boxes[0], (unsigned long long) boxes[1],
						rep->read_ms, rep->stats.device_name, rep->join_ms, bc->calls,
						(unsigned long long) rep->stats.candidates,
						(unsigned long long) row_pairs)));
}

/* ---- the self-intersection join (validity) ---- */

exg_pair *
exactgpu_join_self(const exg_prim_set *T, const uint32_t *face, size_t *n, const char *context)
{
	ExactgpuJoinReport *rep = &exactgpu_last_join;
	exg_join_options opt;
	const char *cpu_because;
	exg_error	err = {0};
	exg_pair   *pairs = NULL;
	uint64		t0 = exg_now_ns();

	memset(rep, 0, sizeof(*rep));
	rep->left_rows = rep->right_rows = 1;
	rep->left_prims = rep->right_prims = T->nprims;
	snprintf(rep->semantics, sizeof(rep->semantics), "3D self-intersections");
	/* a surface against itself: its primitives once, not twice */
	cpu_because = exactgpu_join_options(&opt, T->nprims, PRIMS_PER_THREAD, false);
	if (exg_self_intersections(T, face, &opt, &pairs, n, &rep->stats, &err) != EXG_OK)
		exactgpu_report(&err, context);
	name_device(&rep->stats, cpu_because);
	rep->row_pairs = *n;
	rep->join_ms = rep->total_ms = (exg_now_ns() - t0) / 1e6;
	rep->valid = true;
	return pairs;
}
