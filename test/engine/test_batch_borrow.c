/*
 * test_batch_borrow.c — a batch over rows laid out in place by the parallel
 * read's processes (exg_batch_borrow, issue 14) is the batch that gathering
 * the same rows makes (exg_batch_append_flat), stays the caller's memory,
 * and is copied before it grows.
 *
 * Random rows (empty ones, points, many primitives, solid flags, 2D and 3D
 * dims) are laid out as src/pg/read/read_in_place.c lays them out: every
 * row's vertices at its prefix sum, its indices shifted by the vertices
 * before it, its primitives' owner its row. Then:
 *   1. the borrowed batch equals the gathered one (arrays and counts), on
 *      1 and 4 threads;
 *   2. appending rows to it, or resetting it, leaves the caller's arrays
 *      untouched, and appending gives the gathered batch plus the rows;
 *   3. bad layouts (an index or owner out of range, owners out of order or
 *      of the wrong rows, counts that disagree, a batch not empty) fail and
 *      leave it unchanged;
 *   4. exg_batch_free leaves the caller's arrays (the caller frees them),
 *      and so does borrowing again after an empty layout.
 *
 *   test_batch_borrow [rounds [seed]]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "batch.h"
#include "harness.h"

typedef struct layout
{
	exg_flat_row *rows;
	double	   *xyz;
	uint32_t   *tri;
	uint32_t   *owner;
	size_t		n,
				nv,
				np;
	/* each row's own arrays, as a reader flattened it */
	double	  **own_xyz;
	uint32_t  **own_tri;
} layout;

static void
make_rows(layout *L, test_rng *r, size_t n)
{
	memset(L, 0, sizeof(*L));
	L->n = n;
	L->rows = calloc(n ? n : 1, sizeof(exg_flat_row));
	L->own_xyz = calloc(n ? n : 1, sizeof(double *));
	L->own_tri = calloc(n ? n : 1, sizeof(uint32_t *));
	for (size_t i = 0; i < n; i++)
	{
		size_t		nv = rng_below(r, 5) == 0 ? 0 : 1 + rng_below(r, rng_below(r, 4) == 0 ? 3000 : 40);
		size_t		np = nv == 0 ? 0 : rng_below(r, 2 * nv + 1);
		double	   *x = malloc((nv ? nv : 1) * 3 * sizeof(double));
		uint32_t   *t = malloc((np ? np : 1) * 3 * sizeof(uint32_t));

		for (size_t k = 0; k < 3 * nv; k++)
			x[k] = 1e5 * rng_uniform(r) - 5e4;
		for (size_t k = 0; k < 3 * np; k++)
			t[k] = (uint32_t) rng_below(r, nv);
		L->own_xyz[i] = x;
		L->own_tri[i] = t;
		L->rows[i] = (exg_flat_row) {x, t, nv, np, (uint8_t) rng_below(r, 2),
			(uint8_t) (nv == 0 ? 0 : rng_below(r, 2) ? 3 : 2)};
		L->nv += nv;
		L->np += np;
	}
}

/* The rows laid out in place, as the parallel read's processes write them. */
static void
lay_out(layout *L)
{
	size_t		vb = 0,
				pb = 0;

	L->xyz = malloc((L->nv ? L->nv : 1) * 3 * sizeof(double));
	L->tri = malloc((L->np ? L->np : 1) * 3 * sizeof(uint32_t));
	L->owner = malloc((L->np ? L->np : 1) * sizeof(uint32_t));
	for (size_t i = 0; i < L->n; i++)
	{
		const exg_flat_row *f = &L->rows[i];

		memcpy(L->xyz + 3 * vb, f->xyz, f->nverts * 3 * sizeof(double));
		for (size_t k = 0; k < 3 * f->nprims; k++)
			L->tri[3 * pb + k] = f->tri[k] + (uint32_t) vb;
		for (size_t k = 0; k < f->nprims; k++)
			L->owner[pb + k] = (uint32_t) i;
		vb += f->nverts;
		pb += f->nprims;
	}
}

static void
layout_free(layout *L)
{
	for (size_t i = 0; i < L->n; i++)
	{
		free(L->own_xyz[i]);
		free(L->own_tri[i]);
	}
	free(L->own_xyz);
	free(L->own_tri);
	free(L->rows);
	free(L->xyz);
	free(L->tri);
	free(L->owner);
}

