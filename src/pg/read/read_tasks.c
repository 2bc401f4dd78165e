/*
 * read_tasks.c — the parallel read's tasks: the state the leader shares
 * with its readers, the claim order, launching and ending the workers,
 * running one task in whichever process claims it, and the leader waiting
 * for each task in query order (helping with unclaimed ones meanwhile);
 * also a reader's scratch. What a task does is the caller's
 * (ReadTaskWork: read_flatten.c, read_boxes.c, read_detoast.c).
 *
 * Errors: a row that does not parse is recorded, and the leader reports the
 * first such row in query order, as the serial path would. A worker's
 * PostgreSQL error (detoast, memory) reaches the leader through the
 * ParallelContext; an error or cancel in the leader ends the transaction or
 * subtransaction, which destroys the context (its workers are terminated
 * and waited for) and detaches the DSM segments, the DSA's too.
 */
#include "exactgpu.h"

#include "access/detoast.h"
#include "miscadmin.h"
#include "optimizer/cost.h"
#include "optimizer/optimizer.h"
#include "pgstat.h"
#include "postmaster/bgworker.h"
#include "utils/memutils.h"

#include "join_options.h"
#include "read_parallel.h"

static void
scratch_release(void *arg)
{
	RowScratch *s = arg;

	exg_shape_free(&s->shape);
	exg_batch_free(&s->batch);
	exg_batch_free(&s->keep);
}

RowScratch *
exactgpu_read_scratch_create(const ReadShared *sh)
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
void
exactgpu_read_scratch_publish(const RowScratch *s, ReadShared *sh)
{
	uint64		now = exg_now_ns(),
				seen = pg_atomic_read_u64(&sh->last_done_ns);

	pg_atomic_fetch_add_u64(&sh->detoast_ns, s->detoast_ns);
	pg_atomic_fetch_add_u64(&sh->parse_ns, s->parse_ns);
	pg_atomic_fetch_add_u64(&sh->copy_ns, s->copy_ns);
	while (seen < now && !pg_atomic_compare_exchange_u64(&sh->last_done_ns, &seen, now))
		;
}

void
exactgpu_read_scratch_free(RowScratch *s)
{
	MemoryContextDelete(s->own);	/* calls scratch_release */
}

dsa_pointer
exactgpu_read_flat_allocate(dsa_area *area, size_t bytes, exg_error *err)
{
	dsa_pointer p = dsa_allocate_extended(area, Max(bytes, 8),
										  DSA_ALLOC_HUGE | DSA_ALLOC_NO_OOM);

	if (!DsaPointerIsValid(p))
		exg_fail(err, EXG_ERR_NOMEM, "out of shared memory for a flattened join input row");
	return p;
}

/*
 * Do task i (any process): `work` puts its results in the task (and the
 * DSA area); a failure is recorded as the lowest failed task's, then the
 * task's state is published.
 */
void
exactgpu_read_run_task(ReadShared *sh, ReadTask *tasks, uint32 i, dsa_area *area,
					   InlineRows **inl, RowScratch *s, ReadTaskWork work)
{
	ReadTask   *t = &tasks[i];
	exg_error	err = {0};
	exg_status	st;

	st = work(sh, t, area, inl, s, &err);
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

/* Claim the next unclaimed task, or return false. */
bool
exactgpu_read_claim_task(ReadShared *sh, const ReadTask *tasks, uint32 *i)
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

/*
 * The state the leader shares with its readers, in the parallel context's
 * segment (one layout for the flatten, box and detoast readers).
 */
ReadShared *
exactgpu_read_shared_create(ParallelContext *pcxt, int naxes, int policy, uint32 ntasks)
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
dsa_area *
exactgpu_read_launch(ParallelContext *pcxt, ReadShared *sh, ReadTask *tasks, bool with_area,
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
void
exactgpu_read_finish(ParallelContext *pcxt, dsa_area *area, ReadShared *sh, ExactgpuReadReport *rep)
{
	uint64		first,
				last;

	if (area)
		dsa_detach(area);
	WaitForParallelWorkersToFinish(pcxt);
	first = pg_atomic_read_u64(&sh->first_start_ns);
	last = pg_atomic_read_u64(&sh->last_start_ns);
	if (last > sh->launch_ns)
		exactgpu_read_worker_start_ms = (last - sh->launch_ns) / 1e6;
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
bool
exactgpu_read_readers_alive(ParallelContext *pcxt)
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
 * Wait for task i. The leader does unclaimed tasks itself meanwhile;
 * sleeps are short so that a worker that stopped without a word (it could
 * not start, or died) is noticed: its error, if it sent one, is raised by
 * WaitForParallelWorkersToFinish.
 */
static void
wait_task(ParallelContext *pcxt, ReadShared *sh, ReadTask *tasks, uint32 i, dsa_area *area,
		  InlineRows **inl, RowScratch *s, ReadTaskWork work)
{
	uint32		j;

	/* as in a Gather: parallel_leader_participation = off leaves rows to the
	 * workers, unless none started */
	bool		help = parallel_leader_participation || pcxt->nworkers_launched == 0;

	while (pg_atomic_read_u32(&tasks[i].state) == TASK_PENDING)
	{
		if (help && exactgpu_read_claim_task(sh, tasks, &j))
		{
			exactgpu_read_run_task(sh, tasks, j, area, inl, s, work);
			CHECK_FOR_INTERRUPTS();
			continue;
		}
		ConditionVariablePrepareToSleep(&sh->done_cv);
		if (pg_atomic_read_u32(&tasks[i].state) != TASK_PENDING)
			break;
		if (ConditionVariableTimedSleep(&sh->done_cv, 100, WAIT_EVENT_PARALLEL_FINISH))
		{
			if (!exactgpu_read_readers_alive(pcxt) && pg_atomic_read_u32(&tasks[i].state) == TASK_PENDING)
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
 * Wait for task i (wait_task) and raise the error of a task that failed,
 * or, given `later`, keep the first row that did not parse there (its
 * status set) for the caller to raise once it has checked every row's
 * SRID: the serial read reads them all before it parses any, so a mixed
 * SRID is the error whether workers read or not. Cancels, memory and rows
 * whose header did not read are raised at once. Returns true when i is the
 * first task seen done by its worker: the callers count the workers that
 * took part.
 */
bool
exactgpu_read_await_task(ParallelContext *pcxt, ReadShared *sh, ReadTask *tasks, uint32 i,
						 dsa_area *area, InlineRows **inl, RowScratch *s, ReadTaskWork work,
						 const char *context, bool *seen, int nworkers, exg_error *later)
{
	ReadTask   *t = &tasks[i];

	wait_task(pcxt, sh, tasks, i, area, inl, s, work);
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

