/*
 * mine.c — the deterministic synthetic mine described in mine.h.
 *
 * Reproducibility rests on three things: a private splitmix64 generator, our
 * own sin/cos (libm's differ in the last bit between versions), and binary64
 * arithmetic without contraction, because an FMA rounds once where a*b+c
 * rounds twice and would move every coordinate by an ulp on some builds.
 */
#if defined(__clang__)
#pragma clang fp contract(off)
#elif defined(__GNUC__)
#pragma GCC optimize ("fp-contract=off")
#endif

#include "mine.h"

#include <float.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if !defined(FLT_EVAL_METHOD) || FLT_EVAL_METHOD != 0
#error "mine.c needs binary64 evaluation (FLT_EVAL_METHOD == 0)"
#endif
#ifdef __FAST_MATH__
#error "mine.c must not be built with -ffast-math: its output would change"
#endif

#define MINE_PI 3.14159265358979323846
#define DEG (MINE_PI / 180.0)

#define NOISE_TERMS 4
#define MIN_RING_VERTICES 16	/* smallest body: 32 triangles */
#define LENS_MARGIN 10.0		/* metres between lens bounding boxes */
#define COLUMN_MARGIN 100.0		/* metres around a calibration body, in x and y */
#define MEAN_SEGMENTS_PER_HOLE 32.0 /* E[length / interval] of grid holes */
#define MEAN_HOLES_PER_SITE 1.3 /* 10 % of sites are fans of 3 to 5 */

/* Stream tags: each subsystem draws from its own sequence. */
#define STREAM_LAYOUT	UINT64_C(0x0000000001)
#define STREAM_BODY		UINT64_C(0x0100000000)
#define STREAM_HOLE		UINT64_C(0x0200000000)
#define STREAM_SITE		UINT64_C(0x0300000000)

/* ---------- random numbers ---------- */

typedef struct rng
{
	uint64_t	s;
} rng;

static uint64_t
mix64(uint64_t z)
{
	z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
	z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
	return z ^ (z >> 31);
}

/* splitmix64 */
static uint64_t
rng_next(rng *r)
{
	r->s += UINT64_C(0x9E3779B97F4A7C15);
	return mix64(r->s);
}

static rng
rng_stream(uint64_t seed, uint64_t stream)
{
	rng			r;

	r.s = mix64(seed ^ mix64(stream + UINT64_C(0x632BE59BD9B4E019)));
	return r;
}

/* Uniform in [0, 1), 53 random bits. */
static double
rng_unit(rng *r)
{
	return (double) (rng_next(r) >> 11) * (1.0 / 9007199254740992.0);
}

static double
rng_range(rng *r, double lo, double hi)
{
	return lo + (hi - lo) * rng_unit(r);
}

/* Uniform integer in [lo, hi]; the modulo bias is irrelevant here. */
static int64_t
rng_int(rng *r, int64_t lo, int64_t hi)
{
	return lo + (int64_t) (rng_next(r) % (uint64_t) (hi - lo + 1));
}

/* ---------- trigonometry ---------- */

/*
 * Cody-Waite reduction by pi/2 (PIO2_HI has 33 significant bits, so k * PIO2_HI
 * is exact for the |k| < 2^20 we use) then Taylor polynomials on [-pi/4, pi/4]:
 * the first omitted terms are below 1e-19, so these are as accurate as libm's
 * for our arguments, and, using only + - * /, bit-identical everywhere.
 */
#define PIO2_HI 1.57079632673412561417e+00
#define PIO2_LO 6.07710050650619224932e-11
#define TWO_OVER_PI 6.36619772367581382433e-01

static double
sin_kernel(double r)
{
	double		r2 = r * r;
	double		p;

	p = -1.0 / 1307674368000.0 + r2 * (1.0 / 355687428096000.0);
	p = 1.0 / 6227020800.0 + r2 * p;
	p = -1.0 / 39916800.0 + r2 * p;
	p = 1.0 / 362880.0 + r2 * p;
	p = -1.0 / 5040.0 + r2 * p;
	p = 1.0 / 120.0 + r2 * p;
	p = -1.0 / 6.0 + r2 * p;
	return r + r * r2 * p;
}

static double
cos_kernel(double r)
{
	double		r2 = r * r;
	double		p;

	p = -1.0 / 87178291200.0 + r2 * (1.0 / 20922789888000.0);
	p = 1.0 / 479001600.0 + r2 * p;
	p = -1.0 / 3628800.0 + r2 * p;
	p = 1.0 / 40320.0 + r2 * p;
	p = -1.0 / 720.0 + r2 * p;
	p = 1.0 / 24.0 + r2 * p;
	p = -0.5 + r2 * p;
	return 1.0 + r2 * p;
}

static double
reduce_pio2(double x, int *quadrant)
{
	double		k = floor(x * TWO_OVER_PI + 0.5);

	*quadrant = (int) ((int64_t) k & 3);
	return (x - k * PIO2_HI) - k * PIO2_LO;
}

double
mine_sin(double x)
{
	int			q;
	double		r = reduce_pio2(x, &q);

	switch (q)
	{
		case 0:
			return sin_kernel(r);
		case 1:
			return cos_kernel(r);
		case 2:
			return -sin_kernel(r);
		default:
			return -cos_kernel(r);
	}
}

double
mine_cos(double x)
{
	int			q;
	double		r = reduce_pio2(x, &q);

	switch (q)
	{
		case 0:
			return cos_kernel(r);
		case 1:
			return -sin_kernel(r);
		case 2:
			return -cos_kernel(r);
		default:
			return sin_kernel(r);
	}
}

/* ---------- parameters ---------- */

bool
mine_params_for_size(mine_params *p, const char *size, uint64_t seed)
{
	mine_params q;

	memset(&q, 0, sizeof(q));
	q.seed = seed;
	q.origin_x = 500000.0;
	q.origin_y = 7000000.0;
	q.surface_z = 300.0;
	q.body_z_top = -50.0;
	q.body_z_bottom = -900.0;

	if (strcmp(size, "tiny") == 0)
	{
		q.n_holes = 50;
		q.n_bodies = 3;
		q.target_triangles = 2000;
		q.n_degenerate_sets = 1;
	}
	else if (strcmp(size, "demo") == 0)
	{
		q.n_holes = 2000;
		q.n_bodies = 20;
		q.target_triangles = 200000;
		q.n_degenerate_sets = 2;
	}
	else if (strcmp(size, "paper") == 0)
	{
		/* Menezes et al.: 1,000,000 triangles x 7,846 segments */
		q.target_segments = 7846;
		q.n_bodies = 12;
		q.target_triangles = 1000000;
		q.n_degenerate_sets = 2;
	}
	else if (strcmp(size, "large") == 0)
	{
		q.n_holes = 20000;
		q.n_bodies = 100;
		q.target_triangles = 10000000;
		q.n_degenerate_sets = 4;
	}
	else
		return false;
	*p = q;
	return true;
}

const char *
mine_degenerate_kind_name(mine_degenerate_kind kind)
{
	switch (kind)
	{
		case MINE_DEG_VERTEX_TOUCH:
			return "vertex-touch";
		case MINE_DEG_VERTEX_TOUCH_MISS:
			return "vertex-touch-miss";
		case MINE_DEG_VERTEX_END:
			return "vertex-end";
		case MINE_DEG_VERTEX_END_MISS:
			return "vertex-end-miss";
		case MINE_DEG_COPLANAR:
			return "coplanar";
		case MINE_DEG_COPLANAR_MISS:
			return "coplanar-miss";
		case MINE_DEG_FACE_END:
			return "face-end";
		case MINE_DEG_FACE_END_MISS:
			return "face-end-miss";
		case MINE_DEG_VERTEX_PIERCE:
			return "vertex-pierce";
	}
	return "unknown";
}

