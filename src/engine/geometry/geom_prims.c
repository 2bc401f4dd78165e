/*
 * geom_prims.c — turning a shape into classified primitives.
 */
#include "geom_prims.h"

#include <stdlib.h>
#include <string.h>

#include "predicates_cpu.h"
#include "triangulate.h"

static exg_status
reserve(exg_prims *p, size_t extra, exg_error *err)
{
	size_t		need = p->nprims + extra;
	size_t		ncap;
	exg_prim   *np;
	double	   *nb;

	if (need <= p->cap)
		return EXG_OK;
	ncap = p->cap ? p->cap : 16;
	while (ncap < need)
		ncap *= 2;
	np = realloc(p->prims, ncap * sizeof(exg_prim));
	if (np == NULL)
		return exg_fail(err, EXG_ERR_NOMEM, "out of memory preparing geometry");
	p->prims = np;
	nb = realloc(p->boxes, ncap * 6 * sizeof(double));
	if (nb == NULL)
		return exg_fail(err, EXG_ERR_NOMEM, "out of memory preparing geometry");
	p->boxes = nb;
	p->cap = ncap;
	return EXG_OK;
}

/*
 * Append a primitive over nv vertices (1, 2 or 3), classified exactly, with
 * its box. Assumes upward rounding (the classification runs the cascade).
 */
static exg_status
push_prim(exg_prims *p, const uint32_t *vi, int nv, int naxes, exg_error *err)
{
	const double *x = p->xyz;
	exg_cpu_simplex sx = {0};
	exg_prim   *pr;
	double	   *box;
	exg_status	st;
	int			t,
				k;

	if ((st = reserve(p, 1, err)) != EXG_OK)
		return st;
	if (nv == 3)
		exg_cpu_classify_triangle(&x[3 * vi[0]], &x[3 * vi[1]], &x[3 * vi[2]], naxes, &sx);
	else
		exg_cpu_classify_segment(&x[3 * vi[0]], &x[3 * vi[nv - 1]], naxes, &sx);

	pr = &p->prims[p->nprims];
	pr->kind = (int8_t) sx.kind;
	pr->k = (int8_t) (sx.kind == EXG_SIMPLEX_TRIANGLE ? sx.k : 0);
	pr->s = (int8_t) sx.s;
	pr->naxes = (int8_t) naxes;
	for (t = 0; t < 3; t++)
		pr->v[t] = (uint32_t) ((sx.v[t] - x) / 3);

	box = &p->boxes[6 * p->nprims];
	for (k = 0; k < 3; k++)
	{
		box[k] = box[3 + k] = x[3 * vi[0] + k];
		for (t = 1; t < nv; t++)
		{
			double		c = x[3 * vi[t] + k];

			box[k] = c < box[k] ? c : box[k];
			box[3 + k] = c > box[3 + k] ? c : box[3 + k];
		}
	}
	if (naxes == 2)
		box[2] = box[5] = 0;	/* the 2D view ignores z */
	p->nprims++;
	return EXG_OK;
}

/* Consecutive-vertex segments of ring r, skipping repeated vertices. */
static exg_status
push_ring_edges(exg_prims *p, const exg_shape *s, size_t r, int naxes, exg_error *err)
{
	size_t		first = s->ring_start[r],
				end = s->ring_start[r + 1],
				v;
	exg_status	st;

	if (end - first == 1)
	{
		uint32_t	vi[1] = {(uint32_t) first};

		return push_prim(p, vi, 1, naxes, err);
	}
	for (v = first; v + 1 < end; v++)
	{
		uint32_t	vi[2] = {(uint32_t) v, (uint32_t) (v + 1)};

		if (v > first && exg_cpu_equal3(&s->xyz[3 * v], &s->xyz[3 * (v + 1)]))
			continue;
		if ((st = push_prim(p, vi, 2, naxes, err)) != EXG_OK)
			return st;
	}
	return EXG_OK;
}

