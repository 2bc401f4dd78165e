/*
 * bench_solid_checks.c — what a batch point-in-solid join (exg_batch_locate,
 * on the CPU) pays to check its bodies (closed, not overlapping itself:
 * exg_solid_set_check) the first time and when the same bodies are joined
 * again in the same process (known_bodies.h): the mine's bodies against
 * points at its holes' collars, three joins, each join's time and its
 * check phase.
 *
 * Usage: bench_solid_checks [mine size: tiny, demo, paper, large] [threads]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "batch.h"
#include "harness.h"
#include "mine.h"
#include "parallel.h"
#include "stats.h"

int
main(int argc, char **argv)
{
	const char *size = argc > 1 ? argv[1] : "paper";
	mine_params mp;
	mine	   *m;
	char		merr[256];
	exg_batch	bodies,
				pts;
	exg_join_options opt;
	exg_error	err = {0};
	static const uint32_t point[3] = {0, 0, 0};

	if (!mine_params_for_size(&mp, size, 1) || mine_generate(&mp, &m, merr, sizeof(merr)) != 0)
	{
		fprintf(stderr, "mine %s: %s\n", size, merr);
		return 1;
	}
	exg_batch_init(&bodies, 3, EXG_NONPLANAR_ERROR);
	exg_batch_init(&pts, 3, EXG_NONPLANAR_ERROR);
	for (size_t i = 0; i < m->n_bodies; i++)
	{
		const mine_body *bd = &m->bodies[i];
		exg_flat_row r = {m->body_xyz + 3 * bd->first_vertex, m->body_tri + 3 * bd->first_triangle,
		bd->nvertices, bd->ntriangles, 0, 3};

		CHECK(exg_batch_append_flat(&bodies, &r, 1, 1, &err) == EXG_OK, "%s", err.message);
	}
	for (size_t h = 0; h < m->n_holes; h++)
	{
		exg_flat_row r = {m->hole_xyz + 3 * m->holes[h].first_vertex, point, 1, 1, 0, 3};

		CHECK(exg_batch_append_flat(&pts, &r, 1, 1, &err) == EXG_OK, "%s", err.message);
	}
	exg_join_options_default(&opt);
	opt.device = EXG_DEVICE_CPU;
	opt.worker_threads = argc > 2 ? atoi(argv[2]) : 0;
	printf("# bench_solid_checks: %s mine, %zu points in %zu bodies (%zu triangles), %d threads\n\n",
		   size, pts.nrows, bodies.nrows, bodies.nprims, exg_threads(opt.worker_threads));
	printf("| join | ms | of it, checking the bodies (ms) | pairs |\n|---|---|---|---|\n");
	for (int rep = 0; rep < 3; rep++)
	{
		uint64_t   *rows = NULL;
		size_t		n = 0;
		exg_join_stats st;
		uint64_t	t0 = exg_now_ns();

		CHECK(exg_batch_locate(&pts, &bodies, &opt, &rows, &n, &st, &err) == EXG_OK, "%s", err.message);
		printf("| %s | %.1f | %.1f | %zu |\n", rep == 0 ? "first" : "again", (exg_now_ns() - t0) / 1e6,
			   st.phase_ns[EXG_PHASE_CLASSIFY] / 1e6, n);
		free(rows);
	}
	exg_batch_free(&bodies);
	exg_batch_free(&pts);
	mine_free(m);
	return test_failures ? 1 : 0;
}
