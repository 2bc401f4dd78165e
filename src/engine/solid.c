/*
 * solid.c — closed triangulated surfaces as volumes.
 */
#include "solid.h"

#include <stdlib.h>
#include <string.h>

#include "bvh.h"
#include "predicates_cpu.h"

#define MAX_RAY_TRIES 64

typedef struct edge_key
{
	double		v[6];			/* the lexicographically smaller end first */
} edge_key;

static int
edge_cmp(const void *x, const void *y)
{
	const double *a = ((const edge_key *) x)->v,
			   *b = ((const edge_key *) y)->v;
	int			k;

	for (k = 0; k < 6; k++)
		if (a[k] != b[k])
			return a[k] < b[k] ? -1 : 1;
	return 0;
}

exg_status
exg_solid_is_closed(exg_prepared *g, bool *closed, exg_error *err)
{
	const exg_view *v;
	edge_key   *edges;
	size_t		n = 0,
				t,
				i,
				run;
	exg_status	st;

	if (g->closed >= 0)
	{
		*closed = g->closed;
		return EXG_OK;
	}
	if ((st = exg_prepared_view3d(g, false, &v, err)) != EXG_OK)
		return st;
	edges = malloc(sizeof(edge_key) * 3 * (v->prims.nprims + 1));
	if (edges == NULL)
		return exg_fail(err, EXG_ERR_NOMEM, "out of memory checking a surface");
	for (t = 0; t < v->prims.nprims; t++)
	{
		const exg_prim *pr = &v->prims.prims[t];
		int			e;

		if (pr->kind != EXG_SIMPLEX_TRIANGLE)
			continue;
		for (e = 0; e < 3; e++)
		{
			const double *a = &v->prims.xyz[3 * pr->v[e]];
			const double *b = &v->prims.xyz[3 * pr->v[(e + 1) % 3]];

			if (exg_cpu_lexless(b, a, 3, 0, 1))
			{
				const double *tmp = a;

				a = b;
				b = tmp;
			}
			memcpy(edges[n].v, a, 3 * sizeof(double));
			memcpy(edges[n].v + 3, b, 3 * sizeof(double));
			n++;
		}
	}
	qsort(edges, n, sizeof(edge_key), edge_cmp);
	*closed = n > 0;
	for (i = 0; i < n && *closed; i += run)
	{
		for (run = 1; i + run < n && edge_cmp(&edges[i], &edges[i + run]) == 0; run++)
			;
		*closed = (run % 2) == 0;
	}
	free(edges);
	g->closed = *closed ? 1 : 0;
	return EXG_OK;
}

typedef struct boundary_probe
{
	const exg_prims *prims;
	exg_cpu_simplex point;
} boundary_probe;

static int
visit_boundary(void *ctx, uint32_t t)
{
	boundary_probe *bp = ctx;
	const exg_prim *pr = &bp->prims->prims[t];
	exg_cpu_simplex sx;

	sx.kind = pr->kind;
	sx.k = pr->k;
	sx.s = pr->s;
	sx.v[0] = &bp->prims->xyz[3 * pr->v[0]];
	sx.v[1] = &bp->prims->xyz[3 * pr->v[1]];
	sx.v[2] = &bp->prims->xyz[3 * pr->v[2]];
	return exg_cpu_simplex_simplex_3d(&bp->point, &sx) == EXG_RESULT_INTERSECTS;
}

typedef struct ray_probe
{
	const exg_prims *prims;
	const double *p;
	const double *r;
	unsigned	crossings;
} ray_probe;

/* Count a crossing of segment p-r with triangle t; return 1 (stop) on a degeneracy. */
static int
visit_ray(void *ctx, uint32_t t)
{
	ray_probe  *rp = ctx;
	const exg_prim *pr = &rp->prims->prims[t];
	const double *a,
			   *b,
			   *c;
	int			s1,
				s2,
				t1,
				t2,
				t3;

	if (pr->kind != EXG_SIMPLEX_TRIANGLE)
		return 0;				/* no area: no crossing */
	a = &rp->prims->xyz[3 * pr->v[0]];
	b = &rp->prims->xyz[3 * pr->v[1]];
	c = &rp->prims->xyz[3 * pr->v[2]];
	s2 = exg_orient3d_ru(a, b, c, rp->r);
	if (s2 == 0)
		return 1;				/* the far end lies in the face's plane */
	s1 = exg_orient3d_ru(a, b, c, rp->p);
	if (s1 == 0 || s1 == s2)
		return 0;				/* p on the plane (off the face: boundary excluded), or one side */
	t1 = exg_orient3d_ru(rp->p, rp->r, a, b);
	t2 = exg_orient3d_ru(rp->p, rp->r, b, c);
	t3 = exg_orient3d_ru(rp->p, rp->r, c, a);
	if (t1 == 0 || t2 == 0 || t3 == 0)
		return 1;				/* through an edge or a vertex */
	if (t1 == t2 && t2 == t3)
		rp->crossings++;
	return 0;
}

