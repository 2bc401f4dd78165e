/*
 * join_cpu.c — the join on the CPU: OpenMP over the left primitives, a
 * uniform grid (ragged array) over the right ones, exact tests with the
 * interval -> GMP cascade. The same grid and reference-cell rule as the GPU.
 */
#include "join_internal.h"
#include "join_cpu_pair.h"

#include <math.h>
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
					  exg_plane_static **planes, exg_error *err)
{
	long		i;
	size_t		n = S->nprims ? S->nprims : 1;

	*prims = malloc(sizeof(exg_prim) * n);
	*boxes = malloc(sizeof(double) * 6 * n);
	if (planes)
		*planes = malloc(sizeof(exg_plane_static) * n);
	if (*prims == NULL || *boxes == NULL || (planes && *planes == NULL))
		return exg_fail(err, EXG_ERR_NOMEM, "out of memory classifying primitives");
#pragma omp parallel num_threads(threads)
	{
		exg_round_state saved = exg_round_up_enter();

#pragma omp for schedule(static)
		for (i = 0; i < (long) S->nprims; i++)
		{
			exg_prim   *pr = &(*prims)[i];

			exg_join_classify(S, (uint32_t) i, pr, &(*boxes)[6 * i]);
			if (planes && pr->kind == EXG_SIMPLEX_TRIANGLE)
				exg_plane_static_init(&S->xyz[3 * (size_t) pr->v[0]], &S->xyz[3 * (size_t) pr->v[1]],
									  &S->xyz[3 * (size_t) pr->v[2]], &(*planes)[i]);
		}
		exg_round_restore(saved);
	}
	return EXG_OK;
}

