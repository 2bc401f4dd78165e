/*
 * mesh_face.c — how a face of more than three corners becomes triangles.
 *
 * Quads are split along the diagonal from the first to the third corner:
 * one fixed rule for every format (DXF's 3DFACE is such a quad), so that a
 * non-planar quad, which no split makes flat, is split the same way
 * whatever file it came in. A face of five or more corners is a polygon:
 * it must be exactly planar (every corner on the plane of three
 * non-collinear ones, decided by exact orientations), and is triangulated
 * by the engine's exact polygon triangulator in a coordinate plane where
 * its projection keeps its area (an affine bijection of its plane, so
 * simple stays simple); each triangle is then turned as the face turns.
 */
#include "mesh.h"

#include <stdlib.h>
#include <string.h>

#include "predicates.h"
#include "triangulate.h"

static bool
same_position(const exg_mesh *m, uint32_t a, uint32_t b)
{
	const double *p = &m->xyz[3 * (size_t) a],
			   *q = &m->xyz[3 * (size_t) b];

	return p[0] == q[0] && p[1] == q[1] && p[2] == q[2];
}

/* Projection of p dropping coordinate `drop` (0: onto yz, 1: zx, 2: xy). */
static void
project(const double *p, int drop, double out[2])
{
	out[0] = p[(drop + 1) % 3];
	out[1] = p[(drop + 2) % 3];
}

static exg_status
add_polygon(exg_mesh *m, const uint32_t *idx, uint32_t n, const char *where, exg_error *err)
{
	const double *p0 = &m->xyz[3 * (size_t) idx[0]],
			   *p1 = &m->xyz[3 * (size_t) idx[1]];
	double	   *xy = NULL;
	uint32_t   *tris = NULL;
	size_t		ntris = 0,
				ring[2] = {0, n},
				low = 0;
	int			drop = -1,
				turn;
	uint32_t	k;
	exg_status	st = EXG_OK;

	/* a third corner off the line p0 p1, and a plane where the three keep area */
	for (k = 2; k < n && drop < 0; k++)
	{
		const double *pk = &m->xyz[3 * (size_t) idx[k]];

		for (int d = 2; d >= 0 && drop < 0; d--)
		{
			double		a[2],
						b[2],
						c[2];

			project(p0, d, a);
			project(p1, d, b);
			project(pk, d, c);
			if (exg_orient2d(a, b, c) != 0)
				drop = d;
		}
	}
	if (drop < 0)
		return exg_fail(err, EXG_ERR_INVALID, "%s: a face of %u corners all on one line", where, n);
	for (uint32_t j = 0; j < n; j++)
		if (exg_orient3d(p0, p1, &m->xyz[3 * (size_t) idx[k - 1]],
						 &m->xyz[3 * (size_t) idx[j]]) != 0)
			return exg_fail(err, EXG_ERR_NONPLANAR,
							"%s: a face of %u corners that are not exactly coplanar (corner %u is off the plane of corners 1, 2 and %u); faces of more than four corners must be planar",
							where, n, j + 1, k);
	xy = malloc(sizeof(double) * 2 * n);
	if (xy == NULL)
		return exg_fail(err, EXG_ERR_NOMEM, "%s: out of memory", where);
	for (uint32_t j = 0; j < n; j++)
	{
		project(&m->xyz[3 * (size_t) idx[j]], drop, &xy[2 * j]);
		if (xy[2 * j] < xy[2 * low] || (xy[2 * j] == xy[2 * low] && xy[2 * j + 1] < xy[2 * low + 1]))
			low = j;
	}
	/* the face's turn: at its lowest corner, which is convex in a simple polygon */
	turn = exg_orient2d(&xy[2 * ((low + n - 1) % n)], &xy[2 * low], &xy[2 * ((low + 1) % n)]);
	st = exg_triangulate_polygon(xy, n, ring, 1, &tris, &ntris, err);
	if (st == EXG_OK && (turn == 0 || ntris == 0))
		st = exg_fail(err, EXG_ERR_INVALID, "%s: a face of %u corners that is not a simple polygon",
					  where, n);
	else if (st == EXG_ERR_INVALID)
	{
		char		why[EXG_ERROR_MESSAGE_LEN];

		memcpy(why, err->message, sizeof(why));
		why[sizeof(why) - 1] = '\0';
		st = exg_fail(err, EXG_ERR_INVALID, "%s: a face of %u corners that is not a simple polygon (%s)",
					  where, n, why);
	}
	for (size_t t = 0; st == EXG_OK && t < ntris; t++)
	{
		uint32_t	a = tris[3 * t],
					b = tris[3 * t + 1],
					c = tris[3 * t + 2];

		if (exg_orient2d(&xy[2 * a], &xy[2 * b], &xy[2 * c]) != turn)
		{
			uint32_t	s = b;

			b = c;
			c = s;
		}
		st = exg_mesh_add_triangle(m, idx[a], idx[b], idx[c], err);
	}
	free(xy);
	free(tris);
	return st;
}

exg_status
exg_mesh_add_face(exg_mesh *m, const uint32_t *idx, uint32_t n, const char *where,
				  exg_error *err)
{
	uint32_t	small[4],
			   *v = small,
				k = 0;
	exg_status	st;

	for (uint32_t j = 0; j < n; j++)
		if (idx[j] >= m->nverts)
			return exg_fail(err, EXG_ERR_CORRUPT, "%s: vertex %u does not exist (%u vertices)",
							where, idx[j] + 1, m->nverts);
	if (n < 3)
		return exg_fail(err, EXG_ERR_CORRUPT, "%s: a face needs at least 3 corners, not %u",
						where, n);
	if (n == 3)					/* as given, even with a repeated corner */
		return exg_mesh_add_triangle(m, idx[0], idx[1], idx[2], err);
	if (n > 4 && (v = malloc(sizeof(uint32_t) * n)) == NULL)
		return exg_fail(err, EXG_ERR_NOMEM, "%s: out of memory", where);
	for (uint32_t j = 0; j < n; j++)
		if (k == 0 || !same_position(m, idx[j], v[k - 1]))
			v[k++] = idx[j];
	while (k > 1 && same_position(m, v[k - 1], v[0]))
		k--;
	if (k < 3)
		st = exg_fail(err, EXG_ERR_INVALID, "%s: a face of %u corners at fewer than 3 positions",
					  where, n);
	else if (k == 3)
		st = exg_mesh_add_triangle(m, v[0], v[1], v[2], err);
	else if (k == 4)
	{
		st = exg_mesh_add_triangle(m, v[0], v[1], v[2], err);
		if (st == EXG_OK)
			st = exg_mesh_add_triangle(m, v[0], v[2], v[3], err);
	}
	else
		st = add_polygon(m, v, k, where, err);
	if (v != small)
		free(v);
	return st;
}
