/*
 * bench_overlay.c — the 2D half of the papers on the engine alone:
 *
 *  1. map overlay at the dissertation's hardest scale: two layers of about
 *     3.7M segments (a jittered lattice of map edges, and the same rotated
 *     by 0.1 degrees about its centre), every intersecting red-blue pair
 *     decided exactly;
 *  2. box joins (Lo et al.'s PRI-GC setting): two sets of N boxes in the
 *     unit square at low, medium and high coverage (sum of box areas over
 *     the square's area), every pair of closed boxes that meet, each once:
 *     first through exg_join's boxes_only path, then through the dedicated
 *     exg_box_join (tiled kernel, pairs streamed to a sink), whose pair set
 *     must equal the former's; with a sweep of its grid size on the GPU.
 *
 * GPU (when built with CUDA and a device is present) and CPU, pair sets
 * compared.   bench_overlay [lattice_side] [boxes_per_side] [repeat] [overlay_grid_cells]
 * (lattice_side 0 skips the overlay)
 *
 * overlay_grid_cells overrides the automatic grid of the overlay (coarser
 * cells give more candidate pairs: the dissertation's 216M came from its
 * own grid; ours culls to far fewer).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "box_join.h"
#include "box_join_internal.h"
#include "gpu.h"
#include "join.h"
#include "stats.h"
#include "harness.h"

static test_rng rng = {0xbb67ae8584caa73bull};

static double
uniform(void)
{
	return rng_uniform(&rng);
}


static void
print_join(const char *dev, const char *cull, uint64_t wall_ns, const exg_join_stats *st,
		   size_t n)
{
	printf("  %s %-10s %9.1f ms end to end (%s): %llu pairs sharing a cell, %llu with meeting boxes, %zu pairs, undecided %llu -> %llu -> GMP %llu; grid %ux%ux%u\n",
		   dev, cull, wall_ns / 1e6, st->device_name, (unsigned long long) st->cell_pairs,
		   (unsigned long long) st->candidates, n, (unsigned long long) st->unknown_first,
		   (unsigned long long) st->unknown_second, (unsigned long long) st->exact_pairs,
		   st->grid_dims[0], st->grid_dims[1], st->grid_dims[2]);
	printf("       phases (ms): upload %.1f classify %.1f grid %.1f cull %.1f test %.1f refine %.1f sort %.1f download %.1f exact %.1f merge %.1f\n",
		   st->phase_ns[0] / 1e6, st->phase_ns[1] / 1e6, st->phase_ns[2] / 1e6,
		   st->phase_ns[3] / 1e6, st->phase_ns[4] / 1e6, st->phase_ns[5] / 1e6,
		   st->phase_ns[6] / 1e6, st->phase_ns[7] / 1e6, st->phase_ns[8] / 1e6,
		   st->phase_ns[9] / 1e6);
}

/*
 * The join on the GPU (repeat times) and the CPU (once), each with both
 * first stages (every pair sharing a cell, and the box join; boxes_only
 * has only the former); every pair set must equal the first. *keep (if
 * given) gets the first pair set.
 */
