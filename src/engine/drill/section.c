/*
 * section.c — surfaces and holes cut by a plane given by three points.
 *
 * A plane through three input points makes every side test an orient3d of
 * input doubles, so the decisions (which faces are cut, which vertices lie
 * in the plane) are exact with the engine's filtered predicates. A plane
 * given by a point and a normal would need the normal's rounding first.
 */
#include "section.h"

#include <gmp.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "cancel.h"
#include "drill_rational.h"
#include "predicates.h"

typedef struct dbuf
{
	double	   *v;
	size_t		n;				/* doubles used */
	size_t		cap;
} dbuf;

static bool
dbuf_push(dbuf *b, const double *x, size_t k)
{
	if (b->n + k > b->cap)
	{
		size_t		cap = b->cap ? 2 * b->cap : 96;
		double	   *v;

		while (cap < b->n + k)
			cap *= 2;
		v = realloc(b->v, cap * sizeof(double));
		if (v == NULL)
			return false;
		b->v = v;
		b->cap = cap;
	}
	memcpy(b->v + b->n, x, k * sizeof(double));
	b->n += k;
	return true;
}

static int
cmp3(const double *a, const double *b)
{
	int			k;

	for (k = 0; k < 3; k++)
		if (a[k] != b[k])
			return a[k] < b[k] ? -1 : 1;
	return 0;
}

static int
cmp_pt(const void *x, const void *y)
{
	return cmp3(x, y);
}

static int
cmp_seg(const void *x, const void *y)
{
	int			c = cmp3(x, y);

	return c ? c : cmp3((const double *) x + 3, (const double *) y + 3);
}

/* A segment with its ends in lexicographic order; false if they are one point. */
static bool
push_seg(dbuf *b, const double *p, const double *q)
{
	double		s[6];
	int			c = cmp3(p, q);

	if (c == 0)
		return true;
	if (c > 0)
	{
		const double *t = p;

		p = q;
		q = t;
	}
	memcpy(s, p, 3 * sizeof(double));
	memcpy(s + 3, q, 3 * sizeof(double));
	return dbuf_push(b, s, 6);
}

/* Where edge uv, its ends strictly on opposite sides, crosses the plane. */
static void
crossing_point(const double *pl, const double *u, const double *v, double out[3])
{
	mpq_t		du,
				dv,
				t;

	mpq_inits(du, dv, t, NULL);
	exg_q_orient3d(du, pl, pl + 3, pl + 6, u);
	exg_q_orient3d(dv, pl, pl + 3, pl + 6, v);
	mpq_sub(dv, du, dv);
	mpq_div(t, du, dv);			/* O(u) / (O(u) - O(v)) in (0, 1) */
	exg_q_point_on_segment(out, u, v, t);
	mpq_clears(du, dv, t, NULL);
}

void
exg_section_free(exg_section *s)
{
	free(s->seg);
	free(s->pts);
	memset(s, 0, sizeof(*s));
}

