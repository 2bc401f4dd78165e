/*
 * adversarial.c — deterministic hard cases for the predicates (see adversarial.h).
 *
 * Two kinds of generators:
 *
 * - "lattice" cases: a constructor places the points at integer local
 *   coordinates (u, v, w) so that the wanted degeneracy holds exactly in the
 *   integers (w = 0 is "the plane", v = w = 0 "the line", X = E0 + t s "on
 *   the edge E0..E0 + m s"), and a frame maps them affinely to doubles:
 *       coordinate_k = (origin_k + u e0_k + v e1_k + w e2_k) * 2^exp.
 *   Integer affine maps keep incidences, the integer is checked to stay below
 *   2^53 and 2^exp only shifts the exponent, so the doubles are exactly
 *   degenerate too — at small scale, at UTM offsets, in the subnormal range
 *   or next to overflow. Every constructor draws its sizes at random, so each
 *   family yields intersecting and disjoint (or +, 0, -) cases.
 *
 * - "raw" cases: full-precision random doubles (uniform, UTM, wild exponents)
 *   and Kettner et al.'s grid, whose point of interest is rounding itself.
 */
#include "adversarial.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

const adv_pred_info adv_preds[ADV_NPREDS] = {
	[ADV_ORIENT2D] = {"orient2d", 2, 3, 0, true},
	[ADV_ORIENT3D] = {"orient3d", 3, 4, 0, true},
	[ADV_POINT_POINT_3D] = {"point_point_3d", 3, 1, 1, false},
	[ADV_POINT_SEGMENT_3D] = {"point_segment_3d", 3, 1, 2, false},
	[ADV_POINT_TRIANGLE_3D] = {"point_triangle_3d", 3, 1, 3, false},
	[ADV_SEGMENT_SEGMENT_3D] = {"segment_segment_3d", 3, 2, 2, false},
	[ADV_SEGMENT_TRIANGLE_3D] = {"segment_triangle_3d", 3, 2, 3, false},
	[ADV_TRIANGLE_TRIANGLE_3D] = {"triangle_triangle_3d", 3, 3, 3, false},
	[ADV_POINT_SEGMENT_2D] = {"point_segment_2d", 2, 1, 2, false},
	[ADV_POINT_TRIANGLE_2D] = {"point_triangle_2d", 2, 1, 3, false},
	[ADV_SEGMENT_SEGMENT_2D] = {"segment_segment_2d", 2, 2, 2, false},
	[ADV_SEGMENT_TRIANGLE_2D] = {"segment_triangle_2d", 2, 2, 3, false},
	[ADV_TRIANGLE_TRIANGLE_2D] = {"triangle_triangle_2d", 2, 3, 3, false},
};

static const char *const family_names[ADV_NFAMILIES] = {
	[ADV_UNIFORM] = "uniform",
	[ADV_SMALL_GRID] = "small_grid",
	[ADV_COPLANAR] = "coplanar",
	[ADV_COLLINEAR] = "collinear",
	[ADV_SHARED_VERTEX] = "shared_vertex",
	[ADV_SHARED_EDGE] = "shared_edge",
	[ADV_VERTEX_ON_EDGE] = "vertex_on_edge",
	[ADV_VERTEX_ON_FACE] = "vertex_on_face",
	[ADV_TOUCHING] = "touching",
	[ADV_COLLINEAR_OVERLAP] = "collinear_overlap",
	[ADV_COPLANAR_OVERLAP] = "coplanar_overlap",
	[ADV_DEGENERATE] = "degenerate",
	[ADV_UTM_RANDOM] = "utm_random",
	[ADV_UTM_DEGENERATE] = "utm_degenerate",
	[ADV_ULP] = "ulp_perturbed",
	[ADV_KETTNER_GRID] = "kettner_grid",
	[ADV_EXTREME] = "extreme_magnitude",
	[ADV_PERMUTED] = "permuted",
	[ADV_STATIC_BOUND] = "static_bound",
};

const char *
adv_family_name(adv_family f)
{
	return (unsigned) f < ADV_NFAMILIES ? family_names[f] : "?";
}

int
adv_npoints(adv_pred p)
{
	return adv_preds[p].na + adv_preds[p].nb;
}

/* ------------------------------------------------------------------ */
/* xoshiro256**, seeded through splitmix64 from (seed, family, pred, index). */

typedef struct adv_rng
{
	uint64_t	s[4];
} adv_rng;

