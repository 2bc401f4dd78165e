/*
 * intercepts.c — along-hole intervals inside a closed surface, exactly.
 *
 * Contacts between a hole segment pq and the surface are rational
 * parameters t of p + t (q - p): for a face crossed at one point,
 * t = O(p) / (O(p) - O(q)) with O the exact orient3d value against the face;
 * for a face the segment lies in, the clip of [0, 1] by the face's three
 * edge half-planes. Between consecutive contacts the hole is wholly inside,
 * outside or on the surface, and the piece's midpoint (a rational point) is
 * located by the parity of the symbolically perturbed upward ray of
 * locate_logic.h, with its signs in rational arithmetic (GMP mpq).
 */
#include "intercepts.h"

#include <gmp.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "bvh.h"
#include "gserialized_read.h"
#include "cancel.h"
#include "predicates.h"
#include "predicates_cpu.h"
#include "solid.h"
#include "rational_round.h"
#include "solid_check.h"

#define NTMP 16

typedef struct qpt
{
	mpq_t		c[3];
} qpt;

/* GMP registers for one call. */
typedef struct qwork
{
	mpq_t		t[NTMP];
	qpt			a,
				b,
				c,
				d;
} qwork;

static void
qpt_init(qpt *p)
{
	mpq_inits(p->c[0], p->c[1], p->c[2], NULL);
}

static void
qpt_clear(qpt *p)
{
	mpq_clears(p->c[0], p->c[1], p->c[2], NULL);
}

static void
qpt_set_d(qpt *p, const double *x)
{
	int			k;

	for (k = 0; k < 3; k++)
		mpq_set_d(p->c[k], x[k]);
}

static void
qwork_init(qwork *w)
{
	int			k;

	for (k = 0; k < NTMP; k++)
		mpq_init(w->t[k]);
	qpt_init(&w->a);
	qpt_init(&w->b);
	qpt_init(&w->c);
	qpt_init(&w->d);
}

static void
qwork_clear(qwork *w)
{
	int			k;

	for (k = 0; k < NTMP; k++)
		mpq_clear(w->t[k]);
	qpt_clear(&w->a);
	qpt_clear(&w->b);
	qpt_clear(&w->c);
	qpt_clear(&w->d);
}

/* out = ((b - a) x (c - a)) . (d - a), exactly; uses w->t[0..8]. */
static void
orient3d_value(qwork *w, const qpt *a, const qpt *b, const qpt *c, const qpt *d, mpq_t out)
{
	mpq_t	   *t = w->t;
	int			k;

	for (k = 0; k < 3; k++)
	{
		mpq_sub(t[k], b->c[k], a->c[k]);		/* u */
		mpq_sub(t[3 + k], c->c[k], a->c[k]);	/* v */
		mpq_sub(t[6 + k], d->c[k], a->c[k]);	/* w */
	}
	/* out = wx (uy vz - uz vy) + wy (uz vx - ux vz) + wz (ux vy - uy vx) */
	mpq_set_ui(out, 0, 1);
	for (k = 0; k < 3; k++)
	{
		int			i = (k + 1) % 3,
					j = (k + 2) % 3;

		mpq_mul(t[9], t[i], t[3 + j]);
		mpq_mul(t[10], t[j], t[3 + i]);
		mpq_sub(t[9], t[9], t[10]);
		mpq_mul(t[9], t[9], t[6 + k]);
		mpq_add(out, out, t[9]);
	}
}

/* out = (b - a) x (c - a) on axes (i, j), exactly; uses w->t[0..3]. */
static void
orient2d_value(qwork *w, const qpt *a, const qpt *b, const qpt *c, int i, int j, mpq_t out)
{
	mpq_t	   *t = w->t;

	mpq_sub(t[0], b->c[i], a->c[i]);
	mpq_sub(t[1], c->c[j], a->c[j]);
	mpq_mul(t[0], t[0], t[1]);
	mpq_sub(t[1], b->c[j], a->c[j]);
	mpq_sub(t[2], c->c[i], a->c[i]);
	mpq_mul(t[1], t[1], t[2]);
	mpq_sub(out, t[0], t[1]);
}

static int
orient3d_sign(qwork *w, const qpt *a, const qpt *b, const qpt *c, const qpt *d)
{
	orient3d_value(w, a, b, c, d, w->t[11]);
	return mpq_sgn(w->t[11]);
}

/* ---- rational point location ---- */

typedef struct locate_ctx
{
	const exg_prims *prims;
	qwork	   *w;
	const qpt  *m;
	unsigned	crossings;
	int			stopped;		/* 1: m is on the surface */
} locate_ctx;

