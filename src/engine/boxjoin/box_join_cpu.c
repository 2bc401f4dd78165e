/*
 * box_join_cpu.c — the box join on the CPU worker pool: the GPU's grid and
 * reference-point rule (box_join_internal.h), both sides as ragged arrays,
 * work units of (cell, up to UNIT_A boxes of A), and rounds of units whose
 * pairs go to the sink on the calling thread (the OpenMP master) while the
 * other workers already compute the next round (two sets of per-thread
 * buffers, as the GPU back-end double-buffers its chunks).
 *
 * Every cell computation runs in round-to-nearest, set in each region: the
 * caller may have left upward rounding on for the interval predicates, and a
 * coordinate on a cell wall would land in different cells in two modes.
 */
#include "box_join_internal.h"

#include <stdlib.h>
#include <string.h>

#include "cancel.h"
#include "interval_double.h"
#include "join_internal.h"
#include "memory_budget.h"
#include "parallel.h"
#include "stats.h"

#define UNIT_A 256				/* A boxes per work unit: big cells split */
#define BLOCK_B 512				/* B boxes gathered at a time (fits L1/L2) */
#define ROUND_PAIRS ((uint64_t) 1 << 23)	/* comparisons per round, so pairs too */

/* One side as ragged arrays: items[start[c] .. start[c + 1]) are in cell c. */
typedef struct side_grid
{
	uint32_t   *start;
	uint32_t   *items;
	uint64_t	entries;
} side_grid;

typedef struct work_unit
{
	uint32_t	cell;
	uint32_t	first;			/* offset in the cell's list of A boxes */
} work_unit;

void
exg_box_summarize(const exg_box_set *S, int naxes, int threads, exg_box_summary *sum)
{
	exg_box_summary part[256];
	int			nparts = exg_threads(threads) < 256 ? exg_threads(threads) : 256;

	exg_box_summary_init(sum);
#pragma omp parallel num_threads(nparts)
	{
		exg_box_summary *mine = &part[exg_thread_num()];
		exg_round_state saved = exg_round_nearest_enter();	/* no DAZ on subnormal bounds */
		long		i;

		exg_box_summary_init(mine);
#pragma omp for schedule(static)
		for (i = 0; i < (long) S->n; i++)
		{
			const double *b = &S->box[2 * naxes * (size_t) i];

			if (!exg_box_valid(b, naxes))
			{
				if ((uint64_t) i < mine->first_invalid)
					mine->first_invalid = (uint64_t) i;
				continue;
			}
			for (int k = 0; k < naxes; k++)
			{
				mine->lo[k] = b[k] < mine->lo[k] ? b[k] : mine->lo[k];
				mine->hi[k] = b[naxes + k] > mine->hi[k] ? b[naxes + k] : mine->hi[k];
				mine->extent_sum[k] += b[naxes + k] - b[k];
			}
		}
#pragma omp master
		nparts = exg_team_size();
		exg_round_restore(saved);
	}
	for (int t = 0; t < nparts; t++)
		exg_box_summary_merge(sum, &part[t], 0);
}

/* Run body for each cell the box is entered in (none outside the domain), `cell` its id. */
#define FOR_CELLS_OF(bg, box, cell, body) \
	do { \
		int32_t		lo_[3], hi_[3]; \
		if (exg_box_cells((bg), (box), lo_, hi_)) \
			for (int32_t z_ = lo_[2]; z_ <= hi_[2]; z_++) \
				for (int32_t y_ = lo_[1]; y_ <= hi_[1]; y_++) \
					for (int32_t x_ = lo_[0]; x_ <= hi_[0]; x_++) \
					{ \
						uint32_t	cell = exg_grid_cell_id(&(bg)->g, x_, y_, z_); \
						body; \
					} \
	} while (0)

/*
 * Ragged array of one side: count, scan, fill, cells in round-to-nearest.
 * The boxes are cut in parts, each with its own counts (as many parts as
 * threads while their counts stay within 64 MiB): no atomics, no cache
 * lines moving between cores, and each cell lists its boxes in id order.
 */
