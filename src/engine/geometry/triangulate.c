/*
 * triangulate.c — exact O(n log n) triangulation of a polygon with holes,
 * and the one place that decides whether a polygon is valid (every form of
 * every function triangulates its polygons here, or asks it in 2D).
 *
 * Every geometric decision is an exact orientation sign (the engine's
 * orient2d cascade, as in exg_orient2d) or an exact comparison of input
 * doubles; no coordinate is ever computed. Only the triangulation's corners
 * are input vertices, so the output needs nothing but indices.
 *
 * Pipeline (n vertices, O(n log n) but for k-fold shared points, O(k^2)):
 *   1. rings: drop repeated consecutive vertices. An exterior whose vertices
 *      are all collinear bounds no area: 0 triangles (the caller uses the
 *      rings' linework), and then no hole may bound area. Otherwise a hole
 *      that bounds no area is invalid (a ring is a simple closed curve);
 *   2. validation: a Shamos-Hoey sweep over all ring edges; proper
 *      crossings, collinear overlaps, spikes and self-touching rings are
 *      invalid; a vertex of one ring inside an edge of another is recorded;
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
 *      OGC's disconnected interior);
 *   6. a second sweep triangulates (monotone chains, see sweep_triangulate)
 *      and checks that outside and polygon alternate between neighbouring
 *      edges, i.e. that the winding number is 0 or 1 everywhere: no hole
 *      outside the exterior or inside another hole.
 *
 * Why the cover is exact: after steps 2-5 the edges form a plane graph whose
 * edges meet only at endpoints, with the polygon on the left of each and
 * (step 6) the winding number its indicator. The sweep cuts the region left
 * of the sweep line into triangles whose corners are visited points and whose
 * sides are edges or segments inside the region (each chain triangle is
 * checked to turn the right way), and the untriangulated rest of each gap is
 * exactly the region bounded by its chain and its two edges; when the sweep
 * ends nothing is left. Zero-area triangles are never output.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE				/* qsort_r */
#endif
#include "triangulate.h"

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
} tri_node;

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

	uint32_t   *cell_v;			/* gap chains (step 6): a node per cell */
	uint32_t   *cell_b;			/* and the cell below it, SW_NIL at the bottom */
	size_t		ncell;
	size_t		cell_cap;

	uint32_t   *tris;
	size_t		ntris;
	size_t		tris_cap;
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

static int
cmp_touch(const void *x, const void *y)
{
	const tri_touch *a = x;
	const tri_touch *b = y;

	if (a->edge != b->edge)
		return a->edge < b->edge ? -1 : 1;
	return a->dir * lexcmp(a->p, b->p);
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

/*
 * Step 1. Sets *flat when the exterior bounds no area: the polygon then
 * stands for its rings' linework, and no hole may bound area either. When the
 * exterior bounds area, a hole that bounds none is invalid (OGC: a ring is a
 * simple closed curve); so is a hole with fewer than three distinct points.
 */
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
		bool		area;

		for (i = ring_start[r]; i < ring_start[r + 1]; i++)
		{
			if (w->nvid > s && same_pt(pt(w, w->vid[w->nvid - 1]), pt(w, (uint32_t) i)))
				continue;
			w->vid[w->nvid++] = (uint32_t) i;
		}
		/* the closing vertex, if the caller left it in */
		if (w->nvid - s > 1 && same_pt(pt(w, w->vid[s]), pt(w, w->vid[w->nvid - 1])))
			w->nvid--;
		area = ring_has_area(w, s, w->nvid);
		if (r == 0)
			*flat = !area;
		if (*flat && area)
			return exg_fail(w->err, EXG_ERR_INVALID,
							"ring %zu of polygon bounds an area but its exterior ring does not", r);
		if (*flat)
			continue;
		if (!area)
			return exg_fail(w->err, EXG_ERR_INVALID,
							ring_start[r + 1] > ring_start[r] ?
							"ring %zu of polygon bounds no area (its vertices are collinear)" :
							"ring %zu of polygon is empty", r);
		w->rs[w->nkept] = s;
		w->orig[w->nkept] = r;
		w->nkept++;
	}
	w->rs[w->nkept] = w->nvid;
	return EXG_OK;
}

/* ----------------------------------------------------------- validation */

/* Vertex v lies strictly inside ring edge `edge` (fwd: it runs lexicographically up). */
static exg_status
add_touch(tri_work *w, size_t edge, uint32_t v, bool fwd)
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
	t->dir = fwd ? 1 : -1;
	return EXG_OK;
}

/* ------------------------------------------------------------ sweep status */

