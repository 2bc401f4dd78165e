/*
 * exactgpu.h — shared declarations of the PostgreSQL layer.
 */
#ifndef EXACTGPU_H
#define EXACTGPU_H

#include "postgres.h"
#include "fmgr.h"

#include "exactgpu_engine.h"

/* GUC values (join_options.c; exactgpu.c defines the GUC). */
extern int	exactgpu_nonplanar_faces;	/* exg_nonplanar_policy */

/*
 * Loaded by the postmaster (shared_preload_libraries): forked processes
 * have it (set by _PG_init; join_options.c).
 */
extern bool exactgpu_preloaded;

/* Raise the ERROR that an engine failure deserves; never returns (engine_error.c). */
void		exactgpu_report(const exg_error *err, const char *context) pg_attribute_noreturn();

#endif							/* EXACTGPU_H */