static exg_status
grid_side(const exg_box_grid *bg, const exg_box_set *S, int threads, side_grid *out,
		  exg_error *err)
{
	uint64_t	ncells = (uint64_t) bg->g.dims[0] * bg->g.dims[1] * bg->g.dims[2];
	uint64_t	nparts = ((uint64_t) 1 << 24) / ncells;
	uint64_t	entries = 0,
				sum = 0;
	uint32_t   *count,
			   *cursor = NULL;
	int			d2 = 2 * bg->naxes,
				canceled = 0;

	nparts = nparts < 1 ? 1 : (nparts > (uint64_t) threads ? (uint64_t) threads : nparts);
	count = calloc(nparts * ncells, sizeof(uint32_t));
	out->start = calloc(ncells + 1, sizeof(uint32_t));
	if (count == NULL || out->start == NULL)
	{
		free(count);
		return exg_fail(err, EXG_ERR_NOMEM, "out of memory building the box grid");
	}
	for (int pass = 0; pass < 2; pass++)
	{
		long		p;

#pragma omp parallel for num_threads(threads) schedule(static, 1) reduction(+:entries)
		for (p = 0; p < (long) nparts; p++)
		{
			exg_round_state saved = exg_round_nearest_enter();
			uint32_t   *mine = &count[p * ncells];
			uint64_t	i0 = S->n * (uint64_t) p / nparts,
						i1 = S->n * (uint64_t) (p + 1) / nparts;

			for (uint64_t i = i0; i < i1; i++)
			{
				/* a box may cover many cells: poll by boxes, not by parts */
				if ((i & 1023) == 0 && (exg_flag_get(&canceled) || exg_cancel_requested()))
				{
					exg_flag_set(&canceled);
					break;
				}
				if (pass)
					FOR_CELLS_OF(bg, &S->box[d2 * i], c, out->items[mine[c]++] = (uint32_t) i);
				else
					FOR_CELLS_OF(bg, &S->box[d2 * i], c, (mine[c]++, entries++));
			}
			exg_round_restore(saved);
		}
		if (canceled)
		{
			free(count);
			return exg_fail(err, EXG_ERR_INTERRUPTED, "canceled");
		}
		if (pass)
			break;
		if (entries > UINT32_MAX)
		{
			free(count);
			return exg_fail(err, EXG_ERR_TOO_LARGE,
							"box join: more than 2^32 grid entries; set a coarser grid (grid_cells)");
		}
		/* cells' starts, then each part's counts become its fill cursors */
		for (p = 0; p < (long) nparts; p++)
			for (uint64_t c = 0; c < ncells; c++)
				out->start[c + 1] += count[p * ncells + c];
		for (uint64_t c = 0; c < ncells; c++)
			out->start[c + 1] = (uint32_t) (sum += out->start[c + 1]);
		out->entries = entries;
		cursor = malloc(sizeof(uint32_t) * (ncells ? ncells : 1));
		out->items = malloc(sizeof(uint32_t) * (entries ? entries : 1));
		if (cursor == NULL || out->items == NULL)
		{
			free(count);
			free(cursor);
			return exg_fail(err, EXG_ERR_NOMEM, "out of memory building the box grid");
		}
		memcpy(cursor, out->start, sizeof(uint32_t) * ncells);
		for (p = 0; p < (long) nparts; p++)
			for (uint64_t c = 0; c < ncells; c++)
			{
				uint32_t	k = count[p * ncells + c];

				count[p * ncells + c] = cursor[c];
				cursor[c] += k;
			}
		free(cursor);
	}
	free(count);
	return EXG_OK;
}

