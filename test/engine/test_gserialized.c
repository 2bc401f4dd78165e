/*
 * test_gserialized.c — the GSERIALIZED reader, without a server.
 *
 * Three sources of bytes:
 *   1. a small WKT reader and a GSERIALIZED writer in this file, which build
 *      every case in version 1 and version 2, with and without box, extended
 *      flags and solid flag, under several SRIDs;
 *   2. byte strings that PostGIS 3.3.2 itself wrote (captured on Debian 12
 *      with a throwaway raw_bytes(geometry) function), which also pin the
 *      writer of (1) to PostGIS's payload layout;
 *   3. hand-made malformed buffers.
 * Many rows at once (exg_batch_add_rows, exg_rows_boxes, on several threads)
 * must equal row-by-row reading, and report the first bad row.
 * Then robustness: every truncation of every buffer, and random mutations,
 * must give an error or a well-formed shape, never a crash or an overread
 * (buffers are exact-size heap copies so that ASan/valgrind see overreads).
 *
 *   test_gserialized [fuzz-iterations [seed]]   exit 0 when all pass
 *   test_gserialized --emit-hex                 print "label<TAB>hex" of the
 *                                               built buffers, for checking
 *                                               them against a live PostGIS
 */
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "batch.h"
#include "exg_status.h"
#include "geom_shape.h"
#include "gserialized_read.h"
#include "shape_text.h"
#include "harness.h"

static int	n_checks;

static void *
xmalloc(size_t n)
{
	void	   *p = malloc(n ? n : 1);

	if (p == NULL)
	{
		fprintf(stderr, "out of memory\n");
		exit(2);
	}
	return p;
}

/* ---------------------------------------------------------------- bytes */

typedef struct bytes
{
	uint8_t    *b;
	size_t		n;
	size_t		cap;
} bytes;

static void
put(bytes *o, const void *p, size_t n)
{
	if (o->n + n > o->cap)
	{
		o->cap = (o->n + n) * 2 + 64;
		o->b = realloc(o->b, o->cap);
		if (o->b == NULL)
			exit(2);
	}
	memcpy(o->b + o->n, p, n);
	o->n += n;
}

static void
put_u32(bytes *o, uint32_t v)
{
	put(o, &v, 4);
}

static void
put_f64(bytes *o, double v)
{
	put(o, &v, 8);
}

static int
hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

static bytes
from_hex(const char *h)
{
	bytes		o = {0};
	size_t		len = strlen(h);

	if (len % 2 != 0)
	{
		fprintf(stderr, "odd hex length\n");
		exit(2);
	}
	for (size_t i = 0; i < len; i += 2)
	{
		uint8_t		v = (uint8_t) (hexval(h[i]) * 16 + hexval(h[i + 1]));

		put(&o, &v, 1);
	}
	return o;
}

/* ---------------------------------------------------------- tiny WKT */

enum
{
	T_POINT = 1, T_LINE, T_POLY, T_MPOINT, T_MLINE, T_MPOLY, T_COLL,
	T_CIRC, T_COMPOUND, T_CURVEPOLY, T_MCURVE, T_MSURF, T_PHS, T_TRI, T_TIN
};

static const char *const type_kw[] = {
	"", "POINT", "LINESTRING", "POLYGON", "MULTIPOINT", "MULTILINESTRING",
	"MULTIPOLYGON", "GEOMETRYCOLLECTION", "CIRCULARSTRING", "COMPOUNDCURVE",
	"CURVEPOLYGON", "MULTICURVE", "MULTISURFACE", "POLYHEDRALSURFACE",
	"TRIANGLE", "TIN"
};

typedef struct tgeom
{
	uint32_t	type;
	/* point, line, circstring, triangle: nrings is 1 (0 if empty) */
	uint32_t	nrings;
	uint32_t   *npts;
	double	  **crd;
	uint32_t	ngeoms;
	struct tgeom **geoms;
} tgeom;

typedef struct wkt
{
	const char *p;
	int			ndims;
	bool		has_z,
				has_m;
} wkt;

static void
wkt_die(const wkt *w, const char *msg)
{
	fprintf(stderr, "test WKT error: %s at \"%.30s\"\n", msg, w->p);
	exit(2);
}

static void
skip_ws(wkt *w)
{
	while (*w->p == ' ' || *w->p == '\n' || *w->p == '\t')
		w->p++;
}

static bool
accept(wkt *w, char c)
{
	skip_ws(w);
	if (*w->p == c)
	{
		w->p++;
		return true;
	}
	return false;
}

static void
expect(wkt *w, char c)
{
	if (!accept(w, c))
		wkt_die(w, "unexpected character");
}

/* Peek a keyword without consuming it; returns its length. */
static size_t
peek_word(wkt *w)
{
	size_t		n = 0;

	skip_ws(w);
	while ((w->p[n] >= 'A' && w->p[n] <= 'Z'))
		n++;
	return n;
}

static bool
accept_word(wkt *w, const char *kw)
{
	size_t		n = peek_word(w);

	if (n == strlen(kw) && strncmp(w->p, kw, n) == 0)
	{
		w->p += n;
		return true;
	}
	return false;
}

static tgeom *
tg_new(uint32_t type)
{
	tgeom	   *g = xmalloc(sizeof(tgeom));

	memset(g, 0, sizeof(*g));
	g->type = type;
	return g;
}

static void
tg_add_ring(tgeom *g, uint32_t n, double *c)
{
	g->npts = realloc(g->npts, (g->nrings + 1) * sizeof(uint32_t));
	g->crd = realloc(g->crd, (g->nrings + 1) * sizeof(double *));
	g->npts[g->nrings] = n;
	g->crd[g->nrings] = c;
	g->nrings++;
}

static void
tg_add_geom(tgeom *g, tgeom *m)
{
	g->geoms = realloc(g->geoms, (g->ngeoms + 1) * sizeof(tgeom *));
	g->geoms[g->ngeoms++] = m;
}

static void
tg_free(tgeom *g)
{
	for (uint32_t i = 0; i < g->nrings; i++)
		free(g->crd[i]);
	for (uint32_t i = 0; i < g->ngeoms; i++)
		tg_free(g->geoms[i]);
	free(g->npts);
	free(g->crd);
	free(g->geoms);
	free(g);
}

/* '(' x y [z] [m] (',' ...)* ')' as one ring, or EMPTY as a ring of 0. */
static void
parse_ptlist(wkt *w, tgeom *g)
{
	uint32_t	n = 0;
	double	   *c = NULL;

	if (accept_word(w, "EMPTY"))
	{
		tg_add_ring(g, 0, NULL);
		return;
	}
	expect(w, '(');
	do
	{
		c = realloc(c, (n + 1) * w->ndims * sizeof(double));
		for (int d = 0; d < w->ndims; d++)
		{
			char	   *end;

			skip_ws(w);
			c[n * w->ndims + d] = strtod(w->p, &end);
			if (end == w->p)
				wkt_die(w, "expected a number");
			w->p = end;
		}
		n++;
	} while (accept(w, ','));
	expect(w, ')');
	tg_add_ring(g, n, c);
}

static tgeom *parse_geom(wkt *w, bool top);

/* The body of a geometry of the given type, after its keyword. */
static void
parse_body(wkt *w, tgeom *g)
{
	uint32_t	member;

	switch (g->type)
	{
		case T_POINT:
		case T_LINE:
		case T_CIRC:
			parse_ptlist(w, g);
			return;
		case T_TRI:
			expect(w, '(');
			parse_ptlist(w, g);
			expect(w, ')');
			return;
		case T_POLY:
			expect(w, '(');
			do
				parse_ptlist(w, g);
			while (accept(w, ','));
			expect(w, ')');
			return;
		case T_MPOINT:
			member = T_POINT;
			break;
		case T_MLINE:
		case T_COMPOUND:
		case T_CURVEPOLY:
		case T_MCURVE:
			member = T_LINE;
			break;
		case T_MPOLY:
		case T_MSURF:
		case T_PHS:
			member = T_POLY;
			break;
		case T_TIN:
			member = T_TRI;
			break;
		default:
			member = 0;
	}
	expect(w, '(');
	do
	{
		tgeom	   *m;

		if (member != 0 && (accept_word(w, "EMPTY")))
			m = tg_new(member);	/* empty member: no rings */
		else if (member != 0 && (skip_ws(w), *w->p == '('))
		{
			m = tg_new(member);
			parse_body(w, m);
		}
		else
			m = parse_geom(w, false);
		tg_add_geom(g, m);
	} while (accept(w, ','));
	expect(w, ')');
}

static tgeom *
parse_geom(wkt *w, bool top)
{
	tgeom	   *g = NULL;
	size_t		n = peek_word(w);

	for (uint32_t t = 1; t <= T_TIN; t++)
		if (n == strlen(type_kw[t]) && strncmp(w->p, type_kw[t], n) == 0)
			g = tg_new(t);
	if (g == NULL)
		wkt_die(w, "unknown keyword");
	w->p += n;
	if (accept_word(w, "ZM"))
	{
		if (top)
			w->has_z = w->has_m = true;
	}
	else if (accept_word(w, "Z"))
	{
		if (top)
			w->has_z = true;
	}
	else if (accept_word(w, "M"))
	{
		if (top)
			w->has_m = true;
	}
	if (top)
		w->ndims = 2 + w->has_z + w->has_m;
	if (accept_word(w, "EMPTY"))
	{
		if (g->type == T_POINT || g->type == T_LINE || g->type == T_CIRC ||
			g->type == T_TRI)
			tg_add_ring(g, 0, NULL);
		return g;
	}
	parse_body(w, g);
	return g;
}

static tgeom *
parse_wkt(const char *s, bool *has_z, bool *has_m)
{
	wkt			w = {.p = s};
	tgeom	   *g = parse_geom(&w, true);

	skip_ws(&w);
	if (*w.p != '\0')
		wkt_die(&w, "trailing text");
	*has_z = w.has_z;
	*has_m = w.has_m;
	return g;
}

/* ---------------------------------------------------- GSERIALIZED writer */

typedef struct gs_opts
{
	int			version;		/* 1 or 2 */
	int32_t		srid;
	bool		bbox;
	bool		extended;		/* v2: write the extended flags word */
	uint64_t	xflags;			/* v2: its value */
	bool		solid;			/* v1: the flag bit */
	bool		readonly;		/* v1: the ignored READONLY bit */
	bool		geodetic;
} gs_opts;

