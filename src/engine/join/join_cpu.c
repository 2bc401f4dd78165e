/*
 * join_cpu.c — the join on the CPU: OpenMP over the left primitives, a
 * uniform grid (ragged array) over the right ones, exact tests with the
 * interval -> GMP cascade. The same grid and reference-cell rule as the GPU.
 */
#include "join_internal.h"

#include <stdlib.h>
#include <string.h>

#include "bvh.h"
#include "cancel.h"
#include "interval_double.h"
#include "memory_budget.h"
#include "parallel.h"
#include "stats.h"

exg_status
exg_join_classify_all(const exg_prim_set *S, int threads, exg_prim **prims, double **boxes,
			 exg_error *err)
{
	long		i;

	*prims = malloc(sizeof(exg_prim) * (S->nprims ? S->nprims : 1));
	*boxes = malloc(sizeof(double) * 6 * (S->nprims ? S->nprims : 1));
	if (*prims == NULL || *boxes == NULL)
		return exg_fail(err, EXG_ERR_NOMEM, "out of memory classifying primitives");
#pragma omp parallel num_threads(threads)
	{
		exg_round_state saved = exg_round_up_enter();

#pragma omp for schedule(static)
		for (i = 0; i < (long) S->nprims; i++)
			exg_join_classify(S, (uint32_t) i, &(*prims)[i], &(*boxes)[6 * i]);
		exg_round_restore(saved);
	}
	return EXG_OK;
}

/* Joint box of both sets and the mean primitive extent per axis. */
static void
joint_box(const double *ba, uint32_t na, const double *bb, uint32_t nb,
		  double *box, double *mean)
{
	double		sum[3] = {0, 0, 0};
	uint64_t	i;
	int			k;

	for (k = 0; k < 3; k++)
	{
		box[k] = na ? ba[k] : bb[k];
		box[3 + k] = na ? ba[3 + k] : bb[3 + k];
	}
	for (i = 0; i < (uint64_t) na + nb; i++)
	{
		const double *b = i < na ? &ba[6 * i] : &bb[6 * (i - na)];

		for (k = 0; k < 3; k++)
		{
			box[k] = b[k] < box[k] ? b[k] : box[k];
			box[3 + k] = b[3 + k] > box[3 + k] ? b[3 + k] : box[3 + k];
			sum[k] += b[3 + k] - b[k];
		}
	}
	for (k = 0; k < 3; k++)
		mean[k] = (na + nb) ? sum[k] / (double) (na + nb) : 0;
}

typedef struct cell_range
{
	int32_t		lo[3];
	int32_t		hi[3];
} cell_range;

static inline void
range_of(const exg_grid *g, const double *box, cell_range *r)
{
	int			k;

	for (k = 0; k < 3; k++)
	{
		r->lo[k] = exg_grid_axis(g, k, box[k]);
		r->hi[k] = exg_grid_axis(g, k, box[3 + k]);
	}
}

/*
 * Visit the cells a box meets: bump counter[cell] (the count pass), and
 * when items is given, also store prim at the slot the bump reserved (the
 * fill pass, with counter holding each cell's running cursor).
 */
static inline void
enter_cells(const exg_grid *g, const double *box, uint64_t *counter, uint32_t *items,
			uint32_t prim)
{
	cell_range	r;
	int32_t		x,
				y,
				z;

	range_of(g, box, &r);
	for (z = r.lo[2]; z <= r.hi[2]; z++)
		for (y = r.lo[1]; y <= r.hi[1]; y++)
			for (x = r.lo[0]; x <= r.hi[0]; x++)
			{
				uint64_t	slot = __atomic_fetch_add(&counter[exg_grid_cell_id(g, x, y, z)], 1,
													  __ATOMIC_RELAXED);

				if (items)
					items[slot] = prim;
			}
}

