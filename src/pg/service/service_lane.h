/*
 * service_lane.h — the GPU service's lanes: threads that each run one
 * engine join at a time. They call the engine only, never PostgreSQL (the
 * service's main thread does all of that), and tell the main thread a job
 * is done through an eventfd it waits on with its latch.
 */
#ifndef EXACTGPU_SERVICE_LANE_H
#define EXACTGPU_SERVICE_LANE_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "exactgpu_engine.h"

/* The jobs, numbered as ExactgpuServiceJob (service_main.c checks). */
enum
{
	LANE_BATCH_JOIN,
	LANE_INTERCEPTS,
	LANE_BOX_JOIN
};

typedef struct ServiceLane
{
	int			index;
	int			device;			/* the GPU this lane joins on; -1: the CPU */
	int			pool;			/* its OpenMP pool's size (exg_workers_start) */
	/* one join over several GPUs: these devices, a range each (split_n > 1) */
	int			split_devices[16];
	int			split_n;
	pthread_t	thread;
	pthread_mutex_t mutex;
	pthread_cond_t cond;
	int			done_fd;		/* eventfd: written when a job ends */
	bool		stop;

	/* the job, set by the main thread while the lane is idle */
	bool		busy;			/* a job is given and not yet collected */
	bool		finished;		/* the lane is done with it */
	int			slot;			/* the slot it came from */
	int			job;			/* ExactgpuServiceJob */
	int			mode;
	exg_batch	side[2];		/* LANE_BATCH_JOIN, LANE_INTERCEPTS */
	exg_box_set box[2];			/* LANE_BOX_JOIN */
	int			box_naxes;
	size_t		pairs_cap;		/* LANE_BOX_JOIN: the pairs' buffer */
	exg_join_options opt;
	const void *keep[2];		/* resident blocks to keep on the device ... */
	size_t		keep_bytes[2];
	uint64_t	keep_tag[2];	/* ... under these tags (0: none) */
	bool		side_short[2];	/* arrays smaller than the side's counts say */
	bool		side_resident[2];	/* arrays within the resident block: a batch
									 * packed as it was flattened, not checked */
	const void *lasting[8];		/* shared-memory arrays worth pinning once */
	size_t		lasting_bytes[8];
	int			nlasting;
	atomic_int	cancel;

	/* the outcome, written by the lane before finished */
	exg_status	status;
	exg_error	err;
	exg_join_stats stats;
	uint64_t   *pairs;
	size_t		npairs;
	uint64_t	started_ns;
	uint64_t	done_ns;
	char		gpu_failure[EXG_ERROR_MESSAGE_LEN];	/* non-empty: the GPU failed,
													 * the join was redone on the CPU */

	/* the device, after each job (exg_gpu_memory_info) */
	size_t		mem_in_use;
	size_t		mem_reserved;
	size_t		mem_free;
	/* ... and of each device of a split join, in split_devices' order: in use, reserved, free */
	size_t		split_mem[16][3];
	uint64_t	joins;
	double		setup_ms;		/* the warm-up join at start */
	char		device_name[96];
} ServiceLane;

/*
 * Start a lane (signals blocked in it and in the OpenMP teams it starts);
 * it warms its device up with one small join before taking jobs, so that
 * the first backend's join pays no context creation. False on failure.
 */
bool		service_lane_start(ServiceLane *lane, int index, int device, int done_fd);

/* The lane's GPU: bound, or -1 when binding failed (it then joins on the CPU). */

/* Hand the idle lane its job (fields above already set). */
void		service_lane_give(ServiceLane *lane);

/* The engine's cancel callback in the service: the calling lane's flag. */
bool		service_lane_cancel_requested(void);

/* Lanes that exist (for the cancel callback's OpenMP threads). */
void		service_lane_register_all(ServiceLane *lanes, int n);

#endif							/* EXACTGPU_SERVICE_LANE_H */
