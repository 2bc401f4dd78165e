/*
 * join_read_parallel.c — the batch joins' inputs flattened by parallel
 * worker processes.
 *
 * Big geometries (ore bodies of 10^5 triangles) are stored out of line:
 * PostgreSQL's own single-backend floor for them is detoasting and
 * decompressing, and parsing and flattening cost as much again. A parallel
 * plan cannot spread that work: a parallel scan hands out heap BLOCKS, and
 * a table of 100 bodies is one block of TOAST pointers. So the reader keeps
 * the pointers (join_rows.c) and hands them out ROW by row instead, through
 * a ParallelContext as parallel CREATE INDEX does: each worker (and the
 * leader) claims the next row, the biggest left, detoasts it (the workers
 * share the leader's snapshot, so the pointer stays valid), parses and
 * flattens it into a one-row batch in a DSA area; the leader takes the
 * rows in order and copies them into the join's batch on its thread pool.
 * Nothing is parsed twice; worker threads never call PostgreSQL (these are
 * processes).
 *
 * Rows stored in line (drill holes: many small rows) are parsed by the
 * leader itself, on one thread, while the workers start on the TOAST rows,
 * when they are no more than its share of the work; else they go to the
 * workers too, in chunks of about INLINE_CHUNK_BYTES copied into the
 * segment. Either way one process per core parses. (The leader's thread
 * pool parsing them beside the workers ran 16 threads on cores the 15
 * workers held: 256 ms on the H100 machine; and there is no query time to
 * overlap the parsing with: the inner queries took 11 ms of a 1 s read.)
 *
 * A side whose rows are all TOAST rows (ore bodies: the bulk of the
 * bytes) is laid out in place instead: each process keeps the rows it
 * flattened in its own memory until all are flattened; the leader then
 * knows every row's place (a prefix sum in query order), makes one shared
 * segment of the batch's exact size, and every process writes its rows
 * there, indices shifted and owners set. The batch borrows that segment
 * (exg_batch_borrow) until it is freed: the leader copies nothing, where
 * gathering 10^7 triangles took it 70-110 ms on the H100 machine.
 *
 * Errors: a row that does not parse is recorded, and the leader reports the
 * first such row in query order, as the serial path would. A worker's
 * PostgreSQL error (detoast, memory) reaches the leader through the
 * ParallelContext; an error or cancel in the leader ends the transaction or
 * subtransaction, which destroys the context (its workers are terminated
 * and waited for) and detaches the DSM segments, the DSA's too.
 */
#include "exactgpu.h"

#include <math.h>
#include <sys/statvfs.h>

#include "access/detoast.h"
#include "access/parallel.h"
#include "access/xact.h"
#include "miscadmin.h"
#include "optimizer/optimizer.h"
#include "optimizer/cost.h"
#include "pgstat.h"
#include "port/atomics.h"
#include "postmaster/bgworker.h"
#include "storage/condition_variable.h"
#include "storage/dsm_impl.h"
#include "storage/shmem.h"
#include "storage/spin.h"
#include "utils/dsa.h"
#include "utils/memutils.h"

#include "join_options.h"
#include "join_rows.h"

#include "exactgpu_engine.h"
#define READ_KEY_SHARED		UINT64CONST(0xE7A6F1A700000001)
#define READ_KEY_TASKS		UINT64CONST(0xE7A6F1A700000002)
#define READ_KEY_DSA		UINT64CONST(0xE7A6F1A700000003)
#define READ_KEY_INLINE		UINT64CONST(0xE7A6F1A700000010)	/* + side */

/*
 * Below this much detoasted geometry, workers cost more than they save
 * (starting one takes a few ms; detoasting and flattening run at roughly
 * 100-200 MB/s per process). force_parallel_mode overrides it (tests).
 */
#define READ_PARALLEL_MIN_BYTES		((uint64) 8 << 20)
/* Below this many flattened bytes, one thread gathers them (threads cost more). */
#define FLAT_PARALLEL_MIN_BYTES		((uint64) 8 << 20)
/* A worker for every this many bytes, up to max_parallel_workers_per_gather. */
#define READ_BYTES_PER_WORKER		((uint64) 4 << 20)
/* Serialized bytes a thread boxes before another pays (parsing: join_rows.h). */
#define BOX_BYTES_PER_THREAD		((uint64) 1 << 20)
/*
 * Serial reading speed, detoasting and parsing (the H100 machine: 1.06 GB
 * of the large mine in 1.6-1.9 s; the 2-core machine: the paper mine's
 * 104 MB in ~0.3 s), to weigh against the workers' start-up.
 */
#define SERIAL_BYTES_PER_MS			((uint64) 400 << 10)
/* Start-up guesses before this backend has seen its workers start. */
#define START_MS_PRELOADED			10.0
#define START_MS_GUESS				100.0
/* Workers below which detoasting alone (ST_ExactBatch) stays in this backend. */
#define DETOAST_MIN_WORKERS			3
/* In-line rows per task: ~1 ms of parsing, small beside a body's row. */
#define INLINE_CHUNK_BYTES			((Size) 256 << 10)

enum
{
	TASK_PENDING = 0,			/* to claim, or being flattened */
	TASK_DONE,
	TASK_FAILED
};

enum
{
	TASK_TOAST,					/* one row, as its TOAST pointer */
	TASK_INLINE,				/* rows row0 .. row1 - 1 of a side's in-line bytes */
	TASK_BOX,					/* one row's exact box only (box joins), TOAST pointer */
	TASK_DETOAST				/* one row detoasted only (ST_ExactBatch), TOAST pointer */
};

typedef struct ReadTask
{
	char		ptr[TOAST_POINTER_SIZE];	/* in: the row's TOAST pointer */
	uint8		kind;
	uint8		side;
	uint32		row0,
				row1;
	uint64		work;			/* bytes to read: what orders the claims */
	pg_atomic_uint32 state;
	int32		worker;			/* ParallelWorkerNumber that flattened it */
	int32		srid;
	bool		srid_read;		/* srid is the row's (its header parsed) */
	uint8		solid;
	uint8		dims;			/* exg_flat_row.dims */
	/*
	 * TASK_TOAST: nverts * 3 doubles, then nprims * 3 uint32. TASK_INLINE:
	 * per row nverts and nprims (uint64), then solid and dims (uint8), padded
	 * to 8; then each row's vertices, then each row's indices (relative to
	 * its own vertices, as for a TOAST row).
	 */
	dsa_pointer flat;
	uint64		nverts;
	uint64		nprims;
	double		box[6];			/* TASK_BOX: lo, then hi (naxes each), if solid = 1 */
	/* a side laid out in place: the row in its flattener's keep batch ... */
	uint64		keep_v0;
	uint64		keep_p0;
	/* ... and its place in the side's batch (set by the leader) */
	uint64		vbase;
	uint64		pbase;
	uint32		row;
} ReadTask;

/* A side's rows stored in line, copied into the segment for the workers. */
typedef struct InlineRows
{
	uint64		n;
	uint64		len;
	/* then n + 1 offsets (uint64), then len bytes */
} InlineRows;

#define INLINE_OFF(ir)		((uint64 *) ((char *) (ir) + MAXALIGN(sizeof(InlineRows))))
#define INLINE_DATA(ir)		((const uint8 *) (INLINE_OFF(ir) + (ir)->n + 1))
#define INLINE_SIZE(n, len)	(MAXALIGN(sizeof(InlineRows)) + ((n) + 1) * sizeof(uint64) + (len))

typedef struct ReadShared
{
	int			naxes;
	int			policy;			/* exg_nonplanar_policy */
	uint32		ntasks;
	pg_atomic_uint32 next;		/* next task to claim */
	ConditionVariable done_cv;	/* broadcast when a task is done or failed */
	slock_t		mutex;			/* protects the first failure */
	uint32		fail_task;		/* lowest failed task, or UINT32_MAX */
	exg_error	fail;
	uint32		fail_header_task;	/* ... of those whose header did not read */
	exg_error	fail_header;
	/*
	 * When the workers came to run our code (exg_now_ns, a monotonic clock
	 * all processes share), from the launch: a worker loads every library
	 * its leader has loaded (PostGIS and its GEOS, PROJ ... too) before it
	 * reaches us, and that start-up can outweigh the work.
	 */
	uint64		launch_ns;
	pg_atomic_uint64 first_start_ns;
	pg_atomic_uint64 last_start_ns;
	/* Where the readers' time went, summed over processes (the profile). */
	pg_atomic_uint64 detoast_ns;
	pg_atomic_uint64 parse_ns;
	pg_atomic_uint64 copy_ns;
	pg_atomic_uint64 last_done_ns;	/* the last task finished */
	/* sides laid out in place (see the top of the file) */
	bool		in_place[2];
	uint32		nplace;			/* their tasks */
	pg_atomic_uint32 place_ready;	/* the leader has made the segments */
	pg_atomic_uint32 placed;	/* tasks laid out so far */
	dsm_handle	arena[2];
	uint64		arena_tri[2];	/* offsets in each side's segment: xyz at 0 */
	uint64		arena_owner[2];
} ReadShared;

