/*
 * triangulate.c — exact ear-clipping triangulation of a polygon with holes.
 *
 * The method is mapbox earcut's (merge the holes into the exterior ring,
 * then clip ears), but every geometric decision is an exact orientation sign
 * (the engine's orient2d cascade, as in exg_orient2d) or an exact comparison
 * of input doubles; no coordinate is ever computed. Only the triangulation's
 * corners are input vertices, so the output needs nothing but indices.
 *
 * Pipeline (all O(n^2) at worst, usually near O(n log n)):
 *   1. rings: drop repeated consecutive vertices; an exterior whose vertices
 *      are all collinear bounds no area (0 triangles); a collinear hole bounds
 *      no open set and is dropped;
 *   2. validation: every pair of edges whose boxes meet is classified; proper
 *      crossings, collinear overlaps and self-touching rings are invalid; a
 *      vertex of one ring inside an edge of another is recorded;
 *   3. splitting: such edges get that vertex inserted, so rings afterwards
 *      meet only at shared vertices;
 *   4. orientation: exterior counter-clockwise, holes clockwise, from the
 *      turn at each ring's lexicographically lowest vertex (exact, and valid
 *      because step 2 proved the ring simple); the polygon is then on the
 *      left of every edge;
 *   5. shared vertices: at a point where k rings meet, the k "outside"
 *      wedges (exterior: the plane outside; hole: the hole) must be pairwise
 *      disjoint, else a hole crosses or leaves the polygon there. The ring
 *      touch graph must be a forest (a cycle encloses a piece of interior:
 *      OGC's disconnected interior). Each incoming edge is then relinked to
 *      the outgoing edge just clockwise of it, which joins touching rings
 *      into one weakly simple cycle;
 *   6. bridges: remaining hole cycles, by increasing lowest vertex H, are
 *      joined to the merged ring by a doubled edge H-R, R found as in
 *      Eberly's "Triangulation by ear clipping" (nearest edge hit by the ray
 *      from H towards -x, then the vertex of smallest angle in the triangle
 *      that ray hit spans), with the hit point only ever compared, never
 *      computed. Everything not yet merged is lexicographically above H, the
 *      bridge and that triangle below it, so nothing unmerged is in the way;
 *   7. ears: a vertex b (neighbours a, c) is clipped when abc turns left and
 *      the closed triangle holds no vertex other than copies of a, b, c, and
 *      no other copy of b has an edge pointing into the triangle.
 *
 * Why the cover is exact. Let w(x) be the winding number of the current ring
 * around x. After step 6, w is 1 on the polygon's interior and 0 elsewhere,
 * and 1 just inside every vertex's left wedge (the ring is weakly simple:
 * copies of a point have disjoint wedges). No vertex ever lies inside an
 * edge (step 3, bridges are clear, the ear test keeps it so) and no edges
 * cross. Then an ear's open triangle contains no boundary point (an edge
 * entering it would have to cross ab or bc, or start at a copy of b, which
 * the test rules out), so w is constant on it, and 1 because near b it is
 * b's wedge. Clipping subtracts that triangle from w and keeps the
 * invariants, so the triangles tile the region with disjoint interiors.
 * Zero-area leftovers are trees traversed both ways; their leaves are spikes
 * (a, b, a'), removed without changing w. If a full pass finds neither ear
 * nor spike, the remaining ring's exact area decides: zero means done (w is
 * never negative), otherwise the input was invalid in a way steps 2-6 could
 * not see and EXG_ERR_INVALID is returned. A weakly simple ring of positive
 * area always has an ear of this strict kind (a leaf of a conforming
 * triangulation's dual forest), so valid input never gets there.
 */
#include "triangulate.h"

#include <gmp.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "cancel.h"
#include "orient_cascade.h"

/*
 * exg_orient2d (predicates.h) switches the rounding mode on every call, which
 * is most of its cost here; like the engine's other bulk loops we switch once
 * (exg_triangulate_polygon) and call the same cascade directly. This file
 * does no floating-point arithmetic of its own (only comparisons), so the
 * mode does not affect anything else in it.
 */
#define ORIENT(a, b, c) exg_orient2d_ru((a), (b), (c), 0, 1)

/* A vertex of the working rings; rings are doubly linked through prev/next. */
typedef struct tri_node
{
	double		p[2];
	uint32_t	idx;			/* input vertex index */
	uint32_t	ring;			/* kept ring, 0 = exterior */
	uint32_t	prev;
	uint32_t	next;
	bool		alive;
	bool		convex;			/* turns strictly left (step 7 only) */
} tri_node;

/* An edge of the kept rings during validation: vid[pos] -> vid[pos + 1]. */
typedef struct tri_edge
{
	double		lo[2];
	double		hi[2];
	uint32_t	a;
	uint32_t	b;
	uint32_t	ring;
	size_t		k;				/* position of a within its ring */
} tri_edge;

/* Vertex v lies strictly inside edge `edge` (of another ring). */
typedef struct tri_touch
{
	size_t		edge;
	double		p[2];
	uint32_t	v;
	int			dir;			/* +1 when the edge runs lexicographically upwards */
} tri_touch;

/* Sort key: a double and an id (qsort has no context argument). */
typedef struct tri_key
{
	double		p[2];
	size_t		id;
} tri_key;

/* A cycle after relinking: its lowest node, and whether it holds the exterior. */
typedef struct tri_cycle
{
	double		p[2];
	uint32_t	low;
	bool		outer;
} tri_cycle;

typedef struct tri_work
{
	const double *xy;
	exg_error  *err;

	uint32_t   *vid;			/* kept rings' input vertices */
	size_t		nvid;
	size_t	   *rs;				/* nkept + 1 starts into vid */
	size_t	   *orig;			/* input ring number of each kept ring */
	size_t		nkept;

	tri_touch  *touch;
	size_t		ntouch;
	size_t		touch_cap;

	tri_node   *node;
	size_t		nnode;
	size_t		node_cap;

	uint32_t   *mlist;			/* nodes of the merged ring, unordered */
	size_t		nm;

	uint32_t   *xs;				/* alive nodes by increasing x */
	size_t		nxs;
	size_t		ndead;

	uint32_t   *tris;
	size_t		ntris;
	bool		ext_cw;			/* input exterior was clockwise */
	unsigned	poll;
	exg_round_state caller_round;	/* the caller's rounding mode */
} tri_work;