/* Visit the primitives whose boxes meet box: through the index, else all. */
static int
view_query(const exg_view *v, const double *box, exg_bvh_visit_fn visit, void *ctx)
{
	size_t		t;
	int			r;

	if (v->indexed)
		return exg_bvh_query(&v->bvh, box, visit, ctx);
	for (t = 0; t < v->prims.nprims; t++)
		if (exg_boxes_meet(box, &v->prims.boxes[6 * t]) && (r = visit(ctx, (uint32_t) t)) != 0)
			return r;
	return 0;
}

/* Deterministic, well-spread offsets in (-1/2, 1/2): the golden-ratio sequences. */
static double
spread(unsigned k, double step)
{
	double		x = k * step;

	return x - (double) (long) x - 0.5;
}

exg_status
exg_solid_locate(exg_prepared *g, const double *p, exg_location *loc, exg_error *err)
{
	const exg_view *v;
	exg_round_state saved;
	boundary_probe bp;
	ray_probe	rp;
	double		box[6] = {p[0], p[1], p[2], p[0], p[1], p[2]};
	double		r[3],
				ext;
	bool		closed;
	exg_status	st;
	unsigned	k;
	int			stopped;

	if ((st = exg_solid_is_closed(g, &closed, err)) != EXG_OK ||
		(st = exg_prepared_view3d(g, true, &v, err)) != EXG_OK)
		return st;
	if (!closed)
		return exg_fail(err, EXG_ERR_INVALID,
						"the surface is not closed (an edge is not shared by an even number of triangles), so it has no inside");

	saved = exg_round_up_enter();
	bp.prims = &v->prims;
	exg_cpu_classify_segment(p, p, 3, &bp.point);
	if (view_query(v, box, visit_boundary, &bp) != 0)
	{
		exg_round_restore(saved);
		*loc = EXG_LOC_BOUNDARY;
		return EXG_OK;
	}

	ext = v->prims.box[3] - v->prims.box[0];
	ext = ext > v->prims.box[4] - v->prims.box[1] ? ext : v->prims.box[4] - v->prims.box[1];
	ext = ext > v->prims.box[5] - v->prims.box[2] ? ext : v->prims.box[5] - v->prims.box[2];
	ext = ext > 0 ? ext : 1;
	for (k = 0; k < MAX_RAY_TRIES; k++)
	{
		double		sbox[6];
		int			i;

		/* beyond the box in +x; y and z spread so that a retry changes direction */
		r[0] = v->prims.box[3] + ext + 1;
		r[1] = p[1] + ext * spread(k + 1, 0.6180339887498949);
		r[2] = p[2] + ext * spread(k + 1, 0.7548776662466927);
		for (i = 0; i < 3; i++)
		{
			sbox[i] = p[i] < r[i] ? p[i] : r[i];
			sbox[3 + i] = p[i] < r[i] ? r[i] : p[i];
		}
		rp.prims = &v->prims;
		rp.p = p;
		rp.r = r;
		rp.crossings = 0;
		stopped = view_query(v, sbox, visit_ray, &rp);
		if (!stopped)
		{
			exg_round_restore(saved);
			*loc = (rp.crossings & 1) ? EXG_LOC_INSIDE : EXG_LOC_OUTSIDE;
			return EXG_OK;
		}
	}
	exg_round_restore(saved);
	return exg_fail(err, EXG_ERR_INVALID, "no ray direction avoided the surface's edges after %d tries",
					MAX_RAY_TRIES);
}

exg_status
exg_solid_holds_component(exg_prepared *g, const exg_prepared *h, bool *result, exg_error *err)
{
	size_t		ci;

	*result = false;
	for (ci = 0; ci < h->shape.ncomps && !*result; ci++)
	{
		const double *p = exg_vertex(&h->shape, h->shape.ring_start[h->shape.comps[ci].first_ring]);
		exg_location loc;
		exg_status	st = exg_solid_locate(g, p, &loc, err);

		if (st != EXG_OK)
			return st;
		*result = loc != EXG_LOC_OUTSIDE;
	}
	return EXG_OK;
}
