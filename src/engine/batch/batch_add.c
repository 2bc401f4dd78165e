/*
 * batch_add.c — adding rows to a batch: a shape, or a row's serialized
 * bytes walked straight into the arrays for the simple kinds (TIN,
 * triangles, linestrings, points), 3D and 2D.
 */
#include "batch.h"

#include <stdlib.h>
#include <string.h>

#include "gserialized_read.h"
#include "host_alloc.h"
#include "predicates_cpu.h"
#include "triangulate.h"


/*
 * Grow *buf to hold need elements, doubling; *cap is updated (it was not,
 * once: every vertex then paid a realloc call, 12% of reading a mine).
 */
static bool
grow(void **buf, size_t *cap, size_t need, size_t elem)
{
	size_t		ncap;
	void	   *nb;

	if (need <= *cap)
		return true;
	ncap = *cap ? *cap : 1024;
	while (ncap < need)
		ncap *= 2;
	nb = realloc(*buf, ncap * elem);
	if (nb == NULL)
		return false;
	*buf = nb;
	*cap = ncap;
	return true;
}

/* Append a vertex (z = 0 in a 2D batch); returns its index or UINT32_MAX. */
static uint32_t
add_vertex(exg_batch *b, const double *v)
{
	if (b->nverts >= UINT32_MAX - 1)
		return UINT32_MAX;
	if (!grow((void **) &b->xyz, &b->verts_cap, b->nverts + 1, 3 * sizeof(double)))
		return UINT32_MAX;
	b->xyz[3 * b->nverts] = v[0];
	b->xyz[3 * b->nverts + 1] = v[1];
	b->xyz[3 * b->nverts + 2] = b->naxes == 2 ? 0 : v[2];
	return (uint32_t) b->nverts++;
}

/* add_vertex of a 2D batch from x, y alone (z = 0): a triangulator's vertex. */
static uint32_t
add_vertex_2d(exg_batch *b, const double *xy)
{
	double		v[3] = {xy[0], xy[1], 0};

	return add_vertex(b, v);
}

static exg_status
add_prim(exg_batch *b, uint32_t i0, uint32_t i1, uint32_t i2, exg_error *err)
{
	size_t		cap = b->prims_cap,
				cap2 = b->prims_cap;

	if (i0 == UINT32_MAX || i1 == UINT32_MAX || i2 == UINT32_MAX || b->nprims >= UINT32_MAX - 1)
		return exg_fail(err, EXG_ERR_TOO_LARGE, "too many vertices or primitives in one join input");
	/* tri and owner share prims_cap: both grow from it to the same size */
	if (!grow((void **) &b->tri, &cap, b->nprims + 1, 3 * sizeof(uint32_t)) ||
		!grow((void **) &b->owner, &cap2, b->nprims + 1, sizeof(uint32_t)))
		return exg_fail(err, EXG_ERR_NOMEM, "out of memory collecting join input");
	b->prims_cap = cap < cap2 ? cap : cap2;
	b->tri[3 * b->nprims] = i0;
	b->tri[3 * b->nprims + 1] = i1;
	b->tri[3 * b->nprims + 2] = i2;
	b->owner[b->nprims] = (uint32_t) b->nrows;
	b->nprims++;
	return EXG_OK;
}

/*
 * The 3D view through exg_prims_build_3d, each primitive copied with its
 * vertices: what add_3d made before it flattened rows itself, kept for the
 * rows that add_3d hands back (ids that would pass 2^32 - 1, where this
 * path's partial copy and its error are the reference).
 */
static exg_status
add_3d_prims(exg_batch *b, const exg_shape *s, exg_error *err)
{
	exg_prims	p;
	exg_status	st = exg_prims_build_3d(s, b->policy, &p, err);
	size_t		t;

	if (st != EXG_OK)
		return st;
	/* room for every primitive's vertices up front, not one doubling at a time */
	if (!grow((void **) &b->xyz, &b->verts_cap, b->nverts + 3 * p.nprims, 3 * sizeof(double)))
		st = exg_fail(err, EXG_ERR_NOMEM, "out of memory collecting join input");
	for (t = 0; t < p.nprims && st == EXG_OK; t++)
	{
		const exg_prim *pr = &p.prims[t];
		uint32_t	v0 = add_vertex(b, &s->xyz[3 * pr->v[0]]);
		uint32_t	v1 = pr->kind == EXG_SIMPLEX_POINT ? v0 : add_vertex(b, &s->xyz[3 * pr->v[1]]);
		uint32_t	v2 = pr->kind == EXG_SIMPLEX_TRIANGLE ? add_vertex(b, &s->xyz[3 * pr->v[2]]) : v1;

		st = add_prim(b, v0, v1, v2, err);
	}
	exg_prims_free(&p);
	return st;
}

