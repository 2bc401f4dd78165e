/*
 * test_solid_differential.c — the engine's solid operations against the
 * independent GMP reference of test/reference/ref_solid.c:
 *
 *  1. exg_locate_join (batch point in solid) on scenes of closed bodies —
 *     boxes (nested, sharing a face or part of one, faces subdivided),
 *     octahedra, tetrahedra, height-field blocks, bumpy spheres and tori
 *     with vertices on a dyadic grid, and bodies with arbitrary coordinates —
 *     at small and UTM-sized coordinates, with points on faces, on edges, at
 *     vertices, straight below and above those, and one ulp away from them;
 *  2. exg_self_intersections on pairs of triangles sharing a vertex, an edge
 *     or nothing, in coplanar / touching / piercing / grazing configurations
 *     on small grids, one-ulp variants, signed zeros, and on meshes of
 *     several closed bodies, some overlapping or touching;
 *  3. exg_intercepts on drill holes through single bodies: random, through
 *     vertices and edges, along edges and faces, grazing, and one-ulp
 *     variants.
 *
 * Every join runs under several target grid sizes, and two families put
 * faces, points and touching boxes exactly on grid walls j L / n whose cell
 * width L / n is not a dyadic number (so the engine can only round it): a
 * cell wall must never change an answer.
 *
 * Counts and disagreements are printed per family; any disagreement (or a
 * failed self-check of the reference) makes the exit status 1. The CPU
 * back-end always runs; the GPU one too when a device is usable, and must
 * give the same answers.
 *
 *   test_solid_differential [--gpu] [--scale X] [--seed N]
 * --gpu fails when no GPU is usable; --scale multiplies the case counts.
 */
#include <gmp.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "geom_prepared.h"
#include "geom_shape.h"
#include "gpu.h"
#include "intercepts.h"
#include "join.h"
#include "locate_join.h"
#include "ref_exact.h"
#include "ref_solid.h"
#include "self_intersect.h"
#include "harness.h"

#define MAX_REPORT 12

/* Disagreements printed in full, per section (all are counted). */
static long report_budget;

static test_rng rng = {0x51d0d1ffe7e57ull};
static double scale = 1.0;
static bool have_gpu = false;

/*
 * Target grid cells tried for engine calls (0: the engine's choice): where
 * cell walls fall must never change an answer. Large inputs take the first
 * NGRID_FEW settings, small ones all.
 */
#define NGRID 40
#define NGRID_FEW 6
static uint32_t grid_settings[NGRID];

static void
init_grid_settings(void)
{
	static const uint32_t few[NGRID_FEW] = {0, 1, 64, 400, 1000, 5000};
	double		c = 7;

	memcpy(grid_settings, few, sizeof(few));
	for (int i = NGRID_FEW; i < NGRID; i++, c *= 1.2)
		grid_settings[i] = (uint32_t) c;
}
static long self_check_failures = 0;
static bool scene_lines = true;	/* a line per scene, or only group summaries */

static int
rand_int(int lo, int hi)
{
	return lo + (int) (rng_next(&rng) % (uint64_t) (hi - lo + 1));
}

static double
rand_unit(void)
{
	return rng_uniform(&rng);
}

static long
scaled(long n)
{
	long		v = (long) (n * scale);

	return v < 1 ? 1 : v;
}


/* One ulp away along one (sometimes two) random axes. */
static void
nudge(double p[3])
{
	int			times = rng_next(&rng) % 4 == 0 ? 2 : 1;

	for (int i = 0; i < times; i++)
	{
		int			k = rand_int(0, 2);

		p[k] = nextafter(p[k], rng_next(&rng) % 2 ? INFINITY : -INFINITY);
	}
}

/* ------------------------------------------------------------------ */
/* Meshes of closed bodies.                                           */

typedef test_mesh mesh;




static const double *
vtx(const mesh *m, uint32_t t, int i)
{
	return &m->xyz[3 * (size_t) m->tri[3 * (size_t) t + i]];
}

/* Turn the current body's triangles to face away from an inside point. */
static void
orient_outward(mesh *m, uint32_t first, const double *inside)
{
	for (uint32_t t = first; t < m->nt; t++)
		if (ref_orient3d(vtx(m, t, 0), vtx(m, t, 1), vtx(m, t, 2), inside) > 0)
		{
			uint32_t	tmp = m->tri[3 * t + 1];

			m->tri[3 * t + 1] = m->tri[3 * t + 2];
			m->tri[3 * t + 2] = tmp;
		}
}

static void
end_body(mesh *m, bool convex)
{
	if (m->nbodies < 64)
		m->convex[m->nbodies] = convex;
	m->nbodies++;
}

/*
 * Box o + [lo, hi], each face an n x n grid of cells cut along the diagonal
 * from the cell's low corner (so two boxes sharing a face cut it alike).
 */
static void
add_box(mesh *m, const double *o, const double *lo, const double *hi, int n)
{
	uint32_t	first = m->nt;
	uint32_t   *id = malloc(sizeof(uint32_t) * (n + 1) * (n + 1) * (n + 1));
	double		mid[3];

#define LID(i, j, k) id[((i) * (n + 1) + (j)) * (n + 1) + (k)]
	for (int i = 0; i <= n; i++)
		for (int j = 0; j <= n; j++)
			for (int k = 0; k <= n; k++)
			{
				int			ijk[3] = {i, j, k};
				double		x[3];

				if (i % n && j % n && k % n)
					continue;	/* not on the surface */
				for (int c = 0; c < 3; c++)
					x[c] = o[c] + lo[c] + (hi[c] - lo[c]) * ijk[c] / n;
				LID(i, j, k) = test_mesh_vertex(m, x[0], x[1], x[2]);
			}
	for (int axis = 0; axis < 3; axis++)
		for (int side = 0; side <= n; side += n)
			for (int a = 0; a < n; a++)
				for (int b = 0; b < n; b++)
				{
					int			u = (axis + 1) % 3,
								v = (axis + 2) % 3;
					int			c[4][3];
					uint32_t	q[4];

					for (int r = 0; r < 4; r++)
					{
						c[r][axis] = side;
						c[r][u] = a + (r & 1);
						c[r][v] = b + (r >> 1);
						q[r] = LID(c[r][0], c[r][1], c[r][2]);
					}
					test_mesh_triangle(m, q[0], q[1], q[3]);
					test_mesh_triangle(m, q[0], q[3], q[2]);
				}
#undef LID
	free(id);
	for (int c = 0; c < 3; c++)
		mid[c] = o[c] + (lo[c] + hi[c]) / 2;
	orient_outward(m, first, mid);
	end_body(m, true);
}

static void
add_octahedron(mesh *m, const double *o, const double *c, double r)
{
	uint32_t	first = m->nt,
				v[6];
	static const int f[8][3] = {{0, 2, 4}, {2, 1, 4}, {1, 3, 4}, {3, 0, 4}, {2, 0, 5},
	{1, 2, 5}, {3, 1, 5}, {0, 3, 5}};
	double		ctr[3];

	for (int i = 0; i < 6; i++)
	{
		double		x[3];

		for (int k = 0; k < 3; k++)
			x[k] = o[k] + c[k] + (k == i / 2 ? (i % 2 ? -r : r) : 0);
		v[i] = test_mesh_vertex(m, x[0], x[1], x[2]);
	}
	for (int i = 0; i < 8; i++)
		test_mesh_triangle(m, v[f[i][0]], v[f[i][1]], v[f[i][2]]);
	for (int k = 0; k < 3; k++)
		ctr[k] = o[k] + c[k];
	orient_outward(m, first, ctr);
	end_body(m, true);
}

/* Random tetrahedron with vertices o + grid points of step 1/8 in c +- 2. */
static void
add_tetra(mesh *m, const double *o, const double *c)
{
	double		v[4][3],
				ctr[3];
	uint32_t	first = m->nt,
				id[4];

	do
	{
		for (int i = 0; i < 4; i++)
			for (int k = 0; k < 3; k++)
				v[i][k] = o[k] + c[k] + rand_int(-16, 16) / 8.0;
	} while (ref_orient3d(v[0], v[1], v[2], v[3]) == 0);
	for (int i = 0; i < 4; i++)
		id[i] = test_mesh_vertex(m, v[i][0], v[i][1], v[i][2]);
	test_mesh_triangle(m, id[0], id[1], id[2]);
	test_mesh_triangle(m, id[0], id[3], id[1]);
	test_mesh_triangle(m, id[1], id[3], id[2]);
	test_mesh_triangle(m, id[0], id[2], id[3]);
	/* the centroid of a dyadic tetrahedron, relative to o, is exact */
	for (int k = 0; k < 3; k++)
		ctr[k] = o[k] + ((v[0][k] - o[k]) + (v[1][k] - o[k]) + (v[2][k] - o[k]) +
						 (v[3][k] - o[k])) / 4;
	orient_outward(m, first, ctr);
	end_body(m, true);
}

/* Tetrahedron with arbitrary (non-dyadic) coordinates near o + c. */
static void
add_generic_tetra(mesh *m, const double *o, const double *c)
{
	double		v[4][3];
	uint32_t	id[4];

	do
	{
		for (int i = 0; i < 4; i++)
			for (int k = 0; k < 3; k++)
				v[i][k] = o[k] + c[k] + (rand_unit() - 0.5) * 4.1;
	} while (ref_orient3d(v[0], v[1], v[2], v[3]) == 0);
	for (int i = 0; i < 4; i++)
		id[i] = test_mesh_vertex(m, v[i][0], v[i][1], v[i][2]);
	test_mesh_triangle(m, id[0], id[1], id[2]);
	test_mesh_triangle(m, id[0], id[3], id[1]);
	test_mesh_triangle(m, id[1], id[3], id[2]);
	test_mesh_triangle(m, id[0], id[2], id[3]);
	end_body(m, false);
}


/* Bumpy sphere or torus (harness.h), its radius within 10% */
static void
add_round(mesh *m, const double *o, const double *c, double R, double r, bool torus,
		  int nu, int nv)
{
	test_mesh_add_round(m, o, c, R, r, torus, nu, nv, 0.2, &rng);
	end_body(m, false);
}

/*
 * A block over the grid o + c + [0, nx] x [0, ny] (unit cells): flat bottom
 * at z = 0, top at heights from {1/4 .. 4} in quarters, vertical walls —
 * non-convex, with walls straight below the top's rim vertices.
 */
