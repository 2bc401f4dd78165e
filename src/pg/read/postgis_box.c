/*
 * postgis_box.c — the float box PostGIS's && and &&& compare, for a
 * geometry Datum: the engine reads it from the serialized bytes
 * (exg_gserialized_operator_box); here only the detoasting it asks for,
 * and PostGIS's own postgis_addbbox where the value has no cached box and
 * is not a point or line.
 */
#include "exactgpu.h"

#include "postgis_box.h"

void
postgis_box_of(Datum g, bool nd, FmgrInfo *addbbox, PostgisBox *out)
{
	struct varlena *v = (struct varlena *) DatumGetPointer(g);
	exg_gs_box_bytes bytes = EXG_GS_BOX_WHOLE;

	/* the header alone is enough when it carries a box */
	if (VARATT_IS_EXTERNAL(v) || VARATT_IS_COMPRESSED(v))
	{
		v = PG_DETOAST_DATUM_SLICE(g, 0, EXG_GS_BOX_HEADER_BYTES);
		bytes = EXG_GS_BOX_PREFIX;
	}
	for (;;)
	{
		exg_gs_box_want want;
		exg_error	err = {0};

		if (exg_gserialized_operator_box((const uint8 *) VARDATA_ANY(v), VARSIZE_ANY_EXHDR(v),
										 bytes, nd, out, &want, &err) != EXG_OK)
			exactgpu_report(&err, "box join");
		if (want == EXG_GS_BOX_WANT_WHOLE)
		{
			v = PG_DETOAST_DATUM(g);
			bytes = EXG_GS_BOX_WHOLE;
		}
		else if (want == EXG_GS_BOX_WANT_ADDED)
		{
			/* polygons, collections, curves without a box: PostGIS adds it */
			Datum		boxed = FunctionCall1(addbbox, PointerGetDatum(v));

			v = (struct varlena *) DatumGetPointer(boxed);
			if (VARATT_IS_EXTERNAL(v) || VARATT_IS_COMPRESSED(v))
				v = PG_DETOAST_DATUM(boxed);
			bytes = EXG_GS_BOX_ADDED;
		}
		else
			return;
	}
}
