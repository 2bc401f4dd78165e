/*
 * volume.h — the exact volume of the solid a closed surface bounds
 * (ST_ExactVolume); the arithmetic is in volume_sum.h.
 */
#ifndef EXG_VOLUME_H
#define EXG_VOLUME_H

#include "exg_status.h"
#include "geom_prepared.h"

#ifdef __cplusplus
extern "C" {
#endif

/*
 * The volume of the solid g bounds: EXG_ERR_NOT_SOLID unless g is a
 * surface whose every edge is used equally often in both directions (closed
 * and consistently oriented), or if it is inside out (see outward.h: some
 * shell's orientation contradicts its nesting; 2-manifold surfaces only,
 * else a negative total). An empty geometry has volume 0.
 */
exg_status	exg_solid_volume(exg_prepared *g, double *vol, exg_error *err);

#ifdef __cplusplus
}
#endif

#endif							/* EXG_VOLUME_H */
