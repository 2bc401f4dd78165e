/*
 * join_grid.h — the uniform grid of a join, shared by the CPU and the GPU.
 *
 * A primitive is entered in every cell its box meets. The cell of a
 * coordinate is a monotone function of it (subtraction and multiplication by
 * a positive constant round monotonically, then a clamp), so two boxes that
 * meet always share a cell; and the cell of the low corner of their
 * intersection is one of those shared cells. Testing a pair only in that
 * "reference cell" reports it exactly once without a dedupe pass (the
 * reference-point rule of PRI-GC, Lo et al.).
 */
#ifndef EXG_JOIN_GRID_H
#define EXG_JOIN_GRID_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __CUDACC__
#define EXG_HD __host__ __device__ __forceinline__
#else
#define EXG_HD static inline
#endif

#define EXG_GRID_MAX_AXIS 16384

typedef struct exg_grid
{
	double		origin[3];
	double		inv_cell[3];	/* cells per unit length, > 0 */
	int32_t		dims[3];
} exg_grid;

/* Cell coordinate of x on axis k: floor((x - origin) * inv_cell), clamped. */
EXG_HD int32_t
exg_grid_axis(const exg_grid *g, int k, double x)
{
	double		t = (x - g->origin[k]) * g->inv_cell[k];

	if (!(t >= 0))
		return 0;
	if (t >= (double) (g->dims[k] - 1))
		return g->dims[k] - 1;
	return (int32_t) t;
}

EXG_HD uint32_t
exg_grid_cell_id(const exg_grid *g, int32_t i, int32_t j, int32_t k)
{
	return ((uint32_t) k * (uint32_t) g->dims[1] + (uint32_t) j) * (uint32_t) g->dims[0] +
		(uint32_t) i;
}

#ifdef __cplusplus
extern "C" {
#endif

/*
 * Halve the grid's cell counts (axes of more than one cell, extent[k] long)
 * until at most max_cells cells remain: per-cell arrays stay bounded.
 */
void		exg_grid_cap_cells(exg_grid *g, const double *extent, double max_cells);

/*
 * Choose the grid over the joint box: about target_cells cells of a common
 * size, but never cells smaller than the typical primitive (mean box extent),
 * which would only enter each primitive in many cells.
 */
void		exg_grid_choose(exg_grid *g, const double *box, uint64_t nprims,
							const double *mean_extent, uint32_t target_cells);

/*
 * Make g coarser (halving its cells) until its arrays fit in budget bytes:
 * cell_bytes per cell plus entry_bytes per cell a box is entered in, for
 * the boxes of the nsets sets (boxes[s]: n[s] boxes of 2 * naxes doubles,
 * low corner then high corner; extent: the grid's length per axis).
 * Without this a fine grid under large boxes grows without bound: a box
 * is entered in every cell it covers. Also coarser while the boxes average
 * more than 16 cells each (plus 2^16 entries of slack): such a grid only
 * costs. Returns the entries counted for the
 * final grid (saturating). Counts in the caller's rounding mode: an
 * estimate, a cell either way.
 */
uint64_t	exg_grid_fit(exg_grid *g, const double *extent, int naxes,
						 const double *const *boxes, const uint64_t *n, int nsets,
						 double cell_bytes, double entry_bytes, size_t budget, int threads);

/*
 * exg_grid_fit's rule, for callers that count entries themselves (the GPU
 * counts them on the device): true when g with `entries` entries of
 * nboxes boxes fits budget, or has one cell.
 */
bool		exg_grid_fits(const exg_grid *g, double entries, double nboxes,
						  double cell_bytes, double entry_bytes, size_t budget);

#ifdef __cplusplus
}
#endif

#endif							/* EXG_JOIN_GRID_H */