PGDLLEXPORT void exactgpu_read_worker_main(dsm_segment *seg, shm_toc *toc);

/*
 * How long this backend's last parallel read took to have all its workers
 * running; < 0 before the first. A worker loads every library its leader
 * has loaded (PostGIS with GEOS and PROJ ...) before it reaches our code:
 * 180-240 ms for 15 workers on the H100 machine, 3-12 ms when the
 * libraries are in shared_preload_libraries (forked, already loaded).
 */
static double worker_start_ms = -1;

/*
 * Scratch for flattening one row after another in this process. It lives
 * in its own memory context, whose deletion frees the engine's (malloc'ed)
 * buffers: scratch_free, or an error's cleanup in the leader, where the
 * keep batch can hold every row it flattened (all of them when no worker
 * started).
 */
typedef struct RowScratch
{
	exg_shape	shape;
	exg_batch	batch;
	exg_batch	keep;			/* rows of sides laid out in place, kept
								 * until their places are known */
	MemoryContext own;			/* holds this */
	MemoryContextCallback cb;	/* frees shape, batch and keep */
	MemoryContext cxt;			/* the detoasted value (reset row by row) */
	uint64		detoast_ns,		/* this process's share of the profile */
				parse_ns,
				copy_ns;
} RowScratch;

static void
scratch_release(void *arg)
{
	RowScratch *s = arg;

	exg_shape_free(&s->shape);
	exg_batch_free(&s->batch);
	exg_batch_free(&s->keep);
}

static RowScratch *
scratch_create(const ReadShared *sh)
{
	MemoryContext own = AllocSetContextCreate(CurrentMemoryContext, "exactgpu parallel read",
											  ALLOCSET_SMALL_SIZES);
	RowScratch *s = MemoryContextAllocZero(own, sizeof(RowScratch));

	s->own = own;
	exg_shape_init(&s->shape);
	exg_batch_init(&s->batch, sh->naxes, (exg_nonplanar_policy) sh->policy);
	exg_batch_init(&s->keep, sh->naxes, (exg_nonplanar_policy) sh->policy);
	s->cb.func = scratch_release;
	s->cb.arg = s;
	MemoryContextRegisterResetCallback(own, &s->cb);
	s->cxt = AllocSetContextCreate(own, "exactgpu parallel read row", ALLOCSET_DEFAULT_SIZES);
	return s;
}

/* This process's times into the shared profile. */
static void
scratch_publish(const RowScratch *s, ReadShared *sh)
{
	uint64		now = exg_now_ns(),
				seen = pg_atomic_read_u64(&sh->last_done_ns);

	pg_atomic_fetch_add_u64(&sh->detoast_ns, s->detoast_ns);
	pg_atomic_fetch_add_u64(&sh->parse_ns, s->parse_ns);
	pg_atomic_fetch_add_u64(&sh->copy_ns, s->copy_ns);
	while (seen < now && !pg_atomic_compare_exchange_u64(&sh->last_done_ns, &seen, now))
		;
}

static void
scratch_free(RowScratch *s)
{
	MemoryContextDelete(s->own);	/* calls scratch_release */
}

static uint8
batch_dims(const exg_batch *b)
{
	return b->nrows_z ? 3 : b->nrows_flat ? 2 : 0;
}

/* Parse one serialized geometry into the scratch's one-row batch. */
static exg_status
flatten_one(RowScratch *s, const uint8 *g, size_t len, exg_error *err)
{
	exg_batch_reset(&s->batch);
	return exg_batch_add_serialized(&s->batch, g, len, &s->shape, err);
}

static dsa_pointer
flat_allocate(dsa_area *area, size_t bytes, exg_error *err)
{
	dsa_pointer p = dsa_allocate_extended(area, Max(bytes, 8),
										  DSA_ALLOC_HUGE | DSA_ALLOC_NO_OOM);

	if (!DsaPointerIsValid(p))
		exg_fail(err, EXG_ERR_NOMEM, "out of shared memory for a flattened join input row");
	return p;
}

/*
 * Task t's geometry detoasted into the scratch context (the caller resets
 * it), *g and *len its serialized bytes, and its SRID read into the task.
 */
static exg_status
detoast_geometry(ReadTask *t, RowScratch *s, const uint8 **g, size_t *len, exg_error *err)
{
	MemoryContext old = MemoryContextSwitchTo(s->cxt);
	struct varlena *d = detoast_attr((struct varlena *) t->ptr);
	exg_status	st;

	MemoryContextSwitchTo(old);
	*g = (const uint8 *) VARDATA(d);
	*len = VARSIZE(d) - VARHDRSZ;
	st = exg_gserialized_srid(*g, *len, &t->srid, err);
	t->srid_read = st == EXG_OK;
	return st;
}

/*
 * A TOAST row: detoast, parse and flatten it into the DSA area, or, if its
 * side is laid out in place, into this process's keep batch.
 */
static exg_status
flatten_toast(ReadTask *t, dsa_area *area, RowScratch *s, bool keep, exg_error *err)
{
	const uint8 *g;
	size_t		len;
	uint64		t0 = exg_now_ns(),
				t1;
	exg_status	st = detoast_geometry(t, s, &g, &len, err);

	t1 = exg_now_ns();
	s->detoast_ns += t1 - t0;
	if (keep)
	{
		/* appended to this process's keep batch, laid out later */
		exg_batch  *k = &s->keep;
		size_t		v0 = k->nverts,
					p0 = k->nprims,
					r0 = k->nrows,
					z0 = k->nrows_z,
					f0 = k->nrows_flat;

		if (st == EXG_OK)
			st = exg_batch_add_serialized(k, g, len, &s->shape, err);
		MemoryContextReset(s->cxt);
		s->parse_ns += exg_now_ns() - t1;
		if (st == EXG_OK)
		{
			t->keep_v0 = v0;
			t->keep_p0 = p0;
			t->nverts = k->nverts - v0;
			t->nprims = k->nprims - p0;
			t->solid = k->solid[r0];
			t->dims = k->nrows_z > z0 ? 3 : k->nrows_flat > f0 ? 2 : 0;
		}
		return st;
	}
	if (st == EXG_OK)
		st = flatten_one(s, g, len, err);
	MemoryContextReset(s->cxt);
	t0 = exg_now_ns();
	s->parse_ns += t0 - t1;
	if (st == EXG_OK)
	{
		size_t		vbytes = s->batch.nverts * 3 * sizeof(double),
					pbytes = s->batch.nprims * 3 * sizeof(uint32);

		t->flat = flat_allocate(area, vbytes + pbytes, err);
		if (!DsaPointerIsValid(t->flat))
			return EXG_ERR_NOMEM;
		memcpy(dsa_get_address(area, t->flat), s->batch.xyz, vbytes);
		memcpy((char *) dsa_get_address(area, t->flat) + vbytes, s->batch.tri, pbytes);
		t->nverts = s->batch.nverts;
		t->nprims = s->batch.nprims;
		t->solid = s->batch.solid[0];
		t->dims = batch_dims(&s->batch);
		s->copy_ns += exg_now_ns() - t0;
	}
	return st;
}

/*
 * In-line rows row0 .. row1 - 1, flattened one after another into the
 * scratch batch (its buffers kept from task to task), then copied into one
 * DSA block with each row's indices made relative to its own vertices, as
 * a TOAST row's. Their SRIDs were checked as the query ran.
 */
