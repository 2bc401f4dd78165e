/*
 * solid_check.h — is a surface the boundary of a valid solid? The one
 * decision every function that treats a body as a volume (volume, point
 * location, intersects-solid, intercepts, composites, their batch forms)
 * and ST_ExactIsValidSolid share, so that they never disagree.
 *
 * A surface bounds a valid solid when it is non-empty, has Z, consists of
 * faces only (polygons, triangles) none of zero area, is closed, 2-manifold
 * at every edge, consistently oriented, free of self-intersections, and
 * each shell points outward (outward.h; shells that touch are refused
 * there). The checks run in that order and the first failure is the
 * reason, with an example edge, face pair or face (ST_ExactIsValidSolid).
 *
 * Two needs, one judgement:
 *  - EXG_SOLID_VALID, all of the above: the volume (a signed sum, which
 *    orientation and nesting decide) and ST_ExactIsValidSolid;
 *  - EXG_SOLID_INSIDE, a well-defined inside: non-empty faces with Z,
 *    closed, no overlapping shells (faces that meet improperly, unless
 *    they touch face to face: coplanar, opposite normals, in a body whose
 *    every edge is used equally often both ways). What point location (parity of ray
 *    crossings), intersects-solid and intercepts need: orientation, a
 *    degenerate face or an edge shared by four faces do not change the
 *    point set parity defines, so a body that is valid but for those keeps
 *    working as before.
 * Why self-intersection matters to both: on two overlapping shells parity
 * gives the symmetric difference and the signed sum counts the overlap
 * twice, not the union the user meant, with no other sign of it.
 */
#ifndef EXG_SOLID_CHECK_H
#define EXG_SOLID_CHECK_H

#include <stdbool.h>
#include <stdint.h>

#include "exg_status.h"
#include "geom_prepared.h"
#include "join.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum exg_solid_need
{
	EXG_SOLID_INSIDE = 0,		/* a well-defined inside (parity's point set) */
	EXG_SOLID_VALID = 1			/* a valid solid */
} exg_solid_need;

/*
 * Judge g (once: the verdicts are kept in g). *ok says whether g meets the
 * need; if not, why (up to why_len bytes, NUL-terminated; why may be NULL).
 * opt (NULL: defaults) drives the self-intersection join. The status is
 * that of the judging itself (memory, cancel), not the verdict.
 */
exg_status	exg_solid_check(exg_prepared *g, const exg_join_options *opt, exg_solid_need need,
							bool *ok, char *why, size_t why_len, exg_error *err);

/*
 * EXG_OK when g meets the need, else EXG_ERR_NOT_SOLID with the reason as
 * the message. What every volume function calls first.
 */
exg_status	exg_solid_require(exg_prepared *g, const exg_join_options *opt, exg_solid_need need,
							  exg_error *err);

/*
 * Record verdicts reached earlier for the same stored value (a caller's
 * memo: "" or the reason for each need), so that g is not judged again.
 */
void		exg_solid_set_verdicts(exg_prepared *g, const char *solid_why, const char *inside_why);

/* ---- many bodies as one triangle set (the batch joins) ---- */

/*
 * Do triangles of one body overlap (solid/self_intersect.h; as for one
 * body, two faces touching face to face count only where oriented is NULL
 * or oriented[b] false: every edge of b used equally often both ways)?
 * T holds every body's triangles, body[t] their body (non-decreasing, below
 * nbodies); every triangle is a face of its own. On the first body found:
 * EXG_ERR_NOT_SOLID naming it (err->row = body + 1, err->side = side) and
 * two of its triangles (1-based within the body). Every body is judged.
 */
exg_status	exg_solid_set_check_self(const exg_prim_set *T, const uint32_t *body,
									 uint32_t nbodies, const bool *oriented, int side,
									 const exg_join_options *opt, exg_error *err);

/*
 * Has every body of T a well-defined inside: closed (every edge used by an
 * even number of faces) and not overlapping itself (as
 * exg_solid_set_check_self, oriented from its edges)? EXG_ERR_NOT_SOLID
 * naming the first that has not, as there. Bodies this check found good
 * before in this process (known_bodies.h) are neither walked nor joined
 * again: a batch join against bodies that have not changed pays a pass
 * over their coordinates, not the edge sort and the self-join.
 */
exg_status	exg_solid_set_check(const exg_prim_set *T, const uint32_t *body, uint32_t nbodies,
								int side, const exg_join_options *opt, exg_error *err);

#ifdef __cplusplus
}
#endif

#endif							/* EXG_SOLID_CHECK_H */