static void
load_triangle(locate_ctx *lc, const exg_prim *pr)
{
	qpt_set_d(&lc->w->a, &lc->prims->xyz[3 * pr->v[0]]);
	qpt_set_d(&lc->w->b, &lc->prims->xyz[3 * pr->v[1]]);
	qpt_set_d(&lc->w->c, &lc->prims->xyz[3 * pr->v[2]]);
}

static int
visit_boundary_q(void *ctx, uint32_t t)
{
	locate_ctx *lc = ctx;
	const exg_prim *pr = &lc->prims->prims[t];
	qwork	   *w = lc->w;
	int			i = (pr->k + 1) % 3,
				j = (pr->k + 2) % 3;

	if (pr->kind != EXG_SIMPLEX_TRIANGLE)
		return 0;
	load_triangle(lc, pr);
	if (orient3d_sign(w, &w->a, &w->b, &w->c, lc->m) != 0)
		return 0;
	/* in the face's projection: on the inner side of all three edges (or on one) */
	orient2d_value(w, &w->a, &w->b, lc->m, i, j, w->t[12]);
	orient2d_value(w, &w->b, &w->c, lc->m, i, j, w->t[13]);
	orient2d_value(w, &w->c, &w->a, lc->m, i, j, w->t[14]);
	if (mpq_sgn(w->t[12]) * pr->s < 0 || mpq_sgn(w->t[13]) * pr->s < 0 ||
		mpq_sgn(w->t[14]) * pr->s < 0)
		return 0;
	lc->stopped = 1;
	return 1;
}

/*
 * The upward ray from m, moved symbolically as in locate_logic.h, against
 * one triangle: counts a crossing. Exact signs in rationals; where a sign
 * is zero the moved one is a comparison of the triangle's doubles. Vertical
 * triangles are never crossed; m on the triangle (excluded by the boundary
 * probe before) stops the walk as a boundary.
 */
static int
visit_column_q(void *ctx, uint32_t t)
{
	locate_ctx *lc = ctx;
	const exg_prim *pr = &lc->prims->prims[t];
	const double *x = lc->prims->xyz;
	const double *u[3];
	qwork	   *w = lc->w;
	int			sz,
				e[3],
				o;

	if (pr->kind != EXG_SIMPLEX_TRIANGLE)
		return 0;
	load_triangle(lc, pr);
	orient2d_value(w, &w->a, &w->b, &w->c, 0, 1, w->t[12]);
	sz = mpq_sgn(w->t[12]);
	if (sz == 0)
		return 0;
	orient2d_value(w, &w->a, &w->b, lc->m, 0, 1, w->t[12]);
	orient2d_value(w, &w->b, &w->c, lc->m, 0, 1, w->t[13]);
	orient2d_value(w, &w->c, &w->a, lc->m, 0, 1, w->t[14]);
	for (int k = 0; k < 3; k++)
	{
		e[k] = mpq_sgn(w->t[12 + k]);
		if (e[k] == -sz)
			return 0;
		u[k] = &x[3 * pr->v[k]];
	}
	o = orient3d_sign(w, &w->a, &w->b, &w->c, lc->m);
	if (o == 0)
		return (lc->stopped = 1);
	if (o == sz)
		return 0;				/* above the plane */
	for (int k = 0; k < 3; k++)
		if (exg_cpu_moved_sign(u[k], u[(k + 1) % 3], e[k]) != sz)
			return 0;
	lc->crossings++;
	return 0;
}

/* Where the rational point m is (the surface is known to be closed). */
static exg_status
locate_rational(const exg_view *v, qwork *w, const qpt *m, exg_location *loc, exg_error *err)
{
	locate_ctx	lc = {&v->prims, w, m, 0, 0};
	double		box[6];
	int			i;

	(void) err;
	/* a box of doubles around m (mpq_get_d truncates: within one ulp) */
	for (i = 0; i < 3; i++)
	{
		double		mb = mpq_get_d(m->c[i]);

		box[i] = nextafter(mb, -INFINITY);
		box[3 + i] = nextafter(mb, INFINITY);
	}
	if (!exg_boxes_meet(box, v->prims.box))
	{
		*loc = EXG_LOC_OUTSIDE;
		return EXG_OK;
	}
	exg_view_query(v, box, visit_boundary_q, &lc);
	if (lc.stopped == 1)
	{
		*loc = EXG_LOC_BOUNDARY;
		return EXG_OK;
	}
	/* the column above m: every triangle its upward ray can cross */
	box[5] = box[5] > v->prims.box[5] ? box[5] : v->prims.box[5];
	lc.crossings = 0;
	lc.stopped = 0;
	exg_view_query(v, box, visit_column_q, &lc);
	*loc = lc.stopped == 1 ? EXG_LOC_BOUNDARY
		: ((lc.crossings & 1) ? EXG_LOC_INSIDE : EXG_LOC_OUTSIDE);
	return EXG_OK;
}