/* Vertices of ring r without its closing duplicate. */
static size_t
ring_open_count(const exg_shape *s, size_t r)
{
	size_t		n = exg_ring_nverts(s, r);

	if (n > 1 && exg_cpu_equal3(exg_vertex(s, s->ring_start[r]),
								exg_vertex(s, s->ring_start[r] + n - 1)))
		n--;
	return n;
}

/* Does ring r have three vertices that are not collinear (in 3D)? */
static bool
ring_spans_area_3d(const exg_shape *s, size_t r)
{
	const double *x = s->xyz;
	size_t		base = s->ring_start[r],
				end = s->ring_start[r + 1],
				b = base,
				t;
	int			sg;

	for (t = base + 1; t < end && b == base; t++)
		if (!exg_cpu_equal3(&x[3 * t], &x[3 * base]))
			b = t;
	if (b == base)
		return false;
	for (t = b + 1; t < end; t++)
		if (exg_cpu_normal_axis(&x[3 * base], &x[3 * b], &x[3 * t], &sg) >= 0)
			return true;
	return false;
}

/*
 * A polygon face in 3D: find a non-collinear vertex triple, check that every
 * vertex lies exactly on its plane, triangulate in the projection that drops
 * the plane normal's non-zero axis, and lift the triangles back.
 */
static exg_status
push_polygon_3d(exg_prims *p, const exg_shape *s, const exg_comp *c,
				exg_nonplanar_policy policy, exg_error *err)
{
	const double *x = s->xyz;
	size_t		r0 = c->first_ring,
				n0 = ring_open_count(s, r0),
				base = s->ring_start[r0];
	size_t		ia = base,
				ib = base,
				ic = base,
				total = 0,
				t,
				r;
	int			k = -1,
				sg = 0;
	double	   *xy = NULL;
	size_t	   *starts = NULL;
	uint32_t   *map = NULL,
			   *tris = NULL;
	size_t		ntris = 0;
	exg_status	st = EXG_OK;

	/* a = first vertex, b = first vertex different from a, c = first off line ab */
	for (t = base; t < base + n0 && ib == base; t++)
		if (!exg_cpu_equal3(&x[3 * t], &x[3 * ia]))
			ib = t;
	if (ib != base)
		for (t = ib + 1; t < base + n0 && k < 0; t++)
		{
			k = exg_cpu_normal_axis(&x[3 * ia], &x[3 * ib], &x[3 * t], &sg);
			ic = t;
		}
	if (k < 0)
	{
		/*
		 * The exterior ring spans no area: the face is its rings' linework,
		 * and (the triangulator's rule) no hole of it may span area.
		 */
		for (r = r0 + 1; r < r0 + c->nrings; r++)
			if (ring_spans_area_3d(s, r))
				return exg_fail(err, EXG_ERR_INVALID,
								"ring %zu of polygon bounds an area but its exterior ring does not",
								r - r0);
		for (r = r0; r < r0 + c->nrings; r++)
			if ((st = push_ring_edges(p, s, r, 3, err)) != EXG_OK)
				return st;
		return EXG_OK;
	}

	for (r = r0; r < r0 + c->nrings; r++)
		total += ring_open_count(s, r);
	xy = malloc(sizeof(double) * 2 * total);
	map = malloc(sizeof(uint32_t) * total);
	starts = malloc(sizeof(size_t) * (c->nrings + 1));
	if (xy == NULL || map == NULL || starts == NULL)
	{
		st = exg_fail(err, EXG_ERR_NOMEM, "out of memory triangulating a face");
		goto done;
	}

	total = 0;
	for (r = r0; r < r0 + c->nrings; r++)
	{
		size_t		n = ring_open_count(s, r);

		starts[r - r0] = total;
		for (t = s->ring_start[r]; t < s->ring_start[r] + n; t++)
		{
			if (exg_orient3d_ru(&x[3 * ia], &x[3 * ib], &x[3 * ic], &x[3 * t]) != 0 &&
				policy == EXG_NONPLANAR_ERROR)
			{
				st = exg_fail(err, EXG_ERR_NONPLANAR,
							  "polygon face is not planar: vertex (%.17g %.17g %.17g) is off the plane of its first vertices",
							  x[3 * t], x[3 * t + 1], x[3 * t + 2]);
				goto done;
			}
			xy[2 * total] = x[3 * t + (k + 1) % 3];
			xy[2 * total + 1] = x[3 * t + (k + 2) % 3];
			map[total++] = (uint32_t) t;
		}
	}
	starts[c->nrings] = total;

	st = exg_triangulate_polygon(xy, total, starts, c->nrings, &tris, &ntris, err);
	if (st != EXG_OK)
		goto done;
	if (ntris == 0)
	{
		for (r = r0; r < r0 + c->nrings && st == EXG_OK; r++)
			st = push_ring_edges(p, s, r, 3, err);
		goto done;
	}
	for (t = 0; t < ntris && st == EXG_OK; t++)
	{
		uint32_t	vi[3] = {map[tris[3 * t]], map[tris[3 * t + 1]], map[tris[3 * t + 2]]};

		st = push_prim(p, vi, 3, 3, err);
	}

done:
	free(xy);
	free(map);
	free(starts);
	free(tris);
	return st;
}

