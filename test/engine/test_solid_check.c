/*
 * test_solid_check.c — the one "is this a valid solid" decision
 * (solid/solid_check.h) and the volume functions that refuse on it.
 *
 * Bodies built here by hand, with the answer known by construction: boxes
 * apart (valid, two shells), a box with a box cavity (valid), two boxes that
 * overlap (self-intersecting: the named triangles must meet, checked with
 * the independent GMP reference test/reference/ref_exact.c, and share no
 * vertex), two boxes sharing a face (no valid solid, but a well-defined
 * inside), the same flattened to z = 0 with has_z unset ("has no Z"),
 * points only ("not a surface"). Then the batch check over several bodies,
 * and the verdict kept with the geometry (a second check does no work),
 * and the batch check's memo of bodies found good.
 *
 *   test_solid_check [--time NU NV]   also times the check of one bumpy
 *                                     sphere of about 2 NU NV triangles
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "geom_prepared.h"
#include "harness.h"
#include "known_bodies.h"
#include "locate_join.h"
#include "ref_exact.h"
#include "solid.h"
#include "solid_check.h"
#include "volume.h"

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

static const double *
tri_vertex(const exg_shape *s, size_t face, int k)
{
	return &s->xyz[3 * (s->ring_start[s->comps[face].first_ring] + (size_t) k)];
}

/* Does g meet the need? And why not. */
static bool
meets(exg_prepared *g, exg_solid_need need, char *why, size_t len)
{
	exg_error	err = {0};
	bool		ok = false;

	if (exg_solid_check(g, NULL, need, &ok, why, len, &err) != EXG_OK)
		FAIL("check: status %d: %s", err.status, err.message);
	return ok;
}

/* Is a fresh geometry made of s (taken over) a valid solid? And why not. */
static bool
verdict(exg_shape *s, exg_prepared *g, char *why, size_t len)
{
	exg_prepared_init(g, s, EXG_NONPLANAR_ERROR);
	return meets(g, EXG_SOLID_VALID, why, len);
}

