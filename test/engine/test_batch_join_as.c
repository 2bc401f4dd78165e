/*
 * test_batch_join_as.c — the join mode chosen in one place
 * (exg_batch_join_as): a volume join whose other side is only points runs
 * the point-in-solid join, any other volume join the primitive join with
 * the bodies as volumes. The choice must never change the answer: the
 * pairs of the point rows are the same whichever road they took.
 *
 * Bodies: closed bumpy spheres and a torus (harness mesh builders), one
 * body a row. Points: random rows of one point each. Then:
 *   1. VOLUMES against the points alone (point-in-solid road) gives the
 *      same point pairs as VOLUMES against the points plus a segment row
 *      (primitive-join road), and the segment's own pairs are right;
 *   2. LOCATE (points left) gives the same pairs, swapped;
 *   3. a point well inside a body's inner radius is paired with it, one
 *      well outside its outer radius is not (known without the engine).
 *
 *   test_batch_join_as [seed]
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "batch.h"
#include "harness.h"

#define NBODIES 3
#define NPOINTS 600

typedef struct body
{
	double		c[3];
	double		R;				/* the sphere's radius, or the torus's ring */
	double		r;				/* the torus's tube radius; 0 for a sphere */
} body;

static const body bodies[NBODIES] = {
	{{0, 0, 0}, 4, 0},
	{{12, 0, 0}, 3, 0},
	{{0, 12, 0}, 4, 1.5},
};

#define BUMP 0.15

/* Rows of one body each: the body's own vertices and triangles. */
static void
add_bodies(exg_batch *b, test_rng *rng)
{
	for (int k = 0; k < NBODIES; k++)
	{
		test_mesh	m = {0};
		const double o[3] = {0, 0, 0};
		exg_flat_row row;
		exg_error	err = {0};

		test_mesh_add_round(&m, o, bodies[k].c, bodies[k].R, bodies[k].r, bodies[k].r > 0,
							24, 16, BUMP, rng);
		row = (exg_flat_row) {m.xyz, m.tri, m.nv, m.nt, 0, 3};
		CHECK(exg_batch_append_flat(b, &row, 1, 1, &err) == EXG_OK, "%s", err.message);
		test_mesh_free(&m);
	}
}

/* Rows of one point each (a point is a triangle of one repeated vertex). */
static void
add_points(exg_batch *b, const double *p, size_t n)
{
	static const uint32_t tri[3] = {0, 0, 0};

	for (size_t i = 0; i < n; i++)
	{
		exg_flat_row row = {&p[3 * i], tri, 1, 1, 0, 3};
		exg_error	err = {0};

		CHECK(exg_batch_append_flat(b, &row, 1, 1, &err) == EXG_OK, "%s", err.message);
	}
}

/* Distance from p to a body's centre (sphere) or to its ring (torus). */
static double
body_distance(const body *B, const double *p)
{
	double		d[3] = {p[0] - B->c[0], p[1] - B->c[1], p[2] - B->c[2]};

	if (B->r == 0)
		return sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
	else
	{
		/* the harness's torus: its ring in the xy plane around c */
		double		q = sqrt(d[0] * d[0] + d[1] * d[1]) - B->R;

		return sqrt(q * q + d[2] * d[2]);
	}
}

static int
cmp_u64(const void *x, const void *y)
{
	uint64_t	a = *(const uint64_t *) x,
				b = *(const uint64_t *) y;

	return (a > b) - (a < b);
}

