/*
 * mesh_ply.c — Stanford PLY: read ASCII and binary (little and big endian)
 * files, write ASCII and binary ones.
 *
 * Read: the header's elements in order; of the element "vertex" the
 * scalar properties x, y, z (any PLY number type: integers are exact in a
 * double, floats are widened exactly), of the element "face" the list
 * "vertex_indices" (or "vertex_index") of 0-based indices, each face split
 * by the rule of mesh_face.c; every other property and element is read
 * past. The vertex element must come before the face element (indices are
 * checked as faces are read). A binary file's counts are checked against
 * its size before anything is read, so a header announcing more than the
 * file holds is an error, not an allocation.
 */
#include "mesh.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cancel.h"
#include "mesh_text.h"

#define PLY_MAX_ELEMENTS	32
#define PLY_MAX_PROPERTIES	64

typedef enum ply_type
{
	PLY_NONE = 0, PLY_I8, PLY_U8, PLY_I16, PLY_U16, PLY_I32, PLY_U32, PLY_F32, PLY_F64
} ply_type;

static const struct
{
	const char *name;
	ply_type	type;
}			ply_type_names[] = {
	{"char", PLY_I8}, {"int8", PLY_I8}, {"uchar", PLY_U8}, {"uint8", PLY_U8},
	{"short", PLY_I16}, {"int16", PLY_I16}, {"ushort", PLY_U16}, {"uint16", PLY_U16},
	{"int", PLY_I32}, {"int32", PLY_I32}, {"uint", PLY_U32}, {"uint32", PLY_U32},
	{"float", PLY_F32}, {"float32", PLY_F32}, {"double", PLY_F64}, {"float64", PLY_F64}
};

static const int ply_size[] = {0, 1, 1, 2, 2, 4, 4, 4, 8};

typedef struct ply_property
{
	ply_type	type;			/* of the value, or of a list's items */
	ply_type	count_type;		/* PLY_NONE: a scalar */
	int			role;			/* 0 none, 1 x, 2 y, 3 z, 4 the face's index list */
} ply_property;

typedef struct ply_element
{
	char		name[32];
	uint64_t	count;
	int			nprops;
	ply_property props[PLY_MAX_PROPERTIES];
} ply_element;

typedef struct ply_reader
{
	int			encoding;		/* exg_ply_encoding */
	const uint8_t *data;
	size_t		size;
	size_t		pos;			/* binary: next byte */
	mesh_text	text;			/* ASCII: tokens over lines */
} ply_reader;

static ply_type
ply_type_of(const char *tok, size_t len)
{
	for (size_t i = 0; i < sizeof(ply_type_names) / sizeof(ply_type_names[0]); i++)
		if (mesh_text_is(tok, len, ply_type_names[i].name))
			return ply_type_names[i].type;
	return PLY_NONE;
}

