/*
 * test_triangulate.c — exact checks of exg_triangulate_polygon.
 *
 * For every polygon (and its variants: both orientations of each ring,
 * rotated starting vertices) the output is checked with this file's own
 * GMP-backed orientation, independent of the engine's predicates:
 *   (a) the triangles' areas sum exactly to the polygon's area;
 *   (b) every triangle is non-degenerate and oriented like the input exterior;
 *   (c) no two triangles' interiors overlap (every pair, separating axes);
 *   (d) every triangle lies in the closed polygon: its corners are polygon
 *       vertices, no ring edge meets its open interior, and its centroid
 *       (a rational point) is inside the exterior and outside every hole.
 * (a)-(d) together mean the closed triangles tile the closed polygon.
 * Invalid inputs (bow-tie, crossing or escaping holes, ...) must give
 * EXG_ERR_INVALID. Exit status is non-zero on any failure.
 *
 * Usage: test_triangulate [--full]    (--full: 4-5x larger random sweeps, ~1-2 min)
 *        TRI_SEED=n test_triangulate  (another random sequence)
 */
#define _POSIX_C_SOURCE 199309L

#include <gmp.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cancel.h"
#include "triangulate.h"

#define PI 3.14159265358979323846

static int	failures;
static long npolys_ok;			/* triangulated and checked */
static long npolys_invalid;		/* expected EXG_ERR_INVALID, got it */
static long npolys_empty;		/* expected 0 triangles, got them */
static long ntris_checked;
static bool quick;				/* default; --full runs the larger sweeps */

/* ------------------------------------------------------------ polygons */

typedef struct poly
{
	double	   *xy;
	size_t		n;
	size_t		cap;
	size_t	   *rs;				/* nr + 1 entries */
	size_t		nr;
	size_t		rcap;
} poly;

static void *
xrealloc(void *p, size_t n)
{
	void	   *q = realloc(p, n ? n : 1);

	if (q == NULL)
	{
		fprintf(stderr, "out of memory\n");
		exit(2);
	}
	return q;
}

static void
poly_init(poly *P)
{
	memset(P, 0, sizeof(*P));
	P->rs = xrealloc(NULL, sizeof(size_t));
	P->rcap = 1;
	P->rs[0] = 0;
}

static void
poly_free(poly *P)
{
	free(P->xy);
	free(P->rs);
	memset(P, 0, sizeof(*P));
}

static void
ring_begin(poly *P)
{
	if (P->nr + 2 > P->rcap)
	{
		P->rcap = 2 * P->rcap + 2;
		P->rs = xrealloc(P->rs, P->rcap * sizeof(size_t));
	}
	P->nr++;
	P->rs[P->nr] = P->n;
}

static void
add_pt(poly *P, double x, double y)
{
	if (P->n + 1 > P->cap)
	{
		P->cap = 2 * P->cap + 16;
		P->xy = xrealloc(P->xy, 2 * P->cap * sizeof(double));
	}
	P->xy[2 * P->n] = x;
	P->xy[2 * P->n + 1] = y;
	P->n++;
	P->rs[P->nr] = P->n;
}

/* A ring from a flat list of coordinates. */
static void
add_ring(poly *P, const double *c, size_t npts)
{
	size_t		i;

	ring_begin(P);
	for (i = 0; i < npts; i++)
		add_pt(P, c[2 * i], c[2 * i + 1]);
}

/* Copy with ring r reversed when bit r of rev (bit 1 for all holes) is set, rotated by rot. */
static void
poly_variant(const poly *P, poly *Q, int rev_ext, int rev_holes, size_t rot)
{
	size_t		r,
				i;

	poly_init(Q);
	for (r = 0; r < P->nr; r++)
	{
		size_t		s = P->rs[r],
					m = P->rs[r + 1] - s;
		bool		rev = r == 0 ? rev_ext : rev_holes;

		ring_begin(Q);
		for (i = 0; i < m; i++)
		{
			size_t		k = (i + rot * (r + 1)) % m;

			if (rev)
				k = m - 1 - k;
			add_pt(Q, P->xy[2 * (s + k)], P->xy[2 * (s + k) + 1]);
		}
	}
}

/* --------------------------------------------------------------- random */

static uint64_t rng_state = 0x9E3779B97F4A7C15ull;

static uint64_t
rng_next(void)
{
	uint64_t	x = rng_state;

	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	rng_state = x;
	return x * 0x2545F4914F6CDD1Dull;
}

static double
rng_unit(void)
{
	return (double) (rng_next() >> 11) * (1.0 / 9007199254740992.0);
}

static int
rng_int(int n)
{
	return (int) (rng_next() % (uint64_t) n);
}

/* ----------------------------------------------- reference exact geometry */

/* Sign of (b - a) x (c - a), exact: Shewchuk's static filter, else GMP. */
static int
ref_orient(const double *a, const double *b, const double *c)
{
	double		l = (b[0] - a[0]) * (c[1] - a[1]),
				r = (b[1] - a[1]) * (c[0] - a[0]),
				det = l - r,
				bound = 3.3306690738754716e-16 * (fabs(l) + fabs(r));
	mpq_t		t[6];
	int			s,
				k;

	if (isfinite(det) && bound > 1e-280 && fabs(det) > bound)
		return det > 0 ? 1 : -1;
	for (k = 0; k < 6; k++)
		mpq_init(t[k]);
	mpq_set_d(t[0], b[0]);
	mpq_set_d(t[1], a[0]);
	mpq_sub(t[0], t[0], t[1]);	/* bx - ax */
	mpq_set_d(t[2], c[1]);
	mpq_set_d(t[1], a[1]);
	mpq_sub(t[2], t[2], t[1]);	/* cy - ay */
	mpq_mul(t[0], t[0], t[2]);
	mpq_set_d(t[3], b[1]);
	mpq_sub(t[3], t[3], t[1]);	/* by - ay */
	mpq_set_d(t[4], c[0]);
	mpq_set_d(t[1], a[0]);
	mpq_sub(t[4], t[4], t[1]);	/* cx - ax */
	mpq_mul(t[3], t[3], t[4]);
	mpq_sub(t[5], t[0], t[3]);
	s = mpq_sgn(t[5]);
	for (k = 0; k < 6; k++)
		mpq_clear(t[k]);
	return s;
}

/* acc += twice the signed area of triangle abc, exactly. */
static void
add_tri_area(mpq_t acc, const double *a, const double *b, const double *c)
{
	mpq_t		u,
				v,
				x,
				y;

	mpq_inits(u, v, x, y, NULL);
	mpq_set_d(u, b[0]);
	mpq_set_d(x, a[0]);
	mpq_sub(u, u, x);
	mpq_set_d(v, c[1]);
	mpq_set_d(y, a[1]);
	mpq_sub(v, v, y);
	mpq_mul(u, u, v);
	mpq_add(acc, acc, u);
	mpq_set_d(u, b[1]);
	mpq_sub(u, u, y);
	mpq_set_d(v, c[0]);
	mpq_sub(v, v, x);
	mpq_mul(u, u, v);
	mpq_sub(acc, acc, u);
	mpq_clears(u, v, x, y, NULL);
}

/* Twice the signed area of ring r. */
static void
ring_area(const poly *P, size_t r, mpq_t out)
{
	size_t		s = P->rs[r],
				m = P->rs[r + 1] - s,
				i;

	mpq_set_ui(out, 0, 1);
	for (i = 1; i + 1 < m; i++)
		add_tri_area(out, &P->xy[2 * s], &P->xy[2 * (s + i)], &P->xy[2 * (s + i + 1)]);
}

/* All vertices of ring r on one line. */
static bool
ring_is_collinear(const poly *P, size_t r)
{
	size_t		s = P->rs[r],
				e = P->rs[r + 1],
				i,
				j = s;

	for (i = s + 1; i < e && j == s; i++)
		if (P->xy[2 * i] != P->xy[2 * s] || P->xy[2 * i + 1] != P->xy[2 * s + 1])
			j = i;
	if (j == s)
		return true;
	for (i = s; i < e; i++)
		if (ref_orient(&P->xy[2 * s], &P->xy[2 * j], &P->xy[2 * i]) != 0)
			return false;
	return true;
}

/* Closed segments pq and rs meet (reference predicates). */
static bool
ref_segments_meet(const double *p, const double *q, const double *r, const double *s)
{
	int			o1 = ref_orient(p, q, r),
				o2 = ref_orient(p, q, s),
				o3 = ref_orient(r, s, p),
				o4 = ref_orient(r, s, q);

	if (o1 == 0 && o2 == 0)
		return fmax(fmin(p[0], q[0]), fmin(r[0], s[0])) <= fmin(fmax(p[0], q[0]), fmax(r[0], s[0])) &&
			fmax(fmin(p[1], q[1]), fmin(r[1], s[1])) <= fmin(fmax(p[1], q[1]), fmax(r[1], s[1]));
	return o1 * o2 <= 0 && o3 * o4 <= 0;
}

