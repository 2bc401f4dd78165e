/*
 * locate_join_cpu.c — batch point-in-solid on the CPU: the column grid, the
 * walk of a point's column with exact signs, and the exact settling of the
 * pairs the GPU back-end (locate_join_gpu.cu) left undecided, over the
 * same columns.
 */
#include "locate_join.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cancel.h"
#include "interval_double.h"
#include "join_internal.h"
#include "memory_budget.h"
#include "parallel.h"
#include "predicates_cpu.h"
#include "stats.h"

#define POINTS_PER_TASK 4096

void
exg_locate_grid(exg_grid *g, const double *box, const double *mean_extent, uint64_t ntris,
				uint32_t target_cells)
{
	double		flat[6] = {box[0], box[1], 0, box[3], box[4], 0};
	double		mean[3] = {mean_extent[0], mean_extent[1], 0};

	/* A column holds every layer of the surface above it: a cell per two
	 * triangles keeps columns short without entering triangles many times. */
	exg_grid_choose(g, flat, ntris, mean, target_cells ? target_cells : (uint32_t) (ntris / 2 + 1));
}

static inline uint32_t
column_of(const exg_grid *g, const double *p, const double *origin)
{
	return exg_grid_cell_id(g, exg_grid_axis(g, 0, p[0] - origin[0]),
							exg_grid_axis(g, 1, p[1] - origin[1]), 0);
}

static const double *
tri_box(const exg_prim_set *T, uint32_t t, double *box)
{
	const uint32_t *v = &T->vidx[3 * (size_t) t];

	for (int k = 0; k < 3; k++)
	{
		double		a = T->xyz[3 * (size_t) v[0] + k],
					b = T->xyz[3 * (size_t) v[1] + k],
					c = T->xyz[3 * (size_t) v[2] + k];

		box[k] = a < b ? (a < c ? a : c) : (b < c ? b : c);
		box[3 + k] = a > b ? (a > c ? a : c) : (b > c ? b : c);
	}
	return box;
}

/*
 * Walk one column for point p (index pi): report (pi, body) for each body
 * that holds p, or only body `want` when want != UINT32_MAX. Triangles are
 * classified on the fly when prims is NULL. Assumes upward rounding.
 * Returns the number of triangle tests, or -1 when out of memory; adds to
 * *gmp_pairs the (point, body) pairs whose walk needed GMP (the join's
 * exact_pairs, counted per pair as the GPU counts its undecided pairs).
 */
static long
walk_column(const double *p, uint32_t pi, const exg_solid_set *S, const exg_prim *prims,
			const double *boxes, const uint32_t *items, uint32_t nitems, uint32_t want,
			exg_pair_buffer *out, uint64_t *gmp_pairs)
{
	const exg_prim_set *T = &S->tris;
	exg_counters *cnt = exg_counters_local();
	exg_cpu_simplex sx;
	uint32_t	cur = UINT32_MAX,
				e;
	uint64_t	gmp_at_body = cnt->orient_exact;
	int			parity = 0,
				on = 0;
	long		tests = 0;

	for (e = 0; e <= nitems; e++)
	{
		uint32_t	t = e < nitems ? items[e] : UINT32_MAX;
		uint32_t	b = e < nitems ? S->body[t] : UINT32_MAX;
		exg_prim	local;
		double		lbox[6];
		const exg_prim *pr;
		const double *bx;
		int			r;

		if (b != cur)
		{
			if (cur != UINT32_MAX && (on || parity) && !exg_pair_push(out, pi, cur))
				return -1;
			*gmp_pairs += cnt->orient_exact != gmp_at_body;
			gmp_at_body = cnt->orient_exact;
			cur = b;
			parity = on = 0;
		}
		if (t == UINT32_MAX || on || (want != UINT32_MAX && b != want))
			continue;
		bx = prims ? &boxes[6 * (size_t) t] : tri_box(T, t, lbox);
		if (p[0] < bx[0] || p[0] > bx[3] || p[1] < bx[1] || p[1] > bx[4] || p[2] > bx[5])
			continue;
		pr = prims ? &prims[t] : NULL;
		if (!prims)
		{
			exg_join_classify(T, t, &local, lbox);
			pr = &local;
		}
		tests++;
		exg_cpu_simplex_of(T->xyz, pr, &sx);
		r = exg_cpu_ray_simplex(p, &sx);
		if (r == EXG_RAY_ON)
			on = 1;
		else if (r == EXG_RAY_CROSS)
			parity ^= 1;
	}
	return tests;
}