/*
 * Where add_3d writes: the batch's arrays and counts in locals, so that
 * stores of coordinates need not reload them (the extension is built with
 * -fno-strict-aliasing).
 */
typedef struct flat_cursor
{
	double	   *xyz;
	uint32_t   *tri;
	uint32_t   *owner;
	size_t		nv;
	size_t		np;
	uint32_t	row;
} flat_cursor;

static inline flat_cursor
cursor_of(const exg_batch *b)
{
	flat_cursor c = {b->xyz, b->tri, b->owner, b->nverts, b->nprims, (uint32_t) b->nrows};

	return c;
}

static inline uint32_t
put_vertex(flat_cursor *c, const double *v)
{
	double	   *d = &c->xyz[3 * c->nv];

	d[0] = v[0];
	d[1] = v[1];
	d[2] = v[2];
	return (uint32_t) c->nv++;
}

/* A vertex of a 2D batch: x and y as loaded, z = 0 as add_vertex writes it. */
static inline uint32_t
put_vertex_2d(flat_cursor *c, const double *xy)
{
	double	   *d = &c->xyz[3 * c->nv];

	d[0] = xy[0];
	d[1] = xy[1];
	d[2] = 0;
	return (uint32_t) c->nv++;
}

static inline void
put_prim(flat_cursor *c, uint32_t i0, uint32_t i1, uint32_t i2)
{
	uint32_t   *t = &c->tri[3 * c->np];

	t[0] = i0;
	t[1] = i1;
	t[2] = i2;
	c->owner[c->np++] = c->row;
}

/* A classified primitive, its vertices copied as add_3d_prims copies them. */
static inline void
put_simplex(flat_cursor *c, const exg_cpu_simplex *sx)
{
	uint32_t	v0 = put_vertex(c, sx->v[0]);
	uint32_t	v1 = sx->kind == EXG_SIMPLEX_POINT ? v0 : put_vertex(c, sx->v[1]);
	uint32_t	v2 = sx->kind == EXG_SIMPLEX_TRIANGLE ? put_vertex(c, sx->v[2]) : v1;

	put_prim(c, v0, v1, v2);
}

/*
 * Ring r's segments as geom_prims.c's push_ring_edges classifies them: a
 * one-vertex ring is a point, a repeated vertex adds nothing, except at the
 * start, where the zero-length segment classifies as a point.
 */
static void
put_ring_edges(flat_cursor *c, const exg_shape *s, size_t r)
{
	size_t		first = s->ring_start[r],
				end = s->ring_start[r + 1];
	const double *x = s->xyz;

	if (end - first == 1)
	{
		uint32_t	i = put_vertex(c, &x[3 * first]);

		put_prim(c, i, i, i);
		return;
	}
	for (size_t v = first; v + 1 < end; v++)
	{
		const double *p = &x[3 * v],
				   *q = p + 3;
		uint32_t	i,
					j;

		if (exg_cpu_equal3(p, q))
		{
			if (v == first)
			{
				i = put_vertex(c, p);
				put_prim(c, i, i, i);
			}
			continue;
		}
		i = put_vertex(c, p);
		j = put_vertex(c, q);
		put_prim(c, i, j, j);
	}
}

/*
 * A polygon face that is a triangle: one closed ring of three distinct
 * vertices (a POLYHEDRALSURFACE of triangles, as many tools write solids).
 */
static inline bool
is_triangle_face(const exg_shape *s, const exg_comp *k)
{
	const double *v;

	if (k->nrings != 1 || exg_ring_nverts(s, k->first_ring) != 4)
		return false;
	v = &s->xyz[3 * s->ring_start[k->first_ring]];
	return exg_cpu_equal3(v, v + 9) && !exg_cpu_equal3(v, v + 3) &&
		!exg_cpu_equal3(v + 3, v + 6) && !exg_cpu_equal3(v, v + 6);
}