static void
write_payload(bytes *o, const tgeom *g, int ndims)
{
	put_u32(o, g->type);
	switch (g->type)
	{
		case T_POINT:
		case T_LINE:
		case T_CIRC:
		case T_TRI:
			{
				uint32_t	n = g->nrings ? g->npts[0] : 0;

				put_u32(o, n);
				for (uint32_t i = 0; i < n * (uint32_t) ndims; i++)
					put_f64(o, g->crd[0][i]);
				return;
			}
		case T_POLY:
			put_u32(o, g->nrings);
			for (uint32_t r = 0; r < g->nrings; r++)
				put_u32(o, g->npts[r]);
			if (g->nrings % 2)
				put_u32(o, 0);
			for (uint32_t r = 0; r < g->nrings; r++)
				for (uint32_t i = 0; i < g->npts[r] * (uint32_t) ndims; i++)
					put_f64(o, g->crd[r][i]);
			return;
		default:
			put_u32(o, g->ngeoms);
			for (uint32_t i = 0; i < g->ngeoms; i++)
				write_payload(o, g->geoms[i], ndims);
	}
}

static void
box_grow(const tgeom *g, int ndims, double *lo, double *hi)
{
	for (uint32_t r = 0; r < g->nrings; r++)
		for (uint32_t i = 0; i < g->npts[r]; i++)
			for (int d = 0; d < ndims; d++)
			{
				double		v = g->crd[r][i * ndims + d];

				if (isnan(v))
					continue;
				if (v < lo[d])
					lo[d] = v;
				if (v > hi[d])
					hi[d] = v;
			}
	for (uint32_t i = 0; i < g->ngeoms; i++)
		box_grow(g->geoms[i], ndims, lo, hi);
}

static bytes
write_gs(const tgeom *g, bool has_z, bool has_m, const gs_opts *opt)
{
	bytes		o = {0};
	int			ndims = 2 + has_z + has_m;
	uint32_t	s = (uint32_t) opt->srid & 0x1FFFFF;
	uint8_t		hdr[4] = {(uint8_t) (s >> 16), (uint8_t) (s >> 8), (uint8_t) s, 0};

	hdr[3] = (has_z ? 0x01 : 0) | (has_m ? 0x02 : 0) | (opt->bbox ? 0x04 : 0) |
		(opt->geodetic ? 0x08 : 0);
	if (opt->version == 2)
		hdr[3] |= 0x40 | (opt->extended ? 0x10 : 0);
	else
		hdr[3] |= (opt->solid ? 0x20 : 0) | (opt->readonly ? 0x10 : 0);
	put(&o, hdr, 4);
	if (opt->version == 2 && opt->extended)
		put(&o, &opt->xflags, 8);
	if (opt->bbox)
	{
		double		lo[4] = {INFINITY, INFINITY, INFINITY, INFINITY};
		double		hi[4] = {-INFINITY, -INFINITY, -INFINITY, -INFINITY};
		int			bdims = opt->geodetic ? 3 : ndims;

		box_grow(g, ndims, lo, hi);
		for (int d = 0; d < bdims; d++)
		{
			float		f[2] = {(float) lo[d], (float) hi[d]};

			put(&o, f, sizeof(f));
		}
	}
	write_payload(&o, g, ndims);
	return o;
}

/* --------------------------------------------------------- shape checks */

/* The invariants geom_shape.h promises, plus the reader's own. */
static bool
shape_well_formed(const exg_shape *s, char *why, size_t whylen)
{
#define BAD(...) do { snprintf(why, whylen, __VA_ARGS__); return false; } while (0)
	size_t		ring = 0;

	if (s->ncomps == 0)
	{
		if (s->nrings != 0 || s->nverts != 0)
			BAD("empty shape with rings or vertices");
		return true;
	}
	if (s->ring_start == NULL || s->xyz == NULL || s->comps == NULL)
		BAD("missing arrays");
	if (s->ring_start[0] != 0 || s->ring_start[s->nrings] != s->nverts)
		BAD("ring_start does not span the vertices");
	for (size_t r = 0; r < s->nrings; r++)
		if (s->ring_start[r + 1] <= s->ring_start[r])
			BAD("ring %zu empty or decreasing", r);
	for (size_t c = 0; c < s->ncomps; c++)
	{
		const exg_comp *k = &s->comps[c];

		if (k->first_ring != ring || k->nrings == 0)
			BAD("component %zu rings not contiguous", c);
		ring += k->nrings;
		if (ring > s->nrings)
			BAD("component %zu past the rings", c);
		switch (k->kind)
		{
			case EXG_COMP_POINT:
				if (k->nrings != 1 || exg_ring_nverts(s, k->first_ring) != 1 || k->is_patch)
					BAD("bad point component %zu", c);
				break;
			case EXG_COMP_LINE:
				if (k->nrings != 1 || exg_ring_nverts(s, k->first_ring) < 2 || k->is_patch)
					BAD("bad line component %zu", c);
				break;
			case EXG_COMP_TRIANGLE:
				{
					const double *a,
							   *b;

					if (k->nrings != 1 || exg_ring_nverts(s, k->first_ring) != 4)
						BAD("bad triangle component %zu", c);
					a = exg_vertex(s, s->ring_start[k->first_ring]);
					b = exg_vertex(s, s->ring_start[k->first_ring] + 3);
					if (a[0] != b[0] || a[1] != b[1] || a[2] != b[2])
						BAD("open triangle %zu", c);
					break;
				}
			case EXG_COMP_POLYGON:
				break;
			default:
				BAD("bad kind %d", k->kind);
		}
	}
	if (ring != s->nrings)
		BAD("rings outside components");
	for (size_t v = 0; v < 3 * s->nverts; v++)
		if (!isfinite(s->xyz[v]) || (!s->has_z && v % 3 == 2 && s->xyz[v] != 0.0))
			BAD("bad coordinate at %zu", v / 3);
	return true;
#undef BAD
}

static bool
shape_is_pristine(const exg_shape *s)
{
	return s->ncomps == 0 && s->nrings == 0 && s->nverts == 0 &&
		s->xyz == NULL && s->ring_start == NULL && s->comps == NULL;
}

/* Parse bytes from an exact-size heap copy at byte offset shift. */
static exg_status
parse_copy(const uint8_t *b, size_t n, size_t shift, exg_shape *s, exg_error *err)
{
	uint8_t    *copy = xmalloc(n + shift);
	exg_status	st;

	if (n > 0)
		memcpy(copy + shift, b, n);
	exg_shape_init(s);
	memset(err, 0, sizeof(*err));
	/* b == NULL stands for a caller passing no buffer at all */
	st = exg_gserialized_read(b == NULL ? NULL : copy + shift, n, s, err);
	free(copy);
	return st;
}

static int
count_comps(const char *body)
{
	int			n = 0;

	for (const char *p = body; (p = strstr(p, "comp ")) != NULL; p++)
		if (p == body || p[-1] == '\n')
			n++;
	return n;
}

static char *
fmt(const char *f,...)
{
	va_list		ap;
	char	   *s;
	int			n;

	va_start(ap, f);
	n = vsnprintf(NULL, 0, f, ap);
	va_end(ap);
	s = xmalloc((size_t) n + 1);
	va_start(ap, f);
	vsnprintf(s, (size_t) n + 1, f, ap);
	va_end(ap);
	return s;
}

/* Parse b (at a few alignments) and compare the dump with want. */
static void
check_parse(const char *label, const uint8_t *b, size_t n, const char *want)
{
	for (size_t shift = 0; shift < 4; shift += 3)
	{
		exg_shape	s;
		exg_error	err;
		exg_status	st = parse_copy(b, n, shift, &s, &err);
		char		why[128];

		n_checks++;
		if (st != EXG_OK)
		{
			FAIL("%s (shift %zu): %s: %s", label, shift, exg_status_name(st), err.message);
			continue;
		}
		if (!shape_well_formed(&s, why, sizeof(why)))
			FAIL("%s: malformed shape: %s", label, why);
		else
		{
			char	   *got = exg_shape_to_text(&s);

			if (got == NULL || strcmp(got, want) != 0)
				FAIL("%s (shift %zu):\n--- want\n%s--- got\n%s", label, shift, want,
					 got ? got : "(null)");
			free(got);
		}
		{
			int32_t		srid = 0;
			exg_status	st2 = exg_gserialized_srid(b, n, &srid, &err);

			if (st2 != EXG_OK || srid != s.srid)
				FAIL("%s: exg_gserialized_srid gave %d, shape has %d", label, srid, s.srid);
		}
		exg_shape_free(&s);
	}
}

/* Must fail with want_st and, if given, a message containing want_msg. */
static void
check_error(const char *label, const uint8_t *b, size_t n, exg_status want_st,
			const char *want_msg)
{
	exg_shape	s;
	exg_error	err;
	exg_status	st = parse_copy(b, n, 1, &s, &err);

	n_checks++;
	if (st != want_st)
		FAIL("%s: want %s, got %s (%s)", label, exg_status_name(want_st),
			 exg_status_name(st), st == EXG_OK ? "" : err.message);
	else if (err.status != st)
		FAIL("%s: err.status %d does not match returned %d", label, err.status, st);
	else if (want_msg != NULL && strstr(err.message, want_msg) == NULL)
		FAIL("%s: message \"%s\" lacks \"%s\"", label, err.message, want_msg);
	if (!shape_is_pristine(&s))
		FAIL("%s: shape not freed after error", label);
	exg_shape_free(&s);
}

/* ----------------------------------------------------- corpus for fuzzing */

typedef struct corpus
{
	bytes	   *items;
	size_t		n;
} corpus;

static corpus all_buffers;

static void
keep(const uint8_t *b, size_t n)
{
	bytes		c = {0};

	put(&c, b, n);
	all_buffers.items = realloc(all_buffers.items, (all_buffers.n + 1) * sizeof(bytes));
	all_buffers.items[all_buffers.n++] = c;
}

/* ------------------------------------------------------------ WKT cases */

typedef struct wkt_case
{
	const char *wkt;
	const char *body;			/* expected dump after the "shape" line */
} wkt_case;

