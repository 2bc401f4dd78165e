/*
 * test_batch_flatten.c — the batch joins' read path flattens rows exactly
 * as the generic builder does (issue 14).
 *
 * The reference is what exg_batch_add did before it flattened rows itself:
 * exg_gserialized_read into a shape, exg_prims_build_3d (geom_prims.c: each
 * primitive classified exactly, with boxes and a face map), then every
 * primitive's vertices copied into the batch, a read error adding no row and
 * a flattening error a row without primitives. Against it, on random and
 * adversarial rows (every geometry type, empty ones, 2D, 3D, M and ZM,
 * degenerate and 1-ulp-from-degenerate triangles at UTM coordinates,
 * repeated and single points, NaN and infinite coordinates, malformed
 * bytes), and on the rows of a synthetic mine:
 *   1. exg_gserialized_read + exg_batch_add (flattening from the shape),
 *   2. exg_batch_add_serialized (simple geometries straight from the bytes),
 *   3. exg_batch_add_rows on 1, 2 and 3 threads (the valid rows; then a bad
 *      one: the first bad row, its error, the batch unchanged),
 * must give bit-identical batches (xyz, tri, owner, solid, counts), the same
 * status and message for every row, and the same orientation counters
 * (evaluated, filtered, exact) for every row that is read.
 *
 * 2D batches likewise (the 2D join inputs): the reference is exg_batch_add
 * of a 2D batch as it was before its rows were flattened from their bytes
 * (add_2d: z = 0, points, every segment of a linestring, repeats included,
 * triangles as given, polygons triangulated in the plane by
 * exg_triangulate_polygon or, without area, their rings' edges), written
 * out here; against it the same three paths (the bytes path reads the
 * simple rows itself, its scratch shape left empty: counted), on rows
 * weighted to polygons (holes, empty rings, unclosed and one-vertex rings,
 * flat and collinear rings, stars of up to 300 vertices, invalid ones) and
 * the same adversarial bytes and coordinates, count words overwritten too.
 *
 *   test_batch_flatten [rows [seed]]
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "batch.h"
#include "geom_prims.h"
#include "gs_write.h"
#include "gserialized_read.h"
#include "harness.h"
#include "mine.h"
#include "stats.h"
#include "triangulate.h"

/* ------------------------------------------------------------ reference */

typedef struct ref_batch
{
	double	   *xyz;
	uint32_t   *tri;
	uint32_t   *owner;
	uint8_t    *solid;
	size_t		nverts,
				nprims,
				nrows,
				nrows_z,
				nrows_flat;
	size_t		vcap,
				pcap,
				rcap;
} ref_batch;

static void *
xrealloc(void *p, size_t n)
{
	p = realloc(p, n ? n : 1);
	if (p == NULL)
	{
		fprintf(stderr, "out of memory\n");
		exit(2);
	}
	return p;
}

static uint32_t
ref_vertex(ref_batch *r, const double *v)
{
	if (r->nverts == r->vcap)
	{
		r->vcap = r->vcap ? 2 * r->vcap : 256;
		r->xyz = xrealloc(r->xyz, r->vcap * 3 * sizeof(double));
	}
	memcpy(&r->xyz[3 * r->nverts], v, 3 * sizeof(double));
	return (uint32_t) r->nverts++;
}

static void
ref_prim(ref_batch *r, uint32_t a, uint32_t b, uint32_t c)
{
	if (r->nprims == r->pcap)
	{
		r->pcap = r->pcap ? 2 * r->pcap : 256;
		r->tri = xrealloc(r->tri, r->pcap * 3 * sizeof(uint32_t));
		r->owner = xrealloc(r->owner, r->pcap * sizeof(uint32_t));
	}
	r->tri[3 * r->nprims] = a;
	r->tri[3 * r->nprims + 1] = b;
	r->tri[3 * r->nprims + 2] = c;
	r->owner[r->nprims++] = (uint32_t) r->nrows;
}

/* exg_batch_add of a 3D batch before issue 14, from exg_prims_build_3d. */
static exg_status
ref_add(ref_batch *r, const exg_shape *s, exg_nonplanar_policy policy, exg_error *err)
{
	exg_prims	p;
	exg_status	st;

	if (r->nrows == r->rcap)
	{
		r->rcap = r->rcap ? 2 * r->rcap : 256;
		r->solid = xrealloc(r->solid, r->rcap);
	}
	r->solid[r->nrows] = 0;
	if (s->ncomps > 0)
		*(s->has_z ? &r->nrows_z : &r->nrows_flat) += 1;
	st = exg_prims_build_3d(s, policy, &p, err);
	if (st == EXG_OK)
	{
		for (size_t t = 0; t < p.nprims; t++)
		{
			const exg_prim *pr = &p.prims[t];
			uint32_t	v0 = ref_vertex(r, &s->xyz[3 * pr->v[0]]);
			uint32_t	v1 = pr->kind == EXG_SIMPLEX_POINT ? v0 : ref_vertex(r, &s->xyz[3 * pr->v[1]]);
			uint32_t	v2 = pr->kind == EXG_SIMPLEX_TRIANGLE ? ref_vertex(r, &s->xyz[3 * pr->v[2]]) : v1;

			ref_prim(r, v0, v1, v2);
		}
		exg_prims_free(&p);
	}
	r->nrows++;
	return st;
}

/* A vertex of a 2D batch: z = 0. */
static uint32_t
ref_vertex_xy(ref_batch *r, double x, double y)
{
	double		v[3] = {x, y, 0};

	return ref_vertex(r, v);
}