/*
 * Both sweeps keep the edges that cross the sweep line in a skip list ordered
 * bottom to top. The sweep visits distinct points in lexicographic order (x,
 * then y), i.e. a vertical line tilted infinitesimally, so vertical edges and
 * equal x need no special case: an edge l -> r (l < r) is active at point p
 * when l < p <= r, and it passes below p iff ORIENT(l, r, p) > 0. While no two
 * active edges cross, that test is monotone along the list (below, through,
 * above), so one descent finds where p is. Levels are random (1/4 per level):
 * expected O(log n) per search, insertion and removal.
 */
#define SW_LEVELS 16
#define SW_NIL UINT32_MAX

typedef struct sw_edge
{
	const double *l;			/* lexicographically smaller endpoint */
	const double *r;
	uint32_t	lv;				/* pass 1: vertex index of l; pass 2: node id */
	uint32_t	ring;
	uint32_t	id;				/* pass 1: position of the ring edge in vid */
	bool		ia;				/* pass 2: the polygon lies just above the edge */
	bool		merged;			/* pass 2: the gap above is two chains (see below) */
	uint8_t		side;			/* pass 2: side of the gap chain (SIDE_*) */
	uint32_t	top;			/* pass 2: top cell of the gap chain (A when merged) */
	uint32_t	top2;			/* pass 2: top cell of chain B when merged */
	uint32_t	next[SW_LEVELS];
} sw_edge;

typedef struct sw_list
{
	sw_edge    *e;				/* n edges, then the head at index n */
	uint32_t	head;
	uint32_t	upd[SW_LEVELS];	/* predecessors of the last search */
	uint64_t	rng;
} sw_list;

static exg_status
sw_init(tri_work *w, sw_list *L, size_t n)
{
	int			k;

	L->e = malloc((n + 1) * sizeof(sw_edge));
	if (L->e == NULL)
		return fail_nomem(w);
	L->head = (uint32_t) n;
	for (k = 0; k < SW_LEVELS; k++)
		L->e[n].next[k] = SW_NIL;
	L->rng = 0x9E3779B97F4A7C15ull;
	return EXG_OK;
}

/* Descend to the last edge strictly below p; upd[] holds it on every level. */
static void
sw_search(sw_list *L, const double *p)
{
	uint32_t	x = L->head;
	int			k;

	for (k = SW_LEVELS - 1; k >= 0; k--)
	{
		uint32_t	y;

		while ((y = L->e[x].next[k]) != SW_NIL && ORIENT(L->e[y].l, L->e[y].r, p) > 0)
			x = y;
		L->upd[k] = x;
	}
}

/* The edge after the search position (SW_NIL at the top). */
static inline uint32_t
sw_after(const sw_list *L)
{
	return L->e[L->upd[0]].next[0];
}

/* Remove the edge right after the search position. */
static void
sw_remove_after(sw_list *L)
{
	uint32_t	x = sw_after(L);
	int			k;

	for (k = 0; k < SW_LEVELS; k++)
		if (L->e[L->upd[k]].next[k] == x)
			L->e[L->upd[k]].next[k] = L->e[x].next[k];
}

/* Insert x right after the search position, which then moves past x. */
static void
sw_insert(sw_list *L, uint32_t x)
{
	int			lev = 1,
				k;

	L->rng ^= L->rng << 13;
	L->rng ^= L->rng >> 7;
	L->rng ^= L->rng << 17;
	while (lev < SW_LEVELS && ((L->rng >> (2 * lev)) & 3) == 0)
		lev++;
	for (k = 0; k < SW_LEVELS; k++)
		L->e[x].next[k] = SW_NIL;
	for (k = 0; k < lev; k++)
	{
		L->e[x].next[k] = L->e[L->upd[k]].next[k];
		L->e[L->upd[k]].next[k] = x;
		L->upd[k] = x;
	}
}

/* Edges leaving one point, ordered bottom to top (all point to larger points). */
static int
cmp_sw_angle(const void *x, const void *y, void *ctx)
{
	const sw_list *L = ctx;
	const sw_edge *a = &L->e[*(const uint32_t *) x];
	const sw_edge *b = &L->e[*(const uint32_t *) y];

	return -ORIENT(a->l, a->r, b->r);
}

/* Points in lexicographic order, ties by id (positions or node ids). */
static exg_status
sort_points(tri_work *w, size_t n, const double *(*coord) (const tri_work *, size_t),
			tri_key **out)
{
	tri_key    *key = malloc((n ? n : 1) * sizeof(tri_key));
	size_t		i;

	if (key == NULL)
		return fail_nomem(w);
	for (i = 0; i < n; i++)
	{
		const double *c = coord(w, i);

		key[i].p[0] = c[0];
		key[i].p[1] = c[1];
		key[i].id = i;
	}
	qsort(key, n, sizeof(tri_key), cmp_key);
	*out = key;
	return EXG_OK;
}

