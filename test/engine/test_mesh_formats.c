/*
 * test_mesh_formats.c — the mesh readers and writers (src/engine/mesh/).
 *
 * Expected values come from the files as written here, not from the code
 * under test: the unit cube's 8 corners, 12 triangles, 18 edges; decimal
 * conversions against the compiler's own conversion of the same literal
 * (GCC converts literals with MPFR, correctly rounded, not with glibc's
 * strtod); bits against bits for the round trips, over random doubles of
 * every exponent, subnormals, -0 and the extremes.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "mesh.h"
#include "predicates.h"

static exg_status
read_str(const char *text, exg_mesh_format f, exg_mesh *m, exg_error *err)
{
	exg_mesh_init(m);
	memset(err, 0, sizeof(*err));
	return exg_mesh_read((const uint8_t *) text, strlen(text), f, m, err);
}

static bool
has_vertex(const exg_mesh *m, uint32_t v, double x, double y, double z)
{
	const double *p = &m->xyz[3 * (size_t) v];

	return memcmp(&p[0], &x, 8) == 0 && memcmp(&p[1], &y, 8) == 0 && memcmp(&p[2], &z, 8) == 0;
}

/* Sign of the triangle's normal along axis k (exact, via orient3d). */
static int
normal_sign(const exg_mesh *m, uint32_t t, int k)
{
	const uint32_t *v = &m->tri[3 * (size_t) t];
	double		d[3];

	memcpy(d, &m->xyz[3 * (size_t) v[0]], sizeof(d));
	d[k] += 1.0;
	return exg_orient3d(&m->xyz[3 * (size_t) v[0]], &m->xyz[3 * (size_t) v[1]],
						&m->xyz[3 * (size_t) v[2]], d);
}

/* The unit cube's faces as quads, outward (counter-clockwise seen from outside). */
static const char *cube_obj =
	"# a unit cube\n"
	"o cube\n"
	"v 0 0 0\nv 1 0 0\nv 1 1 0\nv 0 1 0\n"
	"v 0 0 1\nv 1 0 1\nv 1 1 1\nv 0 1 1   # last corner\n"
	"vn 0 0 1\n"
	"f 1 4 3 2\nf 5 6 7 8\nf 1 2 6 5\n"
	"f 2/1 3/2 7/3 6/4\nf 3//1 4//1 8//1 7//1\nf -5 -8 -4 -1\n";

static void
check_cube(const exg_mesh *m, const char *what)
{
	exg_mesh_report r;
	exg_error	err = {0};

	test_context = what;
	CHECK(m->ntris == 12, "%u triangles", m->ntris);
	if (m->ntris != 12 || m->nbodies != 1)
		return;
	CHECK(exg_mesh_check(m, &r, &err) == EXG_OK, "%s", err.message);
	CHECK(r.triangles == 12 && r.vertices == 8 && r.edges == 18, "%lu %lu %lu",
		  (unsigned long) r.triangles, (unsigned long) r.vertices, (unsigned long) r.edges);
	CHECK(r.closed && r.boundary_edges == 0 && r.non_manifold_edges == 0 &&
		  r.misoriented_edges == 0 && r.degenerate_triangles == 0);
	test_context = NULL;
}