static exg_status
fail_nomem(tri_work *w)
{
	return exg_fail(w->err, EXG_ERR_NOMEM, "out of memory triangulating polygon");
}

/* The cancel callback is not ours: it runs in the caller's rounding mode. */
static bool
cancel_now(tri_work *w)
{
	bool		stop;

	exg_round_restore(w->caller_round);
	stop = exg_cancel_requested();
	(void) exg_round_up_enter();
	return stop;
}

/* Long loops poll the cancel callback every EXG_CANCEL_STRIDE steps. */
static bool
cancelled(tri_work *w)
{
	return (++w->poll & (EXG_CANCEL_STRIDE - 1)) == 0 && cancel_now(w);
}

static inline const double *
pt(const tri_work *w, uint32_t v)
{
	return w->xy + 2 * (size_t) v;
}

static inline bool
same_pt(const double *a, const double *b)
{
	return a[0] == b[0] && a[1] == b[1];
}

/* Lexicographic order (x, then y): monotone along every segment. */
static inline int
lexcmp(const double *a, const double *b)
{
	if (a[0] != b[0])
		return a[0] < b[0] ? -1 : 1;
	if (a[1] != b[1])
		return a[1] < b[1] ? -1 : 1;
	return 0;
}

static int
cmp_key(const void *x, const void *y)
{
	const tri_key *a = x;
	const tri_key *b = y;
	int			c = lexcmp(a->p, b->p);

	if (c != 0)
		return c;
	return (a->id > b->id) - (a->id < b->id);
}

/* Only x matters for the sweep order; ties in any order. */
static int
cmp_key_x(const void *x, const void *y)
{
	const tri_key *a = x;
	const tri_key *b = y;

	return (a->p[0] > b->p[0]) - (a->p[0] < b->p[0]);
}

static int
cmp_touch(const void *x, const void *y)
{
	const tri_touch *a = x;
	const tri_touch *b = y;

	if (a->edge != b->edge)
		return a->edge < b->edge ? -1 : 1;
	return a->dir * lexcmp(a->p, b->p);
}

static int
cmp_cycle(const void *x, const void *y)
{
	const tri_cycle *a = x;
	const tri_cycle *b = y;

	return lexcmp(a->p, b->p);
}

/*
 * Is direction d - v strictly inside the open sector swept counter-clockwise
 * from direction from - v to direction to - v?  Exact: only orientation signs.
 * A zero-angle sector (from and to on one ray) is empty.
 */
static bool
sector_contains(const double *v, const double *from, const double *to,
				const double *d)
{
	int			c = ORIENT(v, from, to);

	if (c > 0)
		return ORIENT(v, from, d) > 0 && ORIENT(v, d, to) > 0;
	if (c < 0)
		return !(ORIENT(v, to, d) >= 0 && ORIENT(v, d, from) >= 0);
	if (lexcmp(from, v) == lexcmp(to, v))
		return false;
	return ORIENT(v, from, d) > 0;
}

/* r is strictly between p and q, all three known to be collinear. */
static bool
strictly_between(const double *p, const double *q, const double *r)
{
	return lexcmp(p, q) < 0 ? (lexcmp(p, r) < 0 && lexcmp(r, q) < 0)
		: (lexcmp(q, r) < 0 && lexcmp(r, p) < 0);
}

/* ---------------------------------------------------------------- rings */

/* Not all vertices collinear (vid[s..e) has no repeated neighbours). */
static bool
ring_has_area(const tri_work *w, size_t s, size_t e)
{
	size_t		k;

	if (e - s < 3)
		return false;
	for (k = s + 2; k < e; k++)
		if (ORIENT(pt(w, w->vid[s]), pt(w, w->vid[s + 1]), pt(w, w->vid[k])) != 0)
			return true;
	return false;
}

/* Step 1. Sets *flat when the exterior bounds no area. */
static exg_status
collect_rings(tri_work *w, const size_t *ring_start, size_t nrings, bool *flat)
{
	size_t		total = ring_start[nrings] - ring_start[0];
	size_t		r,
				i;

	*flat = false;
	w->vid = malloc((total ? total : 1) * sizeof(uint32_t));
	w->rs = malloc((nrings + 1) * sizeof(size_t));
	w->orig = malloc(nrings * sizeof(size_t));
	if (w->vid == NULL || w->rs == NULL || w->orig == NULL)
		return fail_nomem(w);
	w->nvid = 0;
	w->nkept = 0;
	for (r = 0; r < nrings; r++)
	{
		size_t		s = w->nvid;

		for (i = ring_start[r]; i < ring_start[r + 1]; i++)
		{
			if (w->nvid > s && same_pt(pt(w, w->vid[w->nvid - 1]), pt(w, (uint32_t) i)))
				continue;
			w->vid[w->nvid++] = (uint32_t) i;
		}
		/* the closing vertex, if the caller left it in */
		if (w->nvid - s > 1 && same_pt(pt(w, w->vid[s]), pt(w, w->vid[w->nvid - 1])))
			w->nvid--;
		if (!ring_has_area(w, s, w->nvid))
		{
			if (r == 0)
			{
				*flat = true;
				return EXG_OK;
			}
			w->nvid = s;
			continue;
		}
		w->rs[w->nkept] = s;
		w->orig[w->nkept] = r;
		w->nkept++;
	}
	w->rs[w->nkept] = w->nvid;
	return EXG_OK;
}

/* ----------------------------------------------------------- validation */