static void
test_bodies(void)
{
	double		o[3] = {0, 0, 0},
				two[3] = {2, 2, 2},
				a1[3] = {3, 0, 0},
				a2[3] = {5, 2, 2},
				m1[3] = {1, 0, 0},
				m2[3] = {3, 2, 2},
				four[3] = {4, 4, 4},
				c1[3] = {1, 1, 1},
				c2[3] = {3, 3, 3};
	char		why[EXG_ERROR_MESSAGE_LEN];
	exg_shape	s;
	exg_prepared g;
	exg_error	err = {0};
	double		vol,
				p[3] = {1.5, 1, 1};
	exg_location loc;

	/* two boxes apart: valid, volume 16 */
	exg_shape_init(&s);
	add_box(&s, o, two, 0);
	add_box(&s, a1, a2, 0);
	CHECK(verdict(&s, &g, why, sizeof(why)), "two boxes apart are valid (%s)", why);
	CHECK(exg_solid_volume(&g, &vol, &err) == EXG_OK && vol == 16, "their volume is 16");
	exg_prepared_free(&g);

	/* a box with a box cavity: valid, 64 - 8 */
	exg_shape_init(&s);
	add_box(&s, o, four, 0);
	add_box(&s, c1, c2, 1);
	CHECK(verdict(&s, &g, why, sizeof(why)), "a box with a cavity is valid (%s)", why);
	CHECK(exg_solid_volume(&g, &vol, &err) == EXG_OK && vol == 56, "its volume is 56");
	exg_prepared_free(&g);

	/* the body: two overlapping boxes as one surface */
	exg_shape_init(&s);
	add_box(&s, o, two, 0);
	add_box(&s, m1, m2, 0);
	CHECK(!verdict(&s, &g, why, sizeof(why)), "overlapping boxes are not valid");
	CHECK(strncmp(why, "self-intersecting", 17) == 0, "reason: %s", why);
	{
		unsigned	fa = 0,
					fb = 0;
		int			shared = 0;

		CHECK(strstr(why, "e.g. faces ") && sscanf(strstr(why, "e.g. faces "), "e.g. faces %u and %u", &fa, &fb) == 2 && fa >= 1 &&
			  fb <= g.shape.ncomps && fa < fb, "a face pair is named (%s)", why);
		if (fa >= 1 && fb <= g.shape.ncomps && fa < fb)
		{
			const double *A[3],
					   *B[3];

			for (int k = 0; k < 3; k++)
			{
				A[k] = tri_vertex(&g.shape, fa - 1, k);
				B[k] = tri_vertex(&g.shape, fb - 1, k);
			}
			for (int i = 0; i < 3; i++)
				for (int j = 0; j < 3; j++)
					shared += ref_point_point_3d(A[i], B[j]);
			CHECK(ref_triangle_triangle_3d(A[0], A[1], A[2], B[0], B[1], B[2]) && shared == 0,
				  "faces %u and %u meet and share no vertex (reference)", fa, fb);
		}
	}
	CHECK(exg_solid_volume(&g, &vol, &err) == EXG_ERR_NOT_SOLID &&
		  strncmp(err.message, "self-intersecting", 17) == 0, "volume refuses it: %s", err.message);
	CHECK(exg_solid_locate(&g, p, &loc, &err) == EXG_ERR_NOT_SOLID, "locate refuses it");
	exg_prepared_free(&g);

	/* two boxes sharing a face, as one surface: no valid solid (faces meet
	 * improperly), but no point is inside both, so the inside (their union)
	 * is well defined and located */
	{
		double		b1[3] = {2, 0, 0},
					b2[3] = {4, 2, 2},
					q[3] = {3, 1, 1},
					onf[3] = {2, 1, 1};

		exg_shape_init(&s);
		add_box(&s, o, two, 0);
		add_box(&s, b1, b2, 0);
		CHECK(!verdict(&s, &g, why, sizeof(why)), "boxes sharing a face are no valid solid");
		CHECK(meets(&g, EXG_SOLID_INSIDE, why, sizeof(why)), "their inside is defined (%s)", why);
		CHECK(exg_solid_locate(&g, p, &loc, &err) == EXG_OK && loc == EXG_LOC_INSIDE, "p inside");
		CHECK(exg_solid_locate(&g, q, &loc, &err) == EXG_OK && loc == EXG_LOC_INSIDE, "q inside");
		CHECK(exg_solid_locate(&g, onf, &loc, &err) == EXG_OK && loc == EXG_LOC_BOUNDARY,
			  "on the shared face: boundary");
		CHECK(exg_solid_volume(&g, &vol, &err) == EXG_ERR_NOT_SOLID, "the volume refuses it");
		exg_prepared_free(&g);
	}

	/* flattened (z = 0, no Z): "has no Z", not "self-intersecting" */
	exg_shape_init(&s);
	add_box(&s, o, two, 0);
	for (size_t v = 0; v < s.nverts; v++)
		s.xyz[3 * v + 2] = 0;
	CHECK(!verdict(&s, &g, why, sizeof(why)) && strncmp(why, "has no Z", 8) == 0, "reason: %s", why);
	exg_prepared_free(&g);

	/* points where a surface is expected (swapped arguments) */
	exg_shape_init(&s);
	exg_shape_begin_comp(&s, EXG_COMP_POINT, false, &err);
	exg_shape_begin_ring(&s, &err);
	exg_shape_add_vertex(&s, 1, 1, 1, &err);
	CHECK(!verdict(&s, &g, why, sizeof(why)) && strncmp(why, "not a surface: a point", 22) == 0,
		  "reason: %s", why);
	exg_prepared_free(&g);

	/* inside out: no valid solid (the volume refuses it), but its inside is
	 * well defined: located as before */
	exg_shape_init(&s);
	add_box(&s, o, two, 1);
	CHECK(!verdict(&s, &g, why, sizeof(why)) && strncmp(why, "inside out", 10) == 0, "reason: %s", why);
	CHECK(meets(&g, EXG_SOLID_INSIDE, why, sizeof(why)), "its inside is defined (%s)", why);
	CHECK(exg_solid_volume(&g, &vol, &err) == EXG_ERR_NOT_SOLID, "the volume refuses it");
	CHECK(exg_solid_locate(&g, p, &loc, &err) == EXG_OK && loc == EXG_LOC_INSIDE, "located inside");
	exg_prepared_free(&g);

	/* overlapping and inconsistently oriented: the self-intersection is
	 * still found for the inside (orientation is reported first for validity) */
	exg_shape_init(&s);
	add_box(&s, o, two, 0);
	add_box(&s, m1, m2, 1);
	{
		double	   *v = &s.xyz[3 * s.ring_start[s.comps[0].first_ring]],
					t[3];

		/* reverse face 1 only: its edges then run as its neighbours' do */
		memcpy(t, v + 3, sizeof(t));
		memcpy(v + 3, v + 6, sizeof(t));
		memcpy(v + 6, t, sizeof(t));
	}
	CHECK(!verdict(&s, &g, why, sizeof(why)) && strncmp(why, "inconsistently oriented", 23) == 0,
		  "reason: %s", why);
	CHECK(!meets(&g, EXG_SOLID_INSIDE, why, sizeof(why)) && strncmp(why, "self-intersecting", 17) == 0,
		  "inside: %s", why);
	CHECK(exg_solid_locate(&g, p, &loc, &err) == EXG_ERR_NOT_SOLID, "locate refuses it");
	exg_prepared_free(&g);
}

