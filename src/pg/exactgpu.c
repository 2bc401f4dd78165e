/*
 * exactgpu.c — module entry: GUCs and the engine's cancel callback. Nothing
 * calls back into it (make check-cycles): what the layer shares lives in
 * files of its own (engine failures: engine_error.c; settings:
 * join_options.c).
 */
#include "exactgpu.h"

#include "miscadmin.h"
#include "utils/guc.h"

#include "exactgpu_engine.h"
#include "custom_join.h"
#include "custom_join_box.h"
#include "invalid_rows.h"
#include "join_options.h"
#include "gpu_service.h"
#include "resident_store.h"

PG_MODULE_MAGIC;

static const struct config_enum_entry nonplanar_options[] = {
	{"error", EXG_NONPLANAR_ERROR, false},
	{"triangulate", EXG_NONPLANAR_TRIANGULATE, false},
	{NULL, 0, false}
};

/*
 * Called by engine threads: only reads the flags the signal handlers set,
 * never ProcessInterrupts (which may longjmp and is not thread-safe).
 */
static bool
exactgpu_cancel_pending(void)
{
	return QueryCancelPending || ProcDiePending;
}

void		_PG_init(void);

void
_PG_init(void)
{
	exactgpu_preloaded = process_shared_preload_libraries_in_progress;
	DefineCustomEnumVariable("exactgpu.nonplanar_faces",
							 "What 3D functions do with a polygon face whose vertices are not exactly coplanar.",
							 "error: raise an error; triangulate: triangulate the face's projection "
							 "onto the coordinate plane where it keeps its area, and use those triangles.",
							 &exactgpu_nonplanar_faces,
							 EXG_NONPLANAR_ERROR,
							 nonplanar_options,
							 PGC_USERSET, 0,
							 NULL, NULL, NULL);
	exactgpu_define_join_gucs();
	exactgpu_define_invalid_rows_guc();
	exactgpu_resident_init();
	exactgpu_service_init();
	exactgpu_custom_join_init();
	exactgpu_box_join_init();
	MarkGUCPrefixReserved("exactgpu");
	exg_set_cancel_callback(exactgpu_cancel_pending);
	/* in a backend (not a postmaster that forks later): the worker pool now,
	 * before any parallel region could start it with signals open */
	if (IsUnderPostmaster)
		(void) exactgpu_threads();
}
