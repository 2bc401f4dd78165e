/*
 * service_client.c — a backend's side of the GPU service (gpu_service.h):
 * lay a join's inputs out for the service, submit, wait on the latch,
 * cancel, take the pairs back.
 */
#include "exactgpu.h"

#include "miscadmin.h"
#include "pgstat.h"
#include "storage/proc.h"
#include "storage/shmem.h"

#include "service_shmem.h"

/* How long a join abandoned by this session (cancelled) is waited for. */
#define SERVICE_ABANDONED_WAIT_MS 5000
/* How long a cancelled join's lane is waited for before the slot is left to it. */
#define SERVICE_CANCEL_WAIT_MS 5000

static uint64 request_seq = 0;

/* Where an array goes: by address when it lies in the main shared memory
 * (the same address in every process), else copied at *copy_off. */
static void
plan_array(ServiceArray *a, const void *p, uint64 bytes, Size *copy_off, uint64 *copied)
{
	a->bytes = bytes;
	if (bytes > 0 && p != NULL && ShmemAddrIsValid(p) &&
		ShmemAddrIsValid((const char *) p + bytes - 1))
	{
		a->by_address = true;
		a->where = (uint64) (uintptr_t) p;
		return;
	}
	a->by_address = false;
	a->where = *copy_off;
	*copy_off += MAXALIGN(bytes);
	*copied += bytes;
}

static void
plan_side(ServiceSide *s, const exg_batch *b, Size *off, uint64 *copied)
{
	s->naxes = b->naxes;
	s->policy = (int32) b->policy;
	s->nverts = b->nverts;
	s->nprims = b->nprims;
	s->nrows = b->nrows;
	s->nsolid = b->nsolid;
	s->nrows_z = b->nrows_z;
	s->nrows_flat = b->nrows_flat;
	plan_array(&s->xyz, b->xyz, sizeof(double) * 3 * b->nverts, off, copied);
	plan_array(&s->tri, b->tri, sizeof(uint32) * 3 * b->nprims, off, copied);
	plan_array(&s->owner, b->owner, sizeof(uint32) * b->nprims, off, copied);
	/* per-row flags: always copied (the service's join may set them) */
	s->solid.bytes = b->nrows;
	s->solid.by_address = false;
	s->solid.where = *off;
	*off += MAXALIGN(b->nrows);
	*copied += b->nrows;
	if (b->order != NULL)
		plan_array(&s->order, b->order, sizeof(uint32) * b->nrows, off, copied);
	else
		memset(&s->order, 0, sizeof(s->order));
}

static void
copy_array(char *base, const ServiceArray *a, const void *p)
{
	/* tens of MB into a fresh segment: one thread faulting its pages in
	 * copied the full join's 40 MB of holes at 1.5 GB/s (25.6 ms, H100 host) */
	if (!a->by_address && a->bytes > 0)
		exg_copy_parallel(base + a->where, p, a->bytes);
}

static void
copy_side(char *base, const ServiceSide *s, const exg_batch *b)
{
	copy_array(base, &s->xyz, b->xyz);
	copy_array(base, &s->tri, b->tri);
	copy_array(base, &s->owner, b->owner);
	if (s->solid.bytes > 0)
	{
		if (b->solid != NULL)
			memcpy(base + s->solid.where, b->solid, s->solid.bytes);
		else
			memset(base + s->solid.where, 0, s->solid.bytes);
	}
	if (b->order != NULL)
		copy_array(base, &s->order, b->order);
}

static bool
service_alive(const ServiceShared *s, uint32 generation)
{
	return s->running && pg_atomic_read_u32(&((ServiceShared *) s)->generation) == generation;
}

static void
wake_service(ServiceShared *s)
{
	Latch	   *latch;

	SpinLockAcquire(&s->mutex);
	latch = s->running ? s->latch : NULL;
	SpinLockRelease(&s->mutex);
	if (latch != NULL)
		SetLatch(latch);
}

/*
 * The service up (exactgpu_service_serves waits for one that is starting
 * or restarting, and raises an error when none comes); its generation.
 */
static uint32
service_wait_running(ServiceShared *s)
{
	if (!exactgpu_service_serves())
		ereport(ERROR,
				(errcode(ERRCODE_CANNOT_CONNECT_NOW),
				 errmsg("the exactgpu GPU service is not running (%s)", s->state)));
	return pg_atomic_read_u32(&s->generation);
}

/*
 * This backend's slot, free: a join it abandoned earlier (cancelled while
 * its lane would not stop) is waited for, or taken back from a service
 * that has since restarted.
 */