/* ---------- generator state ---------- */

typedef struct body_shape
{
	mine_body_kind kind;
	double		a,
				b,
				c;				/* semi-axes along local x, y, z */
	double		rot[9];			/* world = center + rot * local, row-major */
	double		noise_amp[NOISE_TERMS];
	double		noise_freq[NOISE_TERMS];
	double		noise_phase[NOISE_TERMS];
	double		noise_dir[NOISE_TERMS][3];
	double		noise_total;	/* sum of amplitudes: radius in [1 - t, 1 + t] */
	double		half[3];		/* bound on |world - center| per axis */
	double		center[3];
	size_t		nring;			/* ring vertices N: 2N triangles, N + 2 vertices */
	size_t		cap_n;			/* vertices of the first ring */
	uint64_t	stream;
} body_shape;

typedef struct gen
{
	mine_params p;
	mine	   *m;
	char	   *errbuf;
	size_t		errlen;
	body_shape *shapes;			/* in mine.bodies order */
	bool	   *body_used;		/* taken by a degenerate case */
	size_t		hole_xyz_cap;	/* in vertices */
	size_t		holes_cap;
	double		topo_phase[3];
	double		campaign_az;	/* degrees */
	size_t		cur_first;		/* first vertex of the hole being built */
} gen;

static int
fail(gen *g, const char *fmt,...)
{
	if (g->errbuf != NULL && g->errlen > 0)
	{
		va_list		ap;

		va_start(ap, fmt);
		vsnprintf(g->errbuf, g->errlen, fmt, ap);
		va_end(ap);
	}
	return -1;
}

static double
topo(const gen *g, double x, double y)
{
	double		u = x - g->p.origin_x;
	double		v = y - g->p.origin_y;

	return g->p.surface_z
		+ 12.0 * mine_sin(u / 610.0 + g->topo_phase[0]) * mine_cos(v / 830.0 + g->topo_phase[1])
		+ 5.0 * mine_sin(u / 270.0 - v / 390.0 + g->topo_phase[2]);
}

/* ---------- bodies ---------- */

static void
matmul3(const double a[9], const double b[9], double out[9])
{
	for (int i = 0; i < 3; i++)
		for (int j = 0; j < 3; j++)
			out[3 * i + j] = a[3 * i] * b[j] + a[3 * i + 1] * b[3 + j]
				+ a[3 * i + 2] * b[6 + j];
}

static void
shape_half_extents(body_shape *s)
{
	double		ax[3] = {s->a, s->b, s->c};

	for (int e = 0; e < 3; e++)
	{
		double		q = 0.0;

		for (int i = 0; i < 3; i++)
		{
			double		t = s->rot[3 * e + i] * ax[i];

			q += t * t;
		}
		s->half[e] = (1.0 + s->noise_total) * sqrt(q) + 1.0;
	}
}

static void
shape_init(gen *g, body_shape *s, mine_body_kind kind, size_t index)
{
	rng			r;
	double		yaw;
	double		zrange = g->p.body_z_top - g->p.body_z_bottom;

	memset(s, 0, sizeof(*s));
	s->kind = kind;
	s->stream = STREAM_BODY + index;
	r = rng_stream(g->p.seed, s->stream);
	yaw = rng_range(&r, 0.0, 2.0 * MINE_PI);

	if (kind == MINE_BODY_CALIBRATION)
	{
		/*
		 * Turned about z only, with exact zeros and one in the matrix, so
		 * that a ring's vertices share one z and the cap can be flat.
		 */
		double		cy = mine_cos(yaw),
					sy = mine_sin(yaw);

		s->a = rng_range(&r, 70.0, 120.0);
		s->b = s->a * rng_range(&r, 0.7, 1.0);
		s->c = s->a * rng_range(&r, 0.4, 0.6);
		s->rot[0] = cy;
		s->rot[1] = -sy;
		s->rot[2] = 0.0;
		s->rot[3] = sy;
		s->rot[4] = cy;
		s->rot[5] = 0.0;
		s->rot[6] = 0.0;
		s->rot[7] = 0.0;
		s->rot[8] = 1.0;
		s->noise_total = 0.0;
	}
	else
	{
		double		u = rng_unit(&r);
		double		tilt = rng_range(&r, -60.0, 60.0) * DEG;
		double		plunge = rng_range(&r, -20.0, 20.0) * DEG;
		double		ct = mine_cos(tilt),
					st = mine_sin(tilt),
					cp = mine_cos(plunge),
					sp = mine_sin(plunge),
					cy = mine_cos(yaw),
					sy = mine_sin(yaw);
		double		rx[9] = {1, 0, 0, 0, ct, -st, 0, st, ct};
		double		ry[9] = {cp, 0, sp, 0, 1, 0, -sp, 0, cp};
		double		rz[9] = {cy, -sy, 0, sy, cy, 0, 0, 0, 1};
		double		t[9];

		/* diameters 50 to 600 m, small ones more common */
		s->a = 0.5 * (50.0 + 550.0 * u * u);
		s->b = s->a * rng_range(&r, 0.45, 1.0);
		s->c = s->a * rng_range(&r, 0.15, 0.45);
		matmul3(ry, rx, t);
		matmul3(rz, t, s->rot);
		for (int k = 0; k < NOISE_TERMS; k++)
		{
			double		dz = rng_range(&r, -1.0, 1.0);
			double		az = rng_range(&r, 0.0, 2.0 * MINE_PI);
			double		rr = sqrt(1.0 - dz * dz);

			s->noise_amp[k] = rng_range(&r, 0.01, 0.05);
			s->noise_freq[k] = rng_range(&r, 1.0, 3.0);
			s->noise_phase[k] = rng_range(&r, 0.0, 2.0 * MINE_PI);
			s->noise_dir[k][0] = rr * mine_cos(az);
			s->noise_dir[k][1] = rr * mine_sin(az);
			s->noise_dir[k][2] = dz;
			s->noise_total += s->noise_amp[k];
		}
	}
	shape_half_extents(s);
	/* the body must fit the depth range with a metre to spare */
	if (2.0 * s->half[2] > zrange - 2.0)
	{
		double		f = 0.99 * (zrange - 2.0) / (2.0 * s->half[2]);

		s->a *= f;
		s->b *= f;
		s->c *= f;
		shape_half_extents(s);
	}
}

static double
shape_radius(const body_shape *s, const double u[3])
{
	double		r = 1.0;

	for (int k = 0; k < NOISE_TERMS; k++)
	{
		double		d = u[0] * s->noise_dir[k][0] + u[1] * s->noise_dir[k][1]
			+ u[2] * s->noise_dir[k][2];

		r += s->noise_amp[k] * mine_sin(s->noise_freq[k] * d + s->noise_phase[k]);
	}
	return r;
}

static void
shape_vertex(const body_shape *s, const double u[3], double out[3])
{
	double		r = shape_radius(s, u);
	double		p[3] = {r * s->a * u[0], r * s->b * u[1], r * s->c * u[2]};

	for (int e = 0; e < 3; e++)
		out[e] = s->center[e] + (s->rot[3 * e] * p[0] + s->rot[3 * e + 1] * p[1]
								 + s->rot[3 * e + 2] * p[2]);
}

/*
 * Vertex counts of the m latitude rings, proportional to sin(theta) (the ring
 * circumference, so triangles keep a similar size), at least 3, summing to n.
 */
