/*
 * join_probe.c — the probe join (join_probe.h): which joins take it, the
 * rows prepared (the bodies borrowed from the resident store, or prepared
 * and kept there), the engine's probe (batch/batch_probe.h), the report.
 *
 * Why it pays: 500 new holes against 100 bodies of 10^7 triangles in all
 * flatten and grid every triangle again in the batch join (37 ms on an
 * H100, most of it the bodies), where a hole meets a few bodies; the
 * bodies' prepared forms (each with its BVH) are kept in the resident
 * store, so each (hole, body) pair whose boxes meet costs one BVH descent
 * per hole segment.
 */
#include "exactgpu.h"

#include "access/detoast.h"
#include "miscadmin.h"
#include "utils/memutils.h"

#include "geom_cache.h"
#include "gpu_service.h"
#include "join_options.h"
#include "join_probe.h"
#include "resident_store.h"

/*
 * When the probe pays (exactgpu.probe_join on): the small side's rows are
 * prepared and tested one by one, so it stays small; the other side is
 * big enough that not flattening it matters; with the store, its rows are
 * bodies stored out of line (kept prepared across queries: a body missing
 * from the store is prepared here once and kept), but for a few in line
 * (prepared for the join, as the small side is); without it, every body
 * is prepared for this join alone, which only pays while they are small
 * (the batch join's flattening is cheaper than a BVH per body). The
 * planner asks the same rule of its estimates (exactgpu_probe_rule), and
 * prices the probe where the executor will take it (planner/join_cost.c).
 */
#define PROBE_SMALL_BYTES		((uint64) 256 << 20)
#define PROBE_RATIO				4
#define PROBE_INLINE_BODY_BYTES	((uint64) 4 << 20)
/*
 * ... and beside a GPU, which joins big sides faster than the cores probe
 * them (H100 host, large mine, bodies resident: 500 holes probed 7.7 ms,
 * joined on the GPU 18.5; 20,000 holes 78 against 38; even near 5 MB).
 * The ratio is the CPU's: a GPU join costs some 30 ms however small (the
 * demo mine's full join, 1.7 MB of holes against 12 times their bytes of
 * bodies: 32 ms on the GPU, 11 probed on 16 cores).
 */
#define PROBE_GPU_SMALL_BYTES	((uint64) 4 << 20)
#define PROBE_GPU_RATIO			PROBE_RATIO
#define PROBE_MAX_BOX_TESTS		((double) 1e8)
#define PROBE_COLD_BODY_BYTES	((uint64) 1 << 20)

/* The prepared rows of both sides, freed with the caller's context. */
typedef struct ProbeRows
{
	exg_prepared *prep[2];
	exg_prepared **ptr[2];
	const void **block[2];		/* the resident block a row borrows, or NULL */
	size_t		n[2];			/* rows whose prep is initialised */
	size_t		borrowed;		/* bodies borrowed from the store */
	uint64		borrowed_bytes; /* ... their detoasted bytes */
	size_t		prepared;		/* bodies prepared here (kept, or not) */
	uint64		prepared_bytes; /* ... their detoasted bytes */
	MemoryContextCallback cb;
} ProbeRows;

static void
probe_rows_free(void *arg)
{
	ProbeRows  *pr = arg;

	for (int k = 0; k < 2; k++)
	{
		for (size_t i = 0; i < pr->n[k]; i++)
			exg_prepared_free(&pr->prep[k][i]);
		pr->n[k] = 0;
	}
}

/*
 * Would the batch join run on a GPU (the service's, or this backend's)?
 * Its size as the executor's, by the bytes of its vertices.
 */
static bool
probe_beside_gpu(double bytes)
{
	if (exactgpu_device == EXG_DEVICE_CPU ||
		(exactgpu_device == EXG_DEVICE_AUTO &&
		 bytes / EXACTGPU_PROBE_BYTES_PER_VERTEX < (double) exactgpu_gpu_min_primitives))
		return false;
	return exactgpu_service_has_gpus() || exg_gpu_present_hint();
}

