/*
 * sql_mesh.c — meshes in and out: ST_ExactMeshImport (OBJ, PLY, STL, DXF
 * 3DFACE as bytea or text -> TIN Z), ST_ExactMeshImportBodies (one row per
 * body, with what its edges say), ST_ExactMeshFromArrays (vertex and
 * triangle arrays -> TIN Z), ST_ExactMeshInfo (closedness of a surface),
 * ST_ExactMeshExport / ST_ExactMeshExportBinary (TIN Z -> OBJ, PLY).
 *
 * The TIN goes to PostGIS as EWKB through the geometry type's binary
 * input, so no coordinate passes through decimal text on the way in: what
 * the engine read is what is stored, bit for bit.
 */
#include "exactgpu.h"

#include "catalog/pg_type.h"
#include "funcapi.h"
#include "lib/stringinfo.h"
#include "miscadmin.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"

#include "geom_cache.h"
#include "exactgpu_engine.h"

PG_FUNCTION_INFO_V1(exactgpu_mesh_import);
PG_FUNCTION_INFO_V1(exactgpu_mesh_import_bodies);
PG_FUNCTION_INFO_V1(exactgpu_mesh_from_arrays);
PG_FUNCTION_INFO_V1(exactgpu_mesh_info);
PG_FUNCTION_INFO_V1(exactgpu_mesh_export);
PG_FUNCTION_INFO_V1(exactgpu_mesh_export_binary);

/*
 * The engine's mesh (malloc'ed) freed when the calling memory context is
 * reset or deleted, so an ERROR anywhere after it was filled leaks nothing.
 */
typedef struct MeshHolder
{
	exg_mesh	mesh;
	MemoryContextCallback cb;
} MeshHolder;

static void
mesh_holder_free(void *arg)
{
	exg_mesh_free(&((MeshHolder *) arg)->mesh);
}

static exg_mesh *
mesh_new(void)
{
	MeshHolder *h = palloc0(sizeof(MeshHolder));

	exg_mesh_init(&h->mesh);
	h->cb.func = mesh_holder_free;
	h->cb.arg = h;
	MemoryContextRegisterResetCallback(CurrentMemoryContext, &h->cb);
	return &h->mesh;
}

/* A malformed file is the caller's input, not corrupted storage: 22023. */
static void
mesh_report(const exg_error *err, const char *context)
{
	const char *msg = err->message[0] ? err->message : exg_status_name(err->status);

	switch (err->status)
	{
		case EXG_ERR_CORRUPT:
		case EXG_ERR_ARGUMENT:
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("%s: %s", context, msg)));
			break;
		case EXG_ERR_INVALID:
		case EXG_ERR_NONPLANAR:
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("%s: %s", context, msg),
					 errhint("Faces of three or four corners are always read; triangulate larger faces in the modelling package, or make them planar and simple.")));
			break;
		case EXG_ERR_WRONG_KIND:
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("%s: not a triangulated surface: %s", context, msg),
					 errhint("Pass a TIN Z, or a POLYHEDRALSURFACE Z whose faces are triangles.")));
			break;
		default:
			/* NaN and Inf, and the rest, as every function reports them */
			break;
	}
	exactgpu_report(err, context);
}

static exg_mesh_format
mesh_format_arg(text *t, const char *context)
{
	char	   *name = text_to_cstring(t);
	exg_mesh_format f;

	if (!exg_mesh_format_from_name(name, &f))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("%s: unknown mesh format \"%s\"", context, name),
				 errhint("The formats are 'obj', 'ply', 'stl' and 'dxf'.")));
	return f;
}

/* Read the file (bytea or text: the same bytes) into a mesh. */
static exg_mesh *
mesh_read_arg(FunctionCallInfo fcinfo, const char *context)
{
	struct varlena *data = PG_GETARG_VARLENA_PP(0);
	exg_mesh_format f = mesh_format_arg(PG_GETARG_TEXT_PP(1), context);
	exg_mesh   *m = mesh_new();
	exg_error	err = {0};

	if (exg_mesh_read((const uint8_t *) VARDATA_ANY(data), VARSIZE_ANY_EXHDR(data), f, m,
					  &err) != EXG_OK)
		mesh_report(&err, context);
	return m;
}