/* ---- contacts along one segment ---- */

/*
 * A contact is "simple" when the segment crosses one triangle's open
 * interior transversally there and nothing else of the surface passes
 * through the point: the point is on a face, and the ray parity flips
 * across it, so neither needs rational arithmetic.
 */
typedef struct contact
{
	mpq_t		t;
	int			simple;
} contact;

typedef struct contacts
{
	contact    *c;
	size_t		n;
	size_t		cap;
} contacts;

static void
contacts_add(contacts *c, const mpq_t t, int simple)
{
	if (c->n == c->cap)
	{
		size_t		k;

		c->cap = c->cap ? 2 * c->cap : 16;
		c->c = realloc(c->c, sizeof(contact) * c->cap);
		for (k = c->n; k < c->cap; k++)
			mpq_init(c->c[k].t);
	}
	mpq_set(c->c[c->n].t, t);
	c->c[c->n++].simple = simple;
}

static int
cmp_contact(const void *x, const void *y)
{
	return mpq_cmp(((const contact *) x)->t, ((const contact *) y)->t);
}

typedef struct segment_ctx
{
	const exg_prims *prims;
	const double *p;
	const double *q;
	qwork	   *w;
	qpt			pq,
				qq;
	contacts   *out;
} segment_ctx;

/* A face the segment meets: add the parameters where it enters and leaves. */
static int
visit_segment(void *ctx, uint32_t tri)
{
	segment_ctx *sc = ctx;
	const exg_prim *pr = &sc->prims->prims[tri];
	qwork	   *w = sc->w;
	const double *a,
			   *b,
			   *c;
	mpq_t	   *t = w->t;
	exg_round_state saved;
	int			meets;

	if (pr->kind != EXG_SIMPLEX_TRIANGLE)
		return 0;
	a = &sc->prims->xyz[3 * pr->v[0]];
	b = &sc->prims->xyz[3 * pr->v[1]];
	c = &sc->prims->xyz[3 * pr->v[2]];
	/* the interval filter needs upward rounding; the depths around it do not */
	saved = exg_round_up_enter();
	meets = exg_cpu_segment_triangle_3d(sc->p, sc->q, a, b, c, pr->k, pr->s);
	exg_round_restore(saved);
	if (meets != EXG_RESULT_INTERSECTS)
		return 0;
	qpt_set_d(&w->a, a);
	qpt_set_d(&w->b, b);
	qpt_set_d(&w->c, c);
	orient3d_value(w, &w->a, &w->b, &w->c, &sc->pq, t[12]);
	orient3d_value(w, &w->a, &w->b, &w->c, &sc->qq, t[13]);
	if (mpq_sgn(t[12]) != 0 || mpq_sgn(t[13]) != 0)
	{
		/* one crossing point: t = O(p) / (O(p) - O(q)) */
		int			simple = mpq_sgn(t[12]) * mpq_sgn(t[13]) < 0;

		if (simple)
		{
			/* through the open triangle: the line's sides of its three edges agree */
			int			e0 = exg_orient3d(sc->p, sc->q, a, b);

			simple = e0 != 0 && exg_orient3d(sc->p, sc->q, b, c) == e0 &&
				exg_orient3d(sc->p, sc->q, c, a) == e0;
		}
		mpq_sub(t[14], t[12], t[13]);
		mpq_div(t[15], t[12], t[14]);
		contacts_add(sc->out, t[15], simple);
		return 0;
	}
	else
	{
		/* in the face's plane: clip [0, 1] by the three edge half-planes */
		int			i = (pr->k + 1) % 3,
					j = (pr->k + 2) % 3,
					e;
		mpq_t		lo,
					hi,
					f0,
					f1,
					bound;
		const qpt  *v[3] = {&w->a, &w->b, &w->c};

		mpq_inits(lo, hi, f0, f1, bound, NULL);
		mpq_set_ui(lo, 0, 1);
		mpq_set_ui(hi, 1, 1);
		for (e = 0; e < 3; e++)
		{
			orient2d_value(w, v[e], v[(e + 1) % 3], &sc->pq, i, j, f0);
			orient2d_value(w, v[e], v[(e + 1) % 3], &sc->qq, i, j, f1);
			if (mpq_equal(f0, f1))
				continue;		/* parallel to the edge: inside throughout (it meets) */
			/* f(t) = f0 + t (f1 - f0) has the face's sign s beyond t = f0 / (f0 - f1) */
			mpq_sub(bound, f0, f1);
			mpq_div(bound, f0, bound);
			mpq_sub(f1, f1, f0);
			if (mpq_sgn(f1) * pr->s > 0)
			{
				if (mpq_cmp(bound, lo) > 0)
					mpq_set(lo, bound);
			}
			else if (mpq_cmp(bound, hi) < 0)
				mpq_set(hi, bound);
		}
		contacts_add(sc->out, lo, 0);
		contacts_add(sc->out, hi, 0);
		mpq_clears(lo, hi, f0, f1, bound, NULL);
	}
	return 0;
}

