/*
 * survey_files.c — the mine as collars, surveys and mesh files
 * (survey_files.h).
 */
#define _XOPEN_SOURCE 700

#include "survey_files.h"
#include "mine_out.h"

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define RAD_TO_DEG (180.0 / 3.14159265358979323846)

/* The fault sheet's grid: vertices along strike and down dip. */
#define FAULT_ALONG 30
#define FAULT_DOWN 30

static const double *
hole_vertex(const mine *m, const mine_hole *h, size_t v)
{
	return m->hole_xyz + 3 * (h->first_vertex + v);
}

/* Unit vector of segment v -> v+1 of a hole, and its length. */
static double
segment_unit(const mine *m, const mine_hole *h, size_t v, double u[3])
{
	const double *a = hole_vertex(m, h, v),
			   *b = hole_vertex(m, h, v + 1);
	double		len;

	for (int e = 0; e < 3; e++)
		u[e] = b[e] - a[e];
	/* the order in which the intercepts sum a segment's length */
	len = sqrt((u[0] * u[0] + u[1] * u[1]) + u[2] * u[2]);
	for (int e = 0; e < 3; e++)
		u[e] /= len;
	return len;
}

/*
 * The hole's direction at station v as a survey tool reads it: along the
 * segment at either end, the bisector of the two segments at a bend. Only
 * the printed (rounded) angles matter, so libm's atan2 is good enough here.
 */
static void
station_angles(const mine *m, const mine_hole *h, size_t v, double *azimuth, double *dip)
{
	double		t[3] = {0.0, 0.0, 0.0},
				u[3];

	if (v > 0)
	{
		segment_unit(m, h, v - 1, u);
		for (int e = 0; e < 3; e++)
			t[e] += u[e];
	}
	if (v + 1 < h->nvertices)
	{
		segment_unit(m, h, v, u);
		for (int e = 0; e < 3; e++)
			t[e] += u[e];
	}
	*azimuth = atan2(t[0], t[1]) * RAD_TO_DEG;
	if (*azimuth < 0.0)
		*azimuth += 360.0;
	*dip = atan2(t[2], hypot(t[0], t[1])) * RAD_TO_DEG;
}

static bool
write_collars_surveys(const char *dir, const mine *m)
{
	char		cpath[PATH_MAX + 32],
				spath[PATH_MAX + 32];
	out_file	c,
				s;
	bool		ok = true;

	if (!out_open(&c, dir, "collars.csv", cpath, sizeof(cpath)))
		return false;
	if (!out_open(&s, dir, "surveys.csv", spath, sizeof(spath)))
	{
		out_close(&c);
		return false;
	}
	fputs("hole_id,name,easting,northing,elevation,end_depth\n", c.f);
	fputs("hole_id,depth,azimuth,dip\n", s.f);
	for (size_t i = 0; ok && i < m->n_holes; i++)
	{
		const mine_hole *h = &m->holes[i];
		const double *collar = hole_vertex(m, h, 0);
		double		depth = 0.0,
					last = -1.0;
		char		dtext[32];

		if (h->degenerate >= 0)
			continue;
		for (size_t v = 0; v < h->nvertices; v++)
		{
			double		az,
						dip,
						printed;
			double		u[3];

			if (v > 0)
				depth += segment_unit(m, h, v - 1, u);
			snprintf(dtext, sizeof(dtext), "%.2f", depth);
			printed = strtod(dtext, NULL);
			if (!(printed > last))
			{
				/* mine.c makes no segment shorter than 5 cm: this would be a new generator */
				fprintf(stderr, "minegen: hole %s: stations closer than a centimetre\n", h->name);
				ok = false;
				break;
			}
			last = printed;
			station_angles(m, h, v, &az, &dip);
			fprintf(s.f, "%lld,%s,%.2f,%.2f\n", (long long) h->id, dtext, az, dip);
		}
		fprintf(c.f, "%lld,%s,%.3f,%.3f,%.3f,%s\n", (long long) h->id, h->name, collar[0],
				collar[1], collar[2], dtext);
	}
	ok = out_close(&s) && ok;
	return out_close(&c) && ok;
}

