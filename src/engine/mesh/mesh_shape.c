/*
 * mesh_shape.c — the triangles of a surface geometry as a mesh, for the
 * writers. Corners are welded by their bits, in order of first use: the
 * file then lists each distinct corner once, and reading it back gives
 * every triangle the very doubles it had, in the same corner order.
 */
#include "mesh.h"

#include <stdlib.h>
#include <string.h>

#include "cancel.h"

exg_status
exg_mesh_from_shape(const exg_shape *s, exg_mesh *out, exg_error *err)
{
	exg_status	st = EXG_OK;

	for (size_t c = 0; c < s->ncomps; c++)
	{
		const exg_comp *comp = &s->comps[c];
		size_t		r = comp->first_ring;

		if ((comp->kind != EXG_COMP_TRIANGLE && comp->kind != EXG_COMP_POLYGON) ||
			comp->nrings != 1 || exg_ring_nverts(s, r) != 4)
			return exg_fail(err, EXG_ERR_WRONG_KIND,
							"component %zu is not a triangle (%s)", c + 1,
							comp->kind == EXG_COMP_POLYGON ?
							(comp->nrings != 1 ? "a polygon with holes" : "a polygon of more than 3 corners") :
							comp->kind == EXG_COMP_LINE ? "a line" : "a point");
	}
	for (size_t c = 0; c < s->ncomps && st == EXG_OK; c++)
	{
		const double *p = exg_vertex(s, s->ring_start[s->comps[c].first_ring]);

		if ((c & (EXG_CANCEL_STRIDE - 1)) == 0 && exg_cancel_requested())
			return exg_fail(err, EXG_ERR_INTERRUPTED, "canceled");
		for (int k = 0; k < 3 && st == EXG_OK; k++)
			st = exg_mesh_add_vertex(out, p[3 * k], p[3 * k + 1], p[3 * k + 2], err);
		if (st == EXG_OK)
			st = exg_mesh_add_triangle(out, out->nverts - 3, out->nverts - 2, out->nverts - 1, err);
	}
	return st == EXG_OK ? exg_mesh_weld(out, err) : st;
}