/* ---- contact kinds ---- */

#define MAX_PLANES 3

typedef struct contact_ctx
{
	const exg_prims *prims;
	qwork	   *w;
	const qpt  *m;
	const double *plane[MAX_PLANES][3];	/* a triangle of each distinct plane */
	int			nplanes;
} contact_ctx;

/* A triangle the point lies on: count its plane if it is a new one. */
static int
visit_contact(void *ctx, uint32_t t)
{
	contact_ctx *cc = ctx;
	const exg_prim *pr = &cc->prims->prims[t];
	const double *x = cc->prims->xyz;
	qwork	   *w = cc->w;
	int			i = (pr->k + 1) % 3,
				j = (pr->k + 2) % 3,
				p;
	const double *a,
			   *b,
			   *c;

	if (pr->kind != EXG_SIMPLEX_TRIANGLE)
		return 0;
	a = &x[3 * pr->v[0]];
	b = &x[3 * pr->v[1]];
	c = &x[3 * pr->v[2]];
	qpt_set_d(&w->a, a);
	qpt_set_d(&w->b, b);
	qpt_set_d(&w->c, c);
	if (orient3d_sign(w, &w->a, &w->b, &w->c, cc->m) != 0)
		return 0;
	orient2d_value(w, &w->a, &w->b, cc->m, i, j, w->t[12]);
	orient2d_value(w, &w->b, &w->c, cc->m, i, j, w->t[13]);
	orient2d_value(w, &w->c, &w->a, cc->m, i, j, w->t[14]);
	if (mpq_sgn(w->t[12]) * pr->s < 0 || mpq_sgn(w->t[13]) * pr->s < 0 ||
		mpq_sgn(w->t[14]) * pr->s < 0)
		return 0;
	/* the planes are those of input triangles: exact orientations of doubles */
	for (p = 0; p < cc->nplanes; p++)
	{
		const double *const *q = cc->plane[p];

		if (exg_orient3d(q[0], q[1], q[2], a) == 0 && exg_orient3d(q[0], q[1], q[2], b) == 0 &&
			exg_orient3d(q[0], q[1], q[2], c) == 0)
			return 0;
	}
	cc->plane[cc->nplanes][0] = a;
	cc->plane[cc->nplanes][1] = b;
	cc->plane[cc->nplanes][2] = c;
	return ++cc->nplanes == MAX_PLANES;
}

/* Face, edge or vertex: how many planes of the surface meet at m (on it). */
static exg_contact
classify_contact(const exg_view *v, qwork *w, const qpt *m)
{
	contact_ctx cc = {&v->prims, w, m, {{NULL}}, 0};
	double		box[6];
	int			i;

	for (i = 0; i < 3; i++)
	{
		double		mb = mpq_get_d(m->c[i]);

		box[i] = nextafter(mb, -INFINITY);
		box[3 + i] = nextafter(mb, INFINITY);
	}
	exg_view_query(v, box, visit_contact, &cc);
	return cc.nplanes >= 3 ? EXG_CONTACT_VERTEX
		: cc.nplanes == 2 ? EXG_CONTACT_EDGE : EXG_CONTACT_FACE;
}

/* ---- the walk along the hole ---- */

void
exg_intercept_set_free(exg_intercept_set *s)
{
	free(s->iv);
	free(s->xyzm);
	memset(s, 0, sizeof(*s));
}

static bool
push_vertex(exg_intercept_set *s, const double *p, double depth)
{
	if (s->nv == s->vcap)
	{
		size_t		cap = s->vcap ? 2 * s->vcap : 16;
		double	   *grown = realloc(s->xyzm, sizeof(double) * 4 * cap);

		if (grown == NULL)
			return false;
		s->xyzm = grown;
		s->vcap = cap;
	}
	memcpy(&s->xyzm[4 * s->nv], p, 3 * sizeof(double));
	s->xyzm[4 * s->nv + 3] = depth;
	s->nv++;
	return true;
}

static bool
push_intercept(exg_intercept_set *s, const exg_intercept *iv)
{
	if (s->n == s->cap)
	{
		size_t		cap = s->cap ? 2 * s->cap : 8;
		exg_intercept *grown = realloc(s->iv, sizeof(exg_intercept) * cap);

		if (grown == NULL)
			return false;
		s->iv = grown;
		s->cap = cap;
	}
	s->iv[s->n++] = *iv;
	return true;
}

