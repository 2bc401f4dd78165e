/*
 * volume_sum.c — the exact sum of det(a, b, c) over triangles (see
 * volume_sum.h for the method).
 *
 * A double is m * 2^e with m < 2^53 an integer and e >= -1074, so a product
 * of three is m1 m2 m3 (< 2^159, three 64-bit words) times 2^(e1+e2+e3):
 * it lands in the accumulator as six 32-bit chunks added to six limbs. A
 * limb takes 2^31 such adds before it could overflow; carries are pushed up
 * every 2^26 products. The final division by 6 is a short long-division over
 * the limbs, with two limbs below the units so the rounding bit and the
 * sticky bit are exact.
 */
#include "volume_sum.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cancel.h"
#include "parallel.h"

#define BASE_BIT (-3232)		/* weight of limb 0's lowest bit */
#define CARRY_EVERY (1u << 26)

void
exg_volume_sum_init(exg_volume_sum *s)
{
	memset(s, 0, sizeof(*s));
}

/* Push carries up: every limb but the top one into [0, 2^32). */
static void
normalize(exg_volume_sum *s)
{
	for (int k = 0; k < EXG_VOLUME_LIMBS - 1; k++)
	{
		int64_t		carry = s->limb[k] >> 32;	/* floor: arithmetic shift */

		s->limb[k] -= carry * ((int64_t) 1 << 32);
		s->limb[k + 1] += carry;
	}
	s->adds = 0;
}

/* x = sign * m * 2^e exactly; m = 0 for zeros. */
static inline void
split(double x, uint64_t *m, int *e, int *sign)
{
	uint64_t	u;
	int			ex;

	memcpy(&u, &x, sizeof(u));
	ex = (int) ((u >> 52) & 0x7ff);
	*m = u & ((UINT64_C(1) << 52) - 1);
	if (ex == 0)
		*e = -1074;
	else
	{
		*m |= UINT64_C(1) << 52;
		*e = ex - 1075;
	}
	*sign = (u >> 63) ? -1 : 1;
}

typedef struct coord
{
	uint64_t	m;
	int			e;
	int			sign;
} coord;

static inline void
add_product(exg_volume_sum *s, const coord *x, const coord *y, const coord *z, int sign)
{
	unsigned __int128 p12,
				a,
				b,
				t;
	uint64_t	w0,
				w1,
				w2,
				x0,
				x1,
				x2;
	int			p,
				r;
	int64_t    *L;

	if (x->m == 0 || y->m == 0 || z->m == 0)
		return;
	sign *= x->sign * y->sign * z->sign;
	p12 = (unsigned __int128) x->m * y->m;
	a = (unsigned __int128) (uint64_t) p12 * z->m;
	b = (unsigned __int128) (uint64_t) (p12 >> 64) * z->m;
	w0 = (uint64_t) a;
	t = (a >> 64) + (uint64_t) b;
	w1 = (uint64_t) t;
	w2 = (uint64_t) (t >> 64) + (uint64_t) (b >> 64);	/* < 2^31 */
	p = x->e + y->e + z->e - BASE_BIT;
	r = p & 31;
	x0 = w0 << r;
	x1 = (w1 << r) | (r ? w0 >> (64 - r) : 0);
	x2 = (w2 << r) | (r ? w1 >> (64 - r) : 0);	/* w2 << 31 < 2^62: nothing left over */
	L = &s->limb[p >> 5];
	L[0] += sign * (int64_t) (x0 & 0xffffffffu);
	L[1] += sign * (int64_t) (x0 >> 32);
	L[2] += sign * (int64_t) (x1 & 0xffffffffu);
	L[3] += sign * (int64_t) (x1 >> 32);
	L[4] += sign * (int64_t) (x2 & 0xffffffffu);
	L[5] += sign * (int64_t) (x2 >> 32);
}

void
exg_volume_sum_add(exg_volume_sum *s, const double *a, const double *b, const double *c, int sign)
{
	coord		A[3],
				B[3],
				C[3];

	for (int k = 0; k < 3; k++)
	{
		split(a[k], &A[k].m, &A[k].e, &A[k].sign);
		split(b[k], &B[k].m, &B[k].e, &B[k].sign);
		split(c[k], &C[k].m, &C[k].e, &C[k].sign);
	}
	/* a . (b x c) */
	add_product(s, &A[0], &B[1], &C[2], sign);
	add_product(s, &A[0], &B[2], &C[1], -sign);
	add_product(s, &A[1], &B[2], &C[0], sign);
	add_product(s, &A[1], &B[0], &C[2], -sign);
	add_product(s, &A[2], &B[0], &C[1], sign);
	add_product(s, &A[2], &B[1], &C[0], -sign);
	if ((s->adds += 6) >= CARRY_EVERY)
		normalize(s);
}

