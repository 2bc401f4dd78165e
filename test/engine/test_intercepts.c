/*
 * test_intercepts.c — intercept details and composites in the engine, on
 * hand-made cases whose answers are worked out by hand: a 4 m cube (each
 * square face two triangles) and holes through its faces, edges and
 * vertices, grazing it, along a face, starting and ending inside;
 * MULTILINESTRING holes as one polyline; composites of binary-exact assay
 * intervals. (exg_intercepts itself is checked against an independent
 * reference in test_solid_differential; the batch form against the
 * row-level function in the pg_regress test intercepts_join.)
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "composite.h"
#include "geom_prepared.h"
#include "intercepts.h"

static int failures = 0;

#define CHECK(cond, ...) \
	do { if (!(cond)) { failures++; printf("  FAIL %s:%d: ", __FILE__, __LINE__); \
		printf(__VA_ARGS__); printf("\n"); } } while (0)

/* The cube [0, 4]^3, outward triangles, as a TIN. */
static void
cube(exg_shape *s)
{
	static const double f[12][3][3] = {
		{{0, 0, 0}, {0, 4, 0}, {4, 4, 0}}, {{0, 0, 0}, {4, 4, 0}, {4, 0, 0}},
		{{0, 0, 4}, {4, 0, 4}, {4, 4, 4}}, {{0, 0, 4}, {4, 4, 4}, {0, 4, 4}},
		{{0, 0, 0}, {4, 0, 0}, {4, 0, 4}}, {{0, 0, 0}, {4, 0, 4}, {0, 0, 4}},
		{{4, 0, 0}, {4, 4, 0}, {4, 4, 4}}, {{4, 0, 0}, {4, 4, 4}, {4, 0, 4}},
		{{4, 4, 0}, {0, 4, 0}, {0, 4, 4}}, {{4, 4, 0}, {0, 4, 4}, {4, 4, 4}},
		{{0, 4, 0}, {0, 0, 0}, {0, 0, 4}}, {{0, 4, 0}, {0, 0, 4}, {0, 4, 4}}};
	exg_error	err;

	exg_shape_init(s);
	s->geom_type = 15;			/* TIN */
	s->has_z = true;
	for (int t = 0; t < 12; t++)
	{
		exg_shape_begin_comp(s, EXG_COMP_TRIANGLE, true, &err);
		exg_shape_begin_ring(s, &err);
		for (int k = 0; k < 4; k++)
			exg_shape_add_vertex(s, f[t][k % 3][0], f[t][k % 3][1], f[t][k % 3][2], &err);
	}
}

typedef struct expect
{
	double		from,
				to;
	int			entry,
				exit,
				kind;
	int			nvertices;
} expect;

static void
hole_case(exg_prepared *g, const char *name, const double *xyz, size_t n, const expect *e, size_t ne)
{
	exg_intercept_set s = {0};
	exg_error	err = {0};

	if (exg_intercepts_detail(g, xyz, n, &s, &err) != EXG_OK)
	{
		CHECK(0, "%s: %s", name, err.message);
		return;
	}
	CHECK(s.n == ne, "%s: %zu intercepts, expected %zu", name, s.n, ne);
	for (size_t k = 0; k < s.n && k < ne; k++)
	{
		const exg_intercept *iv = &s.iv[k];
		const double *first = &s.xyzm[4 * iv->first_vertex],
				   *last = &s.xyzm[4 * (iv->first_vertex + iv->nvertices - 1)];

		CHECK(iv->from == e[k].from && iv->to == e[k].to, "%s: [%.17g, %.17g], expected [%.17g, %.17g]",
			  name, iv->from, iv->to, e[k].from, e[k].to);
		CHECK(iv->entry_contact == e[k].entry && iv->exit_contact == e[k].exit && iv->kind == e[k].kind,
			  "%s: contacts %d/%d kind %d, expected %d/%d %d", name, iv->entry_contact,
			  iv->exit_contact, iv->kind, e[k].entry, e[k].exit, e[k].kind);
		CHECK((int) iv->nvertices == e[k].nvertices, "%s: %zu piece vertices, expected %d", name,
			  iv->nvertices, e[k].nvertices);
		CHECK(memcmp(first, iv->entry, 3 * sizeof(double)) == 0 && first[3] == iv->from &&
			  memcmp(last, iv->exit, 3 * sizeof(double)) == 0 && last[3] == iv->to,
			  "%s: the piece does not run from entry to exit with M = depth", name);
	}
	exg_intercept_set_free(&s);
}

#define HOLE(name, ...) \
	do { static const double h_[] = __VA_ARGS__; \
		hole_case(&g, name, h_, sizeof(h_) / sizeof(double) / 3, e_, sizeof(e_) / sizeof(expect)); } while (0)

