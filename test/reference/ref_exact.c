/*
 * ref_exact.c — GMP-only reference predicates (see ref_exact.h).
 *
 * Hull intersection as linear feasibility. With P' = P_i - P_last and
 * Q' = Q_j - Q_last, eliminating l_last = 1 - sum l_i and m_last = 1 - sum m_j
 * leaves, in the variables l_0..l_{np-2}, m_0..m_{nq-2} and two slacks,
 *
 *     sum_i l_i P'_i - sum_j m_j Q'_j = Q_last - P_last     (dim rows)
 *     sum_i l_i + sP = 1,   sum_j m_j + sQ = 1              (when np, nq > 1)
 *     all variables >= 0.
 *
 * Phase 1 adds one artificial per coordinate row (the slacks start basic in
 * theirs) and minimises the artificials' sum: the hulls meet iff that minimum
 * is 0. Coordinates are first scaled by one common power of two to integers
 * (mpq_set_d is exact and the rows are homogeneous in the coordinates), so
 * the tableau can be kept fraction-free with Edmonds' integer pivoting:
 * T = D * B^-1 [A | b] with D = det B, every entry a minor of the original
 * integer matrix, and the update (T_ij T_rc - T_ic T_rj) / D_old divides
 * exactly. Pivots are always on a positive entry, so D stays positive and
 * signs of T are signs of the true tableau. An artificial that leaves the
 * basis is dropped for good (fixing it at 0 keeps "min = 0 iff feasible"),
 * so artificial columns are never stored. Bland's rule guarantees that the
 * degenerate pivots these inputs are full of cannot cycle.
 */
#include "ref_exact.h"

#include <gmp.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define REF_MAXPTS 3
#define REF_MAXDIM 3
#define REF_MAXROWS (REF_MAXDIM + 2 + 1)	/* coordinate rows, 2 sum rows, objective */
#define REF_MAXCOLS (2 * (REF_MAXPTS - 1) + 2 + 1)	/* l, m, 2 slacks, rhs */

typedef struct ref_workspace
{
	bool		ready;
	mpq_t		q[12];			/* orientation and conversion scratch */
	mpq_t		r[12];
	mpz_t		coord[2 * REF_MAXPTS][REF_MAXDIM];
	mpz_t		T[REF_MAXROWS][REF_MAXCOLS];
	mpz_t		D,
				t1,
				t2;
} ref_workspace;

static _Thread_local ref_workspace ws;

static void
ws_ready(void)
{
	if (ws.ready)
		return;
	for (int i = 0; i < 12; i++)
	{
		mpq_init(ws.q[i]);
		mpq_init(ws.r[i]);
	}
	for (int i = 0; i < 2 * REF_MAXPTS; i++)
		for (int k = 0; k < REF_MAXDIM; k++)
			mpz_init(ws.coord[i][k]);
	for (int i = 0; i < REF_MAXROWS; i++)
		for (int j = 0; j < REF_MAXCOLS; j++)
			mpz_init(ws.T[i][j]);
	mpz_init(ws.D);
	mpz_init(ws.t1);
	mpz_init(ws.t2);
	ws.ready = true;
}

void
ref_exact_release_thread(void)
{
	if (!ws.ready)
		return;
	for (int i = 0; i < 12; i++)
	{
		mpq_clear(ws.q[i]);
		mpq_clear(ws.r[i]);
	}
	for (int i = 0; i < 2 * REF_MAXPTS; i++)
		for (int k = 0; k < REF_MAXDIM; k++)
			mpz_clear(ws.coord[i][k]);
	for (int i = 0; i < REF_MAXROWS; i++)
		for (int j = 0; j < REF_MAXCOLS; j++)
			mpz_clear(ws.T[i][j]);
	mpz_clear(ws.D);
	mpz_clear(ws.t1);
	mpz_clear(ws.t2);
	ws.ready = false;
}

static void
ref_die(const char *what)
{
	fprintf(stderr, "ref_exact: %s\n", what);
	abort();
}

static void
set_exact(mpq_t dst, double x)
{
	/* mpq_set_d of a non-finite value is undefined; the predicates' domain
	 * is finite doubles. isfinite is a classification, not arithmetic. */
	if (!isfinite(x))
		ref_die("non-finite coordinate");
	mpq_set_d(dst, x);
}

/* ------------------------------------------------------------------ */
/* Orientation: rational determinants, computed as written.            */