static const wkt_case wkt_cases[] = {
	{"POINT(1 2)", "comp POINT patch=0 rings=1\nring 1: 1 2 0\n"},
	{"POINT Z (1 2 3)", "comp POINT patch=0 rings=1\nring 1: 1 2 3\n"},
	{"POINT M (1 2 3)", "comp POINT patch=0 rings=1\nring 1: 1 2 0\n"},
	{"POINT ZM (1 2 3 4)", "comp POINT patch=0 rings=1\nring 1: 1 2 3\n"},
	{"POINT EMPTY", ""},
	{"POINT ZM EMPTY", ""},
	{"POINT(nan nan)", ""},
	{"POINT Z (nan nan 5)", ""},
	{"POINT(-0 0.1)", "comp POINT patch=0 rings=1\nring 1: -0 0.10000000000000001 0\n"},
	{"POINT Z (1e308 4.9e-324 -1.7976931348623157e308)",
	"comp POINT patch=0 rings=1\nring 1: 1e+308 4.9406564584124654e-324 -1.7976931348623157e+308\n"},
	{"LINESTRING(0 0,1 1,2 0.5)", "comp LINE patch=0 rings=1\nring 3: 0 0 0, 1 1 0, 2 0.5 0\n"},
	{"LINESTRING ZM (0 0 1 9,1 1 2 9)", "comp LINE patch=0 rings=1\nring 2: 0 0 1, 1 1 2\n"},
	{"LINESTRING M (0 0 1,1 1 2,3 3 3)", "comp LINE patch=0 rings=1\nring 3: 0 0 0, 1 1 0, 3 3 0\n"},
	{"LINESTRING(3 4)", "comp POINT patch=0 rings=1\nring 1: 3 4 0\n"},
	{"LINESTRING EMPTY", ""},
	{"POLYGON((0 0,10 0,10 10,0 10,0 0),(1 1,1 2,2 2,1 1))",
		"comp POLYGON patch=0 rings=2\n"
		"ring 5: 0 0 0, 10 0 0, 10 10 0, 0 10 0, 0 0 0\n"
	"ring 4: 1 1 0, 1 2 0, 2 2 0, 1 1 0\n"},
	{"POLYGON Z ((0 0 1,1 0 2,0 1 3,0 0 1))",
	"comp POLYGON patch=0 rings=1\nring 4: 0 0 1, 1 0 2, 0 1 3, 0 0 1\n"},
	{"POLYGON M ((0 0 5,9 0 5,0 9 5,0 0 5),(1 1 5,2 1 5,1 2 5,1 1 5),(3 3 5,4 3 5,3 4 5,3 3 5))",
		"comp POLYGON patch=0 rings=3\n"
		"ring 4: 0 0 0, 9 0 0, 0 9 0, 0 0 0\n"
		"ring 4: 1 1 0, 2 1 0, 1 2 0, 1 1 0\n"
	"ring 4: 3 3 0, 4 3 0, 3 4 0, 3 3 0\n"},
	{"POLYGON EMPTY", ""},
	{"POLYGON((0 0,1 0,0 1,0 0),EMPTY,(0.1 0.1,0.2 0.1,0.1 0.2,0.1 0.1))",
		"comp POLYGON patch=0 rings=2\n"
		"ring 4: 0 0 0, 1 0 0, 0 1 0, 0 0 0\n"
		"ring 4: 0.10000000000000001 0.10000000000000001 0, 0.20000000000000001 0.10000000000000001 0,"
	" 0.10000000000000001 0.20000000000000001 0, 0.10000000000000001 0.10000000000000001 0\n"},
	{"POLYGON((0 0,1 0,0 1,0 0),EMPTY)",
	"comp POLYGON patch=0 rings=1\nring 4: 0 0 0, 1 0 0, 0 1 0, 0 0 0\n"},
	{"POLYGON(EMPTY,(0 0,1 0,0 1,0 0))", ""},
	{"MULTIPOINT((1 2),EMPTY,(3 4))",
		"comp POINT patch=0 rings=1\nring 1: 1 2 0\n"
	"comp POINT patch=0 rings=1\nring 1: 3 4 0\n"},
	{"MULTIPOINT Z ((1 2 3),(nan nan nan))", "comp POINT patch=0 rings=1\nring 1: 1 2 3\n"},
	{"MULTIPOINT EMPTY", ""},
	{"MULTILINESTRING((0 0,1 1),EMPTY,(5 5),(2 2,3 3,4 2))",
		"comp LINE patch=0 rings=1\nring 2: 0 0 0, 1 1 0\n"
		"comp POINT patch=0 rings=1\nring 1: 5 5 0\n"
	"comp LINE patch=0 rings=1\nring 3: 2 2 0, 3 3 0, 4 2 0\n"},
	{"MULTIPOLYGON(((0 0,1 0,0 1,0 0)),EMPTY,((5 5,6 5,5 6,5 5),(5.25 5.25,5.5 5.25,5.25 5.5,5.25 5.25)))",
		"comp POLYGON patch=0 rings=1\nring 4: 0 0 0, 1 0 0, 0 1 0, 0 0 0\n"
		"comp POLYGON patch=0 rings=2\nring 4: 5 5 0, 6 5 0, 5 6 0, 5 5 0\n"
	"ring 4: 5.25 5.25 0, 5.5 5.25 0, 5.25 5.5 0, 5.25 5.25 0\n"},
	{"MULTIPOLYGON ZM (((0 0 1 2,1 0 1 2,0 1 1 2,0 0 1 2)))",
	"comp POLYGON patch=0 rings=1\nring 4: 0 0 1, 1 0 1, 0 1 1, 0 0 1\n"},
	{"MULTIPOLYGON EMPTY", ""},
	{"GEOMETRYCOLLECTION(POINT(1 2),LINESTRING EMPTY,POLYGON EMPTY,"
		"GEOMETRYCOLLECTION(POINT EMPTY,LINESTRING(0 0,1 1),"
		"GEOMETRYCOLLECTION(GEOMETRYCOLLECTION EMPTY,TRIANGLE((0 0,1 0,0 1,0 0)))),"
		"MULTIPOINT EMPTY,TIN(((0 0,1 0,0 1,0 0))),POLYHEDRALSURFACE(((0 0,1 0,1 1,0 1,0 0))),"
		"MULTILINESTRING((7 7,8 8)))",
		"comp POINT patch=0 rings=1\nring 1: 1 2 0\n"
		"comp LINE patch=0 rings=1\nring 2: 0 0 0, 1 1 0\n"
		"comp TRIANGLE patch=0 rings=1\nring 4: 0 0 0, 1 0 0, 0 1 0, 0 0 0\n"
		"comp TRIANGLE patch=1 rings=1\nring 4: 0 0 0, 1 0 0, 0 1 0, 0 0 0\n"
		"comp POLYGON patch=1 rings=1\nring 5: 0 0 0, 1 0 0, 1 1 0, 0 1 0, 0 0 0\n"
	"comp LINE patch=0 rings=1\nring 2: 7 7 0, 8 8 0\n"},
	{"GEOMETRYCOLLECTION EMPTY", ""},
	{"GEOMETRYCOLLECTION(GEOMETRYCOLLECTION EMPTY,MULTIPOLYGON EMPTY,POINT EMPTY)", ""},
	{"GEOMETRYCOLLECTION Z (POINT Z (1 2 3),POLYGON Z ((0 0 0,1 0 0,0 1 0,0 0 0),(0.25 0.25 0,0.5 0.25 0,0.25 0.5 0,0.25 0.25 0)))",
		"comp POINT patch=0 rings=1\nring 1: 1 2 3\n"
		"comp POLYGON patch=0 rings=2\nring 4: 0 0 0, 1 0 0, 0 1 0, 0 0 0\n"
	"ring 4: 0.25 0.25 0, 0.5 0.25 0, 0.25 0.5 0, 0.25 0.25 0\n"},
	{"TRIANGLE((0 0,1 0,0 1,0 0))",
	"comp TRIANGLE patch=0 rings=1\nring 4: 0 0 0, 1 0 0, 0 1 0, 0 0 0\n"},
	{"TRIANGLE ZM ((0 0 1 7,1 0 2 7,0 1 3 7,0 0 1 7))",
	"comp TRIANGLE patch=0 rings=1\nring 4: 0 0 1, 1 0 2, 0 1 3, 0 0 1\n"},
	{"TRIANGLE Z EMPTY", ""},
	{"TIN Z (((0 0 0,0 0 1,0 1 0,0 0 0)),((0 0 0,0 1 0,1 1 0,0 0 0)))",
		"comp TRIANGLE patch=1 rings=1\nring 4: 0 0 0, 0 0 1, 0 1 0, 0 0 0\n"
	"comp TRIANGLE patch=1 rings=1\nring 4: 0 0 0, 0 1 0, 1 1 0, 0 0 0\n"},
	{"TIN M (((0 0 3,1 0 3,0 1 3,0 0 3)),EMPTY)",
	"comp TRIANGLE patch=1 rings=1\nring 4: 0 0 0, 1 0 0, 0 1 0, 0 0 0\n"},
	{"TIN EMPTY", ""},
	{"POLYHEDRALSURFACE Z (((0 0 0,0 1 0,1 1 0,1 0 0,0 0 0)),((0 0 0,0 0 1,0 1 1,0 1 0,0 0 0)),"
		"((0 0 0,1 0 0,1 0 1,0 0 1,0 0 0)),((1 1 1,1 0 1,1 0 0,1 1 0,1 1 1)),"
		"((1 1 1,1 1 0,0 1 0,0 1 1,1 1 1)),((1 1 1,0 1 1,0 0 1,1 0 1,1 1 1)))",
		"comp POLYGON patch=1 rings=1\nring 5: 0 0 0, 0 1 0, 1 1 0, 1 0 0, 0 0 0\n"
		"comp POLYGON patch=1 rings=1\nring 5: 0 0 0, 0 0 1, 0 1 1, 0 1 0, 0 0 0\n"
		"comp POLYGON patch=1 rings=1\nring 5: 0 0 0, 1 0 0, 1 0 1, 0 0 1, 0 0 0\n"
		"comp POLYGON patch=1 rings=1\nring 5: 1 1 1, 1 0 1, 1 0 0, 1 1 0, 1 1 1\n"
		"comp POLYGON patch=1 rings=1\nring 5: 1 1 1, 1 1 0, 0 1 0, 0 1 1, 1 1 1\n"
	"comp POLYGON patch=1 rings=1\nring 5: 1 1 1, 0 1 1, 0 0 1, 1 0 1, 1 1 1\n"},
	{"POLYHEDRALSURFACE M (((0 0 7,1 0 7,1 1 7,0 0 7),(0.5 0.25 7,0.75 0.5 7,0.5 0.5 7,0.5 0.25 7)),EMPTY)",
		"comp POLYGON patch=1 rings=2\nring 4: 0 0 0, 1 0 0, 1 1 0, 0 0 0\n"
	"ring 4: 0.5 0.25 0, 0.75 0.5 0, 0.5 0.5 0, 0.5 0.25 0\n"},
	{"POLYHEDRALSURFACE EMPTY", ""},
};

typedef struct variant
{
	const char *name;
	gs_opts		o;
	bool		solid;			/* what the reader must report */
} variant;

static const variant variants[] = {
	{"v2", {.version = 2}, false},
	{"v2+box", {.version = 2, .bbox = true}, false},
	{"v2+ext0", {.version = 2, .extended = true, .xflags = 0}, false},
	{"v2+ext0+box", {.version = 2, .extended = true, .bbox = true}, false},
	{"v2+solid", {.version = 2, .extended = true, .xflags = 1}, true},
	{"v2+solid+box", {.version = 2, .extended = true, .xflags = 1, .bbox = true}, true},
	{"v2+xbits+box", {.version = 2, .extended = true, .xflags = UINT64_C(0x8000000000000006), .bbox = true}, false},
	{"v1", {.version = 1}, false},
	{"v1+box", {.version = 1, .bbox = true}, false},
	{"v1+solid", {.version = 1, .solid = true}, true},
	{"v1+solid+box+ro", {.version = 1, .solid = true, .bbox = true, .readonly = true}, true},
};

