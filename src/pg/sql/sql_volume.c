/*
 * sql_volume.c — ST_ExactVolume and ST_ExactForceOutward: the exact volume
 * of a closed body, and the body oriented outward.
 */
#include "exactgpu.h"

#include "lib/stringinfo.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"

#include "geom_cache.h"
#include "exactgpu_engine.h"

PG_FUNCTION_INFO_V1(exactgpu_volume);
PG_FUNCTION_INFO_V1(exactgpu_force_outward);

/*
 * ST_ExactVolume(solid) -> float8: the enclosed volume, exact and rounded
 * once. Never negative: a body that is no valid solid (solid_check.h:
 * open, inside out, self-intersecting, ...) is an error (22023) with the
 * reason, so volume x density is never a wrong tonnage by surprise.
 */
Datum
exactgpu_volume(PG_FUNCTION_ARGS)
{
	const char *context = "ST_ExactVolume";
	exg_prepared *g = exactgpu_geom_get(fcinfo, 0, NULL, context);
	exg_error	err = {0};
	double		vol;

	/* judged once per stored body, with this session's settings */
	if (!exg_shape_is_empty(&g->shape))
		exactgpu_require_solid(fcinfo, g, true, context);
	if (exg_solid_volume(g, &vol, &err) != EXG_OK)
		exactgpu_report(&err, context);
	PG_RETURN_FLOAT8(vol);
}

static void
append_ring(StringInfo buf, const exg_shape *s, size_t r, bool reverse)
{
	size_t		first = s->ring_start[r],
				n = exg_ring_nverts(s, r);

	appendStringInfoChar(buf, '(');
	for (size_t i = 0; i < n; i++)
	{
		/* reversed, the closing vertex stays last: v0, v(n-2), ..., v1, v0 */
		size_t		k = !reverse || i == 0 || i == n - 1 ? i : n - 1 - i;
		const double *p = exg_vertex(s, first + k);

		/* %.17g round-trips every double exactly through PostGIS's parser */
		appendStringInfo(buf, "%s%.17g %.17g %.17g", i ? "," : "", p[0], p[1], p[2]);
	}
	appendStringInfoChar(buf, ')');
}

/*
 * ST_ExactForceOutward(solid) -> geometry: the closed surface with every
 * face oriented so that its normal points out of the solid (cavities'
 * shells point into the cavity). Faces are reversed as outward.h decides;
 * a body already outward comes back unchanged. The result is a TIN when
 * every face is a triangle, else a POLYHEDRALSURFACE, with the input's SRID
 * (M values and the solid flag are not kept).
 */
Datum
exactgpu_force_outward(PG_FUNCTION_ARGS)
{
	const char *context = "ST_ExactForceOutward";
	exg_prepared *g = exactgpu_geom_get(fcinfo, 0, NULL, context);
	const exg_shape *s = &g->shape;
	const exg_view *v;
	exg_outward_report rep;
	exg_error	err = {0};
	uint8_t    *flip;
	bool		all_triangles = true;
	StringInfoData buf;
	Oid			infunc,
				ioparam;

	if (exg_shape_is_empty(s))
		PG_RETURN_DATUM(PG_GETARG_DATUM(0));
	for (size_t c = 0; c < s->ncomps; c++)
	{
		if (s->comps[c].kind != EXG_COMP_POLYGON && s->comps[c].kind != EXG_COMP_TRIANGLE)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("%s: not a surface: component %zu is not a polygon or triangle", context, c + 1),
					 errhint("Pass a closed TIN or POLYHEDRALSURFACE.")));
		all_triangles &= s->comps[c].kind == EXG_COMP_TRIANGLE;
	}
	if (exg_prepared_view3d(g, false, &v, &err) != EXG_OK)
		exactgpu_report(&err, context);
	flip = palloc(s->ncomps + 1);
	if (exg_outward_flips(&v->prims, (uint32_t) s->ncomps, flip, &rep, &err) != EXG_OK)
		exactgpu_report(&err, context);
	if (rep.flipped_faces == 0)
		PG_RETURN_DATUM(PG_GETARG_DATUM(0));

	initStringInfo(&buf);
	if (s->srid != 0)
		appendStringInfo(&buf, "SRID=%d;", s->srid);
	appendStringInfoString(&buf, all_triangles ? "TIN Z (" : "POLYHEDRALSURFACE Z (");
	for (size_t c = 0; c < s->ncomps; c++)
	{
		const exg_comp *comp = &s->comps[c];

		if (c > 0)
			appendStringInfoChar(&buf, ',');
		appendStringInfoChar(&buf, '(');
		for (uint32_t r = 0; r < comp->nrings; r++)
		{
			if (r > 0)
				appendStringInfoChar(&buf, ',');
			append_ring(&buf, s, comp->first_ring + r, flip[c] != 0);
		}
		appendStringInfoChar(&buf, ')');
	}
	appendStringInfoChar(&buf, ')');
	getTypeInputInfo(get_fn_expr_rettype(fcinfo->flinfo), &infunc, &ioparam);
	PG_RETURN_DATUM(OidInputFunctionCall(infunc, buf.data, ioparam, -1));
}
