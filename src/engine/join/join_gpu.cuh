/*
 * join_gpu.cuh — device-side data of a join and the kernels' host wrappers.
 *
 * Pipeline (all on the GPU; Menezes et al. 2022 §4.2, with the reference-
 * cell rule of Lo et al. instead of a dedupe pass):
 *   vertex box -> vertex records -> primitive classification and boxes ->
 *   grid (count, scan, fill) per side -> per-cell block arrays -> cull count
 *   -> scan -> cull write (per wave) -> float test -> double re-test.
 */
#ifndef EXG_JOIN_GPU_CUH
#define EXG_JOIN_GPU_CUH

#include <stdint.h>
#include <new>
#include <vector>

#include "cancel.h"

#include "gpu_runtime.cuh"
#include "join.h"
#include "join_grid.h"
#include "predicates_gpu.cuh"

#define EXG_CULL_THREADS 256	/* threads per block = pairs per block */

/* Thrown when the caller's cancel callback asks the join to stop. */
struct exg_gpu_canceled
{
};

/* Throw exg_gpu_canceled when the caller has asked to stop. */
inline void
exg_gpu_check_cancel()
{
	if (exg_cancel_requested())
		throw		exg_gpu_canceled();
}

/*
 * The C boundary of a GPU entry point: run body (which returns a status)
 * and turn what it throws into a status and a message in err.
 */
template <typename F>
exg_status
exg_gpu_guard(exg_error *err, const char *what, F &&body)
{
	try
	{
		return body();
	}
	catch (exg_gpu_error &e)
	{
		return exg_fail(err, e.status, "%s", e.message);
	}
	catch (exg_gpu_canceled &)
	{
		return exg_fail(err, EXG_ERR_INTERRUPTED, "canceled");
	}
	catch (exg_gpu_oom &)
	{
		return exg_fail(err, EXG_ERR_DEVICE_MEMORY, "out of GPU memory");
	}
	catch (std::bad_alloc &)
	{
		return exg_fail(err, EXG_ERR_NOMEM, "out of host memory %s", what);
	}
}

/* One input set on the device. */
struct exg_gpu_side
{
	uint32_t	nprims;
	uint32_t	nverts;
	uint32_t	vfirst = 0;		/* vertices below it are read by no primitive:
								 * neither copied nor prepared (exg_prim_set) */
	int			arity;
	const void *host_xyz = nullptr;	/* the input's host arrays: what kept blocks are keyed by */
	const void *host_vidx = nullptr;
	bool		may_keep = false;	/* blocks derived from it may be kept (not a half of a
									 * join split for memory) */
	exg_dbuf<double> xyz;		/* raw input, 3 per vertex */
	exg_dbuf<uint32_t> vidx;	/* raw input, arity per primitive */
	exg_dbuf<exg_gvert> verts;
	exg_dbuf<exg_gprim> prims;
	exg_dbuf<float> boxes;		/* 6 per primitive, translated, rounded outward */
	exg_dbuf<float> normals;	/* 6 per primitive: float enclosure (lo xyz, hi xyz)
								 * of a triangle's (b - a) x (c - a) */
	exg_dbuf<uint32_t> cell_start;	/* ncells + 1 */
	exg_dbuf<uint32_t> cell_items;
	uint64_t	nentries;
};

/* Copy a primitive set to the device; pageable input goes through the
 * pinned ring (exg_gpu_upload_pageable), pinned input is copied as is. */
void		exg_gpu_upload_side(exg_gpu_side &d, const exg_prim_set *S, cudaStream_t s);

/* Joint box of the vertices of both sets: 6 doubles, written to box_d. */
void		exg_gpu_vertex_box(const exg_gpu_side &a, const exg_gpu_side &b, double *box_d,
							   cudaStream_t s);

/* The box of one set's vertices into box_d: made anew (init), or grown. */
void		exg_gpu_vertex_box(const exg_gpu_side &side, double *box_d, bool init,
							   cudaStream_t s);

/* Vertex records and classified primitives with float boxes; adds the sum
 * of primitive box extents (3 doubles) to extent_d. Arrays the side has
 * been lent (exg_gpu_prepare_first) are filled, not allocated. */
void		exg_gpu_prepare_side(exg_gpu_side &side, const double *origin, double *extent_d,
								 cudaStream_t s);

/*
 * The first side of a join, whose box gives the origin: its vertex box into
 * misc_d[0..5] and host_misc[0..5] (zeros for no vertex), the sum of its
 * primitives' extents into misc_d[6..8], origin the box's centre, and its
 * records and primitives prepared. Where its input is kept on the device
 * (the resident bodies) and keep is set, all of that is kept with it: made
 * on the first join, read by the next ones (exg_gpu_kept_derived).
 */
void		exg_gpu_prepare_first(exg_gpu_side &side, bool keep, double *misc_d, double *host_misc,
								  double *origin, cudaStream_t s);

/* Kinds of blocks kept with a side's kept input (exg_gpu_side_keep_key). */
#define EXG_KEPT_PREPARED 1		/* exg_gpu_prepare_first's records */
#define EXG_KEPT_EXACT_BOXES 2	/* exg_gpu_side_exact_boxes', of 2 or 3 axes */
#define EXG_KEPT_BOX_GRID 3		/* the box join's grid of the side alone (join_gpu_boxes.cu) */

/* The key of side's block of kind (its arrays kept on the device), or false. */
bool		exg_gpu_side_keep_key(const exg_gpu_side &side, int kind, int variant, uint64_t key[4]);

/*
 * The exact boxes of side's primitives for the box join (naxes low
 * coordinates, then naxes high ones), into box: made, or lent from the
 * block kept with the side's kept input (made there on first use), and
 * then with their summary for the box join (true).
 */
