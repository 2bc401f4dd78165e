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
} SurfaceTriangles;

static void
surface_triangles(exg_prepared *g, SurfaceTriangles *st, const char *context)
{
	const exg_view *v;
	exg_error	err = {0};
	size_t		t,
				n = 0;

	memset(st, 0, sizeof(*st));
	if (exg_prepared_view3d(g, false, &v, &err) != EXG_OK)
		exactgpu_report(&err, context);
	st->vidx = palloc(sizeof(uint32_t) * 3 * (v->prims.nprims + 1));
	st->face = palloc(sizeof(uint32_t) * (v->prims.nprims + 1));
	for (t = 0; t < v->prims.nprims; t++)
	{
		const exg_prim *pr = &v->prims.prims[t];

		if (pr->kind != EXG_SIMPLEX_TRIANGLE)
			continue;			/* zero area: validity reports it */
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

/*
 * NULL when g bounds a valid solid, else why not: the engine's one decision
 * (solid_check.h), which every volume function refuses on, kept with the
 * cached geometry.
 */
static char *
invalid_solid_reason(FunctionCallInfo fcinfo, exg_prepared *g, const char *context)
{
	char		why[EXG_ERROR_MESSAGE_LEN];

	return exactgpu_solid_verdict(fcinfo, g, true, why, sizeof(why), context) ? NULL : pstrdup(why);
}

Datum
exactgpu_is_valid_solid(PG_FUNCTION_ARGS)
{
	exg_prepared *g = exactgpu_geom_get(fcinfo, 0, NULL, "ST_ExactIsValidSolid");

	PG_RETURN_BOOL(invalid_solid_reason(fcinfo, g, "ST_ExactIsValidSolid") == NULL);
}

Datum
exactgpu_is_valid_solid_reason(PG_FUNCTION_ARGS)
{
	exg_prepared *g = exactgpu_geom_get(fcinfo, 0, NULL, "ST_ExactIsValidSolidReason");
	char	   *why = invalid_solid_reason(fcinfo, g, "ST_ExactIsValidSolidReason");

	PG_RETURN_TEXT_P(cstring_to_text(why ? why : "valid solid"));
}