static void
run(const char *name, const exg_prim_set *A, const exg_prim_set *B, bool boxes, int repeat,
	uint32_t grid_cells, exg_pair **keep, size_t *nkeep)
{
	static const exg_cull_stage culls[2] = {EXG_CULL_CELL_PAIRS, EXG_CULL_BOX_JOIN};
	static const char *cull_name[2] = {"cell pairs", "box join"};
	exg_join_options opt;
	exg_join_stats st;
	exg_error	err;
	exg_pair   *ref = NULL;
	size_t		nref = 0;
	int			differ = 0;
	bool		have_gpu = exg_gpu_device_count(&err) > 0;

	printf("%s: %u x %u\n", name, A->nprims, B->nprims);
	exg_join_options_default(&opt);
	opt.boxes_only = boxes;
	opt.grid_cells = grid_cells;
	for (int dev = have_gpu ? 0 : 1; dev < 2; dev++)
		for (int c = 0; c < (boxes ? 1 : 2); c++)
		{
			exg_pair   *got = NULL;
			size_t		ngot = 0;

			opt.device = dev ? EXG_DEVICE_CPU : EXG_DEVICE_GPU;
			opt.cull = culls[c];
			for (int r = 0; r < (dev ? 1 : repeat); r++)
			{
				uint64_t	t0 = exg_now_ns();

				exg_join_pairs_free(got);
				got = NULL;
				if (exg_join(A, B, &opt, &got, &ngot, &st, &err) != EXG_OK)
				{
					printf("FAIL %s %s: %s\n", dev ? "CPU" : "GPU", cull_name[c], err.message);
					test_failures++;
					break;
				}
				print_join(dev ? "CPU" : "GPU", cull_name[c], exg_now_ns() - t0, &st, ngot);
			}
			if (got == NULL)
				continue;
			if (ref == NULL)
			{
				/* a copy: the GPU lends its pinned buffer to one result at a time */
				ref = malloc(sizeof(exg_pair) * (ngot + 1));
				memcpy(ref, got, sizeof(exg_pair) * ngot);
				nref = ngot;
				exg_join_pairs_free(got);
				continue;
			}
			if (ngot != nref || memcmp(got, ref, ngot * sizeof(exg_pair)) != 0)
			{
				printf("  %s %s: pair set DIFFERS from the first run's\n", dev ? "CPU" : "GPU",
					   cull_name[c]);
				test_failures++;
				differ++;
			}
			exg_join_pairs_free(got);
		}
	printf("  pair sets of all runs %s\n", differ ? "NOT identical" : "identical");
	if (keep)
	{
		*keep = ref;
		*nkeep = nref;
	}
	else
		exg_join_pairs_free(ref);
}

/* ---- exg_box_join ---- */

/* A sink that only counts (the engine's own speed), or one that keeps the pairs. */
typedef struct pair_sink
{
	exg_pair   *p;				/* NULL: count only */
	size_t		n,
				cap;
} pair_sink;

static exg_status
sink_pairs(void *arg, const exg_pair *pairs, size_t n)
{
	pair_sink  *k = arg;

	if (k->p && k->n + n > k->cap)
	{
		exg_pair   *q = realloc(k->p, sizeof(exg_pair) * (k->cap = 2 * (k->n + n)));

		if (q == NULL)
			return EXG_ERR_NOMEM;
		k->p = q;
	}
	if (k->p)
		memcpy(k->p + k->n, pairs, sizeof(exg_pair) * n);
	k->n += n;
	return EXG_OK;
}

/* Sort pairs by (a, b) in linear time: buckets by a (a < na), then by b. */
static void
sort_pairs(exg_pair *p, size_t n, uint32_t na)
{
	size_t	   *start = calloc((size_t) na + 1, sizeof(size_t));
	exg_pair   *tmp = malloc(sizeof(exg_pair) * (n + 1));

	for (size_t i = 0; i < n; i++)
		start[p[i].a + 1]++;
	for (uint32_t a = 0; a < na; a++)
		start[a + 1] += start[a];
	for (size_t i = 0; i < n; i++)
		tmp[start[p[i].a]++] = p[i];
	for (size_t i = 0, a = 0; a < na; a++)
	{
		size_t		end = start[a];

		for (size_t j = i + 1; j < end; j++)	/* a few pairs per box */
		{
			exg_pair	v = tmp[j];
			size_t		k = j;

			while (k > i && tmp[k - 1].b > v.b)
			{
				tmp[k] = tmp[k - 1];
				k--;
			}
			tmp[k] = v;
		}
		i = end;
	}
	memcpy(p, tmp, sizeof(exg_pair) * n);
	free(tmp);
	free(start);
}