exg_status
exg_prims_add_face_3d(exg_prims *p, const exg_shape *s, size_t ci,
					  exg_nonplanar_policy policy, exg_error *err)
{
	p->xyz = s->xyz;
	return push_polygon_3d(p, s, &s->comps[ci], policy, err);
}

static void
total_box(exg_prims *p)
{
	size_t		t;
	int			k;

	for (k = 0; k < 6; k++)
		p->box[k] = 0;
	for (t = 0; t < p->nprims; t++)
		for (k = 0; k < 3; k++)
		{
			const double *b = &p->boxes[6 * t];

			if (t == 0 || b[k] < p->box[k])
				p->box[k] = b[k];
			if (t == 0 || b[3 + k] > p->box[3 + k])
				p->box[3 + k] = b[3 + k];
		}
}

/* A view built: its total box on success, nothing left behind on failure. */
static exg_status
finish(exg_prims *out, exg_status st)
{
	if (st != EXG_OK)
		exg_prims_free(out);
	else
		total_box(out);
	return st;
}

exg_status
exg_prims_build_3d(const exg_shape *s, exg_nonplanar_policy policy, exg_prims *out,
				   exg_error *err)
{
	exg_round_state saved = exg_round_up_enter();
	exg_status	st = EXG_OK;
	size_t		ci;

	size_t	   *ends = malloc(sizeof(size_t) * (s->ncomps + 1));

	memset(out, 0, sizeof(*out));
	out->xyz = s->xyz;
	if (ends == NULL)
		st = exg_fail(err, EXG_ERR_NOMEM, "out of memory building primitives");
	/* a primitive per component at least (a TIN: one per triangle), sized
	 * once rather than doubled from 16 (reallocs were 12% of reading) */
	else if (s->ncomps > 0)
		st = reserve(out, s->ncomps, err);
	for (ci = 0; ci < s->ncomps && st == EXG_OK; ci++)
	{
		const exg_comp *c = &s->comps[ci];
		size_t		first = s->ring_start[c->first_ring];

		if (ci > 0)
			ends[ci - 1] = out->nprims;
		switch (c->kind)
		{
			case EXG_COMP_POINT:
			case EXG_COMP_LINE:
				st = push_ring_edges(out, s, c->first_ring, 3, err);
				break;
			case EXG_COMP_TRIANGLE:
				if (exg_ring_nverts(s, c->first_ring) < 3)
					st = push_ring_edges(out, s, c->first_ring, 3, err);
				else
				{
					uint32_t	vi[3] = {(uint32_t) first, (uint32_t) first + 1,
					(uint32_t) first + 2};

					st = push_prim(out, vi, 3, 3, err);
				}
				break;
			case EXG_COMP_POLYGON:
				st = push_polygon_3d(out, s, c, policy, err);
				break;
		}
	}
	exg_round_restore(saved);
	/* the face of each primitive, for validity reports */
	if (st == EXG_OK && (out->comp = malloc(sizeof(uint32_t) * (out->nprims + 1))) == NULL)
		st = exg_fail(err, EXG_ERR_NOMEM, "out of memory building primitives");
	if (st == EXG_OK)
	{
		size_t		t = 0;

		ends[s->ncomps ? s->ncomps - 1 : 0] = out->nprims;
		for (ci = 0; ci < s->ncomps; ci++)
			for (; t < ends[ci]; t++)
				out->comp[t] = (uint32_t) ci;
	}
	free(ends);
	return finish(out, st);
}

