/*
 * bench_triangulate.c — exg_triangulate_polygon on large faces (issue 16):
 * a jagged 10^5-vertex star, 10^4 square holes, a 10^5-vertex comb and
 * spiral, at UTM offsets. Prints the best of 3 wall-clock and CPU times per
 * face (CPU time is what to compare on a shared machine).
 * The exact checks of these outputs are in test/engine/test_triangulate.c.
 *
 * Usage: bench_triangulate [scale]   (scale 1 = the sizes above)
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "triangulate.h"

typedef struct face
{
	double	   *xy;
	size_t		n,
				cap;
	size_t	   *rs;
	size_t		nr,
				rcap;
} face;

static void
put(face *f, double x, double y)
{
	if (f->n == f->cap)
	{
		f->cap = f->cap ? 2 * f->cap : 1024;
		f->xy = realloc(f->xy, 2 * f->cap * sizeof(double));
	}
	f->xy[2 * f->n] = x;
	f->xy[2 * f->n + 1] = y;
	f->n++;
}

static void
ring(face *f)
{
	if (f->nr + 2 > f->rcap)
	{
		f->rcap = f->rcap ? 2 * f->rcap : 64;
		f->rs = realloc(f->rs, f->rcap * sizeof(size_t));
	}
	f->rs[f->nr++] = f->n;
	f->rs[f->nr] = f->n;
}

static void
close_face(face *f)
{
	f->rs[f->nr] = f->n;
}

static double
clock_s(clockid_t c)
{
	struct timespec ts;

	clock_gettime(c, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static void
run(const char *name, face *f)
{
	double		best = INFINITY,
				best_cpu = INFINITY;
	size_t		nt = 0;
	int			rep;

	close_face(f);
	for (rep = 0; rep < (getenv("BENCH_REPS") ? atoi(getenv("BENCH_REPS")) : 3); rep++)
	{
		uint32_t   *tris = NULL;
		exg_error	err = {0};
		double		t0 = clock_s(CLOCK_MONOTONIC),
					c0 = clock_s(CLOCK_THREAD_CPUTIME_ID);
		exg_status	st = exg_triangulate_polygon(f->xy, f->n, f->rs, f->nr, &tris, &nt, &err);

		best_cpu = fmin(best_cpu, clock_s(CLOCK_THREAD_CPUTIME_ID) - c0);
		best = fmin(best, clock_s(CLOCK_MONOTONIC) - t0);
		free(tris);
		if (st != EXG_OK)
		{
			printf("%-28s failed: %s\n", name, err.message);
			return;
		}
	}
	printf("%-14s %8zu vertices %6zu rings %8zu triangles %9.1f ms wall %9.1f ms cpu\n",
		   name, f->n, f->nr, nt, best * 1e3, best_cpu * 1e3);
	free(f->xy);
	free(f->rs);
}

int
main(int argc, char **argv)
{
	double		scale = argc > 1 ? atof(argv[1]) : 1;
	int			n = (int) (100000 * scale),
				g = (int) (100 * sqrt(scale)),
				i,
				j;
	const double X = 500000,
				Y = 7000000;
	face		f = {0};

	/* the star of bench/sql/large_faces.sql */
	ring(&f);
	for (i = 0; i < n; i++)
	{
		double		a = 2 * M_PI * i / n,
					r = 130 + 1170 * ((i * 7919LL) % 1000) / 1000.0;

		put(&f, X + r * cos(a), Y + r * sin(a));
	}
	run("jagged star", &f);

	memset(&f, 0, sizeof(f));
	ring(&f);
	put(&f, X, Y);
	put(&f, X + 10 * g, Y);
	put(&f, X + 10 * g, Y + 10 * g);
	put(&f, X, Y + 10 * g);
	for (i = 0; i < g; i++)
		for (j = 0; j < g; j++)
		{
			ring(&f);
			put(&f, X + 10 * i + 3, Y + 10 * j + 3);
			put(&f, X + 10 * i + 3, Y + 10 * j + 7);
			put(&f, X + 10 * i + 7, Y + 10 * j + 7);
			put(&f, X + 10 * i + 7, Y + 10 * j + 3);
		}
	run("square holes", &f);

	/* comb: n / 4 teeth */
	memset(&f, 0, sizeof(f));
	ring(&f);
	put(&f, X, Y);
	put(&f, X + 2 * (n / 4) - 1, Y);
	for (i = n / 4 - 1; i >= 0; i--)
	{
		put(&f, X + 2 * i + 1, Y + 1000);
		put(&f, X + 2 * i, Y + 1000);
		if (i > 0)
		{
			put(&f, X + 2 * i, Y + 1);
			put(&f, X + 2 * i - 1, Y + 1);
		}
	}
	run("comb", &f);

	/* a thick spiral of 20 turns */
	memset(&f, 0, sizeof(f));
	ring(&f);
	for (i = 0; i < n / 2; i++)
	{
		double		th = 2 * M_PI * 20 * i / (n / 2 - 1),
					r = 1 + th / M_PI;

		put(&f, X + (r + 0.25) * cos(th), Y + (r + 0.25) * sin(th));
	}
	for (i = n / 2 - 1; i >= 0; i--)
	{
		double		th = 2 * M_PI * 20 * i / (n / 2 - 1),
					r = 1 + th / M_PI;

		put(&f, X + (r - 0.25) * cos(th), Y + (r - 0.25) * sin(th));
	}
	run("spiral", &f);
	return 0;
}