static void
test_obj(void)
{
	exg_mesh	m;
	exg_error	err;

	CHECK(read_str(cube_obj, EXG_MESH_OBJ, &m, &err) == EXG_OK, "%s", err.message);
	check_cube(&m, "obj cube");
	CHECK(m.nverts == 8 && has_vertex(&m, 7, 0, 1, 1));
	/* quad 1 4 3 2 split along its first-to-third diagonal: (1 4 3), (1 3 2) */
	CHECK(m.tri[0] == 0 && m.tri[1] == 3 && m.tri[2] == 2 && m.tri[3] == 0 && m.tri[4] == 2 &&
		  m.tri[5] == 1);
	/* orientation as given: the bottom face points down, the top up */
	CHECK(normal_sign(&m, 0, 2) < 0 && normal_sign(&m, 1, 2) < 0);
	CHECK(normal_sign(&m, 2, 2) > 0 && normal_sign(&m, 3, 2) > 0);
	/* f -5 -8 -4 -1 is f 4 1 5 8 */
	CHECK(m.tri[30] == 3 && m.tri[31] == 0 && m.tri[32] == 4);
	CHECK(m.nbodies == 1 && m.body_name[0] && strcmp(m.body_name[0], "cube") == 0);
	exg_mesh_free(&m);

	/* groups are bodies; a name seen again returns to its body; w = 1 and colours */
	CHECK(read_str("v 0 0 0 1\nv 1 0 0 0.5 0.5 0.5\nv 0 1 0\nv 0 0 1\r\n"
				   "g a\nf 1 2 3\ng b\nf 1 3 4\ng a\nf 1 4 2\n", EXG_MESH_OBJ, &m, &err) == EXG_OK,
		  "%s", err.message);
	CHECK(m.ntris == 3 && m.nbodies == 2 && m.tri_body[0] == 0 && m.tri_body[1] == 1 &&
		  m.tri_body[2] == 0);
	/* body by body, file order kept within a body: (1 2 3), (1 4 2), then (1 3 4) */
	{
		uint32_t	start[3];

		CHECK(exg_mesh_sort_by_body(&m, start, &err) == EXG_OK);
		CHECK(start[0] == 0 && start[1] == 2 && start[2] == 3);
		CHECK(m.tri[0] == 0 && m.tri[1] == 1 && m.tri[2] == 2 && m.tri[3] == 0 && m.tri[4] == 3 &&
			  m.tri[5] == 1 && m.tri[6] == 0 && m.tri[7] == 2 && m.tri[8] == 3);
		CHECK(m.tri_body[0] == 0 && m.tri_body[1] == 0 && m.tri_body[2] == 1);
	}
	exg_mesh_free(&m);

	/* an exactly planar hexagon (in the plane x + y + z = 3): 4 triangles,
	 * each turning as the face (normal towards +x, +y, +z) */
	CHECK(read_str("v 2 1 0\nv 1 2 0\nv 0 2 1\nv 0 1 2\nv 1 0 2\nv 2 0 1\nf 1 2 3 4 5 6\n",
				   EXG_MESH_OBJ, &m, &err) == EXG_OK, "%s", err.message);
	CHECK(m.ntris == 4, "%u", m.ntris);
	for (uint32_t t = 0; t < m.ntris; t++)
		CHECK(normal_sign(&m, t, 0) > 0 && normal_sign(&m, t, 2) > 0, "triangle %u", t);
	exg_mesh_free(&m);
	/* the same reversed: every triangle reversed */
	CHECK(read_str("v 2 1 0\nv 1 2 0\nv 0 2 1\nv 0 1 2\nv 1 0 2\nv 2 0 1\nf 6 5 4 3 2 1\n",
				   EXG_MESH_OBJ, &m, &err) == EXG_OK, "%s", err.message);
	for (uint32_t t = 0; t < m.ntris; t++)
		CHECK(normal_sign(&m, t, 0) < 0, "triangle %u", t);
	exg_mesh_free(&m);
	/* a non-convex planar pentagon (an arrow in z = 5) */
	CHECK(read_str("v 0 0 5\nv 4 0 5\nv 4 4 5\nv 2 1 5\nv 0 4 5\nf 1 2 3 4 5\n", EXG_MESH_OBJ, &m,
				   &err) == EXG_OK, "%s", err.message);
	CHECK(m.ntris == 3);
	for (uint32_t t = 0; t < m.ntris; t++)
		CHECK(normal_sign(&m, t, 2) > 0, "triangle %u", t);
	exg_mesh_free(&m);

	/* refused, each naming its line */
	CHECK(read_str("v 0 0 0\nv 1 0 0\nv 1 1 0.5\nv 0 1 0\nv 0 0.5 0\nf 1 2 3 4 5\n", EXG_MESH_OBJ,
				   &m, &err) == EXG_ERR_NONPLANAR && strstr(err.message, "line 6"), "%s", err.message);
	exg_mesh_free(&m);
	CHECK(read_str("v 0 0 0\nv 2 2 0\nv 2 0 0\nv 0 2 0\nv 1 3 0\nf 1 2 3 4 5\n", EXG_MESH_OBJ, &m,
				   &err) == EXG_ERR_INVALID && strstr(err.message, "line 6"), "%s", err.message);
	exg_mesh_free(&m);
	CHECK(read_str("v 0 0 0\nv 1 0 0\nf 1 2 3\n", EXG_MESH_OBJ, &m, &err) == EXG_ERR_CORRUPT &&
		  strstr(err.message, "line 3"), "%s", err.message);
	exg_mesh_free(&m);
	CHECK(read_str("v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 0\n", EXG_MESH_OBJ, &m, &err) == EXG_ERR_CORRUPT,
		  "%s", err.message);
	exg_mesh_free(&m);
	CHECK(read_str("v 0 0 0\nv 1 0 0\nv 0 1 0\nf -4 1 2\n", EXG_MESH_OBJ, &m, &err) == EXG_ERR_CORRUPT,
		  "%s", err.message);
	exg_mesh_free(&m);
	CHECK(read_str("v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2\n", EXG_MESH_OBJ, &m, &err) == EXG_ERR_CORRUPT,
		  "%s", err.message);
	exg_mesh_free(&m);
	CHECK(read_str("v 0 0\n", EXG_MESH_OBJ, &m, &err) == EXG_ERR_CORRUPT, "%s", err.message);
	exg_mesh_free(&m);
	CHECK(read_str("v 0 0 0 2\n", EXG_MESH_OBJ, &m, &err) == EXG_ERR_CORRUPT, "%s", err.message);
	exg_mesh_free(&m);
	CHECK(read_str("v 0 0 nan\n", EXG_MESH_OBJ, &m, &err) == EXG_ERR_CORRUPT, "%s", err.message);
	exg_mesh_free(&m);
	CHECK(read_str("v 0 0 inf\n", EXG_MESH_OBJ, &m, &err) == EXG_ERR_CORRUPT, "%s", err.message);
	exg_mesh_free(&m);
	CHECK(read_str("\n\nv 0 0 1e400\n", EXG_MESH_OBJ, &m, &err) == EXG_ERR_NONFINITE &&
		  strstr(err.message, "line 3"), "%s", err.message);
	exg_mesh_free(&m);
	CHECK(read_str("v 0 0 0x1p3\n", EXG_MESH_OBJ, &m, &err) == EXG_ERR_CORRUPT, "%s", err.message);
	exg_mesh_free(&m);
}

