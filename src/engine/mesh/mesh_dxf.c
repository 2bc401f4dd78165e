/*
 * mesh_dxf.c — the 3DFACE entities of an ASCII DXF file.
 *
 * DXF is pairs of lines: a group code, then its value. A 3DFACE has its
 * corners in codes 10/20/30, 11/21/31, 12/22/32 and 13/23/33 and its layer
 * in code 8; each layer is a body. The first three corners need x, y and
 * z (a missing z is an error rather than DXF's default 0: that default is
 * how meshes silently lose their Z); a fourth corner equal to the third
 * (or absent) makes a triangle, otherwise the quad is split along the
 * diagonal from its first to its third corner (mesh_face.c). Only the
 * ENTITIES section is read (or the whole file when it has no sections);
 * 3DFACEs inside BLOCKS are block definitions and are not placed (INSERTs
 * are not expanded). POLYLINE polyface meshes and MESH entities are not
 * read: a file with those and no 3DFACE is an error that says so.
 */
#include "mesh.h"

#include <stdio.h>
#include <string.h>

#include "cancel.h"
#include "mesh_text.h"

typedef struct dxf_face
{
	bool		active;
	uint64_t	line;			/* of its "0 / 3DFACE" pair */
	double		c[4][3];
	unsigned	have;			/* bit 3 * corner + axis */
	char		layer[256];
	size_t		layer_len;
} dxf_face;

static exg_status
dxf_emit(dxf_face *f, exg_mesh *m, exg_error *err)
{
	uint32_t	idx[4];
	int			n = 3;
	char		where[64];
	exg_status	st;

	f->active = false;
	snprintf(where, sizeof(where), "DXF 3DFACE at line %lu", (unsigned long) f->line);
	for (int k = 0; k < 9; k++)
		if (!(f->have & (1u << k)))
			return exg_fail(err, EXG_ERR_CORRUPT, "%s: corner %d has no group code %d (%c)",
							where, k / 3 + 1, 10 * (k % 3 + 1) + k / 3, "xyz"[k % 3]);
	if ((f->have >> 9) != 0)
	{
		if ((f->have >> 9) != 7)
			return exg_fail(err, EXG_ERR_CORRUPT, "%s: corner 4 lacks one of group codes 13, 23, 33",
							where);
		if (f->c[3][0] != f->c[2][0] || f->c[3][1] != f->c[2][1] || f->c[3][2] != f->c[2][2])
			n = 4;
	}
	st = exg_mesh_set_body(m, f->layer, f->layer_len, err);
	for (int k = 0; k < n && st == EXG_OK; k++)
	{
		st = exg_mesh_add_vertex(m, f->c[k][0], f->c[k][1], f->c[k][2], err);
		idx[k] = m->nverts - 1;
	}
	if (st == EXG_OK)
		st = exg_mesh_add_face(m, idx, (uint32_t) n, where, err);
	return st;
}

exg_status
exg_mesh_read_dxf(const uint8_t *data, size_t size, exg_mesh *out, exg_error *err)
{
	static const char binary_sentinel[] = "AutoCAD Binary DXF";
	mesh_text	t;
	dxf_face	f;
	exg_status	st = EXG_OK;
	bool		any_section = false,
				in_entities = false,
				want_section_name = false;
	uint64_t	faces = 0,
				unread_meshes = 0;

	if (size >= sizeof(binary_sentinel) - 1 &&
		memcmp(data, binary_sentinel, sizeof(binary_sentinel) - 1) == 0)
		return exg_fail(err, EXG_ERR_CORRUPT, "DXF: a binary DXF file; only ASCII DXF is read (save as ASCII DXF)");
	memset(&f, 0, sizeof(f));
	mesh_text_init(&t, data, size);
	while (st == EXG_OK && mesh_text_next_line(&t))
	{
		const char *s,
				   *v;
		size_t		len,
					vlen;
		long		code = 0;
		uint64_t	code_line = t.line;
		bool		digits = false,
					neg = false;
		char		where[64];

		if ((t.line & (EXG_CANCEL_STRIDE - 1)) == 0 && exg_cancel_requested())
			return exg_fail(err, EXG_ERR_INTERRUPTED, "canceled");
		mesh_text_rest(&t, &s, &len);
		if (len == 0 && t.pos >= size)
			break;				/* a trailing empty line */
		for (size_t i = 0; i < len; i++)
		{
			if (i == 0 && s[i] == '-')
			{
				neg = true;
				continue;
			}
			if (s[i] < '0' || s[i] > '9' || code > 100000)
			{
				digits = false;
				break;
			}
			code = code * 10 + (s[i] - '0');
			digits = true;
		}
		if (!digits)
			return exg_fail(err, EXG_ERR_CORRUPT, "DXF line %lu: \"%.*s\" is not a group code",
							(unsigned long) code_line, (int) (len > 30 ? 30 : len), s);
		if (neg)
			code = -code;
		if (!mesh_text_next_line(&t))
			return exg_fail(err, EXG_ERR_CORRUPT, "DXF line %lu: group code %ld without a value",
							(unsigned long) code_line, code);
		mesh_text_rest(&t, &v, &vlen);
		snprintf(where, sizeof(where), "DXF line %lu", (unsigned long) t.line);

		if (code == 0)
		{
			if (f.active)
			{
				st = dxf_emit(&f, out, err);
				if (st != EXG_OK)
					break;
			}
			if (mesh_text_is(v, vlen, "SECTION"))
			{
				any_section = true;
				want_section_name = true;
			}
			else if (mesh_text_is(v, vlen, "ENDSEC"))
				in_entities = false;
			else if (mesh_text_is(v, vlen, "EOF"))
				break;
			else if (mesh_text_is(v, vlen, "3DFACE") && (in_entities || !any_section))
			{
				memset(&f, 0, sizeof(f));
				f.active = true;
				f.line = code_line;
				f.layer_len = 1;
				f.layer[0] = '0';	/* DXF's default layer */
				faces++;
			}
			else if ((mesh_text_is(v, vlen, "POLYLINE") || mesh_text_is(v, vlen, "MESH")) &&
					 (in_entities || !any_section))
				unread_meshes++;
			continue;
		}
		if (code == 2 && want_section_name)
		{
			in_entities = mesh_text_is(v, vlen, "ENTITIES");
			want_section_name = false;
			continue;
		}
		if (!f.active)
			continue;
		if (code == 8)
		{
			f.layer_len = vlen < sizeof(f.layer) ? vlen : sizeof(f.layer) - 1;
			memcpy(f.layer, v, f.layer_len);
		}
		else if ((code >= 10 && code <= 13) || (code >= 20 && code <= 23) || (code >= 30 && code <= 33))
		{
			int			axis = (int) (code / 10) - 1,
						corner = (int) (code % 10);

			st = exg_mesh_parse_double(v, vlen, &f.c[corner][axis], where, err);
			f.have |= 1u << (3 * corner + axis);
		}
	}
	if (st == EXG_OK && f.active)
		st = dxf_emit(&f, out, err);
	if (st == EXG_OK && faces == 0 && unread_meshes > 0)
		return exg_fail(err, EXG_ERR_UNSUPPORTED,
						"DXF: no 3DFACE entity, and %lu POLYLINE or MESH entities, which are not read (export the surface as 3DFACEs)",
						(unsigned long) unread_meshes);
	return st;
}
