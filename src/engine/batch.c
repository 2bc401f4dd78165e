/*
 * batch.c — flattening rows of geometries into one primitive set, and the
 * join of two such sets mapped back to row pairs.
 */
#include "batch.h"

#include <stdlib.h>
#include <string.h>

#include "triangulate.h"

void
exg_batch_init(exg_batch *b, int naxes, exg_nonplanar_policy policy)
{
	memset(b, 0, sizeof(*b));
	b->naxes = naxes;
	b->policy = policy;
}

void
exg_batch_free(exg_batch *b)
{
	free(b->xyz);
	free(b->tri);
	free(b->owner);
	memset(b, 0, sizeof(*b));
}

static bool
grow(void **buf, size_t *cap, size_t need, size_t elem, size_t *cap_out)
{
	size_t		ncap;
	void	   *nb;

	if (need <= *cap)
		return true;
	ncap = *cap ? *cap : 1024;
	while (ncap < need)
		ncap *= 2;
	nb = realloc(*buf, ncap * elem);
	if (nb == NULL)
		return false;
	*buf = nb;
	if (cap_out)
		*cap_out = ncap;
	return true;
}

/* Append a vertex (z = 0 in a 2D batch); returns its index or UINT32_MAX. */
static uint32_t
add_vertex(exg_batch *b, const double *v)
{
	if (b->nverts >= UINT32_MAX - 1)
		return UINT32_MAX;
	if (!grow((void **) &b->xyz, &b->verts_cap, b->nverts + 1, 3 * sizeof(double), NULL))
		return UINT32_MAX;
	b->xyz[3 * b->nverts] = v[0];
	b->xyz[3 * b->nverts + 1] = v[1];
	b->xyz[3 * b->nverts + 2] = b->naxes == 2 ? 0 : v[2];
	return (uint32_t) b->nverts++;
}

static exg_status
add_prim(exg_batch *b, uint32_t i0, uint32_t i1, uint32_t i2, exg_error *err)
{
	size_t		cap = b->prims_cap;

	if (i0 == UINT32_MAX || i1 == UINT32_MAX || i2 == UINT32_MAX || b->nprims >= UINT32_MAX - 1)
		return exg_fail(err, EXG_ERR_TOO_LARGE, "too many vertices or primitives in one join input");
	if (!grow((void **) &b->tri, &cap, b->nprims + 1, 3 * sizeof(uint32_t), NULL) ||
		!grow((void **) &b->owner, &b->prims_cap, b->nprims + 1, sizeof(uint32_t), NULL))
		return exg_fail(err, EXG_ERR_NOMEM, "out of memory collecting join input");
	b->tri[3 * b->nprims] = i0;
	b->tri[3 * b->nprims + 1] = i1;
	b->tri[3 * b->nprims + 2] = i2;
	b->owner[b->nprims] = (uint32_t) b->nrows;
	b->nprims++;
	return EXG_OK;
}

/* Primitives of the 3D view, copied with their vertices. */
static exg_status
add_3d(exg_batch *b, const exg_shape *s, exg_error *err)
{
	exg_prims	p;
	exg_status	st = exg_prims_build_3d(s, b->policy, &p, err);
	size_t		t;

	if (st != EXG_OK)
		return st;
	for (t = 0; t < p.nprims && st == EXG_OK; t++)
	{
		const exg_prim *pr = &p.prims[t];
		uint32_t	v0 = add_vertex(b, &s->xyz[3 * pr->v[0]]);
		uint32_t	v1 = pr->kind == EXG_SIMPLEX_POINT ? v0 : add_vertex(b, &s->xyz[3 * pr->v[1]]);
		uint32_t	v2 = pr->kind == EXG_SIMPLEX_TRIANGLE ? add_vertex(b, &s->xyz[3 * pr->v[2]]) : v1;

		st = add_prim(b, v0, v1, v2, err);
	}
	exg_prims_free(&p);
	return st;
}

/* Ring r's consecutive segments (a ring of one vertex is a point). */
static exg_status
add_ring_edges(exg_batch *b, const exg_shape *s, size_t r, exg_error *err)
{
	size_t		first = s->ring_start[r],
				end = s->ring_start[r + 1],
				v;
	exg_status	st = EXG_OK;

	if (end - first == 1)
	{
		uint32_t	p = add_vertex(b, &s->xyz[3 * first]);

		return add_prim(b, p, p, p, err);
	}
	for (v = first; v + 1 < end && st == EXG_OK; v++)
	{
		uint32_t	p = add_vertex(b, &s->xyz[3 * v]),
					q = add_vertex(b, &s->xyz[3 * (v + 1)]);

		st = add_prim(b, p, q, q, err);
	}
	return st;
}