struct exg_box_summary;
bool		exg_gpu_side_exact_boxes(const exg_gpu_side &side, int naxes, exg_dbuf<double> &box,
									 exg_box_summary *sum, cudaStream_t s);

/*
 * Make g coarser until the sides' grid arrays fit budget device bytes
 * (cell_bytes a cell, entry_bytes an entry; exg_grid_fits), their entries
 * counted on the device: a fine grid (exactgpu.grid_cells) under large
 * primitives would enter each in millions of cells. extent: the grid's
 * length per axis.
 */
void		exg_gpu_grid_fit(const exg_gpu_side *const *sides, int nsides, exg_grid &g,
							 const double *extent, double cell_bytes, double entry_bytes,
							 size_t budget, cudaStream_t s);

/* Ragged array of the side's primitives per grid cell. */
void		exg_gpu_grid_side(exg_gpu_side &side, const exg_grid &g, uint32_t ncells,
							  cudaStream_t s);

/* Per-block arrays: the cell of each block and its first and last pair. */
struct exg_gpu_blocks
{
	uint64_t	nblocks;
	exg_dbuf<uint32_t> cell;
	exg_dbuf<uint32_t> first;
	exg_dbuf<uint32_t> last;
	exg_dbuf<uint64_t> offset;	/* nblocks + 1: exclusive scan of candidate counts */
	exg_dbuf<uint32_t> bits;	/* pass 1's verdicts, one bit per pair (a word per warp) */
	uint64_t	cell_pairs;
};

void		exg_gpu_block_arrays(const exg_gpu_side &a, const exg_gpu_side &b, uint32_t ncells,
								 exg_gpu_blocks &blocks, cudaStream_t s);

/* Pass 1: candidate count per block, then their exclusive scan in blocks.offset. */
void		exg_gpu_cull_count(const exg_gpu_side &a, const exg_gpu_side &b, const exg_grid &g,
							   bool by_reference, exg_gpu_blocks &blocks, cudaStream_t s);

/* Pass 2 for blocks [b0, b1): candidate keys at offset[b] - offset[b0] + rank. */
void		exg_gpu_cull_write(const exg_gpu_side &a, const exg_gpu_side &b, const exg_grid &g,
							   bool by_reference, const exg_gpu_blocks &blocks, uint64_t b0,
							   uint64_t b1, int key_shift, uint64_t *cands, cudaStream_t s);

/*
 * Counters of the test kernels' sparse outputs (device memory): the hits
 * (a running index into them), the first test's unknowns, the second's.
 */
struct exg_gpu_counts
{
	unsigned long long hits;
	unsigned long long unknown;
	unsigned long long unknown2;
};

/*
 * Test candidate keys with the float filter (or the double filter when
 * use_double): intersecting keys are appended to hits at *nhits (while
 * below hits_cap), undecided ones to unknown at *nunknown (capacity n).
 * n_dev: where an earlier kernel left the number of keys (at most n), so
 * that the host need not read it first. No host round trip.
 */
void		exg_gpu_test(const exg_gpu_side &a, const exg_gpu_side &b, const uint64_t *keys,
						 uint64_t n, int key_shift, bool use_double, uint64_t *hits,
						 uint64_t hits_cap, unsigned long long *nhits, uint64_t *unknown,
						 unsigned long long *nunknown, cudaStream_t s, bool boxes_only = false,
						 const unsigned long long *n_dev = nullptr);

/*
 * The tests of candidate keys, wave after wave (a wave at most
 * unknown.n keys): the float filter (or the double one), double intervals
 * for its unknowns, intersecting keys appended to hits (grown when full),
 * the keys still undecided collected on the host for GMP
 * (join_gpu_tester.cu). One host round trip per wave: both filters are
 * queued at once, the second finding the first's count on the device.
 */
struct exg_gpu_tester
{
	const exg_gpu_side &a;
	const exg_gpu_side &b;
	int			shift;
	bool		double_only;
	bool		boxes_only;
	cudaStream_t s;
	exg_dbuf<uint64_t> hits;
	uint64_t	nhits = 0;
	exg_dbuf<uint64_t> unknown;
	exg_dbuf<exg_gpu_counts> counts_d;
	exg_gpu_counts *counts_h;	/* pinned */
	std::vector<uint64_t> undecided;
	uint64_t	unknown_first = 0;
	uint64_t	unknown_second = 0;
	uint64_t	test_ns = 0;
	uint64_t	refine_ns = 0;
	cudaEvent_t refine_ev[2] = {nullptr, nullptr};	/* around the second filter */

	exg_gpu_tester(const exg_gpu_side &a_, const exg_gpu_side &b_, int shift_,
				   const exg_join_options *opt, uint64_t hits_cap, uint64_t wave_cap,
				   exg_gpu_counts *pinned_counts, cudaStream_t s_);
	~exg_gpu_tester();
	exg_gpu_tester(const exg_gpu_tester &) = delete;
	exg_gpu_tester &operator=(const exg_gpu_tester &) = delete;
	void		test(const uint64_t *keys, uint64_t n);
};

/*
 * The first stage by the box join (box_join.h): the primitives' exact
 * boxes (2 axes when every vertex has the same z) joined on the device,
 * each chunk of meeting pairs tested in place by t, in waves. Fills the
 * grid and candidate counts of st and its GRID and CULL phases (the box
 * join's time outside t). Throws exg_gpu_oom when memory_limit is short.
 */
void		exg_gpu_box_stage(const exg_gpu_side &a, const exg_gpu_side &b, bool flat,
							  const exg_join_options *opt, size_t memory_limit,
							  exg_gpu_tester &t, exg_join_stats *st);

#endif							/* EXG_JOIN_GPU_CUH */
