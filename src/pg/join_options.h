/*
 * join_options.h — the GUCs of the joins, and the stats of the last join.
 */
#ifndef EXACTGPU_JOIN_OPTIONS_H
#define EXACTGPU_JOIN_OPTIONS_H

#include "exactgpu.h"
#include "exactgpu_engine.h"

extern int	exactgpu_device;
extern int	exactgpu_filter_precision;
extern int	exactgpu_grid_cells;
extern int	exactgpu_first_stage;
extern int	exactgpu_worker_threads;
extern int	exactgpu_gpu_min_primitives;

/*
 * exactgpu.worker_threads for an engine call (0 or more than the cores: the
 * cores), with the worker pool started that large and its threads deaf to
 * the backend's signals; fewer when the backend cannot create that many.
 */
int			exactgpu_threads(void);

/*
 * Threads for a job of `work` units (bytes, primitives): under
 * exactgpu.worker_threads = 0 a thread per `per_thread` units, up to the
 * cores; else the setting. Only a pool that large is started: a small job
 * wakes no thread (on a busy 2-core machine a 400-hole join took 0.3 ms on
 * one thread and 6-47 ms when every call woke the pool's second thread).
 */
int			exactgpu_threads_for(uint64 work, uint64 per_thread);

/*
 * The threads exactgpu_threads_for would take for `work`, for the planner:
 * the pool is not started (its size on a machine with fewer cores than
 * exactgpu.worker_threads asks is the cores, as at run time).
 */
int			exactgpu_threads_planned(double work, uint64 per_thread);

/* Primitives per CPU thread below which more threads cost more than they save. */
#define PRIMS_PER_THREAD 16384

/* exactgpu.memory_limit in bytes, within the server's address-space limit. */
size_t		exactgpu_memory_budget(void);
extern int	exactgpu_memory_limit_mb;
extern int	exactgpu_gpu_memory_limit_mb;
extern bool exactgpu_progress;
/* exactgpu.probe_join: batch joins of a few rows against big bodies probe them (exec/join_probe.c) */
extern bool exactgpu_probe_join;

/* exactgpu.parallel_read: when batch joins read with parallel workers. */
typedef enum ExactgpuParallelRead
{
	EXACTGPU_PARALLEL_READ_AUTO,	/* when reading serially would take over twice
									 * the workers' start-up */
	EXACTGPU_PARALLEL_READ_ALWAYS,	/* whenever PostgreSQL grants workers */
	EXACTGPU_PARALLEL_READ_OFF
} ExactgpuParallelRead;
extern int	exactgpu_parallel_read;
/* exactgpu.read_in_place: sides of TOAST rows laid out in place (read_in_place.c). */
extern bool exactgpu_read_in_place;
/* exactgpu.read_biggest_first: the readers claim the biggest rows first (read_tasks.c). */
extern bool exactgpu_read_biggest_first;

void		exactgpu_define_join_gucs(void);

/*
 * Engine options from the GUCs, for a join of `work` primitives (or boxes,
 * both sides): the one place they are built, for every join (the batch
 * driver's, join_driver.c, and the self-intersection join's). Under
 * exactgpu.device = auto a join below exactgpu.gpu_min_primitives runs on
 * the CPU (no CUDA context, no upload), as does one the planner planned for
 * the CPU (planned_cpu); the reason is returned (NULL: the device is the
 * setting's). With per_thread > 0 the threads are sized to the work
 * (exactgpu_threads_for), else exactgpu.worker_threads decides alone (the
 * box join sizes its own threads).
 */
const char *exactgpu_join_options(exg_join_options *opt, uint64 work, uint64 per_thread,
								  bool planned_cpu);

/*
 * The same for a join the GPU service runs when it serves: the device left
 * as chosen (exactgpu_join_options keeps a backend's own engine calls on
 * the CPU while the service owns the GPUs).
 */
const char *exactgpu_join_options_service(exg_join_options *opt, uint64 work,
										  uint64 per_thread, bool planned_cpu);

/* What exactgpu_last_join_stats() reports. */
typedef struct ExactgpuJoinReport
{
	bool		valid;
	exg_join_stats stats;
	uint64		left_rows;
	uint64		right_rows;
	uint64		left_prims;
	uint64		right_prims;
	uint64		row_pairs;
	double		read_ms;		/* reading and flattening both inputs */
	double		join_ms;		/* the engine join */
	double		total_ms;
	char		semantics[32];	/* "3D", "2D" or "3D point in solid" */
	int			read_workers;	/* parallel worker processes that flattened rows */
	bool		read_parallel;	/* read_path: parallel (workers took part) or serial */
	int			read_resident;	/* sides borrowed from the resident store, not read */
	bool		service;		/* run by the GPU service (gpu_service.h) */
	double		service_queued_ms;	/* waiting for a lane */
	double		service_send_ms;	/* inputs laid out for the service */
	uint64		service_bytes_sent; /* of them copied (the rest went by address) */
	double		service_run_ms; /* the engine's join in the service */
	double		service_back_ms;	/* the pairs back, the request released */
	uint64		resident_rows;	/* ... their rows */
	uint64		resident_bytes; /* ... their stored values' bytes (detoasted sizes) */
	uint64		read_bytes;		/* the rows read: detoasted (out of line) or copied */
} ExactgpuJoinReport;

extern ExactgpuJoinReport exactgpu_last_join;

#endif							/* EXACTGPU_JOIN_OPTIONS_H */