static void
print_box_stats(const char *dev, double ms, const exg_join_stats *st, const char *note)
{
	printf("  %s %9.1f ms%s: %llu comparisons, %llu past the cell rule, %llu pairs, %u chunks (%u re-run), grid %ux%u\n",
		   dev, ms, note, (unsigned long long) st->cell_pairs, (unsigned long long) st->candidates,
		   (unsigned long long) st->hits, st->waves, st->splits, st->grid_dims[0], st->grid_dims[1]);
	printf("       phases (ms): upload %.1f summary %.1f grid %.1f schedule %.1f kernels %.1f download wait %.1f sink %.1f\n",
		   st->phase_ns[EXG_PHASE_UPLOAD] / 1e6, st->phase_ns[EXG_PHASE_CLASSIFY] / 1e6,
		   st->phase_ns[EXG_PHASE_GRID] / 1e6, st->phase_ns[EXG_PHASE_CULL] / 1e6,
		   st->phase_ns[EXG_PHASE_TEST] / 1e6, st->phase_ns[EXG_PHASE_DOWNLOAD] / 1e6,
		   st->phase_ns[EXG_PHASE_MERGE] / 1e6);
}

/* One exg_box_join; the pairs compared with ref when the sink kept them. */
static double
box_join_once(const exg_box_set *A, const exg_box_set *B, exg_join_options *opt, pair_sink *k,
			  exg_join_stats *st, const exg_pair *ref, size_t nref, const char *what)
{
	exg_error	err;
	uint64_t	t0 = exg_now_ns();
	double		ms;

	k->n = 0;
	if (exg_box_join(A, B, 2, opt, sink_pairs, k, st, &err) != EXG_OK)
	{
		printf("FAIL %s: %s\n", what, err.message);
		test_failures++;
		return 0;
	}
	ms = (exg_now_ns() - t0) / 1e6;
	if (k->p)
	{
		bool		same;

		sort_pairs(k->p, k->n, A->n);
		same = k->n == nref && memcmp(k->p, ref, sizeof(exg_pair) * nref) == 0;
		printf("  %s: pair set %s exg_join boxes_only's (%zu pairs)\n", what,
			   same ? "equal to" : "DIFFERS from", k->n);
		test_failures += !same;
	}
	return ms;
}

/*
 * exg_box_join on the prim sets' boxes (vertex 2i = low corner, 2i + 1 =
 * high): the GPU warm (counting sink, pinned input), once from pageable
 * input, once keeping the pairs to compare; a sweep of grid sizes; the CPU.
 */
