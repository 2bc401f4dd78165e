/*
 * crossings.c — a hole against an open surface, exactly.
 *
 * 1. Each hole segment pq is tested against the faces its box meets
 *    (exg_segment_triangle_3d: interval filter, then GMP). Where they meet,
 *    the meeting is a closed interval [t0, t1] of the parameter t of
 *    p + t (q - p), in rationals: t = O(p) / (O(p) - O(q)) for a segment
 *    crossing the face's plane (O the exact orient3d value), or the clip of
 *    [0, 1] by the face's three edge half-planes in its projection for a
 *    segment lying in the plane.
 * 2. Positions along the hole are (segment, t) with t = 1 written as the
 *    next segment's t = 0, so one point of the hole has one position.
 *    Sorted, the intervals' union falls into connected pieces: a piece of
 *    positive length is 'along'; a point is a touch or goes through.
 * 3. Through or touch: the hole moved by d = (e, e^2, e^3) meets each face
 *    of the point at most once, transversally (see perturbed_cross); the
 *    parity of those crossings says whether the hole changed sides. The
 *    signs of the moved predicates are polynomials in e whose coefficients
 *    are exact rationals: the first non-zero one decides.
 */
#include "crossings.h"

#include <gmp.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "cancel.h"
#include "drill_rational.h"
#include "predicates.h"

typedef struct piece
{
	size_t		seg0;			/* start position (seg0, t0) */
	size_t		seg1;			/* end position (seg1, t1) */
	mpq_t		t0;
	mpq_t		t1;
	uint32_t	prim;			/* triangle of the 3D view */
	size_t		seg;			/* the hole segment it came from */
} piece;

typedef struct pieces
{
	piece	   *p;
	size_t		n;
	size_t		cap;
} pieces;

typedef struct cand
{
	uint32_t   *ids;
	size_t		n;
	size_t		cap;
	bool		nomem;
} cand;

static int
collect(void *ctx, uint32_t prim)
{
	cand	   *c = ctx;

	if (c->n == c->cap)
	{
		size_t		cap = c->cap ? 2 * c->cap : 64;
		uint32_t   *ids = realloc(c->ids, cap * sizeof(uint32_t));

		if (ids == NULL)
		{
			c->nomem = true;
			return 1;
		}
		c->ids = ids;
		c->cap = cap;
	}
	c->ids[c->n++] = prim;
	return 0;
}

static piece *
pieces_add(pieces *ps)
{
	piece	   *p;

	if (ps->n == ps->cap)
	{
		size_t		cap = ps->cap ? 2 * ps->cap : 16;
		piece	   *np = realloc(ps->p, cap * sizeof(piece));

		if (np == NULL)
			return NULL;
		ps->p = np;
		ps->cap = cap;
	}
	p = &ps->p[ps->n++];
	mpq_inits(p->t0, p->t1, NULL);
	return p;
}

static void
pieces_free(pieces *ps)
{
	size_t		k;

	for (k = 0; k < ps->n; k++)
		mpq_clears(ps->p[k].t0, ps->p[k].t1, NULL);
	free(ps->p);
}

/* Exact 2D orientation of a, b, c on axes (i, j), as a rational. */
static void
q_orient2d(mpq_t out, const double *a, const double *b, const double *c, int i, int j,
		   mpq_t s1, mpq_t s2)
{
	mpq_t		x;

	mpq_init(x);
	mpq_set_d(x, a[i]);
	mpq_set_d(s1, b[i]);
	mpq_sub(s1, s1, x);
	mpq_set_d(s2, c[j]);
	mpq_set_d(x, a[j]);
	mpq_sub(s2, s2, x);
	mpq_mul(out, s1, s2);
	mpq_set_d(s1, b[j]);
	mpq_sub(s1, s1, x);
	mpq_set_d(x, a[i]);
	mpq_set_d(s2, c[i]);
	mpq_sub(s2, s2, x);
	mpq_mul(s1, s1, s2);
	mpq_sub(out, out, s1);
	mpq_clear(x);
}