/* Joint box of both sets and the mean primitive extent per axis. */
static void
joint_box(const double *ba, uint32_t na, const double *bb, uint32_t nb, int threads,
		  double *box, double *mean)
{
	double		lo[3] = {INFINITY, INFINITY, INFINITY},
				hi[3] = {-INFINITY, -INFINITY, -INFINITY},
				sum[3] = {0, 0, 0};
	long		i;

#pragma omp parallel for num_threads(threads) schedule(static) \
	reduction(min:lo[:3]) reduction(max:hi[:3]) reduction(+:sum[:3])
	for (i = 0; i < (long) na + nb; i++)
	{
		const double *b = i < (long) na ? &ba[6 * i] : &bb[6 * (i - na)];

		for (int k = 0; k < 3; k++)
		{
			lo[k] = b[k] < lo[k] ? b[k] : lo[k];
			hi[k] = b[3 + k] > hi[k] ? b[3 + k] : hi[k];
			sum[k] += b[3 + k] - b[k];
		}
	}
	for (int k = 0; k < 3; k++)
	{
		/* as before: the first box's corners when every coordinate is NaN */
		box[k] = lo[k] <= hi[k] ? lo[k] : (na ? ba[k] : bb[k]);
		box[3 + k] = lo[k] <= hi[k] ? hi[k] : (na ? ba[3 + k] : bb[3 + k]);
		mean[k] = (na + nb) ? sum[k] / (double) (na + nb) : 0;
	}
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

/* Spread the low 10 bits of x to every third bit (Morton order). */
static inline uint32_t
spread3(uint32_t x)
{
	x &= 1023u;
	x = (x | (x << 16)) & 0x030000FFu;
	x = (x | (x << 8)) & 0x0300F00Fu;
	x = (x | (x << 4)) & 0x030C30C3u;
	x = (x | (x << 2)) & 0x09249249u;
	return x;
}

/*
 * The order the left primitives are visited in: by the Morton code of the
 * cell of their box's low corner (coarsened to 10 bits an axis). A
 * candidate test's cost is mostly cache misses on the right primitive's
 * box, plane and vertices (perf, on the mesh pair and the soup); visited in
 * space order, consecutive left primitives meet the same right ones, still
 * in cache. NULL when out of memory (then index order).
 */
static uint32_t *
visit_order(const exg_grid *g, const double *boxes, uint32_t n, int threads)
{
	exg_pair   *key = malloc(sizeof(exg_pair) * (n ? n : 1));
	uint32_t   *order = malloc(sizeof(uint32_t) * (n ? n : 1));
	int			shift[3];

	if (key == NULL || order == NULL)
	{
		free(key);
		free(order);
		return NULL;
	}
	for (int k = 0; k < 3; k++)
		for (shift[k] = 0; (g->dims[k] - 1) >> shift[k] >= 1024; shift[k]++)
			;
#pragma omp parallel for num_threads(threads) schedule(static)
	for (uint32_t i = 0; i < n; i++)
	{
		const double *b = &boxes[6 * (size_t) i];

		key[i].a = spread3((uint32_t) exg_grid_axis(g, 0, b[0]) >> shift[0]) |
			spread3((uint32_t) exg_grid_axis(g, 1, b[1]) >> shift[1]) << 1 |
			spread3((uint32_t) exg_grid_axis(g, 2, b[2]) >> shift[2]) << 2;
		key[i].b = i;
	}
	exg_pairs_sort_unique_threads(key, n, threads);
	for (uint32_t i = 0; i < n; i++)
		order[i] = key[i].b;
	free(key);
	return order;
}

/*
 * The right side copied in visit order (order[j'] = j): each primitive's
 * vertices (arity * 3 doubles, so sharing is lost: equal coordinates still
 * compare equal), classification, box and plane, so that a cell's right
 * primitives, listed in id order, lie side by side in memory. The classes
 * stay valid: the same vertices, renumbered. False when out of memory.
 */
typedef struct packed_side
{
	exg_prim_set s;
	double	   *xyz;
	uint32_t   *vidx;
} packed_side;

static bool
pack_side(const exg_prim_set *S, const uint32_t *order, int threads, exg_prim **prims,
		  double **boxes, exg_plane_static **planes, packed_side *out)
{
	uint32_t	n = S->nprims,
				ar = (uint32_t) S->arity;
	const exg_prim *p1 = *prims;
	const double *b1 = *boxes;
	const exg_plane_static *q1 = planes ? *planes : NULL;
	exg_prim   *p2 = malloc(sizeof(exg_prim) * n);
	double	   *b2 = malloc(sizeof(double) * 6 * (size_t) n);
	exg_plane_static *q2 = q1 ? malloc(sizeof(exg_plane_static) * n) : NULL;
	long		j;

	out->xyz = malloc(sizeof(double) * 3 * ar * (size_t) n);
	out->vidx = malloc(sizeof(uint32_t) * ar * (size_t) n);
	if (p2 == NULL || b2 == NULL || (q1 && q2 == NULL) || out->xyz == NULL || out->vidx == NULL)
	{
		free(p2);
		free(b2);
		free(q2);
		free(out->xyz);
		free(out->vidx);
		out->xyz = NULL;
		out->vidx = NULL;
		return false;
	}
#pragma omp parallel for num_threads(threads) schedule(static)
	for (j = 0; j < (long) n; j++)
	{
		uint32_t	o = order[j];
		const uint32_t *vi = &S->vidx[(size_t) ar * o];

		for (uint32_t t = 0; t < ar; t++)
		{
			out->vidx[(size_t) ar * j + t] = ar * (uint32_t) j + t;
			memcpy(&out->xyz[3 * ((size_t) ar * j + t)], &S->xyz[3 * (size_t) vi[t]],
				   3 * sizeof(double));
		}
		p2[j] = p1[o];
		for (int t = 0; t < 3; t++)
		{
			uint32_t	slot = 0;

			while (slot + 1 < ar && vi[slot] != p1[o].v[t])
				slot++;
			p2[j].v[t] = ar * (uint32_t) j + slot;
		}
		memcpy(&b2[6 * (size_t) j], &b1[6 * (size_t) o], 6 * sizeof(double));
		if (q1)
			q2[j] = q1[o];
	}
	free(*prims);
	free(*boxes);
	*prims = p2;
	*boxes = b2;
	if (q1)
	{
		free(*planes);
		*planes = q2;
	}
	out->s = (exg_prim_set) {out->xyz, ar * n, out->vidx, n, S->arity, 0, NULL, NULL};
	return true;
}

/*
 * Packing a side costs a pass over it; it pays when its primitives are
 * met many times, i.e. when the other side is not much smaller (mine:
 * 7846 segments against 10^6 triangles spent a third of its time packing).
 */
static inline bool
often_revisited(uint32_t n, uint32_t n_other)
{
	return (uint64_t) n_other * 16 >= n;
}

/* exg_boxes_meet without short-circuit branches: six compares, one branch. */
static inline int
boxes_meet_flat(const double *a, const double *b)
{
	return (a[0] <= b[3]) & (b[0] <= a[3]) & (a[1] <= b[4]) & (b[1] <= a[4]) &
		(a[2] <= b[5]) & (b[2] <= a[5]);
}

/*
 * The cell of each box's low corner, per axis. exg_grid_axis is monotone,
 * so a pair's reference cell (the cell of the max of the low corners,
 * join_grid.h) is the per-axis max of the two low corners' cells: integer
 * compares in the candidate loop instead of three float to cell
 * conversions. Computed in the mode the cells are entered in.
 */
static uint16_t *
low_cells(const exg_grid *g, const double *boxes, uint32_t n, int threads)
{
	uint16_t   *c = malloc(sizeof(uint16_t) * 4 * (size_t) (n ? n : 1));
	long		i;

	if (c == NULL)
		return NULL;
#pragma omp parallel num_threads(threads)
	{
		exg_round_state saved = exg_round_up_enter();

#pragma omp for schedule(static)
		for (i = 0; i < (long) n; i++)
			for (int k = 0; k < 3; k++)
				c[4 * i + k] = (uint16_t) exg_grid_axis(g, k, boxes[6 * i + k]);
		exg_round_restore(saved);
	}
	return c;
}

/*
 * Where one left primitive's hits are: a run in one thread's buffer. With
 * the reference-cell rule every pair is found once, by the thread that
 * took its left primitive, so the runs are the whole answer: placed by left
 * id (a prefix sum of their lengths) and each sorted by right id, they give
 * the pairs in (a, b) order in one parallel pass, where a radix sort of all
 * pairs took six (pair_sort.c).
 */
typedef struct hit_run
{
	uint64_t	first;
	uint32_t	n;
	uint32_t	thread;
} hit_run;

static int
pair_b_cmp(const void *x, const void *y)
{
	uint32_t	p = ((const exg_pair *) x)->b,
				q = ((const exg_pair *) y)->b;

	return (p > q) - (p < q);
}

/* The runs in (a, b) order into out; off: nprims + 1 slots of scratch. */
static void
place_runs(const hit_run *runs, uint32_t nprims, const uint32_t *order,
		   const exg_pair_buffer *bufs, int threads, uint64_t *off, exg_pair *out)
{
	uint64_t	sum = 0;
	long		i;

#pragma omp parallel for num_threads(threads) schedule(static)
	for (i = 0; i < (long) nprims; i++)
		off[order ? order[i] : (uint32_t) i] = runs[i].n;
	for (uint32_t a = 0; a < nprims; a++)
	{
		uint64_t	n = off[a];

		off[a] = sum;
		sum += n;
	}
#pragma omp parallel for num_threads(threads) schedule(dynamic, 1024)
	for (i = 0; i < (long) nprims; i++)
	{
		exg_pair   *dst = out + off[order ? order[i] : (uint32_t) i];
		uint32_t	n = runs[i].n;

		if (n == 0)
			continue;
		memcpy(dst, bufs[runs[i].thread].p + runs[i].first, n * sizeof(exg_pair));
		if (n > 24)
			qsort(dst, n, sizeof(exg_pair), pair_b_cmp);
		else
			for (uint32_t u = 1; u < n; u++)
			{
				exg_pair	p = dst[u];
				uint32_t	v = u;

				for (; v > 0 && dst[v - 1].b > p.b; v--)
					dst[v] = dst[v - 1];
				dst[v] = p;
			}
	}
}

exg_status
exg_join_cpu(const exg_prim_set *A, const exg_prim_set *B, const exg_join_options *opt,
			 exg_pair **pairs_out, size_t *npairs_out, exg_join_stats *stats,
			 exg_error *err)
{
	int			threads = exg_threads(opt->worker_threads);
	bool		by_reference = opt->dedupe == EXG_DEDUPE_REFERENCE_CELL;
	bool		boxes_only = opt->boxes_only;
	bool		planes;
	exg_prim   *pa = NULL,
			   *pb = NULL;
	double	   *ba = NULL,
			   *bb = NULL;
	exg_plane_static *qa = NULL,
			   *qb = NULL;
	uint64_t   *start = NULL;
	uint32_t   *items = NULL,
			   *order = NULL,
			   *order_b = NULL;
	packed_side packed = {0},
				packed_a = {0};
	hit_run    *runs = NULL;
	uint64_t   *run_off = NULL;
	uint16_t   *bcell = NULL;
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

	/*
	 * Planes serve triangle-triangle tests only, and pay for themselves
	 * when a triangle is tested several times: not for segments or
	 * points, not when one side is much smaller than the other.
	 */
	planes = !boxes_only && A->arity == 3 && B->arity == 3 &&
		often_revisited(A->nprims, B->nprims) && often_revisited(B->nprims, A->nprims);
	if ((st = exg_join_classify_all(A, threads, &pa, &ba, planes ? &qa : NULL, err)) != EXG_OK ||
		(st = exg_join_classify_all(B, threads, &pb, &bb, planes ? &qb : NULL, err)) != EXG_OK)
		goto done;
	stats->phase_ns[EXG_PHASE_CLASSIFY] = exg_now_ns() - t;
	if (A->nprims == 0 || B->nprims == 0)
		goto done;

	t = exg_now_ns();
	joint_box(ba, A->nprims, bb, B->nprims, threads, box, mean);
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
	/*
	 * The right side in space order, or as given when memory is short or
	 * when the left side is too small for locality to pay for the copy (a
	 * few drill holes against a million triangles: each is met once or never).
	 */
	if (often_revisited(B->nprims, A->nprims) &&
		(order_b = visit_order(&g, bb, B->nprims, threads)) != NULL &&
		pack_side(B, order_b, threads, &pb, &bb, qb ? &qb : NULL, &packed))
		B = &packed.s;
	else
	{
		free(order_b);
		order_b = NULL;
	}
	if ((st = grid_fill(&g, bb, B->nprims, threads, &start, &items, err)) != EXG_OK)
		goto done;
	if (by_reference && (bcell = low_cells(&g, bb, B->nprims, threads)) == NULL)
	{
		st = exg_fail(err, EXG_ERR_NOMEM, "out of memory building the grid");
		goto done;
	}
	memcpy(stats->grid_dims, g.dims, sizeof(g.dims));
	/* the left side in the same order, visited as stored */
	if (often_revisited(A->nprims, B->nprims) &&
		(order = visit_order(&g, ba, A->nprims, threads)) != NULL &&
		pack_side(A, order, threads, &pa, &ba, qa ? &qa : NULL, &packed_a))
		A = &packed_a.s;
	else
	{
		free(order);
		order = NULL;
	}
	stats->phase_ns[EXG_PHASE_GRID] = exg_now_ns() - t;

	t = exg_now_ns();
	bufs = calloc(threads, sizeof(exg_pair_buffer));
	if (by_reference)
	{
		runs = malloc(sizeof(hit_run) * A->nprims);
		run_off = malloc(sizeof(uint64_t) * (A->nprims + 1));
	}
	if (bufs == NULL || (by_reference && (runs == NULL || run_off == NULL)))
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

#pragma omp for schedule(dynamic, 64)
		for (i = 0; i < (long) A->nprims; i++)
		{
			const double *abox = &ba[6 * i];
			cell_range r;
			int32_t		x,
						y,
						z;

			size_t		first = mine->n;
			bool		stop = false;

			if (exg_flag_get(&canceled) || exg_flag_get(&nomem))
				continue;
			range_of(&g, abox, &r);
			for (z = r.lo[2]; z <= r.hi[2] && !stop; z++)
				for (y = r.lo[1]; y <= r.hi[1] && !stop; y++)
					for (x = r.lo[0]; x <= r.hi[0] && !stop; x++)
					{
						uint32_t	cell = exg_grid_cell_id(&g, x, y, z);
						uint64_t	e;

						/* cells count as work too: a box over millions of
						 * empty cells tests no pair */
						if ((++since_poll & 8191) == 0 &&
							(exg_flag_get(&canceled) || exg_cancel_requested()))
						{
							exg_flag_set(&canceled);
							stop = true;
							break;
						}
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
								stop = true;
								break;
							}

							if (!boxes_meet_flat(abox, bbox))
								continue;
							if (by_reference)
							{
								const uint16_t *bc = &bcell[4 * (size_t) j];

								if ((bc[0] > r.lo[0] ? bc[0] : r.lo[0]) != x ||
									(bc[1] > r.lo[1] ? bc[1] : r.lo[1]) != y ||
									(bc[2] > r.lo[2] ? bc[2] : r.lo[2]) != z)
									continue;
							}
							candidates++;
							if ((boxes_only ||
								 (planes ? exg_join_cpu_pair_meets(A, &pa[i], &qa[i], B, &pb[j], &qb[j])
								  : exg_join_pair_meets(A, &pa[i], B, &pb[j]))) &&
								!exg_pair_push(mine, order ? order[i] : (uint32_t) i,
												  order_b ? order_b[j] : j))
								exg_flag_set(&nomem);
						}
					}
			if (runs)
				runs[i] = (hit_run) {first, (uint32_t) (mine->n - first),
									 (uint32_t) omp_get_thread_num()};
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
	if (runs)
	{
		place_runs(runs, A->nprims, order, bufs, threads, run_off, *pairs_out);
		*npairs_out = total;
	}
	else
	{
		for (total = 0, k = 0; k < (size_t) threads; k++)
		{
			memcpy(*pairs_out + total, bufs[k].p, bufs[k].n * sizeof(exg_pair));
			total += bufs[k].n;
		}
		/* the reference-cell rule reports each pair once: only the order is left */
		*npairs_out = opt->unordered && opt->dedupe == EXG_DEDUPE_REFERENCE_CELL ? total
			: exg_pairs_sort_unique_threads(*pairs_out, total, threads);
	}
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
	free(qa);
	free(qb);
	free(start);
	free(items);
	free(order);
	free(order_b);
	free(packed.xyz);
	free(packed.vidx);
	free(packed_a.xyz);
	free(packed_a.vidx);
	free(runs);
	free(run_off);
	free(bcell);
	return st;
}