/*
 * A triangle face (is_triangle_face, ring r) as push_polygon_3d makes it,
 * without its planarity checks (three points are always coplanar), copies
 * and triangulation: its vertices a, b, c are distinct, so push_polygon_3d
 * takes the projection axis k of exg_cpu_normal_axis(a, b, c); when there is
 * none (a, b, c collinear) the face is its ring's three edges; otherwise
 * exg_triangulate_polygon returns the one triangle, in the ring's own
 * orientation, starting at the vertex that is lowest lexicographically in
 * the projection (its sweep's first point; the projected vertices are
 * distinct, since they have a non-zero orientation there). That triangle
 * classifies as one (no degeneracy), so it is stored as ordered.
 * test_batch_flatten holds this equal to the generic path. Upward rounding.
 */
static void
put_triangle_face(flat_cursor *c, const exg_shape *s, size_t r)
{
	const double *v = &s->xyz[3 * s->ring_start[r]];
	int			sg,
				k = exg_cpu_normal_axis(v, v + 3, v + 6, &sg),
				i,
				j,
				m = 0;
	uint32_t	p0,
				p1,
				p2;

	if (k < 0)
	{
		put_ring_edges(c, s, r);
		return;
	}
	i = (k + 1) % 3;
	j = (k + 2) % 3;
	for (int t = 1; t < 3; t++)
		if (v[3 * t + i] < v[3 * m + i] || (v[3 * t + i] == v[3 * m + i] && v[3 * t + j] < v[3 * m + j]))
			m = t;
	p0 = put_vertex(c, &v[3 * m]);
	p1 = put_vertex(c, &v[3 * ((m + 1) % 3)]);
	p2 = put_vertex(c, &v[3 * ((m + 2) % 3)]);
	put_prim(c, p0, p1, p2);
}

/* Most vertices and primitives ring r can add (as put_ring_edges). */
static inline void
ring_bound(const exg_shape *s, size_t r, size_t *nv, size_t *np)
{
	size_t		n = exg_ring_nverts(s, r);

	*nv += n == 1 ? 1 : n ? 2 * (n - 1) : 0;
	*np += n == 1 ? 1 : n ? n - 1 : 0;
}

/* Room for nv more vertices and np more primitives. */
static bool
reserve_more(exg_batch *b, size_t nv, size_t np)
{
	size_t		cap = b->prims_cap,
				cap2 = b->prims_cap;
	bool		ok;

	if (!grow((void **) &b->xyz, &b->verts_cap, b->nverts + nv, 3 * sizeof(double)))
		return false;
	/* tri and owner share prims_cap, as in add_prim */
	ok = grow((void **) &b->tri, &cap, b->nprims + np, 3 * sizeof(uint32_t)) &&
		grow((void **) &b->owner, &cap2, b->nprims + np, sizeof(uint32_t));
	b->prims_cap = cap < cap2 ? cap : cap2;
	return ok;
}

/* Ids (nv vertices, np primitives in all) stay below UINT32_MAX - 1, as add_vertex and add_prim require. */
static inline bool
ids_fit(size_t nv, size_t np)
{
	return nv < UINT32_MAX - 1 && np < UINT32_MAX - 1;
}

/*
 * The 3D view of s, flattened straight into b: the primitives that
 * exg_prims_build_3d makes, in its order, classified by the same functions
 * (intersect_logic.h, for points, segments and triangles; its own
 * exg_prims_add_face_3d for polygon faces), without what the batch does not
 * use (per-primitive boxes, the face map, the total box, a primitive array
 * to copy from), into arrays reserved once for the row. Upward rounding is
 * entered once per row, and only for rows with triangles or faces (segments
 * and points need no orientation). Returns false, b untouched, where ids
 * could pass 2^32 - 1: add_3d_prims then decides. On error b is as before.
 * test/engine/test_batch_flatten.c holds it equal to add_3d_prims, bit for bit.
 */