exg_status
exg_prims_build_2d(const exg_shape *s, exg_prims *out, exg_error *err)
{
	exg_round_state saved = exg_round_up_enter();
	exg_status	st = EXG_OK;
	size_t		r;

	memset(out, 0, sizeof(*out));
	out->xyz = s->xyz;
	/* Linework and every ring edge; the areas themselves are in the shape. */
	for (r = 0; r < s->nrings && st == EXG_OK; r++)
		st = push_ring_edges(out, s, r, 2, err);
	exg_round_restore(saved);
	return finish(out, st);
}

/* A polygon in the xy plane: its exact triangles, nothing when it is flat. */
static exg_status
push_polygon_areas_2d(exg_prims *p, const exg_shape *s, const exg_comp *c, exg_error *err)
{
	size_t		total = 0,
				k = 0,
				r,
				t,
				ntris = 0;
	double	   *xy;
	size_t	   *starts;
	uint32_t   *map,
			   *tris = NULL;
	exg_status	st;

	for (r = c->first_ring; r < c->first_ring + c->nrings; r++)
		total += ring_open_count(s, r);
	xy = malloc(sizeof(double) * 2 * (total + 1));
	map = malloc(sizeof(uint32_t) * (total + 1));
	starts = malloc(sizeof(size_t) * (c->nrings + 1));
	if (xy == NULL || map == NULL || starts == NULL)
	{
		st = exg_fail(err, EXG_ERR_NOMEM, "out of memory triangulating a polygon");
		goto done;
	}
	for (r = c->first_ring; r < c->first_ring + c->nrings; r++)
	{
		starts[r - c->first_ring] = k;
		for (t = s->ring_start[r]; t < s->ring_start[r] + ring_open_count(s, r); t++)
		{
			xy[2 * k] = s->xyz[3 * t];
			xy[2 * k + 1] = s->xyz[3 * t + 1];
			map[k++] = (uint32_t) t;
		}
	}
	starts[c->nrings] = k;
	st = exg_triangulate_polygon(xy, k, starts, c->nrings, &tris, &ntris, err);
	for (t = 0; t < ntris && st == EXG_OK; t++)
	{
		uint32_t	vi[3] = {map[tris[3 * t]], map[tris[3 * t + 1]], map[tris[3 * t + 2]]};

		st = push_prim(p, vi, 3, 2, err);
	}
done:
	free(xy);
	free(map);
	free(starts);
	free(tris);
	return st;
}

exg_status
exg_prims_build_areas_2d(const exg_shape *s, exg_prims *out, exg_error *err)
{
	exg_round_state saved = exg_round_up_enter();
	exg_status	st = EXG_OK;
	size_t		ci;

	memset(out, 0, sizeof(*out));
	out->xyz = s->xyz;
	for (ci = 0; ci < s->ncomps && st == EXG_OK; ci++)
	{
		const exg_comp *c = &s->comps[ci];
		size_t		first = s->ring_start[c->first_ring];

		if (c->kind == EXG_COMP_POLYGON)
			st = push_polygon_areas_2d(out, s, c, err);
		else if (c->kind == EXG_COMP_TRIANGLE && exg_ring_nverts(s, c->first_ring) >= 3)
		{
			uint32_t	vi[3] = {(uint32_t) first, (uint32_t) first + 1, (uint32_t) first + 2};

			st = push_prim(out, vi, 3, 2, err);
		}
	}
	exg_round_restore(saved);
	return finish(out, st);
}

void
exg_prims_free(exg_prims *p)
{
	free(p->prims);
	free(p->boxes);
	free(p->comp);
	memset(p, 0, sizeof(*p));
}
