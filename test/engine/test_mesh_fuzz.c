/*
 * test_mesh_fuzz.c — the mesh readers on malformed input: valid files of
 * every format (built here) cut, with bytes flipped, inserted, deleted and
 * replaced by digits, signs, separators and keywords, and pure noise. Each
 * read must end with a status the PostgreSQL layer reports (never a
 * crash, a read past the end or a hang), and whatever it accepts must be a
 * well-formed mesh: finite coordinates, indices below the vertex count,
 * bodies below the body count. Run it under valgrind or ASan to catch the
 * reads past the end that do not crash:
 *   make WITH_CUDA=0 test/engine/bin/test_mesh_fuzz && valgrind test/engine/bin/test_mesh_fuzz 2000
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "mesh.h"

static const char *seeds_text[] = {
	"# cube\no cube\nv 0 0 0\nv 1 0 0\nv 1 1 0\nv 0 1 0\nv 0 0 1\nv 1 0 1\nv 1 1 1\nv 0 1 1\n"
	"f 1 4 3 2\nf 5 6 7 8\nf 1 2 6 5\nf 2/1 3/2 7/3 6/4\nf 3//1 4//1 8//1 7//1\nf -5 -8 -4 -1\n"
	"g hex\nv 2 1 0\nv 1 2 0\nv 0 2 1\nv 0 1 2\nv 1 0 2\nv 2 0 1\nf -6 -5 -4 -3 -2 -1\n",

	"ply\nformat ascii 1.0\nelement vertex 4\nproperty double x\nproperty double y\n"
	"property double z\nproperty uchar red\nelement face 2\nproperty list uchar int vertex_indices\n"
	"end_header\n0 0 0 1\n1 0 0 2\n1 1 0 3\n0.5 0.5 1e-300 4\n3 0 1 2\n4 0 1 2 3\n",

	"solid s\nfacet normal 0 0 1\nouter loop\nvertex 0 0 0\nvertex 1 0 0\nvertex 0 1 0\nendloop\n"
	"endfacet\nfacet normal 0 0 1\nouter loop\nvertex 1 0 0\nvertex 1 1 0\nvertex 0 1 0\nendloop\n"
	"endfacet\nendsolid s\n",

	"  0\nSECTION\n  2\nENTITIES\n  0\n3DFACE\n  8\nA\n 10\n0\n 20\n0\n 30\n0\n 11\n1\n 21\n0\n 31\n0\n"
	" 12\n1\n 22\n1\n 32\n0\n 13\n0\n 23\n1\n 33\n0\n  0\n3DFACE\n  8\nB\n 10\n0\n 20\n0\n 30\n0\n"
	" 11\n1\n 21\n0\n 31\n0\n 12\n1\n 22\n1\n 32\n0\n  0\nENDSEC\n  0\nEOF\n",
};
static const exg_mesh_format seed_format[] = {EXG_MESH_OBJ, EXG_MESH_PLY, EXG_MESH_STL, EXG_MESH_DXF};

/* Binary seeds: a PLY (little endian, float and int lists) and an STL. */
static size_t
binary_ply(uint8_t *buf)
{
	size_t		n = (size_t) sprintf((char *) buf,
									 "ply\nformat binary_little_endian 1.0\nelement vertex 3\n"
									 "property float x\nproperty float y\nproperty double z\n"
									 "element face 1\nproperty list uchar uint vertex_indices\nend_header\n");

	for (int v = 0; v < 3; v++)
	{
		float		x = (float) v,
					y = (float) (v == 2);
		double		z = 0.25;

		memcpy(buf + n, &x, 4);
		memcpy(buf + n + 4, &y, 4);
		memcpy(buf + n + 8, &z, 8);
		n += 16;
	}
	buf[n++] = 3;
	for (uint32_t k = 0; k < 3; k++)
	{
		memcpy(buf + n, &k, 4);
		n += 4;
	}
	return n;
}

static size_t
binary_stl(uint8_t *buf)
{
	memset(buf, 0, 84 + 100);
	buf[80] = 2;
	for (int t = 0; t < 2; t++)
		for (int c = 0; c < 3; c++)
		{
			float		p[3] = {(float) (c == 1), (float) (c == 2), (float) t};

			memcpy(buf + 84 + 50 * t + 12 + 12 * c, p, 12);
		}
	return 84 + 100;
}

static const char *tokens[] = {
	" ", "\n", "\r", "\r\n", "-", "+", ".", "e", "E", "/", "//", "#", "0", "1", "9", "-1", "99999999999",
	"4294967295", "nan", "inf", "1e999", "1e-999", "v", "f", "g", "o", "3", "255", "solid", "endsolid",
	"facet", "vertex", "endfacet", "3DFACE", "SECTION", "ENTITIES", "EOF", " 13", " 33", "element",
	"property", "list", "end_header", "binary_big_endian", "\0", "\t",
};

