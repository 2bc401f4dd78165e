/*
 * mesh_read.c — the entry of the mesh readers: the format by name, then
 * the reader of that format (mesh_obj.c, mesh_ply.c, mesh_stl.c,
 * mesh_dxf.c), then the bodies that got no triangle dropped. Kept apart
 * from the mesh type (mesh.c), which the readers build on, so that calls
 * run one way: entry -> readers -> type.
 */
#include "mesh.h"

#include <strings.h>

bool
exg_mesh_format_from_name(const char *name, exg_mesh_format *out)
{
	static const struct
	{
		const char *name;
		exg_mesh_format f;
	}			names[] = {
		{"obj", EXG_MESH_OBJ}, {"ply", EXG_MESH_PLY}, {"stl", EXG_MESH_STL}, {"dxf", EXG_MESH_DXF}
	};

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (strcasecmp(name, names[i].name) == 0)
		{
			*out = names[i].f;
			return true;
		}
	return false;
}

exg_status
exg_mesh_read(const uint8_t *data, size_t size, exg_mesh_format format, exg_mesh *out,
			  exg_error *err)
{
	exg_status	st;

	switch (format)
	{
		case EXG_MESH_OBJ:
			st = exg_mesh_read_obj(data, size, out, err);
			break;
		case EXG_MESH_PLY:
			st = exg_mesh_read_ply(data, size, out, err);
			break;
		case EXG_MESH_STL:
			st = exg_mesh_read_stl(data, size, out, err);
			break;
		case EXG_MESH_DXF:
			st = exg_mesh_read_dxf(data, size, out, err);
			break;
		default:
			return exg_fail(err, EXG_ERR_ARGUMENT, "unknown mesh format %d", (int) format);
	}
	if (st == EXG_OK)
		exg_mesh_drop_empty_bodies(out);
	return st;
}
