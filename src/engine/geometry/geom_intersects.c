/*
 * geom_intersects.c — closed-set intersection of two prepared geometries.
 *
 * 3D: some primitive (point, segment, triangle) of one meets some primitive
 * of the other. 2D: some point or segment (linework and ring edges) meets
 * one of the other, or one geometry holds a component of the other inside
 * an area: with no boundary contact a connected component lies wholly
 * inside or wholly outside each area, so one vertex per component decides.
 *
 * The larger primitive set is indexed (bvh.c) and the smaller one queries
 * it; the first intersecting pair ends the search.
 */
#include "geom_prepared.h"

#include <stdlib.h>
#include <string.h>

#include "cancel.h"
#include "predicates_cpu.h"
#include "solid.h"

typedef struct pair_search
{
	const exg_prims *big;
	const exg_prims *small;
	size_t		q;				/* the small primitive being matched */
	exg_cpu_simplex qsx;
	int			naxes;
	uint64_t	tests;
} pair_search;

static inline int
pair_meets(pair_search *ps, size_t t)
{
	exg_cpu_simplex sx;
	int			r;

	if (!exg_boxes_meet(&ps->small->boxes[6 * ps->q], &ps->big->boxes[6 * t]))
		return 0;
	exg_cpu_simplex_of(ps->big->xyz, &ps->big->prims[t], &sx);
	ps->tests++;
	r = ps->naxes == 3 ? exg_cpu_simplex_simplex_3d(&ps->qsx, &sx)
		: exg_cpu_simplex_simplex_2d(&ps->qsx, &sx);
	return r == EXG_RESULT_INTERSECTS;
}

static int
visit_pair(void *ctx, uint32_t t)
{
	return pair_meets((pair_search *) ctx, t);
}

/* Does some primitive of view a meet some primitive of view b? */
static exg_status
views_meet(const exg_view *a, const exg_view *b, int naxes, bool *result, exg_error *err)
{
	const exg_view *big = a->prims.nprims >= b->prims.nprims ? a : b;
	const exg_view *small = big == a ? b : a;
	pair_search ps;
	size_t		q,
				t;

	*result = false;
	if (small->prims.nprims == 0 || !exg_boxes_meet(small->prims.box, big->prims.box))
		return EXG_OK;
	memset(&ps, 0, sizeof(ps));
	ps.big = &big->prims;
	ps.small = &small->prims;
	ps.naxes = naxes;

	for (q = 0; q < small->prims.nprims && !*result; q++)
	{
		if ((q & (EXG_CANCEL_STRIDE - 1)) == 0 && q > 0 && exg_cancel_requested())
			return exg_fail(err, EXG_ERR_INTERRUPTED, "canceled");
		if (!exg_boxes_meet(&small->prims.boxes[6 * q], big->prims.box))
			continue;
		ps.q = q;
		exg_cpu_simplex_of(small->prims.xyz, &small->prims.prims[q], &ps.qsx);
		if (big->indexed)
			*result = exg_bvh_query(&big->bvh, &small->prims.boxes[6 * q], visit_pair, &ps) != 0;
		else
			for (t = 0; t < big->prims.nprims && !*result; t++)
				*result = pair_meets(&ps, t);
	}
	exg_counters_local()->pair_tests += ps.tests;
	return EXG_OK;
}

exg_status
exg_intersects_3d(exg_prepared *a, exg_prepared *b, bool *result, exg_error *err)
{
	exg_round_state saved;
	exg_status	st;
	bool		a_big;

	*result = false;
	if (exg_shape_is_empty(&a->shape) || exg_shape_is_empty(&b->shape))
		return EXG_OK;
	if ((st = exg_prepared_view(a, 3, false, err)) != EXG_OK ||
		(st = exg_prepared_view(b, 3, false, err)) != EXG_OK)
		return st;
	a_big = a->view3d.prims.nprims >= b->view3d.prims.nprims;
	if ((st = exg_prepared_view(a_big ? a : b, 3, true, err)) != EXG_OK)
		return st;

	saved = exg_round_up_enter();
	st = views_meet(&a->view3d, &b->view3d, 3, result, err);
	exg_round_restore(saved);
	/* A solid also holds what lies wholly inside it, boundary untouched. */
	if (st == EXG_OK && !*result && b->shape.is_solid)
		st = exg_solid_holds_component(b, a, result, err);
	if (st == EXG_OK && !*result && a->shape.is_solid)
		st = exg_solid_holds_component(a, b, result, err);
	return st;
}

/* ---- 2D containment ---- */

static void
ring_box(const exg_shape *s, size_t r, double *box)
{
	size_t		v;
	int			k;

	for (k = 0; k < 2; k++)
		box[k] = box[3 + k] = s->xyz[3 * s->ring_start[r] + k];
	box[2] = box[5] = 0;
	for (v = s->ring_start[r] + 1; v < s->ring_start[r + 1]; v++)
		for (k = 0; k < 2; k++)
		{
			double		c = s->xyz[3 * v + k];

			box[k] = c < box[k] ? c : box[k];
			box[3 + k] = c > box[3 + k] ? c : box[3 + k];
		}
}