static void
add_heightfield(mesh *m, const double *o, const double *c, int nx, int ny)
{
	uint32_t   *top = malloc(sizeof(uint32_t) * (nx + 1) * (ny + 1));
	uint32_t   *bot = malloc(sizeof(uint32_t) * (nx + 1) * (ny + 1));

#define GI(i, j) ((i) * (ny + 1) + (j))
	for (int i = 0; i <= nx; i++)
		for (int j = 0; j <= ny; j++)
		{
			double		x = o[0] + c[0] + i,
						y = o[1] + c[1] + j;

			top[GI(i, j)] = test_mesh_vertex(m, x, y, o[2] + c[2] + rand_int(1, 16) / 4.0);
			bot[GI(i, j)] = test_mesh_vertex(m, x, y, o[2] + c[2]);
		}
	for (int i = 0; i < nx; i++)
		for (int j = 0; j < ny; j++)
		{
			test_mesh_triangle(m, top[GI(i, j)], top[GI(i + 1, j)], top[GI(i + 1, j + 1)]);
			test_mesh_triangle(m, top[GI(i, j)], top[GI(i + 1, j + 1)], top[GI(i, j + 1)]);
			test_mesh_triangle(m, bot[GI(i, j)], bot[GI(i + 1, j + 1)], bot[GI(i + 1, j)]);
			test_mesh_triangle(m, bot[GI(i, j)], bot[GI(i, j + 1)], bot[GI(i + 1, j + 1)]);
		}
	/* walls along the rim, walked once around */
	for (int s = 0; s < 2 * (nx + ny); s++)
	{
		int			a[2],
					b[2];

		if (s < nx)
			a[0] = s, a[1] = 0, b[0] = s + 1, b[1] = 0;
		else if (s < nx + ny)
			a[0] = nx, a[1] = s - nx, b[0] = nx, b[1] = s - nx + 1;
		else if (s < 2 * nx + ny)
			a[0] = 2 * nx + ny - s, a[1] = ny, b[0] = a[0] - 1, b[1] = ny;
		else
			a[0] = 0, a[1] = 2 * (nx + ny) - s, b[0] = 0, b[1] = a[1] - 1;
		test_mesh_triangle(m, bot[GI(a[0], a[1])], bot[GI(b[0], b[1])], top[GI(b[0], b[1])]);
		test_mesh_triangle(m, bot[GI(a[0], a[1])], top[GI(b[0], b[1])], top[GI(a[0], a[1])]);
	}
#undef GI
	free(top);
	free(bot);
	end_body(m, false);
}

/* ------------------------------------------------------------------ */
/* Per-family tallies.                                                */

typedef struct tally
{
	const char *name;
	long		cases;
	long		in;				/* located inside / improper / stretches */
	long		bnd;			/* on the boundary / zero-length stretches */
	long		disagree;
} tally;

static void
print_tallies(const char *title, tally *t, int n, const char *in_name,
			  const char *bnd_name)
{
	printf("  %-30s %9s %9s %9s %9s (summed over devices and grid sizes)\n", title, "cases",
		   in_name, bnd_name, "disagree");
	for (int i = 0; i < n; i++)
		if (t[i].cases)
			printf("  %-30s %9ld %9ld %9ld %9ld%s\n", t[i].name, t[i].cases, t[i].in, t[i].bnd,
				   t[i].disagree, t[i].disagree ? "  <-- FAIL" : "");
}

/* ------------------------------------------------------------------ */
/* 1. Point location.                                                 */

enum
{
	LF_RANDOM_GRID,
	LF_RANDOM_REAL,
	LF_VERTEX,
	LF_EDGE,
	LF_FACE,
	LF_BELOW_VERTEX,
	LF_ABOVE_VERTEX,
	LF_BELOW_EDGE,
	LF_ABOVE_EDGE,
	LF_BELOW_FACE,
	LF_ULP_VERTEX,
	LF_ULP_EDGE,
	LF_ULP_FACE,
	LF_ULP_COLUMN,
	LF_ON_WALL,
	LF_N
};

static const char *const lf_names[LF_N] = {
	"random grid points", "random real points", "at vertices", "on edges", "on faces",
	"straight below vertices", "straight above vertices", "straight below edges",
	"straight above edges", "straight below/above faces", "one ulp from vertices",
		"one ulp from edges", "one ulp from faces", "one ulp beside vertex columns",
	"on exact grid walls"
};

typedef struct pointset
{
	double	   *p;
	uint8_t    *fam;
	uint32_t	n,
				cap;
} pointset;

static void
push_point(pointset *ps, const double *x, int fam)
{
	if (ps->n == ps->cap)
	{
		ps->cap = ps->cap ? 2 * ps->cap : 4096;
		ps->p = realloc(ps->p, sizeof(double) * 3 * ps->cap);
		ps->fam = realloc(ps->fam, ps->cap);
	}
	memcpy(&ps->p[3 * (size_t) ps->n], x, sizeof(double) * 3);
	ps->fam[ps->n++] = (uint8_t) fam;
}

static void
push_offset(pointset *ps, const double *x, double dz, int fam)
{
	double		y[3] = {x[0], x[1], x[2] + dz};

	push_point(ps, y, fam);
}

static void
push_nudged(pointset *ps, const double *x, int fam)
{
	double		y[3] = {x[0], x[1], x[2]};

	nudge(y);
	push_point(ps, y, fam);
}

/* Adversarial points of one triangle; combinations are taken relative to o. */
static void
triangle_points(pointset *ps, const mesh *m, uint32_t t, const double *o)
{
	int			r = rand_int(0, 2);
	const double *a = vtx(m, t, r),
			   *b = vtx(m, t, (r + 1) % 3),
			   *c = vtx(m, t, (r + 2) % 3);
	static const double drops[] = {0.125, 1, 5, 1000};
	double		mid[3],
				quarter[3],
				face[3],
				col[3];

	for (int k = 0; k < 3; k++)
	{
		double		ra = a[k] - o[k],
					rb = b[k] - o[k],
					rc = c[k] - o[k];

		mid[k] = o[k] + (ra + rb) / 2;
		quarter[k] = o[k] + (3 * ra + rb) / 4;
		face[k] = o[k] + (ra + rb + 2 * rc) / 4;
	}
	push_point(ps, a, LF_VERTEX);
	push_offset(ps, a, -drops[rand_int(0, 3)], LF_BELOW_VERTEX);
	push_offset(ps, a, drops[rand_int(0, 3)], LF_ABOVE_VERTEX);
	push_point(ps, mid, LF_EDGE);
	push_point(ps, quarter, LF_EDGE);
	push_offset(ps, mid, -drops[rand_int(0, 3)], LF_BELOW_EDGE);
	push_offset(ps, quarter, drops[rand_int(0, 3)], LF_ABOVE_EDGE);
	push_point(ps, face, LF_FACE);
	push_offset(ps, face, (rng_next(&rng) % 2 ? 1 : -1) * drops[rand_int(0, 3)], LF_BELOW_FACE);
	push_nudged(ps, a, LF_ULP_VERTEX);
	push_nudged(ps, mid, LF_ULP_EDGE);
	push_nudged(ps, face, LF_ULP_FACE);
	col[0] = nextafter(a[0], rng_next(&rng) % 2 ? INFINITY : -INFINITY);
	col[1] = rng_next(&rng) % 2 ? a[1] : nextafter(a[1], INFINITY);
	col[2] = a[2] - drops[rand_int(0, 2)];
	push_point(ps, col, LF_ULP_COLUMN);
}

static void
make_points(pointset *ps, const mesh *m, const double *o, const double *lo,
			const double *hi, long nrandom, int keep_one_in)
{
	for (long i = 0; i < nrandom; i++)
	{
		double		x[3];

		for (int k = 0; k < 3; k++)
			x[k] = o[k] + lo[k] + rand_int(0, (int) ((hi[k] - lo[k]) * 4)) / 4.0;
		push_point(ps, x, LF_RANDOM_GRID);
		for (int k = 0; k < 3; k++)
			x[k] = o[k] + lo[k] + (hi[k] - lo[k]) * rand_unit();
		push_point(ps, x, LF_RANDOM_REAL);
	}
	for (uint32_t t = 0; t < m->nt; t++)
		if (rng_next(&rng) % keep_one_in == 0)
			triangle_points(ps, m, t, o);
}

/*
 * Answer for a convex body with outward faces, by half-spaces; -1 for a
 * point outside the body's box (no need to ask).
 */
static int
convex_locate(const mesh *m, uint32_t first, uint32_t end, const double *p)
{
	bool		on = false,
				near[3] = {false, false, false};

	for (int k = 0; k < 3; k++)
	{
		bool		below = false,
					above = false;

		for (uint32_t t = first; t < end; t++)
			for (int i = 0; i < 3; i++)
			{
				below |= vtx(m, t, i)[k] <= p[k];
				above |= vtx(m, t, i)[k] >= p[k];
			}
		near[k] = below && above;
	}
	if (!near[0] || !near[1] || !near[2])
		return -1;
	for (uint32_t t = first; t < end; t++)
	{
		int			s = ref_orient3d(vtx(m, t, 0), vtx(m, t, 1), vtx(m, t, 2), p);

		if (s > 0)
			return REF_OUTSIDE;
		on |= s == 0;
	}
	return on ? REF_BOUNDARY : REF_INSIDE;
}

/* Triangle range [first[b], first[b + 1]) of every body. */
static uint32_t *
body_ranges(const mesh *m)
{
	uint32_t   *first = calloc(m->nbodies + 1, sizeof(uint32_t));

	for (uint32_t t = 0, b = 0; b <= m->nbodies; b++)
	{
		while (t < m->nt && m->body[t] < b)
			t++;
		first[b] = t;
	}
	return first;
}

/* Reference locations of every (point, body), in parallel; self-checks too. */
static uint8_t *
reference_locations(const mesh *m, const pointset *ps)
{
	uint32_t	nb = m->nbodies;
	uint32_t   *first = body_ranges(m);
	ref_solid **solid = malloc(sizeof(ref_solid *) * nb);
	uint8_t    *loc = malloc((size_t) ps->n * nb);
	long		bad = 0;

	for (uint32_t b = 0; b < nb; b++)
		solid[b] = ref_solid_new(m->xyz, &m->tri[3 * (size_t) first[b]], first[b + 1] - first[b]);
#pragma omp parallel for schedule(dynamic, 64) reduction(+:bad)
	for (uint32_t i = 0; i < ps->n; i++)
	{
		const double *p = &ps->p[3 * (size_t) i];

		for (uint32_t b = 0; b < nb; b++)
		{
			int			r = ref_solid_locate(solid[b], p);

			loc[(size_t) i * nb + b] = (uint8_t) r;
			/* self-checks: half-spaces for convex bodies; the rational
			 * path (own boundary test) on a sample */
			if (b < 64 && m->convex[b])
			{
				int			c = convex_locate(m, first[b], first[b + 1], p);

				bad += c >= 0 ? c != r : r != REF_OUTSIDE;
			}
			if (i % 97 == 0)
			{
				mpq_t		q[3];
				int			r2;

				for (int k = 0; k < 3; k++)
				{
					mpq_init(q[k]);
					mpq_set_d(q[k], p[k]);
				}
				r2 = ref_solid_locate_q(solid[b], q);
				for (int k = 0; k < 3; k++)
					mpq_clear(q[k]);
				bad += r2 != r;
			}
		}
	}
	if (bad)
	{
		printf("  REFERENCE SELF-CHECK FAILED: %ld location mismatches\n", bad);
		self_check_failures += bad;
	}
	for (uint32_t b = 0; b < nb; b++)
		ref_solid_free(solid[b]);
	free(solid);
	free(first);
	return loc;
}

