/*
 * service_main.c — the GPU service process (gpu_service.h): finds the
 * GPUs, starts a lane per GPU, and loops: take submitted joins (smallest
 * first, none waiting long), hand them to idle lanes, pass cancels on,
 * publish results, drop what finished requests held.
 *
 * Faults: an ERROR here ends the process with exit code 1 and the
 * postmaster starts it again a second later (bgw_restart_time); the
 * waiting backends see the generation change and raise an error. A
 * SIGKILL (or any crash) of this process makes the postmaster restart the
 * whole server, as for any process attached to shared memory: it cannot
 * know what a killed process left half-written there.
 */
#include "exactgpu.h"

#include <sys/eventfd.h>
#include <unistd.h>

#include "miscadmin.h"
#include "pgstat.h"
#include "postmaster/bgworker.h"
#include "postmaster/interrupt.h"
#include "storage/ipc.h"
#include "storage/latch.h"
#include "storage/proc.h"
#include "storage/shmem.h"
#include "utils/guc.h"
#include "utils/memutils.h"

#include "service_lane.h"
#include "service_shmem.h"

/* A request waiting longer than this goes before smaller ones (no starving). */
#define SERVICE_MAX_WAIT_NS ((uint64) 200 * 1000 * 1000)

typedef struct LaneJob
{
	dsm_segment *request;		/* attached while the lane runs */
	uint64		seq;
} LaneJob;

StaticAssertDecl((int) LANE_BATCH_JOIN == (int) EXACTGPU_SERVICE_BATCH_JOIN &&
				 (int) LANE_INTERCEPTS == (int) EXACTGPU_SERVICE_INTERCEPTS &&
				 (int) LANE_BOX_JOIN == (int) EXACTGPU_SERVICE_BOX_JOIN,
				 "the lanes number the jobs as ExactgpuServiceJob");

static ServiceLane *lanes;
static LaneJob *lane_jobs;
static int	nlanes;
static int	ndevices_serving;	/* GPUs the lanes are bound to */
static dsm_segment **held_result;	/* per slot: a result segment until the slot is free */

static void
set_state(const char *fmt, int n)
{
	ServiceShared *s = exactgpu_service_shared;

	SpinLockAcquire(&s->mutex);
	snprintf(s->state, sizeof(s->state), fmt, n);
	SpinLockRelease(&s->mutex);
}

/*
 * Does each array hold what the side's counts say, within the request
 * segment when it is in it? A request is another process's writing: the
 * lane refuses a side that fails (side_short) before the engine reads it.
 */
static bool
side_fits(const ServiceSide *s, Size seg_bytes)
{
	const ServiceArray *arrays[4] = {&s->xyz, &s->tri, &s->owner, &s->solid};
	uint64		need[4];

	if (s->nverts >= PG_UINT32_MAX || s->nprims >= PG_UINT32_MAX || s->nrows >= PG_UINT32_MAX)
		return false;
	need[0] = sizeof(double) * 3 * s->nverts;
	need[1] = sizeof(uint32) * 3 * s->nprims;
	need[2] = sizeof(uint32) * s->nprims;
	need[3] = s->nrows;
	for (int i = 0; i < 4; i++)
		if (arrays[i]->bytes < need[i] ||
			(!arrays[i]->by_address &&
			 (arrays[i]->where > seg_bytes || arrays[i]->bytes > seg_bytes - arrays[i]->where)))
			return false;
	if (s->order.bytes > 0 &&
		(s->order.bytes < sizeof(uint32) * s->nrows ||
		 (!s->order.by_address &&
		  (s->order.where > seg_bytes || s->order.bytes > seg_bytes - s->order.where))))
		return false;
	return true;
}

/* Do the side's arrays lie within its resident block (the store's, packed as flattened)? */
static bool
side_in_resident_block(const ServiceSide *s)
{
	const ServiceArray *arrays[3] = {&s->xyz, &s->tri, &s->owner};

	if (s->keep_tag == 0)
		return false;
	for (int i = 0; i < 3; i++)
		if (!arrays[i]->by_address || arrays[i]->where < s->keep_where ||
			arrays[i]->bytes > s->keep_bytes ||
			arrays[i]->where - s->keep_where > s->keep_bytes - arrays[i]->bytes)
			return false;
	return true;
}

