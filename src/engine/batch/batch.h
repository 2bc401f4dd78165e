/*
 * batch.h — many geometries flattened into one primitive set for a join.
 *
 * Every geometry (row) becomes primitives over a shared vertex array, each
 * tagged with its row: triangles as they are, segments and points as
 * triangles with repeated vertices (the exact classification turns those
 * back into segments and points). A 3D batch takes the 3D view of each
 * geometry (polygon faces triangulated exactly); a 2D batch flattens it to
 * z = 0 with polygons triangulated in the plane, so that the 3D join of two
 * 2D batches is exactly the 2D intersection of the areas and lines.
 */
#ifndef EXG_BATCH_H
#define EXG_BATCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "exg_status.h"
#include "geom_prims.h"
#include "geom_shape.h"
#include "join.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct exg_batch
{
	int			naxes;			/* 3 or 2 */
	exg_nonplanar_policy policy;
	double	   *xyz;
	size_t		nverts;
	size_t		verts_cap;
	/*
	 * Every way of making a batch builds these so or checks them (a
	 * borrowed one's are checked where it is borrowed): every index below
	 * nverts, and owners never decreasing (a row's primitives together, in
	 * row order). Joins rely on both and do not check them again.
	 */
	uint32_t   *tri;			/* 3 vertex indices per primitive */
	uint32_t   *owner;			/* row of each primitive */
	uint8_t    *solid;			/* per row: a volume (exg_batch_set_volumes) */
	size_t		solid_cap;
	size_t		nsolid;			/* rows that are volumes */
	size_t		nrows_z;		/* non-empty rows with Z */
	size_t		nrows_flat;		/* non-empty rows without Z */
	size_t		nprims;
	size_t		prims_cap;
	size_t		nrows;			/* rows added, empty ones included */
	const uint32_t *order;		/* set by the caller, or NULL: per row, its place
								 * in the order of the results (rows with the same
								 * place are one row there); not owned */
	bool		slice;			/* a view of a range of another batch's rows
								 * (exg_prim_set's slice) */
	bool		borrowed;		/* xyz, tri and owner are the caller's
								 * (exg_batch_borrow) */
} exg_batch;

void		exg_batch_init(exg_batch *b, int naxes, exg_nonplanar_policy policy);
void		exg_batch_free(exg_batch *b);

/* Do these counts fit a batch (the joins number vertices and primitives in 32 bits)? */
static inline bool
exg_batch_counts_fit(size_t nverts, size_t nprims, size_t nrows)
{
	return nverts < UINT32_MAX && nprims < UINT32_MAX && nrows < UINT32_MAX - 1;
}

/*
 * The first primitive whose vertex index (< nverts) or owner (< nrows,
 * never decreasing) breaks the rules above, on `threads` threads (0 = all);
 * SIZE_MAX when none does. The borrows check with it.
 */
size_t		exg_batch_arrays_first_bad(const uint32_t *tri, const uint32_t *owner, size_t nprims,
									   size_t nverts, size_t nrows, int threads);

/*
 * Check a batch against the rules above, its counts within a batch's
 * limits: what exg_batch_borrow_arrays takes on trust, for arrays another
 * process wrote (the GPU service's requests).
 */
exg_status	exg_batch_check(const exg_batch *b, int threads, exg_error *err);

/* Empty b, keeping its buffers (a reader flattening one row after another). */
void		exg_batch_reset(exg_batch *b);

/* Copy a borrowed batch's arrays into b's own (exg_batch_borrow); no-op otherwise. */
exg_status	exg_batch_own(exg_batch *b, exg_error *err);

/* Room for nv vertices, np primitives and nr rows in all (bulk appends). */
exg_status	exg_batch_reserve(exg_batch *b, size_t nv, size_t np, size_t nr, exg_error *err);

/* Add the primitives of one geometry as row b->nrows (then b->nrows++). */
exg_status	exg_batch_add(exg_batch *b, const exg_shape *s, exg_error *err);

/*
 * Add one serialized geometry (PostGIS bytes without the varlena header) as
 * row b->nrows: the same batch and the same errors as exg_gserialized_read
 * into a shape and exg_batch_add, but the simple geometries (TIN, TRIANGLE,
 * (MULTI)LINESTRING, (MULTI)POINT: most join inputs) are flattened straight
 * from the bytes, in 3D and 2D batches alike. scratch is a shape
 * (exg_shape_init'ed, reused from row to row, freed by the caller) for the
 * others; a read error leaves b unchanged, as exg_batch_add is then not
 * called.
 */