static const int32_t srids[] = {0, 4326, 32633, 999999, -3, 0xFFFFF, -0x100000};

static void
test_wkt_cases(bool emit_hex)
{
	size_t		ncases = sizeof(wkt_cases) / sizeof(wkt_cases[0]);
	size_t		nvariants = sizeof(variants) / sizeof(variants[0]);
	size_t		nsrids = sizeof(srids) / sizeof(srids[0]);
	int			before = n_checks;

	for (size_t c = 0; c < ncases; c++)
	{
		bool		has_z,
					has_m;
		tgeom	   *g = parse_wkt(wkt_cases[c].wkt, &has_z, &has_m);

		for (size_t v = 0; v < nvariants; v++)
			for (size_t k = 0; k < nsrids; k++)
			{
				gs_opts		o = variants[v].o;
				bytes		b;
				char	   *want;
				char	   *label;

				o.srid = srids[k];
				b = write_gs(g, has_z, has_m, &o);
				want = fmt("shape srid=%d type=%u z=%d m=%d solid=%d comps=%d\n%s",
						   (int) srids[k], g->type, has_z, has_m, variants[v].solid,
						   count_comps(wkt_cases[c].body), wkt_cases[c].body);
				label = fmt("%s [%s srid %d]", wkt_cases[c].wkt, variants[v].name, (int) srids[k]);
				if (emit_hex && k == 2)
				{
					printf("%s\t", label);
					for (size_t i = 0; i < b.n; i++)
						printf("%02x", b.b[i]);
					printf("\n");
				}
				else if (!emit_hex)
				{
					check_parse(label, b.b, b.n, want);
					if (k == 0 || k == 2)
						keep(b.b, b.n);
				}
				free(label);
				free(want);
				free(b.b);
			}
		tg_free(g);
	}
	if (!emit_hex)
		printf("built fixtures: %zu geometries x %zu header variants x %zu SRIDs: %d checks\n",
			   ncases, nvariants, nsrids, n_checks - before);
}

/* ------------------------------------------------- many rows in parallel */

/* The fixtures that a 3D batch accepts, repeated into rows of one buffer. */
static void
rows_from_corpus(size_t want, bytes *data, size_t **off, size_t *n)
{
	exg_batch	probe;

	exg_batch_init(&probe, 3, EXG_NONPLANAR_ERROR);
	*off = xmalloc((want + 1) * sizeof(size_t));
	(*off)[0] = 0;
	*n = 0;
	while (*n < want)
		for (size_t i = 0; i < all_buffers.n && *n < want; i++)
		{
			exg_shape	sh;
			exg_error	err = {0};
			bool		ok;

			exg_shape_init(&sh);
			ok = exg_gserialized_read(all_buffers.items[i].b, all_buffers.items[i].n, &sh, &err) == EXG_OK &&
				exg_batch_add(&probe, &sh, &err) == EXG_OK;
			exg_shape_free(&sh);
			if (!ok)
				continue;
			put(data, all_buffers.items[i].b, all_buffers.items[i].n);
			(*off)[++*n] = data->n;
		}
	exg_batch_free(&probe);
}

static bool
same_batch(const exg_batch *a, const exg_batch *b)
{
	return a->nverts == b->nverts && a->nprims == b->nprims && a->nrows == b->nrows &&
		a->nsolid == b->nsolid && a->nrows_z == b->nrows_z && a->nrows_flat == b->nrows_flat &&
		memcmp(a->xyz, b->xyz, a->nverts * 3 * sizeof(double)) == 0 &&
		memcmp(a->tri, b->tri, a->nprims * 3 * sizeof(uint32_t)) == 0 &&
		memcmp(a->owner, b->owner, a->nprims * sizeof(uint32_t)) == 0 &&
		memcmp(a->solid, b->solid, a->nrows) == 0;
}

static void
test_batch_rows(void)
{
	bytes		data = {0};
	size_t	   *off;
	size_t		n;
	exg_batch	seq;
	const int	threads[] = {1, 2, 7};

	rows_from_corpus(9000, &data, &off, &n);
	exg_batch_init(&seq, 3, EXG_NONPLANAR_ERROR);
	for (size_t i = 0; i < n; i++)
	{
		exg_shape	sh;
		exg_error	err = {0};

		exg_shape_init(&sh);
		if (exg_gserialized_read(data.b + off[i], off[i + 1] - off[i], &sh, &err) != EXG_OK ||
			exg_batch_add(&seq, &sh, &err) != EXG_OK)
			FAIL("row %zu: %s", i, err.message);
		exg_shape_free(&sh);
	}
	for (size_t t = 0; t < sizeof(threads) / sizeof(threads[0]); t++)
	{
		exg_row_bytes rows = {data.b, off, n};
		exg_batch	par;
		exg_error	err = {0};
		double	   *box = xmalloc(n * 6 * sizeof(double));
		uint8_t    *has = xmalloc(n);

		exg_batch_init(&par, 3, EXG_NONPLANAR_ERROR);
		n_checks++;
		if (exg_batch_add_rows(&par, &rows, threads[t], &err) != EXG_OK)
			FAIL("%d threads: %s", threads[t], err.message);
		else if (!same_batch(&seq, &par))
			FAIL("%d threads: batch differs from row-by-row reading", threads[t]);
		n_checks++;
		if (exg_rows_boxes(&rows, 3, threads[t], box, has, &err) != EXG_OK)
			FAIL("boxes, %d threads: %s", threads[t], err.message);
		else
			for (size_t i = 0; i < n; i++)
			{
				exg_shape	sh;
				double		lo[3],
							hi[3];
				bool		nonempty;

				exg_shape_init(&sh);
				exg_gserialized_read(data.b + off[i], off[i + 1] - off[i], &sh, &err);
				nonempty = exg_shape_extent(&sh, lo, hi);
				exg_shape_free(&sh);
				if (nonempty != has[i] ||
					(nonempty && (memcmp(lo, &box[6 * i], sizeof(lo)) || memcmp(hi, &box[6 * i + 3], sizeof(hi)))))
				{
					FAIL("boxes, %d threads: row %zu differs", threads[t], i);
					break;
				}
			}
		/* two rows cut short: the first one in row order is reported */
		{
			size_t		bad[2] = {n - 10, n / 3};
			size_t		saved[2];

			for (int k = 0; k < 2; k++)
			{
				saved[k] = off[bad[k] + 1];
				off[bad[k] + 1] = off[bad[k]] + 3;
			}
			/* (the row after each now starts mid-geometry: bad as well, but later) */
			n_checks++;
			memset(&err, 0, sizeof(err));
			if (exg_rows_boxes(&rows, 3, threads[t], box, has, &err) == EXG_OK || err.row != n / 3 + 1)
				FAIL("%d threads: bad rows %zu and %zu, reported row %llu", threads[t], bad[1], bad[0],
					 (unsigned long long) err.row);
			for (int k = 0; k < 2; k++)
				off[bad[k] + 1] = saved[k];
		}
		exg_batch_free(&par);
		free(box);
		free(has);
	}
	printf("many rows: %zu rows parsed on 1, 2 and 7 threads equal row-by-row reading\n", n);
	exg_batch_free(&seq);
	free(off);
	free(data.b);
}

/* A collection nested depth levels deep around POINT(1 2). */
static void
test_deep_nesting(void)
{
	const size_t depths[] = {1, 15, 16, 17, 40, 200, 100000};

	for (size_t i = 0; i < sizeof(depths) / sizeof(depths[0]); i++)
	{
		bytes		b = {0};
		uint8_t		hdr[4] = {0, 0, 0, 0x40};
		char	   *label = fmt("nested %zu deep", depths[i]);

		put(&b, hdr, 4);
		for (size_t d = 0; d < depths[i]; d++)
		{
			put_u32(&b, T_COLL);
			put_u32(&b, 1);
		}
		put_u32(&b, T_POINT);
		put_u32(&b, 1);
		put_f64(&b, 1);
		put_f64(&b, 2);
		check_parse(label, b.b, b.n,
					"shape srid=0 type=7 z=0 m=0 solid=0 comps=1\n"
					"comp POINT patch=0 rings=1\nring 1: 1 2 0\n");
		/* one level short of members: the innermost collection lacks its point */
		check_error(label, b.b, b.n - 24, EXG_ERR_CORRUPT, NULL);
		if (depths[i] <= 40)
			keep(b.b, b.n);
		free(label);
		free(b.b);
	}
}

/* -------------------------------------------------- PostGIS 3.3.2 bytes */

/*
 * Captured from PostGIS 3.3.2 (postgresql-15-postgis-3 3.3.2+dfsg-1+b1,
 * Debian 12, x86-64) with encode(raw_bytes(g), 'hex'), where raw_bytes
 * returns the detoasted varlena minus its header. wkt, when not NULL, is
 * also serialized by write_gs to check that writer against PostGIS.
 */
typedef struct real_case
{
	const char *input;			/* what PostGIS was given */
	const char *wkt;			/* the same, for write_gs (NULL: skip) */
	const char *hex;
	exg_status	status;
	const char *want;			/* full dump, or error message fragment */
} real_case;

