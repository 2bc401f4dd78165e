/*
 * bench_parse.c — flattening serialized geometries into a join batch, per
 * primitive (issue 14): the batch joins' read path after detoasting.
 *
 * Rows are real GSERIALIZED bytes (test/engine/gs_write.h) of the synthetic
 * mine (test/fixtures/mine.c, size "paper" with 20,000 holes, as
 * `minegen --size paper --holes 20000` writes it):
 *   tin     the ore bodies as TIN Z (12 rows, 10^6 triangles)
 *   holes   the drill holes as LINESTRING Z (20,000 rows of ~32 segments)
 *   psurf   the first bodies as POLYHEDRALSURFACE Z of triangles (~2 x 10^5)
 * into a 3D batch, and into a 2D batch (a 2D map layer: x and y, z = 0,
 * polygons triangulated in the plane):
 *   holes2  the drill holes again (LINESTRING Z, flattened)
 *   roads   50,000 LINESTRING of 2-40 vertices, no Z
 *   points  200,000 POINT, no Z
 *   mpoint  2,000 MULTIPOINT of 100 points, no Z
 *   parcels 50,000 POLYGON of 8-40 vertices, one in ten with a hole, no Z
 *   blocks  100,000 POLYGON of 4 corners (rotated rectangles), no Z
 *   mpoly   5,000 MULTIPOLYGON Z of 3 such parts
 *   tin2    the ore bodies as TIN Z, flattened
 * each through the read path's two entry points, on one thread:
 *   row     per row exg_gserialized_read + exg_batch_add into a batch reset
 *           for the row (what a parallel reader process did, flatten_one)
 *   ser     per row exg_batch_add_serialized, the same way (what it does now;
 *           built before that function existed, this is the row case again)
 *   rows    exg_batch_add_rows of all rows into a fresh batch (the backend's
 *           rows read serially), allocation and page faults included, on
 *           BENCH_THREADS threads (default 1)
 * Prints the best of BENCH_REPS (default 5) runs in ns per primitive, wall
 * clock and thread CPU time (compare CPU time on a shared machine), and a
 * hash of the flattened arrays (the same before and after a change of the
 * read path: the batches are bit-identical).
 *
 * Usage: bench_parse [holes]   (default 20000)
 * BENCH_ONLY=tin (or tin/rows, ...) runs one of them, for profiling;
 * BENCH_2D_ONLY=1 only the 2D cases.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "batch.h"
#include "gs_write.h"
#include "gserialized_read.h"
#include "harness.h"
#include "mine.h"

static double
clock_s(clockid_t c)
{
	struct timespec ts;

	clock_gettime(c, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* FNV-1a over the batch's arrays: equal hashes, equal batches (in practice). */
static uint64_t
fnv(uint64_t h, const void *p, size_t n)
{
	const uint8_t *b = p;

	for (size_t i = 0; i < n; i++)
		h = (h ^ b[i]) * 0x100000001b3ull;
	return h;
}

static uint64_t
batch_hash(uint64_t h, const exg_batch *b)
{
	h = fnv(h, b->xyz, b->nverts * 3 * sizeof(double));
	h = fnv(h, b->tri, b->nprims * 3 * sizeof(uint32_t));
	h = fnv(h, b->owner, b->nprims * sizeof(uint32_t));
	h = fnv(h, b->solid, b->nrows);
	return h;
}

static void
die(const char *what, const exg_error *err)
{
	fprintf(stderr, "bench_parse: %s: %s\n", what, err->message);
	exit(1);
}

typedef struct result
{
	double		wall,
				cpu;
	size_t		nprims;
	uint64_t	hash;
} result;

/* The batch's axes of the case being run: 3, or 2 for the 2D cases. */
static int	naxes = 3;

/* Row by row, as a parallel reader: shape and batch reused, batch reset per row. */
static result
run_row(const gs_rows *r, bool hash)
{
	exg_shape	s;
	exg_batch	b;
	exg_error	err = {0};
	result		res = {0};
	double		w0 = clock_s(CLOCK_MONOTONIC),
				c0 = clock_s(CLOCK_THREAD_CPUTIME_ID);

	res.hash = 0xcbf29ce484222325ull;
	exg_shape_init(&s);
	exg_batch_init(&b, naxes, EXG_NONPLANAR_ERROR);
	for (size_t i = 0; i < r->nrows; i++)
	{
		exg_shape_clear(&s);
		if (exg_gserialized_read(r->data + r->off[i], r->off[i + 1] - r->off[i], &s, &err) != EXG_OK)
			die("read", &err);
		exg_batch_reset(&b);
		if (exg_batch_add(&b, &s, &err) != EXG_OK)
			die("add", &err);
		res.nprims += b.nprims;
		if (hash)
			res.hash = batch_hash(res.hash, &b);
	}
	res.wall = clock_s(CLOCK_MONOTONIC) - w0;
	res.cpu = clock_s(CLOCK_THREAD_CPUTIME_ID) - c0;
	exg_shape_free(&s);
	exg_batch_free(&b);
	return res;
}