/* Brute-force simplicity of ring r (distinct consecutive vertices assumed). */
static bool
ring_is_simple(const poly *P, size_t r)
{
	size_t		s = P->rs[r],
				m = P->rs[r + 1] - s,
				i,
				j;

	for (i = 0; i < m; i++)
		for (j = i + 1; j < m; j++)
		{
			const double *a = &P->xy[2 * (s + i)],
					   *b = &P->xy[2 * (s + (i + 1) % m)],
					   *c = &P->xy[2 * (s + j)],
					   *d = &P->xy[2 * (s + (j + 1) % m)];

			if (j == i + 1)
			{
				/* consecutive: only a spike (c beyond b back along ba) is bad */
				if (ref_orient(a, b, d) == 0 && (d[0] - b[0]) * (a[0] - b[0]) + (d[1] - b[1]) * (a[1] - b[1]) > 0)
					return false;
			}
			else if (i == 0 && j == m - 1)
			{
				if (ref_orient(c, a, b) == 0 && (c[0] - a[0]) * (b[0] - a[0]) + (c[1] - a[1]) * (b[1] - a[1]) > 0)
					return false;
			}
			else if (ref_segments_meet(a, b, c, d))
				return false;
		}
	return true;
}

/* Compare y with the rational Gy / 3. */
static int
cmp_third(double y, const mpq_t G3, double approx, double tol)
{
	mpq_t		t;
	int			c;

	if (y > approx + tol)
		return 1;
	if (y < approx - tol)
		return -1;
	mpq_init(t);
	mpq_set_d(t, y);
	mpz_mul_ui(mpq_numref(t), mpq_numref(t), 3);
	mpq_canonicalize(t);
	c = mpq_cmp(t, G3);
	mpq_clear(t);
	return (c > 0) - (c < 0);
}

/* Sign of orient(p, q, G / 3), exact. */
static int
orient_third(const double *p, const double *q, const mpq_t Gx, const mpq_t Gy)
{
	mpq_t		dx,
				dy,
				ex,
				ey,
				t;
	int			s;

	mpq_inits(dx, dy, ex, ey, t, NULL);
	mpq_set_d(dx, q[0]);
	mpq_set_d(t, p[0]);
	mpq_sub(dx, dx, t);
	mpq_set_d(dy, q[1]);
	mpq_set_d(t, p[1]);
	mpq_sub(dy, dy, t);
	mpq_set_d(t, p[0]);
	mpz_mul_ui(mpq_numref(t), mpq_numref(t), 3);
	mpq_canonicalize(t);
	mpq_sub(ex, Gx, t);
	mpq_set_d(t, p[1]);
	mpz_mul_ui(mpq_numref(t), mpq_numref(t), 3);
	mpq_canonicalize(t);
	mpq_sub(ey, Gy, t);
	mpq_mul(dx, dx, ey);
	mpq_mul(dy, dy, ex);
	mpq_sub(t, dx, dy);
	s = mpq_sgn(t);
	mpq_clears(dx, dy, ex, ey, t, NULL);
	return s;
}

/* Winding number of ring r around the centroid G / 3 (G = a + b + c). */
static int
winding_centroid(const poly *P, size_t r, const mpq_t Gx, const mpq_t Gy,
				 double gx, double gy, double tolx, double toly)
{
	size_t		s = P->rs[r],
				m = P->rs[r + 1] - s,
				i;
	int			wn = 0;

	for (i = 0; i < m; i++)
	{
		const double *p = &P->xy[2 * (s + i)],
				   *q = &P->xy[2 * (s + (i + 1) % m)];
		int			ap,
					aq,
					o;

		if ((p[1] > gy + toly && q[1] > gy + toly) || (p[1] < gy - toly && q[1] < gy - toly))
			continue;
		if (p[0] < gx - tolx && q[0] < gx - tolx)
			continue;
		ap = cmp_third(p[1], Gy, gy, toly) > 0;
		aq = cmp_third(q[1], Gy, gy, toly) > 0;
		if (ap == aq)
			continue;
		if (p[0] > gx + tolx && q[0] > gx + tolx)
			o = aq ? 1 : -1;
		else
			o = orient_third(p, q, Gx, Gy);
		if (!ap && aq && o > 0)
			wn++;
		else if (ap && !aq && o < 0)
			wn--;
	}
	return wn;
}

/* ------------------------------------------------------------- checking */

#define FAIL(...) \
	do { \
		fprintf(stderr, "FAIL %s: ", name); \
		fprintf(stderr, __VA_ARGS__); \
		fprintf(stderr, "\n"); \
		failures++; \
		goto out; \
	} while (0)

typedef struct box
{
	double		lo[2];
	double		hi[2];
} box;

static box
tri_box(const double *a, const double *b, const double *c)
{
	box			bx;
	int			k;

	for (k = 0; k < 2; k++)
	{
		bx.lo[k] = fmin(a[k], fmin(b[k], c[k]));
		bx.hi[k] = fmax(a[k], fmax(b[k], c[k]));
	}
	return bx;
}

static bool
box_meet(const box *x, const box *y)
{
	return x->lo[0] <= y->hi[0] && y->lo[0] <= x->hi[0] &&
		x->lo[1] <= y->hi[1] && y->lo[1] <= x->hi[1];
}

/* Interiors of two triangles of orientation s overlap (no separating edge line). */
static bool
tris_overlap(const double *const t1[3], const double *const t2[3], int s)
{
	int			e,
				k,
				pass;

	for (pass = 0; pass < 2; pass++)
	{
		const double *const *A = pass ? t2 : t1;
		const double *const *B = pass ? t1 : t2;

		for (e = 0; e < 3; e++)
		{
			bool		sep = true;

			for (k = 0; k < 3 && sep; k++)
				sep = s * ref_orient(A[e], A[(e + 1) % 3], B[k]) <= 0;
			if (sep)
				return false;
		}
	}
	return true;
}

/* Closed segment pq meets the open triangle t of orientation s. */
static bool
seg_meets_open_tri(const double *p, const double *q, const double *const t[3], int s)
{
	int			e,
				o0,
				o1,
				o2;

	for (e = 0; e < 3; e++)
		if (s * ref_orient(t[e], t[(e + 1) % 3], p) <= 0 &&
			s * ref_orient(t[e], t[(e + 1) % 3], q) <= 0)
			return false;
	if (p[0] == q[0] && p[1] == q[1])
		return true;
	o0 = ref_orient(p, q, t[0]);
	o1 = ref_orient(p, q, t[1]);
	o2 = ref_orient(p, q, t[2]);
	if ((o0 >= 0 && o1 >= 0 && o2 >= 0) || (o0 <= 0 && o1 <= 0 && o2 <= 0))
		return false;
	return true;
}

/* Check (a)-(d) for one output. Returns false on failure. */
static bool
check_cover(const char *name, const poly *P, const uint32_t *tris, size_t nt,
			bool full)
{
	mpq_t		want,
				got,
				ar,
				Gx,
				Gy,
				t;
	int			sext;
	size_t		r,
				i,
				j,
				k;
	box		   *tb = NULL;
	bool	   *flat = xrealloc(NULL, P->nr * sizeof(bool));
	bool		ok = false;

	mpq_inits(want, got, ar, Gx, Gy, t, NULL);
	ring_area(P, 0, want);
	sext = mpq_sgn(want);
	if (sext == 0)
		FAIL("exterior has zero area but %zu triangles came back", nt);
	mpq_abs(want, want);
	flat[0] = false;
	for (r = 1; r < P->nr; r++)
	{
		ring_area(P, r, ar);
		/* a collinear hole bounds no open set: the polygon keeps its points */
		flat[r] = mpq_sgn(ar) == 0 && ring_is_collinear(P, r);
		mpq_abs(ar, ar);
		mpq_sub(want, want, ar);
	}
	tb = xrealloc(NULL, nt * sizeof(box));
	mpq_set_ui(got, 0, 1);
	for (i = 0; i < nt; i++)
	{
		const uint32_t *v = &tris[3 * i];
		bool		inring[3] = {false, false, false};

		for (k = 0; k < 3; k++)
		{
			if (v[k] >= P->n)
				FAIL("triangle %zu has vertex index %u out of range", i, v[k]);
			inring[k] = v[k] >= P->rs[0] && v[k] < P->rs[P->nr];
			if (!inring[k])
				FAIL("triangle %zu uses vertex %u of no ring", i, v[k]);
		}
		/* (b) */
		if (ref_orient(&P->xy[2 * v[0]], &P->xy[2 * v[1]], &P->xy[2 * v[2]]) != sext)
			FAIL("triangle %zu (%u %u %u) is degenerate or wrongly oriented", i, v[0], v[1], v[2]);
		add_tri_area(got, &P->xy[2 * v[0]], &P->xy[2 * v[1]], &P->xy[2 * v[2]]);
		tb[i] = tri_box(&P->xy[2 * v[0]], &P->xy[2 * v[1]], &P->xy[2 * v[2]]);
	}
	/* (a) */
	mpq_abs(got, got);
	if (!mpq_equal(got, want))
		FAIL("triangle areas sum to %.17g, polygon area is %.17g (%zu triangles)",
			 mpq_get_d(got) / 2, mpq_get_d(want) / 2, nt);
	if (!full)
	{
		ok = true;
		goto out;
	}
	/* (c) */
	for (i = 0; i < nt; i++)
		for (j = i + 1; j < nt; j++)
		{
			const double *t1[3],
					   *t2[3];

			if (!box_meet(&tb[i], &tb[j]))
				continue;
			for (k = 0; k < 3; k++)
			{
				t1[k] = &P->xy[2 * tris[3 * i + k]];
				t2[k] = &P->xy[2 * tris[3 * j + k]];
			}
			if (tris_overlap(t1, t2, sext))
				FAIL("triangles %zu and %zu overlap", i, j);
		}
	/* (d) */
	for (i = 0; i < nt; i++)
	{
		const double *tv[3];
		double		gx,
					gy,
					tolx,
					toly;
		int			wn;

		for (k = 0; k < 3; k++)
			tv[k] = &P->xy[2 * tris[3 * i + k]];
		for (r = 0; r < P->nr; r++)
		{
			size_t		s = P->rs[r],
						m = P->rs[r + 1] - s;

			if (flat[r])
				continue;
			for (k = 0; k < m; k++)
			{
				const double *p = &P->xy[2 * (s + k)],
						   *q = &P->xy[2 * (s + (k + 1) % m)];
				box			eb = {{fmin(p[0], q[0]), fmin(p[1], q[1])},
				{fmax(p[0], q[0]), fmax(p[1], q[1])}};

				if (!box_meet(&eb, &tb[i]))
					continue;
				if (seg_meets_open_tri(p, q, tv, sext))
					FAIL("ring %zu edge %zu enters triangle %zu", r, k, i);
			}
		}
		mpq_set_d(Gx, tv[0][0]);
		mpq_set_d(t, tv[1][0]);
		mpq_add(Gx, Gx, t);
		mpq_set_d(t, tv[2][0]);
		mpq_add(Gx, Gx, t);
		mpq_set_d(Gy, tv[0][1]);
		mpq_set_d(t, tv[1][1]);
		mpq_add(Gy, Gy, t);
		mpq_set_d(t, tv[2][1]);
		mpq_add(Gy, Gy, t);
		gx = (tv[0][0] + tv[1][0] + tv[2][0]) / 3;
		gy = (tv[0][1] + tv[1][1] + tv[2][1]) / 3;
		tolx = 1e-12 * (fabs(tv[0][0]) + fabs(tv[1][0]) + fabs(tv[2][0])) + 1e-300;
		toly = 1e-12 * (fabs(tv[0][1]) + fabs(tv[1][1]) + fabs(tv[2][1])) + 1e-300;
		wn = winding_centroid(P, 0, Gx, Gy, gx, gy, tolx, toly);
		if (wn != 1 && wn != -1)
			FAIL("triangle %zu is outside the exterior ring", i);
		for (r = 1; r < P->nr; r++)
			if (winding_centroid(P, r, Gx, Gy, gx, gy, tolx, toly) != 0)
				FAIL("triangle %zu is inside hole %zu", i, r);
	}
	ok = true;
out:
	free(tb);
	free(flat);
	mpq_clears(want, got, ar, Gx, Gy, t, NULL);
	return ok;
}

