/*
 * test_volume.c — exact volumes and outward orientation.
 *
 * The reference is independent of the engine's method: closed forms of the
 * solids (box dx dy dz, tetrahedron |det| / 6, prism base area x height)
 * and plain determinant sums, both in GMP rationals; the engine's double
 * must be the rational rounded to nearest (ties to even), which is checked
 * against both neighbouring doubles in GMP. Solids at the origin, at UTM
 * offsets (500000, 7000000), large and thin; triangle soups over the whole
 * exponent range (subnormals included) for the accumulator alone; cubes
 * with cavities, islands and inverted shells for the orientation.
 */
#include <gmp.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "geom_prepared.h"
#include "outward.h"
#include "volume.h"
#include "volume_sum.h"

static int failures;
static uint64_t rng = 0x243f6a8885a308d3ull;

static uint64_t
next_u64(void)
{
	uint64_t	z = (rng += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static double
unit(void)
{
	return (double) (next_u64() >> 11) / 9007199254740992.0;
}

#define CHECK(cond, ...) do { if (!(cond)) { failures++; fprintf(stderr, "FAIL %s:%d: ", __FILE__, __LINE__); fprintf(stderr, __VA_ARGS__); fputc('\n', stderr); } } while (0)

/* Is d the double nearest to v (ties to even)? */
static int
is_rounded(const mpq_t v, double d)
{
	mpq_t		q,
				e0,
				e1;
	double		nb[2] = {nextafter(d, -INFINITY), nextafter(d, INFINITY)};
	int			ok = 1;

	mpq_inits(q, e0, e1, NULL);
	mpq_set_d(q, d);
	mpq_sub(e0, v, q);
	mpq_abs(e0, e0);
	for (int k = 0; k < 2 && ok; k++)
	{
		int			c;

		if (isinf(nb[k]))
			continue;
		mpq_set_d(q, nb[k]);
		mpq_sub(e1, v, q);
		mpq_abs(e1, e1);
		c = mpq_cmp(e0, e1);
		if (c > 0)
			ok = 0;
		else if (c == 0)
		{
			/* a tie: d must have the even mantissa */
			uint64_t	u;

			memcpy(&u, &d, 8);
			ok = (u & 1) == 0;
		}
	}
	mpq_clears(q, e0, e1, NULL);
	return ok;
}

/* ---- surfaces as shapes of TRIANGLE faces ---- */

static void
add_tri(exg_shape *s, const double *a, const double *b, const double *c)
{
	exg_error	err;
	const double *v[4] = {a, b, c, a};

	exg_shape_begin_comp(s, EXG_COMP_TRIANGLE, true, &err);
	exg_shape_begin_ring(s, &err);
	for (int k = 0; k < 4; k++)
		exg_shape_add_vertex(s, v[k][0], v[k][1], v[k][2], &err);
}

/* The 12 outward triangles of the box lo..hi (inward when inward). */
static void
add_box(exg_shape *s, const double *lo, const double *hi, int inward)
{
	static const int quads[6][4] = {
		{0, 2, 3, 1}, {4, 5, 7, 6}, {0, 1, 5, 4}, {2, 6, 7, 3}, {0, 4, 6, 2}, {1, 3, 7, 5}
	};
	double		c[8][3];

	for (int i = 0; i < 8; i++)
	{
		c[i][0] = (i & 1) ? hi[0] : lo[0];
		c[i][1] = (i & 2) ? hi[1] : lo[1];
		c[i][2] = (i & 4) ? hi[2] : lo[2];
	}
	for (int f = 0; f < 6; f++)
	{
		const int  *q = quads[f];

		if (!inward)
		{
			add_tri(s, c[q[0]], c[q[1]], c[q[2]]);
			add_tri(s, c[q[0]], c[q[2]], c[q[3]]);
		}
		else
		{
			add_tri(s, c[q[0]], c[q[2]], c[q[1]]);
			add_tri(s, c[q[0]], c[q[3]], c[q[2]]);
		}
	}
}

/* Reverse face f (a TRIANGLE component) in place. */
static void
flip_face(exg_shape *s, size_t f)
{
	double	   *v = &s->xyz[3 * s->ring_start[s->comps[f].first_ring]];
	double		t[3];

	memcpy(t, v + 3, sizeof(t));
	memcpy(v + 3, v + 6, sizeof(t));
	memcpy(v + 6, t, sizeof(t));
}

static exg_status
volume_of(exg_shape *s, double *vol, exg_error *err)
{
	exg_prepared g;
	exg_status	st;

	exg_prepared_init(&g, s, EXG_NONPLANAR_ERROR);
	st = exg_solid_volume(&g, vol, err);
	exg_prepared_free(&g);
	return st;
}

/* ---- closed forms ---- */

static void
q_box(mpq_t v, const double *lo, const double *hi)
{
	mpq_t		a,
				b;

	mpq_inits(a, b, NULL);
	mpq_set_ui(v, 1, 1);
	for (int k = 0; k < 3; k++)
	{
		mpq_set_d(a, hi[k]);
		mpq_set_d(b, lo[k]);
		mpq_sub(a, a, b);
		mpq_mul(v, v, a);
	}
	mpq_clears(a, b, NULL);
}

static void
test_boxes(void)
{
	const double offsets[][3] = {{0, 0, 0}, {500000, 7000000, -400}, {500000.123, 7000000.7, 1234.5}};
	int			n = 0;

	for (int o = 0; o < 3; o++)
		for (int i = 0; i < 300; i++)
		{
			double		lo[3],
						hi[3],
						vol;
			exg_shape	s;
			exg_error	err = {0};
			mpq_t		v;
			/* sizes: ordinary, large, thin (a sliver of one ulp at UTM scale) */
			double		size = i % 3 == 0 ? 1000 * unit() : i % 3 == 1 ? 1e5 * unit() : 1e-9 * unit();

			for (int k = 0; k < 3; k++)
			{
				lo[k] = offsets[o][k] + 100 * unit();
				hi[k] = k == 2 && i % 5 == 0 ? nextafter(lo[k], INFINITY) : lo[k] + size + unit();
			}
			exg_shape_init(&s);
			add_box(&s, lo, hi, 0);
			mpq_init(v);
			q_box(v, lo, hi);
			CHECK(volume_of(&s, &vol, &err) == EXG_OK, "box volume: %s", err.message);
			CHECK(is_rounded(v, vol), "box %d/%d: %.17g is not the rounded %.17g", o, i, vol, mpq_get_d(v));
			mpq_clear(v);
			exg_shape_free(&s);
			n++;
		}
	printf("boxes: %d checked against dx*dy*dz\n", n);
}

/* |det(b - a, c - a, d - a)| / 6 in GMP, and its sign. */
static int
q_tetra(mpq_t v, const double *p[4])
{
	mpq_t		x[4][3],
				t,
				u;
	int			sg;

	mpq_inits(t, u, NULL);
	for (int i = 0; i < 4; i++)
		for (int k = 0; k < 3; k++)
		{
			mpq_init(x[i][k]);
			mpq_set_d(x[i][k], p[i][k]);
			if (i > 0)
				mpq_sub(x[i][k], x[i][k], x[0][k]);
		}
	mpq_set_ui(v, 0, 1);
	for (int k = 0; k < 3; k++)
	{
		int			k1 = (k + 1) % 3,
					k2 = (k + 2) % 3;

		mpq_mul(t, x[2][k1], x[3][k2]);
		mpq_mul(u, x[2][k2], x[3][k1]);
		mpq_sub(t, t, u);
		mpq_mul(t, t, x[1][k]);
		mpq_add(v, v, t);
	}
	sg = mpq_sgn(v);
	mpq_abs(v, v);
	mpq_set_ui(t, 6, 1);
	mpq_div(v, v, t);
	for (int i = 0; i < 4; i++)
		for (int k = 0; k < 3; k++)
			mpq_clear(x[i][k]);
	mpq_clears(t, u, NULL);
	return sg;
}

static void
test_tetrahedra(void)
{
	int			n = 0;

	for (int i = 0; i < 2000; i++)
	{
		double		c[4][3],
					vol;
		const double *p[4] = {c[0], c[1], c[2], c[3]};
		double		off[3] = {i % 2 ? 500000 : 0, i % 2 ? 7000000 : 0, i % 2 ? -350 : 0};
		exg_shape	s;
		exg_error	err = {0};
		mpq_t		v;
		int			sg;

		for (int j = 0; j < 4; j++)
			for (int k = 0; k < 3; k++)
				c[j][k] = off[k] + (i % 7 == 0 ? 1e-6 : 100) * (unit() - 0.5);
		mpq_init(v);
		sg = q_tetra(v, p);
		if (sg == 0)
		{
			mpq_clear(v);
			continue;
		}
		if (sg < 0)
		{
			/* make abcd positively oriented: swap c and d */
			const double *t = p[2];

			p[2] = p[3];
			p[3] = t;
		}
		/* outward faces of a positive tetrahedron abcd */
		exg_shape_init(&s);
		add_tri(&s, p[1], p[2], p[3]);
		add_tri(&s, p[0], p[3], p[2]);
		add_tri(&s, p[0], p[1], p[3]);
		add_tri(&s, p[0], p[2], p[1]);
		CHECK(volume_of(&s, &vol, &err) == EXG_OK, "tetra volume: %s", err.message);
		CHECK(is_rounded(v, vol), "tetra %d: %.17g is not the rounded %.17g", i, vol, mpq_get_d(v));
		mpq_clear(v);
		exg_shape_free(&s);
		n++;
	}
	printf("tetrahedra: %d checked against |det|/6\n", n);
}

/* A vertical prism over the triangle (x, y) at UTM offsets, between z0 and z1. */
static void
test_prisms(void)
{
	int			n = 0;

	for (int i = 0; i < 1000; i++)
	{
		double		b[3][2],
					z0 = -500 + 100 * unit(),
					z1 = z0 + (i % 4 == 0 ? 1e-7 : 200) * unit() + 1e-9,
					lo[3][3],
					hi[3][3],
					vol;
		exg_shape	s;
		exg_error	err = {0};
		mpq_t		v,
					t,
					u,
					x[3][2];

		for (int j = 0; j < 3; j++)
		{
			b[j][0] = 500000 + 300 * unit();
			b[j][1] = 7000000 + 300 * unit();
		}
		/* area x height: ((b1 - b0) x (b2 - b0)) / 2 * (z1 - z0), in GMP */
		mpq_inits(v, t, u, NULL);
		for (int j = 0; j < 3; j++)
			for (int k = 0; k < 2; k++)
			{
				mpq_init(x[j][k]);
				mpq_set_d(x[j][k], b[j][k]);
			}
		for (int j = 1; j < 3; j++)
			for (int k = 0; k < 2; k++)
				mpq_sub(x[j][k], x[j][k], x[0][k]);
		mpq_mul(t, x[1][0], x[2][1]);
		mpq_mul(u, x[1][1], x[2][0]);
		mpq_sub(v, t, u);
		if (mpq_sgn(v) == 0)
			goto next;
		if (mpq_sgn(v) < 0)
		{
			/* counter-clockwise base */
			double		tmp[2] = {b[1][0], b[1][1]};

			b[1][0] = b[2][0];
			b[1][1] = b[2][1];
			b[2][0] = tmp[0];
			b[2][1] = tmp[1];
			mpq_neg(v, v);
		}
		mpq_set_d(t, z1);
		mpq_set_d(u, z0);
		mpq_sub(t, t, u);
		mpq_mul(v, v, t);
		mpq_set_ui(t, 2, 1);
		mpq_div(v, v, t);
		for (int j = 0; j < 3; j++)
		{
			lo[j][0] = hi[j][0] = b[j][0];
			lo[j][1] = hi[j][1] = b[j][1];
			lo[j][2] = z0;
			hi[j][2] = z1;
		}
		exg_shape_init(&s);
		add_tri(&s, hi[0], hi[1], hi[2]);	/* top: counter-clockwise from above */
		add_tri(&s, lo[0], lo[2], lo[1]);	/* bottom */
		for (int j = 0; j < 3; j++)
		{
			int			k = (j + 1) % 3;

			add_tri(&s, lo[j], lo[k], hi[k]);
			add_tri(&s, lo[j], hi[k], hi[j]);
		}
		CHECK(volume_of(&s, &vol, &err) == EXG_OK, "prism volume: %s", err.message);
		CHECK(is_rounded(v, vol), "prism %d: %.17g is not the rounded %.17g", i, vol, mpq_get_d(v));
		exg_shape_free(&s);
		n++;
next:
		for (int j = 0; j < 3; j++)
			for (int k = 0; k < 2; k++)
				mpq_clear(x[j][k]);
		mpq_clears(v, t, u, NULL);
	}
	printf("prisms at UTM offsets: %d checked against area x height\n", n);
}

/* A double with a random exponent in [lo, hi] (subnormals when lo < -1022). */
static double
wild(int lo, int hi)
{
	int			e = lo + (int) (next_u64() % (uint64_t) (hi - lo + 1));
	double		x = ldexp(1 + unit(), e);

	if (next_u64() & 1)
		x = -x;
	if (next_u64() % 16 == 0)
		x = 0;
	return x;
}

/* The accumulator alone: sums of determinants against GMP, whole exponent range. */
static void
test_soups(void)
{
	const int	ranges[][2] = {{-5, 5}, {-1074, -1000}, {-400, 300}, {300, 340}, {-1074, 340}};
	int			n = 0;

	for (int r = 0; r < 5; r++)
		for (int i = 0; i < 200; i++)
		{
			exg_volume_sum sum;
			mpq_t		ref,
						a[9],
						t;
			double		d;
			exg_error	err = {0};
			int			ntri = 1 + (int) (next_u64() % 20);

			exg_volume_sum_init(&sum);
			mpq_inits(ref, t, NULL);
			for (int k = 0; k < 9; k++)
				mpq_init(a[k]);
			for (int j = 0; j < ntri; j++)
			{
				double		p[9];

				for (int k = 0; k < 9; k++)
				{
					p[k] = wild(ranges[r][0], ranges[r][1]);
					mpq_set_d(a[k], p[k]);
				}
				exg_volume_sum_add(&sum, p, p + 3, p + 6, 1);
				/* a . (b x c) */
				for (int k = 0; k < 3; k++)
				{
					mpq_mul(t, a[3 + (k + 1) % 3], a[6 + (k + 2) % 3]);
					mpq_mul(t, t, a[k]);
					mpq_add(ref, ref, t);
					mpq_mul(t, a[3 + (k + 2) % 3], a[6 + (k + 1) % 3]);
					mpq_mul(t, t, a[k]);
					mpq_sub(ref, ref, t);
				}
			}
			mpq_set_ui(t, 6, 1);
			mpq_div(ref, ref, t);
			CHECK(exg_volume_sum_round(&sum, &d, &err) == EXG_OK, "soup: %s", err.message);
			CHECK(is_rounded(ref, d), "soup range %d case %d: %.17g vs %.17g", r, i, d, mpq_get_d(ref));
			for (int k = 0; k < 9; k++)
				mpq_clear(a[k]);
			mpq_clears(ref, t, NULL);
			n++;
		}
	printf("triangle soups over the exponent range: %d sums checked\n", n);
}

/* Orientation: nested shells, inverted shells, random face flips. */
static void
test_outward(void)
{
	/* outer box, a cavity in it, an island in the cavity, a separate box */
	const double boxes[4][6] = {
		{500000, 7000000, -500, 500100, 7000100, -400},
		{500010, 7000010, -490, 500090, 7000090, -410},
		{500020, 7000020, -480, 500030, 7000030, -470},
		{500200, 7000000, -500, 500201, 7000001, -499},
	};
	mpq_t		expect,
				v;

	mpq_inits(expect, v, NULL);
	for (int b = 0; b < 4; b++)
	{
		q_box(v, boxes[b], boxes[b] + 3);
		if (b == 1)
			mpq_sub(expect, expect, v);
		else
			mpq_add(expect, expect, v);
	}
	for (int trial = 0; trial < 64; trial++)
	{
		exg_shape	s,
					copy;
		exg_prepared g;
		const exg_view *view;
		exg_outward_report rep;
		exg_error	err = {0};
		uint8_t    *flip;
		double		vol;
		int			wrong_shell = 0;

		exg_shape_init(&s);
		/* shells as a valid solid would have them, each inverted by trial's bits */
		for (int b = 0; b < 4; b++)
		{
			int			inward = (b == 1) ^ ((trial >> b) & 1);

			wrong_shell |= (trial >> b) & 1;
			add_box(&s, boxes[b], boxes[b] + 3, inward);
		}
		/* the valid one has a volume; an inverted shell is an error */
		exg_shape_init(&copy);
		for (size_t c = 0; c < s.ncomps; c++)
		{
			const double *p = &s.xyz[3 * s.ring_start[s.comps[c].first_ring]];

			add_tri(&copy, p, p + 3, p + 6);
		}
		{
			exg_status	st = volume_of(&copy, &vol, &err);

			if (!wrong_shell)
				CHECK(st == EXG_OK && is_rounded(expect, vol), "nested shells: %s %.17g", err.message, vol);
			else
				CHECK(st == EXG_ERR_NOT_SOLID, "trial %d: an inverted shell was accepted (%.17g)", trial, vol);
		}
		exg_shape_free(&copy);
		/* scramble faces at random, then orient: the volume must come back */
		if (trial & 16)
			for (size_t c = 0; c < s.ncomps; c++)
				if (next_u64() & 1)
					flip_face(&s, c);
		exg_prepared_init(&g, &s, EXG_NONPLANAR_ERROR);
		CHECK(exg_prepared_view3d(&g, false, &view, &err) == EXG_OK, "view");
		flip = malloc(g.shape.ncomps);
		CHECK(exg_outward_flips(&view->prims, (uint32_t) g.shape.ncomps, flip, &rep, &err) == EXG_OK,
			  "outward: %s", err.message);
		CHECK(rep.shells == 4, "trial %d: %u shells", trial, rep.shells);
		exg_shape_init(&copy);
		for (size_t c = 0; c < g.shape.ncomps; c++)
		{
			const double *p = &g.shape.xyz[3 * g.shape.ring_start[g.shape.comps[c].first_ring]];

			if (flip[c])
				add_tri(&copy, p, p + 6, p + 3);
			else
				add_tri(&copy, p, p + 3, p + 6);
		}
		CHECK(volume_of(&copy, &vol, &err) == EXG_OK && is_rounded(expect, vol),
			  "trial %d: oriented volume %.17g (%s)", trial, vol, err.message);
		exg_shape_free(&copy);
		free(flip);
		exg_prepared_free(&g);
	}
	mpq_clears(expect, v, NULL);

	/* open and non-orientable surfaces are refused */
	{
		double		a[3] = {0, 0, 0},
					b[3] = {1, 0, 0},
					c[3] = {0, 1, 0},
					vol;
		exg_shape	s;
		exg_error	err = {0};

		exg_shape_init(&s);
		add_tri(&s, a, b, c);
		CHECK(volume_of(&s, &vol, &err) == EXG_ERR_NOT_SOLID, "an open triangle has a volume");
		exg_shape_free(&s);
	}
	printf("outward orientation: nested and inverted shells checked\n");
}

/* 10^6 triangles: one finely divided closed box, and 1000 separate boxes. */
static void
bench(void)
{
	int			n = 288;		/* 12 n^2 = 995,328 triangles */
	exg_shape	s;
	exg_error	err = {0};
	double		vol;
	struct timespec t0,
				t1;
	exg_prepared g;
	mpq_t		v;
	double		lo[3] = {500000.5, 7000000.25, -500},
				hi[3] = {500000.5 + 288, 7000000.25 + 288, -500 + 288};

	exg_shape_init(&s);
	/* each face of the box as an n x n grid of quads, outward */
	for (int axis = 0; axis < 3; axis++)
		for (int side = 0; side < 2; side++)
			for (int i = 0; i < n; i++)
				for (int j = 0; j < n; j++)
				{
					double		q[4][3];
					int			u = (axis + 1) % 3,
								w = (axis + 2) % 3;

					for (int k = 0; k < 4; k++)
					{
						q[k][axis] = side ? hi[axis] : lo[axis];
						q[k][u] = lo[u] + (i + (k == 1 || k == 2));
						q[k][w] = lo[w] + (j + (k >= 2));
					}
					/* (u, w) counter-clockwise seen along +axis is outward on the high side */
					if (side)
					{
						add_tri(&s, q[0], q[1], q[2]);
						add_tri(&s, q[0], q[2], q[3]);
					}
					else
					{
						add_tri(&s, q[0], q[2], q[1]);
						add_tri(&s, q[0], q[3], q[2]);
					}
				}
	exg_prepared_init(&g, &s, EXG_NONPLANAR_ERROR);
	{
		const exg_view *view;

		exg_prepared_view3d(&g, false, &view, &err);
		clock_gettime(CLOCK_MONOTONIC, &t0);
		exg_prims_volume(&view->prims, &vol, &err);
		clock_gettime(CLOCK_MONOTONIC, &t1);
		printf("bench: exact sum of %zu triangles: %.1f ms\n", view->prims.nprims,
			   (t1.tv_sec - t0.tv_sec) * 1e3 + (t1.tv_nsec - t0.tv_nsec) / 1e6);
	}
	clock_gettime(CLOCK_MONOTONIC, &t0);
	CHECK(exg_solid_volume(&g, &vol, &err) == EXG_OK, "big box: %s", err.message);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	mpq_init(v);
	q_box(v, lo, hi);
	CHECK(is_rounded(v, vol), "big box %.17g", vol);
	mpq_clear(v);
	printf("bench: ST_ExactVolume's engine call (checks + sum) on one body of %zu triangles: %.1f ms\n",
		   g.shape.ncomps, (t1.tv_sec - t0.tv_sec) * 1e3 + (t1.tv_nsec - t0.tv_nsec) / 1e6);
	exg_prepared_free(&g);

	{
		double		total_ms = 0;

		for (int b = 0; b < 1000; b++)
		{
			double		l[3] = {500000 + b, 7000000, -500},
						h[3] = {500000.5 + b, 7000000.5, -499.5};

			exg_shape_init(&s);
			/* 83 boxes a body: ~10^6 triangles in all */
			for (int k = 0; k < 83; k++)
			{
				l[2] = -500 + 2 * k;
				h[2] = l[2] + 1;
				add_box(&s, l, h, 0);
			}
			exg_prepared_init(&g, &s, EXG_NONPLANAR_ERROR);
			clock_gettime(CLOCK_MONOTONIC, &t0);
			{ exg_status st_ = exg_solid_volume(&g, &vol, &err); CHECK(st_ == EXG_OK && vol == 83 * 0.25, "box stack %d %.17g %s", (int) st_, vol, err.message); }
			clock_gettime(CLOCK_MONOTONIC, &t1);
			total_ms += (t1.tv_sec - t0.tv_sec) * 1e3 + (t1.tv_nsec - t0.tv_nsec) / 1e6;
			exg_prepared_free(&g);
		}
		printf("bench: 1000 bodies of 83 shells (996,000 triangles): %.1f ms\n", total_ms);
	}
}

/* The checker itself must reject a neighbour of the right answer. */
static void
test_checker(void)
{
	mpq_t		v;

	mpq_init(v);
	mpq_set_ui(v, 1, 6);
	CHECK(is_rounded(v, 1.0 / 6), "1/6");
	CHECK(!is_rounded(v, nextafter(1.0 / 6, 1)), "1/6 + ulp accepted");
	CHECK(!is_rounded(v, 1.0 / 6 / 4294967296.0), "1/6 / 2^32 accepted");
	mpq_set_d(v, 1.0);
	mpq_set_ui(v, 9007199254740993u, 9007199254740992u);	/* 1 + 2^-53: a tie */
	CHECK(is_rounded(v, 1.0), "tie to even");
	CHECK(!is_rounded(v, nextafter(1.0, 2)), "tie to odd accepted");
	mpq_clear(v);
}

int
main(int argc, char **argv)
{
	test_checker();
	test_soups();
	test_boxes();
	test_tetrahedra();
	test_prisms();
	test_outward();
	if (argc < 2 || strcmp(argv[1], "--no-bench") != 0)
		bench();
	if (failures)
	{
		printf("test_volume: %d FAILURES\n", failures);
		return 1;
	}
	printf("test_volume: ok\n");
	return 0;
}