/* A side of the request as an engine batch: arrays borrowed, flags copied. */
static void
side_batch(exg_batch *b, const ServiceSide *s, char *base, Size seg_bytes, ServiceLane *lane,
		   int k)
{
	const ServiceArray *arrays[3] = {&s->xyz, &s->tri, &s->owner};
	void	   *p[3];
	exg_batch_counts c = {s->nverts, s->nprims, s->nrows, s->nsolid, s->nrows_z, s->nrows_flat};
	exg_error	err = {0};

	exg_batch_init(b, s->naxes, (exg_nonplanar_policy) s->policy);
	lane->side_short[k] = !side_fits(s, seg_bytes);
	lane->side_resident[k] = side_in_resident_block(s);
	if (lane->side_short[k])
		return;					/* the lane refuses it; nothing read */
	for (int i = 0; i < 3; i++)
	{
		p[i] = arrays[i]->by_address ? (void *) (uintptr_t) arrays[i]->where
			: (void *) (base + arrays[i]->where);
		if (arrays[i]->by_address && arrays[i]->bytes >= ((size_t) 4 << 20) &&
			lane->nlasting < (int) lengthof(lane->lasting))
		{
			lane->lasting[lane->nlasting] = p[i];
			lane->lasting_bytes[lane->nlasting++] = arrays[i]->bytes;
		}
	}
	if (exg_batch_borrow_arrays(b, &c, p[0], p[1], p[2],
								s->solid.by_address ? (const uint8_t *) (uintptr_t) s->solid.where
								: (const uint8_t *) base + s->solid.where,
								&err) != EXG_OK)
		exactgpu_report(&err, "exactgpu gpu service");
	if (s->order.bytes > 0)
		b->order = s->order.by_address ? (const uint32_t *) (uintptr_t) s->order.where
			: (const uint32_t *) (base + s->order.where);
}

/* The submitted slot to run next: the smallest, unless one waited long. */
static int
next_slot(void)
{
	ServiceShared *s = exactgpu_service_shared;
	uint64		now = exg_now_ns();
	int			best = -1;
	bool		best_old = false;

	for (int i = 0; i < s->nslots; i++)
	{
		ServiceSlot *slot = &s->slots[i];
		bool		old;

		if (pg_atomic_read_u32(&slot->state) != SLOT_SUBMITTED)
			continue;
		pg_read_barrier();
		old = now - slot->submitted_ns > SERVICE_MAX_WAIT_NS;
		if (best < 0 ||
			(old && !best_old) ||
			(old && best_old && slot->submitted_ns < s->slots[best].submitted_ns) ||
			(!old && !best_old && slot->work < s->slots[best].work))
		{
			best = i;
			best_old = old;
		}
	}
	return best;
}

