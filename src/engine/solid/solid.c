/*
 * solid.c — closed triangulated surfaces as volumes.
 */
#include "solid.h"

#include <stdlib.h>
#include <string.h>

#include "bvh.h"
#include "mesh_edges.h"
#include "predicates_cpu.h"
#include "solid_check.h"

/*
 * The edge report of a surface's triangles with area (degenerate ones are
 * segments or points here): what closure, orientation and volume are judged on.
 */
exg_status
exg_solid_edge_report(exg_prepared *g, exg_edge_report *rep, size_t *ntriangles, exg_error *err)
{
	const exg_view *v;
	uint32_t   *vidx,
			   *body;
	exg_prim_set T = {0};
	size_t		n = 0,
				t;
	exg_status	st;

	if ((st = exg_prepared_view3d(g, false, &v, err)) != EXG_OK)
		return st;
	vidx = malloc(sizeof(uint32_t) * 3 * (v->prims.nprims + 1));
	body = calloc(v->prims.nprims + 1, sizeof(uint32_t));
	if (vidx == NULL || body == NULL)
	{
		free(vidx);
		free(body);
		return exg_fail(err, EXG_ERR_NOMEM, "out of memory checking a surface");
	}
	for (t = 0; t < v->prims.nprims; t++)
		if (v->prims.prims[t].kind == EXG_SIMPLEX_TRIANGLE)
			memcpy(&vidx[3 * n++], v->prims.prims[t].v, 3 * sizeof(uint32_t));
	T.xyz = v->prims.xyz;
	T.nverts = (uint32_t) g->shape.nverts;
	T.vidx = vidx;
	T.nprims = (uint32_t) n;
	T.arity = 3;
	T.slice = false;
	st = exg_mesh_edges(&T, body, 1, rep, err);
	free(vidx);
	free(body);
	*ntriangles = n;
	return st;
}

exg_status
exg_solid_is_closed(exg_prepared *g, bool *closed, exg_error *err)
{
	exg_edge_report rep;
	size_t		n;
	exg_status	st;

	if (g->closed >= 0)
	{
		*closed = g->closed;
		return EXG_OK;
	}
	if ((st = exg_solid_edge_report(g, &rep, &n, err)) != EXG_OK)
		return st;
	*closed = n > 0 && rep.odd == 0;
	g->closed = *closed ? 1 : 0;
	return EXG_OK;
}

typedef struct column_probe
{
	const exg_prims *prims;
	const double *p;
	unsigned	crossings;
	bool		on;
} column_probe;

/* One triangle of the column above p: on it (stop), or crossed by the ray. */
static int
visit_column(void *ctx, uint32_t t)
{
	column_probe *cp = ctx;
	const exg_prim *pr = &cp->prims->prims[t];
	exg_cpu_simplex sx;
	int			r;

	exg_cpu_simplex_of(cp->prims->xyz, pr, &sx);
	r = exg_cpu_ray_simplex(cp->p, &sx);
	if (r == EXG_RAY_ON)
	{
		cp->on = true;
		return 1;
	}
	cp->crossings += r == EXG_RAY_CROSS;
	return 0;
}

exg_status
exg_solid_locate(exg_prepared *g, const double *p, exg_location *loc, exg_error *err)
{
	const exg_view *v;
	exg_round_state saved;
	column_probe cp = {0};
	exg_status	st;

	if ((st = exg_solid_require(g, NULL, EXG_SOLID_INSIDE, err)) != EXG_OK ||
		(st = exg_prepared_view3d(g, true, &v, err)) != EXG_OK)
		return st;

	/* the column above p: every triangle the upward ray can meet, and every
	 * triangle p can lie on */
	{
		double		column[6] = {p[0], p[1], p[2], p[0], p[1], v->prims.box[5]};

		if (column[5] < p[2])
			column[5] = p[2];
		saved = exg_round_up_enter();
		cp.prims = &v->prims;
		cp.p = p;
		exg_view_query(v, column, visit_column, &cp);
		exg_round_restore(saved);
	}
	*loc = cp.on ? EXG_LOC_BOUNDARY : ((cp.crossings & 1) ? EXG_LOC_INSIDE : EXG_LOC_OUTSIDE);
	return EXG_OK;
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

/*
 * The volume form: g meets the closed volume of body when it meets the
 * surface, or else (no contact, so each connected component of g lies
 * wholly inside or wholly outside) when one vertex of some component is
 * inside. The PostGIS solid flag plays no part: it does not survive text,
 * WKB or pg_dump, so the query, not the data, says "volume".
 */
exg_status
exg_intersects_solid_3d(exg_prepared *body, exg_prepared *g, bool *result, exg_error *err)
{
	exg_status	st;

	*result = false;
	if (exg_shape_is_empty(&body->shape))
		return EXG_OK;
	if ((st = exg_solid_require(body, NULL, EXG_SOLID_INSIDE, err)) != EXG_OK)
		return st;
	if ((st = exg_intersects_3d(body, g, result, err)) != EXG_OK || *result ||
		exg_shape_is_empty(&g->shape))
		return st;
	return exg_solid_holds_component(body, g, result, err);
}