/* Ragged array of the right primitives per cell: start[c] .. start[c + 1]. */
static exg_status
grid_fill(const exg_grid *g, const double *boxes, uint32_t n, int threads,
		  uint64_t **start_out, uint32_t **items_out, exg_error *err)
{
	uint64_t	ncells = (uint64_t) g->dims[0] * g->dims[1] * g->dims[2];
	uint64_t   *start = calloc(ncells + 1, sizeof(uint64_t));
	uint64_t   *cursor = NULL;
	uint32_t   *items = NULL;
	uint64_t	c,
				total;
	long		i;

	if (start == NULL)
		return exg_fail(err, EXG_ERR_NOMEM, "out of memory building the grid");
	/*
	 * Cells under upward rounding, like every other cell computation of
	 * the CPU join (which runs inside the predicates' rounding mode): the
	 * cell of a coordinate may differ by one between rounding modes, and a
	 * pair's reference cell must be one where both of its boxes were entered.
	 */
#pragma omp parallel num_threads(threads)
	{
		exg_round_state saved = exg_round_up_enter();

#pragma omp for schedule(static)
		for (i = 0; i < (long) n; i++)
			enter_cells(g, &boxes[6 * i], start + 1, NULL, 0);
		exg_round_restore(saved);
	}
	for (c = 0; c < ncells; c++)
		start[c + 1] += start[c];
	total = start[ncells];
	cursor = malloc(sizeof(uint64_t) * (ncells ? ncells : 1));
	items = malloc(sizeof(uint32_t) * (total ? total : 1));
	if (cursor == NULL || items == NULL)
	{
		free(start);
		free(cursor);
		free(items);
		return exg_fail(err, EXG_ERR_NOMEM, "out of memory building the grid");
	}
	memcpy(cursor, start, sizeof(uint64_t) * ncells);
#pragma omp parallel num_threads(threads)
	{
		exg_round_state saved = exg_round_up_enter();

#pragma omp for schedule(static)
		for (i = 0; i < (long) n; i++)
			enter_cells(g, &boxes[6 * i], cursor, items, (uint32_t) i);
		exg_round_restore(saved);
	}
	free(cursor);
	*start_out = start;
	*items_out = items;
	return EXG_OK;
}