/* A polygon in the plane: exact triangulation, or its boundary if flat. */
static exg_status
add_polygon_2d(exg_batch *b, const exg_shape *s, const exg_comp *c, exg_error *err)
{
	size_t		total = 0,
				r,
				t,
				k = 0;
	double	   *xy;
	size_t	   *starts;
	uint32_t   *map,
			   *tris = NULL;
	size_t		ntris = 0;
	exg_status	st;

	for (r = c->first_ring; r < c->first_ring + c->nrings; r++)
		total += exg_ring_nverts(s, r);
	xy = malloc(sizeof(double) * 2 * (total + 1));
	map = malloc(sizeof(uint32_t) * (total + 1));
	starts = malloc(sizeof(size_t) * (c->nrings + 1));
	if (xy == NULL || map == NULL || starts == NULL)
	{
		free(xy);
		free(map);
		free(starts);
		return exg_fail(err, EXG_ERR_NOMEM, "out of memory triangulating a polygon");
	}
	for (r = c->first_ring; r < c->first_ring + c->nrings; r++)
	{
		size_t		first = s->ring_start[r],
					n = exg_ring_nverts(s, r);

		/* rings without their closing vertex */
		if (n > 1 && s->xyz[3 * first] == s->xyz[3 * (first + n - 1)] &&
			s->xyz[3 * first + 1] == s->xyz[3 * (first + n - 1) + 1])
			n--;
		starts[r - c->first_ring] = k;
		for (t = first; t < first + n; t++)
		{
			xy[2 * k] = s->xyz[3 * t];
			xy[2 * k + 1] = s->xyz[3 * t + 1];
			map[k++] = (uint32_t) t;
		}
	}
	starts[c->nrings] = k;
	st = exg_triangulate_polygon(xy, k, starts, c->nrings, &tris, &ntris, err);
	if (st == EXG_OK && ntris == 0)
	{
		for (r = c->first_ring; r < c->first_ring + c->nrings && st == EXG_OK; r++)
			st = add_ring_edges(b, s, r, err);
	}
	for (t = 0; t < ntris && st == EXG_OK; t++)
		st = add_prim(b, add_vertex(b, &s->xyz[3 * map[tris[3 * t]]]),
					  add_vertex(b, &s->xyz[3 * map[tris[3 * t + 1]]]),
					  add_vertex(b, &s->xyz[3 * map[tris[3 * t + 2]]]), err);
	free(xy);
	free(map);
	free(starts);
	free(tris);
	return st;
}

/* The 2D view: everything at z = 0, areas as exact triangles. */
static exg_status
add_2d(exg_batch *b, const exg_shape *s, exg_error *err)
{
	exg_status	st = EXG_OK;
	size_t		ci;

	for (ci = 0; ci < s->ncomps && st == EXG_OK; ci++)
	{
		const exg_comp *c = &s->comps[ci];
		size_t		first = s->ring_start[c->first_ring];

		if (c->kind == EXG_COMP_POLYGON)
			st = add_polygon_2d(b, s, c, err);
		else if (c->kind == EXG_COMP_TRIANGLE && exg_ring_nverts(s, c->first_ring) >= 3)
			st = add_prim(b, add_vertex(b, &s->xyz[3 * first]),
						  add_vertex(b, &s->xyz[3 * (first + 1)]),
						  add_vertex(b, &s->xyz[3 * (first + 2)]), err);
		else
			st = add_ring_edges(b, s, c->first_ring, err);
	}
	return st;
}

exg_status
exg_batch_add(exg_batch *b, const exg_shape *s, exg_error *err)
{
	exg_status	st;

	if (b->nrows >= UINT32_MAX - 1)
		return exg_fail(err, EXG_ERR_TOO_LARGE, "too many rows in one join input");
	st = b->naxes == 3 ? add_3d(b, s, err) : add_2d(b, s, err);
	b->nrows++;
	return st;
}

exg_prim_set
exg_batch_prims(const exg_batch *b)
{
	exg_prim_set S = {b->xyz, (uint32_t) b->nverts, b->tri, (uint32_t) b->nprims, 3};

	return S;
}

static int
cmp_u64(const void *x, const void *y)
{
	uint64_t	a = *(const uint64_t *) x,
				c = *(const uint64_t *) y;

	return (a > c) - (a < c);
}

exg_status
exg_batch_join(const exg_batch *L, const exg_batch *R, const exg_join_options *opt,
			   uint64_t **rows_out, size_t *nrows_out, exg_join_stats *stats, exg_error *err)
{
	exg_prim_set A = exg_batch_prims(L),
				B = exg_batch_prims(R);
	exg_pair   *pairs = NULL;
	size_t		n = 0,
				i,
				m = 0;
	uint64_t   *rows;
	exg_status	st;

	*rows_out = NULL;
	*nrows_out = 0;
	st = exg_join(&A, &B, opt, &pairs, &n, stats, err);
	if (st != EXG_OK)
		return st;
	rows = malloc(sizeof(uint64_t) * (n ? n : 1));
	if (rows == NULL)
	{
		exg_join_pairs_free(pairs);
		return exg_fail(err, EXG_ERR_NOMEM, "out of memory for join results");
	}
	for (i = 0; i < n; i++)
		rows[i] = ((uint64_t) L->owner[pairs[i].a] << 32) | R->owner[pairs[i].b];
	exg_join_pairs_free(pairs);
	/* primitive pairs are sorted by left primitive, so rows are nearly sorted */
	qsort(rows, n, sizeof(uint64_t), cmp_u64);
	for (i = 0; i < n; i++)
		if (m == 0 || rows[i] != rows[m - 1])
			rows[m++] = rows[i];
	*rows_out = rows;
	*nrows_out = m;
	return EXG_OK;
}
