/*
 * volume.c — ST_ExactVolume's engine call: the surface must bound a valid
 * solid (solid_check.h: closed, 2-manifold, consistently oriented, no
 * self-intersection, no shell inside out), then the exact sum of
 * volume_sum.c.
 */
#include "volume.h"

#include "solid_check.h"
#include "volume_sum.h"

exg_status
exg_solid_volume(exg_prepared *g, double *vol, exg_error *err)
{
	const exg_view *v;
	exg_status	st;

	*vol = 0;
	if (exg_shape_is_empty(&g->shape))
		return EXG_OK;
	if ((st = exg_solid_require(g, NULL, EXG_SOLID_VALID, err)) != EXG_OK ||
		(st = exg_prepared_view3d(g, false, &v, err)) != EXG_OK)
		return st;
	/* every shell outward and none overlapping another or itself: the signed
	 * sum is the volume (cavities subtract), never negative */
	return exg_prims_volume(&v->prims, vol, err);
}