exg_status	exg_batch_add_serialized(exg_batch *b, const uint8_t *data, size_t size,
									 exg_shape *scratch, exg_error *err);

/*
 * Serialized geometries (PostGIS bytes without the varlena header), as a
 * reader collects them: row i is data[off[i] .. off[i + 1]).
 */
typedef struct exg_row_bytes
{
	const uint8_t *data;
	const size_t *off;			/* n + 1 offsets */
	size_t		n;
} exg_row_bytes;

/*
 * Parse the rows and add each as exg_batch_add would, in row order, on
 * `threads` CPU threads (0 = all). On failure err->row is 1 + the first
 * row that failed (the one a sequential reading would have reported).
 */
exg_status	exg_batch_add_rows(exg_batch *b, const exg_row_bytes *rows, int threads,
							   exg_error *err);

/*
 * One row already flattened elsewhere (by a parallel reader process): its
 * vertices, and 3 indices into them per primitive, as exg_batch_add made
 * them for a batch holding only this row.
 */
typedef struct exg_flat_row
{
	const double *xyz;
	const uint32_t *tri;
	size_t		nverts;
	size_t		nprims;
	uint8_t		solid;
	uint8_t		dims;			/* 0: empty; 2 or 3: read without or with Z (the
								 * batch's nrows_flat / nrows_z count it) */
} exg_flat_row;

/*
 * Append flattened rows to b as rows b->nrows, b->nrows + 1, ... in order:
 * the result equals exg_batch_add of each row's geometry. The arrays are
 * sized once and filled on `threads` threads (0 = all; the caller picks 1
 * for small inputs), so a reader that flattened rows in parallel pays one
 * copy at memory speed, not a serial concatenation. Indices are checked
 * against their row's vertex count; on error b is unchanged.
 */
exg_status	exg_batch_append_flat(exg_batch *b, const exg_flat_row *rows, size_t n, int threads,
								  exg_error *err);

/*
 * Rows laid out in place by the caller (the parallel read's reader
 * processes write them straight into shared memory, at the places a prefix
 * sum gave them, so that no process gathers them again): b, empty, takes
 * n rows over xyz (nverts), tri and owner (nprims) without copying them.
 * rows[i] gives row i's counts, solid flag and dims (its pointers are not
 * read). The arrays stay the caller's, alive until exg_batch_free, which
 * leaves them; b copies them before anything is added to it. Fails if the
 * counts disagree or an index or owner is out of range (checked on
 * `threads` threads); b is then unchanged.
 */
exg_status	exg_batch_borrow(exg_batch *b, double *xyz, size_t nverts, uint32_t *tri,
							 uint32_t *owner, size_t nprims, const exg_flat_row *rows, size_t n,
							 int threads, exg_error *err);

/*
 * The exact box of each row: lo then hi (naxes doubles each) at
 * box[2 * naxes * i]; has_box[i] = 0 for an empty geometry. Same threads
 * and error rules as exg_batch_add_rows.
 */
exg_status	exg_rows_boxes(const exg_row_bytes *rows, int naxes, int threads, double *box,
						   uint8_t *has_box, exg_error *err);

/* Is every primitive of b a point (a batch of samples)? */
bool		exg_batch_only_points(const exg_batch *b);

/* The batch as a primitive set (arity 3), valid while b is unchanged. */
exg_prim_set exg_batch_prims(const exg_batch *b);

/*
 * Make every row of a 3D batch a volume in exg_batch_join: the closed body
 * its surface bounds. Rows are surfaces until then, whatever PostGIS's
 * solid flag says (it does not survive text, WKB or pg_dump).
 */
void		exg_batch_set_volumes(exg_batch *b);

/*
 * Join two batches: the row pairs (left row, right row) that intersect,
 * each once, sorted; packed as (left << 32) | right, malloc'ed. Rows are
 * given by their places in the batches' order where it is set: the pairs
 * are sorted once, in that order, and rows sharing a place count once. A
 * volume row (exg_batch_set_volumes) must be a closed surface
 * (EXG_ERR_NOT_SOLID, a row that is no surface too, with err->row/side); rows of the other side lying inside it (found by locating
 * one vertex of each primitive) intersect it too; stats->contained counts
 * those pairs.
 */