/* Engine answers as a (point, body) bitmap, or NULL on error. */
static uint8_t *
engine_locations(const mesh *m, const pointset *ps, exg_device dev, uint32_t cells,
				 exg_pair **pairs_out, size_t *n_out)
{
	exg_solid_set S = {{m->xyz, m->nv, m->tri, m->nt, 3, 0, NULL, NULL}, m->body, m->nbodies};
	exg_join_options opt;
	exg_error	err = {0};
	exg_pair   *pairs;
	size_t		n;
	uint8_t    *got;

	exg_join_options_default(&opt);
	opt.device = dev;
	opt.grid_cells = cells;
	if (exg_locate_join(ps->p, ps->n, &S, &opt, &pairs, &n, NULL, &err) != EXG_OK)
	{
		printf("  FAIL exg_locate_join (%s): %s\n", dev == EXG_DEVICE_GPU ? "GPU" : "CPU",
			   err.message);
		test_failures++;
		return NULL;
	}
	got = calloc((size_t) ps->n * m->nbodies, 1);
	for (size_t k = 0; k < n; k++)
	{
		if (k > 0 && (pairs[k - 1].a > pairs[k].a ||
					  (pairs[k - 1].a == pairs[k].a && pairs[k - 1].b >= pairs[k].b)))
		{
			printf("  FAIL exg_locate_join: pairs not sorted and unique at %zu\n", k);
			test_failures++;
		}
		if (pairs[k].a < ps->n && pairs[k].b < m->nbodies)
			got[(size_t) pairs[k].a * m->nbodies + pairs[k].b] = 1;
	}
	*pairs_out = pairs;
	*n_out = n;
	return got;
}

static void
compare_locations(const char *scene, const char *devname, const mesh *m, const pointset *ps,
				  const uint8_t *ref, const uint8_t *got, tally *tl, bool count)
{
	uint32_t	nb = m->nbodies;

	for (uint32_t i = 0; i < ps->n; i++)
		for (uint32_t b = 0; b < nb; b++)
		{
			int			r = ref[(size_t) i * nb + b];
			tally	   *t = &tl[ps->fam[i]];
			const double *p = &ps->p[3 * (size_t) i];

			if (count)
			{
				t->cases++;
				t->in += r == REF_INSIDE;
				t->bnd += r == REF_BOUNDARY;
			}
			if ((r != REF_OUTSIDE) == got[(size_t) i * nb + b])
				continue;
			t->disagree++;
			test_failures++;
			if (report_budget-- > 0)
				printf("  DISAGREE %s %s [%s] point %u (%.17g, %.17g, %.17g) body %u: "
					   "engine %s, reference %s\n", scene, devname, lf_names[ps->fam[i]], i,
					   p[0], p[1], p[2], b, got[(size_t) i * nb + b] ? "in" : "out",
					   r == REF_INSIDE ? "inside" : r == REF_BOUNDARY ? "boundary" : "outside");
		}
}

static void
device_name(char *buf, size_t len, exg_device dev, uint32_t cells)
{
	if (cells)
		snprintf(buf, len, "%s grid %u", dev == EXG_DEVICE_GPU ? "GPU" : "CPU", cells);
	else
		snprintf(buf, len, "%s", dev == EXG_DEVICE_GPU ? "GPU" : "CPU");
}

static void
check_locate_grids(const char *scene, const mesh *m, const pointset *ps, tally *tl,
				   const uint32_t *grids, int ngrid)
{
	double		t0 = now_seconds(),
				t1;
	uint8_t    *ref = reference_locations(m, ps);
	size_t		ndefault = 0;

	t1 = now_seconds();
	for (int gs = 0; gs < ngrid; gs++)
	{
		exg_pair   *pairs[2] = {NULL, NULL};
		size_t		n[2] = {0, 0};

		for (int d = 0; d < (have_gpu ? 2 : 1); d++)
		{
			exg_device	dev = d ? EXG_DEVICE_GPU : EXG_DEVICE_CPU;
			uint8_t    *got = engine_locations(m, ps, dev, grids[gs], &pairs[d], &n[d]);
			char		name[32];

			device_name(name, sizeof(name), dev, grids[gs]);
			if (got)
				compare_locations(scene, name, m, ps, ref, got, tl, gs == 0 && d == 0);
			free(got);
		}
		if (pairs[0] && pairs[1] &&
			(n[0] != n[1] || memcmp(pairs[0], pairs[1], n[0] * sizeof(exg_pair))))
		{
			printf("  FAIL %s grid %u: GPU pairs (%zu) differ from CPU pairs (%zu)\n", scene,
				   grids[gs], n[1], n[0]);
			test_failures++;
		}
		if (gs == 0)
			ndefault = n[0];
		for (int d = 0; d < 2; d++)
			if (pairs[d])
				exg_join_pairs_free(pairs[d]);
	}
	if (scene_lines)
		printf("  %-34s %6u points x %2u bodies (%5u triangles): %zu pairs in; "
			   "reference %.1f s, engine (%d grids) %.2f s\n",
		   scene, ps->n, m->nbodies, m->nt, ndefault, t1 - t0, ngrid, now_seconds() - t1);
	free(ref);
}

static void
check_locate_scene(const char *scene, const mesh *m, const pointset *ps, tally *tl)
{
	check_locate_grids(scene, m, ps, tl, grid_settings, m->nt > 1000 ? NGRID_FEW : NGRID / 2);
}

/* Dyadic bodies of every kind, some nested or sharing (part of) a face. */
static void
build_dyadic_scene(mesh *m, const double *o)
{
	double		lo[3] = {0, 0, 0},
				hi[3] = {4, 4, 4},
				nlo[3] = {1, 1, 1},
				nhi[3] = {2, 3, 2},
				plo[3] = {4, 0, 0},
				phi[3] = {6, 2, 4},
				flo[3] = {0, 4, 0},
				fhi[3] = {4, 8, 4},
				tlo[3] = {0, 0, 4},
				thi[3] = {4, 4, 6},
				slo[3] = {8, 0, 0},
				shi[3] = {12, 4, 4},
				oc[3] = {16, 2, 2},
				tc[3] = {16, 8, 2},
				hc[3] = {8, 6, 0},
				sc[3] = {4, 14, 3},
				rc[3] = {14, 14, 2};

	memset(m, 0, sizeof(*m));
	add_box(m, o, lo, hi, 1);
	add_box(m, o, nlo, nhi, 1);	/* nested in the first */
	add_box(m, o, plo, phi, 1);	/* shares part of a face with the first */
	add_box(m, o, flo, fhi, 1);	/* shares a whole face with the first */
	add_box(m, o, tlo, thi, 1);	/* stacked on the first: its top face */
	add_box(m, o, slo, shi, 4);	/* faces split into 4 x 4 grids */
	add_octahedron(m, o, oc, 2);
	add_tetra(m, o, tc);
	add_heightfield(m, o, hc, 6, 4);
	add_round(m, o, sc, 4, 0, false, 24, 12);
	add_round(m, o, rc, 4, 1.5, true, 24, 12);
}

/* Bodies with arbitrary coordinates (nothing exactly representable around). */
static void
build_generic_scene(mesh *m, const double *o)
{
	memset(m, 0, sizeof(*m));
	for (int i = 0; i < 6; i++)
	{
		double		c[3] = {3.3 * (i % 3) + 0.1, 3.7 * (i / 3) + 0.2, 0.3 * i};

		add_generic_tetra(m, o, c);
	}
	{
		double		c[3] = {1.1, 9.3, 1.7};

		add_octahedron(m, o, c, 1.7);
	}
}

/*
 * Random bodies on the integer grid, overlapping and touching freely:
 * boxes (faces split or not), octahedra, tetrahedra, small bumpy spheres.
 */
static void
build_random_scene(mesh *m, const double *o, int nbodies)
{
	memset(m, 0, sizeof(*m));
	for (int i = 0; i < nbodies; i++)
	{
		double		c[3] = {rand_int(0, 10), rand_int(0, 10), rand_int(0, 6)};

		switch (rand_int(0, 3))
		{
			case 0:
				{
					double		hi[3] = {c[0] + rand_int(1, 4), c[1] + rand_int(1, 4),
					c[2] + rand_int(1, 4)};

					add_box(m, o, c, hi, rand_int(1, 2));
					break;
				}
			case 1:
				add_octahedron(m, o, c, rand_int(1, 3));
				break;
			case 2:
				add_tetra(m, o, c);
				break;
			default:
				add_round(m, o, c, rand_int(2, 3), 0, false, 12, 6);
				break;
		}
	}
}

/*
 * Boxes and octahedra with integer corners over a 24 x 24 slab: the column
 * grid's walls (24 j / n) then fall exactly on faces and lattice points for
 * many grid sizes, though its cell width is not a dyadic number.
 */
static void
build_lattice_scene(mesh *m, const double *o)
{
	double		slo[3] = {0, 0, 0},
				shi[3] = {24, 24, 0.5};

	memset(m, 0, sizeof(*m));
	add_box(m, o, slo, shi, 1);
	for (int i = 0; i < 14; i++)
	{
		double		lo[3] = {rand_int(0, 20), rand_int(0, 20), rand_int(0, 8)},
					hi[3];

		for (int k = 0; k < 3; k++)
			hi[k] = fmin(24, lo[k] + rand_int(1, 6));
		if (i % 3 == 2)
		{
			double		r = rand_int(1, 3);

			for (int k = 0; k < 3; k++)
				lo[k] = fmin(fmax(lo[k], r), 24 - r);
			add_octahedron(m, o, lo, r);
		}
		else
			add_box(m, o, lo, hi, rand_int(1, 2));
	}
}

/*
 * Over [0, L]^2, L = Lq / 8: boxes and octahedra with faces and vertices on
 * the walls x, y = j L / n of an n x n column grid that are exact doubles
 * (L / n itself is not dyadic), and points on those walls.
 */