static bool
add_3d_direct(exg_batch *b, const exg_shape *s, exg_status *st, exg_error *err)
{
	size_t		nv0 = b->nverts,
				np0 = b->nprims,
				maxv = 0,
				maxp = 0,
				ci;
	bool		rounding = false;
	exg_round_state saved = 0;
	exg_prims	face = {0};
	flat_cursor c;

	for (ci = 0; ci < s->ncomps; ci++)
	{
		const exg_comp *k = &s->comps[ci];

		if (k->kind == EXG_COMP_POLYGON)
		{
			if (is_triangle_face(s, k))
			{
				/* a triangle, or its three edges */
				maxv += 6;
				maxp += 3;
			}
			continue;
		}
		if (k->kind == EXG_COMP_TRIANGLE && exg_ring_nverts(s, k->first_ring) >= 3)
		{
			maxv += 3;
			maxp += 1;
		}
		else
			ring_bound(s, k->first_ring, &maxv, &maxp);
	}
	if (!ids_fit(nv0 + maxv, np0 + maxp))
		return false;
	*st = EXG_OK;
	if (!reserve_more(b, maxv, maxp))
	{
		*st = exg_fail(err, EXG_ERR_NOMEM, "out of memory collecting join input");
		return true;
	}
	c = cursor_of(b);
	for (ci = 0; ci < s->ncomps && *st == EXG_OK; ci++)
	{
		const exg_comp *k = &s->comps[ci];

		if (k->kind == EXG_COMP_TRIANGLE && exg_ring_nverts(s, k->first_ring) >= 3)
		{
			const double *a = &s->xyz[3 * s->ring_start[k->first_ring]];
			exg_cpu_simplex sx = {0};

			if (!rounding)
			{
				saved = exg_round_up_enter();
				rounding = true;
			}
			(void) exg_cpu_classify_triangle(a, a + 3, a + 6, 3, &sx);
			put_simplex(&c, &sx);
		}
		else if (k->kind != EXG_COMP_POLYGON)
			put_ring_edges(&c, s, k->first_ring);
		else
		{
			if (!rounding)
			{
				saved = exg_round_up_enter();
				rounding = true;
			}
			if (is_triangle_face(s, k))
			{
				put_triangle_face(&c, s, k->first_ring);
				continue;
			}
			face.nprims = 0;
			*st = exg_prims_add_face_3d(&face, s, ci, b->policy, err);
			if (*st != EXG_OK)
				break;
			b->nverts = c.nv;
			b->nprims = c.np;
			if (!ids_fit(nv0 + maxv + 3 * face.nprims, np0 + maxp + face.nprims))
			{
				/* too many ids: the old path's partial copy and error decide */
				b->nverts = nv0;
				b->nprims = np0;
				exg_round_restore(saved);
				exg_prims_free(&face);
				return false;
			}
			maxv += 3 * face.nprims;
			maxp += face.nprims;
			if (!reserve_more(b, maxv - (c.nv - nv0), maxp - (c.np - np0)))
			{
				*st = exg_fail(err, EXG_ERR_NOMEM, "out of memory collecting join input");
				break;
			}
			c = cursor_of(b);
			for (size_t t = 0; t < face.nprims; t++)
			{
				exg_cpu_simplex sx;

				exg_cpu_simplex_of(s->xyz, &face.prims[t], &sx);
				put_simplex(&c, &sx);
			}
		}
	}
	if (rounding)
		exg_round_restore(saved);
	if (face.cap > 0)
		exg_prims_free(&face);
	if (*st != EXG_OK)
	{
		b->nverts = nv0;
		b->nprims = np0;
		return true;
	}
	b->nverts = c.nv;
	b->nprims = c.np;
	return true;
}

/* Are the three coordinates finite? (x - x is 0 for finite x, NaN otherwise) */
static inline bool
finite3(const double *v)
{
	return v[0] - v[0] == 0 && v[1] - v[1] == 0 && v[2] - v[2] == 0;
}

/*
 * The limits of a walk over a row's bytes: below both the capacity and the
 * id limit of add_vertex and add_prim.
 */
static void
walk_limits(const exg_batch *b, size_t *vlim, size_t *plim)
{
	*vlim = b->verts_cap < UINT32_MAX - 2 ? b->verts_cap : UINT32_MAX - 2;
	*plim = b->prims_cap < UINT32_MAX - 2 ? b->prims_cap : UINT32_MAX - 2;
}

/*
 * Room at cursor c for a component of `kind` with n points (a line's
 * segments each take two vertices), b grown if need be; false when the
 * ids would not fit or memory ran out.
 */
static bool
walk_room(exg_batch *b, flat_cursor *c, size_t *vlim, size_t *plim, exg_comp_kind kind,
		  uint32_t n)
{
	size_t		need_v = kind == EXG_COMP_LINE ? 2 * ((size_t) n - 1) : kind == EXG_COMP_TRIANGLE ? 3 : 1,
				need_p = kind == EXG_COMP_LINE ? (size_t) n - 1 : 1;

	if (c->nv + need_v <= *vlim && c->np + need_p <= *plim)
		return true;
	b->nverts = c->nv;
	b->nprims = c->np;
	if (!ids_fit(c->nv + need_v, c->np + need_p) || !reserve_more(b, need_v, need_p))
		return false;
	*c = cursor_of(b);
	walk_limits(b, vlim, plim);
	return true;
}

