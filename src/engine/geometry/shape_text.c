/*
 * shape_text.c — a deterministic text dump of a parsed shape.
 */
#include "shape_text.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

typedef struct text_buf
{
	char	   *s;
	size_t		len;
	size_t		cap;
	bool		failed;
} text_buf;

static void
tb_printf(text_buf *tb, const char *fmt,...)
	__attribute__((format(printf, 2, 3)));

static void
tb_printf(text_buf *tb, const char *fmt,...)
{
	va_list		ap;
	int			n;

	if (tb->failed)
		return;
	for (;;)
	{
		va_start(ap, fmt);
		n = vsnprintf(tb->s + tb->len, tb->cap - tb->len, fmt, ap);
		va_end(ap);
		if (n < 0)
		{
			tb->failed = true;
			return;
		}
		if ((size_t) n < tb->cap - tb->len)
		{
			tb->len += (size_t) n;
			return;
		}
		{
			size_t		ncap = tb->cap * 2;
			char	   *ns;

			while (ncap - tb->len <= (size_t) n)
				ncap *= 2;
			ns = realloc(tb->s, ncap);
			if (ns == NULL)
			{
				tb->failed = true;
				return;
			}
			tb->s = ns;
			tb->cap = ncap;
		}
	}
}

static const char *
kind_name(uint8_t kind)
{
	switch (kind)
	{
		case EXG_COMP_POINT:
			return "POINT";
		case EXG_COMP_LINE:
			return "LINE";
		case EXG_COMP_POLYGON:
			return "POLYGON";
		case EXG_COMP_TRIANGLE:
			return "TRIANGLE";
	}
	return NULL;
}

char *
exg_shape_to_text(const exg_shape *s)
{
	text_buf	tb = {0};

	tb.cap = 256;
	tb.s = malloc(tb.cap);
	if (tb.s == NULL)
		return NULL;
	tb.s[0] = '\0';

	tb_printf(&tb, "shape srid=%ld type=%lu z=%d m=%d solid=%d comps=%zu\n",
			  (long) s->srid, (unsigned long) s->geom_type,
			  s->has_z ? 1 : 0, s->has_m ? 1 : 0, s->is_solid ? 1 : 0,
			  s->ncomps);
	for (size_t c = 0; c < s->ncomps; c++)
	{
		const exg_comp *comp = &s->comps[c];
		const char *name = kind_name(comp->kind);

		if (name != NULL)
			tb_printf(&tb, "comp %s patch=%d rings=%lu\n", name,
					  comp->is_patch ? 1 : 0, (unsigned long) comp->nrings);
		else
			tb_printf(&tb, "comp KIND%d patch=%d rings=%lu\n", (int) comp->kind,
					  comp->is_patch ? 1 : 0, (unsigned long) comp->nrings);
		for (size_t r = comp->first_ring; r < (size_t) comp->first_ring + comp->nrings; r++)
		{
			tb_printf(&tb, "ring %zu:", exg_ring_nverts(s, r));
			for (size_t v = s->ring_start[r]; v < s->ring_start[r + 1]; v++)
			{
				const double *p = exg_vertex(s, v);

				tb_printf(&tb, "%s %.17g %.17g %.17g",
						  v == s->ring_start[r] ? "" : ",", p[0], p[1], p[2]);
			}
			tb_printf(&tb, "\n");
		}
	}
	if (tb.failed)
	{
		free(tb.s);
		return NULL;
	}
	return tb.s;
}
