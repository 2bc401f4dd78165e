/*
 * join.h — red-blue join of two sets of primitives: every pair (a, b), a
 * from A and b from B, whose closed point sets intersect, decided exactly.
 *
 * One entry point for both back-ends. On the GPU (Menezes et al. 2022,
 * chapter 4 of the dissertation, and beyond): a uniform grid as ragged
 * arrays, two-pass box culling with implicit thread-to-pair association,
 * float interval tests, double interval re-tests, and GMP on a CPU worker
 * pool for what is left. On the CPU (OpenMP): the same grid, culling rule
 * and exact cascade. Both return the same pairs, sorted by (a, b), each once.
 */
#ifndef EXG_JOIN_H
#define EXG_JOIN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "exg_status.h"

#ifdef __cplusplus
extern "C" {
#endif

/*
 * Primitives over a vertex array: arity 1 (points), 2 (segments), 3
 * (triangles). Coordinates must be finite (the SQL layer checks them as it
 * reads rows): the box-join first stage refuses others with
 * EXG_ERR_ARGUMENT, and no stage gives meaningful answers for them.
 */
typedef struct exg_prim_set
{
	const double *xyz;			/* 3 doubles per vertex */
	uint32_t	nverts;
	const uint32_t *vidx;		/* arity vertex indices per primitive */
	uint32_t	nprims;
	int			arity;
	/*
	 * A range of a larger set's rows (exg_batch_join_devices): its
	 * primitives read a part of the whole set's vertices, which the GPU
	 * finds from the indices and copies and prepares alone.
	 */
	bool		slice;
	/*
	 * The rows the primitives make (exg_join_options.row_pairs), or NULL:
	 * per primitive its row, never decreasing (a batch's owner), and per
	 * row its place in the results (exg_batch.order), or NULL for the row
	 * itself.
	 */
	const uint32_t *owner;
	const uint32_t *order;
} exg_prim_set;

typedef enum exg_device
{
	EXG_DEVICE_AUTO = 0,		/* the GPU when one is usable, else the CPU */
	EXG_DEVICE_GPU,				/* the GPU or an error */
	EXG_DEVICE_CPU
} exg_device;

typedef enum exg_filter_precision
{
	EXG_FILTER_FLOAT = 0,		/* float intervals first, then double */
	EXG_FILTER_DOUBLE			/* double intervals only */
} exg_filter_precision;

/* How a pair seen in several grid cells is reported once. */
typedef enum exg_dedupe_mode
{
	EXG_DEDUPE_REFERENCE_CELL = 0,	/* test a pair only in the cell of its box
									 * intersection's low corner: no dedupe pass */
	EXG_DEDUPE_SORT					/* test in every shared cell, sort + unique */
} exg_dedupe_mode;

/* How the candidate pairs (pairs whose closed boxes meet) are found. */
typedef enum exg_cull_stage
{
	EXG_CULL_AUTO = 0,			/* the box join where it was measured faster: on
								 * the GPU from 2^20 primitives (join.c) */
	EXG_CULL_CELL_PAIRS,		/* every pair sharing a grid cell, one box test each
								 * (Menezes et al.'s implicit thread-to-pair association) */
	EXG_CULL_BOX_JOIN			/* the box join of box_join.h: a grid per side, work items,
								 * the reference-point rule */
} exg_cull_stage;

typedef struct exg_join_options
{
	exg_device	device;
	exg_filter_precision filter;
	exg_dedupe_mode dedupe;
	uint32_t	grid_cells;		/* target total grid cells; 0 = automatic */
	int			worker_threads; /* CPU threads; 0 = all cores */
	size_t		gpu_memory_limit;	/* bytes the join may take on the GPU; 0 = 80% of free */
	bool		boxes_only;		/* box join: report the pairs whose closed boxes
								 * meet (compared exactly, as doubles), with no
								 * geometric test */
	exg_cull_stage cull;		/* the box join needs the reference-cell rule and
								 * no boxes_only: it falls back to cell pairs */
	bool		unordered;		/* the pairs may come in any order (each still
								 * once): the caller sorts them itself, so the
								 * CPU back-ends skip their sort (exg_batch_join
								 * sorts row pairs once). The GPU orders its hits
								 * on the device either way. */
	size_t		memory_limit;	/* host bytes for grids and cell arrays
								 * (exg_memory_budget); 0 = the default. A
								 * grid finer than fits is made coarser. */
	bool		row_pairs;		/* the pairs are of the sets' rows (their owner
								 * and order), sorted, each once; stats.hits
								 * still counts the primitive pairs. The GPU
								 * maps them on the device. */
} exg_join_options;

#define EXG_JOIN_PHASES 10

typedef enum exg_join_phase
{
	EXG_PHASE_UPLOAD = 0,		/* host to device copies */
	EXG_PHASE_CLASSIFY,			/* primitive kinds, boxes, float vertex intervals */
	EXG_PHASE_GRID,				/* uniform grid build */
	EXG_PHASE_CULL,				/* box culling (count and write passes) */
	EXG_PHASE_TEST,				/* first filter on every candidate */
	EXG_PHASE_REFINE,			/* double interval re-test of the unknowns */
	EXG_PHASE_DEDUPE,			/* sort (+ unique) of the hits */
	EXG_PHASE_DOWNLOAD,			/* device to host copies */
	EXG_PHASE_EXACT,			/* GMP on the CPU worker pool */
	EXG_PHASE_MERGE				/* host side merge and final order */
} exg_join_phase;

typedef struct exg_join_stats
{
	uint64_t	phase_ns[EXG_JOIN_PHASES];
	uint64_t	total_ns;
	uint32_t	grid_dims[3];
	uint64_t	grid_entries;	/* (cell, primitive) entries of both sets */
	uint64_t	cell_pairs;		/* red-blue pairs enumerated in cells */
	uint64_t	candidates;		/* pairs whose boxes meet (after the cell rule) */
	uint64_t	hits;			/* intersecting pairs reported */
	uint64_t	unknown_first;	/* candidates the first filter left undecided */
	uint64_t	unknown_second; /* ... still undecided after double intervals */
	uint64_t	exact_pairs;	/* pairs decided with GMP */
	uint32_t	waves;			/* candidate chunks processed */
	uint32_t	splits;			/* times the input was split to fit the GPU */
	uint64_t	contained;		/* batch joins: row pairs found inside a solid */
	bool		used_gpu;
	uint64_t	gpu_setup_ns;	/* of it, setting the GPU up (context, pinned
								 * buffers): the first GPU join of a process */
	char		device_name[96];
} exg_join_stats;

typedef struct exg_pair
{
	uint32_t	a;
	uint32_t	b;
} exg_pair;

void		exg_join_options_default(exg_join_options *opt);

/*
 * Join A and B. On EXG_OK, *pairs_out holds *npairs_out pairs sorted by
 * (a, b); release it with exg_join_pairs_free (the GPU path lends a pinned
 * buffer). stats may be NULL.
 */
exg_status	exg_join(const exg_prim_set *A, const exg_prim_set *B,
					 const exg_join_options *opt, exg_pair **pairs_out,
					 size_t *npairs_out, exg_join_stats *stats, exg_error *err);

void		exg_join_pairs_free(exg_pair *pairs);

/*
 * Decide given pairs only (no grid, no culling): result[i] = 1 when
 * A[pairs[i].a] and B[pairs[i].b] intersect. The same cascade as the join,
 * on the GPU when opt selects it; used by the GPU differential test.
 */
exg_status	exg_test_pairs(const exg_prim_set *A, const exg_prim_set *B,
						   const exg_pair *pairs, size_t n, const exg_join_options *opt,
						   uint8_t *result, exg_join_stats *stats, exg_error *err);

#ifdef __cplusplus
}
#endif

#endif							/* EXG_JOIN_H */