static void
wall_scene(mesh *m, pointset *ps, const double *o, int Lq, int n, long npoints)
{
	double		L = Lq / 8.0,
				v[34];
	int			nv = 0;
	double		slo[3] = {0, 0, -1},
				shi[3] = {L, L, -0.5},
				lo[3] = {0, 0, -2},
				hi[3] = {L, L, 8};

	v[nv++] = 0;
	v[nv++] = L;
	for (int j = 1; j < n && nv < 34; j++)
		if ((Lq * j) % n == 0)
			v[nv++] = Lq * j / n / 8.0;
	memset(m, 0, sizeof(*m));
	add_box(m, o, slo, shi, 1);	/* pins the xy box to [0, L]^2 */
	for (int i = 0; i < 6; i++)
	{
		double		blo[3],
					bhi[3];

		for (int k = 0; k < 2; k++)
		{
			double		a = v[rand_int(0, nv - 1)],
						b = rng_next(&rng) % 2 ? v[rand_int(0, nv - 1)] : rand_int(0, Lq) / 8.0;

			if (a == b)
				b = a < L / 2 ? a + 1 : a - 1;
			blo[k] = fmin(a, b);
			bhi[k] = fmax(a, b);
		}
		blo[2] = rand_int(0, 12) / 4.0;
		bhi[2] = blo[2] + rand_int(1, 12) / 4.0;
		if (i % 4 == 3)
		{
			double		c[3] = {v[rand_int(0, nv - 1)], v[rand_int(0, nv - 1)], 3},
						r = 1;

			c[0] = fmin(fmax(c[0], r), L - r);
			c[1] = fmin(fmax(c[1], r), L - r);
			add_octahedron(m, o, c, r);
		}
		else
			add_box(m, o, blo, bhi, rand_int(1, 2));
	}
	make_points(ps, m, o, lo, hi, npoints / 8, 2);
	for (long i = 0; i < npoints; i++)
	{
		double		x[3];
		int			k = rand_int(0, 1);

		x[k] = o[k] + v[rand_int(0, nv - 1)];
		x[1 - k] = o[1 - k] + (rng_next(&rng) % 2 ? v[rand_int(0, nv - 1)] : rand_int(0, Lq) / 8.0);
		x[2] = o[2] + rand_int(-4, 28) / 4.0;
		push_point(ps, x, LF_ON_WALL);
	}
}

static void
run_locate(void)
{
	const double zero[3] = {0, 0, 0},
				utm[3] = {500000, 7000000, -500};
	double		lo[3] = {-2, -2, -2},
				hi[3] = {20, 20, 8},
				glo[3] = {-2, -2, -2},
				ghi[3] = {10, 12, 5},
				rlo_hi[3] = {16, 16, 12},
				llo[3] = {0, 0, 0},
				lhi[3] = {24, 24, 15};
	tally		tl[LF_N];
	double		t0;
	long		npts = 0;

	report_budget = MAX_REPORT;
	printf("== exg_locate_join: (point, body) in closed bodies%s\n",
		   have_gpu ? " (CPU and GPU)" : " (CPU)");
	for (int i = 0; i < LF_N; i++)
		tl[i] = (tally) {lf_names[i], 0, 0, 0, 0};
	for (int s = 0; s < 8; s++)
	{
		const double *o = s % 2 ? utm : zero;
		mesh		m;
		pointset	ps = {0};
		char		name[64];
		static const char *const kinds[4] = {"dyadic", "random bodies", "generic", "lattice"};

		if (s < 2)
		{
			build_dyadic_scene(&m, o);
			make_points(&ps, &m, o, lo, hi, scaled(3000), scale >= 1 ? 1 : (int) (1 / scale));
		}
		else if (s < 4)
		{
			build_random_scene(&m, o, 16);
			make_points(&ps, &m, o, lo, rlo_hi, scaled(2000), scale >= 1 ? 1 : (int) (1 / scale));
		}
		else if (s < 6)
		{
			build_generic_scene(&m, o);
			make_points(&ps, &m, o, glo, ghi, scaled(2000), 1);
		}
		else
		{
			build_lattice_scene(&m, o);
			make_points(&ps, &m, o, llo, lhi, scaled(3000), 1);
		}
		snprintf(name, sizeof(name), "%s scene%s", kinds[s / 2], s % 2 ? " at UTM" : "");
		check_locate_scene(name, &m, &ps, tl);
		free(ps.p);
		free(ps.fam);
		test_mesh_free(&m);
	}
	scene_lines = false;
	t0 = now_seconds();
	for (int s = 0; s < 72; s++)
	{
		static const int nn[6] = {6, 9, 10, 12, 14, 15},
					pp[6] = {3, 3, 5, 3, 7, 3};
		int			n = nn[s % 6],
					r;
		mesh		m;
		pointset	ps = {0};
		char		name[64];
		uint32_t	cells[4];

		do
			r = 2 * rand_int(4, 40) + 1;
		while (r % pp[s % 6] == 0 || n / pp[s % 6] * r < 64);
		wall_scene(&m, &ps, s % 2 ? utm : zero, n / pp[s % 6] * r, n, scaled(400));
		cells[0] = (uint32_t) (n * n);
		cells[1] = cells[0] - 1;
		cells[2] = cells[0] + 1;
		cells[3] = 0;
		snprintf(name, sizeof(name), "walls of a %d^2 grid, L %g%s", n, n / pp[s % 6] * r / 8.0,
				 s % 2 ? " at UTM" : "");
		check_locate_grids(name, &m, &ps, tl, cells, 4);
		npts += ps.n;
		free(ps.p);
		free(ps.fam);
		test_mesh_free(&m);
	}
	scene_lines = true;
	printf("  %-34s %6ld points in 72 scenes (n^2 grids, n = 6 .. 15, and the engine's own), %.1f s\n",
		   "bodies on exact grid walls", npts, now_seconds() - t0);
	print_tallies("family ((point, body) pairs)", tl, LF_N, "inside", "boundary");
}

/* ------------------------------------------------------------------ */
/* 2. Self-intersections.                                             */

enum
{
	SF_GRID_VERTEX,
	SF_GRID_EDGE,
	SF_GRID_NONE,
	SF_COPLANAR_VERTEX,
	SF_COPLANAR_EDGE,
	SF_COPLANAR_NONE,
	SF_CONSTRUCTED,
	SF_ULP_FREE,
	SF_ULP_SHARED,
	SF_SIGNED_ZERO,
	SF_CELL_WALL,
	SF_MESH,
	SF_N
};

static const char *const sf_names[SF_N] = {
	"grid, share a vertex", "grid, share an edge", "grid, share nothing",
	"coplanar, share a vertex", "coplanar, share an edge", "coplanar, share nothing",
	"constructed contacts", "one ulp on an unshared vertex", "one ulp on a shared vertex",
	"signed zeros", "touching across lattice planes", "meshes of closed bodies"
};

/* A soup of triangles, each its own face, with a family per triangle. */
typedef struct soup
{
	mesh		m;
	uint8_t    *fam;
	uint32_t	capfam;
} soup;

static void
soup_add(soup *s, const double T[3][3], const int reuse[3], uint32_t first_of_a, int fam)
{
	uint32_t	id[3];

	for (int i = 0; i < 3; i++)
		id[i] = reuse && reuse[i] >= 0 ? first_of_a + (uint32_t) reuse[i]
			: test_mesh_vertex(&s->m, T[i][0], T[i][1], T[i][2]);
	test_mesh_triangle(&s->m, id[0], id[1], id[2]);
	if (s->m.nt > s->capfam)
	{
		s->capfam = s->m.ct;
		s->fam = realloc(s->fam, s->capfam);
	}
	s->fam[s->m.nt - 1] = (uint8_t) fam;
}

static void
grid_pt(double p[3], int g, bool flat)
{
	p[0] = rand_int(0, g);
	p[1] = rand_int(0, g);
	p[2] = flat ? 0 : rand_int(0, g);
}

/*
 * Local pair for family f on a small integer grid: B takes `share` of A's
 * vertices (0, 1 or 2), the rest random; coplanar families keep z = 0.
 */
static void
grid_pair(double A[3][3], double B[3][3], int share, bool flat)
{
	int			g = flat ? 3 : 2 + rand_int(0, 1);
	int			r = rand_int(0, 2);

	do
		for (int i = 0; i < 3; i++)
			grid_pt(A[i], g, flat);
	while (ref_triangle_degenerate(A));
	do
	{
		for (int j = 0; j < 3; j++)
		{
			if (j < share)
				memcpy(B[j], A[(r + j) % 3], sizeof(double) * 3);
			else
				grid_pt(B[j], g, flat);
		}
	} while (ref_triangle_degenerate(B));
}

/* Hand-made contacts around A = (0,0,0), (4,0,0), (0,4,0). */
static void
constructed_pair(double A[3][3], double B[3][3], int which)
{
	static const double a[3][3] = {{0, 0, 0}, {4, 0, 0}, {0, 4, 0}};
	static const double b[][3][3] = {
		{{0, 0, 0}, {1, 1, -1}, {1, 1, 1}},	/* shared vertex, opposite edge pierces */
		{{0, 0, 0}, {2, 2, 0}, {0, 0, 2}},	/* shared vertex, touches along a segment */
		{{0, 0, 0}, {2, 2, 1}, {1, 3, 2}},	/* shared vertex only */
		{{0, 0, 0}, {-1, 2, 0}, {-2, 1, 0}},	/* coplanar, outside, vertex only */
		{{0, 0, 0}, {0, 2, 0}, {-2, 1, 0}},	/* coplanar, shares half an edge line */
		{{0, 0, 0}, {2, 0, 1}, {2, 0, -1}},	/* shared vertex, edge opposite touches A's edge */
		{{4, 0, 0}, {0, 4, 0}, {4, 4, 0}},	/* shared edge, coplanar, other side */
		{{4, 0, 0}, {0, 4, 0}, {1, 1, 0}},	/* shared edge, coplanar, same side */
		{{4, 0, 0}, {0, 4, 0}, {1, 1, 3}},	/* shared edge, folded */
		{{4, 0, 0}, {0, 4, 0}, {-1, -1, 0}},	/* shared edge, covers A */
		{{0, 0, 0}, {4, 0, 0}, {0, 4, 0}},	/* duplicate */
		{{1, 1, 0}, {1, 1, 2}, {3, 3, 2}},	/* no shared vertex: vertex on A's face */
		{{2, 2, 0}, {3, 3, 1}, {3, 3, -1}},	/* vertex on A's edge, grazing */
		{{2, 2, -1}, {2, 2, 1}, {5, 5, 0}},	/* edge through A's edge */
		{{4, 0, 0}, {5, 1, 0}, {6, 0, 0}},	/* coplanar vertex contact only */
		{{4, 0, 0}, {5, 1, 1}, {6, 0, -1}},	/* vertex contact, not coplanar */
		{{0, 0, 0}, {4, 0, 0}, {2, 0, 3}},	/* shared edge, perpendicular */
		{{0, 0, 0}, {8, 0, 0}, {0, 0, 3}},	/* shared vertex, overlapping collinear edges */
		{{0, 0, 0}, {2, 0, 0}, {0, 0, 3}},	/* shared vertex, B's edge inside A's edge */
		{{2, 0, 0}, {4, 0, 0}, {2, 0, 3}},	/* shared vertex (4,0,0), edge on A's edge */
	};
	int			n = (int) (sizeof(b) / sizeof(b[0]));

	memcpy(A, a, sizeof(a));
	memcpy(B, b[which % n], sizeof(b[0]));
}