/* One value as a double (exact: integers of at most 32 bits, widened floats). */
static exg_status
ply_value(ply_reader *r, ply_type type, double *out, exg_error *err)
{
	if (r->encoding == EXG_PLY_ASCII)
	{
		const char *tok;
		size_t		len;
		char		where[64];

		while (!mesh_text_token(&r->text, &tok, &len))
			if (!mesh_text_next_line(&r->text))
				return exg_fail(err, EXG_ERR_CORRUPT,
								"PLY: the data ends at line %lu before the header's counts are read",
								(unsigned long) r->text.line);
		snprintf(where, sizeof(where), "PLY line %lu", (unsigned long) r->text.line);
		if (type == PLY_F32 || type == PLY_F64)
		{
			/* the decimal as written, rounded once to a double, whether the
			 * property is declared float or double: rounding it to float too
			 * would round twice and keep less of what the file says */
			return exg_mesh_parse_double(tok, len, out, where, err);
		}
		else
		{
			int64_t		v = 0;
			size_t		i = 0;
			bool		neg = false;

			if (i < len && (tok[i] == '-' || tok[i] == '+'))
				neg = tok[i++] == '-';
			if (i == len)
				goto bad_int;
			for (; i < len; i++)
			{
				if (tok[i] < '0' || tok[i] > '9' || v > 0xffffffffll)
					goto bad_int;
				v = v * 10 + (tok[i] - '0');
			}
			v = neg ? -v : v;
			if ((type == PLY_U8 && (v < 0 || v > 255)) || (type == PLY_I8 && (v < -128 || v > 127)) ||
				(type == PLY_U16 && (v < 0 || v > 65535)) || (type == PLY_I16 && (v < -32768 || v > 32767)) ||
				(type == PLY_U32 && (v < 0 || v > 0xffffffffll)) ||
				(type == PLY_I32 && (v < -2147483648ll || v > 2147483647ll)))
				goto bad_int;
			*out = (double) v;
			return EXG_OK;
	bad_int:
			return exg_fail(err, EXG_ERR_CORRUPT, "%s: \"%.*s\" is not a value of the property's integer type",
							where, (int) (len > 30 ? 30 : len), tok);
		}
	}
	else
	{
		uint8_t		b[8];
		int			n = ply_size[type];
		uint64_t	u = 0;

		if (r->size - r->pos < (size_t) n)
			return exg_fail(err, EXG_ERR_CORRUPT, "PLY: the data ends at byte %zu before the header's counts are read",
							r->size);
		memcpy(b, r->data + r->pos, (size_t) n);
		r->pos += (size_t) n;
		for (int i = 0; i < n; i++)
			u |= (uint64_t) b[r->encoding == EXG_PLY_BINARY_LE ? i : n - 1 - i] << (8 * i);
		switch (type)
		{
			case PLY_I8: *out = (int8_t) u; break;
			case PLY_U8: *out = (uint8_t) u; break;
			case PLY_I16: *out = (int16_t) u; break;
			case PLY_U16: *out = (uint16_t) u; break;
			case PLY_I32: *out = (int32_t) u; break;
			case PLY_U32: *out = (uint32_t) u; break;
			case PLY_F32:
				{
					uint32_t	w = (uint32_t) u;
					float		f;

					memcpy(&f, &w, sizeof(f));
					*out = f;
					break;
				}
			default:
				memcpy(out, &u, sizeof(*out));
				break;
		}
		return EXG_OK;
	}
}

/* Where the reader is, for messages. */
static void
ply_where(const ply_reader *r, const char *elem, uint64_t rec, char *buf, size_t n)
{
	if (r->encoding == EXG_PLY_ASCII)
		snprintf(buf, n, "PLY line %lu (%s %lu)", (unsigned long) r->text.line, elem,
				 (unsigned long) rec + 1);
	else
		snprintf(buf, n, "PLY byte %zu (%s %lu)", r->pos, elem, (unsigned long) rec + 1);
}

