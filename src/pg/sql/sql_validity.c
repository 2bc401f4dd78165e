/*
 * sql_validity.c — ST_ExactSelfIntersections3D, ST_ExactIsValidSolid and
 * ST_ExactIsValidSolidReason: is a closed surface a valid solid's boundary?
 */
#include "exactgpu.h"

#include "funcapi.h"
#include "utils/builtins.h"

#include "geom_cache.h"
#include "join_driver.h"

PG_FUNCTION_INFO_V1(exactgpu_self_intersections_3d);
PG_FUNCTION_INFO_V1(exactgpu_is_valid_solid);
PG_FUNCTION_INFO_V1(exactgpu_is_valid_solid_reason);

/* The proper triangles of a surface, with their faces (components). */
typedef struct SurfaceTriangles
{
	exg_prim_set set;
	uint32_t   *vidx;			/* palloc'ed */
	uint32_t   *face;			/* palloc'ed, 0-based */
	int64		not_surface;	/* 1-based face that is not a polygon, or 0 */
	int64		degenerate;		/* 1-based face with a zero-area triangle, or 0 */
} SurfaceTriangles;

static void
surface_triangles(exg_prepared *g, SurfaceTriangles *st, const char *context)
{
	const exg_view *v;
	exg_error	err = {0};
	size_t		t,
				n = 0,
				c;

	memset(st, 0, sizeof(*st));
	for (c = 0; c < g->shape.ncomps && st->not_surface == 0; c++)
		if (g->shape.comps[c].kind != EXG_COMP_POLYGON && g->shape.comps[c].kind != EXG_COMP_TRIANGLE)
			st->not_surface = (int64) c + 1;
	if (exg_prepared_view3d(g, false, &v, &err) != EXG_OK)
		exactgpu_report(&err, context);
	st->vidx = palloc(sizeof(uint32_t) * 3 * (v->prims.nprims + 1));
	st->face = palloc(sizeof(uint32_t) * (v->prims.nprims + 1));
	for (t = 0; t < v->prims.nprims; t++)
	{
		const exg_prim *pr = &v->prims.prims[t];

		if (pr->kind != EXG_SIMPLEX_TRIANGLE)
		{
			if (st->degenerate == 0)
				st->degenerate = (int64) v->prims.comp[t] + 1;
			continue;
		}
		memcpy(&st->vidx[3 * n], pr->v, 3 * sizeof(uint32_t));
		st->face[n++] = v->prims.comp[t];
	}
	st->set.xyz = v->prims.xyz;
	st->set.nverts = (uint32_t) g->shape.nverts;
	st->set.vidx = st->vidx;
	st->set.nprims = (uint32_t) n;
	st->set.arity = 3;
}

/*
 * Face pairs that meet improperly (malloc'ed, sorted, faces 0-based): the
 * surface joined with itself by the batch driver, with every join option.
 */
static exg_pair *
self_pairs(const SurfaceTriangles *st, size_t *n, const char *context)
{
	return exactgpu_join_self(&st->set, st->face, n, context);
}

Datum
exactgpu_self_intersections_3d(PG_FUNCTION_ARGS)
{
	const char *context = "ST_ExactSelfIntersections3D";
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	exg_prepared *g = exactgpu_geom_get(fcinfo, 0, NULL, context);
	SurfaceTriangles st;
	exg_pair   *pairs;
	size_t		n,
				i;

	surface_triangles(g, &st, context);
	pairs = self_pairs(&st, &n, context);
	InitMaterializedSRF(fcinfo, 0);
	for (i = 0; i < n; i++)
	{
		Datum		values[2] = {Int32GetDatum((int32) pairs[i].a + 1),
		Int32GetDatum((int32) pairs[i].b + 1)};
		bool		nulls[2] = {false, false};

		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
	}
	free(pairs);
	return (Datum) 0;
}

