/*
 * test_gserialized_box.c — the box PostGIS's && and &&& compare
 * (exg_gserialized_operator_box), without a server.
 *
 * Bytes come from two sources: byte strings PostGIS 3.3.2 itself wrote
 * (the cached-box cases; the same captures as test_gserialized.c), and
 * buffers built here by hand, field by field, for the cases PostGIS writes
 * without a box (points, two-point lines) and for malformed ones. The
 * expected boxes are stated from PostGIS's rules (the file comment of
 * gserialized_box.c): a float rounded outward is checked as the float
 * neighbour on each side of the double, not recomputed the engine's way.
 */
#include <float.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gserialized_box.h"
#include "harness.h"

/* ---------------------------------------------------------------- bytes */

typedef struct buf
{
	uint8_t		b[512];
	size_t		n;
} buf;

static void
put(buf *w, const void *p, size_t n)
{
	if (w->n + n > sizeof(w->b))
	{
		fprintf(stderr, "test buffer too small\n");
		exit(2);
	}
	memcpy(w->b + w->n, p, n);
	w->n += n;
}

/* srid 0, then the flags byte */
static void
put_header(buf *w, uint8_t flags)
{
	uint8_t		h[4] = {0, 0, 0, flags};

	w->n = 0;
	put(w, h, 4);
}

static void
put_u32(buf *w, uint32_t v)
{
	put(w, &v, 4);
}

static void
put_f64(buf *w, double v)
{
	put(w, &v, 8);
}

static void
put_f32(buf *w, float v)
{
	put(w, &v, 4);
}

