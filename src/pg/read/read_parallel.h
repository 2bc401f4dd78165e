/*
 * read_parallel.h — what the files of the parallel read share (src/pg/read
 * only): the tasks in shared memory, a reader's scratch, and the steps each
 * file offers the others.
 *
 * Big geometries (ore bodies of 10^5 triangles) are stored out of line:
 * PostgreSQL's own single-backend floor for them is detoasting and
 * decompressing, and parsing and flattening cost as much again. A parallel
 * plan cannot spread that work: a parallel scan hands out heap BLOCKS, and
 * a table of 100 bodies is one block of TOAST pointers. So the reader keeps
 * the pointers (join_rows.c) and hands them out ROW by row instead, through
 * a ParallelContext as parallel CREATE INDEX does: each worker (and the
 * leader) claims the next task, the biggest left, and does it (the workers
 * share the leader's snapshot, so the pointer stays valid); the leader
 * takes the results in query order.
 *
 * The files, each calling only those above it in this list (make
 * check-cycles):
 *   join_rows.c          the rows as read (ids, bytes, TOAST pointers)
 *   read_workers.c       how many workers a read asks for
 *   read_tasks.c         the parallel context: tasks claimed, done, waited for
 *   read_detoast.c       detoasting (a task's value; serially; ST_ExactBatch)
 *   read_in_place.c      a side laid out in place in one shared segment
 *   read_flatten.c       rows flattened into batches (exactgpu_rows_flatten)
 *   read_boxes.c         the box joins' exact boxes (exactgpu_rows_boxes)
 *   read_worker_main.c   a worker process
 */
#ifndef EXACTGPU_READ_PARALLEL_H
#define EXACTGPU_READ_PARALLEL_H

#include "exactgpu.h"

#include "access/parallel.h"
#include "access/xact.h"
#include "port/atomics.h"
#include "storage/condition_variable.h"
#include "storage/dsm.h"
#include "storage/shm_toc.h"
#include "storage/spin.h"
#include "utils/dsa.h"
#include "utils/memutils.h"

#include "exactgpu_engine.h"
#include "join_rows.h"

#define READ_KEY_SHARED		UINT64CONST(0xE7A6F1A700000001)
#define READ_KEY_TASKS		UINT64CONST(0xE7A6F1A700000002)
#define READ_KEY_DSA		UINT64CONST(0xE7A6F1A700000003)
#define READ_KEY_INLINE		UINT64CONST(0xE7A6F1A700000010)	/* + side */

/* Below this many flattened bytes, one thread gathers them (threads cost more). */
#define FLAT_PARALLEL_MIN_BYTES		((uint64) 8 << 20)
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
	/* sides laid out in place (read_in_place.c) */
	bool		in_place[2];
	uint32		nplace;			/* their tasks */
	pg_atomic_uint32 place_ready;	/* the leader has made the segments */
	pg_atomic_uint32 placed;	/* tasks laid out so far */
	dsm_handle	arena[2];
	uint64		arena_tri[2];	/* offsets in each side's segment: xyz at 0 */
	uint64		arena_owner[2];
} ReadShared;

/*
 * The order the readers claim tasks in: after the sh->ntasks tasks, in the
 * same chunk (tasks_size), as task numbers.
 */
#define TASK_ORDER(tasks, ntasks)	((uint32 *) ((tasks) + (ntasks)))

static inline Size
tasks_size(uint32 ntasks)
{
	return add_size(mul_size(ntasks, sizeof(ReadTask)), mul_size(ntasks, sizeof(uint32)));
}

/*
 * Scratch for flattening one row after another in this process. It lives
 * in its own memory context, whose deletion frees the engine's (malloc'ed)
 * buffers: exactgpu_read_scratch_free, or an error's cleanup in the leader, where the
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

/*
 * What a task of some kind does, in whichever process claims it: its
 * results into the task (and the DSA area), a failure's status returned
 * and described in err.
 */
typedef exg_status (*ReadTaskWork) (const ReadShared *sh, ReadTask *t, dsa_area *area,
									InlineRows **inl, RowScratch *s, exg_error *err);

/*
 * A failure no later row can take precedence over: a cancel, or memory.
 * Rows that do not parse wait for every row's SRID (exactgpu_read_await_task).
 */
static inline bool
fails_at_once(const exg_error *err)
{
	return err->status == EXG_ERR_INTERRUPTED || err->status == EXG_ERR_NOMEM;
}

/* read_workers.c */
extern double exactgpu_read_worker_start_ms;
int			exactgpu_read_workers_wanted(uint64 ntoast, uint64 ntasks, uint64 bytes);

/* read_tasks.c */
RowScratch *exactgpu_read_scratch_create(const ReadShared *sh);
void		exactgpu_read_scratch_publish(const RowScratch *s, ReadShared *sh);
void		exactgpu_read_scratch_free(RowScratch *s);
dsa_pointer exactgpu_read_flat_allocate(dsa_area *area, size_t bytes, exg_error *err);
ReadShared *exactgpu_read_shared_create(ParallelContext *pcxt, int naxes, int policy,
										uint32 ntasks);
dsa_area   *exactgpu_read_launch(ParallelContext *pcxt, ReadShared *sh, ReadTask *tasks,
								 bool with_area, bool by_work);
void		exactgpu_read_finish(ParallelContext *pcxt, dsa_area *area, ReadShared *sh,
								 ExactgpuReadReport *rep);
bool		exactgpu_read_readers_alive(ParallelContext *pcxt);
bool		exactgpu_read_claim_task(ReadShared *sh, const ReadTask *tasks, uint32 *i);
void		exactgpu_read_run_task(ReadShared *sh, ReadTask *tasks, uint32 i, dsa_area *area,
								   InlineRows **inl, RowScratch *s, ReadTaskWork work);
bool		exactgpu_read_await_task(ParallelContext *pcxt, ReadShared *sh, ReadTask *tasks,
									 uint32 i, dsa_area *area, InlineRows **inl, RowScratch *s,
									 ReadTaskWork work, const char *context, bool *seen,
									 int nworkers, exg_error *later);

/* read_detoast.c */
exg_status	exactgpu_read_detoast_geometry(ReadTask *t, RowScratch *s, const uint8 **g,
										   size_t *len, exg_error *err);
exg_status	exactgpu_read_detoast_work(const ReadShared *sh, ReadTask *t, dsa_area *area,
									   InlineRows **inl, RowScratch *s, exg_error *err);
void		exactgpu_read_detoast_here(ExactgpuRows **rows, int nsides, ExactgpuReadReport *rep);

/* read_in_place.c */
void		exactgpu_read_place_when_ready(ReadShared *sh, ReadTask *tasks, RowScratch *s);
void		exactgpu_read_place_sides(ParallelContext *pcxt, ReadShared *sh, ReadTask *tasks,
									  RowScratch *s, ExactgpuRows **rows, exg_batch **batch,
									  int nsides, exg_flat_row **meta, uint64 *nv, uint64 *np,
									  ExactgpuReadReport *rep);

/* read_flatten.c */
exg_status	exactgpu_read_flatten_work(const ReadShared *sh, ReadTask *t, dsa_area *area,
									   InlineRows **inl, RowScratch *s, exg_error *err);

/* read_boxes.c */
exg_status	exactgpu_read_box_work(const ReadShared *sh, ReadTask *t, dsa_area *area,
								   InlineRows **inl, RowScratch *s, exg_error *err);

#endif							/* EXACTGPU_READ_PARALLEL_H */