int
ref_orient2d(const double a[2], const double b[2], const double c[2])
{
	mpq_t	   *q = ws.q;

	ws_ready();
	set_exact(q[0], a[0]);
	set_exact(q[1], a[1]);
	set_exact(q[2], b[0]);
	set_exact(q[3], b[1]);
	set_exact(q[4], c[0]);
	set_exact(q[5], c[1]);
	mpq_sub(q[2], q[2], q[0]);	/* bx - ax */
	mpq_sub(q[3], q[3], q[1]);	/* by - ay */
	mpq_sub(q[4], q[4], q[0]);	/* cx - ax */
	mpq_sub(q[5], q[5], q[1]);	/* cy - ay */
	mpq_mul(q[6], q[2], q[5]);
	mpq_mul(q[7], q[3], q[4]);
	mpq_sub(q[8], q[6], q[7]);
	return mpq_sgn(q[8]);
}

int
ref_orient3d(const double a[3], const double b[3], const double c[3],
			 const double d[3])
{
	mpq_t	   *q = ws.q;
	mpq_t	   *r = ws.r;
	const double *pts[3] = {b, c, d};

	ws_ready();
	/* r[0..2] = a; q[3i + k] = pts[i][k] - a[k] */
	for (int k = 0; k < 3; k++)
		set_exact(r[k], a[k]);
	for (int i = 0; i < 3; i++)
		for (int k = 0; k < 3; k++)
		{
			set_exact(q[3 * i + k], pts[i][k]);
			mpq_sub(q[3 * i + k], q[3 * i + k], r[k]);
		}
	/* det [u; v; w] = u . (v x w), u = b - a, v = c - a, w = d - a:
	 * ((b-a) x (c-a)) . (d-a) is the same scalar triple product. */
	mpq_t	   *u = &q[0],
			   *v = &q[3],
			   *w = &q[6];

	mpq_mul(r[3], v[1], w[2]);
	mpq_mul(r[4], v[2], w[1]);
	mpq_sub(r[5], r[3], r[4]);	/* (v x w)_x */
	mpq_mul(r[3], v[2], w[0]);
	mpq_mul(r[4], v[0], w[2]);
	mpq_sub(r[6], r[3], r[4]);	/* (v x w)_y */
	mpq_mul(r[3], v[0], w[1]);
	mpq_mul(r[4], v[1], w[0]);
	mpq_sub(r[7], r[3], r[4]);	/* (v x w)_z */
	mpq_mul(r[8], u[0], r[5]);
	mpq_mul(r[9], u[1], r[6]);
	mpq_add(r[8], r[8], r[9]);
	mpq_mul(r[9], u[2], r[7]);
	mpq_add(r[8], r[8], r[9]);
	return mpq_sgn(r[8]);
}

/* ------------------------------------------------------------------ */
/* Hull intersection: exact phase-1 simplex.                           */

/*
 * ws.coord[i][k] = x_ik * 2^L for all np + nq points, with 2^L the largest
 * denominator among the coordinates (mpq_set_d leaves a power of two there).
 */
static void
load_scaled_integers(int dim, int n, const double *X)
{
	mpq_t	   *q = ws.q;
	unsigned long e[2 * REF_MAXPTS * REF_MAXDIM];
	unsigned long L = 0;

	for (int i = 0; i < n; i++)
		for (int k = 0; k < dim; k++)
		{
			int			idx = i * dim + k;

			set_exact(q[0], X[idx]);
			e[idx] = mpz_sizeinbase(mpq_denref(q[0]), 2) - 1;
			if (e[idx] > L)
				L = e[idx];
			mpz_set(ws.coord[i][k], mpq_numref(q[0]));
		}
	for (int i = 0; i < n; i++)
		for (int k = 0; k < dim; k++)
			mpz_mul_2exp(ws.coord[i][k], ws.coord[i][k], L - e[i * dim + k]);
}

