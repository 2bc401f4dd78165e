/*
 * ref_solid.c — GMP-only reference for closed triangulated surfaces (see
 * ref_solid.h).
 *
 * Coordinates. All triangle coordinates are scaled by one power of two 2^L
 * to integers (mpz). A query point is kept homogeneous, N / D with an integer
 * vector N and a positive integer D, in the same scaled frame, so that double
 * points, rational points and points on a hole are handled alike and no
 * division ever happens. For a triangle ABC the vectors U = A D - N,
 * V = B D - N, W = C D - N are D times A - P, B - P, C - P: every sign below
 * is a sign of a polynomial homogeneous in them, so the factor D > 0 never
 * changes it.
 *
 * Location. The point is on the boundary when it lies on a closed triangle.
 * Otherwise a ray P + s d, s > 0, is cast; d has one dominant component
 * +-2^40 and two others in [-1000, 1000], drawn from a fixed pseudo-random
 * sequence. For each triangle the line's side of each edge is the sign of
 * det(d, U, V) (and cyclically): mixed signs mean the line misses the closed
 * triangle. Otherwise, with n the triangle's normal, the line meets the
 * plane at s = -(n . (P - A)) / (n . d), and the ray crosses there iff that
 * s > 0. A crossing with a zero side (an edge or a vertex), or a line lying
 * in the plane, makes the ray degenerate: the next direction is tried. The
 * tilt is small, so a triangle whose box is further than 2^-30 times the
 * distance along the dominant axis, sideways, cannot be hit; that rule,
 * applied with exact integer comparisons, is the only culling.
 *
 * Improper contact. The vertices common to both triangles span a face H of
 * each. Points x of A are written x = sum l_i A_i (l >= 0, sum 1), of B as
 * sum m_j B_j; g = sum of l_i over A's vertices not in H is 0 on A exactly
 * on H. The triangles meet outside H iff the maximum of g over the polytope
 * { (l, m) : sum l_i A_i = sum m_j B_j, l, m >= 0, sum l = sum m = 1 } is
 * positive, and a linear maximum over a polytope is reached at a vertex: all
 * basic solutions are enumerated (mpq Gaussian elimination).
 *
 * Intercepts. Every parameter where a hole segment meets a triangle (a point,
 * or the ends of a coplanar stretch) is found exactly; between consecutive
 * ones the hole stays on one side, so locating the breakpoints and one
 * rational point of each open piece between them decides everything.
 */
#include "ref_solid.h"

#include "ref_exact.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TILT_DOMINANT_EXP 40	/* dominant direction component: 2^40 */
#define TILT_SIDE_MAX 1000		/* other components in [-1000, 1000] */
#define TILT_CULL_SHIFT 30		/* 1000 / 2^40 < 2^-30 */
#define MAX_DIRECTIONS 10000

struct ref_solid
{
	size_t		ntri;
	double	   *tc;				/* 9 doubles per triangle: its vertices */
	double	   *tbox;			/* 6 per triangle: min xyz, max xyz */
	double		box[6];			/* of the whole surface */
	unsigned long L;			/* scaled coordinates: x 2^L */
	mpz_t	   *c;				/* 9 per triangle, scaled */
	mpz_t	   *lo;				/* 3 per triangle, scaled box */
	mpz_t	   *hi;
	mpz_t		mlo[3],
				mhi[3];
	bool	   *flat;			/* zero area */
};

/* A query point N / D in the scaled frame. */
typedef struct hpoint
{
	mpz_t		N[3];
	mpz_t		D;
} hpoint;

/* Per-thread scratch for the per-triangle arithmetic. */
typedef struct scratch
{
	bool		ready;
	mpz_t		U[3],
				V[3],
				W[3],
				X[3],
				Y[3],
				n[3],
				cr[3],
				d[3];
	mpz_t		a,
				b,
				t0,
				t1,
				M,
				Nlo[3],
				Nhi[3];
} scratch;

static _Thread_local scratch ws;

static void
die(const char *what)
{
	fprintf(stderr, "ref_solid: %s\n", what);
	abort();
}

static void
scratch_ready(void)
{
	if (ws.ready)
		return;
	for (int k = 0; k < 3; k++)
	{
		mpz_inits(ws.U[k], ws.V[k], ws.W[k], ws.X[k], ws.Y[k], ws.n[k], ws.cr[k],
				  ws.d[k], ws.Nlo[k], ws.Nhi[k], NULL);
	}
	mpz_inits(ws.a, ws.b, ws.t0, ws.t1, ws.M, NULL);
	ws.ready = true;
}

static void
set_exact(mpq_t q, double x)
{
	if (!isfinite(x))
		die("non-finite coordinate");
	mpq_set_d(q, x);
}

/* ------------------------------------------------------------------ */
/* Small integer vector algebra.                                      */

static void
vsub(mpz_t r[3], mpz_t a[3], mpz_t b[3])
{
	for (int k = 0; k < 3; k++)
		mpz_sub(r[k], a[k], b[k]);
}

/* r = a x b; r must not alias a or b. */
static void
vcross(mpz_t r[3], mpz_t a[3], mpz_t b[3])
{
	for (int k = 0; k < 3; k++)
	{
		int			i = (k + 1) % 3,
					j = (k + 2) % 3;

		mpz_mul(r[k], a[i], b[j]);
		mpz_submul(r[k], a[j], b[i]);
	}
}

static void
vdot(mpz_t r, mpz_t a[3], mpz_t b[3])
{
	mpz_mul(r, a[0], b[0]);
	mpz_addmul(r, a[1], b[1]);
	mpz_addmul(r, a[2], b[2]);
}

