/*
 * test_batch_probe.c — the probe join (batch_probe.h) gives the batch
 * join's pairs (exg_batch_join over the same shapes), in the same order.
 *
 * Bodies: closed bumpy spheres and a torus (harness meshes, vertices on a
 * 1/8 grid, so many rows meet them degenerately). Rows: segments between
 * random points near the bodies, a quarter of the ends on body vertices,
 * segments along body edges (extended past both ends), points on vertices
 * and random points; some rows empty. Checked for 3D and 2D, rows left and
 * bodies left, without an order and with random places shared by several
 * rows (ids repeated), on 1 and 2 threads; then the bodies as volumes
 * (EXG_BATCH_VOLUMES against the rows and against points alone) and point
 * in solid (EXG_BATCH_LOCATE).
 *
 *   test_batch_probe [seed]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "batch.h"
#include "batch_probe.h"
#include "harness.h"

#define NROWS 400

static test_rng rng = {20261127};

/* A point near the mesh: a vertex of it (a quarter of the time) or random. */
static void
near_point(const test_mesh *m, const double *lo, const double *hi, double *p)
{
	if (rng_below(&rng, 4) == 0)
	{
		memcpy(p, &m->xyz[3 * rng_below(&rng, m->nv)], 3 * sizeof(double));
		return;
	}
	for (int k = 0; k < 3; k++)
		p[k] = lo[k] + (hi[k] - lo[k]) * rng_uniform(&rng);
}

static void
row_shape(const test_mesh *m, const double *lo, const double *hi, exg_shape *s)
{
	exg_error	err;
	double		a[3],
				b[3];
	uint64_t	kind = rng_below(&rng, 10);

	exg_shape_init(s);
	s->has_z = true;
	if (kind == 0)
	{
		s->geom_type = 2;		/* LINESTRING EMPTY */
		return;
	}
	if (kind <= 2)
	{
		/* a point: a vertex of a body, or anywhere */
		near_point(m, lo, hi, a);
		s->geom_type = 1;
		exg_shape_begin_comp(s, EXG_COMP_POINT, false, &err);
		exg_shape_begin_ring(s, &err);
		exg_shape_add_vertex(s, a[0], a[1], a[2], &err);
		return;
	}
	if (kind == 3)
	{
		/* along an edge of a triangle, past both its ends (exact: 1/8 grid) */
		uint32_t	t = (uint32_t) rng_below(&rng, m->nt);
		const double *u = &m->xyz[3 * (size_t) m->tri[3 * t]],
				   *v = &m->xyz[3 * (size_t) m->tri[3 * t + 1]];

		for (int k = 0; k < 3; k++)
		{
			a[k] = u[k] - (v[k] - u[k]);
			b[k] = v[k] + (v[k] - u[k]);
		}
	}
	else
	{
		near_point(m, lo, hi, a);
		near_point(m, lo, hi, b);
	}
	s->geom_type = 2;
	exg_shape_begin_comp(s, EXG_COMP_LINE, false, &err);
	exg_shape_begin_ring(s, &err);
	exg_shape_add_vertex(s, a[0], a[1], a[2], &err);
	exg_shape_add_vertex(s, b[0], b[1], b[2], &err);
}

typedef struct side
{
	exg_batch	batch[2];		/* 3D, 2D */
	exg_prepared *prep;
	exg_prepared **ptr;
	size_t		n;
} side;

static void
side_add(side *s, exg_shape *shape)
{
	exg_error	err = {0};

	for (int d = 0; d < 2; d++)
		CHECK(exg_batch_add(&s->batch[d], shape, &err) == EXG_OK, "batch add: %s", err.message);
	exg_prepared_init(&s->prep[s->n], shape, EXG_NONPLANAR_ERROR);
	s->ptr[s->n] = &s->prep[s->n];
	s->n++;
}

static void
side_init(side *s, size_t cap)
{
	exg_batch_init(&s->batch[0], 3, EXG_NONPLANAR_ERROR);
	exg_batch_init(&s->batch[1], 2, EXG_NONPLANAR_ERROR);
	s->prep = calloc(cap, sizeof(exg_prepared));
	s->ptr = calloc(cap, sizeof(exg_prepared *));
	s->n = 0;
}

static void
side_free(side *s)
{
	for (int d = 0; d < 2; d++)
		exg_batch_free(&s->batch[d]);
	for (size_t i = 0; i < s->n; i++)
		exg_prepared_free(&s->prep[i]);
	free(s->prep);
	free(s->ptr);
}

/* Random places, about two rows a place. */
static uint32_t *
random_order(size_t n)
{
	uint32_t   *o = malloc(sizeof(uint32_t) * n);

	for (size_t i = 0; i < n; i++)
		o[i] = (uint32_t) rng_below(&rng, n / 2 + 1);
	return o;
}

static void
compare_as(side *L, side *R, const uint32_t *lo, const uint32_t *ro, int d, int threads,
		   exg_probe_predicate pred, exg_batch_join_mode mode, const char *what)
{
	exg_probe_side pl = {(exg_prepared * const *) L->ptr, L->n, lo},
				pr = {(exg_prepared * const *) R->ptr, R->n, ro};
	exg_probe_stats ps = {0};
	exg_error	err = {0};
	uint64_t   *probe = NULL,
			   *batch = NULL;
	size_t		np = 0,
				nb = 0;

	L->batch[d].order = lo;
	R->batch[d].order = ro;
	CHECK(exg_batch_join_as(&L->batch[d], &R->batch[d], mode, NULL, &batch, &nb, NULL, &err) ==
		  EXG_OK, "%s: batch join: %s", what, err.message);
	CHECK(exg_probe_ready(&pl, &pr, pred, threads, NULL, &ps, &err) == EXG_OK,
		  "%s: probe ready: %s", what, err.message);
	CHECK(exg_probe_join(&pl, &pr, pred, threads, &probe, &np, &ps, &err) == EXG_OK,
		  "%s: probe join: %s", what, err.message);
	CHECK(np == nb && (np == 0 || memcmp(probe, batch, np * sizeof(uint64_t)) == 0),
		  "%s: %zu probe pairs, %zu batch pairs", what, np, nb);
	CHECK(ps.box_pairs >= np, "%s: %llu box pairs for %zu pairs", what,
		  (unsigned long long) ps.box_pairs, np);
	printf("%s: %zu pairs (%llu box pairs)\n", what, np, (unsigned long long) ps.box_pairs);
	L->batch[d].order = NULL;
	R->batch[d].order = NULL;
	free(probe);
	free(batch);
}