static bool
simplex_feasible(int dim, int np, int nq)
{
	mpz_t		(*T)[REF_MAXCOLS] = ws.T;
	mpz_t	   *Pl = ws.coord[np - 1];
	mpz_t	   *Ql = ws.coord[np + nq - 1];
	int			nl = np - 1,
				nm = nq - 1;
	int			col_sP = nl + nm;
	int			col_sQ = col_sP + (np > 1);
	int			nv = nl + nm + (np > 1) + (nq > 1);
	int			rhs = nv;
	int			row_sP = dim;
	int			row_sQ = dim + (np > 1);
	int			nrows = dim + (np > 1) + (nq > 1);
	int			obj = nrows;
	int			basis[REF_MAXROWS];

	for (int i = 0; i <= nrows; i++)
		for (int j = 0; j <= nv; j++)
			mpz_set_ui(T[i][j], 0);

	for (int k = 0; k < dim; k++)
	{
		for (int i = 0; i < nl; i++)
			mpz_sub(T[k][i], ws.coord[i][k], Pl[k]);
		for (int j = 0; j < nm; j++)
			mpz_sub(T[k][nl + j], Ql[k], ws.coord[np + j][k]);
		mpz_sub(T[k][rhs], Ql[k], Pl[k]);
		if (mpz_sgn(T[k][rhs]) < 0)
			for (int j = 0; j <= nv; j++)
				mpz_neg(T[k][j], T[k][j]);
		basis[k] = nv + k;		/* artificial */
		for (int j = 0; j <= nv; j++)
			mpz_sub(T[obj][j], T[obj][j], T[k][j]);
	}
	if (np > 1)
	{
		for (int i = 0; i < nl; i++)
			mpz_set_ui(T[row_sP][i], 1);
		mpz_set_ui(T[row_sP][col_sP], 1);
		mpz_set_ui(T[row_sP][rhs], 1);
		basis[row_sP] = col_sP;
	}
	if (nq > 1)
	{
		for (int j = 0; j < nm; j++)
			mpz_set_ui(T[row_sQ][nl + j], 1);
		mpz_set_ui(T[row_sQ][col_sQ], 1);
		mpz_set_ui(T[row_sQ][rhs], 1);
		basis[row_sQ] = col_sQ;
	}
	mpz_set_ui(ws.D, 1);

	for (int iter = 0;; iter++)
	{
		int			c = -1,
					r = -1;

		/* T[obj][rhs] / D = -(sum of artificials) <= 0 */
		if (mpz_sgn(T[obj][rhs]) == 0)
			return true;
		if (iter > 1000)
			ref_die("simplex did not terminate");

		/* Bland: the lowest-index column with negative reduced cost enters. */
		for (int j = 0; j < nv; j++)
			if (mpz_sgn(T[obj][j]) < 0)
			{
				c = j;
				break;
			}
		if (c < 0)
			return false;		/* optimal with a positive sum of artificials */

		/* Ratio test over positive entries; ties to the lowest basic index. */
		for (int i = 0; i < nrows; i++)
		{
			if (mpz_sgn(T[i][c]) <= 0)
				continue;
			if (r < 0)
			{
				r = i;
				continue;
			}
			/* compare T[i][rhs]/T[i][c] with T[r][rhs]/T[r][c] */
			mpz_mul(ws.t1, T[i][rhs], T[r][c]);
			mpz_mul(ws.t2, T[r][rhs], T[i][c]);
			int			cmp = mpz_cmp(ws.t1, ws.t2);

			if (cmp < 0 || (cmp == 0 && basis[i] < basis[r]))
				r = i;
		}
		if (r < 0)
			ref_die("phase-1 simplex unbounded (impossible)");

		/* Integer pivot on T[r][c] > 0. */
		for (int i = 0; i <= nrows; i++)
		{
			if (i == r)
				continue;
			mpz_set(ws.t2, T[i][c]);
			for (int j = 0; j <= nv; j++)
			{
				mpz_mul(ws.t1, T[i][j], T[r][c]);
				mpz_submul(ws.t1, ws.t2, T[r][j]);
				mpz_divexact(T[i][j], ws.t1, ws.D);
			}
		}
		mpz_set(ws.D, T[r][c]);
		basis[r] = c;
	}
}

static bool
bounding_boxes_disjoint(int dim, int np, const double *P, int nq, const double *Q)
{
	for (int k = 0; k < dim; k++)
	{
		double		pmin = P[k],
					pmax = P[k],
					qmin = Q[k],
					qmax = Q[k];

		for (int i = 1; i < np; i++)
		{
			if (P[i * dim + k] < pmin)
				pmin = P[i * dim + k];
			if (P[i * dim + k] > pmax)
				pmax = P[i * dim + k];
		}
		for (int j = 1; j < nq; j++)
		{
			if (Q[j * dim + k] < qmin)
				qmin = Q[j * dim + k];
			if (Q[j * dim + k] > qmax)
				qmax = Q[j * dim + k];
		}
		if (pmax < qmin || qmax < pmin)
			return true;
	}
	return false;
}