static const real_case real_cases[] = {
	{"POINT(1 2)", "POINT(1 2)",
		"000000400100000001000000000000000000f03f0000000000000040", EXG_OK,
		"shape srid=0 type=1 z=0 m=0 solid=0 comps=1\n"
	"comp POINT patch=0 rings=1\nring 1: 1 2 0\n"},
	{"POINT EMPTY", "POINT EMPTY", "000000400100000000000000", EXG_OK,
	"shape srid=0 type=1 z=0 m=0 solid=0 comps=0\n"},
	{"ST_MakePoint('NaN','NaN')", "POINT(nan nan)",
		"000000400100000001000000000000000000f87f000000000000f87f", EXG_OK,
	"shape srid=0 type=1 z=0 m=0 solid=0 comps=0\n"},
	{"SRID=32633;POINT Z (500000.5 4649776.25 12.5)", "POINT Z (500000.5 4649776.25 12.5)",
		"007f794101000000010000000000000082841e4100000010ccbc51410000000000002940", EXG_OK,
		"shape srid=32633 type=1 z=1 m=0 solid=0 comps=1\n"
	"comp POINT patch=0 rings=1\nring 1: 500000.5 4649776.25 12.5\n"},
	{"POINT M (1 2 3)", "POINT M (1 2 3)",
		"000000420100000001000000000000000000f03f00000000000000400000000000000840", EXG_OK,
		"shape srid=0 type=1 z=0 m=1 solid=0 comps=1\n"
	"comp POINT patch=0 rings=1\nring 1: 1 2 0\n"},
	{"POINT ZM (1 2 3 4)", "POINT ZM (1 2 3 4)",
		"000000430100000001000000000000000000f03f000000000000004000000000000008400000000000001040",
		EXG_OK,
		"shape srid=0 type=1 z=1 m=1 solid=0 comps=1\n"
	"comp POINT patch=0 rings=1\nring 1: 1 2 3\n"},
	{"SRID=-1;POINT(0.1 -0.2) (PostGIS maps -1 to 0)", "POINT(0.1 -0.2)",
		"0000004001000000010000009a9999999999b93f9a9999999999c9bf", EXG_OK,
		"shape srid=0 type=1 z=0 m=0 solid=0 comps=1\n"
	"comp POINT patch=0 rings=1\nring 1: 0.10000000000000001 -0.20000000000000001 0\n"},
	{"SRID=999999;POINT(0 0)", "POINT(0 0)",
		"0f423f40010000000100000000000000000000000000000000000000", EXG_OK,
		"shape srid=999999 type=1 z=0 m=0 solid=0 comps=1\n"
	"comp POINT patch=0 rings=1\nring 1: 0 0 0\n"},
	{"LINESTRING(0 0,1 1,2 0.5)", "LINESTRING(0 0,1 1,2 0.5)",
		"000000440000000000000040000000000000803f020000000300000000000000000000000000000000000000000000000000f03f000000000000f03f0000000000000040000000000000e03f",
		EXG_OK,
		"shape srid=0 type=2 z=0 m=0 solid=0 comps=1\n"
	"comp LINE patch=0 rings=1\nring 3: 0 0 0, 1 1 0, 2 0.5 0\n"},
	{"LINESTRING EMPTY", "LINESTRING EMPTY", "000000400200000000000000", EXG_OK,
	"shape srid=0 type=2 z=0 m=0 solid=0 comps=0\n"},
	{"ST_MakeLine(ARRAY[ST_MakePoint(1,2)])", "LINESTRING(1 2)",
		"000000400200000001000000000000000000f03f0000000000000040", EXG_OK,
		"shape srid=0 type=2 z=0 m=0 solid=0 comps=1\n"
	"comp POINT patch=0 rings=1\nring 1: 1 2 0\n"},
	{"SRID=32633;LINESTRING M (0 0 1,1 1 2)", "LINESTRING M (0 0 1,1 1 2)",
		"007f7942020000000200000000000000000000000000000000000000000000000000f03f000000000000f03f000000000000f03f0000000000000040",
		EXG_OK,
		"shape srid=32633 type=2 z=0 m=1 solid=0 comps=1\n"
	"comp LINE patch=0 rings=1\nring 2: 0 0 0, 1 1 0\n"},
	{"POLYGON((0 0,10 0,10 10,0 10,0 0),(1 1,1 2,2 2,1 1))",
		"POLYGON((0 0,10 0,10 10,0 10,0 0),(1 1,1 2,2 2,1 1))",
		"0000004400000000000020410000000000002041030000000200000005000000040000000000000000000000000000000000000000000000000024400000000000000000000000000000244000000000000024400000000000000000000000000000244000000000000000000000000000000000000000000000f03f000000000000f03f000000000000f03f000000000000004000000000000000400000000000000040000000000000f03f000000000000f03f",
		EXG_OK,
		"shape srid=0 type=3 z=0 m=0 solid=0 comps=1\n"
		"comp POLYGON patch=0 rings=2\n"
		"ring 5: 0 0 0, 10 0 0, 10 10 0, 0 10 0, 0 0 0\n"
	"ring 4: 1 1 0, 1 2 0, 2 2 0, 1 1 0\n"},
	{"POLYGON((0 0,1 0,0 1,0 0))", "POLYGON((0 0,1 0,0 1,0 0))",
		"00000044000000000000803f000000000000803f0300000001000000040000000000000000000000000000000000000000000000000000000000f03f00000000000000000000000000000000000000000000f03f00000000000000000000000000000000",
		EXG_OK,
		"shape srid=0 type=3 z=0 m=0 solid=0 comps=1\n"
	"comp POLYGON patch=0 rings=1\nring 4: 0 0 0, 1 0 0, 0 1 0, 0 0 0\n"},
	{"POLYGON EMPTY", "POLYGON EMPTY", "000000400300000000000000", EXG_OK,
	"shape srid=0 type=3 z=0 m=0 solid=0 comps=0\n"},
	{"POLYGON ZM ((0 0 1 9,1 0 2 9,0 1 3 9,0 0 1 9))", "POLYGON ZM ((0 0 1 9,1 0 2 9,0 1 3 9,0 0 1 9))",
		"00000047000000000000803f000000000000803f0000803f0000404000001041000010410300000001000000040000000000000000000000000000000000000000000000000000000000f03f0000000000002240000000000000f03f0000000000000000000000000000004000000000000022400000000000000000000000000000f03f0000000000000840000000000000224000000000000000000000000000000000000000000000f03f0000000000002240",
		EXG_OK,
		"shape srid=0 type=3 z=1 m=1 solid=0 comps=1\n"
	"comp POLYGON patch=0 rings=1\nring 4: 0 0 1, 1 0 2, 0 1 3, 0 0 1\n"},
	{"MULTIPOINT((1 2),(3 4))", "MULTIPOINT((1 2),(3 4))",
		"000000440000803f00004040000000400000804004000000020000000100000001000000000000000000f03f0000000000000040010000000100000000000000000008400000000000001040",
		EXG_OK,
		"shape srid=0 type=4 z=0 m=0 solid=0 comps=2\n"
		"comp POINT patch=0 rings=1\nring 1: 1 2 0\n"
	"comp POINT patch=0 rings=1\nring 1: 3 4 0\n"},
	{"MULTIPOINT Z ((1 2 3),EMPTY)", "MULTIPOINT Z ((1 2 3),EMPTY)",
		"000000450000803f0000803f0000004000000040000040400000404004000000020000000100000001000000000000000000f03f000000000000004000000000000008400100000000000000",
		EXG_OK,
		"shape srid=0 type=4 z=1 m=0 solid=0 comps=1\n"
	"comp POINT patch=0 rings=1\nring 1: 1 2 3\n"},
	{"MULTILINESTRING((0 0,1 1),(2 2,3 3,4 2))", "MULTILINESTRING((0 0,1 1),(2 2,3 3,4 2))",
		"00000044000000000000804000000000000040400500000002000000020000000200000000000000000000000000000000000000000000000000f03f000000000000f03f0200000003000000000000000000004000000000000000400000000000000840000000000000084000000000000010400000000000000040",
		EXG_OK,
		"shape srid=0 type=5 z=0 m=0 solid=0 comps=2\n"
		"comp LINE patch=0 rings=1\nring 2: 0 0 0, 1 1 0\n"
	"comp LINE patch=0 rings=1\nring 3: 2 2 0, 3 3 0, 4 2 0\n"},
	{"MULTIPOLYGON(((0 0,1 0,0 1,0 0)),((5 5,6 5,5 6,5 5),(5.1 5.1,5.2 5.1,5.1 5.2,5.1 5.1)))",
		"MULTIPOLYGON(((0 0,1 0,0 1,0 0)),((5 5,6 5,5 6,5 5),(5.1 5.1,5.2 5.1,5.1 5.2,5.1 5.1)))",
		"00000044000000000000c040000000000000c04006000000020000000300000001000000040000000000000000000000000000000000000000000000000000000000f03f00000000000000000000000000000000000000000000f03f00000000000000000000000000000000030000000200000004000000040000000000000000001440000000000000144000000000000018400000000000001440000000000000144000000000000018400000000000001440000000000000144066666666666614406666666666661440cdcccccccccc144066666666666614406666666666661440cdcccccccccc144066666666666614406666666666661440",
		EXG_OK,
		"shape srid=0 type=6 z=0 m=0 solid=0 comps=2\n"
		"comp POLYGON patch=0 rings=1\nring 4: 0 0 0, 1 0 0, 0 1 0, 0 0 0\n"
		"comp POLYGON patch=0 rings=2\nring 4: 5 5 0, 6 5 0, 5 6 0, 5 5 0\n"
		"ring 4: 5.0999999999999996 5.0999999999999996 0, 5.2000000000000002 5.0999999999999996 0,"
	" 5.0999999999999996 5.2000000000000002 0, 5.0999999999999996 5.0999999999999996 0\n"},
	{"MULTIPOLYGON EMPTY", "MULTIPOLYGON EMPTY", "000000400600000000000000", EXG_OK,
	"shape srid=0 type=6 z=0 m=0 solid=0 comps=0\n"},
	{"SRID=4326;GEOMETRYCOLLECTION(POINT(1 2),LINESTRING EMPTY,POLYGON EMPTY,GEOMETRYCOLLECTION(POINT EMPTY,LINESTRING(0 0,1 1)),MULTIPOINT EMPTY)",
		"GEOMETRYCOLLECTION(POINT(1 2),LINESTRING EMPTY,POLYGON EMPTY,GEOMETRYCOLLECTION(POINT EMPTY,LINESTRING(0 0,1 1)),MULTIPOINT EMPTY)",
		"0010e644000000000000803f000000000000004007000000050000000100000001000000000000000000f03f00000000000000400200000000000000030000000000000007000000020000000100000000000000020000000200000000000000000000000000000000000000000000000000f03f000000000000f03f0400000000000000",
		EXG_OK,
		"shape srid=4326 type=7 z=0 m=0 solid=0 comps=2\n"
		"comp POINT patch=0 rings=1\nring 1: 1 2 0\n"
	"comp LINE patch=0 rings=1\nring 2: 0 0 0, 1 1 0\n"},
	{"GEOMETRYCOLLECTION EMPTY", "GEOMETRYCOLLECTION EMPTY", "000000400700000000000000", EXG_OK,
	"shape srid=0 type=7 z=0 m=0 solid=0 comps=0\n"},
	{"TRIANGLE((0 0,1 0,0 1,0 0))", "TRIANGLE((0 0,1 0,0 1,0 0))",
		"00000044000000000000803f000000000000803f0e0000000400000000000000000000000000000000000000000000000000f03f00000000000000000000000000000000000000000000f03f00000000000000000000000000000000",
		EXG_OK,
		"shape srid=0 type=14 z=0 m=0 solid=0 comps=1\n"
	"comp TRIANGLE patch=0 rings=1\nring 4: 0 0 0, 1 0 0, 0 1 0, 0 0 0\n"},
	{"TIN Z (((0 0 0,0 0 1,0 1 0,0 0 0)),((0 0 0,0 1 0,1 1 0,0 0 0)))",
		"TIN Z (((0 0 0,0 0 1,0 1 0,0 0 0)),((0 0 0,0 1 0,1 1 0,0 0 0)))",
		"00000045000000000000803f000000000000803f000000000000803f0f000000020000000e0000000400000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000f03f0000000000000000000000000000f03f00000000000000000000000000000000000000000000000000000000000000000e000000040000000000000000000000000000000000000000000000000000000000000000000000000000000000f03f0000000000000000000000000000f03f000000000000f03f0000000000000000000000000000000000000000000000000000000000000000",
		EXG_OK,
		"shape srid=0 type=15 z=1 m=0 solid=0 comps=2\n"
		"comp TRIANGLE patch=1 rings=1\nring 4: 0 0 0, 0 0 1, 0 1 0, 0 0 0\n"
	"comp TRIANGLE patch=1 rings=1\nring 4: 0 0 0, 0 1 0, 1 1 0, 0 0 0\n"},
	{"ST_MakeSolid(ST_SetSRID('TIN Z (...)', 32633))",
		"TIN Z (((0 0 0,0 0 1,0 1 0,0 0 0)),((0 0 0,0 1 0,1 1 0,0 0 0)))",
		"007f79550100000000000000000000000000803f000000000000803f000000000000803f0f000000020000000e0000000400000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000f03f0000000000000000000000000000f03f00000000000000000000000000000000000000000000000000000000000000000e000000040000000000000000000000000000000000000000000000000000000000000000000000000000000000f03f0000000000000000000000000000f03f000000000000f03f0000000000000000000000000000000000000000000000000000000000000000",
		EXG_OK,
		"shape srid=32633 type=15 z=1 m=0 solid=1 comps=2\n"
		"comp TRIANGLE patch=1 rings=1\nring 4: 0 0 0, 0 0 1, 0 1 0, 0 0 0\n"
	"comp TRIANGLE patch=1 rings=1\nring 4: 0 0 0, 0 1 0, 1 1 0, 0 0 0\n"},
	{"POLYHEDRALSURFACE Z (unit cube)",
		"POLYHEDRALSURFACE Z (((0 0 0,0 1 0,1 1 0,1 0 0,0 0 0)),((0 0 0,0 0 1,0 1 1,0 1 0,0 0 0)),((0 0 0,1 0 0,1 0 1,0 0 1,0 0 0)),((1 1 1,1 0 1,1 0 0,1 1 0,1 1 1)),((1 1 1,1 1 0,0 1 0,0 1 1,1 1 1)),((1 1 1,0 1 1,0 0 1,1 0 1,1 1 1)))",
		"00000045000000000000803f000000000000803f000000000000803f0d00000006000000030000000100000005000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000f03f0000000000000000000000000000f03f000000000000f03f0000000000000000000000000000f03f000000000000000000000000000000000000000000000000000000000000000000000000000000000300000001000000050000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000f03f0000000000000000000000000000f03f000000000000f03f0000000000000000000000000000f03f000000000000000000000000000000000000000000000000000000000000000003000000010000000500000000000000000000000000000000000000000000000000000000000000000000000000f03f00000000000000000000000000000000000000000000f03f0000000000000000000000000000f03f00000000000000000000000000000000000000000000f03f00000000000000000000000000000000000000000000000003000000010000000500000000000000000000000000f03f000000000000f03f000000000000f03f000000000000f03f0000000000000000000000000000f03f000000000000f03f00000000000000000000000000000000000000000000f03f000000000000f03f0000000000000000000000000000f03f000000000000f03f000000000000f03f03000000010000000500000000000000000000000000f03f000000000000f03f000000000000f03f000000000000f03f000000000000f03f00000000000000000000000000000000000000000000f03f00000000000000000000000000000000000000000000f03f000000000000f03f000000000000f03f000000000000f03f000000000000f03f03000000010000000500000000000000000000000000f03f000000000000f03f000000000000f03f0000000000000000000000000000f03f000000000000f03f00000000000000000000000000000000000000000000f03f000000000000f03f0000000000000000000000000000f03f000000000000f03f000000000000f03f000000000000f03f",
		EXG_OK,
		"shape srid=0 type=13 z=1 m=0 solid=0 comps=6\n"
		"comp POLYGON patch=1 rings=1\nring 5: 0 0 0, 0 1 0, 1 1 0, 1 0 0, 0 0 0\n"
		"comp POLYGON patch=1 rings=1\nring 5: 0 0 0, 0 0 1, 0 1 1, 0 1 0, 0 0 0\n"
		"comp POLYGON patch=1 rings=1\nring 5: 0 0 0, 1 0 0, 1 0 1, 0 0 1, 0 0 0\n"
		"comp POLYGON patch=1 rings=1\nring 5: 1 1 1, 1 0 1, 1 0 0, 1 1 0, 1 1 1\n"
		"comp POLYGON patch=1 rings=1\nring 5: 1 1 1, 1 1 0, 0 1 0, 0 1 1, 1 1 1\n"
	"comp POLYGON patch=1 rings=1\nring 5: 1 1 1, 0 1 1, 0 0 1, 1 0 1, 1 1 1\n"},
	{"ST_MakeSolid(POLYHEDRALSURFACE Z (unit cube))",
		"POLYHEDRALSURFACE Z (((0 0 0,0 1 0,1 1 0,1 0 0,0 0 0)),((0 0 0,0 0 1,0 1 1,0 1 0,0 0 0)),((0 0 0,1 0 0,1 0 1,0 0 1,0 0 0)),((1 1 1,1 0 1,1 0 0,1 1 0,1 1 1)),((1 1 1,1 1 0,0 1 0,0 1 1,1 1 1)),((1 1 1,0 1 1,0 0 1,1 0 1,1 1 1)))",
		"000000550100000000000000000000000000803f000000000000803f000000000000803f0d00000006000000030000000100000005000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000f03f0000000000000000000000000000f03f000000000000f03f0000000000000000000000000000f03f000000000000000000000000000000000000000000000000000000000000000000000000000000000300000001000000050000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000f03f0000000000000000000000000000f03f000000000000f03f0000000000000000000000000000f03f000000000000000000000000000000000000000000000000000000000000000003000000010000000500000000000000000000000000000000000000000000000000000000000000000000000000f03f00000000000000000000000000000000000000000000f03f0000000000000000000000000000f03f00000000000000000000000000000000000000000000f03f00000000000000000000000000000000000000000000000003000000010000000500000000000000000000000000f03f000000000000f03f000000000000f03f000000000000f03f0000000000000000000000000000f03f000000000000f03f00000000000000000000000000000000000000000000f03f000000000000f03f0000000000000000000000000000f03f000000000000f03f000000000000f03f03000000010000000500000000000000000000000000f03f000000000000f03f000000000000f03f000000000000f03f000000000000f03f00000000000000000000000000000000000000000000f03f00000000000000000000000000000000000000000000f03f000000000000f03f000000000000f03f000000000000f03f000000000000f03f03000000010000000500000000000000000000000000f03f000000000000f03f000000000000f03f0000000000000000000000000000f03f000000000000f03f00000000000000000000000000000000000000000000f03f000000000000f03f0000000000000000000000000000f03f000000000000f03f000000000000f03f000000000000f03f",
		EXG_OK,
		"shape srid=0 type=13 z=1 m=0 solid=1 comps=6\n"
		"comp POLYGON patch=1 rings=1\nring 5: 0 0 0, 0 1 0, 1 1 0, 1 0 0, 0 0 0\n"
		"comp POLYGON patch=1 rings=1\nring 5: 0 0 0, 0 0 1, 0 1 1, 0 1 0, 0 0 0\n"
		"comp POLYGON patch=1 rings=1\nring 5: 0 0 0, 1 0 0, 1 0 1, 0 0 1, 0 0 0\n"
		"comp POLYGON patch=1 rings=1\nring 5: 1 1 1, 1 0 1, 1 0 0, 1 1 0, 1 1 1\n"
		"comp POLYGON patch=1 rings=1\nring 5: 1 1 1, 1 1 0, 0 1 0, 0 1 1, 1 1 1\n"
	"comp POLYGON patch=1 rings=1\nring 5: 1 1 1, 0 1 1, 0 0 1, 1 0 1, 1 1 1\n"},
	{"GEOMETRYCOLLECTION(TIN(((0 0,1 0,0 1,0 0))),POLYHEDRALSURFACE(((0 0,1 0,0 1,0 0))),TRIANGLE EMPTY)",
		"GEOMETRYCOLLECTION(TIN(((0 0,1 0,0 1,0 0))),POLYHEDRALSURFACE(((0 0,1 0,0 1,0 0))),TRIANGLE EMPTY)",
		"00000044000000000000803f000000000000803f07000000030000000f000000010000000e0000000400000000000000000000000000000000000000000000000000f03f00000000000000000000000000000000000000000000f03f000000000000000000000000000000000d000000010000000300000001000000040000000000000000000000000000000000000000000000000000000000f03f00000000000000000000000000000000000000000000f03f000000000000000000000000000000000e00000000000000",
		EXG_OK,
		"shape srid=0 type=7 z=0 m=0 solid=0 comps=2\n"
		"comp TRIANGLE patch=1 rings=1\nring 4: 0 0 0, 1 0 0, 0 1 0, 0 0 0\n"
	"comp POLYGON patch=1 rings=1\nring 4: 0 0 0, 1 0 0, 0 1 0, 0 0 0\n"},
	{"CIRCULARSTRING(0 0,1 1,2 0)", "CIRCULARSTRING(0 0,1 1,2 0)",
		"000000440000000000000040000000000000803f080000000300000000000000000000000000000000000000000000000000f03f000000000000f03f00000000000000400000000000000000",
	EXG_ERR_UNSUPPORTED, "CIRCULARSTRING"},
	{"COMPOUNDCURVE((0 0,1 1),CIRCULARSTRING(1 1,2 0,3 1))",
		"COMPOUNDCURVE((0 0,1 1),CIRCULARSTRING(1 1,2 0,3 1))",
		"000000440000000000004040000000000000803f0900000002000000020000000200000000000000000000000000000000000000000000000000f03f000000000000f03f0800000003000000000000000000f03f000000000000f03f000000000000004000000000000000000000000000000840000000000000f03f",
	EXG_ERR_UNSUPPORTED, "COMPOUNDCURVE"},
	{"CURVEPOLYGON(CIRCULARSTRING(0 0,2 0,0 0))", "CURVEPOLYGON(CIRCULARSTRING(0 0,2 0,0 0))",
		"000000440000000000000040000080bf0000803f0a000000010000000800000003000000000000000000000000000000000000000000000000000040000000000000000000000000000000000000000000000000",
	EXG_ERR_UNSUPPORTED, "CURVEPOLYGON"},
	{"MULTICURVE((0 0,1 1))", "MULTICURVE((0 0,1 1))",
		"00000044000000000000803f000000000000803f0b00000001000000020000000200000000000000000000000000000000000000000000000000f03f000000000000f03f",
	EXG_ERR_UNSUPPORTED, "MULTICURVE"},
	{"MULTISURFACE(((0 0,1 0,0 1,0 0)))", "MULTISURFACE(((0 0,1 0,0 1,0 0)))",
		"00000044000000000000803f000000000000803f0c000000010000000300000001000000040000000000000000000000000000000000000000000000000000000000f03f00000000000000000000000000000000000000000000f03f00000000000000000000000000000000",
	EXG_ERR_UNSUPPORTED, "MULTISURFACE"},
};