/* ----------------------------------------------------- validation (pass 1) */

/*
 * Do two active edges that have just become neighbours in the status meet
 * other than at an endpoint of one of them? A proper crossing or a collinear
 * overlap is invalid. A contact at an endpoint is an event of the sweep and is
 * judged there (shared vertices in step 5, a vertex inside an edge split).
 */
static exg_status
check_neighbours(tri_work *w, const sw_edge *e, const sw_edge *f)
{
	const double *p = e->l,
			   *q = e->r,
			   *r = f->l,
			   *s = f->r;
	int			o1 = ORIENT(p, q, r),
				o2 = ORIENT(p, q, s),
				o3,
				o4;

	if (o1 == o2 && o1 != 0)
		return EXG_OK;
	o3 = ORIENT(r, s, p);
	o4 = ORIENT(r, s, q);
	if (o3 == o4 && o3 != 0)
		return EXG_OK;
	if (o1 == 0 && o2 == 0)
	{
		const double *lo = lexcmp(p, r) > 0 ? p : r,
				   *hi = lexcmp(q, s) < 0 ? q : s;

		if (lexcmp(lo, hi) < 0)
			return exg_fail(w->err, EXG_ERR_INVALID,
							"rings %zu and %zu of polygon overlap along a segment near (%.17g %.17g)",
							w->orig[e->ring], w->orig[f->ring], lo[0], lo[1]);
		return EXG_OK;
	}
	if (o1 * o2 < 0 && o3 * o4 < 0 && e->ring == f->ring)
		return exg_fail(w->err, EXG_ERR_INVALID,
						"ring %zu of polygon self-intersects near (%.17g %.17g)",
						w->orig[e->ring], p[0], p[1]);
	if (o1 * o2 < 0 && o3 * o4 < 0)
		return exg_fail(w->err, EXG_ERR_INVALID,
						"rings %zu and %zu of polygon cross near (%.17g %.17g)",
						w->orig[e->ring], w->orig[f->ring], p[0], p[1]);
	return EXG_OK;
}

static const double *
vid_coord(const tri_work *w, size_t q)
{
	return pt(w, w->vid[q]);
}

/*
 * Step 2, a Shamos-Hoey sweep over the ring edges (O(n log n)). If two edges
 * crossed or overlapped, at the lexicographically first such point they were
 * neighbours in the status (no event lies between, so nothing separates them)
 * or it is an event point, where all edges through it are at hand. So the
 * status stays ordered until the first defect, and the defect is found:
 * neighbours are checked whenever they become neighbours; at an event, two
 * edges passing through it cross there, an edge of a ring passing through
 * that ring's own vertex or two vertices of one ring at the point make the
 * ring non-simple, and two edges leaving it in one direction overlap. An edge
 * of another ring through the point is a touch: recorded for step 3 and, for
 * the rest of the sweep, split there.
 */
