/*
 * test_memory_limits.c — joins under a user's grid setting stay within a
 * memory budget. The audit's case: exactgpu.grid_cells = 2^25 and a box
 * join of 300 x 300 boxes that each cover most of the domain entered every
 * box in ~12 million cells (~50 MB a box) and grew the backend to 19.7 GB.
 * Here the same join runs in a child process under an address-space limit
 * (RLIMIT_AS) of 512 MiB above what it maps at the start; it must give the
 * right pairs, not fail and not be killed. Also for the exact join (grid of
 * the cell-pairs stage), the exact join under the smallest budget
 * (memory_limit 1 byte: exg_memory_budget's floor), and the point-in-solid
 * join's column grid. Built with the GPU (test/engine/bin-gpu), the exact
 * and locate joins run on the device too, with a fine grid and a small
 * device budget (no address-space cap there: a CUDA context maps far more).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "box_join.h"
#include "gpu.h"
#include "harness.h"
#include "join.h"
#include "locate_join.h"

static exg_device case_device = EXG_DEVICE_CPU;
static size_t case_memory_limit = 0;	/* exg_join_options.memory_limit */

static int	failures;

static void
expect(const char *what, int ok)
{
	printf("%s %s\n", ok ? "ok  " : "FAIL", what);
	failures += !ok;
}

static size_t
vm_size(void)
{
	FILE	   *f = fopen("/proc/self/statm", "r");
	unsigned long pages = 0;

	if (f && fscanf(f, "%lu", &pages) != 1)
		pages = 0;
	if (f)
		fclose(f);
	return pages * (size_t) sysconf(_SC_PAGESIZE);
}

static exg_status
count_pairs(void *arg, const exg_pair *p, size_t n)
{
	(void) p;
	*(size_t *) arg += n;
	return EXG_OK;
}

/* n boxes of [i/n, 1000 + i/n] on each axis: all meet, each covers nearly all */
static double *
big_boxes(int n, int naxes, double shift)
{
	double	   *b = malloc(sizeof(double) * 2 * naxes * n);

	for (int i = 0; i < n; i++)
		for (int k = 0; k < naxes; k++)
		{
			b[2 * naxes * i + k] = shift + (double) i / n;
			b[2 * naxes * i + naxes + k] = shift + 1000 + (double) i / n;
		}
	return b;
}

/* Child: the box join; exit 0 when all n*n pairs came, 2 + status otherwise. */
static int
box_case(int n, uint32_t grid_cells)
{
	double	   *a = big_boxes(n, 2, 0),
			   *b = big_boxes(n, 2, 0.5);
	exg_box_set A = {a, (uint32_t) n},
				B = {b, (uint32_t) n};
	exg_join_options opt;
	exg_join_stats st;
	exg_error	err = {0};
	size_t		pairs = 0;
	exg_status	s;

	exg_join_options_default(&opt);
	opt.device = EXG_DEVICE_CPU;
	opt.grid_cells = grid_cells;
	opt.worker_threads = 2;
	s = exg_box_join(&A, &B, 2, &opt, count_pairs, &pairs, &st, &err);
	if (s != EXG_OK)
	{
		fprintf(stderr, "box join: %s\n", err.message);
		return 2 + s;
	}
	fprintf(stderr, "box join: %zu pairs, grid %dx%d, %llu entries\n", pairs, st.grid_dims[0],
			st.grid_dims[1], (unsigned long long) st.grid_entries);
	return pairs == (size_t) n * n ? 0 : 1;
}

