/*
 * locate_join.h — batch point-in-solid: which points lie in which closed
 * bodies (inside or on the boundary), decided exactly.
 *
 * Each point casts the upward ray of locate_logic.h (symbolic perturbation,
 * no retries) through a uniform 2D grid of columns over the bodies'
 * triangles; crossings are counted per body, mod 2. On the GPU a thread
 * takes a point and walks its column's triangles (sorted, so one body's
 * triangles come together) with float interval signs, then double ones;
 * a (point, body) pair still undecided is settled on the CPU with GMP,
 * over the same column. The CPU back-end runs the same walk with exact signs.
 */
#ifndef EXG_LOCATE_JOIN_H
#define EXG_LOCATE_JOIN_H

#include <stdint.h>

#include "exg_status.h"
#include "join.h"
#include "join_grid.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Closed bodies: triangles with the body of each, bodies numbered 0 .. n-1. */
typedef struct exg_solid_set
{
	exg_prim_set tris;			/* arity 3 */
	const uint32_t *body;		/* non-decreasing, < nbodies */
	uint32_t	nbodies;
} exg_solid_set;

/*
 * Every (point, body) with the point inside the body or on its surface, as
 * pairs (a = point, b = body) sorted, each once. Points are 3 doubles each.
 * Every body must be closed (each edge used by an even number of its
 * triangles): EXG_ERR_INVALID otherwise, naming the body. Release the pairs
 * with exg_join_pairs_free. In the stats, candidates counts (point, triangle)
 * tests past the box check, exact_pairs the (point, body) pairs settled
 * with GMP (on the GPU, of those the device left undecided: unknown_second).
 */
exg_status	exg_locate_join(const double *pts, uint32_t npts, const exg_solid_set *S,
							const exg_join_options *opt, exg_pair **pairs_out,
							size_t *npairs_out, exg_join_stats *stats, exg_error *err);

/*
 * exg_locate_join of bodies whose indices and body ids the caller vouches
 * for: a batch's (batch.h), read once where it was made; the bodies are
 * still checked as solids (exg_solid_set_check).
 */
exg_status	exg_locate_join_checked_sets(const double *pts, uint32_t npts,
										 const exg_solid_set *S,
										 const exg_join_options *opt, exg_pair **pairs_out,
										 size_t *npairs_out, exg_join_stats *stats,
										 exg_error *err);

/* ---- the CPU back-end (locate_join_cpu.c), which the GPU's shares ---- */

/* exg_locate_join on the CPU worker pool, after the entry point's checks. */
exg_status	exg_locate_cpu(const double *pts, uint32_t npts, const exg_solid_set *S,
						   const exg_join_options *opt, exg_pair **pairs_out,
						   size_t *npairs_out, exg_join_stats *stats, exg_error *err);

/* The column grid over the triangles' xy box (dims[2] = 1), in coordinates
 * translated by origin (which the GPU uses; the CPU passes zeros). */
void		exg_locate_grid(exg_grid *g, const double *box, const double *mean_extent,
							uint64_t ntris, uint32_t target_cells);

/*
 * Settle pairs exactly: for each (point, body) in pairs, walk the column
 * items[cell_start[c] .. cell_start[c+1]) of the point's cell (the point
 * translated by origin) and keep the pair when the point is in the body.
 * Kept pairs are written to out (capacity n), their number to *nout, the
 * number of pairs that needed GMP to *gmp_pairs.
 */
exg_status	exg_locate_exact_pairs(const double *pts, const exg_solid_set *S,
								   const exg_grid *g, const double *origin,
								   const uint32_t *cell_start, const uint32_t *items,
								   const exg_pair *pairs, size_t n, int threads,
								   exg_pair *out, size_t *nout, uint64_t *gmp_pairs,
								   exg_error *err);

#ifdef __cplusplus
}
#endif

#endif							/* EXG_LOCATE_JOIN_H */