static exg_status
flatten_inline(ReadTask *t, const InlineRows *ir, dsa_area *area, RowScratch *s,
			   exg_error *err)
{
	uint32		nr = t->row1 - t->row0;
	const uint64 *off = INLINE_OFF(ir) + t->row0;
	const uint8 *data = INLINE_DATA(ir);
	uint64	   *nv = palloc(sizeof(uint64) * nr),
			   *np = palloc(sizeof(uint64) * nr);
	uint8	   *meta = palloc(2 * nr);
	exg_batch  *all = &s->batch;
	exg_status	st = EXG_OK;
	Size		head = MAXALIGN(2 * sizeof(uint64) * nr + 2 * nr);

	exg_batch_reset(all);
	for (uint32 j = 0; j < nr && st == EXG_OK; j++)
	{
		size_t		v0 = all->nverts,
					p0 = all->nprims,
					z0 = all->nrows_z,
					f0 = all->nrows_flat;

		st = exg_batch_add_serialized(all, data + off[j], off[j + 1] - off[j], &s->shape, err);
		if (st != EXG_OK)
			break;
		nv[j] = all->nverts - v0;
		np[j] = all->nprims - p0;
		meta[j] = all->solid[j];
		/* as batch_dims of the row alone */
		meta[nr + j] = all->nrows_z > z0 ? 3 : all->nrows_flat > f0 ? 2 : 0;
	}
	if (st == EXG_OK)
	{
		size_t		vbytes = all->nverts * 3 * sizeof(double),
					pbytes = all->nprims * 3 * sizeof(uint32);

		t->flat = flat_allocate(area, head + vbytes + pbytes, err);
		if (!DsaPointerIsValid(t->flat))
			st = EXG_ERR_NOMEM;
		else
		{
			char	   *p = dsa_get_address(area, t->flat);
			uint32	   *dt = (uint32 *) (p + head + vbytes);
			size_t		k = 0;
			uint32		vbase = 0;

			memcpy(p, nv, sizeof(uint64) * nr);
			memcpy(p + sizeof(uint64) * nr, np, sizeof(uint64) * nr);
			memcpy(p + 2 * sizeof(uint64) * nr, meta, 2 * nr);
			memcpy(p + head, all->xyz, vbytes);
			for (uint32 j = 0; j < nr; j++)
			{
				for (size_t e = k + 3 * np[j]; k < e; k++)
					dt[k] = all->tri[k] - vbase;
				vbase += (uint32) nv[j];
			}
			t->nverts = all->nverts;
			t->nprims = all->nprims;
		}
	}
	pfree(nv);
	pfree(np);
	pfree(meta);
	return st;
}

/* A TOAST row's exact box (box joins): nothing to flatten, nothing in DSA. */
static exg_status
box_toast(ReadTask *t, int naxes, RowScratch *s, exg_error *err)
{
	const uint8 *g;
	size_t		len;
	exg_status	st = detoast_geometry(t, s, &g, &len, err);

	if (st == EXG_OK)
	{
		exg_shape_clear(&s->shape);
		st = exg_gserialized_read(g, len, &s->shape, err);
	}
	MemoryContextReset(s->cxt);
	if (st == EXG_OK)
	{
		double		lo[3],
					hi[3];

		/* as exg_rows_boxes: the box holds naxes lo, then naxes hi */
		t->solid = exg_shape_extent(&s->shape, lo, hi);
		memcpy(t->box, lo, naxes * sizeof(double));
		memcpy(t->box + naxes, hi, naxes * sizeof(double));
	}
	return st;
}

/* A TOAST row detoasted into the DSA area, nothing more (nverts: its size). */
static exg_status
detoast_task(ReadTask *t, dsa_area *area, RowScratch *s, exg_error *err)
{
	MemoryContext old = MemoryContextSwitchTo(s->cxt);
	struct varlena *d = detoast_attr((struct varlena *) t->ptr);

	MemoryContextSwitchTo(old);
	t->flat = flat_allocate(area, VARSIZE(d), err);
	if (DsaPointerIsValid(t->flat))
	{
		memcpy(dsa_get_address(area, t->flat), d, VARSIZE(d));
		t->nverts = VARSIZE(d);
	}
	MemoryContextReset(s->cxt);
	return DsaPointerIsValid(t->flat) ? EXG_OK : EXG_ERR_NOMEM;
}

/* Flatten task i into the DSA area (any process). */
static void
flatten_task(ReadShared *sh, ReadTask *tasks, uint32 i, dsa_area *area, InlineRows **inl,
			 RowScratch *s)
{
	ReadTask   *t = &tasks[i];
	exg_error	err = {0};
	exg_status	st;

	if (t->kind == TASK_INLINE)
	{
		uint64		t0 = exg_now_ns();

		st = flatten_inline(t, inl[t->side], area, s, &err);
		s->parse_ns += exg_now_ns() - t0;
	}
	else if (t->kind == TASK_BOX)
		st = box_toast(t, sh->naxes, s, &err);
	else if (t->kind == TASK_DETOAST)
		st = detoast_task(t, area, s, &err);
	else
		st = flatten_toast(t, area, s, sh->in_place[t->side], &err);
	if (st == EXG_ERR_INTERRUPTED)
		CHECK_FOR_INTERRUPTS();
	t->worker = ParallelWorkerNumber;
	if (st != EXG_OK)
	{
		SpinLockAcquire(&sh->mutex);
		if (i < sh->fail_task)
		{
			sh->fail_task = i;
			sh->fail = err;
			sh->fail.status = st;
		}
		if (t->kind != TASK_INLINE && !t->srid_read && i < sh->fail_header_task)
		{
			sh->fail_header_task = i;
			sh->fail_header = err;
			sh->fail_header.status = st;
		}
		SpinLockRelease(&sh->mutex);
	}
	/* the row's results before its state, for the process that reads them */
	pg_write_barrier();
	pg_atomic_write_u32(&t->state, st == EXG_OK ? TASK_DONE : TASK_FAILED);
	ConditionVariableBroadcast(&sh->done_cv);
}

/* A side's batch arrays in shared memory, borrowed by its batch. */
typedef struct ExactgpuArena
{
	dsm_segment *seg;
	MemoryContextCallback cb;
} ExactgpuArena;

static void
arena_detach(void *arg)
{
	ExactgpuArena *a = arg;

	if (a->seg)
		dsm_detach(a->seg);
	a->seg = NULL;
}

void
exactgpu_rows_release(ExactgpuRows *rows)
{
	if (rows->arena)
		arena_detach(rows->arena);
	rows->arena = NULL;
}

/*
 * Lay out the rows this process flattened for sides laid out in place, at
 * the places the leader gave them (base[side]: the side's segment here).
 * Returns how many.
 */
static uint32
place_rows(const ReadShared *sh, ReadTask *tasks, const exg_batch *keep, char **base)
{
	uint32		n = 0;

	for (uint32 i = 0; i < sh->ntasks; i++)
	{
		ReadTask   *t = &tasks[i];
		double	   *xyz;
		uint32	   *tri,
				   *owner;
		const uint32 *src;
		uint32		shift;

		if (t->kind != TASK_TOAST || !sh->in_place[t->side] ||
			t->worker != ParallelWorkerNumber ||
			pg_atomic_read_u32(&t->state) != TASK_DONE)
			continue;
		xyz = (double *) base[t->side];
		tri = (uint32 *) (base[t->side] + sh->arena_tri[t->side]);
		owner = (uint32 *) (base[t->side] + sh->arena_owner[t->side]);
		/* the pages mapped in one call each, not faulted in one by one */
		exg_host_populate(xyz + 3 * t->vbase, t->nverts * 3 * sizeof(double), true);
		exg_host_populate(tri + 3 * t->pbase, t->nprims * 3 * sizeof(uint32), true);
		exg_host_populate(owner + t->pbase, t->nprims * sizeof(uint32), true);
		memcpy(xyz + 3 * t->vbase, keep->xyz + 3 * t->keep_v0, t->nverts * 3 * sizeof(double));
		/* indices into this process's keep batch, to the side's vertices */
		src = keep->tri + 3 * t->keep_p0;
		shift = (uint32) t->vbase - (uint32) t->keep_v0;
		tri += 3 * t->pbase;
		for (uint64 k = 0; k < 3 * t->nprims; k++)
			tri[k] = src[k] + shift;
		owner += t->pbase;
		for (uint64 k = 0; k < t->nprims; k++)
			owner[k] = t->row;
		n++;
	}
	return n;
}

/* A worker: once the leader has made the segments, lay out its rows there. */
static void
place_when_ready(ReadShared *sh, ReadTask *tasks, RowScratch *s)
{
	dsm_segment *seg[2] = {NULL, NULL};
	char	   *base[2] = {NULL, NULL};
	uint32		n;
	uint64		t0;

	ConditionVariablePrepareToSleep(&sh->done_cv);
	while (pg_atomic_read_u32(&sh->place_ready) == 0)
		ConditionVariableSleep(&sh->done_cv, WAIT_EVENT_PARALLEL_FINISH);
	ConditionVariableCancelSleep();
	pg_read_barrier();
	for (int k = 0; k < 2; k++)
		if (sh->in_place[k])
		{
			seg[k] = dsm_attach(sh->arena[k]);
			if (seg[k] == NULL)
				ereport(ERROR,
						(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
						 errmsg("exactgpu: could not map the join input's shared memory")));
			base[k] = dsm_segment_address(seg[k]);
		}
	t0 = exg_now_ns();
	n = place_rows(sh, tasks, &s->keep, base);
	pg_atomic_fetch_add_u64(&sh->copy_ns, exg_now_ns() - t0);
	for (int k = 0; k < 2; k++)
		if (seg[k])
			dsm_detach(seg[k]);
	/* the rows before the count (fetch_add is a full barrier) */
	pg_atomic_fetch_add_u32(&sh->placed, n);
	ConditionVariableBroadcast(&sh->done_cv);
}

/*
 * The order the readers claim tasks in: after the sh->ntasks tasks, in the
 * same chunk (tasks_size), as task numbers.
 */
