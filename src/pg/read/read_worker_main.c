/*
 * read_worker_main.c — a parallel reader process: it claims tasks, the
 * biggest left first, and does each by its kind, then lays out the rows it
 * kept for sides laid out in place. The leader does the same tasks beside
 * it while it waits for them in query order (read_tasks.c).
 */
#include "exactgpu.h"

#include "miscadmin.h"
#include "utils/dsa.h"

#include "read_parallel.h"

PGDLLEXPORT void exactgpu_read_worker_main(dsm_segment *seg, shm_toc *toc);

/* What a task of this kind does. */
static ReadTaskWork
work_of(uint8 kind)
{
	if (kind == TASK_BOX)
		return exactgpu_read_box_work;
	if (kind == TASK_DETOAST)
		return exactgpu_read_detoast_work;
	return exactgpu_read_flatten_work;
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
	s = exactgpu_read_scratch_create(sh);
	while (exactgpu_read_claim_task(sh, tasks, &i))
	{
		CHECK_FOR_INTERRUPTS();
		exactgpu_read_run_task(sh, tasks, i, area, inl, s, work_of(tasks[i].kind));
	}
	exactgpu_read_scratch_publish(s, sh);
	if (s->keep.nrows > 0)
		exactgpu_read_place_when_ready(sh, tasks, s);
	exactgpu_read_scratch_free(s);
	if (area)
		dsa_detach(area);
}