/* Work units of every cell with boxes of both sides; cell_pairs = sum nA * nB. */
static work_unit *
make_units(const side_grid *a, const side_grid *b, uint64_t ncells, uint64_t *nunits,
		   uint64_t *cell_pairs)
{
	uint64_t	n = 0,
				pairs = 0;
	work_unit  *u;

	for (uint64_t c = 0; c < ncells; c++)
		if (b->start[c + 1] > b->start[c])
			n += (a->start[c + 1] - a->start[c] + UNIT_A - 1) / UNIT_A;
	u = malloc(sizeof(work_unit) * (n ? n : 1));
	if (u == NULL)
		return NULL;
	n = 0;
	for (uint64_t c = 0; c < ncells; c++)
	{
		uint32_t	na = a->start[c + 1] - a->start[c],
					nb = b->start[c + 1] - b->start[c];

		if (nb == 0)
			continue;
		pairs += (uint64_t) na * nb;
		for (uint32_t f = 0; f < na; f += UNIT_A)
			u[n++] = (work_unit) {(uint32_t) c, f};
	}
	*nunits = n;
	*cell_pairs = pairs;
	return u;
}

/* Per-thread scratch: a unit's A boxes and a block of the cell's B boxes. */
typedef struct scratch
{
	double		abox[UNIT_A * 6];
	unsigned	amask[UNIT_A];
	double		bbox[BLOCK_B * 6];
	unsigned	bmask[BLOCK_B];
	uint32_t	bid[BLOCK_B];
} scratch;

typedef struct join_ctx
{
	const exg_box_set *A,
			   *B;
	const exg_box_grid *bg;
	const side_grid *ga,
			   *gb;
	exg_box_pair_filter filter;
	void	   *filter_arg;
	int			stop;			/* cancel, sink error or no memory: finish early */
	int			canceled;
	int			nomem;
} join_ctx;

/*
 * Compare a unit's A boxes with every B box of its cell; adds the pairs
 * that pass the cell rule to *considered and returns the work done
 * (comparisons, and filtered pairs weighted as a few hundred comparisons).
 * The filter runs per block of B boxes, so a crowded cell never holds more
 * than UNIT_A * BLOCK_B unfiltered pairs. naxes is a literal at each call
 * site, so the loops unroll.
 */
static inline __attribute__((always_inline)) uint64_t
run_unit(join_ctx *x, const work_unit *u, scratch *s, exg_pair_buffer *out, int naxes,
		 uint64_t *considered)
{
	const int	d2 = 2 * naxes;
	uint32_t	c = u->cell,
				a0 = x->ga->start[c] + u->first,
				na = x->ga->start[c + 1] - a0,
				b0 = x->gb->start[c],
				nb = x->gb->start[c + 1] - b0;
	int32_t		cc[3];

	uint64_t	work = 0;

	if (na > UNIT_A)
		na = UNIT_A;
	exg_box_cell_coords(&x->bg->g, c, cc);
	for (uint32_t i = 0; i < na; i++)
	{
		const double *box = &x->A->box[d2 * (size_t) x->ga->items[a0 + i]];

		memcpy(&s->abox[d2 * i], box, sizeof(double) * d2);
		s->amask[i] = exg_box_lo_mask(x->bg, box, cc);
	}
	for (uint32_t j0 = 0; j0 < nb; j0 += BLOCK_B)
	{
		uint32_t	m = nb - j0 < BLOCK_B ? nb - j0 : BLOCK_B;
		size_t		block_first = out->n;

		for (uint32_t j = 0; j < m; j++)
		{
			uint32_t	id = x->gb->items[b0 + j0 + j];
			const double *box = &x->B->box[d2 * (size_t) id];

			memcpy(&s->bbox[d2 * j], box, sizeof(double) * d2);
			s->bmask[j] = exg_box_lo_mask(x->bg, box, cc);
			s->bid[j] = id;
		}
		for (uint32_t i = 0; i < na; i++)
		{
			const double *a = &s->abox[d2 * i];
			unsigned	am = s->amask[i];
			uint32_t	ia = x->ga->items[a0 + i];
			exg_pair   *w;
			size_t		k = 0;

			if (exg_flag_get(&x->stop))
				return (uint64_t) na * nb;
			if (!exg_pair_reserve(out, m))
			{
				exg_flag_set(&x->nomem);
				exg_flag_set(&x->stop);
				return (uint64_t) na * nb;
			}
			/* tests without branches into a bit per B box, then the hits only */
			w = out->p + out->n;
			for (uint32_t g = 0; g < m; g += 64)
			{
				uint32_t	gn = m - g < 64 ? m - g : 64;
				uint64_t	bits = 0;

				for (uint32_t j = 0; j < gn; j++)
				{
					bool		rule = exg_box_rule(am, s->bmask[g + j], naxes);

					*considered += rule;
					bits |= (uint64_t) (rule & exg_box_meets(a, &s->bbox[d2 * (g + j)], naxes)) << j;
				}
				for (; bits; bits &= bits - 1)
				{
					w[k].a = ia;
					w[k++].b = s->bid[g + __builtin_ctzll(bits)];
				}
			}
			out->n += k;
		}
		work += (uint64_t) na * m;
		if (x->filter && out->n > block_first)
		{
			work += 256 * (uint64_t) (out->n - block_first);
			out->n = block_first + x->filter(x->filter_arg, out->p + block_first,
											 out->n - block_first);
		}
	}
	return work;
}