static exg_status
add_touch(tri_work *w, size_t edge, uint32_t v, const tri_edge *e)
{
	tri_touch  *t;

	if (w->ntouch == w->touch_cap)
	{
		size_t		ncap = w->touch_cap ? 2 * w->touch_cap : 16;
		tri_touch  *nt = realloc(w->touch, ncap * sizeof(tri_touch));

		if (nt == NULL)
			return fail_nomem(w);
		w->touch = nt;
		w->touch_cap = ncap;
	}
	t = &w->touch[w->ntouch++];
	t->edge = edge;
	t->v = v;
	t->p[0] = pt(w, v)[0];
	t->p[1] = pt(w, v)[1];
	t->dir = lexcmp(pt(w, e->a), pt(w, e->b)) < 0 ? 1 : -1;
	return EXG_OK;
}

/* Do the closed segments pq and rs meet? */
static bool
segments_meet(const double *p, const double *q, const double *r, const double *s)
{
	int			o1 = ORIENT(p, q, r),
				o2 = ORIENT(p, q, s),
				o3,
				o4;

	if (o1 == o2 && o1 != 0)
		return false;
	o3 = ORIENT(r, s, p);
	o4 = ORIENT(r, s, q);
	if (o3 == o4 && o3 != 0)
		return false;
	if (o1 == 0 && o2 == 0)
	{
		const double *lo1 = lexcmp(p, q) < 0 ? p : q,
				   *hi1 = lo1 == p ? q : p,
				   *lo2 = lexcmp(r, s) < 0 ? r : s,
				   *hi2 = lo2 == r ? s : r;

		return lexcmp(lo1, hi2) <= 0 && lexcmp(lo2, hi1) <= 0;
	}
	return o1 * o2 <= 0 && o3 * o4 <= 0;
}

/* Two edges of one ring: only neighbours may meet, and only at their vertex. */
static exg_status
check_same_ring(tri_work *w, const tri_edge *e1, const tri_edge *e2)
{
	size_t		m = w->rs[e1->ring + 1] - w->rs[e1->ring];
	const double *a,
			   *b,
			   *c;

	if ((e1->k + 1) % m == e2->k || (e2->k + 1) % m == e1->k)
	{
		if ((e1->k + 1) % m == e2->k)
		{
			a = pt(w, e1->a);
			b = pt(w, e1->b);
			c = pt(w, e2->b);
		}
		else
		{
			a = pt(w, e2->a);
			b = pt(w, e2->b);
			c = pt(w, e1->b);
		}
		if (ORIENT(a, b, c) == 0 && lexcmp(a, b) == lexcmp(c, b))
			return exg_fail(w->err, EXG_ERR_INVALID,
							"ring %zu of polygon has a spike at (%.17g %.17g)",
							w->orig[e1->ring], b[0], b[1]);
		return EXG_OK;
	}
	if (segments_meet(pt(w, e1->a), pt(w, e1->b), pt(w, e2->a), pt(w, e2->b)))
		return exg_fail(w->err, EXG_ERR_INVALID,
						"ring %zu of polygon self-intersects near (%.17g %.17g)",
						w->orig[e1->ring], pt(w, e1->a)[0], pt(w, e1->a)[1]);
	return EXG_OK;
}

/*
 * Edges of two rings may share endpoints (checked in step 5) or have a vertex
 * strictly inside the other edge (recorded for splitting); nothing else.
 */
static exg_status
check_two_rings(tri_work *w, size_t id1, const tri_edge *e1, size_t id2,
				const tri_edge *e2)
{
	const double *p = pt(w, e1->a),
			   *q = pt(w, e1->b),
			   *r = pt(w, e2->a),
			   *s = pt(w, e2->b);
	int			o1 = ORIENT(p, q, r),
				o2 = ORIENT(p, q, s),
				o3,
				o4;
	exg_status	st = EXG_OK;

	if (o1 == o2 && o1 != 0)
		return EXG_OK;
	o3 = ORIENT(r, s, p);
	o4 = ORIENT(r, s, q);
	if (o3 == o4 && o3 != 0)
		return EXG_OK;
	if (o1 == 0 && o2 == 0)
	{
		const double *lo1 = lexcmp(p, q) < 0 ? p : q,
				   *hi1 = lo1 == p ? q : p,
				   *lo2 = lexcmp(r, s) < 0 ? r : s,
				   *hi2 = lo2 == r ? s : r,
				   *lo = lexcmp(lo1, lo2) > 0 ? lo1 : lo2,
				   *hi = lexcmp(hi1, hi2) < 0 ? hi1 : hi2;

		if (lexcmp(lo, hi) < 0)
			return exg_fail(w->err, EXG_ERR_INVALID,
							"rings %zu and %zu of polygon overlap along a segment near (%.17g %.17g)",
							w->orig[e1->ring], w->orig[e2->ring], lo[0], lo[1]);
		return EXG_OK;
	}
	if (o1 * o2 < 0 && o3 * o4 < 0)
		return exg_fail(w->err, EXG_ERR_INVALID,
						"rings %zu and %zu of polygon cross near (%.17g %.17g)",
						w->orig[e1->ring], w->orig[e2->ring], p[0], p[1]);
	if (o1 == 0 && strictly_between(p, q, r))
		st = add_touch(w, id1, e2->a, e1);
	if (st == EXG_OK && o2 == 0 && strictly_between(p, q, s))
		st = add_touch(w, id1, e2->b, e1);
	if (st == EXG_OK && o3 == 0 && strictly_between(r, s, p))
		st = add_touch(w, id2, e1->a, e2);
	if (st == EXG_OK && o4 == 0 && strictly_between(r, s, q))
		st = add_touch(w, id2, e1->b, e2);
	return st;
}

