/*
 * interval_gpu.cuh — float and double interval arithmetic on the GPU, with
 * the rounding direction set per instruction (__fadd_rd, __dmul_ru, ...):
 * no mode switch, no contraction into FMA (the intrinsics are never fused,
 * and the build passes --fmad=false besides), denormals kept (-ftz=false).
 * One template serves both precisions; only the intrinsics differ.
 *
 * Callers guarantee by construction that no bound overflows (coordinates
 * are range-checked per primitive before a filter is used), so min/max never
 * meet a NaN.
 */
#ifndef EXG_INTERVAL_GPU_CUH
#define EXG_INTERVAL_GPU_CUH

template <typename R>
struct exg_interval
{
	R			lo;
	R			hi;
};

typedef exg_interval<float> exg_fint;
typedef exg_interval<double> exg_dint;

/* The directed-rounding primitives, by precision. */
__device__ __forceinline__ float add_rd(float a, float b) { return __fadd_rd(a, b); }
__device__ __forceinline__ float add_ru(float a, float b) { return __fadd_ru(a, b); }
__device__ __forceinline__ float sub_rd(float a, float b) { return __fsub_rd(a, b); }
__device__ __forceinline__ float sub_ru(float a, float b) { return __fsub_ru(a, b); }
__device__ __forceinline__ float mul_rd(float a, float b) { return __fmul_rd(a, b); }
__device__ __forceinline__ float mul_ru(float a, float b) { return __fmul_ru(a, b); }
__device__ __forceinline__ double add_rd(double a, double b) { return __dadd_rd(a, b); }
__device__ __forceinline__ double add_ru(double a, double b) { return __dadd_ru(a, b); }
__device__ __forceinline__ double sub_rd(double a, double b) { return __dsub_rd(a, b); }
__device__ __forceinline__ double sub_ru(double a, double b) { return __dsub_ru(a, b); }
__device__ __forceinline__ double mul_rd(double a, double b) { return __dmul_rd(a, b); }
__device__ __forceinline__ double mul_ru(double a, double b) { return __dmul_ru(a, b); }
__device__ __forceinline__ float min2(float a, float b) { return fminf(a, b); }
__device__ __forceinline__ float max2(float a, float b) { return fmaxf(a, b); }
__device__ __forceinline__ double min2(double a, double b) { return fmin(a, b); }
__device__ __forceinline__ double max2(double a, double b) { return fmax(a, b); }

template <typename R>
__device__ __forceinline__ exg_interval<R>
iv_add(exg_interval<R> a, exg_interval<R> b)
{
	return {add_rd(a.lo, b.lo), add_ru(a.hi, b.hi)};
}

template <typename R>
__device__ __forceinline__ exg_interval<R>
iv_sub(exg_interval<R> a, exg_interval<R> b)
{
	return {sub_rd(a.lo, b.hi), sub_ru(a.hi, b.lo)};
}

template <typename R>
__device__ __forceinline__ exg_interval<R>
iv_mul(exg_interval<R> a, exg_interval<R> b)
{
	R			lo = min2(min2(mul_rd(a.lo, b.lo), mul_rd(a.lo, b.hi)),
						  min2(mul_rd(a.hi, b.lo), mul_rd(a.hi, b.hi)));
	R			hi = max2(max2(mul_ru(a.lo, b.lo), mul_ru(a.lo, b.hi)),
						  max2(mul_ru(a.hi, b.lo), mul_ru(a.hi, b.hi)));

	return {lo, hi};
}

/* -1, 0, 1, or 2 (EXG_SIGN_UNKNOWN) when the interval straddles zero. */
template <typename R>
__device__ __forceinline__ int
iv_sign(exg_interval<R> a)
{
	if (a.lo > 0)
		return 1;
	if (a.hi < 0)
		return -1;
	if (a.lo == 0 && a.hi == 0)
		return 0;
	return 2;
}

/* Double enclosure of x - y for two exact doubles. */
__device__ __forceinline__ exg_dint
di_diff(double x, double y)
{
	return {__dsub_rd(x, y), __dsub_ru(x, y)};
}

#endif							/* EXG_INTERVAL_GPU_CUH */
