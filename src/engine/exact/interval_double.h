/*
 * interval_double.h — double interval arithmetic for the CPU filter.
 *
 * All operations assume the FPU rounds towards +infinity (see
 * exg_round_up_enter). Upper bounds are then computed directly and lower
 * bounds as -((-x) op y), which rounds the lower bound towards -infinity:
 * one mode switch per batch instead of one per operation (the approach of
 * CGAL's Interval_nt). Files using it are compiled with -frounding-math so
 * GCC neither folds nor reorders across the mode switch, and the opaque()
 * barrier keeps it from rewriting -((-x) * y) into x * y.
 *
 * NaN (from inf - inf or 0 * inf after an overflow) propagates to the
 * bounds, and the sign of an interval with a NaN bound is unknown.
 */
#ifndef EXG_INTERVAL_DOUBLE_H
#define EXG_INTERVAL_DOUBLE_H

#include <fenv.h>

typedef struct exg_dinterval
{
	double		lo;
	double		hi;
} exg_dinterval;

/* Hide a value from the optimizer so rounding-dependent rewrites cannot apply. */
static inline double
exg_opaque(double x)
{
#if defined(__GNUC__) && (defined(__x86_64__) || defined(__i386__))
	__asm__ volatile ("" : "+x"(x));
#elif defined(__GNUC__)
	__asm__ volatile ("" : "+w"(x));
#endif
	return x;
}

/*
 * Set upward rounding (or, below, round to nearest) and return the previous
 * state for exg_round_restore.
 * On x86-64 doubles live in SSE registers, so MXCSR is the whole state; we
 * also clear flush-to-zero and denormals-are-zero, which a library built
 * with -ffast-math may have set process-wide and which would make a rounded
 * up tiny product come out as zero.
 */
#if defined(__SSE2__)
#include <xmmintrin.h>

#define EXG_MXCSR_ROUND_MASK 0x6000u
#define EXG_MXCSR_ROUND_UP 0x4000u
#define EXG_MXCSR_FTZ 0x8000u
#define EXG_MXCSR_DAZ 0x0040u

typedef unsigned int exg_round_state;

static inline exg_round_state
exg_round_mode_enter(exg_round_state mode_bits)
{
	exg_round_state saved = _mm_getcsr();
	exg_round_state want = (saved & ~(EXG_MXCSR_ROUND_MASK | EXG_MXCSR_FTZ | EXG_MXCSR_DAZ)) |
		mode_bits;

	if (want != saved)
		_mm_setcsr(want);
	return saved;
}

static inline exg_round_state
exg_round_up_enter(void)
{
	return exg_round_mode_enter(EXG_MXCSR_ROUND_UP);
}

/* Round to nearest (and no FTZ/DAZ): for computations that must agree
 * bit for bit with the GPU's default rounding, e.g. grid cells. */
static inline exg_round_state
exg_round_nearest_enter(void)
{
	return exg_round_mode_enter(0);
}

static inline void
exg_round_restore(exg_round_state saved)
{
	if (_mm_getcsr() != saved)
		_mm_setcsr(saved);
}

/* The current state, to be put back with exg_round_restore. */
static inline exg_round_state
exg_round_get(void)
{
	return _mm_getcsr();
}
#else
typedef int exg_round_state;

static inline exg_round_state
exg_round_up_enter(void)
{
	exg_round_state saved = fegetround();

	if (saved != FE_UPWARD)
		fesetround(FE_UPWARD);
	return saved;
}

static inline exg_round_state
exg_round_nearest_enter(void)
{
	exg_round_state saved = fegetround();

	if (saved != FE_TONEAREST)
		fesetround(FE_TONEAREST);
	return saved;
}

static inline void
exg_round_restore(exg_round_state saved)
{
	fesetround(saved);
}

static inline exg_round_state
exg_round_get(void)
{
	return fegetround();
}
#endif

/* NaN-propagating max: a NaN candidate poisons the bound. */
static inline double
exg_max_nan(double a, double b)
{
	return (a > b || a != a) ? a : b;
}

/* Enclosure of x - y for two exact doubles. */
static inline exg_dinterval
exg_di_diff(double x, double y)
{
	exg_dinterval r;

	r.hi = x - y;
	r.lo = -(exg_opaque(y) - x);
	return r;
}

static inline exg_dinterval
exg_di_add(exg_dinterval a, exg_dinterval b)
{
	exg_dinterval r;

	r.hi = a.hi + b.hi;
	r.lo = -(exg_opaque(-a.lo) - b.lo);
	return r;
}

static inline exg_dinterval
exg_di_sub(exg_dinterval a, exg_dinterval b)
{
	exg_dinterval r;

	r.hi = a.hi - b.lo;
	r.lo = -(exg_opaque(b.hi) - a.lo);
	return r;
}

static inline exg_dinterval
exg_di_mul(exg_dinterval a, exg_dinterval b)
{
	exg_dinterval r;
	double		nalo = exg_opaque(-a.lo),
				nahi = exg_opaque(-a.hi);

	/* Upper: max of the four products rounded up. */
	r.hi = exg_max_nan(exg_max_nan(a.lo * b.lo, a.lo * b.hi),
					   exg_max_nan(a.hi * b.lo, a.hi * b.hi));
	/* Lower: min of the four, each as -((-x) * y) rounded up. */
	r.lo = -exg_max_nan(exg_max_nan(nalo * b.lo, nalo * b.hi),
						exg_max_nan(nahi * b.lo, nahi * b.hi));
	return r;
}

/* Sign of an interval: -1, 0, 1, or 2 (unknown: straddles zero or NaN). */
static inline int
exg_di_sign(exg_dinterval a)
{
	if (a.lo > 0)
		return 1;
	if (a.hi < 0)
		return -1;
	if (a.lo == 0 && a.hi == 0)
		return 0;
	return 2;
}

#endif							/* EXG_INTERVAL_DOUBLE_H */