/* Step 2: every pair of edges whose bounding boxes meet, by a sweep on x. */
static exg_status
check_edges(tri_work *w)
{
	size_t		ne = w->nvid;
	tri_edge   *edge = malloc(ne * sizeof(tri_edge));
	tri_key    *order = malloc(ne * sizeof(tri_key));
	exg_status	st = EXG_OK;
	size_t		r,
				k,
				i,
				j;

	if (edge == NULL || order == NULL)
	{
		free(edge);
		free(order);
		return fail_nomem(w);
	}
	for (r = 0; r < w->nkept; r++)
	{
		size_t		s = w->rs[r],
					m = w->rs[r + 1] - s;

		for (k = 0; k < m; k++)
		{
			tri_edge   *e = &edge[s + k];
			const double *a,
					   *b;

			e->a = w->vid[s + k];
			e->b = w->vid[s + (k + 1) % m];
			e->ring = (uint32_t) r;
			e->k = k;
			a = pt(w, e->a);
			b = pt(w, e->b);
			e->lo[0] = a[0] < b[0] ? a[0] : b[0];
			e->hi[0] = a[0] < b[0] ? b[0] : a[0];
			e->lo[1] = a[1] < b[1] ? a[1] : b[1];
			e->hi[1] = a[1] < b[1] ? b[1] : a[1];
			order[s + k].p[0] = e->lo[0];
			order[s + k].p[1] = 0;
			order[s + k].id = s + k;
		}
	}
	qsort(order, ne, sizeof(tri_key), cmp_key_x);
	for (i = 0; i < ne && st == EXG_OK; i++)
	{
		size_t		id1 = order[i].id;
		const tri_edge *e1 = &edge[id1];

		for (j = i + 1; j < ne && st == EXG_OK; j++)
		{
			size_t		id2 = order[j].id;
			const tri_edge *e2 = &edge[id2];

			if (e2->lo[0] > e1->hi[0])
				break;
			if (cancelled(w))
				st = exg_fail(w->err, EXG_ERR_INTERRUPTED, "triangulation interrupted");
			else if (e2->lo[1] > e1->hi[1] || e2->hi[1] < e1->lo[1])
				continue;
			else if (e1->ring == e2->ring)
				st = check_same_ring(w, e1, e2);
			else
				st = check_two_rings(w, id1, e1, id2, e2);
		}
	}
	free(edge);
	free(order);
	return st;
}

/* Step 3: insert every recorded touching vertex into its edge, in order. */
static exg_status
split_edges(tri_work *w)
{
	uint32_t   *nvid;
	size_t	   *nrs;
	size_t		n = 0,
				t = 0,
				r,
				e;

	if (w->ntouch == 0)
		return EXG_OK;
	qsort(w->touch, w->ntouch, sizeof(tri_touch), cmp_touch);
	nvid = malloc((w->nvid + w->ntouch) * sizeof(uint32_t));
	nrs = malloc((w->nkept + 1) * sizeof(size_t));
	if (nvid == NULL || nrs == NULL)
	{
		free(nvid);
		free(nrs);
		return fail_nomem(w);
	}
	for (r = 0; r < w->nkept; r++)
	{
		nrs[r] = n;
		for (e = w->rs[r]; e < w->rs[r + 1]; e++)
		{
			nvid[n++] = w->vid[e];
			for (; t < w->ntouch && w->touch[t].edge == e; t++)
				if (!same_pt(pt(w, nvid[n - 1]), w->touch[t].p))
					nvid[n++] = w->touch[t].v;
		}
	}
	nrs[w->nkept] = n;
	free(w->vid);
	free(w->rs);
	w->vid = nvid;
	w->nvid = n;
	w->rs = nrs;
	return EXG_OK;
}

/* Step 4: nodes, linked so that the polygon lies on the left of every edge. */
static exg_status
build_nodes(tri_work *w)
{
	size_t		r,
				k;

	/* each hole cycle's bridge adds two nodes */
	w->node_cap = w->nvid + 2 * w->nkept;
	if (w->node_cap > UINT32_MAX)
		return exg_fail(w->err, EXG_ERR_TOO_LARGE, "polygon has too many vertices to triangulate");
	w->node = malloc(w->node_cap * sizeof(tri_node));
	if (w->node == NULL)
		return fail_nomem(w);
	for (r = 0; r < w->nkept; r++)
	{
		size_t		s = w->rs[r],
					m = w->rs[r + 1] - s,
					low = 0;
		int			o;
		bool		reverse;

		for (k = 0; k < m; k++)
		{
			tri_node   *nd = &w->node[s + k];

			nd->p[0] = pt(w, w->vid[s + k])[0];
			nd->p[1] = pt(w, w->vid[s + k])[1];
			nd->idx = w->vid[s + k];
			nd->ring = (uint32_t) r;
			nd->alive = true;
			if (lexcmp(nd->p, w->node[s + low].p) < 0)
				low = k;
		}

		/*
		 * The lowest vertex is extreme, so its turn is the ring's orientation
		 * (it is never zero: a flat turn there would be a spike).
		 */
		o = ORIENT(w->node[s + (low + m - 1) % m].p, w->node[s + low].p,
				   w->node[s + (low + 1) % m].p);
		if (o == 0)
			return exg_fail(w->err, EXG_ERR_INVALID, "ring %zu of polygon is degenerate",
							w->orig[r]);
		if (r == 0)
			w->ext_cw = o < 0;
		reverse = r == 0 ? o < 0 : o > 0;
		for (k = 0; k < m; k++)
		{
			uint32_t	fwd = (uint32_t) (s + (k + 1) % m),
						back = (uint32_t) (s + (k + m - 1) % m);

			w->node[s + k].next = reverse ? back : fwd;
			w->node[s + k].prev = reverse ? fwd : back;
		}
	}
	w->nnode = w->nvid;
	return EXG_OK;
}

/* --------------------------------------------------------- shared points */

static uint32_t
uf_find(uint32_t *parent, uint32_t x)
{
	while (parent[x] != x)
	{
		parent[x] = parent[parent[x]];
		x = parent[x];
	}
	return x;
}