static bool
share_a_vertex(int dim, int np, const double *P, int nq, const double *Q)
{
	for (int i = 0; i < np; i++)
		for (int j = 0; j < nq; j++)
		{
			int			k;

			for (k = 0; k < dim; k++)
				if (!(P[i * dim + k] == Q[j * dim + k]))
					break;
			if (k == dim)
				return true;
		}
	return false;
}

bool
ref_hulls_intersect(int dim, int np, const double *P, int nq, const double *Q,
					bool use_early_outs)
{
	double		X[2 * REF_MAXPTS * REF_MAXDIM];

	if (dim < 2 || dim > REF_MAXDIM || np < 1 || np > REF_MAXPTS ||
		nq < 1 || nq > REF_MAXPTS)
		ref_die("ref_hulls_intersect: bad arguments");
	ws_ready();
	for (int i = 0; i < np * dim; i++)
		if (!isfinite(P[i]))
			ref_die("non-finite coordinate");
	for (int i = 0; i < nq * dim; i++)
		if (!isfinite(Q[i]))
			ref_die("non-finite coordinate");

	/*
	 * Exact shortcuts: disjoint coordinate ranges separate the hulls by an
	 * axis-parallel plane; an equal vertex is a common point. Comparisons of
	 * doubles are exact, so neither can be wrong.
	 */
	if (use_early_outs)
	{
		if (bounding_boxes_disjoint(dim, np, P, nq, Q))
			return false;
		if (share_a_vertex(dim, np, P, nq, Q))
			return true;
	}
	memcpy(X, P, sizeof(double) * np * dim);
	memcpy(X + np * dim, Q, sizeof(double) * nq * dim);
	load_scaled_integers(dim, np + nq, X);
	return simplex_feasible(dim, np, nq);
}

/* ------------------------------------------------------------------ */
/* Second solver: Gaussian elimination + Fourier–Motzkin, in mpq.      */

#define FM_MAXVARS (2 * REF_MAXPTS)
#define FM_W (FM_MAXVARS + 1)	/* coefficients, then the bound */

typedef struct fm_system
{
	int			n;				/* rows */
	int			cap;
	mpq_t	   *a;				/* row i: a[i*FM_W + v], bound a[i*FM_W + FM_MAXVARS] */
} fm_system;

static void
fm_init(fm_system *s, int cap)
{
	s->n = 0;
	s->cap = cap;
	s->a = malloc(sizeof(mpq_t) * FM_W * cap);
	if (!s->a)
		ref_die("out of memory");
	for (int i = 0; i < FM_W * cap; i++)
		mpq_init(s->a[i]);
}

static void
fm_free(fm_system *s)
{
	for (int i = 0; i < FM_W * s->cap; i++)
		mpq_clear(s->a[i]);
	free(s->a);
}

static mpq_t *
fm_row(fm_system *s, int i)
{
	return &s->a[i * FM_W];
}

static mpq_t *
fm_push(fm_system *s)
{
	if (s->n == s->cap)
	{
		int			cap = 2 * s->cap;

		s->a = realloc(s->a, sizeof(mpq_t) * FM_W * cap);
		if (!s->a)
			ref_die("out of memory");
		for (int i = FM_W * s->cap; i < FM_W * cap; i++)
			mpq_init(s->a[i]);
		s->cap = cap;
	}
	return fm_row(s, s->n++);
}

/* Scale a row so its first nonzero coefficient is +-1 (keeps the direction). */
static void
fm_normalize(mpq_t *row, mpq_t tmp)
{
	for (int v = 0; v < FM_MAXVARS; v++)
		if (mpq_sgn(row[v]) != 0)
		{
			mpq_abs(tmp, row[v]);
			for (int w = 0; w < FM_W; w++)
				mpq_div(row[w], row[w], tmp);
			return;
		}
}

static bool
fm_rows_equal(mpq_t *x, mpq_t *y)
{
	for (int w = 0; w < FM_W; w++)
		if (!mpq_equal(x[w], y[w]))
			return false;
	return true;
}