exg_status
exg_section_cut(exg_prepared *g, const double plane[9], exg_section *out, exg_error *err)
{
	const exg_view *v;
	const exg_prims *pr;
	exg_status	st;
	dbuf		segs = {NULL, 0, 0},
				pts = {NULL, 0, 0},
				flat = {NULL, 0, 0};	/* edges of faces in the plane */
	size_t		i,
				k,
				n;
	bool		ok = true;
	double		o[3] = {0, 0, 0};

	memset(out, 0, sizeof(*out));
	{
		/* collinear iff every coordinate projection of abc is */
		double		a2[2],
					b2[2],
					c2[2];
		int			ax,
					collinear = 1;

		for (ax = 0; ax < 3 && collinear; ax++)
		{
			a2[0] = plane[ax];
			a2[1] = plane[(ax + 1) % 3];
			b2[0] = plane[3 + ax];
			b2[1] = plane[3 + (ax + 1) % 3];
			c2[0] = plane[6 + ax];
			c2[1] = plane[6 + (ax + 1) % 3];
			collinear = exg_orient2d(a2, b2, c2) == 0;
		}
		if (collinear)
			return exg_fail(err, EXG_ERR_ARGUMENT,
							"the three points defining the plane are collinear");
	}
	if ((st = exg_prepared_view3d(g, false, &v, err)) != EXG_OK)
		return st;
	pr = &v->prims;
	for (i = 0; i < pr->nprims && ok; i++)
	{
		const exg_prim *q = &pr->prims[i];
		const double *x[3];
		int			s[3],
					nz = 0,
					npos = 0,
					nneg = 0,
					nv = q->kind + 1;

		if ((i & (EXG_CANCEL_STRIDE - 1)) == 0 && exg_cancel_requested())
		{
			st = exg_fail(err, EXG_ERR_INTERRUPTED, "canceled");
			goto fail;
		}
		for (k = 0; k < (size_t) nv; k++)
		{
			x[k] = &pr->xyz[3 * q->v[k]];
			s[k] = exg_orient3d(plane, plane + 3, plane + 6, x[k]);
			nz += s[k] == 0;
			npos += s[k] > 0;
			nneg += s[k] < 0;
		}
		if (q->kind == EXG_SIMPLEX_POINT)
		{
			if (nz)
				ok = dbuf_push(&pts, x[0], 3);
		}
		else if (q->kind == EXG_SIMPLEX_SEGMENT)
		{
			if (nz == 2)
				ok = push_seg(&segs, x[0], x[1]);
			else if (nz == 1)
				ok = dbuf_push(&pts, s[0] == 0 ? x[0] : x[1], 3);
			else if (npos && nneg)
			{
				crossing_point(plane, x[0], x[1], o);
				ok = dbuf_push(&pts, o, 3);
			}
		}
		else if (nz == 3)
		{
			for (k = 0; k < 3 && ok; k++)
				ok = push_seg(&flat, x[k], x[(k + 1) % 3]);
		}
		else if (nz == 2)
		{
			/* an edge in the plane: the two vertices on it */
			int			z[2],
						nzs = 0;

			for (k = 0; k < 3; k++)
				if (s[k] == 0)
					z[nzs++] = (int) k;
			ok = push_seg(&segs, x[z[0]], x[z[1]]);
		}
		else if (npos && nneg)
		{
			double		e[2][3];
			int			ne = 0;

			for (k = 0; k < 3; k++)
			{
				int			j = (int) (k + 1) % 3;

				if (s[k] == 0)
					memcpy(e[ne++], x[k], sizeof(e[0]));
				else if (s[j] != 0 && s[k] != s[j])
					crossing_point(plane, x[k], x[j], e[ne++]);
			}
			ok = push_seg(&segs, e[0], e[1]);
		}
	}
	if (!ok)
		goto nomem;

	/* the outline of the faces lying in the plane: edges used once */
	qsort(flat.v, flat.n / 6, 6 * sizeof(double), cmp_seg);
	for (i = 0; i < flat.n / 6 && ok; i = k)
	{
		for (k = i + 1; k < flat.n / 6 && cmp_seg(&flat.v[6 * k], &flat.v[6 * i]) == 0; k++)
			;
		if (k == i + 1)
			ok = dbuf_push(&segs, &flat.v[6 * i], 6);
	}
	if (!ok)
		goto nomem;

	/* each segment once */
	qsort(segs.v, segs.n / 6, 6 * sizeof(double), cmp_seg);
	for (i = 0, n = 0; i < segs.n / 6; i++)
		if (n == 0 || cmp_seg(&segs.v[6 * i], &segs.v[6 * (n - 1)]) != 0)
			memmove(&segs.v[6 * n++], &segs.v[6 * i], 6 * sizeof(double));
	segs.n = 6 * n;

	/* each point once, and none at a segment's end */
	qsort(pts.v, pts.n / 3, 3 * sizeof(double), cmp_pt);
	for (i = 0, n = 0; i < pts.n / 3; i++)
	{
		const double *p = &pts.v[3 * i];
		bool		at_end = false;

		if (n > 0 && cmp3(p, &pts.v[3 * (n - 1)]) == 0)
			continue;
		for (k = 0; k < segs.n / 6 && !at_end; k++)
			at_end = cmp3(p, &segs.v[6 * k]) == 0 || cmp3(p, &segs.v[6 * k + 3]) == 0;
		if (!at_end)
			memmove(&pts.v[3 * n++], p, 3 * sizeof(double));
	}
	pts.n = 3 * n;

	free(flat.v);
	out->seg = segs.v;
	out->nseg = segs.n / 6;
	out->pts = pts.v;
	out->npts = pts.n / 3;
	return EXG_OK;

nomem:
	st = exg_fail(err, EXG_ERR_NOMEM, "out of memory for the section");
fail:
	free(segs.v);
	free(pts.v);
	free(flat.v);
	return st;
}

void
exg_section_to_local(exg_section *s, const double a[2], const double b[2])
{
	double		dx = b[0] - a[0],
				dy = b[1] - a[1],
				l = sqrt(dx * dx + dy * dy);
	size_t		i;

	for (i = 0; i < 2 * s->nseg + s->npts; i++)
	{
		double	   *p = i < 2 * s->nseg ? &s->seg[3 * i] : &s->pts[3 * (i - 2 * s->nseg)];
		double		u = ((p[0] - a[0]) * dx + (p[1] - a[1]) * dy) / l;

		p[0] = u;
		p[1] = p[2];
		p[2] = 0;
	}
}
