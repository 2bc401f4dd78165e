/*
 * intercepts.h — the stretches of a drill hole inside a closed surface.
 */
#ifndef EXG_INTERCEPTS_H
#define EXG_INTERCEPTS_H

#include <stddef.h>

#include "exg_status.h"
#include "geom_prepared.h"

#ifdef __cplusplus
extern "C" {
#endif

/*
 * The maximal along-hole intervals [from, to] where the polyline (vertices
 * xyz[0 .. 3n)) lies in the closed solid g (inside or on its boundary),
 * depths measured along the polyline from its first vertex.
 *
 * Every place where the hole meets the surface is found exactly, as a
 * rational parameter of its segment; each open piece between two such places
 * is inside, outside or on the surface throughout, and is located exactly
 * (rational point, exact ray parity). A parameter is rounded once to the
 * nearest double t; its depth is the length of the segments before it plus
 * t times its segment's length (double arithmetic: lengths are square
 * roots). A hole that touches the surface without entering gives a
 * zero-length interval at the contact.
 *
 * *out (malloc'ed) holds 2 * *n doubles: from, to of each interval, in order.
 */
exg_status	exg_intercepts(exg_prepared *g, const double *xyz, size_t n, double **out,
						   size_t *nout, exg_error *err);

#ifdef __cplusplus
}
#endif

#endif							/* EXG_INTERCEPTS_H */