bool
ref_hulls_intersect_fm(int dim, int np, const double *P, int nq, const double *Q)
{
	int			nvar = np + nq;
	fm_system	eq,
				le;
	mpq_t		t,
				f;
	bool		feasible = true;

	if (dim < 2 || dim > REF_MAXDIM || np < 1 || np > REF_MAXPTS ||
		nq < 1 || nq > REF_MAXPTS)
		ref_die("ref_hulls_intersect_fm: bad arguments");
	mpq_init(t);
	mpq_init(f);
	fm_init(&eq, dim + 2);
	fm_init(&le, 64);

	/* equalities: sum l_i P_ik - sum m_j Q_jk = 0; sum l = 1; sum m = 1 */
	for (int k = 0; k < dim; k++)
	{
		mpq_t	   *row = fm_push(&eq);

		for (int w = 0; w < FM_W; w++)
			mpq_set_ui(row[w], 0, 1);
		for (int i = 0; i < np; i++)
			set_exact(row[i], P[i * dim + k]);
		for (int j = 0; j < nq; j++)
		{
			set_exact(row[np + j], Q[j * dim + k]);
			mpq_neg(row[np + j], row[np + j]);
		}
	}
	for (int s = 0; s < 2; s++)
	{
		mpq_t	   *row = fm_push(&eq);

		for (int w = 0; w < FM_W; w++)
			mpq_set_ui(row[w], 0, 1);
		for (int v = (s ? np : 0); v < (s ? nvar : np); v++)
			mpq_set_ui(row[v], 1, 1);
		mpq_set_ui(row[FM_MAXVARS], 1, 1);
	}
	/* inequalities a.x <= b: -x_v <= 0 */
	for (int v = 0; v < nvar; v++)
	{
		mpq_t	   *row = fm_push(&le);

		for (int w = 0; w < FM_W; w++)
			mpq_set_ui(row[w], 0, 1);
		mpq_set_si(row[v], -1, 1);
	}

	/* Gaussian elimination: solve each equality for one variable and
	 * substitute it everywhere else. */
	for (int e = 0; e < eq.n && feasible; e++)
	{
		mpq_t	   *row = fm_row(&eq, e);
		int			piv = -1;

		for (int v = 0; v < FM_MAXVARS; v++)
			if (mpq_sgn(row[v]) != 0)
			{
				piv = v;
				break;
			}
		if (piv < 0)
		{
			if (mpq_sgn(row[FM_MAXVARS]) != 0)
				feasible = false;
			continue;
		}
		for (int e2 = 0; e2 < eq.n; e2++)
		{
			mpq_t	   *o = fm_row(&eq, e2);

			if (e2 == e || mpq_sgn(o[piv]) == 0)
				continue;
			mpq_div(f, o[piv], row[piv]);
			for (int w = 0; w < FM_W; w++)
			{
				mpq_mul(t, f, row[w]);
				mpq_sub(o[w], o[w], t);
			}
		}
		for (int i = 0; i < le.n; i++)
		{
			mpq_t	   *o = fm_row(&le, i);

			if (mpq_sgn(o[piv]) == 0)
				continue;
			mpq_div(f, o[piv], row[piv]);
			for (int w = 0; w < FM_W; w++)
			{
				mpq_mul(t, f, row[w]);
				mpq_sub(o[w], o[w], t);
			}
		}
	}

	/* Fourier–Motzkin on what is left. */
	for (int v = 0; v < FM_MAXVARS && feasible; v++)
	{
		fm_system	next;

		fm_init(&next, 16);
		for (int i = 0; i < le.n; i++)
		{
			mpq_t	   *a = fm_row(&le, i);

			if (mpq_sgn(a[v]) != 0)
				continue;
			mpq_t	   *o = fm_push(&next);

			for (int w = 0; w < FM_W; w++)
				mpq_set(o[w], a[w]);
		}
		for (int i = 0; i < le.n; i++)
		{
			mpq_t	   *a = fm_row(&le, i);

			if (mpq_sgn(a[v]) <= 0)
				continue;
			for (int j = 0; j < le.n; j++)
			{
				mpq_t	   *b = fm_row(&le, j);

				if (mpq_sgn(b[v]) >= 0)
					continue;
				/* (-b_v) a + a_v b has no x_v, and both multipliers are > 0 */
				mpq_t	   *o = fm_push(&next);

				for (int w = 0; w < FM_W; w++)
				{
					mpq_mul(t, a[w], b[v]);
					mpq_neg(t, t);
					mpq_mul(f, b[w], a[v]);
					mpq_add(o[w], t, f);
				}
				mpq_set_ui(o[v], 0, 1);
				fm_normalize(o, t);
				for (int k = 0; k < next.n - 1; k++)
					if (fm_rows_equal(fm_row(&next, k), o))
					{
						next.n--;
						break;
					}
			}
		}
		fm_free(&le);
		le = next;
		/* rows with no variable left are 0 <= b */
		for (int i = 0; i < le.n; i++)
		{
			mpq_t	   *a = fm_row(&le, i);
			int			w;

			for (w = 0; w < FM_MAXVARS; w++)
				if (mpq_sgn(a[w]) != 0)
					break;
			if (w == FM_MAXVARS && mpq_sgn(a[FM_MAXVARS]) < 0)
				feasible = false;
		}
	}
	fm_free(&eq);
	fm_free(&le);
	mpq_clear(t);
	mpq_clear(f);
	return feasible;
}

