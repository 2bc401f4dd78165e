/*
 * volume.c — ST_ExactVolume's engine call: checks that the surface bounds a
 * solid (closed, every edge used equally often in both directions, no shell
 * inside out), then the exact sum of volume_sum.c.
 */
#include "volume.h"

#include <stdlib.h>
#include <string.h>

#include "mesh_edges.h"
#include "outward.h"
#include "solid.h"
#include "volume_sum.h"

exg_status
exg_solid_volume(exg_prepared *g, double *vol, exg_error *err)
{
	const exg_view *v;
	exg_edge_report rep;
	size_t		n;
	exg_status	st;

	*vol = 0;
	if (exg_shape_is_empty(&g->shape))
		return EXG_OK;
	if ((st = exg_solid_edge_report(g, &rep, &n, err)) != EXG_OK ||
		(st = exg_prepared_view3d(g, false, &v, err)) != EXG_OK)
		return st;
	if (n == 0)
		return exg_fail(err, EXG_ERR_NOT_SOLID, "not a surface: no face with area, so no volume");
	if (rep.odd)
		return exg_fail(err, EXG_ERR_NOT_SOLID,
						"not closed: %llu edges used by an odd number of faces, e.g. (%.17g %.17g %.17g)-(%.17g %.17g %.17g)",
						(unsigned long long) rep.odd, rep.example[0], rep.example[1], rep.example[2],
						rep.example[3], rep.example[4], rep.example[5]);
	if (rep.unbalanced)
		return exg_fail(err, EXG_ERR_NOT_SOLID,
						"inconsistently oriented: %llu edges not used equally often in both directions, e.g. (%.17g %.17g %.17g)-(%.17g %.17g %.17g)",
						(unsigned long long) rep.unbalanced, rep.example[0], rep.example[1],
						rep.example[2], rep.example[3], rep.example[4], rep.example[5]);
	if ((st = exg_prims_volume(&v->prims, vol, err)) != EXG_OK)
		return st;
	if (rep.non_manifold == 0)
	{
		exg_outward_report orep;
		uint8_t    *flip = malloc(g->shape.ncomps + 1);

		if (flip == NULL)
			return exg_fail(err, EXG_ERR_NOMEM, "out of memory checking a surface");
		st = exg_outward_flips(&v->prims, (uint32_t) g->shape.ncomps, flip, &orep, err);
		free(flip);
		if (st != EXG_OK)
			return st;
		if (orep.inward_shells)
			return exg_fail(err, EXG_ERR_NOT_SOLID,
							"inside out: %u of its %u shells point inward (negative exact signed volume), e.g. the shell of face %u",
							orep.inward_shells, orep.shells, orep.first_inward_face);
	}
	else if (*vol < 0)
		return exg_fail(err, EXG_ERR_NOT_SOLID,
						"inside out: the exact signed volume is negative (%.17g)", *vol);
	return EXG_OK;
}