/* Does direction d1 - v come before d2 - v counter-clockwise from +x? */
static bool
angle_before(const double *v, const double *d1, const double *d2)
{
	int			h1 = (d1[1] > v[1] || (d1[1] == v[1] && d1[0] > v[0])) ? 0 : 1,
				h2 = (d2[1] > v[1] || (d2[1] == v[1] && d2[0] > v[0])) ? 0 : 1;

	if (h1 != h2)
		return h1 < h2;
	return ORIENT(v, d1, d2) > 0;
}

/*
 * Step 5 for one point shared by the nodes g[0..k): check, then relink each
 * node to take the incoming edge of the ring whose outside wedge follows its
 * own counter-clockwise. Afterwards every copy's left wedge is one gap
 * between the outside wedges, i.e. one sector of the polygon's interior.
 */
static exg_status
relink_point(tri_work *w, uint32_t *g, size_t k, uint32_t *parent, uint32_t *oldprev)
{
	tri_node   *N = w->node;
	const double *v = N[g[0]].p;
	uint32_t	root;
	size_t		i,
				j;

	for (i = 0; i < k; i++)
		for (j = i + 1; j < k; j++)
		{
			const tri_node *m = &N[g[i]],
					   *n = &N[g[j]];
			const double *um = N[m->prev].p,
					   *wm = N[m->next].p,
					   *un = N[n->prev].p,
					   *wn = N[n->next].p;

			if (m->ring == n->ring)
				return exg_fail(w->err, EXG_ERR_INVALID,
								"ring %zu of polygon touches itself at (%.17g %.17g)",
								w->orig[m->ring], v[0], v[1]);
			if (sector_contains(v, um, wm, un) || sector_contains(v, um, wm, wn) ||
				sector_contains(v, un, wn, um) || sector_contains(v, un, wn, wm))
				return exg_fail(w->err, EXG_ERR_INVALID,
								"rings %zu and %zu of polygon cross or overlap at (%.17g %.17g)",
								w->orig[m->ring], w->orig[n->ring], v[0], v[1]);
		}
	root = uf_find(parent, N[g[0]].ring);
	for (i = 1; i < k; i++)
	{
		uint32_t	ri = uf_find(parent, N[g[i]].ring);

		if (ri == root)
			return exg_fail(w->err, EXG_ERR_INVALID,
							"rings of polygon touch in a cycle at (%.17g %.17g): its interior is disconnected",
							v[0], v[1]);
		parent[ri] = root;
	}
	/* order the outside wedges by their first edge (insertion sort: k is small) */
	for (i = 1; i < k; i++)
	{
		uint32_t	x = g[i];

		for (j = i; j > 0 && angle_before(v, N[N[x].prev].p, N[N[g[j - 1]].prev].p); j--)
			g[j] = g[j - 1];
		g[j] = x;
	}
	for (i = 0; i < k; i++)
		oldprev[i] = N[g[i]].prev;
	for (i = 0; i < k; i++)
	{
		uint32_t	u = oldprev[(i + 1) % k];

		N[g[i]].prev = u;
		N[u].next = g[i];
	}
	return EXG_OK;
}

static exg_status
relink_shared_points(tri_work *w)
{
	size_t		n = w->nnode,
				i,
				j;
	tri_key    *key = malloc(n * sizeof(tri_key));
	uint32_t   *g = malloc(n * sizeof(uint32_t));
	uint32_t   *oldprev = malloc(n * sizeof(uint32_t));
	uint32_t   *parent = malloc(w->nkept * sizeof(uint32_t));
	exg_status	st = EXG_OK;

	if (key == NULL || g == NULL || oldprev == NULL || parent == NULL)
	{
		st = fail_nomem(w);
		goto done;
	}
	for (i = 0; i < w->nkept; i++)
		parent[i] = (uint32_t) i;
	for (i = 0; i < n; i++)
	{
		key[i].p[0] = w->node[i].p[0];
		key[i].p[1] = w->node[i].p[1];
		key[i].id = i;
	}
	qsort(key, n, sizeof(tri_key), cmp_key);
	for (i = 0; i < n && st == EXG_OK; i = j)
	{
		for (j = i + 1; j < n && same_pt(key[j].p, key[i].p); j++)
			;
		if (j - i > 1)
		{
			size_t		t;

			for (t = i; t < j; t++)
				g[t - i] = (uint32_t) key[t].id;
			st = relink_point(w, g, j - i, parent, oldprev);
		}
	}
done:
	free(key);
	free(g);
	free(oldprev);
	free(parent);
	return st;
}

/* ---------------------------------------------------------------- bridges */

/* Along the ray from H towards -x, is edge p->p.next hit before edge e->e.next? */
static bool
edge_hit_nearer(const tri_work *w, uint32_t ip, uint32_t ie, const double *H)
{
	const tri_node *N = w->node;
	const double *p = N[ip].p,
			   *q = N[N[ip].next].p,
			   *e0 = N[ie].p,
			   *e1 = N[N[ie].next].p;
	int			a1 = ORIENT(e0, e1, p),
				a2 = ORIENT(e0, e1, q),
				b1,
				b2;

	if (a1 == 0 && a2 == 0)
		return false;			/* the same segment twice (a bridge) */
	if ((a1 >= 0 && a2 >= 0) || (a1 <= 0 && a2 <= 0))
		/* pq's hit is on that side of line e: nearer iff on H's side */
		return (a1 != 0 ? a1 : a2) == ORIENT(e0, e1, H);
	b1 = ORIENT(p, q, e0);
	b2 = ORIENT(p, q, e1);
	if ((b1 >= 0 && b2 >= 0) || (b1 <= 0 && b2 <= 0))
		return (b1 != 0 ? b1 : b2) != ORIENT(p, q, H);
	return false;				/* crossing edges: excluded by validation */
}

/*
 * Step 6 for one hole cycle with lowest node hlow: find a vertex R of the
 * merged ring that sees H, splice in the doubled edge H-R.
 */