static exg_status
ply_header(mesh_text *t, int *encoding, ply_element *el, int *nel, exg_error *err)
{
	const char *tok;
	size_t		len;
	bool		have_format = false;

	*nel = 0;
	if (!mesh_text_next_line(t) || !mesh_text_token(t, &tok, &len) || !mesh_text_is(tok, len, "ply"))
		return exg_fail(err, EXG_ERR_CORRUPT, "PLY line 1: the file does not begin with \"ply\"");
	while (mesh_text_next_line(t))
	{
		unsigned long line = (unsigned long) t->line;

		if (!mesh_text_token(t, &tok, &len))
			continue;
		if (mesh_text_is(tok, len, "end_header"))
		{
			if (!have_format)
				return exg_fail(err, EXG_ERR_CORRUPT, "PLY: the header has no format line");
			return EXG_OK;
		}
		if (mesh_text_is(tok, len, "comment") || mesh_text_is(tok, len, "obj_info"))
			continue;
		if (mesh_text_is(tok, len, "format"))
		{
			if (!mesh_text_token(t, &tok, &len))
				return exg_fail(err, EXG_ERR_CORRUPT, "PLY line %lu: format without a name", line);
			if (mesh_text_is(tok, len, "ascii"))
				*encoding = EXG_PLY_ASCII;
			else if (mesh_text_is(tok, len, "binary_little_endian"))
				*encoding = EXG_PLY_BINARY_LE;
			else if (mesh_text_is(tok, len, "binary_big_endian"))
				*encoding = EXG_PLY_BINARY_BE;
			else
				return exg_fail(err, EXG_ERR_CORRUPT, "PLY line %lu: unknown format \"%.*s\"",
								line, (int) (len > 30 ? 30 : len), tok);
			have_format = true;
		}
		else if (mesh_text_is(tok, len, "element"))
		{
			ply_element *e;
			uint64_t	c = 0;

			if (*nel == PLY_MAX_ELEMENTS)
				return exg_fail(err, EXG_ERR_CORRUPT, "PLY line %lu: more than %d elements", line,
								PLY_MAX_ELEMENTS);
			e = &el[(*nel)++];
			memset(e, 0, sizeof(*e));
			if (!mesh_text_token(t, &tok, &len))
				return exg_fail(err, EXG_ERR_CORRUPT, "PLY line %lu: element without a name", line);
			snprintf(e->name, sizeof(e->name), "%.*s", (int) len, tok);
			if (!mesh_text_token(t, &tok, &len) || len == 0 || len > 19)
				return exg_fail(err, EXG_ERR_CORRUPT, "PLY line %lu: element without a count", line);
			for (size_t i = 0; i < len; i++)
			{
				if (tok[i] < '0' || tok[i] > '9')
					return exg_fail(err, EXG_ERR_CORRUPT, "PLY line %lu: \"%.*s\" is not an element count",
									line, (int) len, tok);
				c = c * 10 + (uint64_t) (tok[i] - '0');
			}
			e->count = c;
		}
		else if (mesh_text_is(tok, len, "property"))
		{
			ply_element *e = *nel ? &el[*nel - 1] : NULL;
			ply_property *p;
			bool		list = false;

			if (e == NULL)
				return exg_fail(err, EXG_ERR_CORRUPT, "PLY line %lu: a property before any element", line);
			if (e->nprops == PLY_MAX_PROPERTIES)
				return exg_fail(err, EXG_ERR_CORRUPT, "PLY line %lu: more than %d properties", line,
								PLY_MAX_PROPERTIES);
			p = &e->props[e->nprops++];
			memset(p, 0, sizeof(*p));
			if (!mesh_text_token(t, &tok, &len))
				return exg_fail(err, EXG_ERR_CORRUPT, "PLY line %lu: property without a type", line);
			if (mesh_text_is(tok, len, "list"))
			{
				list = true;
				if (!mesh_text_token(t, &tok, &len) ||
					(p->count_type = ply_type_of(tok, len)) == PLY_NONE ||
					p->count_type == PLY_F32 || p->count_type == PLY_F64)
					return exg_fail(err, EXG_ERR_CORRUPT, "PLY line %lu: a list needs an integer count type", line);
				if (!mesh_text_token(t, &tok, &len))
					return exg_fail(err, EXG_ERR_CORRUPT, "PLY line %lu: list without an item type", line);
			}
			if ((p->type = ply_type_of(tok, len)) == PLY_NONE)
				return exg_fail(err, EXG_ERR_CORRUPT, "PLY line %lu: unknown property type \"%.*s\"",
								line, (int) (len > 30 ? 30 : len), tok);
			if (!mesh_text_token(t, &tok, &len))
				return exg_fail(err, EXG_ERR_CORRUPT, "PLY line %lu: property without a name", line);
			if (strcmp(e->name, "vertex") == 0 && !list)
				p->role = mesh_text_is(tok, len, "x") ? 1 : mesh_text_is(tok, len, "y") ? 2 :
					mesh_text_is(tok, len, "z") ? 3 : 0;
			else if (strcmp(e->name, "face") == 0 && list &&
					 (mesh_text_is(tok, len, "vertex_indices") || mesh_text_is(tok, len, "vertex_index")))
			{
				if (p->type == PLY_F32 || p->type == PLY_F64)
					return exg_fail(err, EXG_ERR_CORRUPT, "PLY line %lu: vertex indices of a float type", line);
				p->role = 4;
			}
		}
		else
			return exg_fail(err, EXG_ERR_CORRUPT, "PLY line %lu: unknown header line \"%.*s\"",
							line, (int) (len > 30 ? 30 : len), tok);
	}
	return exg_fail(err, EXG_ERR_CORRUPT, "PLY: the header has no end_header line");
}