/*
 * [t0, t1]: where segment pq meets triangle abc, known to meet it (closed
 * sets). Not coplanar: the one point where pq crosses the plane. Coplanar:
 * drop the axis k of the normal's largest component (the projection keeps
 * the triangle's area), and clip [0, 1] by s * orient2d(e0, e1, x(t)) >= 0
 * over the three edges, s the triangle's orientation in that projection;
 * orient2d(e0, e1, x(t)) = F(p) + t (F(q) - F(p)) is linear in t.
 */
static void
meet_interval(const double *p, const double *q, const double *a, const double *b,
			  const double *c, mpq_t t0, mpq_t t1)
{
	mpq_t		op,
				oq,
				s1,
				s2;

	mpq_inits(op, oq, s1, s2, NULL);
	exg_q_orient3d(op, a, b, c, p);
	exg_q_orient3d(oq, a, b, c, q);
	if (mpq_sgn(op) != 0 || mpq_sgn(oq) != 0)
	{
		mpq_sub(s1, op, oq);
		mpq_div(t0, op, s1);
		mpq_set(t1, t0);
	}
	else
	{
		mpq_t		n[3],
					fp,
					fq;
		const double *e[4] = {a, b, c, a};
		int			k = 0,
					i,
					j,
					s,
					ed;

		mpq_inits(n[0], n[1], n[2], fp, fq, NULL);
		for (i = 0; i < 3; i++)
			q_orient2d(n[i], a, b, c, (i + 1) % 3, (i + 2) % 3, s1, s2);
		for (i = 1; i < 3; i++)
		{
			mpq_abs(s1, n[i]);
			mpq_abs(s2, n[k]);
			if (mpq_cmp(s1, s2) > 0)
				k = i;
		}
		i = (k + 1) % 3;
		j = (k + 2) % 3;
		s = mpq_sgn(n[k]);
		mpq_set_ui(t0, 0, 1);
		mpq_set_ui(t1, 1, 1);
		for (ed = 0; ed < 3; ed++)
		{
			/* s (F(p) + t (F(q) - F(p))) >= 0 */
			q_orient2d(fp, e[ed], e[ed + 1], p, i, j, s1, s2);
			q_orient2d(fq, e[ed], e[ed + 1], q, i, j, s1, s2);
			mpq_sub(fq, fq, fp);
			if (s < 0)
			{
				mpq_neg(fp, fp);
				mpq_neg(fq, fq);
			}
			if (mpq_sgn(fq) == 0)
				continue;		/* constant along pq: >= 0, since they meet */
			mpq_neg(s1, fp);
			mpq_div(s1, s1, fq);	/* the t where it changes sign */
			if (mpq_sgn(fq) > 0 ? mpq_cmp(s1, t0) > 0 : mpq_cmp(s1, t1) < 0)
				mpq_set(mpq_sgn(fq) > 0 ? t0 : t1, s1);
		}
		mpq_clears(n[0], n[1], n[2], fp, fq, NULL);
	}
	mpq_clears(op, oq, s1, s2, NULL);
}

/*
 * The sign of L . d for d = (e, e^2, e^3), e -> 0+, after a zero constant
 * term: the first non-zero component of L.
 */
static int
sos_sign(mpq_t l[3])
{
	int			k;

	for (k = 0; k < 3; k++)
		if (mpq_sgn(l[k]) != 0)
			return mpq_sgn(l[k]);
	return 0;
}

/* l = u x v, u and v given as b - a and d - c of doubles. */
static void
q_cross_diff(mpq_t l[3], const double *a, const double *b, const double *c, const double *d)
{
	mpq_t		u[3],
				v[3],
				x;
	int			k;

	mpq_init(x);
	for (k = 0; k < 3; k++)
	{
		mpq_inits(u[k], v[k], NULL);
		mpq_set_d(x, a[k]);
		mpq_set_d(u[k], b[k]);
		mpq_sub(u[k], u[k], x);
		mpq_set_d(x, c[k]);
		mpq_set_d(v[k], d[k]);
		mpq_sub(v[k], v[k], x);
	}
	for (k = 0; k < 3; k++)
	{
		int			i = (k + 1) % 3,
					j = (k + 2) % 3;

		mpq_mul(l[k], u[i], v[j]);
		mpq_mul(x, u[j], v[i]);
		mpq_sub(l[k], l[k], x);
	}
	for (k = 0; k < 3; k++)
		mpq_clears(u[k], v[k], NULL);
	mpq_clear(x);
}