static exg_status
check_edges(tri_work *w)
{
	sw_list		L = {0};
	tri_key    *key = NULL;
	uint32_t   *ringof = malloc((w->nvid ? w->nvid : 1) * sizeof(uint32_t));
	size_t	   *stamp = calloc(w->nkept ? w->nkept : 1, sizeof(size_t));
	uint32_t   *rnew = malloc(((size_t) 2 * w->nvid + 1) * sizeof(uint32_t));
	exg_status	st = EXG_OK;
	size_t		r,
				i,
				j,
				q;

	if (ringof == NULL || stamp == NULL || rnew == NULL ||
		(st = sw_init(w, &L, w->nvid)) != EXG_OK ||
		(st = sort_points(w, w->nvid, vid_coord, &key)) != EXG_OK)
	{
		if (st == EXG_OK)
			st = fail_nomem(w);
		goto done;
	}
	for (r = 0; r < w->nkept; r++)
		for (q = w->rs[r]; q < w->rs[r + 1]; q++)
		{
			size_t		nq = q + 1 < w->rs[r + 1] ? q + 1 : w->rs[r];
			sw_edge    *e = &L.e[q];
			bool		fwd = lexcmp(pt(w, w->vid[q]), pt(w, w->vid[nq])) < 0;

			ringof[q] = (uint32_t) r;
			e->l = pt(w, w->vid[fwd ? q : nq]);
			e->r = pt(w, w->vid[fwd ? nq : q]);
			e->lv = w->vid[fwd ? q : nq];
			e->ring = (uint32_t) r;
			e->id = (uint32_t) q;
			e->ia = fwd;		/* here: the ring runs from l to r */
		}
	for (i = 0; i < w->nvid && st == EXG_OK; i = j)
	{
		const double *p = key[i].p;
		size_t		nleft = 0,
					nended = 0,
					nr = 0,
					t;
		uint32_t	passing = SW_NIL,
					below,
					x;

		if (cancelled(w))
		{
			st = exg_fail(w->err, EXG_ERR_INTERRUPTED, "triangulation interrupted");
			break;
		}
		for (j = i; j < w->nvid && same_pt(key[j].p, p); j++)
		{
			size_t		c = key[j].id,
						rr = ringof[c],
						pc = c > w->rs[rr] ? c - 1 : w->rs[rr + 1] - 1;

			if (stamp[rr] == i + 1)
			{
				st = exg_fail(w->err, EXG_ERR_INVALID,
							  "ring %zu of polygon touches itself at (%.17g %.17g)",
							  w->orig[rr], p[0], p[1]);
				goto done;
			}
			stamp[rr] = i + 1;
			/* the edge leaving c and the edge arriving at c */
			if (same_pt(L.e[c].l, p))
				rnew[nr++] = (uint32_t) c;
			else
				nleft++;
			if (same_pt(L.e[pc].l, p))
				rnew[nr++] = (uint32_t) pc;
			else
				nleft++;
		}
		sw_search(&L, p);
		below = L.upd[0];
		while ((x = sw_after(&L)) != SW_NIL && ORIENT(L.e[x].l, L.e[x].r, p) == 0)
		{
			sw_remove_after(&L);
			if (same_pt(L.e[x].r, p))
			{
				nended++;
				continue;
			}
			if (passing != SW_NIL)
			{
				st = exg_fail(w->err, EXG_ERR_INVALID,
							  "rings of polygon cross at (%.17g %.17g)", p[0], p[1]);
				goto done;
			}
			passing = x;
		}
		if (nended != nleft)
		{
			st = exg_fail(w->err, EXG_ERR_INVALID,
						  "rings of polygon cross near (%.17g %.17g)", p[0], p[1]);
			goto done;
		}
		if (passing != SW_NIL)
		{
			sw_edge    *g = &L.e[passing];

			if (stamp[g->ring] == i + 1)
			{
				st = exg_fail(w->err, EXG_ERR_INVALID,
							  "ring %zu of polygon self-intersects at (%.17g %.17g)",
							  w->orig[g->ring], p[0], p[1]);
				goto done;
			}
			if ((st = add_touch(w, g->id, w->vid[key[i].id], g->ia)) != EXG_OK)
				goto done;
			g->l = pt(w, w->vid[key[i].id]);
			g->lv = w->vid[key[i].id];
			rnew[nr++] = passing;
		}
		if (nr > 1)
			qsort_r(rnew, nr, sizeof(uint32_t), cmp_sw_angle, &L);
		for (t = 0; t + 1 < nr; t++)
			if (ORIENT(p, L.e[rnew[t]].r, L.e[rnew[t + 1]].r) == 0)
			{
				const sw_edge *a = &L.e[rnew[t]],
						   *b = &L.e[rnew[t + 1]];

				st = a->ring == b->ring ?
					exg_fail(w->err, EXG_ERR_INVALID,
							 "ring %zu of polygon has a spike or overlaps itself at (%.17g %.17g)",
							 w->orig[a->ring], p[0], p[1]) :
					exg_fail(w->err, EXG_ERR_INVALID,
							 "rings %zu and %zu of polygon overlap along a segment from (%.17g %.17g)",
							 w->orig[a->ring], w->orig[b->ring], p[0], p[1]);
				goto done;
			}
		for (t = 0; t < nr; t++)
			sw_insert(&L, rnew[t]);
		x = sw_after(&L);
		if (nr > 0)
		{
			if (below != L.head)
				st = check_neighbours(w, &L.e[below], &L.e[rnew[0]]);
			if (st == EXG_OK && x != SW_NIL)
				st = check_neighbours(w, &L.e[rnew[nr - 1]], &L.e[x]);
		}
		else if (below != L.head && x != SW_NIL)
			st = check_neighbours(w, &L.e[below], &L.e[x]);
	}
done:
	free(L.e);
	free(key);
	free(ringof);
	free(stamp);
	free(rnew);
	return st;
}

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

	w->node_cap = w->nvid;
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

/* Nodes at one point, by the angle of their incoming edge around it (from +x). */
static int
cmp_wedge(const void *x, const void *y, void *ctx)
{
	const tri_work *w = ctx;
	const tri_node *a = &w->node[*(const uint32_t *) x],
			   *b = &w->node[*(const uint32_t *) y];
	const double *v = a->p,
			   *d1 = w->node[a->prev].p,
			   *d2 = w->node[b->prev].p;
	int			h1 = (d1[1] > v[1] || (d1[1] == v[1] && d1[0] > v[0])) ? 0 : 1,
				h2 = (d2[1] > v[1] || (d2[1] == v[1] && d2[0] > v[0])) ? 0 : 1;

	if (h1 != h2)
		return h1 - h2;
	return -ORIENT(v, d1, d2);
}

