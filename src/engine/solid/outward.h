/*
 * outward.h — which faces of a closed surface to reverse so that it bounds
 * its solid with outward normals (ST_ExactForceOutward, and the inside-out
 * check of validity and volume).
 *
 * Faces sharing an edge are oriented consistently when they use it in
 * opposite directions; propagating that over the edge adjacency orients
 * each shell (connected component) up to one flip. A shell is then outward
 * when the exact sign of its volume (volume_sum.h) is that of its nesting: +
 * for an outer shell, - for a cavity inside one, + for an island inside the
 * cavity, ...; nesting is decided by exact point location of one vertex of
 * each shell in the others (parity of ray crossings, as exg_solid_locate).
 */
#ifndef EXG_OUTWARD_H
#define EXG_OUTWARD_H

#include <stdint.h>

#include "exg_status.h"
#include "geom_prims.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct exg_outward_report
{
	uint32_t	shells;
	uint32_t	inward_shells;	/* shells oriented against their nesting, as given */
	uint32_t	first_inward_face;	/* 1-based face of the first of those, or 0 */
	uint64_t	flipped_faces;
} exg_outward_report;

/*
 * P: the 3D view of a surface (P->comp gives each primitive's face, below
 * nfaces); flip[f] = 1 for each face f to reverse (faces without area: 0).
 * EXG_ERR_NOT_SOLID when no orientation exists or it is ambiguous: an edge
 * used by an odd number of faces (open) or by more than two (not
 * 2-manifold), a shell that is not orientable or encloses no volume, shells
 * whose every vertex lies on another shell.
 */
exg_status	exg_outward_flips(const exg_prims *P, uint32_t nfaces, uint8_t *flip,
							  exg_outward_report *rep, exg_error *err);

#ifdef __cplusplus
}
#endif

#endif							/* EXG_OUTWARD_H */