static void
ring_counts(size_t n, size_t m, size_t *cnt)
{
	double		wsum = 0.0;
	size_t		sum = 0;

	for (size_t i = 0; i < m; i++)
		wsum += mine_sin(MINE_PI * (double) (i + 1) / (double) (m + 1));
	for (size_t i = 0; i < m; i++)
	{
		double		want = (double) n * mine_sin(MINE_PI * (double) (i + 1) / (double) (m + 1)) / wsum;

		cnt[i] = (size_t) floor(want);
		if (cnt[i] < 3)
			cnt[i] = 3;
		sum += cnt[i];
	}
	while (sum != n)
	{
		size_t		best = 0;
		double		bestd = 0.0;
		bool		found = false;

		for (size_t i = 0; i < m; i++)
		{
			double		want = (double) n * mine_sin(MINE_PI * (double) (i + 1) / (double) (m + 1)) / wsum;
			double		d = want - (double) cnt[i];

			if (sum > n && cnt[i] <= 3)
				continue;
			if (!found || (sum < n ? d > bestd : d < bestd))
			{
				best = i;
				bestd = d;
				found = true;
			}
		}
		if (sum < n)
		{
			cnt[best]++;
			sum++;
		}
		else
		{
			cnt[best]--;
			sum--;
		}
	}
}

static size_t
ring_mod(int64_t k, size_t n)
{
	return (size_t) (((k % (int64_t) n) + (int64_t) n) % (int64_t) n);
}

/*
 * Mesh of one body: north pole, m rings from north to south, south pole.
 * Triangles are counter-clockwise seen from outside: with theta growing south
 * and phi east, e_theta x e_phi is the outward normal, so (north, south, east)
 * orders a triangle outward. Returns false when out of memory.
 */
static bool
body_mesh(const body_shape *s, double *xyz, uint32_t *tri)
{
	size_t		n = s->nring;
	size_t		m;
	size_t	   *cnt,
			   *base;
	double	   *off;
	size_t		nv = 0,
				nt = 0;
	rng			r = rng_stream(s->stream, UINT64_C(0x7269))	/* "ri" */ ;
	double		u[3];

	m = (size_t) floor(sqrt(MINE_PI * (double) n / 4.0) + 0.5);
	m = m > 1 ? m - 1 : 1;
	if (m > n / 3)
		m = n / 3;
	cnt = malloc(m * sizeof(size_t));
	base = malloc(m * sizeof(size_t));
	off = malloc(m * sizeof(double));
	if (cnt == NULL || base == NULL || off == NULL)
	{
		free(cnt);
		free(base);
		free(off);
		return false;
	}
	ring_counts(n, m, cnt);

	u[0] = 0.0;
	u[1] = 0.0;
	u[2] = 1.0;
	shape_vertex(s, u, xyz + 3 * nv++);
	for (size_t i = 0; i < m; i++)
	{
		double		theta = MINE_PI * (double) (i + 1) / (double) (m + 1);
		double		st = mine_sin(theta),
					ct = mine_cos(theta);

		off[i] = rng_unit(&r);
		base[i] = nv;
		for (size_t j = 0; j < cnt[i]; j++)
		{
			double		phi = 2.0 * MINE_PI * ((double) j + off[i]) / (double) cnt[i];

			u[0] = st * mine_cos(phi);
			u[1] = st * mine_sin(phi);
			u[2] = ct;
			shape_vertex(s, u, xyz + 3 * nv++);
		}
	}
	u[0] = 0.0;
	u[1] = 0.0;
	u[2] = -1.0;
	shape_vertex(s, u, xyz + 3 * nv++);

	if (s->kind == MINE_BODY_CALIBRATION)
	{
		/* flatten the cap: pole and first ring on the one plane z = z1 */
		double		z1 = xyz[3 * base[0] + 2];

		xyz[2] = z1;
		for (size_t j = 0; j < cnt[0]; j++)
			xyz[3 * (base[0] + j) + 2] = z1;
	}

	/* north cap */
	for (size_t j = 0; j < cnt[0]; j++)
	{
		tri[3 * nt] = 0;
		tri[3 * nt + 1] = (uint32_t) (base[0] + j);
		tri[3 * nt + 2] = (uint32_t) (base[0] + (j + 1) % cnt[0]);
		nt++;
	}
	/* bands: zip two rings together by angle */
	for (size_t i = 0; i + 1 < m; i++)
	{
		size_t		na = cnt[i],
					nb = cnt[i + 1];
		/* B's turns are unwrapped from k0, which may be -1 or nb */
		int64_t		k0 = (int64_t) floor(off[i] / (double) na * (double) nb - off[i + 1] + 0.5);
		size_t		ia = 0,
					kb = 0;

		while (ia < na || kb < nb)
		{
			double		ta = ((double) (ia + 1) + off[i]) / (double) na;
			double		tb = ((double) (k0 + (int64_t) kb + 1) + off[i + 1]) / (double) nb;
			uint32_t	a0 = (uint32_t) (base[i] + ia % na);
			uint32_t	b0 = (uint32_t) (base[i + 1] + ring_mod(k0 + (int64_t) kb, nb));

			if (kb == nb || (ia < na && ta < tb))
			{
				tri[3 * nt] = a0;
				tri[3 * nt + 1] = b0;
				tri[3 * nt + 2] = (uint32_t) (base[i] + (ia + 1) % na);
				ia++;
			}
			else
			{
				tri[3 * nt] = a0;
				tri[3 * nt + 1] = b0;
				tri[3 * nt + 2] = (uint32_t) (base[i + 1] + ring_mod(k0 + (int64_t) kb + 1, nb));
				kb++;
			}
			nt++;
		}
	}
	/* south cap */
	for (size_t j = 0; j < cnt[m - 1]; j++)
	{
		tri[3 * nt] = (uint32_t) (base[m - 1] + j);
		tri[3 * nt + 1] = (uint32_t) (nv - 1);
		tri[3 * nt + 2] = (uint32_t) (base[m - 1] + (j + 1) % cnt[m - 1]);
		nt++;
	}
	free(cnt);
	free(base);
	free(off);
	return true;
}

static int
cmp_by_size_desc(const void *pa, const void *pb, const body_shape *shapes)
{
	size_t		a = *(const size_t *) pa,
				b = *(const size_t *) pb;

	if (shapes[a].a != shapes[b].a)
		return shapes[a].a > shapes[b].a ? -1 : 1;
	return a < b ? -1 : (a > b ? 1 : 0);
}

/* insertion sort: qsort has no context argument in C11; n is small */
static void
sort_by_size(size_t *idx, size_t n, const body_shape *shapes)
{
	for (size_t i = 1; i < n; i++)
	{
		size_t		v = idx[i];
		size_t		j = i;

		while (j > 0 && cmp_by_size_desc(&idx[j - 1], &v, shapes) > 0)
		{
			idx[j] = idx[j - 1];
			j--;
		}
		idx[j] = v;
	}
}

static bool
boxes_conflict(const body_shape *s, const body_shape *t)
{
	bool		column = s->kind == MINE_BODY_CALIBRATION || t->kind == MINE_BODY_CALIBRATION;
	double		margin = column ? COLUMN_MARGIN : LENS_MARGIN;

	for (int e = 0; e < (column ? 2 : 3); e++)
		if (fabs(s->center[e] - t->center[e]) >= s->half[e] + t->half[e] + margin)
			return false;
	return true;
}

/*
 * Split the triangles (2 per ring vertex) over the bodies: calibration bodies
 * get a fixed modest share, lenses the rest by approximate surface area, each
 * at least MIN_RING_VERTICES, the total exact.
 */