/* The TIN Z of triangles [first, first + n) as a geometry of type geom_type. */
static Datum
mesh_geometry(const exg_mesh *m, uint32_t first, uint32_t n, int32 srid, Oid geom_type,
			  const char *context)
{
	StringInfoData buf;
	exg_error	err = {0};
	size_t		size;
	Oid			recv,
				ioparam;
	Datum		g;

	if (exg_mesh_ewkb_size(m, first, n, srid, &size, &err) != EXG_OK)
		mesh_report(&err, context);
	if (size >= MaxAllocSize)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("%s: the TIN would take %zu bytes, more than one value holds", context, size),
				 errhint("ST_ExactMeshImportBodies returns one TIN per body.")));
	initStringInfo(&buf);
	enlargeStringInfo(&buf, (int) size);
	exg_mesh_ewkb_write(m, first, n, srid, (uint8_t *) buf.data);
	buf.len = (int) size;
	buf.data[size] = '\0';
	getTypeBinaryInputInfo(geom_type, &recv, &ioparam);
	g = OidReceiveFunctionCall(recv, &buf, ioparam, -1);
	pfree(buf.data);
	return g;
}

static int32
srid_arg(FunctionCallInfo fcinfo, int argno, const char *context)
{
	int32		srid = PG_ARGISNULL(argno) ? 0 : PG_GETARG_INT32(argno);

	if (srid < 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("%s: SRID %d is negative", context, srid),
				 errhint("Pass 0 for an unknown SRID.")));
	return srid;
}

/*
 * ST_ExactMeshImport(data bytea | text, format text, srid int DEFAULT 0)
 * -> geometry: every triangle of the file as one TIN Z, in file order.
 */
Datum
exactgpu_mesh_import(PG_FUNCTION_ARGS)
{
	const char *context = "ST_ExactMeshImport";
	int32		srid = srid_arg(fcinfo, 2, context);
	exg_mesh   *m = mesh_read_arg(fcinfo, context);

	PG_RETURN_DATUM(mesh_geometry(m, 0, m->ntris, srid, get_fn_expr_rettype(fcinfo->flinfo),
								  context));
}

/* The report columns shared by ST_ExactMeshImportBodies and ST_ExactMeshInfo. */
#define REPORT_COLUMNS 8

static void
report_values(const exg_mesh_report *r, Datum *values)
{
	values[0] = Int64GetDatum((int64) r->triangles);
	values[1] = Int64GetDatum((int64) r->vertices);
	values[2] = Int64GetDatum((int64) r->edges);
	values[3] = BoolGetDatum(r->closed);
	values[4] = Int64GetDatum((int64) r->boundary_edges);
	values[5] = Int64GetDatum((int64) r->non_manifold_edges);
	values[6] = Int64GetDatum((int64) r->misoriented_edges);
	values[7] = Int64GetDatum((int64) r->degenerate_triangles);
}

/*
 * ST_ExactMeshImportBodies(data, format, srid) -> SETOF (body, name, geom,
 * triangles, vertices, edges, closed, boundary_edges, non_manifold_edges,
 * misoriented_edges, degenerate_triangles): one row per body (OBJ o/g,
 * ASCII STL solid, DXF layer; PLY and binary STL have one), in order of
 * first appearance.
 */
Datum
exactgpu_mesh_import_bodies(PG_FUNCTION_ARGS)
{
	const char *context = "ST_ExactMeshImportBodies";
	int32		srid = srid_arg(fcinfo, 2, context);
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	exg_mesh   *m;
	exg_mesh_report *rep;
	uint32_t   *start;
	exg_error	err = {0};
	Oid			geom_type;

	InitMaterializedSRF(fcinfo, 0);
	geom_type = TupleDescAttr(rsinfo->setDesc, 2)->atttypid;
	m = mesh_read_arg(fcinfo, context);
	rep = palloc0(sizeof(exg_mesh_report) * (m->nbodies + 1));
	start = palloc(sizeof(uint32_t) * (m->nbodies + 1));
	if (exg_mesh_check(m, rep, &err) != EXG_OK ||
		exg_mesh_sort_by_body(m, start, &err) != EXG_OK)
		mesh_report(&err, context);
	for (uint32_t b = 0; b < m->nbodies; b++)
	{
		Datum		values[3 + REPORT_COLUMNS];
		bool		nulls[3 + REPORT_COLUMNS] = {0};

		CHECK_FOR_INTERRUPTS();
		values[0] = Int32GetDatum((int32) b + 1);
		if (m->body_name[b] != NULL)
			values[1] = CStringGetTextDatum(m->body_name[b]);
		else
			nulls[1] = true;
		values[2] = mesh_geometry(m, start[b], start[b + 1] - start[b], srid, geom_type, context);
		report_values(&rep[b], values + 3);
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
	}
	return (Datum) 0;
}

