/*
 * bench_join.c — the engine's red-blue join, measured without PostgreSQL.
 *
 * Datasets:
 *   mesh   a tetrahedralized mesh (every tet face) against a translated copy
 *          of itself: the dissertation's "Armadillo vs ArmadilloTranslated";
 *   mine   drill-hole segments against ore-body triangles at UTM coordinates
 *          (test/fixtures/mine.c, the "paper" size: 7846 segments x 10^6 triangles);
 *   large  the mesh pair tiled into many copies (5 * 10^7 triangles a side),
 *          joined under a GPU memory limit so that it runs in chunks;
 *   soup   random triangles, no vertex shared by two of them (--peer only).
 * With --peer BIN (bench/cgal/bench_cgal_join; "-": the engine alone): the CPU join against CGAL's
 * box_intersection_d + do_intersect on the same doubles, one thread each and
 * all cores, pair lists compared for equality, time ratios printed; nothing
 * else runs.
 * For each: both first stages (cell pairs, box join) on each device
 * (--stages-only: just that), GPU runs (warm-up, then --repeat timed), the double-filter and
 * sort-dedupe variants, the CPU join on all cores, an exact comparison of
 * the GPU and CPU pair sets, and the one-thread CPU cost of the test step on
 * a sample. Prints markdown.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "mine.h"
#include "gpu.h"
#include "join.h"
#include "mesh_io.h"
#include "parallel.h"
#include "stats.h"
#include "harness.h"

static const char *phase_names[EXG_JOIN_PHASES] = {
	"upload", "classify", "grid", "cull", "test", "refine (double)", "sort/dedupe",
	"download", "exact (GMP)", "merge"
};

typedef struct owned_set
{
	exg_prim_set s;
	double	   *xyz;
	uint32_t   *idx;
} owned_set;

static void
owned_alloc(owned_set *o, uint32_t nverts, uint32_t nprims, int arity)
{
	o->xyz = exg_host_alloc(sizeof(double) * 3 * (size_t) nverts + 8);
	o->idx = exg_host_alloc(sizeof(uint32_t) * (size_t) arity * nprims + 8);
	o->s = (exg_prim_set) {o->xyz, nverts, o->idx, nprims, arity};
}

static void
owned_free(owned_set *o)
{
	exg_host_free(o->xyz);
	exg_host_free(o->idx);
}

/* k copies of mesh m, copy c shifted by c * spacing along x, plus t. */
static void
tile_mesh(owned_set *o, const bench_mesh *m, uint32_t copies, double spacing, const double *t)
{
	owned_alloc(o, m->nverts * copies, m->ntris * copies, 3);
	for (uint32_t c = 0; c < copies; c++)
	{
		for (uint32_t v = 0; v < m->nverts; v++)
			for (int k = 0; k < 3; k++)
				o->xyz[3 * ((size_t) c * m->nverts + v) + k] =
					m->xyz[3 * v + k] + t[k] + (k == 0 ? c * spacing : 0);
		for (size_t i = 0; i < 3 * (size_t) m->ntris; i++)
			o->idx[(size_t) c * 3 * m->ntris + i] = m->tri[i] + c * m->nverts;
	}
}

/* Every stride-th primitive of S (for the one-thread CPU sample). */
static void
subset(owned_set *o, const exg_prim_set *S, uint32_t stride)
{
	uint32_t	n = (S->nprims + stride - 1) / stride;

	owned_alloc(o, S->nverts, n, S->arity);
	memcpy(o->xyz, S->xyz, sizeof(double) * 3 * (size_t) S->nverts);
	for (uint32_t i = 0; i < n; i++)
		memcpy(&o->idx[(size_t) i * S->arity], &S->vidx[(size_t) i * stride * S->arity],
			   sizeof(uint32_t) * S->arity);
}