/*
 * Is p in the closed area of polygon/triangle component c? Crossing parity
 * of a ray towards +x over all rings, with the half-open rule on y; a zero
 * orientation within an edge's y-range means p is on that edge.
 */
static bool
point_in_area(const double *p, const exg_shape *s, const exg_comp *c)
{
	bool		inside = false;
	size_t		r;

	for (r = c->first_ring; r < c->first_ring + c->nrings; r++)
	{
		size_t		first = s->ring_start[r],
					n = exg_ring_nverts(s, r),
					t;

		for (t = 0; t < n; t++)
		{
			const double *a = &s->xyz[3 * (first + t)];
			const double *b = &s->xyz[3 * (first + (t + 1) % n)];
			int			o;

			if ((a[1] > p[1]) == (b[1] > p[1]))
			{
				/* horizontal or off to one side: only a boundary touch matters */
				if (a[1] == p[1] && b[1] == p[1] && exg_cpu_inbox2(p, a, b, 0, 1))
					return true;
				if (a[1] == p[1] && a[0] == p[0])
					return true;
				continue;
			}
			o = exg_orient2d_ru(a, b, p, 0, 1);
			if (o == 0)
				return true;
			if ((b[1] > a[1]) == (o > 0))
				inside = !inside;
		}
	}
	return inside;
}

static exg_status
areas_ensure(exg_prepared *g, exg_error *err)
{
	const exg_shape *s = &g->shape;
	double	   *boxes;
	size_t		ci;
	exg_status	st = EXG_OK;

	if (g->areas2d_built)
		return EXG_OK;
	g->area_comps = malloc(sizeof(uint32_t) * (s->ncomps ? s->ncomps : 1));
	boxes = malloc(sizeof(double) * 6 * (s->ncomps ? s->ncomps : 1));
	if (g->area_comps == NULL || boxes == NULL)
	{
		free(boxes);
		return exg_fail(err, EXG_ERR_NOMEM, "out of memory preparing geometry");
	}
	g->nareas = 0;
	for (ci = 0; ci < s->ncomps; ci++)
		if (s->comps[ci].kind == EXG_COMP_POLYGON || s->comps[ci].kind == EXG_COMP_TRIANGLE)
		{
			ring_box(s, s->comps[ci].first_ring, &boxes[6 * g->nareas]);
			g->area_comps[g->nareas++] = (uint32_t) ci;
		}
	st = exg_bvh_build(&g->areas2d, boxes, g->nareas, err);
	free(boxes);
	if (st == EXG_OK)
		g->areas2d_built = true;
	return st;
}

typedef struct area_search
{
	const exg_prepared *g;
	const double *p;
} area_search;

static int
visit_area(void *ctx, uint32_t t)
{
	area_search *as = ctx;

	return point_in_area(as->p, &as->g->shape, &as->g->shape.comps[as->g->area_comps[t]]);
}

/* Does an area of g hold a representative vertex of some component of h? */
static exg_status
areas_hold_component(exg_prepared *g, const exg_prepared *h, bool *result, exg_error *err)
{
	area_search as;
	size_t		ci;
	exg_status	st;

	*result = false;
	if ((st = areas_ensure(g, err)) != EXG_OK)
		return st;
	if (g->nareas == 0)
		return EXG_OK;
	as.g = g;
	for (ci = 0; ci < h->shape.ncomps && !*result; ci++)
	{
		const double *p = exg_vertex(&h->shape, h->shape.ring_start[h->shape.comps[ci].first_ring]);
		double		box[6] = {p[0], p[1], 0, p[0], p[1], 0};

		if ((ci & (EXG_CANCEL_STRIDE - 1)) == 0 && ci > 0 && exg_cancel_requested())
			return exg_fail(err, EXG_ERR_INTERRUPTED, "canceled");
		as.p = p;
		*result = exg_bvh_query(&g->areas2d, box, visit_area, &as) != 0;
	}
	return EXG_OK;
}

exg_status
exg_intersects_2d(exg_prepared *a, exg_prepared *b, bool *result, exg_error *err)
{
	exg_round_state saved;
	exg_status	st;
	bool		a_big;

	*result = false;
	if (exg_shape_is_empty(&a->shape) || exg_shape_is_empty(&b->shape))
		return EXG_OK;
	if ((st = exg_prepared_view(a, 2, false, err)) != EXG_OK ||
		(st = exg_prepared_view(b, 2, false, err)) != EXG_OK)
		return st;
	a_big = a->view2d.prims.nprims >= b->view2d.prims.nprims;
	if ((st = exg_prepared_view(a_big ? a : b, 2, true, err)) != EXG_OK)
		return st;

	saved = exg_round_up_enter();
	st = views_meet(&a->view2d, &b->view2d, 2, result, err);
	if (st == EXG_OK && !*result)
		st = areas_hold_component(b, a, result, err);
	if (st == EXG_OK && !*result)
		st = areas_hold_component(a, b, result, err);
	exg_round_restore(saved);
	return st;
}
