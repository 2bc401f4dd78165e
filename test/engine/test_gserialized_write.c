/*
 * test_gserialized_write.c — the serialized-geometry writer
 * (exg_gserialized_write_vertices), without a server.
 *
 *   1. byte for byte against values PostGIS 3.3.2 itself wrote (the same
 *      captures as test_gserialized.c: points and lines PostGIS stores
 *      without a box, under SRIDs 0, 32633 and 999999);
 *   2. round trips through the engine's reader (exg_gserialized_read) of
 *      random points and lines, with and without Z and M: the SRID, type,
 *      flags and every vertex come back.
 */
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "geom_shape.h"
#include "gserialized_read.h"
#include "gserialized_write.h"
#include "harness.h"

static int
hexval(char c)
{
	return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

static size_t
from_hex(uint8_t *out, const char *h)
{
	size_t		n = 0;

	for (size_t i = 0; h[i] && h[i + 1]; i += 2)
		out[n++] = (uint8_t) (hexval(h[i]) * 16 + hexval(h[i + 1]));
	return n;
}

typedef struct postgis_case
{
	const char *input;			/* what PostGIS was given */
	int32_t		srid;
	exg_gs_vertices_type type;
	bool		has_z,
				has_m;
	uint32_t	npoints;
	double		xyzm[8];
	const char *hex;			/* what it wrote */
} postgis_case;

static const postgis_case postgis_cases[] = {
	{"POINT(1 2)", 0, EXG_GS_WRITE_POINT, false, false, 1, {1, 2},
	"000000400100000001000000000000000000f03f0000000000000040"},
	{"SRID=32633;POINT Z (500000.5 4649776.25 12.5)", 32633, EXG_GS_WRITE_POINT, true, false, 1,
		{500000.5, 4649776.25, 12.5},
	"007f794101000000010000000000000082841e4100000010ccbc51410000000000002940"},
	{"POINT M (1 2 3)", 0, EXG_GS_WRITE_POINT, false, true, 1, {1, 2, 3},
	"000000420100000001000000000000000000f03f00000000000000400000000000000840"},
	{"POINT ZM (1 2 3 4)", 0, EXG_GS_WRITE_POINT, true, true, 1, {1, 2, 3, 4},
	"000000430100000001000000000000000000f03f000000000000004000000000000008400000000000001040"},
	{"SRID=-1;POINT(0.1 -0.2)", 0, EXG_GS_WRITE_POINT, false, false, 1, {0.1, -0.2},
	"0000004001000000010000009a9999999999b93f9a9999999999c9bf"},
	{"SRID=999999;POINT(0 0)", 999999, EXG_GS_WRITE_POINT, false, false, 1, {0, 0},
	"0f423f40010000000100000000000000000000000000000000000000"},
	{"LINESTRING EMPTY", 0, EXG_GS_WRITE_LINESTRING, false, false, 0, {0},
	"000000400200000000000000"},
	{"ST_MakeLine(ARRAY[ST_MakePoint(1,2)])", 0, EXG_GS_WRITE_LINESTRING, false, false, 1, {1, 2},
	"000000400200000001000000000000000000f03f0000000000000040"},
	{"SRID=32633;LINESTRING M (0 0 1,1 1 2)", 32633, EXG_GS_WRITE_LINESTRING, false, true, 2,
		{0, 0, 1, 1, 1, 2},
	"007f7942020000000200000000000000000000000000000000000000000000000000f03f000000000000f03f000000000000f03f0000000000000040"},
};

static void
test_postgis_bytes(void)
{
	for (size_t i = 0; i < sizeof(postgis_cases) / sizeof(postgis_cases[0]); i++)
	{
		const postgis_case *c = &postgis_cases[i];
		uint8_t		want[256],
					got[256];
		size_t		nwant = from_hex(want, c->hex),
					size = exg_gserialized_vertices_size(c->npoints, c->has_z, c->has_m),
					n;

		test_context = c->input;
		CHECK(size == nwant, "size %zu, PostGIS wrote %zu", size, nwant);
		memset(got, 0xa5, sizeof(got));
		n = exg_gserialized_write_vertices(got, c->srid, c->type, c->xyzm, c->npoints, c->has_z,
										   c->has_m);
		CHECK(n == size, "wrote %zu of %zu bytes", n, size);
		CHECK(got[size] == 0xa5, "wrote past its size");
		CHECK(memcmp(got, want, nwant) == 0, "bytes differ from PostGIS's");
	}
}

/* A random double, now and then a special-looking one (0, -0, huge, tiny). */
static double
random_coordinate(test_rng *rng)
{
	switch (rng_below(rng, 8))
	{
		case 0:
			return 0.0;
		case 1:
			return -0.0;
		case 2:
			return ldexp(rng_uniform(rng) - 0.5, 1000);
		case 3:
			return ldexp(rng_uniform(rng) - 0.5, -1000);
		default:
			return (rng_uniform(rng) - 0.5) * 1e7;
	}
}

static void
test_round_trips(void)
{
	test_rng	rng = {0x5eed2026};
	uint8_t    *buf = NULL;
	double	   *xyzm = NULL;

	test_context = "round trip through exg_gserialized_read";
	for (int iter = 0; iter < 5000; iter++)
	{
		bool		has_z = rng_below(&rng, 2),
					has_m = rng_below(&rng, 2);
		bool		line = rng_below(&rng, 2);
		uint32_t	n = line ? (uint32_t) rng_below(&rng, 40) : 1;
		int32_t		srid = (int32_t) rng_below(&rng, 999999 + 1);
		int			ord = 2 + has_z + has_m;
		size_t		size = exg_gserialized_vertices_size(n, has_z, has_m);
		exg_shape	shape;
		exg_error	err = {0};
		exg_status	st;

		buf = realloc(buf, size);
		xyzm = realloc(xyzm, sizeof(double) * 4 * (n ? n : 1));
		if (buf == NULL || xyzm == NULL)
		{
			fprintf(stderr, "out of memory\n");
			exit(2);
		}
		for (uint32_t v = 0; v < n * (uint32_t) ord; v++)
			xyzm[v] = random_coordinate(&rng);
		CHECK(exg_gserialized_write_vertices(buf, srid,
											 line ? EXG_GS_WRITE_LINESTRING : EXG_GS_WRITE_POINT,
											 xyzm, n, has_z, has_m) == size);
		exg_shape_init(&shape);
		st = exg_gserialized_read(buf, size, &shape, &err);
		CHECK(st == EXG_OK, "%s: %s", exg_status_name(st), err.message);
		if (st != EXG_OK)
		{
			exg_shape_free(&shape);
			continue;
		}
		CHECK(shape.srid == srid, "srid %d, wrote %d", shape.srid, srid);
		CHECK(shape.geom_type == (line ? 2u : 1u));
		CHECK(shape.has_z == has_z && shape.has_m == has_m);
		CHECK(!shape.is_solid);
		/* the reader stores a line of one vertex as a point; an empty line as nothing */
		CHECK(shape.nverts == n, "%zu vertices read, %u written", shape.nverts, n);
		CHECK(shape.ncomps == (n > 0 ? 1u : 0u));
		if (n > 0 && shape.ncomps == 1)
			CHECK(shape.comps[0].kind == (n >= 2 ? EXG_COMP_LINE : EXG_COMP_POINT));
		for (uint32_t v = 0; v < n && v < shape.nverts; v++)
		{
			const double *p = exg_vertex(&shape, v),
					   *q = &xyzm[(size_t) v * ord];

			/* bit for bit: -0 stays -0 */
			CHECK(memcmp(&p[0], &q[0], 8) == 0 && memcmp(&p[1], &q[1], 8) == 0,
				  "vertex %u: (%.17g %.17g), wrote (%.17g %.17g)", v, p[0], p[1], q[0], q[1]);
			if (has_z)
				CHECK(memcmp(&p[2], &q[2], 8) == 0, "vertex %u: z %.17g, wrote %.17g", v, p[2],
					  q[2]);
			else
				CHECK(p[2] == 0.0);
		}
		exg_shape_free(&shape);
	}
	free(buf);
	free(xyzm);
}

int
main(void)
{
	test_postgis_bytes();
	test_round_trips();
	return test_summary("test_gserialized_write");
}