/* A float8[] without NULLs, as a C array; *n its length. */
static const double *
float8_array(ArrayType *a, int *n, const char *name, const char *context)
{
	if (ARR_NDIM(a) > 1 || ARR_HASNULL(a) || ARR_ELEMTYPE(a) != FLOAT8OID)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("%s: %s must be a one-dimensional float8 array without NULLs", context, name)));
	*n = ArrayGetNItems(ARR_NDIM(a), ARR_DIMS(a));
	return (const double *) ARR_DATA_PTR(a);
}

/*
 * ST_ExactMeshFromArrays(vx float8[], vy float8[], vz float8[], tri int[],
 * srid int DEFAULT 0, index_base int DEFAULT 0) -> geometry: vertex i at
 * (vx[i], vy[i], vz[i]); triangle t joins vertices tri[3t], tri[3t+1],
 * tri[3t+2] (a flat array or an n x 3 one), counted from index_base.
 */
Datum
exactgpu_mesh_from_arrays(PG_FUNCTION_ARGS)
{
	const char *context = "ST_ExactMeshFromArrays";
	ArrayType  *tri_a = PG_GETARG_ARRAYTYPE_P(3);
	int32		srid = srid_arg(fcinfo, 4, context);
	int32		base = PG_ARGISNULL(5) ? 0 : PG_GETARG_INT32(5);
	int			nx,
				ny,
				nz,
				nt;
	const double *x = float8_array(PG_GETARG_ARRAYTYPE_P(0), &nx, "vx", context),
			   *y = float8_array(PG_GETARG_ARRAYTYPE_P(1), &ny, "vy", context),
			   *z = float8_array(PG_GETARG_ARRAYTYPE_P(2), &nz, "vz", context);
	const int32 *tri;
	exg_mesh   *m = mesh_new();
	exg_error	err = {0};

	if (nx != ny || nx != nz)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("%s: vx, vy and vz have %d, %d and %d elements; they must have as many",
						context, nx, ny, nz)));
	if (base != 0 && base != 1)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("%s: index_base must be 0 or 1, not %d", context, base)));
	if (ARR_HASNULL(tri_a) || ARR_ELEMTYPE(tri_a) != INT4OID)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("%s: tri must be an integer array without NULLs", context)));
	nt = ArrayGetNItems(ARR_NDIM(tri_a), ARR_DIMS(tri_a));
	if (nt % 3 != 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("%s: tri has %d elements, not a multiple of 3", context, nt)));
	tri = (const int32 *) ARR_DATA_PTR(tri_a);
	for (int i = 0; i < nx; i++)
	{
		if ((i & 4095) == 0)
			CHECK_FOR_INTERRUPTS();
		if (exg_mesh_add_vertex(m, x[i], y[i], z[i], &err) != EXG_OK)
		{
			if (err.status == EXG_ERR_NONFINITE)
				exg_fail(&err, EXG_ERR_NONFINITE, "vertex %d has a NaN or infinite coordinate",
						 i + base);
			mesh_report(&err, context);
		}
	}
	for (int t = 0; t < nt / 3; t++)
	{
		int64		v[3];

		if ((t & 4095) == 0)
			CHECK_FOR_INTERRUPTS();
		for (int k = 0; k < 3; k++)
		{
			v[k] = (int64) tri[3 * t + k] - base;
			if (v[k] < 0 || v[k] >= nx)
				ereport(ERROR,
						(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
						 errmsg("%s: triangle %d refers to vertex %d, which does not exist (%d vertices, counted from %d)",
								context, t + base, tri[3 * t + k], nx, base)));
		}
		if (exg_mesh_add_triangle(m, (uint32_t) v[0], (uint32_t) v[1], (uint32_t) v[2], &err) != EXG_OK)
			mesh_report(&err, context);
	}
	PG_RETURN_DATUM(mesh_geometry(m, 0, m->ntris, srid, get_fn_expr_rettype(fcinfo->flinfo),
								  context));
}

/* The triangles of a geometry argument as a mesh (corners welded by bits). */
static exg_mesh *
mesh_of_geometry(FunctionCallInfo fcinfo, bool need_z, const char *context)
{
	exg_shape	s;
	exg_mesh   *m = mesh_new();
	exg_error	err = {0};
	exg_status	st;

	exg_shape_init(&s);
	exactgpu_geom_parse(PG_GETARG_DATUM(0), &s, context);
	if (need_z && !s.has_z && !exg_shape_is_empty(&s))
	{
		exg_shape_free(&s);
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("%s: the surface has no Z", context),
				 errhint("A mesh file holds x, y and z: give the surface an elevation with ST_Force3D(geom, z).")));
	}
	st = exg_mesh_from_shape(&s, m, &err);
	exg_shape_free(&s);
	if (st != EXG_OK)
		mesh_report(&err, context);
	return m;
}