static void
test_decimals(void)
{
	static const struct
	{
		const char *text;
		double		value;
	}			cases[] = {
		{"0.1", 0.1},
		{"-0", -0.0},
		{"1e23", 1e23},
		{"9007199254740993", 9007199254740993.0},	/* a tie: to even */
		{"2.2250738585072011e-308", 2.2250738585072011e-308},	/* below DBL_MIN */
		{"4.9406564584124654e-324", 4.9406564584124654e-324},	/* the least subnormal */
		{"1.7976931348623157e308", 1.7976931348623157e308},
		/* 1 + 2^-53 exactly: halfway, to even (1), and a hair above it */
		{"1.00000000000000011102230246251565404236316680908203125", 1.00000000000000011102230246251565404236316680908203125},
		{"1.00000000000000011102230246251565404236316680908203126", 1.00000000000000011102230246251565404236316680908203126},
		{"500389.24698207790", 500389.24698207790},
		{"7000575.499621968", 7000575.499621968},
		{"-424.60435336166586", -424.60435336166586},
		{"+.5e-0", .5},
		{"123.", 123.},
	};
	static const char *bad[] = {"", "-", ".", "e5", "1e", "1e+", "nan", "inf", "-inf", "0x10", "1,5",
	"1.5.5", "1 5", "--1"};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
	{
		double		d = 12345;
		exg_error	err = {0};

		CHECK(exg_mesh_parse_double(cases[i].text, strlen(cases[i].text), &d, "t", &err) == EXG_OK &&
			  memcmp(&d, &cases[i].value, 8) == 0, "%s -> %.17g, not %.17g", cases[i].text, d,
			  cases[i].value);
	}
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
	{
		double		d;
		exg_error	err = {0};

		CHECK(exg_mesh_parse_double(bad[i], strlen(bad[i]), &d, "t", &err) != EXG_OK, "\"%s\"", bad[i]);
	}
}

