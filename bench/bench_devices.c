/*
 * bench_devices.c — one batch join cut over every GPU of the host
 * (exg_batch_join_devices), against the same join on one GPU, without
 * PostgreSQL: the mine's holes against its bodies, the bodies packed and
 * kept on the devices as the resident store keeps them, the holes pinned
 * for good as the GPU service's requests are. For each way of running it:
 * the median wall time, the pairs (equal to one GPU's, or FAIL), and each
 * range's own time and phases, so that a split that does not scale shows
 * where its ranges wait.
 *
 * Usage: bench_devices [--holes N] [--bodies N] [--triangles N] [--reps N] [--cpu N]
 *                      [--pageable 1] [--trace 1] [--kernels 1]
 * (--cpu N: N CPU ranges in place of GPUs, to try the bench without one;
 * --trace 1: also a timeline (trace.h) of one join each way, every step
 * waited for, so slower than untraced; --kernels 1: the GPU's own
 * timeline of one join each way, from CUPTI (kernel_trace.h; CUPTI_LIB
 * names libcupti where it is not on the library path))
 * (defaults: the "large" mine; the split bench's double mine is
 * --holes 40000 --bodies 200 --triangles 20000000). Prints markdown.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "batch.h"
#include "batch_packed.h"
#include "engine_host.h"
#include "gpu.h"
#include "harness.h"
#include "kernel_trace.h"
#include "mine.h"
#include "parallel.h"
#include "stats.h"
#include "trace.h"

#define REPS_MAX 64

static const char *phase_names[EXG_JOIN_PHASES] = {
	"upload", "classify", "grid", "cull", "test", "refine", "dedupe",
	"download", "exact", "merge"
};

static void
holes_batch(const mine *m, exg_batch *b)
{
	exg_error	err = {0};

	exg_batch_init(b, 3, EXG_NONPLANAR_ERROR);
	CHECK(exg_batch_reserve(b, m->n_hole_vertices, m->n_segments, m->n_holes, &err) == EXG_OK,
		  "%s", err.message);
	for (size_t h = 0; h < m->n_holes; h++)
	{
		const mine_hole *ho = &m->holes[h];
		size_t		ns = ho->nvertices - 1;
		uint32_t   *tri = malloc(sizeof(uint32_t) * 3 * ns);
		exg_flat_row row;

		for (size_t s = 0; s < ns; s++)
		{
			tri[3 * s] = (uint32_t) s;
			tri[3 * s + 1] = tri[3 * s + 2] = (uint32_t) s + 1;
		}
		row = (exg_flat_row) {m->hole_xyz + 3 * ho->first_vertex, tri, ho->nvertices, ns, 0, 3};
		CHECK(exg_batch_append_flat(b, &row, 1, 1, &err) == EXG_OK, "%s", err.message);
		free(tri);
	}
}

static void
bodies_batch(const mine *m, exg_batch *b)
{
	exg_flat_row *rows = calloc(m->n_bodies, sizeof(exg_flat_row));
	exg_error	err = {0};

	exg_batch_init(b, 3, EXG_NONPLANAR_ERROR);
	for (size_t i = 0; i < m->n_bodies; i++)
	{
		const mine_body *bd = &m->bodies[i];

		rows[i] = (exg_flat_row) {m->body_xyz + 3 * bd->first_vertex,
			m->body_tri + 3 * bd->first_triangle, bd->nvertices, bd->ntriangles, 0, 3};
	}
	CHECK(exg_batch_append_flat(b, rows, m->n_bodies, 0, &err) == EXG_OK, "%s", err.message);
	free(rows);
}

typedef struct run_result
{
	double		ms;				/* median wall time */
	double		lo,
				hi;				/* the fastest and the slowest */
	exg_join_stats st;			/* of the last run */
	exg_join_stats range[32];	/* up to 4 ranges per GPU of 8 */
	size_t		npairs;
} run_result;