static void
check_same(const exg_batch *a, const exg_batch *b, const char *what)
{
	CHECK(a->nverts == b->nverts && a->nprims == b->nprims && a->nrows == b->nrows,
		  "%s: counts %zu/%zu/%zu against %zu/%zu/%zu", what, a->nverts, a->nprims, a->nrows,
		  b->nverts, b->nprims, b->nrows);
	if (a->nverts != b->nverts || a->nprims != b->nprims || a->nrows != b->nrows)
		return;
	CHECK(a->nsolid == b->nsolid && a->nrows_z == b->nrows_z && a->nrows_flat == b->nrows_flat,
		  "%s: row counts", what);
	CHECK(a->nverts == 0 || memcmp(a->xyz, b->xyz, a->nverts * 3 * sizeof(double)) == 0,
		  "%s: vertices", what);
	CHECK(a->nprims == 0 || memcmp(a->tri, b->tri, a->nprims * 3 * sizeof(uint32_t)) == 0,
		  "%s: indices", what);
	CHECK(a->nprims == 0 || memcmp(a->owner, b->owner, a->nprims * sizeof(uint32_t)) == 0,
		  "%s: owners", what);
	CHECK(a->nrows == 0 || memcmp(a->solid, b->solid, a->nrows) == 0, "%s: solid flags", what);
}

/* A copy of the caller's arrays, to see that nothing wrote to them. */
typedef struct snapshot
{
	double	   *xyz;
	uint32_t   *tri,
			   *owner;
} snapshot;

static snapshot
snap(const layout *L)
{
	snapshot	s;

	s.xyz = malloc((L->nv ? L->nv : 1) * 3 * sizeof(double));
	s.tri = malloc((L->np ? L->np : 1) * 3 * sizeof(uint32_t));
	s.owner = malloc((L->np ? L->np : 1) * sizeof(uint32_t));
	memcpy(s.xyz, L->xyz, L->nv * 3 * sizeof(double));
	memcpy(s.tri, L->tri, L->np * 3 * sizeof(uint32_t));
	memcpy(s.owner, L->owner, L->np * sizeof(uint32_t));
	return s;
}

static bool
unchanged(const layout *L, const snapshot *s)
{
	return memcmp(s->xyz, L->xyz, L->nv * 3 * sizeof(double)) == 0 &&
		memcmp(s->tri, L->tri, L->np * 3 * sizeof(uint32_t)) == 0 &&
		memcmp(s->owner, L->owner, L->np * sizeof(uint32_t)) == 0;
}

static void
snap_free(snapshot *s)
{
	free(s->xyz);
	free(s->tri);
	free(s->owner);
}

