/*
 * minegen.c — write a synthetic mine (mine.h) as files PostGIS loads.
 *
 *   minegen [--size tiny|demo|paper|large] [--seed N] [--holes N] [--bodies N]
 *           [--triangles N] [--segments N] [--sets N] [--srid N]
 *           [--format copy|wkt|survey] --out DIR
 *
 * --format copy (the default) writes, in PostgreSQL COPY text format,
 *   DIR/holes.tsv         hole_id, name, EWKT  SRID=s;LINESTRING Z (x y z,...)
 *   DIR/bodies.tsv        body_id, name, EWKT  SRID=s;TIN Z (((x y z,...)),...)
 *   DIR/degeneracies.tsv  the deliberate exact cases and their expected answers
 * and DIR/load.sql, which creates drill_holes, ore_bodies and
 * mine_degeneracies, loads the files with \copy and builds n-D GiST indexes:
 *
 *   psql -v dir=DIR -f DIR/load.sql      (dir defaults to DIR as written;
 *                                         -v replace=1 drops the tables first)
 *
 * --format wkt writes DIR/holes.wkt and DIR/bodies.wkt, one plain WKT per line
 * in id order.
 *
 * --format survey writes the mine as exploration data arrive: collar and
 * survey tables (CSV), the ore bodies and a fault sheet as OBJ files, the
 * calibration holes as coordinates, and a load.sql for the tables; the demo
 * (demo/demo.sql) imports the meshes and desurveys the holes in SQL
 * (demo/survey_files.h).
 *
 * Coordinates are printed with "%.17g": 17 significant digits make every
 * double round-trip exactly through text, which the deliberate degeneracies
 * (shared vertices, exact coplanarity, one-ulp misses) depend on.
 */
#define _XOPEN_SOURCE 700

#include "mine.h"
#include "mine_out.h"
#include "survey_files.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#define DEFAULT_SRID 32719		/* WGS 84 / UTM zone 19S */

static double
now_seconds(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double) ts.tv_sec + 1e-9 * (double) ts.tv_nsec;
}

static void
usage(FILE *f)
{
	fprintf(f,
			"usage: minegen [--size tiny|demo|paper|large] [--seed N] [--holes N]\n"
			"               [--bodies N] [--triangles N] [--segments N] [--sets N]\n"
			"               [--srid N] [--format copy|wkt|survey] --out DIR\n"
			"  --size       preset (default demo): tiny 50 holes/3 bodies/2000 triangles,\n"
			"               demo 2000/20/200000, paper 7846 segments/12/1000000,\n"
			"               large 20000/100/10000000\n"
			"  --holes      number of drill holes (deliberate ones included)\n"
			"  --segments   instead of --holes: exact total number of hole segments\n"
			"  --bodies     number of ore bodies (calibration ones included)\n"
			"  --triangles  total triangles over all bodies (rounded down to even)\n"
			"  --sets       deliberate degenerate sets (9 holes and 1 body each)\n");
}

static bool
parse_int(const char *s, int64_t *out)
{
	char	   *end;
	long long	v;

	errno = 0;
	v = strtoll(s, &end, 10);
	if (errno != 0 || end == s || *end != '\0' || v < 0)
		return false;
	*out = v;
	return true;
}

static void
write_hole_geom(FILE *f, const mine *m, size_t h)
{
	const mine_hole *hole = &m->holes[h];
	char		buf[96];

	fputs("LINESTRING Z (", f);
	for (size_t v = 0; v < hole->nvertices; v++)
	{
		int			n = format_xyz(buf, sizeof(buf), m->hole_xyz + 3 * (hole->first_vertex + v));

		if (v > 0)
			fputc(',', f);
		fwrite(buf, 1, (size_t) n, f);
	}
	fputc(')', f);
}

/*
 * Each vertex is in about six triangles and each triangle prints four
 * vertices, so format every vertex once and copy the text.
 */
typedef struct vertex_text
{
	char	   *text;
	size_t	   *start;			/* nvertices + 1 offsets into text */
} vertex_text;

