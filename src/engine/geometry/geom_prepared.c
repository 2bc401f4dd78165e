/*
 * geom_prepared.c — a prepared geometry's views: its primitives in 3D or
 * 2D, built once, and their index, built when a search asks for it. The
 * intersection tests (geom_intersects.c) and the solid tests (solid.c,
 * intercepts.c) read geometries through these.
 */
#include "geom_prepared.h"

#include <stdlib.h>
#include <string.h>

void
exg_prepared_init(exg_prepared *g, exg_shape *shape, exg_nonplanar_policy policy)
{
	memset(g, 0, sizeof(*g));
	g->shape = *shape;
	g->policy = policy;
	g->closed = -1;
	exg_shape_init(shape);
}

/* Free what a view owns: a part borrowed from a packed block is not ours. */
static void
view_free(exg_view *v, bool prims_borrowed, bool index_borrowed)
{
	if (!prims_borrowed)
		exg_prims_free(&v->prims);
	if (!index_borrowed)
		exg_bvh_free(&v->bvh);
	memset(v, 0, sizeof(*v));
}

void
exg_prepared_free(exg_prepared *g)
{
	exg_view   *views[3] = {&g->view3d, &g->view2d, &g->areas2d};

	for (int i = 0; i < 3; i++)
		view_free(views[i], (g->borrowed & (EXG_BORROWED_VIEW3D << i)) != 0,
				  (g->borrowed & (EXG_BORROWED_INDEX3D << i)) != 0);
	if (!(g->borrowed & EXG_BORROWED_SHAPE))
		exg_shape_free(&g->shape);
	memset(g, 0, sizeof(*g));
}

exg_status
exg_prepared_view(exg_prepared *g, int naxes, bool want_index, exg_error *err)
{
	exg_view   *v = naxes == 3 ? &g->view3d : &g->view2d;
	exg_status	st;

	if (!v->built)
	{
		st = naxes == 3 ? exg_prims_build_3d(&g->shape, g->policy, &v->prims, err)
			: exg_prims_build_2d(&g->shape, &v->prims, err);
		if (st != EXG_OK)
			return st;
		v->built = true;
	}
	if (want_index && !v->indexed && v->prims.nprims > EXG_INDEX_MIN_PRIMS)
	{
		st = exg_bvh_build(&v->bvh, v->prims.boxes, (uint32_t) v->prims.nprims, err);
		if (st != EXG_OK)
			return st;
		v->indexed = true;
	}
	return EXG_OK;
}

exg_status
exg_prepared_areas2d(exg_prepared *g, exg_error *err)
{
	exg_view   *v = &g->areas2d;
	exg_status	st;

	if (!v->built)
	{
		if ((st = exg_prims_build_areas_2d(&g->shape, &v->prims, err)) != EXG_OK)
			return st;
		v->built = true;
	}
	if (!v->indexed && v->prims.nprims > EXG_INDEX_MIN_PRIMS)
	{
		if ((st = exg_bvh_build(&v->bvh, v->prims.boxes, (uint32_t) v->prims.nprims, err)) != EXG_OK)
			return st;
		v->indexed = true;
	}
	return EXG_OK;
}

int
exg_view_query(const exg_view *v, const double *box, exg_bvh_visit_fn visit, void *ctx)
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

exg_status
exg_prepared_view3d(exg_prepared *g, bool indexed, const exg_view **view, exg_error *err)
{
	exg_status	st = exg_prepared_view(g, 3, indexed, err);

	*view = &g->view3d;
	return st;
}
