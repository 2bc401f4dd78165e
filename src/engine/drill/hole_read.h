/*
 * hole_read.h — a drill hole as the crossing and section functions see it:
 * its vertices in order and, when it has M, its measured depths.
 */
#ifndef EXG_HOLE_READ_H
#define EXG_HOLE_READ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "exg_status.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct exg_drill_hole
{
	double	   *xyz;			/* 3 per vertex (malloc'ed) */
	double	   *m;				/* 1 per vertex, or NULL: no M (malloc'ed) */
	size_t		n;
	int32_t		srid;
	bool		has_z;
	bool		empty;
} exg_drill_hole;

/*
 * Read a hole from PostGIS bytes (after the varlena header): a LINESTRING,
 * or a MULTILINESTRING whose parts join end to start (as
 * exg_hole_polyline). M is kept from a LINESTRING ZM (or a one-part
 * MULTILINESTRING ZM); a vertex equal (x, y, z) to the one before is
 * dropped, so every segment has a length. EXG_ERR_NONFINITE for a NaN or
 * infinite coordinate or M.
 */
exg_status	exg_drill_hole_read(const uint8_t *data, size_t size, exg_drill_hole *h,
								exg_error *err);
void		exg_drill_hole_free(exg_drill_hole *h);

#ifdef __cplusplus
}
#endif

#endif							/* EXG_HOLE_READ_H */