/* Ring ring's edges in a 2D batch: one vertex, a point; else every consecutive pair. */
static void
ref_ring_edges_2d(ref_batch *r, const exg_shape *s, size_t ring)
{
	size_t		first = s->ring_start[ring],
				n = exg_ring_nverts(s, ring);

	if (n == 1)
	{
		uint32_t	i = ref_vertex_xy(r, s->xyz[3 * first], s->xyz[3 * first + 1]);

		ref_prim(r, i, i, i);
		return;
	}
	for (size_t v = first; v + 1 < first + n; v++)
	{
		uint32_t	i = ref_vertex_xy(r, s->xyz[3 * v], s->xyz[3 * v + 1]);
		uint32_t	j = ref_vertex_xy(r, s->xyz[3 * v + 3], s->xyz[3 * v + 4]);

		ref_prim(r, i, j, j);
	}
}

/* exg_batch_add of a 2D batch before its rows were read from their bytes. */
static exg_status
ref_add_2d(ref_batch *r, const exg_shape *s, exg_error *err)
{
	exg_status	st = EXG_OK;

	if (r->nrows == r->rcap)
	{
		r->rcap = r->rcap ? 2 * r->rcap : 256;
		r->solid = xrealloc(r->solid, r->rcap);
	}
	r->solid[r->nrows] = 0;
	if (s->ncomps > 0)
		*(s->has_z ? &r->nrows_z : &r->nrows_flat) += 1;
	for (size_t ci = 0; ci < s->ncomps && st == EXG_OK; ci++)
	{
		const exg_comp *c = &s->comps[ci];
		size_t		first = s->ring_start[c->first_ring];

		if (c->kind == EXG_COMP_POLYGON)
		{
			double	   *xy = xrealloc(NULL, sizeof(double) * 2 * (s->nverts + 1));
			size_t	   *starts = xrealloc(NULL, sizeof(size_t) * (c->nrings + 1));
			uint32_t   *tris = NULL;
			size_t		k = 0,
						ntris = 0;

			for (size_t ring = 0; ring < c->nrings; ring++)
			{
				size_t		f = s->ring_start[c->first_ring + ring],
							n = exg_ring_nverts(s, c->first_ring + ring);

				/* the closing vertex left out where it repeats the first in x and y */
				if (n > 1 && s->xyz[3 * f] == s->xyz[3 * (f + n - 1)] &&
					s->xyz[3 * f + 1] == s->xyz[3 * (f + n - 1) + 1])
					n--;
				starts[ring] = k;
				for (size_t v = f; v < f + n; v++, k++)
				{
					xy[2 * k] = s->xyz[3 * v];
					xy[2 * k + 1] = s->xyz[3 * v + 1];
				}
			}
			starts[c->nrings] = k;
			st = exg_triangulate_polygon(xy, k, starts, c->nrings, &tris, &ntris, err);
			if (st == EXG_OK && ntris == 0)
				for (size_t ring = 0; ring < c->nrings; ring++)
					ref_ring_edges_2d(r, s, c->first_ring + ring);
			for (size_t t = 0; st == EXG_OK && t < ntris; t++)
			{
				/* stored c, b, a: what GCC made of the old add_prim(add_vertex(a), ...) */
				uint32_t	v2 = ref_vertex_xy(r, xy[2 * tris[3 * t + 2]], xy[2 * tris[3 * t + 2] + 1]);
				uint32_t	v1 = ref_vertex_xy(r, xy[2 * tris[3 * t + 1]], xy[2 * tris[3 * t + 1] + 1]);
				uint32_t	v0 = ref_vertex_xy(r, xy[2 * tris[3 * t]], xy[2 * tris[3 * t] + 1]);

				ref_prim(r, v0, v1, v2);
			}
			free(tris);
			free(xy);
			free(starts);
		}
		else if (c->kind == EXG_COMP_TRIANGLE)
		{
			uint32_t	v2 = ref_vertex_xy(r, s->xyz[3 * first + 6], s->xyz[3 * first + 7]);
			uint32_t	v1 = ref_vertex_xy(r, s->xyz[3 * first + 3], s->xyz[3 * first + 4]);
			uint32_t	v0 = ref_vertex_xy(r, s->xyz[3 * first], s->xyz[3 * first + 1]);

			ref_prim(r, v0, v1, v2);
		}
		else
			ref_ring_edges_2d(r, s, c->first_ring);
	}
	r->nrows++;
	return st;
}

static exg_status
ref_add_any(ref_batch *r, const exg_shape *s, int naxes, exg_nonplanar_policy policy,
			exg_error *err)
{
	return naxes == 2 ? ref_add_2d(r, s, err) : ref_add(r, s, policy, err);
}

static void
ref_free(ref_batch *r)
{
	free(r->xyz);
	free(r->tri);
	free(r->owner);
	free(r->solid);
	memset(r, 0, sizeof(*r));
}

