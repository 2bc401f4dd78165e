/*
 * harness.c — the shared engine test harness (harness.h).
 */
#define _GNU_SOURCE				/* clock_gettime, M_PI */
#include "harness.h"

#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "geom_shape.h"

long		test_failures = 0;
const char *test_context = NULL;

void
test_fail(const char *file, int line, const char *what, const char *fmt, ...)
{
	va_list		ap;

	if (test_failures++ >= 50)
		return;
	printf("FAIL %s:%d:", file, line);
	if (test_context)
		printf(" [%s]", test_context);
	if (what)
		printf(" %s", what);
	if (fmt[0])
	{
		printf(what ? ": " : " ");
		va_start(ap, fmt);
		vprintf(fmt, ap);
		va_end(ap);
	}
	printf("\n");
}

double
now_seconds(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double) ts.tv_sec + (double) ts.tv_nsec * 1e-9;
}

static int
cmp_double(const void *a, const void *b)
{
	double		x = *(const double *) a,
				y = *(const double *) b;

	return (x > y) - (x < y);
}

double
median_sorted(double *v, size_t n)
{
	qsort(v, n, sizeof(double), cmp_double);
	return v[n / 2];
}

int
test_summary(const char *name)
{
	printf("%s: %ld failures\n", name, test_failures);
	return test_failures != 0;
}

uint32_t
test_mesh_vertex(test_mesh *m, double x, double y, double z)
{
	if (m->nv == m->cv)
	{
		m->cv = m->cv ? 2 * m->cv : 1024;
		m->xyz = realloc(m->xyz, sizeof(double) * 3 * m->cv);
		if (m->xyz == NULL)
			abort();
	}
	m->xyz[3 * m->nv] = x;
	m->xyz[3 * m->nv + 1] = y;
	m->xyz[3 * m->nv + 2] = z;
	return m->nv++;
}

void
test_mesh_triangle(test_mesh *m, uint32_t a, uint32_t b, uint32_t c)
{
	if (m->nt == m->ct)
	{
		m->ct = m->ct ? 2 * m->ct : 1024;
		m->tri = realloc(m->tri, sizeof(uint32_t) * 3 * m->ct);
		m->body = realloc(m->body, sizeof(uint32_t) * m->ct);
		if (m->tri == NULL || m->body == NULL)
			abort();
	}
	m->tri[3 * m->nt] = a;
	m->tri[3 * m->nt + 1] = b;
	m->tri[3 * m->nt + 2] = c;
	m->body[m->nt++] = m->nbodies;
}

void
test_mesh_free(test_mesh *m)
{
	free(m->xyz);
	free(m->tri);
	free(m->body);
	memset(m, 0, sizeof(*m));
}

static double
snap8(double x)
{
	return round(x * 8) / 8;
}

void
test_mesh_add_round(test_mesh *m, const double *o, const double *c, double R, double r, bool torus,
			   int nu, int nv, double bump, test_rng *rng)
{
	uint32_t	base = m->nv,
				south = 0,
				north = 0;
	int			rows = torus ? nv : nv - 1;

	for (int j = 0; j < rows; j++)
		for (int i = 0; i < nu; i++)
		{
			double		u = 2 * M_PI * i / nu,
						f = 1 + bump * (rng_uniform(rng) - 0.5),
						x,
						y,
						z;

			if (torus)
			{
				double		w = 2 * M_PI * j / nv;

				x = (R + r * f * cos(w)) * cos(u);
				y = (R + r * f * cos(w)) * sin(u);
				z = r * f * sin(w);
			}
			else
			{
				double		w = M_PI * (j + 1) / nv - M_PI / 2;

				x = R * f * cos(w) * cos(u);
				y = R * f * cos(w) * sin(u);
				z = R * f * sin(w);
			}
			test_mesh_vertex(m, o[0] + snap8(c[0] + x), o[1] + snap8(c[1] + y), o[2] + snap8(c[2] + z));
		}
	if (!torus)
	{
		south = test_mesh_vertex(m, o[0] + c[0], o[1] + c[1], o[2] + snap8(c[2] - R));
		north = test_mesh_vertex(m, o[0] + c[0], o[1] + c[1], o[2] + snap8(c[2] + R));
	}
	for (int j = 0; j < (torus ? rows : rows - 1); j++)
		for (int i = 0; i < nu; i++)
		{
			uint32_t	a = base + j * nu + i,
						b = base + j * nu + (i + 1) % nu,
						cc = base + ((j + 1) % rows) * nu + i,
						d = base + ((j + 1) % rows) * nu + (i + 1) % nu;

			test_mesh_triangle(m, a, b, d);
			test_mesh_triangle(m, a, d, cc);
		}
	if (!torus)
		for (int i = 0; i < nu; i++)
		{
			test_mesh_triangle(m, south, base + (i + 1) % nu, base + i);
			test_mesh_triangle(m, north, base + (rows - 1) * nu + i, base + (rows - 1) * nu + (i + 1) % nu);
		}
}

void
test_mesh_body_shape(const test_mesh *m, uint32_t body, exg_shape *s)
{
	exg_error	err;

	exg_shape_init(s);
	s->has_z = true;
	s->geom_type = 15;			/* TIN */
	for (uint32_t t = 0; t < m->nt; t++)
	{
		if (m->body[t] != body)
			continue;
		exg_shape_begin_comp(s, EXG_COMP_TRIANGLE, true, &err);
		exg_shape_begin_ring(s, &err);
		for (int k = 0; k < 4; k++)
		{
			const double *v = &m->xyz[3 * (size_t) m->tri[3 * t + k % 3]];

			exg_shape_add_vertex(s, v[0], v[1], v[2], &err);
		}
	}
}