/* Offset of the payload in PostGIS-written v2 bytes. */
static size_t
v2_payload_offset(const uint8_t *b)
{
	uint8_t		f = b[3];
	size_t		off = 4;

	if (f & 0x10)
		off += 8;
	if (f & 0x04)
		off += (f & 0x08) ? 24 : 8 * (2 + (f & 1) + ((f >> 1) & 1));
	return off;
}

static void
test_real_cases(void)
{
	size_t		n = sizeof(real_cases) / sizeof(real_cases[0]);
	int			nwriter = 0;

	for (size_t i = 0; i < n; i++)
	{
		const real_case *rc = &real_cases[i];
		bytes		b = from_hex(rc->hex);

		if (rc->status == EXG_OK)
			check_parse(rc->input, b.b, b.n, rc->want);
		else
		{
			check_error(rc->input, b.b, b.n, rc->status, rc->want);
			check_error(rc->input, b.b, b.n, rc->status, "ST_CurveToLine");
		}
		keep(b.b, b.n);

		/* Our test writer must produce PostGIS's payload byte for byte. */
		if (rc->wkt != NULL)
		{
			bool		has_z,
						has_m;
			tgeom	   *g = parse_wkt(rc->wkt, &has_z, &has_m);
			gs_opts		o = {.version = 2};
			bytes		w = write_gs(g, has_z, has_m, &o);
			size_t		off = v2_payload_offset(b.b);

			n_checks++;
			nwriter++;
			if (w.n - 4 != b.n - off || memcmp(w.b + 4, b.b + off, w.n - 4) != 0)
				FAIL("%s: test writer payload differs from PostGIS's", rc->input);
			if ((b.b[3] & ~0x14) != w.b[3])
				FAIL("%s: flags 0x%02x vs writer 0x%02x", rc->input, b.b[3], w.b[3]);
			free(w.b);
			tg_free(g);
		}
		free(b.b);
	}
	printf("PostGIS 3.3.2 fixtures: %zu parsed, %d payloads matched by the test writer\n",
		   n, nwriter);
}

