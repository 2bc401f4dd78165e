/*
 * read_boxes.c — the box joins' exact boxes (exactgpu_rows_boxes): the
 * rows in line on the thread pool, the TOAST rows by parallel readers when
 * it pays (detoasting is most of the work: a box is one pass over the
 * coordinates), else detoasted here first.
 */
#include "exactgpu.h"

#include "miscadmin.h"
#include "utils/memutils.h"

#include "join_options.h"
#include "read_parallel.h"

/* Serialized bytes a thread boxes before another pays (parsing: join_rows.h). */
#define BOX_BYTES_PER_THREAD		((uint64) 1 << 20)

/* TASK_BOX: a TOAST row's exact box: nothing to flatten, nothing in DSA. */
exg_status
exactgpu_read_box_work(const ReadShared *sh, ReadTask *t, dsa_area *area, InlineRows **inl,
					   RowScratch *s, exg_error *err)
{
	int			naxes = sh->naxes;
	const uint8 *g;
	size_t		len;
	exg_status	st = exactgpu_read_detoast_geometry(t, s, &g, &len, err);

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
	sh = exactgpu_read_shared_create(pcxt, naxes, (int) EXG_NONPLANAR_ERROR, ntasks);
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
	exactgpu_read_launch(pcxt, sh, tasks, false, true);
	rep->workers_planned = nworkers;

	s = exactgpu_read_scratch_create(sh);
	for (int k = 0; k < nsides; k++)
	{
		size_t		base = rows[k]->n;

		for (uint32 i = first[k]; i < first[k + 1]; i++)
		{
			ReadTask   *t = &tasks[i];

			if (exactgpu_read_await_task(pcxt, sh, tasks, i, NULL, inl, s, exactgpu_read_box_work,
										 rows[k]->context, seen, nworkers, NULL))
				rep->workers++;
			exactgpu_rows_note_srid(rows[k], t->srid, i - first[k]);
			has_box[k][base + i - first[k]] = t->solid;
			memcpy(&box[k][2 * naxes * (base + i - first[k])], t->box, 2 * naxes * sizeof(double));
		}
	}
	exactgpu_read_scratch_free(s);
	pfree(seen);
	rep->wait_ms = (exg_now_ns() - t0) / 1e6;
	t0 = exg_now_ns();
	exactgpu_read_finish(pcxt, NULL, sh, rep);
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
		rep->read_bytes += rows[k]->toast_bytes + rows[k]->len;
	}
	nworkers = exactgpu_read_workers_wanted(ntoast, ntoast, bytes);
	if (nworkers == 0)
		exactgpu_read_detoast_here(rows, nsides, rep);
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
			exactgpu_rows_report(rows[k], &err);
		rep->parse_ms += (exg_now_ns() - t0) / 1e6;
	}
	if (nworkers > 0)
		boxes_parallel(rows, nsides, naxes, box, has_box, nworkers, rep);
	for (int k = 0; k < nsides; k++)
		exactgpu_rows_append_toast_ids(rows[k]);
}