/*
 * A simple geometry (gserialized_read.h: points, linestrings, a TIN) from
 * its bytes straight into b, without a shape: what exg_gserialized_read
 * would store, flattened as add_3d_direct flattens it (the same vertex
 * loads, comparisons, classification and order), reading the bytes once.
 * Returns false, b's vertices and primitives as before, where the bytes are
 * not simple, a coordinate is not finite, ids could pass 2^32 - 1 or memory
 * is short: the caller then reads the bytes into a shape, and that path's
 * result or error is the answer. *nonempty: a component was added.
 */
static bool
add_serialized_3d(exg_batch *b, const uint8_t *data, size_t size, bool *nonempty, bool *has_z)
{
	exg_gs_simple it;
	exg_comp_kind kind;
	size_t		off,
				nv0 = b->nverts,
				np0 = b->nprims,
				vlim,
				plim;
	uint32_t	n;
	bool		rounding = false;
	exg_round_state saved = 0;
	flat_cursor c;

	if (!exg_gs_simple_begin(data, size, &it))
		return false;
	*nonempty = false;
	*has_z = it.has_z;
	c = cursor_of(b);
	walk_limits(b, &vlim, &plim);
	while (exg_gs_simple_next(&it, &kind, &off, &n))
	{
		if (!walk_room(b, &c, &vlim, &plim, kind, n))
		{
			it.ok = false;
			break;
		}
		*nonempty = true;
		if (kind == EXG_COMP_TRIANGLE)
		{
			double		v[9];
			exg_cpu_simplex sx = {0};

			exg_gs_vertex(&it, off, v);
			exg_gs_vertex(&it, off + it.stride, v + 3);
			exg_gs_vertex(&it, off + 2 * it.stride, v + 6);
			if (!finite3(v) || !finite3(v + 3) || !finite3(v + 6))
			{
				it.ok = false;
				break;
			}
			if (!rounding)
			{
				saved = exg_round_up_enter();
				rounding = true;
			}
			(void) exg_cpu_classify_triangle(v, v + 3, v + 6, 3, &sx);
			put_simplex(&c, &sx);
		}
		else if (kind == EXG_COMP_POINT)
		{
			double		p[3];
			uint32_t	i;

			exg_gs_vertex(&it, off, p);
			if (!finite3(p))
			{
				it.ok = false;
				break;
			}
			i = put_vertex(&c, p);
			put_prim(&c, i, i, i);
		}
		else
		{
			/* put_ring_edges over the loaded vertices */
			double		v[2][3];
			int			cur = 0;

			exg_gs_vertex(&it, off, v[0]);
			if (!finite3(v[0]))
			{
				it.ok = false;
				break;
			}
			for (uint32_t k = 1; k < n; k++)
			{
				const double *p = v[cur],
						   *q = v[cur ^ 1];
				uint32_t	i,
							j;

				exg_gs_vertex(&it, off + k * it.stride, v[cur ^ 1]);
				if (!finite3(q))
				{
					it.ok = false;
					break;
				}
				cur ^= 1;
				if (exg_cpu_equal3(p, q))
				{
					if (k == 1)
					{
						i = put_vertex(&c, p);
						put_prim(&c, i, i, i);
					}
					continue;
				}
				i = put_vertex(&c, p);
				j = put_vertex(&c, q);
				put_prim(&c, i, j, j);
			}
			if (!it.ok)
				break;
		}
	}
	if (rounding)
		exg_round_restore(saved);
	if (!it.ok)
	{
		b->nverts = nv0;
		b->nprims = np0;
		return false;
	}
	b->nverts = c.nv;
	b->nprims = c.np;
	return true;
}

static exg_status
add_3d(exg_batch *b, const exg_shape *s, exg_error *err)
{
	exg_status	st;

	if (add_3d_direct(b, s, &st, err))
		return st;
	return add_3d_prims(b, s, err);
}