static uint64_t
mix64(uint64_t z)
{
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static void
rng_seed(adv_rng *r, uint64_t seed, uint64_t a, uint64_t b, uint64_t c)
{
	uint64_t	h = mix64(seed + 0x9e3779b97f4a7c15ULL);

	h = mix64(h ^ (a + 0x632be59bd9b4e019ULL));
	h = mix64(h ^ (b + 0x8cb92ba72f3d8dd7ULL));
	h = mix64(h ^ (c + 0xd6e8feb86659fd93ULL));
	for (int i = 0; i < 4; i++)
	{
		h += 0x9e3779b97f4a7c15ULL;
		r->s[i] = mix64(h);
	}
}

static uint64_t
rotl(uint64_t x, int k)
{
	return (x << k) | (x >> (64 - k));
}

static uint64_t
rng_next(adv_rng *r)
{
	uint64_t   *s = r->s;
	uint64_t	result = rotl(s[1] * 5, 7) * 9;
	uint64_t	t = s[1] << 17;

	s[2] ^= s[0];
	s[3] ^= s[1];
	s[1] ^= s[2];
	s[0] ^= s[3];
	s[2] ^= t;
	s[3] = rotl(s[3], 45);
	return result;
}

static uint64_t
rng_below(adv_rng *r, uint64_t n)
{
	return n ? rng_next(r) % n : 0;
}

/* uniform in [lo, hi] */
static int64_t
rng_range(adv_rng *r, int64_t lo, int64_t hi)
{
	return lo + (int64_t) rng_below(r, (uint64_t) (hi - lo) + 1);
}

static bool
rng_chance(adv_rng *r, unsigned percent)
{
	return rng_below(r, 100) < percent;
}

/* uniform in [-1, 1), every multiple of 2^-53 there (exact) */
static double
rng_sym(adv_rng *r)
{
	int64_t		m = (int64_t) (rng_next(r) >> 10) - (INT64_C(1) << 53);

	return ldexp((double) m, -53);
}

static double
rng_unit(adv_rng *r)
{
	return ldexp((double) (rng_next(r) >> 11), -53);
}

/* ------------------------------------------------------------------ */
/* Lattice configurations.                                             */

#define MAXP 6

typedef struct lattice_cfg
{
	int			ld;				/* local dimension = ambient dimension */
	int			na,
				nb;
	int64_t		L[MAXP][3];		/* local (u, v, w); w = 0 when ld == 2 */
} lattice_cfg;

static void
lset(int64_t *p, int64_t u, int64_t v, int64_t w)
{
	p[0] = u;
	p[1] = v;
	p[2] = w;
}

static void
lcopy(int64_t *dst, const int64_t *src)
{
	memcpy(dst, src, 3 * sizeof(int64_t));
}

/* dst = a + t b */
static void
laxpy(int64_t *dst, const int64_t *a, int64_t t, const int64_t *b)
{
	for (int k = 0; k < 3; k++)
		dst[k] = a[k] + t * b[k];
}

static void
rand_full(adv_rng *r, int ld, int64_t R, int64_t *p)
{
	/* one draw per statement: argument evaluation order is unspecified in C,
	 * and the cases must not depend on the compiler */
	p[0] = rng_range(r, -R, R);
	p[1] = rng_range(r, -R, R);
	p[2] = ld == 3 ? rng_range(r, -R, R) : 0;
}

/* In the frame's plane w = 0 (3D); anywhere (2D). */
static void
rand_plane(adv_rng *r, int ld, int64_t R, int64_t *p)
{
	rand_full(r, 2, R, p);
	(void) ld;
}

/* Non-zero vector with entries in [-lim, lim]; coordinate `zero` forced to 0
 * (-1: none). */
static void
rand_vec(adv_rng *r, int ld, int64_t lim, int zero, int64_t *s)
{
	do
	{
		rand_full(r, ld, lim, s);
		if (zero >= 0)
			s[zero] = 0;
	} while (s[0] == 0 && s[1] == 0 && s[2] == 0);
}

/* Vector tangent to the plane w = 0 (3D) or free (2D). */
static void
rand_vec_plane(adv_rng *r, int ld, int64_t lim, int64_t *s)
{
	rand_vec(r, ld, lim, ld == 3 ? 2 : -1, s);
}

static int64_t
rng_nonzero(adv_rng *r, int64_t R)
{
	int64_t		x = rng_range(r, 1, R);

	return rng_chance(r, 50) ? x : -x;
}

/* Shuffle the slots of A and, separately, of B (all points for orientation). */
static void
shuffle_slots(adv_rng *r, lattice_cfg *c)
{
	int			first[2] = {0, c->na},
				count[2] = {c->na, c->nb};

	for (int g = 0; g < 2; g++)
		for (int i = count[g] - 1; i > 0; i--)
		{
			int			j = (int) rng_below(r, (uint64_t) i + 1);
			int64_t		t[3];

			lcopy(t, c->L[first[g] + i]);
			lcopy(c->L[first[g] + i], c->L[first[g] + j]);
			lcopy(c->L[first[g] + j], t);
		}
}

typedef enum con_kind
{
	CON_GRID,
	CON_COPLANAR,
	CON_COLLINEAR,
	CON_SHARED_VERTEX,
	CON_SHARED_EDGE,
	CON_ON_EDGE,
	CON_ON_FACE,
	CON_TOUCHING,
	CON_COLLINEAR_OVERLAP,
	CON_COPLANAR_OVERLAP,
	CON_DEGENERATE,
	CON_N
} con_kind;

static bool
con_applies(con_kind k, adv_pred p)
{
	const adv_pred_info *pi = &adv_preds[p];
	int			nmax = pi->na > pi->nb ? pi->na : pi->nb;

	switch (k)
	{
		case CON_GRID:
		case CON_COPLANAR:
		case CON_COLLINEAR:
		case CON_SHARED_VERTEX:
		case CON_DEGENERATE:
			return true;
		case CON_SHARED_EDGE:
			return !pi->orient && pi->na >= 2 && pi->nb >= 2;
		case CON_ON_EDGE:
			return pi->orient || nmax >= 2;
		case CON_ON_FACE:
			return p == ADV_ORIENT3D || (!pi->orient && pi->nb == 3);
		case CON_TOUCHING:
			return !pi->orient;
		case CON_COLLINEAR_OVERLAP:
			return !pi->orient && nmax >= 2;
		case CON_COPLANAR_OVERLAP:
			return !pi->orient && nmax >= 2;
		default:
			return false;
	}
}

static void
con_grid(adv_rng *r, int64_t R, lattice_cfg *c)
{
	for (int i = 0; i < c->na + c->nb; i++)
		rand_full(r, c->ld, R, c->L[i]);
}

static void
con_coplanar(adv_rng *r, int64_t R, lattice_cfg *c)
{
	int			n = c->na + c->nb;

	for (int i = 0; i < n; i++)
		rand_plane(r, c->ld, R, c->L[i]);
	if (c->nb == 0 && c->ld == 3 && rng_chance(r, 50))
		c->L[3][2] = rng_nonzero(r, 2);	/* 4th point just off the plane */
	if (c->nb == 0 && c->ld == 2 && rng_chance(r, 50))
	{
		int64_t		d[3];

		for (int k = 0; k < 3; k++)
			d[k] = c->L[1][k] - c->L[0][k];
		laxpy(c->L[2], c->L[0], rng_range(r, -2, 3), d);
	}
}

static void
con_collinear(adv_rng *r, int64_t R, lattice_cfg *c)
{
	int			n = c->na + c->nb;
	int			variant = (int) rng_below(r, 3);

	for (int i = 0; i < n; i++)
		lset(c->L[i], rng_range(r, -R - 2, R + 2), 0, 0);
	if (c->nb == 0)
	{
		/* orient3d of 3 collinear points is 0 whatever the 4th: leave only
		 * the first two on the line sometimes */
		int			off = rng_chance(r, 40) ? (c->ld == 3 && rng_chance(r, 50) ? 2 : 1) : 0;

		for (int i = n - off; i < n; i++)
			rand_full(r, c->ld, R, c->L[i]);
		return;
	}
	if (variant == 1)
		for (int i = c->na; i < n; i++)
			rand_full(r, c->ld, R, c->L[i]);
	else if (variant == 2)
		for (int i = 0; i < c->na; i++)
			rand_full(r, c->ld, R, c->L[i]);
}

static void
con_shared_vertex(adv_rng *r, int64_t R, lattice_cfg *c)
{
	int			n = c->na + c->nb;
	bool		planar = rng_chance(r, 30);

	for (int i = 0; i < n; i++)
	{
		if (planar)
			rand_plane(r, c->ld, R, c->L[i]);
		else
			rand_full(r, c->ld, R, c->L[i]);
	}
	if (c->nb == 0)
	{
		int			i = (int) rng_below(r, n),
					j = (int) rng_below(r, n - 1);

		lcopy(c->L[j >= i ? j + 1 : j], c->L[i]);
	}
	else
	{
		int			i = (int) rng_below(r, c->na);
		int			j = c->na + (int) rng_below(r, c->nb);

		lcopy(c->L[j], c->L[i]);
	}
}

static void
con_shared_edge(adv_rng *r, int64_t R, lattice_cfg *c)
{
	con_grid(r, R, c);
	/* slots are shuffled afterwards, so copying A0, A1 to B0, B1 is general */
	lcopy(c->L[c->na], c->L[0]);
	lcopy(c->L[c->na + 1], c->L[1]);
	if (rng_chance(r, 50))
	{
		/* reversed orientation of the shared edge */
		lcopy(c->L[c->na], c->L[1]);
		lcopy(c->L[c->na + 1], c->L[0]);
	}
	if (rng_chance(r, 25))
	{
		/* a parallel edge one lattice step away instead */
		int64_t		s[3];

		rand_vec(r, c->ld, 1, -1, s);
		laxpy(c->L[c->na], c->L[c->na], 1, s);
		laxpy(c->L[c->na + 1], c->L[c->na + 1], 1, s);
	}
}

static void
con_on_edge(adv_rng *r, int64_t R, lattice_cfg *c)
{
	int			ld = c->ld;
	int64_t		s[3],
				E0[3],
				X[3];
	int64_t		m = rng_range(r, 1, 6);
	int64_t		t = rng_range(r, -2, m + 2);

	rand_full(r, ld, R, E0);
	rand_vec(r, ld, 2, -1, s);
	laxpy(X, E0, t, s);
	if (rng_chance(r, 30))
	{
		int64_t		off[3];

		rand_vec(r, ld, 1, -1, off);
		laxpy(X, X, 1, off);	/* near, not on, the line */
	}

	if (c->nb == 0)
	{
		int			n = c->na;

		lcopy(c->L[0], E0);
		laxpy(c->L[1], E0, m, s);
		if (n == 4)
			rand_full(r, ld, R, c->L[2]);
		lcopy(c->L[n - 1], X);
		return;
	}

	/* the edge goes to B when B has one, else to A */
	bool		edge_in_b = c->nb >= 2 && (c->na < 2 || rng_chance(r, 70));
	int			ef = edge_in_b ? c->na : 0,
				en = edge_in_b ? c->nb : c->na;
	int			vf = edge_in_b ? 0 : c->na,
				vn = edge_in_b ? c->na : c->nb;

	for (int i = 0; i < en; i++)
		rand_full(r, ld, R, c->L[ef + i]);
	lcopy(c->L[ef], E0);
	laxpy(c->L[ef + 1], E0, m, s);
	for (int i = 0; i < vn; i++)
	{
		int64_t		d[3];

		rand_full(r, ld, R, d);
		laxpy(c->L[vf + i], X, 1, d);
	}
	lcopy(c->L[vf], X);
}

static void
con_on_face(adv_rng *r, int64_t R, lattice_cfg *c)
{
	int			ld = c->ld;
	int			tf = c->nb == 0 ? 0 : c->na;	/* first slot of the triangle */
	int64_t		lo[2],
				hi[2],
				X[3];

	for (int i = 0; i < 3; i++)
	{
		if (ld == 3)
			rand_plane(r, ld, R, c->L[tf + i]);
		else
			rand_full(r, ld, R, c->L[tf + i]);
	}
	for (int k = 0; k < 2; k++)
	{
		lo[k] = hi[k] = c->L[tf][k];
		for (int i = 1; i < 3; i++)
		{
			if (c->L[tf + i][k] < lo[k])
				lo[k] = c->L[tf + i][k];
			if (c->L[tf + i][k] > hi[k])
				hi[k] = c->L[tf + i][k];
		}
	}
	X[0] = rng_range(r, lo[0] - 1, hi[0] + 1);
	X[1] = rng_range(r, lo[1] - 1, hi[1] + 1);
	X[2] = 0;

	if (c->nb == 0)				/* orient3d: 4th point in the plane, or one step off */
	{
		lcopy(c->L[3], X);
		if (rng_chance(r, 40))
			c->L[3][2] = rng_nonzero(r, 1);
		return;
	}
	bool		one_side = rng_chance(r, 70);

	for (int i = 0; i < c->na; i++)
	{
		if (ld == 3)
		{
			rand_plane(r, ld, R, c->L[i]);
			c->L[i][2] = one_side ? rng_range(r, 1, R) : rng_nonzero(r, R);
		}
		else
			rand_full(r, ld, R, c->L[i]);
	}
	lcopy(c->L[0], X);
}

/*
 * Touching: everything of A in w >= 0 (v >= 0 in 2D), everything of B in
 * w <= 0, and the parts in w = 0 — a vertex, an edge through X, or (3D) a
 * face around X — both contain X. The sets meet, and only in w = 0. Moving A
 * up by one step separates them.
 */
static void
con_touching(adv_rng *r, int64_t R, lattice_cfg *c)
{
	int			ld = c->ld,
				nc = ld - 1;
	int64_t		X[3];

	rand_full(r, ld, R, X);
	X[nc] = 0;
	for (int g = 0; g < 2; g++)
	{
		int			first = g == 0 ? 0 : c->na;
		int			n = g == 0 ? c->na : c->nb;
		int64_t		side = g == 0 ? 1 : -1;
		int			ntypes = n == 1 ? 1 : (n == 3 && ld == 3 ? 3 : 2);
		int			type = (int) rng_below(r, ntypes);
		int			placed = 0;

		if (type == 0)
		{
			lcopy(c->L[first], X);
			placed = 1;
		}
		else if (type == 1)
		{
			int64_t		s[3];

			rand_vec(r, ld, R, nc, s);
			laxpy(c->L[first], X, -1, s);
			laxpy(c->L[first + 1], X, 1, s);
			placed = 2;
		}
		else
		{
			int64_t		d0[3],
						d1[3];

			for (int tries = 0; tries < 8; tries++)
			{
				rand_vec(r, ld, R, nc, d0);
				rand_vec(r, ld, R, nc, d1);
				if ((__int128) d0[0] * d1[1] - (__int128) d0[1] * d1[0] != 0)
					break;
			}
			laxpy(c->L[first], X, 1, d0);
			laxpy(c->L[first + 1], X, 1, d1);
			laxpy(c->L[first + 2], X, -1, d0);
			laxpy(c->L[first + 2], c->L[first + 2], -1, d1);
			placed = 3;
		}
		for (int i = placed; i < n; i++)
		{
			int64_t		d[3];

			rand_full(r, ld, R, d);
			laxpy(c->L[first + i], X, 1, d);
			c->L[first + i][nc] = side * rng_range(r, 1, R);
		}
	}
	if (rng_chance(r, 30))
		for (int i = 0; i < c->na; i++)
			c->L[i][nc] += 1;
}

static void
con_collinear_overlap(adv_rng *r, int64_t R, lattice_cfg *c)
{
	int			ld = c->ld;
	int64_t		T = R + 2;

	for (int g = 0; g < 2; g++)
	{
		int			first = g == 0 ? 0 : c->na;
		int			n = g == 0 ? c->na : c->nb;

		for (int i = 0; i < n; i++)
			lset(c->L[first + i], rng_range(r, -T, T), 0, 0);
		if (n == 3)
		{
			int64_t    *p = c->L[first + 2];

			if (ld == 2)
			{
				p[0] = rng_range(r, -R, R);
				p[1] = rng_nonzero(r, R);
				p[2] = 0;
			}
			else
				do
					rand_full(r, 3, R, p);
				while (p[1] == 0 && p[2] == 0);
		}
	}
}

static void
con_coplanar_overlap(adv_rng *r, int64_t R, lattice_cfg *c)
{
	int			ld = c->ld;

	if (c->na == 3 && c->nb == 3)
	{
		int64_t		A[3][3],
					S[3];
		int64_t    *B[3] = {c->L[3], c->L[4], c->L[5]};

		for (int tries = 0; tries < 8; tries++)
		{
			for (int i = 0; i < 3; i++)
				rand_plane(r, ld, R, A[i]);
			if ((__int128) (A[1][0] - A[0][0]) * (A[2][1] - A[0][1]) -
				(__int128) (A[1][1] - A[0][1]) * (A[2][0] - A[0][0]) != 0)
				break;
		}
		for (int k = 0; k < 3; k++)
			S[k] = A[0][k] + A[1][k] + A[2][k];
		/* A is scaled by 6 so that centroid maps stay on the lattice */
		for (int i = 0; i < 3; i++)
			for (int k = 0; k < 3; k++)
				c->L[i][k] = 6 * A[i][k];
		switch (rng_below(r, 7))
		{
			case 0:				/* point reflection through the centroid: hexagram */
				for (int i = 0; i < 3; i++)
					for (int k = 0; k < 3; k++)
						B[i][k] = 4 * S[k] - 6 * A[i][k];
				break;
			case 1:				/* medial triangle: vertices on A's edges */
				for (int i = 0; i < 3; i++)
					for (int k = 0; k < 3; k++)
						B[i][k] = 3 * (S[k] - A[i][k]);
				break;
			case 2:				/* half-size copy at vertex 0 */
				for (int i = 0; i < 3; i++)
					for (int k = 0; k < 3; k++)
						B[i][k] = 6 * A[0][k] + 3 * (A[i][k] - A[0][k]);
				break;
			case 3:				/* shifted copy */
				{
					int64_t		t[3];

					rand_vec_plane(r, ld, 6 * R, t);
					for (int i = 0; i < 3; i++)
						laxpy(B[i], c->L[i], 1, t);
				}
				break;
			case 4:				/* shifted by its own edge: meets A in one vertex */
				for (int i = 0; i < 3; i++)
					for (int k = 0; k < 3; k++)
						B[i][k] = c->L[i][k] + c->L[1][k] - c->L[0][k];
				break;
			case 5:
				for (int i = 0; i < 3; i++)
					rand_plane(r, ld, 6 * R, B[i]);
				break;
			default:			/* hexagram lifted off the plane, or nudged in 2D */
				{
					int64_t		t[3];

					rand_vec(r, ld, 1, -1, t);
					for (int i = 0; i < 3; i++)
					{
						for (int k = 0; k < 3; k++)
							B[i][k] = (ld == 3 ? 4 * S[k] - 6 * A[i][k]
									   : c->L[i][k] + c->L[1][k] - c->L[0][k]);
						if (ld == 3)
							B[i][2] = t[2] != 0 ? t[2] : 1;
						else
							laxpy(B[i], B[i], 1, t);
					}
				}
				break;
		}
		return;
	}

	if (c->nb == 3)				/* point or segment against a triangle, in its plane */
	{
		int64_t		T[3][3];

		for (int i = 0; i < 3; i++)
		{
			rand_plane(r, ld, R, T[i]);
			for (int k = 0; k < 3; k++)
				c->L[c->na + i][k] = 2 * T[i][k];
		}
		for (int i = 0; i < c->na; i++)
			rand_plane(r, ld, 2 * R, c->L[i]);
		if (rng_chance(r, 40))	/* A's first point at a vertex or edge midpoint of B */
		{
			int			a = (int) rng_below(r, 3),
						b = (int) rng_below(r, 3);

			for (int k = 0; k < 3; k++)
				c->L[0][k] = T[a][k] + T[b][k];
		}
		return;
	}

	/* point/segment against a segment: lines through one lattice point X */
	int64_t		X[3],
				s1[3],
				s2[3];

	rand_plane(r, ld, R, X);
	rand_vec_plane(r, ld, 3, s1);
	if (rng_chance(r, 20))
		lcopy(s2, s1);
	else
		rand_vec_plane(r, ld, 3, s2);
	laxpy(c->L[c->na], X, -rng_range(r, -1, 3), s2);
	laxpy(c->L[c->na + 1], X, rng_range(r, -1, 3), s2);
	if (c->na == 1)
		laxpy(c->L[0], X, rng_range(r, -2, 4), s1);
	else
	{
		laxpy(c->L[0], X, -rng_range(r, -1, 3), s1);
		laxpy(c->L[1], X, rng_range(r, -1, 3), s1);
	}
}

/* One primitive of n points made degenerate in one of several ways. */
static void
make_degenerate(adv_rng *r, int ld, int64_t R, int64_t (*P)[3], int n)
{
	int64_t		s[3];

	rand_full(r, ld, R, P[0]);
	if (n == 1)
		return;
	switch (rng_below(r, n == 2 ? 1 : 3))
	{
		case 0:					/* all equal */
			for (int i = 1; i < n; i++)
				lcopy(P[i], P[0]);
			break;
		case 1:					/* two equal, third elsewhere */
			rand_full(r, ld, R, P[1]);
			lcopy(P[2], P[rng_below(r, 2)]);
			break;
		default:				/* three distinct collinear */
			rand_vec(r, ld, 2, -1, s);
			laxpy(P[1], P[0], rng_range(r, -3, 3), s);
			laxpy(P[2], P[0], rng_range(r, -3, 3), s);
			break;
	}
}

static void
con_degenerate(adv_rng *r, int64_t R, lattice_cfg *c)
{
	int			ld = c->ld;

	if (c->nb == 0)
	{
		make_degenerate(r, ld, R, c->L, 3);
		if (c->na == 4)
			rand_full(r, ld, R, c->L[3]);
		if (rng_chance(r, 30))
		{
			/* one point a lattice step off the degeneracy */
			int64_t		s[3];

			rand_vec(r, ld, 1, -1, s);
			int			i = (int) rng_below(r, 3);

			laxpy(c->L[i], c->L[i], 1, s);
		}
		return;
	}
	bool		da = c->na >= 2 && rng_chance(r, 60);
	bool		db = c->nb >= 2 && (!da || rng_chance(r, 50));

	if (da)
		make_degenerate(r, ld, R, c->L, c->na);
	else
		for (int i = 0; i < c->na; i++)
			rand_full(r, ld, R, c->L[i]);
	if (db)
		make_degenerate(r, ld, R, c->L + c->na, c->nb);
	else
		for (int i = 0; i < c->nb; i++)
			rand_full(r, ld, R, c->L[c->na + i]);

	if (rng_chance(r, 50))
	{
		/*
		 * Move the degenerate primitive onto the other one: its first point
		 * to a vertex or an edge midpoint there (coordinates doubled first
		 * so midpoints stay on the lattice), sometimes one step beside it.
		 */
		int			df = da ? 0 : c->na,
					dn = da ? c->na : c->nb;
		int			of = da ? c->na : 0,
					on = da ? c->nb : c->na;
		int			a = (int) rng_below(r, on),
					b = (int) rng_below(r, on);
		int64_t		target[3],
					base[3];

		for (int i = 0; i < c->na + c->nb; i++)
			for (int k = 0; k < 3; k++)
				c->L[i][k] *= 2;
		for (int k = 0; k < 3; k++)
			target[k] = (c->L[of + a][k] + c->L[of + b][k]) / 2;
		if (rng_chance(r, 30))
		{
			int64_t		s[3];

			rand_vec(r, ld, 1, -1, s);
			laxpy(target, target, 1, s);
		}
		lcopy(base, c->L[df]);
		for (int i = 0; i < dn; i++)
			for (int k = 0; k < 3; k++)
				c->L[df + i][k] += target[k] - base[k];
	}
}

static void
run_constructor(con_kind k, adv_rng *r, int64_t R, lattice_cfg *c)
{
	switch (k)
	{
		case CON_GRID:
			con_grid(r, R, c);
			break;
		case CON_COPLANAR:
			con_coplanar(r, R, c);
			break;
		case CON_COLLINEAR:
			con_collinear(r, R, c);
			break;
		case CON_SHARED_VERTEX:
			con_shared_vertex(r, R, c);
			break;
		case CON_SHARED_EDGE:
			con_shared_edge(r, R, c);
			break;
		case CON_ON_EDGE:
			con_on_edge(r, R, c);
			break;
		case CON_ON_FACE:
			con_on_face(r, R, c);
			break;
		case CON_TOUCHING:
			con_touching(r, R, c);
			break;
		case CON_COLLINEAR_OVERLAP:
			con_collinear_overlap(r, R, c);
			break;
		case CON_COPLANAR_OVERLAP:
			con_coplanar_overlap(r, R, c);
			break;
		case CON_DEGENERATE:
			con_degenerate(r, R, c);
			break;
		default:
			break;
	}
}

/* ------------------------------------------------------------------ */
/* Frames: integer affine maps from local lattice to doubles.          */

typedef enum frame_kind
{
	FR_SMALL,					/* origin within 2^30, scale 2^-12 .. 2^2 */
	FR_UTM,						/* 5e5, 7e6, -500 metres; 1 mm .. 1 m lattice step */
	FR_SUBNORMAL,				/* everything a multiple of 2^-1074, mostly subnormal */
	FR_TINY,					/* straddling the normal/subnormal boundary */
	FR_MID_EXP,					/* 2^+-300 .. 2^+-700 */
	FR_HUGE,					/* 2^900 and up */
	FR_NEAR_OVERFLOW			/* the largest |N| just below 2^1023 */
} frame_kind;

typedef struct lattice_frame
{
	int			ld;
	frame_kind	kind;
	int64_t		origin[3];
	int64_t		e[3][3];		/* e[a] is local axis a, in lattice units */
	int			exp;			/* fixed for FR_SMALL, FR_UTM; chosen at map time otherwise */
	int64_t		rmax;			/* largest sensible local radius */
} lattice_frame;

static int64_t
det_e(const lattice_frame *f)
{
	const int64_t (*e)[3] = (const int64_t (*)[3]) f->e;

	if (f->ld == 2)
		return e[0][0] * e[1][1] - e[0][1] * e[1][0];
	return e[0][0] * (e[1][1] * e[2][2] - e[1][2] * e[2][1])
		- e[0][1] * (e[1][0] * e[2][2] - e[1][2] * e[2][0])
		+ e[0][2] * (e[1][0] * e[2][1] - e[1][1] * e[2][0]);
}

static void
build_basis(adv_rng *r, lattice_frame *f)
{
	int			ld = f->ld;
	int			perm[3] = {0, 1, 2};

	for (int i = ld - 1; i > 0; i--)
	{
		int			j = (int) rng_below(r, (uint64_t) i + 1),
					t = perm[i];

		perm[i] = perm[j];
		perm[j] = t;
	}
	memset(f->e, 0, sizeof f->e);
	switch (rng_below(r, 4))
	{
		case 0:					/* axis-aligned: planes x = c, y = c, z = c */
			for (int a = 0; a < ld; a++)
				f->e[a][perm[a]] = rng_chance(r, 50) ? 1 : -1;
			break;
		case 1:					/* planes like z = a x + b y, lines like y = a x */
			{
				int64_t		sa = rng_range(r, -3, 3),
							sb = rng_range(r, -3, 3);

				for (int a = 0; a < ld; a++)
					f->e[a][perm[a]] = 1;
				if (ld == 3)
				{
					f->e[0][perm[2]] = sa;
					f->e[1][perm[2]] = sb;
				}
				else
					f->e[0][perm[1]] = sa;
			}
			break;
		default:				/* small or wide random integer axes */
			{
				int64_t		lim = rng_chance(r, 50) ? 3 : 1023;

				do
				{
					for (int a = 0; a < ld; a++)
						for (int k = 0; k < ld; k++)
							f->e[a][k] = rng_range(r, -lim, lim);
				} while (det_e(f) == 0);
			}
			break;
	}
}

static int
bitlen_u64(uint64_t x)
{
	int			n = 0;

	while (x)
	{
		n++;
		x >>= 1;
	}
	return n;
}

static void
build_frame(adv_rng *r, frame_kind kind, int ld, lattice_frame *f)
{
	int64_t		emax = 1;

	f->ld = ld;
	f->kind = kind;
	build_basis(r, f);
	for (int a = 0; a < 3; a++)
		for (int k = 0; k < 3; k++)
			if (llabs(f->e[a][k]) > emax)
				emax = llabs(f->e[a][k]);
	memset(f->origin, 0, sizeof f->origin);
	f->exp = 0;
	f->rmax = (INT64_C(1) << 40) / emax;

	switch (kind)
	{
		case FR_SMALL:
			{
				int			o = (int) rng_below(r, 4);

				for (int k = 0; k < ld; k++)
					f->origin[k] = o == 0 ? 0 : o == 3 ? rng_range(r, -(INT64_C(1) << 30), INT64_C(1) << 30)
						: rng_range(r, -4096, 4096);
				f->exp = (int) rng_range(r, -12, 2);
			}
			break;
		case FR_UTM:
			{
				/* lattice step emax * 2^-k between about 1 mm and 1 m */
				int			k = bitlen_u64((uint64_t) emax) + (int) rng_range(r, 0, 9);
				int64_t		base[3];

				base[0] = 500000 + rng_range(r, -1000, 1000);
				base[1] = 7000000 + rng_range(r, -1000, 1000);
				base[2] = -500 + rng_range(r, -100, 100);

				for (int c = 0; c < ld; c++)
					f->origin[c] = base[c] * (INT64_C(1) << k) + rng_range(r, 0, (INT64_C(1) << k) - 1);
				f->exp = -k;
				/* features up to about 10 m */
				f->rmax = ((INT64_C(10) << k) / emax) / 4;
				if (f->rmax < 1)
					f->rmax = 1;
			}
			break;
		default:
			for (int k = 0; k < ld; k++)
				f->origin[k] = rng_chance(r, 50) ? 0 : rng_range(r, -1024, 1024);
			break;
	}
}

/* Map local coordinates to doubles; false when some |N| reaches 2^53. */
static bool
frame_map(adv_rng *r, const lattice_frame *f, const lattice_cfg *c, double *out)
{
	int			n = c->na + c->nb,
				ld = f->ld;
	int64_t		N[MAXP][3];
	uint64_t	nmax = 0;
	int			exp = f->exp;
	const __int128 lim = (__int128) 1 << 53;

	for (int i = 0; i < n; i++)
		for (int k = 0; k < ld; k++)
		{
			__int128	v = f->origin[k];

			for (int a = 0; a < ld; a++)
				v += (__int128) c->L[i][a] * f->e[a][k];
			if (v >= lim || v <= -lim)
				return false;
			N[i][k] = (int64_t) v;
			if ((uint64_t) llabs(N[i][k]) > nmax)
				nmax = (uint64_t) llabs(N[i][k]);
		}
	int			bits = bitlen_u64(nmax);

	switch (f->kind)
	{
		case FR_SUBNORMAL:
			exp = -1074 + (int) rng_range(r, 0, 10);
			break;
		case FR_TINY:
			exp = -1022 - bits + (int) rng_range(r, -20, 40);
			if (exp < -1074)
				exp = -1074;
			break;
		case FR_MID_EXP:
			exp = (int) rng_range(r, 300, 700);
			if (rng_chance(r, 50))
				exp = -exp;
			break;
		case FR_HUGE:
			exp = 1023 - bits - (int) rng_range(r, 0, 100);
			break;
		case FR_NEAR_OVERFLOW:
			exp = 1023 - bits;
			break;
		default:
			break;
	}
	for (int i = 0; i < n; i++)
		for (int k = 0; k < ld; k++)
			out[i * ld + k] = ldexp((double) N[i][k], exp);
	return true;
}

static int64_t
pick_radius(adv_rng *r, const lattice_frame *f)
{
	int64_t		R;
	uint64_t	cls = rng_below(r, 100);

	if (cls < 50)
		R = rng_range(r, 1, 4);
	else if (cls < 75)
		R = rng_range(r, 5, 64);
	else if (cls < 90)
		R = INT64_C(1) << rng_range(r, 7, 20);
	else
		R = INT64_C(1) << rng_range(r, 21, 40);
	if (R > f->rmax)
		R = f->rmax;
	return R < 1 ? 1 : R;
}

/*
 * One lattice case. radius > 0 forces the local radius. Retries with fresh
 * draws while the integers overflow 2^53; the last resort (radius 1, small
 * frame) always fits, so a case is always produced.
 */
static void
lattice_case(adv_rng *r, adv_pred p, con_kind k, frame_kind fk, int64_t radius,
			 double *out)
{
	const adv_pred_info *pi = &adv_preds[p];

	for (int attempt = 0;; attempt++)
	{
		lattice_frame f;
		lattice_cfg c;
		int64_t		R;

		if (attempt >= 12)
		{
			fk = FR_SMALL;
			radius = 1;
		}
		build_frame(r, fk, pi->dim, &f);
		R = radius > 0 ? radius : pick_radius(r, &f);
		memset(&c, 0, sizeof c);
		c.ld = pi->dim;
		c.na = pi->na;
		c.nb = pi->nb;
		run_constructor(k, r, R, &c);
		shuffle_slots(r, &c);
		if (frame_map(r, &f, &c, out))
			return;
	}
}

static const con_kind degenerate_cons[] = {
	CON_COPLANAR, CON_COLLINEAR, CON_SHARED_VERTEX, CON_SHARED_EDGE, CON_ON_EDGE,
	CON_ON_FACE, CON_TOUCHING, CON_COLLINEAR_OVERLAP, CON_COPLANAR_OVERLAP,
	CON_DEGENERATE, CON_GRID
};

static con_kind
random_constructor(adv_rng *r, adv_pred p)
{
	int			n = (int) (sizeof degenerate_cons / sizeof degenerate_cons[0]);

	for (;;)
	{
		con_kind	k = degenerate_cons[rng_below(r, n)];

		if (con_applies(k, p))
			return k;
	}
}

/* ------------------------------------------------------------------ */
/* Raw families.                                                       */

static void
raw_uniform(adv_rng *r, adv_pred p, double *out)
{
	int			n = adv_npoints(p) * adv_preds[p].dim;

	for (int i = 0; i < n; i++)
		out[i] = rng_sym(r);
}

/* Points near a UTM-sized base, with features between 1 cm and 10 m. */
static void
raw_utm(adv_rng *r, adv_pred p, double *out)
{
	const adv_pred_info *pi = &adv_preds[p];
	int			dim = pi->dim;
	double		base[3],
				size;

	base[0] = 500000 + 1000 * rng_sym(r);
	base[1] = 7000000 + 1000 * rng_sym(r);
	base[2] = -500 + 100 * rng_sym(r);
	size = pow(10.0, 3 * rng_unit(r) - 2);
	double		centre[3];

	for (int i = 0; i < pi->na + pi->nb; i++)
	{
		if (i == 0 || i == pi->na)
			for (int k = 0; k < dim; k++)
				centre[k] = base[k] + (i == 0 ? 0 : 1.5 * size * rng_sym(r));
		for (int k = 0; k < dim; k++)
			out[i * dim + k] = centre[k] + size * rng_sym(r);
	}
}

/* (a + b) / 2 if it is exact (TwoSum error zero, no overflow), else false. */
static bool
exact_midpoint(double a, double b, double *m)
{
	double		s = a + b;
	double		bb = s - a;
	double		err = (a - (s - bb)) + (b - bb);

	if (err != 0 || !isfinite(s))
		return false;
	*m = s / 2;
	return *m * 2 == s;			/* no underflow loss */
}

/*
 * Full-precision inputs rarely meet exactly: snap a point of A onto B (a
 * vertex, or an edge midpoint when that is exact in every coordinate); for
 * orientation, make the last point such a midpoint of two others.
 */
static void
snap_onto(adv_rng *r, adv_pred p, double *out)
{
	const adv_pred_info *pi = &adv_preds[p];
	int			dim = pi->dim;
	int			first = pi->orient ? 0 : pi->na,
				n = pi->orient ? pi->na - 1 : pi->nb;
	int			a = (int) rng_below(r, n),
				b = (int) rng_below(r, n);
	int			dst = pi->orient ? pi->na - 1 : (int) rng_below(r, pi->na);
	double		m[3];
	bool		exact = a != b;

	for (int k = 0; k < dim && exact; k++)
		exact = exact_midpoint(out[(first + a) * dim + k], out[(first + b) * dim + k], &m[k]);
	for (int k = 0; k < dim; k++)
		out[dst * dim + k] = exact ? m[k] : out[(first + a) * dim + k];
}

static void
raw_extreme(adv_rng *r, adv_pred p, double *out)
{
	int			n = adv_npoints(p) * adv_preds[p].dim;

	if (rng_chance(r, 50))
	{
		/* one random scale for the whole case, from subnormal to 2^1023 */
		int			e = (int) rng_range(r, -1074 + 53, 1023);

		for (int i = 0; i < n; i++)
			out[i] = ldexp(rng_sym(r), e);
	}
	else
	{
		/* every coordinate on its own scale */
		for (int i = 0; i < n; i++)
		{
			double		m = rng_sym(r);

			out[i] = ldexp(m, (int) rng_range(r, -1074, 1023));
		}
	}
}

/* Nudge 1..3 coordinates by 1..2 ulps toward +-infinity. */
static void
perturb_ulps(adv_rng *r, int ncoords, double *out, int max_coords)
{
	int			m = 1 + (int) rng_below(r, max_coords);

	for (int c = 0; c < m; c++)
	{
		int			i = (int) rng_below(r, ncoords);
		double		dir = rng_chance(r, 50) ? INFINITY : -INFINITY;
		double		x = out[i];
		int			steps = rng_chance(r, 75) ? 1 : 2;

		for (int s = 0; s < steps; s++)
			x = nextafter(x, dir);
		if (isfinite(x))
			out[i] = x;
	}
}

/* x moved by k representable doubles (k < 0: down), clamped to the finite range. */
static double
nudge_ulps(double x, int64_t k)
{
	int64_t		i,
				o,
				lim = INT64_C(0x7FEFFFFFFFFFFFFF);	/* DBL_MAX's bits */

	memcpy(&i, &x, sizeof(i));
	o = i >= 0 ? i : INT64_MIN - i;	/* doubles in order as integers (-0 = +0) */
	o = k > 0 ? (o > lim - k ? lim : o + k) : (o < -lim - k ? -lim : o + k);
	i = o >= 0 ? o : INT64_MIN - o;
	memcpy(&x, &i, sizeof(x));
	return x;
}

/*
 * Aimed at the CPU's semi-static filter (src/engine/exact/orient_static.h):
 * an exact degeneracy (any constructor, small or UTM frame), then
 *  - each axis scaled by a power of two (exact: the lattice values are
 *    N 2^e with |N| < 2^53) so that its coordinate differences sit near the
 *    filter's range limits (2^-300 and 2^340 in 3D, 2^-450 and 2^500 in 2D,
 *    +-12 binades), or left alone; the limits of the two dimensions mixed
 *    across axes;
 *  - with 60% one to three coordinates moved by k ulps, k log-uniform up to
 *    2^45: the determinant then falls below, at and above the error bound
 *    C mx my mz in about equal measure;
 *  - with 8% one coordinate pushed near +-DBL_MAX, so that differences
 *    overflow (the filter must fall through), or near the subnormal range.
 */
static void
static_bound_case(adv_rng *r, adv_pred p, double *out)
{
	const adv_pred_info *pi = &adv_preds[p];
	int			dim = pi->dim,
				n = adv_npoints(p);
	static const int limits[4] = {-300, 340, -450, 500};

	lattice_case(r, p, random_constructor(r, p), rng_chance(r, 60) ? FR_SMALL : FR_UTM, 0, out);
	for (int k = 0; k < dim; k++)
	{
		double		lo = out[k],
					hi = out[k],
					spread;
		int			e,
					target;

		if (rng_chance(r, 25))
			continue;
		for (int a = 1; a < n; a++)
		{
			lo = out[a * dim + k] < lo ? out[a * dim + k] : lo;
			hi = out[a * dim + k] > hi ? out[a * dim + k] : hi;
		}
		spread = hi - lo;
		if (spread == 0 || !isfinite(spread))
			continue;
		frexp(spread, &e);
		target = limits[rng_below(r, 4)] + (int) rng_range(r, -12, 12);
		for (int a = 0; a < n; a++)
		{
			double		x = ldexp(out[a * dim + k], target - e);

			/* keep the scaled case only where it stayed exact */
			if (!isfinite(x) || ldexp(x, e - target) != out[a * dim + k])
				break;
			if (a == n - 1)
				for (int b = 0; b < n; b++)
					out[b * dim + k] = ldexp(out[b * dim + k], target - e);
		}
	}
	if (rng_chance(r, 60))
	{
		int			m = 1 + (int) rng_below(r, 3);

		for (int c = 0; c < m; c++)
		{
			int64_t		k = (int64_t) 1 << rng_below(r, 46);
			int			i = (int) rng_below(r, (uint64_t) (n * dim));

			k += (int64_t) rng_below(r, (uint64_t) k);
			out[i] = nudge_ulps(out[i], rng_chance(r, 50) ? k : -k);
		}
	}
	if (rng_chance(r, 8))
	{
		int			i = (int) rng_below(r, (uint64_t) (n * dim));

		out[i] = rng_chance(r, 70) ? nudge_ulps(rng_chance(r, 50) ? DBL_MAX : -DBL_MAX,
											   -(int64_t) rng_below(r, (uint64_t) 1 << 52))
			: ldexp(rng_sym(r), (int) rng_range(r, -1074, -1000));
	}
}

/*
 * Kettner, Mehlhorn, Pion, Schirra, Yap, "Classroom examples of robustness
 * problems in geometric computations": p = (0.5 + i u, 0.5 + j u), u = 2^-53,
 * against the line through (12, 12) and (24, 24). The 3D analogue puts
 * p = 0.5 (1,1,1) + (i, j, 2j - i + d) u against the plane x - 2y + z = 0
 * through (12,12,12), (24,24,24), (24,36,48): p is on it iff d = 0, and then
 * on the triangle side of the edge x = y = z iff j >= i. Intersection tests
 * reuse the same p against primitives having that line (plane) as boundary.
 */
static uint64_t
kettner_size(adv_pred p)
{
	return p == ADV_ORIENT3D ? 2 * 65536 : 65536;
}

static void
kettner_case(adv_pred p, uint64_t index, double *out)
{
	const double u = 0x1p-53;
	int			i = (int) (index & 255),
				j = (int) ((index >> 8) & 255),
				var = (int) (index >> 16);
	int			d = ((i + j + (i >> 1)) % 3) - 1;	/* all of -1, 0, 1 also on i = j */
	double		p2[2] = {0.5 + i * u, 0.5 + j * u};
	double		p3[3] = {0.5 + i * u, 0.5 + j * u, 0.5 + (2 * j - i + d) * u};
	static const double line2[2][2] = {{-12, -12}, {24, 24}};
	static const double tri2[3][2] = {{-12, -12}, {24, 24}, {24, -12}};
	static const double line3[2][3] = {{-12, -12, -12}, {24, 24, 24}};
	static const double tri3[3][3] = {{-12, -12, -12}, {24, 24, 24}, {24, 36, 48}};
	double		pts[6][3];
	int			n = 0,
				dim = adv_preds[p].dim;

#define PUT2(x, y) do { pts[n][0] = (x); pts[n][1] = (y); n++; } while (0)
#define PUT3(x, y, z) do { pts[n][0] = (x); pts[n][1] = (y); pts[n][2] = (z); n++; } while (0)
	switch (p)
	{
		case ADV_ORIENT2D:
			PUT2(p2[0], p2[1]);
			PUT2(12, 12);
			PUT2(24, 24);
			break;
		case ADV_ORIENT3D:
			if (var == 0)
			{
				PUT3(p3[0], p3[1], p3[2]);
				PUT3(12, 12, 12);
				PUT3(24, 24, 24);
				PUT3(24, 36, 48);
			}
			else
			{					/* the plane x = y: Kettner's 2D grid, lifted */
				PUT3(p2[0], p2[1], 0.5);
				PUT3(12, 12, 0);
				PUT3(24, 24, 0);
				PUT3(12, 12, 7);
			}
			break;
		case ADV_POINT_POINT_3D:
		case ADV_POINT_SEGMENT_3D:
			{
				/* against a line the (i, j) grid is almost never on it: use a
				 * band around x = y = z instead, on it iff dy = dz = 0 */
				int			dy = (int) ((index >> 8) & 15) - 8,
							dz = (int) ((index >> 12) & 15) - 8;

				PUT3(0.5 + i * u, 0.5 + (i + dy) * u, 0.5 + (i + dz) * u);
				if (p == ADV_POINT_POINT_3D)
					PUT3(0.5 + i * u, 0.5 + i * u, 0.5 + i * u);
			}
			break;
		case ADV_POINT_TRIANGLE_3D:
			PUT3(p3[0], p3[1], p3[2]);
			break;
		case ADV_SEGMENT_SEGMENT_3D:
		case ADV_SEGMENT_TRIANGLE_3D:
			PUT3(p3[0], p3[1], p3[2]);
			PUT3(0, -1, -2);
			break;
		case ADV_TRIANGLE_TRIANGLE_3D:
			PUT3(p3[0], p3[1], p3[2]);
			PUT3(0, -1, -2);
			PUT3(1, 0, -1);
			break;
		case ADV_POINT_SEGMENT_2D:
		case ADV_POINT_TRIANGLE_2D:
			PUT2(p2[0], p2[1]);
			break;
		case ADV_SEGMENT_SEGMENT_2D:
		case ADV_SEGMENT_TRIANGLE_2D:
			PUT2(p2[0], p2[1]);
			PUT2(0, 1);
			break;
		case ADV_TRIANGLE_TRIANGLE_2D:
			PUT2(p2[0], p2[1]);
			PUT2(0, 1);
			PUT2(-1, 1);
			break;
		default:
			break;
	}
	switch (p)
	{
		case ADV_POINT_SEGMENT_3D:
		case ADV_SEGMENT_SEGMENT_3D:
			for (int a = 0; a < 2; a++)
				PUT3(line3[a][0], line3[a][1], line3[a][2]);
			break;
		case ADV_POINT_TRIANGLE_3D:
		case ADV_SEGMENT_TRIANGLE_3D:
		case ADV_TRIANGLE_TRIANGLE_3D:
			for (int a = 0; a < 3; a++)
				PUT3(tri3[a][0], tri3[a][1], tri3[a][2]);
			break;
		case ADV_POINT_SEGMENT_2D:
		case ADV_SEGMENT_SEGMENT_2D:
			for (int a = 0; a < 2; a++)
				PUT2(line2[a][0], line2[a][1]);
			break;
		case ADV_POINT_TRIANGLE_2D:
		case ADV_SEGMENT_TRIANGLE_2D:
		case ADV_TRIANGLE_TRIANGLE_2D:
			for (int a = 0; a < 3; a++)
				PUT2(tri2[a][0], tri2[a][1]);
			break;
		default:
			break;
	}
#undef PUT2
#undef PUT3
	for (int a = 0; a < n; a++)
		for (int k = 0; k < dim; k++)
			out[a * dim + k] = pts[a][k];
}

/* ------------------------------------------------------------------ */

static con_kind
family_constructor(adv_family f)
{
	switch (f)
	{
		case ADV_SMALL_GRID:
			return CON_GRID;
		case ADV_COPLANAR:
			return CON_COPLANAR;
		case ADV_COLLINEAR:
			return CON_COLLINEAR;
		case ADV_SHARED_VERTEX:
			return CON_SHARED_VERTEX;
		case ADV_SHARED_EDGE:
			return CON_SHARED_EDGE;
		case ADV_VERTEX_ON_EDGE:
			return CON_ON_EDGE;
		case ADV_VERTEX_ON_FACE:
			return CON_ON_FACE;
		case ADV_TOUCHING:
			return CON_TOUCHING;
		case ADV_COLLINEAR_OVERLAP:
			return CON_COLLINEAR_OVERLAP;
		case ADV_COPLANAR_OVERLAP:
			return CON_COPLANAR_OVERLAP;
		case ADV_DEGENERATE:
			return CON_DEGENERATE;
		default:
			return CON_N;
	}
}

uint64_t
adv_family_size(adv_family f, adv_pred p)
{
	if ((unsigned) f >= ADV_NFAMILIES || (unsigned) p >= ADV_NPREDS)
		return 0;
	if (f == ADV_KETTNER_GRID)
		return kettner_size(p);
	con_kind	k = family_constructor(f);

	if (k != CON_N && !con_applies(k, p))
		return 0;
	return ADV_UNBOUNDED;
}

static int
factorial(int n)
{
	return n <= 1 ? 1 : n * factorial(n - 1);
}

/* Apply permutation number `perm` of the points (and, for equal shapes, swap A and B). */
static void
apply_permutation(adv_pred p, uint64_t perm, double *out)
{
	const adv_pred_info *pi = &adv_preds[p];
	int			dim = pi->dim,
				n = pi->na + pi->nb;
	double		tmp[MAXP * 3];
	int			order[MAXP];
	int			first[2] = {0, pi->na},
				count[2] = {pi->na, pi->nb};

	for (int i = 0; i < n; i++)
		order[i] = i;
	for (int g = 0; g < 2; g++)
	{
		/* decode perm (mixed radix) into a permutation of this group */
		int			avail[MAXP],
					m = count[g];

		for (int i = 0; i < m; i++)
			avail[i] = first[g] + i;
		for (int i = 0; i < m; i++)
		{
			int			pick = (int) (perm % (uint64_t) (m - i));

			perm /= (uint64_t) (m - i);
			order[first[g] + i] = avail[pick];
			for (int j = pick; j < m - i - 1; j++)
				avail[j] = avail[j + 1];
		}
	}
	bool		swap = !pi->orient && pi->na == pi->nb && (perm & 1);

	for (int i = 0; i < n; i++)
	{
		int			src = order[swap ? (i + pi->na) % n : i];

		memcpy(tmp + i * dim, out + src * dim, sizeof(double) * dim);
	}
	memcpy(out, tmp, sizeof(double) * n * dim);
}

static uint64_t
permutation_count(adv_pred p)
{
	const adv_pred_info *pi = &adv_preds[p];

	return (uint64_t) factorial(pi->na) * (uint64_t) factorial(pi->nb) *
		((!pi->orient && pi->na == pi->nb) ? 2 : 1);
}

bool
adv_generate(adv_family f, adv_pred p, uint64_t seed, uint64_t index, double *out)
{
	uint64_t	size = adv_family_size(f, p);
	int			ncoords;
	adv_rng		r;

	if (size == 0 || (size != ADV_UNBOUNDED && index >= size))
		return false;
	ncoords = adv_npoints(p) * adv_preds[p].dim;
	rng_seed(&r, seed, (uint64_t) f, (uint64_t) p,
			 f == ADV_PERMUTED ? index / permutation_count(p) : index);

	switch (f)
	{
		case ADV_UNIFORM:
			raw_uniform(&r, p, out);
			if (rng_chance(&r, 30))
				snap_onto(&r, p, out);
			break;
		case ADV_SMALL_GRID:
			lattice_case(&r, p, CON_GRID, FR_SMALL, rng_range(&r, 1, 3), out);
			if (rng_chance(&r, 30))
			{
				/* -0.0 and +0.0 are the same number: mix them */
				for (int i = 0; i < ncoords; i++)
					if (out[i] == 0 && rng_chance(&r, 50))
						out[i] = -0.0;
			}
			break;
		case ADV_SHARED_VERTEX:
		case ADV_SHARED_EDGE:
			if (rng_chance(&r, 25))
			{
				/* full-precision points with copied vertices */
				const adv_pred_info *pi = &adv_preds[p];
				int			dim = pi->dim;

				raw_uniform(&r, p, out);
				if (pi->orient)
					memcpy(out + dim * (1 + rng_below(&r, pi->na - 1)), out, sizeof(double) * dim);
				else
				{
					int			copies = f == ADV_SHARED_EDGE ? 2 : 1;

					for (int c = 0; c < copies; c++)
						memcpy(out + dim * (pi->na + c), out + dim * c, sizeof(double) * dim);
					apply_permutation(p, rng_next(&r), out);
				}
			}
			else
				lattice_case(&r, p, family_constructor(f), FR_SMALL, 0, out);
			if (rng_chance(&r, 20))
				perturb_ulps(&r, ncoords, out, 1);	/* "one ulp apart" */
			break;
		case ADV_DEGENERATE:
			/* small radii: degenerate primitives that actually meet things */
			lattice_case(&r, p, CON_DEGENERATE, FR_SMALL,
						 rng_chance(&r, 70) ? rng_range(&r, 1, 6) : 0, out);
			break;
		case ADV_COPLANAR:
		case ADV_COLLINEAR:
		case ADV_VERTEX_ON_EDGE:
		case ADV_VERTEX_ON_FACE:
		case ADV_TOUCHING:
		case ADV_COLLINEAR_OVERLAP:
		case ADV_COPLANAR_OVERLAP:
			lattice_case(&r, p, family_constructor(f), FR_SMALL, 0, out);
			break;
		case ADV_UTM_RANDOM:
			raw_utm(&r, p, out);
			if (rng_chance(&r, 30))
				snap_onto(&r, p, out);
			break;
		case ADV_UTM_DEGENERATE:
			lattice_case(&r, p, random_constructor(&r, p), FR_UTM, 0, out);
			break;
		case ADV_ULP:
			{
				uint64_t	fr = rng_below(&r, 100);
				frame_kind	fk = fr < 55 ? FR_SMALL : fr < 90 ? FR_UTM :
					(frame_kind) rng_range(&r, FR_SUBNORMAL, FR_NEAR_OVERFLOW);

				lattice_case(&r, p, random_constructor(&r, p), fk, 0, out);
				perturb_ulps(&r, ncoords, out, 3);
			}
			break;
		case ADV_KETTNER_GRID:
			kettner_case(p, index, out);
			break;
		case ADV_EXTREME:
			if (rng_chance(&r, 65))
			{
				con_kind	k = random_constructor(&r, p);
				frame_kind	fk = (frame_kind) rng_range(&r, FR_SUBNORMAL, FR_NEAR_OVERFLOW);

				lattice_case(&r, p, k, fk, 0, out);
			}
			else
				raw_extreme(&r, p, out);
			break;
		case ADV_PERMUTED:
			{
				con_kind	k = random_constructor(&r, p);
				frame_kind	fk = rng_chance(&r, 70) ? FR_SMALL : FR_UTM;

				lattice_case(&r, p, k, fk, 0, out);
			}
			apply_permutation(p, index % permutation_count(p), out);
			break;
		case ADV_STATIC_BOUND:
			static_bound_case(&r, p, out);
			break;
		default:
			return false;
	}
	return true;
}

size_t
adv_generate_batch(adv_family f, adv_pred p, uint64_t seed, uint64_t first,
				   size_t count, double *out)
{
	size_t		stride = (size_t) adv_npoints(p) * adv_preds[p].dim;
	size_t		done = 0;

	for (; done < count; done++)
		if (!adv_generate(f, p, seed, first + done, out + done * stride))
			break;
	return done;
}