static bool
write_calibration_holes(const char *dir, const mine *m, int64_t srid)
{
	char		path[PATH_MAX + 32];
	out_file	o;

	if (!out_open(&o, dir, "calibration_holes.tsv", path, sizeof(path)))
		return false;
	for (size_t i = 0; i < m->n_holes; i++)
	{
		const mine_hole *h = &m->holes[i];
		double		depth = 0.0;
		char		buf[96];

		if (h->degenerate < 0)
			continue;
		fprintf(o.f, "%lld\t%s\tSRID=%lld;LINESTRING ZM (", (long long) h->id, h->name,
				(long long) srid);
		for (size_t v = 0; v < h->nvertices; v++)
		{
			double		u[3];

			if (v > 0)
				depth += segment_unit(m, h, v - 1, u);
			format_xyz(buf, sizeof(buf), hole_vertex(m, h, v));
			fprintf(o.f, "%s%s %.17g", v > 0 ? "," : "", buf, depth);
		}
		fputs(")\n", o.f);
	}
	return out_close(&o);
}

/* Every body as an OBJ object: its vertices, then its faces (1-based, file-wide). */
static bool
write_bodies_obj(const char *dir, const mine *m)
{
	char		path[PATH_MAX + 32];
	out_file	o;
	size_t		base = 0;

	if (!out_open(&o, dir, "bodies.obj", path, sizeof(path)))
		return false;
	fprintf(o.f, "# exactgpu synthetic mine (demo/minegen): %zu ore bodies, %zu triangles\n",
			m->n_bodies, m->n_triangles);
	for (size_t b = 0; b < m->n_bodies; b++)
	{
		const mine_body *body = &m->bodies[b];
		char		buf[96];

		fprintf(o.f, "o %s\n", body->name);
		for (size_t v = 0; v < body->nvertices; v++)
		{
			format_xyz(buf, sizeof(buf), m->body_xyz + 3 * (body->first_vertex + v));
			fprintf(o.f, "v %s\n", buf);
		}
		for (size_t t = 0; t < body->ntriangles; t++)
		{
			const uint32_t *tr = m->body_tri + 3 * (body->first_triangle + t);

			fprintf(o.f, "f %zu %zu %zu\n", base + tr[0] + 1, base + tr[1] + 1, base + tr[2] + 1);
		}
		base += body->nvertices;
	}
	return out_close(&o);
}

/*
 * An open fault sheet through the middle of the drilled area: striking
 * north, dipping about 65 degrees east, gently warped, from above the
 * topography to below the deepest holes. A grid of quads, each split into
 * two triangles, so every interior edge has two faces and the rim one.
 */
static bool
write_faults_obj(const char *dir, const mine *m)
{
	char		path[PATH_MAX + 32];
	out_file	o;
	double		xc = 0.5 * (m->footprint_min[0] + m->footprint_max[0]);
	double		y0 = m->footprint_min[1] - 60.0,
				y1 = m->footprint_max[1] + 60.0;
	double		z0 = m->params.surface_z + 40.0,
				z1 = m->params.body_z_bottom - 150.0;
	double		zmid = 0.5 * (m->params.body_z_top + m->params.body_z_bottom);

	if (!out_open(&o, dir, "faults.obj", path, sizeof(path)))
		return false;
	fputs("# exactgpu synthetic mine (demo/minegen): a fault sheet, open\no fault-1\n", o.f);
	for (int i = 0; i < FAULT_ALONG; i++)
		for (int j = 0; j < FAULT_DOWN; j++)
		{
			double		y = y0 + (y1 - y0) * i / (FAULT_ALONG - 1);
			double		z = z0 + (z1 - z0) * j / (FAULT_DOWN - 1);
			double		p[3];
			char		buf[96];

			/* 0.4663 = 1 / tan(65 degrees): east as it goes down */
			p[0] = xc + 0.4663 * (zmid - z)
				+ 25.0 * mine_sin(6.283185307179586 * (y - y0) / (0.9 * (y1 - y0)))
				+ 12.0 * mine_cos(z / 170.0);
			p[1] = y;
			p[2] = z;
			format_xyz(buf, sizeof(buf), p);
			fprintf(o.f, "v %s\n", buf);
		}
	for (int i = 0; i + 1 < FAULT_ALONG; i++)
		for (int j = 0; j + 1 < FAULT_DOWN; j++)
		{
			int			a = i * FAULT_DOWN + j + 1,
						b = a + FAULT_DOWN;

			fprintf(o.f, "f %d %d %d\nf %d %d %d\n", a, b, b + 1, a, b + 1, a + 1);
		}
	return out_close(&o);
}