#define TASK_ORDER(tasks, ntasks)	((uint32 *) ((tasks) + (ntasks)))

static Size
tasks_size(uint32 ntasks)
{
	return add_size(mul_size(ntasks, sizeof(ReadTask)), mul_size(ntasks, sizeof(uint32)));
}

/* Claim the next unclaimed task, or return false. */
static bool
claim_task(ReadShared *sh, const ReadTask *tasks, uint32 *i)
{
	uint32		k;

	if (pg_atomic_read_u32(&sh->next) >= sh->ntasks)
		return false;
	k = pg_atomic_fetch_add_u32(&sh->next, 1);
	if (k >= sh->ntasks)
		return false;
	*i = TASK_ORDER(tasks, sh->ntasks)[k];
	return true;
}

void
exactgpu_read_worker_main(dsm_segment *seg, shm_toc *toc)
{
	ReadShared *sh = shm_toc_lookup(toc, READ_KEY_SHARED, false);
	ReadTask   *tasks = shm_toc_lookup(toc, READ_KEY_TASKS, false);
	void	   *dsa_space = shm_toc_lookup(toc, READ_KEY_DSA, true);
	dsa_area   *area = dsa_space ? dsa_attach_in_place(dsa_space, seg) : NULL;
	InlineRows *inl[2];
	RowScratch *s;
	uint32		i;
	uint64		now = exg_now_ns(),
				seen = 0;

	/* the first start is set once; the last is raised by each later one */
	(void) pg_atomic_compare_exchange_u64(&sh->first_start_ns, &seen, now);
	seen = pg_atomic_read_u64(&sh->last_start_ns);
	while (seen < now && !pg_atomic_compare_exchange_u64(&sh->last_start_ns, &seen, now))
		;
	for (int k = 0; k < 2; k++)
		inl[k] = shm_toc_lookup(toc, READ_KEY_INLINE + k, true);
	s = scratch_create(sh);
	while (claim_task(sh, tasks, &i))
	{
		CHECK_FOR_INTERRUPTS();
		flatten_task(sh, tasks, i, area, inl, s);
	}
	scratch_publish(s, sh);
	if (s->keep.nrows > 0)
		place_when_ready(sh, tasks, s);
	scratch_free(s);
	if (area)
		dsa_detach(area);
}

/*
 * Is there room for the flattened rows in dynamic shared memory? With POSIX
 * shared memory (the default) that is /dev/shm, often small in containers:
 * a full /dev/shm would fail the join, so read serially instead. A
 * flattened triangle (3 vertices, 3 indices: 84 bytes) is smaller than its
 * serialized form (4 points, 96 bytes), a flattened segment (60 bytes)
 * larger than a linestring's vertex (24): 1.5x covers mines and meshes, and
 * a shortfall is an error, not a wrong answer.
 */
static bool
shm_has_room(uint64 bytes)
{
	struct statvfs fs;

	if (dynamic_shared_memory_type != DSM_IMPL_POSIX || statvfs("/dev/shm", &fs) != 0)
		return true;
	return (uint64) fs.f_bavail * fs.f_frsize >= bytes + bytes / 2;
}

/*
 * How many workers to ask for: 0 to read serially. `bytes` is what the
 * workers would parse (out of line, and in line with them). The leader
 * takes part, so a worker per core but one keeps every core busy and none
 * shared: on the 2-core build machine a second worker made the read slower
 * than the serial one (three processes on two cores). These rules, whatever
 * this moment allows (shared memory, parallel mode), are both what the
 * planner costs (exactgpu_read_workers_planned) and what the read asks for
 * (read_workers_wanted).
 */
static int
workers_for(double ntoast, double ntasks, double bytes)
{
	double		n;
	int			cores = exg_cpu_count();

	if (ntoast < 1 || max_parallel_workers_per_gather <= 0 ||
		exactgpu_parallel_read == EXACTGPU_PARALLEL_READ_OFF)
		return 0;
	if (force_parallel_mode != FORCE_PARALLEL_OFF)
		return (int) Min((double) max_parallel_workers_per_gather, ntasks);
	if (bytes < READ_PARALLEL_MIN_BYTES || ntasks < 2 || cores < 2)
		return 0;

	/*
	 * Workers pay when reading serially would take longer than twice their
	 * start-up (they then finish the rest in a fraction of it): on the H100
	 * machine, with workers starting in ~200 ms, the paper mine's 104 MB
	 * read in 318 ms serially and 415 ms with workers.
	 */
	if (exactgpu_parallel_read == EXACTGPU_PARALLEL_READ_AUTO &&
		floor(bytes / SERIAL_BYTES_PER_MS) <
		2 * (worker_start_ms >= 0 ? worker_start_ms
			 : exactgpu_preloaded ? START_MS_PRELOADED : START_MS_GUESS))
		return 0;
	n = Min(ntasks - 1, floor(bytes / READ_BYTES_PER_WORKER));
	n = Min(n, (double) (cores - 1));
	return (int) Min((double) max_parallel_workers_per_gather, Max(n, 1));
}

static int
read_workers_wanted(uint64 ntoast, uint64 ntasks, uint64 bytes)
{
	if (IsInParallelMode() || !IsUnderPostmaster || !shm_has_room(bytes))
		return 0;
	return workers_for((double) ntoast, (double) ntasks, (double) bytes);
}

int
exactgpu_read_workers_planned(double toast_rows, double inline_bytes, double bytes)
{
	return workers_for(toast_rows, toast_rows + ceil(inline_bytes / INLINE_CHUNK_BYTES), bytes);
}

/* The in-line rows of one side cut into tasks of about INLINE_CHUNK_BYTES. */
static uint32
inline_chunks(const ExactgpuRows *r, ReadTask *tasks, int side)
{
	uint32		nt = 0;
	size_t		row0 = 0;

	for (size_t i = 0; i < r->n; i++)
		if (i + 1 == r->n || r->off[i + 1] - r->off[row0] >= INLINE_CHUNK_BYTES)
		{
			if (tasks)
			{
				ReadTask   *t = &tasks[nt];

				t->kind = TASK_INLINE;
				t->side = (uint8) side;
				t->row0 = (uint32) row0;
				t->row1 = (uint32) (i + 1);
				t->work = r->off[i + 1] - r->off[row0];
			}
			nt++;
			row0 = i + 1;
		}
	return nt;
}

static void
check_srid(ExactgpuRows *rows, int32 srid)
{
	if (rows->have_srid && srid != rows->srid)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("%s: operation on mixed SRID geometries (%d and %d)", rows->context,
						rows->srid, srid)));
	rows->srid = srid;
	rows->have_srid = true;
}

/* Parse the rows read in line, on the thread pool. */
static void
parse_inline(ExactgpuRows **rows, exg_batch **batch, int nsides)
{
	for (int k = 0; k < nsides; k++)
	{
		exg_row_bytes bytes = exactgpu_rows_bytes(rows[k]);
		exg_error	err = {0};

		if (exg_batch_add_rows(batch[k], &bytes,
							   exactgpu_threads_for(rows[k]->len, EXACTGPU_PARSE_BYTES_PER_THREAD),
							   &err) != EXG_OK)
			exactgpu_report(&err, rows[k]->context);
	}
}

/* The TOAST rows' ids follow the others': batch row i is ids[i]. */
static void
append_toast_ids(ExactgpuRows *rows)
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

/* Detoast the rows kept as TOAST pointers here: they join the in-line rows. */
static void
detoast_here(ExactgpuRows **rows, int nsides, ExactgpuReadReport *rep)
{
	uint64		t0 = exg_now_ns();
	MemoryContext cxt = AllocSetContextCreate(CurrentMemoryContext, "exactgpu detoast",
											  ALLOCSET_DEFAULT_SIZES);

	for (int k = 0; k < nsides; k++)
	{
		ExactgpuRows *r = rows[k];
		size_t		ntoast = r->ntoast;

		for (size_t i = 0; i < ntoast; i++)
		{
			MemoryContext old = MemoryContextSwitchTo(cxt);
			struct varlena *d = detoast_attr((struct varlena *) r->toast[i].ptr);

			MemoryContextSwitchTo(old);
			if ((i & 63) == 0)
				CHECK_FOR_INTERRUPTS();
			exactgpu_rows_add(r, r->toast[i].id, (const uint8 *) VARDATA(d),
							  VARSIZE(d) - VARHDRSZ);
			MemoryContextReset(cxt);
		}
		r->ntoast = 0;
	}
	MemoryContextDelete(cxt);
	rep->detoast_ms = (exg_now_ns() - t0) / 1e6;
}

/* Serially: detoast here, then parse everything on the thread pool. */
static void
flatten_serial(ExactgpuRows **rows, exg_batch **batch, int nsides, ExactgpuReadReport *rep)
{
	uint64		t0;

	detoast_here(rows, nsides, rep);
	t0 = exg_now_ns();
	parse_inline(rows, batch, nsides);
	rep->parse_ms = (exg_now_ns() - t0) / 1e6;
}

