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
 * leader) claims the next row, detoasts it (the workers share the leader's
 * snapshot, so the pointer stays valid), parses and flattens it into a
 * one-row batch in a DSA area; the leader takes the rows in order and
 * copies them into the join's batch on its thread pool. Nothing is parsed
 * twice; worker threads never call PostgreSQL (these are processes).
 *
 * Errors: a row that does not parse is recorded, and the leader reports the
 * first such row in query order, as the serial path would. A worker's
 * PostgreSQL error (detoast, memory) reaches the leader through the
 * ParallelContext; an error or cancel in the leader ends the transaction or
 * subtransaction, which destroys the context (its workers are terminated
 * and waited for) and detaches the DSM segments, the DSA's too.
 */
#include "exactgpu.h"

#include <sys/statvfs.h>

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
#include "storage/spin.h"
#include "utils/dsa.h"
#include "utils/memutils.h"

#include "join_options.h"
#include "join_rows.h"

#include "gserialized_read.h"
#include "stats.h"

#define READ_KEY_SHARED		UINT64CONST(0xE7A6F1A700000001)
#define READ_KEY_TASKS		UINT64CONST(0xE7A6F1A700000002)
#define READ_KEY_DSA		UINT64CONST(0xE7A6F1A700000003)

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

enum
{
	TASK_PENDING = 0,			/* to claim, or being flattened */
	TASK_DONE,
	TASK_FAILED
};

typedef struct ReadTask
{
	char		ptr[TOAST_POINTER_SIZE];	/* in: the row's TOAST pointer */
	pg_atomic_uint32 state;
	int32		worker;			/* ParallelWorkerNumber that flattened it */
	int32		srid;
	uint8		solid;
	dsa_pointer flat;			/* nverts * 3 doubles, then nprims * 3 uint32 */
	uint64		nverts;
	uint64		nprims;
} ReadTask;

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
} ReadShared;

PGDLLEXPORT void exactgpu_read_worker_main(dsm_segment *seg, shm_toc *toc);

/* Scratch for flattening one row after another in this process. */
typedef struct RowScratch
{
	exg_shape	shape;
	exg_batch	batch;
	MemoryContext cxt;			/* the detoasted value */
} RowScratch;

static void
scratch_init(RowScratch *s, const ReadShared *sh)
{
	exg_shape_init(&s->shape);
	exg_batch_init(&s->batch, sh->naxes, (exg_nonplanar_policy) sh->policy);
	s->cxt = AllocSetContextCreate(CurrentMemoryContext, "exactgpu parallel read",
								   ALLOCSET_DEFAULT_SIZES);
}

static void
scratch_free(RowScratch *s)
{
	exg_shape_free(&s->shape);
	exg_batch_free(&s->batch);
	MemoryContextDelete(s->cxt);
}

/* Detoast, parse and flatten task i into the DSA area (any process). */
static void
flatten_task(ReadShared *sh, ReadTask *tasks, uint32 i, dsa_area *area, RowScratch *s)
{
	ReadTask   *t = &tasks[i];
	MemoryContext old = MemoryContextSwitchTo(s->cxt);
	struct varlena *d = detoast_attr((struct varlena *) t->ptr);
	const uint8 *g = (const uint8 *) VARDATA(d);
	size_t		len = VARSIZE(d) - VARHDRSZ;
	exg_error	err = {0};
	exg_status	st;

	MemoryContextSwitchTo(old);
	st = exg_gserialized_srid(g, len, &t->srid, &err);
	if (st == EXG_OK)
	{
		exg_shape_clear(&s->shape);
		st = exg_gserialized_read(g, len, &s->shape, &err);
	}
	if (st == EXG_OK)
	{
		exg_batch_reset(&s->batch);
		st = exg_batch_add(&s->batch, &s->shape, &err);
	}
	MemoryContextReset(s->cxt);
	if (st == EXG_ERR_INTERRUPTED)
		CHECK_FOR_INTERRUPTS();
	if (st == EXG_OK)
	{
		size_t		vbytes = s->batch.nverts * 3 * sizeof(double),
					pbytes = s->batch.nprims * 3 * sizeof(uint32);

		t->flat = dsa_allocate_extended(area, Max(vbytes + pbytes, 8),
										DSA_ALLOC_HUGE | DSA_ALLOC_NO_OOM);
		if (!DsaPointerIsValid(t->flat))
			st = exg_fail(&err, EXG_ERR_NOMEM,
						  "out of shared memory for a flattened join input row");
		else
		{
			char	   *p = dsa_get_address(area, t->flat);

			memcpy(p, s->batch.xyz, vbytes);
			memcpy(p + vbytes, s->batch.tri, pbytes);
			t->nverts = s->batch.nverts;
			t->nprims = s->batch.nprims;
			t->solid = s->batch.solid[0];
		}
	}
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
		SpinLockRelease(&sh->mutex);
	}
	/* the row's results before its state, for the process that reads them */
	pg_write_barrier();
	pg_atomic_write_u32(&t->state, st == EXG_OK ? TASK_DONE : TASK_FAILED);
	ConditionVariableBroadcast(&sh->done_cv);
}