static bool
write_body_geom(FILE *f, const mine *m, size_t b, vertex_text *vt)
{
	const mine_body *body = &m->bodies[b];
	size_t		pos = 0;

	for (size_t v = 0; v < body->nvertices; v++)
	{
		vt->start[v] = pos;
		pos += (size_t) format_xyz(vt->text + pos, 96, m->body_xyz + 3 * (body->first_vertex + v));
	}
	vt->start[body->nvertices] = pos;

	fputs("TIN Z (", f);
	for (size_t t = 0; t < body->ntriangles; t++)
	{
		const uint32_t *tr = m->body_tri + 3 * (body->first_triangle + t);

		fputs(t > 0 ? ",((" : "((", f);
		for (int k = 0; k < 4; k++)
		{
			uint32_t	v = tr[k % 3];

			if (k > 0)
				fputc(',', f);
			fwrite(vt->text + vt->start[v], 1, vt->start[v + 1] - vt->start[v], f);
		}
		fputs("))", f);
	}
	fputc(')', f);
	return true;
}

static bool
write_load_sql(const char *dir, const char *absdir, const mine *m, const char *size,
			   int64_t srid)
{
	char		path[PATH_MAX + 32];
	out_file	o;
	FILE	   *f;

	if (!out_open(&o, dir, "load.sql", path, sizeof(path)))
		return false;
	f = o.f;
	fprintf(f,
			"-- exactgpu synthetic mine (demo/minegen): size %s, seed %llu\n"
			"-- %zu drill holes (%zu segments), %zu ore bodies (%zu triangles), %zu deliberate cases\n"
			"--\n"
			"-- Load into a database that has PostGIS (CREATE EXTENSION postgis):\n"
			"--   psql -v dir=DIR -f DIR/load.sql\n"
			"-- dir defaults to the directory minegen wrote; -v replace=1 drops the tables first.\n"
			"-- psql changes its working directory to dir (\\cd) so that \\copy finds the files.\n"
			"\\set ON_ERROR_STOP on\n"
			"\\if :{?dir}\n"
			"\\else\n"
			"\\set dir ",
			size, (unsigned long long) m->params.seed, m->n_holes, m->n_segments, m->n_bodies,
			m->n_triangles, m->n_degenerate);
	write_psql_quoted(f, absdir);
	fprintf(f,
			"\n"
			"\\endif\n"
			"\\cd :dir\n"
			"\\if :{?replace}\n"
			"DROP TABLE IF EXISTS mine_degeneracies, drill_holes, ore_bodies;\n"
			"\\endif\n"
			"\n"
			"BEGIN;\n"
			"CREATE TABLE drill_holes (\n"
			"    hole_id bigint PRIMARY KEY,\n"
			"    name text,\n"
			"    geom geometry(LineStringZ, %lld)\n"
			");\n"
			"CREATE TABLE ore_bodies (\n"
			"    body_id bigint PRIMARY KEY,\n"
			"    name text,\n"
			"    geom geometry(TinZ, %lld)\n"
			");\n"
			"-- The deliberate exact cases (test/fixtures/mine.h): does the hole meet the closed body?\n"
			"-- hole_point: 1-based ST_PointN of the hole at the contact (or one ulp off it);\n"
			"-- body_triangle: 1-based ST_GeometryN of the body's flat cap triangle involved, if any\n"
			"-- (ST_PatchN and ST_NumPatches answer NULL for a TIN; use ST_GeometryN, ST_NumGeometries).\n"
			"CREATE TABLE mine_degeneracies (\n"
			"    hole_id bigint PRIMARY KEY REFERENCES drill_holes,\n"
			"    body_id bigint NOT NULL REFERENCES ore_bodies,\n"
			"    kind text NOT NULL,\n"
			"    expect_intersects boolean NOT NULL,\n"
			"    hole_point integer NOT NULL,\n"
			"    body_triangle integer\n"
			");\n"
			"\\copy drill_holes (hole_id, name, geom) FROM 'holes.tsv'\n"
			"\\copy ore_bodies (body_id, name, geom) FROM 'bodies.tsv'\n"
			"\\copy mine_degeneracies FROM 'degeneracies.tsv'\n"
			"CREATE INDEX drill_holes_geom_idx ON drill_holes USING gist (geom gist_geometry_ops_nd);\n"
			"CREATE INDEX ore_bodies_geom_idx ON ore_bodies USING gist (geom gist_geometry_ops_nd);\n"
			"COMMIT;\n"
			"ANALYZE drill_holes;\n"
			"ANALYZE ore_bodies;\n"
			"ANALYZE mine_degeneracies;\n",
			(long long) srid, (long long) srid);
	return out_close(&o);
}