/*
 * Step 5 for one point shared by the nodes g[0..k): the outside wedges of
 * the rings meeting there are disjoint, and the rings join no cycle.
 */
static exg_status
check_shared_point(tri_work *w, uint32_t *g, size_t k, uint32_t *parent)
{
	tri_node   *N = w->node;
	const double *v = N[g[0]].p;
	uint32_t	root;
	size_t		i,
				j;

	/*
	 * Disjoint open sectors sorted by their first ray: each must end before
	 * the next begins, so (after the sort) neighbours suffice. If two
	 * overlapped, every sector starting between them would overlap the first.
	 */
	if (k > 8)
	{
		qsort_r(g, k, sizeof(uint32_t), cmp_wedge, w);
		for (i = 0; i < k; i++)
		{
			const tri_node *m = &N[g[i]],
					   *n = &N[g[(i + 1) % k]];

			if (m->ring == n->ring)
				return exg_fail(w->err, EXG_ERR_INVALID,
								"ring %zu of polygon touches itself at (%.17g %.17g)",
								w->orig[m->ring], v[0], v[1]);
			if (sector_contains(v, N[m->prev].p, N[m->next].p, N[n->prev].p) ||
				sector_contains(v, N[m->prev].p, N[m->next].p, N[n->next].p) ||
				sector_contains(v, N[n->prev].p, N[n->next].p, N[m->prev].p) ||
				sector_contains(v, N[n->prev].p, N[n->next].p, N[m->next].p))
				return exg_fail(w->err, EXG_ERR_INVALID,
								"rings %zu and %zu of polygon cross or overlap at (%.17g %.17g)",
								w->orig[m->ring], w->orig[n->ring], v[0], v[1]);
		}
	}
	for (i = 0; i < k && k <= 8; i++)
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
	return EXG_OK;
}

static exg_status
check_shared_points(tri_work *w)
{
	size_t		n = w->nnode,
				i,
				j;
	tri_key    *key = malloc(n * sizeof(tri_key));
	uint32_t   *g = malloc(n * sizeof(uint32_t));
	uint32_t   *parent = malloc(w->nkept * sizeof(uint32_t));
	exg_status	st = EXG_OK;

	if (key == NULL || g == NULL || parent == NULL)
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
			st = check_shared_point(w, g, j - i, parent);
		}
	}
done:
	free(key);
	free(g);
	free(parent);
	return st;
}

/* -------------------------------------------------- triangulation (pass 2) */

/*
 * Step 6, a sweep that triangulates as it goes (the monotone-polygon method
 * of Garey, Johnson, Preparata and Tarjan, with de Berg et al.'s helpers
 * folded in). Each edge is directed so that the polygon is on its left, so
 * an edge pointing to a larger point has the polygon just above it (ia).
 * Between consecutive active edges lies alternately outside and polygon:
 * checked whenever two edges become neighbours, which proves the winding
 * number 0 or 1 everywhere, i.e. that no hole leaves the exterior or lies in
 * another hole. Each polygon gap (stored on its lower edge) keeps what is
 * left of it to the left of the sweep line as a chain c0, c1 .. ck of
 * visited points: c0 is the left end of one of the two gap edges, c1 .. ck
 * lie in order on the other side (its latest point ck the left end of that
 * side's edge), and every turn c(i-1), ci, c(i+1) for i >= 1 is reflex or
 * flat seen from the gap, so no triangle can yet be cut. A point w reaching
 * the gap on the chain's side cuts the triangles c(k-1), ck, w while they
 * turn the right way and is pushed; on the other side it sees every ci and
 * fans them, leaving ck, w. Where two gaps merge at a point v (a merge
 * vertex) the gap holds both chains, each ending in v, until the next point
 * w: w sees v (v is the rightmost point of the gap so far), which closes the
 * chain on w's side by a fan and continues the other. A point inside a gap
 * (a split vertex) is joined to the gap's latest point ck, which splits the
 * chain. All this needs only orientation signs. A fan triangle with a zero
 * sign is dropped: it has no interior, and every non-degenerate triangle is
 * inside the region, so the union is unchanged (the region is the closure of
 * its interior). A fan triangle turning the wrong way cannot happen for a
 * valid polygon and is reported as invalid.
 */
enum
{
	SIDE_NONE = 0, SIDE_LOWER = 1, SIDE_UPPER = 2
};

typedef struct tri_chain
{
	uint32_t	top;
	uint8_t		side;
} tri_chain;

