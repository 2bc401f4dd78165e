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
	/* both views first: an invalid polygon is an error whatever the other side */
	if ((st = exg_prepared_view(a, 3, false, err)) != EXG_OK ||
		(st = exg_prepared_view(b, 3, false, err)) != EXG_OK)
		return st;
	if (exg_shape_is_empty(&a->shape) || exg_shape_is_empty(&b->shape))
		return EXG_OK;
	a_big = a->view3d.prims.nprims >= b->view3d.prims.nprims;
	if ((st = exg_prepared_view(a_big ? a : b, 3, true, err)) != EXG_OK)
		return st;

	saved = exg_round_up_enter();
	st = views_meet(&a->view3d, &b->view3d, 3, result, err);
	exg_round_restore(saved);
	return st;
}

/* ---- 2D containment ---- */

/*
 * The areas are the exact triangles of the polygons (the triangulator is the
 * one place that decides polygon validity, for every form), so containment
 * is a point-in-closed-triangle test through the triangles' index.
 */
typedef struct area_search
{
	const exg_prims *areas;
	exg_cpu_simplex p;
	uint64_t	tests;
} area_search;

static int
visit_area(void *ctx, uint32_t t)
{
	area_search *as = ctx;
	exg_cpu_simplex tri;

	exg_cpu_simplex_of(as->areas->xyz, &as->areas->prims[t], &tri);
	as->tests++;
	return exg_cpu_simplex_simplex_2d(&as->p, &tri) == EXG_RESULT_INTERSECTS;
}

/* Does an area of g hold a representative vertex of some component of h? */
static exg_status
areas_hold_component(exg_prepared *g, const exg_prepared *h, bool *result, exg_error *err)
{
	area_search as;
	size_t		ci;

	*result = false;
	if (g->areas2d.prims.nprims == 0)
		return EXG_OK;
	memset(&as, 0, sizeof(as));
	as.areas = &g->areas2d.prims;
	for (ci = 0; ci < h->shape.ncomps && !*result; ci++)
	{
		const double *p = exg_vertex(&h->shape, h->shape.ring_start[h->shape.comps[ci].first_ring]);
		double		box[6] = {p[0], p[1], 0, p[0], p[1], 0};

		if ((ci & (EXG_CANCEL_STRIDE - 1)) == 0 && ci > 0 && exg_cancel_requested())
			return exg_fail(err, EXG_ERR_INTERRUPTED, "canceled");
		exg_cpu_classify_segment(p, p, 2, &as.p);
		*result = exg_view_query(&g->areas2d, box, visit_area, &as) != 0;
	}
	exg_counters_local()->pair_tests += as.tests;
	return EXG_OK;
}

exg_status
exg_intersects_2d(exg_prepared *a, exg_prepared *b, bool *result, exg_error *err)
{
	exg_round_state saved;
	exg_status	st;
	bool		a_big;

	*result = false;
	/* the areas first: an invalid polygon is an error whatever the other side */
	if ((st = exg_prepared_areas2d(a, err)) != EXG_OK || (st = exg_prepared_areas2d(b, err)) != EXG_OK)
		return st;
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