/* Ring r's consecutive segments (a ring of one vertex is a point). */
static exg_status
add_ring_edges(exg_batch *b, const exg_shape *s, size_t r, exg_error *err)
{
	size_t		first = s->ring_start[r],
				end = s->ring_start[r + 1],
				v;
	exg_status	st = EXG_OK;

	if (end - first == 1)
	{
		uint32_t	p = add_vertex(b, &s->xyz[3 * first]);

		return add_prim(b, p, p, p, err);
	}
	for (v = first; v + 1 < end && st == EXG_OK; v++)
	{
		uint32_t	p = add_vertex(b, &s->xyz[3 * v]),
					q = add_vertex(b, &s->xyz[3 * (v + 1)]);

		st = add_prim(b, p, q, q, err);
	}
	return st;
}

/*
 * A polygon's triangles in the plane, at z = 0: the polygon as the
 * triangulator takes it (xy, rings without their closing vertex), its
 * triangles appended, each (a, b, c) with its vertices stored c, b, a (the
 * order 2D batches have always had: the old code passed three add_vertex
 * calls as add_prim's arguments, which GCC evaluates last to first; kept,
 * so that the batches stay bit-identical to the builds before), into room
 * reserved once for the polygon. *ntris = 0: the polygon has no area
 * (nothing added; its caller adds its rings' edges).
 */
static exg_status
add_triangles_2d(exg_batch *b, const double *xy, size_t nxy, const size_t *starts,
				 size_t nrings, size_t *ntris, exg_error *err)
{
	uint32_t   *tris = NULL;
	exg_status	st = exg_triangulate_polygon(xy, nxy, starts, nrings, &tris, ntris, err);
	size_t		n = *ntris;

	if (st != EXG_OK || n == 0)
	{
		free(tris);
		return st;
	}
	if (ids_fit(b->nverts + 3 * n, b->nprims + n) && reserve_more(b, 3 * n, n))
	{
		flat_cursor c = cursor_of(b);

		for (size_t t = 0; t < n; t++)
		{
			const uint32_t *k = &tris[3 * t];
			uint32_t	v2 = put_vertex_2d(&c, &xy[2 * (size_t) k[2]]);
			uint32_t	v1 = put_vertex_2d(&c, &xy[2 * (size_t) k[1]]);
			uint32_t	v0 = put_vertex_2d(&c, &xy[2 * (size_t) k[0]]);

			put_prim(&c, v0, v1, v2);
		}
		b->nverts = c.nv;
		b->nprims = c.np;
	}
	else
	{
		/* past the ids or short of memory: one at a time, to the failing one */
		for (size_t t = 0; t < n && st == EXG_OK; t++)
		{
			const uint32_t *k = &tris[3 * t];
			uint32_t	v2 = add_vertex_2d(b, &xy[2 * (size_t) k[2]]);
			uint32_t	v1 = add_vertex_2d(b, &xy[2 * (size_t) k[1]]);
			uint32_t	v0 = add_vertex_2d(b, &xy[2 * (size_t) k[0]]);

			st = add_prim(b, v0, v1, v2, err);
		}
	}
	free(tris);
	return st;
}

/* A polygon in the plane: exact triangulation, or its boundary if flat. */
static exg_status
add_polygon_2d(exg_batch *b, const exg_shape *s, const exg_comp *c, exg_error *err)
{
	size_t		total = 0,
				r,
				t,
				k = 0;
	double	   *xy;
	size_t	   *starts;
	size_t		ntris = 0;
	exg_status	st;

	for (r = c->first_ring; r < c->first_ring + c->nrings; r++)
		total += exg_ring_nverts(s, r);
	xy = malloc(sizeof(double) * 2 * (total + 1));
	starts = malloc(sizeof(size_t) * (c->nrings + 1));
	if (xy == NULL || starts == NULL)
	{
		free(xy);
		free(starts);
		return exg_fail(err, EXG_ERR_NOMEM, "out of memory triangulating a polygon");
	}
	for (r = c->first_ring; r < c->first_ring + c->nrings; r++)
	{
		size_t		first = s->ring_start[r],
					n = exg_ring_nverts(s, r);

		/* rings without their closing vertex */
		if (n > 1 && s->xyz[3 * first] == s->xyz[3 * (first + n - 1)] &&
			s->xyz[3 * first + 1] == s->xyz[3 * (first + n - 1) + 1])
			n--;
		starts[r - c->first_ring] = k;
		for (t = first; t < first + n; t++)
		{
			xy[2 * k] = s->xyz[3 * t];
			xy[2 * k + 1] = s->xyz[3 * t + 1];
			k++;
		}
	}
	starts[c->nrings] = k;
	st = add_triangles_2d(b, xy, k, starts, c->nrings, &ntris, err);
	if (st == EXG_OK && ntris == 0)
	{
		for (r = c->first_ring; r < c->first_ring + c->nrings && st == EXG_OK; r++)
			st = add_ring_edges(b, s, r, err);
	}
	free(xy);
	free(starts);
	return st;
}