static exg_status
cell_new(tri_work *w, uint32_t node, uint32_t below, uint32_t *out)
{
	if (w->ncell == w->cell_cap)
	{
		size_t		ncap = w->cell_cap ? 2 * w->cell_cap : 64;
		uint32_t   *nv = realloc(w->cell_v, ncap * sizeof(uint32_t));

		if (nv == NULL)
			return fail_nomem(w);
		w->cell_v = nv;
		nv = realloc(w->cell_b, ncap * sizeof(uint32_t));
		if (nv == NULL)
			return fail_nomem(w);
		w->cell_b = nv;
		w->cell_cap = ncap;
	}
	if (w->ncell >= UINT32_MAX - 1)
		return exg_fail(w->err, EXG_ERR_TOO_LARGE, "polygon has too many vertices to triangulate");
	w->cell_v[w->ncell] = node;
	w->cell_b[w->ncell] = below;
	*out = (uint32_t) w->ncell++;
	return EXG_OK;
}

/* Output triangle a, b, c whose orientation sign is o (non-zero). */
static exg_status
emit(tri_work *w, uint32_t a, uint32_t b, uint32_t c, int o)
{
	uint32_t   *t;

	if (w->ntris == w->tris_cap)
	{
		size_t		ncap = w->tris_cap ? 2 * w->tris_cap : 64;
		uint32_t   *nt = realloc(w->tris, 3 * ncap * sizeof(uint32_t));

		if (nt == NULL)
			return fail_nomem(w);
		w->tris = nt;
		w->tris_cap = ncap;
	}
	t = &w->tris[3 * w->ntris++];
	/* counter-clockwise, then the input exterior's orientation */
	if ((o < 0) != w->ext_cw)
	{
		uint32_t	s = b;

		b = c;
		c = s;
	}
	t[0] = w->node[a].idx;
	t[1] = w->node[b].idx;
	t[2] = w->node[c].idx;
	return EXG_OK;
}

/* Fan w over the whole chain: triangles c(i), c(i+1), w. */
static exg_status
chain_fan(tri_work *w, tri_chain ch, uint32_t v)
{
	const tri_node *N = w->node;
	int			want = ch.side == SIDE_LOWER ? 1 : -1;
	uint32_t	c = ch.top;
	exg_status	st;

	for (; w->cell_b[c] != SW_NIL; c = w->cell_b[c])
	{
		uint32_t	hi = w->cell_v[c],
					lo = w->cell_v[w->cell_b[c]];
		int			o = ORIENT(N[lo].p, N[hi].p, N[v].p);

		if (o == 0)
			continue;
		if (o != want)
			return exg_fail(w->err, EXG_ERR_INVALID,
							"polygon could not be triangulated near (%.17g %.17g) (self-intersecting or otherwise invalid)",
							N[v].p[0], N[v].p[1]);
		if ((st = emit(w, lo, hi, v, o)) != EXG_OK)
			return st;
	}
	return EXG_OK;
}

/* Point v reaches the gap on side s and becomes the latest point of the chain. */
static exg_status
chain_add(tri_work *w, tri_chain *ch, uint8_t s, uint32_t v)
{
	const tri_node *N = w->node;
	exg_status	st;
	uint32_t	c;

	if (w->cell_b[ch->top] != SW_NIL && ch->side != s)
	{
		if ((st = chain_fan(w, *ch, v)) != EXG_OK ||
			(st = cell_new(w, w->cell_v[ch->top], SW_NIL, &c)) != EXG_OK)
			return st;
		ch->top = c;
	}
	else
		while (w->cell_b[ch->top] != SW_NIL)
		{
			uint32_t	hi = w->cell_v[ch->top],
						lo = w->cell_v[w->cell_b[ch->top]];
			int			o = ORIENT(N[lo].p, N[hi].p, N[v].p);

			if (o == 0 || (o > 0) != (s == SIDE_LOWER))
				break;
			if ((st = emit(w, lo, hi, v, o)) != EXG_OK)
				return st;
			ch->top = w->cell_b[ch->top];
		}
	ch->side = s;
	if ((st = cell_new(w, v, ch->top, &c)) != EXG_OK)
		return st;
	ch->top = c;
	return EXG_OK;
}

static inline tri_chain
gap_chain(const sw_edge *e)
{
	tri_chain	ch = {e->top, e->side};

	return ch;
}

static inline void
gap_set(sw_edge *e, tri_chain ch)
{
	e->top = ch.top;
	e->side = ch.side;
	e->merged = false;
}

