/*
 * mesh_stl.c — STL, ASCII and binary. STL lists each triangle's three
 * corners by value, so the corners are welded afterwards (exg_mesh_weld:
 * the same bits, the same vertex), which makes shared edges shared indices
 * and lets closedness be checked.
 *
 * Which kind a file is: binary when its size is exactly 84 + 50 n for the
 * triangle count n at byte 80 (some binary files begin with "solid" too);
 * else ASCII when it begins with "solid". Binary floats are widened to
 * double exactly; the facet normals and attribute bytes are ignored (the
 * corner order gives the orientation). Each ASCII "solid name" is a body.
 */
#include "mesh.h"

#include <stdio.h>
#include <string.h>

#include "cancel.h"
#include "mesh_text.h"

static exg_status
stl_binary(const uint8_t *data, size_t size, uint32_t n, exg_mesh *out, exg_error *err)
{
	exg_status	st = EXG_OK;

	if (n > EXG_MESH_MAX_TRIANGLES)
		return exg_fail(err, EXG_ERR_TOO_LARGE, "STL: %u triangles (at most %u)", n,
						EXG_MESH_MAX_TRIANGLES);
	for (uint32_t t = 0; t < n && st == EXG_OK; t++)
	{
		const uint8_t *rec = data + 84 + 50 * (size_t) t;

		if ((t & (EXG_CANCEL_STRIDE - 1)) == 0 && exg_cancel_requested())
			return exg_fail(err, EXG_ERR_INTERRUPTED, "canceled");
		for (int c = 0; c < 3 && st == EXG_OK; c++)
		{
			double		p[3];

			for (int k = 0; k < 3; k++)
			{
				const uint8_t *b = rec + 12 + 12 * c + 4 * k;
				uint32_t	w = (uint32_t) b[0] | (uint32_t) b[1] << 8 | (uint32_t) b[2] << 16 |
					(uint32_t) b[3] << 24;
				float		f;

				memcpy(&f, &w, sizeof(f));
				p[k] = f;
			}
			st = exg_mesh_add_vertex(out, p[0], p[1], p[2], err);
			if (st == EXG_ERR_NONFINITE)
				st = exg_fail(err, st, "STL byte %zu (triangle %u): a NaN or infinite coordinate",
							  (size_t) (rec - data) + 12 + 12 * (size_t) c, t + 1);
		}
		if (st == EXG_OK)
			st = exg_mesh_add_triangle(out, out->nverts - 3, out->nverts - 2, out->nverts - 1, err);
	}
	(void) size;
	return st;
}

