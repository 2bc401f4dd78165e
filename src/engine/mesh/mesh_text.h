/*
 * mesh_text.h — lines and whitespace-separated tokens of a text mesh file
 * (OBJ, ASCII PLY and STL, DXF), for the readers of this family only.
 * Nothing is NUL-terminated: a file is bytes and a length. Lines end at
 * "\n", "\r\n" or a lone "\r".
 */
#ifndef EXG_MESH_TEXT_H
#define EXG_MESH_TEXT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef struct mesh_text
{
	const char *data;
	size_t		size;
	size_t		pos;			/* start of the next line */
	uint64_t	line;			/* 1-based number of the current line */
	const char *cur;			/* the current line, without its end */
	size_t		len;
	size_t		tok;			/* next token search position in cur */
} mesh_text;

static inline void
mesh_text_init(mesh_text *t, const uint8_t *data, size_t size)
{
	t->data = (const char *) data;
	t->size = size;
	t->pos = 0;
	t->line = 0;
	t->cur = NULL;
	t->len = 0;
	t->tok = 0;
}

/* The next line into t->cur / t->len; false at the end of the data. */
static inline bool
mesh_text_next_line(mesh_text *t)
{
	size_t		i = t->pos;

	if (i >= t->size)
		return false;
	while (i < t->size && t->data[i] != '\n' && t->data[i] != '\r')
		i++;
	t->cur = t->data + t->pos;
	t->len = i - t->pos;
	t->tok = 0;
	t->line++;
	if (i < t->size && t->data[i] == '\r')
	{
		i++;
		if (i < t->size && t->data[i] == '\n')
			i++;
	}
	else if (i < t->size)
		i++;					/* the '\n' */
	t->pos = i;
	return true;
}

static inline bool
mesh_text_space(char c)
{
	return c == ' ' || c == '\t' || c == '\f' || c == '\v';
}

/* The next token of the current line; false when none is left. */
static inline bool
mesh_text_token(mesh_text *t, const char **tok, size_t *len)
{
	size_t		i = t->tok,
				s;

	while (i < t->len && mesh_text_space(t->cur[i]))
		i++;
	if (i >= t->len)
	{
		t->tok = i;
		return false;
	}
	s = i;
	while (i < t->len && !mesh_text_space(t->cur[i]))
		i++;
	*tok = t->cur + s;
	*len = i - s;
	t->tok = i;
	return true;
}

/* The rest of the current line, trimmed. */
static inline void
mesh_text_rest(mesh_text *t, const char **s, size_t *len)
{
	size_t		i = t->tok,
				e = t->len;

	while (i < e && mesh_text_space(t->cur[i]))
		i++;
	while (e > i && mesh_text_space(t->cur[e - 1]))
		e--;
	*s = t->cur + i;
	*len = e - i;
	t->tok = t->len;
}

static inline bool
mesh_text_is(const char *tok, size_t len, const char *word)
{
	size_t		i = 0;

	for (; i < len && word[i] != '\0'; i++)
		if (tok[i] != word[i])
			return false;
	return i == len && word[i] == '\0';
}

/* ---- writing: a growing byte buffer ---- */

typedef struct mesh_out
{
	char	   *buf;
	size_t		len;
	size_t		cap;
	bool		failed;			/* an allocation failed: the buffer is freed */
} mesh_out;

static inline bool
mesh_out_reserve(mesh_out *o, size_t more)
{
	size_t		c = o->cap ? o->cap : 4096;
	char	   *q;

	if (o->failed)
		return false;
	if (o->len + more <= o->cap)
		return true;
	while (c < o->len + more)
		c *= 2;
	q = realloc(o->buf, c);
	if (q == NULL)
	{
		free(o->buf);
		o->buf = NULL;
		o->failed = true;
		return false;
	}
	o->buf = q;
	o->cap = c;
	return true;
}

static inline void
mesh_out_bytes(mesh_out *o, const void *p, size_t n)
{
	if (mesh_out_reserve(o, n))
	{
		memcpy(o->buf + o->len, p, n);
		o->len += n;
	}
}

static inline void
mesh_out_str(mesh_out *o, const char *s)
{
	mesh_out_bytes(o, s, strlen(s));
}

#endif							/* EXG_MESH_TEXT_H */
