/*
 * box_join_internal.h — what the box join's CPU and GPU back-ends share:
 * the formulas (host/device inline, so the two cannot drift apart), the
 * choice of the grid, and the reporting of invalid input.
 *
 * Boxes are 2 * naxes doubles: low corner, then high corner.
 *
 * Why a pair is reported exactly once. A box is entered in the cells
 * [cell(lo_k), cell(hi_k)] on each axis k, where cell() is exg_grid_axis:
 * a subtraction, a multiplication by a positive constant (each rounds
 * monotonically) and a clamp, so cell() is non-decreasing. Two meeting
 * boxes a, b have the reference point r_k = max(a.lo_k, b.lo_k) <=
 * min(a.hi_k, b.hi_k), hence both are entered in cell(r), and the pair is
 * reported in cell c only when c == cell(r). As cell() is non-decreasing,
 * cell(max(x, y)) == max(cell(x), cell(y)) exactly, so the rule needs no
 * new coordinate: in a cell c where both boxes are entered (cell(lo) <= c_k
 * for both), c_k == cell(r_k) iff a's or b's low corner lies in c's slab
 * on axis k. One bit per axis and per box ("lo mask"), an OR per pair.
 * The only requirement is that every cell() of a join runs the same
 * function in the same rounding mode: the GPU's default (to nearest), and
 * on the CPU round-to-nearest set explicitly (the engine may run with
 * upward rounding for its interval filters).
 */
#ifndef EXG_BOX_JOIN_INTERNAL_H
#define EXG_BOX_JOIN_INTERNAL_H

#include <float.h>
#include <stdbool.h>
#include <stdint.h>

#include "box_join.h"
#include "join_grid.h"