int
main(int argc, char **argv)
{
	test_rng	rng = {argc > 1 ? strtoull(argv[1], NULL, 10) : 25};
	double	   *pts = malloc(sizeof(double) * 3 * NPOINTS);
	exg_batch	B1,
				B2,
				P1,
				P2,
				P3;
	exg_join_options opt;
	exg_error	err = {0};
	uint64_t   *located = NULL,
			   *joined = NULL,
			   *swapped = NULL;
	size_t		nlocated = 0,
				njoined = 0,
				nswapped = 0,
				k,
				kj;
	const double seg[6] = {8, -1, 0, 8, 1, 0};	/* between bodies 0 and 1 */
	const uint32_t seg_tri[3] = {0, 1, 1};

	exg_join_options_default(&opt);
	opt.device = EXG_DEVICE_CPU;
	for (k = 0; k < NPOINTS; k++)
	{
		pts[3 * k] = -8 + 28 * rng_uniform(&rng);
		pts[3 * k + 1] = -8 + 28 * rng_uniform(&rng);
		pts[3 * k + 2] = -6 + 12 * rng_uniform(&rng);
	}
	/* the same bodies twice (the volume join marks its left batch) */
	exg_batch_init(&B1, 3, EXG_NONPLANAR_ERROR);
	exg_batch_init(&B2, 3, EXG_NONPLANAR_ERROR);
	{
		test_rng	r1 = rng,
					r2 = rng;

		add_bodies(&B1, &r1);
		add_bodies(&B2, &r2);
	}
	exg_batch_init(&P1, 3, EXG_NONPLANAR_ERROR);
	exg_batch_init(&P2, 3, EXG_NONPLANAR_ERROR);
	exg_batch_init(&P3, 3, EXG_NONPLANAR_ERROR);
	add_points(&P1, pts, NPOINTS);
	add_points(&P2, pts, NPOINTS);
	add_points(&P3, pts, NPOINTS);
	{
		/* one more row on P2: a segment, so P2 is not only points */
		exg_flat_row row = {seg, seg_tri, 2, 1, 0, 3};

		CHECK(exg_batch_append_flat(&P2, &row, 1, 1, &err) == EXG_OK, "%s", err.message);
	}
	CHECK(exg_batch_only_points(&P1) && !exg_batch_only_points(&P2));

	/* 1. both roads of a volume join */
	CHECK(exg_batch_join_as(&B1, &P1, EXG_BATCH_VOLUMES, &opt, &located, &nlocated, NULL, &err)
		  == EXG_OK, "%s", err.message);
	CHECK(B1.nsolid == 0, "the point-in-solid road marks no volumes");
	CHECK(exg_batch_join_as(&B2, &P2, EXG_BATCH_VOLUMES, &opt, &joined, &njoined, NULL, &err)
		  == EXG_OK, "%s", err.message);
	CHECK(B2.nsolid == NBODIES, "the primitive-join road takes the bodies as volumes");
	for (k = 0, kj = 0; kj < njoined; kj++)
	{
		uint32_t	row = (uint32_t) (joined[kj] & 0xffffffffu);

		if (row == NPOINTS)
			continue;			/* the segment's pair, checked below */
		CHECK(k < nlocated && joined[kj] == located[k], "pair %zu: %llx against %llx", kj,
			  (unsigned long long) joined[kj],
			  (unsigned long long) (k < nlocated ? located[k] : 0));
		k++;
	}
	CHECK(k == nlocated, "%zu point pairs on the join road, %zu located", k, nlocated);
	{
		/* the segment lies between bodies 0 and 1, touching neither */
		bool		seg_paired = false;

		for (kj = 0; kj < njoined; kj++)
			seg_paired |= (joined[kj] & 0xffffffffu) == NPOINTS;
		CHECK(!seg_paired, "the segment between the bodies meets none");
	}

	/* 2. LOCATE: the same pairs with the points on the left */
	CHECK(exg_batch_join_as(&P3, &B2, EXG_BATCH_LOCATE, &opt, &swapped, &nswapped, NULL, &err)
		  == EXG_OK, "%s", err.message);
	CHECK(nswapped == nlocated, "%zu located with the points left, %zu right", nswapped, nlocated);
	for (k = 0; k < nswapped; k++)
		swapped[k] = (swapped[k] >> 32) | (swapped[k] << 32);
	qsort(swapped, nswapped, sizeof(uint64_t), cmp_u64);
	for (k = 0; k < nswapped && k < nlocated; k++)
		CHECK(swapped[k] == located[k], "pair %zu swapped differs", k);

	/* 3. what is known without the engine: well inside, well outside */
	for (size_t p = 0; p < NPOINTS; p++)
		for (int b = 0; b < NBODIES; b++)
		{
			double		d = body_distance(&bodies[b], &pts[3 * p]);
			double		radius = bodies[b].r > 0 ? bodies[b].r : bodies[b].R;
			uint64_t	pair = ((uint64_t) b << 32) | p;
			bool		found = bsearch(&pair, located, nlocated, sizeof(uint64_t), cmp_u64) != NULL;

			/* vertices move by at most BUMP / 2 of the radius and by the
			 * snapping to 1/8 (under 0.11), and faces cut chords */
			if (d < 0.6 * radius)
				CHECK(found, "point %zu (%.3f from body %d's centre) not in it", p, d, b);
			if (d > (1 + BUMP) * radius + 0.25)
				CHECK(!found, "point %zu (%.3f from body %d's centre) in it", p, d, b);
		}
	CHECK(nlocated > 20, "only %zu points inside bodies", nlocated);

	free(located);
	free(joined);
	free(swapped);
	exg_batch_free(&B1);
	exg_batch_free(&B2);
	exg_batch_free(&P1);
	exg_batch_free(&P2);
	exg_batch_free(&P3);
	free(pts);
	return test_summary("test_batch_join_as");
}
