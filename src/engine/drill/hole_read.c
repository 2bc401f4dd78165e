/*
 * hole_read.c — a hole's vertices and, when it has them, its M depths.
 *
 * The shape reader validates the bytes and drops M; M is then read from
 * the same bytes by the simple-geometry walker, vertex for vertex.
 */
#include "hole_read.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "gserialized_read.h"
#include "intercepts.h"

void
exg_drill_hole_free(exg_drill_hole *h)
{
	free(h->xyz);
	free(h->m);
	h->xyz = NULL;
	h->m = NULL;
	h->n = 0;
}

/* The M of every vertex of a one-line geometry; false when it has none. */
static bool
read_m(const uint8_t *data, size_t size, size_t n, double *m)
{
	exg_gs_simple it;
	exg_comp_kind kind;
	size_t		off;
	uint32_t	nv,
				k;

	if (!exg_gs_simple_begin(data, size, &it) ||
		it.stride != sizeof(double) * (3 + (it.has_z ? 1 : 0)) ||
		!exg_gs_simple_next(&it, &kind, &off, &nv) || kind != EXG_COMP_LINE || nv != n)
		return false;
	for (k = 0; k < nv; k++)
		memcpy(&m[k], data + off + (size_t) k * it.stride + it.stride - sizeof(double),
			   sizeof(double));
	return !exg_gs_simple_next(&it, &kind, &off, &nv) && it.ok;
}

exg_status
exg_drill_hole_read(const uint8_t *data, size_t size, exg_drill_hole *h, exg_error *err)
{
	exg_shape	s;
	exg_status	st;
	double	   *xyz = NULL,
			   *m = NULL;
	size_t		n = 0,
				i,
				k;

	memset(h, 0, sizeof(*h));
	exg_shape_init(&s);
	if ((st = exg_gserialized_read(data, size, &s, err)) != EXG_OK)
		return st;
	h->srid = s.srid;
	h->has_z = s.has_z;
	h->empty = exg_shape_is_empty(&s);
	if (!h->empty && (st = exg_hole_polyline(&s, &xyz, &n, err)) != EXG_OK)
	{
		exg_shape_free(&s);
		return st;
	}
	if (s.has_m && s.ncomps == 1 && n > 0)
	{
		m = malloc(n * sizeof(double));
		if (m == NULL)
		{
			free(xyz);
			exg_shape_free(&s);
			return exg_fail(err, EXG_ERR_NOMEM, "out of memory for %zu M values", n);
		}
		if (!read_m(data, size, n, m))
		{
			free(m);
			m = NULL;
		}
		for (i = 0; m != NULL && i < n; i++)
			if (!isfinite(m[i]))
			{
				free(m);
				free(xyz);
				exg_shape_free(&s);
				return exg_fail(err, EXG_ERR_NONFINITE,
								"vertex %zu of the hole has a NaN or infinite M", i + 1);
			}
	}
	exg_shape_free(&s);
	/* drop repeated vertices: every segment then has a length */
	for (i = 0, k = 0; i < n; i++)
	{
		if (k > 0 && xyz[3 * i] == xyz[3 * (k - 1)] && xyz[3 * i + 1] == xyz[3 * (k - 1) + 1] &&
			xyz[3 * i + 2] == xyz[3 * (k - 1) + 2])
			continue;
		memmove(&xyz[3 * k], &xyz[3 * i], 3 * sizeof(double));
		if (m)
			m[k] = m[i];
		k++;
	}
	h->xyz = xyz;
	h->m = m;
	h->n = k;
	return EXG_OK;
}