static bool
vzero(mpz_t a[3])
{
	return mpz_sgn(a[0]) == 0 && mpz_sgn(a[1]) == 0 && mpz_sgn(a[2]) == 0;
}

/* Sign of det(a, b, c) = a . (b x c); uses ws.cr. */
static int
sign_det(mpz_t a[3], mpz_t b[3], mpz_t c[3])
{
	vcross(ws.cr, b, c);
	vdot(ws.t0, a, ws.cr);
	return mpz_sgn(ws.t0);
}

/* ------------------------------------------------------------------ */
/* Building.                                                          */

static void
tri_vertex(const double *xyz, const uint32_t *tri, size_t t, int i, double out[3])
{
	memcpy(out, &xyz[3 * (size_t) tri[3 * t + i]], 3 * sizeof(double));
}

/* 2^-e is the denominator of x (e = 0 for integers). */
static unsigned long
denominator_exp(mpq_t q, double x)
{
	set_exact(q, x);
	return mpz_sizeinbase(mpq_denref(q), 2) - 1;
}

static void
build_boxes(ref_solid *s)
{
	for (int k = 0; k < 3; k++)
	{
		s->box[k] = INFINITY;
		s->box[3 + k] = -INFINITY;
	}
	for (size_t t = 0; t < s->ntri; t++)
	{
		double	   *b = &s->tbox[6 * t];
		const double *v = &s->tc[9 * t];

		for (int k = 0; k < 3; k++)
		{
			b[k] = b[3 + k] = v[k];
			for (int i = 1; i < 3; i++)
			{
				if (v[3 * i + k] < b[k])
					b[k] = v[3 * i + k];
				if (v[3 * i + k] > b[3 + k])
					b[3 + k] = v[3 * i + k];
			}
			if (b[k] < s->box[k])
				s->box[k] = b[k];
			if (b[3 + k] > s->box[3 + k])
				s->box[3 + k] = b[3 + k];
		}
	}
}

/* Scaled integer coordinates, boxes and flatness of every triangle. */
static void
build_integers(ref_solid *s)
{
	mpq_t		q;
	size_t		n = 9 * s->ntri;

	mpq_init(q);
	s->L = 0;
	for (size_t i = 0; i < n; i++)
	{
		unsigned long e = denominator_exp(q, s->tc[i]);

		if (e > s->L)
			s->L = e;
	}
	s->c = malloc(sizeof(mpz_t) * (n ? n : 1));
	s->lo = malloc(sizeof(mpz_t) * (3 * s->ntri + 1));
	s->hi = malloc(sizeof(mpz_t) * (3 * s->ntri + 1));
	s->flat = malloc(sizeof(bool) * (s->ntri + 1));
	if (!s->c || !s->lo || !s->hi || !s->flat)
		die("out of memory");
	for (size_t i = 0; i < n; i++)
	{
		set_exact(q, s->tc[i]);
		mpq_mul_2exp(q, q, s->L);
		if (mpz_cmp_ui(mpq_denref(q), 1) != 0)
			die("scaling did not give an integer");
		mpz_init_set(s->c[i], mpq_numref(q));
	}
	for (size_t t = 0; t < s->ntri; t++)
	{
		mpz_t	   *v = &s->c[9 * t];

		for (int k = 0; k < 3; k++)
		{
			mpz_init_set(s->lo[3 * t + k], v[k]);
			mpz_init_set(s->hi[3 * t + k], v[k]);
			for (int i = 1; i < 3; i++)
			{
				if (mpz_cmp(v[3 * i + k], s->lo[3 * t + k]) < 0)
					mpz_set(s->lo[3 * t + k], v[3 * i + k]);
				if (mpz_cmp(v[3 * i + k], s->hi[3 * t + k]) > 0)
					mpz_set(s->hi[3 * t + k], v[3 * i + k]);
			}
		}
		vsub(ws.X, &v[3], &v[0]);
		vsub(ws.Y, &v[6], &v[0]);
		vcross(ws.n, ws.X, ws.Y);
		s->flat[t] = vzero(ws.n);
	}
	for (int k = 0; k < 3; k++)
	{
		mpz_init(s->mlo[k]);
		mpz_init(s->mhi[k]);
		for (size_t t = 0; t < s->ntri; t++)
		{
			if (t == 0 || mpz_cmp(s->lo[3 * t + k], s->mlo[k]) < 0)
				mpz_set(s->mlo[k], s->lo[3 * t + k]);
			if (t == 0 || mpz_cmp(s->hi[3 * t + k], s->mhi[k]) > 0)
				mpz_set(s->mhi[k], s->hi[3 * t + k]);
		}
	}
	mpq_clear(q);
}

ref_solid *
ref_solid_new(const double *xyz, const uint32_t *tri, size_t ntri)
{
	ref_solid  *s = calloc(1, sizeof(ref_solid));

	if (!s)
		die("out of memory");
	scratch_ready();
	s->ntri = ntri;
	s->tc = malloc(sizeof(double) * (9 * ntri + 1));
	s->tbox = malloc(sizeof(double) * (6 * ntri + 1));
	if (!s->tc || !s->tbox)
		die("out of memory");
	for (size_t t = 0; t < ntri; t++)
		for (int i = 0; i < 3; i++)
			tri_vertex(xyz, tri, t, i, &s->tc[9 * t + 3 * i]);
	build_boxes(s);
	build_integers(s);
	return s;
}

void
ref_solid_free(ref_solid *s)
{
	if (!s)
		return;
	for (size_t i = 0; i < 9 * s->ntri; i++)
		mpz_clear(s->c[i]);
	for (size_t i = 0; i < 3 * s->ntri; i++)
	{
		mpz_clear(s->lo[i]);
		mpz_clear(s->hi[i]);
	}
	for (int k = 0; k < 3; k++)
	{
		mpz_clear(s->mlo[k]);
		mpz_clear(s->mhi[k]);
	}
	free(s->c);
	free(s->lo);
	free(s->hi);
	free(s->flat);
	free(s->tc);
	free(s->tbox);
	free(s);
}