/* The batch equals the reference, bit for bit; the first difference is reported. */
static bool
same_as_ref(const exg_batch *b, const ref_batch *r, const char *what)
{
	if (b->nverts != r->nverts || b->nprims != r->nprims || b->nrows != r->nrows ||
		b->nrows_z != r->nrows_z || b->nrows_flat != r->nrows_flat || b->nsolid != 0)
	{
		FAIL("%s: counts differ: verts %zu/%zu prims %zu/%zu rows %zu/%zu z %zu/%zu flat %zu/%zu solid %zu",
			 what, b->nverts, r->nverts, b->nprims, r->nprims, b->nrows, r->nrows,
			 b->nrows_z, r->nrows_z, b->nrows_flat, r->nrows_flat, b->nsolid);
		return false;
	}
	/* (empty arrays may be NULL: nothing to compare) */
	if (r->nverts > 0 && memcmp(b->xyz, r->xyz, r->nverts * 3 * sizeof(double)) != 0)
	{
		for (size_t i = 0; i < 3 * r->nverts; i++)
			if (memcmp(&b->xyz[i], &r->xyz[i], sizeof(double)) != 0)
			{
				FAIL("%s: vertex %zu coordinate %zu: %.17g, reference %.17g", what, i / 3, i % 3,
					 b->xyz[i], r->xyz[i]);
				break;
			}
		return false;
	}
	if (r->nprims > 0 && (memcmp(b->tri, r->tri, r->nprims * 3 * sizeof(uint32_t)) != 0 ||
						  memcmp(b->owner, r->owner, r->nprims * sizeof(uint32_t)) != 0))
	{
		for (size_t i = 0; i < r->nprims; i++)
			if (memcmp(&b->tri[3 * i], &r->tri[3 * i], 3 * sizeof(uint32_t)) != 0 ||
				b->owner[i] != r->owner[i])
			{
				FAIL("%s: primitive %zu: (%u %u %u) row %u, reference (%u %u %u) row %u", what, i,
					 b->tri[3 * i], b->tri[3 * i + 1], b->tri[3 * i + 2], b->owner[i],
					 r->tri[3 * i], r->tri[3 * i + 1], r->tri[3 * i + 2], r->owner[i]);
				break;
			}
		return false;
	}
	if (r->nrows > 0 && memcmp(b->solid, r->solid, r->nrows) != 0)
	{
		FAIL("%s: solid flags differ", what);
		return false;
	}
	return true;
}

/* ------------------------------------------------------------ generator */

/*
 * Vertices: a palette of recent ones, so that repeats, collinear triples and
 * 1-ulp perturbations of them come up often. Coordinates are UTM-scale
 * (x ~ 5e5, y ~ 7e6) integers, halves or arbitrary doubles.
 */
typedef struct gen
{
	test_rng	rng;
	double		pal[16][3];
	int			npal;
	bool		allow_bad;		/* NaN and infinities, rarely */
	bool		has_z,
				has_m;
	bool		flat;			/* rows for a 2D batch: polygons weighted, their variants */
} gen;

static void
remember(gen *g, const double *v)
{
	memcpy(g->pal[g->npal % 16], v, 3 * sizeof(double));
	g->npal++;
}

static const double *
recall(gen *g)
{
	int			n = g->npal < 16 ? g->npal : 16;

	return g->pal[rng_below(&g->rng, (uint64_t) n)];
}

static double
nudge(gen *g, double x)
{
	switch (rng_below(&g->rng, 3))
	{
		case 0:
			return nextafter(x, INFINITY);
		case 1:
			return nextafter(x, -INFINITY);
	}
	return x;
}

static void
fresh_vertex(gen *g, double *v)
{
	switch (rng_below(&g->rng, 3))
	{
		case 0:					/* a small integer grid: exact collinearities */
			v[0] = 500000 + (double) rng_below(&g->rng, 8);
			v[1] = 7000000 + (double) rng_below(&g->rng, 8);
			v[2] = (double) rng_below(&g->rng, 4) - 2;
			break;
		case 1:
			v[0] = 500000 + 1000 * rng_uniform(&g->rng);
			v[1] = 7000000 + 1000 * rng_uniform(&g->rng);
			v[2] = -500 + 1000 * rng_uniform(&g->rng);
			break;
		default:				/* near the origin, signed zeros */
			v[0] = rng_below(&g->rng, 4) == 0 ? -0.0 : (double) rng_below(&g->rng, 3);
			v[1] = (double) rng_below(&g->rng, 3) - 1;
			v[2] = rng_below(&g->rng, 2) ? 0.0 : -0.0;
			break;
	}
}

/* The next vertex (z is dropped by the writer when the row has no Z). */
static void
next_vertex(gen *g, double *v)
{
	uint64_t	k = g->npal >= 2 ? rng_below(&g->rng, 10) : 0;

	if (k <= 3)
		fresh_vertex(g, v);
	else if (k <= 5)
		memcpy(v, recall(g), 3 * sizeof(double));	/* repeated */
	else if (k <= 8)
	{
		/* on the line of two earlier ones (exact on the grid), maybe 1 ulp off */
		const double *a = recall(g),
				   *b = recall(g);
		static const double ts[] = {-1, 0.5, 2, 3};
		double		t = ts[rng_below(&g->rng, 4)];

		for (int d = 0; d < 3; d++)
			v[d] = a[d] + t * (b[d] - a[d]);
		if (k == 8)
			v[rng_below(&g->rng, 3)] = nudge(g, v[rng_below(&g->rng, 3)]);
	}
	else
	{
		memcpy(v, recall(g), 3 * sizeof(double));
		v[rng_below(&g->rng, 3)] = nudge(g, v[0]);
	}
	if (g->allow_bad && rng_below(&g->rng, 400) == 0)
	{
		static const double bad[] = {NAN, INFINITY, -INFINITY};

		v[rng_below(&g->rng, 3)] = bad[rng_below(&g->rng, 3)];
	}
	if (!g->has_z)
		v[2] = 0;
	remember(g, v);
}

static void
put_vertex(gen *g, gs_writer *w, const double *v)
{
	gsw_vertex(w, v[0], v[1], v[2], (double) rng_below(&g->rng, 100));
}

/* A point: empty (as PostGIS 3 writes it, or as NaN NaN) now and then. */
static void
gen_point(gen *g, gs_writer *w)
{
	double		v[3];
	uint64_t	k = rng_below(&g->rng, 12);

	if (k == 0)
	{
		gsw_head(w, 1, 0);
		return;
	}
	gsw_head(w, 1, 1);
	if (k == 1)
	{
		gsw_vertex(w, NAN, NAN, 1, 0);
		return;
	}
	next_vertex(g, v);
	put_vertex(g, w, v);
}