/*
 * The state the leader shares with its readers, in the parallel context's
 * segment (one layout for the flatten, box and detoast readers).
 */
static ReadShared *
shared_create(ParallelContext *pcxt, int naxes, int policy, uint32 ntasks)
{
	ReadShared *sh = shm_toc_allocate(pcxt->toc, sizeof(ReadShared));

	sh->naxes = naxes;
	sh->policy = policy;
	sh->ntasks = ntasks;
	pg_atomic_init_u32(&sh->next, 0);
	pg_atomic_init_u64(&sh->first_start_ns, 0);
	pg_atomic_init_u64(&sh->last_start_ns, 0);
	pg_atomic_init_u64(&sh->detoast_ns, 0);
	pg_atomic_init_u64(&sh->parse_ns, 0);
	pg_atomic_init_u64(&sh->copy_ns, 0);
	pg_atomic_init_u64(&sh->last_done_ns, 0);
	sh->in_place[0] = sh->in_place[1] = false;
	sh->nplace = 0;
	pg_atomic_init_u32(&sh->place_ready, 0);
	pg_atomic_init_u32(&sh->placed, 0);
	ConditionVariableInit(&sh->done_cv);
	SpinLockInit(&sh->mutex);
	sh->fail_task = PG_UINT32_MAX;
	sh->fail_header_task = PG_UINT32_MAX;
	return sh;
}

typedef struct TaskWork
{
	uint64		work;
	uint32		i;
} TaskWork;

/* Most work first; ties in query order. */
static int
task_work_cmp(const void *a, const void *b)
{
	const TaskWork *x = a,
			   *y = b;

	if (x->work != y->work)
		return x->work > y->work ? -1 : 1;
	return x->i < y->i ? -1 : x->i > y->i;
}

/*
 * The claim order. Rows claimed in query order leave a big row claimed
 * late running alone at the end: the large mine's bodies range from 0.4 to
 * 100 MB, and in table order the last process finished at 1.4x the mean
 * (a simulation over their sizes; with the biggest first, 1.0x). So
 * readers that keep what they read take the most work first (the leader
 * still takes the rows in query order); ST_ExactBatch, whose leader hands
 * values on in order and frees them, keeps query order, so that its shared
 * memory holds a few rows, not all.
 */
static void
order_tasks(ReadShared *sh, ReadTask *tasks, bool by_work)
{
	uint32	   *order = TASK_ORDER(tasks, sh->ntasks);
	TaskWork   *w;

	if (!by_work || !exactgpu_read_biggest_first || sh->ntasks < 2)
	{
		for (uint32 i = 0; i < sh->ntasks; i++)
			order[i] = i;
		return;
	}
	w = palloc_extended(sizeof(TaskWork) * sh->ntasks, MCXT_ALLOC_HUGE);
	for (uint32 i = 0; i < sh->ntasks; i++)
	{
		ReadTask   *t = &tasks[i];

		w[i].i = i;
		/* a TOAST pointer knows its value's size: no I/O */
		w[i].work = t->kind == TASK_INLINE ? t->work :
			(uint64) toast_raw_datum_size(PointerGetDatum(t->ptr));
	}
	qsort(w, sh->ntasks, sizeof(TaskWork), task_work_cmp);
	for (uint32 k = 0; k < sh->ntasks; k++)
		order[k] = w[k].i;
	pfree(w);
}

/*
 * Start the readers on the tasks (sh->ntasks of them, filled in but for
 * their state): every task pending, in the claim order (order_tasks), the
 * shared state and tasks where the workers look them up, and, where the
 * readers flatten or detoast (not for boxes), the DSA area they put their
 * results in.
 */
static dsa_area *
readers_launch(ParallelContext *pcxt, ReadShared *sh, ReadTask *tasks, bool with_area,
			   bool by_work)
{
	dsa_area   *area = NULL;

	for (uint32 i = 0; i < sh->ntasks; i++)
	{
		pg_atomic_init_u32(&tasks[i].state, TASK_PENDING);
		tasks[i].flat = InvalidDsaPointer;
	}
	order_tasks(sh, tasks, by_work);
	shm_toc_insert(pcxt->toc, READ_KEY_SHARED, sh);
	shm_toc_insert(pcxt->toc, READ_KEY_TASKS, tasks);
	if (with_area)
	{
		void	   *dsa_space = shm_toc_allocate(pcxt->toc, dsa_minimum_size());

		area = dsa_create_in_place(dsa_space, dsa_minimum_size(), LWTRANCHE_PARALLEL_QUERY_DSA,
								   pcxt->seg);
		shm_toc_insert(pcxt->toc, READ_KEY_DSA, dsa_space);
	}
	sh->launch_ns = exg_now_ns();
	LaunchParallelWorkers(pcxt);
	return area;
}

/*
 * All rows taken: the area (if any) let go, the workers waited for (their
 * start-up times into rep, if given), parallel mode left.
 */
static void
readers_finish(ParallelContext *pcxt, dsa_area *area, ReadShared *sh, ExactgpuReadReport *rep)
{
	uint64		first,
				last;

	if (area)
		dsa_detach(area);
	WaitForParallelWorkersToFinish(pcxt);
	first = pg_atomic_read_u64(&sh->first_start_ns);
	last = pg_atomic_read_u64(&sh->last_start_ns);
	if (last > sh->launch_ns)
		worker_start_ms = (last - sh->launch_ns) / 1e6;
	if (rep)
	{
		uint64		done = pg_atomic_read_u64(&sh->last_done_ns);

		rep->first_start_ms = first > sh->launch_ns ? (first - sh->launch_ns) / 1e6 : 0;
		rep->last_start_ms = last > sh->launch_ns ? (last - sh->launch_ns) / 1e6 : 0;
		rep->last_done_ms = done > sh->launch_ns ? (done - sh->launch_ns) / 1e6 : 0;
		rep->work_detoast_ms = pg_atomic_read_u64(&sh->detoast_ns) / 1e6;
		rep->work_parse_ms = pg_atomic_read_u64(&sh->parse_ns) / 1e6;
		rep->work_copy_ms = pg_atomic_read_u64(&sh->copy_ns) / 1e6;
	}
	DestroyParallelContext(pcxt);
	ExitParallelMode();
}

/* Is any launched worker still running (or starting)? */
static bool
readers_alive(ParallelContext *pcxt)
{
	for (int w = 0; w < pcxt->nworkers_launched; w++)
	{
		pid_t		pid;

		if (GetBackgroundWorkerPid(pcxt->worker[w].bgwhandle, &pid) != BGWH_STOPPED)
			return true;
	}
	return false;
}

/*
 * Wait for task i. The leader flattens unclaimed rows itself meanwhile;
 * sleeps are short so that a worker that stopped without a word (it could
 * not start, or died) is noticed: its error, if it sent one, is raised by
 * WaitForParallelWorkersToFinish.
 */
static void
wait_task(ParallelContext *pcxt, ReadShared *sh, ReadTask *tasks, uint32 i, dsa_area *area,
		  InlineRows **inl, RowScratch *s)
{
	uint32		j;

	/* as in a Gather: parallel_leader_participation = off leaves rows to the
	 * workers, unless none started */
	bool		help = parallel_leader_participation || pcxt->nworkers_launched == 0;

	while (pg_atomic_read_u32(&tasks[i].state) == TASK_PENDING)
	{
		if (help && claim_task(sh, tasks, &j))
		{
			flatten_task(sh, tasks, j, area, inl, s);
			CHECK_FOR_INTERRUPTS();
			continue;
		}
		ConditionVariablePrepareToSleep(&sh->done_cv);
		if (pg_atomic_read_u32(&tasks[i].state) != TASK_PENDING)
			break;
		if (ConditionVariableTimedSleep(&sh->done_cv, 100, WAIT_EVENT_PARALLEL_FINISH))
		{
			if (!readers_alive(pcxt) && pg_atomic_read_u32(&tasks[i].state) == TASK_PENDING)
			{
				ConditionVariableCancelSleep();
				WaitForParallelWorkersToFinish(pcxt);
				ereport(ERROR,
						(errcode(ERRCODE_INTERNAL_ERROR),
						 errmsg("exactgpu: a parallel reader stopped before flattening its row")));
			}
		}
	}
	ConditionVariableCancelSleep();
	pg_read_barrier();
}

/*
 * A failure no later row can take precedence over: a cancel, or memory.
 * Rows that do not parse wait for every row's SRID (await_task).
 */
static bool
fails_at_once(const exg_error *err)
{
	return err->status == EXG_ERR_INTERRUPTED || err->status == EXG_ERR_NOMEM;
}