/* reps joins over devices[0 .. k) cutting split_side; pairs checked against ref. */
static run_result
run(exg_batch *L, exg_batch *R, const int *devices, int k, int split_side, int reps,
	const uint64_t *ref, size_t nref, const char *what)
{
	run_result	r = {0};
	double		ms[REPS_MAX];
	exg_join_options opt;

	exg_join_options_default(&opt);
	opt.device = devices[0] < 0 ? EXG_DEVICE_CPU : EXG_DEVICE_GPU;
	for (int i = 0; i < reps; i++)
	{
		uint64_t   *rows = NULL;
		size_t		n = 0;
		exg_error	err = {0};
		uint64_t	t0 = exg_now_ns();
		exg_status	rc = exg_batch_join_devices(L, R, EXG_BATCH_INTERSECTS, devices, k, split_side,
												&opt, &rows, &n, &r.st, r.range, &err);

		ms[i] = (exg_now_ns() - t0) / 1e6;
		if (rc != EXG_OK)
		{
			FAIL("%s: %s", what, err.message);
			return r;
		}
		if (ref != NULL && (n != nref || memcmp(rows, ref, n * sizeof(uint64_t)) != 0))
			FAIL("%s: %zu pairs, one GPU %zu (or others)", what, n, nref);
		r.npairs = n;
		free(rows);
	}
	r.ms = median_sorted(ms, (size_t) reps);
	r.lo = ms[0];
	r.hi = ms[reps - 1];
	return r;
}

/* One join each way traced: its timeline, in ms from its start. */
static void
trace_one(exg_batch *L, exg_batch *R, const int *devices, int k, int split_side,
		  const uint64_t *ref, size_t nref, const char *what)
{
	static exg_trace_entry e[EXG_TRACE_MAX],
				worst[EXG_TRACE_MAX];
	int			n = 0;
	double		worst_ms = -1;
	run_result	r;

	(void) run(L, R, devices, k, split_side, 1, ref, nref, what);
	printf("\n%s, traced 7 times (ms):", what);
	for (int t = 0; t < 7; t++)
	{
		int			m;

		exg_trace_enable(true);
		r = run(L, R, devices, k, split_side, 1, ref, nref, what);
		exg_trace_enable(false);
		m = exg_trace_take(e, EXG_TRACE_MAX);
		printf(" %.2f", r.ms);
		if (r.ms > worst_ms)
		{
			worst_ms = r.ms;
			n = m;
			memcpy(worst, e, sizeof(exg_trace_entry) * (size_t) m);
		}
	}
	memcpy(e, worst, sizeof(exg_trace_entry) * (size_t) n);
	printf("\n\nthe slowest (ms from the start; thread, device; the step's own ms):\n\n```\n");
	for (int c = 0; c < k; c++)
		printf("range %d: %llu comparisons, %llu candidates, %llu chunks, grid %u x %u x %u\n", c,
			   (unsigned long long) r.range[c].cell_pairs, (unsigned long long) r.range[c].candidates,
			   (unsigned long long) r.range[c].waves, r.range[c].grid_dims[0],
			   r.range[c].grid_dims[1], r.range[c].grid_dims[2]);
	for (int i = 0; i < n; i++)
	{
		double		own = 0;

		for (int j = i - 1; j >= 0; j--)
			if (e[j].thread == e[i].thread)
			{
				own = (e[i].ns - e[j].ns) / 1e6;
				break;
			}
		printf("%8.3f  t%-2d %2d  %-30s %7.3f", (e[i].ns - e[0].ns) / 1e6, e[i].thread,
			   e[i].device, e[i].label, own);
		if (e[i].gpu_ms >= 0)
			printf("  (GPU %.3f)", e[i].gpu_ms);
		printf("\n");
	}
	printf("```\n");
}

static void
report(const char *what, const run_result *r, int k, double one_ms)
{
	printf("| %s | %.2f (%.2f-%.2f) | %.2fx | %zu |", what, r->ms, r->lo, r->hi, one_ms / r->ms,
		   r->npairs);
	for (int p = 0; p < EXG_JOIN_PHASES; p++)
		printf(" %.2f", r->st.phase_ns[p] / 1e6);
	printf(" |\n");
	for (int c = 0; c < k && k > 1; c++)
	{
		printf("|   range %d: %.2f ms wall | | | |", c, r->range[c].total_ns / 1e6);
		for (int p = 0; p < EXG_JOIN_PHASES; p++)
			printf(" %.2f", r->range[c].phase_ns[p] / 1e6);
		printf(" |\n");
	}
}

/* per ranges of one side (0: holes, 1: bodies) on each of the ndev GPUs, reported */
static void
per_gpu(exg_batch *L, exg_batch *R, const int *all, int ndev, int per, int split_side, int reps,
		const uint64_t *ref, size_t nref, double one_ms)
{
	char		what[64];
	int			dev[32];
	run_result	r;

	for (int c = 0; c < per * ndev; c++)
		dev[c] = all[c % ndev];
	r = run(L, R, dev, per * ndev, split_side, reps, ref, nref, "every GPU");
	snprintf(what, sizeof(what), "%d range%s of %s per GPU", per, per > 1 ? "s" : "",
			 split_side ? "bodies" : "holes");
	report(what, &r, per * ndev, one_ms);
}