/* ------------------------------------------------------------------ */
/* Homogeneous query points.                                          */

static void
hpoint_init(hpoint *p)
{
	mpz_inits(p->N[0], p->N[1], p->N[2], p->D, NULL);
}

static void
hpoint_clear(hpoint *p)
{
	mpz_clears(p->N[0], p->N[1], p->N[2], p->D, NULL);
}

/* p = q 2^L over one common denominator. */
static void
hpoint_from_q(hpoint *p, const ref_solid *s, mpq_t q[3])
{
	mpq_t		r[3];

	for (int k = 0; k < 3; k++)
	{
		mpq_init(r[k]);
		mpq_mul_2exp(r[k], q[k], s->L);
	}
	mpz_lcm(p->D, mpq_denref(r[0]), mpq_denref(r[1]));
	mpz_lcm(p->D, p->D, mpq_denref(r[2]));
	for (int k = 0; k < 3; k++)
	{
		mpz_divexact(p->N[k], p->D, mpq_denref(r[k]));
		mpz_mul(p->N[k], p->N[k], mpq_numref(r[k]));
		mpq_clear(r[k]);
	}
}

static void
hpoint_from_d(hpoint *p, const ref_solid *s, const double x[3])
{
	mpq_t		q[3];

	for (int k = 0; k < 3; k++)
	{
		mpq_init(q[k]);
		set_exact(q[k], x[k]);
	}
	hpoint_from_q(p, s, q);
	for (int k = 0; k < 3; k++)
		mpq_clear(q[k]);
}

/* Sign of v D - N_k for an integer coordinate v (D = 1 is common: no product). */
static int
cmp_scaled(mpz_t const v, const hpoint *p, int k, mpz_t const off)
{
	if (mpz_cmp_ui(p->D, 1) == 0)
		return mpz_cmp(v, off ? off : p->N[k]);
	mpz_mul(ws.t1, v, p->D);
	return mpz_cmp(ws.t1, off ? off : p->N[k]);
}

/* ws.U, ws.V, ws.W = vertices of triangle t minus the point, times D. */
static void
relative_vertices(const ref_solid *s, size_t t, const hpoint *p)
{
	mpz_t	   *v = &s->c[9 * t];
	mpz_t	   *out[3] = {ws.U, ws.V, ws.W};

	for (int i = 0; i < 3; i++)
		for (int k = 0; k < 3; k++)
		{
			mpz_mul(out[i][k], v[3 * i + k], p->D);
			mpz_sub(out[i][k], out[i][k], p->N[k]);
		}
}

/* ------------------------------------------------------------------ */
/* Boundary.                                                          */

/* Origin (the point) on the closed segment between relative vertices a, b. */
static bool
origin_on_segment(mpz_t a[3], mpz_t b[3])
{
	mpz_t		c[3];
	bool		on;

	mpz_inits(c[0], c[1], c[2], NULL);
	vcross(c, a, b);
	on = vzero(c);
	if (on)
	{
		vdot(ws.a, a, b);
		on = mpz_sgn(ws.a) <= 0;	/* a and b on opposite sides, or one is 0 */
	}
	mpz_clears(c[0], c[1], c[2], NULL);
	return on;
}

/* Point on the closed triangle, from its relative vertices in ws.U, V, W. */
static bool
origin_on_triangle(void)
{
	mpz_t	   *e[3][2] = {{ws.U, ws.V}, {ws.V, ws.W}, {ws.W, ws.U}};

	vsub(ws.X, ws.V, ws.U);
	vsub(ws.Y, ws.W, ws.U);
	vcross(ws.n, ws.X, ws.Y);
	if (vzero(ws.n))
		return origin_on_segment(ws.U, ws.V) || origin_on_segment(ws.V, ws.W) ||
			origin_on_segment(ws.W, ws.U);
	if (sign_det(ws.U, ws.V, ws.W) != 0)
		return false;			/* off the plane */
	/* in the plane: each sub-triangle (point, edge) turns like the triangle */
	for (int i = 0; i < 3; i++)
	{
		vcross(ws.cr, e[i][0], e[i][1]);
		vdot(ws.a, ws.n, ws.cr);
		if (mpz_sgn(ws.a) < 0)
			return false;
	}
	return true;
}

static bool
box_holds_double(const double *b, const double p[3])
{
	for (int k = 0; k < 3; k++)
		if (p[k] < b[k] || p[k] > b[3 + k])
			return false;
	return true;
}

static bool
box_holds_h(mpz_t lo[3], mpz_t hi[3], const hpoint *p)
{
	for (int k = 0; k < 3; k++)
		if (cmp_scaled(lo[k], p, k, NULL) > 0 || cmp_scaled(hi[k], p, k, NULL) < 0)
			return false;
	return true;
}

/* On some closed triangle? pd (the point as doubles) when it is one. */
static bool
on_surface(const ref_solid *s, const hpoint *p, const double *pd)
{
	for (size_t t = 0; t < s->ntri; t++)
	{
		const double *v = &s->tc[9 * t];

		if (pd)
		{
			/* comparisons of doubles are exact; then the LP reference */
			if (box_holds_double(&s->tbox[6 * t], pd) &&
				ref_point_triangle_3d(pd, &v[0], &v[3], &v[6]))
				return true;
			continue;
		}
		if (!box_holds_h(&s->lo[3 * t], &s->hi[3 * t], p))
			continue;
		relative_vertices(s, t, p);
		if (origin_on_triangle())
			return true;
	}
	return false;
}