static void
place(double T[3][3], const double *o, double unit)
{
	for (int i = 0; i < 3; i++)
		for (int k = 0; k < 3; k++)
			T[i][k] = o[k] + T[i][k] * unit;
}

/* reuse[j] = index of A's vertex equal to B's vertex j, or -1. */
static void
match_vertices(const double A[3][3], const double B[3][3], int reuse[3])
{
	for (int j = 0; j < 3; j++)
	{
		reuse[j] = -1;
		for (int i = 0; i < 3; i++)
			if (A[i][0] == B[j][0] && A[i][1] == B[j][1] && A[i][2] == B[j][2])
				reuse[j] = i;
	}
}

/* One pair in its own cell of the soup; shared vertices sometimes by index. */
static void
add_pair(soup *s, double A[3][3], double B[3][3], int fam)
{
	int			reuse[3];
	uint32_t	first = s->m.nv;

	if (ref_triangle_degenerate(A) || ref_triangle_degenerate(B))
		return;
	match_vertices(A, B, reuse);
	soup_add(s, A, NULL, 0, fam);
	soup_add(s, B, rng_next(&rng) % 2 ? reuse : NULL, first, fam);
}

/* Which B vertices equal an A vertex; pick one of them or of the others. */
static int
pick_vertex(const double A[3][3], const double B[3][3], bool shared)
{
	int			reuse[3],
				cand[3],
				n = 0;

	match_vertices(A, B, reuse);
	for (int j = 0; j < 3; j++)
		if ((reuse[j] >= 0) == shared)
			cand[n++] = j;
	return n ? cand[rand_int(0, n - 1)] : -1;
}

static void
make_pairs(soup *s, const double *base, long npairs, tally *tl)
{
	static const int share_of_kind[6] = {1, 2, 0, 1, 2, 0};

	for (long i = 0; i < npairs; i++)
	{
		double		o[3] = {base[0] + 64.0 * (i % 512), base[1] + 64.0 * (i / 512), base[2]};
		double		A[3][3],
					B[3][3],
					unit = rng_next(&rng) % 2 ? 1.0 : 0.375;
		int			kind = (int) (i % 7),
					variant = rand_int(0, 2),
					fam,
					j;

		if (kind < 6)
		{
			grid_pair(A, B, share_of_kind[kind], kind >= 3);
			fam = SF_GRID_VERTEX + kind;
		}
		else
		{
			constructed_pair(A, B, rand_int(0, 1000));
			fam = SF_CONSTRUCTED;
		}
		place(A, o, unit);
		place(B, o, unit);
		/* a third of the pairs move one vertex of B by one ulp */
		if (variant == 1 && (j = pick_vertex(A, B, false)) >= 0)
		{
			nudge(B[j]);
			fam = SF_ULP_FREE;
		}
		else if (variant == 2 && (j = pick_vertex(A, B, true)) >= 0)
		{
			nudge(B[j]);
			fam = SF_ULP_SHARED;
		}
		if (ref_triangle_degenerate(A) || ref_triangle_degenerate(B))
			continue;
		tl[fam].cases++;
		add_pair(s, A, B, fam);
	}
}

/* Copy triangle t of m as a 3 x 3 array. */
static void
get_tri(const mesh *m, uint32_t t, double T[3][3])
{
	for (int i = 0; i < 3; i++)
		memcpy(T[i], vtx(m, t, i), sizeof(double) * 3);
}

static int
pair_cmp(const void *x, const void *y)
{
	const exg_pair *p = x,
			   *q = y;

	if (p->a != q->a)
		return p->a < q->a ? -1 : 1;
	return p->b < q->b ? -1 : p->b > q->b;
}

typedef struct tbox
{
	double		b[6];
	uint32_t	t;
} tbox;

static int
tbox_cmp(const void *x, const void *y)
{
	double		a = ((const tbox *) x)->b[0],
				b = ((const tbox *) y)->b[0];

	return a < b ? -1 : a > b;
}

/*
 * The reference: every pair of triangles whose closed boxes meet, decided by
 * ref_improper_contact; pairs (a < b) sorted. Disjoint-vertex pairs are also
 * checked against the hull-intersection reference.
 */
static exg_pair *
reference_self_intersections(const mesh *m, size_t *n_out, size_t *ncand)
{
	tbox	   *bx = malloc(sizeof(tbox) * (m->nt + 1));
	exg_pair   *cand = NULL,
			   *out;
	size_t		nc = 0,
				cap = 0,
				n = 0;
	long		bad = 0;

	for (uint32_t t = 0; t < m->nt; t++)
	{
		bx[t].t = t;
		for (int k = 0; k < 3; k++)
		{
			bx[t].b[k] = bx[t].b[3 + k] = vtx(m, t, 0)[k];
			for (int i = 1; i < 3; i++)
			{
				double		v = vtx(m, t, i)[k];

				bx[t].b[k] = v < bx[t].b[k] ? v : bx[t].b[k];
				bx[t].b[3 + k] = v > bx[t].b[3 + k] ? v : bx[t].b[3 + k];
			}
		}
	}
	qsort(bx, m->nt, sizeof(tbox), tbox_cmp);
	for (uint32_t i = 0; i < m->nt; i++)
		for (uint32_t j = i + 1; j < m->nt && bx[j].b[0] <= bx[i].b[3]; j++)
		{
			if (bx[j].b[4] < bx[i].b[1] || bx[j].b[1] > bx[i].b[4] ||
				bx[j].b[5] < bx[i].b[2] || bx[j].b[2] > bx[i].b[5])
				continue;
			if (nc == cap)
			{
				cap = cap ? 2 * cap : 4096;
				cand = realloc(cand, sizeof(exg_pair) * cap);
			}
			cand[nc].a = bx[i].t < bx[j].t ? bx[i].t : bx[j].t;
			cand[nc++].b = bx[i].t < bx[j].t ? bx[j].t : bx[i].t;
		}
	out = malloc(sizeof(exg_pair) * (nc + 1));
	{
		uint8_t    *hit = calloc(nc + 1, 1);

#pragma omp parallel for schedule(dynamic, 256) reduction(+:bad)
		for (size_t c = 0; c < nc; c++)
		{
			double		A[3][3],
						B[3][3];
			int			reuse[3];

			get_tri(m, cand[c].a, A);
			get_tri(m, cand[c].b, B);
			hit[c] = ref_improper_contact(A, B);
			match_vertices(A, B, reuse);
			if (reuse[0] < 0 && reuse[1] < 0 && reuse[2] < 0 &&
				!ref_triangle_degenerate(A) && !ref_triangle_degenerate(B) &&
				hit[c] != ref_triangle_triangle_3d(A[0], A[1], A[2], B[0], B[1], B[2]))
				bad++;
		}
		for (size_t c = 0; c < nc; c++)
			if (hit[c])
				out[n++] = cand[c];
		free(hit);
	}
	if (bad)
	{
		printf("  REFERENCE SELF-CHECK FAILED: %ld contacts differ from ref_triangle_triangle_3d\n", bad);
		self_check_failures += bad;
	}
	free(cand);
	free(bx);
	qsort(out, n, sizeof(exg_pair), pair_cmp);
	*n_out = n;
	*ncand = nc;
	return out;
}

/* Engine face pairs, each triangle its own face; NULL on error. */
static exg_pair *
engine_self_intersections(const mesh *m, exg_device dev, uint32_t cells, size_t *n_out)
{
	exg_prim_set T = {m->xyz, m->nv, m->tri, m->nt, 3, 0, NULL, NULL};
	uint32_t   *face = malloc(sizeof(uint32_t) * (m->nt + 1));
	exg_join_options opt;
	exg_error	err = {0};
	exg_pair   *pairs = NULL;

	for (uint32_t t = 0; t < m->nt; t++)
		face[t] = t;
	exg_join_options_default(&opt);
	opt.device = dev;
	opt.grid_cells = cells;
	if (exg_self_intersections(&T, face, &opt, &pairs, n_out, NULL, &err) != EXG_OK)
	{
		printf("  FAIL exg_self_intersections (%s): %s\n", dev == EXG_DEVICE_GPU ? "GPU" : "CPU",
			   err.message);
		test_failures++;
		pairs = NULL;
	}
	free(face);
	return pairs;
}

static void
print_triangle_pair(const mesh *m, exg_pair p)
{
	for (int w = 0; w < 2; w++)
	{
		uint32_t	t = w ? p.b : p.a;

		printf("      %c = ", w ? 'B' : 'A');
		for (int i = 0; i < 3; i++)
			printf("(%.17g, %.17g, %.17g)%s", vtx(m, t, i)[0], vtx(m, t, i)[1], vtx(m, t, i)[2],
				   i < 2 ? ", " : "\n");
	}
}

/* Walk two sorted pair lists; fam (per triangle) or fixed_fam names the family. */
static void
compare_pairs(const char *scene, const char *devname, const mesh *m, const exg_pair *ref,
			  size_t nref, const exg_pair *got, size_t ngot, const uint8_t *fam, int fixed_fam,
			  tally *tl)
{
	size_t		i = 0,
				j = 0;

	while (i < nref || j < ngot)
	{
		int			c = i == nref ? 1 : j == ngot ? -1 : pair_cmp(&ref[i], &got[j]);
		exg_pair	p = c <= 0 ? ref[i] : got[j];
		int			f = fam ? fam[p.a] : fixed_fam;

		if (c == 0)
		{
			i++, j++;
			continue;
		}
		tl[f].disagree++;
		test_failures++;
		if (report_budget-- > 0)
		{
			printf("  DISAGREE %s %s [%s] faces %u, %u: engine %s, reference %s\n", scene, devname,
				   sf_names[f], p.a, p.b, c < 0 ? "proper" : "IMPROPER",
				   c < 0 ? "IMPROPER" : "proper");
			print_triangle_pair(m, p);
		}
		if (c < 0)
			i++;
		else
			j++;
	}
}

