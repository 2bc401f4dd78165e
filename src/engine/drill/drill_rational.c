/*
 * drill_rational.c — exact rationals for crossings and sections (GMP mpq).
 */
#include "drill_rational.h"

void
exg_q_orient3d(mpq_t out, const double *a, const double *b, const double *c, const double *d)
{
	mpq_t		u[3],
				v[3],
				w[3],
				x,
				y;
	int			k;

	for (k = 0; k < 3; k++)
		mpq_inits(u[k], v[k], w[k], NULL);
	mpq_inits(x, y, NULL);
	for (k = 0; k < 3; k++)
	{
		mpq_set_d(x, a[k]);
		mpq_set_d(u[k], b[k]);
		mpq_sub(u[k], u[k], x);
		mpq_set_d(v[k], c[k]);
		mpq_sub(v[k], v[k], x);
		mpq_set_d(w[k], d[k]);
		mpq_sub(w[k], w[k], x);
	}
	mpq_set_ui(out, 0, 1);
	for (k = 0; k < 3; k++)
	{
		int			i = (k + 1) % 3,
					j = (k + 2) % 3;

		/* normal component k = u_i v_j - u_j v_i */
		mpq_mul(x, u[i], v[j]);
		mpq_mul(y, u[j], v[i]);
		mpq_sub(x, x, y);
		mpq_mul(x, x, w[k]);
		mpq_add(out, out, x);
	}
	for (k = 0; k < 3; k++)
		mpq_clears(u[k], v[k], w[k], NULL);
	mpq_clears(x, y, NULL);
}

void
exg_q_lerp(mpq_t value, double a, double b, const mpq_t t)
{
	mpq_t		base;

	mpq_init(base);
	mpq_set_d(base, a);
	mpq_set_d(value, b);
	mpq_sub(value, value, base);
	mpq_mul(value, value, t);
	mpq_add(value, value, base);
	mpq_clear(base);
}

void
exg_q_point_on_segment(double out[3], const double *p, const double *q, const mpq_t t)
{
	mpq_t		v;
	int			k;

	mpq_init(v);
	for (k = 0; k < 3; k++)
	{
		if (mpq_sgn(t) == 0)
			out[k] = p[k];
		else
		{
			exg_q_lerp(v, p[k], q[k], t);
			out[k] = exg_mpq_nearest_double(v);
		}
	}
	mpq_clear(v);
}