/* Column grid (origin 0) over classified triangles: cell_start, items. */
static exg_status
build_columns(const exg_solid_set *S, const double *boxes, const exg_join_options *opt,
			  int threads, exg_grid *g, uint32_t **cell_start, uint32_t **items, exg_error *err)
{
	uint32_t	n = S->tris.nprims,
				t,
				ncells;
	double		box[6] = {0, 0, 0, 0, 0, 0},
				mean[3] = {0, 0, 0};
	uint64_t	total = 0;
	uint32_t   *cursor;

	for (t = 0; t < n; t++)
	{
		const double *b = &boxes[6 * (size_t) t];
		int			k;

		for (k = 0; k < 3; k++)
		{
			box[k] = (t == 0 || b[k] < box[k]) ? b[k] : box[k];
			box[3 + k] = (t == 0 || b[3 + k] > box[3 + k]) ? b[3 + k] : box[3 + k];
			mean[k] += (b[3 + k] - b[k]) / n;
		}
	}
	exg_locate_grid(g, box, mean, n, opt->grid_cells);
	{
		/* within the memory budget (join_grid.h): 8 bytes a column (start,
		 * cursor), 4 an entry; a triangle is entered in every column its box
		 * meets, which a fine grid (exactgpu.grid_cells) under large
		 * triangles multiplies without bound */
		const double *sets[1] = {boxes};
		uint64_t	ns[1] = {n};
		double		extent[3] = {box[3] - box[0], box[4] - box[1], 0};
		uint64_t	entries = exg_grid_fit(g, extent, 3, sets, ns, 1, 8, 4,
										   exg_memory_budget(opt->memory_limit), threads);

		if (entries >= UINT32_MAX)
			return exg_fail(err, EXG_ERR_TOO_LARGE,
							"more than 2^32 column entries: the bodies have too many triangles");
	}
	ncells = (uint32_t) g->dims[0] * (uint32_t) g->dims[1];
	*cell_start = calloc((size_t) ncells + 1, sizeof(uint32_t));
	cursor = malloc(sizeof(uint32_t) * ((size_t) ncells + 1));
	if (*cell_start == NULL || cursor == NULL)
	{
		free(cursor);
		return exg_fail(err, EXG_ERR_NOMEM, "out of memory building the column grid");
	}
	/* count, scan, fill: in triangle order, so each column lists its
	 * triangles sorted, hence grouped by body */
	for (int pass = 0; pass < 2; pass++)
	{
		for (t = 0; t < n; t++)
		{
			const double *b = &boxes[6 * (size_t) t];
			int32_t		x0 = exg_grid_axis(g, 0, b[0]),
						x1 = exg_grid_axis(g, 0, b[3]),
						y0 = exg_grid_axis(g, 1, b[1]),
						y1 = exg_grid_axis(g, 1, b[4]);

			for (int32_t y = y0; y <= y1; y++)
				for (int32_t x = x0; x <= x1; x++)
				{
					uint32_t	c = exg_grid_cell_id(g, x, y, 0);

					if (pass == 0)
						(*cell_start)[c + 1]++;
					else
						(*items)[cursor[c]++] = t;
				}
		}
		if (pass == 0)
		{
			for (t = 0; t < ncells; t++)
				(*cell_start)[t + 1] += (*cell_start)[t];
			total = (*cell_start)[ncells];
			memcpy(cursor, *cell_start, sizeof(uint32_t) * ncells);
			*items = malloc(sizeof(uint32_t) * (total ? total : 1));
			if (*items == NULL)
			{
				free(cursor);
				return exg_fail(err, EXG_ERR_NOMEM, "out of memory building the column grid");
			}
		}
	}
	free(cursor);
	return EXG_OK;
}