int
exactgpu_probe_rule(ExactgpuJoinKind kind, int naxes, bool skip_invalid,
					const ExactgpuProbeSide side[2])
{
	int			small,
				big;
	bool		gpu;

	if (!exactgpu_probe_join ||
		!(kind == EXACTGPU_JOIN_INTERSECTS ||
		  (naxes == 3 && (kind == EXACTGPU_JOIN_VOLUME || kind == EXACTGPU_JOIN_LOCATE))))
		return -1;
	/* exactgpu.invalid_rows = 'skip' leaves rows out as the batch join
	 * meets them: that join, then */
	if (skip_invalid)
		return -1;
	/* an empty side: the driver's join is as cheap, and lazy joins read nothing */
	if (side[0].rows == 0 || side[1].rows == 0)
		return -1;
	small = side[0].bytes <= side[1].bytes ? 0 : 1;
	big = 1 - small;
	gpu = probe_beside_gpu(side[0].bytes + side[1].bytes);
	if (side[small].bytes > (double) (gpu ? PROBE_GPU_SMALL_BYTES : PROBE_SMALL_BYTES) ||
		side[big].bytes < (gpu ? PROBE_GPU_RATIO : PROBE_RATIO) * side[small].bytes ||
		side[small].rows * side[big].rows > PROBE_MAX_BOX_TESTS)
		return -1;
	/* bodies stored in line (small ones, tiny bodies of a mine) have no
	 * resident identity: prepared for the join, as long as they are few */
	if (exactgpu_resident_enabled() ?
		side[big].toast_rows == 0 || side[big].inline_bytes > PROBE_INLINE_BODY_BYTES :
		side[big].bytes > PROBE_COLD_BODY_BYTES)
		return -1;
	return big;
}

/* Which side of j is the bodies', or -1: the rule, asked of the rows as read. */
static int
probe_body_side(const ExactgpuJoin *j)
{
	ExactgpuProbeSide side[2];

	for (int k = 0; k < 2; k++)
	{
		side[k].rows = (double) (j->rows[k].n + j->rows[k].ntoast);
		side[k].bytes = (double) (j->rows[k].len + j->rows[k].toast_bytes);
		side[k].toast_rows = (double) j->rows[k].ntoast;
		side[k].inline_bytes = (double) j->rows[k].len;
	}
	return exactgpu_probe_rule(j->kind, j->naxes,
							   j->rows[0].skip_invalid || j->rows[1].skip_invalid, side);
}

/* Name the row of id on side k in a failure, as the driver does. */
static void pg_attribute_noreturn()
probe_fail_id(const ExactgpuJoin *j, exg_error *err, int k, int64 id)
{
	size_t		len = strlen(err->message);

	if (j->name_rows)
		snprintf(err->message + len, sizeof(err->message) - len, " (id %s of the %s)",
				 exactgpu_rows_id_text(&j->rows[k], id), j->side_name[k]);
	exactgpu_report(err, j->context);
}

/* ... row i of the batch order (once the TOAST rows' ids follow the others'). */
static void pg_attribute_noreturn()
probe_fail(const ExactgpuJoin *j, exg_error *err, int k, size_t i)
{
	probe_fail_id(j, err, k, j->rows[k].ids[i]);
}

static void
parse_row(const ExactgpuJoin *j, int k, int64 id, const uint8 *g, size_t len,
		  exg_prepared *out)
{
	exg_shape	shape;
	exg_error	err = {0};

	exg_shape_init(&shape);
	if (exg_gserialized_read(g, len, &shape, &err) != EXG_OK)
	{
		exg_shape_free(&shape);
		probe_fail_id(j, &err, k, id);
	}
	exg_prepared_init(out, &shape, (exg_nonplanar_policy) exactgpu_nonplanar_faces);
}

/*
 * TOAST row t of side k (row i in the batch order) into *out: borrowed from
 * the resident store, else detoasted, prepared, and kept there if it can be.
 */