/* Whatever a reader accepted must be a well-formed mesh. */
static void
check_mesh(const exg_mesh *m)
{
	for (size_t i = 0; i < 3 * (size_t) m->nverts; i++)
		CHECK(isfinite(m->xyz[i]), "coordinate %zu not finite", i);
	for (size_t i = 0; i < 3 * (size_t) m->ntris; i++)
		CHECK(m->tri[i] < m->nverts, "index %u of %u", m->tri[i], m->nverts);
	for (uint32_t t = 0; t < m->ntris; t++)
		CHECK(m->tri_body[t] < m->nbodies);
}

static void
read_one(const uint8_t *data, size_t size, exg_mesh_format f, long *accepted)
{
	exg_mesh	m;
	exg_error	err = {0};
	exg_status	st;
	/* an exact-size copy on the heap, so that a read past the end is one
	 * valgrind and ASan see */
	uint8_t    *copy = malloc(size ? size : 1);

	if (copy == NULL)
		abort();
	memcpy(copy, data, size);
	exg_mesh_init(&m);
	st = exg_mesh_read(copy, size, f, &m, &err);
	switch (st)
	{
		case EXG_OK:
			check_mesh(&m);
			(*accepted)++;
			break;
		case EXG_ERR_CORRUPT:
		case EXG_ERR_NONFINITE:
		case EXG_ERR_INVALID:
		case EXG_ERR_NONPLANAR:
		case EXG_ERR_TOO_LARGE:
		case EXG_ERR_UNSUPPORTED:
			CHECK(err.message[0] != '\0', "status %s without a message", exg_status_name(st));
			break;
		default:
			FAIL("format %d: unexpected status %s: %s", (int) f, exg_status_name(st), err.message);
	}
	exg_mesh_free(&m);
	free(copy);
}

static size_t
mutate(test_rng *rng, uint8_t *buf, size_t n, size_t cap)
{
	int			edits = 1 + (int) rng_below(rng, 4);

	for (int e = 0; e < edits; e++)
	{
		size_t		at = n ? (size_t) rng_below(rng, n) : 0;

		switch (rng_below(rng, 6))
		{
			case 0:				/* cut */
				n = at;
				break;
			case 1:				/* flip a bit */
				if (n)
					buf[at] ^= (uint8_t) (1u << rng_below(rng, 8));
				break;
			case 2:				/* a random byte */
				if (n)
					buf[at] = (uint8_t) rng_next(rng);
				break;
			case 3:				/* delete a run */
				{
					size_t		len = (size_t) rng_below(rng, 16);

					if (at + len > n)
						len = n - at;
					memmove(buf + at, buf + at + len, n - at - len);
					n -= len;
					break;
				}
			default:			/* insert a token */
				{
					const char *tok = tokens[rng_below(rng, sizeof(tokens) / sizeof(tokens[0]))];
					size_t		len = strlen(tok) ? strlen(tok) : 1;

					if (n + len > cap)
						break;
					memmove(buf + at + len, buf + at, n - at);
					memcpy(buf + at, tok, len);
					n += len;
					break;
				}
		}
	}
	return n;
}

int
main(int argc, char **argv)
{
	long		rounds = argc > 1 ? atol(argv[1]) : 200000,
				accepted = 0,
				reads = 0;
	test_rng	rng = {0x66757a7a};
	uint8_t		seed[6][2048],
				buf[4096];
	size_t		seed_len[6];
	exg_mesh_format fmt[6];

	for (int s = 0; s < 4; s++)
	{
		seed_len[s] = strlen(seeds_text[s]);
		memcpy(seed[s], seeds_text[s], seed_len[s]);
		fmt[s] = seed_format[s];
	}
	seed_len[4] = binary_ply(seed[4]);
	fmt[4] = EXG_MESH_PLY;
	seed_len[5] = binary_stl(seed[5]);
	fmt[5] = EXG_MESH_STL;

	/* the seeds themselves are valid */
	for (int s = 0; s < 6; s++)
	{
		long		before = accepted;

		read_one(seed[s], seed_len[s], fmt[s], &accepted);
		CHECK(accepted == before + 1, "seed %d refused", s);
	}
	/* every prefix of every seed */
	for (int s = 0; s < 6; s++)
		for (size_t cut = 0; cut < seed_len[s]; cut++, reads++)
			read_one(seed[s], cut, fmt[s], &accepted);
	/* mutations, each read as its own format and as every other one */
	for (long r = 0; r < rounds; r++)
	{
		int			s = (int) rng_below(&rng, 6);
		size_t		n;

		memcpy(buf, seed[s], seed_len[s]);
		n = mutate(&rng, buf, seed_len[s], sizeof(buf));
		read_one(buf, n, fmt[s], &accepted);
		read_one(buf, n, (exg_mesh_format) (1 + rng_below(&rng, 4)), &accepted);
		reads += 2;
	}
	/* noise */
	for (long r = 0; r < rounds / 10; r++)
	{
		size_t		n = (size_t) rng_below(&rng, sizeof(buf));

		for (size_t i = 0; i < n; i++)
			buf[i] = (uint8_t) rng_next(&rng);
		read_one(buf, n, (exg_mesh_format) (1 + rng_below(&rng, 4)), &accepted);
		reads++;
	}
	printf("test_mesh_fuzz: %ld reads, %ld accepted\n", reads, accepted);
	return test_summary("test_mesh_fuzz");
}