/* ------------------------------------------------------ malformed input */

static void
test_errors(void)
{
	bytes		b;
	uint8_t		hdr_v2[4] = {0, 0, 0, 0x40};

	/* Headers. */
	check_error("NULL data", NULL, 0, EXG_ERR_CORRUPT, NULL);
	{
		exg_error	err;
		int32_t		srid;

		n_checks++;
		if (exg_gserialized_srid((const uint8_t *) "\0\0", 2, &srid, &err) != EXG_ERR_CORRUPT)
			FAIL("srid of 2 bytes accepted");
		if (exg_gserialized_read(hdr_v2, 4, NULL, &err) != EXG_ERR_ARGUMENT)
			FAIL("NULL shape accepted");
	}
	check_error("header only", hdr_v2, 4, EXG_ERR_CORRUPT, "truncated geometry type");

	/* Flag 0x80 (future version) and geodetic. */
	{
		const char *hex[] = {
			"000000c00100000001000000000000000000f03f0000000000000040",
			"000000800100000001000000000000000000f03f0000000000000040",
		};

		for (int i = 0; i < 2; i++)
		{
			b = from_hex(hex[i]);
			check_error("flag 0x80", b.b, b.n, EXG_ERR_UNSUPPORTED, "version");
			free(b.b);
		}
	}
	{
		bool		z,
					m;
		tgeom	   *g = parse_wkt("LINESTRING(0 0,1 1)", &z, &m);
		gs_opts		o = {.version = 2, .geodetic = true, .bbox = true};

		b = write_gs(g, z, m, &o);
		check_error("geodetic v2", b.b, b.n, EXG_ERR_UNSUPPORTED, "geography");
		/* ... whose 24-byte box is still measured right: 8 bytes short of it is corrupt */
		check_error("geodetic v2 truncated box", b.b, 4 + 23, EXG_ERR_CORRUPT, "bounding box");
		free(b.b);
		tg_free(g);
	}

	/* Types. */
	{
		const uint32_t bad[] = {0, 16, 17, 99, 0x80000001u, 0xFFFFFFFFu};

		for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		{
			b = (bytes) {0};
			put(&b, hdr_v2, 4);
			put_u32(&b, bad[i]);
			put_u32(&b, 0);
			check_error("unknown type", b.b, b.n, EXG_ERR_CORRUPT, "unknown geometry type");
			free(b.b);
		}
	}

	/* Members a collection may not hold, curves inside collections. */
	{
		struct
		{
			const char *wkt;
			exg_status	st;
			const char *msg;
		}			cases[] = {
			{"MULTIPOINT(LINESTRING(0 0,1 1))", EXG_ERR_CORRUPT, "cannot be a member"},
			{"MULTILINESTRING(POINT(0 0))", EXG_ERR_CORRUPT, "cannot be a member"},
			{"MULTIPOLYGON(TRIANGLE((0 0,1 0,0 1,0 0)))", EXG_ERR_CORRUPT, "cannot be a member"},
			{"TIN(POLYGON((0 0,1 0,0 1,0 0)))", EXG_ERR_CORRUPT, "cannot be a member"},
			{"POLYHEDRALSURFACE(TRIANGLE((0 0,1 0,0 1,0 0)))", EXG_ERR_CORRUPT, "cannot be a member"},
			{"MULTIPOINT(MULTIPOINT((0 0)))", EXG_ERR_CORRUPT, "cannot be a member"},
			{"GEOMETRYCOLLECTION(POINT(0 0),GEOMETRYCOLLECTION(CIRCULARSTRING(0 0,1 1,2 0)))",
			EXG_ERR_UNSUPPORTED, "CIRCULARSTRING"},
			{"GEOMETRYCOLLECTION(MULTISURFACE EMPTY)", EXG_ERR_UNSUPPORTED, "ST_CurveToLine"},
			{"CURVEPOLYGON EMPTY", EXG_ERR_UNSUPPORTED, "CURVEPOLYGON"},
			/* Non-finite and malformed coordinates. */
			{"LINESTRING(0 0,nan 1)", EXG_ERR_NONFINITE, NULL},
			{"POINT(nan 1)", EXG_ERR_NONFINITE, NULL},
			{"POINT(1 nan)", EXG_ERR_NONFINITE, NULL},
			{"POINT Z (1 2 nan)", EXG_ERR_NONFINITE, NULL},
			{"POLYGON((0 0,inf 0,0 1,0 0))", EXG_ERR_NONFINITE, NULL},
			{"TIN Z (((0 0 0,1 0 0,0 1 -inf,0 0 0)))", EXG_ERR_NONFINITE, NULL},
			{"TRIANGLE((0 0,1 0,0 1))", EXG_ERR_INVALID, "4"},
			{"TRIANGLE((0 0,1 0,0 1,0 0,0 0))", EXG_ERR_INVALID, "4"},
			{"TRIANGLE((0 0,1 0,0 1,0 0.5))", EXG_ERR_INVALID, "closed"},
			{"TRIANGLE Z ((0 0 0,1 0 0,0 1 0,0 0 1))", EXG_ERR_INVALID, "closed"},
		};

		for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		{
			bool		z,
						m;
			tgeom	   *g = parse_wkt(cases[i].wkt, &z, &m);
			gs_opts		o2 = {.version = 2, .bbox = true};
			gs_opts		o1 = {.version = 1};

			b = write_gs(g, z, m, &o2);
			check_error(cases[i].wkt, b.b, b.n, cases[i].st, cases[i].msg);
			keep(b.b, b.n);
			free(b.b);
			b = write_gs(g, z, m, &o1);
			check_error(cases[i].wkt, b.b, b.n, cases[i].st, cases[i].msg);
			free(b.b);
			tg_free(g);
		}
	}

	/* A point of two vertices; trailing bytes; counts far beyond the data. */
	{
		b = (bytes) {0};
		put(&b, hdr_v2, 4);
		put_u32(&b, T_POINT);
		put_u32(&b, 2);
		for (int i = 0; i < 4; i++)
			put_f64(&b, i);
		check_error("point with 2 vertices", b.b, b.n, EXG_ERR_CORRUPT, "more than one");
		free(b.b);

		b = from_hex("000000400100000001000000000000000000f03f000000000000004000");
		check_error("trailing byte", b.b, b.n, EXG_ERR_CORRUPT, "trailing");
		free(b.b);
		b = from_hex("00000040010000000000000000000000");
		check_error("trailing word after POINT EMPTY", b.b, b.n, EXG_ERR_CORRUPT, "trailing");
		free(b.b);
	}
	{
		/* Counts chosen so that count * stride or count * 4 wraps 32 bits. */
		const uint32_t huge[] = {0xFFFFFFFFu, 0x80000000u, 0x40000000u, 0x20000000u,
		0x10000001u, 0x08000000u, 3};
		const uint32_t types[] = {T_LINE, T_TRI, T_POLY, T_MPOINT, T_COLL, T_TIN};

		for (size_t t = 0; t < sizeof(types) / sizeof(types[0]); t++)
			for (size_t h = 0; h < sizeof(huge) / sizeof(huge[0]); h++)
				for (int zm = 0; zm < 4; zm++)
				{
					uint8_t		hdr[4] = {0, 0, 0, (uint8_t) (0x40 | zm)};

					b = (bytes) {0};
					put(&b, hdr, 4);
					put_u32(&b, types[t]);
					put_u32(&b, huge[h]);
					put_u32(&b, 1);
					put_u32(&b, 1);
					put_f64(&b, 0);
					check_error("huge count", b.b, b.n, EXG_ERR_CORRUPT, NULL);
					free(b.b);
				}
		/* A polygon whose second ring count overruns, after a valid first. */
		b = from_hex("00000040030000000200000004000000ffffff7f");
		for (int i = 0; i < 8; i++)
			put_f64(&b, i == 2 || i == 5 ? 1 : 0);
		check_error("ring count overrun", b.b, b.n, EXG_ERR_CORRUPT, "ring vertex count");
		free(b.b);
		/* A polygon of one ring without its padding word. */
		b = from_hex("000000400300000001000000");
		put_u32(&b, 0);
		check_error("missing ring padding", b.b, b.n, EXG_ERR_CORRUPT, "ring count");
		free(b.b);
	}
}