/* v reaches gap e on side s (the gap goes on). */
static exg_status
gap_add(tri_work *w, sw_edge *e, uint8_t s, uint32_t v)
{
	tri_chain	ch = gap_chain(e);
	exg_status	st;

	if (e->merged)
	{
		/* chain A (below the merge point) ends on its upper side, B on its lower */
		tri_chain	a = {e->top, SIDE_UPPER},
					b = {e->top2, SIDE_LOWER};

		if ((st = chain_fan(w, s == SIDE_LOWER ? a : b, v)) != EXG_OK)
			return st;
		ch = s == SIDE_LOWER ? b : a;
	}
	if ((st = chain_add(w, &ch, s, v)) != EXG_OK)
		return st;
	gap_set(e, ch);
	return EXG_OK;
}

/* Both edges of gap e end at v. */
static exg_status
gap_close(tri_work *w, const sw_edge *e, uint32_t v)
{
	tri_chain	a = gap_chain(e),
				b = {e->top2, SIDE_LOWER};
	exg_status	st;

	if (e->merged)
		a.side = SIDE_UPPER;
	if ((st = chain_fan(w, a, v)) != EXG_OK)
		return st;
	return e->merged ? chain_fan(w, b, v) : EXG_OK;
}

/* v lies inside gap e, which splits into e (below v) and f (above v). */
static exg_status
gap_split(tri_work *w, sw_edge *e, sw_edge *f, uint32_t v)
{
	tri_chain	a = gap_chain(e),
				b,
				fresh;
	exg_status	st;
	uint32_t	c;

	if (e->merged)
	{
		a.side = SIDE_UPPER;
		b.top = e->top2;
		b.side = SIDE_LOWER;
		if ((st = chain_add(w, &a, SIDE_UPPER, v)) != EXG_OK ||
			(st = chain_add(w, &b, SIDE_LOWER, v)) != EXG_OK)
			return st;
		gap_set(e, a);
		gap_set(f, b);
		return EXG_OK;
	}
	/* v sees ck, the latest point of the gap: ck, v starts the far side's chain */
	if ((st = cell_new(w, w->cell_v[a.top], SW_NIL, &c)) != EXG_OK)
		return st;
	fresh.top = c;
	fresh.side = SIDE_NONE;
	b = a;
	if (a.side == SIDE_UPPER)
	{
		if ((st = chain_add(w, &a, SIDE_UPPER, v)) != EXG_OK ||
			(st = chain_add(w, &fresh, SIDE_LOWER, v)) != EXG_OK)
			return st;
		gap_set(e, a);
		gap_set(f, fresh);
	}
	else if (a.side == SIDE_LOWER)
	{
		if ((st = chain_add(w, &b, SIDE_LOWER, v)) != EXG_OK ||
			(st = chain_add(w, &fresh, SIDE_UPPER, v)) != EXG_OK)
			return st;
		gap_set(e, fresh);
		gap_set(f, b);
	}
	else
	{
		/* a single point c0: both new gaps start c0, v */
		if ((st = chain_add(w, &a, SIDE_UPPER, v)) != EXG_OK ||
			(st = chain_add(w, &fresh, SIDE_LOWER, v)) != EXG_OK)
			return st;
		gap_set(e, a);
		gap_set(f, fresh);
	}
	return EXG_OK;
}

/* A new gap whose two edges start at v. */
static exg_status
gap_start(tri_work *w, sw_edge *e, uint32_t v)
{
	tri_chain	ch = {0, SIDE_NONE};
	exg_status	st;

	if ((st = cell_new(w, v, SW_NIL, &ch.top)) != EXG_OK)
		return st;
	gap_set(e, ch);
	return EXG_OK;
}

static const double *
node_coord(const tri_work *w, size_t i)
{
	return w->node[i].p;
}

/* Neighbours in the status must alternate outside / polygon. */
static exg_status
check_alternate(tri_work *w, const sw_list *L, uint32_t lo, uint32_t hi, const double *p)
{
	bool		lo_ia = lo != L->head && L->e[lo].ia,
				hi_ia = hi == SW_NIL || L->e[hi].ia;

	if (lo_ia != hi_ia)
		return EXG_OK;
	return exg_fail(w->err, EXG_ERR_INVALID,
					"a hole of polygon is not inside its exterior ring, or inside another hole, near (%.17g %.17g)",
					p[0], p[1]);
}

