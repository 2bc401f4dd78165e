/*
 * mesh.h — triangle meshes as modelling packages exchange them: one vertex
 * array (double x, y, z) and triangles as index triples into it, grouped in
 * bodies (an OBJ object or group, an STL solid, a DXF layer). The readers
 * (mesh_obj.c, mesh_ply.c, mesh_stl.c, mesh_dxf.c) fill one; the writers
 * (mesh_obj.c, mesh_ply.c) and the EWKB writer (mesh_wkb.c) read one.
 *
 * Coordinates are kept bit for bit: decimal text goes through strtod, which
 * glibc rounds correctly (the double nearest the decimal number, ties to
 * even) in the "C" numeric locale PostgreSQL backends keep; binary floats
 * are widened to double, which is exact. NaN and infinities are refused,
 * and so is a decimal beyond the double range. Triangles keep the vertex
 * order (orientation) of the file.
 */
#ifndef EXG_MESH_H
#define EXG_MESH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "exg_status.h"
#include "geom_shape.h"

#ifdef __cplusplus
extern "C" {
#endif

/*
 * Bounds that keep every index in 32 bits and one body's TIN Z below
 * PostgreSQL's 1 GB value limit (109 bytes of EWKB per triangle).
 */
#define EXG_MESH_MAX_VERTICES	((uint32_t) 0x7fffffff)
#define EXG_MESH_MAX_TRIANGLES	((uint32_t) 9000000)

typedef struct exg_mesh
{
	double	   *xyz;			/* 3 doubles per vertex */
	uint32_t	nverts;
	size_t		verts_cap;
	uint32_t   *tri;			/* 3 vertex indices per triangle */
	uint32_t   *tri_body;		/* body of each triangle */
	uint32_t	ntris;
	size_t		tris_cap;
	char	  **body_name;		/* NULL: the unnamed body */
	uint32_t	nbodies;		/* at least 1 once a triangle exists */
	size_t		bodies_cap;
	uint32_t	body;			/* body of the triangles added next */
} exg_mesh;

typedef enum exg_mesh_format
{
	EXG_MESH_OBJ = 1,
	EXG_MESH_PLY,
	EXG_MESH_STL,
	EXG_MESH_DXF
} exg_mesh_format;

void		exg_mesh_init(exg_mesh *m);
void		exg_mesh_free(exg_mesh *m);

/* 'obj', 'ply', 'stl', 'dxf' (any case); false for anything else. */
bool		exg_mesh_format_from_name(const char *name, exg_mesh_format *out);

/* ---- building (the readers) ---- */

/* Refuses NaN and infinities (EXG_ERR_NONFINITE), and more than the bound. */
exg_status	exg_mesh_add_vertex(exg_mesh *m, double x, double y, double z, exg_error *err);
exg_status	exg_mesh_add_triangle(exg_mesh *m, uint32_t a, uint32_t b, uint32_t c,
								  exg_error *err);

/*
 * A face of n >= 3 vertex indices (< m->nverts), as the documented rule
 * splits it: a triangle as given; a quad (a, b, c, d) into (a, b, c) and
 * (a, c, d), along the diagonal from its first to its third vertex (the
 * convention of DXF 3DFACE, kept for every format so that a non-planar
 * quad is split the same way everywhere); a larger face must be exactly
 * planar and a simple polygon, and is triangulated exactly
 * (triangulate.h), each triangle turning as the face does. Consecutive
 * repeated positions are dropped first (so a quad with a repeated corner
 * is a triangle). where names the face in messages ("line 12").
 */
exg_status	exg_mesh_add_face(exg_mesh *m, const uint32_t *idx, uint32_t n, const char *where,
							  exg_error *err);

/* Triangles added from now on belong to the body of this name (new or seen). */
exg_status	exg_mesh_set_body(exg_mesh *m, const char *name, size_t len, exg_error *err);

/* Merge vertices whose three coordinates are the same bits (STL lists each
 * triangle's corners; welded, shared edges become shared indices). */
exg_status	exg_mesh_weld(exg_mesh *m, exg_error *err);

/* Drop bodies without triangles, renumbering the rest in order. */
void		exg_mesh_drop_empty_bodies(exg_mesh *m);

/* ---- reading files: data need not be NUL-terminated ---- */

exg_status	exg_mesh_read(const uint8_t *data, size_t size, exg_mesh_format format,
						  exg_mesh *out, exg_error *err);
exg_status	exg_mesh_read_obj(const uint8_t *data, size_t size, exg_mesh *out, exg_error *err);
exg_status	exg_mesh_read_ply(const uint8_t *data, size_t size, exg_mesh *out, exg_error *err);
exg_status	exg_mesh_read_stl(const uint8_t *data, size_t size, exg_mesh *out, exg_error *err);
exg_status	exg_mesh_read_dxf(const uint8_t *data, size_t size, exg_mesh *out, exg_error *err);

/*
 * One decimal number of text (len bytes, no NUL needed) into *out, correctly
 * rounded. Only [+-]digits[.digits][(e|E)[+-]digits] is a number here: no
 * hexadecimal, no "nan" or "inf"; a value beyond the double range is
 * EXG_ERR_NONFINITE, other malformed text EXG_ERR_CORRUPT (both naming where).
 */
exg_status	exg_mesh_parse_double(const char *s, size_t len, double *out, const char *where,
								  exg_error *err);

/* ---- a surface geometry as a mesh, and a mesh as files ---- */

/*
 * The triangles of a shape (TRIANGLE, TIN, POLYHEDRALSURFACE or a
 * collection whose faces are all triangles: polygons of one ring of three
 * corners count), corners welded by their bits in order of first use, so
 * that writing and reading the mesh back gives the same doubles in the same
 * order. Anything else is EXG_ERR_WRONG_KIND naming the component.
 */
exg_status	exg_mesh_from_shape(const exg_shape *s, exg_mesh *out, exg_error *err);

/* OBJ text ("v x y z" lines, then "f a b c", 1-based); *out malloc'ed. */
exg_status	exg_mesh_write_obj(const exg_mesh *m, char **out, size_t *len, exg_error *err);

/* PLY: ASCII, or binary little or big endian; double x y z, uint indices. */
typedef enum exg_ply_encoding
{
	EXG_PLY_ASCII = 0,
	EXG_PLY_BINARY_LE,
	EXG_PLY_BINARY_BE
} exg_ply_encoding;

exg_status	exg_mesh_write_ply(const exg_mesh *m, exg_ply_encoding enc, char **out, size_t *len,
							   exg_error *err);

/*
 * The shortest decimal text that reads back (strtod) as the same double:
 * %.15g, %.16g or %.17g, whichever is the first to round-trip (%.17g always
 * does). buf holds at least 32 bytes; returns the length.
 */
int			exg_mesh_format_double(char *buf, double x);

/*
 * EWKB of a TIN Z of the n triangles from triangle first on, with srid
 * when not 0: *size first (exg_mesh_ewkb_size), then written into a buffer
 * of that size. EXG_ERR_TOO_LARGE beyond the bound.
 */
exg_status	exg_mesh_ewkb_size(const exg_mesh *m, uint32_t first, uint32_t n, int32_t srid,
							   size_t *size, exg_error *err);
void		exg_mesh_ewkb_write(const exg_mesh *m, uint32_t first, uint32_t n, int32_t srid,
								uint8_t *buf);

/*
 * Reorder the triangles body by body, keeping file order within a body
 * (a stable counting sort); body b's triangles are then
 * [start[b], start[b + 1]), start holding nbodies + 1 entries.
 */
exg_status	exg_mesh_sort_by_body(exg_mesh *m, uint32_t *start, exg_error *err);

/* ---- what the edges say ---- */

typedef struct exg_mesh_report
{
	uint64_t	triangles;
	uint64_t	vertices;		/* distinct positions used by the triangles */
	uint64_t	edges;			/* distinct edges (by position) */
	uint64_t	boundary_edges; /* used by one triangle */
	uint64_t	non_manifold_edges; /* used by more than two triangles */
	uint64_t	odd_edges;		/* used an odd number of times: not closed */
	uint64_t	misoriented_edges;	/* of two triangles turning the same way */
	uint64_t	degenerate_triangles;	/* two corners at one position */
	bool		closed;			/* no odd edge (and some triangle) */
} exg_mesh_report;

/*
 * One report per body (out holds m->nbodies), positions compared exactly
 * (-0 equals +0), edges counted by the engine's mesh_edges.h, as
 * ST_ExactIsValidSolid counts them.
 */
exg_status	exg_mesh_check(const exg_mesh *m, exg_mesh_report *out, exg_error *err);

#ifdef __cplusplus
}
#endif

#endif							/* EXG_MESH_H */