/* ------------------------------------------------------------------ */
/* The predicates.                                                     */

static void
pack(double *dst, int dim, int n, const double *const *pts)
{
	for (int i = 0; i < n; i++)
		for (int k = 0; k < dim; k++)
			dst[i * dim + k] = pts[i][k];
}

static bool
hulls(int dim, int np, const double *const *p, int nq, const double *const *q)
{
	double		P[REF_MAXPTS * REF_MAXDIM],
				Q[REF_MAXPTS * REF_MAXDIM];

	pack(P, dim, np, p);
	pack(Q, dim, nq, q);
#ifdef REF_EXACT_NO_SHORTCUTS
	/* build with this to run every test through the simplex alone */
	return ref_hulls_intersect(dim, np, P, nq, Q, false);
#else
	return ref_hulls_intersect(dim, np, P, nq, Q, true);
#endif
}

bool
ref_point_point_3d(const double p[3], const double q[3])
{
	return hulls(3, 1, (const double *const[]) {p}, 1, (const double *const[]) {q});
}

bool
ref_point_segment_3d(const double p[3], const double a[3], const double b[3])
{
	return hulls(3, 1, (const double *const[]) {p}, 2, (const double *const[]) {a, b});
}

bool
ref_point_triangle_3d(const double p[3], const double a[3], const double b[3],
					  const double c[3])
{
	return hulls(3, 1, (const double *const[]) {p},
				 3, (const double *const[]) {a, b, c});
}

bool
ref_segment_segment_3d(const double p[3], const double q[3], const double r[3],
					   const double s[3])
{
	return hulls(3, 2, (const double *const[]) {p, q}, 2, (const double *const[]) {r, s});
}

bool
ref_segment_triangle_3d(const double p[3], const double q[3], const double a[3],
						const double b[3], const double c[3])
{
	return hulls(3, 2, (const double *const[]) {p, q},
				 3, (const double *const[]) {a, b, c});
}

bool
ref_triangle_triangle_3d(const double a[3], const double b[3], const double c[3],
						 const double d[3], const double e[3], const double f[3])
{
	return hulls(3, 3, (const double *const[]) {a, b, c},
				 3, (const double *const[]) {d, e, f});
}

bool
ref_point_segment_2d(const double p[2], const double a[2], const double b[2])
{
	return hulls(2, 1, (const double *const[]) {p}, 2, (const double *const[]) {a, b});
}

bool
ref_point_triangle_2d(const double p[2], const double a[2], const double b[2],
					  const double c[2])
{
	return hulls(2, 1, (const double *const[]) {p},
				 3, (const double *const[]) {a, b, c});
}

bool
ref_segment_segment_2d(const double p[2], const double q[2], const double r[2],
					   const double s[2])
{
	return hulls(2, 2, (const double *const[]) {p, q}, 2, (const double *const[]) {r, s});
}

bool
ref_segment_triangle_2d(const double p[2], const double q[2], const double a[2],
						const double b[2], const double c[2])
{
	return hulls(2, 2, (const double *const[]) {p, q},
				 3, (const double *const[]) {a, b, c});
}

bool
ref_triangle_triangle_2d(const double a[2], const double b[2], const double c[2],
						 const double d[2], const double e[2], const double f[2])
{
	return hulls(2, 3, (const double *const[]) {a, b, c},
				 3, (const double *const[]) {d, e, f});
}