static void
compare(side *L, side *R, const uint32_t *lo, const uint32_t *ro, int d, int threads,
		const char *what)
{
	compare_as(L, R, lo, ro, d, threads,
			   d == 0 ? EXG_PROBE_INTERSECTS_3D : EXG_PROBE_INTERSECTS_2D,
			   EXG_BATCH_INTERSECTS, what);
}

int
main(int argc, char **argv)
{
	test_mesh	m = {0};
	const double o[3] = {0, 0, 0};
	double		lo[3] = {-60, -60, -60},
				hi[3] = {200, 60, 60};
	side		bodies,
				rows;
	static const double centre[4][3] = {{0, 0, 0}, {80, 0, 0}, {150, 0, 0}, {40, 0, 30}};
	uint32_t   *lo_rows,
			   *lo_bodies;

	if (argc > 1)
		rng.state = strtoull(argv[1], NULL, 10);
	for (int b = 0; b < 4; b++)
	{
		test_mesh_add_round(&m, o, centre[b], 30, b == 2 ? 10 : 0, b == 2, 24, 16, 0.15, &rng);
		m.nbodies++;
	}
	side_init(&bodies, m.nbodies);
	side_init(&rows, NROWS);
	for (uint32_t b = 0; b < m.nbodies; b++)
	{
		exg_shape	s;

		test_mesh_body_shape(&m, b, &s);
		side_add(&bodies, &s);
	}
	for (int i = 0; i < NROWS; i++)
	{
		exg_shape	s;

		row_shape(&m, lo, hi, &s);
		side_add(&rows, &s);
	}
	lo_rows = random_order(rows.n);
	lo_bodies = random_order(bodies.n);
	for (int d = 0; d < 2; d++)
		for (int threads = 1; threads <= 2; threads++)
		{
			char		what[96];

			snprintf(what, sizeof(what), "%dD, %d thread(s), rows left", 3 - d, threads);
			compare(&rows, &bodies, NULL, NULL, d, threads, what);
			snprintf(what, sizeof(what), "%dD, %d thread(s), bodies left", 3 - d, threads);
			compare(&bodies, &rows, NULL, NULL, d, threads, what);
			snprintf(what, sizeof(what), "%dD, %d thread(s), rows left, ids repeated", 3 - d, threads);
			compare(&rows, &bodies, lo_rows, lo_bodies, d, threads, what);
			snprintf(what, sizeof(what), "%dD, %d thread(s), bodies left, ids repeated", 3 - d, threads);
			compare(&bodies, &rows, lo_bodies, lo_rows, d, threads, what);
		}
	/*
	 * Volumes last: the batch join marks the bodies' rows as volumes. Rows
	 * as above against the bodies as volumes (a row inside a body meets it),
	 * then point rows alone (the batch join's point-in-solid road) with the
	 * points left (point-in-solid) and right (volumes).
	 */
	{
		side		points;
		uint32_t   *lo_points;

		side_init(&points, NROWS);
		for (int i = 0; i < NROWS; i++)
		{
			exg_shape	s;
			exg_error	err = {0};
			double		p[3];

			near_point(&m, lo, hi, p);
			exg_shape_init(&s);
			s.has_z = true;
			s.geom_type = 1;
			exg_shape_begin_comp(&s, EXG_COMP_POINT, false, &err);
			exg_shape_begin_ring(&s, &err);
			exg_shape_add_vertex(&s, p[0], p[1], p[2], &err);
			side_add(&points, &s);
		}
		lo_points = random_order(points.n);
		for (int threads = 1; threads <= 2; threads++)
		{
			compare_as(&points, &bodies, NULL, NULL, 0, threads, EXG_PROBE_VOLUMES_RIGHT,
					   EXG_BATCH_LOCATE, "point in solid");
			compare_as(&points, &bodies, lo_points, lo_bodies, 0, threads, EXG_PROBE_VOLUMES_RIGHT,
					   EXG_BATCH_LOCATE, "point in solid, ids repeated");
			compare_as(&bodies, &points, lo_bodies, lo_points, 0, threads, EXG_PROBE_VOLUMES_LEFT,
					   EXG_BATCH_VOLUMES, "volumes against points, ids repeated");
			compare_as(&bodies, &rows, NULL, NULL, 0, threads, EXG_PROBE_VOLUMES_LEFT,
					   EXG_BATCH_VOLUMES, "volumes against rows");
			compare_as(&bodies, &rows, lo_bodies, lo_rows, 0, threads, EXG_PROBE_VOLUMES_LEFT,
					   EXG_BATCH_VOLUMES, "volumes against rows, ids repeated");
		}
		free(lo_points);
		side_free(&points);
	}
	free(lo_rows);
	free(lo_bodies);
	side_free(&bodies);
	side_free(&rows);
	test_mesh_free(&m);
	return test_summary("test_batch_probe");
}