static void
gen_linestring(gen *g, gs_writer *w)
{
	uint32_t	n = (uint32_t) (rng_below(&g->rng, 6) == 0 ? rng_below(&g->rng, 3) : 2 + rng_below(&g->rng, 40));
	double		v[3];

	gsw_head(w, 2, n);
	for (uint32_t i = 0; i < n; i++)
	{
		next_vertex(g, v);
		put_vertex(g, w, v);
	}
}

/* A triangle: closed, with degenerate and nearly degenerate ones often. */
static void
gen_triangle(gen *g, gs_writer *w)
{
	double		v[3][3];
	uint64_t	k = rng_below(&g->rng, 40);

	if (k == 0)
	{
		gsw_head(w, 14, 0);		/* empty */
		return;
	}
	for (int i = 0; i < 3; i++)
		next_vertex(g, v[i]);
	if (k == 1)
		memcpy(v[1], v[0], sizeof(v[0]));	/* repeated vertex */
	else if (k == 2)
	{
		memcpy(v[1], v[0], sizeof(v[0]));	/* all equal */
		memcpy(v[2], v[0], sizeof(v[0]));
	}
	if (g->allow_bad && k == 3)
	{
		/* invalid: three vertices, or not closed */
		gsw_head(w, 14, 3);
		for (int i = 0; i < 3; i++)
			put_vertex(g, w, v[i]);
		return;
	}
	gsw_head(w, 14, 4);
	for (int i = 0; i < 4; i++)
		put_vertex(g, w, v[i % 3]);
	if (g->allow_bad && k == 4)
		w->b[w->n - 8 * w->ndims] ^= 1;	/* the closing vertex off by one bit */
}

/* A NaN or an infinity in place of one coordinate of v. */
static void
spoil(gen *g, double *v)
{
	static const double bad[] = {NAN, INFINITY, -INFINITY};

	v[rng_below(&g->rng, g->has_z ? 3 : 2)] = bad[rng_below(&g->rng, 3)];
}

/*
 * A star around (x0, y0) in the plane (2D rows): 8 to 300 vertices at
 * increasing angles and arbitrary radii (a simple polygon), now and then a
 * repeated vertex or an edge's midpoint (exactly or nearly collinear), a
 * square hole around the centre, a ring left unclosed; NaN or infinity in
 * adversarial rows.
 */
static void
gen_star(gen *g, gs_writer *w)
{
	uint32_t	m = 8 + (uint32_t) rng_below(&g->rng, 293),
				counts[2],
				nrings = rng_below(&g->rng, 3) == 0 ? 2 : 1,
				n = 0;
	double	   *v = xrealloc(NULL, sizeof(double) * 3 * (2 * m + 1));
	double		x0 = 500000 + 1000 * rng_uniform(&g->rng),
				y0 = 7000000 + 1000 * rng_uniform(&g->rng),
				z = (double) rng_below(&g->rng, 7);
	double		hole[5][3] = {{-1, -1, 0}, {1, -1, 0}, {1, 1, 0}, {-1, 1, 0}, {-1, -1, 0}};

	for (uint32_t i = 0; i < m; i++)
	{
		double		a = 2 * M_PI * (i + rng_uniform(&g->rng) * 0.9) / m,
					r = 10 + 90 * rng_uniform(&g->rng);
		uint64_t	k = rng_below(&g->rng, 12);

		v[3 * n] = x0 + r * cos(a);
		v[3 * n + 1] = y0 + r * sin(a);
		v[3 * n + 2] = g->has_z ? z + rng_uniform(&g->rng) : 0;
		n++;
		if (k == 0 || (k == 1 && n >= 2))
		{
			/* the vertex again, or before it the midpoint of the edge it ends */
			memcpy(&v[3 * n], &v[3 * (n - 1)], 3 * sizeof(double));
			if (k == 1)
				for (int d = 0; d < 3; d++)
					v[3 * (n - 1) + d] = (v[3 * (n - 2) + d] + v[3 * n + d]) / 2;
			n++;
		}
	}
	memcpy(&v[3 * n], v, 3 * sizeof(double));	/* closed */
	n++;
	if (g->allow_bad && rng_below(&g->rng, 20) == 0)
		spoil(g, &v[3 * rng_below(&g->rng, n)]);
	counts[0] = rng_below(&g->rng, 15) == 0 ? n - 1 : n;
	counts[1] = 5;
	gsw_polygon_head(w, nrings, counts);
	for (uint32_t i = 0; i < counts[0]; i++)
		put_vertex(g, w, &v[3 * i]);
	for (uint32_t i = 0; nrings == 2 && i < 5; i++)
	{
		double		h[3] = {x0 + hole[i][0], y0 + hole[i][1], g->has_z ? z : 0};

		put_vertex(g, w, h);
	}
	free(v);
}

/*
 * A polygon in a plane where its vertices are exact (z constant, x
 * constant, or z = x): a box with a hole or two, or a random ring (then
 * often invalid or degenerate, which the flattening must report alike).
 */
