/*
 * intercepts.h — the stretches of a drill hole inside a closed surface.
 */
#ifndef EXG_INTERCEPTS_H
#define EXG_INTERCEPTS_H

#include <stddef.h>
#include <stdint.h>

#include "batch.h"
#include "exg_status.h"
#include "geom_prepared.h"

#ifdef __cplusplus
extern "C" {
#endif

/*
 * Where an intercept begins or ends. A contact point is classified by the
 * surface as a point set, not by its triangulation: the planes of the
 * triangles it lies on are counted (one: a face, also on the diagonal of a
 * triangulated quad; two: an edge, where two planes fold; three or more: a
 * vertex, a corner).
 */
typedef enum exg_contact
{
	EXG_CONTACT_START = 0,		/* the hole starts strictly inside */
	EXG_CONTACT_END = 1,		/* the hole ends strictly inside */
	EXG_CONTACT_FACE = 2,
	EXG_CONTACT_EDGE = 3,
	EXG_CONTACT_VERTEX = 4
} exg_contact;

/* What the hole does along one intercept. */
typedef enum exg_intercept_kind
{
	EXG_INTERCEPT_THROUGH = 0,	/* some of it strictly inside */
	EXG_INTERCEPT_ALONG = 1,	/* a positive length, all of it on the surface */
	EXG_INTERCEPT_GRAZING = 2	/* one point: touches without entering */
} exg_intercept_kind;

/*
 * One maximal stretch of the hole in the closed solid. entry and exit are
 * the exact contact points with each coordinate rounded once to the nearest
 * double (a hole vertex is itself). The piece is the polyline from entry to
 * exit through the hole's vertices between them: xyzm[4 * first_vertex ..]
 * of the set, nvertices points of (x, y, z, depth); a grazing contact has
 * one vertex.
 */
typedef struct exg_intercept
{
	double		from;
	double		to;
	double		entry[3];
	double		exit[3];
	uint8_t		entry_contact;	/* exg_contact */
	uint8_t		exit_contact;
	uint8_t		kind;			/* exg_intercept_kind */
	size_t		first_vertex;
	size_t		nvertices;
	size_t		pair;			/* batch form: index of the (hole, body) pair */
} exg_intercept;

typedef struct exg_intercept_set
{
	exg_intercept *iv;
	size_t		n;
	size_t		cap;
	double	   *xyzm;
	size_t		nv;
	size_t		vcap;
	uint64_t	prepare_ns;		/* batch form: bodies parsed, checked, indexed */
	uint64_t	pairs_ns;		/* batch form: the pairs' intercepts */
} exg_intercept_set;

void		exg_intercept_set_free(exg_intercept_set *s);

/*
 * The maximal along-hole intervals [from, to] where the polyline (vertices
 * xyz[0 .. 3n)) lies in the closed solid g (inside or on its boundary),
 * depths measured along the polyline from its first vertex, appended to out
 * in order (out->iv[k].pair = 0).
 *
 * Every place where the hole meets the surface is found exactly, as a
 * rational parameter of its segment; each open piece between two such places
 * is inside, outside or on the surface throughout, and is located exactly
 * (from a hole vertex it contains that is off the surface, else its rational
 * midpoint, by exact ray parity). A parameter is rounded once to the nearest
 * double t; its depth is the length of the segments before it plus t times
 * its segment's length (double arithmetic: lengths are square roots). A
 * hole that touches the surface without entering gives a zero-length
 * interval at the contact.
 */
exg_status	exg_intercepts_detail(exg_prepared *g, const double *xyz, size_t n,
								  exg_intercept_set *out, exg_error *err);

/*
 * The same with measured depths: md (NULL: the length along the polyline
 * from its first vertex, as above) gives the depth at each vertex, e.g. the
 * hole's M. A depth inside a segment is md[i] + t (md[i+1] - md[i]) (t
 * rounded once, then double arithmetic); a vertex's depth is its md. md
 * must be finite and monotone along the hole (EXG_ERR_ARGUMENT otherwise);
 * when it decreases (a hole stored toe first) each interval is turned
 * round (from the shallower end, entry there, the piece running down the
 * hole) and the intervals come in order of depth.
 */
exg_status	exg_intercepts_detail_md(exg_prepared *g, const double *xyz, const double *md,
									 size_t n, exg_intercept_set *out, exg_error *err);

/*
 * The M values of a hole (PostGIS bytes), one per vertex of its
 * exg_hole_polyline, malloc'ed into *md; *md NULL when the hole has no M
 * (or is not a plain LINESTRING / MULTILINESTRING). EXG_ERR_ARGUMENT when
 * two parts join with different M.
 */
exg_status	exg_hole_measures(const uint8_t *data, size_t size, double **md, size_t *n,
							  exg_error *err);

/* The same, from and to only: *out (malloc'ed) holds 2 * *nout doubles. */
exg_status	exg_intercepts(exg_prepared *g, const double *xyz, size_t n, double **out,
						   size_t *nout, exg_error *err);

/*
 * The vertices of a hole as one polyline (malloc'ed, 3 doubles each): a
 * LINESTRING as it is; a MULTILINESTRING's parts in order, each part
 * starting exactly where the previous one ended (the shared vertex kept
 * once), so that depth runs on across parts; empty parts are skipped.
 * EXG_ERR_ARGUMENT for any other type or for a gap between parts.
 */
exg_status	exg_hole_polyline(const exg_shape *s, double **xyz, size_t *n, exg_error *err);

/*
 * The (hole row, body row) pairs that may have intercepts, packed and
 * sorted as exg_batch_join returns them: the holes that meet a body's
 * surface (the batch join with every body taken as a surface), and the
 * holes whose first vertex is in a body's box (a hole that meets no surface
 * is wholly inside or wholly outside; exg_intercepts_pairs finds which).
 * Solid flags play no part; stats->contained counts the second kind.
 */
exg_status	exg_intercepts_candidates(const exg_batch *holes, const exg_batch *bodies,
									  const exg_join_options *opt, uint64_t **rows_out,
									  size_t *nrows_out, exg_join_stats *stats, exg_error *err);

/*
 * The batch form: the intercepts of every (hole row, body row) pair of
 * pairs (packed (hole << 32) | body, as exg_batch_join returns them), on
 * `threads` CPU threads (0 = all), into out in pair order with .pair set.
 * Each body is parsed and indexed once; every body must be closed (a body
 * is its volume here, whatever its solid flag). On failure err->row is
 * 1 + the row and err->side 0 (holes) or 1 (bodies).
 */
exg_status	exg_intercepts_pairs(const exg_row_bytes *holes, const exg_row_bytes *bodies,
								 const uint64_t *pairs, size_t npairs,
								 exg_nonplanar_policy policy, int threads,
								 exg_intercept_set *out, exg_error *err);

#ifdef __cplusplus
}
#endif

#endif							/* EXG_INTERCEPTS_H */
