/*
 * volume_sum.h — the volume a closed triangulated surface encloses, exactly.
 *
 * By the divergence theorem the enclosed volume is the sum over the
 * triangles (a, b, c) of det(a, b, c) / 6: the signed volumes of the
 * tetrahedra they span with the origin. Each term is a sum of six products
 * of three doubles, every one an exact integer times a power of two, so the
 * whole sum is accumulated exactly in a long fixed-point accumulator (a
 * Kulisch accumulator: 32-bit chunks in 64-bit limbs, carries deferred) and
 * rounded to the nearest double once, after the division by 6. No filter,
 * no GMP: integer adds only, ~10 ns a product.
 */
#ifndef EXG_VOLUME_SUM_H
#define EXG_VOLUME_SUM_H

#include <stdint.h>

#include "exg_status.h"
#include "geom_prims.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Products of three doubles lie in [2^-3222, 2^3072); limb 0 weighs 2^-3232. */
#define EXG_VOLUME_LIMBS 200

typedef struct exg_volume_sum
{
	int64_t		limb[EXG_VOLUME_LIMBS];
	uint32_t	adds;			/* products since the last carry pass */
} exg_volume_sum;

void		exg_volume_sum_init(exg_volume_sum *s);
/* s += det(a, b, c) = a . (b x c), exactly; sign = -1 subtracts it. */
void		exg_volume_sum_add(exg_volume_sum *s, const double *a, const double *b,
							   const double *c, int sign);
void		exg_volume_sum_merge(exg_volume_sum *into, const exg_volume_sum *from);
/* The sign of the exact sum: -1, 0 or 1. */
int			exg_volume_sum_sign(exg_volume_sum *s);
/* The sum divided by 6, rounded once to the nearest double (ties to even). */
exg_status	exg_volume_sum_round(exg_volume_sum *s, double *out, exg_error *err);

/* The exact signed volume of the triangles of P (kind TRIANGLE; others have none). */
exg_status	exg_prims_volume(const exg_prims *P, double *vol, exg_error *err);

#ifdef __cplusplus
}
#endif

#endif							/* EXG_VOLUME_SUM_H */
