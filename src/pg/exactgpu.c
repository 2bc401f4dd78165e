/*
 * exactgpu.c — module entry: GUCs, the engine's cancel callback, and the
 * mapping of engine failures to SQLSTATEs.
 */
#include "exactgpu.h"

#include "miscadmin.h"
#include "utils/guc.h"

#include "exactgpu_engine.h"
#include "custom_join.h"
#include "custom_join_box.h"
#include "join_options.h"
#include "resident_store.h"

PG_MODULE_MAGIC;

int			exactgpu_nonplanar_faces = EXG_NONPLANAR_ERROR;
bool		exactgpu_preloaded = false;

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
	exactgpu_resident_init();
	exactgpu_custom_join_init();
	exactgpu_box_join_init();
	MarkGUCPrefixReserved("exactgpu");
	exg_set_cancel_callback(exactgpu_cancel_pending);
	/* in a backend (not a postmaster that forks later): the worker pool now,
	 * before any parallel region could start it with signals open */
	if (IsUnderPostmaster)
		(void) exactgpu_threads();
}

void
exactgpu_report(const exg_error *err, const char *context)
{
	const char *msg = err->message[0] ? err->message : exg_status_name(err->status);

	switch (err->status)
	{
		case EXG_ERR_INTERRUPTED:
			CHECK_FOR_INTERRUPTS();
			ereport(ERROR,
					(errcode(ERRCODE_QUERY_CANCELED),
					 errmsg("%s: canceling statement due to user request", context)));
			break;
		case EXG_ERR_NOMEM:
			ereport(ERROR,
					(errcode(ERRCODE_OUT_OF_MEMORY),
					 errmsg("%s: %s", context, msg)));
			break;
		case EXG_ERR_CORRUPT:
			ereport(ERROR,
					(errcode(ERRCODE_DATA_CORRUPTED),
					 errmsg("%s: %s", context, msg)));
			break;
		case EXG_ERR_UNSUPPORTED:
			ereport(ERROR,
					(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
					 errmsg("%s: %s", context, msg)));
			break;
		case EXG_ERR_NONFINITE:
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("%s: %s", context, msg),
					 errdetail("Exact predicates are defined only for finite coordinates.")));
			break;
		case EXG_ERR_NONPLANAR:
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("%s: %s", context, msg),
					 errdetail("A polygon face is a planar region; exact 3D predicates need its vertices exactly coplanar."),
					 errhint("Use TIN/TRIANGLE faces, or SET exactgpu.nonplanar_faces = 'triangulate'.")));
			break;
		case EXG_ERR_INVALID:
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("%s: %s", context, msg),
					 errhint("Repair the polygon first, e.g. with ST_MakeValid.")));
			break;
		case EXG_ERR_NOT_SOLID:
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("%s: %s", context, msg),
					 errhint("ST_ExactIsValidSolidReason(geom) says what is wrong; ST_ExactForceOutward(geom) orients a closed TIN or POLYHEDRALSURFACE outward; an open surface must be closed where it was modelled.")));
			break;
		case EXG_ERR_WRONG_KIND:
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("%s: %s", context, msg)));
			break;
		case EXG_ERR_TOO_LARGE:
			ereport(ERROR,
					(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
					 errmsg("%s: %s", context, msg)));
			break;
		case EXG_ERR_DEVICE:
			ereport(ERROR,
					(errcode(ERRCODE_EXTERNAL_ROUTINE_EXCEPTION),
					 errmsg("%s: GPU error: %s", context, msg)));
			break;
		case EXG_ERR_ARGUMENT:
		case EXG_OK:
			break;
	}
	ereport(ERROR,
			(errcode(ERRCODE_INTERNAL_ERROR),
			 errmsg("%s: %s", context, msg)));
}