static void
print_stats(const char *label, const exg_join_stats *st, size_t npairs)
{
	printf("\n**%s** — %s, grid %ux%ux%u, %zu pairs\n\n", label, st->device_name,
		   st->grid_dims[0], st->grid_dims[1], st->grid_dims[2], npairs);
	printf("| phase | ms |\n|---|---:|\n");
	for (int p = 0; p < EXG_JOIN_PHASES; p++)
		if (st->phase_ns[p])
			printf("| %s | %.3f |\n", phase_names[p], st->phase_ns[p] / 1e6);
	printf("| **engine total (wall, end to end)** | **%.3f** |\n\n", st->total_ns / 1e6);
	printf("| count | value |\n|---|---:|\n");
	printf("| grid entries | %llu |\n| red-blue pairs in cells | %llu |\n| candidates (boxes meet, once) | %llu |\n",
		   (unsigned long long) st->grid_entries, (unsigned long long) st->cell_pairs,
		   (unsigned long long) st->candidates);
	printf("| hits | %llu |\n| undecided by the first filter | %llu |\n| undecided by double intervals | %llu |\n| decided by GMP | %llu |\n| candidate waves | %u |\n| input splits | %u |\n",
		   (unsigned long long) npairs, (unsigned long long) st->unknown_first,
		   (unsigned long long) st->unknown_second, (unsigned long long) st->exact_pairs,
		   st->waves, st->splits);
	if (st->phase_ns[EXG_PHASE_TEST])
		printf("| test kernel throughput | %.2f G tests/s |\n",
			   st->candidates / (st->phase_ns[EXG_PHASE_TEST] / 1e9) / 1e9);
}


static exg_pair *
join_or_die(const exg_prim_set *A, const exg_prim_set *B, const exg_join_options *o,
			size_t *n, exg_join_stats *st)
{
	exg_pair   *p = NULL;
	exg_error	err = {0};

	if (exg_join(A, B, o, &p, n, st, &err) != EXG_OK)
	{
		printf("\njoin failed: %s\n", err.message);
		test_failures++;
		*n = 0;
		return NULL;
	}
	return p;
}

static bool
same_pairs(const exg_pair *x, size_t nx, const exg_pair *y, size_t ny)
{
	return nx == ny && (nx == 0 || memcmp(x, y, nx * sizeof(exg_pair)) == 0);
}

/*
 * Both first stages of the join (every pair sharing a cell, and the box
 * join) on each usable device, best of repeat runs (CPU: of 2), pair sets
 * compared: the measurement behind EXG_CULL_AUTO.
 */
static void
compare_first_stages(const exg_prim_set *A, const exg_prim_set *B, int repeat)
{
	static const exg_cull_stage culls[2] = {EXG_CULL_CELL_PAIRS, EXG_CULL_BOX_JOIN};
	static const char *cull_name[2] = {"cell pairs", "box join"};
	exg_error	err = {0};
	bool		have_gpu = exg_gpu_device_count(&err) > 0;
	exg_pair   *ref = NULL;
	size_t		nref = 0;

	printf("\n### first stage: every pair sharing a cell vs the box join\n\n");
	printf("| device | first stage | grid | pairs compared | candidates | grid ms | cull ms | test ms | total ms (best) | pairs | same pairs |\n");
	printf("|---|---|---|---:|---:|---:|---:|---:|---:|---:|---|\n");
	for (int dev = have_gpu ? 0 : 1; dev < 2; dev++)
		for (int c = 0; c < 2; c++)
		{
			exg_join_options o;
			exg_join_stats st,
						best = {0};
			exg_pair   *p = NULL;
			size_t		n = 0;
			int			runs = dev ? 2 : repeat + 1;	/* GPU: the first is a warm-up */

			exg_join_options_default(&o);
			o.device = dev ? EXG_DEVICE_CPU : EXG_DEVICE_GPU;
			o.cull = culls[c];
			for (int r = 0; r < runs; r++)
			{
				exg_join_pairs_free(p);
				p = join_or_die(A, B, &o, &n, &st);
				if (p == NULL)
					return;
				if ((dev == 1 || r > 0) && (best.total_ns == 0 || st.total_ns < best.total_ns))
					best = st;
			}
			bool		same = true;

			if (ref == NULL)
			{
				ref = malloc(sizeof(exg_pair) * (n + 1));
				memcpy(ref, p, sizeof(exg_pair) * n);
				nref = n;
			}
			else
				same = same_pairs(p, n, ref, nref);
			test_failures += !same;
			printf("| %s | %s | %ux%ux%u | %llu | %llu | %.2f | %.2f | %.2f | %.2f | %zu | %s |\n",
				   dev ? "CPU" : "GPU", cull_name[c], best.grid_dims[0], best.grid_dims[1],
				   best.grid_dims[2], (unsigned long long) best.cell_pairs,
				   (unsigned long long) best.candidates, best.phase_ns[EXG_PHASE_GRID] / 1e6,
				   best.phase_ns[EXG_PHASE_CULL] / 1e6, best.phase_ns[EXG_PHASE_TEST] / 1e6,
				   best.total_ns / 1e6, n, same ? "yes" : "**NO**");
			exg_join_pairs_free(p);
		}
	free(ref);
}