exg_status
exg_mesh_read_ply(const uint8_t *data, size_t size, exg_mesh *out, exg_error *err)
{
	ply_element *el;
	ply_reader	r;
	int			nel = 0,
				encoding = EXG_PLY_ASCII;
	bool		have_vertices = false;
	uint32_t   *face = NULL;
	size_t		face_cap = 0;
	exg_status	st;
	uint64_t	polled = 0;

	el = malloc(sizeof(ply_element) * PLY_MAX_ELEMENTS);
	if (el == NULL)
		return exg_fail(err, EXG_ERR_NOMEM, "out of memory reading PLY");
	memset(&r, 0, sizeof(r));
	mesh_text_init(&r.text, data, size);
	st = ply_header(&r.text, &encoding, el, &nel, err);
	r.encoding = encoding;
	r.data = data;
	r.size = size;
	r.pos = r.text.pos;

	for (int e = 0; st == EXG_OK && e < nel; e++)
	{
		ply_element *E = &el[e];
		bool		is_vertex = strcmp(E->name, "vertex") == 0,
					is_face = strcmp(E->name, "face") == 0;
		int			roles = 0;
		size_t		min_bytes = 0;
		char		where[160];

		for (int p = 0; p < E->nprops; p++)
		{
			roles |= 1 << E->props[p].role;
			min_bytes += (size_t) ply_size[E->props[p].count_type != PLY_NONE ?
											E->props[p].count_type : E->props[p].type];
		}
		if (E->count > 0 && E->nprops == 0)
		{
			st = exg_fail(err, EXG_ERR_CORRUPT, "PLY: element %s has %lu records and no property",
						  E->name, (unsigned long) E->count);
			break;
		}
		if (is_vertex && (roles & 0xe) != 0xe)
		{
			st = exg_fail(err, EXG_ERR_CORRUPT, "PLY: the vertex element lacks property x, y or z");
			break;
		}
		if (is_face && !(roles & 0x10))
		{
			st = exg_fail(err, EXG_ERR_CORRUPT, "PLY: the face element has no list vertex_indices");
			break;
		}
		if (is_face && !have_vertices)
		{
			st = exg_fail(err, EXG_ERR_CORRUPT, "PLY: the face element comes before the vertex element");
			break;
		}
		if (is_vertex && E->count > EXG_MESH_MAX_VERTICES)
		{
			st = exg_fail(err, EXG_ERR_TOO_LARGE, "PLY: %lu vertices (at most %u)",
						  (unsigned long) E->count, EXG_MESH_MAX_VERTICES);
			break;
		}
		/* binary: the announced count must fit in what is left of the file */
		if (encoding != EXG_PLY_ASCII && E->count > (r.size - r.pos) / (min_bytes ? min_bytes : 1))
		{
			st = exg_fail(err, EXG_ERR_CORRUPT,
						  "PLY: the header announces %lu %s records of at least %zu bytes, but %zu bytes follow it",
						  (unsigned long) E->count, E->name, min_bytes, r.size - r.pos);
			break;
		}
		if (is_vertex)
			have_vertices = true;
		for (uint64_t rec = 0; st == EXG_OK && rec < E->count; rec++)
		{
			double		xyz[3] = {0, 0, 0};
			uint32_t	n = 0;

			if ((++polled & (EXG_CANCEL_STRIDE - 1)) == 0 && exg_cancel_requested())
			{
				st = exg_fail(err, EXG_ERR_INTERRUPTED, "canceled");
				break;
			}
			for (int p = 0; st == EXG_OK && p < E->nprops; p++)
			{
				ply_property *P = &E->props[p];
				double		v;

				if (P->count_type == PLY_NONE)
				{
					st = ply_value(&r, P->type, &v, err);
					if (st == EXG_OK && P->role >= 1 && P->role <= 3)
						xyz[P->role - 1] = v;
					continue;
				}
				/* a list: its count, then its items */
				st = ply_value(&r, P->count_type, &v, err);
				if (st != EXG_OK)
					break;
				if (v < 0)
				{
					ply_where(&r, E->name, rec, where, sizeof(where));
					st = exg_fail(err, EXG_ERR_CORRUPT, "%s: a list of %.0f items", where, v);
					break;
				}
				/* every item takes a byte at least: a longer list is a lie of
				 * the file, refused before any room is made for it */
				if (v > (double) (r.size - (encoding == EXG_PLY_ASCII ?
										 (size_t) (r.text.cur - r.text.data) + r.text.tok : r.pos)))
				{
					ply_where(&r, E->name, rec, where, sizeof(where));
					st = exg_fail(err, EXG_ERR_CORRUPT, "%s: a list of %.0f items, more than the rest of the file holds",
								  where, v);
					break;
				}
				if (P->role == 4 && v > face_cap)
				{
					uint32_t   *q = realloc(face, sizeof(uint32_t) * (size_t) v);

					if (q == NULL)
					{
						st = exg_fail(err, EXG_ERR_NOMEM, "out of memory reading PLY");
						break;
					}
					face = q;
					face_cap = (size_t) v;
				}
				for (uint32_t k = 0; st == EXG_OK && k < (uint32_t) v; k++)
				{
					double		item;

					st = ply_value(&r, P->type, &item, err);
					if (st == EXG_OK && P->role == 4)
					{
						if (item < 0 || item >= out->nverts)
						{
							ply_where(&r, E->name, rec, where, sizeof(where));
							st = exg_fail(err, EXG_ERR_CORRUPT, "%s: vertex index %.0f does not exist (%u vertices, counted from 0)",
										  where, item, out->nverts);
						}
						else
							face[n++] = (uint32_t) item;
					}
				}
			}
			if (st == EXG_ERR_CORRUPT && strncmp(err->message, "PLY: the data ends", 18) == 0)
			{
				/* the record the file ends in: what a cut file lost */
				snprintf(where, sizeof(where), "PLY: the data ends inside %s %lu of %lu, before the header's counts are read",
						 E->name, (unsigned long) rec + 1, (unsigned long) E->count);
				st = exg_fail(err, st, "%s", where);
			}
			if (st != EXG_OK)
				break;
			ply_where(&r, E->name, rec, where, sizeof(where));
			if (is_vertex)
			{
				st = exg_mesh_add_vertex(out, xyz[0], xyz[1], xyz[2], err);
				if (st == EXG_ERR_NONFINITE)
					st = exg_fail(err, st, "%s: a NaN or infinite coordinate", where);
			}
			else if (is_face)
				st = exg_mesh_add_face(out, face, n, where, err);
		}
	}
	free(el);
	free(face);
	return st;
}