enum expect
{
	EXPECT_COVER, EXPECT_INVALID, EXPECT_EMPTY
};

/* Triangulate one variant and check it. */
static void
run_one(const char *name, const poly *P, enum expect ex, bool full)
{
	uint32_t   *tris = NULL;
	size_t		nt = 0;
	exg_error	err = {0};
	exg_status	st = exg_triangulate_polygon(P->xy, P->n, P->rs, P->nr, &tris, &nt, &err);

	switch (ex)
	{
		case EXPECT_COVER:
			if (st != EXG_OK)
			{
				fprintf(stderr, "FAIL %s: status %s: %s\n", name, exg_status_name(st),
						err.message);
				failures++;
			}
			else if (check_cover(name, P, tris, nt, full))
			{
				npolys_ok++;
				ntris_checked += (long) nt;
			}
			break;
		case EXPECT_INVALID:
			if (st != EXG_ERR_INVALID)
			{
				fprintf(stderr, "FAIL %s: expected invalid, got %s (%zu triangles)\n",
						name, exg_status_name(st), nt);
				failures++;
			}
			else
				npolys_invalid++;
			break;
		case EXPECT_EMPTY:
			if (st != EXG_OK || nt != 0)
			{
				fprintf(stderr, "FAIL %s: expected 0 triangles, got %s, %zu triangles\n",
						name, exg_status_name(st), nt);
				failures++;
			}
			else
				npolys_empty++;
			break;
	}
	free(tris);
}

/* Copy with random vertices repeated and each ring closed (first vertex repeated last). */
static void
poly_with_duplicates(const poly *P, poly *Q)
{
	size_t		r,
				i;

	poly_init(Q);
	for (r = 0; r < P->nr; r++)
	{
		ring_begin(Q);
		for (i = P->rs[r]; i < P->rs[r + 1]; i++)
		{
			int			rep = rng_int(8) == 0 ? 1 + rng_int(3) : 0;

			do
				add_pt(Q, P->xy[2 * i], P->xy[2 * i + 1]);
			while (rep-- > 0);
		}
		if (P->rs[r + 1] > P->rs[r])
			add_pt(Q, P->xy[2 * P->rs[r]], P->xy[2 * P->rs[r] + 1]);
	}
}

/* All orientation combinations and a few rotations of the starting vertices. */
/* P with x and y swapped (swap) or with x negated: exact, validity unchanged. */
static void
poly_mirror(const poly *P, poly *Q, bool swap)
{
	size_t		r,
				i;

	poly_init(Q);
	for (r = 0; r < P->nr; r++)
	{
		ring_begin(Q);
		for (i = P->rs[r]; i < P->rs[r + 1]; i++)
			add_pt(Q, swap ? P->xy[2 * i + 1] : -P->xy[2 * i], swap ? P->xy[2 * i] : P->xy[2 * i + 1]);
	}
}

static void
run_case(const char *name, const poly *P, enum expect ex)
{
	int			rev;
	size_t		rot;
	size_t		nrot = P->n > 2000 ? 1 : 3;
	bool		full = P->n <= 6000;
	char		buf[256];

	for (rev = 0; rev < 4; rev++)
		for (rot = 0; rot < nrot; rot++)
		{
			poly		Q;

			poly_variant(P, &Q, rev & 1, (rev >> 1) & 1, rot * 7 + (size_t) rng_int(5));
			snprintf(buf, sizeof(buf), "%s [rev %d rot %zu]", name, rev, rot);
			run_one(buf, &Q, ex, full);
			poly_free(&Q);
		}
	{
		poly		Q;

		poly_with_duplicates(P, &Q);
		snprintf(buf, sizeof(buf), "%s [repeated vertices, closed rings]", name);
		run_one(buf, &Q, ex, full);
		poly_free(&Q);
	}
	/* the sweeps run in x order: also from the other sides (exact maps) */
	for (rev = 0; rev < 2; rev++)
	{
		poly		Q;

		poly_mirror(P, &Q, rev == 0);
		snprintf(buf, sizeof(buf), "%s [%s]", name, rev == 0 ? "x and y swapped" : "x negated");
		run_one(buf, &Q, ex, full);
		poly_free(&Q);
	}
}

/* ----------------------------------------------------------- generators */

static void
gen_rect_ring(poly *P, double x0, double y0, double x1, double y1)
{
	double		c[8] = {x0, y0, x1, y0, x1, y1, x0, y1};

	add_ring(P, c, 4);
}

/* A star-shaped ring around (cx, cy): increasing angles, radii in [r0, r1]. */
static void
gen_star_ring(poly *P, double cx, double cy, double r0, double r1, int n, bool cw)
{
	int			i;

	ring_begin(P);
	for (i = 0; i < n; i++)
	{
		int			k = cw ? n - 1 - i : i;
		double		a = 2 * PI * (k + 0.8 * rng_unit()) / n,
					rr = r0 + (r1 - r0) * rng_unit();

		add_pt(P, cx + rr * cos(a), cy + rr * sin(a));
	}
}

/* Comb: k teeth of width 1 standing on a bar, all coordinates integers. */
static void
gen_comb(poly *P, int k, double x0, double y0)
{
	int			i;

	ring_begin(P);
	add_pt(P, x0, y0);
	add_pt(P, x0 + 2 * k - 1, y0);
	for (i = k - 1; i >= 0; i--)
	{
		add_pt(P, x0 + 2 * i + 1, y0 + 10);
		add_pt(P, x0 + 2 * i, y0 + 10);
		if (i > 0)
		{
			add_pt(P, x0 + 2 * i, y0 + 1);
			add_pt(P, x0 + 2 * i - 1, y0 + 1);
		}
	}
}

/* A thick Archimedean spiral: out along the outer edge, back along the inner. */
static void
gen_spiral(poly *P, int n, double turns)
{
	int			i;
	double		b = 1.0,
				w = 0.25;

	ring_begin(P);
	for (i = 0; i < n; i++)
	{
		double		th = 2 * PI * turns * i / (n - 1),
					r = 1 + b * th / (2 * PI) * 2;

		add_pt(P, (r + w) * cos(th), (r + w) * sin(th));
	}
	for (i = n - 1; i >= 0; i--)
	{
		double		th = 2 * PI * turns * i / (n - 1),
					r = 1 + b * th / (2 * PI) * 2;

		add_pt(P, (r - w) * cos(th), (r - w) * sin(th));
	}
}

/*
 * Holes in a K x K grid of cells of size 2 inside [0, 2K]^2: each cell holds
 * an octagon whose side tips touch linked neighbours (or the exterior wall)
 * at shared midpoints. Each cell links to at most one of its left and lower
 * neighbours (the wall on the border), so the touch graph is a forest.
 * wall_vertices: also put exterior vertices where tips touch the wall.
 */