static void
allocate_triangles(gen *g, size_t nb, size_t ncal, size_t nring_total)
{
	size_t		cal_n = 0;
	size_t		rest;
	double		wsum = 0.0;
	size_t		sum = 0;
	size_t		nlens = nb - ncal;

	if (ncal > 0)
	{
		cal_n = nring_total / nb;
		if (cal_n > 1000)
			cal_n = 1000;
		if (cal_n < MIN_RING_VERTICES)
			cal_n = MIN_RING_VERTICES;
		if (nlens == 0)
			cal_n = nring_total / ncal;
	}
	for (size_t i = 0; i < ncal; i++)
		g->shapes[i].nring = cal_n;
	rest = nring_total - cal_n * ncal;
	if (nlens == 0)
	{
		g->shapes[0].nring += rest;
		return;
	}
	for (size_t i = ncal; i < nb; i++)
	{
		body_shape *s = &g->shapes[i];

		wsum += s->a * s->b + s->b * s->c + s->c * s->a;
	}
	for (size_t i = ncal; i < nb; i++)
	{
		body_shape *s = &g->shapes[i];
		double		want = (double) rest * (s->a * s->b + s->b * s->c + s->c * s->a) / wsum;

		s->nring = (size_t) floor(want);
		if (s->nring < MIN_RING_VERTICES)
			s->nring = MIN_RING_VERTICES;
		sum += s->nring;
	}
	/* largest deficit first; ties to the lower index */
	while (sum != rest)
	{
		size_t		best = ncal;
		double		bestd = 0.0;
		bool		found = false;

		for (size_t i = ncal; i < nb; i++)
		{
			body_shape *s = &g->shapes[i];
			double		want = (double) rest * (s->a * s->b + s->b * s->c + s->c * s->a) / wsum;
			double		d = want - (double) s->nring;

			if (sum > rest && s->nring <= MIN_RING_VERTICES)
				continue;
			if (!found || (sum < rest ? d > bestd : d < bestd))
			{
				best = i;
				bestd = d;
				found = true;
			}
		}
		if (sum < rest)
		{
			g->shapes[best].nring++;
			sum++;
		}
		else
		{
			g->shapes[best].nring--;
			sum--;
		}
	}
}

static int
make_bodies(gen *g)
{
	mine	   *m = g->m;
	size_t		nb = (size_t) g->p.n_bodies;
	size_t		ncal = (size_t) g->p.n_degenerate_sets;
	size_t		nring_total = (size_t) (g->p.target_triangles / 2);
	size_t	   *order;
	double		area = 0.0,
				w,
				h;
	rng			lay = rng_stream(g->p.seed, STREAM_LAYOUT);
	size_t		vbase = 0,
				tbase = 0;

	g->topo_phase[0] = rng_range(&lay, 0.0, 2.0 * MINE_PI);
	g->topo_phase[1] = rng_range(&lay, 0.0, 2.0 * MINE_PI);
	g->topo_phase[2] = rng_range(&lay, 0.0, 2.0 * MINE_PI);
	g->campaign_az = rng_range(&lay, 0.0, 360.0);

	m->n_bodies = nb;
	if (nb == 0)
	{
		m->footprint_min[0] = g->p.origin_x - 50.0;
		m->footprint_min[1] = g->p.origin_y - 50.0;
		m->footprint_max[0] = g->p.origin_x + 850.0;
		m->footprint_max[1] = g->p.origin_y + 550.0;
		return 0;
	}
	g->shapes = calloc(nb, sizeof(body_shape));
	g->body_used = calloc(nb, sizeof(bool));
	m->bodies = calloc(nb, sizeof(mine_body));
	order = malloc(nb * sizeof(size_t));
	if (g->shapes == NULL || g->body_used == NULL || m->bodies == NULL || order == NULL)
	{
		free(order);
		return fail(g, "out of memory");
	}
	for (size_t i = 0; i < nb; i++)
	{
		shape_init(g, &g->shapes[i], i < ncal ? MINE_BODY_CALIBRATION : MINE_BODY_LENS, i);
		area += 4.0 * g->shapes[i].half[0] * g->shapes[i].half[1];
		order[i] = i;
	}
	allocate_triangles(g, nb, ncal, nring_total);

	/* footprint: bodies cover about half of it (they may also stack) */
	area /= 0.5;
	w = sqrt(area * 1.5);
	h = area / w;
	if (w < 800.0)
		w = 800.0;
	if (h < 500.0)
		h = 500.0;

	/* calibration bodies first (they reserve columns), then big to small */
	sort_by_size(order + ncal, nb - ncal, g->shapes);
	for (size_t oi = 0; oi < nb; oi++)
	{
		body_shape *s = &g->shapes[order[oi]];
		int			attempts = 0;

		for (;;)
		{
			bool		ok = true;

			if (attempts == 1000 || w < 2.0 * s->half[0] || h < 2.0 * s->half[1])
			{
				w *= 1.1;
				h *= 1.1;
				attempts = 0;
				continue;
			}
			attempts++;
			s->center[0] = g->p.origin_x + s->half[0] + rng_unit(&lay) * (w - 2.0 * s->half[0]);
			s->center[1] = g->p.origin_y + s->half[1] + rng_unit(&lay) * (h - 2.0 * s->half[1]);
			s->center[2] = g->p.body_z_bottom + s->half[2]
				+ rng_unit(&lay) * (g->p.body_z_top - g->p.body_z_bottom - 2.0 * s->half[2]);
			for (size_t oj = 0; oj < oi && ok; oj++)
				if (boxes_conflict(s, &g->shapes[order[oj]]))
					ok = false;
			if (ok)
				break;
		}
	}
	free(order);
	m->footprint_min[0] = g->p.origin_x - 50.0;
	m->footprint_min[1] = g->p.origin_y - 50.0;
	m->footprint_max[0] = g->p.origin_x + w + 50.0;
	m->footprint_max[1] = g->p.origin_y + h + 50.0;

	for (size_t i = 0; i < nb; i++)
	{
		m->n_body_vertices += g->shapes[i].nring + 2;
		m->n_triangles += 2 * g->shapes[i].nring;
	}
	m->body_xyz = malloc(3 * m->n_body_vertices * sizeof(double));
	m->body_tri = malloc(3 * m->n_triangles * sizeof(uint32_t));
	if (m->body_xyz == NULL || m->body_tri == NULL)
		return fail(g, "out of memory for %zu body vertices", m->n_body_vertices);

	for (size_t i = 0; i < nb; i++)
	{
		body_shape *s = &g->shapes[i];
		mine_body  *b = &m->bodies[i];
		double	   *xyz = m->body_xyz + 3 * vbase;

		b->id = (int64_t) i + 1;
		b->kind = s->kind;
		if (s->kind == MINE_BODY_CALIBRATION)
			snprintf(b->name, sizeof(b->name), "flat-%02zu", i + 1);
		else
			snprintf(b->name, sizeof(b->name), "lens-%02zu", i + 1 - ncal);
		b->first_vertex = vbase;
		b->nvertices = s->nring + 2;
		b->first_triangle = tbase;
		b->ntriangles = 2 * s->nring;
		memcpy(b->center, s->center, sizeof(b->center));
		if (!body_mesh(s, xyz, m->body_tri + 3 * tbase))
			return fail(g, "out of memory");
		for (int e = 0; e < 3; e++)
		{
			b->bbox_min[e] = xyz[e];
			b->bbox_max[e] = xyz[e];
		}
		for (size_t v = 1; v < b->nvertices; v++)
			for (int e = 0; e < 3; e++)
			{
				if (xyz[3 * v + e] < b->bbox_min[e])
					b->bbox_min[e] = xyz[3 * v + e];
				if (xyz[3 * v + e] > b->bbox_max[e])
					b->bbox_max[e] = xyz[3 * v + e];
			}
		/* the first ring's size, for the degenerate cases on the flat cap */
		s->cap_n = 0;
		for (size_t t = 0; t < b->ntriangles && m->body_tri[3 * (tbase + t)] == 0; t++)
			s->cap_n++;
		vbase += b->nvertices;
		tbase += b->ntriangles;
	}
	return 0;
}