static bool
write_survey_load_sql(const char *dir, const char *absdir, const mine *m, const char *size,
					  int64_t srid)
{
	char		path[PATH_MAX + 32];
	out_file	o;
	FILE	   *f;

	if (!out_open(&o, dir, "load.sql", path, sizeof(path)))
		return false;
	f = o.f;
	fprintf(f,
			"-- exactgpu synthetic mine (demo/minegen --format survey): size %s, seed %llu\n"
			"-- %zu drill holes (%zu calibration holes), %zu ore bodies (%zu triangles)\n"
			"--\n"
			"-- Loads the collar, survey and calibration-hole tables and the deliberate cases:\n"
			"--   psql -v dir=DIR -f DIR/load.sql\n"
			"-- dir defaults to the directory minegen wrote; -v replace=1 drops the tables first.\n"
			"-- psql changes its working directory to dir (\\cd) so that \\copy finds the files.\n"
			"-- The bodies (bodies.obj) and the fault (faults.obj) are mesh files for\n"
			"-- ST_ExactMeshImportBodies; demo/demo.sql imports them and desurveys the holes.\n"
			"\\set ON_ERROR_STOP on\n"
			"\\if :{?dir}\n"
			"\\else\n"
			"\\set dir ",
			size, (unsigned long long) m->params.seed, m->n_holes, m->n_degenerate, m->n_bodies,
			m->n_triangles);
	write_psql_quoted(f, absdir);
	fprintf(f,
			"\n"
			"\\endif\n"
			"\\cd :dir\n"
			"\\if :{?replace}\n"
			"DROP TABLE IF EXISTS mine_degeneracies, surveys, collars, calibration_holes;\n"
			"\\endif\n"
			"\n"
			"BEGIN;\n"
			"CREATE TABLE collars (\n"
			"    hole_id bigint PRIMARY KEY,\n"
			"    name text NOT NULL,\n"
			"    easting float8 NOT NULL,\n"
			"    northing float8 NOT NULL,\n"
			"    elevation float8 NOT NULL,\n"
			"    end_depth float8 NOT NULL\n"
			");\n"
			"-- depth along the hole (m), azimuth (degrees clockwise from grid north),\n"
			"-- dip (degrees, negative down)\n"
			"CREATE TABLE surveys (\n"
			"    hole_id bigint NOT NULL REFERENCES collars,\n"
			"    depth float8 NOT NULL,\n"
			"    azimuth float8 NOT NULL,\n"
			"    dip float8 NOT NULL,\n"
			"    PRIMARY KEY (hole_id, depth)\n"
			");\n"
			"-- holes placed on a body's vertex or face to the last bit: coordinates, M = depth\n"
			"CREATE TABLE calibration_holes (\n"
			"    hole_id bigint PRIMARY KEY,\n"
			"    name text NOT NULL,\n"
			"    geom geometry(LineStringZM, %lld) NOT NULL\n"
			");\n"
			"-- The deliberate exact cases (test/fixtures/mine.h): does the hole meet the closed body?\n"
			"-- hole_point: 1-based ST_PointN of the calibration hole at the contact (or one ulp\n"
			"-- off it); body_triangle: 1-based ST_GeometryN of the body's flat cap triangle\n"
			"-- involved, if any. body_id is the body's place in bodies.obj (1-based).\n"
			"CREATE TABLE mine_degeneracies (\n"
			"    hole_id bigint PRIMARY KEY REFERENCES calibration_holes,\n"
			"    body_id bigint NOT NULL,\n"
			"    kind text NOT NULL,\n"
			"    expect_intersects boolean NOT NULL,\n"
			"    hole_point integer NOT NULL,\n"
			"    body_triangle integer\n"
			");\n"
			"\\copy collars FROM 'collars.csv' CSV HEADER\n"
			"\\copy surveys FROM 'surveys.csv' CSV HEADER\n"
			"\\copy calibration_holes FROM 'calibration_holes.tsv'\n"
			"\\copy mine_degeneracies FROM 'degeneracies.tsv'\n"
			"COMMIT;\n",
			(long long) srid);
	return out_close(&o);
}

bool
write_survey_files(const char *dir, const char *absdir, const mine *m, const char *size,
				   int64_t srid)
{
	return write_collars_surveys(dir, m) && write_calibration_holes(dir, m, srid) &&
		write_bodies_obj(dir, m) && write_faults_obj(dir, m) && write_degeneracies_tsv(dir, m) &&
		write_survey_load_sql(dir, absdir, m, size, srid);
}