static exg_status
stl_ascii(const uint8_t *data, size_t size, exg_mesh *out, exg_error *err)
{
	mesh_text	t;
	exg_status	st = EXG_OK;
	bool		in_solid = false,
				in_facet = false;
	int			corners = 0;
	uint64_t	facet_line = 0;
	char		where[64];

	mesh_text_init(&t, data, size);
	while (st == EXG_OK && mesh_text_next_line(&t))
	{
		const char *kw,
				   *tok;
		size_t		len;

		if ((t.line & (EXG_CANCEL_STRIDE - 1)) == 0 && exg_cancel_requested())
			return exg_fail(err, EXG_ERR_INTERRUPTED, "canceled");
		if (!mesh_text_token(&t, &kw, &len))
			continue;
		snprintf(where, sizeof(where), "STL line %lu", (unsigned long) t.line);
		if (mesh_text_is(kw, len, "solid"))
		{
			const char *name;
			size_t		nlen;

			if (in_solid)
				return exg_fail(err, EXG_ERR_CORRUPT, "%s: \"solid\" inside a solid", where);
			mesh_text_rest(&t, &name, &nlen);
			st = exg_mesh_set_body(out, nlen ? name : NULL, nlen, err);
			in_solid = true;
		}
		else if (!in_solid)
			return exg_fail(err, EXG_ERR_CORRUPT, "%s: \"%.*s\" outside a solid", where,
							(int) (len > 30 ? 30 : len), kw);
		else if (mesh_text_is(kw, len, "endsolid"))
		{
			if (in_facet)
				return exg_fail(err, EXG_ERR_CORRUPT, "%s: endsolid inside the facet of line %lu",
								where, (unsigned long) facet_line);
			in_solid = false;
		}
		else if (mesh_text_is(kw, len, "facet"))
		{
			if (in_facet)
				return exg_fail(err, EXG_ERR_CORRUPT, "%s: a facet inside the facet of line %lu",
								where, (unsigned long) facet_line);
			in_facet = true;
			corners = 0;
			facet_line = t.line;
		}
		else if (mesh_text_is(kw, len, "outer") || mesh_text_is(kw, len, "endloop"))
		{
			if (!in_facet)
				return exg_fail(err, EXG_ERR_CORRUPT, "%s: \"%.*s\" outside a facet", where, (int) len, kw);
		}
		else if (mesh_text_is(kw, len, "vertex"))
		{
			double		p[3];
			int			n = 0;

			if (!in_facet)
				return exg_fail(err, EXG_ERR_CORRUPT, "%s: a vertex outside a facet", where);
			if (++corners > 3)
				return exg_fail(err, EXG_ERR_CORRUPT, "%s: a facet of more than 3 vertices (line %lu)",
								where, (unsigned long) facet_line);
			while (st == EXG_OK && mesh_text_token(&t, &tok, &len))
			{
				if (n == 3)
					return exg_fail(err, EXG_ERR_CORRUPT, "%s: a vertex of more than 3 coordinates", where);
				st = exg_mesh_parse_double(tok, len, &p[n++], where, err);
			}
			if (st == EXG_OK && n != 3)
				return exg_fail(err, EXG_ERR_CORRUPT, "%s: a vertex of %d coordinates", where, n);
			if (st == EXG_OK)
				st = exg_mesh_add_vertex(out, p[0], p[1], p[2], err);
		}
		else if (mesh_text_is(kw, len, "endfacet"))
		{
			if (!in_facet || corners != 3)
				return exg_fail(err, EXG_ERR_CORRUPT, "%s: a facet of %d vertices (line %lu), not 3",
								where, corners, (unsigned long) facet_line);
			in_facet = false;
			st = exg_mesh_add_triangle(out, out->nverts - 3, out->nverts - 2, out->nverts - 1, err);
		}
		else
			return exg_fail(err, EXG_ERR_CORRUPT, "%s: unknown keyword \"%.*s\"", where,
							(int) (len > 30 ? 30 : len), kw);
	}
	if (st == EXG_OK && in_facet)
		return exg_fail(err, EXG_ERR_CORRUPT, "STL: the file ends inside the facet of line %lu",
						(unsigned long) facet_line);
	/* a solid without its endsolid is a cut file (or a binary one that
	 * begins with "solid" and whose size is off): refused either way */
	if (st == EXG_OK && in_solid)
		return exg_fail(err, EXG_ERR_CORRUPT, "STL: the file ends inside a solid (no endsolid)");
	return st;
}

exg_status
exg_mesh_read_stl(const uint8_t *data, size_t size, exg_mesh *out, exg_error *err)
{
	size_t		i = 0;
	exg_status	st;

	if (size >= 84)
	{
		uint32_t	n = (uint32_t) data[80] | (uint32_t) data[81] << 8 |
			(uint32_t) data[82] << 16 | (uint32_t) data[83] << 24;

		if ((size - 84) % 50 == 0 && (size - 84) / 50 == n)
		{
			st = stl_binary(data, size, n, out, err);
			return st == EXG_OK ? exg_mesh_weld(out, err) : st;
		}
	}
	while (i < size && (data[i] == ' ' || data[i] == '\t' || data[i] == '\r' || data[i] == '\n'))
		i++;
	if (size - i >= 5 && memcmp(data + i, "solid", 5) == 0)
	{
		st = stl_ascii(data, size, out, err);
		return st == EXG_OK ? exg_mesh_weld(out, err) : st;
	}
	if (size >= 84)
	{
		uint32_t	n = (uint32_t) data[80] | (uint32_t) data[81] << 8 |
			(uint32_t) data[82] << 16 | (uint32_t) data[83] << 24;

		return exg_fail(err, EXG_ERR_CORRUPT,
						"STL: not ASCII (no \"solid\" at the start), and as binary its %u triangles need %zu bytes, not %zu",
						n, 84 + 50 * (size_t) n, size);
	}
	return exg_fail(err, EXG_ERR_CORRUPT,
					"STL: %zu bytes, neither ASCII (\"solid\" at the start) nor binary (84 bytes at least)",
					size);
}