/* Bodies in one triangle set: the first self-intersecting one is named. */
static void
test_batch(void)
{
	test_mesh	m = {0};
	exg_prim_set T;
	exg_error	err = {0};
	double		o[3] = {0, 0, 0},
				c[3] = {0, 0, 0},
				far[3] = {100, 0, 0};
	test_rng	r = {7};

	/* body 0: a sphere; body 1: two spheres that overlap; body 2: a sphere
	 * overlapping body 0 (bodies may overlap each other) */
	test_mesh_add_round(&m, o, c, 10, 0, false, 24, 12, 0.2, &r);
	m.nbodies++;
	test_mesh_add_round(&m, far, c, 10, 0, false, 24, 12, 0.2, &r);
	far[0] = 105;
	test_mesh_add_round(&m, far, c, 10, 0, false, 24, 12, 0.2, &r);
	m.nbodies++;
	o[0] = 5;
	test_mesh_add_round(&m, o, c, 10, 0, false, 24, 12, 0.2, &r);
	m.nbodies++;
	T.xyz = m.xyz;
	T.nverts = m.nv;
	T.vidx = m.tri;
	T.nprims = m.nt;
	T.arity = 3;
	CHECK(exg_solid_set_check_self(&T, m.body, m.nbodies, NULL, 1, NULL, &err) == EXG_ERR_NOT_SOLID &&
		  err.row == 2 && err.side == 1, "body 2 (row 2) is named: row %llu, %s",
		  (unsigned long long) err.row, err.message);
	/* without the bad body: bodies 0 and 2 overlap each other, each is fine */
	{
		uint32_t	keep = 0;

		for (uint32_t t = 0; t < m.nt; t++)
			if (m.body[t] != 1)
			{
				memcpy(&m.tri[3 * keep], &m.tri[3 * t], 3 * sizeof(uint32_t));
				m.body[keep++] = m.body[t] == 2 ? 1 : 0;
			}
		T.nprims = keep;
		memset(&err, 0, sizeof(err));
		CHECK(exg_solid_set_check_self(&T, m.body, 2, NULL, 1, NULL, &err) == EXG_OK,
			  "overlapping bodies are fine: %s", err.message);
	}
	test_mesh_free(&m);
}

/*
 * The batch check (exg_solid_set_check: closed, not overlapping itself)
 * remembers bodies found good (known_bodies.h): the second check of the
 * same body walks no edge and does no join, and a body changed since (one
 * vertex pulled through the far side: it now overlaps itself) is judged
 * again and refused; the self check alone remembers nothing.
 */