#ifndef BENCH_BEFORE
/* Row by row through exg_batch_add_serialized (what flatten_one calls now). */
static result
run_ser(const gs_rows *r, bool hash)
{
	exg_shape	s;
	exg_batch	b;
	exg_error	err = {0};
	result		res = {0};
	double		w0 = clock_s(CLOCK_MONOTONIC),
				c0 = clock_s(CLOCK_THREAD_CPUTIME_ID);

	res.hash = 0xcbf29ce484222325ull;
	exg_shape_init(&s);
	exg_batch_init(&b, naxes, EXG_NONPLANAR_ERROR);
	for (size_t i = 0; i < r->nrows; i++)
	{
		exg_batch_reset(&b);
		if (exg_batch_add_serialized(&b, r->data + r->off[i], r->off[i + 1] - r->off[i], &s, &err) != EXG_OK)
			die("add_serialized", &err);
		res.nprims += b.nprims;
		if (hash)
			res.hash = batch_hash(res.hash, &b);
	}
	res.wall = clock_s(CLOCK_MONOTONIC) - w0;
	res.cpu = clock_s(CLOCK_THREAD_CPUTIME_ID) - c0;
	exg_shape_free(&s);
	exg_batch_free(&b);
	return res;
}
#else
/* -DBENCH_BEFORE: built against the engine before exg_batch_add_serialized */
#define run_ser run_row
#endif

/* All rows at once on one thread into a fresh batch. */
static result
run_rows(const gs_rows *r, bool hash)
{
	exg_batch	b;
	exg_error	err = {0};
	exg_row_bytes rows = {r->data, r->off, r->nrows};
	int			threads = getenv("BENCH_THREADS") ? atoi(getenv("BENCH_THREADS")) : 1;
	result		res = {0};
	double		w0 = clock_s(CLOCK_MONOTONIC),
				c0 = clock_s(CLOCK_THREAD_CPUTIME_ID);

	exg_batch_init(&b, naxes, EXG_NONPLANAR_ERROR);
	if (exg_batch_add_rows(&b, &rows, threads, &err) != EXG_OK)
		die("add_rows", &err);
	res.wall = clock_s(CLOCK_MONOTONIC) - w0;
	res.cpu = clock_s(CLOCK_THREAD_CPUTIME_ID) - c0;
	res.nprims = b.nprims;
	if (hash)
		res.hash = batch_hash(0xcbf29ce484222325ull, &b);
	exg_batch_free(&b);
	return res;
}

static void
bench(const char *name, const gs_rows *r, int axes, int reps)
{
	const char *how[3] = {"row", "ser", "rows"};
	const char *only = getenv("BENCH_ONLY");

	naxes = axes;
	for (int k = 0; k < 3; k++)
	{
		char		label[32];

		snprintf(label, sizeof(label), "%s/%s", name, how[k]);
		if (only && strcmp(only, name) != 0 && strcmp(only, label) != 0)
			continue;
		result		best = {INFINITY, INFINITY, 0, 0};

		/* the hash is taken in a run of its own, not timed */
		best.hash = k == 0 ? run_row(r, true).hash : k == 1 ? run_ser(r, true).hash : run_rows(r, true).hash;
		for (int rep = 0; rep < reps; rep++)
		{
			result		x = k == 0 ? run_row(r, false) : k == 1 ? run_ser(r, false) : run_rows(r, false);

			x.hash = best.hash;

			best.wall = fmin(best.wall, x.wall);
			best.cpu = fmin(best.cpu, x.cpu);
			best.nprims = x.nprims;
			best.hash = x.hash;
		}
		printf("%-7s %dD %-5s %8zu rows %9zu prims %7.1f MB  %7.1f ns/prim wall  %7.1f ns/prim cpu  hash %016llx\n",
			   name, naxes, how[k], r->nrows, best.nprims, r->n / 1e6, 1e9 * best.wall / best.nprims,
			   1e9 * best.cpu / best.nprims, (unsigned long long) best.hash);
	}
}