static void
gen_touch_grid(poly *P, int K, double ox, double oy, bool wall_vertices, int density)
{
	int		   *link = xrealloc(NULL, (size_t) K * K * sizeof(int));	/* 0 none, 1 left, 2 down */
	bool	   *has = xrealloc(NULL, (size_t) K * K * sizeof(bool));
	int			i,
				j;

	for (i = 0; i < K * K; i++)
	{
		has[i] = rng_int(10) < density;
		link[i] = 0;
	}
	for (j = 0; j < K; j++)
		for (i = 0; i < K; i++)
		{
			int			c = j * K + i,
						choice = rng_int(3);

			if (!has[c] || choice == 0)
				continue;
			if (choice == 1 && (i == 0 || has[c - 1]))
				link[c] = 1;
			else if (choice == 2 && (j == 0 || has[c - K]))
				link[c] = 2;
		}
	/* exterior, counter-clockwise, with optional vertices at wall tips */
	ring_begin(P);
	add_pt(P, ox, oy);
	for (i = 0; i < K; i++)
		if (wall_vertices && has[i] && link[i] == 2)
			add_pt(P, ox + 2 * i + 1, oy);
	add_pt(P, ox + 2 * K, oy);
	add_pt(P, ox + 2 * K, oy + 2 * K);
	add_pt(P, ox, oy + 2 * K);
	for (j = K - 1; j >= 0; j--)
		if (wall_vertices && has[j * K] && link[j * K] == 1)
			add_pt(P, ox, oy + 2 * j + 1);
	for (j = 0; j < K; j++)
		for (i = 0; i < K; i++)
		{
			int			c = j * K + i;
			double		cx = ox + 2 * i + 1,
						cy = oy + 2 * j + 1,
						dr,
						dt,
						dl,
						db;

			if (!has[c])
				continue;
			dl = link[c] == 1 ? 1 : 0.5;
			db = link[c] == 2 ? 1 : 0.5;
			dr = (i + 1 < K && has[c + 1] && link[c + 1] == 1) ? 1 : 0.5;
			dt = (j + 1 < K && has[c + K] && link[c + K] == 2) ? 1 : 0.5;
			ring_begin(P);
			add_pt(P, cx + dr, cy);
			add_pt(P, cx + 0.375, cy + 0.375);
			add_pt(P, cx, cy + dt);
			add_pt(P, cx - 0.375, cy + 0.375);
			add_pt(P, cx - dl, cy);
			add_pt(P, cx - 0.375, cy - 0.375);
			add_pt(P, cx, cy - db);
			add_pt(P, cx + 0.375, cy - 0.375);
		}
	free(link);
	free(has);
}

/*
 * Random star exterior (radii in [0.7, 1] around the centre, scaled) with
 * random star holes in grid cells inside radius 0.6: valid by construction.
 */
static void
gen_star_with_holes(poly *P, int n, int g, double ox, double oy, double scale,
					int hole_pts)
{
	int			i,
				j;
	double		cell = 1.2 / g;

	ring_begin(P);
	for (i = 0; i < n; i++)
	{
		double		a = 2 * PI * (i + 0.8 * rng_unit()) / n,
					rr = 0.7 + 0.3 * rng_unit();

		add_pt(P, ox + scale * rr * cos(a), oy + scale * rr * sin(a));
	}
	for (j = 0; j < g; j++)
		for (i = 0; i < g; i++)
		{
			double		cx = -0.6 + (i + 0.5) * cell,
						cy = -0.6 + (j + 0.5) * cell;
			int			k;

			if (cx * cx + cy * cy > 0.36 - cell || rng_int(3) == 0)
				continue;
			ring_begin(P);
			for (k = 0; k < hole_pts; k++)
			{
				double		a = 2 * PI * (k + 0.8 * rng_unit()) / hole_pts,
							rr = cell * (0.15 + 0.3 * rng_unit());

				add_pt(P, ox + scale * (cx + rr * cos(a)), oy + scale * (cy + rr * sin(a)));
			}
		}
}

/* A star polygon on a grid of ulps around a big base point: exact, nearly collinear everywhere. */
static void
gen_ulp_star(poly *P, double X, double Y, int n, int R)
{
	double		ux = nextafter(X, INFINITY) - X,
				uy = nextafter(Y, INFINITY) - Y;
	int			i;

	ring_begin(P);
	for (i = 0; i < n; i++)
	{
		double		a = 2 * PI * (i + 0.8 * rng_unit()) / n,
					rr = R * (0.5 + 0.5 * rng_unit());

		add_pt(P, X + ux * floor(rr * cos(a)), Y + uy * floor(rr * sin(a)));
	}
}

/* ---------------------------------------------------------------- cases */

static void
test_basic(void)
{
	poly		P;
	int			n;
	char		name[128];

	poly_init(&P);
	gen_rect_ring(&P, 0, 0, 1, 1);
	run_case("unit square", &P, EXPECT_COVER);
	poly_free(&P);

	poly_init(&P);
	add_ring(&P, (double[]) {0, 0, 1, 0, 0, 1}, 3);
	run_case("triangle", &P, EXPECT_COVER);
	poly_free(&P);

	/* closing vertex left in, duplicated consecutive vertices */
	poly_init(&P);
	add_ring(&P, (double[]) {0, 0, 0, 0, 2, 0, 2, 0, 2, 0, 2, 2, 1, 3, 1, 3, 0, 2, 0, 0}, 10);
	run_case("duplicates and closing vertex", &P, EXPECT_COVER);
	poly_free(&P);

	for (n = 3; n <= 200; n = n < 10 ? n + 1 : n * 2)
	{
		int			i;

		poly_init(&P);
		ring_begin(&P);
		for (i = 0; i < n; i++)
			add_pt(&P, cos(2 * PI * i / n), sin(2 * PI * i / n));
		snprintf(name, sizeof(name), "convex %d-gon", n);
		run_case(name, &P, EXPECT_COVER);
		poly_free(&P);
	}

	/* L, U and an arrow: simple non-convex */
	poly_init(&P);
	add_ring(&P, (double[]) {0, 0, 3, 0, 3, 1, 1, 1, 1, 3, 0, 3}, 6);
	run_case("L shape", &P, EXPECT_COVER);
	poly_free(&P);
	poly_init(&P);
	add_ring(&P, (double[]) {0, 0, 3, 0, 3, 3, 2, 3, 2, 1, 1, 1, 1, 3, 0, 3}, 8);
	run_case("U shape", &P, EXPECT_COVER);
	poly_free(&P);
	poly_init(&P);
	add_ring(&P, (double[]) {0, 0, 2, 1, 4, 0, 2, 4}, 4);
	run_case("arrow", &P, EXPECT_COVER);
	poly_free(&P);

	/* collinear vertices: square with every side subdivided, and a staircase */
	for (n = 1; n <= 64; n *= 4)
	{
		int			i;

		poly_init(&P);
		ring_begin(&P);
		for (i = 0; i < n; i++)
			add_pt(&P, i, 0);
		for (i = 0; i < n; i++)
			add_pt(&P, n, i);
		for (i = 0; i < n; i++)
			add_pt(&P, n - i, n);
		for (i = 0; i < n; i++)
			add_pt(&P, 0, n - i);
		snprintf(name, sizeof(name), "square with %d points per side", n);
		run_case(name, &P, EXPECT_COVER);
		poly_free(&P);
	}
	poly_init(&P);
	add_ring(&P, (double[]) {0, 0, 1, 0, 2, 0, 3, 0, 3, 1, 2, 1, 2, 2, 1, 2, 1, 3, 0, 3, 0, 2, 0, 1}, 12);
	run_case("staircase with collinear runs", &P, EXPECT_COVER);
	poly_free(&P);
	/* collinear vertices on a reflex chain */
	poly_init(&P);
	add_ring(&P, (double[]) {0, 0, 4, 0, 4, 4, 3, 3, 2, 2, 1, 1, 0, 4}, 7);
	run_case("collinear reflex chain", &P, EXPECT_COVER);
	poly_free(&P);

	for (n = 2; n <= 128; n *= 4)
	{
		poly_init(&P);
		gen_comb(&P, n, 0, 0);
		snprintf(name, sizeof(name), "comb with %d teeth", n);
		run_case(name, &P, EXPECT_COVER);
		poly_free(&P);
	}
	for (n = 20; n <= 800; n *= 4)
	{
		poly_init(&P);
		gen_spiral(&P, n, n / 20.0 > 4 ? 4 : n / 20.0);
		snprintf(name, sizeof(name), "spiral with %d vertices", 2 * n);
		run_case(name, &P, EXPECT_COVER);
		poly_free(&P);
	}
}