/*
 * Wait for task i (wait_task) and raise the error of a task that failed,
 * or, given `later`, keep the first row that did not parse there (its
 * status set) for the caller to raise once it has checked every row's
 * SRID: the serial read reads them all before it parses any, so a mixed
 * SRID is the error whether workers read or not. Cancels, memory and rows
 * whose header did not read are raised at once. Returns true when i is the
 * first task seen done by its worker: the callers count the workers that
 * took part.
 */
static bool
await_task(ParallelContext *pcxt, ReadShared *sh, ReadTask *tasks, uint32 i, dsa_area *area,
		   InlineRows **inl, RowScratch *s, const char *context, bool *seen, int nworkers,
		   exg_error *later)
{
	ReadTask   *t = &tasks[i];

	wait_task(pcxt, sh, tasks, i, area, inl, s);
	if (pg_atomic_read_u32(&t->state) == TASK_FAILED)
	{
		exg_error	err;

		/*
		 * The tasks before i are done: the lowest failures are i's, unless
		 * an earlier row failed to parse and was kept (later); a header
		 * that did not read has its own slot.
		 */
		SpinLockAcquire(&sh->mutex);
		err = t->kind != TASK_INLINE && !t->srid_read ? sh->fail_header : sh->fail;
		SpinLockRelease(&sh->mutex);
		if (later == NULL || fails_at_once(&err) || (t->kind == TASK_TOAST && !t->srid_read))
			exactgpu_report(&err, context);
		if (later->status == EXG_OK)
			*later = err;
	}
	if (t->worker >= 0 && t->worker < nworkers && !seen[t->worker])
	{
		seen[t->worker] = true;
		return true;
	}
	return false;
}

/* Task t's rows as flattened rows (pointers into the DSA area). */
static size_t
task_rows(const ReadTask *t, dsa_area *area, exg_flat_row *out)
{
	const char *p = dsa_get_address(area, t->flat);

	if (t->kind == TASK_TOAST)
	{
		out->nverts = t->nverts;
		out->nprims = t->nprims;
		out->solid = t->solid;
		out->dims = t->dims;
		out->xyz = (const double *) p;
		out->tri = (const uint32 *) (p + t->nverts * 3 * sizeof(double));
		return 1;
	}
	else
	{
		uint32		nr = t->row1 - t->row0;
		const uint64 *nv = (const uint64 *) p,
				   *np = nv + nr;
		const uint8 *meta = (const uint8 *) (np + nr);
		const double *xyz = (const double *) (p + MAXALIGN(2 * sizeof(uint64) * nr + 2 * nr));
		const uint32 *tri = (const uint32 *) (xyz + 3 * t->nverts);

		for (uint32 j = 0; j < nr; j++)
		{
			out[j].nverts = nv[j];
			out[j].nprims = np[j];
			out[j].solid = meta[j];
			out[j].dims = meta[nr + j];
			out[j].xyz = xyz;
			out[j].tri = tri;
			xyz += 3 * nv[j];
			tri += 3 * np[j];
		}
		return nr;
	}
}

/*
 * The leader: every row of the sides laid out in place flattened (their
 * counts, vbase, pbase and row set), make each side's segment, lay out its
 * own rows and wait for the workers' (like wait_task, noticing a worker
 * that stopped without a word); then each such batch borrows its segment.
 */
static void
place_sides(ParallelContext *pcxt, ReadShared *sh, ReadTask *tasks, RowScratch *s,
			ExactgpuRows **rows, exg_batch **batch, int nsides, exg_flat_row **meta,
			uint64 *nv, uint64 *np, ExactgpuReadReport *rep)
{
	uint64		tp = exg_now_ns();
	char	   *base[2] = {NULL, NULL};
	uint32		n;
	uint64		t0;

	for (int k = 0; k < nsides; k++)
	{
		ExactgpuArena *a;
		Size		size;

		if (!sh->in_place[k])
			continue;
		if (nv[k] >= PG_UINT32_MAX || np[k] >= PG_UINT32_MAX)
			ereport(ERROR,
					(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
					 errmsg("%s: too many vertices or primitives in one join input",
							rows[k]->context)));
		sh->arena_tri[k] = MAXALIGN(nv[k] * 3 * sizeof(double));
		sh->arena_owner[k] = sh->arena_tri[k] + MAXALIGN(np[k] * 3 * sizeof(uint32));
		size = Max(sh->arena_owner[k] + MAXALIGN(np[k] * sizeof(uint32)), 8);
		/* owned by the rows' context, not a resource owner: it outlives this call */
		a = MemoryContextAllocZero(rows[k]->mcxt, sizeof(ExactgpuArena));
		a->seg = dsm_create(size, 0);
		dsm_pin_mapping(a->seg);
		a->cb.func = arena_detach;
		a->cb.arg = a;
		MemoryContextRegisterResetCallback(rows[k]->mcxt, &a->cb);
		rows[k]->arena = a;
		sh->arena[k] = dsm_segment_handle(a->seg);
		base[k] = dsm_segment_address(a->seg);
		/*
		 * In the main shared memory (min_dynamic_shared_memory) the segment
		 * stays mapped at this address for the backend's life, and the next
		 * join's comes back there: a GPU join pins those pages once and
		 * uploads from them without staging (33-47 ms of 880 MB staged).
		 */
		if (ShmemAddrIsValid(base[k]) &&
			ShmemAddrIsValid(base[k] + dsm_segment_map_length(a->seg) - 1))
			(void) exg_host_lasting(base[k], dsm_segment_map_length(a->seg));
	}
	pg_write_barrier();
	pg_atomic_write_u32(&sh->place_ready, 1);
	ConditionVariableBroadcast(&sh->done_cv);
	rep->place_create_ms = (exg_now_ns() - tp) / 1e6;
	tp = exg_now_ns();

	t0 = exg_now_ns();
	n = place_rows(sh, tasks, &s->keep, base);
	pg_atomic_fetch_add_u64(&sh->copy_ns, exg_now_ns() - t0);
	pg_atomic_fetch_add_u32(&sh->placed, n);
	ConditionVariablePrepareToSleep(&sh->done_cv);
	while (pg_atomic_read_u32(&sh->placed) < sh->nplace)
	{
		if (ConditionVariableTimedSleep(&sh->done_cv, 100, WAIT_EVENT_PARALLEL_FINISH))
		{
			if (!readers_alive(pcxt) && pg_atomic_read_u32(&sh->placed) < sh->nplace)
			{
				ConditionVariableCancelSleep();
				WaitForParallelWorkersToFinish(pcxt);
				ereport(ERROR,
						(errcode(ERRCODE_INTERNAL_ERROR),
						 errmsg("exactgpu: a parallel reader stopped before laying out its rows")));
			}
		}
	}
	ConditionVariableCancelSleep();
	pg_read_barrier();
	rep->place_wait_ms = (exg_now_ns() - tp) / 1e6;

	for (int k = 0; k < nsides; k++)
	{
		exg_error	err = {0};

		if (!sh->in_place[k])
			continue;
		if (exg_batch_borrow(batch[k], (double *) base[k], nv[k],
							 (uint32 *) (base[k] + sh->arena_tri[k]),
							 (uint32 *) (base[k] + sh->arena_owner[k]), np[k],
							 meta[k], rows[k]->ntoast,
							 np[k] >= FLAT_PARALLEL_MIN_BYTES / 16 ? exactgpu_threads() : 1,
							 &err) != EXG_OK)
			exactgpu_report(&err, rows[k]->context);
		append_toast_ids(rows[k]);
	}
}

/*
 * Both sides' rows to the workers: per side its in-line rows in chunks,
 * then its TOAST rows one by one, so that task order is batch row order and
 * the first failed task is the row a serial reading would have reported.
 * With leader_inline, the leader parses the in-line rows itself, on one
 * thread, while the workers start on the TOAST rows, then joins them.
 */
