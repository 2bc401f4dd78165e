/*
 * orient_exact.c — exact orientation signs with GMP integers.
 *
 * A double is M * 2^e with an integer |M| < 2^53. Scaling all coordinates of
 * one predicate by the same power of two, 2^-E with E the smallest exponent
 * among them, turns them into integers without changing the sign of the
 * (homogeneous) determinant, so mpz arithmetic is exact and avoids the gcd
 * normalizations of mpq. Works for every finite double, subnormals included.
 */
#include "orient_exact.h"

#include <gmp.h>
#include <math.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>

#define EXG_EXACT_MAX_COORDS 12
#define EXG_EXACT_TEMPS 8

/* Per-thread GMP registers, kept so the hot path does no mpz_init/clear. */
typedef struct exact_workspace
{
	mpz_t		coord[EXG_EXACT_MAX_COORDS];
	mpz_t		t[EXG_EXACT_TEMPS];
} exact_workspace;

static pthread_key_t workspace_key;
static pthread_once_t workspace_once = PTHREAD_ONCE_INIT;

static void
workspace_free(void *p)
{
	exact_workspace *ws = p;
	int			k;

	for (k = 0; k < EXG_EXACT_MAX_COORDS; k++)
		mpz_clear(ws->coord[k]);
	for (k = 0; k < EXG_EXACT_TEMPS; k++)
		mpz_clear(ws->t[k]);
	free(ws);
}

static void
workspace_key_create(void)
{
	pthread_key_create(&workspace_key, workspace_free);
}

static exact_workspace *
workspace_get(void)
{
	exact_workspace *ws;
	int			k;

	pthread_once(&workspace_once, workspace_key_create);
	ws = pthread_getspecific(workspace_key);
	if (ws != NULL)
		return ws;
	ws = malloc(sizeof(*ws));
	if (ws == NULL)
		return NULL;
	for (k = 0; k < EXG_EXACT_MAX_COORDS; k++)
		mpz_init2(ws->coord[k], 256);
	for (k = 0; k < EXG_EXACT_TEMPS; k++)
		mpz_init2(ws->t[k], 512);
	pthread_setspecific(workspace_key, ws);
	return ws;
}

/* Load n doubles into integers scaled by a common power of two. */
static void
load_scaled(mpz_t *out, const double *x, int n)
{
	int			e[EXG_EXACT_MAX_COORDS];
	double		m[EXG_EXACT_MAX_COORDS];
	int			emin = 0;
	bool		any = false;
	int			k;

	for (k = 0; k < n; k++)
	{
		m[k] = ldexp(frexp(x[k], &e[k]), 53);	/* exact: |m| < 2^53, integral */
		e[k] -= 53;
		if (x[k] != 0 && (!any || e[k] < emin))
		{
			emin = e[k];
			any = true;
		}
	}
	for (k = 0; k < n; k++)
	{
		mpz_set_d(out[k], m[k]);
		if (x[k] != 0)
			mpz_mul_2exp(out[k], out[k], (mp_bitcnt_t) (e[k] - emin));
	}
}

/*
 * Fallback for a failed workspace allocation: the same computation with
 * local registers. Slow but still exact, so an allocation failure never
 * turns into a wrong sign.
 */
static int	orient3d_with(exact_workspace *ws, const double *a, const double *b,
						  const double *c, const double *d);
static int	orient2d_with(exact_workspace *ws, const double *a, const double *b,
						  const double *c, int i, int j);

static exact_workspace *
workspace_local_init(exact_workspace *ws)
{
	int			k;

	for (k = 0; k < EXG_EXACT_MAX_COORDS; k++)
		mpz_init(ws->coord[k]);
	for (k = 0; k < EXG_EXACT_TEMPS; k++)
		mpz_init(ws->t[k]);
	return ws;
}

static void
workspace_local_clear(exact_workspace *ws)
{
	int			k;

	for (k = 0; k < EXG_EXACT_MAX_COORDS; k++)
		mpz_clear(ws->coord[k]);
	for (k = 0; k < EXG_EXACT_TEMPS; k++)
		mpz_clear(ws->t[k]);
}

static int
orient2d_with(exact_workspace *ws, const double *a, const double *b,
			  const double *c, int i, int j)
{
	double		x[6] = {a[i], a[j], b[i], b[j], c[i], c[j]};
	mpz_t	   *z = ws->coord;
	mpz_t	   *t = ws->t;

	load_scaled(z, x, 6);
	mpz_sub(t[0], z[2], z[0]);	/* ux */
	mpz_sub(t[1], z[3], z[1]);	/* uy */
	mpz_sub(t[2], z[4], z[0]);	/* vx */
	mpz_sub(t[3], z[5], z[1]);	/* vy */
	mpz_mul(t[4], t[0], t[3]);
	mpz_mul(t[5], t[1], t[2]);
	return mpz_cmp(t[4], t[5]) > 0 ? 1 : (mpz_cmp(t[4], t[5]) < 0 ? -1 : 0);
}

static int
orient3d_with(exact_workspace *ws, const double *a, const double *b,
			  const double *c, const double *d)
{
	double		x[12] = {a[0], a[1], a[2], b[0], b[1], b[2],
	c[0], c[1], c[2], d[0], d[1], d[2]};
	mpz_t	   *z = ws->coord;
	mpz_t	   *t = ws->t;
	int			k;

	load_scaled(z, x, 12);
	/* u = b - a, v = c - a, w = d - a, kept in z[3..11] */
	for (k = 3; k < 12; k++)
		mpz_sub(z[k], z[k], z[k % 3]);
	/* det = wx (uy vz - uz vy) + wy (uz vx - ux vz) + wz (ux vy - uy vx) */
	mpz_mul(t[0], z[4], z[8]);
	mpz_submul(t[0], z[5], z[7]);
	mpz_mul(t[1], t[0], z[9]);
	mpz_mul(t[0], z[5], z[6]);
	mpz_submul(t[0], z[3], z[8]);
	mpz_addmul(t[1], t[0], z[10]);
	mpz_mul(t[0], z[3], z[7]);
	mpz_submul(t[0], z[4], z[6]);
	mpz_addmul(t[1], t[0], z[11]);
	return mpz_sgn(t[1]);
}

int
exg_orient2d_exact(const double *a, const double *b, const double *c, int i, int j)
{
	exact_workspace *ws = workspace_get();
	exact_workspace local;
	int			s;

	if (ws != NULL)
		return orient2d_with(ws, a, b, c, i, j);
	s = orient2d_with(workspace_local_init(&local), a, b, c, i, j);
	workspace_local_clear(&local);
	return s;
}

int
exg_orient3d_exact(const double *a, const double *b, const double *c, const double *d)
{
	exact_workspace *ws = workspace_get();
	exact_workspace local;
	int			s;

	if (ws != NULL)
		return orient3d_with(ws, a, b, c, d);
	s = orient3d_with(workspace_local_init(&local), a, b, c, d);
	workspace_local_clear(&local);
	return s;
}