/* Reference, CPU, and GPU (when there is one) on one mesh. */
static void
check_self_mesh_grids(const char *scene, const mesh *m, const uint8_t *fam, int fixed_fam,
					  tally *tl, const uint32_t *grids, int ngrid)
{
	double		t0 = now_seconds(),
				t1;
	size_t		nref,
				ncand;
	exg_pair   *ref = reference_self_intersections(m, &nref, &ncand);
	bool		quiet = ngrid == 1;

	t1 = now_seconds();
	for (size_t k = 0; k < nref; k++)
		tl[fam ? fam[ref[k].a] : fixed_fam].in++;
	if (!fam)
		tl[fixed_fam].cases += ncand;
	for (int gs = 0; gs < ngrid; gs++)
	{
		exg_pair   *got[2] = {NULL, NULL};
		size_t		n[2] = {0, 0};

		for (int d = 0; d < (have_gpu ? 2 : 1); d++)
		{
			exg_device	dev = d ? EXG_DEVICE_GPU : EXG_DEVICE_CPU;
			char		name[32];

			device_name(name, sizeof(name), dev, grids[gs]);
			got[d] = engine_self_intersections(m, dev, grids[gs], &n[d]);
			if (got[d])
				compare_pairs(scene, name, m, ref, nref, got[d], n[d], fam, fixed_fam, tl);
		}
		if (got[0] && got[1] && (n[0] != n[1] || memcmp(got[0], got[1], sizeof(exg_pair) * n[0])))
		{
			printf("  FAIL %s grid %u: GPU face pairs (%zu) differ from CPU ones (%zu)\n", scene,
				   grids[gs], n[1], n[0]);
			test_failures++;
		}
		free(got[0]);
		free(got[1]);
	}
	if (!quiet && scene_lines)
		printf("  %-34s %6u triangles, %7zu box-overlapping pairs, %6zu improper; "
			   "reference %.1f s, engine (%d grids) %.2f s\n",
			   scene, m->nt, ncand, nref, t1 - t0, ngrid, now_seconds() - t1);
	free(ref);
}

/*
 * Pairs whose boxes only touch, in a plane u = c: A has an edge in the
 * plane, B (on the other side) puts a vertex on that edge — inside it, at
 * A's vertex, or one ulp off. The box is pinned to [0, L]^3 by two tiny
 * corner triangles, L = Lq / 8, and c = L j / n is exact while the cell
 * width L / n of an n x n x n grid is not a dyadic number: the planes lie
 * exactly on grid walls that the engine can only compute rounded.
 */
static void
make_wall_pairs(soup *s, const double *o, int Lq, int n, long npairs, tally *tl)
{
	double		L = Lq / 8.0;
	double		corner[2][3][3] = {
		{{0, 0, 0}, {0.125, 0, 0}, {0, 0.125, 0}},
		{{L, L, L}, {L - 0.125, L, L}, {L, L - 0.125, L}}};
	int			walls[32],
				nwalls = 0;

	for (int j = 1; j < n && nwalls < 32; j++)
		if ((Lq * j) % n == 0)
			walls[nwalls++] = Lq * j / n;	/* c = walls[] / 8 */
	for (int i = 0; i < 2; i++)
	{
		place(corner[i], o, 1);
		soup_add(s, corner[i], NULL, 0, SF_CELL_WALL);
	}
	for (long i = 0; i < npairs && nwalls > 0; i++)
	{
		int			u = rand_int(0, 2),
					v = (u + 1) % 3,
					w = (u + 2) % 3,
					where = rand_int(0, 3);
		double		c = walls[rand_int(0, nwalls - 1)] / 8.0,
					v0 = 1 + rand_int(0, (int) (L - 4) * 8) / 8.0,
					w0 = 1 + rand_int(0, (int) (L - 4) * 8) / 8.0,
					A[3][3] = {{0}},
					B[3][3] = {{0}};
		double		a[3][3] = {{c, v0, w0}, {c, v0, w0 + 2}, {c + 1, v0 + 1, w0 + 1}};
		double		b[3][3] = {{c, v0, where == 1 ? w0 : w0 + 1}, {c - 1, v0 - 1, w0 + 1},
		{c - 1, v0 + 1, w0 + 0.5}};

		for (int j = 0; j < 3; j++)
		{
			A[j][u] = a[j][0], A[j][v] = a[j][1], A[j][w] = a[j][2];
			B[j][u] = b[j][0], B[j][v] = b[j][1], B[j][w] = b[j][2];
		}
		if (rng_next(&rng) % 2)		/* swap roles: the edge's side first or second */
		{
			double		tmp[3][3];

			memcpy(tmp, A, sizeof(tmp));
			memcpy(A, B, sizeof(tmp));
			memcpy(B, tmp, sizeof(tmp));
		}
		place(A, o, 1);
		place(B, o, 1);
		if (where >= 2)			/* one ulp off the plane or along it */
			nudge(where == 2 ? B[0] : A[0]);
		if (ref_triangle_degenerate(A) || ref_triangle_degenerate(B))
			continue;
		tl[SF_CELL_WALL].cases++;
		add_pair(s, A, B, SF_CELL_WALL);
	}
}

static void
check_self_mesh(const char *scene, const mesh *m, const uint8_t *fam, int fixed_fam, tally *tl,
				bool quiet)
{
	check_self_mesh_grids(scene, m, fam, fixed_fam, tl, grid_settings,
						  quiet ? 1 : m->nt > 10000 ? NGRID_FEW : m->nt > 800 ? NGRID / 2 : NGRID);
}

/* Signed zeros: -0.0 and 0.0 are the same coordinate (one pair per call). */
static void
check_signed_zeros(tally *tl, long npairs)
{
	for (long i = 0; i < npairs; i++)
	{
		double		A[3][3],
					B[3][3];
		soup		s = {0};
		int			share = (int) (i % 3);

		grid_pair(A, B, share, i % 2 == 0);
		for (int j = 0; j < 3; j++)
			for (int k = 0; k < 3; k++)
			{
				if (B[j][k] == 0 && rng_next(&rng) % 2)
					B[j][k] = -0.0;
				if (A[j][k] == 0 && rng_next(&rng) % 4 == 0)
					A[j][k] = -0.0;
			}
		tl[SF_SIGNED_ZERO].cases++;
		add_pair(&s, A, B, SF_SIGNED_ZERO);
		check_self_mesh("signed zeros", &s.m, s.fam, SF_SIGNED_ZERO, tl, true);
		test_mesh_free(&s.m);
		free(s.fam);
	}
}

/* Closed bodies, some overlapping, one sharing a face, some touching. */
static void
build_contact_scene(mesh *m, const double *o)
{
	double		alo[3] = {0, 0, 0},
				ahi[3] = {4, 4, 4},
				blo[3] = {2, 2, 2},
				bhi[3] = {6, 6, 6},
				clo[3] = {4, 0, 0},
				chi[3] = {8, 4, 4},
				dlo[3] = {-4, -4, 0},
				dhi[3] = {0, 0, 4},
				elo[3] = {1, 1, 1},
				ehi[3] = {1.5, 1.5, 1.5},
				oct[3] = {1, 1, 5},
				sc[3] = {14, 3, 2},
				hc[3] = {20, 10, 0},
				tc[3] = {2, 12, 2};

	memset(m, 0, sizeof(*m));
	add_box(m, o, alo, ahi, 2);
	add_box(m, o, blo, bhi, 1);	/* overlaps A */
	add_box(m, o, clo, chi, 2);	/* shares A's face x = 4, cut alike */
	add_box(m, o, dlo, dhi, 1);	/* touches A along an edge */
	add_box(m, o, elo, ehi, 1);	/* nested in A, no contact */
	add_octahedron(m, o, oct, 1);	/* a vertex on A's top face */
	add_round(m, o, sc, 3, 0, false, 16, 8);
	add_round(m, o, sc, 4, 1.5, true, 16, 8);	/* cuts the sphere */
	add_heightfield(m, o, hc, 4, 3);
	add_tetra(m, o, tc);
	add_tetra(m, o, tc);		/* two random tetrahedra in one place */
}

static void
run_self_intersections(void)
{
	const double zero[3] = {0, 0, 0},
				utm[3] = {500000, 7000000, -500};
	tally		tl[SF_N];
	double		t0;

	report_budget = MAX_REPORT;
	printf("== exg_self_intersections: face pairs meeting improperly%s\n",
		   have_gpu ? " (CPU and GPU)" : " (CPU)");
	for (int i = 0; i < SF_N; i++)
		tl[i] = (tally) {sf_names[i], 0, 0, 0, 0};
	for (int s = 0; s < 2; s++)
	{
		soup		sp = {0};

		make_pairs(&sp, s ? utm : zero, scaled(30000), tl);
		check_self_mesh(s ? "triangle pairs at UTM" : "triangle pairs", &sp.m, sp.fam, 0, tl, false);
		test_mesh_free(&sp.m);
		free(sp.fam);
	}
	check_signed_zeros(tl, scaled(200));
	scene_lines = false;
	t0 = now_seconds();
	for (int s = 0; s < 144; s++)
	{
		/* n x n x n grids over [0, Lq / 8]^3, Lq sharing a factor with n */
		static const int nn[6] = {6, 9, 10, 12, 14, 15},
					pp[6] = {3, 3, 5, 3, 7, 3};
		int			n = nn[s % 6],
					r;
		soup		sp = {0};
		char		name[64];
		uint32_t	cells[3];

		do
			r = 2 * rand_int(4, 40) + 1;
		while (r % pp[s % 6] == 0 || n / pp[s % 6] * r < 64);
		make_wall_pairs(&sp, s % 2 ? utm : zero, n / pp[s % 6] * r, n, scaled(40), tl);
		cells[0] = (uint32_t) (n * n * n);
		cells[1] = cells[0] - 1;
		cells[2] = cells[0] + 1;
		snprintf(name, sizeof(name), "touching pairs, grid %d^3, L %g%s", n, n / pp[s % 6] * r / 8.0,
				 s % 2 ? " at UTM" : "");
		check_self_mesh_grids(name, &sp.m, sp.fam, 0, tl, cells, 3);
		test_mesh_free(&sp.m);
		free(sp.fam);
	}
	scene_lines = true;
	printf("  %-34s %6ld pairs in 144 soups (n^3 grids, n = 6 .. 15), %.1f s\n",
		   "pairs touching on exact grid walls", tl[SF_CELL_WALL].cases, now_seconds() - t0);
	for (int s = 0; s < 6; s++)
	{
		mesh		m;
		static const char *const names[6] = {"closed bodies", "closed bodies at UTM",
		"random bodies", "random bodies at UTM", "random bodies (2)", "random bodies at UTM (2)"};

		if (s < 2)
			build_contact_scene(&m, s % 2 ? utm : zero);
		else
			build_random_scene(&m, s % 2 ? utm : zero, 24);
		check_self_mesh(names[s], &m, NULL, SF_MESH, tl, false);
		test_mesh_free(&m);
	}
	print_tallies("family (pairs)", tl, SF_N, "improper", "");
}

/* ------------------------------------------------------------------ */
/* 3. Drill-hole intercepts.                                          */