/* Concatenate per-task buffers (in task order, so the pairs stay sorted). */
static exg_status
gather(exg_pair_buffer *bufs, size_t nbufs, exg_pair **pairs_out, size_t *npairs_out, exg_error *err)
{
	size_t		total = 0,
				i,
				m = 0;

	for (i = 0; i < nbufs; i++)
		total += bufs[i].n;
	*pairs_out = malloc(sizeof(exg_pair) * (total ? total : 1));
	if (*pairs_out == NULL)
		return exg_fail(err, EXG_ERR_NOMEM, "out of memory collecting pairs");
	for (i = 0; i < nbufs; i++)
	{
		if (bufs[i].n)
			memcpy(*pairs_out + m, bufs[i].p, sizeof(exg_pair) * bufs[i].n);
		m += bufs[i].n;
	}
	*npairs_out = total;
	return EXG_OK;
}

exg_status
exg_locate_cpu(const double *pts, uint32_t npts, const exg_solid_set *S,
			   const exg_join_options *opt, exg_pair **pairs_out, size_t *npairs_out,
			   exg_join_stats *st, exg_error *err)
{
	int			threads = exg_threads(opt->worker_threads);
	uint32_t	n = S->tris.nprims;
	exg_prim   *prims = malloc(sizeof(exg_prim) * (n ? n : 1));
	double	   *boxes = malloc(sizeof(double) * 6 * (n ? n : 1));
	uint32_t   *cell_start = NULL,
			   *items = NULL;
	size_t		ntasks = ((size_t) npts + POINTS_PER_TASK - 1) / POINTS_PER_TASK;
	exg_pair_buffer *bufs = calloc(ntasks ? ntasks : 1, sizeof(exg_pair_buffer));
	exg_grid	g;
	double		zero[3] = {0, 0, 0};
	int			failed = 0;
	uint64_t	tests = 0,
				gmp_pairs = 0,
				t0 = exg_now_ns();
	exg_status	rc = EXG_OK;
	long		i;
	exg_cancel_source cancel_src = exg_cancel_source_get();	/* for the workers */

	if (prims == NULL || boxes == NULL || bufs == NULL)
	{
		rc = exg_fail(err, EXG_ERR_NOMEM, "out of memory locating points");
		goto done;
	}
#pragma omp parallel num_threads(threads)
	{
		exg_round_state saved = exg_round_up_enter();

#pragma omp for schedule(static)
		for (i = 0; i < (long) n; i++)
			exg_join_classify(&S->tris, (uint32_t) i, &prims[i], &boxes[6 * i]);
		exg_round_restore(saved);
	}
	st->phase_ns[EXG_PHASE_CLASSIFY] += exg_now_ns() - t0;
	t0 = exg_now_ns();
	/* columns under upward rounding, as the walk below computes a point's
	 * column: a cell can differ by one between rounding modes */
	{
		exg_round_state saved = exg_round_up_enter();

		rc = build_columns(S, boxes, opt, threads, &g, &cell_start, &items, err);
		exg_round_restore(saved);
	}
	if (rc != EXG_OK)
		goto done;
	memcpy(st->grid_dims, g.dims, sizeof(g.dims));
	st->grid_entries = cell_start[(size_t) g.dims[0] * g.dims[1]];
	st->phase_ns[EXG_PHASE_GRID] = exg_now_ns() - t0;
	t0 = exg_now_ns();

#pragma omp parallel num_threads(threads) reduction(+:tests,gmp_pairs)
	{
		exg_cancel_source cancel_saved = exg_cancel_source_adopt(cancel_src);
		exg_round_state saved = exg_round_up_enter();

#pragma omp for schedule(dynamic, 1)
		for (i = 0; i < (long) ntasks; i++)
		{
			uint32_t	p0 = (uint32_t) i * POINTS_PER_TASK,
						p1 = p0 + POINTS_PER_TASK < npts ? p0 + POINTS_PER_TASK : npts;
			uint64_t	since_poll = 0;

			if (exg_flag_get(&failed))
				continue;
			if (exg_cancel_requested())
			{
				exg_flag_set(&failed);
				continue;
			}
			for (uint32_t p = p0; p < p1; p++)
			{
				const double *pt = &pts[3 * (size_t) p];
				uint32_t	c = column_of(&g, pt, zero);
				long		k = walk_column(pt, p, S, prims, boxes, &items[cell_start[c]],
											cell_start[c + 1] - cell_start[c], UINT32_MAX,
											&bufs[i], &gmp_pairs);

				if (k < 0)
				{
					exg_flag_set(&failed);
					break;
				}
				tests += (uint64_t) k;
				/* poll by work done, not by task: a column may hold every
				 * layer of thousands of triangles */
				since_poll += (uint64_t) k + 16;
				if (since_poll >= 16384)
				{
					since_poll = 0;
					if (exg_flag_get(&failed) || exg_cancel_requested())
					{
						exg_flag_set(&failed);
						break;
					}
				}
			}
		}
		exg_cancel_source_adopt(cancel_saved);
		exg_round_restore(saved);
	}
	st->phase_ns[EXG_PHASE_TEST] = exg_now_ns() - t0;
	st->candidates = tests;
	st->exact_pairs += gmp_pairs;
	if (failed)
	{
		rc = exg_cancel_requested() ? exg_fail(err, EXG_ERR_INTERRUPTED, "canceled")
			: exg_fail(err, EXG_ERR_NOMEM, "out of memory locating points");
		goto done;
	}
	rc = gather(bufs, ntasks, pairs_out, npairs_out, err);
done:
	for (size_t k = 0; bufs && k < ntasks; k++)
		free(bufs[k].p);
	free(bufs);
	free(prims);
	free(boxes);
	free(cell_start);
	free(items);
	return rc;
}