static void
gen_polygon(gen *g, gs_writer *w)
{
	uint32_t	nrings = (uint32_t) rng_below(&g->rng, 4),
				counts[3];
	double		ring[3][12][3];
	int			plane = (int) rng_below(&g->rng, 3);
	double		x0 = 500000 + (double) rng_below(&g->rng, 50),
				y0 = 7000000 + (double) rng_below(&g->rng, 50),
				c = (double) rng_below(&g->rng, 5);
	bool		random_ring = rng_below(&g->rng, 4) == 0;

	if (g->flat && rng_below(&g->rng, 4) == 0)
	{
		gen_star(g, w);
		return;
	}
	if (rng_below(&g->rng, 3) == 0)
	{
		/*
		 * A triangle face (always planar), often degenerate or nearly so, at
		 * UTM coordinates; now and then not closed, or a repeated vertex.
		 */
		double		v[4][3];
		uint32_t	four = 4;

		for (int t = 0; t < 3; t++)
			next_vertex(g, v[t]);
		memcpy(v[3], v[0], sizeof(v[0]));
		if (rng_below(&g->rng, 20) == 0)
			v[3][rng_below(&g->rng, 3)] += 1;
		gsw_polygon_head(w, 1, &four);
		for (int t = 0; t < 4; t++)
			put_vertex(g, w, v[t]);
		return;
	}

	for (uint32_t r = 0; r < nrings; r++)
	{
		double		lo = r == 0 ? 0 : 2 + 3 * (r - 1),
					hi = r == 0 ? 10 : lo + 2;
		uint32_t	n = 0;

		if (random_ring)
		{
			uint32_t	m = 1 + (uint32_t) rng_below(&g->rng, 7);

			for (uint32_t i = 0; i < m; i++)
			{
				ring[r][n][0] = x0 + (double) rng_below(&g->rng, 10);
				ring[r][n][1] = y0 + (double) rng_below(&g->rng, 10);
				n++;
			}
		}
		else
		{
			double		sq[4][2] = {{lo, lo}, {hi, lo}, {hi, hi}, {lo, hi}};

			for (int i = 0; i < 4; i++)
			{
				ring[r][n][0] = x0 + sq[i][0];
				ring[r][n][1] = y0 + sq[i][1];
				n++;
				if (rng_below(&g->rng, 5) == 0)
				{
					/* a repeated vertex, or the edge's midpoint (collinear) */
					bool		rep = rng_below(&g->rng, 2) == 0;

					ring[r][n][0] = rep ? ring[r][n - 1][0] : x0 + (sq[i][0] + sq[(i + 1) % 4][0]) / 2;
					ring[r][n][1] = rep ? ring[r][n - 1][1] : y0 + (sq[i][1] + sq[(i + 1) % 4][1]) / 2;
					n++;
				}
			}
		}
		ring[r][n][0] = ring[r][0][0];	/* closed */
		ring[r][n][1] = ring[r][0][1];
		n++;
		for (uint32_t i = 0; i < n; i++)
		{
			double		a = ring[r][i][0],
						b = ring[r][i][1];

			/* into the plane: (a, b, c), (c, a, b) or (a, b, a - x0) */
			if (plane == 0)
				ring[r][i][0] = a, ring[r][i][1] = b, ring[r][i][2] = c;
			else if (plane == 1)
				ring[r][i][0] = c, ring[r][i][1] = a, ring[r][i][2] = b - y0;
			else
				ring[r][i][0] = a, ring[r][i][1] = b, ring[r][i][2] = a - x0;
			if (!g->has_z)
				ring[r][i][2] = 0;
		}
		if (g->allow_bad && rng_below(&g->rng, 30) == 0)
			ring[r][1][2] = nextafter(ring[r][1][2], INFINITY);	/* not planar by 1 ulp */
		counts[r] = rng_below(&g->rng, 25) == 0 ? 0 : n;	/* an empty ring now and then */
		if (g->flat)
		{
			/* for the 2D rings: unclosed, one or two vertices; a bad coordinate */
			uint64_t	k = rng_below(&g->rng, 40);

			if (k == 0 || k == 1)
				counts[r] = n - 1;
			else if (k == 2)
				counts[r] = 1;
			else if (k == 3)
				counts[r] = 2;
			if (g->allow_bad && rng_below(&g->rng, 30) == 0)
				spoil(g, ring[r][rng_below(&g->rng, n)]);
		}
	}
	gsw_polygon_head(w, nrings, counts);
	for (uint32_t r = 0; r < nrings; r++)
		for (uint32_t i = 0; i < counts[r]; i++)
			put_vertex(g, w, ring[r][i]);
}

static void gen_member(gen *g, gs_writer *w, uint32_t type, int depth);

static void
gen_collection(gen *g, gs_writer *w, uint32_t type, int depth)
{
	uint32_t	n = (uint32_t) (type == 15 ? rng_below(&g->rng, 60) : rng_below(&g->rng, 5));
	static const uint32_t any[] = {1, 2, 3, 4, 5, 6, 7, 13, 14, 15};

	gsw_head(w, type, n);
	for (uint32_t i = 0; i < n; i++)
	{
		uint32_t	m = type == 4 ? 1 : type == 5 ? 2 : type == 6 || type == 13 ? 3 : type == 15 ? 14 :
			any[rng_below(&g->rng, depth < 3 ? 10 : 3)];

		gen_member(g, w, m, depth + 1);
	}
}

static void
gen_member(gen *g, gs_writer *w, uint32_t type, int depth)
{
	switch (type)
	{
		case 1:
			gen_point(g, w);
			break;
		case 2:
			gen_linestring(g, w);
			break;
		case 3:
			gen_polygon(g, w);
			break;
		case 14:
			gen_triangle(g, w);
			break;
		default:
			gen_collection(g, w, type, depth);
	}
}