/*
 * orient3d(a, b, c, p + d): n . (p - a) + n . d with n = (b - a) x (c - a).
 */
static int
sos_plane(const double *a, const double *b, const double *c, const double *p)
{
	mpq_t		o,
				l[3];
	int			s;

	mpq_inits(o, l[0], l[1], l[2], NULL);
	exg_q_orient3d(o, a, b, c, p);
	s = mpq_sgn(o);
	if (s == 0)
	{
		q_cross_diff(l, a, b, a, c);
		s = sos_sign(l);
	}
	mpq_clears(o, l[0], l[1], l[2], NULL);
	return s;
}

/*
 * orient3d(p + d, q + d, e0, e1) = D0 + ((q - p) x (e1 - e0)) . d (the
 * terms in d twice cancel in the determinant).
 */
static int
sos_edge(const double *p, const double *q, const double *e0, const double *e1)
{
	mpq_t		o,
				l[3];
	int			s;

	mpq_inits(o, l[0], l[1], l[2], NULL);
	exg_q_orient3d(o, p, q, e0, e1);
	s = mpq_sgn(o);
	if (s == 0)
	{
		q_cross_diff(l, p, q, e0, e1);
		s = sos_sign(l);
	}
	mpq_clears(o, l[0], l[1], l[2], NULL);
	return s;
}

/*
 * Does the moved segment p+d, q+d cross triangle abc? Its ends are off the
 * plane (n != 0 for a face with area), so it crosses iff they are on
 * opposite sides and the three edge orientations agree. An edge sign of 0
 * needs pq parallel to that edge, hence to the plane: the ends' signs are
 * then equal and we have already answered no.
 */
static bool
perturbed_cross(const double *p, const double *q, const double *a, const double *b,
				const double *c)
{
	int			sp = sos_plane(a, b, c, p),
				sq = sos_plane(a, b, c, q),
				e1,
				e2,
				e3;

	if (sp == sq || sp == 0 || sq == 0)
		return false;
	e1 = sos_edge(p, q, a, b);
	e2 = sos_edge(p, q, b, c);
	e3 = sos_edge(p, q, c, a);
	return e1 != 0 && e1 == e2 && e2 == e3;
}

/* ---- the surface's rim: edges used by one face ---- */

typedef struct edge_count
{
	const exg_prims *pr;
	const double *a;
	const double *b;
	size_t		n;
} edge_count;

static bool
same_xyz(const double *p, const double *q)
{
	return p[0] == q[0] && p[1] == q[1] && p[2] == q[2];
}

static int
count_edge_use(void *ctx, uint32_t prim)
{
	edge_count *ec = ctx;
	const exg_prim *q = &ec->pr->prims[prim];
	bool		has_a = false,
				has_b = false;
	int			k;

	if (q->kind != EXG_SIMPLEX_TRIANGLE)
		return 0;
	for (k = 0; k < 3; k++)
	{
		has_a |= same_xyz(&ec->pr->xyz[3 * q->v[k]], ec->a);
		has_b |= same_xyz(&ec->pr->xyz[3 * q->v[k]], ec->b);
	}
	ec->n += has_a && has_b;
	return 0;
}

/*
 * How many faces (triangles of the view) have edge ab, found through the
 * index around the edge's box: a rim test costs a local query, not a table
 * of every edge of a big surface per hole.
 */
