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
 * BENCH_ONLY=tin (or tin/rows, ...) runs one of them, for profiling.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "batch.h"
#include "gs_write.h"
#include "gserialized_read.h"
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
	exg_batch_init(&b, 3, EXG_NONPLANAR_ERROR);
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
	exg_batch_init(&b, 3, EXG_NONPLANAR_ERROR);
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

	exg_batch_init(&b, 3, EXG_NONPLANAR_ERROR);
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
bench(const char *name, const gs_rows *r, int reps)
{
	const char *how[3] = {"row", "ser", "rows"};
	const char *only = getenv("BENCH_ONLY");

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
		printf("%-6s %-5s %8zu rows %9zu prims %7.1f MB  %7.1f ns/prim wall  %7.1f ns/prim cpu  hash %016llx\n",
			   name, how[k], r->nrows, best.nprims, r->n / 1e6, 1e9 * best.wall / best.nprims,
			   1e9 * best.cpu / best.nprims, (unsigned long long) best.hash);
	}
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
	bench("tin", &tin, reps);
	bench("holes", &holes, reps);
	bench("psurf", &psurf, reps);
	gs_rows_free(&tin);
	gs_rows_free(&holes);
	gs_rows_free(&psurf);
	gsw_free(&w);
	mine_free(m);
	return 0;
}
