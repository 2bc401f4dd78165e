/*
 * batch_probe.h — a batch join whose one side is a few rows and whose other
 * side is big bodies already prepared (per-body BVH, geom_prepared.h): each
 * (row, body) pair whose exact boxes meet is tested by the same exact
 * predicate the row-level functions use, on the worker pool, and nothing is
 * flattened or gridded. The pairs are those of exg_batch_join_as for the
 * same rows, in the same order: the row-level predicates and the batch join
 * decide the same closed sets, exactly.
 */
#ifndef EXG_BATCH_PROBE_H
#define EXG_BATCH_PROBE_H

#include <stddef.h>
#include <stdint.h>

#include "exg_status.h"
#include "geom_prepared.h"
#include "join.h"

#ifdef __cplusplus
extern "C" {
#endif

/* What the probe tests per pair (the batch join's modes it can stand for). */
typedef enum exg_probe_predicate
{
	EXG_PROBE_INTERSECTS_3D,	/* exg_intersects_3d: EXG_BATCH_INTERSECTS, 3D */
	EXG_PROBE_INTERSECTS_2D,	/* exg_intersects_2d: EXG_BATCH_INTERSECTS, 2D */
	EXG_PROBE_VOLUMES_LEFT,		/* exg_intersects_solid_3d(left, right):
								 * EXG_BATCH_VOLUMES */
	EXG_PROBE_VOLUMES_RIGHT		/* exg_intersects_solid_3d(right, left):
								 * EXG_BATCH_LOCATE (the left rows points) */
} exg_probe_predicate;

/* One side of a probe join: a prepared geometry per row. */
typedef struct exg_probe_side
{
	exg_prepared *const *rows;	/* not owned; every row non-NULL */
	size_t		n;
	const uint32_t *order;		/* NULL, or each row's place (exg_batch.order) */
} exg_probe_side;

typedef struct exg_probe_stats
{
	uint64_t	box_pairs;		/* (left, right) row pairs whose boxes meet */
	uint64_t	exact_pairs;	/* ... of which GMP decided (an orientation at least) */
	uint64_t	near[2];		/* rows of each side in at least one of them */
	uint64_t	prims[2];		/* primitives of each side's views */
	uint64_t	ready_ns;		/* views and indexes built */
	uint64_t	test_ns;		/* boxes and predicates */
	int			threads;
} exg_probe_stats;

/*
 * Build what the predicate reads of every row of both sides (views, their
 * indexes, 2D areas), on `threads` threads (0: all), so that the tests can
 * run in parallel without building anything; with the volume predicates,
 * judge every non-empty body of the volume side not judged yet
 * (solid_check.h, EXG_SOLID_INSIDE, its self-join run with solid_opt), as
 * the batch join checks every body. A row that fails (an invalid polygon, a
 * non-planar face, a body without a well-defined inside: EXG_ERR_NOT_SOLID
 * with the reason) fails as the batch join would: err->row is 1 + the first
 * such row, err->side its side.
 */
exg_status	exg_probe_ready(const exg_probe_side *L, const exg_probe_side *R,
							exg_probe_predicate pred, int threads,
							const exg_join_options *solid_opt, exg_probe_stats *stats,
							exg_error *err);

/*
 * The row pairs of L and R (made ready by exg_probe_ready) that meet:
 * sorted, each once, packed as (left << 32) | right with rows given by their
 * places where an order is set, as exg_batch_join gives them; malloc'ed.
 */
exg_status	exg_probe_join(const exg_probe_side *L, const exg_probe_side *R,
						   exg_probe_predicate pred, int threads, uint64_t **rows_out,
						   size_t *nrows_out, exg_probe_stats *stats, exg_error *err);

#ifdef __cplusplus
}
#endif

#endif							/* EXG_BATCH_PROBE_H */