static void
dispatch(void)
{
	ServiceShared *s = exactgpu_service_shared;

	for (int l = 0; l < nlanes; l++)
	{
		ServiceLane *lane = &lanes[l];
		ServiceSlot *slot;
		ServiceRequest *req;
		dsm_segment *seg;
		uint32		expect = SLOT_SUBMITTED;
		int			i;

		if (lane->busy)
			continue;
		if ((i = next_slot()) < 0)
			return;
		slot = &s->slots[i];
		if (!pg_atomic_compare_exchange_u32(&slot->state, &expect, SLOT_RUNNING))
			continue;			/* abandoned meanwhile: its backend frees nothing
								 * of ours; look again */
		pg_atomic_fetch_sub_u32(&s->queued, 1);
		slot->started_ns = exg_now_ns();
		seg = dsm_attach(slot->request);
		req = seg ? dsm_segment_address(seg) : NULL;
		if (req == NULL || req->magic != SERVICE_REQUEST_MAGIC)
		{
			slot->status = EXG_ERR_ARGUMENT;
			exg_fail(&slot->err, EXG_ERR_ARGUMENT, "the GPU service could not read the request");
			slot->done_ns = exg_now_ns();
			if (seg)
				dsm_detach(seg);
			pg_write_barrier();
			pg_atomic_write_u32(&slot->state, SLOT_DONE);
			SetLatch(&ProcGlobal->allProcs[slot->procno].procLatch);
			continue;
		}
		lane->slot = i;
		lane->job = req->job;
		lane->mode = req->mode;
		lane->opt = req->opt;
		/* a service without a GPU (exactgpu.gpu_service = on) joins on its CPU pool */
		if (lane->device < 0)
			lane->opt.device = EXG_DEVICE_CPU;
		lane->nlasting = 0;
		/* a big join over every GPU at once */
		lane->split_n = 0;
		if (ndevices_serving > 1 && req->job == EXACTGPU_SERVICE_BATCH_JOIN &&
			exactgpu_gpu_split_primitives > 0 &&
			slot->work >= (uint64) exactgpu_gpu_split_primitives)
		{
			lane->split_n = Min(ndevices_serving, (int) lengthof(lane->split_devices));
			for (int d = 0; d < lane->split_n; d++)
				lane->split_devices[d] = d;
		}
		if (req->job == EXACTGPU_SERVICE_BOX_JOIN)
			for (int k = 0; k < 2; k++)
			{
				const ServiceArray *a = &req->side[k].xyz;

				lane->box[k].box = a->by_address ? (const double *) (uintptr_t) a->where
					: (const double *) ((char *) req + a->where);
				lane->box[k].n = (uint32) req->side[k].nrows;
				lane->box_naxes = req->side[k].naxes;
			}
		else
		{
			side_batch(&lane->side[0], &req->side[0], (char *) req, dsm_segment_map_length(seg),
					   lane, 0);
			side_batch(&lane->side[1], &req->side[1], (char *) req, dsm_segment_map_length(seg),
					   lane, 1);
		}
		for (int k = 0; k < 2; k++)
		{
			lane->keep[k] = (const void *) (uintptr_t) req->side[k].keep_where;
			lane->keep_bytes[k] = req->side[k].keep_bytes;
			lane->keep_tag[k] = req->side[k].keep_tag;
		}
		lane_jobs[l].request = seg;
		lane_jobs[l].seq = slot->seq;
		pg_atomic_fetch_add_u32(&s->running_joins, 1);
		service_lane_give(lane);
	}
}

/* The kept copies' figures of one device, where the view reads them. */
static void
publish_keep(int device)
{
	ServiceShared *s = exactgpu_service_shared;
	ExactgpuServiceDevice *d;
	exg_gpu_keep_stats ks;

	if (device < 0 || device >= EXACTGPU_SERVICE_MAX_DEVICES || !exg_gpu_keep_info(device, &ks))
		return;
	d = &s->dev[device];
	SpinLockAcquire(&s->mutex);
	d->kept_bytes = ks.bytes_kept;
	d->keep_hits = ks.hits;
	d->keep_misses = ks.misses;
	d->keep_bytes_saved = ks.bytes_saved;
	d->keep_evictions = ks.evictions;
	d->kept_prepared_bytes = ks.derived_bytes;
	d->prepared_made = ks.derived_made;
	d->prepared_reused = ks.derived_hits;
	SpinLockRelease(&s->mutex);
}

/* Copy the device's figures where the view reads them. */
static void
publish_device(const ServiceLane *lane)
{
	ServiceShared *s = exactgpu_service_shared;
	ExactgpuServiceDevice *d;
	size_t		cached[lengthof(lane->split_devices) + 1];

	if (lane->device < 0 || lane->device >= EXACTGPU_SERVICE_MAX_DEVICES)
		return;
	d = &s->dev[lane->device];
	/* read before the spinlock: no call under it */
	cached[0] = exg_gpu_device_cached_bytes(lane->device);
	for (int i = 0; i < lane->split_n; i++)
		cached[i + 1] = exg_gpu_device_cached_bytes(lane->split_devices[i]);
	SpinLockAcquire(&s->mutex);
	d->device = lane->device;
	if (lane->device_name[0])
		memcpy(d->name, lane->device_name, sizeof(d->name));
	d->in_use_bytes = lane->mem_in_use;
	d->reserved_bytes = lane->mem_reserved;
	d->free_bytes = lane->mem_free;
	d->cached_bytes = cached[0];
	d->joins = 0;
	for (int l = 0; l < nlanes; l++)
		if (lanes[l].device == lane->device)
			d->joins += lanes[l].joins;
	/* a join split over the GPUs: the others' memory as it ended */
	for (int i = 0; i < lane->split_n; i++)
	{
		int			other = lane->split_devices[i];

		if (other == lane->device || other < 0 || other >= EXACTGPU_SERVICE_MAX_DEVICES)
			continue;
		s->dev[other].in_use_bytes = lane->split_mem[i][0];
		s->dev[other].reserved_bytes = lane->split_mem[i][1];
		s->dev[other].free_bytes = lane->split_mem[i][2];
		s->dev[other].cached_bytes = cached[i + 1];
	}
	SpinLockRelease(&s->mutex);
	publish_keep(lane->device);
	/* ... and their kept copies */
	for (int i = 0; i < lane->split_n; i++)
		if (lane->split_devices[i] != lane->device)
			publish_keep(lane->split_devices[i]);
}

