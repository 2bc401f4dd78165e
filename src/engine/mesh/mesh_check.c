/*
 * mesh_check.c — what a mesh's edges say, body by body: closed, boundary
 * and non-manifold edges, orientation. Edges are counted by the engine's
 * mesh_edges.h over positions (the vertex indices of the file play no
 * part), so a mesh is closed here exactly when ST_ExactIsValidSolid finds
 * it closed; distinct positions are counted by sorting the corners.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE 1			/* qsort_r */
#endif
#include "mesh.h"

#include <stdlib.h>
#include <string.h>

#include "join.h"
#include "mesh_edges.h"

typedef struct corner
{
	uint32_t	body;
	uint32_t	v;
} corner;

static int
corner_cmp(const void *pa, const void *pb, void *xyz)
{
	const corner *a = pa,
			   *b = pb;
	const double *corner_xyz = xyz;

	if (a->body != b->body)
		return a->body < b->body ? -1 : 1;
	for (int k = 0; k < 3; k++)
	{
		double		x = corner_xyz[3 * (size_t) a->v + k],
					y = corner_xyz[3 * (size_t) b->v + k];

		if (x != y)
			return x < y ? -1 : 1;
	}
	return 0;
}

exg_status
exg_mesh_check(const exg_mesh *m, exg_mesh_report *out, exg_error *err)
{
	exg_prim_set T = {m->xyz, m->nverts, m->tri, m->ntris, 3, 0, NULL, NULL};
	exg_edge_report *rep;
	corner	   *cs;
	size_t		nc = 3 * (size_t) m->ntris;
	exg_status	st;

	memset(out, 0, sizeof(*out) * m->nbodies);
	if (m->nbodies == 0)
		return EXG_OK;
	rep = calloc(m->nbodies, sizeof(exg_edge_report));
	cs = malloc(sizeof(corner) * (nc + 1));
	if (rep == NULL || cs == NULL)
	{
		free(rep);
		free(cs);
		return exg_fail(err, EXG_ERR_NOMEM, "out of memory checking the mesh");
	}
	st = exg_mesh_edges(&T, m->tri_body, m->nbodies, rep, err);
	for (uint32_t t = 0; st == EXG_OK && t < m->ntris; t++)
	{
		const uint32_t *v = &m->tri[3 * (size_t) t];
		const double *a = &m->xyz[3 * (size_t) v[0]],
				   *b = &m->xyz[3 * (size_t) v[1]],
				   *c = &m->xyz[3 * (size_t) v[2]];
		exg_mesh_report *r = &out[m->tri_body[t]];

		r->triangles++;
		r->degenerate_triangles += (a[0] == b[0] && a[1] == b[1] && a[2] == b[2]) ||
			(b[0] == c[0] && b[1] == c[1] && b[2] == c[2]) ||
			(a[0] == c[0] && a[1] == c[1] && a[2] == c[2]);
		for (int k = 0; k < 3; k++)
		{
			cs[3 * (size_t) t + k].body = m->tri_body[t];
			cs[3 * (size_t) t + k].v = v[k];
		}
	}
	if (st == EXG_OK)
	{
		qsort_r(cs, nc, sizeof(corner), corner_cmp, (void *) m->xyz);
		for (size_t i = 0; i < nc; i++)
			if (i == 0 || corner_cmp(&cs[i - 1], &cs[i], (void *) m->xyz) != 0)
				out[cs[i].body].vertices++;
		for (uint32_t b = 0; b < m->nbodies; b++)
		{
			exg_mesh_report *r = &out[b];

			r->edges = rep[b].edges;
			r->boundary_edges = rep[b].once;
			r->non_manifold_edges = rep[b].non_manifold - rep[b].once;
			r->odd_edges = rep[b].odd;
			r->misoriented_edges = rep[b].misoriented;
			r->closed = r->triangles > 0 && rep[b].odd == 0;
		}
	}
	free(rep);
	free(cs);
	return st;
}
