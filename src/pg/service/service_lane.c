/*
 * service_lane.c — the GPU service's lane threads (service_lane.h). No
 * PostgreSQL header here on purpose: a lane never calls PostgreSQL.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "service_lane.h"

static _Thread_local ServiceLane *this_lane;
static ServiceLane *all_lanes;
static int	nall_lanes;

void
service_lane_register_all(ServiceLane *lanes, int n)
{
	all_lanes = lanes;
	nall_lanes = n;
}

/*
 * The engine polls this from the lane's thread and from the OpenMP team a
 * lane's join starts; team threads are not lanes, and with one lane its
 * flag is theirs too. (With several lanes a team thread leaves the poll to
 * its lane's own thread, which takes part in every parallel loop.)
 */
bool
service_lane_cancel_requested(void)
{
	if (this_lane != NULL)
		return atomic_load(&this_lane->cancel) != 0;
	if (nall_lanes == 1)
		return atomic_load(&all_lanes[0].cancel) != 0;
	return false;
}

/* The lane's own cancel source (cancel.h), carried to its workers. */
static bool
lane_cancel(void *arg)
{
	return atomic_load(&((ServiceLane *) arg)->cancel) != 0;
}

static void
signal_done(ServiceLane *lane)
{
	uint64_t	one = 1;

	if (write(lane->done_fd, &one, sizeof(one)) < 0)
	{
		/* the eventfd's counter cannot overflow here; nothing else to do */
	}
}

/* One small join on the device: the context, pools and pinned buffers made now. */
static void
warm_up(ServiceLane *lane)
{
	static const double xyz[] = {0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, -1, 0, 0, 1, 1, 1, 1};
	static const uint32_t tri_a[] = {0, 1, 2};
	static const uint32_t seg_b[] = {3, 4};
	exg_prim_set A = {xyz, 6, tri_a, 1, 3},
				B = {xyz, 6, seg_b, 1, 2};
	exg_join_options opt;
	exg_pair   *pairs = NULL;
	size_t		n = 0;
	exg_join_stats stats;
	exg_error	err = {0};
	uint64_t	t0 = exg_now_ns();

	exg_join_options_default(&opt);
	opt.device = lane->device >= 0 ? EXG_DEVICE_GPU : EXG_DEVICE_CPU;
	memset(&stats, 0, sizeof(stats));
	if (exg_join(&A, &B, &opt, &pairs, &n, &stats, &err) == EXG_OK)
		exg_join_pairs_free(pairs);
	lane->setup_ms = (exg_now_ns() - t0) / 1e6;
	memcpy(lane->device_name, stats.device_name, sizeof(lane->device_name));
	if (lane->device >= 0)
		exg_gpu_device_memory_info(lane->device, &lane->mem_in_use, &lane->mem_reserved,
								   &lane->mem_free);
}

/* The box join's sink: every chunk appended (the backend takes them at once). */
static exg_status
box_sink(void *arg, const exg_pair *pairs, size_t n)
{
	ServiceLane *lane = arg;

	if (lane->npairs + n > lane->pairs_cap)
	{
		size_t		cap = lane->pairs_cap ? lane->pairs_cap : 65536;
		uint64_t   *p;

		while (cap < lane->npairs + n)
			cap *= 2;
		p = realloc(lane->pairs, cap * sizeof(uint64_t));
		if (p == NULL)
			return EXG_ERR_NOMEM;
		lane->pairs = p;
		lane->pairs_cap = cap;
	}
	memcpy(lane->pairs + lane->npairs, pairs, n * sizeof(exg_pair));
	lane->npairs += n;
	return EXG_OK;
}

/* The engine call of the lane's job, its outcome in the lane. */
static void
engine_call(ServiceLane *lane)
{
	memset(&lane->stats, 0, sizeof(lane->stats));
	memset(&lane->err, 0, sizeof(lane->err));
	free(lane->pairs);
	lane->pairs = NULL;
	lane->npairs = 0;
	lane->pairs_cap = 0;
	/*
	 * A side the backend laid out, read once here: the engine takes a
	 * batch's indices on trust (batch.h). The resident store's bodies are
	 * a batch packed as it was flattened.
	 */
	for (int k = 0; k < 2 && lane->job != LANE_BOX_JOIN; k++)
	{
		if (lane->side_short[k])
		{
			lane->status = exg_fail(&lane->err, EXG_ERR_ARGUMENT,
									"the GPU service's request has arrays smaller than its counts");
			return;
		}
		if (!lane->side_resident[k] &&
			(lane->status = exg_batch_check(&lane->side[k], lane->opt.worker_threads,
											&lane->err)) != EXG_OK)
			return;
	}
	if (lane->job == LANE_BATCH_JOIN && lane->split_n > 1 &&
		lane->opt.device != EXG_DEVICE_CPU)
		lane->status = exg_batch_join_devices(&lane->side[0], &lane->side[1],
											  (exg_batch_join_mode) lane->mode,
											  lane->split_devices, lane->split_n, -1,
											  &lane->opt, &lane->pairs, &lane->npairs,
											  &lane->stats, NULL, &lane->err);
	else if (lane->job == LANE_BATCH_JOIN)
		lane->status = exg_batch_join_as(&lane->side[0], &lane->side[1],
										 (exg_batch_join_mode) lane->mode, &lane->opt,
										 &lane->pairs, &lane->npairs, &lane->stats, &lane->err);
	else if (lane->job == LANE_INTERCEPTS)
		lane->status = exg_intercepts_candidates(&lane->side[0], &lane->side[1], &lane->opt,
												 &lane->pairs, &lane->npairs, &lane->stats,
												 &lane->err);
	else
	{
		lane->status = exg_box_join(&lane->box[0], &lane->box[1], lane->box_naxes, &lane->opt,
									box_sink, lane, &lane->stats, &lane->err);
		if (lane->status == EXG_ERR_NOMEM && lane->err.message[0] == '\0')
			exg_fail(&lane->err, EXG_ERR_NOMEM, "out of memory keeping %zu box pairs",
					 lane->npairs);
	}
}