static exg_status
bridge_cycle(tri_work *w, uint32_t hlow)
{
	tri_node   *N = w->node;
	const double *H = N[hlow].p;
	enum
	{
		HIT_NONE, HIT_VERTEX, HIT_EDGE
	}			kind = HIT_NONE;
	uint32_t	best = 0,
				R,
				rpos = UINT32_MAX,
				hpos = UINT32_MAX,
				h,
				r2,
				h2;
	size_t		k;

	for (k = 0; k < w->nm; k++)
	{
		uint32_t	ip = w->mlist[k];
		const double *p = N[ip].p,
				   *q = N[N[ip].next].p;

		if (p[1] == H[1] && p[0] < H[0])
		{
			if (kind == HIT_NONE ||
				(kind == HIT_VERTEX && p[0] > N[best].p[0]) ||
				(kind == HIT_EDGE && ORIENT(N[best].p, N[N[best].next].p, p) ==
				 ORIENT(N[best].p, N[N[best].next].p, H)))
			{
				kind = HIT_VERTEX;
				best = ip;
			}
		}
		if ((p[1] < H[1] && q[1] > H[1]) || (p[1] > H[1] && q[1] < H[1]))
		{
			int			s = ORIENT(p, q, H);

			/* the edge crosses y = H.y left of H iff H is on its right going up */
			if (s == 0 || (p[1] < q[1] ? s > 0 : s < 0))
				continue;
			if (kind == HIT_NONE ||
				(kind == HIT_VERTEX && ORIENT(p, q, N[best].p) == -s) ||
				(kind == HIT_EDGE && edge_hit_nearer(w, ip, best, H)))
			{
				kind = HIT_EDGE;
				best = ip;
			}
		}
	}
	if (kind == HIT_NONE)
		return exg_fail(w->err, EXG_ERR_INVALID,
						"ring %zu of polygon is not inside its exterior ring",
						w->orig[N[hlow].ring]);
	R = best;
	if (kind == HIT_EDGE)
	{
		/*
		 * The ray hits edge pq at I, inside the edge. The triangle H, I, M
		 * (M the end of pq with smaller x) has no boundary point on HI or on
		 * IM but M; the vertex in it of smallest angle to the ray (nearest on
		 * ties) therefore sees H: any edge across HR would have to leave
		 * through HI or IM.
		 */
		const double *p = N[best].p,
				   *q = N[N[best].next].p;
		uint32_t	M = p[0] <= q[0] ? best : N[best].next;
		int			sy = N[M].p[1] > H[1] ? 1 : -1,
					sH = ORIENT(p, q, H),
					rho = -sy;	/* turn from the ray towards M */

		R = M;
		for (k = 0; k < w->nm; k++)
		{
			const tri_node *c = &N[w->mlist[k]];
			int			o;

			if (c->p[0] >= H[0] || same_pt(c->p, N[R].p))
				continue;
			if (c->p[1] != H[1] && (c->p[1] > H[1] ? 1 : -1) != sy)
				continue;
			o = ORIENT(H, N[M].p, c->p);
			if (o != 0 && o != sy)
				continue;
			o = ORIENT(p, q, c->p);
			if (o != 0 && o != sH)
				continue;
			o = ORIENT(H, c->p, N[R].p);
			if (o == rho || (o == 0 && c->p[0] > N[R].p[0]))
				R = w->mlist[k];
		}
	}

	/* the copy of R whose wedge the bridge leaves into, and likewise for H */
	for (k = 0; k < w->nm && rpos == UINT32_MAX; k++)
	{
		const tri_node *c = &N[w->mlist[k]];

		if (same_pt(c->p, N[R].p) && sector_contains(c->p, N[c->next].p, N[c->prev].p, H))
			rpos = w->mlist[k];
	}
	if (rpos == UINT32_MAX)
		return exg_fail(w->err, EXG_ERR_INVALID,
						"ring %zu of polygon is outside the polygon (inside another hole or outside the exterior)",
						w->orig[N[hlow].ring]);
	h = hlow;
	do
	{
		if (same_pt(N[h].p, H) && sector_contains(H, N[N[h].next].p, N[N[h].prev].p, N[R].p))
			hpos = h;
		h = N[h].next;
	} while (h != hlow && hpos == UINT32_MAX);
	if (hpos == UINT32_MAX)
		return exg_fail(w->err, EXG_ERR_INVALID,
						"ring %zu of polygon cannot be joined to the exterior",
						w->orig[N[hlow].ring]);

	/* append the cycle, then R -> H ... H' -> R' */
	h = hpos;
	do
	{
		w->mlist[w->nm++] = h;
		h = N[h].next;
	} while (h != hpos);
	r2 = (uint32_t) w->nnode++;
	h2 = (uint32_t) w->nnode++;
	N[r2] = N[rpos];
	N[h2] = N[hpos];
	N[h2].prev = N[hpos].prev;
	N[N[hpos].prev].next = h2;
	N[h2].next = r2;
	N[r2].prev = h2;
	N[r2].next = N[rpos].next;
	N[N[rpos].next].prev = r2;
	N[rpos].next = hpos;
	N[hpos].prev = rpos;
	w->mlist[w->nm++] = r2;
	w->mlist[w->nm++] = h2;
	return EXG_OK;
}

