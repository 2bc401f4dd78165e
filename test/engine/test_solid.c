/*
 * test_solid.c — exact point location in closed surfaces, against an
 * independent answer: for a convex polyhedron with outward faces, p is inside
 * iff it is strictly below every face plane, on the boundary iff below or on
 * every plane and on one (decided with GMP, not with the engine's cascade).
 * Polyhedra: random tetrahedra and octahedra, at small and UTM coordinates;
 * points: random, vertices, exact edge and face points (dyadic combinations),
 * and those nudged by one ulp.
 */
#include <gmp.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "geom_prepared.h"
#include "solid.h"
#include "harness.h"

static test_rng rng = {0x9e3779b97f4a7c15ull};

/* A small integer in [-k, k], scaled by 1/8 (exactly representable). */
static double
grid(int k)
{
	return ((double) (rng_next(&rng) % (2 * k + 1)) - k) / 8.0;
}

/* Exact sign of ((b-a) x (c-a)) . (d-a) in GMP rationals, written here again on purpose. */
static int
ref_orient(const double *a, const double *b, const double *c, const double *d)
{
	mpq_t		x[12],
				r,
				t;
	const double *pts[4] = {a, b, c, d};
	int			i,
				s;

	for (i = 0; i < 12; i++)
	{
		mpq_init(x[i]);
		mpq_set_d(x[i], pts[i / 3][i % 3]);
	}
	mpq_inits(r, t, NULL);
	for (i = 3; i < 12; i++)
		mpq_sub(x[i], x[i], x[i % 3]);
	/* det of rows u = x[3..5], v = x[6..8], w = x[9..11] */
	mpq_mul(t, x[4], x[8]);
	mpq_mul(r, x[5], x[7]);
	mpq_sub(t, t, r);
	mpq_mul(r, t, x[9]);
	mpq_set(x[0], r);
	mpq_mul(t, x[5], x[6]);
	mpq_mul(r, x[3], x[8]);
	mpq_sub(t, t, r);
	mpq_mul(t, t, x[10]);
	mpq_add(x[0], x[0], t);
	mpq_mul(t, x[3], x[7]);
	mpq_mul(r, x[4], x[6]);
	mpq_sub(t, t, r);
	mpq_mul(t, t, x[11]);
	mpq_add(x[0], x[0], t);
	s = mpq_sgn(x[0]);
	for (i = 0; i < 12; i++)
		mpq_clear(x[i]);
	mpq_clears(r, t, NULL);
	return s;
}

typedef struct poly
{
	double		v[6][3];
	int			nv;
	int			f[8][3];		/* outward: orient(f0, f1, f2, inside point) < 0 */
	int			nf;
} poly;

static void
make_shape(poly *P, exg_shape *s)
{
	exg_error	err;
	int			k,
				t;

	exg_shape_init(s);
	for (k = 0; k < P->nf; k++)
	{
		exg_shape_begin_comp(s, EXG_COMP_TRIANGLE, true, &err);
		exg_shape_begin_ring(s, &err);
		for (t = 0; t < 4; t++)
		{
			const double *x = P->v[P->f[k][t % 3]];

			exg_shape_add_vertex(s, x[0], x[1], x[2], &err);
		}
	}
	s->has_z = true;
	s->is_solid = true;
}

/* The independent answer for a convex polyhedron. */
static exg_location
ref_locate(const poly *P, const double *p)
{
	bool		on = false;
	int			k;

	for (k = 0; k < P->nf; k++)
	{
		int			s = ref_orient(P->v[P->f[k][0]], P->v[P->f[k][1]], P->v[P->f[k][2]], p);

		if (s > 0)
			return EXG_LOC_OUTSIDE;
		on |= s == 0;
	}
	return on ? EXG_LOC_BOUNDARY : EXG_LOC_INSIDE;
}