#ifdef __cplusplus
extern "C" {
#endif

/*
 * Boxes per cell and per side the automatic grid aims at (see
 * exg_box_grid_choose). Lo et al. argue for at least a warp's worth (32).
 * Measured over 2 x 5 * 10^6 boxes at coverage 0.1 to 4 (bench_overlay's
 * grid sweep on an H100), coarser cells pay: a grid entry costs an atomic,
 * a comparison a few instructions; 64 comes within 4% of the best grid of
 * the sweep at every coverage. On the CPU, 32 beat 8, 16 and 64.
 */
#define EXG_BOX_OCCUPANCY_GPU 64.0
#define EXG_BOX_OCCUPANCY_CPU 32.0

/* The grid of a box join: cells over the domain where pairs can lie. */
typedef struct exg_box_grid
{
	exg_grid	g;				/* origin = the domain's low corner */
	double		domain[6];		/* 2 * naxes: the intersection of both sides' bounds,
								 * or any box holding it (a kept side's own bounds) */
	int			naxes;
} exg_box_grid;

/* What one pass over a side finds. */
typedef struct exg_box_summary
{
	double		lo[3];			/* bounds of the side's boxes */
	double		hi[3];
	double		extent_sum[3];	/* sum of hi - lo per axis */
	uint64_t	first_invalid;	/* index of the first invalid box, UINT64_MAX if none */
} exg_box_summary;

/* Finite coordinates and lo <= hi on every axis (false for NaN too). */
EXG_HD bool
exg_box_valid(const double *box, int naxes)
{
	bool		ok = true;

	for (int k = 0; k < naxes; k++)
		ok &= (box[k] >= -DBL_MAX) & (box[naxes + k] <= DBL_MAX) & (box[k] <= box[naxes + k]);
	return ok;
}

/* Closed boxes meet: exact comparisons of the input doubles, no arithmetic. */
EXG_HD bool
exg_box_meets(const double *a, const double *b, int naxes)
{
	bool		meet = true;

	for (int k = 0; k < naxes; k++)
		meet &= (a[k] <= b[naxes + k]) & (b[k] <= a[naxes + k]);
	return meet;
}

/*
 * The cells a box is entered in, per axis: [lo[k], hi[k]] (unused axes 0).
 * False for a box outside the domain: it meets no box of the other side
 * (the domain holds the intersection of both sides' bounds, where every
 * meeting pair's reference point lies), so it is entered nowhere.
 */
EXG_HD bool
exg_box_cells(const exg_box_grid *bg, const double *box, int32_t *lo, int32_t *hi)
{
	lo[2] = hi[2] = 0;
	if (!exg_box_meets(box, bg->domain, bg->naxes))
		return false;
	for (int k = 0; k < bg->naxes; k++)
	{
		lo[k] = exg_grid_axis(&bg->g, k, box[k]);
		hi[k] = exg_grid_axis(&bg->g, k, box[bg->naxes + k]);
	}
	return true;
}

/* Cell coordinates of cell id c. */
EXG_HD void
exg_box_cell_coords(const exg_grid *g, uint32_t c, int32_t *cc)
{
	cc[0] = (int32_t) (c % (uint32_t) g->dims[0]);
	c /= (uint32_t) g->dims[0];
	cc[1] = (int32_t) (c % (uint32_t) g->dims[1]);
	cc[2] = (int32_t) (c / (uint32_t) g->dims[1]);
}

/* Bit k set when the box's low corner lies in cell cc's slab on axis k. */
EXG_HD unsigned
exg_box_lo_mask(const exg_box_grid *bg, const double *box, const int32_t *cc)
{
	unsigned	m = 0;

	for (int k = 0; k < bg->naxes; k++)
		m |= (unsigned) (exg_grid_axis(&bg->g, k, box[k]) == cc[k]) << k;
	return m;
}

/* The reference-point rule for two boxes entered in the cell of the masks. */
EXG_HD bool
exg_box_rule(unsigned mask_a, unsigned mask_b, int naxes)
{
	return (mask_a | mask_b) == (1u << naxes) - 1;
}

/* ---- box_join_plan.c (exg_box_summarize: box_join_cpu.c) ---- */

/*
 * Choose the grid over the domain of two summarized sides. Automatic
 * (target_cells 0): cubic cells of side s, never thinner than the mean box
 * extent on any axis (thinner cells only enter boxes in more cells), with s
 * such that a cell meets about `occupancy` boxes of the larger side if the
 * boxes were spread evenly (Lo et al. eq. 3: cell area ~ warp size times
 * the mean box area). Else about target_cells cells (exg_grid_choose).
 * False when the domain is empty: then no pair can meet.
 */
bool		exg_box_grid_choose(exg_box_grid *bg, int naxes, const exg_box_summary *a,
								uint32_t na, const exg_box_summary *b, uint32_t nb,
								double occupancy, uint32_t target_cells);

/* Bounds, extents and the first invalid box of a side, on the CPU worker pool. */
void		exg_box_summarize(const exg_box_set *S, int naxes, int threads,
							  exg_box_summary *sum);

/* Merge summary part into sum (part's indices offset by first). */
void		exg_box_summary_merge(exg_box_summary *sum, const exg_box_summary *part,
								  uint64_t first);
void		exg_box_summary_init(exg_box_summary *s);

/* EXG_ERR_ARGUMENT naming box i of a side (0 = A, 1 = B), with err's row and side. */
exg_status	exg_box_invalid(exg_error *err, int side, uint64_t i, const double *box, int naxes);

/* memcpy on the CPU worker pool (staging of pageable input for the GPU). */
void		exg_parallel_memcpy(void *dst, const void *src, size_t bytes, int threads);

/* ---- box_join_cpu.c: the CPU back-end ---- */

/*
 * A filter of meeting pairs, run by the CPU back-end's worker threads (so
 * concurrently, and on threads that must not call back into the caller)
 * on each work unit's pairs before they reach the sink: it keeps the pairs
 * it wants at the front of pairs, in place, and returns how many. It is
 * entered in round-to-nearest and must leave that mode as it found it.
 * The exact joins use it to test candidates where they are found.
 */
typedef size_t (*exg_box_pair_filter) (void *arg, exg_pair *pairs, size_t n);

/* filter may be NULL (every meeting pair goes to the sink). */
exg_status	exg_box_join_cpu(const exg_box_set *A, const exg_box_set *B, int naxes,
							 const exg_join_options *opt, exg_box_pair_filter filter,
							 void *filter_arg, exg_box_pair_sink sink, void *sink_arg,
							 exg_join_stats *stats, exg_error *err);

#ifdef __cplusplus
}
#endif

#endif							/* EXG_BOX_JOIN_INTERNAL_H */