static size_t
edge_use(const exg_view *v, const double *a, const double *b)
{
	edge_count	ec = {&v->prims, a, b, 0};
	double		box[6];
	int			c;

	for (c = 0; c < 3; c++)
	{
		box[c] = a[c] < b[c] ? a[c] : b[c];
		box[3 + c] = a[c] < b[c] ? b[c] : a[c];
	}
	exg_view_query(v, box, count_edge_use, &ec);
	return ec.n;
}

/* Is the rational point x on the closed segment ab? */
static bool
q_on_segment(mpq_t x[3], const double *a, const double *b)
{
	mpq_t		u[3],
				w[3],
				s,
				t;
	bool		on = true;
	int			k;

	mpq_inits(s, t, NULL);
	for (k = 0; k < 3; k++)
	{
		mpq_inits(u[k], w[k], NULL);
		mpq_set_d(s, a[k]);
		mpq_set_d(u[k], b[k]);
		mpq_sub(u[k], u[k], s);
		mpq_sub(w[k], x[k], s);
	}
	for (k = 0; k < 3 && on; k++)
	{
		int			i = (k + 1) % 3,
					j = (k + 2) % 3;

		mpq_mul(s, u[i], w[j]);
		mpq_mul(t, u[j], w[i]);
		on = mpq_equal(s, t);
	}
	if (on)
	{
		/* collinear: 0 <= w . u <= u . u */
		mpq_t		wu,
					uu;

		mpq_inits(wu, uu, NULL);
		for (k = 0; k < 3; k++)
		{
			mpq_mul(s, w[k], u[k]);
			mpq_add(wu, wu, s);
			mpq_mul(s, u[k], u[k]);
			mpq_add(uu, uu, s);
		}
		on = mpq_sgn(wu) >= 0 && mpq_cmp(wu, uu) <= 0;
		mpq_clears(wu, uu, NULL);
	}
	for (k = 0; k < 3; k++)
		mpq_clears(u[k], w[k], NULL);
	mpq_clears(s, t, NULL);
	return on;
}

/* ---- positions along the hole ---- */

static int
cmp_pos(size_t sa, const mpq_t ta, size_t sb, const mpq_t tb)
{
	if (sa != sb)
		return sa < sb ? -1 : 1;
	return mpq_cmp(ta, tb);
}

static int
cmp_piece(const void *x, const void *y)
{
	const piece *a = x,
			   *b = y;
	int			c = cmp_pos(a->seg0, a->t0, b->seg0, b->t0);

	if (c)
		return c;
	return a->prim < b->prim ? -1 : a->prim > b->prim;
}

/* (seg, 1) is (seg + 1, 0) when there is a next segment. */
static void
normalize(size_t *seg, mpq_t t, size_t nseg)
{
	if (*seg + 1 < nseg && mpq_cmp_ui(t, 1, 1) == 0)
	{
		(*seg)++;
		mpq_set_ui(t, 0, 1);
	}
}

typedef struct depth_ctx
{
	const double *xyz;
	const double *m;
	const double *cum;			/* depth of each vertex along the polyline */
	const double *len;
} depth_ctx;

static double
depth_at(const depth_ctx *d, size_t seg, const mpq_t t)
{
	if (d->m)
	{
		mpq_t		v;
		double		r;

		if (mpq_sgn(t) == 0)
			return d->m[seg];
		mpq_init(v);
		exg_q_lerp(v, d->m[seg], d->m[seg + 1], t);
		r = exg_mpq_nearest_double(v);
		mpq_clear(v);
		return r;
	}
	/* as the intercepts: the length before, plus t rounded times the segment's */
	return d->cum[seg] + exg_mpq_nearest_double(t) * d->len[seg];
}

static bool
out_add(exg_crossing **out, size_t *n, size_t *cap, const exg_crossing *c)
{
	if (*n == *cap)
	{
		size_t		nc = *cap ? 2 * *cap : 8;
		exg_crossing *o = realloc(*out, nc * sizeof(exg_crossing));

		if (o == NULL)
			return false;
		*out = o;
		*cap = nc;
	}
	(*out)[(*n)++] = *c;
	return true;
}