/* ---- writing ---- */

static void
put_u32(mesh_out *o, uint32_t v, bool be)
{
	uint8_t		b[4];

	for (int i = 0; i < 4; i++)
		b[be ? 3 - i : i] = (uint8_t) (v >> (8 * i));
	mesh_out_bytes(o, b, 4);
}

static void
put_f64(mesh_out *o, double d, bool be)
{
	uint64_t	u;
	uint8_t		b[8];

	memcpy(&u, &d, sizeof(u));
	for (int i = 0; i < 8; i++)
		b[be ? 7 - i : i] = (uint8_t) (u >> (8 * i));
	mesh_out_bytes(o, b, 8);
}

exg_status
exg_mesh_write_ply(const exg_mesh *m, exg_ply_encoding enc, char **out, size_t *len,
				   exg_error *err)
{
	mesh_out	o = {0};
	char		line[160];
	int			n;
	bool		be = enc == EXG_PLY_BINARY_BE;

	n = snprintf(line, sizeof(line),
				 "ply\nformat %s 1.0\ncomment exactgpu\nelement vertex %u\n"
				 "property double x\nproperty double y\nproperty double z\n",
				 enc == EXG_PLY_ASCII ? "ascii" : be ? "binary_big_endian" : "binary_little_endian",
				 m->nverts);
	mesh_out_bytes(&o, line, (size_t) n);
	n = snprintf(line, sizeof(line),
				 "element face %u\nproperty list uchar uint vertex_indices\nend_header\n", m->ntris);
	mesh_out_bytes(&o, line, (size_t) n);
	for (uint32_t v = 0; v < m->nverts && !o.failed; v++)
	{
		const double *p = &m->xyz[3 * (size_t) v];

		if ((v & (EXG_CANCEL_STRIDE - 1)) == 0 && exg_cancel_requested())
		{
			free(o.buf);
			return exg_fail(err, EXG_ERR_INTERRUPTED, "canceled");
		}
		if (enc != EXG_PLY_ASCII)
		{
			for (int k = 0; k < 3; k++)
				put_f64(&o, p[k], be);
			continue;
		}
		n = 0;
		for (int k = 0; k < 3; k++)
		{
			if (k)
				line[n++] = ' ';
			n += exg_mesh_format_double(line + n, p[k]);
		}
		line[n++] = '\n';
		mesh_out_bytes(&o, line, (size_t) n);
	}
	for (uint32_t t = 0; t < m->ntris && !o.failed; t++)
	{
		const uint32_t *v = &m->tri[3 * (size_t) t];

		if ((t & (EXG_CANCEL_STRIDE - 1)) == 0 && exg_cancel_requested())
		{
			free(o.buf);
			return exg_fail(err, EXG_ERR_INTERRUPTED, "canceled");
		}
		if (enc != EXG_PLY_ASCII)
		{
			uint8_t		three = 3;

			mesh_out_bytes(&o, &three, 1);
			for (int k = 0; k < 3; k++)
				put_u32(&o, v[k], be);
			continue;
		}
		n = snprintf(line, sizeof(line), "3 %u %u %u\n", v[0], v[1], v[2]);
		mesh_out_bytes(&o, line, (size_t) n);
	}
	if (o.failed)
		return exg_fail(err, EXG_ERR_NOMEM, "out of memory writing PLY");
	*out = o.buf;
	*len = o.len;
	return EXG_OK;
}