exg_status	exg_batch_join(const exg_batch *L, const exg_batch *R,
						   const exg_join_options *opt, uint64_t **rows_out,
						   size_t *nrows_out, exg_join_stats *stats, exg_error *err);

/*
 * Point-in-solid join of batches: (point row, body row) for every point of
 * P inside or on the closed surface of a row of B, each once, sorted, packed
 * as in exg_batch_join. P's primitives must all be points; B's rows must be
 * closed surfaces (flagged solid or not).
 */
exg_status	exg_batch_locate(const exg_batch *P, const exg_batch *B,
							 const exg_join_options *opt, uint64_t **rows_out,
							 size_t *nrows_out, exg_join_stats *stats, exg_error *err);

/*
 * The same join with the bodies on the left: pairs (body row, point row),
 * sorted once in that order (a volume join whose other side is points);
 * err->side names the side as given here.
 */
exg_status	exg_batch_locate_in(const exg_batch *B, const exg_batch *P,
								const exg_join_options *opt, uint64_t **rows_out,
								size_t *nrows_out, exg_join_stats *stats,
								exg_error *err);

/* What a batch join computes (exg_batch_join_as). */
typedef enum exg_batch_join_mode
{
	EXG_BATCH_INTERSECTS,		/* rows whose geometries meet, surfaces as surfaces */
	EXG_BATCH_VOLUMES,			/* the left rows are closed bodies taken as volumes */
	EXG_BATCH_LOCATE			/* points (left) in closed bodies (right) */
} exg_batch_join_mode;

/*
 * The batch join of a mode, with the join chosen here once: a volume join
 * whose right side is only points is the point-in-solid join (a point meets
 * a volume iff it is inside or on), which needs no primitive join
 * (exg_batch_locate_in); any other volume join marks L's rows as volumes
 * (exg_batch_set_volumes) and runs exg_batch_join. Pairs, errors and
 * stats as those functions give them.
 */
exg_status	exg_batch_join_as(exg_batch *L, const exg_batch *R, exg_batch_join_mode mode,
							  const exg_join_options *opt, uint64_t **rows_out,
							  size_t *nrows_out, exg_join_stats *stats, exg_error *err);

/*
 * exg_batch_join_as over several devices at once (batch_devices.c): one
 * side's rows cut into nchunks ranges of about equal primitives (whole
 * rows), range c joined against the whole other side on a thread of its
 * own bound to GPU devices[c] (exg_gpu_thread_bind; a device may repeat,
 * e.g. {0, 0} for two concurrent ranges on one GPU; a device < 0 joins that
 * range on the CPU), all ranges at once, each with its share of
 * opt->worker_threads. The ranges' row pairs are merged into exactly the
 * pairs, in exactly the order, exg_batch_join_as(L, R, mode) gives.
 *
 * split_side: 0 cuts L, 1 cuts R, anything else the side with more
 * primitives, or in an intersects join on GPUs the other one when that
 * side is kept on the devices (each keeps it prepared whole, see
 * exg_gpu_kept_derived), then in two ranges per listed device when
 * two are listed (device c runs ranges c and c + nchunks; more ranges
 * than four were slower). Keep the side that is not cut on the devices
 * (exg_gpu_keep) and it is uploaded once per device, not once per join;
 * a cut side kept there is not uploaded either (each range is a slice of
 * it).
 *
 * The calling thread's cancel source (cancel.h) is every range's. Errors
 * are exg_batch_join_as's: when a range fails (other than by a cancel) the
 * whole join runs again on devices[0] and its error is returned, so that
 * the row named is the one a single join names. Without a usable GPU a
 * range's bind fails with EXG_ERR_DEVICE ("no device": fall back).
 * stats: the ranges' counters and phases summed (hits, as the whole
 * join's, the primitive or located pairs: each is found in one range),
 * total_ns the wall time,
 * device_name "<k> ranges: <device>"; chunk_stats (nchunks entries, or
 * NULL): entry c the ranges of devices[c] (each range's own where one per
 * device), total_ns the longest wall time of them on its thread (entries
 * past the ranges actually run are zero).
 */
exg_status	exg_batch_join_devices(exg_batch *L, const exg_batch *R, exg_batch_join_mode mode,
								   const int *devices, int nchunks, int split_side,
								   const exg_join_options *opt, uint64_t **rows_out,
								   size_t *nrows_out, exg_join_stats *stats,
								   exg_join_stats *chunk_stats, exg_error *err);

#ifdef __cplusplus
}
#endif

#endif							/* EXG_BATCH_H */