/* Kind of the one-point piece made of ps[first .. last]. */
static void
point_kind(const exg_view *v, const double *xyz, size_t nseg, pieces *ps, size_t first,
		   size_t last, uint8_t *kind)
{
	const exg_prims *pr = &v->prims;
	const piece *p0 = &ps->p[first];
	mpq_t		x[3];
	bool		on_rim = false;
	size_t		k;
	int			c,
				parity = 0;

	if ((p0->seg0 == 0 && mpq_sgn(p0->t0) == 0) ||
		(p0->seg0 == nseg - 1 && mpq_cmp_ui(p0->t0, 1, 1) == 0))
	{
		*kind = EXG_CROSSING_TOUCH;	/* the hole starts or ends on the surface */
		return;
	}
	/* the point, exactly */
	for (c = 0; c < 3; c++)
	{
		mpq_init(x[c]);
		exg_q_lerp(x[c], xyz[3 * p0->seg0 + c], xyz[3 * (p0->seg0 + 1) + c], p0->t0);
	}
	for (k = first; k <= last && !on_rim; k++)
	{
		const exg_prim *q = &pr->prims[ps->p[k].prim];
		int			e;

		for (e = 0; e < 3 && !on_rim; e++)
		{
			const double *a = &pr->xyz[3 * q->v[e]],
					   *b = &pr->xyz[3 * q->v[(e + 1) % 3]];

			on_rim = q_on_segment(x, a, b) && edge_use(v, a, b) == 1;
		}
	}
	for (c = 0; c < 3; c++)
		mpq_clear(x[c]);
	if (on_rim)
	{
		*kind = EXG_CROSSING_TOUCH;	/* near its rim the surface has no two sides */
		return;
	}
	for (k = first; k <= last; k++)
	{
		const exg_prim *q = &pr->prims[ps->p[k].prim];
		size_t		s = ps->p[k].seg;

		if (perturbed_cross(&xyz[3 * s], &xyz[3 * (s + 1)], &pr->xyz[3 * q->v[0]],
							&pr->xyz[3 * q->v[1]], &pr->xyz[3 * q->v[2]]))
			parity ^= 1;
	}
	*kind = parity ? EXG_CROSSING_THROUGH : EXG_CROSSING_TOUCH;
}