static void
test_known_bodies(void)
{
	test_mesh	m = {0};
	test_rng	r = {5};
	double		o[3] = {0, 0, 0},
				c[3] = {0, 0, 0},
				t0,
				t1,
				t2;
	exg_prim_set T;
	exg_error	err = {0};
	uint64_t	h;

	test_mesh_add_round(&m, o, c, 2000, 0, false, 100, 50, 0.05, &r);
	m.nbodies++;
	T.xyz = m.xyz;
	T.nverts = m.nv;
	T.vidx = m.tri;
	T.nprims = m.nt;
	T.arity = 3;
	exg_known_bodies_clear();
	CHECK(!exg_known_body(m.xyz, m.tri, 0, m.nt, &h), "not known at first");
	CHECK(exg_solid_set_check_self(&T, m.body, 1, NULL, 1, NULL, &err) == EXG_OK, "%s", err.message);
	CHECK(!exg_known_body(m.xyz, m.tri, 0, m.nt, &h), "not known after the self check alone");
	t0 = now_seconds();
	CHECK(exg_solid_set_check(&T, m.body, 1, 1, NULL, &err) == EXG_OK, "%s", err.message);
	t1 = now_seconds();
	CHECK(exg_known_body(m.xyz, m.tri, 0, m.nt, &h), "known once judged good");
	CHECK(exg_solid_set_check(&T, m.body, 1, 1, NULL, &err) == EXG_OK, "%s", err.message);
	t2 = now_seconds();
	{
		/* the same body at another place of another batch (other rows first) is
		 * known; its triangles in another order are not (another sequence) */
		const uint32_t shift = 7;
		double	   *xyz2 = calloc(3 * ((size_t) m.nv + shift), sizeof(double));
		uint32_t   *tri2 = malloc(sizeof(uint32_t) * 3 * m.nt);

		memcpy(xyz2 + 3 * shift, m.xyz, sizeof(double) * 3 * m.nv);
		for (uint32_t i = 0; i < 3 * m.nt; i++)
			tri2[i] = m.tri[i] + shift;
		CHECK(exg_known_body(xyz2, tri2, 0, m.nt, &h), "known at another place");
		for (int k = 0; k < 3; k++)
		{
			uint32_t	x = tri2[k];

			tri2[k] = tri2[3 + k];
			tri2[3 + k] = x;
		}
		CHECK(!exg_known_body(xyz2, tri2, 0, m.nt, &h), "two triangles swapped: not known");
		free(xyz2);
		free(tri2);
	}
	printf("  batch check of %u triangles: %.3f s, again %.4f s\n", m.nt, t1 - t0, t2 - t1);
	/* a vertex of the first triangle pulled through the sphere */
	for (int k = 0; k < 3; k++)
		m.xyz[3 * m.tri[1] + k] = -m.xyz[3 * m.tri[1] + k];
	CHECK(!exg_known_body(m.xyz, m.tri, 0, m.nt, &h), "a changed body is not known");
	CHECK(exg_solid_set_check(&T, m.body, 1, 1, NULL, &err) == EXG_ERR_NOT_SOLID,
		  "the changed body is refused");
	exg_known_bodies_clear();
	test_mesh_free(&m);
}

/* The time of one check, and of a second one on the same geometry. */
static void
time_sphere(int nu, int nv)
{
	test_mesh	m = {0};
	test_rng	r = {11};
	double		o[3] = {500000, 7000000, -400},
				c[3] = {0, 0, 0},
				t0,
				t1,
				t2;
	exg_shape	s;
	exg_prepared g;
	exg_error	err = {0};
	bool		valid = false;

	/* radius growing with the resolution: snapped to 1/8, no triangle degenerates */
	test_mesh_add_round(&m, o, c, 20.0 * nu, 0, false, nu, nv, 0.05, &r);
	exg_shape_init(&s);
	for (uint32_t t = 0; t < m.nt; t++)
		add_tri(&s, &m.xyz[3 * m.tri[3 * t]], &m.xyz[3 * m.tri[3 * t + 1]],
				&m.xyz[3 * m.tri[3 * t + 2]]);
	exg_prepared_init(&g, &s, EXG_NONPLANAR_ERROR);
	t0 = now_seconds();
	CHECK(exg_solid_check(&g, NULL, EXG_SOLID_VALID, &valid, NULL, 0, &err) == EXG_OK && valid,
		  "the sphere is valid: %s", g.solid_why);
	t1 = now_seconds();
	CHECK(exg_solid_check(&g, NULL, EXG_SOLID_INSIDE, &valid, NULL, 0, &err) == EXG_OK && valid,
		  "its inside is defined");
	t2 = now_seconds();
	printf("  check of %u triangles: %.3f s (second call %.6f s)\n", m.nt, t1 - t0, t2 - t1);
	exg_prepared_free(&g);
	test_mesh_free(&m);
}

int
main(int argc, char **argv)
{
	test_bodies();
	test_batch();
	test_known_bodies();
	if (argc == 4 && strcmp(argv[1], "--time") == 0)
		time_sphere(atoi(argv[2]), atoi(argv[3]));
	else
		time_sphere(100, 50);
	return test_summary("test_solid_check");
}
