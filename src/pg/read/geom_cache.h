/*
 * geom_cache.h — geometry arguments parsed and prepared once per query.
 *
 * A row-by-row join calls a predicate with the same geometry many times (the
 * outer row against every inner row). The cache, hung on fn_extra, keeps the
 * last few prepared geometries and recognises a repeated argument by its
 * TOAST pointer (no detoasting at all for a big TOASTed body) or by its
 * bytes, as PostGIS's prepared-geometry cache does.
 */
#ifndef EXACTGPU_GEOM_CACHE_H
#define EXACTGPU_GEOM_CACHE_H

#include "exactgpu.h"
#include "exactgpu_engine.h"
#include "resident_store.h"

/* Prepared geometries kept per call site (the planner prices its misses: join_cost.h). */
#define EXACTGPU_GEOM_CACHE_ENTRIES 8

/*
 * The prepared geometry of argument argno. keep, if not NULL, is a geometry
 * returned earlier in this call that must not be evicted to make room.
 */
exg_prepared *exactgpu_geom_get(FunctionCallInfo fcinfo, int argno,
								exg_prepared *keep, const char *context);

/*
 * Keep a TOASTed geometry's prepared form in the resident store
 * (resident_store.h) if it is not there yet; false when the store is off,
 * the value is stored in line, or there is no room.
 */
bool		exactgpu_geom_make_resident(Datum d, const char *context);

/*
 * Keep prepared geometry g in the resident store under rkey: the views the
 * predicates read built first, so that what is kept serves them, then g
 * packed into its block (*size bytes), pinned. NULL when a view does not
 * build (left to the predicate, which reports it) or the store has no room.
 */
const void *exactgpu_geom_keep_prepared(const ResidentKey *rkey, exg_prepared *g, Size *size);

/* Parse a geometry datum without caching (caller frees with exg_shape_free). */
void		exactgpu_geom_parse(Datum d, exg_shape *out, const char *context);

/* Error out unless both geometries have the same SRID (as PostGIS does). */
void		exactgpu_check_srids(const exg_shape *a, const exg_shape *b,
								 const char *context);

/*
 * 3D functions: error out when a geometry without Z meets one with Z (the
 * flags say whether each side has non-empty rows with / without Z).
 */
void		exactgpu_check_dims(bool a_z, bool a_flat, bool b_z, bool b_flat,
								const char *context);
void		exactgpu_check_shape_dims(const exg_shape *a, const exg_shape *b,
									  const char *context);

/*
 * ERROR naming the expected argument order (signature, e.g.
 * "ST_ExactLocate3D(body geometry, point geometry)") when the body argument
 * is points or lines and the other argument a surface.
 */
void		exactgpu_check_body_arg(const exg_shape *body, int body_argno,
									bool other_is_surface, const char *signature,
									const char *context);

/* Has s a polygon or triangle (a face)? */
bool		exactgpu_shape_has_face(const exg_shape *s);

/*
 * Does g (from exactgpu_geom_get in this call) bound a valid solid
 * (need_valid), or at least have a well-defined inside (solid_check.h)? If
 * not, why (into why, why_len bytes). Judged once per stored value: the
 * verdicts stay with the cached geometry, and a TOASTed value's with the
 * backend (geom_cache.c says why that cannot go stale).
 */
bool		exactgpu_solid_verdict(FunctionCallInfo fcinfo, exg_prepared *g, bool need_valid,
								   char *why, size_t why_len, const char *context);

/* ERROR (22023, with the reason) unless g meets the need. */
void		exactgpu_require_solid(FunctionCallInfo fcinfo, exg_prepared *g, bool need_valid,
								   const char *context);

/*
 * A resident body's solid verdicts, the note kept beside its block in the
 * store (exactgpu_resident_note_get/_set): what exg_prepared keeps, "" or
 * the reason for each need. Read and written by the row-level functions
 * here and by the probe join (exec/join_probe.c), in this one layout.
 */
typedef struct ResidentVerdicts
{
	char		solid_why[EXG_ERROR_MESSAGE_LEN];
	char		inside_why[EXG_ERROR_MESSAGE_LEN];
} ResidentVerdicts;

#endif							/* EXACTGPU_GEOM_CACHE_H */