static void
flatten_parallel(ExactgpuRows **rows, exg_batch **batch, int nsides, int nworkers,
				 bool leader_inline, ExactgpuReadReport *rep)
{
	uint64		t0 = exg_now_ns();
	uint32		ntasks = 0,
				first[3];
	size_t		nflat = 0;
	ParallelContext *pcxt;
	ReadShared *sh;
	ReadTask   *tasks;
	InlineRows *inl[2] = {NULL, NULL};
	dsa_area   *area;
	RowScratch *s;
	exg_flat_row *flat;
	exg_flat_row *meta[2] = {NULL, NULL};	/* the rows of sides laid out in place */
	uint64		nv[2] = {0, 0},
				np[2] = {0, 0};
	bool	   *seen = palloc0(sizeof(bool) * nworkers);
	Size		tsize;
	exg_error	inline_err[2] = {{0}},
				later = {0};	/* the first row that did not parse */
	const char *later_context = NULL;

	for (int k = 0; k < nsides; k++)
	{
		uint64		nk = (leader_inline ? 0 : (uint64) inline_chunks(rows[k], NULL, k)) +
			rows[k]->ntoast;

		first[k] = ntasks;
		if (nk >= PG_UINT32_MAX - ntasks)
			ereport(ERROR,
					(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
					 errmsg("%s: too many rows in one join input", rows[k]->context)));
		ntasks += (uint32) nk;
		nflat = Max(nflat, rows[k]->n + rows[k]->ntoast);
	}
	first[nsides] = ntasks;
	tsize = tasks_size(ntasks);

	EnterParallelMode();
	pcxt = CreateParallelContext("exactgpu", "exactgpu_read_worker_main", nworkers);
	shm_toc_estimate_chunk(&pcxt->estimator, sizeof(ReadShared));
	shm_toc_estimate_chunk(&pcxt->estimator, tsize);
	shm_toc_estimate_chunk(&pcxt->estimator, dsa_minimum_size());
	shm_toc_estimate_keys(&pcxt->estimator, 3 + nsides);
	for (int k = 0; k < nsides; k++)
		if (rows[k]->n > 0 && !leader_inline)
			shm_toc_estimate_chunk(&pcxt->estimator, INLINE_SIZE(rows[k]->n, rows[k]->len));
	InitializeParallelDSM(pcxt);

	sh = shared_create(pcxt, batch[0]->naxes, (int) batch[0]->policy, ntasks);
	/* a side of TOAST rows only is laid out in place (see the top of the file) */
	for (int k = 0; k < nsides; k++)
		if (exactgpu_read_in_place && rows[k]->n == 0 && rows[k]->ntoast > 0 &&
			batch[k]->nrows == 0)
		{
			sh->in_place[k] = true;
			sh->nplace += (uint32) rows[k]->ntoast;
			meta[k] = palloc_extended(sizeof(exg_flat_row) * rows[k]->ntoast, MCXT_ALLOC_HUGE);
		}
	tasks = shm_toc_allocate(pcxt->toc, tsize);
	memset(tasks, 0, tsize);
	for (int k = 0; k < nsides; k++)
	{
		ExactgpuRows *r = rows[k];
		uint32		nin = leader_inline ? 0 : inline_chunks(r, &tasks[first[k]], k);

		if (r->n > 0 && !leader_inline)
		{
			/* the bytes in line, as the receiver collected them */
			inl[k] = shm_toc_allocate(pcxt->toc, INLINE_SIZE(r->n, r->len));
			inl[k]->n = r->n;
			inl[k]->len = r->len;
			for (size_t i = 0; i <= r->n; i++)
				INLINE_OFF(inl[k])[i] = r->off[i];
			memcpy((uint8 *) INLINE_DATA(inl[k]), r->data, r->len);
			shm_toc_insert(pcxt->toc, READ_KEY_INLINE + k, inl[k]);
		}
		for (size_t i = 0; i < r->ntoast; i++)
		{
			ReadTask   *t = &tasks[first[k] + nin + i];

			t->kind = TASK_TOAST;
			t->side = (uint8) k;
			memcpy(t->ptr, r->toast[i].ptr, TOAST_POINTER_SIZE);
		}
	}
	area = readers_launch(pcxt, sh, tasks, true, true);
	rep->workers_planned = nworkers;

	if (leader_inline)
	{
		uint64		tp = exg_now_ns();

		/* a row that does not parse is raised after the SRIDs (await_task) */
		for (int k = 0; k < nsides; k++)
		{
			exg_row_bytes bytes = exactgpu_rows_bytes(rows[k]);

			if (exg_batch_add_rows(batch[k], &bytes, 1, &inline_err[k]) != EXG_OK &&
				fails_at_once(&inline_err[k]))
				exactgpu_report(&inline_err[k], rows[k]->context);
		}
		rep->parse_ms = (exg_now_ns() - tp) / 1e6;
	}

	/* the leader takes the rows in order, flattening unclaimed ones itself */
	s = scratch_create(sh);
	flat = palloc_extended(sizeof(exg_flat_row) * (nflat ? nflat : 1), MCXT_ALLOC_HUGE);
	for (int k = 0; k < nsides; k++)
	{
		size_t		nrows = 0;
		uint64		nbytes = 0;
		exg_error	err = {0};
		uint64		tg;

		/* the rows in batch order: the side's in-line rows come first */
		if (later.status == EXG_OK && inline_err[k].status != EXG_OK)
		{
			later = inline_err[k];
			later_context = rows[k]->context;
		}
		for (uint32 i = first[k]; i < first[k + 1]; i++)
		{
			ReadTask   *t = &tasks[i];

			if (await_task(pcxt, sh, tasks, i, area, inl, s, rows[k]->context, seen, nworkers,
						   &later))
				rep->workers++;
			if (later.status != EXG_OK && later_context == NULL)
				later_context = rows[k]->context;
			if (t->kind == TASK_TOAST && t->srid_read)
				check_srid(rows[k], t->srid);
			if (later.status != EXG_OK)
				continue;		/* only the SRIDs are left to check */
			if (sh->in_place[k])
			{
				/* its place; laid out once every row is flattened */
				t->vbase = nv[k];
				t->pbase = np[k];
				t->row = (uint32) nrows;
				meta[k][nrows] = (exg_flat_row) {NULL, NULL, t->nverts, t->nprims, t->solid, t->dims};
				nv[k] += t->nverts;
				np[k] += t->nprims;
				nrows++;
				continue;
			}
			nrows += task_rows(t, area, &flat[nrows]);
			nbytes += t->nverts * 24 + t->nprims * 16;
		}
		if (later.status != EXG_OK)
			continue;
		Assert(nrows == (leader_inline ? 0 : rows[k]->n) + rows[k]->ntoast);
		if (sh->in_place[k])
			continue;

		/* one copy into the batch, on the thread pool (no PostgreSQL calls) */
		tg = exg_now_ns();
		if (exg_batch_append_flat(batch[k], flat, nrows,
								  nbytes >= FLAT_PARALLEL_MIN_BYTES ? exactgpu_threads() : 1,
								  &err) != EXG_OK)
			exactgpu_report(&err, rows[k]->context);
		append_toast_ids(rows[k]);
		rep->gather_ms += (exg_now_ns() - tg) / 1e6;
	}
	if (later.status != EXG_OK)
		exactgpu_report(&later, later_context);
	scratch_publish(s, sh);
	if (sh->nplace > 0)
	{
		uint64		tg = exg_now_ns();

		place_sides(pcxt, sh, tasks, s, rows, batch, nsides, meta, nv, np, rep);
		rep->gather_ms += (exg_now_ns() - tg) / 1e6;
		rep->in_place = (int) sh->in_place[0] + (int) sh->in_place[1];
	}
	scratch_free(s);
	rep->wait_ms = (exg_now_ns() - t0) / 1e6 - rep->gather_ms - rep->parse_ms;
	pfree(flat);
	for (int k = 0; k < 2; k++)
		if (meta[k])
			pfree(meta[k]);
	pfree(seen);

	/*
	 * Unmapping the flattened rows and freeing the segments' pages is not
	 * free (~0.2 ms per MB on the H100 machine's tmpfs): timed on its own.
	 */
	t0 = exg_now_ns();
	readers_finish(pcxt, area, sh, rep);
	rep->release_ms = (exg_now_ns() - t0) / 1e6;
	rep->parallel = rep->workers > 0;
}

void
exactgpu_rows_flatten(ExactgpuRows **rows, exg_batch **batch, int nsides,
					  ExactgpuReadReport *rep)
{
	uint64		ntoast = 0,
				ntasks = 0,
				toast_bytes = 0,
				inline_bytes = 0;
	int			nworkers;

	Assert(nsides >= 1 && nsides <= 2);
	memset(rep, 0, sizeof(*rep));
	for (int k = 0; k < nsides; k++)
	{
		ntoast += rows[k]->ntoast;
		ntasks += rows[k]->ntoast + inline_chunks(rows[k], NULL, k);
		toast_bytes += rows[k]->toast_bytes;
		inline_bytes += rows[k]->len;
	}
	nworkers = read_workers_wanted(ntoast, ntasks, toast_bytes + inline_bytes);

	/*
	 * The rows in line no more than the leader's share of the work (holes
	 * beside bodies): the leader parses them itself, straight into the
	 * batch, while the workers start; on the 2-core machine that read the
	 * 20,000-hole mine 14% faster than sending them through shared memory.
	 * More than its share: chunks to the workers too.
	 */
	if (nworkers > 0)
		flatten_parallel(rows, batch, nsides, nworkers,
						 inline_bytes * (uint64) (nworkers + 1) <= toast_bytes, rep);
	else
		flatten_serial(rows, batch, nsides, rep);
}

/*
 * Box joins: the TOAST rows' boxes computed by parallel workers (detoasting
 * is most of the work: a box is one pass over the coordinates), written
 * into the tasks themselves; box[k] from row n_inline on.
 */