/* A star of m vertices around (x, y) (a simple polygon), closed: m + 1 vertices at v. */
static void
star(test_rng *g, double x, double y, double rmin, double rmax, uint32_t m, double *v)
{
	for (uint32_t i = 0; i < m; i++)
	{
		double		a = 2 * M_PI * (i + 0.9 * rng_uniform(g)) / m,
					rad = rmin + (rmax - rmin) * rng_uniform(g);

		v[2 * i] = x + rad * cos(a);
		v[2 * i + 1] = y + rad * sin(a);
	}
	v[2 * m] = v[0];
	v[2 * m + 1] = v[1];
}

/*
 * One polygon of a 2D layer at (x, y): a star of 8-40 vertices, one in ten
 * with a square hole at its centre (inside: the star's radii are >= 30).
 */
static void
put_parcel(gs_writer *w, test_rng *g, double x, double y)
{
	double		v[2 * 41];
	uint32_t	m = 8 + (uint32_t) rng_below(g, 33),
				counts[2] = {m + 1, 5};
	bool		hole = rng_below(g, 10) == 0;
	static const double sq[5][2] = {{-5, -5}, {5, -5}, {5, 5}, {-5, 5}, {-5, -5}};

	star(g, x, y, 30, 50, m, v);
	gsw_polygon_head(w, hole ? 2 : 1, counts);
	for (uint32_t i = 0; i <= m; i++)
		gsw_vertex(w, v[2 * i], v[2 * i + 1], 10, 0);
	for (int i = 0; hole && i < 5; i++)
		gsw_vertex(w, x + sq[i][0], y + sq[i][1], 10, 0);
}

/* The 2D layers (see the top): roads, points, multipoints, parcels, multipolygons. */
static void
layers_2d(gs_rows *roads, gs_rows *points, gs_rows *mpoint, gs_rows *parcels, gs_rows *blocks,
		  gs_rows *mpoly)
{
	test_rng	g = {2026};
	gs_writer	w = {0};

	for (int i = 0; i < 50000; i++)
	{
		uint32_t	n = 2 + (uint32_t) rng_below(&g, 39);
		double		x = 500000 + 1e4 * rng_uniform(&g),
					y = 7000000 + 1e4 * rng_uniform(&g);

		gsw_begin(&w, false, false, false);
		gsw_head(&w, 2, n);
		for (uint32_t k = 0; k < n; k++)
		{
			gsw_vertex(&w, x, y, 0, 0);
			x += 20 * rng_uniform(&g) - 10;
			y += 20 * rng_uniform(&g) - 10;
		}
		gs_rows_add(roads, &w);
	}
	for (int i = 0; i < 200000; i++)
	{
		gsw_begin(&w, false, false, false);
		gsw_head(&w, 1, 1);
		gsw_vertex(&w, 500000 + 1e4 * rng_uniform(&g), 7000000 + 1e4 * rng_uniform(&g), 0, 0);
		gs_rows_add(points, &w);
	}
	for (int i = 0; i < 2000; i++)
	{
		gsw_begin(&w, false, false, false);
		gsw_head(&w, 4, 100);
		for (int k = 0; k < 100; k++)
		{
			gsw_head(&w, 1, 1);
			gsw_vertex(&w, 500000 + 1e4 * rng_uniform(&g), 7000000 + 1e4 * rng_uniform(&g), 0, 0);
		}
		gs_rows_add(mpoint, &w);
	}
	for (int i = 0; i < 50000; i++)
	{
		gsw_begin(&w, false, false, false);
		put_parcel(&w, &g, 500000 + 1e4 * rng_uniform(&g), 7000000 + 1e4 * rng_uniform(&g));
		gs_rows_add(parcels, &w);
	}
	for (int i = 0; i < 100000; i++)
	{
		double		x = 500000 + 1e4 * rng_uniform(&g),
					y = 7000000 + 1e4 * rng_uniform(&g),
					a = 2 * M_PI * rng_uniform(&g),
					u = 5 + 20 * rng_uniform(&g),
					v = 5 + 20 * rng_uniform(&g);
		double		cx[5] = {0, u, u, 0, 0},
					cy[5] = {0, 0, v, v, 0};
		uint32_t	five = 5;

		gsw_begin(&w, false, false, false);
		gsw_polygon_head(&w, 1, &five);
		for (int k = 0; k < 5; k++)
			gsw_vertex(&w, x + cx[k] * cos(a) - cy[k] * sin(a), y + cx[k] * sin(a) + cy[k] * cos(a), 0, 0);
		gs_rows_add(blocks, &w);
	}
	for (int i = 0; i < 5000; i++)
	{
		double		x = 500000 + 1e4 * rng_uniform(&g),
					y = 7000000 + 1e4 * rng_uniform(&g);

		gsw_begin(&w, true, false, false);
		gsw_head(&w, 6, 3);
		for (int k = 0; k < 3; k++)
			put_parcel(&w, &g, x + 200 * k, y);
		gs_rows_add(mpoly, &w);
	}
	gsw_free(&w);
}