/* A finished lane's outcome into its slot (or dropped, if abandoned). */
static void
collect(ServiceLane *lane, LaneJob *job)
{
	ServiceShared *s = exactgpu_service_shared;
	ServiceSlot *slot = &s->slots[lane->slot];
	uint32		expect = SLOT_RUNNING;

	if (job->request == NULL)
	{
		/* the warm-up */
		lane->busy = false;
		publish_device(lane);
		return;
	}
	pg_atomic_fetch_sub_u32(&s->running_joins, 1);
	exg_batch_free(&lane->side[0]);
	exg_batch_free(&lane->side[1]);
	dsm_detach(job->request);
	job->request = NULL;
	publish_device(lane);
	if (lane->status == EXG_OK)
		pg_atomic_fetch_add_u64(&s->joins_served, 1);
	else if (lane->status == EXG_ERR_INTERRUPTED)
		pg_atomic_fetch_add_u64(&s->joins_cancelled, 1);
	else
		pg_atomic_fetch_add_u64(&s->joins_failed, 1);

	if (slot->seq == job->seq && pg_atomic_read_u32(&slot->state) == SLOT_RUNNING)
	{
		slot->status = lane->status;
		slot->err = lane->err;
		slot->stats = lane->stats;
		slot->npairs = lane->status == EXG_OK ? lane->npairs : 0;
		slot->result = DSM_HANDLE_INVALID;
		if (slot->npairs > 0)
		{
			dsm_segment *out = dsm_create(sizeof(uint64) * slot->npairs, DSM_CREATE_NULL_IF_MAXSEGMENTS);

			if (out == NULL)
			{
				slot->status = EXG_ERR_NOMEM;
				exg_fail(&slot->err, EXG_ERR_NOMEM,
						 "the GPU service could not make a segment for %llu pairs",
						 (unsigned long long) slot->npairs);
				slot->npairs = 0;
			}
			else
			{
				memcpy(dsm_segment_address(out), lane->pairs, sizeof(uint64) * slot->npairs);
				slot->result = dsm_segment_handle(out);
				held_result[lane->slot] = out;
			}
		}
		slot->started_ns = lane->started_ns;
		slot->done_ns = lane->done_ns;
		pg_write_barrier();
		if (!pg_atomic_compare_exchange_u32(&slot->state, &expect, SLOT_DONE))
		{
			/* abandoned while we wrote: nobody will read it */
			if (held_result[lane->slot])
				dsm_detach(held_result[lane->slot]);
			held_result[lane->slot] = NULL;
			pg_atomic_write_u32(&slot->state, SLOT_FREE);
		}
		else
			SetLatch(&ProcGlobal->allProcs[slot->procno].procLatch);
	}
	else if (pg_atomic_read_u32(&slot->state) == SLOT_ABANDONED)
		pg_atomic_write_u32(&slot->state, SLOT_FREE);
	free(lane->pairs);
	lane->pairs = NULL;
	lane->busy = false;
	if (lane->gpu_failure[0])
	{
		/* answered on the CPU; a fresh process gets a fresh CUDA context */
		ereport(LOG,
				(errmsg("exactgpu gpu service: GPU %d failed (%s); the join was redone on the CPU, the service restarts",
						lane->device, lane->gpu_failure)));
		proc_exit(1);
	}
}

