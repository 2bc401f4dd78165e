/*
 * service_shmem.c — the GPU service's setting, its shared memory and its
 * background worker's registration (gpu_service.h).
 */
#include "exactgpu.h"

#include "access/twophase.h"
#include "miscadmin.h"
#include "postmaster/bgworker.h"
#include "pgstat.h"
#include "storage/ipc.h"
#include "storage/latch.h"
#include "storage/proc.h"
#include "storage/shmem.h"
#include "utils/guc.h"

#include "service_shmem.h"

int			exactgpu_gpu_service = EXACTGPU_SERVICE_OFF;
int			exactgpu_gpu_service_lanes = 2;
int			exactgpu_gpu_split_primitives = 0;
int			exactgpu_gpu_keep_memory_mb = -1;
ServiceShared *exactgpu_service_shared = NULL;

static shmem_request_hook_type prev_shmem_request_hook = NULL;
static shmem_startup_hook_type prev_shmem_startup_hook = NULL;

static const struct config_enum_entry service_options[] = {
	{"off", EXACTGPU_SERVICE_OFF, false},
	{"auto", EXACTGPU_SERVICE_AUTO, false},
	{"on", EXACTGPU_SERVICE_ON, false},
	{NULL, 0, false}
};

/* One slot per process the server may have (a slot is found by pgprocno). */
static int
slot_count(void)
{
	return MaxBackends + NUM_AUXILIARY_PROCS + max_prepared_xacts;
}

static Size
shared_size(void)
{
	return add_size(offsetof(ServiceShared, slots),
					mul_size(slot_count(), sizeof(ServiceSlot)));
}

static void
service_shmem_request(void)
{
	if (prev_shmem_request_hook)
		prev_shmem_request_hook();
	RequestAddinShmemSpace(shared_size());
}

static void
service_shmem_startup(void)
{
	bool		found;

	if (prev_shmem_startup_hook)
		prev_shmem_startup_hook();
	LWLockAcquire(AddinShmemInitLock, LW_EXCLUSIVE);
	exactgpu_service_shared = ShmemInitStruct("exactgpu gpu service", shared_size(), &found);
	if (!found)
	{
		ServiceShared *s = exactgpu_service_shared;

		memset(s, 0, shared_size());
		SpinLockInit(&s->mutex);
		pg_atomic_init_u32(&s->generation, 0);
		pg_atomic_init_u64(&s->joins_served, 0);
		pg_atomic_init_u64(&s->joins_failed, 0);
		pg_atomic_init_u64(&s->joins_cancelled, 0);
		pg_atomic_init_u32(&s->queued, 0);
		pg_atomic_init_u32(&s->running_joins, 0);
		snprintf(s->state, sizeof(s->state), "starting");
		s->nslots = slot_count();
		for (int i = 0; i < s->nslots; i++)
		{
			pg_atomic_init_u32(&s->slots[i].state, SLOT_FREE);
			pg_atomic_init_u32(&s->slots[i].cancel, 0);
		}
	}
	LWLockRelease(AddinShmemInitLock);
}