static void
toast_row(const ExactgpuJoin *j, ProbeRows *pr, int k, size_t i, const ExactgpuToastRow *t,
		  exg_prepared *out)
{
	const void **kept = &pr->block[k][i];
	const struct varlena *raw = (const struct varlena *) t->ptr;
	ResidentKey rkey;
	bool		keyed = exactgpu_resident_enabled() &&
		exactgpu_resident_key(raw, exactgpu_nonplanar_faces, &rkey);
	const void *block = NULL;
	Size		size = 0;
	exg_error	err = {0};
	struct varlena *v;

	if (keyed && (block = exactgpu_resident_get(&rkey, &size)) != NULL)
	{
		if (exg_prepared_borrow(block, size, out, &err) != EXG_OK)
			probe_fail_id(j, &err, k, t->id);
		pr->borrowed++;
		pr->borrowed_bytes += (uint64) rkey.rawsize;
		*kept = block;
		return;
	}
	v = detoast_attr((struct varlena *) raw);
	parse_row(j, k, t->id, (const uint8 *) VARDATA(v), VARSIZE(v) - VARHDRSZ, out);
	pr->prepared_bytes += VARSIZE(v) - VARHDRSZ;
	pfree(v);
	pr->prepared++;
	/* kept as the row-level predicates keep it (a view that fails is left
	 * to the probe, which names the row) */
	if (keyed && (block = exactgpu_geom_keep_prepared(&rkey, out, &size)) != NULL)
	{
		/* the kept block serves this join too: our copy goes */
		exg_prepared_free(out);
		if (exg_prepared_borrow(block, size, out, &err) != EXG_OK)
			probe_fail_id(j, &err, k, t->id);
		*kept = block;
	}
}

/*
 * Side k's rows stored in line, parsed on the worker pool (engine calls
 * only; a failure is named here after, the first in row order): the full
 * join's 20,000 holes took 47-63 ms on one thread, most of its read (H100
 * host, 16 cores).
 */
static void
parse_inline_rows(ExactgpuJoin *j, ProbeRows *pr, int k)
{
	ExactgpuRows *rows = &j->rows[k];
	long		n = (long) rows->n,
				first_bad = n;
	exg_error	bad = {0};
	int			threads = exactgpu_threads_for(rows->len / EXACTGPU_PROBE_BYTES_PER_VERTEX,
												PRIMS_PER_THREAD);
	exg_nonplanar_policy policy = (exg_nonplanar_policy) exactgpu_nonplanar_faces;

#pragma omp parallel for schedule(dynamic, 64) num_threads(threads) if (threads > 1 && n > 256)
	for (long i = 0; i < n; i++)
	{
		exg_shape	shape;
		exg_error	err = {0};
		exg_status	st;

		if (i > first_bad)
			continue;
		exg_shape_init(&shape);
		st = exg_cancel_requested()
			? exg_fail(&err, EXG_ERR_INTERRUPTED, "canceled")
			: exg_gserialized_read(rows->data + rows->off[i], rows->off[i + 1] - rows->off[i],
								   &shape, &err);
		if (st != EXG_OK)
		{
			exg_shape_free(&shape);
#pragma omp critical (exactgpu_probe_parse)
			if (i < first_bad)
			{
				first_bad = i;
				bad = err;
			}
			continue;
		}
		exg_prepared_init(&pr->prep[k][i], &shape, policy);
	}
	/* the rows parsed are freed with the others (a zeroed one frees nothing) */
	pr->n[k] = (size_t) n;
	for (long i = 0; i < n; i++)
		pr->ptr[k][i] = &pr->prep[k][i];
	CHECK_FOR_INTERRUPTS();
	if (first_bad < n)
		probe_fail_id(j, &bad, k, rows->ids[first_bad]);
}