exg_status
exg_join_cpu(const exg_prim_set *A, const exg_prim_set *B, const exg_join_options *opt,
			 exg_pair **pairs_out, size_t *npairs_out, exg_join_stats *stats,
			 exg_error *err)
{
	int			threads = exg_threads(opt->worker_threads);
	bool		by_reference = opt->dedupe == EXG_DEDUPE_REFERENCE_CELL;
	bool		boxes_only = opt->boxes_only;
	exg_prim   *pa = NULL,
			   *pb = NULL;
	double	   *ba = NULL,
			   *bb = NULL;
	uint64_t   *start = NULL;
	uint32_t   *items = NULL;
	exg_pair_buffer *bufs = NULL;
	exg_grid	g;
	double		box[6],
				mean[3];
	uint64_t	t = exg_now_ns(),
				cell_pairs = 0,
				candidates = 0,
				entries_a = 0;
	int			canceled = 0,
				nomem = 0;
	exg_status	st;
	size_t		total,
				k;

	if ((st = exg_join_classify_all(A, threads, &pa, &ba, err)) != EXG_OK ||
		(st = exg_join_classify_all(B, threads, &pb, &bb, err)) != EXG_OK)
		goto done;
	stats->phase_ns[EXG_PHASE_CLASSIFY] = exg_now_ns() - t;
	if (A->nprims == 0 || B->nprims == 0)
		goto done;

	t = exg_now_ns();
	joint_box(ba, A->nprims, bb, B->nprims, box, mean);
	exg_grid_choose(&g, box, (uint64_t) A->nprims + B->nprims, mean, opt->grid_cells);
	{
		/* B's cell lists within the memory budget (join_grid.h); A's cells
		 * are visited, not stored, but weigh the same in time */
		const double *sets[2] = {ba, bb};
		uint64_t	ns[2] = {A->nprims, B->nprims};
		double		extent[3] = {box[3] - box[0], box[4] - box[1], box[5] - box[2]};

		exg_grid_fit(&g, extent, 3, sets, ns, 2, 16, 4, exg_memory_budget(opt->memory_limit),
					 threads);
	}
	if ((st = grid_fill(&g, bb, B->nprims, threads, &start, &items, err)) != EXG_OK)
		goto done;
	memcpy(stats->grid_dims, g.dims, sizeof(g.dims));
	stats->phase_ns[EXG_PHASE_GRID] = exg_now_ns() - t;

	t = exg_now_ns();
	bufs = calloc(threads, sizeof(exg_pair_buffer));
	if (bufs == NULL)
	{
		st = exg_fail(err, EXG_ERR_NOMEM, "out of memory for join results");
		goto done;
	}
#pragma omp parallel num_threads(threads) reduction(+:cell_pairs,candidates,entries_a)
	{
		exg_round_state saved = exg_round_up_enter();
		exg_pair_buffer *mine = &bufs[omp_get_thread_num()];
		uint64_t	since_poll = 0;
		long		i;

#pragma omp for schedule(dynamic, 16)
		for (i = 0; i < (long) A->nprims; i++)
		{
			const double *abox = &ba[6 * i];
			cell_range r;
			int32_t		x,
						y,
						z;

			if (exg_flag_get(&canceled) || exg_flag_get(&nomem))
				continue;
			range_of(&g, abox, &r);
			for (z = r.lo[2]; z <= r.hi[2]; z++)
				for (y = r.lo[1]; y <= r.hi[1]; y++)
					for (x = r.lo[0]; x <= r.hi[0]; x++)
					{
						uint32_t	cell = exg_grid_cell_id(&g, x, y, z);
						uint64_t	e;

						entries_a++;
						cell_pairs += start[cell + 1] - start[cell];
						for (e = start[cell]; e < start[cell + 1]; e++)
						{
							uint32_t	j = items[e];
							const double *bbox = &bb[6 * j];

							/* poll by work done, not by primitive: one may meet millions */
							if ((++since_poll & 8191) == 0 &&
								(exg_flag_get(&canceled) || exg_cancel_requested()))
							{
								exg_flag_set(&canceled);
								break;
							}

							if (!exg_boxes_meet(abox, bbox))
								continue;
							if (by_reference && exg_grid_reference_cell(&g, abox, bbox) != cell)
								continue;
							candidates++;
							if ((boxes_only || exg_join_pair_meets(A, &pa[i], B, &pb[j])) &&
								!exg_pair_push(mine, (uint32_t) i, j))
								exg_flag_set(&nomem);
						}
					}
		}
		exg_round_restore(saved);
	}
	stats->phase_ns[EXG_PHASE_TEST] = exg_now_ns() - t;
	stats->cell_pairs = cell_pairs;
	stats->candidates = candidates;
	stats->grid_entries = entries_a + start[(uint64_t) g.dims[0] * g.dims[1] * g.dims[2]];
	exg_counters_local()->pair_tests += candidates;
	if (canceled)
	{
		st = exg_fail(err, EXG_ERR_INTERRUPTED, "canceled");
		goto done;
	}
	if (nomem)
	{
		st = exg_fail(err, EXG_ERR_NOMEM, "out of memory for join results");
		goto done;
	}

	/* Gather the threads' hits and put them in (a, b) order. */
	t = exg_now_ns();
	for (total = 0, k = 0; k < (size_t) threads; k++)
		total += bufs[k].n;
	*pairs_out = malloc(sizeof(exg_pair) * (total ? total : 1));
	if (*pairs_out == NULL)
	{
		st = exg_fail(err, EXG_ERR_NOMEM, "out of memory for join results");
		goto done;
	}
	for (total = 0, k = 0; k < (size_t) threads; k++)
	{
		memcpy(*pairs_out + total, bufs[k].p, bufs[k].n * sizeof(exg_pair));
		total += bufs[k].n;
	}
	*npairs_out = exg_pairs_sort_unique(*pairs_out, total);
	stats->phase_ns[EXG_PHASE_DEDUPE] = exg_now_ns() - t;

done:
	if (bufs)
		for (k = 0; k < (size_t) threads; k++)
			free(bufs[k].p);
	free(bufs);
	free(pa);
	free(pb);
	free(ba);
	free(bb);
	free(start);
	free(items);
	return st;
}