static exg_status
sweep_triangulate(tri_work *w)
{
	tri_node   *N = w->node;
	sw_list		L = {0};
	tri_key    *key = NULL;
	uint32_t   *rnew = malloc((2 * w->nnode + 1) * sizeof(uint32_t));
	uint32_t   *lold = malloc((2 * w->nnode + 1) * sizeof(uint32_t));
	exg_status	st;
	size_t		i,
				j;

	if (rnew == NULL || lold == NULL)
	{
		st = fail_nomem(w);
		goto done;
	}
	if ((st = sw_init(w, &L, w->nnode)) != EXG_OK ||
		(st = sort_points(w, w->nnode, node_coord, &key)) != EXG_OK)
		goto done;
	for (i = 0; i < w->nnode; i++)
	{
		sw_edge    *e = &L.e[i];
		const double *a = N[i].p,
				   *b = N[N[i].next].p;

		e->ia = lexcmp(a, b) < 0;
		e->l = e->ia ? a : b;
		e->r = e->ia ? b : a;
		e->lv = (uint32_t) i;
		e->ring = N[i].ring;
		e->merged = false;
		e->side = SIDE_NONE;
	}
	for (i = 0; i < w->nnode && st == EXG_OK; i = j)
	{
		const double *p = key[i].p;
		uint32_t	v = (uint32_t) key[i].id,
					below,
					above,
					x;
		size_t		nleft = 0,
					nr = 0,
					m = 0,
					t;

		if (cancelled(w))
		{
			st = exg_fail(w->err, EXG_ERR_INTERRUPTED, "triangulation interrupted");
			break;
		}
		for (j = i; j < w->nnode && same_pt(key[j].p, p); j++)
		{
			uint32_t	c = (uint32_t) key[j].id;

			if (same_pt(L.e[c].l, p))
				rnew[nr++] = c;
			else
				nleft++;
			if (same_pt(L.e[N[c].prev].l, p))
				rnew[nr++] = N[c].prev;
			else
				nleft++;
		}
		sw_search(&L, p);
		below = L.upd[0];
		while ((x = sw_after(&L)) != SW_NIL && ORIENT(L.e[x].l, L.e[x].r, p) == 0)
		{
			if (!same_pt(L.e[x].r, p))
				break;
			sw_remove_after(&L);
			lold[m++] = x;
		}
		if (m != nleft)
		{
			st = exg_fail(w->err, EXG_ERR_INVALID,
						  "polygon could not be triangulated near (%.17g %.17g) (self-intersecting or otherwise invalid)",
						  p[0], p[1]);
			break;
		}
		if (nr > 1)
			qsort_r(rnew, nr, sizeof(uint32_t), cmp_sw_angle, &L);
		for (t = 0; t < nr; t++)
			sw_insert(&L, rnew[t]);
		above = sw_after(&L);
		/* the new neighbours alternate (the old ones did) */
		if (nr == 0)
			st = check_alternate(w, &L, below, above, p);
		else
		{
			st = check_alternate(w, &L, below, rnew[0], p);
			for (t = 0; st == EXG_OK && t + 1 < nr; t++)
				st = check_alternate(w, &L, rnew[t], rnew[t + 1], p);
			if (st == EXG_OK)
				st = check_alternate(w, &L, rnew[nr - 1], above, p);
		}
		if (st != EXG_OK)
			break;

		/* gaps between edges ending at p close there */
		for (t = 0; t + 1 < m && st == EXG_OK; t++)
			if (L.e[lold[t]].ia)
				st = gap_close(w, &L.e[lold[t]], v);
		/* gaps between edges starting at p open there */
		for (t = 0; t + 1 < nr && st == EXG_OK; t++)
			if (L.e[rnew[t]].ia)
				st = gap_start(w, &L.e[rnew[t]], v);
		if (st != EXG_OK)
			break;
		if (m > 0 && nr > 0)
		{
			/* the gaps below and above p go on, p on their upper / lower side */
			if (below != L.head && L.e[below].ia)
				st = gap_add(w, &L.e[below], SIDE_UPPER, v);
			if (st == EXG_OK && L.e[lold[m - 1]].ia)
			{
				sw_edge    *from = &L.e[lold[m - 1]],
						   *to = &L.e[rnew[nr - 1]];

				to->top = from->top;
				to->top2 = from->top2;
				to->side = from->side;
				to->merged = from->merged;
				st = gap_add(w, to, SIDE_LOWER, v);
			}
		}
		else if (m > 0)
		{
			/* a merge: both chains end at p until the next point of the gap */
			sw_edge    *e = &L.e[below],
					   *f = &L.e[lold[m - 1]];

			if (below != L.head && e->ia &&
				(st = gap_add(w, e, SIDE_UPPER, v)) == EXG_OK &&
				(st = gap_add(w, f, SIDE_LOWER, v)) == EXG_OK)
			{
				e->top2 = f->top;
				e->merged = true;
			}
		}
		else if (below != L.head && L.e[below].ia)
			st = gap_split(w, &L.e[below], &L.e[rnew[nr - 1]], v);
	}
done:
	free(L.e);
	free(key);
	free(rnew);
	free(lold);
	return st;
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
	free(w->cell_v);
	free(w->cell_b);
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
		(st = check_shared_points(w)) != EXG_OK)
		return st;
	return sweep_triangulate(w);
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

