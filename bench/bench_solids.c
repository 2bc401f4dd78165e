/*
 * bench_solids.c — timings of the solid operations on the engine alone:
 * batch point-in-solid (assay samples x ore bodies) and the self-intersection
 * check of a closed mesh, on the GPU (when built with CUDA and a device is
 * present) and on the CPU, with the results compared.
 *
 * Data: the "paper" mine of test/fixtures/mine.c (12 closed ore bodies, 10^6
 * triangles, UTM coordinates) and N samples (default 10^7): half uniform in
 * the bodies' joint box, half in the boxes of single bodies, plus every
 * 97th body vertex (exactly on the surface).
 *
 *   bench_solids [points] [repeat] [cpu_points]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpu.h"
#include "locate_join.h"
#include "mine.h"
#include "self_intersect.h"
#include "stats.h"
#include "harness.h"

static test_rng rng = {0x1234abcd5678ef01ull};

static double
uniform(void)
{
	return rng_uniform(&rng);
}

static const char *phase_names[EXG_JOIN_PHASES] = {
	"upload", "classify", "grid", "cull", "test", "refine", "sort", "download", "exact", "merge"};

static void
print_stats(const char *what, const exg_join_stats *st, double ms)
{
	printf("  %-34s %10.1f ms  [%s] grid %ux%ux%u, %llu tests, %llu results, %llu undecided -> CPU exact\n",
		   what, ms, st->device_name, st->grid_dims[0], st->grid_dims[1], st->grid_dims[2],
		   (unsigned long long) st->candidates, (unsigned long long) st->hits,
		   (unsigned long long) st->exact_pairs);
	printf("  %-34s", "");
	for (int k = 0; k < EXG_JOIN_PHASES; k++)
		if (st->phase_ns[k])
			printf(" %s %.1f", phase_names[k], st->phase_ns[k] / 1e6);
	printf(" (ms)\n");
}

static int
same_pairs(const exg_pair *a, size_t na, const exg_pair *b, size_t nb)
{
	if (na != nb)
		return 0;
	for (size_t i = 0; i < na; i++)
		if (a[i].a != b[i].a || a[i].b != b[i].b)
			return 0;
	return 1;
}

int
main(int argc, char **argv)
{
	uint32_t	npts = argc > 1 ? (uint32_t) atof(argv[1]) : 10000000u;
	int			repeat = argc > 2 ? atoi(argv[2]) : 3;
	uint32_t	cpu_pts = argc > 3 ? (uint32_t) atof(argv[3]) : 1000000u;
	mine_params mp;
	mine	   *m = NULL;
	char		merr[256];
	exg_error	err = {0};
	int			failures = 0,
				have_gpu = exg_gpu_device_count(&err) > 0;
	uint32_t   *tri,
			   *body,
			   *face;
	double	   *pts;

	mine_params_for_size(&mp, "paper", 1);
	if (mine_generate(&mp, &m, merr, sizeof(merr)) != 0)
	{
		fprintf(stderr, "mine: %s\n", merr);
		return 1;
	}
	tri = malloc(sizeof(uint32_t) * 3 * m->n_triangles);
	body = malloc(sizeof(uint32_t) * m->n_triangles);
	face = malloc(sizeof(uint32_t) * m->n_triangles);
	for (size_t b = 0; b < m->n_bodies; b++)
		for (size_t t = 0; t < m->bodies[b].ntriangles; t++)
		{
			size_t		g = m->bodies[b].first_triangle + t;

			for (int k = 0; k < 3; k++)
				tri[3 * g + k] = m->body_tri[3 * g + k] + (uint32_t) m->bodies[b].first_vertex;
			body[g] = (uint32_t) b;
			face[g] = (uint32_t) g;
		}
	pts = malloc(sizeof(double) * 3 * (size_t) npts);
	{
		double		lo[3],
					hi[3];

		for (int k = 0; k < 3; k++)
		{
			lo[k] = m->bodies[0].bbox_min[k];
			hi[k] = m->bodies[0].bbox_max[k];
			for (size_t b = 1; b < m->n_bodies; b++)
			{
				lo[k] = m->bodies[b].bbox_min[k] < lo[k] ? m->bodies[b].bbox_min[k] : lo[k];
				hi[k] = m->bodies[b].bbox_max[k] > hi[k] ? m->bodies[b].bbox_max[k] : hi[k];
			}
		}
		for (uint32_t i = 0; i < npts; i++)
		{
			const mine_body *mb = &m->bodies[i % m->n_bodies];

			if (i % 97 == 0)
				memcpy(&pts[3 * (size_t) i], &m->body_xyz[3 * ((size_t) i % m->n_body_vertices)],
					   3 * sizeof(double));
			else
				for (int k = 0; k < 3; k++)
					pts[3 * (size_t) i + k] = i % 2 ? lo[k] + uniform() * (hi[k] - lo[k])
						: mb->bbox_min[k] + uniform() * (mb->bbox_max[k] - mb->bbox_min[k]);
		}
	}
	printf("mine \"paper\": %zu bodies, %zu triangles; %u sample points; GPU: %s\n\n",
		   m->n_bodies, m->n_triangles, npts, have_gpu ? "yes" : "no");

	exg_solid_set S = {{m->body_xyz, (uint32_t) m->n_body_vertices, tri, (uint32_t) m->n_triangles, 3},
	body, (uint32_t) m->n_bodies};
	exg_join_options opt;
	exg_join_stats st;
	exg_pair   *gpu_pairs = NULL,
			   *cpu_pairs = NULL;
	size_t		ngpu = 0,
				ncpu = 0;

	/* ---- point in solid ---- */
	printf("point in solid (%u points x %zu triangles, end to end incl. closure check):\n", npts, m->n_triangles);
	exg_join_options_default(&opt);
	if (have_gpu)
	{
		opt.device = EXG_DEVICE_GPU;
		for (int r = 0; r < repeat; r++)
		{
			uint64_t	t0 = exg_now_ns();

			exg_join_pairs_free(gpu_pairs);
			if (exg_locate_join(pts, npts, &S, &opt, &gpu_pairs, &ngpu, &st, &err) != EXG_OK)
			{
				printf("FAIL GPU locate: %s\n", err.message);
				return 1;
			}
			print_stats(r == 0 ? "GPU (first run, cold)" : "GPU", &st, (exg_now_ns() - t0) / 1e6);
		}
	}
	opt.device = EXG_DEVICE_CPU;
	{
		uint32_t	n = cpu_pts < npts ? cpu_pts : npts;
		uint64_t	t0 = exg_now_ns();

		if (exg_locate_join(pts, n, &S, &opt, &cpu_pairs, &ncpu, &st, &err) != EXG_OK)
		{
			printf("FAIL CPU locate: %s\n", err.message);
			return 1;
		}
		print_stats("CPU (first cpu_points points)", &st, (exg_now_ns() - t0) / 1e6);
		if (have_gpu)
		{
			size_t		k = 0;

			while (k < ngpu && gpu_pairs[k].a < n)
				k++;
			if (!same_pairs(gpu_pairs, k, cpu_pairs, ncpu))
			{
				printf("FAIL: GPU and CPU pairs differ on the first %u points\n", n);
				failures++;
			}
			else
				printf("  GPU and CPU pairs identical on the first %u points (%zu pairs)\n", n, ncpu);
		}
	}
	exg_join_pairs_free(gpu_pairs);
	exg_join_pairs_free(cpu_pairs);
	gpu_pairs = cpu_pairs = NULL;

	/* ---- self-intersection of the whole mesh ---- */
	exg_prim_set T = S.tris;

	printf("\nself-intersection check (%zu triangles, each its own face):\n", m->n_triangles);
	if (have_gpu)
	{
		opt.device = EXG_DEVICE_GPU;
		for (int r = 0; r < repeat; r++)
		{
			uint64_t	t0 = exg_now_ns();

			free(gpu_pairs);
			if (exg_self_intersections(&T, face, &opt, &gpu_pairs, &ngpu, &st, &err) != EXG_OK)
			{
				printf("FAIL GPU self-intersections: %s\n", err.message);
				return 1;
			}
			print_stats("GPU", &st, (exg_now_ns() - t0) / 1e6);
			printf("  improper face pairs: %zu\n", ngpu);
		}
	}
	opt.device = EXG_DEVICE_CPU;
	{
		uint64_t	t0 = exg_now_ns();

		if (exg_self_intersections(&T, face, &opt, &cpu_pairs, &ncpu, &st, &err) != EXG_OK)
		{
			printf("FAIL CPU self-intersections: %s\n", err.message);
			return 1;
		}
		print_stats("CPU", &st, (exg_now_ns() - t0) / 1e6);
		printf("  improper face pairs: %zu\n", ncpu);
		if (have_gpu && !same_pairs(gpu_pairs, ngpu, cpu_pairs, ncpu))
		{
			printf("FAIL: GPU and CPU self-intersections differ\n");
			failures++;
		}
	}
	free(gpu_pairs);
	free(cpu_pairs);
	free(tri);
	free(body);
	free(face);
	free(pts);
	mine_free(m);
	printf("\n%s\n", failures ? "**FAILURES**" : "All GPU and CPU results identical.");
	return failures != 0;
}
