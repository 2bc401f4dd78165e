/*
 * join_grid.c — choosing the resolution of a join's uniform grid.
 */
#include "join_grid.h"

#include <math.h>
#include <stddef.h>

#define EXG_GRID_MAX_CELLS (1u << 25)

/*
 * Cells a box is entered in, on average, beyond which a grid is only
 * wasteful: the automatic grids enter a box in a few cells (their cells are
 * never thinner than the mean box); a grid of millions of cells under large
 * boxes would enter each in millions and take the time and memory of all
 * those entries for nothing.
 */
#define EXG_GRID_MAX_ENTRIES_PER_BOX 16.0

void
exg_grid_choose(exg_grid *g, const double *box, uint64_t nprims,
				const double *mean_extent, uint32_t target_cells)
{
	double		extent[3],
				log_volume = 0,
				side;
	/* Automatic: a cell per four primitives, the optimum of the measured sweep
	 * (bench/results): coarser cells pair too many, finer ones enter too often. */
	double		target = target_cells ? (double) target_cells : (double) nprims / 4;
	int			k,
				ndims = 0;

	if (target < 1)
		target = 1;
	if (target > EXG_GRID_MAX_CELLS)
		target = EXG_GRID_MAX_CELLS;
	for (k = 0; k < 3; k++)
	{
		extent[k] = box[3 + k] - box[k];
		if (extent[k] > 0)
		{
			log_volume += log(extent[k]);
			ndims++;
		}
	}
	/* in logarithms: a product of extents near 1e±160 would overflow to
	 * infinity or underflow to zero and silently give a single cell */
	side = ndims ? exp((log_volume - log(target)) / ndims) : 1;

	for (k = 0; k < 3; k++)
	{
		double		s = side;

		g->origin[k] = box[k];
		/* Cells much smaller than the primitives only multiply entries. */
		if (target_cells == 0 && mean_extent != NULL && s < mean_extent[k])
			s = mean_extent[k];
		if (extent[k] > 0 && s > 0)
		{
			double		d = ceil(extent[k] / s);

			/* NaN (an infinite extent over an infinite side) is one cell */
			g->dims[k] = (int32_t) (!(d >= 1) ? 1 : (d > EXG_GRID_MAX_AXIS ? EXG_GRID_MAX_AXIS : d));
			g->inv_cell[k] = isfinite(extent[k]) ? g->dims[k] / extent[k] : 0;
			if (g->inv_cell[k] == 0)
				g->dims[k] = 1;
		}
		else
		{
			g->dims[k] = 1;
			g->inv_cell[k] = 0;
		}
	}
	/* Keep the per-cell arrays bounded whatever the shape of the box. */
	exg_grid_cap_cells(g, extent, EXG_GRID_MAX_CELLS);
}

void
exg_grid_cap_cells(exg_grid *g, const double *extent, double max_cells)
{
	double		total = (double) g->dims[0] * g->dims[1] * g->dims[2];

	while (total > max_cells)
	{
		total = 1;
		for (int k = 0; k < 3; k++)
		{
			if (g->dims[k] > 1)
			{
				g->dims[k] = (g->dims[k] + 1) / 2;
				g->inv_cell[k] = g->dims[k] / extent[k];
			}
			total *= g->dims[k];
		}
	}
}

/* Cells the boxes are entered in, summed as doubles (no overflow). */
static double
grid_entries(const exg_grid *g, int naxes, const double *const *boxes, const uint64_t *n,
			 int nsets, int threads)
{
	double		total = 0;

	for (int s = 0; s < nsets; s++)
	{
		const double *b = boxes[s];
		long		i;

#pragma omp parallel for num_threads(threads) schedule(static) reduction(+:total) if (n[s] > 65536)
		for (i = 0; i < (long) n[s]; i++)
		{
			double		cells = 1;

			for (int k = 0; k < naxes; k++)
				cells *= (double) (exg_grid_axis(g, k, b[2 * naxes * i + naxes + k]) -
								   exg_grid_axis(g, k, b[2 * naxes * i + k]) + 1);
			total += cells;
		}
	}
	return total;
}

bool
exg_grid_fits(const exg_grid *g, double entries, double nboxes, double cell_bytes,
			  double entry_bytes, size_t budget)
{
	double		cells = (double) g->dims[0] * g->dims[1] * g->dims[2];

	return cells <= 1 ||
		(cells * cell_bytes + entries * entry_bytes <= (double) budget &&
		 entries <= EXG_GRID_MAX_ENTRIES_PER_BOX * nboxes + (double) (1 << 16));
}

uint64_t
exg_grid_fit(exg_grid *g, const double *extent, int naxes, const double *const *boxes,
			 const uint64_t *n, int nsets, double cell_bytes, double entry_bytes,
			 size_t budget, int threads)
{
	double		nboxes = 0;

	for (int s = 0; s < nsets; s++)
		nboxes += (double) n[s];
	for (;;)
	{
		double		entries = grid_entries(g, naxes, boxes, n, nsets, threads);

		if (exg_grid_fits(g, entries, nboxes, cell_bytes, entry_bytes, budget))
			return entries < 1.8e19 ? (uint64_t) entries : UINT64_MAX;
		exg_grid_cap_cells(g, extent, (double) g->dims[0] * g->dims[1] * g->dims[2] / 2);
	}
}