/*
 * ST_ExactMeshInfo(surface geometry) -> (triangles, vertices, edges,
 * closed, boundary_edges, non_manifold_edges, misoriented_edges,
 * degenerate_triangles) of a triangulated surface.
 */
Datum
exactgpu_mesh_info(PG_FUNCTION_ARGS)
{
	const char *context = "ST_ExactMeshInfo";
	exg_mesh   *m = mesh_of_geometry(fcinfo, false, context);
	exg_mesh_report rep;
	exg_error	err = {0};
	TupleDesc	desc;
	Datum		values[REPORT_COLUMNS];
	bool		nulls[REPORT_COLUMNS] = {0};

	if (get_call_result_type(fcinfo, NULL, &desc) != TYPEFUNC_COMPOSITE)
		elog(ERROR, "%s: return type must be a row type", context);
	memset(&rep, 0, sizeof(rep));
	if (m->nbodies > 0 && exg_mesh_check(m, &rep, &err) != EXG_OK)
		mesh_report(&err, context);
	report_values(&rep, values);
	PG_RETURN_DATUM(HeapTupleGetDatum(heap_form_tuple(BlessTupleDesc(desc), values, nulls)));
}

static exg_ply_encoding
export_encoding(text *t, bool binary, bool *obj, const char *context)
{
	char	   *f = text_to_cstring(t);

	*obj = false;
	if (!binary && pg_strcasecmp(f, "obj") == 0)
	{
		*obj = true;
		return EXG_PLY_ASCII;
	}
	if (!binary && pg_strcasecmp(f, "ply") == 0)
		return EXG_PLY_ASCII;
	if (binary && (pg_strcasecmp(f, "ply") == 0 || pg_strcasecmp(f, "ply_le") == 0))
		return EXG_PLY_BINARY_LE;
	if (binary && pg_strcasecmp(f, "ply_be") == 0)
		return EXG_PLY_BINARY_BE;
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
			 errmsg("%s: unknown format \"%s\"", context, f),
			 errhint(binary ? "ST_ExactMeshExportBinary writes 'ply' (little endian, as 'ply_le') and 'ply_be'."
					 : "ST_ExactMeshExport writes 'obj' and 'ply' (ASCII); ST_ExactMeshExportBinary writes binary PLY.")));
	return EXG_PLY_ASCII;
}

/* The file the engine wrote (malloc'ed) as a text or bytea value. */
static Datum
export_value(FunctionCallInfo fcinfo, bool binary, const char *context)
{
	bool		obj;
	exg_ply_encoding enc = export_encoding(PG_GETARG_TEXT_PP(1), binary, &obj, context);
	exg_mesh   *m = mesh_of_geometry(fcinfo, true, context);
	exg_error	err = {0};
	char	   *file = NULL;
	size_t		len = 0;
	exg_status	st;
	bytea	   *out;

	st = obj ? exg_mesh_write_obj(m, &file, &len, &err) : exg_mesh_write_ply(m, enc, &file, &len, &err);
	if (st != EXG_OK)
		mesh_report(&err, context);
	if (len > MaxAllocSize - VARHDRSZ - 1)
	{
		free(file);
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("%s: the file would take %zu bytes, more than one value holds", context, len)));
	}
	out = palloc_extended(len + VARHDRSZ, MCXT_ALLOC_NO_OOM);
	if (out == NULL)
	{
		free(file);
		ereport(ERROR,
				(errcode(ERRCODE_OUT_OF_MEMORY),
				 errmsg("%s: out of memory for a file of %zu bytes", context, len)));
	}
	SET_VARSIZE(out, len + VARHDRSZ);
	memcpy(VARDATA(out), file, len);
	free(file);
	return PointerGetDatum(out);
}

/*
 * ST_ExactMeshExport(surface geometry, format text DEFAULT 'obj') -> text:
 * OBJ or ASCII PLY, corners welded by their bits, coordinates written in
 * the shortest decimal that reads back as the same double.
 */
Datum
exactgpu_mesh_export(PG_FUNCTION_ARGS)
{
	return export_value(fcinfo, false, "ST_ExactMeshExport");
}

/* ST_ExactMeshExportBinary(surface geometry, format text DEFAULT 'ply') -> bytea. */
Datum
exactgpu_mesh_export_binary(PG_FUNCTION_ARGS)
{
	return export_value(fcinfo, true, "ST_ExactMeshExportBinary");
}
