/*
 * box_join_plan.c — what both box-join back-ends share before they pair
 * boxes: input summaries, the report of an invalid box, the choice of the
 * grid, and the staging copy of input for the GPU. Kept out of the
 * dispatcher (box_join.c) so that no back-end calls back into it.
 */
#include "box_join_internal.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "parallel.h"

#define EXG_BOX_GRID_MAX_CELLS (1u << 25)

void
exg_box_summary_init(exg_box_summary *s)
{
	for (int k = 0; k < 3; k++)
	{
		s->lo[k] = INFINITY;
		s->hi[k] = -INFINITY;
		s->extent_sum[k] = 0;
	}
	s->first_invalid = UINT64_MAX;
}

void
exg_box_summary_merge(exg_box_summary *sum, const exg_box_summary *part, uint64_t first)
{
	for (int k = 0; k < 3; k++)
	{
		sum->lo[k] = fmin(sum->lo[k], part->lo[k]);
		sum->hi[k] = fmax(sum->hi[k], part->hi[k]);
		sum->extent_sum[k] += part->extent_sum[k];
	}
	if (part->first_invalid != UINT64_MAX && first + part->first_invalid < sum->first_invalid)
		sum->first_invalid = first + part->first_invalid;
}

exg_status
exg_box_invalid(exg_error *err, int side, uint64_t i, const double *box, int naxes)
{
	const char *name = side ? "right" : "left";
	int			k;

	if (err)
	{
		err->row = i + 1;
		err->side = side;
	}
	for (k = 0; k < naxes; k++)
		if (!isfinite(box[k]) || !isfinite(box[naxes + k]))
			return exg_fail(err, EXG_ERR_ARGUMENT, "%s input: box %llu has a non-finite coordinate",
							name, (unsigned long long) i);
	for (k = 0; k < naxes; k++)
		if (!(box[k] <= box[naxes + k]))
			break;
	return exg_fail(err, EXG_ERR_ARGUMENT, "%s input: box %llu has lo > hi on axis %c (%.17g > %.17g)",
					name, (unsigned long long) i, "xyz"[k < naxes ? k : 0],
					box[k < naxes ? k : 0], box[naxes + (k < naxes ? k : 0)]);
}

void
exg_parallel_memcpy(void *dst, const void *src, size_t bytes, int threads)
{
	const size_t piece = (size_t) 1 << 20;
	long		npieces = (long) ((bytes + piece - 1) / piece);

	/* one thread is as fast as several below a few MiB */
#pragma omp parallel for schedule(static) num_threads(exg_threads(threads)) if (npieces > 4)
	for (long p = 0; p < npieces; p++)
	{
		size_t		off = (size_t) p * piece;

		memcpy((char *) dst + off, (const char *) src + off, bytes - off < piece ? bytes - off : piece);
	}
}

/* Boxes of the larger side a cell of side s meets, for evenly spread boxes. */
static double
occupancy_at(double s, int naxes, const double *len, const double *mean, double n)
{
	double		m = n;

	for (int k = 0; k < naxes; k++)
		if (len[k] > 0)
		{
			double		f = (fmax(s, mean[k]) + mean[k]) / len[k];

			m *= f < 1 ? f : 1;
		}
	return m;
}

bool
exg_box_grid_choose(exg_box_grid *bg, int naxes, const exg_box_summary *a, uint32_t na,
					const exg_box_summary *b, uint32_t nb, double occupancy,
					uint32_t target_cells)
{
	exg_grid   *g = &bg->g;
	double		len[3] = {0, 0, 0},
				mean[3] = {0, 0, 0},
				box6[6],
				n = na > nb ? na : nb,
				s_lo = 0,
				s_hi = 0,
				s;
	int			k;

	memset(bg, 0, sizeof(*bg));
	bg->naxes = naxes;
	for (k = 0; k < naxes; k++)
	{
		double		lo = fmax(a->lo[k], b->lo[k]),
					hi = fmin(a->hi[k], b->hi[k]);

		if (!(lo <= hi))
			return false;
		bg->domain[k] = lo;
		bg->domain[naxes + k] = hi;
		/* an axis whose extent overflows gets one cell: correct, if slow */
		len[k] = isfinite(hi - lo) ? hi - lo : 0;
		mean[k] = (a->extent_sum[k] + b->extent_sum[k]) / ((double) na + nb);
		if (!isfinite(mean[k]))
			mean[k] = len[k];
	}
	for (k = 0; k < 3; k++)
	{
		box6[k] = k < naxes ? bg->domain[k] : 0;
		box6[3 + k] = k < naxes && len[k] > 0 ? bg->domain[naxes + k] : box6[k];
	}
	if (target_cells)
	{
		exg_grid_choose(g, box6, (uint64_t) na + nb, NULL, target_cells);
		return true;
	}

	/* the cell side s by bisection: occupancy grows with s */
	for (k = 0; k < naxes; k++)
		s_hi = fmax(s_hi, len[k]);
	if (occupancy_at(0, naxes, len, mean, n) >= occupancy)
		s_hi = 0;				/* dense: cells as large as the mean box */
	for (int it = 0; it < 64 && s_hi > 0; it++)
	{
		s = s_lo + (s_hi - s_lo) / 2;
		if (occupancy_at(s, naxes, len, mean, n) < occupancy)
			s_lo = s;
		else
			s_hi = s;
	}
	s = s_hi;
	for (k = 0; k < 3; k++)
	{
		double		side = k < naxes ? fmax(s, mean[k]) : 0,
					d = side > 0 ? ceil(len[k] / side) : 1;

		g->origin[k] = box6[k];
		g->dims[k] = (int32_t) (d < 1 ? 1 : (d > EXG_GRID_MAX_AXIS ? EXG_GRID_MAX_AXIS : d));
		g->inv_cell[k] = len[k] > 0 ? g->dims[k] / len[k] : 0;
		if (!isfinite(g->inv_cell[k]))
		{
			g->dims[k] = 1;
			g->inv_cell[k] = 0;
		}
	}
	exg_grid_cap_cells(g, len, EXG_BOX_GRID_MAX_CELLS);
	return true;
}