static void
run_box_join(const exg_prim_set *PA, const exg_prim_set *PB, const exg_pair *ref, size_t nref,
			 int repeat)
{
	const exg_prim_set *P[2] = {PA, PB};
	double	   *box[2];
	exg_box_set S[2];
	exg_join_options opt;
	exg_join_stats st;
	exg_error	err;
	pair_sink	count = {NULL, 0, 0},
				keep = {malloc(sizeof(exg_pair) * (nref + 1024)), 0, nref + 1024};
	bool		have_gpu = exg_gpu_device_count(&err) > 0;

	memset(keep.p, 0, sizeof(exg_pair) * keep.cap);	/* fault the pages in before timing */
	for (int s = 0; s < 2; s++)
	{
		box[s] = exg_host_alloc(sizeof(double) * 4 * (size_t) P[s]->nprims);
		for (uint32_t i = 0; i < P[s]->nprims; i++)
		{
			const double *lo = &P[s]->xyz[6 * (size_t) i];

			box[s][4 * (size_t) i] = lo[0];
			box[s][4 * (size_t) i + 1] = lo[1];
			box[s][4 * (size_t) i + 2] = lo[3];
			box[s][4 * (size_t) i + 3] = lo[4];
		}
		S[s] = (exg_box_set) {box[s], P[s]->nprims};
	}
	printf("  exg_box_join:\n");
	exg_join_options_default(&opt);
	if (have_gpu)
	{
		double	   *pageable[2];
		exg_box_set SP[2];

		opt.device = EXG_DEVICE_GPU;
		box_join_once(&S[0], &S[1], &opt, &count, &st, NULL, 0, "warm-up");
		for (int r = 0; r < repeat; r++)
			print_box_stats("GPU", box_join_once(&S[0], &S[1], &opt, &count, &st, NULL, 0, "GPU"), &st,
							" (pinned input, counting sink)");
		for (int s = 0; s < 2; s++)
		{
			pageable[s] = malloc(sizeof(double) * 4 * (size_t) S[s].n);
			memcpy(pageable[s], box[s], sizeof(double) * 4 * (size_t) S[s].n);
			SP[s] = (exg_box_set) {pageable[s], S[s].n};
		}
		print_box_stats("GPU", box_join_once(&SP[0], &SP[1], &opt, &count, &st, NULL, 0, "GPU"), &st,
						" (pageable input, counting sink)");
		{
			/* what bounds the pageable upload: host copies into pinned memory */
			size_t		bytes = sizeof(double) * 4 * (size_t) S[0].n;
			uint64_t	t0 = exg_now_ns(),
						t1;

			exg_parallel_memcpy(box[0], pageable[0], bytes, 0);
			t1 = exg_now_ns();
			memcpy(box[0], pageable[0], bytes);
			printf("       host copy pageable -> pinned: %.1f GB/s on all threads, %.1f GB/s on one\n",
				   bytes / (double) (t1 - t0), bytes / (double) (exg_now_ns() - t1));
		}
		print_box_stats("GPU", box_join_once(&S[0], &S[1], &opt, &keep, &st, ref, nref, "GPU"), &st,
						" (pinned input, sink copying the pairs)");
		free(pageable[0]);
		free(pageable[1]);

		/* the grid: the automatic choice against fixed cell counts */
		printf("  GPU grid sweep (ms, counting sink):");
		for (int g = 0; g < 7; g++)
		{
			static const double per_cell[7] = {0, 256, 64, 32, 16, 8, 4};	/* boxes per cell */

			double		ms;

			opt.grid_cells = g ? (uint32_t) (S[0].n / per_cell[g]) : 0;
			box_join_once(&S[0], &S[1], &opt, &count, &st, NULL, 0, "GPU sweep");
			ms = box_join_once(&S[0], &S[1], &opt, &count, &st, NULL, 0, "GPU sweep");
			printf(" %s%ux%u %.1f%s", g ? "" : "auto ", st.grid_dims[0], st.grid_dims[1], ms,
				   g < 6 ? " |" : "\n");
		}
		opt.grid_cells = 0;
	}
	opt.device = EXG_DEVICE_CPU;
	print_box_stats("CPU", box_join_once(&S[0], &S[1], &opt, &keep, &st, ref, nref, "CPU"), &st,
					" (sink copying the pairs)");
	free(keep.p);
	exg_host_free(box[0]);
	exg_host_free(box[1]);
}

/* A jittered n x n lattice with its horizontal and vertical edges. */
static exg_prim_set
lattice(uint32_t n, double angle_deg, double **xyz_out, uint32_t **idx_out)
{
	size_t		nv = (size_t) n * n,
				ns = 2 * (size_t) n * (n - 1),
				k = 0;
	double	   *xyz = exg_host_alloc(sizeof(double) * 3 * nv);
	uint32_t   *idx = exg_host_alloc(sizeof(uint32_t) * 2 * ns);
	double		c = cos(angle_deg * M_PI / 180),
				s = sin(angle_deg * M_PI / 180),
				mid = (n - 1) / 2.0;
	test_rng	saved = rng;

	rng.state = 0x3c6ef372fe94f82bull;	/* the same lattice for both layers */
	for (uint32_t j = 0; j < n; j++)
		for (uint32_t i = 0; i < n; i++)
		{
			double		x = i + 0.6 * (uniform() - 0.5) - mid,
						y = j + 0.6 * (uniform() - 0.5) - mid;
			double	   *p = &xyz[3 * ((size_t) j * n + i)];

			p[0] = 500000 + 10 * (c * x - s * y);
			p[1] = 7000000 + 10 * (s * x + c * y);
			p[2] = 0;
		}
	rng = saved;
	for (uint32_t j = 0; j < n; j++)
		for (uint32_t i = 0; i < n; i++)
		{
			uint32_t	v = j * n + i;

			if (i + 1 < n)
			{
				idx[2 * k] = v;
				idx[2 * k + 1] = v + 1;
				k++;
			}
			if (j + 1 < n)
			{
				idx[2 * k] = v;
				idx[2 * k + 1] = v + n;
				k++;
			}
		}
	*xyz_out = xyz;
	*idx_out = idx;
	return (exg_prim_set) {xyz, (uint32_t) nv, idx, (uint32_t) ns, 2};
}

