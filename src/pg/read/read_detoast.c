/*
 * read_detoast.c — detoasting the rows kept as TOAST pointers: one task's
 * value (in any reader process, the SRID read from it), the rows of a
 * serial read here, and ST_ExactBatch's values, by workers when it pays.
 */
#include "exactgpu.h"

#include "access/detoast.h"
#include "access/parallel.h"
#include "miscadmin.h"
#include "optimizer/optimizer.h"
#include "utils/memutils.h"

#include "read_parallel.h"

/* Workers below which detoasting alone (ST_ExactBatch) stays in this backend. */
#define DETOAST_MIN_WORKERS			3

/*
 * Task t's geometry detoasted into the scratch context (the caller resets
 * it), *g and *len its serialized bytes, and its SRID read into the task.
 */
exg_status
exactgpu_read_detoast_geometry(ReadTask *t, RowScratch *s, const uint8 **g, size_t *len, exg_error *err)
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
 * TASK_DETOAST: a TOAST row detoasted into the DSA area, nothing more
 * (nverts: its size).
 */
exg_status
exactgpu_read_detoast_work(const ReadShared *sh, ReadTask *t, dsa_area *area, InlineRows **inl,
						   RowScratch *s, exg_error *err)
{
	MemoryContext old = MemoryContextSwitchTo(s->cxt);
	struct varlena *d = detoast_attr((struct varlena *) t->ptr);

	MemoryContextSwitchTo(old);
	t->flat = exactgpu_read_flat_allocate(area, VARSIZE(d), err);
	if (DsaPointerIsValid(t->flat))
	{
		memcpy(dsa_get_address(area, t->flat), d, VARSIZE(d));
		t->nverts = VARSIZE(d);
	}
	MemoryContextReset(s->cxt);
	return DsaPointerIsValid(t->flat) ? EXG_OK : EXG_ERR_NOMEM;
}

/* Detoast the rows kept as TOAST pointers here: they join the in-line rows. */
void
exactgpu_read_detoast_here(ExactgpuRows **rows, int nsides, ExactgpuReadReport *rep)
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
	int			nworkers = exactgpu_read_workers_wanted(n, n, bytes);
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
	sh = exactgpu_read_shared_create(pcxt, 3, (int) EXG_NONPLANAR_ERROR, (uint32) n);
	tasks = shm_toc_allocate(pcxt->toc, tsize);
	memset(tasks, 0, tsize);
	for (size_t i = 0; i < n; i++)
	{
		tasks[i].kind = TASK_DETOAST;
		memcpy(tasks[i].ptr, rows[i].ptr, TOAST_POINTER_SIZE);
	}
	area = exactgpu_read_launch(pcxt, sh, tasks, true, false);

	seen = palloc0(sizeof(bool) * nworkers);
	s = exactgpu_read_scratch_create(sh);
	for (uint32 i = 0; i < (uint32) n; i++)
	{
		ReadTask   *t = &tasks[i];

		if (exactgpu_read_await_task(pcxt, sh, tasks, i, area, inl, s, exactgpu_read_detoast_work,
									 "ST_ExactBatch", seen, nworkers, NULL))
			took_part++;
		emit(arg, i, (const struct varlena *) dsa_get_address(area, t->flat));
		/* the value is copied: its shared memory can go back now */
		dsa_free(area, t->flat);
	}
	exactgpu_read_scratch_free(s);
	pfree(seen);
	exactgpu_read_finish(pcxt, area, sh, NULL);
	return took_part;
}
