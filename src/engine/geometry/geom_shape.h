/*
 * geom_shape.h — a parsed geometry as flat arrays, as the engine sees it.
 *
 * A shape is a list of components (points, lines, polygons, triangles); each
 * component owns a run of rings; each ring owns a run of vertices in one
 * shared xyz array. This mirrors the OGC/PostGIS nesting without pointers,
 * so a shape is three mallocs whatever its size and is trivially freed.
 *
 *   component c : rings [comps[c].first_ring, comps[c].first_ring + comps[c].nrings)
 *   ring r      : vertices [ring_start[r], ring_start[r + 1])
 *   vertex v    : xyz[3 v], xyz[3 v + 1], xyz[3 v + 2]
 *
 * Polygon and triangle rings keep their closing vertex as stored (first ==
 * last). Inputs without Z get z = 0; M values are dropped. Empty parts are
 * never stored, so a shape with ncomps == 0 is the empty geometry.
 */
#ifndef EXG_GEOM_SHAPE_H
#define EXG_GEOM_SHAPE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "exg_status.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum exg_comp_kind
{
	EXG_COMP_POINT = 1,			/* one ring of one vertex */
	EXG_COMP_LINE = 2,			/* one ring: the polyline's vertices */
	EXG_COMP_POLYGON = 3,		/* exterior ring then interior rings */
	EXG_COMP_TRIANGLE = 4		/* one closed ring of four vertices */
} exg_comp_kind;

typedef struct exg_comp
{
	uint8_t		kind;			/* exg_comp_kind */
	uint8_t		is_patch;		/* face of a TIN or POLYHEDRALSURFACE */
	uint32_t	first_ring;
	uint32_t	nrings;
} exg_comp;

typedef struct exg_shape
{
	int32_t		srid;
	uint32_t	geom_type;		/* PostGIS type number of the top level */
	bool		has_z;
	bool		has_m;
	bool		is_solid;		/* PostGIS solid flag (ST_MakeSolid) */

	double	   *xyz;
	size_t		nverts;
	size_t		verts_cap;

	size_t	   *ring_start;		/* nrings + 1 entries once a ring exists */
	size_t		nrings;
	size_t		rings_cap;

	exg_comp   *comps;
	size_t		ncomps;
	size_t		comps_cap;
} exg_shape;

void		exg_shape_init(exg_shape *s);
void		exg_shape_free(exg_shape *s);
/* Empty the shape but keep its buffers, to read row after row without mallocs. */
void		exg_shape_clear(exg_shape *s);
/* Exact extents of the vertices; false (and nothing written) when empty. */
bool		exg_shape_extent(const exg_shape *s, double lo[3], double hi[3]);

/* Builder: begin a component, begin each of its rings, append vertices. */
exg_status	exg_shape_begin_comp(exg_shape *s, exg_comp_kind kind, bool is_patch,
								 exg_error *err);
exg_status	exg_shape_begin_ring(exg_shape *s, exg_error *err);
/* Rejects NaN and infinite coordinates with EXG_ERR_NONFINITE. */
exg_status	exg_shape_add_vertex(exg_shape *s, double x, double y, double z,
								 exg_error *err);
/*
 * Room for n vertices in all (a reader that knows a bound up front); false,
 * the shape unchanged, when memory is short (adding vertices then reports it).
 */
bool		exg_shape_reserve_vertices(exg_shape *s, size_t n);

static inline bool
exg_shape_is_empty(const exg_shape *s)
{
	return s->ncomps == 0;
}

static inline size_t
exg_ring_nverts(const exg_shape *s, size_t r)
{
	return s->ring_start[r + 1] - s->ring_start[r];
}

static inline const double *
exg_vertex(const exg_shape *s, size_t v)
{
	return &s->xyz[3 * v];
}

#ifdef __cplusplus
}
#endif

#endif							/* EXG_GEOM_SHAPE_H */