/* Step 6: find the cycles, keep the exterior's, bridge the others in order. */
static exg_status
merge_cycles(tri_work *w)
{
	tri_node   *N = w->node;
	bool	   *seen = calloc(w->nnode ? w->nnode : 1, sizeof(bool));
	tri_cycle  *cyc = malloc(w->nnode * sizeof(tri_cycle));
	size_t		ncyc = 0,
				nouter = 0,
				i,
				c;
	exg_status	st = EXG_OK;

	w->mlist = malloc(w->node_cap * sizeof(uint32_t));
	if (seen == NULL || cyc == NULL || w->mlist == NULL)
	{
		st = fail_nomem(w);
		goto done;
	}
	w->nm = 0;
	for (i = 0; i < w->nnode; i++)
	{
		uint32_t	v = (uint32_t) i,
					low = v;
		bool		outer = false;

		if (seen[i])
			continue;
		do
		{
			seen[v] = true;
			outer |= N[v].ring == 0;
			if (lexcmp(N[v].p, N[low].p) < 0)
				low = v;
			v = N[v].next;
		} while (v != i);
		cyc[ncyc].p[0] = N[low].p[0];
		cyc[ncyc].p[1] = N[low].p[1];
		cyc[ncyc].low = low;
		cyc[ncyc].outer = outer;
		ncyc++;
		if (outer)
		{
			nouter++;
			v = (uint32_t) i;
			do
			{
				w->mlist[w->nm++] = v;
				v = N[v].next;
			} while (v != i);
		}
	}
	if (nouter != 1)
	{
		st = exg_fail(w->err, EXG_ERR_INVALID, "polygon interior is disconnected");
		goto done;
	}
	qsort(cyc, ncyc, sizeof(tri_cycle), cmp_cycle);
	for (c = 0; c < ncyc && st == EXG_OK; c++)
	{
		if (cyc[c].outer)
			continue;
		if (cancel_now(w))
			st = exg_fail(w->err, EXG_ERR_INTERRUPTED, "triangulation interrupted");
		else
			st = bridge_cycle(w, cyc[c].low);
	}
done:
	free(seen);
	free(cyc);
	return st;
}

/* ------------------------------------------------------------------ ears */

static int
cmp_node_x(const void *x, const void *y)
{
	const tri_key *a = x;
	const tri_key *b = y;

	return (a->p[0] > b->p[0]) - (a->p[0] < b->p[0]);
}

static exg_status
build_x_index(tri_work *w)
{
	tri_key    *key = malloc((w->nm ? w->nm : 1) * sizeof(tri_key));
	size_t		i;

	w->xs = malloc((w->nm ? w->nm : 1) * sizeof(uint32_t));
	if (key == NULL || w->xs == NULL)
	{
		free(key);
		return fail_nomem(w);
	}
	for (i = 0; i < w->nm; i++)
	{
		key[i].p[0] = w->node[w->mlist[i]].p[0];
		key[i].p[1] = 0;
		key[i].id = w->mlist[i];
	}
	qsort(key, w->nm, sizeof(tri_key), cmp_node_x);
	for (i = 0; i < w->nm; i++)
		w->xs[i] = (uint32_t) key[i].id;
	w->nxs = w->nm;
	w->ndead = 0;
	free(key);
	return EXG_OK;
}

/* Drop dead nodes from the x index once they are the majority. */
static void
kill_node(tri_work *w, uint32_t v)
{
	size_t		i,
				n = 0;

	w->node[v].alive = false;
	if (++w->ndead * 2 <= w->nxs)
		return;
	for (i = 0; i < w->nxs; i++)
		if (w->node[w->xs[i]].alive)
			w->xs[n++] = w->xs[i];
	w->nxs = n;
	w->ndead = 0;
}

/*
 * Step 7: may b, between a and c, be clipped?
 *
 * Only vertices that do not turn strictly left need the triangle test: if any
 * vertex other than copies of a, b, c is in the closed triangle, take one, r,
 * farthest from line ac. Nothing of the boundary is in the triangle beyond
 * the parallel to ac through r (no vertex there, an edge could only enter
 * across ab or bc, copies of b are checked), so that side is interior, both
 * edges of r point to the other closed side, and the copy of r whose wedge
 * holds the interior side spans at least 180 degrees: it is not convex.
 */