void
exg_volume_sum_merge(exg_volume_sum *into, const exg_volume_sum *from)
{
	exg_volume_sum f = *from;

	normalize(&f);
	normalize(into);
	for (int k = 0; k < EXG_VOLUME_LIMBS; k++)
		into->limb[k] += f.limb[k];
	normalize(into);
}

int
exg_volume_sum_sign(exg_volume_sum *s)
{
	normalize(s);
	if (s->limb[EXG_VOLUME_LIMBS - 1] != 0)
		return s->limb[EXG_VOLUME_LIMBS - 1] < 0 ? -1 : 1;
	for (int k = EXG_VOLUME_LIMBS - 2; k >= 0; k--)
		if (s->limb[k] != 0)
			return 1;
	return 0;
}

#define QLIMBS (EXG_VOLUME_LIMBS + 2)

/* Bit i of the quotient limbs. */
static inline int
qbit(const uint32_t *q, long i)
{
	return (q[i >> 5] >> (i & 31)) & 1;
}

exg_status
exg_volume_sum_round(exg_volume_sum *s, double *out, exg_error *err)
{
	int			sign = exg_volume_sum_sign(s);
	uint32_t	q[QLIMBS];
	uint64_t	rem = 0,
				bits = 0,
				mant;
	long		H = -1,
				e,
				p,
				i;
	bool		sticky;

	*out = 0;
	if (sign == 0)
		return EXG_OK;
	if (sign < 0)
	{
		for (int k = 0; k < EXG_VOLUME_LIMBS; k++)
			s->limb[k] = -s->limb[k];
		normalize(s);
	}
	/* |S| / 6 with two limbs of fraction: q[k + 2] <- limb k */
	for (int k = QLIMBS - 1; k >= 0; k--)
	{
		uint64_t	cur = (rem << 32) | (k >= 2 ? (uint64_t) s->limb[k - 2] : 0);

		q[k] = (uint32_t) (cur / 6);
		rem = cur % 6;
	}
	for (int k = QLIMBS - 1; k >= 0 && H < 0; k--)
		if (q[k] != 0)
			H = 32L * k + 63 - __builtin_clzll((uint64_t) q[k]);
	if (H < 0)
		return EXG_OK;			/* below 2^-3296: rounds to zero */
	e = H + BASE_BIT - 64;		/* 2^e <= |S| / 6 < 2^(e + 1) */
	if (e > 1023)
		return exg_fail(err, EXG_ERR_TOO_LARGE, "the volume exceeds the range of double precision");
	p = e >= -1022 ? 53 : e + 1075;	/* bits the result keeps (fewer if subnormal) */
	if (p <= 0)
	{
		bool		above_half = rem != 0;

		for (i = 0; i < H && !above_half; i++)
			above_half = qbit(q, i);
		*out = sign * (p == 0 && above_half ? ldexp(1.0, -1074) : 0.0);
		return EXG_OK;
	}
	/* bits [H - p, H]: p kept bits and the rounding bit; sticky below them */
	for (i = H; i >= H - p; i--)
		bits = (bits << 1) | (uint64_t) qbit(q, i);
	sticky = rem != 0;
	for (i = 0; i < H - p && !sticky; i++)
		sticky = qbit(q, i);
	mant = bits >> 1;
	if ((bits & 1) && (sticky || (mant & 1)))
		mant++;
	*out = sign * ldexp((double) mant, (int) (e - p + 1));
	if (isinf(*out))
		return exg_fail(err, EXG_ERR_TOO_LARGE, "the volume exceeds the range of double precision");
	return EXG_OK;
}

exg_status
exg_prims_volume(const exg_prims *P, double *vol, exg_error *err)
{
	exg_volume_sum total;
	int			canceled = 0;

	exg_volume_sum_init(&total);
	/* one accumulator per thread (1.6 kB), merged: exact, so order-free */
#pragma omp parallel if (P->nprims >= 16384)
	{
		exg_volume_sum part;

		exg_volume_sum_init(&part);
#pragma omp for schedule(static)
		for (long t = 0; t < (long) P->nprims; t++)
		{
			const exg_prim *pr = &P->prims[t];

			if ((t & (EXG_CANCEL_STRIDE - 1)) == 0 && exg_cancel_requested())
				exg_flag_set(&canceled);
			if (pr->kind != EXG_SIMPLEX_TRIANGLE)
				continue;
			exg_volume_sum_add(&part, &P->xyz[3 * (size_t) pr->v[0]], &P->xyz[3 * (size_t) pr->v[1]],
							   &P->xyz[3 * (size_t) pr->v[2]], 1);
		}
#pragma omp critical
		exg_volume_sum_merge(&total, &part);
	}
	if (canceled)
		return exg_fail(err, EXG_ERR_INTERRUPTED, "canceled");
	return exg_volume_sum_round(&total, vol, err);
}