/* A binary PLY of the cube: header, then vertices in the given property layout. */
static size_t
ply_binary_cube(uint8_t *buf, bool be, bool as_float)
{
	static const int c[8][3] = {{0, 0, 0}, {1, 0, 0}, {1, 1, 0}, {0, 1, 0}, {0, 0, 1}, {1, 0, 1}, {1, 1, 1}, {0, 1, 1}};
	static const int f[6][4] = {{0, 3, 2, 1}, {4, 5, 6, 7}, {0, 1, 5, 4}, {1, 2, 6, 5}, {2, 3, 7, 6}, {3, 0, 4, 7}};
	size_t		n = (size_t) sprintf((char *) buf,
									 "ply\nformat %s 1.0\ncomment made by hand\nelement vertex 8\n"
									 "property %s x\nproperty %s y\nproperty %s z\nproperty uchar red\n"
									 "element face 6\nproperty list uchar int vertex_indices\nproperty short flags\n"
									 "end_header\n",
									 be ? "binary_big_endian" : "binary_little_endian",
									 as_float ? "float" : "double", as_float ? "float" : "double",
									 as_float ? "float" : "double");

	for (int v = 0; v < 8; v++)
	{
		for (int k = 0; k < 3; k++)
		{
			uint8_t		b[8];
			uint64_t	u;
			int			size = as_float ? 4 : 8;

			if (as_float)
			{
				float		x = (float) c[v][k];
				uint32_t	w;

				memcpy(&w, &x, 4);
				u = w;
			}
			else
			{
				double		x = c[v][k];

				memcpy(&u, &x, 8);
			}
			for (int i = 0; i < size; i++)
				b[be ? size - 1 - i : i] = (uint8_t) (u >> (8 * i));
			memcpy(buf + n, b, (size_t) size);
			n += (size_t) size;
		}
		buf[n++] = 200;			/* red */
	}
	for (int q = 0; q < 6; q++)
	{
		buf[n++] = 4;
		for (int k = 0; k < 4; k++)
			for (int i = 0; i < 4; i++)
				buf[n++] = (uint8_t) ((uint32_t) f[q][k] >> (8 * (be ? 3 - i : i)));
		buf[n++] = 0;
		buf[n++] = 7;
	}
	return n;
}

static void
test_ply(void)
{
	exg_mesh	m;
	exg_error	err = {0};
	uint8_t		buf[2048];
	const char *ascii =
		"ply\r\nformat ascii 1.0\r\nelement vertex 8\r\nproperty float x\r\nproperty float y\r\n"
		"property float z\r\nproperty float nx\r\nelement face 6\r\n"
		"property list uchar uint vertex_indices\r\nend_header\r\n"
		"0 0 0 9\r\n1 0 0 9\r\n1 1 0 9\r\n0 1 0 9\r\n0 0 1 9\r\n1 0 1 9\r\n1 1 1 9\r\n0 1 1 9\r\n"
		"4 0 3 2 1\r\n4 4 5 6 7\r\n4 0 1 5 4\r\n4 1 2 6 5\r\n4 2 3 7 6\r\n4 3 0 4 7\r\n";

	CHECK(read_str(ascii, EXG_MESH_PLY, &m, &err) == EXG_OK, "%s", err.message);
	check_cube(&m, "ply ascii cube");
	exg_mesh_free(&m);
	for (int be = 0; be < 2; be++)
		for (int fl = 0; fl < 2; fl++)
		{
			size_t		n = ply_binary_cube(buf, be, fl);

			exg_mesh_init(&m);
			CHECK(exg_mesh_read(buf, n, EXG_MESH_PLY, &m, &err) == EXG_OK, "be %d float %d: %s", be, fl,
				  err.message);
			check_cube(&m, be ? "ply binary be cube" : "ply binary le cube");
			CHECK(m.nverts == 8 && has_vertex(&m, 6, 1, 1, 1));
			exg_mesh_free(&m);
			/* truncated anywhere in the data: an error, never a read past the end */
			for (size_t cut = n - 1; cut > n - 120; cut--)
			{
				exg_mesh_init(&m);
				CHECK(exg_mesh_read(buf, cut, EXG_MESH_PLY, &m, &err) == EXG_ERR_CORRUPT, "cut %zu", cut);
				exg_mesh_free(&m);
			}
		}
	/* a header announcing more than the file holds is refused before reading */
	CHECK(read_str("ply\nformat binary_little_endian 1.0\nelement vertex 4000000000\nproperty double x\n"
				   "property double y\nproperty double z\nend_header\n", EXG_MESH_PLY, &m, &err) != EXG_OK,
		  "%s", err.message);
	exg_mesh_free(&m);
	CHECK(read_str("ply\nformat ascii 1.0\nelement face 1\nproperty list uchar int vertex_indices\n"
				   "element vertex 3\nproperty float x\nproperty float y\nproperty float z\nend_header\n"
				   "3 0 1 2\n0 0 0\n1 0 0\n0 1 0\n", EXG_MESH_PLY, &m, &err) == EXG_ERR_CORRUPT, "%s",
		  err.message);
	exg_mesh_free(&m);
	CHECK(read_str("ply\nformat ascii 1.0\nelement vertex 3\nproperty float x\nproperty float y\n"
				   "property float z\nelement face 1\nproperty list uchar int vertex_indices\nend_header\n"
				   "0 0 0\n1 0 0\n0 1 0\n3 0 1 3\n", EXG_MESH_PLY, &m, &err) == EXG_ERR_CORRUPT &&
		  strstr(err.message, "line 13"), "%s", err.message);
	exg_mesh_free(&m);
	CHECK(read_str("ply\nformat ascii 1.0\nelement vertex 1\nproperty float x\nproperty float y\n"
				   "end_header\n0 0\n", EXG_MESH_PLY, &m, &err) == EXG_ERR_CORRUPT, "%s", err.message);
	exg_mesh_free(&m);
	CHECK(read_str("solid x\n", EXG_MESH_PLY, &m, &err) == EXG_ERR_CORRUPT, "%s", err.message);
	exg_mesh_free(&m);
}