static void
test_holes(void)
{
	poly		P;
	int			i,
				j;
	char		name[128];

	poly_init(&P);
	gen_rect_ring(&P, 0, 0, 4, 4);
	gen_rect_ring(&P, 1, 1, 3, 3);
	run_case("square with square hole", &P, EXPECT_COVER);
	poly_free(&P);

	/* hole vertex level with exterior vertices (the ray hits a vertex) */
	poly_init(&P);
	add_ring(&P, (double[]) {0, 0, 4, 0, 4, 4, 0, 4, 0, 2}, 5);
	add_ring(&P, (double[]) {1, 2, 2, 1, 3, 2, 2, 3}, 4);
	run_case("diamond hole level with exterior vertex", &P, EXPECT_COVER);
	poly_free(&P);

	/* reflex vertices between hole and exterior: the first hit end is not visible */
	poly_init(&P);
	add_ring(&P, (double[]) {0, 0, 10, 0, 10, 10, 0, 10, 0, 6, 4, 5.5, 0, 5}, 7);
	add_ring(&P, (double[]) {6, 4, 8, 4, 8, 6, 6, 6}, 4);
	run_case("reflex notch in front of hole", &P, EXPECT_COVER);
	poly_free(&P);

	/* many holes: grid of squares, diamonds */
	for (i = 1; i <= 8; i *= 2)
	{
		poly_init(&P);
		gen_rect_ring(&P, 0, 0, 3 * i + 1, 3 * i + 1);
		for (j = 0; j < i * i; j++)
		{
			double		x = 1 + 3 * (j % i),
						y = 1 + 3 * (j / i);

			if (j % 2)
				gen_rect_ring(&P, x, y, x + 2, y + 2);
			else
				add_ring(&P, (double[]) {x + 1, y, x + 2, y + 1, x + 1, y + 2, x, y + 1}, 4);
		}
		snprintf(name, sizeof(name), "%d x %d holes", i, i);
		run_case(name, &P, EXPECT_COVER);
		poly_free(&P);
	}

	/* holes vertically aligned (equal x of lowest vertices) */
	poly_init(&P);
	gen_rect_ring(&P, 0, 0, 4, 10);
	gen_rect_ring(&P, 1, 1, 3, 3);
	gen_rect_ring(&P, 1, 4, 3, 6);
	gen_rect_ring(&P, 1, 7, 3, 9);
	run_case("stacked holes", &P, EXPECT_COVER);
	poly_free(&P);

	/* hole touching the exterior at an exterior corner */
	poly_init(&P);
	gen_rect_ring(&P, 0, 0, 4, 4);
	add_ring(&P, (double[]) {0, 0, 1, 2, 2, 1}, 3);
	run_case("hole touching exterior corner", &P, EXPECT_COVER);
	poly_free(&P);

	/* hole touching the inside of an exterior edge (vertex on edge) */
	poly_init(&P);
	gen_rect_ring(&P, 0, 0, 4, 4);
	add_ring(&P, (double[]) {2, 0, 3, 1, 1, 1}, 3);
	run_case("hole touching exterior edge", &P, EXPECT_COVER);
	poly_free(&P);

	/* the same with a collinear exterior vertex at the touch point */
	poly_init(&P);
	add_ring(&P, (double[]) {0, 0, 2, 0, 4, 0, 4, 4, 0, 4}, 5);
	add_ring(&P, (double[]) {2, 0, 3, 1, 1, 1}, 3);
	run_case("hole touching exterior collinear vertex", &P, EXPECT_COVER);
	poly_free(&P);

	/* exterior vertex touching a hole edge from outside the hole (reflex exterior) */
	poly_init(&P);
	add_ring(&P, (double[]) {0, 0, 6, 0, 6, 6, 3, 6, 3, 4, 2, 6, 0, 6}, 7);
	add_ring(&P, (double[]) {1, 4, 5, 4, 5, 2, 1, 2}, 4);
	run_case("exterior vertex on hole edge", &P, EXPECT_COVER);
	poly_free(&P);

	/* two holes touching each other at a vertex, and a third touching both exterior and one */
	poly_init(&P);
	gen_rect_ring(&P, 0, 0, 10, 10);
	add_ring(&P, (double[]) {2, 2, 4, 2, 4, 4, 2, 4}, 4);
	add_ring(&P, (double[]) {4, 4, 6, 4, 6, 6, 4, 6}, 4);
	add_ring(&P, (double[]) {6, 6, 10, 8, 8, 9}, 3);
	run_case("chain of touching holes", &P, EXPECT_COVER);
	poly_free(&P);

	/* several holes meeting at one point, and at an exterior vertex */
	poly_init(&P);
	gen_rect_ring(&P, 0, 0, 10, 10);
	add_ring(&P, (double[]) {5, 5, 7, 4, 7, 6}, 3);
	add_ring(&P, (double[]) {5, 5, 6, 7, 4, 7}, 3);
	add_ring(&P, (double[]) {5, 5, 3, 6, 3, 4}, 3);
	add_ring(&P, (double[]) {5, 5, 4, 3, 6, 3}, 3);
	run_case("four holes meeting at a point", &P, EXPECT_COVER);
	poly_free(&P);
	poly_init(&P);
	gen_rect_ring(&P, 0, 0, 10, 10);
	add_ring(&P, (double[]) {0, 0, 3, 1, 2, 2}, 3);
	add_ring(&P, (double[]) {0, 0, 1.75, 2, 1, 3}, 3);
	run_case("two holes at an exterior corner", &P, EXPECT_COVER);
	poly_free(&P);

	/* hole whose lowest vertex is shared with another hole */
	poly_init(&P);
	gen_rect_ring(&P, 0, 0, 10, 10);
	add_ring(&P, (double[]) {2, 5, 4, 3, 5, 4}, 3);
	add_ring(&P, (double[]) {2, 5, 5, 6, 4, 7}, 3);
	run_case("holes sharing their lowest vertex", &P, EXPECT_COVER);
	poly_free(&P);

	/* a hole that bounds no area is invalid (OGC: rings are simple closed curves) */
	poly_init(&P);
	gen_rect_ring(&P, 0, 0, 4, 4);
	add_ring(&P, (double[]) {1, 1, 2, 2, 3, 3}, 3);
	run_case("collinear hole inside", &P, EXPECT_INVALID);
	poly_free(&P);
	poly_init(&P);
	gen_rect_ring(&P, 0, 0, 4, 4);
	add_ring(&P, (double[]) {1, 1, 3, 3, 5, 5}, 3);
	run_case("collinear hole partly outside", &P, EXPECT_INVALID);
	poly_free(&P);
	poly_init(&P);
	gen_rect_ring(&P, 0, 0, 4, 4);
	add_ring(&P, (double[]) {1, 1, 1, 1, 1, 1}, 3);
	run_case("one-point hole", &P, EXPECT_INVALID);
	poly_free(&P);
	/* a flat exterior stands for its linework, but no hole of it may bound area */
	poly_init(&P);
	add_ring(&P, (double[]) {0, 0, 2, 2, 4, 4}, 3);
	add_ring(&P, (double[]) {1, 0, 2, 0, 2, 1}, 3);
	run_case("flat exterior with a hole of area", &P, EXPECT_INVALID);
	poly_free(&P);
	poly_init(&P);
	add_ring(&P, (double[]) {0, 0, 2, 2, 4, 4}, 3);
	add_ring(&P, (double[]) {1, 0, 2, 0, 3, 0}, 3);
	run_case("flat exterior with a flat hole", &P, EXPECT_EMPTY);
	poly_free(&P);
}

/*
 * k triangular holes around one point, all touching there (valid: their
 * wedges are disjoint and the touch graph is a star); with `overlap`, hole 0
 * reaches into hole 1's wedge (invalid). Exercises the sorted wedge check.
 */
static void
gen_hole_fan(poly *P, int k, bool overlap)
{
	int			i;

	gen_rect_ring(P, -10, -10, 10, 10);
	for (i = 0; i < k; i++)
	{
		double		a0 = 2 * PI * i / k,
					a1 = 2 * PI * (i + (overlap && i == 0 ? 1.5 : 0.5)) / k;

		add_ring(P, (double[]) {0, 0, 5 * cos(a0), 5 * sin(a0), 5 * cos(a1), 5 * sin(a1)}, 3);
	}
}

static void
test_hole_fans(void)
{
	static const int ks[] = {3, 9, 64, 150};
	size_t		t;

	for (t = 0; t < sizeof(ks) / sizeof(ks[0]); t++)
	{
		poly		P;
		char		name[64];

		poly_init(&P);
		gen_hole_fan(&P, ks[t], false);
		snprintf(name, sizeof(name), "%d holes touching at one point", ks[t]);
		run_case(name, &P, EXPECT_COVER);
		poly_free(&P);
		poly_init(&P);
		gen_hole_fan(&P, ks[t], true);
		snprintf(name, sizeof(name), "%d holes at one point, two overlapping", ks[t]);
		run_case(name, &P, EXPECT_INVALID);
		poly_free(&P);
	}
}

/*
 * Collinear runs: a rectangle whose sides carry m vertices each, with k
 * rectangular holes whose sides carry runs too, one hole touching the
 * exterior's bottom side inside an edge and holes stacked on shared x.
 */
static void
gen_collinear_runs(poly *P, int m, int k, double ox, double oy)
{
	int			i,
				h;
	double		W = 4.0 * (k + 1),
				H = 16;

	ring_begin(P);
	for (i = 0; i < m; i++)
		add_pt(P, ox + W * i / m, oy);
	for (i = 0; i < m; i++)
		add_pt(P, ox + W, oy + H * i / m);
	for (i = 0; i < m; i++)
		add_pt(P, ox + W - W * i / m, oy + H);
	for (i = 0; i < m; i++)
		add_pt(P, ox, oy + H - H * i / m);
	for (h = 0; h < k; h++)
	{
		double		x0 = ox + 4 * h + 2,
					y0 = h == 0 ? oy : oy + 2,
					y1 = oy + 6;

		/* two holes per column, one above the other, on the same x */
		ring_begin(P);
		for (i = 0; i < 5; i++)
			add_pt(P, x0, y0 + (y1 - y0) * i / 5);
		for (i = 0; i < 5; i++)
			add_pt(P, x0 + (i + 1) * 0.4, y1);
		add_pt(P, x0 + 2, y0 + 1);
		ring_begin(P);
		add_pt(P, x0, oy + 8);
		add_pt(P, x0 + 1, oy + 8);
		add_pt(P, x0 + 2, oy + 8);
		add_pt(P, x0 + 2, oy + 10);
		add_pt(P, x0 + 2, oy + 12);
		add_pt(P, x0, oy + 12);
	}
}