exg_status
exg_locate_exact_pairs(const double *pts, const exg_solid_set *S, const exg_grid *g,
					   const double *origin, const uint32_t *cell_start, const uint32_t *items,
					   const exg_pair *pairs, size_t n, int threads, exg_pair *out,
					   size_t *nout, uint64_t *gmp_pairs, exg_error *err)
{
	uint64_t	gmp = 0;
	int			failed = 0;
	size_t		m = 0;
	long		i;
	uint32_t   *column = malloc(sizeof(uint32_t) * (n ? n : 1));
	exg_cancel_source cancel_src = exg_cancel_source_get();	/* for the workers */

	if (column == NULL)
		return exg_fail(err, EXG_ERR_NOMEM, "out of memory settling points");
	/* each point's column as the GPU computed it: in the caller's rounding
	 * mode (to nearest), before the predicates' upward rounding is entered */
	for (i = 0; i < (long) n; i++)
		column[i] = column_of(g, &pts[3 * (size_t) pairs[i].a], origin);
#pragma omp parallel num_threads(exg_threads(threads))
	{
		exg_cancel_source cancel_saved = exg_cancel_source_adopt(cancel_src);
		exg_round_state saved = exg_round_up_enter();
		exg_pair_buffer one = {0};
		uint64_t	mine = 0;

#pragma omp for schedule(dynamic, 16)
		for (i = 0; i < (long) n; i++)
		{
			const double *pt = &pts[3 * (size_t) pairs[i].a];
			uint32_t	c = column[i];

			if (exg_flag_get(&failed))
				continue;
			if ((i & 255) == 0 && exg_cancel_requested())
			{
				exg_flag_set(&failed);
				continue;
			}
			one.n = 0;
			if (walk_column(pt, pairs[i].a, S, NULL, NULL, &items[cell_start[c]],
							cell_start[c + 1] - cell_start[c], pairs[i].b, &one,
							&mine) < 0)
				exg_flag_set(&failed);
			else if (one.n)
			{
				size_t		slot = __atomic_fetch_add(&m, 1, __ATOMIC_RELAXED);

				out[slot] = pairs[i];
			}
		}
		free(one.p);
		__atomic_fetch_add(&gmp, mine, __ATOMIC_RELAXED);
		exg_cancel_source_adopt(cancel_saved);
		exg_round_restore(saved);
	}
	free(column);
	*gmp_pairs = gmp;
	if (failed)
		return exg_cancel_requested() ? exg_fail(err, EXG_ERR_INTERRUPTED, "canceled")
			: exg_fail(err, EXG_ERR_NOMEM, "out of memory settling points");
	*nout = m;
	return EXG_OK;
}
