/*
 * geom_shape.c — building and freeing parsed geometries.
 */
#include "geom_shape.h"

#include <math.h>
#include <stdlib.h>

void
exg_shape_init(exg_shape *s)
{
	*s = (exg_shape) {0};
}

void
exg_shape_free(exg_shape *s)
{
	free(s->xyz);
	free(s->ring_start);
	free(s->comps);
	exg_shape_init(s);
}

void
exg_shape_clear(exg_shape *s)
{
	s->srid = 0;
	s->geom_type = 0;
	s->has_z = s->has_m = s->is_solid = false;
	s->nverts = s->nrings = s->ncomps = 0;
}

bool
exg_shape_extent(const exg_shape *s, double lo[3], double hi[3])
{
	if (s->nverts == 0)
		return false;
	for (int k = 0; k < 3; k++)
	{
		lo[k] = hi[k] = s->xyz[k];
		for (size_t v = 1; v < s->nverts; v++)
		{
			double		c = s->xyz[3 * v + k];

			lo[k] = c < lo[k] ? c : lo[k];
			hi[k] = c > hi[k] ? c : hi[k];
		}
	}
	return true;
}

/* Grow *buf to hold at least need elements of size elem; doubling amortizes. */
static bool
grow(void **buf, size_t *cap, size_t need, size_t elem)
{
	size_t		ncap;
	void	   *nbuf;

	if (need <= *cap)
		return true;
	ncap = *cap ? *cap : 8;
	while (ncap < need)
		ncap *= 2;
	nbuf = realloc(*buf, ncap * elem);
	if (nbuf == NULL)
		return false;
	*buf = nbuf;
	*cap = ncap;
	return true;
}

bool
exg_shape_reserve_vertices(exg_shape *s, size_t n)
{
	double	   *xyz;

	if (n <= s->verts_cap)
		return true;
	if (s->nverts > 0)
		return grow((void **) &s->xyz, &s->verts_cap, n, 3 * sizeof(double));
	/* nothing to keep: a fresh block, without realloc's copy */
	xyz = malloc(n * 3 * sizeof(double));
	if (xyz == NULL)
		return false;
	free(s->xyz);
	s->xyz = xyz;
	s->verts_cap = n;
	return true;
}

exg_status
exg_shape_begin_comp(exg_shape *s, exg_comp_kind kind, bool is_patch,
					 exg_error *err)
{
	exg_comp   *c;

	if (s->ncomps >= UINT32_MAX)
		return exg_fail(err, EXG_ERR_TOO_LARGE, "geometry has too many parts");
	if (!grow((void **) &s->comps, &s->comps_cap, s->ncomps + 1, sizeof(exg_comp)))
		return exg_fail(err, EXG_ERR_NOMEM, "out of memory reading geometry");
	c = &s->comps[s->ncomps++];
	c->kind = (uint8_t) kind;
	c->is_patch = is_patch ? 1 : 0;
	c->first_ring = (uint32_t) s->nrings;
	c->nrings = 0;
	return EXG_OK;
}

exg_status
exg_shape_begin_ring(exg_shape *s, exg_error *err)
{
	if (s->ncomps == 0)
		return exg_fail(err, EXG_ERR_ARGUMENT, "ring outside a component");
	if (s->nrings >= UINT32_MAX - 1)
		return exg_fail(err, EXG_ERR_TOO_LARGE, "geometry has too many rings");
	if (!grow((void **) &s->ring_start, &s->rings_cap, s->nrings + 2, sizeof(size_t)))
		return exg_fail(err, EXG_ERR_NOMEM, "out of memory reading geometry");
	s->ring_start[s->nrings] = s->nverts;
	s->nrings++;
	s->ring_start[s->nrings] = s->nverts;
	s->comps[s->ncomps - 1].nrings++;
	return EXG_OK;
}

exg_status
exg_shape_add_vertex(exg_shape *s, double x, double y, double z, exg_error *err)
{
	double	   *v;

	if (s->nrings == 0)
		return exg_fail(err, EXG_ERR_ARGUMENT, "vertex outside a ring");
	if (!isfinite(x) || !isfinite(y) || !isfinite(z))
		return exg_fail(err, EXG_ERR_NONFINITE,
						"geometry has a non-finite coordinate (NaN or infinity) at vertex %zu",
						s->nverts);
	if (s->nverts >= UINT32_MAX)
		return exg_fail(err, EXG_ERR_TOO_LARGE, "geometry has too many vertices");
	if (!grow((void **) &s->xyz, &s->verts_cap, s->nverts + 1, 3 * sizeof(double)))
		return exg_fail(err, EXG_ERR_NOMEM, "out of memory reading geometry");
	v = &s->xyz[3 * s->nverts];
	v[0] = x;
	v[1] = y;
	v[2] = z;
	s->nverts++;
	s->ring_start[s->nrings] = s->nverts;
	return EXG_OK;
}