/*
 * The walk visits, in order along the hole, every contact point and every
 * open piece between two, each with its location; a run of places not
 * outside is one intercept. A run opens at a point (a piece inside has a
 * contact or an inside vertex before it) and closes at the last point
 * before a place outside, or at the hole's end.
 */
typedef struct walk
{
	const exg_view *v;
	const double *xyz;
	qwork	   *w;
	exg_intercept_set *out;
	bool		open;
	bool		any_inside;
	bool		any_piece;
	exg_intercept cur;
	/* the last point visited: segment, parameter, depth, location */
	size_t		seg;
	mpq_t		t;
	double		depth;
	exg_location loc;
	bool		face;			/* a simple contact: on a face */
	bool		pushed;			/* already the piece's last vertex */
	bool		nomem;
} walk;

/* The point at parameter t of segment seg: exactly into m, rounded into d. */
static void
point_at(walk *wk, size_t seg, const mpq_t t, qpt *m, double *d, mpq_t tmp)
{
	const double *p = &wk->xyz[3 * seg],
			   *q = &wk->xyz[3 * seg + 3];

	if (mpq_sgn(t) == 0 || mpq_cmp_ui(t, 1, 1) == 0)
	{
		const double *x = mpq_sgn(t) == 0 ? p : q;

		qpt_set_d(m, x);
		memcpy(d, x, 3 * sizeof(double));
		return;
	}
	for (int c = 0; c < 3; c++)
	{
		mpq_set_d(tmp, p[c]);
		mpq_set_d(m->c[c], q[c]);
		mpq_sub(m->c[c], m->c[c], tmp);
		mpq_mul(m->c[c], m->c[c], t);
		mpq_add(m->c[c], m->c[c], tmp);
		d[c] = exg_mpq_nearest_double(m->c[c]);
	}
}

static void
walk_close(walk *wk, mpq_t tmp)
{
	if (!wk->open)
		return;
	wk->open = false;
	wk->cur.to = wk->depth;
	point_at(wk, wk->seg, wk->t, &wk->w->d, wk->cur.exit, tmp);
	wk->cur.exit_contact = wk->loc == EXG_LOC_INSIDE ? EXG_CONTACT_END
		: wk->face ? EXG_CONTACT_FACE : classify_contact(wk->v, wk->w, &wk->w->d);
	if (!wk->pushed && !push_vertex(wk->out, wk->cur.exit, wk->depth))
		wk->nomem = true;
	wk->cur.kind = wk->any_inside ? EXG_INTERCEPT_THROUGH
		: wk->any_piece ? EXG_INTERCEPT_ALONG : EXG_INTERCEPT_GRAZING;
	wk->cur.nvertices = wk->out->nv - wk->cur.first_vertex;
	if (!push_intercept(wk->out, &wk->cur))
		wk->nomem = true;
}

/* A point of the hole: a contact (on the surface) or a vertex. */
static void
walk_point(walk *wk, size_t seg, const mpq_t t, double depth, exg_location loc, bool face,
		   mpq_t tmp)
{
	bool		vertex = mpq_sgn(t) == 0 || mpq_cmp_ui(t, 1, 1) == 0;

	if (loc == EXG_LOC_OUTSIDE)
	{
		walk_close(wk, tmp);
		return;
	}
	wk->seg = seg;
	mpq_set(wk->t, t);
	wk->depth = depth;
	wk->loc = loc;
	wk->face = face;
	wk->pushed = false;
	if (!wk->open)
	{
		memset(&wk->cur, 0, sizeof(wk->cur));
		wk->open = true;
		wk->any_inside = false;
		wk->any_piece = false;
		wk->cur.from = depth;
		point_at(wk, seg, t, &wk->w->d, wk->cur.entry, tmp);
		wk->cur.entry_contact = loc == EXG_LOC_INSIDE ? EXG_CONTACT_START
			: face ? EXG_CONTACT_FACE : classify_contact(wk->v, wk->w, &wk->w->d);
		wk->cur.first_vertex = wk->out->nv;
		if (!push_vertex(wk->out, wk->cur.entry, depth))
			wk->nomem = true;
		wk->pushed = true;
	}
	else if (vertex)
	{
		if (!push_vertex(wk->out, &wk->xyz[3 * seg + (mpq_sgn(t) == 0 ? 0 : 3)], depth))
			wk->nomem = true;
		wk->pushed = true;
	}
	wk->any_inside |= loc == EXG_LOC_INSIDE;
}