/* ---------- holes ---------- */

static bool
hole_push(gen *g, double x, double y, double z)
{
	mine	   *m = g->m;
	double	   *v;

	if (m->n_hole_vertices == g->hole_xyz_cap)
	{
		size_t		cap = g->hole_xyz_cap ? 2 * g->hole_xyz_cap : 4096;
		double	   *nx = realloc(m->hole_xyz, 3 * cap * sizeof(double));

		if (nx == NULL)
			return false;
		m->hole_xyz = nx;
		g->hole_xyz_cap = cap;
	}
	v = m->hole_xyz + 3 * m->n_hole_vertices++;
	v[0] = x;
	v[1] = y;
	v[2] = z;
	return true;
}

static bool
hole_push_v(gen *g, const double p[3])
{
	return hole_push(g, p[0], p[1], p[2]);
}

static void
hole_begin(gen *g)
{
	g->cur_first = g->m->n_hole_vertices;
}

static void
hole_abandon(gen *g)
{
	g->m->n_hole_vertices = g->cur_first;
}

/* Stations every `step` metres or less from the last vertex to `to`, which is copied exactly. */
static bool
hole_leg(gen *g, const double to[3], double step)
{
	double		from[3];
	double		d = 0.0;
	double		n;

	memcpy(from, g->m->hole_xyz + 3 * (g->m->n_hole_vertices - 1), sizeof(from));
	for (int e = 0; e < 3; e++)
		d += (to[e] - from[e]) * (to[e] - from[e]);
	n = ceil(sqrt(d) / step);
	for (double k = 1.0; k < n; k += 1.0)
		if (!hole_push(g, from[0] + (to[0] - from[0]) * (k / n),
					   from[1] + (to[1] - from[1]) * (k / n),
					   from[2] + (to[2] - from[2]) * (k / n)))
			return false;
	return hole_push_v(g, to);
}

static bool
hole_end(gen *g, const char *name, int64_t fan, int64_t degenerate)
{
	mine	   *m = g->m;
	mine_hole  *h;

	if (m->n_holes == g->holes_cap)
	{
		size_t		cap = g->holes_cap ? 2 * g->holes_cap : 256;
		mine_hole  *nh = realloc(m->holes, cap * sizeof(mine_hole));

		if (nh == NULL)
			return false;
		m->holes = nh;
		g->holes_cap = cap;
	}
	h = &m->holes[m->n_holes++];
	memset(h, 0, sizeof(*h));
	h->id = (int64_t) m->n_holes;
	snprintf(h->name, sizeof(h->name), "%s", name);
	h->first_vertex = g->cur_first;
	h->nvertices = m->n_hole_vertices - g->cur_first;
	h->fan = fan;
	h->degenerate = degenerate;
	m->n_segments += h->nvertices - 1;
	return true;
}

/* Does the hole being built stay clear of every body but `skip`, segment by segment? */
static bool
hole_clear_of_bodies(const gen *g, size_t skip)
{
	const mine *m = g->m;

	for (size_t v = g->cur_first; v + 1 < m->n_hole_vertices; v++)
	{
		const double *p = m->hole_xyz + 3 * v,
				   *q = p + 3;

		for (size_t b = 0; b < m->n_bodies; b++)
		{
			const mine_body *body = &m->bodies[b];
			bool		overlap = true;

			if (b == skip)
				continue;
			for (int e = 0; e < 3 && overlap; e++)
				if (fmax(p[e], q[e]) < body->bbox_min[e] || fmin(p[e], q[e]) > body->bbox_max[e])
					overlap = false;
			if (overlap)
				return false;
		}
	}
	return true;
}

static const double *
body_vertex(const gen *g, size_t body, size_t v)
{
	return g->m->body_xyz + 3 * (g->m->bodies[body].first_vertex + v);
}

/* Index of the first vertex of `body` with the largest coordinate `axis`. */
static size_t
extreme_vertex(const gen *g, size_t body, int axis)
{
	size_t		best = 0;

	for (size_t v = 1; v < g->m->bodies[body].nvertices; v++)
		if (body_vertex(g, body, v)[axis] > body_vertex(g, body, best)[axis])
			best = v;
	return best;
}

static bool
add_degenerate(gen *g, mine_degenerate_kind kind, int64_t set, size_t body,
			   size_t hole_vertex, int64_t body_vertex_idx, int64_t body_triangle)
{
	mine	   *m = g->m;
	mine_degenerate *d = &m->degenerate[m->n_degenerate++];
	char		name[MINE_NAME_LEN];

	d->kind = kind;
	d->set = set;
	d->hole = m->n_holes;
	d->body = body;
	d->hole_vertex = hole_vertex;
	d->body_vertex = body_vertex_idx;
	d->body_triangle = body_triangle;
	d->expect_intersects = !(kind == MINE_DEG_VERTEX_TOUCH_MISS ||
							 kind == MINE_DEG_VERTEX_END_MISS ||
							 kind == MINE_DEG_COPLANAR_MISS ||
							 kind == MINE_DEG_FACE_END_MISS);
	snprintf(name, sizeof(name), "DEG-%lld-%s", (long long) set,
			 mine_degenerate_kind_name(kind));
	return hole_end(g, name, -1, (int64_t) (m->n_degenerate - 1));
}

/*
 * Vertex touch: down a slope of about 5 degrees from the north-east onto V
 * (the body's east-most vertex, or one ulp east of it), then away to the
 * south-east. Every vertex but the kink has x > V.x, so the hole lies in
 * x > V.x but for the kink; the y offsets keep its map view from folding back
 * on itself (GEOS's 2D ST_IsSimple would call that not simple).
 */
static bool
build_touch_hole(gen *g, const double v[3], bool miss, size_t *kink)
{
	double		k[3] = {miss ? nextafter(v[0], INFINITY) : v[0], v[1], v[2]};
	double		c[3],
				e[3];

	c[0] = v[0] + 0.07 * (g->p.surface_z - v[2]);
	c[1] = v[1] + 0.04 * (g->p.surface_z - v[2]);
	c[2] = topo(g, c[0], c[1]);
	e[0] = v[0] + 0.07 * 150.0;
	e[1] = v[1] - 0.04 * 150.0;
	e[2] = v[2] - 150.0;
	hole_begin(g);
	if (!hole_push_v(g, c) || !hole_leg(g, k, 30.0))
		return false;
	*kink = g->m->n_hole_vertices - 1 - g->cur_first;
	return hole_leg(g, e, 30.0);
}

/* Vertical hole from the topography down to (x, y, z_end) exactly. */
static bool
build_vertical_hole(gen *g, double x, double y, double z_end)
{
	double		e[3] = {x, y, z_end};

	hole_begin(g);
	return hole_push(g, x, y, topo(g, x, y)) && hole_leg(g, e, 30.0);
}

