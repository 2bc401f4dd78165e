/*
 * gpu_service.h — one process that owns every GPU of the host and runs the
 * backends' batch joins on them (exactgpu.gpu_service, needs
 * shared_preload_libraries).
 *
 * Why: a backend that joins on the GPU itself pays a CUDA context (~0.4 s,
 * ~845 MB of device memory) and uploads its inputs again; contexts of
 * different processes time-slice the GPU, so 8 clients get what 1 gets.
 * The service holds one context per GPU for the server's life; a backend
 * hands it a join through shared memory and waits on its latch:
 *
 *   backend: flattened sides ─► request segment (DSM; arrays already in the
 *            main shared memory, e.g. resident bodies, go by address) ─►
 *            its slot (SUBMITTED) ─► the service's latch
 *   service: takes the slot (RUNNING), hands it to a lane thread, which
 *            runs the engine's join (no PostgreSQL call in a lane) ─►
 *            result segment (DSM) ─► slot DONE ─► the backend's latch
 *   backend: copies the pairs, slot FREE
 *
 * Backends never create a context while the service serves: every other
 * engine call of theirs is made on the CPU (exactgpu_service_backend_cpu).
 */
#ifndef EXACTGPU_GPU_SERVICE_H
#define EXACTGPU_GPU_SERVICE_H

#include "exactgpu.h"

/* exactgpu.gpu_service */
typedef enum ExactgpuServiceMode
{
	EXACTGPU_SERVICE_OFF,		/* every backend uses the GPU itself, as without preload */
	EXACTGPU_SERVICE_AUTO,		/* a service when the host has a GPU */
	EXACTGPU_SERVICE_ON			/* a service even without one (it joins on its CPU pool) */
} ExactgpuServiceMode;

extern int	exactgpu_gpu_service;
extern int	exactgpu_gpu_service_lanes;	/* joins at once per GPU */
extern int	exactgpu_gpu_split_primitives;	/* a join this big goes over every GPU */
extern int	exactgpu_gpu_keep_memory_mb;	/* device copies of resident bodies, per GPU */

/* What the service is asked to run. */
typedef enum ExactgpuServiceJob
{
	EXACTGPU_SERVICE_BATCH_JOIN,	/* exg_batch_join_as(mode) */
	EXACTGPU_SERVICE_INTERCEPTS,	/* exg_intercepts_candidates */
	EXACTGPU_SERVICE_BOX_JOIN	/* exg_box_join: every pair (exg_pair) at once */
} ExactgpuServiceJob;

/* The outcome, with what it took (for EXPLAIN and exactgpu_last_join_stats). */
typedef struct ExactgpuServiceResult
{
	uint64_t   *pairs;			/* malloc'ed row pairs, as the engine returns them */
	size_t		npairs;
	double		queued_ms;		/* submitted to taken by a lane */
	double		run_ms;			/* the engine's join in the service */
	double		send_ms;		/* inputs laid out for the service */
	double		back_ms;		/* done to the pairs copied back and the slot free */
	uint64		bytes_sent;		/* bytes copied into the request (not by address) */
} ExactgpuServiceResult;

/* _PG_init: the setting, and when preloaded the shared memory and the worker. */
void		exactgpu_service_init(void);

/*
 * Whether this backend's GPU work goes to the service: preloaded, the
 * setting not off, and a service that found GPUs (or runs with 'on').
 */
bool		exactgpu_service_serves(void);

/*
 * For the planner: whether a running service has GPUs, without waiting
 * for one that is starting. A GPU join then pays no set-up of a context
 * in this backend (the service's are made once).
 */
bool		exactgpu_service_has_gpus(void);

/*
 * A side borrowed whole from the resident store: its block in the main
 * shared memory and the block's identity, under which the service keeps
 * a device copy of it (a join against bodies that have not changed then
 * uploads only the other side). All zero: nothing to keep.
 */
typedef struct ExactgpuServiceKeep
{
	const void *block;
	uint64		bytes;
	uint64		tag;
} ExactgpuServiceKeep;

/*
 * Run a join in the service. L and R are flattened sides (borrowed or
 * owned); mode is an exg_batch_join_mode for BATCH_JOIN. On an engine
 * failure returns its status with err filled (rows named as the engine
 * names them); raises an ERROR itself when the service is gone or
 * restarting, and returns only after the service let go of the request
 * when the query is cancelled (then raises the cancel).
 */
exg_status	exactgpu_service_run(ExactgpuServiceJob job, int mode, const exg_batch *L,
								 const exg_batch *R, const ExactgpuServiceKeep keep[2],
								 const exg_join_options *opt, ExactgpuServiceResult *res,
								 exg_join_stats *stats, exg_error *err);

/*
 * exg_box_join in the service: the pairs (exg_pair, as res->pairs' 8-byte
 * words) all at once, not chunk by chunk as the engine's sink has them.
 */
exg_status	exactgpu_service_box_join(const exg_box_set *A, const exg_box_set *B, int naxes,
									  const exg_join_options *opt,
									  ExactgpuServiceResult *res, exg_join_stats *stats,
									  exg_error *err);

/* Everything the service view shows. */
typedef struct ExactgpuServiceDevice
{
	int			device;
	char		name[96];
	uint64		total_bytes;
	uint64		in_use_bytes;	/* the pools' live allocations */
	uint64		reserved_bytes; /* kept by the pools for the next join */
	uint64		free_bytes;
	uint64		joins;
	/* resident bodies kept on the device (the engine's keep cache) */
	uint64		kept_bytes;
	uint64		keep_hits;
	uint64		keep_misses;
	uint64		keep_bytes_saved;
	uint64		keep_evictions;
	/* of kept_bytes, what joins prepared from the bodies (exg_gpu_kept_derived) */
	uint64		kept_prepared_bytes;
	uint64		prepared_made;
	uint64		prepared_reused;
	uint64		cached_bytes;	/* of reserved_bytes, the service threads' block caches */
} ExactgpuServiceDevice;

#define EXACTGPU_SERVICE_MAX_DEVICES 16

typedef struct ExactgpuServiceInfo
{
	bool		running;
	int			pid;
	uint32		generation;		/* service starts since the server started */
	int			ndevices;
	int			lanes;
	uint64		joins_served;
	uint64		joins_failed;
	uint64		joins_cancelled;
	int			queued;
	int			running_joins;
	double		setup_ms;		/* the service's GPU setup at its start */
	char		state[64];
	ExactgpuServiceDevice dev[EXACTGPU_SERVICE_MAX_DEVICES];
} ExactgpuServiceInfo;

void		exactgpu_service_info(ExactgpuServiceInfo *info);

#endif							/* EXACTGPU_GPU_SERVICE_H */
