/*
 * read_in_place.c — a side whose rows are all TOAST rows (ore bodies: the
 * bulk of the bytes) laid out in place: each process keeps the rows it
 * flattened in its own memory until all are flattened; the leader then
 * knows every row's place (a prefix sum in query order), makes one shared
 * segment of the batch's exact size, and every process writes its rows
 * there, indices shifted and owners set. The batch borrows that segment
 * (exg_batch_borrow) until it is freed: the leader copies nothing, where
 * gathering 10^7 triangles took it 70-110 ms on the H100 machine.
 */
#include "exactgpu.h"

#include "miscadmin.h"
#include "pgstat.h"
#include "storage/shmem.h"
#include "utils/memutils.h"

#include "join_options.h"
#include "read_parallel.h"

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
void
exactgpu_read_place_when_ready(ReadShared *sh, ReadTask *tasks, RowScratch *s)
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
 * The leader: every row of the sides laid out in place flattened (their
 * counts, vbase, pbase and row set), make each side's segment, lay out its
 * own rows and wait for the workers' (like wait_task, noticing a worker
 * that stopped without a word); then each such batch borrows its segment.
 */
void
exactgpu_read_place_sides(ParallelContext *pcxt, ReadShared *sh, ReadTask *tasks, RowScratch *s,
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
			if (!exactgpu_read_readers_alive(pcxt) && pg_atomic_read_u32(&sh->placed) < sh->nplace)
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
		exactgpu_rows_append_toast_ids(rows[k]);
	}
}