static bool stages_only;

/* ---- CGAL as a peer (--peer) ---- */

static const char *peer_bin;
static int	peer_threads;		/* the "all cores" run: 0 = every core */
static int	peer_repeat = 1;

/* A peer's answer: its time (box build, box join, tests) and sorted pairs. */
typedef struct peer_answer
{
	double		seconds,
				cpu_seconds;
	unsigned long long candidates;
	exg_pair   *p;
	size_t		n;
} peer_answer;

static bool
run_peer(const char *input, int threads, peer_answer *ans)
{
	char		out[4200],
				cmd[9000],
				line[512];
	FILE	   *f;
	bool		ok = false;
	uint64_t	n = 0;

	memset(ans, 0, sizeof(*ans));
	snprintf(out, sizeof(out), "%s.peer-pairs", input);
	snprintf(cmd, sizeof(cmd), "%s '%s' %d '%s'", peer_bin, input, threads, out);
	if ((f = popen(cmd, "r")) == NULL)
		return false;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "seconds %lf candidates %llu pairs %*u cpu_seconds %lf", &ans->seconds,
				   &ans->candidates, &ans->cpu_seconds) == 3)
			ok = true;
	if (pclose(f) != 0 || !ok)
		return false;
	if ((f = fopen(out, "rb")) == NULL)
		return false;
	ok = fread(&n, sizeof(n), 1, f) == 1;
	ans->p = malloc(sizeof(exg_pair) * (n + 1));
	ok = ok && ans->p && fread(ans->p, sizeof(exg_pair), n, f) == n;
	ans->n = n;
	fclose(f);
	remove(out);
	return ok;
}

/* FNV-1a over the sorted pair list: a fingerprint to quote in results. */
static uint64_t
pairs_hash(const exg_pair *p, size_t n)
{
	uint64_t	h = 1469598103934665603ULL;
	const unsigned char *b = (const unsigned char *) p;

	for (size_t i = 0; i < n * sizeof(exg_pair); i++)
		h = (h ^ b[i]) * 1099511628211ULL;
	return h;
}

/*
 * The CPU join and CGAL on the same inputs: one thread each, then all
 * cores (CGAL's box_intersection_d is sequential; its all-cores run tests
 * the candidates it collected on OpenMP threads). Times are the best of
 * peer_repeat runs; the engine's includes classification and the sorted
 * output, CGAL's excludes sorting its pairs. CPU seconds (process time, all
 * threads) are printed too: on a shared machine they are steadier than wall
 * time for the one-thread runs.
 */