static void
test_contacts(void)
{
	exg_shape	s;
	exg_prepared g;
	/* a depth is the parameter rounded once times the segment's length */
	double		e1 = (1.0 / 6) * sqrt(72.0),
				e5 = (5.0 / 6) * sqrt(72.0),
				v1 = (1.0 / 6) * sqrt(108.0),
				v5 = (5.0 / 6) * sqrt(108.0),
				r2 = sqrt(2.0);

	printf("== contact kinds on a 4 m cube\n");
	cube(&s);
	exg_prepared_init(&g, &s, EXG_NONPLANAR_ERROR);
	{
		expect		e_[] = {{1, 5, EXG_CONTACT_FACE, EXG_CONTACT_FACE, EXG_INTERCEPT_THROUGH, 2}};

		HOLE("through two faces", {1, 1, 5, 1, 1, -1});
		/* (2, 2) is on the diagonals that cut the top and bottom squares: still a face */
		HOLE("through face diagonals", {2, 2, 5, 2, 2, -1});
	}
	{
		expect		e_[] = {{e1, e5, EXG_CONTACT_EDGE, EXG_CONTACT_EDGE, EXG_INTERCEPT_THROUGH, 2}};

		HOLE("through two edges", {5, 2, 5, -1, 2, -1});
	}
	{
		expect		e_[] = {{v1, v5, EXG_CONTACT_VERTEX, EXG_CONTACT_VERTEX, EXG_INTERCEPT_THROUGH, 2}};

		HOLE("through two vertices", {5, 5, 5, -1, -1, -1});
	}
	{
		expect		e_[] = {{3, 3, EXG_CONTACT_VERTEX, EXG_CONTACT_VERTEX, EXG_INTERCEPT_GRAZING, 1}};

		HOLE("grazing a vertex", {2, 2, 5, 4, 4, 4, 6, 6, 5});
	}
	{
		expect		e_[] = {{r2, r2, EXG_CONTACT_EDGE, EXG_CONTACT_EDGE, EXG_INTERCEPT_GRAZING, 1}};

		HOLE("grazing an edge", {5, 2, 5, 4, 2, 4, 5, 2, 3});
	}
	{
		expect		e_[] = {{1, 5, EXG_CONTACT_EDGE, EXG_CONTACT_EDGE, EXG_INTERCEPT_ALONG, 2}};

		HOLE("along a face", {-1, 2, 4, 5, 2, 4});
	}
	{
		expect		e_[] = {{0, 1, EXG_CONTACT_START, EXG_CONTACT_FACE, EXG_INTERCEPT_THROUGH, 2},
		{5, 6, EXG_CONTACT_FACE, EXG_CONTACT_END, EXG_INTERCEPT_THROUGH, 2}};

		HOLE("out and back in", {1, 1, 3, 1, 1, 5, 3, 1, 5, 3, 1, 3});
	}
	{
		expect		e_[] = {{1, 7, EXG_CONTACT_FACE, EXG_CONTACT_FACE, EXG_INTERCEPT_THROUGH, 4}};

		HOLE("in, out and in again", {1, 1, 5, 1, 1, 2, 3, 1, 2, 3, 1, -1});
	}
	{
		/* entry at parameter 1/6 of (0 0 5) -> (1 2 -1): (1/6, 1/3, 4) rounded once */
		exg_intercept_set is = {0};
		exg_error	err;
		const double h[] = {0, 0, 5, 1, 2, -1};

		CHECK(exg_intercepts_detail(&g, h, 2, &is, &err) == EXG_OK && is.n == 1, "slanted hole");
		if (is.n == 1)
		{
			CHECK(is.iv[0].entry[0] == 1.0 / 6 && is.iv[0].entry[1] == 1.0 / 3 && is.iv[0].entry[2] == 4,
				  "entry (%.17g %.17g %.17g)", is.iv[0].entry[0], is.iv[0].entry[1], is.iv[0].entry[2]);
			CHECK(is.iv[0].from == (1.0 / 6) * sqrt(41.0) && is.iv[0].to == (5.0 / 6) * sqrt(41.0),
				  "depths %.17g %.17g", is.iv[0].from, is.iv[0].to);
		}
		exg_intercept_set_free(&is);
	}
	exg_prepared_free(&g);
}

