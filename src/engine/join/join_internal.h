/*
 * join_internal.h — pieces of the join shared by the CPU and GPU back-ends,
 * grouped by the file that defines them. The back-ends call these, never
 * the dispatcher (join.c), so the calls between files form no cycle.
 */
#ifndef EXG_JOIN_INTERNAL_H
#define EXG_JOIN_INTERNAL_H

#include "geom_prims.h"
#include "join.h"
#include "join_grid.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- join_setup.c: before a back-end runs ---- */

/*
 * Start a join: opt_in (or the defaults) into *opt; returns the stats to
 * fill, zeroed: stats, or local when stats is NULL.
 */
exg_join_stats *exg_join_begin(exg_join_options *opt, const exg_join_options *opt_in,
							   exg_join_stats *stats, exg_join_stats *local);

/*
 * The back-end of a join: true for the GPU; false for the CPU with *st =
 * EXG_OK, or with *st = EXG_ERR_DEVICE (err says why) when opt asks for the
 * GPU and none is usable: never a silent fallback.
 */
bool		exg_join_picks_gpu(const exg_join_options *opt, exg_status *st, exg_error *err);

/* stats->device_name of a run on the CPU worker pool. */
void		exg_join_name_cpu(exg_join_stats *stats, const exg_join_options *opt);

/* Validate a primitive set before use. */
/* Every vertex index in range (on `threads` threads when there are many; 0 = all). */
exg_status	exg_prim_set_check(const exg_prim_set *S, const char *name, int threads, exg_error *err);

/*
 * exg_join of sets whose every index is known to be in range: a batch's
 * (batch.h), built or checked so once. A join of resident bodies then
 * does not read their indices again each time (6 * 10^7 of them for
 * 2 * 10^7 triangles: 4-6 ms on 16 threads of the H200 machine).
 */
exg_status	exg_join_checked_sets(const exg_prim_set *A, const exg_prim_set *B,
								  const exg_join_options *opt, exg_pair **pairs_out,
								  size_t *npairs_out, exg_join_stats *stats, exg_error *err);

/* Does a join of nprims primitives (both sides) find its candidates with
 * the box join (on the GPU or not)? */
bool		exg_join_culls_by_box_join(const exg_join_options *opt, bool gpu, uint64_t nprims);

/* ---- pair_rows.c ---- */

/*
 * Primitive pairs of A and B into pairs of their rows (exg_prim_set's
 * owner and order), in place, on `threads` threads (0 = all); then sorted,
 * each once: returns their count.
 */
size_t		exg_pairs_to_rows(const exg_prim_set *A, const exg_prim_set *B, exg_pair *pairs, size_t n,
							  int threads);

/* ---- pair_buffer.c ---- */

/* A growable array of pairs, one per worker thread. */
typedef struct exg_pair_buffer
{
	exg_pair   *p;
	size_t		n;
	size_t		cap;
} exg_pair_buffer;

/* Append (a, b); false when out of memory. */
bool		exg_pair_push(exg_pair_buffer *h, uint32_t a, uint32_t b);

/* Make room for `room` more pairs; false when out of memory. */
bool		exg_pair_reserve(exg_pair_buffer *h, size_t room);

/* ---- join_exact.c: exact classification and pair tests ---- */

/*
 * Classify primitive i of S exactly (kind, projection axis, orientation)
 * and compute its box. Assumes upward rounding (exg_round_up_enter).
 */
void		exg_join_classify(const exg_prim_set *S, uint32_t i, exg_prim *out,
							  double *box);

/* Exact closed-set test of two classified primitives. Assumes upward rounding. */
bool		exg_join_pair_meets(const exg_prim_set *A, const exg_prim *pa,
								const exg_prim_set *B, const exg_prim *pb);

/*
 * Decide each pair exactly on the CPU worker pool: result[t] = 1 when they
 * meet. The one CPU loop behind the GPU join's GMP stage and exg_test_pairs.
 */
exg_status	exg_join_decide_pairs(const exg_prim_set *A, const exg_prim_set *B,
								  const exg_pair *pairs, size_t n, int threads,
								  uint8_t *result, exg_error *err);

/*
 * Decide undecided candidate pairs exactly on the CPU worker pool (OpenMP
 * threads; they never call back into the caller). Intersecting ones are
 * written to hits_out (capacity n), their number to *nhits; *exact_pairs
 * (may be NULL): how many of the pairs GMP decided, counted by this call's
 * workers only (so that joins running at once each count their own).
 */
exg_status	exg_join_exact_batch(const exg_prim_set *A, const exg_prim_set *B,
								 const exg_pair *cands, size_t n, int threads,
								 exg_pair *hits_out, size_t *nhits, uint64_t *exact_pairs,
								 exg_error *err);

/* ---- pair_sort.c ---- */

/* Sort pairs by (a, b) and drop repeats; returns the new count. */
size_t		exg_pairs_sort_unique(exg_pair *pairs, size_t n);

/* The same on `threads` worker threads (0: all), as a join's worker_threads. */
size_t		exg_pairs_sort_unique_threads(exg_pair *pairs, size_t n, int threads);

/* ---- the CPU back-ends, called by join.c ---- */

/*
 * exg_join_classify for every primitive of S on the worker pool (join_cpu.c):
 * *prims and *boxes (6 doubles each: low corner, high corner) are malloc'ed,
 * and so is *planes when planes is not NULL (each triangle's plane for the
 * static filter, join_cpu_pair.h; unset for other kinds); the caller frees
 * them also on failure.
 */
struct exg_plane_static;
exg_status	exg_join_classify_all(const exg_prim_set *S, int threads, exg_prim **prims,
								  double **boxes, struct exg_plane_static **planes,
								  exg_error *err);

/* The CPU join with every pair sharing a cell as a candidate (join_cpu.c). */
exg_status	exg_join_cpu(const exg_prim_set *A, const exg_prim_set *B,
						 const exg_join_options *opt, exg_pair **pairs_out,
						 size_t *npairs_out, exg_join_stats *stats, exg_error *err);

/* The CPU join with the box join as its first stage (join_cpu_boxes.c). */
exg_status	exg_join_cpu_boxes(const exg_prim_set *A, const exg_prim_set *B,
							   const exg_join_options *opt, exg_pair **pairs_out,
							   size_t *npairs_out, exg_join_stats *stats, exg_error *err);

#ifdef __cplusplus
}
#endif

#endif							/* EXG_JOIN_INTERNAL_H */