/* An open piece between two points: wholly inside, outside or on the surface. */
static void
walk_piece(walk *wk, exg_location loc, mpq_t tmp)
{
	if (loc == EXG_LOC_OUTSIDE)
	{
		walk_close(wk, tmp);
		return;
	}
	wk->any_piece = true;
	wk->any_inside |= loc == EXG_LOC_INSIDE;
}

exg_status
exg_intercepts_detail(exg_prepared *g, const double *xyz, size_t n, exg_intercept_set *out,
					  exg_error *err)
{
	return exg_intercepts_detail_md(g, xyz, NULL, n, out, err);
}

/*
 * A hole whose measured depth decreases along it (stored toe first): each
 * interval of the set (from index first on) is turned round so that from is
 * the shallower end, entry the contact there and the piece runs down the
 * hole, and the intervals are put in order of depth.
 */
static void
turn_round(exg_intercept_set *out, size_t first)
{
	size_t		i,
				j;

	for (i = first; i < out->n; i++)
	{
		exg_intercept *iv = &out->iv[i];
		double		t = iv->from,
					e[3];
		uint8_t		c = iv->entry_contact;

		iv->from = iv->to;
		iv->to = t;
		memcpy(e, iv->entry, sizeof(e));
		memcpy(iv->entry, iv->exit, sizeof(e));
		memcpy(iv->exit, e, sizeof(e));
		iv->entry_contact = iv->exit_contact;
		iv->exit_contact = c;
		/* "start" and "end" are the hole's own ends: they keep their names */
		for (j = 0; j < iv->nvertices / 2; j++)
		{
			double	   *a = &out->xyzm[4 * (iv->first_vertex + j)],
					   *b = &out->xyzm[4 * (iv->first_vertex + iv->nvertices - 1 - j)],
						tmp[4];

			memcpy(tmp, a, sizeof(tmp));
			memcpy(a, b, sizeof(tmp));
			memcpy(b, tmp, sizeof(tmp));
		}
	}
	for (i = first, j = out->n; j > 0 && i < j - 1; i++, j--)
	{
		exg_intercept tmp = out->iv[i];

		out->iv[i] = out->iv[j - 1];
		out->iv[j - 1] = tmp;
	}
}