/* n boxes in the unit square whose areas add up to coverage. */
static exg_prim_set
boxes(uint32_t n, double coverage, double **xyz_out, uint32_t **idx_out)
{
	double	   *xyz = exg_host_alloc(sizeof(double) * 6 * (size_t) n);
	uint32_t   *idx = exg_host_alloc(sizeof(uint32_t) * 2 * (size_t) n);
	double		side = sqrt(coverage / n);	/* mean side; sides uniform in [0.5, 1.5] x */

	for (uint32_t i = 0; i < n; i++)
	{
		double	   *p = &xyz[6 * (size_t) i];
		double		w = side * (0.5 + uniform()),
					h = side * (0.5 + uniform());

		p[0] = uniform() * (1 - w);
		p[1] = uniform() * (1 - h);
		p[2] = 0;
		p[3] = p[0] + w;
		p[4] = p[1] + h;
		p[5] = 0;
		idx[2 * i] = 2 * i;
		idx[2 * i + 1] = 2 * i + 1;
	}
	*xyz_out = xyz;
	*idx_out = idx;
	return (exg_prim_set) {xyz, 2 * n, idx, n, 2};
}

int
main(int argc, char **argv)
{
	uint32_t	side = argc > 1 ? (uint32_t) atof(argv[1]) : 1361;
	uint32_t	nbox = argc > 2 ? (uint32_t) atof(argv[2]) : 5000000;
	int			repeat = argc > 3 ? atoi(argv[3]) : 3;
	uint32_t	cells = argc > 4 ? (uint32_t) atof(argv[4]) : 0;
	double	   *xa,
			   *xb;
	uint32_t   *ia,
			   *ib;

	if (side > 0)
	{
		exg_prim_set A = lattice(side, 0, &xa, &ia),
					B = lattice(side, 0.1, &xb, &ib);
		char		name[128];

		snprintf(name, sizeof(name), "map overlay (%ux%u jittered lattice, 10 m cells at UTM, and it rotated 0.1 deg)",
				 side, side);
		run(name, &A, &B, false, repeat, 0, NULL, NULL);
		if (cells)
		{
			snprintf(name, sizeof(name), "the same overlay on a coarse grid of %u cells", cells);
			run(name, &A, &B, false, repeat, cells, NULL, NULL);
		}
		exg_host_free(xa);
		exg_host_free(xb);
		exg_host_free(ia);
		exg_host_free(ib);
	}
	{
		static const double cov[3] = {0.1, 1, 4};
		static const char *label[3] = {"low", "medium", "high"};

		for (int c = 0; c < 3; c++)
		{
			exg_prim_set A = boxes(nbox, cov[c], &xa, &ia),
						B = boxes(nbox, cov[c], &xb, &ib);
			char		name[128];

			exg_pair   *ref = NULL;
			size_t		nref = 0;

			snprintf(name, sizeof(name), "\nbox join, %s coverage (%.1f)", label[c], cov[c]);
			run(name, &A, &B, true, repeat, 0, &ref, &nref);
			if (ref)
				run_box_join(&A, &B, ref, nref, repeat);
			exg_join_pairs_free(ref);
			exg_host_free(xa);
			exg_host_free(xb);
			exg_host_free(ia);
			exg_host_free(ib);
		}
	}
	printf("\n%s\n", test_failures ? "**FAILURES**" : "All GPU and CPU results identical.");
	return test_failures != 0;
}
