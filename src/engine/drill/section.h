/*
 * section.h — the cut of surfaces and holes by a plane, as linework.
 */
#ifndef EXG_SECTION_H
#define EXG_SECTION_H

#include <stddef.h>

#include "exg_status.h"
#include "geom_prepared.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct exg_section
{
	double	   *seg;			/* 6 per segment: two (x, y, z) ends */
	size_t		nseg;
	double	   *pts;			/* 3 per point */
	size_t		npts;
} exg_section;

void		exg_section_free(exg_section *s);

/*
 * g ∩ plane, the plane through the three points abc (9 doubles; not
 * collinear, else EXG_ERR_ARGUMENT). Which faces, segments and points the
 * plane cuts is decided exactly (orient3d of each vertex against a, b, c,
 * interval filter then GMP); each new vertex (where an edge crosses the
 * plane) is computed as an exact rational and rounded once per coordinate,
 * so the pieces of adjacent faces share their ends exactly.
 *
 * Segments: for a face crossing the plane, the segment between its two
 * crossing points (or from its vertex on the plane); a face edge lying in
 * the plane; for faces lying in the plane, the outline of their patch (the
 * edges used by one such face); a hole segment lying in the plane. Points:
 * where a hole (or any linework, or a point) meets the plane at one point.
 * A face touching the plane at one vertex only adds nothing. Every segment
 * and point appears once (ends in lexicographic order, sorted); a point at
 * a segment's end is left out, as is a segment whose two ends round to one
 * point.
 */
exg_status	exg_section_cut(exg_prepared *g, const double plane[9], exg_section *out,
							exg_error *err);

/*
 * Section-local coordinates of a vertical section along a -> b (x, y of
 * each): every vertex (x, y, z) becomes (u, z, 0), u its distance along
 * the section from a: u = ((x - ax) dx + (y - ay) dy) / L, dx = bx - ax,
 * dy = by - ay, L = sqrt(dx dx + dy dy), in that order (double arithmetic:
 * rounded again, for drawing).
 */
void		exg_section_to_local(exg_section *s, const double a[2], const double b[2]);

#ifdef __cplusplus
}
#endif

#endif							/* EXG_SECTION_H */