int
main(int argc, char **argv)
{
	mine_params mp;
	mine	   *m;
	char		merr[256];
	exg_batch	holes,
				bodies,
				kept;
	void	   *block = NULL;
	size_t		size;
	int			reps = 9,
				ncpu = 0,
				ndev;
	bool		pageable = false,
				trace = false,
				kernels = false;
	int			all[8],
				zero[8];		/* GPU 0, for ranges on one GPU */
	exg_error	err = {0};
	uint64_t	t0 = exg_now_ns();
	run_result	one;
	uint64_t   *ref = NULL;
	size_t		nref = 0;

	mine_params_for_size(&mp, "large", 1);
	for (int i = 1; i + 1 < argc; i += 2)
	{
		if (strcmp(argv[i], "--holes") == 0)
			mp.n_holes = atoll(argv[i + 1]);
		else if (strcmp(argv[i], "--bodies") == 0)
			mp.n_bodies = atoll(argv[i + 1]);
		else if (strcmp(argv[i], "--triangles") == 0)
			mp.target_triangles = atoll(argv[i + 1]);
		else if (strcmp(argv[i], "--reps") == 0)
			reps = atoi(argv[i + 1]);
		else if (strcmp(argv[i], "--cpu") == 0)
			ncpu = atoi(argv[i + 1]);
		else if (strcmp(argv[i], "--pageable") == 0)
			pageable = atoi(argv[i + 1]) != 0;
		else if (strcmp(argv[i], "--trace") == 0)
			trace = atoi(argv[i + 1]) != 0;
		else if (strcmp(argv[i], "--kernels") == 0)
			kernels = atoi(argv[i + 1]) != 0;
	}
	if (reps < 1 || reps > REPS_MAX)
		reps = 9;
	ndev = ncpu > 0 ? ncpu : exg_gpu_device_count(&err);
	if (ndev < 1)
	{
		printf("no GPU: %s\n", err.message);
		return 0;
	}
	if (ndev > 8)
		ndev = 8;
	for (int d = 0; d < 8; d++)
	{
		all[d] = ncpu > 0 ? -1 : d;
		zero[d] = ncpu > 0 ? -1 : 0;
	}
	if (mine_generate(&mp, &m, merr, sizeof(merr)) != 0)
	{
		FAIL("mine: %s", merr);
		return 1;
	}
	holes_batch(m, &holes);
	bodies_batch(m, &bodies);
	size = exg_batch_packed_size(&bodies);
	CHECK(posix_memalign(&block, 64, size) == 0);
	exg_batch_pack(&bodies, block);
	exg_batch_init(&kept, 3, EXG_NONPLANAR_ERROR);
	CHECK(exg_batch_borrow_packed(&kept, block, size, 0, &err) == EXG_OK, "%s", err.message);
	CHECK(exg_gpu_keep(block, size, 1));
	/*
	 * The holes as the GPU service gets them by address (from shared
	 * memory, pinned for the process's life), or with --pageable as it gets
	 * them copied into a request (pageable, staged).
	 */
	if (!pageable)
	{
		(void) exg_host_lasting(holes.xyz, sizeof(double) * 3 * holes.nverts);
		(void) exg_host_lasting(holes.tri, sizeof(uint32_t) * 3 * holes.nprims);
		(void) exg_host_lasting(holes.owner, sizeof(uint32_t) * holes.nprims);
	}
	(void) exg_engine_workers_start(0);
	printf("# bench_devices: %zu holes (%zu segments, %s) x %zu bodies (%zu triangles, packed %.0f MB, kept)"
		   " on %d GPU%s; %d CPU threads; made in %.1f s\n\n",
		   holes.nrows, holes.nprims, pageable ? "pageable" : "pinned", kept.nrows, kept.nprims,
		   size / 1e6, ndev, ndev == 1 ? "" : "s", exg_cpu_count(), (exg_now_ns() - t0) / 1e9);

	/*
	 * Warm every device: contexts, pools, kept copies and the bodies'
	 * prepared blocks, made by the first join on each (timed apart).
	 */
	for (int d = 0; d < ndev; d++)
	{
		run_result	r1 = run(&holes, &kept, &all[d], 1, 1, 1, NULL, 0, "warm-up"),
					r2 = run(&holes, &kept, &all[d], 1, 1, 1, NULL, 0, "warm-up");

		printf("GPU %d: first join %.2f ms (copies the bodies up and prepares them), second %.2f ms\n",
			   d, r1.ms, r2.ms);
	}
	printf("\n");
	one = run(&holes, &kept, all, 1, 1, reps, NULL, 0, "one GPU");
	{
		uint64_t   *rows = NULL;
		exg_join_options opt;

		exg_join_options_default(&opt);
		opt.device = ncpu > 0 ? EXG_DEVICE_CPU : EXG_DEVICE_GPU;
		CHECK(exg_batch_join_devices(&holes, &kept, EXG_BATCH_INTERSECTS, all, 1, 1, &opt,
									 &rows, &nref, NULL, NULL, &err) == EXG_OK, "%s", err.message);
		ref = rows;
	}
	printf("median of %d joins, ms; phases summed over the ranges (ms): ", reps);
	for (int p = 0; p < EXG_JOIN_PHASES; p++)
		printf("%s%s", p ? ", " : "", phase_names[p]);
	printf("\n\n| run | ms | vs one GPU | pairs | phases |\n|---|---|---|---|---|\n");
	report("one GPU (GPU 0)", &one, 1, one.ms);
	for (int d = 1; d < ndev; d++)
	{
		char		what[64];
		run_result	r = run(&holes, &kept, &all[d], 1, 1, reps, ref, nref, "one GPU");

		snprintf(what, sizeof(what), "one GPU (GPU %d)", d);
		report(what, &r, 1, one.ms);
	}
	/* several ranges on one GPU: its streams at once (a join alone does not fill it) */
	for (int k = 2; k <= 4; k *= 2)
	{
		char		what[64];
		run_result	r = run(&holes, &kept, zero, k, 1, reps, ref, nref, "ranges on GPU 0");

		snprintf(what, sizeof(what), "%d ranges of bodies on GPU 0", k);
		report(what, &r, k, one.ms);
	}
	for (int per = 1; per <= 4 && ndev > 1; per *= 2)
		per_gpu(&holes, &kept, all, ndev, per, 1, reps, ref, nref, one.ms);
	for (int per = 1; per <= 4 && ndev > 1; per++)
		per_gpu(&holes, &kept, all, ndev, per, 0, reps, ref, nref, one.ms);
	if (ndev > 1)
	{
		/* the GPU service's call: the side and ranges per device left to the engine */
		run_result	r = run(&holes, &kept, all, ndev, -1, reps, ref, nref, "every GPU");

		report("every GPU, the engine's cut (the service's)", &r, ndev, one.ms);
	}
	if (kernels)
	{
		/* one join each way, after one untimed: the GPU's own timeline */
		for (int w = 0; w < (ndev > 1 ? 2 : 1); w++)
		{
			(void) run(&holes, &kept, all, w ? ndev : 1, -1, 1, ref, nref, "kernels");
			if (!kernel_trace_start())
				break;
			(void) run(&holes, &kept, all, w ? ndev : 1, -1, 1, ref, nref, "kernels");
			printf("\n%s, the GPU's timeline (CUPTI):\n\n```\n", w ? "every GPU, the engine's cut" : "one GPU");
			fflush(stdout);
			kernel_trace_stop(stdout);
			printf("```\n");
		}
	}
	if (trace)
	{
		trace_one(&holes, &kept, all, 1, 1, ref, nref, "one GPU");
		if (ndev > 1)
		{
			trace_one(&holes, &kept, all, ndev, 1, ref, nref, "a range of bodies per GPU");
			trace_one(&holes, &kept, all, ndev, 0, ref, nref, "1 range of holes per GPU");
			trace_one(&holes, &kept, all, ndev, -1, ref, nref, "every GPU, the engine's cut");
		}
	}
	for (int d = 0; d < ndev; d++)
	{
		exg_gpu_keep_stats ks;

		if (exg_gpu_keep_info(d, &ks))
			printf("\nGPU %d kept: %zu bytes (%zu of them prepared from the bodies), %llu hits,"
				   " %llu misses; prepared blocks: %llu made, %llu reused", d, ks.bytes_kept,
				   ks.derived_bytes, (unsigned long long) ks.hits, (unsigned long long) ks.misses,
				   (unsigned long long) ks.derived_made, (unsigned long long) ks.derived_hits);
		printf("; the contexts' caches hold %zu bytes", exg_gpu_device_cached_bytes(d));
	}
	printf("\n");
	free(ref);
	exg_gpu_keep_forget(1);
	exg_batch_free(&kept);
	exg_batch_free(&holes);
	exg_batch_free(&bodies);
	free(block);
	mine_free(m);
	return test_failures ? 1 : 0;
}