/* One row: any type, simple ones (what the direct path reads) most often. */
static void
gen_row(gen *g, gs_writer *w)
{
	static const uint32_t types[] = {15, 15, 15, 2, 2, 2, 5, 5, 1, 4, 14, 3, 6, 7, 13, 13, 13};
	static const uint32_t flat_types[] = {3, 3, 3, 3, 6, 6, 6, 13, 2, 2, 5, 5, 1, 4, 14, 15, 7};
	uint32_t	type = g->flat ? flat_types[rng_below(&g->rng, sizeof(flat_types) / sizeof(flat_types[0]))] :
		types[rng_below(&g->rng, sizeof(types) / sizeof(types[0]))];
	uint64_t	dims = rng_below(&g->rng, 8);

	g->has_z = dims < 5;
	g->has_m = dims == 0 || dims == 5;
	gsw_begin(w, g->has_z, g->has_m, rng_below(&g->rng, 8) == 0);
	gen_member(g, w, type, 0);
	if (g->allow_bad)
	{
		uint64_t	k = rng_below(&g->rng, 100);

		if (k == 0 && w->n > 12)
			w->n -= 1 + rng_below(&g->rng, 8);	/* truncated */
		else if (k == 1)
			gsw_u32(w, 0);		/* trailing bytes */
		else if (k == 2 && w->n > 4)
			w->b[3] |= 0x08;	/* geodetic */
		else if (g->flat && k < 12 && w->n >= 16)
		{
			/* a count or type word overwritten: small, off by one, huge */
			size_t		at = 8 + 4 * rng_below(&g->rng, (w->n - 12) / 4);
			uint32_t	word;
			static const uint32_t words[] = {0, 1, 2, 3, 4, 5, 6, 13, 0x7fffffff, 0xffffffff};

			memcpy(&word, w->b + at, 4);
			word = rng_below(&g->rng, 3) == 0 ? word + (uint32_t) rng_below(&g->rng, 3) - 1 :
				words[rng_below(&g->rng, sizeof(words) / sizeof(words[0]))];
			memcpy(w->b + at, &word, 4);
		}
	}
}

/* ---------------------------------------------------------------- paths */

static exg_counters
counters_now(void)
{
	exg_counters c;

	exg_counters_snapshot(&c);
	return c;
}

static bool
same_counts(const exg_counters *a0, const exg_counters *a1, const exg_counters *b0,
			const exg_counters *b1)
{
	return a1->orient_evals - a0->orient_evals == b1->orient_evals - b0->orient_evals &&
		a1->orient_filtered - a0->orient_filtered == b1->orient_filtered - b0->orient_filtered &&
		a1->orient_exact - a0->orient_exact == b1->orient_exact - b0->orient_exact;
}

static bool
has_polygon(const exg_shape *s)
{
	for (size_t c = 0; c < s->ncomps; c++)
		if (s->comps[c].kind == EXG_COMP_POLYGON)
			return true;
	return false;
}

typedef struct corpus
{
	gs_rows		ok;				/* rows every path reads without error */
	size_t		nbad;
	size_t		nsimple;
	size_t		degenerate;		/* primitives of triangles that came out as segments or points */
	size_t		exact;			/* orientations that needed GMP */
	size_t		polygons;		/* rows with a polygon read without error (2D) */
	size_t		direct;			/* non-empty rows the bytes path read itself (2D) */
	size_t		flat_polygons;	/* edges of polygons without area in the batch (2D) */
} corpus;

/*
 * Row by row through the reference and paths 1 and 2, into growing batches
 * (so rows after a failing one check that it left the same state).
 */
static void
check_rows(gen *g, size_t nrows, int naxes, exg_nonplanar_policy policy, corpus *cp)
{
	exg_batch	b1,
				b2;
	ref_batch	ref = {0};
	exg_shape	s,
				scratch;
	gs_writer	w = {0};
	char		label[96];

	exg_batch_init(&b1, naxes, policy);
	exg_batch_init(&b2, naxes, policy);
	exg_shape_init(&s);
	exg_shape_init(&scratch);
	for (size_t i = 0; i < nrows && test_failures < 20; i++)
	{
		exg_error	e0 = {0},
					e1 = {0},
					e2 = {0};
		exg_status	st0,
					st1,
					st2;
		exg_counters c0,
					c1,
					c2,
					c3;
		exg_gs_simple it;
		size_t		np0 = ref.nprims;

		gen_row(g, &w);
		snprintf(label, sizeof(label), "%dD, policy %d, row %zu", naxes, (int) policy, i);
		test_context = label;

		c0 = counters_now();
		exg_shape_clear(&s);
		st0 = exg_gserialized_read(w.b, w.n, &s, &e0);
		if (st0 == EXG_OK)
			st0 = ref_add_any(&ref, &s, naxes, policy, &e0);
		c1 = counters_now();
		exg_shape_clear(&s);
		st1 = exg_gserialized_read(w.b, w.n, &s, &e1);
		if (st1 == EXG_OK)
			st1 = exg_batch_add(&b1, &s, &e1);
		c2 = counters_now();
		exg_shape_clear(&scratch);	/* left empty where the bytes path reads the row itself */
		st2 = exg_batch_add_serialized(&b2, w.b, w.n, &scratch, &e2);
		c3 = counters_now();

		CHECK(st1 == st0, "shape path: status %d, reference %d (%s)", (int) st1, (int) st0, e0.message);
		CHECK(st2 == st0, "bytes path: status %d, reference %d (%s)", (int) st2, (int) st0, e0.message);
		if (st0 != EXG_OK)
		{
			CHECK(strcmp(e1.message, e0.message) == 0, "shape path: '%s', reference '%s'", e1.message, e0.message);
			CHECK(strcmp(e2.message, e0.message) == 0, "bytes path: '%s', reference '%s'", e2.message, e0.message);
			CHECK(e1.status == e0.status && e2.status == e0.status);
			cp->nbad++;
		}
		else
		{
			/*
			 * The same predicates, the same number of times; fewer where a
			 * face is a triangle (no planarity checks, no triangulator).
			 */
			if (naxes == 2)
			{
				cp->direct += s.ncomps > 0 && scratch.ncomps == 0;
				if (has_polygon(&s))
				{
					cp->polygons++;
					for (size_t t = np0; t < ref.nprims; t++)
						cp->flat_polygons += ref.tri[3 * t + 1] == ref.tri[3 * t + 2] &&
							ref.tri[3 * t] != ref.tri[3 * t + 1];
				}
			}
			else if (!has_polygon(&s))
			{
				CHECK(same_counts(&c0, &c1, &c1, &c2), "shape path: other orientation counts");
				CHECK(same_counts(&c0, &c1, &c2, &c3), "bytes path: other orientation counts");
			}
			else
				CHECK(c2.orient_evals - c1.orient_evals <= c1.orient_evals - c0.orient_evals &&
					  c3.orient_evals - c2.orient_evals <= c1.orient_evals - c0.orient_evals,
					  "more orientations than the reference");
			cp->exact += c1.orient_exact - c0.orient_exact;
			gs_rows_add(&cp->ok, &w);
			if (exg_gs_simple_begin(w.b, w.n, &it))
				cp->nsimple++;
			if (s.geom_type == 14 || s.geom_type == 15)
				for (size_t t = np0; t < ref.nprims; t++)
					cp->degenerate += ref.tri[3 * t + 1] == ref.tri[3 * t + 2];
		}
		same_as_ref(&b1, &ref, "shape path");
		same_as_ref(&b2, &ref, "bytes path");
	}
	test_context = NULL;
	exg_batch_free(&b1);
	exg_batch_free(&b2);
	ref_free(&ref);
	exg_shape_free(&s);
	exg_shape_free(&scratch);
	gsw_free(&w);
}