/* The 2D view: everything at z = 0, areas as exact triangles. */
static exg_status
add_2d(exg_batch *b, const exg_shape *s, exg_error *err)
{
	exg_status	st = EXG_OK;
	size_t		ci;

	for (ci = 0; ci < s->ncomps && st == EXG_OK; ci++)
	{
		const exg_comp *c = &s->comps[ci];
		size_t		first = s->ring_start[c->first_ring];

		if (c->kind == EXG_COMP_POLYGON)
			st = add_polygon_2d(b, s, c, err);
		else if (c->kind == EXG_COMP_TRIANGLE && exg_ring_nverts(s, c->first_ring) >= 3)
		{
			/* stored last to first, as add_triangles_2d says why */
			uint32_t	v2 = add_vertex(b, &s->xyz[3 * (first + 2)]);
			uint32_t	v1 = add_vertex(b, &s->xyz[3 * (first + 1)]);
			uint32_t	v0 = add_vertex(b, &s->xyz[3 * first]);

			st = add_prim(b, v0, v1, v2, err);
		}
		else
			st = add_ring_edges(b, s, c->first_ring, err);
	}
	return st;
}

/*
 * A simple geometry (gserialized_read.h: points, linestrings, a TIN) of a 2D
 * row from its bytes straight into b, each component as add_2d makes it
 * from the shape exg_gserialized_read would store: a point; a linestring's
 * consecutive pairs of vertices as segments, repeats included (the 2D batch
 * keeps zero-length segments, unlike the 3D one, which classifies them); a
 * triangle's three vertices as they are (no classification either). Every
 * vertex at z = 0, after the reader's finiteness check of all its
 * coordinates (z too). Returns false, b's vertices and primitives as
 * before, where the bytes are not simple, a coordinate is not finite, ids
 * could pass 2^32 - 1 or memory is short: the caller then reads the bytes
 * into a shape, and that path's result or error is the answer. *nonempty: a
 * component was added. Polygons stay on that path: their triangulation is
 * 95% of their cost, and reading them from the bytes measured no faster
 * (bench/results/2026-11-24-cpu2-parse-2d.md).
 */
static bool
add_serialized_2d(exg_batch *b, const uint8_t *data, size_t size, bool *nonempty,
				  bool *has_z)
{
	exg_gs_simple it;
	exg_comp_kind kind;
	size_t		off,
				nv0 = b->nverts,
				np0 = b->nprims,
				vlim,
				plim;
	uint32_t	n;
	flat_cursor c;

	if (!exg_gs_simple_begin(data, size, &it))
		return false;
	*nonempty = false;
	*has_z = it.has_z;
	c = cursor_of(b);
	walk_limits(b, &vlim, &plim);
	while (exg_gs_simple_next(&it, &kind, &off, &n))
	{
		if (!walk_room(b, &c, &vlim, &plim, kind, n))
		{
			it.ok = false;
			break;
		}
		*nonempty = true;
		if (kind == EXG_COMP_TRIANGLE)
		{
			double		v[9];
			uint32_t	i0,
						i1,
						i2;

			exg_gs_vertex(&it, off, v);
			exg_gs_vertex(&it, off + it.stride, v + 3);
			exg_gs_vertex(&it, off + 2 * it.stride, v + 6);
			/* the fourth vertex equals the first (the walk checked): finite alike */
			if (!finite3(v) || !finite3(v + 3) || !finite3(v + 6))
			{
				it.ok = false;
				break;
			}
			/* stored last to first, as add_2d stores a triangle */
			i2 = put_vertex_2d(&c, v + 6);
			i1 = put_vertex_2d(&c, v + 3);
			i0 = put_vertex_2d(&c, v);
			put_prim(&c, i0, i1, i2);
		}
		else if (kind == EXG_COMP_POINT)
		{
			double		p[3];
			uint32_t	i;

			exg_gs_vertex(&it, off, p);
			if (!finite3(p))
			{
				it.ok = false;
				break;
			}
			i = put_vertex_2d(&c, p);
			put_prim(&c, i, i, i);
		}
		else
		{
			/* add_ring_edges over the loaded vertices: every pair, repeats too */
			double		v[2][3];
			int			cur = 0;

			exg_gs_vertex(&it, off, v[0]);
			if (!finite3(v[0]))
			{
				it.ok = false;
				break;
			}
			for (uint32_t k = 1; k < n; k++)
			{
				uint32_t	i,
							j;

				exg_gs_vertex(&it, off + k * it.stride, v[cur ^ 1]);
				if (!finite3(v[cur ^ 1]))
				{
					it.ok = false;
					break;
				}
				i = put_vertex_2d(&c, v[cur]);
				j = put_vertex_2d(&c, v[cur ^ 1]);
				put_prim(&c, i, j, j);
				cur ^= 1;
			}
			if (!it.ok)
				break;
		}
	}
	if (!it.ok)
	{
		b->nverts = nv0;
		b->nprims = np0;
		return false;
	}
	b->nverts = c.nv;
	b->nprims = c.np;
	return true;
}