/* --------------------------------------------------------- robustness */

static test_rng fuzz = {0x9E3779B97F4A7C15u};

static long robust_ok,
			robust_err;

/* Whatever the bytes, the reader returns a sane shape or a clean error. */
static void
check_robust(const uint8_t *b, size_t n, bool must_fail, const char *what)
{
	exg_shape	s;
	exg_error	err;
	exg_status	st = parse_copy(b, n, 0, &s, &err);
	char		why[128];

	if (st == EXG_OK)
	{
		robust_ok++;
		if (must_fail)
			FAIL("%s: truncated buffer of %zu bytes accepted", what, n);
		if (!shape_well_formed(&s, why, sizeof(why)))
			FAIL("%s: accepted a malformed shape: %s", what, why);
		else
		{
			char	   *t = exg_shape_to_text(&s);

			if (t == NULL)
				FAIL("%s: dump failed", what);
			free(t);
		}
	}
	else
	{
		robust_err++;
		if (st != EXG_ERR_CORRUPT && st != EXG_ERR_UNSUPPORTED &&
			st != EXG_ERR_NONFINITE && st != EXG_ERR_INVALID &&
			st != EXG_ERR_TOO_LARGE && st != EXG_ERR_NOMEM)
			FAIL("%s: unexpected status %s", what, exg_status_name(st));
		if (err.status != st || err.message[0] == '\0')
			FAIL("%s: error without a message", what);
		if (!shape_is_pristine(&s))
			FAIL("%s: shape not freed after error", what);
	}
	exg_shape_free(&s);
}

static void
test_truncations(void)
{
	long		n = 0;

	for (size_t i = 0; i < all_buffers.n; i++)
	{
		const bytes *c = &all_buffers.items[i];

		for (size_t len = 0; len < c->n; len++, n++)
			check_robust(c->b, len, true, "truncation");
	}
	printf("truncations: %ld prefixes of %zu buffers, all rejected\n", n, all_buffers.n);
}

static void
test_mutations(long iterations)
{
	static const uint32_t interesting[] = {
		0, 1, 2, 3, 4, 5, 7, 8, 13, 14, 15, 16, 0x7FFFFFFF, 0x80000000u,
		0xFFFFFFFFu, 0x20000000, 0x10000000, 0x40000000
	};
	uint8_t    *m = NULL;
	size_t		cap = 0;

	robust_ok = robust_err = 0;
	for (long it = 0; it < iterations; it++)
	{
		const bytes *c = &all_buffers.items[rng_next(&fuzz) % all_buffers.n];
		size_t		n = c->n;
		int			kind = (int) (rng_next(&fuzz) % 4);
		int			edits = 1 + (int) (rng_next(&fuzz) % 4);

		/* room for up to four tail growths of 15 bytes */
		if (n + 64 > cap)
		{
			cap = n + 64;
			m = realloc(m, cap);
		}
		memcpy(m, c->b, n);
		for (int e = 0; e < edits && n > 0; e++)
		{
			size_t		at = rng_next(&fuzz) % n;

			switch (kind)
			{
				case 0:			/* random byte */
					m[at] = (uint8_t) rng_next(&fuzz);
					break;
				case 1:			/* flip a bit */
					m[at] ^= (uint8_t) (1u << (rng_next(&fuzz) % 8));
					break;
				case 2:			/* an interesting 32-bit word, aligned */
					{
						uint32_t	v = interesting[rng_next(&fuzz) % (sizeof(interesting) / sizeof(interesting[0]))];

						at &= ~(size_t) 3;
						if (at + 4 <= n)
							memcpy(m + at, &v, 4);
						break;
					}
				case 3:			/* the flags byte, or grow/shrink the tail */
					if (rng_next(&fuzz) % 2)
						m[3] = (uint8_t) rng_next(&fuzz);
					else if (rng_next(&fuzz) % 2 && n > 1)
						n -= 1 + rng_next(&fuzz) % (n < 16 ? n - 1 : 15);
					else
					{
						size_t		add = 1 + rng_next(&fuzz) % 15;

						for (size_t k = 0; k < add; k++)
							m[n + k] = (uint8_t) rng_next(&fuzz);
						n += add;
					}
					break;
			}
		}
		check_robust(m, n, false, "mutation");
	}
	free(m);
	printf("mutations: %ld (%ld parsed to valid shapes, %ld rejected)\n",
		   iterations, robust_ok, robust_err);
}

static void
test_random_garbage(long iterations)
{
	uint8_t		buf[96];

	robust_ok = robust_err = 0;
	for (long it = 0; it < iterations; it++)
	{
		size_t		n = rng_next(&fuzz) % sizeof(buf);

		for (size_t i = 0; i < n; i++)
			buf[i] = (uint8_t) rng_next(&fuzz);
		/* plausible flags and types half of the time */
		if (n > 12 && rng_next(&fuzz) % 2)
		{
			uint32_t	t = (uint32_t) (rng_next(&fuzz) % 16);

			uint32_t	count = (uint32_t) (rng_next(&fuzz) % 3);

			buf[3] = (uint8_t) (0x40 | (rng_next(&fuzz) % 4));
			memcpy(buf + 4, &t, 4);
			memcpy(buf + 8, &count, 4);
		}
		check_robust(buf, n, false, "garbage");
	}
	printf("random buffers: %ld (%ld parsed, %ld rejected)\n", iterations, robust_ok, robust_err);
}

/* ------------------------------------------------------------------ main */

static void
test_shape_text(void)
{
	exg_shape	s;
	char	   *t;

	exg_shape_init(&s);
	t = exg_shape_to_text(&s);
	n_checks++;
	if (t == NULL || strcmp(t, "shape srid=0 type=0 z=0 m=0 solid=0 comps=0\n") != 0)
		FAIL("empty shape dump: %s", t ? t : "(null)");
	free(t);
}

/*
 * The parallel reader's path: each row flattened alone into a reused
 * one-row batch (exg_batch_reset), the copies appended in order on 1, 2 and
 * 7 threads (exg_batch_append_flat) after a few rows added directly, must
 * equal row-by-row reading; an index past its row's vertices is refused.
 */
static void
test_batch_flat(void)
{
	bytes		data = {0};
	size_t	   *off;
	size_t		n,
				head = 5;
	exg_batch	seq,
				one;
	exg_flat_row *flat;
	const int	threads[] = {1, 2, 7};

	rows_from_corpus(9000, &data, &off, &n);
	exg_batch_init(&seq, 3, EXG_NONPLANAR_ERROR);
	exg_batch_init(&one, 3, EXG_NONPLANAR_ERROR);
	flat = xmalloc(n * sizeof(exg_flat_row));
	for (size_t i = 0; i < n; i++)
	{
		exg_shape	sh;
		exg_error	err = {0};
		double	   *xyz;
		uint32_t   *tri;

		exg_shape_init(&sh);
		if (exg_gserialized_read(data.b + off[i], off[i + 1] - off[i], &sh, &err) != EXG_OK ||
			exg_batch_add(&seq, &sh, &err) != EXG_OK)
			FAIL("row %zu: %s", i, err.message);
		exg_batch_reset(&one);
		if (exg_batch_add(&one, &sh, &err) != EXG_OK || one.nrows != 1)
			FAIL("row %zu alone: %s", i, err.message);
		exg_shape_free(&sh);
		xyz = xmalloc(one.nverts * 3 * sizeof(double));
		tri = xmalloc(one.nprims * 3 * sizeof(uint32_t));
		memcpy(xyz, one.xyz, one.nverts * 3 * sizeof(double));
		memcpy(tri, one.tri, one.nprims * 3 * sizeof(uint32_t));
		flat[i] = (exg_flat_row) {xyz, tri, one.nverts, one.nprims, one.solid[0],
			one.nrows_z ? 3 : one.nrows_flat ? 2 : 0};
	}
	for (size_t t = 0; t < sizeof(threads) / sizeof(threads[0]); t++)
	{
		exg_row_bytes rows = {data.b, off, head};
		exg_batch	par;
		exg_error	err = {0};

		exg_batch_init(&par, 3, EXG_NONPLANAR_ERROR);
		n_checks++;
		if (exg_batch_add_rows(&par, &rows, threads[t], &err) != EXG_OK ||
			exg_batch_append_flat(&par, flat + head, n - head, threads[t], &err) != EXG_OK)
			FAIL("flat rows, %d threads: %s", threads[t], err.message);
		else if (!same_batch(&seq, &par))
			FAIL("flat rows, %d threads: batch differs from row-by-row reading", threads[t]);
		exg_batch_free(&par);
	}
	/* a row whose index points past its vertices */
	for (size_t i = n / 2; i < n; i++)
		if (flat[i].nprims > 0)
		{
			exg_batch	bad;
			exg_error	err = {0};
			uint32_t   *tri = (uint32_t *) flat[i].tri;
			uint32_t	saved = tri[1];

			tri[1] = (uint32_t) flat[i].nverts;
			exg_batch_init(&bad, 3, EXG_NONPLANAR_ERROR);
			n_checks++;
			if (exg_batch_append_flat(&bad, flat, n, 2, &err) == EXG_OK || err.row != i + 1 ||
				bad.nrows != 0)
				FAIL("flat rows: a bad index in row %zu not refused (row %llu)", i,
					 (unsigned long long) err.row);
			tri[1] = saved;
			exg_batch_free(&bad);
			break;
		}
	printf("flat rows: %zu rows flattened alone and appended on 1, 2 and 7 threads equal row-by-row reading\n", n);
	for (size_t i = 0; i < n; i++)
	{
		free((void *) flat[i].xyz);
		free((void *) flat[i].tri);
	}
	free(flat);
	exg_batch_free(&one);
	exg_batch_free(&seq);
	free(off);
	free(data.b);
}

int
main(int argc, char **argv)
{
	long		iterations = 200000;

	if (argc > 1 && strcmp(argv[1], "--emit-hex") == 0)
	{
		test_wkt_cases(true);
		return 0;
	}
	if (argc > 1)
		iterations = strtol(argv[1], NULL, 10);
	if (argc > 2)
		fuzz.state = strtoull(argv[2], NULL, 0) * UINT64_C(0x9E3779B97F4A7C15) | 1;

	test_shape_text();
	test_wkt_cases(false);
	test_batch_rows();
	test_batch_flat();
	test_deep_nesting();
	test_real_cases();
	test_errors();
	test_truncations();
	test_mutations(iterations);
	test_random_garbage(iterations / 4);

	printf("%d checks, %ld failures\n", n_checks, test_failures);
	for (size_t i = 0; i < all_buffers.n; i++)
		free(all_buffers.items[i].b);
	free(all_buffers.items);
	return test_failures == 0 ? 0 : 1;
}