static char *
edge_text(const double *e)
{
	return psprintf("(%.17g %.17g %.17g)-(%.17g %.17g %.17g)", e[0], e[1], e[2], e[3], e[4], e[5]);
}

/*
 * A closed, consistently oriented surface without self-intersections may
 * still point inward: a shell is outward when the exact sign of its volume
 * is that of its nesting (+ outer, - cavity, + island in a cavity, ...).
 */
static char *
inside_out_reason(exg_prepared *g, const char *context)
{
	const exg_view *v;
	exg_outward_report rep;
	exg_error	err = {0};
	uint8_t    *flip = palloc(g->shape.ncomps + 1);
	exg_status	st;

	if (exg_prepared_view3d(g, false, &v, &err) != EXG_OK)
		exactgpu_report(&err, context);
	st = exg_outward_flips(&v->prims, (uint32_t) g->shape.ncomps, flip, &rep, &err);
	if (st == EXG_ERR_NOT_SOLID)
		return pstrdup(err.message);
	if (st != EXG_OK)
		exactgpu_report(&err, context);
	if (rep.inward_shells)
		return psprintf("inside out: %u of %u shells have inward normals (the exact signed volume of an outer shell is negative, or of a cavity positive), e.g. the shell of face %u; ST_ExactForceOutward(geom) orients it outward",
						rep.inward_shells, rep.shells, rep.first_inward_face);
	return NULL;
}

/* NULL when g bounds a valid solid, else why not. */
static char *
invalid_solid_reason(exg_prepared *g, const char *context)
{
	SurfaceTriangles st;
	exg_edge_report rep;
	exg_error	err = {0};
	uint32_t   *body;
	exg_pair   *pairs;
	size_t		n;

	if (exg_shape_is_empty(&g->shape))
		return pstrdup("empty geometry");
	surface_triangles(g, &st, context);
	if (st.not_surface)
		return psprintf("not a surface: component %lld is not a polygon or triangle",
						(long long) st.not_surface);
	if (st.degenerate)
		return psprintf("degenerate face %lld (zero area)", (long long) st.degenerate);
	body = palloc0(sizeof(uint32_t) * (st.set.nprims + 1));
	if (exg_mesh_edges(&st.set, body, 1, &rep, &err) != EXG_OK)
		exactgpu_report(&err, context);
	if (rep.odd)
		return psprintf("not closed: %llu edges used by an odd number of faces, e.g. %s",
						(unsigned long long) rep.odd, edge_text(rep.example));
	if (rep.non_manifold)
		return psprintf("not 2-manifold: %llu edges shared by more than two faces, e.g. %s",
						(unsigned long long) rep.non_manifold, edge_text(rep.example));
	if (rep.misoriented)
		return psprintf("inconsistently oriented: %llu edges used twice in the same direction, e.g. %s",
						(unsigned long long) rep.misoriented, edge_text(rep.example));
	pairs = self_pairs(&st, &n, context);
	if (n)
	{
		char	   *r = psprintf("self-intersecting: %zu pairs of faces meet improperly, e.g. faces %u and %u",
								 n, pairs[0].a + 1, pairs[0].b + 1);

		free(pairs);
		return r;
	}
	free(pairs);
	return inside_out_reason(g, context);
}

Datum
exactgpu_is_valid_solid(PG_FUNCTION_ARGS)
{
	exg_prepared *g = exactgpu_geom_get(fcinfo, 0, NULL, "ST_ExactIsValidSolid");

	PG_RETURN_BOOL(invalid_solid_reason(g, "ST_ExactIsValidSolid") == NULL);
}

Datum
exactgpu_is_valid_solid_reason(PG_FUNCTION_ARGS)
{
	exg_prepared *g = exactgpu_geom_get(fcinfo, 0, NULL, "ST_ExactIsValidSolidReason");
	char	   *why = invalid_solid_reason(g, "ST_ExactIsValidSolidReason");

	PG_RETURN_TEXT_P(cstring_to_text(why ? why : "valid solid"));
}