/* Every row of side k prepared, in the batch's row order (in line, then TOAST). */
static void
prepare_side(ExactgpuJoin *j, ProbeRows *pr, int k)
{
	ExactgpuRows *rows = &j->rows[k];
	size_t		n = rows->n + rows->ntoast;

	pr->prep[k] = MemoryContextAllocZero(CurrentMemoryContext,
										 sizeof(exg_prepared) * Max(n, 1));
	pr->ptr[k] = palloc(sizeof(exg_prepared *) * Max(n, 1));
	pr->block[k] = palloc0(sizeof(const void *) * Max(n, 1));
	/* in line first, then the TOAST rows (their SRIDs noted, and failures
	 * named, by their own ids), whose ids then follow the others' */
	parse_inline_rows(j, pr, k);
	for (size_t i = rows->n; i < n; i++)
	{
		exg_prepared *g = &pr->prep[k][i];
		size_t		ninline = rows->n;

		CHECK_FOR_INTERRUPTS();
		toast_row(j, pr, k, i, &rows->toast[i - ninline], g);
		exactgpu_rows_note_srid(rows, g->shape.srid, i - ninline);
		pr->n[k] = i + 1;
		pr->ptr[k][i] = g;
	}
	exactgpu_rows_append_toast_ids(rows);
}

/* The engine's predicate for the join's kind (join_driver.c's kind_mode). */
static exg_probe_predicate
probe_predicate(const ExactgpuJoin *j)
{
	if (j->kind == EXACTGPU_JOIN_VOLUME)
		return EXG_PROBE_VOLUMES_LEFT;
	if (j->kind == EXACTGPU_JOIN_LOCATE)
		return EXG_PROBE_VOLUMES_RIGHT;
	return j->naxes == 3 ? EXG_PROBE_INTERSECTS_3D : EXG_PROBE_INTERSECTS_2D;
}

/*
 * The solid verdicts of side k's bodies kept beside their resident blocks
 * (by the row-level functions or an earlier probe: judging a big body is a
 * self-join of its faces, far dearer than the probe), set on the bodies;
 * which rows had them.
 */
static bool *
verdicts_get(ProbeRows *pr, int k)
{
	bool	   *noted = palloc0(sizeof(bool) * Max(pr->n[k], 1));
	ResidentVerdicts rv;

	for (size_t i = 0; i < pr->n[k]; i++)
		if (pr->block[k][i] != NULL && pr->prep[k][i].solid_judged == 0 &&
			exactgpu_resident_note_get(pr->block[k][i], &rv, sizeof(rv)))
		{
			exg_solid_set_verdicts(&pr->prep[k][i], rv.solid_why, rv.inside_why);
			noted[i] = true;
		}
	return noted;
}

/* ... and those judged here kept beside their blocks for every backend. */
static void
verdicts_set(ProbeRows *pr, int k, const bool *noted)
{
	ResidentVerdicts rv;

	for (size_t i = 0; i < pr->n[k]; i++)
		if (pr->block[k][i] != NULL && !noted[i] && pr->prep[k][i].solid_judged != 0)
		{
			memset(&rv, 0, sizeof(rv));
			strlcpy(rv.solid_why, pr->prep[k][i].solid_why, sizeof(rv.solid_why));
			strlcpy(rv.inside_why, pr->prep[k][i].inside_why, sizeof(rv.inside_why));
			exactgpu_resident_note_set(pr->block[k][i], &rv, sizeof(rv));
		}
}

/* The points of a point-in-solid join are points, as the batch join checks. */
static void
check_points(const ExactgpuJoin *j, const ProbeRows *pr)
{
	for (size_t i = 0; i < pr->n[0]; i++)
	{
		const exg_shape *s = &pr->prep[0][i].shape;

		for (size_t c = 0; c < s->ncomps; c++)
			if (s->comps[c].kind != EXG_COMP_POINT)
			{
				exg_error	err = {0};

				exg_fail(&err, EXG_ERR_WRONG_KIND, "a row of the points is not a point");
				probe_fail(j, &err, 0, i);
			}
	}
}

