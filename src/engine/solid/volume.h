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
 * The volume of the solid g bounds: EXG_ERR_NOT_SOLID unless g bounds a
 * valid solid (solid_check.h: closed, 2-manifold, consistently oriented,
 * not self-intersecting, no shell inside out). An empty geometry has
 * volume 0.
 */
exg_status	exg_solid_volume(exg_prepared *g, double *vol, exg_error *err);

#ifdef __cplusplus
}
#endif

#endif							/* EXG_VOLUME_H */
