/*
 * mesh_obj.c — Wavefront OBJ: read its vertices and faces, write a mesh.
 *
 * Read: "v x y z" (a fourth coordinate w must be 1; six or seven numbers
 * are x y z and a colour, ignored), "f" with corners "i", "i/t", "i//n" or
 * "i/t/n" (only i is used; 1-based; negative counts back from the last
 * vertex defined so far, -1 being that vertex), split by the face rule of
 * mesh_face.c; "o name" and "g name" start, or return to, the body of that
 * name. Comments (from '#') and every other statement (vt, vn, l, p,
 * usemtl, mtllib, s, ...) are skipped. Line continuations ('\' at the end
 * of a line) are not read.
 */
#include "mesh.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cancel.h"
#include "mesh_text.h"

/* A corner "i[/t[/n]]" as a 0-based vertex index, or an error naming the line. */
static exg_status
obj_corner(const exg_mesh *m, const char *tok, size_t len, uint64_t line, uint32_t *out,
		   exg_error *err)
{
	size_t		i = 0,
				end = 0;
	bool		neg = false;
	uint64_t	v = 0;

	while (end < len && tok[end] != '/')
		end++;
	if (i < end && (tok[i] == '-' || tok[i] == '+'))
		neg = tok[i++] == '-';
	if (i == end)
		goto bad;
	for (; i < end; i++)
	{
		if (tok[i] < '0' || tok[i] > '9')
			goto bad;
		v = v * 10 + (uint64_t) (tok[i] - '0');
		if (v > EXG_MESH_MAX_VERTICES)
			return exg_fail(err, EXG_ERR_CORRUPT, "OBJ line %lu: vertex index %.*s out of range",
							(unsigned long) line, (int) (len > 30 ? 30 : len), tok);
	}
	if (v == 0)
		return exg_fail(err, EXG_ERR_CORRUPT, "OBJ line %lu: vertex index 0 (OBJ counts from 1)",
						(unsigned long) line);
	if (v > m->nverts)
		return exg_fail(err, EXG_ERR_CORRUPT,
						"OBJ line %lu: vertex %s%lu does not exist (%u vertices defined before this line)",
						(unsigned long) line, neg ? "-" : "", (unsigned long) v, m->nverts);
	*out = neg ? m->nverts - (uint32_t) v : (uint32_t) v - 1;
	return EXG_OK;
bad:
	return exg_fail(err, EXG_ERR_CORRUPT, "OBJ line %lu: \"%.*s\" is not a vertex index",
					(unsigned long) line, (int) (len > 30 ? 30 : len), tok);
}

exg_status
exg_mesh_read_obj(const uint8_t *data, size_t size, exg_mesh *out, exg_error *err)
{
	mesh_text	t;
	uint32_t   *face = NULL;
	size_t		face_cap = 0;
	exg_status	st = EXG_OK;
	char		where[64];

	mesh_text_init(&t, data, size);
	while (st == EXG_OK && mesh_text_next_line(&t))
	{
		const char *kw,
				   *tok;
		size_t		kwlen,
					toklen;
		const char *hash = memchr(t.cur, '#', t.len);

		if ((t.line & (EXG_CANCEL_STRIDE - 1)) == 0 && exg_cancel_requested())
		{
			st = exg_fail(err, EXG_ERR_INTERRUPTED, "canceled");
			break;
		}
		if (hash != NULL)
			t.len = (size_t) (hash - t.cur);
		if (!mesh_text_token(&t, &kw, &kwlen))
			continue;
		snprintf(where, sizeof(where), "OBJ line %lu", (unsigned long) t.line);
		if (mesh_text_is(kw, kwlen, "v"))
		{
			double		c[7];
			int			n = 0;

			while (st == EXG_OK && mesh_text_token(&t, &tok, &toklen))
			{
				if (n == 7)
				{
					n++;
					break;
				}
				st = exg_mesh_parse_double(tok, toklen, &c[n++], where, err);
			}
			if (st != EXG_OK)
				break;
			if (n != 3 && n != 4 && n != 6 && n != 7)
				st = exg_fail(err, EXG_ERR_CORRUPT,
							  "%s: a vertex has 3 coordinates (then w = 1, or a colour), not %d numbers",
							  where, n);
			else if (n == 4 && c[3] != 1.0)
				st = exg_fail(err, EXG_ERR_CORRUPT,
							  "%s: a vertex with w = %.17g (homogeneous coordinates are not read; w must be 1)",
							  where, c[3]);
			else
			{
				st = exg_mesh_add_vertex(out, c[0], c[1], c[2], err);
				if (st == EXG_ERR_NONFINITE)
					st = exg_fail(err, st, "%s: a NaN or infinite coordinate", where);
			}
		}
		else if (mesh_text_is(kw, kwlen, "f") || mesh_text_is(kw, kwlen, "fo"))
		{
			uint32_t	n = 0;

			while (st == EXG_OK && mesh_text_token(&t, &tok, &toklen))
			{
				if (n == face_cap)
				{
					size_t		c = face_cap ? 2 * face_cap : 16;
					uint32_t   *q = realloc(face, sizeof(uint32_t) * c);

					if (q == NULL)
					{
						st = exg_fail(err, EXG_ERR_NOMEM, "%s: out of memory", where);
						break;
					}
					face = q;
					face_cap = c;
				}
				st = obj_corner(out, tok, toklen, t.line, &face[n++], err);
			}
			if (st == EXG_OK)
				st = exg_mesh_add_face(out, face, n, where, err);
		}
		else if (mesh_text_is(kw, kwlen, "o") || mesh_text_is(kw, kwlen, "g"))
		{
			const char *name;
			size_t		len;

			mesh_text_rest(&t, &name, &len);
			st = exg_mesh_set_body(out, len ? name : NULL, len, err);
		}
	}
	free(face);
	return st;
}

exg_status
exg_mesh_write_obj(const exg_mesh *m, char **out, size_t *len, exg_error *err)
{
	mesh_out	o = {0};
	char		line[128];
	int			n;

	n = snprintf(line, sizeof(line), "# exactgpu: %u vertices, %u triangles\n", m->nverts, m->ntris);
	mesh_out_bytes(&o, line, (size_t) n);
	for (uint32_t v = 0; v < m->nverts && !o.failed; v++)
	{
		if ((v & (EXG_CANCEL_STRIDE - 1)) == 0 && exg_cancel_requested())
		{
			free(o.buf);
			return exg_fail(err, EXG_ERR_INTERRUPTED, "canceled");
		}
		n = 0;
		line[n++] = 'v';
		for (int k = 0; k < 3; k++)
		{
			line[n++] = ' ';
			n += exg_mesh_format_double(line + n, m->xyz[3 * (size_t) v + k]);
		}
		line[n++] = '\n';
		mesh_out_bytes(&o, line, (size_t) n);
	}
	for (uint32_t t = 0; t < m->ntris && !o.failed; t++)
	{
		if ((t & (EXG_CANCEL_STRIDE - 1)) == 0 && exg_cancel_requested())
		{
			free(o.buf);
			return exg_fail(err, EXG_ERR_INTERRUPTED, "canceled");
		}
		n = snprintf(line, sizeof(line), "f %u %u %u\n", m->tri[3 * (size_t) t] + 1,
					 m->tri[3 * (size_t) t + 1] + 1, m->tri[3 * (size_t) t + 2] + 1);
		mesh_out_bytes(&o, line, (size_t) n);
	}
	if (o.failed)
		return exg_fail(err, EXG_ERR_NOMEM, "out of memory writing OBJ");
	*out = o.buf;
	*len = o.len;
	return EXG_OK;
}