/*
 * Leave the join to the driver's batch join, the rows as they were read:
 * for the few data errors the batch join words or names in its own way.
 */
static bool
fall_back(ExactgpuJoin *j, ProbeRows *pr, const ExactgpuRows saved[2])
{
	probe_rows_free(pr);
	for (int k = 0; k < 2; k++)
	{
		/* the TOAST rows' ids were appended (their array grown, and its
		 * capacity with it: the off array's is the saved one) */
		j->rows[k].n = saved[k].n;
		j->rows[k].ntoast = saved[k].ntoast;
		j->rows[k].cap = saved[k].cap;
	}
	return false;
}

/* exactgpu_last_join_stats() and the progress NOTICE. */
static void
probe_report(const ExactgpuJoin *j, const ProbeRows *pr, int body, const exg_probe_stats *ps,
			 uint64 t_read, uint64 t_end)
{
	ExactgpuJoinReport *rep = &exactgpu_last_join;
	size_t		nbodies = j->rows[body].n;

	memset(rep, 0, sizeof(*rep));
	rep->left_rows = j->rows[0].n;
	rep->right_rows = j->rows[1].n;
	rep->left_prims = ps->prims[0];
	rep->right_prims = ps->prims[1];
	rep->read_resident = pr->borrowed == nbodies ? 1 : 0;
	/* as the batch join reports its read: rows borrowed and their bytes,
	 * the bytes read (the other side's, and the bodies prepared here) */
	rep->resident_rows = pr->borrowed;
	rep->resident_bytes = pr->borrowed_bytes;
	rep->read_bytes = j->rows[1 - body].len + j->rows[1 - body].toast_bytes +
		j->rows[body].len + pr->prepared_bytes;
	snprintf(rep->semantics, sizeof(rep->semantics), "%s",
			 j->naxes == 2 ? "2D" : j->kind == EXACTGPU_JOIN_VOLUME ? "3D volume" :
			 j->kind == EXACTGPU_JOIN_LOCATE ? "3D point in solid" : "3D");
	rep->read_ms = (t_read - j->t_start) / 1e6;
	rep->join_ms = (t_end - t_read) / 1e6;
	rep->stats.candidates = ps->box_pairs;
	rep->stats.exact_pairs = ps->exact_pairs;
	rep->stats.hits = j->npairs;
	rep->stats.total_ns = t_end - t_read;
	snprintf(rep->stats.device_name, sizeof(rep->stats.device_name),
			 "CPU probe (%d thread%s): %llu of %zu bodies near the rows", ps->threads,
			 ps->threads == 1 ? "" : "s", (unsigned long long) ps->near[body], nbodies);
	if (exactgpu_progress)
		ereport(NOTICE,
				(errmsg("%s: probed %zu x %zu rows in %.1f ms (read %.1f ms: %zu bodies borrowed from the resident store, %zu prepared here): %s, %llu row pairs whose boxes meet, %llu decided by GMP, %zu pairs",
						j->context, j->rows[0].n, j->rows[1].n, rep->read_ms + rep->join_ms,
						rep->read_ms, pr->borrowed, pr->prepared, rep->stats.device_name,
						(unsigned long long) ps->box_pairs, (unsigned long long) ps->exact_pairs,
						j->npairs),
				 errdetail("views and indexes built %.1f ms, boxes and exact tests %.1f ms",
						   ps->ready_ns / 1e6, ps->test_ns / 1e6)));
}