static ServiceSlot *
slot_take(ServiceShared *s)
{
	ServiceSlot *slot = &s->slots[MyProc->pgprocno];

	for (int waited = 0; pg_atomic_read_u32(&slot->state) != SLOT_FREE; waited += 10)
	{
		if (!service_alive(s, slot->generation) || waited >= SERVICE_ABANDONED_WAIT_MS)
		{
			/* the service that had it is gone: nobody else writes it */
			if (!service_alive(s, slot->generation))
			{
				pg_atomic_write_u32(&slot->state, SLOT_FREE);
				break;
			}
			ereport(ERROR,
					(errcode(ERRCODE_OBJECT_IN_USE),
					 errmsg("the exactgpu GPU service is still running this session's cancelled join")));
		}
		(void) WaitLatch(MyLatch, WL_LATCH_SET | WL_TIMEOUT | WL_EXIT_ON_PM_DEATH, 10,
						 PG_WAIT_EXTENSION);
		ResetLatch(MyLatch);
		CHECK_FOR_INTERRUPTS();
	}
	pg_atomic_write_u32(&slot->cancel, 0);
	return slot;
}

/*
 * A cancel or termination is pending: ask the lane to stop and wait for it
 * (it polls as the engine does everywhere: well within a second), then let
 * CHECK_FOR_INTERRUPTS raise it. A lane that does not stop in time keeps
 * the slot (ABANDONED) and frees it itself.
 */
static void
cancel_and_raise(ServiceShared *s, ServiceSlot *slot, dsm_segment *seg)
{
	uint32		st;

	pg_atomic_write_u32(&slot->cancel, 1);
	wake_service(s);
	for (int waited = 0; waited < SERVICE_CANCEL_WAIT_MS; waited += 5)
	{
		st = pg_atomic_read_u32(&slot->state);
		if (st == SLOT_DONE || !service_alive(s, slot->generation))
			break;
		pg_usleep(5000L);
	}
	st = SLOT_SUBMITTED;
	if (!pg_atomic_compare_exchange_u32(&slot->state, &st, SLOT_ABANDONED))
	{
		st = SLOT_RUNNING;
		if (!pg_atomic_compare_exchange_u32(&slot->state, &st, SLOT_ABANDONED))
			/* done (its result segment, if any, the service drops), or the
			 * service is gone */
			pg_atomic_write_u32(&slot->state, SLOT_FREE);
	}
	wake_service(s);
	dsm_detach(seg);
	CHECK_FOR_INTERRUPTS();
	/* not reached: an interrupt was pending */
	ereport(ERROR,
			(errcode(ERRCODE_QUERY_CANCELED),
			 errmsg("canceling the GPU service's join")));
}

/*
 * Submit the request laid out in req (its arrays planned: size bytes in
 * all) and wait for the outcome; fill copies the arrays that travel by
 * copy into the segment.
 */
static exg_status
submit(ServiceRequest *req, Size size, uint64 copied, uint64 work,
	   void (*fill) (char *base, const ServiceRequest *req, const void *arg), const void *arg,
	   ExactgpuServiceResult *res, exg_join_stats *stats, exg_error *err)
{
	ServiceShared *s = exactgpu_service_shared;
	ServiceSlot *slot;
	dsm_segment *seg;
	uint64		t0 = exg_now_ns();
	uint32		generation,
				st;
	char	   *base;
	exg_status	status;

	Assert(s != NULL);
	req->magic = SERVICE_REQUEST_MAGIC;
	generation = service_wait_running(s);
	slot = slot_take(s);
	seg = dsm_create(size, 0);
	base = dsm_segment_address(seg);
	memcpy(base, req, sizeof(*req));
	fill(base, req, arg);
	res->bytes_sent = copied;
	res->send_ms = (exg_now_ns() - t0) / 1e6;

	slot->pid = MyProcPid;
	slot->procno = MyProc->pgprocno;
	slot->generation = generation;
	slot->seq = ++request_seq;
	slot->request = dsm_segment_handle(seg);
	slot->work = work;
	slot->submitted_ns = exg_now_ns();
	slot->result = DSM_HANDLE_INVALID;
	slot->npairs = 0;
	pg_write_barrier();
	pg_atomic_write_u32(&slot->state, SLOT_SUBMITTED);
	pg_atomic_fetch_add_u32(&s->queued, 1);
	wake_service(s);

	for (;;)
	{
		st = pg_atomic_read_u32(&slot->state);
		if (st == SLOT_DONE)
			break;
		if (QueryCancelPending || ProcDiePending)
			cancel_and_raise(s, slot, seg);
		if (!service_alive(s, generation))
		{
			pg_atomic_write_u32(&slot->state, SLOT_FREE);
			dsm_detach(seg);
			ereport(ERROR,
					(errcode(ERRCODE_CONNECTION_FAILURE),
					 errmsg("the exactgpu GPU service stopped during the join"),
					 errdetail("The join was not finished; nothing was returned."),
					 errhint("The service restarts by itself; run the query again.")));
		}
		(void) WaitLatch(MyLatch, WL_LATCH_SET | WL_TIMEOUT | WL_EXIT_ON_PM_DEATH, 100,
						 PG_WAIT_EXTENSION);
		ResetLatch(MyLatch);
	}
	pg_read_barrier();
	t0 = exg_now_ns();

	status = (exg_status) slot->status;
	if (stats != NULL)
		*stats = slot->stats;
	if (status != EXG_OK)
		*err = slot->err;
	res->queued_ms = slot->started_ns > slot->submitted_ns ?
		(slot->started_ns - slot->submitted_ns) / 1e6 : 0;
	res->run_ms = (slot->done_ns - slot->started_ns) / 1e6;
	if (status == EXG_OK)
	{
		res->npairs = slot->npairs;
		res->pairs = malloc(sizeof(uint64) * (res->npairs ? res->npairs : 1));
		if (res->pairs != NULL && res->npairs > 0)
		{
			dsm_segment *out = dsm_attach(slot->result);

			if (out == NULL)
			{
				free(res->pairs);
				res->pairs = NULL;
			}
			else
			{
				memcpy(res->pairs, dsm_segment_address(out), sizeof(uint64) * res->npairs);
				dsm_detach(out);
			}
		}
	}
	/* the service drops its result segment once the slot is free again */
	pg_atomic_write_u32(&slot->state, SLOT_FREE);
	wake_service(s);
	dsm_detach(seg);
	res->back_ms = (exg_now_ns() - t0) / 1e6;
	if (status == EXG_OK && res->pairs == NULL)
		ereport(ERROR,
				(errcode(ERRCODE_OUT_OF_MEMORY),
				 errmsg("could not take back the GPU service's %llu pairs",
						(unsigned long long) res->npairs)));
	if (status == EXG_ERR_INTERRUPTED)
		CHECK_FOR_INTERRUPTS();
	return status;
}