/* ------------------------------------------------------------------ */
/* Ray parity.                                                        */

typedef struct direction
{
	int			axis;			/* dominant component */
	int			sign;
	long		side[3];		/* the two other components; side[axis] unused */
} direction;

static uint64_t
next_random(uint64_t *state)
{
	uint64_t	z = (*state += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static void
draw_direction(uint64_t *state, direction *dir)
{
	uint64_t	r = next_random(state);

	dir->axis = (int) (r % 3);
	dir->sign = (r >> 8) & 1 ? 1 : -1;
	for (int k = 0; k < 3; k++)
		dir->side[k] = (long) (next_random(state) % (2 * TILT_SIDE_MAX + 1)) - TILT_SIDE_MAX;
	for (int k = 0; k < 3; k++)
	{
		if (k == dir->axis)
		{
			mpz_set_ui(ws.d[k], 1);
			mpz_mul_2exp(ws.d[k], ws.d[k], TILT_DOMINANT_EXP);
			if (dir->sign < 0)
				mpz_neg(ws.d[k], ws.d[k]);
		}
		else
			mpz_set_si(ws.d[k], dir->side[k]);
	}
}

/*
 * Sideways reach of the ray over the surface's extent along the dominant
 * axis, times D: ws.Nlo, ws.Nhi bound the other coordinates (times D) of
 * every ray point that can be in the surface's box. False when the ray
 * starts beyond the surface.
 */
static bool
ray_reach(const ref_solid *s, const hpoint *p, const direction *dir)
{
	int			k = dir->axis;

	if (dir->sign > 0)
	{
		mpz_mul(ws.M, s->mhi[k], p->D);
		mpz_sub(ws.M, ws.M, p->N[k]);
	}
	else
	{
		mpz_mul(ws.M, s->mlo[k], p->D);
		mpz_sub(ws.M, p->N[k], ws.M);
	}
	if (mpz_sgn(ws.M) < 0)
		return false;
	mpz_fdiv_q_2exp(ws.M, ws.M, TILT_CULL_SHIFT);
	mpz_add_ui(ws.M, ws.M, 1);
	for (int j = 0; j < 3; j++)
	{
		mpz_sub(ws.Nlo[j], p->N[j], ws.M);
		mpz_add(ws.Nhi[j], p->N[j], ws.M);
	}
	return true;
}

/* Can the ray reach triangle t's box? Exact and conservative. */
static bool
ray_may_hit(const ref_solid *s, size_t t, const hpoint *p, const direction *dir)
{
	int			k = dir->axis;

	if (dir->sign > 0 ? cmp_scaled(s->hi[3 * t + k], p, k, NULL) < 0
		: cmp_scaled(s->lo[3 * t + k], p, k, NULL) > 0)
		return false;
	for (int j = 0; j < 3; j++)
	{
		if (j == k)
			continue;
		if (cmp_scaled(s->lo[3 * t + j], p, j, ws.Nhi[j]) > 0 ||
			cmp_scaled(s->hi[3 * t + j], p, j, ws.Nlo[j]) < 0)
			return false;
	}
	return true;
}

typedef enum crossing
{
	CROSS_NONE,
	CROSS_ONE,
	CROSS_DEGENERATE
} crossing;

/* The ray from the point (origin of ws.U, V, W) along ws.d against one triangle. */
static crossing
ray_triangle(void)
{
	int			e[3],
				npos = 0,
				nneg = 0,
				sf,
				sd;

	e[0] = sign_det(ws.d, ws.U, ws.V);
	e[1] = sign_det(ws.d, ws.V, ws.W);
	e[2] = sign_det(ws.d, ws.W, ws.U);
	for (int i = 0; i < 3; i++)
	{
		npos += e[i] > 0;
		nneg += e[i] < 0;
	}
	if (npos && nneg)
		return CROSS_NONE;		/* the line passes beside an edge */
	if (!npos && !nneg)
		return CROSS_DEGENERATE;	/* the line lies in the plane */
	vsub(ws.X, ws.V, ws.U);
	vsub(ws.Y, ws.W, ws.U);
	vcross(ws.n, ws.X, ws.Y);
	vdot(ws.a, ws.n, ws.U);
	sf = -mpz_sgn(ws.a);		/* sign of n . (P - A) */
	vdot(ws.b, ws.n, ws.d);
	sd = mpz_sgn(ws.b);
	if (sf == 0 || sd == 0)
		die("ray meets a triangle through its own origin off the boundary");
	if (sf == sd)
		return CROSS_NONE;		/* behind the origin */
	return npos + nneg == 3 ? CROSS_ONE : CROSS_DEGENERATE;
}

/* Parity along one direction: 0 or 1, or -1 when the ray was degenerate. */
static int
ray_parity(const ref_solid *s, const hpoint *p, const direction *dir)
{
	int			parity = 0;

	if (!ray_reach(s, p, dir))
		return 0;
	for (size_t t = 0; t < s->ntri; t++)
	{
		crossing	c;

		if (s->flat[t] || !ray_may_hit(s, t, p, dir))
			continue;
		relative_vertices(s, t, p);
		c = ray_triangle();
		if (c == CROSS_DEGENERATE)
			return -1;
		parity ^= c == CROSS_ONE;
	}
	return parity;
}

static bool
outside_box_h(const ref_solid *s, const hpoint *p)
{
	return !box_holds_h((mpz_t *) s->mlo, (mpz_t *) s->mhi, p);
}

static int
locate_h(const ref_solid *s, const hpoint *p, const double *pd)
{
	uint64_t	state = 0x5eed0f5011d5ull;

	if (s->ntri == 0)
		return REF_OUTSIDE;
	if (pd ? !box_holds_double(s->box, pd) : outside_box_h(s, p))
		return REF_OUTSIDE;
	if (on_surface(s, p, pd))
		return REF_BOUNDARY;
	for (int attempt = 0; attempt < MAX_DIRECTIONS; attempt++)
	{
		direction	dir;
		int			parity;

		draw_direction(&state, &dir);
		parity = ray_parity(s, p, &dir);
		if (parity >= 0)
			return parity ? REF_INSIDE : REF_OUTSIDE;
	}
	die("no non-degenerate ray found");
	return -1;
}

int
ref_solid_locate(const ref_solid *s, const double p[3])
{
	hpoint		h;
	int			r;

	scratch_ready();
	for (int k = 0; k < 3; k++)
		if (!isfinite(p[k]))
			die("non-finite coordinate");
	/* most queries are far from most bodies: no GMP for them */
	if (s->ntri == 0 || !box_holds_double(s->box, p))
		return REF_OUTSIDE;
	hpoint_init(&h);
	hpoint_from_d(&h, s, p);
	r = locate_h(s, &h, p);
	hpoint_clear(&h);
	return r;
}

int
ref_solid_locate_q(const ref_solid *s, mpq_t p[3])
{
	hpoint		h;
	int			r;

	scratch_ready();
	hpoint_init(&h);
	hpoint_from_q(&h, s, p);
	r = locate_h(s, &h, NULL);
	hpoint_clear(&h);
	return r;
}

int
ref_locate(const double *xyz, const uint32_t *tri, size_t ntri, const double p[3])
{
	ref_solid  *s = ref_solid_new(xyz, tri, ntri);
	int			r = ref_solid_locate(s, p);

	ref_solid_free(s);
	return r;
}

/* ------------------------------------------------------------------ */
/* Improper contact.                                                  */

bool
ref_triangle_degenerate(const double T[3][3])
{
	mpq_t		v[3][3],
				c,
				t;
	bool		flat = true;

	mpq_inits(c, t, NULL);
	for (int i = 0; i < 3; i++)
		for (int k = 0; k < 3; k++)
		{
			mpq_init(v[i][k]);
			set_exact(v[i][k], T[i][k]);
			if (i > 0)
				mpq_sub(v[i][k], v[i][k], v[0][k]);
		}
	for (int k = 0; k < 3 && flat; k++)
	{
		int			i = (k + 1) % 3,
					j = (k + 2) % 3;

		mpq_mul(c, v[1][i], v[2][j]);
		mpq_mul(t, v[1][j], v[2][i]);
		flat = mpq_equal(c, t);
	}
	for (int i = 0; i < 3; i++)
		for (int k = 0; k < 3; k++)
			mpq_clear(v[i][k]);
	mpq_clears(c, t, NULL);
	return flat;
}

static bool
same_point(const double a[3], const double b[3])
{
	return a[0] == b[0] && a[1] == b[1] && a[2] == b[2];
}

/* shared[i]: P's vertex i equals a vertex of Q; returns how many. */
static int
mark_shared(const double P[3][3], const double Q[3][3], bool shared[3])
{
	int			n = 0;

	for (int i = 0; i < 3; i++)
	{
		shared[i] = same_point(P[i], Q[0]) || same_point(P[i], Q[1]) ||
			same_point(P[i], Q[2]);
		n += shared[i];
	}
	return n;
}

/*
 * Q's vertices not shared with P all strictly on one side of P's plane: the
 * plane meets Q only in the shared face, so the triangles meet nowhere else.
 */
static bool
strictly_one_side(const double P[3][3], const double Q[3][3], const bool qshared[3])
{
	int			side = 0;

	for (int j = 0; j < 3; j++)
	{
		int			o;

		if (qshared[j])
			continue;
		o = ref_orient3d(P[0], P[1], P[2], Q[j]);
		if (o == 0 || (side != 0 && o != side))
			return false;
		side = o;
	}
	return side != 0;
}

#define LP_ROWS 5
#define LP_COLS 6

/*
 * Row-reduce the rows x (cols + 1) augmented matrix m in place (reduced
 * echelon form). Returns the rank, or -1 if the system is inconsistent.
 */
static int
row_reduce(mpq_t m[LP_ROWS][LP_COLS + 1], int rows, int cols)
{
	mpq_t		f,
				t;
	int			r = 0;

	mpq_inits(f, t, NULL);
	for (int c = 0; c < cols && r < rows; c++)
	{
		int			piv = -1;

		for (int i = r; i < rows; i++)
			if (mpq_sgn(m[i][c]) != 0)
			{
				piv = i;
				break;
			}
		if (piv < 0)
			continue;
		for (int j = 0; j <= cols; j++)
			mpq_swap(m[piv][j], m[r][j]);
		mpq_inv(f, m[r][c]);
		for (int j = 0; j <= cols; j++)
			mpq_mul(m[r][j], m[r][j], f);
		for (int i = 0; i < rows; i++)
		{
			if (i == r || mpq_sgn(m[i][c]) == 0)
				continue;
			mpq_set(f, m[i][c]);
			for (int j = 0; j <= cols; j++)
			{
				mpq_mul(t, f, m[r][j]);
				mpq_sub(m[i][j], m[i][j], t);
			}
		}
		r++;
	}
	for (int i = r; i < rows; i++)
		if (mpq_sgn(m[i][cols]) != 0)
			r = -1;
	mpq_clears(f, t, NULL);
	return r;
}

/*
 * The basic solution on columns cols_set (r of them) of the r-row system
 * E z = c: true and z (all LP_COLS entries) when it exists and is >= 0.
 */
static bool
basic_solution(mpq_t E[LP_ROWS][LP_COLS + 1], int r, unsigned cols_set, mpq_t z[LP_COLS])
{
	mpq_t		m[LP_ROWS][LP_COLS + 1];
	int			col[LP_COLS],
				nc = 0;
	bool		ok;

	for (int j = 0; j < LP_COLS; j++)
		if (cols_set & (1u << j))
			col[nc++] = j;
	for (int i = 0; i < r; i++)
	{
		for (int j = 0; j < nc; j++)
			mpq_init(m[i][j]), mpq_set(m[i][j], E[i][col[j]]);
		mpq_init(m[i][nc]);
		mpq_set(m[i][nc], E[i][LP_COLS]);
	}
	/* nc == r: full rank means the reduced form is the identity */
	ok = row_reduce(m, r, nc) == r;
	for (int i = 0; ok && i < r; i++)
		ok = mpq_sgn(m[i][i]) != 0;
	for (int j = 0; j < LP_COLS; j++)
		mpq_set_ui(z[j], 0, 1);
	for (int i = 0; ok && i < r; i++)
	{
		mpq_set(z[col[i]], m[i][nc]);
		ok = mpq_sgn(z[col[i]]) >= 0;
	}
	for (int i = 0; i < r; i++)
		for (int j = 0; j <= nc; j++)
			mpq_clear(m[i][j]);
	return ok;
}

/* max of the weight on A's unshared vertices over the contact polytope > 0? */
static bool
contact_leaves_shared_face(const double A[3][3], const double B[3][3], const bool ashared[3])
{
	mpq_t		m[LP_ROWS][LP_COLS + 1],
				z[LP_COLS],
				g;
	int			r;
	bool		found = false;

	for (int i = 0; i < LP_ROWS; i++)
		for (int j = 0; j <= LP_COLS; j++)
			mpq_init(m[i][j]);
	for (int j = 0; j < LP_COLS; j++)
		mpq_init(z[j]);
	mpq_init(g);
	for (int k = 0; k < 3; k++)
		for (int i = 0; i < 3; i++)
		{
			set_exact(m[k][i], A[i][k]);
			set_exact(m[k][3 + i], B[i][k]);
			mpq_neg(m[k][3 + i], m[k][3 + i]);
		}
	for (int i = 0; i < 3; i++)
	{
		mpq_set_ui(m[3][i], 1, 1);
		mpq_set_ui(m[4][3 + i], 1, 1);
	}
	mpq_set_ui(m[3][LP_COLS], 1, 1);
	mpq_set_ui(m[4][LP_COLS], 1, 1);

	r = row_reduce(m, LP_ROWS, LP_COLS);
	for (unsigned set = 0; r > 0 && !found && set < (1u << LP_COLS); set++)
	{
		if (__builtin_popcount(set) != r || !basic_solution(m, r, set, z))
			continue;
		mpq_set_ui(g, 0, 1);
		for (int i = 0; i < 3; i++)
			if (!ashared[i])
				mpq_add(g, g, z[i]);
		found = mpq_sgn(g) > 0;
	}
	for (int i = 0; i < LP_ROWS; i++)
		for (int j = 0; j <= LP_COLS; j++)
			mpq_clear(m[i][j]);
	for (int j = 0; j < LP_COLS; j++)
		mpq_clear(z[j]);
	mpq_clear(g);
	return found;
}

bool
ref_improper_contact(const double A[3][3], const double B[3][3])
{
	bool		ashared[3],
				bshared[3];
	int			k;

	for (int i = 0; i < 3; i++)
		for (int c = 0; c < 3; c++)
			if (!isfinite(A[i][c]) || !isfinite(B[i][c]))
				die("non-finite coordinate");
	if (ref_triangle_degenerate(A) || ref_triangle_degenerate(B))
		return false;
	k = mark_shared(A, B, ashared);
	mark_shared(B, A, bshared);
	if (k == 3)
		return true;			/* the same triangle twice */
	if (strictly_one_side(A, B, bshared) || strictly_one_side(B, A, ashared))
		return false;
	return contact_leaves_shared_face(A, B, ashared);
}

/* ------------------------------------------------------------------ */
/* Intercepts.                                                        */

/* One hole segment in the scaled frame: start N0 / D, direction e / D. */
typedef struct hsegment
{
	hpoint		h0;
	mpz_t		e[3];
	double		box[6];
} hsegment;

static void
segment_init(hsegment *g, const ref_solid *s, const double *a, const double *b)
{
	mpq_t		q[6];
	hpoint		h1;

	hpoint_init(&g->h0);
	hpoint_init(&h1);
	for (int k = 0; k < 3; k++)
	{
		mpz_init(g->e[k]);
		g->box[k] = a[k] < b[k] ? a[k] : b[k];
		g->box[3 + k] = a[k] < b[k] ? b[k] : a[k];
	}
	for (int i = 0; i < 6; i++)
	{
		mpq_init(q[i]);
		set_exact(q[i], i < 3 ? a[i] : b[i - 3]);
	}
	hpoint_from_q(&g->h0, s, q);
	hpoint_from_q(&h1, s, q + 3);
	/* bring both ends over the common denominator lcm(D0, D1) */
	mpz_lcm(ws.a, g->h0.D, h1.D);
	for (int k = 0; k < 3; k++)
	{
		mpz_divexact(ws.b, ws.a, g->h0.D);
		mpz_mul(g->h0.N[k], g->h0.N[k], ws.b);
		mpz_divexact(ws.b, ws.a, h1.D);
		mpz_mul(g->e[k], h1.N[k], ws.b);
		mpz_sub(g->e[k], g->e[k], g->h0.N[k]);
	}
	mpz_set(g->h0.D, ws.a);
	for (int i = 0; i < 6; i++)
		mpq_clear(q[i]);
	hpoint_clear(&h1);
}

static void
segment_clear(hsegment *g)
{
	hpoint_clear(&g->h0);
	mpz_clears(g->e[0], g->e[1], g->e[2], NULL);
}

/* The hole's point at parameter t as a homogeneous point. */
static void
segment_point(hpoint *p, const hsegment *g, const mpq_t t)
{
	for (int k = 0; k < 3; k++)
	{
		mpz_mul(p->N[k], g->h0.N[k], mpq_denref(t));
		mpz_addmul(p->N[k], g->e[k], mpq_numref(t));
	}
	mpz_mul(p->D, g->h0.D, mpq_denref(t));
}

/* A growable list of parameters. */
typedef struct qlist
{
	mpq_t	   *v;
	size_t		n,
				cap;
} qlist;

static void
qlist_push(qlist *l, const mpq_t x)
{
	if (l->n == l->cap)
	{
		l->cap = l->cap ? 2 * l->cap : 16;
		l->v = realloc(l->v, sizeof(mpq_t) * l->cap);
		if (!l->v)
			die("out of memory");
	}
	mpq_init(l->v[l->n]);
	mpq_set(l->v[l->n++], x);
}

static void
qlist_clear(qlist *l)
{
	for (size_t i = 0; i < l->n; i++)
		mpq_clear(l->v[i]);
	free(l->v);
}

static int
qcmp(const void *a, const void *b)
{
	return mpq_cmp(*(const mpq_t *) a, *(const mpq_t *) b);
}

static void
qlist_sort_unique(qlist *l)
{
	size_t		m = 0;

	qsort(l->v, l->n, sizeof(mpq_t), qcmp);
	for (size_t i = 0; i < l->n; i++)
	{
		if (m > 0 && mpq_equal(l->v[m - 1], l->v[i]))
			continue;
		mpq_swap(l->v[m++], l->v[i]);
	}
	for (size_t i = m; i < l->n; i++)
		mpq_clear(l->v[i]);
	l->n = m;
}

/*
 * The segment lies in the triangle's plane (ws.U, V, W relative to its start,
 * ws.n the normal): the parameters in [0, 1] where it is in the closed
 * triangle form [lo, hi], possibly empty. Each edge XY gives the linear
 * condition n . ((X - H(t)) x (Y - H(t))) = alpha - t beta >= 0.
 */
static void
coplanar_stretch(hsegment *g, qlist *out)
{
	mpz_t	   *edge[3][2] = {{ws.U, ws.V}, {ws.V, ws.W}, {ws.W, ws.U}};
	mpq_t		lo,
				hi,
				b;
	bool		empty = false;

	mpq_inits(lo, hi, b, NULL);
	mpq_set_ui(lo, 0, 1);
	mpq_set_ui(hi, 1, 1);
	for (int i = 0; i < 3 && !empty; i++)
	{
		vcross(ws.cr, edge[i][0], edge[i][1]);
		vdot(ws.a, ws.n, ws.cr);	/* alpha */
		vsub(ws.X, edge[i][1], edge[i][0]);
		vcross(ws.cr, g->e, ws.X);
		vdot(ws.b, ws.n, ws.cr);	/* beta */
		if (mpz_sgn(ws.b) == 0)
		{
			empty = mpz_sgn(ws.a) < 0;
			continue;
		}
		mpq_set_num(b, ws.a);
		mpq_set_den(b, ws.b);	/* alpha / beta, sign fixed below */
		if (mpz_sgn(ws.b) < 0)
		{
			mpz_neg(mpq_numref(b), mpq_numref(b));
			mpz_neg(mpq_denref(b), mpq_denref(b));
		}
		mpq_canonicalize(b);
		if (mpz_sgn(ws.b) > 0 && mpq_cmp(b, hi) < 0)
			mpq_set(hi, b);		/* t <= alpha / beta */
		if (mpz_sgn(ws.b) < 0 && mpq_cmp(b, lo) > 0)
			mpq_set(lo, b);		/* t >= alpha / beta */
	}
	if (!empty && mpq_cmp(lo, hi) <= 0)
	{
		qlist_push(out, lo);
		qlist_push(out, hi);
	}
	mpq_clears(lo, hi, b, NULL);
}

/* Parameters where segment g meets triangle t, appended to out. */
static void
segment_triangle(const ref_solid *s, size_t t, hsegment *g, qlist *out)
{
	int			sd,
				sf;

	relative_vertices(s, t, &g->h0);
	vsub(ws.X, ws.V, ws.U);
	vsub(ws.Y, ws.W, ws.U);
	vcross(ws.n, ws.X, ws.Y);
	vdot(ws.a, ws.n, ws.U);
	mpz_neg(ws.a, ws.a);		/* n . (H0 - A), times D^3 */
	vdot(ws.b, ws.n, g->e);		/* n . (H1 - H0), times D^3 */
	sf = mpz_sgn(ws.a);
	sd = mpz_sgn(ws.b);
	if (sd == 0)
	{
		if (sf == 0)
			coplanar_stretch(g, out);
		return;
	}
	{
		mpq_t		tq;
		int			e[3],
					npos = 0,
					nneg = 0;

		/* t = -f0 / nd must be in [0, 1]: f0 and nd of opposite signs
		 * (or f0 = 0), |f0| <= |nd| */
		if (sf == sd)
			return;
		if (mpz_cmpabs(ws.a, ws.b) > 0)
			return;
		mpq_init(tq);
		mpz_neg(mpq_numref(tq), ws.a);
		mpz_set(mpq_denref(tq), ws.b);
		if (sd < 0)
		{
			mpz_neg(mpq_numref(tq), mpq_numref(tq));
			mpz_neg(mpq_denref(tq), mpq_denref(tq));
		}
		mpq_canonicalize(tq);
		e[0] = sign_det(g->e, ws.U, ws.V);
		e[1] = sign_det(g->e, ws.V, ws.W);
		e[2] = sign_det(g->e, ws.W, ws.U);
		for (int i = 0; i < 3; i++)
		{
			npos += e[i] > 0;
			nneg += e[i] < 0;
		}
		if (!(npos && nneg))
			qlist_push(out, tq);
		mpq_clear(tq);
	}
}

/* Locations of the breakpoints and of the open pieces between them, in order. */
typedef struct atom
{
	size_t		k;
	mpq_t		t;				/* breakpoint, or the middle of an open piece */
	bool		point;
	bool		in;
} atom;

typedef struct atoms
{
	atom	   *v;
	size_t		n,
				cap;
} atoms;

static void
atoms_push(atoms *a, size_t k, const mpq_t t, bool point, bool in)
{
	if (a->n == a->cap)
	{
		a->cap = a->cap ? 2 * a->cap : 64;
		a->v = realloc(a->v, sizeof(atom) * a->cap);
		if (!a->v)
			die("out of memory");
	}
	a->v[a->n].k = k;
	mpq_init(a->v[a->n].t);
	mpq_set(a->v[a->n].t, t);
	a->v[a->n].point = point;
	a->v[a->n].in = in;
	a->n++;
}

static bool
segment_box_meets(const hsegment *g, const double *b)
{
	for (int k = 0; k < 3; k++)
		if (g->box[3 + k] < b[k] || g->box[k] > b[3 + k])
			return false;
	return true;
}

static bool
located_in(const ref_solid *s, const hsegment *g, const mpq_t t)
{
	hpoint		p;
	int			r;

	hpoint_init(&p);
	segment_point(&p, g, t);
	r = locate_h(s, &p, NULL);
	hpoint_clear(&p);
	return r != REF_OUTSIDE;
}

static void
segment_atoms(const ref_solid *s, const double *hole, size_t k, atoms *out)
{
	hsegment	g;
	qlist		bp = {0};
	mpq_t		mid;

	mpq_init(mid);
	segment_init(&g, s, &hole[3 * k], &hole[3 * k + 3]);
	mpq_set_ui(mid, 0, 1);
	qlist_push(&bp, mid);
	mpq_set_ui(mid, 1, 1);
	qlist_push(&bp, mid);
	for (size_t t = 0; t < s->ntri; t++)
		if (!s->flat[t] && segment_box_meets(&g, &s->tbox[6 * t]))
			segment_triangle(s, t, &g, &bp);
	qlist_sort_unique(&bp);
	for (size_t i = 0; i < bp.n; i++)
	{
		/* the start of a later segment is the end of the one before */
		if (!(i == 0 && k > 0))
			atoms_push(out, k, bp.v[i], true, located_in(s, &g, bp.v[i]));
		if (i + 1 < bp.n)
		{
			mpq_add(mid, bp.v[i], bp.v[i + 1]);
			mpq_div_2exp(mid, mid, 1);
			atoms_push(out, k, mid, false, located_in(s, &g, mid));
		}
	}
	qlist_clear(&bp);
	segment_clear(&g);
	mpq_clear(mid);
}

static void
stretch_push(ref_stretch **v, size_t *n, size_t *cap, const atom *from, const atom *to)
{
	ref_stretch *r;

	if (!from->point || !to->point)
		die("a stretch of the closed solid does not end at a breakpoint");
	if (*n == *cap)
	{
		*cap = *cap ? 2 * *cap : 8;
		*v = realloc(*v, sizeof(ref_stretch) * *cap);
		if (!*v)
			die("out of memory");
	}
	r = &(*v)[(*n)++];
	r->k_from = from->k;
	r->k_to = to->k;
	mpq_init(r->t_from);
	mpq_init(r->t_to);
	mpq_set(r->t_from, from->t);
	mpq_set(r->t_to, to->t);
}

size_t
ref_solid_intercepts(const ref_solid *s, const double *hole, size_t nverts,
					 ref_stretch **out)
{
	atoms		a = {0};
	ref_stretch *v = NULL;
	size_t		n = 0,
				cap = 0,
				start = 0;
	bool		inside = false;

	scratch_ready();
	for (size_t k = 0; k + 1 < nverts; k++)
		segment_atoms(s, hole, k, &a);
	for (size_t i = 0; i < a.n; i++)
	{
		if (a.v[i].in && !inside)
			start = i;
		else if (!a.v[i].in && inside)
			stretch_push(&v, &n, &cap, &a.v[start], &a.v[i - 1]);
		inside = a.v[i].in;
	}
	if (inside)
		stretch_push(&v, &n, &cap, &a.v[start], &a.v[a.n - 1]);
	for (size_t i = 0; i < a.n; i++)
		mpq_clear(a.v[i].t);
	free(a.v);
	*out = v;
	return n;
}

void
ref_stretches_free(ref_stretch *st, size_t n)
{
	for (size_t i = 0; i < n; i++)
	{
		mpq_clear(st[i].t_from);
		mpq_clear(st[i].t_to);
	}
	free(st);
}

int
ref_solid_locate_on_hole(const ref_solid *s, const double *hole, size_t k, const mpq_t t)
{
	hsegment	g;
	hpoint		p;
	int			r;

	scratch_ready();
	segment_init(&g, s, &hole[3 * k], &hole[3 * k + 3]);
	hpoint_init(&p);
	segment_point(&p, &g, t);
	r = locate_h(s, &p, NULL);
	hpoint_clear(&p);
	segment_clear(&g);
	return r;
}
