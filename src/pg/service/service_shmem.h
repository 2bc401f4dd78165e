/*
 * service_shmem.h — what the GPU service and the backends share: one slot
 * per process that may submit a join (indexed by pgprocno, so a backend
 * never looks for a free one), the service's identity and its counters.
 * Internal to src/pg/service.
 */
#ifndef EXACTGPU_SERVICE_SHMEM_H
#define EXACTGPU_SERVICE_SHMEM_H

#include "port/atomics.h"
#include "storage/dsm.h"
#include "storage/latch.h"
#include "storage/spin.h"

#include "gpu_service.h"

/* A slot's life; only its owner backend moves it out of FREE and DONE. */
typedef enum ServiceSlotState
{
	SLOT_FREE = 0,
	SLOT_SUBMITTED,				/* the request is complete: the service may take it */
	SLOT_RUNNING,				/* taken by a lane */
	SLOT_DONE,					/* results written; the backend reads them */
	SLOT_ABANDONED				/* the backend gave up waiting (cancel took too
								 * long): the service frees it when its lane ends */
} ServiceSlotState;

/* How an array of a side travels: by address in the main shared memory,
 * which every process of the server maps at the same place, or copied
 * into the request segment at an offset. */
typedef struct ServiceArray
{
	uint64		where;			/* address, or offset in the request segment */
	uint64		bytes;
	bool		by_address;
} ServiceArray;

typedef struct ServiceSide
{
	int32		naxes;
	int32		policy;
	uint64		nverts,
				nprims,
				nrows,
				nsolid,
				nrows_z,
				nrows_flat;
	ServiceArray xyz,
				tri,
				owner,
				solid,
				order;			/* order: absent when bytes == 0 */
	/* a resident block the side's arrays lie in, to keep on the GPU (tag 0: none) */
	uint64		keep_where;
	uint64		keep_bytes;
	uint64		keep_tag;
} ServiceSide;

/* The request segment's header; the copied arrays follow. */
typedef struct ServiceRequest
{
	uint32		magic;
	int32		job;			/* ExactgpuServiceJob */
	int32		mode;			/* exg_batch_join_mode */
	exg_join_options opt;
	ServiceSide side[2];
} ServiceRequest;

#define SERVICE_REQUEST_MAGIC 0x45584753u	/* "EXGS" */

typedef struct ServiceSlot
{
	pg_atomic_uint32 state;		/* ServiceSlotState */
	pg_atomic_uint32 cancel;	/* the backend asks the lane to stop */
	/* written by the backend before SUBMITTED */
	int			pid;
	int			procno;
	uint32		generation;		/* the service's, when submitted */
	uint64		seq;			/* the backend's request number */
	dsm_handle	request;
	uint64		work;			/* primitives on both sides: the queue's order */
	uint64		submitted_ns;
	/* written by the service before DONE */
	uint64		started_ns;
	uint64		done_ns;
	int32		status;			/* exg_status */
	exg_error	err;
	exg_join_stats stats;
	dsm_handle	result;			/* the pairs, when npairs > 0 */
	uint64		npairs;
} ServiceSlot;

typedef struct ServiceShared
{
	slock_t		mutex;			/* pid, latch, running, state text */
	int			pid;
	Latch	   *latch;			/* the service's: backends set it to submit */
	bool		running;
	pg_atomic_uint32 generation;
	int			ndevices;
	int			lanes;
	double		setup_ms;
	char		state[64];
	pg_atomic_uint64 joins_served;
	pg_atomic_uint64 joins_failed;
	pg_atomic_uint64 joins_cancelled;
	pg_atomic_uint32 queued;
	pg_atomic_uint32 running_joins;
	ExactgpuServiceDevice dev[EXACTGPU_SERVICE_MAX_DEVICES];
	int			nslots;
	ServiceSlot slots[FLEXIBLE_ARRAY_MEMBER];
} ServiceShared;

extern ServiceShared *exactgpu_service_shared;

/* The service's main (a background worker's entry point: exported by name). */
PGDLLEXPORT void exactgpu_service_main(Datum arg);

#endif							/* EXACTGPU_SERVICE_SHMEM_H */