typedef struct BatchSides
{
	const exg_batch *side[2];
} BatchSides;

static void
fill_batches(char *base, const ServiceRequest *req, const void *arg)
{
	const BatchSides *b = arg;

	copy_side(base, &req->side[0], b->side[0]);
	copy_side(base, &req->side[1], b->side[1]);
}

exg_status
exactgpu_service_run(ExactgpuServiceJob job, int mode, const exg_batch *L, const exg_batch *R,
					 const ExactgpuServiceKeep keep[2], const exg_join_options *opt,
					 ExactgpuServiceResult *res, exg_join_stats *stats, exg_error *err)
{
	ServiceRequest req;
	BatchSides	sides = {{L, R}};
	Size		size = MAXALIGN(sizeof(ServiceRequest));
	uint64		copied = 0;

	memset(res, 0, sizeof(*res));
	memset(&req, 0, sizeof(req));
	req.job = job;
	req.mode = mode;
	req.opt = *opt;
	plan_side(&req.side[0], L, &size, &copied);
	plan_side(&req.side[1], R, &size, &copied);
	for (int k = 0; k < 2 && keep != NULL; k++)
		if (keep[k].tag != 0 && ShmemAddrIsValid(keep[k].block) &&
			ShmemAddrIsValid((const char *) keep[k].block + keep[k].bytes - 1))
		{
			req.side[k].keep_where = (uint64) (uintptr_t) keep[k].block;
			req.side[k].keep_bytes = keep[k].bytes;
			req.side[k].keep_tag = keep[k].tag;
		}
	return submit(&req, size, copied, L->nprims + R->nprims, fill_batches, &sides, res, stats,
				  err);
}

typedef struct BoxSides
{
	const exg_box_set *side[2];
} BoxSides;

static void
fill_boxes(char *base, const ServiceRequest *req, const void *arg)
{
	const BoxSides *b = arg;

	for (int k = 0; k < 2; k++)
		copy_array(base, &req->side[k].xyz, b->side[k]->box);
}

exg_status
exactgpu_service_box_join(const exg_box_set *A, const exg_box_set *B, int naxes,
						  const exg_join_options *opt, ExactgpuServiceResult *res,
						  exg_join_stats *stats, exg_error *err)
{
	ServiceRequest req;
	BoxSides	sides = {{A, B}};
	Size		size = MAXALIGN(sizeof(ServiceRequest));
	uint64		copied = 0;

	memset(res, 0, sizeof(*res));
	memset(&req, 0, sizeof(req));
	req.job = EXACTGPU_SERVICE_BOX_JOIN;
	req.opt = *opt;
	for (int k = 0; k < 2; k++)
	{
		const exg_box_set *b = sides.side[k];

		req.side[k].naxes = naxes;
		req.side[k].nrows = b->n;
		plan_array(&req.side[k].xyz, b->box, sizeof(double) * 2 * naxes * b->n, &size, &copied);
	}
	return submit(&req, size, copied, (uint64) A->n + B->n, fill_boxes, &sides, res, stats,
				  err);
}