static void
boxes_parallel(ExactgpuRows **rows, int nsides, int naxes, double **box, uint8 **has_box,
			   int nworkers, ExactgpuReadReport *rep)
{
	uint64		t0 = exg_now_ns();
	uint32		ntasks = 0,
				first[3];
	ParallelContext *pcxt;
	ReadShared *sh;
	ReadTask   *tasks;
	InlineRows *inl[2] = {NULL, NULL};
	RowScratch *s;
	bool	   *seen = palloc0(sizeof(bool) * nworkers);
	Size		tsize;

	for (int k = 0; k < nsides; k++)
	{
		first[k] = ntasks;
		if (rows[k]->ntoast >= PG_UINT32_MAX - ntasks)
			ereport(ERROR,
					(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
					 errmsg("%s: too many rows in one join input", rows[k]->context)));
		ntasks += (uint32) rows[k]->ntoast;
	}
	first[nsides] = ntasks;
	tsize = tasks_size(ntasks);

	EnterParallelMode();
	pcxt = CreateParallelContext("exactgpu", "exactgpu_read_worker_main", nworkers);
	shm_toc_estimate_chunk(&pcxt->estimator, sizeof(ReadShared));
	shm_toc_estimate_chunk(&pcxt->estimator, tsize);
	shm_toc_estimate_keys(&pcxt->estimator, 2);
	InitializeParallelDSM(pcxt);
	sh = shared_create(pcxt, naxes, (int) EXG_NONPLANAR_ERROR, ntasks);
	tasks = shm_toc_allocate(pcxt->toc, tsize);
	memset(tasks, 0, tsize);
	for (int k = 0; k < nsides; k++)
		for (size_t i = 0; i < rows[k]->ntoast; i++)
		{
			ReadTask   *t = &tasks[first[k] + i];

			t->kind = TASK_BOX;
			t->side = (uint8) k;
			memcpy(t->ptr, rows[k]->toast[i].ptr, TOAST_POINTER_SIZE);
		}
	readers_launch(pcxt, sh, tasks, false, true);
	rep->workers_planned = nworkers;

	s = scratch_create(sh);
	for (int k = 0; k < nsides; k++)
	{
		size_t		base = rows[k]->n;

		for (uint32 i = first[k]; i < first[k + 1]; i++)
		{
			ReadTask   *t = &tasks[i];

			if (await_task(pcxt, sh, tasks, i, NULL, inl, s, rows[k]->context, seen, nworkers, NULL))
				rep->workers++;
			check_srid(rows[k], t->srid);
			has_box[k][base + i - first[k]] = t->solid;
			memcpy(&box[k][2 * naxes * (base + i - first[k])], t->box, 2 * naxes * sizeof(double));
		}
	}
	scratch_free(s);
	pfree(seen);
	rep->wait_ms = (exg_now_ns() - t0) / 1e6;
	t0 = exg_now_ns();
	readers_finish(pcxt, NULL, sh, rep);
	rep->release_ms = (exg_now_ns() - t0) / 1e6;
	rep->parallel = rep->workers > 0;
}

void
exactgpu_rows_boxes(ExactgpuRows **rows, int nsides, int naxes, double **box, uint8 **has_box,
					ExactgpuReadReport *rep)
{
	uint64		ntoast = 0,
				bytes = 0;
	int			nworkers;

	Assert(nsides >= 1 && nsides <= 2);
	memset(rep, 0, sizeof(*rep));
	for (int k = 0; k < nsides; k++)
	{
		ntoast += rows[k]->ntoast;
		bytes += rows[k]->toast_bytes;
	}
	nworkers = read_workers_wanted(ntoast, ntoast, bytes);
	if (nworkers == 0)
		detoast_here(rows, nsides, rep);
	for (int k = 0; k < nsides; k++)
	{
		size_t		n = rows[k]->n + rows[k]->ntoast;

		box[k] = palloc_extended((n + 1) * 2 * naxes * sizeof(double), MCXT_ALLOC_HUGE);
		has_box[k] = palloc_extended(n + 1, MCXT_ALLOC_HUGE);
	}
	/*
	 * The rows in line first (one pass over their coordinates, on the
	 * thread pool, before any worker holds a core), so that a bad row is
	 * reported in the serial read's order; then the TOAST rows.
	 */
	for (int k = 0; k < nsides; k++)
	{
		exg_row_bytes b = exactgpu_rows_bytes(rows[k]);
		exg_error	err = {0};
		uint64		t0 = exg_now_ns();

		if (exg_rows_boxes(&b, naxes, exactgpu_threads_for(rows[k]->len, BOX_BYTES_PER_THREAD),
						   box[k], has_box[k], &err) != EXG_OK)
			exactgpu_report(&err, rows[k]->context);
		rep->parse_ms += (exg_now_ns() - t0) / 1e6;
	}
	if (nworkers > 0)
		boxes_parallel(rows, nsides, naxes, box, has_box, nworkers, rep);
	for (int k = 0; k < nsides; k++)
		append_toast_ids(rows[k]);
}

/*
 * ST_ExactBatch's final function: the rows its transition kept as TOAST
 * pointers detoasted by parallel workers when it pays (a table of 100
 * bodies is one heap block: no parallel aggregate would spread them), else
 * here; emit gets each value in row order, in this process, valid for the
 * call. Returns the parallel workers that took part.
 */
int
exactgpu_detoast_rows(const ExactgpuToastRow *rows, size_t n, uint64 bytes,
					  void (*emit) (void *arg, size_t i, const struct varlena *v), void *arg)
{
	int			nworkers = read_workers_wanted(n, n, bytes);
	ParallelContext *pcxt;
	ReadShared *sh;
	ReadTask   *tasks;
	InlineRows *inl[2] = {NULL, NULL};
	dsa_area   *area;
	RowScratch *s;
	bool	   *seen;
	int			took_part = 0;
	Size		tsize;

	/*
	 * Detoasting alone is little work a byte beside the copy through shared
	 * memory: on the 2-core machine one worker made ST_ExactBatch over the
	 * paper bodies slower (125 ms) than this backend alone (105 ms). Three
	 * workers at least (a guess between that and the 16 cores where it
	 * pays; bench/run-device-read.sh measures it); force_parallel_mode
	 * (tests) overrides.
	 */
	if (nworkers < DETOAST_MIN_WORKERS && force_parallel_mode == FORCE_PARALLEL_OFF)
		nworkers = 0;
	if (nworkers == 0 || n >= PG_UINT32_MAX)
	{
		MemoryContext cxt = AllocSetContextCreate(CurrentMemoryContext, "exactgpu detoast",
												  ALLOCSET_DEFAULT_SIZES);

		for (size_t i = 0; i < n; i++)
		{
			MemoryContext old = MemoryContextSwitchTo(cxt);
			struct varlena *d = detoast_attr((struct varlena *) rows[i].ptr);

			MemoryContextSwitchTo(old);
			CHECK_FOR_INTERRUPTS();
			emit(arg, i, d);
			MemoryContextReset(cxt);
		}
		MemoryContextDelete(cxt);
		return 0;
	}

	tsize = tasks_size((uint32) n);
	EnterParallelMode();
	pcxt = CreateParallelContext("exactgpu", "exactgpu_read_worker_main", nworkers);
	shm_toc_estimate_chunk(&pcxt->estimator, sizeof(ReadShared));
	shm_toc_estimate_chunk(&pcxt->estimator, tsize);
	shm_toc_estimate_chunk(&pcxt->estimator, dsa_minimum_size());
	shm_toc_estimate_keys(&pcxt->estimator, 3);
	InitializeParallelDSM(pcxt);
	sh = shared_create(pcxt, 3, (int) EXG_NONPLANAR_ERROR, (uint32) n);
	tasks = shm_toc_allocate(pcxt->toc, tsize);
	memset(tasks, 0, tsize);
	for (size_t i = 0; i < n; i++)
	{
		tasks[i].kind = TASK_DETOAST;
		memcpy(tasks[i].ptr, rows[i].ptr, TOAST_POINTER_SIZE);
	}
	area = readers_launch(pcxt, sh, tasks, true, false);

	seen = palloc0(sizeof(bool) * nworkers);
	s = scratch_create(sh);
	for (uint32 i = 0; i < (uint32) n; i++)
	{
		ReadTask   *t = &tasks[i];

		if (await_task(pcxt, sh, tasks, i, area, inl, s, "ST_ExactBatch", seen, nworkers, NULL))
			took_part++;
		emit(arg, i, (const struct varlena *) dsa_get_address(area, t->flat));
		/* the value is copied: its shared memory can go back now */
		dsa_free(area, t->flat);
	}
	scratch_free(s);
	pfree(seen);
	readers_finish(pcxt, area, sh, NULL);
	return took_part;
}
