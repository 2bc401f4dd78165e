/*
 * interval_gpu.cuh — float and double interval arithmetic on the GPU, with
 * the rounding direction set per instruction (__fadd_rd, __fmul_ru, ...):
 * no mode switch, no contraction into FMA (the intrinsics are never fused,
 * and the build passes --fmad=false besides), denormals kept (-ftz=false).
 *
 * Callers guarantee by construction that no bound overflows (coordinates
 * are range-checked per primitive before a filter is used), so min/max never
 * meet a NaN.
 */
#ifndef EXG_INTERVAL_GPU_CUH
#define EXG_INTERVAL_GPU_CUH

struct exg_fint
{
	float		lo;
	float		hi;
};

struct exg_dint
{
	double		lo;
	double		hi;
};

__device__ __forceinline__ exg_fint
fi_sub(exg_fint a, exg_fint b)
{
	return {__fsub_rd(a.lo, b.hi), __fsub_ru(a.hi, b.lo)};
}

__device__ __forceinline__ exg_fint
fi_add(exg_fint a, exg_fint b)
{
	return {__fadd_rd(a.lo, b.lo), __fadd_ru(a.hi, b.hi)};
}

__device__ __forceinline__ exg_fint
fi_mul(exg_fint a, exg_fint b)
{
	float		lo = fminf(fminf(__fmul_rd(a.lo, b.lo), __fmul_rd(a.lo, b.hi)),
						   fminf(__fmul_rd(a.hi, b.lo), __fmul_rd(a.hi, b.hi)));
	float		hi = fmaxf(fmaxf(__fmul_ru(a.lo, b.lo), __fmul_ru(a.lo, b.hi)),
						   fmaxf(__fmul_ru(a.hi, b.lo), __fmul_ru(a.hi, b.hi)));

	return {lo, hi};
}

__device__ __forceinline__ int
fi_sign(exg_fint a)
{
	if (a.lo > 0)
		return 1;
	if (a.hi < 0)
		return -1;
	if (a.lo == 0 && a.hi == 0)
		return 0;
	return 2;					/* EXG_SIGN_UNKNOWN */
}

/* Double enclosure of x - y for two exact doubles. */
__device__ __forceinline__ exg_dint
di_diff(double x, double y)
{
	return {__dsub_rd(x, y), __dsub_ru(x, y)};
}

__device__ __forceinline__ exg_dint
di_add(exg_dint a, exg_dint b)
{
	return {__dadd_rd(a.lo, b.lo), __dadd_ru(a.hi, b.hi)};
}

__device__ __forceinline__ exg_dint
di_sub(exg_dint a, exg_dint b)
{
	return {__dsub_rd(a.lo, b.hi), __dsub_ru(a.hi, b.lo)};
}

__device__ __forceinline__ exg_dint
di_mul(exg_dint a, exg_dint b)
{
	double		lo = fmin(fmin(__dmul_rd(a.lo, b.lo), __dmul_rd(a.lo, b.hi)),
						  fmin(__dmul_rd(a.hi, b.lo), __dmul_rd(a.hi, b.hi)));
	double		hi = fmax(fmax(__dmul_ru(a.lo, b.lo), __dmul_ru(a.lo, b.hi)),
						  fmax(__dmul_ru(a.hi, b.lo), __dmul_ru(a.hi, b.hi)));

	return {lo, hi};
}

__device__ __forceinline__ int
di_sign(exg_dint a)
{
	if (a.lo > 0)
		return 1;
	if (a.hi < 0)
		return -1;
	if (a.lo == 0 && a.hi == 0)
		return 0;
	return 2;
}

#endif							/* EXG_INTERVAL_GPU_CUH */