int
main(int argc, char **argv)
{
	mine_params mp;
	mine	   *m;
	char		merr[256];
	gs_writer	w = {0};
	gs_rows		tin = {0},
				holes = {0},
				psurf = {0};
	int			reps = getenv("BENCH_REPS") ? atoi(getenv("BENCH_REPS")) : 5;
	size_t		psurf_tris = 0;

	mine_params_for_size(&mp, "paper", 1);
	mp.n_holes = argc > 1 ? atoll(argv[1]) : 20000;
	mp.target_segments = 0;
	if (mine_generate(&mp, &m, merr, sizeof(merr)) != 0)
	{
		fprintf(stderr, "bench_parse: mine: %s\n", merr);
		return 1;
	}
	for (size_t bi = 0; bi < m->n_bodies; bi++)
	{
		const mine_body *bd = &m->bodies[bi];
		const double *xyz = m->body_xyz + 3 * bd->first_vertex;
		const uint32_t *tri = m->body_tri + 3 * bd->first_triangle;
		bool		in_psurf = psurf_tris < 200000;

		gsw_begin(&w, true, false, false);
		gsw_head(&w, 15, (uint32_t) bd->ntriangles);
		for (size_t t = 0; t < bd->ntriangles; t++)
		{
			gsw_head(&w, 14, 4);
			for (int k = 0; k < 4; k++)
				gsw_vertex3(&w, &xyz[3 * tri[3 * t + k % 3]]);
		}
		gs_rows_add(&tin, &w);
		if (!in_psurf)
			continue;
		gsw_begin(&w, true, false, false);
		gsw_head(&w, 13, (uint32_t) bd->ntriangles);
		for (size_t t = 0; t < bd->ntriangles; t++)
		{
			uint32_t	four = 4;

			gsw_polygon_head(&w, 1, &four);
			for (int k = 0; k < 4; k++)
				gsw_vertex3(&w, &xyz[3 * tri[3 * t + k % 3]]);
		}
		gs_rows_add(&psurf, &w);
		psurf_tris += bd->ntriangles;
	}
	for (size_t h = 0; h < m->n_holes; h++)
	{
		const mine_hole *ho = &m->holes[h];

		gsw_begin(&w, true, false, false);
		gsw_head(&w, 2, (uint32_t) ho->nvertices);
		for (size_t v = 0; v < ho->nvertices; v++)
			gsw_vertex3(&w, m->hole_xyz + 3 * (ho->first_vertex + v));
		gs_rows_add(&holes, &w);
	}
	printf("mine paper, %zu holes (%zu segments), %zu bodies (%zu triangles); best of %d runs; rows on %s thread(s)\n",
		   m->n_holes, m->n_segments, m->n_bodies, m->n_triangles, reps,
		   getenv("BENCH_THREADS") ? getenv("BENCH_THREADS") : "1");
	if (!getenv("BENCH_2D_ONLY"))
	{
		bench("tin", &tin, 3, reps);
		bench("holes", &holes, 3, reps);
		bench("psurf", &psurf, 3, reps);
	}
	{
		gs_rows		roads = {0},
					points = {0},
					mpoint = {0},
					parcels = {0},
					blocks = {0},
					mpoly = {0};

		layers_2d(&roads, &points, &mpoint, &parcels, &blocks, &mpoly);
		bench("holes2", &holes, 2, reps);
		bench("roads", &roads, 2, reps);
		bench("points", &points, 2, reps);
		bench("mpoint", &mpoint, 2, reps);
		bench("parcels", &parcels, 2, reps);
		bench("blocks", &blocks, 2, reps);
		bench("mpoly", &mpoly, 2, reps);
		bench("tin2", &tin, 2, reps);
		gs_rows_free(&roads);
		gs_rows_free(&points);
		gs_rows_free(&mpoint);
		gs_rows_free(&parcels);
		gs_rows_free(&blocks);
		gs_rows_free(&mpoly);
	}
	gs_rows_free(&tin);
	gs_rows_free(&holes);
	gs_rows_free(&psurf);
	gsw_free(&w);
	mine_free(m);
	return 0;
}