static int
make_degenerate_set(gen *g, int64_t set)
{
	mine	   *m = g->m;
	size_t		cal = (size_t) (set - 1);
	const mine_body *cb = &m->bodies[cal];
	size_t		cap_n = g->shapes[cal].cap_n;
	const uint32_t *ctri = m->body_tri + 3 * cb->first_triangle;
	size_t		touch_body = cal,
				end_body = cal;
	size_t		kink = 0;
	double		pole[3],
				z1,
				z1_up,
				xmin = INFINITY,
				xmax = -INFINITY;
	size_t		north = 1;
	double		y0;
	int64_t		qtri;

	/* lens for the vertex touch: the first whose hole stays clear of others */
	for (size_t b = (size_t) g->p.n_degenerate_sets; b < m->n_bodies; b++)
	{
		const double *v;
		bool		ok;

		if (g->body_used[b])
			continue;
		v = body_vertex(g, b, extreme_vertex(g, b, 0));
		if (!build_touch_hole(g, v, false, &kink))
			return fail(g, "out of memory");
		ok = hole_clear_of_bodies(g, b);
		hole_abandon(g);
		if (!ok)
			continue;
		if (!build_touch_hole(g, v, true, &kink))
			return fail(g, "out of memory");
		ok = hole_clear_of_bodies(g, b);
		hole_abandon(g);
		if (ok)
		{
			touch_body = b;
			g->body_used[b] = true;
			break;
		}
	}
	for (int miss = 0; miss < 2; miss++)
	{
		size_t		vi = extreme_vertex(g, touch_body, 0);

		if (!build_touch_hole(g, body_vertex(g, touch_body, vi), miss, &kink))
			return fail(g, "out of memory");
		if (!hole_clear_of_bodies(g, touch_body))
			return fail(g, "internal: degenerate hole %lld meets another body", (long long) set);
		if (!add_degenerate(g, miss ? MINE_DEG_VERTEX_TOUCH_MISS : MINE_DEG_VERTEX_TOUCH,
							set, touch_body, kink, (int64_t) vi, -1))
			return fail(g, "out of memory");
	}

	/* lens for the vertex end: vertical onto its top-most vertex */
	for (size_t b = (size_t) g->p.n_degenerate_sets; b < m->n_bodies; b++)
	{
		const double *p;
		bool		ok;

		if (g->body_used[b])
			continue;
		p = body_vertex(g, b, extreme_vertex(g, b, 2));
		if (!build_vertical_hole(g, p[0], p[1], p[2]))
			return fail(g, "out of memory");
		ok = hole_clear_of_bodies(g, b);
		hole_abandon(g);
		if (ok)
		{
			end_body = b;
			g->body_used[b] = true;
			break;
		}
	}
	for (int miss = 0; miss < 2; miss++)
	{
		size_t		vi = extreme_vertex(g, end_body, 2);
		const double *p = body_vertex(g, end_body, vi);

		if (!build_vertical_hole(g, p[0], p[1], miss ? nextafter(p[2], INFINITY) : p[2]))
			return fail(g, "out of memory");
		if (!hole_clear_of_bodies(g, end_body))
			return fail(g, "internal: degenerate hole %lld meets another body", (long long) set);
		if (!add_degenerate(g, miss ? MINE_DEG_VERTEX_END_MISS : MINE_DEG_VERTEX_END, set,
							end_body, m->n_hole_vertices - 1 - g->cur_first, (int64_t) vi, -1))
			return fail(g, "out of memory");
	}

	/* the calibration body's flat cap: pole = vertex 0, first ring = 1..cap_n */
	memcpy(pole, body_vertex(g, cal, 0), sizeof(pole));
	z1 = pole[2];
	z1_up = nextafter(z1, INFINITY);
	for (size_t v = 1; v <= cap_n; v++)
	{
		const double *p = body_vertex(g, cal, v);

		xmin = fmin(xmin, p[0]);
		xmax = fmax(xmax, p[0]);
		if (p[1] > body_vertex(g, cal, north)[1])
			north = v;
	}
	/*
	 * The horizontal line through the centroid of the cap triangle
	 * (pole, north, next): strictly inside it, never on the fan's edges.
	 */
	qtri = (int64_t) (north - 1);
	y0 = (body_vertex(g, cal, ctri[3 * qtri])[1] + body_vertex(g, cal, ctri[3 * qtri + 1])[1]
		  + body_vertex(g, cal, ctri[3 * qtri + 2])[1]) / 3.0;
	for (int miss = 0; miss < 2; miss++)
	{
		double		z = miss ? z1_up : z1;
		double		s1[3] = {xmin - 20.0, y0, z};
		double		s2[3] = {xmax + 20.0, y0, z};
		size_t		first_flat;

		hole_begin(g);
		if (!hole_push(g, xmin - 60.0, y0, topo(g, xmin - 60.0, y0)) || !hole_leg(g, s1, 30.0))
			return fail(g, "out of memory");
		first_flat = m->n_hole_vertices - 1 - g->cur_first;
		if (!hole_push_v(g, s2))
			return fail(g, "out of memory");
		if (!hole_clear_of_bodies(g, cal))
			return fail(g, "internal: degenerate hole %lld meets another body", (long long) set);
		if (!add_degenerate(g, miss ? MINE_DEG_COPLANAR_MISS : MINE_DEG_COPLANAR, set, cal,
							first_flat, -1, qtri))
			return fail(g, "out of memory");
	}

	/* a vertical hole ending on the centroid of a cap triangle */
	{
		size_t		t = cap_n / 3;
		const double *a = body_vertex(g, cal, ctri[3 * t]);
		const double *b = body_vertex(g, cal, ctri[3 * t + 1]);
		const double *c = body_vertex(g, cal, ctri[3 * t + 2]);
		double		ex = (a[0] + b[0] + c[0]) / 3.0;
		double		ey = (a[1] + b[1] + c[1]) / 3.0;

		for (int miss = 0; miss < 2; miss++)
		{
			if (!build_vertical_hole(g, ex, ey, miss ? z1_up : z1))
				return fail(g, "out of memory");
			if (!hole_clear_of_bodies(g, cal))
				return fail(g, "internal: degenerate hole %lld meets another body", (long long) set);
			if (!add_degenerate(g, miss ? MINE_DEG_FACE_END_MISS : MINE_DEG_FACE_END, set, cal,
								m->n_hole_vertices - 1 - g->cur_first, -1, (int64_t) t))
				return fail(g, "out of memory");
		}
	}

	/* vertically through the pole and out of the bottom */
	{
		double		bottom[3] = {pole[0], pole[1], cb->bbox_min[2] - 30.0};
		size_t		pv;

		if (!build_vertical_hole(g, pole[0], pole[1], pole[2]))
			return fail(g, "out of memory");
		pv = m->n_hole_vertices - 1 - g->cur_first;
		if (!hole_leg(g, bottom, 30.0))
			return fail(g, "out of memory");
		if (!hole_clear_of_bodies(g, cal))
			return fail(g, "internal: degenerate hole %lld meets another body", (long long) set);
		if (!add_degenerate(g, MINE_DEG_VERTEX_PIERCE, set, cal, pv, 0, -1))
			return fail(g, "out of memory");
	}
	return 0;
}

typedef struct hole_plan
{
	double		collar[3];
	double		dip;			/* degrees, negative down */
	double		az;				/* degrees clockwise from north */
	double		length;
	double		interval;
	double		lift;			/* degrees per metre, towards shallower */
	double		walk;			/* degrees per metre */
} hole_plan;

/*
 * Survey stations every `interval` metres and at the end of hole; dip and
 * azimuth drift between stations and each segment follows their average
 * (balanced tangential method). Dip stays within [-90, -35] degrees, so every
 * segment goes down. Emits at most max_seg segments; returns the number.
 */