exg_status
exg_batch_add_serialized(exg_batch *b, const uint8_t *data, size_t size, exg_shape *scratch,
						 exg_error *err)
{
	exg_status	st;
	bool		nonempty,
				has_z;

	if (exg_batch_own(b, err) != EXG_OK)
		return EXG_ERR_NOMEM;
	if (b->nrows < UINT32_MAX - 1 &&
		grow((void **) &b->solid, &b->solid_cap, b->nrows + 1, 1) &&
		(b->naxes == 3 ? add_serialized_3d(b, data, size, &nonempty, &has_z) :
		 add_serialized_2d(b, data, size, &nonempty, &has_z)))
	{
		/* what exg_batch_add does around add_3d and add_2d */
		b->solid[b->nrows] = 0;
		if (nonempty)
			*(has_z ? &b->nrows_z : &b->nrows_flat) += 1;
		b->nrows++;
		return EXG_OK;
	}
	exg_shape_clear(scratch);
	st = exg_gserialized_read(data, size, scratch, err);
	if (st == EXG_OK)
		st = exg_batch_add(b, scratch, err);
	return st;
}

/*
 * Capacity for nv vertices, np primitives and nr rows in all, in one step:
 * the bulk appends (batch_rows.c, batch_flat.c) know their totals up front.
 * Ids are 32-bit, so larger inputs are refused before anything is allocated.
 */
exg_status
exg_batch_reserve(exg_batch *b, size_t nv, size_t np, size_t nr, exg_error *err)
{
	double	   *xyz;
	uint32_t   *tri,
			   *owner;
	uint8_t    *solid;

	if (nv >= UINT32_MAX || np >= UINT32_MAX || nr >= UINT32_MAX)
		return exg_fail(err, EXG_ERR_TOO_LARGE, "too many vertices or primitives in one join input");
	if (exg_batch_own(b, err) != EXG_OK)
		return EXG_ERR_NOMEM;
	xyz = exg_host_realloc(b->xyz, (nv ? nv : 1) * 3 * sizeof(double));
	if (xyz)
		b->xyz = xyz;
	tri = exg_host_realloc(b->tri, (np ? np : 1) * 3 * sizeof(uint32_t));
	if (tri)
		b->tri = tri;
	owner = exg_host_realloc(b->owner, (np ? np : 1) * sizeof(uint32_t));
	if (owner)
		b->owner = owner;
	solid = realloc(b->solid, nr ? nr : 1);
	if (solid)
		b->solid = solid;
	if (!xyz || !tri || !owner || !solid)
		return exg_fail(err, EXG_ERR_NOMEM, "out of memory collecting join input");
	b->verts_cap = nv;
	b->prims_cap = np;
	b->solid_cap = nr;
	return EXG_OK;
}

exg_status
exg_batch_add(exg_batch *b, const exg_shape *s, exg_error *err)
{
	exg_status	st;

	if (b->nrows >= UINT32_MAX - 1)
		return exg_fail(err, EXG_ERR_TOO_LARGE, "too many rows in one join input");
	if (exg_batch_own(b, err) != EXG_OK)
		return EXG_ERR_NOMEM;
	if (!grow((void **) &b->solid, &b->solid_cap, b->nrows + 1, 1))
		return exg_fail(err, EXG_ERR_NOMEM, "out of memory collecting join input");
	b->solid[b->nrows] = 0;
	if (s->ncomps > 0)
		*(s->has_z ? &b->nrows_z : &b->nrows_flat) += 1;
	st = b->naxes == 3 ? add_3d(b, s, err) : add_2d(b, s, err);
	b->nrows++;
	return st;
}