static void
test_collinear_runs_and_many_holes(void)
{
	poly		P;

	poly_init(&P);
	gen_collinear_runs(&P, 64, 5, 0, 0);
	run_case("collinear runs, holes on shared x", &P, EXPECT_COVER);
	poly_free(&P);
	poly_init(&P);
	gen_collinear_runs(&P, 64, 5, 500000.5, 7000000.25);
	run_case("collinear runs, UTM", &P, EXPECT_COVER);
	poly_free(&P);
	poly_init(&P);
	gen_collinear_runs(&P, 500, 100, 0, 0);
	run_one("collinear runs, 100 columns of holes", &P, EXPECT_COVER, true);
	poly_free(&P);
	/* many small star holes, at UTM offsets */
	poly_init(&P);
	gen_star_with_holes(&P, 3000, 40, 500000, 7000000, 1000, 5);
	run_one("star with many small holes, UTM", &P, EXPECT_COVER, false);
	poly_free(&P);
	poly_init(&P);
	gen_comb(&P, 300, 500000, 7000000);
	run_case("comb, UTM", &P, EXPECT_COVER);
	poly_free(&P);
	poly_init(&P);
	gen_spiral(&P, 800, 6);
	run_case("spiral", &P, EXPECT_COVER);
	poly_free(&P);
}

static void
test_touch_grids(void)
{
	int			it,
				n = quick ? 30 : 150;
	char		name[128];

	for (it = 0; it < n; it++)
	{
		poly		P;
		int			K = 1 + rng_int(it < n / 2 ? 4 : 9);

		poly_init(&P);
		gen_touch_grid(&P, K, (it % 3 == 2) ? 500000 : 0, (it % 3 == 2) ? 7000000 : 0,
					   it % 2, 4 + rng_int(7));
		snprintf(name, sizeof(name), "touch grid %d (K=%d)", it, K);
		run_case(name, &P, EXPECT_COVER);
		poly_free(&P);
	}
}

static void
test_random_stars(void)
{
	int			it,
				n = quick ? 60 : 300;
	char		name[128];

	for (it = 0; it < n; it++)
	{
		poly		P;
		int			nv = 3 + rng_int(it < n / 2 ? 20 : 300);
		bool		utm = it % 4 == 3;

		poly_init(&P);
		if (it % 2 == 0)
			gen_star_ring(&P, utm ? 500000.123 : 0, utm ? 7000000.456 : 0,
						  utm ? 10 : 0.1, utm ? 100 : 1, nv, false);
		else
			/* with 12 or more vertices the exterior contains the disc of radius 0.6 */
			gen_star_with_holes(&P, nv < 12 ? 12 : nv, 1 + rng_int(8), utm ? 500000.123 : 0,
								utm ? 7000000.456 : 0, utm ? 100 : 1, 3 + rng_int(8));
		snprintf(name, sizeof(name), "random star %d (%d vertices%s, %zu rings)", it, nv,
				 utm ? ", UTM" : "", P.nr);
		run_case(name, &P, EXPECT_COVER);
		poly_free(&P);
	}
}

static void
test_ulps(void)
{
	poly		P;
	double		one = nextafter(1.0, 2.0),
				X = 500000.1,
				Y = 7000000.2,
				ux = nextafter(X, INFINITY) - X,
				uy = nextafter(Y, INFINITY) - Y;
	int			it;
	char		name[128];

	/* a vertex one ulp above / below the line of its neighbours */
	poly_init(&P);
	add_ring(&P, (double[]) {0, 0, 2, 0, 2, 2, 1, nextafter(2.0, 3.0), 0, 2}, 5);
	run_case("one ulp convex bump", &P, EXPECT_COVER);
	poly_free(&P);
	poly_init(&P);
	add_ring(&P, (double[]) {0, 0, 2, 0, 2, 2, 1, nextafter(2.0, 1.0), 0, 2}, 5);
	run_case("one ulp reflex dent", &P, EXPECT_COVER);
	poly_free(&P);
	/* sliver triangles one ulp thick */
	poly_init(&P);
	add_ring(&P, (double[]) {0, 0, 1, 0, one, ldexp(1.0, -60), 0.5, ldexp(1.0, -1074)}, 4);
	run_case("ulp sliver", &P, EXPECT_COVER);
	poly_free(&P);
	/* UTM square with a hole one ulp away from the exterior */
	poly_init(&P);
	add_ring(&P, (double[]) {X, Y, X + 100 * ux, Y, X + 100 * ux, Y + 100 * uy, X, Y + 100 * uy}, 4);
	add_ring(&P, (double[]) {X + ux, Y + uy, X + 99 * ux, Y + uy, X + 99 * ux, Y + 99 * uy,
		X + ux, Y + 99 * uy}, 4);
	run_case("UTM hole one ulp inside", &P, EXPECT_COVER);
	poly_free(&P);
	/* UTM near-collinear chains: points on a slanted line rounded to doubles */
	poly_init(&P);
	ring_begin(&P);
	for (it = 0; it <= 50; it++)
		add_pt(&P, 500000.0 + it * 0.1, 7000000.0 + it * 0.3);
	add_pt(&P, 500000.0 + 5.0, 7000000.0 + 20.0);
	add_pt(&P, 500000.0, 7000000.0 + 20.0);
	run_case("UTM rounded collinear chain", &P, EXPECT_COVER);
	poly_free(&P);
	for (it = 0; it < (quick ? 20 : 100); it++)
	{
		poly_init(&P);
		gen_ulp_star(&P, X, Y, 3 + rng_int(60), 4 + rng_int(200));
		snprintf(name, sizeof(name), "ulp-grid star %d", it);
		/* rounding to the ulp grid can make it collinear, or even self-touching */
		{
			uint32_t   *tris = NULL;
			size_t		nt = 0;
			exg_error	err = {0};
			exg_status	st = exg_triangulate_polygon(P.xy, P.n, P.rs, P.nr, &tris, &nt, &err);

			free(tris);
			if (st == EXG_OK && nt > 0)
				run_case(name, &P, EXPECT_COVER);
			else if (st != EXG_ERR_INVALID && !(st == EXG_OK && nt == 0))
			{
				fprintf(stderr, "FAIL %s: %s\n", name, exg_status_name(st));
				failures++;
			}
		}
		poly_free(&P);
	}
}