static int64_t
build_grid_hole(gen *g, const hole_plan *h, rng *r, int64_t max_seg)
{
	int64_t		nfull = (int64_t) floor(h->length / h->interval);
	int64_t		nseg = h->length - (double) nfull * h->interval > 0.05 ? nfull + 1 : nfull;
	double		pos[3];
	double		dip = h->dip,
				az = h->az;

	if (nseg > max_seg)
		nseg = max_seg;
	memcpy(pos, h->collar, sizeof(pos));
	hole_begin(g);
	if (!hole_push_v(g, pos))
		return -1;
	for (int64_t k = 0; k < nseg; k++)
	{
		double		step = k < nfull ? h->interval : h->length - (double) nfull * h->interval;
		double		dip1 = dip + h->lift * step + rng_range(r, -0.1, 0.1);
		double		az1 = az + h->walk * step + rng_range(r, -0.1, 0.1);
		double		dm,
					am,
					cd;

		if (dip1 < -90.0)
			dip1 = -90.0;
		if (dip1 > -35.0)
			dip1 = -35.0;
		dm = 0.5 * (dip + dip1) * DEG;
		am = 0.5 * (az + az1) * DEG;
		cd = mine_cos(dm);
		pos[0] += step * cd * mine_sin(am);
		pos[1] += step * cd * mine_cos(am);
		pos[2] += step * mine_sin(dm);
		if (!hole_push_v(g, pos))
			return -1;
		dip = dip1;
		az = az1;
	}
	return nseg;
}

/*
 * Drill through the target: of the body aimed at and the bodies whose
 * map-view box the hole's initial line crosses at the body's mid-depth, end
 * below the deepest, as a geologist sizes a hole to pass through its ore. Without a target
 * the length stays the random one. Either way it is kept within 100-1200 m.
 */
static double
targeted_length(const gen *g, const hole_plan *h, int64_t aimed, double random_length,
				double overshoot)
{
	const mine *m = g->m;
	double		sd = -mine_sin(h->dip * DEG);	/* > 0: depth per metre */
	double		cd = mine_cos(h->dip * DEG);
	double		ux = cd * mine_sin(h->az * DEG),
				uy = cd * mine_cos(h->az * DEG);
	double		target = INFINITY;
	double		len;

	for (size_t b = 0; b < m->n_bodies; b++)
	{
		const mine_body *body = &m->bodies[b];
		double		t = (h->collar[2] - 0.5 * (body->bbox_min[2] + body->bbox_max[2])) / sd;
		double		x = h->collar[0] + t * ux,
					y = h->collar[1] + t * uy;

		if (((int64_t) b == aimed || (x >= body->bbox_min[0] && x <= body->bbox_max[0] &&
										y >= body->bbox_min[1] && y <= body->bbox_max[1]))
			&& body->bbox_min[2] < target)
			target = body->bbox_min[2];
	}
	if (target == INFINITY)
		return random_length;
	len = floor((h->collar[2] - target + overshoot) / sd * 10.0 + 0.5) / 10.0;
	return len < 100.0 ? 100.0 : (len > 1200.0 ? 1200.0 : len);
}

/* Collar up-dip of pierce point p, so that a straight hole of this dip and azimuth passes through p. */
static void
aim_collar(const gen *g, const double p[3], double dip, double az, double collar[3])
{
	double		sd = -mine_sin(dip * DEG),
				cd = mine_cos(dip * DEG);
	double		run = (topo(g, p[0], p[1]) - p[2]) * cd / sd;

	collar[0] = p[0] - run * mine_sin(az * DEG);
	collar[1] = p[1] - run * mine_cos(az * DEG);
	collar[2] = topo(g, collar[0], collar[1]);
}

/* Bodies whose map-view box holds (x, y); the k-th of them in *pick when k >= 0. */
static size_t
bodies_under(const gen *g, double x, double y, int64_t k, size_t *pick)
{
	size_t		n = 0;

	for (size_t b = 0; b < g->m->n_bodies; b++)
	{
		const mine_body *body = &g->m->bodies[b];

		if (x >= body->bbox_min[0] && x <= body->bbox_max[0] &&
			y >= body->bbox_min[1] && y <= body->bbox_max[1])
		{
			if ((int64_t) n == k)
				*pick = b;
			n++;
		}
	}
	return n;
}

/*
 * A point surely inside the body near (x, y) in map view: 70 % of the way
 * from the centre to the vertex nearest (x, y), of a sample of at most 512
 * vertices; the body is star-shaped from its centre, so the point is inside.
 */
static void
pierce_point(const gen *g, size_t body, double x, double y, double p[3])
{
	const mine_body *b = &g->m->bodies[body];
	size_t		step = b->nvertices / 512 + 1;
	size_t		best = 0;
	double		bestd = INFINITY;

	for (size_t v = 0; v < b->nvertices; v += step)
	{
		const double *q = body_vertex(g, body, v);
		double		d = (q[0] - x) * (q[0] - x) + (q[1] - y) * (q[1] - y);

		if (d < bestd)
		{
			bestd = d;
			best = v;
		}
	}
	for (int e = 0; e < 3; e++)
		p[e] = b->center[e] + 0.7 * (body_vertex(g, body, best)[e] - b->center[e]);
}

/*
 * The drilling grid is a grid of pierce points, as in practice: a jittered
 * node over a body is drilled so that the hole passes through that body near
 * the node (its collar moved up-dip), a node over barren ground is drilled as
 * a step-out hole from the node itself, and only one such node in two.
 */