/* The cube as ASCII STL: each face's two triangles, corners by value. */
static void
stl_ascii_cube(char *out, bool open)
{
	static const int c[8][3] = {{0, 0, 0}, {1, 0, 0}, {1, 1, 0}, {0, 1, 0}, {0, 0, 1}, {1, 0, 1}, {1, 1, 1}, {0, 1, 1}};
	static const int f[6][4] = {{0, 3, 2, 1}, {4, 5, 6, 7}, {0, 1, 5, 4}, {1, 2, 6, 5}, {2, 3, 7, 6}, {3, 0, 4, 7}};

	out += sprintf(out, "solid cube\n");
	for (int q = open ? 1 : 0; q < 6; q++)
		for (int h = 0; h < 2; h++)
		{
			int			k[3] = {f[q][0], f[q][1 + h], f[q][2 + h]};

			out += sprintf(out, "  facet normal 0 0 0\n    outer loop\n");
			for (int i = 0; i < 3; i++)
				out += sprintf(out, "      vertex %d.0e+00 %d %d\n", c[k[i]][0], c[k[i]][1], c[k[i]][2]);
			out += sprintf(out, "    endloop\n  endfacet\n");
		}
	sprintf(out, "endsolid cube\n");
}

static void
test_stl(void)
{
	char		text[8192];
	uint8_t		bin[84 + 50 * 12];
	exg_mesh	m;
	exg_error	err = {0};
	exg_mesh_report r;

	stl_ascii_cube(text, false);
	CHECK(read_str(text, EXG_MESH_STL, &m, &err) == EXG_OK, "%s", err.message);
	check_cube(&m, "stl ascii cube");
	CHECK(m.nverts == 8, "welded to %u vertices", m.nverts);
	/* the same triangles as binary STL, floats widened */
	memset(bin, 0, sizeof(bin));
	memcpy(bin, "solid but binary", 16);	/* some writers begin binary files so */
	bin[80] = 12;
	for (uint32_t t = 0; t < m.ntris; t++)
		for (int c = 0; c < 3; c++)
			for (int k = 0; k < 3; k++)
			{
				float		x = (float) m.xyz[3 * (size_t) m.tri[3 * t + c] + k];

				memcpy(bin + 84 + 50 * t + 12 + 12 * c + 4 * k, &x, 4);
			}
	exg_mesh_free(&m);
	exg_mesh_init(&m);
	CHECK(exg_mesh_read(bin, sizeof(bin), EXG_MESH_STL, &m, &err) == EXG_OK, "%s", err.message);
	check_cube(&m, "stl binary cube");
	exg_mesh_free(&m);
	exg_mesh_init(&m);
	CHECK(exg_mesh_read(bin, sizeof(bin) - 1, EXG_MESH_STL, &m, &err) == EXG_ERR_CORRUPT, "%s", err.message);
	exg_mesh_free(&m);
	{
		float		nan = NAN;

		memcpy(bin + 84 + 50 * 5 + 24, &nan, 4);
		exg_mesh_init(&m);
		CHECK(exg_mesh_read(bin, sizeof(bin), EXG_MESH_STL, &m, &err) == EXG_ERR_NONFINITE &&
			  strstr(err.message, "triangle 6"), "%s", err.message);
		exg_mesh_free(&m);
	}

	/* one face missing: open, with its 4 edges on the boundary */
	stl_ascii_cube(text, true);
	CHECK(read_str(text, EXG_MESH_STL, &m, &err) == EXG_OK, "%s", err.message);
	CHECK(exg_mesh_check(&m, &r, &err) == EXG_OK);
	CHECK(!r.closed && r.triangles == 10 && r.boundary_edges == 4 && r.odd_edges == 4 &&
		  r.non_manifold_edges == 0, "closed %d boundary %lu", r.closed, (unsigned long) r.boundary_edges);
	exg_mesh_free(&m);

	CHECK(read_str("solid a\nfacet normal 0 0 1\nouter loop\nvertex 0 0 0\nvertex 1 0 0\nendloop\nendfacet\n",
				   EXG_MESH_STL, &m, &err) == EXG_ERR_CORRUPT && strstr(err.message, "line 7"), "%s",
		  err.message);
	exg_mesh_free(&m);
	CHECK(read_str("solid a\nfacet normal 0 0 1\nouter loop\nvertex 0 0 0\nvertex 1 0 0\n", EXG_MESH_STL,
				   &m, &err) == EXG_ERR_CORRUPT, "%s", err.message);
	exg_mesh_free(&m);
	CHECK(read_str("hello", EXG_MESH_STL, &m, &err) == EXG_ERR_CORRUPT, "%s", err.message);
	exg_mesh_free(&m);
}