static bool
write_copy(const char *dir, const mine *m, int64_t srid)
{
	char		path[PATH_MAX + 32];
	out_file	o;
	vertex_text vt = {NULL, NULL};
	size_t		maxv = 0;
	bool		ok;

	if (!out_open(&o, dir, "holes.tsv", path, sizeof(path)))
		return false;
	for (size_t h = 0; h < m->n_holes; h++)
	{
		fprintf(o.f, "%lld\t%s\tSRID=%lld;", (long long) m->holes[h].id, m->holes[h].name,
				(long long) srid);
		write_hole_geom(o.f, m, h);
		fputc('\n', o.f);
	}
	if (!out_close(&o))
		return false;

	for (size_t b = 0; b < m->n_bodies; b++)
		if (m->bodies[b].nvertices > maxv)
			maxv = m->bodies[b].nvertices;
	vt.text = malloc(maxv * 96 + 1);
	vt.start = malloc((maxv + 1) * sizeof(size_t));
	if (vt.text == NULL || vt.start == NULL)
	{
		fprintf(stderr, "minegen: out of memory\n");
		free(vt.text);
		free(vt.start);
		return false;
	}
	ok = out_open(&o, dir, "bodies.tsv", path, sizeof(path));
	for (size_t b = 0; ok && b < m->n_bodies; b++)
	{
		fprintf(o.f, "%lld\t%s\tSRID=%lld;", (long long) m->bodies[b].id, m->bodies[b].name,
				(long long) srid);
		write_body_geom(o.f, m, b, &vt);
		fputc('\n', o.f);
	}
	free(vt.text);
	free(vt.start);
	if (!ok || !out_close(&o))
		return false;

	return write_degeneracies_tsv(dir, m);
}

static bool
write_wkt(const char *dir, const mine *m)
{
	char		path[PATH_MAX + 32];
	out_file	o;
	vertex_text vt = {NULL, NULL};
	size_t		maxv = 0;
	bool		ok;

	if (!out_open(&o, dir, "holes.wkt", path, sizeof(path)))
		return false;
	for (size_t h = 0; h < m->n_holes; h++)
	{
		write_hole_geom(o.f, m, h);
		fputc('\n', o.f);
	}
	if (!out_close(&o))
		return false;
	for (size_t b = 0; b < m->n_bodies; b++)
		if (m->bodies[b].nvertices > maxv)
			maxv = m->bodies[b].nvertices;
	vt.text = malloc(maxv * 96 + 1);
	vt.start = malloc((maxv + 1) * sizeof(size_t));
	ok = vt.text != NULL && vt.start != NULL && out_open(&o, dir, "bodies.wkt", path, sizeof(path));
	for (size_t b = 0; ok && b < m->n_bodies; b++)
	{
		write_body_geom(o.f, m, b, &vt);
		fputc('\n', o.f);
	}
	free(vt.text);
	free(vt.start);
	return ok && out_close(&o);
}

static size_t
file_size(const char *dir, const char *name)
{
	char		path[PATH_MAX + 32];
	struct stat st;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	return stat(path, &st) == 0 ? (size_t) st.st_size : 0;
}

