/*
 * engine_error.c — the ERROR an engine failure deserves: each exg_status
 * to its SQLSTATE, with the detail and hint users act on.
 */
#include "exactgpu.h"

#include "miscadmin.h"

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
		case EXG_ERR_DEVICE_MEMORY:
			/* only where the GPU was asked for: under auto the join runs on the CPU */
			ereport(ERROR,
					(errcode(ERRCODE_OUT_OF_MEMORY),
					 errmsg("%s: %s", context, msg),
					 errhint("Another process may hold the GPU's memory (nvidia-smi). SET exactgpu.device = 'auto' runs such a join on the CPU instead.")));
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