/* Path 3: many rows at once, on 1, 2 and 3 threads; then with a bad row. */
static void
check_many_rows(const gs_rows *rows, int naxes, exg_nonplanar_policy policy, const char *name)
{
	ref_batch	ref = {0};
	exg_shape	s;
	exg_row_bytes rb = {rows->data, rows->off, rows->nrows};
	const int	threads[] = {1, 2, 3};
	char		label[96];

	exg_shape_init(&s);
	for (size_t i = 0; i < rows->nrows; i++)
	{
		exg_error	e = {0};

		exg_shape_clear(&s);
		if (exg_gserialized_read(rows->data + rows->off[i], rows->off[i + 1] - rows->off[i], &s, &e) != EXG_OK ||
			ref_add_any(&ref, &s, naxes, policy, &e) != EXG_OK)
			FAIL("%s: row %zu fails in the reference: %s", name, i, e.message);
	}
	for (size_t t = 0; t < sizeof(threads) / sizeof(threads[0]); t++)
	{
		exg_batch	b;
		exg_error	e = {0};
		exg_status	st;

		snprintf(label, sizeof(label), "%s (%dD), %zu rows, %d threads", name, naxes, rows->nrows, threads[t]);
		test_context = label;
		exg_batch_init(&b, naxes, policy);
		st = exg_batch_add_rows(&b, &rb, threads[t], &e);
		CHECK(st == EXG_OK, "%s", e.message);
		if (st == EXG_OK)
			same_as_ref(&b, &ref, "exg_batch_add_rows");

		/* appended to a batch holding rows already: the same again, shifted */
		if (rows->nrows > 2)
		{
			exg_batch	c;
			exg_row_bytes first = {rows->data, rows->off, 2},
						rest = {rows->data, rows->off + 2, rows->nrows - 2};

			exg_batch_init(&c, naxes, policy);
			CHECK(exg_batch_add_rows(&c, &first, threads[t], &e) == EXG_OK, "%s", e.message);
			CHECK(exg_batch_add_rows(&c, &rest, threads[t], &e) == EXG_OK, "%s", e.message);
			same_as_ref(&c, &ref, "exg_batch_add_rows in two calls");
			exg_batch_free(&c);
		}

		/* two rows cut short: the first is reported with its error, b is unchanged */
		if (rows->nrows > 10)
		{
			size_t		bad[2] = {rows->nrows - 3, rows->nrows / 3};
			size_t		saved[2];
			size_t		nv = b.nverts,
						np = b.nprims,
						nr = b.nrows;
			exg_shape	one;
			exg_error	want = {0};

			for (int k = 0; k < 2; k++)
			{
				saved[k] = rows->off[bad[k] + 1];
				rows->off[bad[k] + 1] = rows->off[bad[k]] + 6;
			}
			exg_shape_init(&one);
			(void) exg_gserialized_read(rows->data + rows->off[bad[1]], 6, &one, &want);
			exg_shape_free(&one);
			memset(&e, 0, sizeof(e));
			st = exg_batch_add_rows(&b, &rb, threads[t], &e);
			CHECK(st == want.status && e.row == bad[1] + 1 && strcmp(e.message, want.message) == 0,
				  "status %d row %llu '%s', want %d row %zu '%s'", (int) st, (unsigned long long) e.row,
				  e.message, (int) want.status, bad[1] + 1, want.message);
			CHECK(b.nverts == nv && b.nprims == np && b.nrows == nr, "the batch changed");
			for (int k = 0; k < 2; k++)
				rows->off[bad[k] + 1] = saved[k];
		}
		exg_batch_free(&b);
	}
	test_context = NULL;
	exg_shape_free(&s);
	ref_free(&ref);
}