static void
random_tetra(poly *P, const double *o)
{
	double		inside[3];
	int			k;

	do
	{
		for (k = 0; k < 4; k++)
			for (int c = 0; c < 3; c++)
				P->v[k][c] = o[c] + grid(64);
	} while (ref_orient(P->v[0], P->v[1], P->v[2], P->v[3]) == 0);
	P->nv = 4;
	P->nf = 4;
	int			faces[4][3] = {{0, 1, 2}, {0, 3, 1}, {1, 3, 2}, {0, 2, 3}};

	memcpy(P->f, faces, sizeof(faces));
	for (int c = 0; c < 3; c++)
		inside[c] = (P->v[0][c] + P->v[1][c] + P->v[2][c] + P->v[3][c]) / 4;
	/* orient the faces outward */
	for (k = 0; k < 4; k++)
		if (ref_orient(P->v[P->f[k][0]], P->v[P->f[k][1]], P->v[P->f[k][2]], inside) > 0)
		{
			int			tmp = P->f[k][1];

			P->f[k][1] = P->f[k][2];
			P->f[k][2] = tmp;
		}
}

static void
random_octa(poly *P, const double *o)
{
	double		r[3] = {1 + (double) (rng_next(&rng) % 64) / 8, 1 + (double) (rng_next(&rng) % 64) / 8,
	1 + (double) (rng_next(&rng) % 64) / 8};
	int			k;
	/* +x -x +y -y +z -z; faces outward for this vertex order */
	int			faces[8][3] = {{0, 2, 4}, {2, 1, 4}, {1, 3, 4}, {3, 0, 4},
	{2, 0, 5}, {1, 2, 5}, {3, 1, 5}, {0, 3, 5}};

	memset(P->v, 0, sizeof(P->v));
	for (k = 0; k < 6; k++)
	{
		memcpy(P->v[k], o, sizeof(double) * 3);
		P->v[k][k / 2] += (k % 2 ? -r[k / 2] : r[k / 2]);
	}
	P->nv = 6;
	P->nf = 8;
	memcpy(P->f, faces, sizeof(faces));
}

int
main(void)
{
	const double origins[2][3] = {{0, 0, 0}, {500000.0, 7000000.0, -500.0}};
	long		cases = 0,
				wrong = 0,
				counts[3] = {0, 0, 0};
	int			shape;

	for (shape = 0; shape < 400; shape++)
	{
		poly		P;
		exg_shape	s;
		exg_prepared g;
		const double *o = origins[shape % 2];
		int			q;

		if (shape % 4 < 2)
			random_tetra(&P, o);
		else
			random_octa(&P, o);
		make_shape(&P, &s);
		exg_prepared_init(&g, &s, EXG_NONPLANAR_ERROR);
		for (q = 0; q < 200; q++)
		{
			double		p[3];
			exg_location got;
			exg_error	err = {0};
			int			kind = q % 5,
						c;
			const double *a = P.v[rng_next(&rng) % P.nv],
					   *b = P.v[rng_next(&rng) % P.nv];
			int			fi = (int) (rng_next(&rng) % P.nf);

			for (c = 0; c < 3; c++)
			{
				if (kind == 0)		/* random near the body */
					p[c] = o[c] + grid(96);
				else if (kind == 1) /* a vertex */
					p[c] = a[c];
				else if (kind == 2) /* on the segment between two vertices: an edge or inside */
					p[c] = a[c] + (b[c] - a[c]) * 0.25;
				else				/* a dyadic point of a face: (2 f0 + f1 + f2) / 4 */
					p[c] = (P.v[P.f[fi][0]][c] * 2 + P.v[P.f[fi][1]][c] + P.v[P.f[fi][2]][c]) / 4;
			}
			if (kind == 4)			/* a face point nudged by one ulp along one axis */
			{
				int			j = (int) (rng_next(&rng) % 3);

				p[j] = nextafter(p[j], rng_next(&rng) % 2 ? INFINITY : -INFINITY);
			}
			if (exg_solid_locate(&g, p, &got, &err) != EXG_OK)
			{
				fprintf(stderr, "FAIL locate: %s\n", err.message);
				return 1;
			}
			cases++;
			counts[got]++;
			if (got != ref_locate(&P, p))
			{
				if (wrong++ < 5)
					fprintf(stderr, "DISAGREE shape %d point %a %a %a: engine %d, reference %d\n",
							shape, p[0], p[1], p[2], got, ref_locate(&P, p));
			}
		}
		exg_prepared_free(&g);
	}
	printf("test_solid: %ld points located in 400 convex polyhedra (outside %ld, inside %ld, boundary %ld), %ld disagreements with the reference\n",
		   cases, counts[0], counts[1], counts[2], wrong);
	return wrong ? 1 : 0;
}