bool
exactgpu_join_probe(ExactgpuJoin *j, bool by_id)
{
	int			body = probe_body_side(j);
	ProbeRows  *pr;
	exg_probe_side side[2];
	exg_probe_stats ps = {0};
	exg_error	err = {0};
	int			threads;
	uint64		t_read,
				small_bytes;
	ExactgpuRows saved[2];		/* the counts as read, for fall_back */

	if (body < 0)
		return false;
	small_bytes = j->rows[1 - body].len + j->rows[1 - body].toast_bytes;
	pr = palloc0(sizeof(ProbeRows));
	pr->cb.func = probe_rows_free;
	pr->cb.arg = pr;
	MemoryContextRegisterResetCallback(CurrentMemoryContext, &pr->cb);
	for (int k = 0; k < 2; k++)
	{
		saved[k] = j->rows[k];
		prepare_side(j, pr, k);
	}
	exactgpu_rows_check_srids(&j->rows[0], &j->rows[1]);
	if (j->kind == EXACTGPU_JOIN_LOCATE)
		check_points(j, pr);
	if (j->naxes == 3)
	{
		bool		z[2] = {false, false},
					flat[2] = {false, false};

		for (int k = 0; k < 2; k++)
			for (size_t i = 0; i < pr->n[k]; i++)
				if (!exg_shape_is_empty(&pr->prep[k][i].shape))
				{
					z[k] |= pr->prep[k][i].shape.has_z;
					flat[k] |= !pr->prep[k][i].shape.has_z;
				}
		/* the batch join names the row without Z: its error, then */
		if ((z[0] && flat[1]) || (flat[0] && z[1]))
			return fall_back(j, pr, saved);
	}
	t_read = exg_now_ns();
	for (int k = 0; k < 2; k++)
	{
		side[k].rows = pr->ptr[k];
		side[k].n = pr->n[k];
		side[k].order = NULL;
		j->place_ids[k] = j->rows[k].ids;
		if (by_id)
			side[k].order = exactgpu_rows_order(&j->rows[k], &j->place_ids[k]);
	}
	/*
	 * Threads by the small side's size (about its vertices: 24 bytes each),
	 * as a batch join sizes them by primitives: a 500-hole probe is a few
	 * ms of work, and concurrent clients each starting every core's thread
	 * took turns on the cores (2-core machine: 2 clients at 2 threads each
	 * 90 joins/s in all, at 1 thread each 451)
	 */
	threads = exactgpu_threads_for(small_bytes / EXACTGPU_PROBE_BYTES_PER_VERTEX, PRIMS_PER_THREAD);
	{
		exg_probe_predicate pred = probe_predicate(j);
		int			vol = pred == EXG_PROBE_VOLUMES_LEFT ? 0 : pred == EXG_PROBE_VOLUMES_RIGHT ? 1 : -1;
		bool	   *noted = NULL;
		exg_join_options solid_opt;
		exg_status	st;

		if (vol >= 0)
		{
			noted = verdicts_get(pr, vol);
			/* a body's self-join, as the row-level functions size it */
			(void) exactgpu_join_options(&solid_opt, (j->rows[vol].len + j->rows[vol].toast_bytes) /
										 Max(pr->n[vol], 1) / EXACTGPU_PROBE_BYTES_PER_VERTEX, 0, false);
		}
		st = exg_probe_ready(&side[0], &side[1], pred, threads, vol >= 0 ? &solid_opt : NULL,
							 &ps, &err);
		if (vol >= 0)
			verdicts_set(pr, vol, noted);
		if (st == EXG_ERR_NOT_SOLID && vol >= 0 && err.side == vol)
		{
			/*
			 * A body without a well-defined inside: the batch join says why
			 * in its own words (its triangles, where the verdict names faces),
			 * so it runs from the rows as read and raises the error.
			 */
			return fall_back(j, pr, saved);
		}
		if (st == EXG_OK)
			st = exg_probe_join(&side[0], &side[1], pred, threads, &j->pairs, &j->npairs, &ps,
								&err);
		if (st != EXG_OK)
		{
			if (err.row > 0 && err.row <= pr->n[err.side != 0])
				probe_fail(j, &err, err.side != 0, err.row - 1);
			exactgpu_report(&err, j->context);
		}
	}
	probe_rows_free(pr);
	for (int k = 0; k < 2; k++)
		exactgpu_rows_release(&j->rows[k]);
	probe_report(j, pr, body, &ps, t_read, exg_now_ns());
	return true;
}