/* Result segments of slots whose backends have read them. */
static void
sweep(void)
{
	ServiceShared *s = exactgpu_service_shared;

	for (int i = 0; i < s->nslots; i++)
		if (held_result[i] != NULL && pg_atomic_read_u32(&s->slots[i].state) != SLOT_DONE)
		{
			dsm_detach(held_result[i]);
			held_result[i] = NULL;
		}
}

static void
pass_cancels(void)
{
	ServiceShared *s = exactgpu_service_shared;

	for (int l = 0; l < nlanes; l++)
		if (lanes[l].busy && lane_jobs[l].request != NULL)
		{
			ServiceSlot *slot = &s->slots[lanes[l].slot];

			if (pg_atomic_read_u32(&slot->cancel) ||
				pg_atomic_read_u32(&slot->state) == SLOT_ABANDONED)
				atomic_store(&lanes[l].cancel, 1);
		}
}

static void
collect_finished(void)
{
	for (int l = 0; l < nlanes; l++)
	{
		bool		finished;

		pthread_mutex_lock(&lanes[l].mutex);
		finished = lanes[l].busy && lanes[l].finished;
		pthread_mutex_unlock(&lanes[l].mutex);
		if (finished)
			collect(&lanes[l], &lane_jobs[l]);
	}
}

static void
reset_old_slots(uint32 generation)
{
	ServiceShared *s = exactgpu_service_shared;

	/* a previous service's requests: their backends raise an error (they
	 * see the generation change); what it abandoned is free now */
	for (int i = 0; i < s->nslots; i++)
		if (s->slots[i].generation != generation &&
			pg_atomic_read_u32(&s->slots[i].state) == SLOT_ABANDONED)
			pg_atomic_write_u32(&s->slots[i].state, SLOT_FREE);
}

/*
 * Stop the lanes before the process exits: a join still running on the
 * GPU while the CUDA runtime tears down could crash the process, and a
 * crash restarts the whole server. They poll their cancel flags.
 */
static void
stop_lanes(void)
{
	for (int l = 0; l < nlanes; l++)
		atomic_store(&lanes[l].cancel, 1);
	for (int waited = 0; waited < 2000; waited += 10)
	{
		bool		busy = false;

		for (int l = 0; l < nlanes; l++)
		{
			pthread_mutex_lock(&lanes[l].mutex);
			busy |= lanes[l].busy && !lanes[l].finished;
			pthread_mutex_unlock(&lanes[l].mutex);
		}
		if (!busy)
			return;
		pg_usleep(10000L);
	}
}

/* On the way out (an ERROR, SIGTERM): backends see the service gone at once. */
static void
service_exit(int code, Datum arg)
{
	ServiceShared *s = exactgpu_service_shared;

	if (lanes != NULL)
		stop_lanes();
	SpinLockAcquire(&s->mutex);
	s->running = false;
	s->pid = 0;
	s->latch = NULL;
	snprintf(s->state, sizeof(s->state), "stopped (exit code %d): restarting", code);
	SpinLockRelease(&s->mutex);
}