/* Child: the exact join of n large triangles against n, cell-pairs stage. */
static int
exact_case(int n, uint32_t grid_cells)
{
	double	   *xyz = malloc(sizeof(double) * 9 * 2 * n);
	uint32_t   *idx = malloc(sizeof(uint32_t) * 3 * 2 * n);
	exg_prim_set A,
				B;
	exg_join_options opt;
	exg_join_stats st;
	exg_error	err = {0};
	exg_pair   *pairs = NULL;
	size_t		np = 0;
	exg_status	s;

	/* triangle i: in the plane z = 0 across the whole square, A shifted in x */
	for (int t = 0; t < 2 * n; t++)
	{
		double		d = (double) (t % n) / n + (t < n ? 0 : 0.25);
		double		v[9] = {d, d, 0, 1000 + d, d, 0, d, 1000 + d, 0};

		memcpy(&xyz[9 * t], v, sizeof(v));
		for (int k = 0; k < 3; k++)
			idx[3 * t + k] = (uint32_t) (3 * t + k);
	}
	A = (exg_prim_set) {xyz, (uint32_t) (6 * n), idx, (uint32_t) n, 3, 0, NULL, NULL};
	B = (exg_prim_set) {xyz, (uint32_t) (6 * n), idx + 3 * n, (uint32_t) n, 3, 0, NULL, NULL};
	exg_join_options_default(&opt);
	opt.device = case_device;
	opt.cull = EXG_CULL_CELL_PAIRS;
	opt.grid_cells = grid_cells;
	opt.worker_threads = 2;
	opt.memory_limit = case_memory_limit;
	opt.gpu_memory_limit = (size_t) 64 << 20;
	s = exg_join(&A, &B, &opt, &pairs, &np, &st, &err);
	if (s != EXG_OK)
	{
		fprintf(stderr, "exact join: %s\n", err.message);
		return 2 + s;
	}
	fprintf(stderr, "exact join: %zu pairs, grid %dx%dx%d\n", np, st.grid_dims[0],
			st.grid_dims[1], st.grid_dims[2]);
	exg_join_pairs_free(pairs);
	return np == (size_t) n * n ? 0 : 1;
}

/*
 * Child: n axis-aligned cubes [i/n, 1000 + i/n]^3, each over nearly all the
 * others' columns, and points on a 1/8 grid through them (many exactly on
 * faces, edges and corners). Exit 0 when the pairs are exactly those whose
 * point lies in the closed cube (compared as doubles: exact here).
 */
static int
locate_case(int n, uint32_t grid_cells)
{
	static const int f[12][3] = {{0, 2, 1}, {1, 2, 3}, {4, 5, 6}, {5, 7, 6}, {0, 1, 4}, {1, 5, 4},
	{2, 6, 3}, {3, 6, 7}, {0, 4, 2}, {2, 4, 6}, {1, 3, 5}, {3, 7, 5}};
	test_mesh	m = {0};
	test_rng	rng = {12345};
	int			npts = 4000;
	double	   *pts = malloc(sizeof(double) * 3 * npts);
	exg_solid_set S;
	exg_join_options opt;
	exg_join_stats st;
	exg_error	err = {0};
	exg_pair   *pairs = NULL;
	size_t		np = 0,
				expected = 0,
				k = 0;
	exg_status	s;

	for (int i = 0; i < n; i++)
	{
		double		lo = (double) i / n,
					hi = 1000 + (double) i / n;
		uint32_t	v[8];

		for (int c = 0; c < 8; c++)
			v[c] = test_mesh_vertex(&m, c & 1 ? hi : lo, c & 2 ? hi : lo, c & 4 ? hi : lo);
		for (int t = 0; t < 12; t++)
			test_mesh_triangle(&m, v[f[t][0]], v[f[t][1]], v[f[t][2]]);
		m.nbodies++;
	}
	for (int p = 0; p < npts; p++)
		for (int c = 0; c < 3; c++)
		{
			/* a 1/8 grid over [-8, 1008]: 0 and 1000 are among its values */
			pts[3 * p + c] = (double) ((int64_t) rng_below(&rng, 8129) - 64) / 8;
			if (p % 7 == 0 && c == 0)
				pts[3 * p + c] = 1000 + (double) rng_below(&rng, (uint64_t) n) / n;
		}
	S = (exg_solid_set) {{m.xyz, m.nv, m.tri, m.nt, 3, 0, NULL, NULL}, m.body, m.nbodies};
	exg_join_options_default(&opt);
	opt.device = case_device;
	opt.grid_cells = grid_cells;
	opt.worker_threads = 2;
	opt.memory_limit = case_memory_limit;
	opt.gpu_memory_limit = (size_t) 64 << 20;
	s = exg_locate_join(pts, (uint32_t) npts, &S, &opt, &pairs, &np, &st, &err);
	if (s != EXG_OK)
	{
		fprintf(stderr, "locate join: %s\n", err.message);
		return 2 + s;
	}
	fprintf(stderr, "locate join: %zu pairs, grid %dx%d, %llu entries\n", np, st.grid_dims[0],
			st.grid_dims[1], (unsigned long long) st.grid_entries);
	for (int p = 0; p < npts; p++)
		for (int i = 0; i < n; i++)
		{
			const double *q = &pts[3 * p];
			double		lo = (double) i / n,
						hi = 1000 + (double) i / n;
			bool		in = q[0] >= lo && q[0] <= hi && q[1] >= lo && q[1] <= hi &&
				q[2] >= lo && q[2] <= hi;

			if (!in)
				continue;
			expected++;
			/* pairs are sorted by (point, body): walk them alongside */
			if (k >= np || pairs[k].a != (uint32_t) p || pairs[k].b != (uint32_t) i)
			{
				fprintf(stderr, "locate join: missing or extra pair near (%d, %d)\n", p, i);
				return 1;
			}
			k++;
		}
	exg_join_pairs_free(pairs);
	return np == expected ? 0 : 1;
}