static void
test_degenerate_and_invalid(void)
{
	poly		P;

	/* zero-area exteriors */
	poly_init(&P);
	add_ring(&P, (double[]) {0, 0, 1, 1, 2, 2}, 3);
	run_case("collinear exterior", &P, EXPECT_EMPTY);
	poly_free(&P);
	poly_init(&P);
	add_ring(&P, (double[]) {0, 0, 1, 1, 0, 0}, 3);
	run_case("two-point exterior", &P, EXPECT_EMPTY);
	poly_free(&P);
	poly_init(&P);
	add_ring(&P, (double[]) {3, 3, 3, 3, 3, 3, 3, 3}, 4);
	run_case("one-point exterior", &P, EXPECT_EMPTY);
	poly_free(&P);
	poly_init(&P);
	ring_begin(&P);
	run_case("empty exterior", &P, EXPECT_EMPTY);
	poly_free(&P);

	/* (e) invalid */
	poly_init(&P);
	add_ring(&P, (double[]) {0, 0, 2, 2, 2, 0, 0, 2}, 4);
	run_case("bow-tie", &P, EXPECT_INVALID);
	poly_free(&P);
	poly_init(&P);
	add_ring(&P, (double[]) {0, 0, 4, 0, 4, 4, 3, 1, 1, 4, 0, 4}, 6);
	add_ring(&P, (double[]) {0, 0, 2, 2, 4, 0, 4, 2, 0, 2}, 5);
	run_case("self-crossing exterior with hole", &P, EXPECT_INVALID);
	poly_free(&P);
	poly_init(&P);
	gen_rect_ring(&P, 0, 0, 4, 4);
	gen_rect_ring(&P, 3, 1, 5, 3);
	run_case("hole crossing the exterior", &P, EXPECT_INVALID);
	poly_free(&P);
	poly_init(&P);
	gen_rect_ring(&P, 0, 0, 4, 4);
	gen_rect_ring(&P, 5, 1, 6, 3);
	run_case("hole outside the exterior", &P, EXPECT_INVALID);
	poly_free(&P);
	poly_init(&P);
	gen_rect_ring(&P, 0, 0, 4, 4);
	gen_rect_ring(&P, -1, -1, 5, 5);
	run_case("hole around the exterior", &P, EXPECT_INVALID);
	poly_free(&P);
	poly_init(&P);
	gen_rect_ring(&P, 0, 0, 10, 10);
	gen_rect_ring(&P, 1, 1, 9, 9);
	gen_rect_ring(&P, 3, 3, 6, 6);
	run_case("hole inside a hole", &P, EXPECT_INVALID);
	poly_free(&P);
	poly_init(&P);
	gen_rect_ring(&P, 0, 0, 10, 10);
	gen_rect_ring(&P, 1, 1, 6, 6);
	gen_rect_ring(&P, 4, 4, 8, 8);
	run_case("overlapping holes", &P, EXPECT_INVALID);
	poly_free(&P);
	poly_init(&P);
	gen_rect_ring(&P, 0, 0, 10, 10);
	gen_rect_ring(&P, 1, 1, 6, 6);
	gen_rect_ring(&P, 1, 1, 6, 6);
	run_case("identical holes", &P, EXPECT_INVALID);
	poly_free(&P);
	poly_init(&P);
	gen_rect_ring(&P, 0, 0, 4, 4);
	gen_rect_ring(&P, 0, 0, 4, 4);
	run_case("hole equal to exterior", &P, EXPECT_INVALID);
	poly_free(&P);
	poly_init(&P);
	gen_rect_ring(&P, 0, 0, 4, 4);
	add_ring(&P, (double[]) {4, 4, 5, 2, 3, 2}, 3);
	run_case("hole crossing at an exterior corner", &P, EXPECT_INVALID);
	poly_free(&P);
	poly_init(&P);
	gen_rect_ring(&P, 0, 0, 4, 4);
	add_ring(&P, (double[]) {2, 0, 3, -1, 3, 1, 1, 1}, 4);
	run_case("hole crossing at a vertex on an exterior edge", &P, EXPECT_INVALID);
	poly_free(&P);
	poly_init(&P);
	gen_rect_ring(&P, 0, 0, 4, 4);
	add_ring(&P, (double[]) {4, 4, 6, 5, 5, 6}, 3);
	run_case("hole outside touching a corner", &P, EXPECT_INVALID);
	poly_free(&P);
	poly_init(&P);
	gen_rect_ring(&P, 0, 0, 4, 4);
	add_ring(&P, (double[]) {0, 2, 2, 1, 4, 2, 2, 3}, 4);
	run_case("hole splitting the polygon in two", &P, EXPECT_INVALID);
	poly_free(&P);
	poly_init(&P);
	gen_rect_ring(&P, 0, 0, 10, 10);
	add_ring(&P, (double[]) {2, 2, 4, 2, 4, 4, 2, 4}, 4);
	add_ring(&P, (double[]) {4, 4, 6, 4, 6, 6, 4, 6}, 4);
	add_ring(&P, (double[]) {4, 2, 6, 2, 6, 4}, 3);
	add_ring(&P, (double[]) {6, 4, 6, 2, 7, 3}, 3);
	run_case("holes touching in a cycle", &P, EXPECT_INVALID);
	poly_free(&P);
	poly_init(&P);
	add_ring(&P, (double[]) {0, 0, 4, 0, 4, 4, 2, 2, 0, 4, 2, 2}, 6);
	run_case("ring touching itself", &P, EXPECT_INVALID);
	poly_free(&P);
	poly_init(&P);
	add_ring(&P, (double[]) {0, 0, 4, 0, 4, 2, 4, 5, 4, 4, 0, 4}, 6);
	run_case("spike", &P, EXPECT_INVALID);
	poly_free(&P);
	poly_init(&P);
	add_ring(&P, (double[]) {0, 0, 4, 0, 2, 0, 2, 3}, 4);
	run_case("overlapping consecutive edges", &P, EXPECT_INVALID);
	poly_free(&P);
	poly_init(&P);
	add_ring(&P, (double[]) {0, 0, 4, 0, 4, 4, 0, 4, 2, 4, 2, 6}, 6);
	run_case("edge through a vertex of its own ring", &P, EXPECT_INVALID);
	poly_free(&P);
	/* random bow-tie-like: star with two vertices swapped */
	{
		int			it;

		for (it = 0; it < (quick ? 20 : 100); it++)
		{
			int			nv = 5 + rng_int(40),
						a = rng_int(nv),
						b = (a + 2 + rng_int(nv - 3)) % nv;
			double		t0,
						t1;

			poly_init(&P);
			gen_star_ring(&P, 0, 0, 0.9, 1, nv, false);
			t0 = P.xy[2 * a];
			t1 = P.xy[2 * a + 1];
			P.xy[2 * a] = P.xy[2 * b];
			P.xy[2 * a + 1] = P.xy[2 * b + 1];
			P.xy[2 * b] = t0;
			P.xy[2 * b + 1] = t1;
			/* swapping close vertices can leave it simple: ask the brute-force oracle */
			run_case("star with two vertices swapped", &P,
					 ring_is_simple(&P, 0) ? EXPECT_COVER : EXPECT_INVALID);
			poly_free(&P);
		}
	}
}

/*
 * Random diamonds (L1 balls with integer centres and radii) as holes of a
 * square: validity has a simple exact oracle, so the engine's verdict is
 * checked both ways. Interiors must not overlap (L1 distance >= r1 + r2),
 * contact must be a single point (centres on a common axis line; otherwise
 * the touching edges overlap along a segment), every diamond must lie in the
 * closed square, and the touch graph (walls included) must have no cycle.
 */
static int
uf_root(int *parent, int x)
{
	while (parent[x] != x)
		x = parent[x] = parent[parent[x]];
	return x;
}

static bool
uf_join(int *parent, int a, int b)
{
	a = uf_root(parent, a);
	b = uf_root(parent, b);
	if (a == b)
		return false;
	parent[a] = b;
	return true;
}

static void
test_diamond_oracle(void)
{
	int			it,
				n = quick ? 1000 : 5000,
				nvalid = 0;
	const int	W = 14;

	for (it = 0; it < n; it++)
	{
		int			k = 1 + rng_int(7),
					cx[8],
					cy[8],
					rr[8],
					parent[9],
					i,
					j;
		bool		valid = true;
		poly		P;
		char		name[128];

		/*
		 * Coordinates X + i * ux: integers, UTM-sized integers, or steps of one
		 * ulp at UTM size; exact, and the map keeps every orientation.
		 */
		double		X = it % 3 == 0 ? 0 : 500000.1,
					Y = it % 3 == 0 ? 0 : 7000000.2,
					ux = it % 3 == 2 ? nextafter(X, INFINITY) - X : 1,
					uy = it % 3 == 2 ? nextafter(Y, INFINITY) - Y : 1;

		if (it % 3 == 1)
		{
			X = 500000;
			Y = 7000000;
		}
		for (i = 0; i <= k; i++)
			parent[i] = i;	/* k is the exterior */
		poly_init(&P);
		gen_rect_ring(&P, X, Y, X + W * ux, Y + W * uy);
		for (i = 0; i < k; i++)
		{
			rr[i] = 1 + rng_int(3);
			/* mostly inside (walls touched often), sometimes anywhere */
			cx[i] = rng_int(10) ? rr[i] + rng_int(W - 2 * rr[i] + 1) : rng_int(W + 3) - 1;
			cy[i] = rng_int(10) ? rr[i] + rng_int(W - 2 * rr[i] + 1) : rng_int(W + 3) - 1;
			add_ring(&P, (double[]) {X + (cx[i] + rr[i]) * ux, Y + cy[i] * uy,
				X + cx[i] * ux, Y + (cy[i] + rr[i]) * uy,
				X + (cx[i] - rr[i]) * ux, Y + cy[i] * uy,
			X + cx[i] * ux, Y + (cy[i] - rr[i]) * uy}, 4);
			if (cx[i] - rr[i] < 0 || cx[i] + rr[i] > W || cy[i] - rr[i] < 0 || cy[i] + rr[i] > W)
				valid = false;
			else
			{
				if (cx[i] - rr[i] == 0)
					valid &= uf_join(parent, i, k);
				if (cx[i] + rr[i] == W)
					valid &= uf_join(parent, i, k);
				if (cy[i] - rr[i] == 0)
					valid &= uf_join(parent, i, k);
				if (cy[i] + rr[i] == W)
					valid &= uf_join(parent, i, k);
			}
		}
		for (i = 0; i < k && valid; i++)
			for (j = i + 1; j < k && valid; j++)
			{
				int			dx = abs(cx[i] - cx[j]),
							dy = abs(cy[i] - cy[j]);

				if (dx + dy < rr[i] + rr[j])
					valid = false;
				else if (dx + dy == rr[i] + rr[j])
					valid = (dx == 0 || dy == 0) && uf_join(parent, i, j);
			}
		nvalid += valid;
		snprintf(name, sizeof(name), "diamonds %d (%d holes, %s)", it, k, valid ? "valid" : "invalid");
		if (it % 10 == 0)
			run_case(name, &P, valid ? EXPECT_COVER : EXPECT_INVALID);
		else
			run_one(name, &P, valid ? EXPECT_COVER : EXPECT_INVALID, true);
		poly_free(&P);
	}
	printf("diamond oracle: %d of %d configurations valid\n", nvalid, n);
}

/* Holes in the teeth of a comb and along the corridor of a spiral: bridges must find their way. */
static void
test_holes_in_corridors(void)
{
	int			it;
	char		name[128];

	for (it = 0; it < (quick ? 10 : 40); it++)
	{
		poly		P;
		int			k = 2 + rng_int(60),
					i;

		poly_init(&P);
		gen_comb(&P, k, 0, 0);
		for (i = 0; i < k; i++)
		{
			if (rng_int(2))
				add_ring(&P, (double[]) {2 * i + 0.25, 3, 2 * i + 0.75, 3, 2 * i + 0.75, 3 + rng_int(7), 2 * i + 0.25, 8}, 4);
			if (rng_int(3) == 0)
				gen_rect_ring(&P, 2 * i + 0.25, 0.25, 2 * i + 0.75, 0.75);
		}
		snprintf(name, sizeof(name), "comb %d with holes", it);
		run_case(name, &P, EXPECT_COVER);
		poly_free(&P);
	}
	for (it = 0; it < (quick ? 5 : 20); it++)
	{
		poly		P;
		int			n = 100 + rng_int(400),
					i;
		double		turns = 1 + rng_int(4);

		poly_init(&P);
		gen_spiral(&P, n, turns);
		for (i = 1; i + 1 < n; i += 1 + rng_int(8))
		{
			double		th = 2 * PI * turns * (i + 0.5) / (n - 1),
						r = 1 + th / PI,
						x = r * cos(th),
						y = r * sin(th),
						step = r * 2 * PI * turns / (n - 1),	/* arc between vertices */
						h = fmin(0.1, 0.3 * step);

			add_ring(&P, (double[]) {x + h, y, x, y + h, x - h, y, x, y - h}, 4);
		}
		snprintf(name, sizeof(name), "spiral %d with %zu holes", it, P.nr - 1);
		run_case(name, &P, EXPECT_COVER);
		poly_free(&P);
	}
}