/* Hand a round's per-thread buffers to the sink; false when it says stop. */
static exg_status
deliver(exg_pair_buffer *bufs, int threads, exg_box_pair_sink sink, void *arg,
		exg_join_stats *stats)
{
	uint64_t	t0 = exg_now_ns();
	exg_status	st = EXG_OK;

	for (int t = 0; t < threads && st == EXG_OK; t++)
		if (bufs[t].n > 0)
		{
			st = sink(arg, bufs[t].p, bufs[t].n);
			stats->hits += bufs[t].n;
		}
	for (int t = 0; t < threads; t++)
		bufs[t].n = 0;
	stats->phase_ns[EXG_PHASE_MERGE] += exg_now_ns() - t0;
	return st;
}

exg_status
exg_box_join_cpu(const exg_box_set *A, const exg_box_set *B, int naxes,
				 const exg_join_options *opt, exg_box_pair_filter filter, void *filter_arg,
				 exg_box_pair_sink sink, void *sink_arg, exg_join_stats *stats, exg_error *err)
{
	int			threads = exg_threads(opt->worker_threads);
	exg_box_summary sa,
				sb;
	exg_box_grid bg;
	side_grid	ga = {0},
				gb = {0};
	work_unit  *units = NULL;
	uint64_t	nunits = 0,
				considered = 0,
				ncells,
				t = exg_now_ns();
	exg_pair_buffer *bufs = NULL;
	scratch    *scr = NULL;
	join_ctx	x = {A, B, &bg, &ga, &gb, filter, filter_arg, 0, 0, 0};
	exg_status	st = EXG_OK,
				sink_st = EXG_OK;

	exg_box_summarize(A, naxes, threads, &sa);
	exg_box_summarize(B, naxes, threads, &sb);
	if (sa.first_invalid != UINT64_MAX)
		return exg_box_invalid(err, 0, sa.first_invalid, &A->box[2 * naxes * sa.first_invalid], naxes);
	if (sb.first_invalid != UINT64_MAX)
		return exg_box_invalid(err, 1, sb.first_invalid, &B->box[2 * naxes * sb.first_invalid], naxes);
	stats->phase_ns[EXG_PHASE_CLASSIFY] = exg_now_ns() - t;
	if (A->n == 0 || B->n == 0 ||
		!exg_box_grid_choose(&bg, naxes, &sa, A->n, &sb, B->n, EXG_BOX_OCCUPANCY_CPU,
							 opt->grid_cells))
		return EXG_OK;
	{
		/*
		 * The grid within the memory budget: per cell a start per side, a
		 * fill cursor, a count and a work unit (28 bytes), per entry an item
		 * (4 bytes). A grid of 2^25 cells under boxes that each cover
		 * millions of cells would otherwise take tens of gigabytes.
		 */
		const double *sets[2] = {A->box, B->box};
		uint64_t	ns[2] = {A->n, B->n};
		double		len[3] = {0, 0, 0};

		for (int k = 0; k < naxes; k++)
			len[k] = bg.domain[naxes + k] - bg.domain[k];
		exg_grid_fit(&bg.g, len, naxes, sets, ns, 2, 28, 4,
					 exg_memory_budget(opt->memory_limit), threads);
	}
	memcpy(stats->grid_dims, bg.g.dims, sizeof(bg.g.dims));
	ncells = (uint64_t) bg.g.dims[0] * bg.g.dims[1] * bg.g.dims[2];

	t = exg_now_ns();
	if ((st = grid_side(&bg, A, threads, &ga, err)) != EXG_OK ||
		(st = grid_side(&bg, B, threads, &gb, err)) != EXG_OK)
		goto done;
	stats->grid_entries = ga.entries + gb.entries;
	stats->phase_ns[EXG_PHASE_GRID] = exg_now_ns() - t;

	t = exg_now_ns();
	units = make_units(&ga, &gb, ncells, &nunits, &stats->cell_pairs);
	bufs = calloc(2 * (size_t) threads, sizeof(exg_pair_buffer));
	scr = malloc(sizeof(scratch) * threads);
	if (units == NULL || bufs == NULL || scr == NULL)
	{
		st = exg_fail(err, EXG_ERR_NOMEM, "out of memory for the box join");
		goto done;
	}
	stats->phase_ns[EXG_PHASE_CULL] = exg_now_ns() - t;

	/* rounds of units: round r computes into bufs[r % 2] while the master
	 * first hands bufs[(r - 1) % 2] to the sink */
	t = exg_now_ns();
	for (uint64_t u0 = 0, r = 0;; r++)
	{
		uint64_t	u1 = u0,
					work = 0;

		while (u1 < nunits && (u1 == u0 || work < ROUND_PAIRS))
		{
			uint32_t	c = units[u1].cell,
						na = ga.start[c + 1] - ga.start[c] - units[u1].first;

			work += (uint64_t) (na < UNIT_A ? na : UNIT_A) * (gb.start[c + 1] - gb.start[c]);
			u1++;
		}
		if (u0 < u1)
			stats->waves++;
#pragma omp parallel num_threads(threads) reduction(+:considered)
		{
			exg_round_state saved = exg_round_nearest_enter();
			exg_pair_buffer *mine = &bufs[(r % 2) * threads + exg_thread_num()];
			scratch    *s = &scr[exg_thread_num()];
			uint64_t	since_poll = 0;
			long		u;

#pragma omp master
			{
				if (r > 0 && !exg_flag_get(&x.stop))
				{
					sink_st = deliver(&bufs[((r - 1) % 2) * threads], threads, sink, sink_arg, stats);
					if (sink_st != EXG_OK)
						exg_flag_set(&x.stop);
				}
			}
#pragma omp for schedule(dynamic, 1)
			for (u = (long) u0; u < (long) u1; u++)
			{
				if (exg_flag_get(&x.stop))
					continue;
				since_poll += naxes == 2 ? run_unit(&x, &units[u], s, mine, 2, &considered)
					: run_unit(&x, &units[u], s, mine, 3, &considered);
				if (since_poll >= 16 * EXG_CANCEL_STRIDE)
				{
					since_poll = 0;
					if (exg_cancel_requested())
					{
						exg_flag_set(&x.canceled);
						exg_flag_set(&x.stop);
					}
				}
			}
			exg_round_restore(saved);
		}
		if (u0 == u1 || x.stop)
			break;
		u0 = u1;
	}
	stats->phase_ns[EXG_PHASE_TEST] = exg_now_ns() - t - stats->phase_ns[EXG_PHASE_MERGE];
	stats->candidates = considered;
	if (sink_st != EXG_OK)
		st = exg_fail(err, sink_st, "box join stopped by its pair sink (%s)", exg_status_name(sink_st));
	else if (x.canceled)
		st = exg_fail(err, EXG_ERR_INTERRUPTED, "canceled");
	else if (x.nomem)
		st = exg_fail(err, EXG_ERR_NOMEM, "out of memory for box join results");

done:
	if (bufs)
		for (int k = 0; k < 2 * threads; k++)
			free(bufs[k].p);
	free(bufs);
	free(scr);
	free(units);
	free(ga.start);
	free(ga.items);
	free(gb.start);
	free(gb.items);
	return st;
}