static int
hexval(char c)
{
	return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

static void
from_hex(buf *w, const char *h)
{
	w->n = 0;
	for (size_t i = 0; h[i] && h[i + 1]; i += 2)
	{
		uint8_t		v = (uint8_t) (hexval(h[i]) * 16 + hexval(h[i + 1]));

		put(w, &v, 1);
	}
}

/* --------------------------------------------------------------- checks */

static exg_gs_box
box_of(const buf *w, exg_gs_box_bytes bytes, bool nd, exg_gs_box_want want_expected)
{
	exg_gs_box	box;
	exg_gs_box_want want;
	exg_error	err = {0};
	exg_status	st = exg_gserialized_operator_box(w->b, w->n, bytes, nd, &box, &want, &err);

	CHECK(st == EXG_OK, "status %s: %s", exg_status_name(st), err.message);
	CHECK(want == want_expected, "want %d, expected %d", (int) want, (int) want_expected);
	return box;
}

static void
expect_axis(const exg_gs_box *b, int k, double lo, double hi)
{
	CHECK(b->lo[k] == lo && b->hi[k] == hi, "axis %d: [%.17g, %.17g], expected [%.17g, %.17g]",
		  k, b->lo[k], b->hi[k], lo, hi);
}

static void
expect_error(const buf *w, exg_gs_box_bytes bytes, exg_status expected, const char *fragment)
{
	exg_gs_box	box;
	exg_gs_box_want want;
	exg_error	err = {0};
	exg_status	st = exg_gserialized_operator_box(w->b, w->n, bytes, true, &box, &want, &err);

	CHECK(st == expected, "status %s, expected %s", exg_status_name(st), exg_status_name(expected));
	CHECK(strstr(err.message, fragment) != NULL, "message \"%s\" lacks \"%s\"", err.message,
		  fragment);
}

/*
 * lo is the largest float not above x and hi the smallest not below it:
 * both floats, around x, with no float strictly between either and x.
 */
static void
expect_outward(double lo, double hi, double x)
{
	CHECK((double) (float) lo == lo && (double) (float) hi == hi, "%.17g %.17g not floats", lo, hi);
	CHECK(lo <= x && x <= hi, "[%.17g, %.17g] misses %.17g", lo, hi, x);
	if ((double) (float) x == x)
		CHECK(lo == x && hi == x, "%.17g is a float: [%.17g, %.17g]", x, lo, hi);
	else
		CHECK((double) nextafterf((float) lo, INFINITY) == hi,
			  "[%.17g, %.17g] are not neighbouring floats", lo, hi);
}

/* ---------------------------------------------------------------- cases */

/* Points and short lines: PostGIS writes them without a box. */
static void
test_vertices(void)
{
	buf			w;
	exg_gs_box	b;

	test_context = "POINT Z, exact floats";
	put_header(&w, 0x40 | 0x01);
	put_u32(&w, 1);
	put_u32(&w, 1);
	put_f64(&w, 1.5);
	put_f64(&w, -2.25);
	put_f64(&w, 3);
	b = box_of(&w, EXG_GS_BOX_WHOLE, false, EXG_GS_BOX_DONE);
	CHECK(b.ndims == 2);
	expect_axis(&b, 0, 1.5, 1.5);
	expect_axis(&b, 1, -2.25, -2.25);
	b = box_of(&w, EXG_GS_BOX_WHOLE, true, EXG_GS_BOX_DONE);
	CHECK(b.ndims == 3);
	expect_axis(&b, 2, 3, 3);
	CHECK(exg_gs_box_z_active(&b));

	test_context = "LINESTRING, rounded outward";
	put_header(&w, 0x40);
	put_u32(&w, 2);
	put_u32(&w, 3);
	put_f64(&w, 0.1);
	put_f64(&w, 0.7);
	put_f64(&w, -0.3);
	put_f64(&w, 5);
	put_f64(&w, 0.2);
	put_f64(&w, 1e-3);
	b = box_of(&w, EXG_GS_BOX_WHOLE, false, EXG_GS_BOX_DONE);
	CHECK(b.ndims == 2);
	/* each bound is a float beside the extreme double, on the outer side */
	CHECK(b.lo[0] <= -0.3 && (double) nextafterf((float) b.lo[0], INFINITY) > -0.3);
	CHECK(b.hi[0] >= 0.2 && (double) nextafterf((float) b.hi[0], -INFINITY) < 0.2);
	CHECK(b.lo[1] <= 1e-3 && (double) nextafterf((float) b.lo[1], INFINITY) > 1e-3);
	CHECK(b.hi[1] == 5);
	CHECK(!exg_gs_box_z_active(&b));

	test_context = "one vertex, every double";
	{
		test_rng	rng = {20261127};

		for (int i = 0; i < 10000; i++)
		{
			double		x = (rng_uniform(&rng) - 0.5) * ldexp(1.0, (int) rng_below(&rng, 200) - 100),
						y = (double) (float) x;	/* a float too, now and then */

			put_header(&w, 0x40);
			put_u32(&w, 1);
			put_u32(&w, 1);
			put_f64(&w, x);
			put_f64(&w, i % 7 == 0 ? y : -x);
			b = box_of(&w, EXG_GS_BOX_WHOLE, false, EXG_GS_BOX_DONE);
			expect_outward(b.lo[0], b.hi[0], x);
			expect_outward(b.lo[1], b.hi[1], i % 7 == 0 ? y : -x);
		}
	}

	test_context = "beyond the floats";
	put_header(&w, 0x40);
	put_u32(&w, 2);
	put_u32(&w, 2);
	put_f64(&w, -1e300);
	put_f64(&w, 0);
	put_f64(&w, 1e300);
	put_f64(&w, 1);
	b = box_of(&w, EXG_GS_BOX_WHOLE, false, EXG_GS_BOX_DONE);
	/* clamped to +-FLT_MAX */
	expect_axis(&b, 0, -FLT_MAX, FLT_MAX);
	b = box_of(&w, EXG_GS_BOX_WHOLE, true, EXG_GS_BOX_DONE);
	/* &&&: an axis topped by FLT_MAX never filters */
	expect_axis(&b, 0, -INFINITY, INFINITY);
	expect_axis(&b, 1, 0, 1);

	test_context = "empty";
	put_header(&w, 0x40);
	put_u32(&w, 2);
	put_u32(&w, 0);
	b = box_of(&w, EXG_GS_BOX_WHOLE, true, EXG_GS_BOX_DONE);
	CHECK(b.ndims == 0);

	test_context = "extended flags (version 2) before the payload";
	put_header(&w, 0x40 | 0x10);
	{
		uint64_t	x = 1;

		put(&w, &x, 8);
	}
	put_u32(&w, 1);
	put_u32(&w, 1);
	put_f64(&w, 4);
	put_f64(&w, 8);
	b = box_of(&w, EXG_GS_BOX_WHOLE, true, EXG_GS_BOX_DONE);
	CHECK(b.ndims == 2);
	expect_axis(&b, 0, 4, 4);
	expect_axis(&b, 1, 8, 8);

	test_context = "version 1: no extended flags";
	put_header(&w, 0x10);	/* v1 READONLY, not EXTENDED */
	put_u32(&w, 1);
	put_u32(&w, 1);
	put_f64(&w, 4);
	put_f64(&w, 8);
	b = box_of(&w, EXG_GS_BOX_WHOLE, true, EXG_GS_BOX_DONE);
	expect_axis(&b, 0, 4, 4);
}

/* XYM: m is the third ordinate; &&& sees it as the fourth axis, z padded. */
static void
test_measures(void)
{
	buf			w;
	exg_gs_box	b;

	test_context = "LINESTRING M";
	put_header(&w, 0x40 | 0x02);
	put_u32(&w, 2);
	put_u32(&w, 2);
	put_f64(&w, 0);
	put_f64(&w, 0);
	put_f64(&w, 1);
	put_f64(&w, 1);
	put_f64(&w, 1);
	put_f64(&w, 2);
	b = box_of(&w, EXG_GS_BOX_WHOLE, true, EXG_GS_BOX_DONE);
	CHECK(b.ndims == 4);
	expect_axis(&b, 0, 0, 1);
	expect_axis(&b, 1, 0, 1);
	expect_axis(&b, 2, -INFINITY, INFINITY);
	expect_axis(&b, 3, 1, 2);
	CHECK(!exg_gs_box_z_active(&b));
	b = box_of(&w, EXG_GS_BOX_WHOLE, false, EXG_GS_BOX_DONE);
	CHECK(b.ndims == 2);

	test_context = "POINT ZM";
	put_header(&w, 0x40 | 0x03);
	put_u32(&w, 1);
	put_u32(&w, 1);
	put_f64(&w, 1);
	put_f64(&w, 2);
	put_f64(&w, 3);
	put_f64(&w, 4);
	b = box_of(&w, EXG_GS_BOX_WHOLE, true, EXG_GS_BOX_DONE);
	CHECK(b.ndims == 4);
	expect_axis(&b, 2, 3, 3);
	expect_axis(&b, 3, 4, 4);
	CHECK(exg_gs_box_z_active(&b));
}

/* NaN bounds: PostGIS keeps "x < min ? x : min", whose comparisons with NaN are false. */
static void
test_nan(void)
{
	buf			w;
	exg_gs_box	b;

	test_context = "NaN first: replaced by the next vertex";
	put_header(&w, 0x40);
	put_u32(&w, 2);
	put_u32(&w, 2);
	put_f64(&w, NAN);
	put_f64(&w, 0);
	put_f64(&w, 1);
	put_f64(&w, 2);
	b = box_of(&w, EXG_GS_BOX_WHOLE, false, EXG_GS_BOX_DONE);
	CHECK(b.ndims == 2);
	expect_axis(&b, 0, 1, 1);
	expect_axis(&b, 1, 0, 2);

	test_context = "NaN last: the bound stays NaN";
	put_header(&w, 0x40);
	put_u32(&w, 2);
	put_u32(&w, 2);
	put_f64(&w, 1);
	put_f64(&w, 0);
	put_f64(&w, NAN);
	put_f64(&w, 2);
	/* &&: a box whose xmin is NaN is empty */
	b = box_of(&w, EXG_GS_BOX_WHOLE, false, EXG_GS_BOX_DONE);
	CHECK(b.ndims == 0);
	/* &&&: a NaN bound never filters */
	b = box_of(&w, EXG_GS_BOX_WHOLE, true, EXG_GS_BOX_DONE);
	CHECK(b.ndims == 2);
	expect_axis(&b, 0, -INFINITY, INFINITY);
	expect_axis(&b, 1, 0, 2);
}

/* Cached boxes, as PostGIS 3.3.2 wrote them, and what the reader asks for. */
static void
test_cached(void)
{
	buf			w;
	exg_gs_box	b;

	test_context = "PostGIS: LINESTRING(0 0,1 1,2 0.5)";
	from_hex(&w, "000000440000000000000040000000000000803f020000000300000000000000000000000000000000000000000000000000f03f000000000000f03f0000000000000040000000000000e03f");
	b = box_of(&w, EXG_GS_BOX_WHOLE, false, EXG_GS_BOX_DONE);
	CHECK(b.ndims == 2);
	expect_axis(&b, 0, 0, 2);
	expect_axis(&b, 1, 0, 1);
	/* the header is enough */
	w.n = EXG_GS_BOX_HEADER_BYTES;
	b = box_of(&w, EXG_GS_BOX_PREFIX, true, EXG_GS_BOX_DONE);
	CHECK(b.ndims == 2);
	expect_axis(&b, 0, 0, 2);

	test_context = "PostGIS: POLYGON ZM ((0 0 1 9,1 0 2 9,0 1 3 9,0 0 1 9))";
	from_hex(&w, "00000047000000000000803f000000000000803f0000803f000040400000104100001041");
	b = box_of(&w, EXG_GS_BOX_PREFIX, true, EXG_GS_BOX_DONE);
	CHECK(b.ndims == 4);
	expect_axis(&b, 0, 0, 1);
	expect_axis(&b, 1, 0, 1);
	expect_axis(&b, 2, 1, 3);
	expect_axis(&b, 3, 9, 9);
	b = box_of(&w, EXG_GS_BOX_PREFIX, false, EXG_GS_BOX_DONE);
	CHECK(b.ndims == 2);

	test_context = "cached XYM box: z padded for &&&";
	put_header(&w, 0x40 | 0x04 | 0x02);
	put_f32(&w, 1);
	put_f32(&w, 2);
	put_f32(&w, 3);
	put_f32(&w, 4);
	put_f32(&w, 5);
	put_f32(&w, 6);
	b = box_of(&w, EXG_GS_BOX_PREFIX, true, EXG_GS_BOX_DONE);
	CHECK(b.ndims == 4);
	expect_axis(&b, 2, -INFINITY, INFINITY);
	expect_axis(&b, 3, 5, 6);

	test_context = "cached infinite floats: kept in order, finite";
	put_header(&w, 0x40 | 0x04 | 0x01);
	put_f32(&w, -INFINITY);
	put_f32(&w, INFINITY);
	put_f32(&w, 0);
	put_f32(&w, 1);
	put_f32(&w, NAN);
	put_f32(&w, 1);
	b = box_of(&w, EXG_GS_BOX_PREFIX, true, EXG_GS_BOX_DONE);
	CHECK(b.ndims == 3);
	expect_axis(&b, 0, -2.0 * FLT_MAX, 2.0 * FLT_MAX);
	expect_axis(&b, 2, -INFINITY, 1);

	test_context = "no cached box in a prefix: the whole value";
	put_header(&w, 0x40);
	put_u32(&w, 3);
	put_u32(&w, 1);
	b = box_of(&w, EXG_GS_BOX_PREFIX, true, EXG_GS_BOX_WANT_WHOLE);
	CHECK(b.ndims == 0);
	test_context = "a polygon without a box: PostGIS adds it";
	b = box_of(&w, EXG_GS_BOX_WHOLE, true, EXG_GS_BOX_WANT_ADDED);
	test_context = "... and finds none: empty";
	b = box_of(&w, EXG_GS_BOX_ADDED, true, EXG_GS_BOX_DONE);
	CHECK(b.ndims == 0);
}

static void
test_errors(void)
{
	buf			w;

	test_context = "errors";
	from_hex(&w, "000000");
	expect_error(&w, EXG_GS_BOX_WHOLE, EXG_ERR_CORRUPT, "shorter than its header");
	put_header(&w, 0x40 | 0x80);
	expect_error(&w, EXG_GS_BOX_PREFIX, EXG_ERR_UNSUPPORTED, "format version newer than 2");
	put_header(&w, 0x40 | 0x08);
	expect_error(&w, EXG_GS_BOX_PREFIX, EXG_ERR_UNSUPPORTED, "geodetic");
	put_header(&w, 0x40 | 0x04 | 0x01);
	put_f32(&w, 0);
	expect_error(&w, EXG_GS_BOX_PREFIX, EXG_ERR_CORRUPT, "truncated bounding box");
	put_header(&w, 0x40);
	put_u32(&w, 2);
	expect_error(&w, EXG_GS_BOX_WHOLE, EXG_ERR_CORRUPT, "truncated geometry");
	put_u32(&w, 2);
	put_f64(&w, 1);
	put_f64(&w, 2);
	put_f64(&w, 3);
	expect_error(&w, EXG_GS_BOX_WHOLE, EXG_ERR_CORRUPT, "truncated coordinates");
	put_header(&w, 0x40);
	expect_error(&w, EXG_GS_BOX_WHOLE, EXG_ERR_CORRUPT, "truncated geometry");
}

int
main(void)
{
	test_vertices();
	test_measures();
	test_nan();
	test_cached();
	test_errors();
	return test_summary("test_gserialized_box");
}