static void
run_job(ServiceLane *lane)
{
	lane->started_ns = exg_now_ns();
	/* resident bodies and in-place sides: pinned once for the service's life */
	for (int i = 0; i < lane->nlasting; i++)
		(void) exg_host_lasting(lane->lasting[i], lane->lasting_bytes[i]);
	lane->gpu_failure[0] = '\0';
	if (lane->opt.worker_threads <= 0 || lane->opt.worker_threads > lane->pool)
		lane->opt.worker_threads = lane->pool;
	(void) exg_engine_workers_start(lane->opt.worker_threads);
	/* bodies that have not changed: uploaded once per GPU, not per join */
	for (int k = 0; k < 2; k++)
		if (lane->keep_tag[k] != 0 && lane->device >= 0)
			(void) exg_gpu_keep(lane->keep[k], lane->keep_bytes[k], lane->keep_tag[k]);
	engine_call(lane);
	/*
	 * A GPU that failed (a CUDA error other than memory): the same join on
	 * the CPU, said in the device name, and the service restarts for a
	 * fresh context. A GPU whose memory is held elsewhere (the join split
	 * its input as far as it goes): the same on the CPU under
	 * exactgpu.device = auto, the context kept.
	 */
	if (lane->device >= 0 &&
		(lane->status == EXG_ERR_DEVICE ||
		 (lane->status == EXG_ERR_DEVICE_MEMORY && lane->opt.device == EXG_DEVICE_AUTO)))
	{
		bool		memory = lane->status == EXG_ERR_DEVICE_MEMORY;
		size_t		len;

		if (!memory)
			snprintf(lane->gpu_failure, sizeof(lane->gpu_failure), "%s", lane->err.message);
		lane->opt.device = EXG_DEVICE_CPU;
		engine_call(lane);
		len = strlen(lane->stats.device_name);
		snprintf(lane->stats.device_name + len, sizeof(lane->stats.device_name) - len,
				 memory ? ", the GPU's memory ran out" : " after a GPU failure");
	}
	lane->done_ns = exg_now_ns();
	lane->joins++;
	if (lane->device >= 0)
		exg_gpu_device_memory_info(lane->device, &lane->mem_in_use, &lane->mem_reserved,
								   &lane->mem_free);
	/* a split join's other GPUs too: no lane of theirs may have joined since */
	for (int i = 0; i < lane->split_n && lane->device >= 0; i++)
		exg_gpu_device_memory_info(lane->split_devices[i], &lane->split_mem[i][0],
								   &lane->split_mem[i][1], &lane->split_mem[i][2]);
}

static void *
lane_main(void *arg)
{
	ServiceLane *lane = arg;

	this_lane = lane;
	exg_set_thread_cancel(lane_cancel, lane);
	/* the engine's pool for this thread's regions, made once (as a
	 * backend's at its start): a team made per join costs milliseconds */
	lane->pool = exg_engine_workers_start(0);
	if (lane->device >= 0)
	{
		exg_error	err = {0};

		/* a context of this lane's own on its GPU (streams, pinned buffers),
		 * set up before the first client: lanes of one GPU join at once */
		if (exg_gpu_thread_bind(lane->device, &err) != EXG_OK ||
			exg_gpu_thread_prepare((size_t) 128 << 20, 0, &err) != EXG_OK)
		{
			snprintf(lane->gpu_failure, sizeof(lane->gpu_failure), "%s", err.message);
			lane->device = -1;
		}
	}
	warm_up(lane);
	pthread_mutex_lock(&lane->mutex);
	lane->finished = true;		/* the warm-up, collected like a job */
	pthread_mutex_unlock(&lane->mutex);
	signal_done(lane);
	for (;;)
	{
		pthread_mutex_lock(&lane->mutex);
		while (!lane->stop && !(lane->busy && !lane->finished))
			pthread_cond_wait(&lane->cond, &lane->mutex);
		if (lane->stop)
		{
			pthread_mutex_unlock(&lane->mutex);
			return NULL;
		}
		pthread_mutex_unlock(&lane->mutex);
		run_job(lane);
		pthread_mutex_lock(&lane->mutex);
		lane->finished = true;
		pthread_mutex_unlock(&lane->mutex);
		signal_done(lane);
	}
}

bool
service_lane_start(ServiceLane *lane, int index, int device, int done_fd)
{
	sigset_t	all,
				old;
	bool		ok;

	memset(lane, 0, sizeof(*lane));
	lane->index = index;
	lane->device = device;
	lane->done_fd = done_fd;
	lane->busy = true;			/* until the warm-up is collected */
	atomic_init(&lane->cancel, 0);
	pthread_mutex_init(&lane->mutex, NULL);
	pthread_cond_init(&lane->cond, NULL);
	/* the process's signals stay with the main thread, which handles them */
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	ok = pthread_create(&lane->thread, NULL, lane_main, lane) == 0;
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	return ok;
}

void
service_lane_give(ServiceLane *lane)
{
	pthread_mutex_lock(&lane->mutex);
	atomic_store(&lane->cancel, 0);
	lane->finished = false;
	lane->busy = true;
	pthread_cond_signal(&lane->cond);
	pthread_mutex_unlock(&lane->mutex);
}