int
main(int argc, char **argv)
{
	const char *size = "demo";
	const char *dir = NULL;
	const char *format = "copy";
	int64_t		seed = 1,
				holes = -1,
				bodies = -1,
				triangles = -1,
				segments = -1,
				sets = -1,
				srid = DEFAULT_SRID;
	mine_params p;
	mine	   *m;
	char		err[256];
	char		absdir[PATH_MAX];
	double		t0,
				t1,
				t2;
	bool		ok;

	for (int i = 1; i < argc; i += 2)
	{
		const char *a = argv[i];
		const char *v = i + 1 < argc ? argv[i + 1] : NULL;
		int64_t    *num = NULL;

		if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0)
		{
			usage(stdout);
			return 0;
		}
		if (v == NULL)
		{
			fprintf(stderr, "minegen: %s needs a value\n", a);
			usage(stderr);
			return 2;
		}
		if (strcmp(a, "--size") == 0)
			size = v;
		else if (strcmp(a, "--out") == 0)
			dir = v;
		else if (strcmp(a, "--format") == 0)
			format = v;
		else if (strcmp(a, "--seed") == 0)
			num = &seed;
		else if (strcmp(a, "--holes") == 0)
			num = &holes;
		else if (strcmp(a, "--bodies") == 0)
			num = &bodies;
		else if (strcmp(a, "--triangles") == 0)
			num = &triangles;
		else if (strcmp(a, "--segments") == 0)
			num = &segments;
		else if (strcmp(a, "--sets") == 0)
			num = &sets;
		else if (strcmp(a, "--srid") == 0)
			num = &srid;
		else
		{
			fprintf(stderr, "minegen: unknown option %s\n", a);
			usage(stderr);
			return 2;
		}
		if (num != NULL && !parse_int(v, num))
		{
			fprintf(stderr, "minegen: %s wants a non-negative integer, not %s\n", a, v);
			return 2;
		}
	}
	if (dir == NULL)
	{
		fprintf(stderr, "minegen: --out DIR is required\n");
		usage(stderr);
		return 2;
	}
	if (strcmp(format, "copy") != 0 && strcmp(format, "wkt") != 0 && strcmp(format, "survey") != 0)
	{
		fprintf(stderr, "minegen: --format is copy, wkt or survey, not %s\n", format);
		return 2;
	}
	if (!mine_params_for_size(&p, size, (uint64_t) seed))
	{
		fprintf(stderr, "minegen: unknown size %s (tiny, demo, paper, large)\n", size);
		return 2;
	}
	if (holes >= 0)
	{
		p.n_holes = holes;
		p.target_segments = 0;
	}
	if (segments >= 0)
		p.target_segments = segments;
	if (bodies >= 0)
		p.n_bodies = bodies;
	if (triangles >= 0)
		p.target_triangles = triangles;
	if (sets >= 0)
		p.n_degenerate_sets = sets;
	if (p.n_degenerate_sets > p.n_bodies)
		p.n_degenerate_sets = p.n_bodies;

	if (mkdir(dir, 0777) != 0 && errno != EEXIST)
	{
		fprintf(stderr, "minegen: cannot create %s: %s\n", dir, strerror(errno));
		return 1;
	}
	if (realpath(dir, absdir) == NULL)
	{
		fprintf(stderr, "minegen: %s: %s\n", dir, strerror(errno));
		return 1;
	}

	t0 = now_seconds();
	if (mine_generate(&p, &m, err, sizeof(err)) != 0)
	{
		fprintf(stderr, "minegen: %s\n", err);
		return 1;
	}
	t1 = now_seconds();
	if (strcmp(format, "copy") == 0)
		ok = write_copy(dir, m, srid) && write_load_sql(dir, absdir, m, size, srid);
	else if (strcmp(format, "survey") == 0)
		ok = write_survey_files(dir, absdir, m, size, srid);
	else
		ok = write_wkt(dir, m);
	t2 = now_seconds();
	if (!ok)
	{
		mine_free(m);
		return 1;
	}

	printf("minegen: size %s seed %lld: %zu holes, %zu segments, %zu bodies, %zu triangles, "
		   "%zu deliberate cases\n",
		   size, (long long) seed, m->n_holes, m->n_segments, m->n_bodies, m->n_triangles,
		   m->n_degenerate);
	if (strcmp(format, "copy") == 0)
		printf("minegen: %s: holes.tsv %zu bytes, bodies.tsv %zu bytes; "
			   "generated in %.3f s, written in %.3f s\n"
			   "minegen: load with: psql -v dir=%s -f %s/load.sql\n",
			   absdir, file_size(dir, "holes.tsv"), file_size(dir, "bodies.tsv"), t1 - t0,
			   t2 - t1, absdir, absdir);
	else if (strcmp(format, "survey") == 0)
		printf("minegen: %s: collars.csv %zu bytes, surveys.csv %zu bytes, bodies.obj %zu bytes; "
			   "generated in %.3f s, written in %.3f s\n"
			   "minegen: load the tables with: psql -v dir=%s -f %s/load.sql\n",
			   absdir, file_size(dir, "collars.csv"), file_size(dir, "surveys.csv"),
			   file_size(dir, "bodies.obj"), t1 - t0, t2 - t1, absdir, absdir);
	else
		printf("minegen: %s: holes.wkt %zu bytes, bodies.wkt %zu bytes; "
			   "generated in %.3f s, written in %.3f s\n",
			   absdir, file_size(dir, "holes.wkt"), file_size(dir, "bodies.wkt"), t1 - t0, t2 - t1);
	mine_free(m);
	return 0;
}