static void
test_polyline(void)
{
	exg_shape	s;
	exg_error	err;
	double	   *xyz;
	size_t		n;

	printf("== MULTILINESTRING holes\n");
	exg_shape_init(&s);
	s.geom_type = 5;
	exg_shape_begin_comp(&s, EXG_COMP_LINE, false, &err);
	exg_shape_begin_ring(&s, &err);
	exg_shape_add_vertex(&s, 2, 2, 6, &err);
	exg_shape_add_vertex(&s, 2, 2, 3, &err);
	exg_shape_begin_comp(&s, EXG_COMP_LINE, false, &err);
	exg_shape_begin_ring(&s, &err);
	exg_shape_add_vertex(&s, 2, 2, 3, &err);
	exg_shape_add_vertex(&s, 2, 2, 1, &err);
	CHECK(exg_hole_polyline(&s, &xyz, &n, &err) == EXG_OK && n == 3 && xyz[5] == 3 && xyz[8] == 1,
		  "joined parts: one polyline of 3 vertices");
	free(xyz);
	exg_shape_add_vertex(&s, 2, 2, 0, &err);
	exg_shape_begin_comp(&s, EXG_COMP_LINE, false, &err);
	exg_shape_begin_ring(&s, &err);
	exg_shape_add_vertex(&s, 2, 2, nextafter(0.0, 1.0), &err);
	exg_shape_add_vertex(&s, 2, 2, -1, &err);
	CHECK(exg_hole_polyline(&s, &xyz, &n, &err) == EXG_ERR_ARGUMENT,
		  "a gap of one ulp between parts is refused");
	exg_shape_free(&s);
}

static void
test_composite(void)
{
	exg_composite c;
	exg_composite_result r;

	printf("== composites\n");
	/* [1.5, 3.5] over [0,2]@4, [2,3]@1, [3,5]@10: (2 + 1 + 5) / 2 = 4; midpoint: 1 m @ 1 */
	exg_composite_init(&c, 1.5, 3.5);
	exg_composite_add(&c, 0, 2, 4);
	exg_composite_add(&c, 2, 3, 1);
	exg_composite_add(&c, 3, 5, 10);
	exg_composite_result_of(&c, &r);
	CHECK(r.grade == 4 && r.sampled == 2 && r.mid_length == 1 && r.mid_grade == 1 && r.intervals == 3,
		  "grade %.17g sampled %.17g midpoint %.17g @ %.17g", r.grade, r.sampled, r.mid_length,
		  r.mid_grade);
	exg_composite_clear(&c);
	/* 1 m @ 1 in 3: 1/3, rounded once */
	exg_composite_init(&c, 0, 3);
	exg_composite_add(&c, 0, 1, 1);
	exg_composite_add(&c, 1, 2, 0);
	exg_composite_add(&c, 2, 3, 0);
	exg_composite_result_of(&c, &r);
	CHECK(r.grade == 1.0 / 3, "1/3: %.17g", r.grade);
	exg_composite_clear(&c);
	/* 0.1 m @ 0.1 and 0.2 m @ 0.2 (inexact doubles): (0.01 + 0.04) / 0.3 in
	 * the doubles' exact values is not what naive double arithmetic gives;
	 * check against the rational computed here by hand-written GMP */
	{
		mpq_t		m,
					l,
					t;
		double		want;

		mpq_inits(m, l, t, NULL);
		mpq_set_d(l, 0.1);
		mpq_set_d(t, 0.1);
		mpq_mul(m, l, t);		/* 0.1 * 0.1 */
		mpq_set_d(t, 0.3);
		mpq_set_d(l, 0.1);
		mpq_sub(l, t, l);		/* 0.3 - 0.1 */
		mpq_set_d(t, 0.2);
		mpq_mul(t, t, l);		/* 0.2 * (0.3 - 0.1) */
		mpq_add(m, m, t);
		mpq_set_d(t, 0.3);
		mpq_div(m, m, t);		/* over 0.3 (0.1 + (0.3 - 0.1) exactly) */
		want = exg_mpq_nearest_double(m);
		exg_composite_init(&c, 0, 0.3);
		exg_composite_add(&c, 0, 0.1, 0.1);
		exg_composite_add(&c, 0.1, 0.3, 0.2);
		exg_composite_result_of(&c, &r);
		CHECK(r.grade == want, "inexact inputs: %.17g, expected %.17g", r.grade, want);
		exg_composite_clear(&c);
		mpq_clears(m, l, t, NULL);
	}
	/* nearest, ties to even: 1 + 2^-53 is halfway between 1 and 1 + 2^-52 */
	{
		mpq_t		q;

		mpq_init(q);
		mpq_set_ui(q, (1UL << 53) + 1, 1UL << 53);
		CHECK(exg_mpq_nearest_double(q) == 1.0, "tie to even");
		mpq_set_ui(q, (1UL << 53) + 3, 1UL << 53);
		CHECK(exg_mpq_nearest_double(q) == 1.0 + 0x1p-51, "tie to even, upwards");
		mpq_clear(q);
	}
}

int
main(void)
{
	test_contacts();
	test_polyline();
	test_composite();
	printf("test_intercepts: %d failures\n", failures);
	return failures != 0;
}