static void
test_dxf(void)
{
	exg_mesh	m;
	exg_error	err = {0};
	exg_mesh_report r[2];
	/* a tetrahedron on layer ORE (one 3DFACE a quad whose 4th corner repeats
	 * the 3rd), and a square on layer WASTE split along its first diagonal */
	const char *dxf =
		"  0\nSECTION\n  2\nHEADER\n  0\nENDSEC\n"
		"  0\nSECTION\n  2\nBLOCKS\n  0\n3DFACE\n  8\nBLOCK\n 10\n9\n 20\n9\n 30\n9\n 11\n8\n 21\n9\n 31\n9\n 12\n9\n 22\n8\n 32\n9\n  0\nENDSEC\n"
		"  0\nSECTION\n  2\nENTITIES\n"
		"  0\n3DFACE\n  8\nORE\n 10\n0.0\n 20\n0.0\n 30\n0.0\n 11\n0.0\n 21\n1.0\n 31\n0.0\n 12\n1.0\n 22\n0.0\n 32\n0.0\n 13\n1.0\n 23\n0.0\n 33\n0.0\n"
		"  0\n3DFACE\n  8\nORE\n 10\n0\n 20\n0\n 30\n0\n 11\n1\n 21\n0\n 31\n0\n 12\n0\n 22\n0\n 32\n1\n"
		"  0\n3DFACE\n  8\nORE\n 10\n0\n 20\n0\n 30\n0\n 11\n0\n 21\n0\n 31\n1\n 12\n0\n 22\n1\n 32\n0\n 13\n0\n 23\n1\n 33\n0\n"
		"  0\n3DFACE\n  8\nWASTE\n 10\n5\n 20\n5\n 30\n5\n 11\n6\n 21\n5\n 31\n5\n 12\n6\n 22\n6\n 32\n5\n 13\n5\n 23\n6\n 33\n5\n"
		"  0\n3DFACE\n  8\nORE\n 10\n1\n 20\n0\n 30\n0\n 11\n0\n 21\n1\n 31\n0\n 12\n0\n 22\n0\n 32\n1\n 13\n0\n 23\n0\n 33\n1\n"
		"  0\nENDSEC\n  0\nEOF\n";

	CHECK(read_str(dxf, EXG_MESH_DXF, &m, &err) == EXG_OK, "%s", err.message);
	CHECK(m.ntris == 6 && m.nbodies == 2, "%u triangles, %u bodies", m.ntris, m.nbodies);
	if (m.ntris == 6 && m.nbodies == 2)
	{
		CHECK(strcmp(m.body_name[0], "ORE") == 0 && strcmp(m.body_name[1], "WASTE") == 0);
		CHECK(exg_mesh_check(&m, r, &err) == EXG_OK);
		CHECK(r[0].closed && r[0].triangles == 4 && r[0].vertices == 4 && r[0].misoriented_edges == 0);
		CHECK(!r[1].closed && r[1].triangles == 2 && r[1].boundary_edges == 4);
		/* WASTE's quad (5 5 5)(6 5 5)(6 6 5)(5 6 5): triangles (1 2 3), (1 3 4) */
		CHECK(has_vertex(&m, m.tri[9], 5, 5, 5) && has_vertex(&m, m.tri[11], 6, 6, 5) &&
			  has_vertex(&m, m.tri[12], 5, 5, 5) && has_vertex(&m, m.tri[13], 6, 6, 5) &&
			  has_vertex(&m, m.tri[14], 5, 6, 5));
	}
	exg_mesh_free(&m);
	CHECK(read_str("  0\n3DFACE\n 10\n0\n 20\n0\n 30\n0\n 11\n1\n 21\n0\n 12\n0\n 22\n1\n 32\n0\n  0\nEOF\n",
				   EXG_MESH_DXF, &m, &err) == EXG_ERR_CORRUPT && strstr(err.message, "31"), "%s", err.message);
	exg_mesh_free(&m);
	CHECK(read_str("  0\n3DFACE\n 10\n0\n 20\nx\n", EXG_MESH_DXF, &m, &err) == EXG_ERR_CORRUPT &&
		  strstr(err.message, "line 6"), "%s", err.message);
	exg_mesh_free(&m);
	CHECK(read_str("  0\nSECTION\n  2\nENTITIES\n  0\nPOLYLINE\n 70\n64\n  0\nSEQEND\n  0\nENDSEC\n  0\nEOF\n",
				   EXG_MESH_DXF, &m, &err) == EXG_ERR_UNSUPPORTED, "%s", err.message);
	exg_mesh_free(&m);
	CHECK(read_str("AutoCAD Binary DXF\r\n\032", EXG_MESH_DXF, &m, &err) == EXG_ERR_CORRUPT, "%s", err.message);
	exg_mesh_free(&m);
	CHECK(read_str("  0\n3DFACE\n 10\n", EXG_MESH_DXF, &m, &err) == EXG_ERR_CORRUPT, "%s", err.message);
	exg_mesh_free(&m);
}