/* Claim the next unclaimed task, or return false. */
static bool
claim_task(ReadShared *sh, uint32 *i)
{
	if (pg_atomic_read_u32(&sh->next) >= sh->ntasks)
		return false;
	*i = pg_atomic_fetch_add_u32(&sh->next, 1);
	return *i < sh->ntasks;
}

void
exactgpu_read_worker_main(dsm_segment *seg, shm_toc *toc)
{
	ReadShared *sh = shm_toc_lookup(toc, READ_KEY_SHARED, false);
	ReadTask   *tasks = shm_toc_lookup(toc, READ_KEY_TASKS, false);
	dsa_area   *area = dsa_attach_in_place(shm_toc_lookup(toc, READ_KEY_DSA, false), seg);
	RowScratch	s;
	uint32		i;

	scratch_init(&s, sh);
	while (claim_task(sh, &i))
	{
		CHECK_FOR_INTERRUPTS();
		flatten_task(sh, tasks, i, area, &s);
	}
	scratch_free(&s);
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

/* How many workers to ask for: 0 to read serially. */
static int
read_workers_wanted(uint64 ntasks, uint64 bytes)
{
	uint64		n;

	if (ntasks == 0 || max_parallel_workers_per_gather <= 0 || IsInParallelMode() ||
		!IsUnderPostmaster || !shm_has_room(bytes))
		return 0;
	if (force_parallel_mode != FORCE_PARALLEL_OFF)
		return (int) Min((uint64) max_parallel_workers_per_gather, ntasks);
	if (bytes < READ_PARALLEL_MIN_BYTES || ntasks < 2)
		return 0;
	/* the leader takes part: ntasks - 1 workers keep every process busy */
	n = Min(ntasks - 1, bytes / READ_BYTES_PER_WORKER);
	return (int) Min((uint64) max_parallel_workers_per_gather, Max(n, 1));
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

		if (exg_batch_add_rows(batch[k], &bytes, exactgpu_threads(), &err) != EXG_OK)
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

/* Serially: detoast here, then parse everything on the thread pool. */
static void
flatten_serial(ExactgpuRows **rows, exg_batch **batch, int nsides, ExactgpuReadReport *rep)
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
	t0 = exg_now_ns();
	parse_inline(rows, batch, nsides);
	rep->parse_ms = (exg_now_ns() - t0) / 1e6;
}

/*
 * Wait for task i. The leader flattens unclaimed rows itself meanwhile;
 * sleeps are short so that a worker that stopped without a word (it could
 * not start, or died) is noticed: its error, if it sent one, is raised by
 * WaitForParallelWorkersToFinish.
 */
static void
wait_task(ParallelContext *pcxt, ReadShared *sh, ReadTask *tasks, uint32 i, dsa_area *area,
		  RowScratch *s)
{
	uint32		j;

	/* as in a Gather: parallel_leader_participation = off leaves rows to the
	 * workers, unless none started */
	bool		help = parallel_leader_participation || pcxt->nworkers_launched == 0;

	while (pg_atomic_read_u32(&tasks[i].state) == TASK_PENDING)
	{
		if (help && claim_task(sh, &j))
		{
			flatten_task(sh, tasks, j, area, s);
			CHECK_FOR_INTERRUPTS();
			continue;
		}
		ConditionVariablePrepareToSleep(&sh->done_cv);
		if (pg_atomic_read_u32(&tasks[i].state) != TASK_PENDING)
			break;
		if (ConditionVariableTimedSleep(&sh->done_cv, 100, WAIT_EVENT_PARALLEL_FINISH))
		{
			bool		alive = false;

			for (int w = 0; w < pcxt->nworkers_launched; w++)
			{
				pid_t		pid;

				if (GetBackgroundWorkerPid(pcxt->worker[w].bgwhandle, &pid) != BGWH_STOPPED)
					alive = true;
			}
			if (!alive && pg_atomic_read_u32(&tasks[i].state) == TASK_PENDING)
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

static void
flatten_parallel(ExactgpuRows **rows, exg_batch **batch, int nsides, int nworkers,
				 ExactgpuReadReport *rep)
{
	uint64		t0 = exg_now_ns();
	uint32		ntasks = 0,
				first[3];
	ParallelContext *pcxt;
	ReadShared *sh;
	ReadTask   *tasks;
	void	   *dsa_space;
	dsa_area   *area;
	RowScratch	s;
	exg_flat_row *flat;
	bool	   *seen = palloc0(sizeof(bool) * nworkers);
	Size		tasks_size;

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
	tasks_size = mul_size(ntasks, sizeof(ReadTask));

	EnterParallelMode();
	pcxt = CreateParallelContext("exactgpu", "exactgpu_read_worker_main", nworkers);
	shm_toc_estimate_chunk(&pcxt->estimator, sizeof(ReadShared));
	shm_toc_estimate_chunk(&pcxt->estimator, tasks_size);
	shm_toc_estimate_chunk(&pcxt->estimator, dsa_minimum_size());
	shm_toc_estimate_keys(&pcxt->estimator, 3);
	InitializeParallelDSM(pcxt);

	sh = shm_toc_allocate(pcxt->toc, sizeof(ReadShared));
	sh->naxes = batch[0]->naxes;
	sh->policy = (int) batch[0]->policy;
	sh->ntasks = ntasks;
	pg_atomic_init_u32(&sh->next, 0);
	ConditionVariableInit(&sh->done_cv);
	SpinLockInit(&sh->mutex);
	sh->fail_task = PG_UINT32_MAX;
	tasks = shm_toc_allocate(pcxt->toc, tasks_size);
	for (int k = 0; k < nsides; k++)
		for (size_t i = 0; i < rows[k]->ntoast; i++)
		{
			ReadTask   *t = &tasks[first[k] + i];

			memcpy(t->ptr, rows[k]->toast[i].ptr, TOAST_POINTER_SIZE);
			pg_atomic_init_u32(&t->state, TASK_PENDING);
			t->flat = InvalidDsaPointer;
		}
	dsa_space = shm_toc_allocate(pcxt->toc, dsa_minimum_size());
	area = dsa_create_in_place(dsa_space, dsa_minimum_size(), LWTRANCHE_PARALLEL_QUERY_DSA,
							   pcxt->seg);
	shm_toc_insert(pcxt->toc, READ_KEY_SHARED, sh);
	shm_toc_insert(pcxt->toc, READ_KEY_TASKS, tasks);
	shm_toc_insert(pcxt->toc, READ_KEY_DSA, dsa_space);
	LaunchParallelWorkers(pcxt);
	rep->workers_planned = nworkers;

	/* while the workers start and detoast, the leader parses rows in line */
	{
		uint64		tp = exg_now_ns();

		parse_inline(rows, batch, nsides);
		rep->parse_ms = (exg_now_ns() - tp) / 1e6;
	}

	/* then takes the TOAST rows in order, flattening unclaimed ones itself */
	scratch_init(&s, sh);
	flat = palloc_extended(sizeof(exg_flat_row) * (ntasks ? ntasks : 1), MCXT_ALLOC_HUGE);
	for (int k = 0; k < nsides; k++)
		for (uint32 i = first[k]; i < first[k + 1]; i++)
		{
			ReadTask   *t = &tasks[i];

			wait_task(pcxt, sh, tasks, i, area, &s);
			if (pg_atomic_read_u32(&t->state) == TASK_FAILED)
			{
				exg_error	err;

				SpinLockAcquire(&sh->mutex);
				err = sh->fail;
				SpinLockRelease(&sh->mutex);
				exactgpu_report(&err, rows[k]->context);
			}
			check_srid(rows[k], t->srid);
			if (t->worker >= 0 && t->worker < nworkers && !seen[t->worker])
			{
				seen[t->worker] = true;
				rep->workers++;
			}
			flat[i].nverts = t->nverts;
			flat[i].nprims = t->nprims;
			flat[i].solid = t->solid;
			flat[i].xyz = (const double *) dsa_get_address(area, t->flat);
			flat[i].tri = (const uint32 *) ((const char *) flat[i].xyz +
											t->nverts * 3 * sizeof(double));
		}
	scratch_free(&s);
	rep->wait_ms = (exg_now_ns() - t0) / 1e6 - rep->parse_ms;

	/* one copy into the batches, on the thread pool (no PostgreSQL calls) */
	t0 = exg_now_ns();
	for (int k = 0; k < nsides; k++)
	{
		exg_error	err = {0};
		uint64		nbytes = 0;

		for (uint32 i = first[k]; i < first[k + 1]; i++)
			nbytes += flat[i].nverts * 24 + flat[i].nprims * 16;
		if (exg_batch_append_flat(batch[k], &flat[first[k]], first[k + 1] - first[k],
								  nbytes >= FLAT_PARALLEL_MIN_BYTES ? exactgpu_threads() : 1,
								  &err) != EXG_OK)
			exactgpu_report(&err, rows[k]->context);
		append_toast_ids(rows[k]);
	}
	rep->gather_ms = (exg_now_ns() - t0) / 1e6;
	pfree(flat);
	pfree(seen);

	dsa_detach(area);
	WaitForParallelWorkersToFinish(pcxt);
	DestroyParallelContext(pcxt);
	ExitParallelMode();
	rep->parallel = rep->workers > 0;
}

void
exactgpu_rows_flatten(ExactgpuRows **rows, exg_batch **batch, int nsides,
					  ExactgpuReadReport *rep)
{
	uint64		ntasks = 0,
				bytes = 0;
	int			nworkers;

	Assert(nsides >= 1 && nsides <= 2);
	memset(rep, 0, sizeof(*rep));
	for (int k = 0; k < nsides; k++)
	{
		ntasks += rows[k]->ntoast;
		bytes += rows[k]->toast_bytes;
	}
	nworkers = read_workers_wanted(ntasks, bytes);
	if (nworkers > 0)
		flatten_parallel(rows, batch, nsides, nworkers, rep);
	else
		flatten_serial(rows, batch, nsides, rep);
}
