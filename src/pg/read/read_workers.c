/*
 * read_workers.c — how many parallel workers a read asks for: what the
 * read itself asks (exactgpu_read_workers_wanted) and what the planner
 * costs (exactgpu_read_workers_planned) follow the same rules.
 */
#include "exactgpu.h"

#include <math.h>
#include <sys/statvfs.h>

#include "access/xact.h"
#include "miscadmin.h"
#include "optimizer/cost.h"
#include "optimizer/optimizer.h"
#include "storage/dsm_impl.h"

#include "join_options.h"
#include "read_parallel.h"

/*
 * Below this much detoasted geometry, workers cost more than they save
 * (starting one takes a few ms; detoasting and flattening run at roughly
 * 100-200 MB/s per process). force_parallel_mode overrides it (tests).
 */
#define READ_PARALLEL_MIN_BYTES		((uint64) 8 << 20)
/* A worker for every this many bytes, up to max_parallel_workers_per_gather. */
#define READ_BYTES_PER_WORKER		((uint64) 4 << 20)
/*
 * Serial reading speed, detoasting and parsing (the H100 machine: 1.06 GB
 * of the large mine in 1.6-1.9 s; the 2-core machine: the paper mine's
 * 104 MB in ~0.3 s), to weigh against the workers' start-up.
 */
#define SERIAL_BYTES_PER_MS			((uint64) 400 << 10)
/* Start-up guesses before this backend has seen its workers start. */
#define START_MS_PRELOADED			10.0
#define START_MS_GUESS				100.0

/*
 * How long this backend's last parallel read took to have all its workers
 * running; < 0 before the first. A worker loads every library its leader
 * has loaded (PostGIS with GEOS and PROJ ...) before it reaches our code:
 * 180-240 ms for 15 workers on the H100 machine, 3-12 ms when the
 * libraries are in shared_preload_libraries (forked, already loaded).
 */
double exactgpu_read_worker_start_ms = -1;

/*
 * Is there room for the flattened rows in dynamic shared memory? With POSIX
 * shared memory (the default) that is /dev/shm, often small in containers:
 * a full /dev/shm would fail the join, so read serially instead. A
 * flattened triangle (3 vertices, 3 indices: 84 bytes) is smaller than its
 * serialized form (4 points, 96 bytes), a flattened segment (60 bytes)
 * larger than a linestring's vertex (24): 1.5x covers mines and meshes, and
 * a shortfall is an error, not a wrong answer.
 */
static bool
shm_has_room(uint64 bytes)
{
	struct statvfs fs;

	if (dynamic_shared_memory_type != DSM_IMPL_POSIX || statvfs("/dev/shm", &fs) != 0)
		return true;
	return (uint64) fs.f_bavail * fs.f_frsize >= bytes + bytes / 2;
}

/*
 * How many workers to ask for: 0 to read serially. `bytes` is what the
 * workers would parse (out of line, and in line with them). The leader
 * takes part, so a worker per core but one keeps every core busy and none
 * shared: on the 2-core build machine a second worker made the read slower
 * than the serial one (three processes on two cores). These rules, whatever
 * this moment allows (shared memory, parallel mode), are both what the
 * planner costs (exactgpu_read_workers_planned) and what the read asks for
 * (exactgpu_read_workers_wanted).
 */
static int
workers_for(double ntoast, double ntasks, double bytes)
{
	double		n;
	int			cores = exg_cpu_count();

	if (ntoast < 1 || max_parallel_workers_per_gather <= 0 ||
		exactgpu_parallel_read == EXACTGPU_PARALLEL_READ_OFF)
		return 0;
	if (force_parallel_mode != FORCE_PARALLEL_OFF)
		return (int) Min((double) max_parallel_workers_per_gather, ntasks);
	if (bytes < READ_PARALLEL_MIN_BYTES || ntasks < 2 || cores < 2)
		return 0;

	/*
	 * Workers pay when reading serially would take longer than twice their
	 * start-up (they then finish the rest in a fraction of it): on the H100
	 * machine, with workers starting in ~200 ms, the paper mine's 104 MB
	 * read in 318 ms serially and 415 ms with workers.
	 */
	if (exactgpu_parallel_read == EXACTGPU_PARALLEL_READ_AUTO &&
		floor(bytes / SERIAL_BYTES_PER_MS) <
		2 * (exactgpu_read_worker_start_ms >= 0 ? exactgpu_read_worker_start_ms
			 : exactgpu_preloaded ? START_MS_PRELOADED : START_MS_GUESS))
		return 0;
	n = Min(ntasks - 1, floor(bytes / READ_BYTES_PER_WORKER));
	n = Min(n, (double) (cores - 1));
	return (int) Min((double) max_parallel_workers_per_gather, Max(n, 1));
}

int
exactgpu_read_workers_wanted(uint64 ntoast, uint64 ntasks, uint64 bytes)
{
	if (IsInParallelMode() || !IsUnderPostmaster || !shm_has_room(bytes))
		return 0;
	return workers_for((double) ntoast, (double) ntasks, (double) bytes);
}

int
exactgpu_read_workers_planned(double toast_rows, double inline_bytes, double bytes)
{
	return workers_for(toast_rows, toast_rows + ceil(inline_bytes / INLINE_CHUNK_BYTES), bytes);
}
