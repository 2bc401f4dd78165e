/*
 * sql_composite.c — ST_ExactComposite: an aggregate of assay intervals over
 * one intercept.
 *
 *   ST_ExactComposite(assay_from, assay_to, grade, from_m, to_m [, overlaps])
 *       -> exactgpu_composite (from_m, to_m, length_m, sampled_m, grade,
 *                              midpoint_m, midpoint_grade, intervals,
 *                              unsampled_m, overlap_m)
 *
 * Overlapping assay intervals (two with inside parts sharing a positive
 * length: duplicates too) are an error naming two of them, unless overlaps
 * is 'flag': then the composite is returned with overlap_m, the core
 * counted more than once.
 *
 * The state holds GMP rationals (composite.h); a reset callback on the
 * aggregate's memory context clears them, so an ERROR leaks nothing.
 */
#include "exactgpu.h"

#include <math.h>

#include "access/htup_details.h"
#include "funcapi.h"
#include "utils/builtins.h"

#include "exactgpu_engine.h"

PG_FUNCTION_INFO_V1(exactgpu_composite_trans);
PG_FUNCTION_INFO_V1(exactgpu_composite_final);

typedef struct CompositeState
{
	exg_composite c;
	bool		flag_overlaps;	/* 'flag': report overlaps instead of refusing them */
	MemoryContextCallback cb;
} CompositeState;

/* The sixth argument, when given: 'error' (the default) or 'flag'. */
static bool
arg_flag_overlaps(FunctionCallInfo fcinfo)
{
	char	   *mode;

	if (PG_NARGS() < 7 || PG_ARGISNULL(6))
		return false;
	mode = text_to_cstring(PG_GETARG_TEXT_PP(6));
	if (strcmp(mode, "error") == 0)
		return false;
	if (strcmp(mode, "flag") == 0)
		return true;
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
			 errmsg("ST_ExactComposite: overlaps must be 'error' or 'flag', not '%s'", mode)));
	return false;
}

static void
composite_state_clear(void *arg)
{
	exg_composite_clear(&((CompositeState *) arg)->c);
}

static double
arg_finite(FunctionCallInfo fcinfo, int argno, const char *what)
{
	double		v = PG_GETARG_FLOAT8(argno);

	if (!isfinite(v))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("ST_ExactComposite: %s is %g", what, v)));
	return v;
}

Datum
exactgpu_composite_trans(PG_FUNCTION_ARGS)
{
	MemoryContext aggcxt;
	CompositeState *st = PG_ARGISNULL(0) ? NULL : (CompositeState *) PG_GETARG_POINTER(0);
	double		from,
				to;

	if (!AggCheckCallContext(fcinfo, &aggcxt))
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("ST_ExactComposite is an aggregate")));
	if (PG_ARGISNULL(4) || PG_ARGISNULL(5))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("ST_ExactComposite: the intercept's from_m and to_m must not be NULL")));
	from = arg_finite(fcinfo, 4, "the intercept's from_m");
	to = arg_finite(fcinfo, 5, "the intercept's to_m");
	if (from > to)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("ST_ExactComposite: the intercept's from_m %g is past its to_m %g", from, to)));
	if (st == NULL)
	{
		st = MemoryContextAllocZero(aggcxt, sizeof(CompositeState));
		exg_composite_init(&st->c, from, to);
		st->flag_overlaps = arg_flag_overlaps(fcinfo);
		st->cb.func = composite_state_clear;
		st->cb.arg = st;
		MemoryContextRegisterResetCallback(aggcxt, &st->cb);
	}
	else if (st->c.from != from || st->c.to != to)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("ST_ExactComposite: one group holds two intercepts ([%g, %g] and [%g, %g])",
						st->c.from, st->c.to, from, to),
				 errhint("GROUP BY the intercept (hole, body, from_m, to_m).")));
	/* a missing assay (an outer join's NULLs) adds nothing */
	if (!PG_ARGISNULL(1) && !PG_ARGISNULL(2) && !PG_ARGISNULL(3))
	{
		double		a = arg_finite(fcinfo, 1, "assay_from"),
					b = arg_finite(fcinfo, 2, "assay_to"),
					g = arg_finite(fcinfo, 3, "a grade");

		if (a > b)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("ST_ExactComposite: an assay interval from %g to %g runs backwards", a, b)));
		exg_composite_add(&st->c, a, b, g);
	}
	PG_RETURN_POINTER(st);
}

Datum
exactgpu_composite_final(PG_FUNCTION_ARGS)
{
	CompositeState *st = PG_ARGISNULL(0) ? NULL : (CompositeState *) PG_GETARG_POINTER(0);
	exg_composite_result r;
	TupleDesc	desc;
	Datum		values[10];
	bool		nulls[10] = {false};

	if (st == NULL)
		PG_RETURN_NULL();
	if (get_call_result_type(fcinfo, NULL, &desc) != TYPEFUNC_COMPOSITE)
		ereport(ERROR,
				(errcode(ERRCODE_INTERNAL_ERROR), errmsg("return type must be a row type")));
	desc = BlessTupleDesc(desc);
	if (!exg_composite_result_of(&st->c, &r))
		ereport(ERROR,
				(errcode(ERRCODE_OUT_OF_MEMORY),
				 errmsg("ST_ExactComposite: out of memory keeping the assay intervals")));
	if (r.overlaps && !st->flag_overlaps)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("ST_ExactComposite: assay intervals [%.17g, %.17g] and [%.17g, %.17g] overlap inside the intercept [%.17g, %.17g]",
						r.first[0], r.first[1], r.second[0], r.second[1], st->c.from, st->c.to),
				 errdetail("%.17g m of core would be counted more than once.", r.overlap),
				 errhint("Remove the duplicate or overlapping assays, or pass 'flag' as the sixth argument to get the composite with overlap_m instead.")));
	values[0] = Float8GetDatum(st->c.from);
	values[1] = Float8GetDatum(st->c.to);
	values[2] = Float8GetDatum(st->c.to - st->c.from);
	values[3] = Float8GetDatum(r.sampled);
	values[4] = Float8GetDatum(r.grade);
	nulls[4] = isnan(r.grade);
	values[5] = Float8GetDatum(r.mid_length);
	values[6] = Float8GetDatum(r.mid_grade);
	nulls[6] = isnan(r.mid_grade);
	values[7] = Int32GetDatum((int32) r.intervals);
	values[8] = Float8GetDatum(r.unsampled);
	values[9] = Float8GetDatum(r.overlap);
	if (desc->natts != 10)
		ereport(ERROR,
				(errcode(ERRCODE_DATATYPE_MISMATCH),
				 errmsg("ST_ExactComposite: exactgpu_composite has %d attributes, the library 10", desc->natts),
				 errhint("ALTER EXTENSION exactgpu UPDATE.")));
	PG_RETURN_DATUM(HeapTupleGetDatum(heap_form_tuple(desc, values, nulls)));
}