exg_status
exg_crossings(exg_prepared *g, const double *xyz, const double *m, size_t n,
			  exg_crossing **out, size_t *nout, exg_error *err)
{
	const exg_view *v;
	const exg_prims *pr;
	exg_status	st;
	pieces		ps = {NULL, 0, 0};
	cand		cd = {NULL, 0, 0, false};
	double	   *cum = NULL,
			   *len = NULL;
	size_t		nseg = n > 0 ? n - 1 : 0,
				i,
				k,
				cap = 0;
	depth_ctx	dc;

	*out = NULL;
	*nout = 0;
	if ((st = exg_prepared_view3d(g, true, &v, err)) != EXG_OK)
		return st;
	pr = &v->prims;
	cum = malloc((n + 1) * sizeof(double));
	len = malloc((n + 1) * sizeof(double));
	if (cum == NULL || len == NULL)
	{
		st = exg_fail(err, EXG_ERR_NOMEM, "out of memory for a hole of %zu vertices", n);
		goto done;
	}
	cum[0] = 0;
	for (i = 0; i < nseg; i++)
	{
		const double *p = &xyz[3 * i],
				   *q = &xyz[3 * (i + 1)];

		len[i] = sqrt((q[0] - p[0]) * (q[0] - p[0]) + (q[1] - p[1]) * (q[1] - p[1]) +
					  (q[2] - p[2]) * (q[2] - p[2]));
		cum[i + 1] = cum[i] + len[i];
	}

	/* 1. every (segment, face) meeting, as a closed parameter interval */
	for (i = 0; i < nseg; i++)
	{
		const double *p = &xyz[3 * i],
				   *q = &xyz[3 * (i + 1)];
		double		box[6];
		int			c;

		if (exg_cancel_requested())
		{
			st = exg_fail(err, EXG_ERR_INTERRUPTED, "canceled");
			goto done;
		}
		for (c = 0; c < 3; c++)
		{
			box[c] = p[c] < q[c] ? p[c] : q[c];
			box[3 + c] = p[c] < q[c] ? q[c] : p[c];
		}
		cd.n = 0;
		exg_view_query(v, box, collect, &cd);
		if (cd.nomem)
		{
			st = exg_fail(err, EXG_ERR_NOMEM, "out of memory for candidate faces");
			goto done;
		}
		for (k = 0; k < cd.n; k++)
		{
			const exg_prim *t = &pr->prims[cd.ids[k]];
			const double *a = &pr->xyz[3 * t->v[0]],
					   *b = &pr->xyz[3 * t->v[1]],
					   *c3 = &pr->xyz[3 * t->v[2]];
			piece	   *pc;

			if (t->kind != EXG_SIMPLEX_TRIANGLE || !exg_segment_triangle_3d(p, q, a, b, c3))
				continue;
			if ((pc = pieces_add(&ps)) == NULL)
			{
				st = exg_fail(err, EXG_ERR_NOMEM, "out of memory for crossings");
				goto done;
			}
			meet_interval(p, q, a, b, c3, pc->t0, pc->t1);
			pc->seg = pc->seg0 = pc->seg1 = i;
			pc->prim = cd.ids[k];
			normalize(&pc->seg0, pc->t0, nseg);
			normalize(&pc->seg1, pc->t1, nseg);
		}
	}

	/* 2. connected pieces of the union, in order */
	qsort(ps.p, ps.n, sizeof(piece), cmp_piece);
	dc.xyz = xyz;
	dc.m = m;
	dc.cum = cum;
	dc.len = len;
	for (i = 0; i < ps.n;)
	{
		size_t		first = i,
					last = i,
					endseg = ps.p[i].seg1;
		mpq_t		endt;
		exg_crossing cr;

		if (((i + 1) & (EXG_CANCEL_STRIDE - 1)) == 0 && exg_cancel_requested())
		{
			st = exg_fail(err, EXG_ERR_INTERRUPTED, "canceled");
			goto done;
		}
		mpq_init(endt);
		mpq_set(endt, ps.p[i].t1);
		cr.face = pr->comp[ps.p[i].prim] + 1;
		for (k = i + 1; k < ps.n &&
			 cmp_pos(ps.p[k].seg0, ps.p[k].t0, endseg, endt) <= 0; k++)
		{
			last = k;
			if (cmp_pos(ps.p[k].seg0, ps.p[k].t0, ps.p[first].seg0, ps.p[first].t0) == 0 &&
				pr->comp[ps.p[k].prim] + 1 < cr.face)
				cr.face = pr->comp[ps.p[k].prim] + 1;
			if (cmp_pos(ps.p[k].seg1, ps.p[k].t1, endseg, endt) > 0)
			{
				endseg = ps.p[k].seg1;
				mpq_set(endt, ps.p[k].t1);
			}
		}
		cr.from = depth_at(&dc, ps.p[first].seg0, ps.p[first].t0);
		cr.to = depth_at(&dc, endseg, endt);
		exg_q_point_on_segment(cr.point, &xyz[3 * ps.p[first].seg0],
							   &xyz[3 * (ps.p[first].seg0 + 1)],
							   ps.p[first].t0);
		if (cmp_pos(ps.p[first].seg0, ps.p[first].t0, endseg, endt) < 0)
			cr.kind = EXG_CROSSING_ALONG;
		else
			point_kind(v, xyz, nseg, &ps, first, last, &cr.kind);
		mpq_clear(endt);
		if (!out_add(out, nout, &cap, &cr))
		{
			st = exg_fail(err, EXG_ERR_NOMEM, "out of memory for crossings");
			goto done;
		}
		i = last + 1;
	}
	st = EXG_OK;
done:
	if (st != EXG_OK)
	{
		free(*out);
		*out = NULL;
		*nout = 0;
	}
	pieces_free(&ps);
	free(cd.ids);
	free(cum);
	free(len);
	return st;
}