static int
make_grid_holes(gen *g, int64_t want_holes, int64_t want_segments)
{
	mine	   *m = g->m;
	bool		by_segments = want_segments >= 0;
	double		est = by_segments ? (double) want_segments / MEAN_SEGMENTS_PER_HOLE
		: (double) want_holes;
	double		x0 = m->footprint_min[0],
				y0 = m->footprint_min[1];
	double		gw = m->footprint_max[0] - x0,
				gh = m->footprint_max[1] - y0;
	double		covered = 0.0;
	int64_t		nsites,
				cols,
				rows;
	double		dx,
				dy;
	int64_t		holes = 0,
				segs = 0,
				fans = 0;
	int64_t		last_fan_first = -1;
	size_t		unused;

	if (by_segments ? want_segments == 0 : want_holes == 0)
		return 0;
	/* share of the footprint over some body, to size the grid for the skipped nodes */
	for (int i = 0; i < 64; i++)
		for (int j = 0; j < 64; j++)
			if (bodies_under(g, x0 + (i + 0.5) * gw / 64.0, y0 + (j + 0.5) * gh / 64.0, -1,
							 &unused) > 0)
				covered += 1.0 / 4096.0;
	nsites = (int64_t) ceil(est / (MEAN_HOLES_PER_SITE * (covered + 0.5 * (1.0 - covered))));
	if (nsites < 1)
		nsites = 1;
	cols = (int64_t) floor(sqrt((double) nsites * gw / gh) + 0.5);
	if (cols < 1)
		cols = 1;
	rows = (nsites + cols - 1) / cols;
	dx = gw / (double) cols;
	dy = gh / (double) rows;

	for (int64_t site = 0;; site++)
	{
		int64_t		cell = site % (rows * cols);
		int64_t		row = cell / cols;
		int64_t		col = row % 2 ? cols - 1 - cell % cols : cell % cols;	/* serpentine */
		rng			sr = rng_stream(g->p.seed, STREAM_SITE + (uint64_t) site);
		double		node[3],
					collar[3];
		double		u_pick,
					u_skip;
		size_t		ntarget,
					target = 0;
		int64_t		k = 1;
		double		fan_az;
		int64_t		fan = -1;

		node[0] = x0 + ((double) col + 0.5 + rng_range(&sr, -0.3, 0.3)) * dx;
		node[1] = y0 + ((double) row + 0.5 + rng_range(&sr, -0.3, 0.3)) * dy;
		u_pick = rng_unit(&sr);
		u_skip = rng_unit(&sr);
		if (rng_unit(&sr) < 0.1)
			k = rng_int(&sr, 3, 5);
		fan_az = g->campaign_az + rng_range(&sr, -15.0, 15.0)
			+ (rng_unit(&sr) < 0.3 ? 180.0 : 0.0);

		ntarget = bodies_under(g, node[0], node[1], -1, &unused);
		if (ntarget == 0 && u_skip < 0.5)
			continue;
		if (ntarget > 0)
		{
			bodies_under(g, node[0], node[1], (int64_t) floor(u_pick * (double) ntarget), &target);
			pierce_point(g, target, node[0], node[1], node);
		}
		if (!by_segments && k > want_holes - holes)
			k = want_holes - holes;
		if (k >= 2)
		{
			fan = fans++;
			last_fan_first = (int64_t) m->n_holes;
			/* the fan's middle hole (-70 degrees) aims at the node */
			if (ntarget > 0)
				aim_collar(g, node, -70.0, fan_az, collar);
		}
		if (fan < 0 || ntarget == 0)
		{
			collar[0] = node[0];
			collar[1] = node[1];
			collar[2] = topo(g, node[0], node[1]);
		}

		for (int64_t i = 0; i < k; i++)
		{
			rng			hr = rng_stream(g->p.seed, STREAM_HOLE + (uint64_t) holes);
			hole_plan	h;
			int64_t		nseg;
			char		name[MINE_NAME_LEN];

			if (fan >= 0)
			{
				/* a fan in one vertical plane, from -50 down to -90 degrees */
				h.dip = -50.0 - 40.0 * (double) i / (double) (k - 1) + rng_range(&hr, -2.0, 2.0);
				if (h.dip < -90.0)
					h.dip = -90.0;
				if (h.dip > -50.0)
					h.dip = -50.0;
				h.az = fan_az;
			}
			else if (rng_unit(&hr) < 0.2)
			{
				h.dip = rng_range(&hr, -90.0, -88.0);
				h.az = rng_range(&hr, 0.0, 360.0);
			}
			else
			{
				h.dip = rng_range(&hr, -80.0, -50.0);
				h.az = g->campaign_az + rng_range(&hr, -15.0, 15.0)
					+ (rng_unit(&hr) < 0.15 ? 180.0 : 0.0);
			}
			if (fan < 0 && ntarget > 0)
				aim_collar(g, node, h.dip, h.az, h.collar);
			else
				memcpy(h.collar, collar, sizeof(collar));
			h.length = floor(rng_range(&hr, 100.0, 1200.0) * 10.0 + 0.5) / 10.0;
			h.interval = (double) rng_int(&hr, 10, 60);
			h.lift = rng_range(&hr, 0.0, 0.012);
			h.walk = rng_range(&hr, -0.015, 0.015);
			h.length = targeted_length(g, &h, ntarget > 0 ? (int64_t) target : -1, h.length,
									   rng_range(&hr, 10.0, 60.0));

			nseg = build_grid_hole(g, &h, &hr, by_segments ? want_segments - segs : INT64_MAX);
			if (nseg < 0)
				return fail(g, "out of memory");
			snprintf(name, sizeof(name), "DDH-%05lld", (long long) holes + 1);
			if (!hole_end(g, name, fan, -1))
				return fail(g, "out of memory");
			holes++;
			segs += nseg;
			if (by_segments && segs == want_segments)
			{
				/* a fan cut down to one hole is no fan */
				if (fan >= 0 && i == 0)
					m->holes[last_fan_first].fan = -1;
				return 0;
			}
		}
		if (!by_segments && holes == want_holes)
			return 0;
	}
}

/* ---------- entry points ---------- */

void
mine_free(mine *m)
{
	if (m == NULL)
		return;
	free(m->hole_xyz);
	free(m->holes);
	free(m->body_xyz);
	free(m->body_tri);
	free(m->bodies);
	free(m->degenerate);
	free(m);
}

int
mine_generate(const mine_params *p, mine **out, char *errbuf, size_t errlen)
{
	gen			g;
	int			rc = 0;
	int64_t		ndeg;

	memset(&g, 0, sizeof(g));
	g.p = *p;
	g.errbuf = errbuf;
	g.errlen = errlen;
	*out = NULL;
	if (errbuf != NULL && errlen > 0)
		errbuf[0] = '\0';

	g.p.target_triangles &= ~(int64_t) 1;
	ndeg = g.p.n_degenerate_sets * MINE_DEG_PER_SET;
	if (g.p.n_degenerate_sets < 0 || g.p.n_bodies < 0 || g.p.n_holes < 0 ||
		g.p.target_segments < 0 || g.p.target_triangles < 0)
		return fail(&g, "counts must not be negative");
	if (g.p.n_bodies < g.p.n_degenerate_sets)
		return fail(&g, "%lld degenerate sets need at least as many bodies, not %lld",
					(long long) g.p.n_degenerate_sets, (long long) g.p.n_bodies);
	if (g.p.n_bodies > 1000000)
		return fail(&g, "too many bodies: %lld", (long long) g.p.n_bodies);
	if (g.p.target_segments == 0 && g.p.n_holes < ndeg)
		return fail(&g, "%lld degenerate sets need at least %lld holes, not %lld",
					(long long) g.p.n_degenerate_sets, (long long) ndeg,
					(long long) g.p.n_holes);
	if (g.p.target_triangles < 2 * MIN_RING_VERTICES * g.p.n_bodies)
		return fail(&g, "%lld bodies need at least %lld triangles, not %lld",
					(long long) g.p.n_bodies,
					(long long) (2 * MIN_RING_VERTICES * g.p.n_bodies),
					(long long) g.p.target_triangles);
	if (g.p.n_bodies > 0 && g.p.target_triangles / 2 / g.p.n_bodies > (int64_t) UINT32_MAX / 2)
		return fail(&g, "too many triangles per body");
	if (!(g.p.body_z_top - g.p.body_z_bottom >= 100.0) ||
		!(g.p.surface_z > g.p.body_z_top))
		return fail(&g, "need surface_z > body_z_top >= body_z_bottom + 100");
	if (!isfinite(g.p.origin_x) || !isfinite(g.p.origin_y) || !isfinite(g.p.surface_z) ||
		!isfinite(g.p.body_z_bottom))
		return fail(&g, "coordinates must be finite");

	g.m = calloc(1, sizeof(mine));
	if (g.m == NULL)
		return fail(&g, "out of memory");
	g.m->params = g.p;
	if (ndeg > 0)
	{
		g.m->degenerate = calloc((size_t) ndeg, sizeof(mine_degenerate));
		if (g.m->degenerate == NULL)
			rc = fail(&g, "out of memory");
	}
	if (rc == 0)
		rc = make_bodies(&g);
	for (int64_t set = 1; rc == 0 && set <= g.p.n_degenerate_sets; set++)
		rc = make_degenerate_set(&g, set);
	if (rc == 0)
	{
		if (g.p.target_segments > 0)
		{
			int64_t		left = g.p.target_segments - (int64_t) g.m->n_segments;

			if (left < 0)
				rc = fail(&g, "the degenerate holes alone have %zu segments, more than %lld",
						  g.m->n_segments, (long long) g.p.target_segments);
			else
				rc = make_grid_holes(&g, 0, left);
		}
		else
			rc = make_grid_holes(&g, g.p.n_holes - ndeg, -1);
	}
	free(g.shapes);
	free(g.body_used);
	if (rc != 0)
	{
		mine_free(g.m);
		return rc;
	}
	*out = g.m;
	return 0;
}