void
exactgpu_service_init(void)
{
	BackgroundWorker worker;

	/* a server setting: defined only where it can take effect (at start) */
	if (!process_shared_preload_libraries_in_progress)
		return;
	DefineCustomEnumVariable("exactgpu.gpu_service",
							 "Run the GPU joins of every backend in one service process that owns the GPUs.",
							 "auto: a service when the host has a GPU; backends then create no CUDA "
							 "context and share one per GPU. on: a service even without a GPU (it "
							 "joins on its CPU pool). off: each backend uses the GPU itself.",
							 &exactgpu_gpu_service,
							 EXACTGPU_SERVICE_AUTO,
							 service_options,
							 PGC_POSTMASTER, 0,
							 NULL, NULL, NULL);
	DefineCustomIntVariable("exactgpu.gpu_service_lanes",
							"Joins the GPU service runs at once on each GPU.",
							"Each lane has a CUDA context of its own on its GPU (streams, pinned "
							"buffers); the GPU's memory pool and the device copies of resident "
							"bodies are shared by its lanes.",
							&exactgpu_gpu_service_lanes,
							2, 1, 16,
							PGC_POSTMASTER, 0,
							NULL, NULL, NULL);
	DefineCustomIntVariable("exactgpu.gpu_split_primitives",
							"Batch joins of at least this many primitives run over every GPU of the host at once.",
							"One side's rows are cut into ranges, each GPU joining its own; against "
							"resident bodies, the new side's. The pairs are the same. 0 (the default): "
							"never split; on 2 and 4 H100s the 2*10^7-triangle mine's join took about 0.57x "
							"and 0.44x one GPU's time, smaller joins gain less (10^6 is a good value).",
							&exactgpu_gpu_split_primitives,
							0, 0, INT_MAX,
							PGC_SIGHUP, 0,
							NULL, NULL, NULL);
	DefineCustomIntVariable("exactgpu.gpu_keep_memory",
							"GPU memory per GPU for device copies of resident bodies.",
							"A join against bodies kept in the resident store uploads them once per "
							"GPU and keeps the copy (least recently used evicted first, and when a "
							"join needs the memory). -1: half of each GPU's memory; 0: keep none.",
							&exactgpu_gpu_keep_memory_mb,
							-1, -1, INT_MAX,
							PGC_SIGHUP, GUC_UNIT_MB,
							NULL, NULL, NULL);
	if (exactgpu_gpu_service == EXACTGPU_SERVICE_OFF)
		return;
	prev_shmem_request_hook = shmem_request_hook;
	shmem_request_hook = service_shmem_request;
	prev_shmem_startup_hook = shmem_startup_hook;
	shmem_startup_hook = service_shmem_startup;

	memset(&worker, 0, sizeof(worker));
	worker.bgw_flags = BGWORKER_SHMEM_ACCESS;
	/* no database: it joins what backends hand it */
	worker.bgw_start_time = BgWorkerStart_PostmasterStart;
	/* after an ERROR exit (a CUDA fault ends the service: the context is
	 * then unusable), back in a second; a crash restarts the server */
	worker.bgw_restart_time = 1;
	snprintf(worker.bgw_library_name, BGW_MAXLEN, "exactgpu");
	snprintf(worker.bgw_function_name, BGW_MAXLEN, "exactgpu_service_main");
	snprintf(worker.bgw_name, BGW_MAXLEN, "exactgpu gpu service");
	snprintf(worker.bgw_type, BGW_MAXLEN, "exactgpu gpu service");
	RegisterBackgroundWorker(&worker);
}

void
exactgpu_service_info(ExactgpuServiceInfo *info)
{
	ServiceShared *s = exactgpu_service_shared;

	memset(info, 0, sizeof(*info));
	if (s == NULL)
	{
		/* not preloaded, or exactgpu.gpu_service = off at the server's start */
		snprintf(info->state, sizeof(info->state), "off");
		return;
	}
	SpinLockAcquire(&s->mutex);
	info->running = s->running;
	info->pid = s->pid;
	info->ndevices = s->ndevices;
	info->lanes = s->lanes;
	info->setup_ms = s->setup_ms;
	memcpy(info->state, s->state, sizeof(info->state));
	memcpy(info->dev, s->dev, sizeof(info->dev));
	SpinLockRelease(&s->mutex);
	info->generation = pg_atomic_read_u32(&s->generation);
	info->joins_served = pg_atomic_read_u64(&s->joins_served);
	info->joins_failed = pg_atomic_read_u64(&s->joins_failed);
	info->joins_cancelled = pg_atomic_read_u64(&s->joins_cancelled);
	info->queued = (int) pg_atomic_read_u32(&s->queued);
	info->running_joins = (int) pg_atomic_read_u32(&s->running_joins);
}

bool
exactgpu_service_has_gpus(void)
{
	ServiceShared *s = exactgpu_service_shared;

	return s != NULL && exactgpu_gpu_service != EXACTGPU_SERVICE_OFF && s->running &&
		s->ndevices > 0;
}

bool
exactgpu_service_serves(void)
{
	ServiceShared *s = exactgpu_service_shared;

	if (s == NULL || exactgpu_gpu_service == EXACTGPU_SERVICE_OFF)
		return false;
	/*
	 * A service that is starting (at the server's start, or again after it
	 * stopped) is waited for, briefly, so that a backend does not open the
	 * GPU itself meanwhile; one that found no GPU under 'auto' has said so
	 * and stopped for good: backends join themselves.
	 */
	for (int waited = 0;; waited += 10)
	{
		if (s->running)
			return true;
		if (strncmp(s->state, "no GPU", 6) == 0)
			return false;
		if (waited >= 5000)
			ereport(ERROR,
					(errcode(ERRCODE_CANNOT_CONNECT_NOW),
					 errmsg("the exactgpu GPU service is not running (%s)", s->state),
					 errhint("It restarts by itself within seconds; see the view exactgpu_gpu_service. "
							 "SET exactgpu.device = 'cpu' joins without it.")));
		(void) WaitLatch(MyLatch, WL_LATCH_SET | WL_TIMEOUT | WL_EXIT_ON_PM_DEATH, 10,
						 PG_WAIT_EXTENSION);
		ResetLatch(MyLatch);
		CHECK_FOR_INTERRUPTS();
	}
}