enum
{
	HF_RANDOM_GRID,
	HF_RANDOM_REAL,
	HF_VERTICAL_VERTEX,
	HF_VERTICAL_EDGE,
	HF_VERTICAL_FACE,
	HF_THROUGH_VERTEX,
	HF_ALONG_EDGE,
	HF_IN_FACE_PLANE,
	HF_GRAZING,
	HF_ULP,
	HF_FROM_INSIDE,
	HF_N
};

static const char *const hf_names[HF_N] = {
	"random grid holes", "random real holes", "vertical through vertices",
	"vertical through edges", "vertical through faces", "through vertices, any way",
	"along edges", "in face planes", "grazing (hand-made)", "one ulp off special holes",
	"from the centre, out by a vertex"
};

enum
{
	IB_BOX,
	IB_SPLIT_BOX,
	IB_OCTAHEDRON,
	IB_TETRA,
	IB_HEIGHTFIELD,
	IB_SPHERE,
	IB_TORUS,
	IB_TWO_BOXES_FACE,
	IB_TWO_BOXES_APART,
	IB_N
};

static const char *const ib_names[IB_N] = {
	"box", "box, faces split 3 x 3", "octahedron", "tetrahedron", "height-field block",
	"bumpy sphere", "torus", "two boxes sharing a face", "two boxes apart"
};

typedef struct hole
{
	double		v[4][3];
	int			n;
	int			fam;
} hole;

typedef struct holeset
{
	hole	   *h;
	size_t		n,
				cap;
} holeset;

static hole *
new_hole(holeset *hs, int fam)
{
	if (hs->n == hs->cap)
	{
		hs->cap = hs->cap ? 2 * hs->cap : 64;
		hs->h = realloc(hs->h, sizeof(hole) * hs->cap);
	}
	memset(&hs->h[hs->n], 0, sizeof(hole));
	hs->h[hs->n].fam = fam;
	return &hs->h[hs->n++];
}

static void
hole_segment(holeset *hs, int fam, const double *a, const double *b)
{
	hole	   *h = new_hole(hs, fam);

	memcpy(h->v[0], a, sizeof(double) * 3);
	memcpy(h->v[1], b, sizeof(double) * 3);
	h->n = 2;
}

static void
build_intercept_body(mesh *m, int kind, const double *o)
{
	double		lo[3] = {0, 0, 0},
				hi[3] = {4, 4, 4},
				lo2[3] = {4, 0, 0},
				hi2[3] = {8, 4, 4},
				lo3[3] = {5, 0, 0},
				hi3[3] = {7, 2, 3},
				c[3] = {2, 2, 2};

	memset(m, 0, sizeof(*m));
	switch (kind)
	{
		case IB_BOX:
			add_box(m, o, lo, hi, 1);
			break;
		case IB_SPLIT_BOX:
			add_box(m, o, lo, hi, 3);
			break;
		case IB_OCTAHEDRON:
			add_octahedron(m, o, c, 2);
			break;
		case IB_TETRA:
			add_tetra(m, o, c);
			break;
		case IB_HEIGHTFIELD:
			add_heightfield(m, o, lo, 5, 4);
			break;
		case IB_SPHERE:
			add_round(m, o, c, 4, 0, false, 24, 12);
			break;
		case IB_TORUS:
			add_round(m, o, c, 4, 1.5, true, 24, 12);
			break;
		case IB_TWO_BOXES_FACE:
			add_box(m, o, lo, hi, 1);
			add_box(m, o, lo2, hi2, 1);
			break;
		default:
			add_box(m, o, lo, hi, 1);
			add_box(m, o, lo3, hi3, 1);
			break;
	}
}

static void
mesh_box(const mesh *m, double *b)
{
	for (int k = 0; k < 3; k++)
	{
		b[k] = INFINITY;
		b[3 + k] = -INFINITY;
	}
	for (uint32_t v = 0; v < m->nv; v++)
		for (int k = 0; k < 3; k++)
		{
			b[k] = fmin(b[k], m->xyz[3 * v + k]);
			b[3 + k] = fmax(b[3 + k], m->xyz[3 * v + k]);
		}
}

/* Hand-made holes that only touch convex bodies (zero-length stretches). */
static void
grazing_holes(holeset *hs, int kind, const double *o)
{
	if (kind == IB_BOX || kind == IB_SPLIT_BOX)
	{
		const double corner_a[3] = {o[0] + 3, o[1] + 3, o[2] + 5},
					corner_b[3] = {o[0] + 5, o[1] + 5, o[2] + 3},
					edge_a[3] = {o[0] + 1.5, o[1] - 1, o[2] + 3},
					edge_b[3] = {o[0] + 1.5, o[1] + 1, o[2] + 5},
					face_a[3] = {o[0] - 1, o[1] + 1.25, o[2] + 4},
					face_b[3] = {o[0] + 5, o[1] + 1.25, o[2] + 4},
					run_a[3] = {o[0] - 2, o[1], o[2] + 4},
					run_b[3] = {o[0] + 6, o[1], o[2] + 4};

		hole_segment(hs, HF_GRAZING, corner_a, corner_b);	/* the corner only */
		hole_segment(hs, HF_GRAZING, edge_a, edge_b);	/* one edge point */
		hole_segment(hs, HF_GRAZING, face_a, face_b);	/* along the top face */
		hole_segment(hs, HF_GRAZING, run_a, run_b);	/* along a top edge */
	}
	else if (kind == IB_OCTAHEDRON)
	{
		const double top_a[3] = {o[0] - 2, o[1] + 1, o[2] + 4},
					top_b[3] = {o[0] + 6, o[1] + 3, o[2] + 4},
					edge_a[3] = {o[0] + 3, o[1] + 3, o[2] - 1},
					edge_b[3] = {o[0] + 3, o[1] + 3, o[2] + 5},
					ring_a[3] = {o[0] + 4, o[1] - 2, o[2] + 2},
					ring_b[3] = {o[0] + 4, o[1] + 6, o[2] + 2};

		hole_segment(hs, HF_GRAZING, top_a, top_b);	/* the top vertex */
		hole_segment(hs, HF_GRAZING, edge_a, edge_b);	/* an equator edge point */
		hole_segment(hs, HF_GRAZING, ring_a, ring_b);	/* the +x vertex */
	}
}

/* The holes of one body: random, special, and one-ulp variants of specials. */
static void
make_holes(holeset *hs, const mesh *m, int kind, const double *o, long nrandom)
{
	double		b[6];
	size_t		first_special;

	mesh_box(m, b);
	for (long i = 0; i < nrandom; i++)
	{
		hole	   *h = new_hole(hs, i % 2 ? HF_RANDOM_REAL : HF_RANDOM_GRID);

		h->n = rand_int(2, 4);
		for (int j = 0; j < h->n; j++)
			for (int k = 0; k < 3; k++)
			{
				double		span = b[3 + k] - b[k] + 4;

				h->v[j][k] = i % 2 ? b[k] - 2 + span * rand_unit()
					: b[k] - 2 + rand_int(0, (int) (span * 4)) / 4.0;
			}
	}
	first_special = hs->n;
	grazing_holes(hs, kind, o);
	for (long i = 0; i < nrandom / 2; i++)
	{
		uint32_t	t = (uint32_t) (rng_next(&rng) % m->nt);
		int			r = rand_int(0, 2);
		const double *va = vtx(m, t, r),
				   *vb = vtx(m, t, (r + 1) % 3),
				   *vc = vtx(m, t, (r + 2) % 3);
		double		p[3],
					q[3],
					f[3],
					d[3];
		int			which = (int) (i % 6);

		for (int k = 0; k < 3; k++)
		{
			double		ra = va[k] - o[k],
						rb = vb[k] - o[k],
						rc = vc[k] - o[k];

			d[k] = rand_int(-4, 4) / 2.0;
			switch (which)
			{
				case 0:			/* vertical through a vertex */
				case 1:			/* ... an edge point */
				case 2:			/* ... a face point */
					f[k] = which == 0 ? ra : which == 1 ? (ra + rb) / 2 : (ra + rb + 2 * rc) / 4;
					p[k] = o[k] + (k == 2 ? b[5] - o[k] + 1 : f[k]);
					q[k] = o[k] + (k == 2 ? b[2] - o[k] - 1 : f[k]);
					break;
				case 3:			/* through a vertex, random direction */
					p[k] = o[k] + ra - d[k];
					q[k] = o[k] + ra + d[k];
					break;
				case 4:			/* along an edge, beyond both ends */
					p[k] = o[k] + ra - (rb - ra) / 2;
					q[k] = o[k] + rb + (rb - ra) / 2;
					break;
				default:		/* in a face plane, through a face point */
					f[k] = (ra + rb + 2 * rc) / 4;
					p[k] = o[k] + f[k] - (rb - ra);
					q[k] = o[k] + f[k] + (rb - ra);
					break;
			}
		}
		if (which == 3 && d[0] == 0 && d[1] == 0 && d[2] == 0)
			continue;
		hole_segment(hs, which <= 2 ? HF_VERTICAL_VERTEX + which
					 : which == 3 ? HF_THROUGH_VERTEX : which == 4 ? HF_ALONG_EDGE
					 : HF_IN_FACE_PLANE, p, q);
		if (which == 3 && i % 4 == 3)
		{
			/* from a point inside (convex bodies: their centre), out through a vertex */
			hole	   *h = new_hole(hs, HF_FROM_INSIDE);
			double		c[3] = {o[0] + 2, o[1] + 2, o[2] + 2};

			h->n = 3;
			memcpy(h->v[0], c, sizeof(c));
			memcpy(h->v[1], va, sizeof(double) * 3);
			for (int k = 0; k < 3; k++)
				h->v[2][k] = o[k] + (va[k] - o[k]) * 2 - 2;
		}
	}
	/* one-ulp variants of the special holes: one end, or both the same way */
	for (size_t i = first_special, n = hs->n; i < n; i++)
	{
		hole		copy = hs->h[i];
		hole	   *h = new_hole(hs, HF_ULP);
		int			k = rand_int(0, 2);
		double		to = rng_next(&rng) % 2 ? INFINITY : -INFINITY;

		*h = copy;
		h->fam = HF_ULP;
		if (rng_next(&rng) % 2)
			nudge(h->v[rand_int(0, h->n - 1)]);
		else
			for (int j = 0; j < h->n; j++)
				h->v[j][k] = nextafter(h->v[j][k], to);
	}
}

typedef struct ivl
{
	double		from,
				to;
} ivl;

/* Cumulative double lengths cum[0 .. n) of the hole's segments; returns the total. */
static double
hole_lengths(const hole *h, double *cum, double *len)
{
	double		total = 0;

	for (int k = 0; k + 1 < h->n; k++)
	{
		double		dx = h->v[k + 1][0] - h->v[k][0],
					dy = h->v[k + 1][1] - h->v[k][1],
					dz = h->v[k + 1][2] - h->v[k][2];

		cum[k] = total;
		len[k] = sqrt(dx * dx + dy * dy + dz * dz);
		total += len[k];
	}
	cum[h->n - 1] = total;
	return total;
}