static void
round_once(test_rng *r, int threads)
{
	layout		L,
				more;
	exg_batch	gathered,
				borrowed;
	exg_error	err = {0};
	snapshot	s;
	size_t		n = rng_below(r, 60);

	make_rows(&L, r, n);
	make_rows(&more, r, 1 + rng_below(r, 5));
	lay_out(&L);
	s = snap(&L);

	exg_batch_init(&gathered, 3, EXG_NONPLANAR_ERROR);
	exg_batch_init(&borrowed, 3, EXG_NONPLANAR_ERROR);
	CHECK(exg_batch_append_flat(&gathered, L.rows, L.n, threads, &err) == EXG_OK, "%s", err.message);
	CHECK(exg_batch_borrow(&borrowed, L.xyz, L.nv, L.tri, L.owner, L.np, L.rows, L.n, threads,
						   &err) == EXG_OK, "%s", err.message);
	CHECK(borrowed.borrowed && borrowed.xyz == L.xyz && borrowed.tri == L.tri &&
		  borrowed.owner == L.owner, "the batch borrows the arrays, not a copy");
	check_same(&gathered, &borrowed, "borrowed");

	/* grows: copied first, the caller's arrays untouched */
	CHECK(exg_batch_append_flat(&gathered, more.rows, more.n, threads, &err) == EXG_OK, "%s", err.message);
	CHECK(exg_batch_append_flat(&borrowed, more.rows, more.n, threads, &err) == EXG_OK, "%s", err.message);
	CHECK(!borrowed.borrowed && borrowed.xyz != L.xyz, "a grown batch owns its arrays");
	check_same(&gathered, &borrowed, "borrowed, then grown");
	CHECK(unchanged(&L, &s), "growing a borrowed batch wrote to the caller's arrays");
	exg_batch_free(&borrowed);

	/* reset: the caller's arrays are not reused */
	exg_batch_init(&borrowed, 3, EXG_NONPLANAR_ERROR);
	CHECK(exg_batch_borrow(&borrowed, L.xyz, L.nv, L.tri, L.owner, L.np, L.rows, L.n, threads,
						   &err) == EXG_OK, "%s", err.message);
	exg_batch_reset(&borrowed);
	CHECK(borrowed.xyz != L.xyz && borrowed.nrows == 0, "reset lets the arrays go");
	CHECK(exg_batch_append_flat(&borrowed, more.rows, more.n, threads, &err) == EXG_OK, "%s", err.message);
	CHECK(unchanged(&L, &s), "adding after a reset wrote to the caller's arrays");
	exg_batch_free(&borrowed);

	/* bad layouts fail and leave the batch empty */
	if (L.np > 0)
	{
		size_t		p = rng_below(r, L.np);
		uint32_t	saved = L.tri[3 * p + rng_below(r, 3)];
		uint32_t   *slot = NULL;

		for (int k = 0; k < 3; k++)
			if (L.tri[3 * p + k] == saved)
				slot = &L.tri[3 * p + k];
		*slot = (uint32_t) L.nv;
		exg_batch_init(&borrowed, 3, EXG_NONPLANAR_ERROR);
		CHECK(exg_batch_borrow(&borrowed, L.xyz, L.nv, L.tri, L.owner, L.np, L.rows, L.n, threads,
							   &err) == EXG_ERR_ARGUMENT && borrowed.nrows == 0 && !borrowed.borrowed,
			  "an index out of range is refused");
		*slot = saved;

		saved = L.owner[p];
		L.owner[p] = (uint32_t) L.n;
		CHECK(exg_batch_borrow(&borrowed, L.xyz, L.nv, L.tri, L.owner, L.np, L.rows, L.n, threads,
							   &err) == EXG_ERR_ARGUMENT && borrowed.nrows == 0,
			  "an owner out of range is refused");
		L.owner[p] = saved;
		if (p > 0 && L.owner[p] > 0 && L.owner[p - 1] == L.owner[p])
		{
			L.owner[p - 1] = L.owner[p] + 0;
			L.owner[p] = L.owner[p] - 1;
			CHECK(exg_batch_borrow(&borrowed, L.xyz, L.nv, L.tri, L.owner, L.np, L.rows, L.n,
								   threads, &err) == EXG_ERR_ARGUMENT && borrowed.nrows == 0,
				  "owners out of order are refused");
			L.owner[p] = saved;
			L.owner[p - 1] = saved;
		}
		/* a row boundary moved by one: owners in order and in range, wrong rows */
		for (size_t q = 0; q + 1 < L.np; q++)
			if (L.owner[q] != L.owner[q + 1])
			{
				saved = L.owner[q];
				L.owner[q] = L.owner[q + 1];
				CHECK(exg_batch_borrow(&borrowed, L.xyz, L.nv, L.tri, L.owner, L.np, L.rows, L.n,
									   threads, &err) == EXG_ERR_ARGUMENT && borrowed.nrows == 0,
					  "a primitive owned by the next row is refused");
				L.owner[q] = saved;
				break;
			}
		CHECK(exg_batch_borrow(&borrowed, L.xyz, L.nv + 1, L.tri, L.owner, L.np, L.rows, L.n,
							   threads, &err) == EXG_ERR_ARGUMENT && borrowed.nrows == 0,
			  "counts that disagree are refused");
		exg_batch_free(&borrowed);
	}
	CHECK(unchanged(&L, &s), "the bad layouts were restored");
	CHECK(exg_batch_borrow(&gathered, L.xyz, L.nv, L.tri, L.owner, L.np, L.rows, L.n, threads,
						   &err) == EXG_ERR_ARGUMENT, "only an empty batch borrows");

	/*
	 * a batch that borrowed an empty layout is empty, and may borrow again:
	 * the first arrays stay the caller's (freed twice here if it freed them)
	 */
	{
		layout		E;

		make_rows(&E, r, 0);
		lay_out(&E);
		exg_batch_init(&borrowed, 3, EXG_NONPLANAR_ERROR);
		CHECK(exg_batch_borrow(&borrowed, E.xyz, 0, E.tri, E.owner, 0, E.rows, 0, threads,
							   &err) == EXG_OK && borrowed.borrowed, "%s", err.message);
		CHECK(exg_batch_borrow(&borrowed, L.xyz, L.nv, L.tri, L.owner, L.np, L.rows, L.n, threads,
							   &err) == EXG_OK && borrowed.xyz == L.xyz && borrowed.nrows == L.n &&
			  borrowed.nprims == L.np, "%s", err.message);
		exg_batch_free(&borrowed);
		layout_free(&E);
	}

	exg_batch_free(&gathered);
	snap_free(&s);
	/* the caller frees its arrays: a batch that had freed them would fail here */
	layout_free(&L);
	layout_free(&more);
}

int
main(int argc, char **argv)
{
	long		rounds = argc > 1 ? atol(argv[1]) : 400;
	test_rng	r = {argc > 2 ? strtoull(argv[2], NULL, 10) : 20261124};

	for (long i = 0; i < rounds; i++)
		round_once(&r, (i & 1) ? 4 : 1);
	return test_summary("test_batch_borrow");
}