exg_status
exg_intercepts_detail_md(exg_prepared *g, const double *xyz, const double *md, size_t n,
						 exg_intercept_set *out, exg_error *err)
{
	size_t		first_out = out->n;
	bool		down = true;
	const exg_view *v;
	exg_status	st;
	qwork		w;
	contacts	con = {NULL, 0, 0};
	walk		wk;
	double		depth = 0;
	exg_location loc_p = EXG_LOC_OUTSIDE,
				loc_q,
				prev;
	size_t		i,
				k;
	mpq_t		mid,
				tmp;

	if ((st = exg_solid_require(g, NULL, EXG_SOLID_INSIDE, err)) != EXG_OK ||
		(st = exg_prepared_view3d(g, true, &v, err)) != EXG_OK)
		return st;
	if (n == 0)
		return EXG_OK;
	if (md != NULL)
	{
		/* measured depths must run one way along the hole */
		bool		up = true;

		for (i = 0; i + 1 < n; i++)
		{
			if (!isfinite(md[i]) || !isfinite(md[i + 1]))
				return exg_fail(err, EXG_ERR_ARGUMENT,
								"the hole's M (measured depth) at vertex %zu is not a finite number",
								!isfinite(md[i]) ? i + 1 : i + 2);
			down &= md[i] <= md[i + 1];
			up &= md[i] >= md[i + 1];
		}
		if (!down && !up)
			return exg_fail(err, EXG_ERR_ARGUMENT,
							"the hole's M (measured depth) neither increases nor decreases along it (vertices %zu to %zu), so it is no depth",
							(size_t) 1, n);
	}
	qwork_init(&w);
	mpq_inits(mid, tmp, NULL);
	memset(&wk, 0, sizeof(wk));
	wk.v = v;
	wk.xyz = xyz;
	wk.w = &w;
	wk.out = out;
	mpq_init(wk.t);

	/* the hole's vertices are doubles: located by the filtered double path */
	st = exg_solid_locate(g, xyz, &loc_p, err);
	if (st == EXG_OK)
	{
		mpq_set_ui(tmp, 0, 1);
		walk_point(&wk, 0, tmp, md ? md[0] : 0, loc_p, false, mid);
	}
	for (i = 0; i + 1 < n && st == EXG_OK && !wk.nomem; i++)
	{
		const double *p = &xyz[3 * i],
				   *q = &xyz[3 * (i + 1)];
		double		len = sqrt((q[0] - p[0]) * (q[0] - p[0]) + (q[1] - p[1]) * (q[1] - p[1]) +
							   (q[2] - p[2]) * (q[2] - p[2]));
		segment_ctx sc;
		double		sbox[6];
		size_t		m;

		if (exg_cancel_requested())
		{
			st = exg_fail(err, EXG_ERR_INTERRUPTED, "canceled");
			break;
		}
		if ((st = exg_solid_locate(g, q, &loc_q, err)) != EXG_OK)
			break;
		for (k = 0; k < 3; k++)
		{
			sbox[k] = p[k] < q[k] ? p[k] : q[k];
			sbox[3 + k] = p[k] < q[k] ? q[k] : p[k];
		}
		/* contacts in (0, 1), plus both ends */
		con.n = 0;
		mpq_set_ui(tmp, 0, 1);
		contacts_add(&con, tmp, 0);
		mpq_set_ui(tmp, 1, 1);
		contacts_add(&con, tmp, 0);
		sc.prims = &v->prims;
		sc.p = p;
		sc.q = q;
		sc.w = &w;
		sc.out = &con;
		qpt_init(&sc.pq);
		qpt_init(&sc.qq);
		qpt_set_d(&sc.pq, p);
		qpt_set_d(&sc.qq, q);
		if (exg_boxes_meet(sbox, v->prims.box))
			exg_view_query(v, sbox, visit_segment, &sc);
		qpt_clear(&sc.pq);
		qpt_clear(&sc.qq);
		qsort(con.c, con.n, sizeof(contact), cmp_contact);
		for (m = 0, k = 0; k < con.n; k++)
		{
			/* two triangles at one point: an edge, a vertex, or an overlap */
			if (m > 0 && mpq_equal(con.c[k].t, con.c[m - 1].t))
			{
				con.c[m - 1].simple = 0;
				continue;
			}
			mpq_swap(con.c[m].t, con.c[k].t);
			con.c[m].simple = con.c[k].simple;
			m++;
		}
		con.n = m;

		/* each open piece, then the point after it (t = 0 was visited before) */
		for (k = 0, prev = EXG_LOC_BOUNDARY; k + 1 < con.n && st == EXG_OK; k++)
		{
			exg_location loc;
			bool		last = k + 2 == con.n;

			/*
			 * An open piece meets no contact, so an end of it that is a hole
			 * vertex off the surface is where the piece is; past a simple
			 * contact it is where the piece before it is not; else its
			 * rational midpoint is located.
			 */
			if (k == 0 && loc_p != EXG_LOC_BOUNDARY)
				loc = loc_p;
			else if (last && loc_q != EXG_LOC_BOUNDARY)
				loc = loc_q;
			else if (con.c[k].simple && prev != EXG_LOC_BOUNDARY)
				loc = prev == EXG_LOC_INSIDE ? EXG_LOC_OUTSIDE : EXG_LOC_INSIDE;
			else
			{
				mpq_add(mid, con.c[k].t, con.c[k + 1].t);
				mpq_div_2exp(mid, mid, 1);
				for (int c = 0; c < 3; c++)
				{
					/* p + mid (q - p), exactly */
					mpq_set_d(tmp, p[c]);
					mpq_set_d(w.d.c[c], q[c]);
					mpq_sub(w.d.c[c], w.d.c[c], tmp);
					mpq_mul(w.d.c[c], w.d.c[c], mid);
					mpq_add(w.d.c[c], w.d.c[c], tmp);
				}
				st = locate_rational(v, &w, &w.d, &loc, err);
				if (st != EXG_OK)
					break;
			}
			prev = loc;
			walk_piece(&wk, loc, tmp);
			walk_point(&wk, i, con.c[k + 1].t,
					   last ? (md ? md[i + 1] : depth + len)
					   : md ? md[i] + exg_mpq_nearest_double(con.c[k + 1].t) * (md[i + 1] - md[i])
					   : depth + exg_mpq_nearest_double(con.c[k + 1].t) * len,
					   last ? loc_q : EXG_LOC_BOUNDARY, !last && con.c[k + 1].simple, mid);
		}
		depth += len;
		loc_p = loc_q;
	}
	if (st == EXG_OK)
		walk_close(&wk, tmp);
	if (st == EXG_OK && wk.nomem)
		st = exg_fail(err, EXG_ERR_NOMEM, "out of memory for intercepts");
	if (st == EXG_OK && md != NULL && !down)
		turn_round(out, first_out);
	for (k = 0; k < con.cap; k++)
		mpq_clear(con.c[k].t);
	free(con.c);
	mpq_clears(mid, tmp, wk.t, NULL);
	qwork_clear(&w);
	return st;
}