/* A random double: any exponent, sign, subnormals, zeros. */
static double
random_double(test_rng *rng)
{
	uint64_t	u = rng_next(rng);
	double		d;

	switch (rng_below(rng, 6))
	{
		case 0:
			return (double) (int64_t) (rng_below(rng, 2001)) - 1000.0;
		case 1:
			return rng_below(rng, 2) ? -0.0 : 0.0;
		case 2:
			u &= 0x800fffffffffffffull;	/* subnormal */
			break;
		case 3:
			return 500000.0 + rng_uniform(rng) * 1000.0;	/* UTM-like */
		default:
			break;
	}
	memcpy(&d, &u, 8);
	if (!isfinite(d))
		d = 1.7976931348623157e308;
	return d;
}

static void
test_round_trips(void)
{
	test_rng	rng = {0x6d657368};

	for (int round = 0; round < 200; round++)
	{
		exg_mesh	m,
					back;
		exg_error	err = {0};
		uint32_t	nv = 3 + (uint32_t) rng_below(&rng, 40),
					nt = 1 + (uint32_t) rng_below(&rng, 60);

		exg_mesh_init(&m);
		for (uint32_t v = 0; v < nv; v++)
			exg_mesh_add_vertex(&m, random_double(&rng), random_double(&rng), random_double(&rng), &err);
		for (uint32_t t = 0; t < nt; t++)
			exg_mesh_add_triangle(&m, (uint32_t) rng_below(&rng, nv), (uint32_t) rng_below(&rng, nv),
								  (uint32_t) rng_below(&rng, nv), &err);
		for (int fmt = 0; fmt < 4; fmt++)
		{
			char	   *file = NULL;
			size_t		len = 0;
			exg_status	st = fmt == 0 ? exg_mesh_write_obj(&m, &file, &len, &err) :
				exg_mesh_write_ply(&m, (exg_ply_encoding) (fmt - 1), &file, &len, &err);

			CHECK(st == EXG_OK, "write %d: %s", fmt, err.message);
			if (st != EXG_OK)
				continue;
			exg_mesh_init(&back);
			st = exg_mesh_read((const uint8_t *) file, len, fmt == 0 ? EXG_MESH_OBJ : EXG_MESH_PLY, &back, &err);
			/* random triangles may repeat a corner: read as given (faces of 3) */
			CHECK(st == EXG_OK, "read back %d: %s", fmt, err.message);
			CHECK(back.nverts == m.nverts && back.ntris == m.ntris, "format %d", fmt);
			if (st == EXG_OK && back.nverts == m.nverts && back.ntris == m.ntris)
			{
				CHECK(memcmp(back.xyz, m.xyz, sizeof(double) * 3 * m.nverts) == 0, "format %d: bits differ", fmt);
				CHECK(memcmp(back.tri, m.tri, sizeof(uint32_t) * 3 * m.ntris) == 0, "format %d: triangles differ", fmt);
			}
			exg_mesh_free(&back);
			free(file);
		}
		exg_mesh_free(&m);
	}
	/* the shortest round-trip text */
	{
		char		buf[32];

		exg_mesh_format_double(buf, 0.1);
		CHECK(strcmp(buf, "0.1") == 0, "%s", buf);
		exg_mesh_format_double(buf, -0.0);
		CHECK(strcmp(buf, "-0") == 0, "%s", buf);
		exg_mesh_format_double(buf, 0.1 + 0.2);
		CHECK(strcmp(buf, "0.30000000000000004") == 0, "%s", buf);
	}
}

