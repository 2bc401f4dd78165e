/*
 * predicates_gpu.cuh — the shared intersection logic (intersect_logic.h)
 * instantiated on the GPU twice: with float interval signs (gpuf_*) and with
 * double interval signs (gpud_*). Both may answer UNKNOWN, never wrongly.
 *
 * A point handle is a pointer to a vertex record holding the exact input
 * doubles (for comparisons and the double filter) and a float enclosure of
 * the vertex translated towards the data's centre (for the float filter:
 * at UTM coordinates raw floats would be far too coarse).
 */
#ifndef EXG_PREDICATES_GPU_CUH
#define EXG_PREDICATES_GPU_CUH

#include <stdint.h>

#include "interval_gpu.cuh"
#include "orient_formula.h"

struct exg_gvert
{
	double		c[3];			/* exact input coordinates */
	float		lo[3];			/* float enclosure of c - origin */
	float		hi[3];
};

/* A classified primitive on the GPU (kind, projection axis k, orientation s). */
struct exg_gprim
{
	uint32_t	v[3];
	int8_t		kind;
	int8_t		k;
	int8_t		s;
	uint8_t		flags;
};

#define EXG_GPRIM_FLOAT_OK 1	/* every |c - origin| <= 2^40: float filter safe */
#define EXG_GPRIM_DOUBLE_OK 2	/* every |c| <= 2^300: double filter safe */
#define EXG_GPRIM_UNCLASSIFIED 4	/* degeneracy undecided by intervals */

/* ---- orientation signs per filter ---- */

#define EXG_GV_FINT(p, k) (exg_fint {(p)->lo[k], (p)->hi[k]})

__device__ __forceinline__ int
gpuf_o3(const exg_gvert *a, const exg_gvert *b, const exg_gvert *c, const exg_gvert *d)
{
	exg_fint	A[3] = {EXG_GV_FINT(a, 0), EXG_GV_FINT(a, 1), EXG_GV_FINT(a, 2)};
	exg_fint	B[3] = {EXG_GV_FINT(b, 0), EXG_GV_FINT(b, 1), EXG_GV_FINT(b, 2)};
	exg_fint	C[3] = {EXG_GV_FINT(c, 0), EXG_GV_FINT(c, 1), EXG_GV_FINT(c, 2)};
	exg_fint	D[3] = {EXG_GV_FINT(d, 0), EXG_GV_FINT(d, 1), EXG_GV_FINT(d, 2)};
	exg_fint	det;

	EXG_ORIENT3D_FORMULA(exg_fint, iv_sub<float>, iv_mul<float>, iv_sub<float>, iv_add<float>, A, B, C, D, det);
	return iv_sign<float>(det);
}

__device__ __forceinline__ int
gpuf_o2(const exg_gvert *a, const exg_gvert *b, const exg_gvert *c, int i, int j)
{
	exg_fint	A[3] = {EXG_GV_FINT(a, 0), EXG_GV_FINT(a, 1), EXG_GV_FINT(a, 2)};
	exg_fint	B[3] = {EXG_GV_FINT(b, 0), EXG_GV_FINT(b, 1), EXG_GV_FINT(b, 2)};
	exg_fint	C[3] = {EXG_GV_FINT(c, 0), EXG_GV_FINT(c, 1), EXG_GV_FINT(c, 2)};
	exg_fint	det;

	EXG_ORIENT2D_FORMULA(exg_fint, iv_sub<float>, iv_mul<float>, iv_sub<float>, A, B, C, i, j, det);
	return iv_sign<float>(det);
}

__device__ __forceinline__ int
gpud_o3(const exg_gvert *a, const exg_gvert *b, const exg_gvert *c, const exg_gvert *d)
{
	exg_dint	det;

	EXG_ORIENT3D_FORMULA(exg_dint, di_diff, iv_mul<double>, iv_sub<double>, iv_add<double>, a->c, b->c, c->c, d->c, det);
	return iv_sign<double>(det);
}

__device__ __forceinline__ int
gpud_o2(const exg_gvert *a, const exg_gvert *b, const exg_gvert *c, int i, int j)
{
	exg_dint	det;

	EXG_ORIENT2D_FORMULA(exg_dint, di_diff, iv_mul<double>, iv_sub<double>, a->c, b->c, c->c, i, j, det);
	return iv_sign<double>(det);
}

/* ---- the logic, twice ---- */

#define LG_QUAL static __device__ __forceinline__
#define LG_PT const exg_gvert *
#define LG_C(p, k) ((p)->c[k])

#define LG_NAME(x) gpuf_##x
#define LG_O3(a, b, c, d) gpuf_o3((a), (b), (c), (d))
#define LG_O2(a, b, c, i, j) gpuf_o2((a), (b), (c), (i), (j))
#include "intersect_logic.h"
#undef LG_NAME
#undef LG_O3
#undef LG_O2

#define LG_NAME(x) gpud_##x
#define LG_O3(a, b, c, d) gpud_o3((a), (b), (c), (d))
#define LG_O2(a, b, c, i, j) gpud_o2((a), (b), (c), (i), (j))
#include "intersect_logic.h"
#undef LG_NAME
#undef LG_O3
#undef LG_O2

#undef LG_QUAL
#undef LG_PT
#undef LG_C

#endif							/* EXG_PREDICATES_GPU_CUH */