/* A depth back to (segment, exact double parameter). */
static void
depth_to_param(const hole *h, const double *cum, const double *len, double depth, int *k,
			   double *t)
{
	int			j = 0;

	while (j + 2 < h->n && depth >= cum[j + 1])
		j++;
	*k = j;
	*t = len[j] > 0 ? (depth - cum[j]) / len[j] : 0;
	*t = fmin(1, fmax(0, *t));
}

static int
locate_depth(const ref_solid *s, const hole *h, const double *cum, const double *len,
			 double depth)
{
	int			k;
	double		t;
	mpq_t		q;
	int			r;

	depth_to_param(h, cum, len, depth, &k, &t);
	mpq_init(q);
	mpq_set_d(q, t);
	r = ref_solid_locate_on_hole(s, &h->v[0][0], (size_t) k, q);
	mpq_clear(q);
	return r;
}

/* Gaps shorter than tol merged: rounding may close them. */
static size_t
merge_tiny_gaps(ivl *v, size_t n, double tol)
{
	size_t		m = 0;

	for (size_t i = 0; i < n; i++)
	{
		if (m > 0 && v[i].from - v[m - 1].to <= tol)
			v[m - 1].to = fmax(v[m - 1].to, v[i].to);
		else
			v[m++] = v[i];
	}
	return m;
}

static bool
same_intervals(const ivl *a, size_t na, const ivl *b, size_t nb, double tol)
{
	if (na != nb)
		return false;
	for (size_t i = 0; i < na; i++)
		if (fabs(a[i].from - b[i].from) > tol || fabs(a[i].to - b[i].to) > tol)
			return false;
	return true;
}

typedef struct hole_result
{
	ref_stretch *st;
	size_t		n;
} hole_result;

static void
print_hole(const hole *h)
{
	printf("      hole:");
	for (int j = 0; j < h->n; j++)
		printf(" (%.17g, %.17g, %.17g)", h->v[j][0], h->v[j][1], h->v[j][2]);
	printf("\n");
}

static void
print_intervals(const char *who, const ivl *v, size_t n)
{
	printf("      %s:", who);
	for (size_t i = 0; i < n; i++)
		printf(" [%.17g, %.17g]", v[i].from, v[i].to);
	printf("%s\n", n ? "" : " none");
}

/*
 * Midpoints: of each engine interval (in the closed solid) and of each gap
 * before, between and after them (outside), unless tiny. Returns the
 * number of failed checks.
 */
static int
check_midpoints(const ref_solid *s, const hole *h, const double *cum, const double *len,
				double total, const ivl *e, size_t ne, double tiny, long *nchecks)
{
	int			bad = 0;
	double		prev = 0;

	for (size_t i = 0; i <= ne; i++)
	{
		double		gap_end = i < ne ? e[i].from : total;

		if (gap_end - prev > tiny)
		{
			++*nchecks;
			bad += locate_depth(s, h, cum, len, (prev + gap_end) / 2) != REF_OUTSIDE;
		}
		if (i < ne && e[i].to - e[i].from > tiny)
		{
			++*nchecks;
			bad += locate_depth(s, h, cum, len, (e[i].from + e[i].to) / 2) == REF_OUTSIDE;
		}
		if (i < ne)
			prev = e[i].to;
	}
	return bad;
}

static long merged_notes = 0;
static long midpoint_checks = 0;
static long exact_zero_length = 0;

static void
check_one_hole(const char *body, const ref_solid *s, exg_prepared *g, const hole *h,
			   const hole_result *res, tally *tl)
{
	double		cum[4],
				len[4],
				total = hole_lengths(h, cum, len),
				tol = 1e-9 * (1 + total),
				tiny = 1e-6 * (1 + total);
	double	   *out = NULL;
	size_t		nout = 0,
				nref = res->n;
	exg_error	err = {0};
	ivl		   *ref = malloc(sizeof(ivl) * (nref + 1)),
			   *eng;
	tally	   *t = &tl[h->fam];
	bool		ok;
	int			mid_bad;

	t->cases++;
	for (size_t i = 0; i < nref; i++)
	{
		const ref_stretch *r = &res->st[i];

		ref[i].from = cum[r->k_from] + mpq_get_d(r->t_from) * len[r->k_from];
		ref[i].to = cum[r->k_to] + mpq_get_d(r->t_to) * len[r->k_to];
		t->in++;
		t->bnd += r->k_from == r->k_to && mpq_equal(r->t_from, r->t_to);
	}
	if (exg_intercepts(g, &h->v[0][0], (size_t) h->n, &out, &nout, &err) != EXG_OK)
	{
		printf("  FAIL exg_intercepts on %s: %s\n", body, err.message);
		print_hole(h);
		t->disagree++;
		test_failures++;
		free(ref);
		return;
	}
	eng = (ivl *) out;
	for (size_t i = 0; i < nout; i++)
		exact_zero_length += eng[i].from == eng[i].to;
	ok = same_intervals(ref, nref, eng, nout, tol);
	mid_bad = check_midpoints(s, h, cum, len, total, eng, nout, tiny, &midpoint_checks);
	if (!ok)
	{
		ivl		   *a = malloc(sizeof(ivl) * (nref + 1)),
				   *b = malloc(sizeof(ivl) * (nout + 1));
		size_t		na,
					nb;

		memcpy(a, ref, sizeof(ivl) * nref);
		memcpy(b, eng, sizeof(ivl) * nout);
		na = merge_tiny_gaps(a, nref, tol);
		nb = merge_tiny_gaps(b, nout, tol);
		ok = same_intervals(a, na, b, nb, tol);
		merged_notes += ok;
		free(a);
		free(b);
	}
	if (!ok || mid_bad)
	{
		t->disagree++;
		test_failures++;
		if (report_budget-- > 0)
		{
			printf("  DISAGREE intercepts [%s] on %s%s:\n", hf_names[h->fam], body,
				   mid_bad ? " (midpoint checks failed)" : "");
			print_hole(h);
			print_intervals("engine   ", eng, nout);
			print_intervals("reference", ref, nref);
		}
	}
	free(out);
	free(ref);
}

static void
prepare_mesh(const mesh *m, exg_prepared *g)
{
	exg_shape	s;
	exg_error	err;

	exg_shape_init(&s);
	for (uint32_t t = 0; t < m->nt; t++)
	{
		exg_shape_begin_comp(&s, EXG_COMP_TRIANGLE, true, &err);
		exg_shape_begin_ring(&s, &err);
		for (int i = 0; i < 4; i++)
		{
			const double *x = vtx(m, t, i % 3);

			exg_shape_add_vertex(&s, x[0], x[1], x[2], &err);
		}
	}
	s.has_z = true;
	s.is_solid = true;
	exg_prepared_init(g, &s, EXG_NONPLANAR_ERROR);
}

static void
run_intercepts(void)
{
	const double zero[3] = {0, 0, 0},
				utm[3] = {500000, 7000000, -500};
	tally		tl[HF_N];
	long		nholes = 0;
	double		t_ref = 0,
				t_eng = 0;

	report_budget = MAX_REPORT;
	printf("== exg_intercepts: drill-hole stretches in closed solids (CPU)\n");
	for (int i = 0; i < HF_N; i++)
		tl[i] = (tally) {hf_names[i], 0, 0, 0, 0};
	for (int s = 0; s < 2 * IB_N; s++)
	{
		const double *o = s % 2 ? utm : zero;
		int			kind = s / 2;
		mesh		m;
		holeset		hs = {0};
		ref_solid  *rs;
		exg_prepared g;
		hole_result *res;
		char		name[80];
		double		t0 = now_seconds(),
					t1;

		build_intercept_body(&m, kind, o);
		make_holes(&hs, &m, kind, o, scaled(100));
		rs = ref_solid_new(m.xyz, m.tri, m.nt);
		res = calloc(hs.n, sizeof(hole_result));
#pragma omp parallel for schedule(dynamic, 1)
		for (size_t i = 0; i < hs.n; i++)
			res[i].n = ref_solid_intercepts(rs, &hs.h[i].v[0][0], (size_t) hs.h[i].n, &res[i].st);
		t1 = now_seconds();
		t_ref += t1 - t0;
		prepare_mesh(&m, &g);
		snprintf(name, sizeof(name), "%s%s", ib_names[kind], s % 2 ? " at UTM" : "");
		for (size_t i = 0; i < hs.n; i++)
			check_one_hole(name, rs, &g, &hs.h[i], &res[i], tl);
		t_eng += now_seconds() - t1;
		nholes += (long) hs.n;
		for (size_t i = 0; i < hs.n; i++)
			ref_stretches_free(res[i].st, res[i].n);
		free(res);
		exg_prepared_free(&g);
		ref_solid_free(rs);
		free(hs.h);
		test_mesh_free(&m);
	}
	printf("  %ld holes through %d bodies (each at 0 and at UTM); reference %.1f s, "
		   "engine + checks %.1f s\n",
		   nholes, IB_N, t_ref, t_eng);
	printf("  %ld midpoint checks; %ld engine intervals of exactly zero length; "
		   "%ld holes equal only after merging gaps < 1e-9\n",
		   midpoint_checks, exact_zero_length, merged_notes);
	print_tallies("family (holes)", tl, HF_N, "stretches", "0-length");
}

/* ------------------------------------------------------------------ */

int
main(int argc, char **argv)
{
	bool		want_gpu = false;
	exg_error	err = {0};
	double		t0 = now_seconds();

	for (int i = 1; i < argc; i++)
	{
		if (strcmp(argv[i], "--gpu") == 0)
			want_gpu = true;
		else if (strcmp(argv[i], "--scale") == 0 && i + 1 < argc)
			scale = atof(argv[++i]);
		else if (strcmp(argv[i], "--seed") == 0 && i + 1 < argc)
			rng.state = strtoull(argv[++i], NULL, 0);
		else
		{
			fprintf(stderr, "usage: %s [--gpu] [--scale X] [--seed N]\n", argv[0]);
			return 2;
		}
	}
	init_grid_settings();
	have_gpu = exg_gpu_device_count(&err) > 0;
	if (want_gpu && !have_gpu)
	{
		printf("FAIL: --gpu but no usable GPU: %s\n", err.message);
		return 1;
	}
	run_locate();
	run_self_intersections();
	run_intercepts();
	printf("test_solid_differential: %ld disagreements, %ld reference self-check failures (%.1f s)\n",
		   test_failures, self_check_failures, now_seconds() - t0);
	return test_failures || self_check_failures ? 1 : 0;
}