/*
 * Messy integer input: a star rounded to a small grid (collinear runs,
 * self-touching after rounding) with random integer triangles as holes.
 * Validity is not known here, so this checks soundness only: whenever the
 * engine accepts, the cover must be exact; otherwise it must say invalid
 * (or flat, for a collinear exterior).
 */
static void
test_messy_integer(void)
{
	int			it,
				n = quick ? 1000 : 4000,
				accepted = 0;

	for (it = 0; it < n; it++)
	{
		poly		P;
		int			nv = 3 + rng_int(25),
					nh = rng_int(5),
					R = 3 + rng_int(12),
					i;
		uint32_t   *tris = NULL;
		size_t		nt = 0;
		exg_error	err = {0};
		exg_status	st;
		char		name[128];

		poly_init(&P);
		ring_begin(&P);
		for (i = 0; i < nv; i++)
		{
			double		a = 2 * PI * (i + 0.8 * rng_unit()) / nv,
						rr = R * (0.3 + 0.7 * rng_unit());

			add_pt(&P, round(rr * cos(a)), round(rr * sin(a)));
		}
		for (i = 0; i < nh; i++)
		{
			double		x = rng_int(2 * R) - R,
						y = rng_int(2 * R) - R;

			add_ring(&P, (double[]) {x, y, x + 1 + rng_int(3), y + rng_int(3) - 1,
				x + rng_int(3) - 1, y + 1 + rng_int(3)}, 3);
		}
		st = exg_triangulate_polygon(P.xy, P.n, P.rs, P.nr, &tris, &nt, &err);
		snprintf(name, sizeof(name), "messy integer polygon %d", it);
		if (nh == 0)
		{
			/* one ring: the brute-force oracle knows the answer */
			poly		Q;
			size_t		q;

			poly_init(&Q);
			ring_begin(&Q);
			for (q = 0; q < P.n; q++)
				if (Q.n == 0 || P.xy[2 * q] != Q.xy[2 * Q.n - 2] || P.xy[2 * q + 1] != Q.xy[2 * Q.n - 1])
					add_pt(&Q, P.xy[2 * q], P.xy[2 * q + 1]);
			while (Q.n > 1 && Q.xy[0] == Q.xy[2 * Q.n - 2] && Q.xy[1] == Q.xy[2 * Q.n - 1])
				Q.rs[1] = --Q.n;
			if (!ring_is_collinear(&Q, 0) && (ring_is_simple(&Q, 0) != (st == EXG_OK)))
			{
				fprintf(stderr, "FAIL %s: oracle says %s, engine says %s\n", name,
						ring_is_simple(&Q, 0) ? "simple" : "not simple", exg_status_name(st));
				failures++;
			}
			poly_free(&Q);
		}
		if (st == EXG_OK && nt > 0)
		{
			accepted++;
			if (getenv("DUMP") && atoi(getenv("DUMP")) == it)
			{
				size_t		r,
							q;

				for (r = 0; r < P.nr; r++)
				{
					printf("ring %zu:", r);
					for (q = P.rs[r]; q < P.rs[r + 1]; q++)
						printf(" [%zu](%g %g)", q, P.xy[2 * q], P.xy[2 * q + 1]);
					printf("\n");
				}
				for (q = 0; q < nt; q++)
					printf("tri %zu: %u %u %u\n", q, tris[3 * q], tris[3 * q + 1], tris[3 * q + 2]);
			}
			if (check_cover(name, &P, tris, nt, true))
			{
				npolys_ok++;
				ntris_checked += (long) nt;
			}
		}
		else if (st != EXG_ERR_INVALID && !(st == EXG_OK && nt == 0))
		{
			fprintf(stderr, "FAIL %s: %s\n", name, exg_status_name(st));
			failures++;
		}
		else
			npolys_invalid++;
		free(tris);
		poly_free(&P);
	}
	printf("messy integer polygons: %d of %d accepted\n", accepted, n);
}

static bool
always_cancel(void)
{
	return true;
}

/* Argument errors, non-finite input, and cancellation (must free everything). */
static void
test_api(void)
{
	poly		P;
	uint32_t   *tris = NULL;
	size_t		nt = 99,
				bad[3] = {0, 4, 2};
	exg_error	err = {0};
	exg_status	st;

	poly_init(&P);
	gen_rect_ring(&P, 0, 0, 1, 1);
	st = exg_triangulate_polygon(P.xy, P.n, P.rs, 0, &tris, &nt, &err);
	if (st != EXG_ERR_ARGUMENT || tris != NULL || nt != 0)
	{
		fprintf(stderr, "FAIL no rings: %s\n", exg_status_name(st));
		failures++;
	}
	st = exg_triangulate_polygon(P.xy, P.n, bad, 2, &tris, &nt, &err);
	if (st != EXG_ERR_ARGUMENT)
	{
		fprintf(stderr, "FAIL decreasing offsets: %s\n", exg_status_name(st));
		failures++;
	}
	P.xy[3] = NAN;
	st = exg_triangulate_polygon(P.xy, P.n, P.rs, P.nr, &tris, &nt, &err);
	if (st != EXG_ERR_NONFINITE)
	{
		fprintf(stderr, "FAIL NaN vertex: %s\n", exg_status_name(st));
		failures++;
	}
	poly_free(&P);

	poly_init(&P);
	gen_star_ring(&P, 0, 0, 0.5, 1, 20000, false);
	exg_set_cancel_callback(always_cancel);
	st = exg_triangulate_polygon(P.xy, P.n, P.rs, P.nr, &tris, &nt, &err);
	exg_set_cancel_callback(NULL);
	if (st != EXG_ERR_INTERRUPTED || tris != NULL)
	{
		fprintf(stderr, "FAIL cancel: %s\n", exg_status_name(st));
		failures++;
	}
	poly_free(&P);
}

static double
now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* One big polygon: time the triangulation alone (best of 3), then check it. */
static void
time_one(const char *name, const poly *P)
{
	uint32_t   *tris = NULL;
	size_t		nt = 0;
	exg_error	err = {0};
	exg_status	st = EXG_OK;
	double		best = INFINITY;
	int			rep;

	for (rep = 0; rep < 3; rep++)
	{
		double		t0 = now_s();

		free(tris);
		tris = NULL;
		st = exg_triangulate_polygon(P->xy, P->n, P->rs, P->nr, &tris, &nt, &err);
		best = fmin(best, now_s() - t0);
	}
	printf("  %-46s %6zu vertices %4zu rings: %7.1f ms, %zu triangles\n",
		   name, P->n, P->nr, best * 1e3, nt);
	if (st != EXG_OK)
	{
		fprintf(stderr, "FAIL %s: %s: %s\n", name, exg_status_name(st), err.message);
		failures++;
	}
	else if (check_cover(name, P, tris, nt, !quick))
	{
		npolys_ok++;
		ntris_checked += (long) nt;
	}
	free(tris);
}

static void
test_timing(void)
{
	poly		P;

	printf("timing (triangulation only; checks follow each):\n");
	poly_init(&P);
	gen_star_ring(&P, 0, 0, 0.9, 1, 10000, false);
	time_one("random star, radii 0.9-1", &P);
	poly_free(&P);
	poly_init(&P);
	gen_star_ring(&P, 0, 0, 0.1, 1, 10000, false);
	time_one("random star, radii 0.1-1 (long crossing boxes)", &P);
	poly_free(&P);
	poly_init(&P);
	gen_star_ring(&P, 500000.5, 7000000.5, 50, 1000, 10000, true);
	time_one("random star, UTM, clockwise", &P);
	poly_free(&P);
	poly_init(&P);
	gen_star_with_holes(&P, 5000, 12, 0, 0, 1, 40);
	time_one("random star with star holes", &P);
	poly_free(&P);
	poly_init(&P);
	gen_comb(&P, 2500, 0, 0);
	time_one("comb", &P);
	poly_free(&P);
	poly_init(&P);
	gen_spiral(&P, 5000, 20);
	time_one("spiral", &P);
	poly_free(&P);
	poly_init(&P);
	gen_touch_grid(&P, 30, 0, 0, true, 8);
	time_one("touching holes grid", &P);
	poly_free(&P);
}

int
main(int argc, char **argv)
{
	double		t0 = now_s();

	quick = !(argc > 1 && strcmp(argv[1], "--full") == 0);
	if (getenv("TRI_SEED") != NULL)
		rng_state ^= strtoull(getenv("TRI_SEED"), NULL, 10) * 0x9E3779B97F4A7C15ull;
	test_basic();
	test_holes();
	test_ulps();
	test_degenerate_and_invalid();
	test_api();
	test_diamond_oracle();
	test_messy_integer();
	test_holes_in_corridors();
	test_touch_grids();
	test_hole_fans();
	test_collinear_runs_and_many_holes();
	test_random_stars();
	test_timing();
	printf("test_triangulate: %ld polygons tiled exactly (%ld triangles checked), "
		   "%ld rejected as invalid, %ld flat; %d failures (%.1f s)\n",
		   npolys_ok, ntris_checked, npolys_invalid, npolys_empty, failures, now_s() - t0);
	return failures ? 1 : 0;
}