void
exactgpu_service_main(Datum arg)
{
	ServiceShared *s = exactgpu_service_shared;
	WaitEventSet *events;
	exg_error	err = {0};
	uint32		generation;
	int			ndevices,
				done_fd,
				warm = 0;

	pqsignal(SIGTERM, SignalHandlerForShutdownRequest);
	pqsignal(SIGHUP, SignalHandlerForConfigReload);
	BackgroundWorkerUnblockSignals();
	if (s == NULL)
		proc_exit(0);

	generation = pg_atomic_add_fetch_u32(&s->generation, 1);
	reset_old_slots(generation);
	SpinLockAcquire(&s->mutex);
	s->pid = MyProcPid;
	s->latch = MyLatch;
	s->running = false;
	memset(s->dev, 0, sizeof(s->dev));
	SpinLockRelease(&s->mutex);
	set_state("opening the GPUs", 0);

	ndevices = exg_gpu_device_count(&err);
	if (ndevices > EXACTGPU_SERVICE_MAX_DEVICES)
		ndevices = EXACTGPU_SERVICE_MAX_DEVICES;
	if (ndevices <= 0 && exactgpu_gpu_service != EXACTGPU_SERVICE_ON)
	{
		/* nothing to serve: backends join themselves, on the CPU */
		SpinLockAcquire(&s->mutex);
		snprintf(s->state, sizeof(s->state), "no GPU: %s", err.message);
		s->ndevices = 0;
		SpinLockRelease(&s->mutex);
		ereport(LOG, (errmsg("exactgpu gpu service: no GPU (%s); backends join themselves", err.message)));
		proc_exit(0);			/* exit code 0: not restarted */
	}

	on_shmem_exit(service_exit, (Datum) 0);
	exg_set_cancel_callback(service_lane_cancel_requested);
	done_fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	if (done_fd < 0)
		ereport(ERROR, (errcode_for_file_access(), errmsg("could not create an eventfd: %m")));
	/*
	 * exactgpu.gpu_service_lanes lanes per GPU, each a thread with its own
	 * context there (exg_gpu_thread_bind): joins interleave on the GPU;
	 * without a GPU ('on'), one lane on the CPU pool.
	 */
	ndevices_serving = Max(ndevices, 0);
	nlanes = ndevices > 0 ? ndevices * exactgpu_gpu_service_lanes : 1;
	if (exactgpu_gpu_keep_memory_mb >= 0)
		exg_gpu_keep_budget((size_t) exactgpu_gpu_keep_memory_mb << 20);
	lanes = MemoryContextAllocZero(TopMemoryContext, sizeof(ServiceLane) * nlanes);
	lane_jobs = MemoryContextAllocZero(TopMemoryContext, sizeof(LaneJob) * nlanes);
	held_result = MemoryContextAllocZero(TopMemoryContext, sizeof(dsm_segment *) * s->nslots);
	for (int l = 0; l < nlanes; l++)
		if (!service_lane_start(&lanes[l], l, ndevices > 0 ? l % ndevices : -1, done_fd))
			ereport(ERROR, (errmsg("exactgpu gpu service: could not start a lane thread")));
	service_lane_register_all(lanes, nlanes);

	events = CreateWaitEventSet(TopMemoryContext, 3);
	AddWaitEventToSet(events, WL_LATCH_SET, PGINVALID_SOCKET, MyLatch, NULL);
	AddWaitEventToSet(events, WL_EXIT_ON_PM_DEATH, PGINVALID_SOCKET, NULL, NULL);
	AddWaitEventToSet(events, WL_SOCKET_READABLE, done_fd, NULL, NULL);

	for (;;)
	{
		WaitEvent	ev[3];
		uint64		count;

		(void) WaitEventSetWait(events, 1000, ev, lengthof(ev), PG_WAIT_EXTENSION);
		ResetLatch(MyLatch);
		while (read(done_fd, &count, sizeof(count)) == sizeof(count))
			;
		if (ConfigReloadPending)
		{
			ConfigReloadPending = false;
			ProcessConfigFile(PGC_SIGHUP);
			if (exactgpu_gpu_keep_memory_mb >= 0)
				exg_gpu_keep_budget((size_t) exactgpu_gpu_keep_memory_mb << 20);
		}
		if (ShutdownRequestPending)
		{
			/* exit code 1: restarted after a second, unless the server is
			 * shutting down */
			proc_exit(1);
		}
		collect_finished();
		if (warm < nlanes)
		{
			warm = 0;
			for (int l = 0; l < nlanes; l++)
				warm += !lanes[l].busy;
			if (warm == nlanes)
			{
				double		setup = 0;

				for (int l = 0; l < nlanes; l++)
					setup = Max(setup, lanes[l].setup_ms);
				SpinLockAcquire(&s->mutex);
				s->ndevices = ndevices;
				s->lanes = nlanes;
				s->setup_ms = setup;
				s->running = true;
				snprintf(s->state, sizeof(s->state), "serving");
				SpinLockRelease(&s->mutex);
				ereport(LOG,
						(errmsg("exactgpu gpu service: serving joins on %d GPU(s), %d lane(s), set up in %.0f ms",
								ndevices, nlanes, setup)));
			}
			else
				continue;
		}
		pass_cancels();
		sweep();
		dispatch();
	}
}