exg_status
exg_intercepts(exg_prepared *g, const double *xyz, size_t n, double **out, size_t *nout,
			   exg_error *err)
{
	exg_intercept_set s = {0};
	exg_status	st;
	size_t		k;

	*out = NULL;
	*nout = 0;
	if ((st = exg_intercepts_detail(g, xyz, n, &s, err)) != EXG_OK)
	{
		exg_intercept_set_free(&s);
		return st;
	}
	if (s.n > 0)
	{
		*out = malloc(sizeof(double) * 2 * s.n);
		if (*out == NULL)
		{
			exg_intercept_set_free(&s);
			return exg_fail(err, EXG_ERR_NOMEM, "out of memory for intercepts");
		}
	}
	for (k = 0; k < s.n; k++)
	{
		(*out)[2 * k] = s.iv[k].from;
		(*out)[2 * k + 1] = s.iv[k].to;
	}
	*nout = s.n;
	exg_intercept_set_free(&s);
	return EXG_OK;
}

exg_status
exg_hole_polyline(const exg_shape *s, double **xyz, size_t *n, exg_error *err)
{
	size_t		c,
				m = 0;
	double	   *out;

	*xyz = NULL;
	*n = 0;
	if (s->geom_type != 2 /* LINESTRING */ && s->geom_type != 5 /* MULTILINESTRING */)
		return exg_fail(err, EXG_ERR_ARGUMENT, "the hole must be a LINESTRING or a MULTILINESTRING");
	out = malloc(sizeof(double) * 3 * (s->nverts ? s->nverts : 1));
	if (out == NULL)
		return exg_fail(err, EXG_ERR_NOMEM, "out of memory reading a hole");
	for (c = 0; c < s->ncomps; c++)
	{
		size_t		r = s->comps[c].first_ring,
					first = s->ring_start[r],
					nv = exg_ring_nverts(s, r);

		if (nv == 0)
			continue;
		if (m > 0)
		{
			const double *end = &out[3 * (m - 1)],
					   *start = exg_vertex(s, first);

			/* depth runs on across parts: a gap would need a path we do not know */
			if (end[0] != start[0] || end[1] != start[1] || end[2] != start[2])
			{
				exg_fail(err, EXG_ERR_ARGUMENT,
						 "part %zu of the MULTILINESTRING hole does not start where part %zu ends ((%.17g %.17g %.17g) and (%.17g %.17g %.17g))",
						 c + 1, c, end[0], end[1], end[2], start[0], start[1], start[2]);
				free(out);
				return EXG_ERR_ARGUMENT;
			}
			first++;
			nv--;
		}
		memcpy(&out[3 * m], exg_vertex(s, first), sizeof(double) * 3 * nv);
		m += nv;
	}
	*xyz = out;
	*n = m;
	return EXG_OK;
}

exg_status
exg_hole_measures(const uint8_t *data, size_t size, double **md, size_t *n, exg_error *err)
{
	exg_gs_simple it;
	exg_comp_kind kind;
	size_t		off,
				m = 0,
				cap = 0,
				zoff;
	uint32_t	nv,
				k;
	double	   *out = NULL;
	bool		has_m;

	*md = NULL;
	*n = 0;
	if (!exg_gs_simple_begin(data, size, &it))
		return EXG_OK;			/* not a plain hole: exg_hole_polyline says why */
	has_m = it.stride == sizeof(double) * (3 + (size_t) it.has_z);
	if (!has_m)
		return EXG_OK;
	zoff = sizeof(double) * (2 + (size_t) it.has_z);
	while (exg_gs_simple_next(&it, &kind, &off, &nv))
	{
		double		first;

		if (kind != EXG_COMP_LINE)
			break;
		if (m + nv > cap)
		{
			double	   *grown;

			cap = 2 * (m + nv);
			if ((grown = realloc(out, sizeof(double) * cap)) == NULL)
			{
				free(out);
				return exg_fail(err, EXG_ERR_NOMEM, "out of memory reading a hole");
			}
			out = grown;
		}
		memcpy(&first, data + off + zoff, sizeof(double));
		k = 0;
		/* a later part starts at the vertex the previous one ended at, kept
		 * once by exg_hole_polyline: its measure must be the same */
		if (m > 0)
		{
			if (first != out[m - 1])
			{
				exg_fail(err, EXG_ERR_ARGUMENT,
						 "the hole's M (measured depth) jumps from %.17g to %.17g where two of its parts join",
						 out[m - 1], first);
				free(out);
				return EXG_ERR_ARGUMENT;
			}
			k = 1;
		}
		for (; k < nv; k++)
			memcpy(&out[m++], data + off + (size_t) k * it.stride + zoff, sizeof(double));
	}
	if (!it.ok)
	{
		free(out);
		return EXG_OK;			/* not a plain hole: no measures */
	}
	*md = out;
	*n = m;
	return EXG_OK;
}
