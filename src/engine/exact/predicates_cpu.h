/*
 * predicates_cpu.h — the shared intersection logic instantiated with the
 * CPU's exact cascade (signs are never unknown).
 *
 * Functions are named exg_cpu_*; they assume upward rounding is active
 * (exg_round_up_enter), like the cascade they call. Bulk loops enter the
 * rounding mode once per batch and call these directly; predicates.c wraps
 * them for single calls.
 */
#ifndef EXG_PREDICATES_CPU_H
#define EXG_PREDICATES_CPU_H

#include "geom_prims.h"
#include "orient_cascade.h"

#define LG_QUAL static inline
#define LG_NAME(x) exg_cpu_##x
#define LG_O3(a, b, c, d) exg_orient3d_ru((a), (b), (c), (d))
#define LG_O2(a, b, c, i, j) exg_orient2d_ru((a), (b), (c), (i), (j))
#include "intersect_logic.h"
#undef LG_QUAL
#undef LG_NAME
#undef LG_O3
#undef LG_O2

/* A classified primitive as the logic's simplex, over its vertex array. */
static inline void
exg_cpu_simplex_of(const double *xyz, const exg_prim *pr, exg_cpu_simplex *sx)
{
	sx->kind = pr->kind;
	sx->k = pr->k;
	sx->s = pr->s;
	sx->v[0] = &xyz[3 * (size_t) pr->v[0]];
	sx->v[1] = &xyz[3 * (size_t) pr->v[1]];
	sx->v[2] = &xyz[3 * (size_t) pr->v[2]];
}

#endif							/* EXG_PREDICATES_CPU_H */