static double
process_cpu_seconds(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void
run_peer_dataset(const char *name, const exg_prim_set *A, const exg_prim_set *B)
{
	char		input[4096];
	const double *xyz[2] = {A->xyz, B->xyz};
	uint32_t	nv[2] = {A->nverts, B->nverts},
				np[2] = {A->nprims, B->nprims};
	const uint32_t *idx[2] = {A->vidx, B->vidx};
	int			arity[2] = {A->arity, B->arity};
	int			all = peer_threads ? peer_threads : exg_threads(0);
	const char *tmp = getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";

	snprintf(input, sizeof(input), "%s/exg-peer-%d.bin", tmp, (int) getpid());
	if (join_input_write(input, xyz, nv, idx, np, arity) != 0)
	{
		printf("\ncannot write %s\n", input);
		test_failures++;
		return;
	}
	printf("\n### %s: %u x %u primitives\n\n", name, A->nprims, B->nprims);
	printf("| threads | exactgpu s | CGAL s | exactgpu / CGAL | exactgpu CPU s | CGAL CPU s | CPU-time ratio | candidates (exactgpu / CGAL) | pairs | pair-list hash | same pairs |\n");
	printf("|---:|---:|---:|---:|---:|---:|---:|---|---:|---|---|\n");
	double		wall1[2] = {0, 0};	/* one thread: exactgpu, CGAL */

	for (int run = 0; run < 2; run++)
	{
		int			threads = run == 0 ? 1 : all;
		exg_join_options o;
		exg_join_stats st,
					best = {0};
		exg_pair   *p = NULL;
		size_t		n = 0;
		peer_answer ans = {0},
					a;
		bool		same;
		double		cpu = 0;

		exg_join_options_default(&o);
		o.device = EXG_DEVICE_CPU;
		o.worker_threads = threads;
		for (int r = 0; r < peer_repeat; r++)
		{
			double		c0 = process_cpu_seconds();

			exg_join_pairs_free(p);
			if ((p = join_or_die(A, B, &o, &n, &st)) == NULL && n > 0)
				break;
			c0 = process_cpu_seconds() - c0;
			if (r == 0 || st.total_ns < best.total_ns)
				best = st;
			if (r == 0 || c0 < cpu)
				cpu = c0;
		}
		for (int r = 0; r < peer_repeat && strcmp(peer_bin, "-") != 0; r++)
		{
			if (!run_peer(input, threads, &a))
			{
				printf("| %d | peer failed: %s |\n", threads, peer_bin);
				test_failures++;
				break;
			}
			/* best wall time and best CPU time, each over the runs */
			if (r > 0)
			{
				double		c = a.cpu_seconds < ans.cpu_seconds ? a.cpu_seconds : ans.cpu_seconds;

				a.cpu_seconds = ans.cpu_seconds = c;
			}
			if (r == 0 || a.seconds < ans.seconds)
			{
				free(ans.p);
				ans = a;
			}
			else
				free(a.p);
		}
		same = ans.p && same_pairs(p, n, ans.p, ans.n);
		test_failures += !same && ans.p;
		printf("| %d | %.3f | %.3f | **%.2f** | %.3f | %.3f | %.2f | %llu / %llu | %zu | %016llx | %s |\n",
			   threads, best.total_ns / 1e9, ans.seconds, best.total_ns / 1e9 / ans.seconds,
			   cpu, ans.cpu_seconds, cpu / ans.cpu_seconds,
			   (unsigned long long) best.candidates, ans.candidates, n,
			   (unsigned long long) pairs_hash(p, n), same ? "yes" : "**NO**");
		if (!same && ans.p)
			printf("\n**pair lists differ: exactgpu %zu pairs, CGAL %zu**\n\n", n, ans.n);
		if (run == 0)
		{
			wall1[0] = best.total_ns / 1e9;
			wall1[1] = ans.seconds;
		}
		else
			printf("\nscaling, 1 -> %d threads (wall): exactgpu **%.1fx**, CGAL %.1fx\n", threads,
				   wall1[0] / (best.total_ns / 1e9), ans.seconds > 0 ? wall1[1] / ans.seconds : 0);
		fflush(stdout);
		exg_join_pairs_free(p);
		free(ans.p);
	}
	remove(input);
}

/*
 * A soup: n triangles a side, each with its own three vertices (no vertex
 * shared), centres uniform in a 100-unit cube, vertices within 2 of the
 * centre: about 30 candidates per triangle, like the mesh pair.
 */
static void
make_soup(owned_set *o, uint32_t n, uint64_t seed)
{
	uint64_t	x = seed;

	owned_alloc(o, 3 * n, n, 3);
	for (uint32_t i = 0; i < n; i++)
	{
		double		c[3];

		for (int k = 0; k < 3; k++)
		{
			/* splitmix64: deterministic on every platform */
			uint64_t	z = (x += 0x9E3779B97F4A7C15ULL);

			z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
			z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
			c[k] = 100.0 * (double) ((z ^ (z >> 31)) >> 11) / 9007199254740992.0;
		}
		for (int v = 0; v < 3; v++)
			for (int k = 0; k < 3; k++)
			{
				uint64_t	z = (x += 0x9E3779B97F4A7C15ULL);

				z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
				z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
				o->xyz[9 * (size_t) i + 3 * v + k] =
					c[k] + 4.0 * ((double) ((z ^ (z >> 31)) >> 11) / 9007199254740992.0 - 0.5);
			}
		for (int v = 0; v < 3; v++)
			o->idx[3 * (size_t) i + v] = 3 * i + v;
	}
}

/* The full comparison for one dataset. */
static void
run_dataset(const char *name, const exg_prim_set *A, const exg_prim_set *B, int repeat,
			uint32_t cpu_stride, size_t memory_limit, bool cpu_full)
{
	exg_join_options o;
	exg_join_stats st,
				best = {0};
	exg_pair   *gpu = NULL,
			   *p;
	size_t		ngpu = 0,
				n;
	double		times[64];
	int			r;

	printf("\n## %s: %u x %u primitives\n", name, A->nprims, B->nprims);
	compare_first_stages(A, B, repeat);
	if (stages_only)
		return;
	exg_join_options_default(&o);
	o.device = EXG_DEVICE_GPU;
	o.gpu_memory_limit = memory_limit;

	/* warm-up: the first call pays for the CUDA context and the pinned buffers */
	p = join_or_die(A, B, &o, &n, &st);
	printf("\nfirst GPU run (context creation, pinned allocation included): %.1f ms\n",
		   st.total_ns / 1e6);
	exg_join_pairs_free(p);
	for (r = 0; r < repeat && r < 64; r++)
	{
		p = join_or_die(A, B, &o, &n, &st);
		times[r] = st.total_ns / 1e6;
		if (r == 0 || st.total_ns < best.total_ns)
			best = st;
		if (r == repeat - 1)
		{
			gpu = malloc(sizeof(exg_pair) * (n + 1));
			memcpy(gpu, p, sizeof(exg_pair) * n);
			ngpu = n;
		}
		exg_join_pairs_free(p);
	}
	{
		double		median = median_sorted(times, (size_t) r);

		printf("\nwarm GPU runs: %d, best %.3f ms, median %.3f ms\n", r, times[0], median);
	}
	print_stats("GPU, float intervals, reference-cell rule (best run)", &best, ngpu);

	o.filter = EXG_FILTER_DOUBLE;
	p = join_or_die(A, B, &o, &n, &st);
	print_stats("GPU, double intervals only", &st, n);
	if (!same_pairs(p, n, gpu, ngpu))
	{
		printf("\n**MISMATCH: double-filter GPU run differs**\n");
		test_failures++;
	}
	exg_join_pairs_free(p);
	o.filter = EXG_FILTER_FLOAT;
	o.dedupe = EXG_DEDUPE_SORT;
	p = join_or_die(A, B, &o, &n, &st);
	print_stats("GPU, float intervals, every shared cell + sort/unique dedupe", &st, n);
	if (!same_pairs(p, n, gpu, ngpu))
	{
		printf("\n**MISMATCH: sort-dedupe GPU run differs**\n");
		test_failures++;
	}
	exg_join_pairs_free(p);
	o.dedupe = EXG_DEDUPE_REFERENCE_CELL;

	if (cpu_full)
	{
		exg_join_options c = o;

		c.device = EXG_DEVICE_CPU;
		p = join_or_die(A, B, &c, &n, &st);
		print_stats("CPU, all cores (same engine, OpenMP)", &st, n);
		printf("\nGPU and CPU pair sets identical: **%s** (%zu pairs)\n",
			   same_pairs(p, n, gpu, ngpu) ? "yes" : "NO", n);
		if (!same_pairs(p, n, gpu, ngpu))
			test_failures++;
		printf("\nGPU speed-up over the CPU join on all %s: %.1fx (engine total)\n",
			   st.device_name, st.total_ns / (double) best.total_ns);
		exg_join_pairs_free(p);
	}

	if (cpu_stride > 0)
	{
		owned_set	sub;
		exg_join_options c = o;
		double		cpu_ns_per_test,
					gpu_ns_per_test;

		subset(&sub, A, cpu_stride);
		c.device = EXG_DEVICE_CPU;
		c.worker_threads = 1;
		p = join_or_die(&sub.s, B, &c, &n, &st);
		cpu_ns_per_test = st.phase_ns[EXG_PHASE_TEST] / (double) (st.candidates ? st.candidates : 1);
		gpu_ns_per_test = best.phase_ns[EXG_PHASE_TEST] / (double) (best.candidates ? best.candidates : 1);
		printf("\none-thread CPU exact test step on every %u-th left primitive: %llu candidates in %.1f ms = %.1f ns/test; GPU test step %.4f ns/test: **%.0fx**\n",
			   cpu_stride, (unsigned long long) st.candidates, st.phase_ns[EXG_PHASE_TEST] / 1e6,
			   cpu_ns_per_test, gpu_ns_per_test, cpu_ns_per_test / gpu_ns_per_test);
		exg_join_pairs_free(p);
		owned_free(&sub);
	}
	free(gpu);
}

/* GPU join time against the grid resolution, to tune the automatic choice. */
static void
grid_sweep(const exg_prim_set *A, const exg_prim_set *B)
{
	double		factors[] = {0.03, 0.06, 0.125, 0.25, 0.5, 1, 2};
	uint64_t	n = (uint64_t) A->nprims + B->nprims;

	printf("\n### grid resolution sweep (GPU, float)\n\n| target cells | grid | entries | cell pairs | candidates | grid ms | cull ms | test ms | total ms |\n|---:|---|---:|---:|---:|---:|---:|---:|---:|\n");
	for (size_t f = 0; f <= sizeof(factors) / sizeof(factors[0]); f++)
	{
		exg_join_options o;
		exg_join_stats st;
		exg_pair   *p;
		size_t		np;

		exg_join_options_default(&o);
		o.device = EXG_DEVICE_GPU;
		o.grid_cells = f < sizeof(factors) / sizeof(factors[0]) ? (uint32_t) (factors[f] * n) : 0;
		p = join_or_die(A, B, &o, &np, &st);
		printf("| %s%u | %ux%ux%u | %llu | %llu | %llu | %.2f | %.2f | %.2f | %.2f |\n",
			   o.grid_cells ? "" : "auto ", o.grid_cells, st.grid_dims[0], st.grid_dims[1],
			   st.grid_dims[2], (unsigned long long) st.grid_entries,
			   (unsigned long long) st.cell_pairs, (unsigned long long) st.candidates,
			   st.phase_ns[EXG_PHASE_GRID] / 1e6, st.phase_ns[EXG_PHASE_CULL] / 1e6,
			   st.phase_ns[EXG_PHASE_TEST] / 1e6, st.total_ns / 1e6);
		exg_join_pairs_free(p);
	}
}

/* Large: tiles of the mesh pair, GPU in chunks, checked on tile 0 against the CPU. */
static void
run_large(const bench_mesh *m, const double *t, uint32_t copies, size_t memory_limit)
{
	double		spacing = 0;
	owned_set	A,
				B;
	exg_join_options o;
	exg_join_stats st;
	exg_pair   *p,
			   *q;
	size_t		n,
				nq,
				n0 = 0;
	double		lo = INFINITY,
				hi = -INFINITY;

	for (uint32_t v = 0; v < m->nverts; v++)
	{
		lo = fmin(lo, m->xyz[3 * v]);
		hi = fmax(hi, m->xyz[3 * v]);
	}
	spacing = 2 * (hi - lo) + fabs(t[0]);
	tile_mesh(&A, m, copies, spacing, (double[3]) {0, 0, 0});
	tile_mesh(&B, m, copies, spacing, t);
	printf("\n## large: %u copies, %u x %u triangles, GPU memory limit %.1f GB\n", copies,
		   A.s.nprims, B.s.nprims, memory_limit / 1e9);
	exg_join_options_default(&o);
	o.device = EXG_DEVICE_GPU;
	o.gpu_memory_limit = memory_limit;
	o.cull = EXG_CULL_CELL_PAIRS;
	p = join_or_die(&A.s, &B.s, &o, &n, &st);
	print_stats("GPU, chunked, every pair sharing a cell as first stage", &st, n);
	o.cull = EXG_CULL_BOX_JOIN;
	q = join_or_die(&A.s, &B.s, &o, &nq, &st);
	print_stats("GPU, chunked, the box join as first stage", &st, nq);
	printf("\nsame pairs with both first stages: **%s**\n", same_pairs(p, n, q, nq) ? "yes" : "NO");
	if (!same_pairs(p, n, q, nq))
		test_failures++;
	exg_join_pairs_free(q);
	o.cull = EXG_CULL_AUTO;

	/* The copies are far apart: the tile-0 pairs are the join of tile 0 alone. */
	{
		owned_set	A0,
					B0;
		exg_join_options c = o;
		exg_join_stats cs;

		tile_mesh(&A0, m, 1, spacing, (double[3]) {0, 0, 0});
		tile_mesh(&B0, m, 1, spacing, t);
		c.device = EXG_DEVICE_CPU;
		q = join_or_die(&A0.s, &B0.s, &c, &nq, &cs);
		while (n0 < n && p[n0].a < m->ntris)
			n0++;
		bool		ok = n0 == nq;

		for (size_t i = 0; ok && i < nq; i++)
			ok = p[i].a == q[i].a && p[i].b == q[i].b;
		printf("\nsample check, tile 0 (%zu pairs): GPU chunked run equals the CPU join: **%s**; every tile found the same number of pairs: **%s**\n",
			   nq, ok ? "yes" : "NO", n == nq * copies ? "yes" : "NO");
		if (!ok || n != nq * copies)
			test_failures++;
		exg_join_pairs_free(q);
		owned_free(&A0);
		owned_free(&B0);
	}
	/* The out-of-memory path: no single device allocation may exceed 1 GB. */
	setenv("EXACTGPU_TEST_ALLOC_LIMIT", "1000000000", 1);
	q = join_or_die(&A.s, &B.s, &o, &nq, &st);
	unsetenv("EXACTGPU_TEST_ALLOC_LIMIT");
	print_stats("GPU, every device allocation above 1 GB made to fail (shrink and split)", &st, nq);
	printf("\nsame pairs as the unconstrained GPU run: **%s**\n", same_pairs(p, n, q, nq) ? "yes" : "NO");
	if (!same_pairs(p, n, q, nq))
		test_failures++;
	exg_join_pairs_free(q);
	exg_join_pairs_free(p);
	owned_free(&A);
	owned_free(&B);
}

int
main(int argc, char **argv)
{
	const char *mesh_path = ".data/armadillo-tet.exgm";
	const char *datasets = "mesh,mine,large";
	int			repeat = 5;
	uint32_t	copies = 73;
	size_t		memory_limit = 0,
				large_limit = (size_t) 16 << 30;
	double		t[3] = {1.5, 1.0, 0.5};	/* translation of the second copy */
	bench_mesh	mesh;
	time_t		now = time(NULL);
	char		date[32];
	exg_error	err = {0};
	bool		sweep = false;
	uint32_t	soup_n = 500000;

	for (int i = 1; i < argc; i++)
	{
		if (!strcmp(argv[i], "--grid-sweep"))
		{
			sweep = true;
			continue;
		}
		if (!strcmp(argv[i], "--stages-only"))
		{
			stages_only = true;
			continue;
		}
		if (!strcmp(argv[i], "--peer") && i + 1 < argc)
			peer_bin = argv[++i];
		else if (!strcmp(argv[i], "--threads") && i + 1 < argc)
			peer_threads = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--peer-repeat") && i + 1 < argc)
			peer_repeat = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--soup") && i + 1 < argc)
			soup_n = (uint32_t) atoi(argv[++i]);
		else if (!strcmp(argv[i], "--mesh") && i + 1 < argc)
			mesh_path = argv[++i];
		else if (!strcmp(argv[i], "--datasets") && i + 1 < argc)
			datasets = argv[++i];
		else if (!strcmp(argv[i], "--repeat") && i + 1 < argc)
			repeat = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--copies") && i + 1 < argc)
			copies = (uint32_t) atoi(argv[++i]);
		else if (!strcmp(argv[i], "--large-memory-limit") && i + 1 < argc)
			large_limit = (size_t) atof(argv[++i]);
		else if (!strcmp(argv[i], "--translate") && i + 3 < argc)
		{
			t[0] = atof(argv[++i]);
			t[1] = atof(argv[++i]);
			t[2] = atof(argv[++i]);
		}
		else
		{
			fprintf(stderr, "usage: bench_join [--mesh F] [--datasets mesh,mine,large] [--repeat N] [--copies N] [--large-memory-limit BYTES] [--translate X Y Z] [--grid-sweep] [--stages-only] [--peer CGAL_BIN [--threads N] [--peer-repeat N] [--soup N]]\n");
			return 2;
		}
	}
	strftime(date, sizeof(date), "%Y-%m-%d", gmtime(&now));
	printf("# exactgpu engine benchmark, %s\n\n", date);
	printf("GPU build: %s; usable GPUs: %d %s\n", exg_gpu_build_info(),
		   exg_gpu_device_count(&err), err.message);

	if (strstr(datasets, "mesh") || strstr(datasets, "large"))
	{
		if (mesh_read_bin(mesh_path, &mesh) != 0)
		{
			fprintf(stderr, "cannot read %s (run bench/prepare-data.sh)\n", mesh_path);
			return 1;
		}
	}
	if (strstr(datasets, "mesh"))
	{
		owned_set	A,
					B;

		tile_mesh(&A, &mesh, 1, 0, (double[3]) {0, 0, 0});
		tile_mesh(&B, &mesh, 1, 0, t);
		printf("\nmesh: %s (%u vertices), second copy translated by (%g, %g, %g)\n", mesh_path,
			   mesh.nverts, t[0], t[1], t[2]);
		if (peer_bin)
			run_peer_dataset("mesh (tetrahedralized armadillo vs translated copy)", &A.s, &B.s);
		else if (sweep)
			grid_sweep(&A.s, &B.s);
		if (!peer_bin)
			run_dataset("mesh (tetrahedralized armadillo vs translated copy)", &A.s, &B.s, repeat,
					50, memory_limit, true);
		owned_free(&A);
		owned_free(&B);
	}
	if (strstr(datasets, "mine"))
	{
		mine_params mp;
		mine	   *m = NULL;
		char		merr[256];
		owned_set	S,
					T;
		size_t		k = 0;

		/* BENCH_MINE_SIZE: a minegen size (paper by default; large: 10^7 triangles) */
		mine_params_for_size(&mp, getenv("BENCH_MINE_SIZE") ? getenv("BENCH_MINE_SIZE") : "paper", 1);
		if (mine_generate(&mp, &m, merr, sizeof(merr)) != 0)
		{
			fprintf(stderr, "mine: %s\n", merr);
			return 1;
		}
		owned_alloc(&S, (uint32_t) m->n_hole_vertices, (uint32_t) m->n_segments, 2);
		memcpy(S.xyz, m->hole_xyz, sizeof(double) * 3 * m->n_hole_vertices);
		for (size_t h = 0; h < m->n_holes; h++)
			for (size_t v = 0; v + 1 < m->holes[h].nvertices; v++)
			{
				S.idx[2 * k] = (uint32_t) (m->holes[h].first_vertex + v);
				S.idx[2 * k + 1] = (uint32_t) (m->holes[h].first_vertex + v + 1);
				k++;
			}
		owned_alloc(&T, (uint32_t) m->n_body_vertices, (uint32_t) m->n_triangles, 3);
		memcpy(T.xyz, m->body_xyz, sizeof(double) * 3 * m->n_body_vertices);
		for (size_t b = 0; b < m->n_bodies; b++)
			for (size_t i = 0; i < 3 * m->bodies[b].ntriangles; i++)
				T.idx[3 * m->bodies[b].first_triangle + i] =
					m->body_tri[3 * m->bodies[b].first_triangle + i] + (uint32_t) m->bodies[b].first_vertex;
		printf("\nmine: %zu holes, %zu segments, %zu bodies, %zu triangles (test/fixtures/mine.c, size \"paper\", seed 1)\n",
			   m->n_holes, m->n_segments, m->n_bodies, m->n_triangles);
		if (peer_bin)
			run_peer_dataset("mine (drill-hole segments vs ore-body triangles, UTM)", &S.s, &T.s);
		else
			run_dataset("mine (drill-hole segments vs ore-body triangles, UTM)", &S.s, &T.s, repeat, 1,
						memory_limit, true);
		owned_free(&S);
		owned_free(&T);
		mine_free(m);
	}
	if (strstr(datasets, "soup"))
	{
		owned_set	S,
					T;

		make_soup(&S, soup_n, 1);
		make_soup(&T, soup_n, 2);
		printf("\nsoup: %u random triangles a side, no shared vertices (seeds 1, 2)\n", soup_n);
		if (peer_bin)
			run_peer_dataset("soup (random triangles, no shared vertices)", &S.s, &T.s);
		owned_free(&S);
		owned_free(&T);
	}
	if (strstr(datasets, "large") && !peer_bin)
		run_large(&mesh, t, copies, large_limit);

	printf("\n%s\n", test_failures ? "**FAILURES: see above**" : "All GPU and CPU results identical.");
	return test_failures ? 1 : 0;
}