static bool
is_ear(const tri_work *w, uint32_t ia, uint32_t ib, uint32_t ic)
{
	const tri_node *N = w->node;
	const double *a = N[ia].p,
			   *b = N[ib].p,
			   *c = N[ic].p;
	double		minx,
				maxx,
				miny,
				maxy;
	size_t		lo = 0,
				hi = w->nxs,
				k;

	if (ORIENT(a, b, c) <= 0)
		return false;
	minx = a[0] < b[0] ? a[0] : b[0];
	minx = c[0] < minx ? c[0] : minx;
	maxx = a[0] > b[0] ? a[0] : b[0];
	maxx = c[0] > maxx ? c[0] : maxx;
	miny = a[1] < b[1] ? a[1] : b[1];
	miny = c[1] < miny ? c[1] : miny;
	maxy = a[1] > b[1] ? a[1] : b[1];
	maxy = c[1] > maxy ? c[1] : maxy;
	while (lo < hi)
	{
		size_t		mid = lo + (hi - lo) / 2;

		if (N[w->xs[mid]].p[0] < minx)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (k = lo; k < w->nxs; k++)
	{
		uint32_t	ir = w->xs[k];
		const tri_node *r = &N[ir];

		if (r->p[0] > maxx)
			break;
		if (!r->alive || ir == ia || ir == ib || ir == ic ||
			r->p[1] < miny || r->p[1] > maxy)
			continue;
		if (same_pt(r->p, b))
		{
			/* another copy of b: its edges must stay out of b's sector (c, a) */
			const double *d1 = N[r->prev].p,
					   *d2 = N[r->next].p;

			if ((ORIENT(b, c, d1) > 0 && ORIENT(b, d1, a) > 0) ||
				(ORIENT(b, c, d2) > 0 && ORIENT(b, d2, a) > 0))
				return false;
			continue;
		}
		if (r->convex || same_pt(r->p, a) || same_pt(r->p, c))
			continue;
		/* most of what is left of the ring lies beyond ac: test that side first */
		if (ORIENT(c, a, r->p) >= 0 && ORIENT(a, b, r->p) >= 0 && ORIENT(b, c, r->p) >= 0)
			return false;
	}
	return true;
}

/* Exact sign of the area of the ring through v (GMP; only when stuck). */
static int
ring_area_sign(const tri_work *w, uint32_t start)
{
	const tri_node *N = w->node;
	mpq_t		acc,
				x0,
				y0,
				x1,
				y1;
	uint32_t	v = start;
	int			s;

	mpq_inits(acc, x0, y0, x1, y1, NULL);
	do
	{
		uint32_t	u = N[v].next;

		mpq_set_d(x0, N[v].p[0]);
		mpq_set_d(y0, N[v].p[1]);
		mpq_set_d(x1, N[u].p[0]);
		mpq_set_d(y1, N[u].p[1]);
		mpq_mul(x0, x0, y1);
		mpq_mul(y0, y0, x1);
		mpq_add(acc, acc, x0);
		mpq_sub(acc, acc, y0);
		v = u;
	} while (v != start);
	s = mpq_sgn(acc);
	mpq_clears(acc, x0, y0, x1, y1, NULL);
	return s;
}

static void
update_convex(tri_work *w, uint32_t v)
{
	tri_node   *N = w->node;

	N[v].convex = ORIENT(N[N[v].prev].p, N[v].p, N[N[v].next].p) > 0;
}

static exg_status
clip_ears(tri_work *w)
{
	tri_node   *N = w->node;
	size_t		live = w->nm,
				k;
	uint32_t	ear,
				stop;
	exg_status	st;

	if ((st = build_x_index(w)) != EXG_OK)
		return st;
	w->tris = malloc(3 * (w->nm ? w->nm : 1) * sizeof(uint32_t));
	if (w->tris == NULL)
		return fail_nomem(w);
	w->ntris = 0;
	if (live == 0)
		return EXG_OK;
	for (k = 0; k < w->nm; k++)
		update_convex(w, w->mlist[k]);
	ear = stop = w->mlist[0];
	while (live > 2)
	{
		uint32_t	a = N[ear].prev,
					c = N[ear].next;

		if (cancelled(w))
			return exg_fail(w->err, EXG_ERR_INTERRUPTED, "triangulation interrupted");
		if (same_pt(N[a].p, N[c].p))
		{
			/* spike a -> ear -> c: both edges cancel; c is a copy of a */
			uint32_t	cn = N[c].next;

			N[a].next = cn;
			N[cn].prev = a;
			kill_node(w, ear);
			kill_node(w, c);
			live -= 2;
			update_convex(w, a);
			ear = stop = a;
			continue;
		}
		if (is_ear(w, a, ear, c))
		{
			uint32_t   *t = &w->tris[3 * w->ntris++];

			t[0] = N[a].idx;
			t[1] = w->ext_cw ? N[c].idx : N[ear].idx;
			t[2] = w->ext_cw ? N[ear].idx : N[c].idx;
			N[a].next = c;
			N[c].prev = a;
			kill_node(w, ear);
			live--;
			update_convex(w, a);
			update_convex(w, c);
			ear = stop = c;
			continue;
		}
		ear = c;
		if (ear == stop)
		{
			if (ring_area_sign(w, ear) != 0)
				return exg_fail(w->err, EXG_ERR_INVALID,
								"polygon could not be triangulated (self-intersecting or otherwise invalid)");
			break;
		}
	}
	return EXG_OK;
}

/* ------------------------------------------------------------------- API */

static void
work_free(tri_work *w)
{
	free(w->vid);
	free(w->rs);
	free(w->orig);
	free(w->touch);
	free(w->node);
	free(w->mlist);
	free(w->xs);
	free(w->tris);
}

static exg_status
triangulate(tri_work *w, const size_t *ring_start, size_t nrings)
{
	exg_status	st;
	bool		flat;

	if ((st = collect_rings(w, ring_start, nrings, &flat)) != EXG_OK || flat)
		return st;
	if ((st = check_edges(w)) != EXG_OK ||
		(st = split_edges(w)) != EXG_OK ||
		(st = build_nodes(w)) != EXG_OK ||
		(st = relink_shared_points(w)) != EXG_OK ||
		(st = merge_cycles(w)) != EXG_OK)
		return st;
	return clip_ears(w);
}

exg_status
exg_triangulate_polygon(const double *xy, size_t nverts,
						const size_t *ring_start, size_t nrings,
						uint32_t **tris_out, size_t *ntris_out,
						exg_error *err)
{
	tri_work	w;
	exg_status	st;
	size_t		r,
				i;

	if (tris_out == NULL || ntris_out == NULL)
		return exg_fail(err, EXG_ERR_ARGUMENT, "triangulation has nowhere to put its result");
	*tris_out = NULL;
	*ntris_out = 0;
	if (nrings == 0 || ring_start == NULL || (xy == NULL && nverts > 0))
		return exg_fail(err, EXG_ERR_ARGUMENT, "polygon to triangulate has no rings");
	if (nverts > UINT32_MAX)
		return exg_fail(err, EXG_ERR_TOO_LARGE, "polygon has too many vertices to triangulate");
	for (r = 0; r < nrings; r++)
		if (ring_start[r] > ring_start[r + 1])
			return exg_fail(err, EXG_ERR_ARGUMENT, "ring offsets of polygon decrease at ring %zu", r);
	if (ring_start[nrings] > nverts)
		return exg_fail(err, EXG_ERR_ARGUMENT, "ring offsets of polygon run past its %zu vertices",
						nverts);
	for (i = ring_start[0]; i < ring_start[nrings]; i++)
		if (!isfinite(xy[2 * i]) || !isfinite(xy[2 * i + 1]))
			return exg_fail(err, EXG_ERR_NONFINITE, "polygon vertex %zu is not finite", i);

	memset(&w, 0, sizeof(w));
	w.xy = xy;
	w.err = err;
	w.caller_round = exg_round_up_enter();
	st = triangulate(&w, ring_start, nrings);
	exg_round_restore(w.caller_round);
	if (st == EXG_OK && w.ntris > 0)
	{
		*tris_out = w.tris;
		*ntris_out = w.ntris;
		w.tris = NULL;
	}
	work_free(&w);
	return st;
}