/* The rows of a small synthetic mine: bodies as TIN Z, holes as LINESTRING Z. */
static void
mine_rows(gs_rows *rows)
{
	mine_params mp;
	mine	   *m;
	char		merr[256];
	gs_writer	w = {0};

	mine_params_for_size(&mp, "tiny", 7);
	if (mine_generate(&mp, &m, merr, sizeof(merr)) != 0)
	{
		FAIL("mine: %s", merr);
		return;
	}
	for (size_t bi = 0; bi < m->n_bodies; bi++)
	{
		const mine_body *bd = &m->bodies[bi];
		const double *xyz = m->body_xyz + 3 * bd->first_vertex;
		const uint32_t *tri = m->body_tri + 3 * bd->first_triangle;

		gsw_begin(&w, true, false, bi % 2 == 0);
		gsw_head(&w, 15, (uint32_t) bd->ntriangles);
		for (size_t t = 0; t < bd->ntriangles; t++)
		{
			gsw_head(&w, 14, 4);
			for (int k = 0; k < 4; k++)
				gsw_vertex3(&w, &xyz[3 * tri[3 * t + k % 3]]);
		}
		gs_rows_add(rows, &w);
	}
	for (size_t h = 0; h < m->n_holes; h++)
	{
		const mine_hole *ho = &m->holes[h];

		gsw_begin(&w, true, false, false);
		gsw_head(&w, 2, (uint32_t) ho->nvertices);
		for (size_t v = 0; v < ho->nvertices; v++)
			gsw_vertex3(&w, m->hole_xyz + 3 * (ho->first_vertex + v));
		gs_rows_add(rows, &w);
	}
	gsw_free(&w);
	mine_free(m);
}

int
main(int argc, char **argv)
{
	size_t		nrows = argc > 1 ? strtoull(argv[1], NULL, 10) : 6000;
	uint64_t	seed = argc > 2 ? strtoull(argv[2], NULL, 10) : 14;
	corpus		valid = {0},
				lifted = {0},
				adversarial = {0},
				flat = {0},
				flat_adversarial = {0};
	gs_rows		mine = {0};

	/* rows that read (with random flattening errors), under both policies; then bad coordinates and bytes */
	{
		gen			g = {{seed}, {{0}}, 0, false, true, false, false};

		check_rows(&g, nrows, 3, EXG_NONPLANAR_ERROR, &valid);
	}
	{
		gen			g = {{seed + 1}, {{0}}, 0, false, true, false, false};

		check_rows(&g, nrows, 3, EXG_NONPLANAR_TRIANGULATE, &lifted);
	}
	{
		gen			g = {{seed + 2}, {{0}}, 0, true, true, false, false};

		check_rows(&g, nrows, 3, EXG_NONPLANAR_ERROR, &adversarial);
	}
	printf("3D row by row: %zu + %zu + %zu rows (%zu + %zu + %zu simple, %zu + %zu + %zu refused), %zu degenerate TIN triangles, %zu exact orientations: same batches, errors and counts\n",
		   valid.ok.nrows, lifted.ok.nrows, adversarial.ok.nrows, valid.nsimple, lifted.nsimple,
		   adversarial.nsimple, valid.nbad, lifted.nbad, adversarial.nbad,
		   valid.degenerate + lifted.degenerate + adversarial.degenerate,
		   valid.exact + lifted.exact + adversarial.exact);
	CHECK(valid.nsimple > nrows / 4 && valid.degenerate > 100 && adversarial.nbad > valid.nbad + 50,
		  "the corpus lacks simple rows, degenerate triangles or bad rows");

	/* 2D batches: rows weighted to polygons, valid then adversarial */
	{
		gen			g = {{seed + 3}, {{0}}, 0, false, true, false, true};

		check_rows(&g, nrows, 2, EXG_NONPLANAR_ERROR, &flat);
	}
	{
		gen			g = {{seed + 4}, {{0}}, 0, true, true, false, true};

		check_rows(&g, nrows, 2, EXG_NONPLANAR_ERROR, &flat_adversarial);
	}
	printf("2D row by row: %zu + %zu rows (%zu + %zu simple, %zu + %zu read from the bytes, %zu + %zu refused), %zu + %zu with polygons (%zu + %zu edges of polygons without area): same batches and errors\n",
		   flat.ok.nrows, flat_adversarial.ok.nrows, flat.nsimple, flat_adversarial.nsimple,
		   flat.direct, flat_adversarial.direct, flat.nbad, flat_adversarial.nbad,
		   flat.polygons, flat_adversarial.polygons, flat.flat_polygons,
		   flat_adversarial.flat_polygons);
	CHECK(flat.nsimple > nrows / 8 && flat.direct > flat.nsimple * 3 / 4 && flat.polygons > nrows / 4 &&
		  flat.flat_polygons > 100 && flat_adversarial.nbad > flat.nbad + 50,
		  "the 2D corpus lacks simple rows, polygons, flat polygons or bad rows, or the bytes path read too few rows");

	check_many_rows(&valid.ok, 3, EXG_NONPLANAR_ERROR, "random rows");
	check_many_rows(&lifted.ok, 3, EXG_NONPLANAR_TRIANGULATE, "random rows, non-planar faces triangulated");
	check_many_rows(&adversarial.ok, 3, EXG_NONPLANAR_ERROR, "adversarial rows");
	mine_rows(&mine);
	check_many_rows(&mine, 3, EXG_NONPLANAR_ERROR, "mine tiny");
	check_many_rows(&flat.ok, 2, EXG_NONPLANAR_ERROR, "2D rows");
	check_many_rows(&flat_adversarial.ok, 2, EXG_NONPLANAR_ERROR, "2D adversarial rows");
	check_many_rows(&mine, 2, EXG_NONPLANAR_ERROR, "mine tiny");
	printf("many rows: %zu, %zu, %zu and %zu (mine) rows in 3D, %zu, %zu and %zu (mine) in 2D, on 1, 2 and 3 threads equal the reference\n",
		   valid.ok.nrows, lifted.ok.nrows, adversarial.ok.nrows, mine.nrows, flat.ok.nrows,
		   flat_adversarial.ok.nrows, mine.nrows);

	gs_rows_free(&flat.ok);
	gs_rows_free(&flat_adversarial.ok);
	gs_rows_free(&lifted.ok);
	gs_rows_free(&valid.ok);
	gs_rows_free(&adversarial.ok);
	gs_rows_free(&mine);
	return test_summary("test_batch_flatten");
}