/* Welding by bits: equal bits merge, -0 and +0 do not; triangles follow. */
static void
test_weld(void)
{
	exg_mesh	m;
	exg_error	err = {0};
	exg_mesh_report r;

	exg_mesh_init(&m);
	exg_mesh_add_vertex(&m, 0, 0, 0, &err);
	exg_mesh_add_vertex(&m, 1, 0, 0, &err);
	exg_mesh_add_vertex(&m, 0, 1, 0, &err);
	exg_mesh_add_vertex(&m, 1, 0, 0, &err);
	exg_mesh_add_vertex(&m, -0.0, 0, 0, &err);
	exg_mesh_add_vertex(&m, 0, 1, 0, &err);
	exg_mesh_add_triangle(&m, 0, 1, 2, &err);
	exg_mesh_add_triangle(&m, 4, 5, 3, &err);
	CHECK(exg_mesh_weld(&m, &err) == EXG_OK);
	CHECK(m.nverts == 4, "%u", m.nverts);
	CHECK(m.tri[3] == 3 && m.tri[4] == 2 && m.tri[5] == 1);
	CHECK(signbit(m.xyz[9]) && m.xyz[9] == 0.0);
	/* closedness compares values: -0 is +0 there, so the two triangles
	 * (used in opposite turns) share all three edges */
	CHECK(exg_mesh_check(&m, &r, &err) == EXG_OK);
	CHECK(r.vertices == 3 && r.edges == 3 && r.closed && r.misoriented_edges == 0);
	exg_mesh_free(&m);
	/* an edge of three triangles: non-manifold; a triangle with a repeated corner */
	exg_mesh_init(&m);
	exg_mesh_add_vertex(&m, 0, 0, 0, &err);
	exg_mesh_add_vertex(&m, 1, 0, 0, &err);
	exg_mesh_add_vertex(&m, 0, 1, 0, &err);
	exg_mesh_add_vertex(&m, 0, -1, 0, &err);
	exg_mesh_add_vertex(&m, 0, 0, 1, &err);
	exg_mesh_add_triangle(&m, 0, 1, 2, &err);
	exg_mesh_add_triangle(&m, 1, 0, 3, &err);
	exg_mesh_add_triangle(&m, 0, 1, 4, &err);
	exg_mesh_add_triangle(&m, 2, 2, 3, &err);
	CHECK(exg_mesh_check(&m, &r, &err) == EXG_OK);
	CHECK(r.non_manifold_edges == 1 && r.degenerate_triangles == 1 && !r.closed, "nm %lu deg %lu",
		  (unsigned long) r.non_manifold_edges, (unsigned long) r.degenerate_triangles);
	exg_mesh_free(&m);
}

int
main(void)
{
	test_decimals();
	test_obj();
	test_ply();
	test_stl();
	test_dxf();
	test_weld();
	test_round_trips();
	return test_summary("test_mesh_formats");
}