static void
run_capped(const char *what, int (*fn) (int, uint32_t), int n, uint32_t cells)
{
	pid_t		pid;
	int			status = 0;
	char		line[200];

	fflush(stdout);
	pid = fork();
	if (pid == 0)
	{
		struct rlimit lim;

		lim.rlim_cur = lim.rlim_max = vm_size() + ((size_t) 512 << 20);
		setrlimit(RLIMIT_AS, &lim);
		_exit(fn(n, cells));
	}
	waitpid(pid, &status, 0);
	snprintf(line, sizeof(line), "%s, %d x %d, grid_cells %u, 512 MiB cap: %s %d", what, n, n,
			 cells, WIFSIGNALED(status) ? "killed by signal" : "exit code",
			 WIFSIGNALED(status) ? WTERMSIG(status) : WEXITSTATUS(status));
	expect(line, WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

/* The same case in-process, without a cap (the GPU's), on the device. */
static void
run_device(const char *what, int (*fn) (int, uint32_t), int n, uint32_t cells)
{
	char		line[200];
	int			rc = fn(n, cells);

	snprintf(line, sizeof(line), "%s on the GPU, %d x %d, grid_cells %u, 64 MiB device budget: exit code %d",
			 what, n, n, cells, rc);
	expect(line, rc == 0);
}

int
main(void)
{
	exg_error	err = {0};

	run_capped("box join", box_case, 300, 1u << 25);
	run_capped("box join", box_case, 300, 0);
	run_capped("exact join", exact_case, 300, 1u << 25);
	run_capped("locate join", locate_case, 300, 1u << 25);
	run_capped("locate join", locate_case, 300, 0);
	/* the smallest budget there is: same pairs, only a coarser grid */
	case_memory_limit = 1;
	run_capped("exact join, memory_limit 1 byte", exact_case, 300, 1u << 25);
	run_capped("exact join, memory_limit 1 byte", exact_case, 300, 0);
	run_capped("locate join, memory_limit 1 byte", locate_case, 300, 1u << 25);
	case_memory_limit = 0;
	if (exg_gpu_device_count(&err) > 0)
	{
		case_device = EXG_DEVICE_GPU;
		run_device("exact join", exact_case, 300, 1u << 25);
		run_device("exact join", exact_case, 2000, 1u << 25);
		run_device("locate join", locate_case, 300, 1u << 25);
		run_device("locate join", locate_case, 300, 0);
		case_device = EXG_DEVICE_CPU;
	}
	else
		printf("skip GPU cases: no device\n");
	printf("test_memory_limits: %d failures\n", failures);
	return failures != 0;
}
