/*
 * locate_join_gpu.cu — batch point-in-solid on the GPU: the bodies' triangles in
 * a 2D grid of columns (count, scan, fill, then each column sorted so one
 * body's triangles come together), one thread per point walking its column
 * with the upward-ray logic of locate_logic.h in float intervals, then in
 * double intervals; (point, body) pairs still undecided go to the CPU's
 * exact walk over the same column. Points are processed in launches of a
 * bounded size, with a cancel check between launches; when the device runs
 * out of memory the points are split in halves.
 */
#include <cub/cub.cuh>
#include <algorithm>
#include <vector>

#include "cancel.h"
#include "gpu.h"
#include "join_gpu.cuh"
#include "locate_join.h"
#include "memory_budget.h"
#include "stats.h"

#define LOCATE_THREADS 128
#define LOCATE_LAUNCH_POINTS (1u << 22)
#define POINT_FLOAT_SAFE 1099511627776.0	/* 2^40, as for primitives */
#define POINT_DOUBLE_SAFE 2.037035976334486e90	/* 2^300 */

struct locate_counts
{
	unsigned long long hits;
	unsigned long long unknown;
	unsigned long long tests;
};

struct locate_inputs
{
	const exg_gvert *pts;
	const exg_gvert *verts;
	const exg_gprim *prims;
	const float *boxes;
	const uint32_t *body;
	const uint32_t *cell_start;
	const uint32_t *items;
	exg_grid	g;
	double		origin[2];
	bool		double_only;
};

template <typename S>
__device__ __forceinline__ void
load_tri(const exg_gvert *verts, const exg_gprim &P, S *sx)
{
	sx->kind = P.kind;
	sx->k = P.k;
	sx->s = P.s;
	sx->v[0] = &verts[P.v[0]];
	sx->v[1] = &verts[P.v[1]];
	sx->v[2] = &verts[P.v[2]];
}

/* One triangle's EXG_RAY_* verdict for point p: float, then double signs. */
__device__ __forceinline__ int
ray_verdict(const locate_inputs &in, const exg_gvert *p, bool p_float_ok, bool p_double_ok,
			const exg_gprim &P)
{
	int			r = EXG_RAY_UNKNOWN;

	if (P.flags & EXG_GPRIM_UNCLASSIFIED)
		return r;
	if (!in.double_only && p_float_ok && (P.flags & EXG_GPRIM_FLOAT_OK))
	{
		gpuf_simplex sx;

		load_tri(in.verts, P, &sx);
		r = gpuf_ray_simplex(p, &sx);
	}
	if (r == EXG_RAY_UNKNOWN && p_double_ok && (P.flags & EXG_GPRIM_DOUBLE_OK))
	{
		gpud_simplex sx;

		load_tri(in.verts, P, &sx);
		r = gpud_ray_simplex(p, &sx);
	}
	return r;
}

__device__ __forceinline__ void
emit(uint64_t *buf, unsigned long long *count, uint64_t cap, uint32_t point, uint32_t body)
{
	unsigned long long slot = atomicAdd(count, 1ull);

	if (slot < cap)
		buf[slot] = ((uint64_t) point << 32) | body;
}

__global__ static void
__launch_bounds__(LOCATE_THREADS)
k_locate(locate_inputs in, uint32_t p0, uint32_t p1, uint64_t *hits, uint64_t *unknown,
		 uint64_t cap, locate_counts *counts)
{
	uint32_t	i = p0 + blockIdx.x * blockDim.x + threadIdx.x;

	if (i >= p1)
		return;
	const exg_gvert *p = &in.pts[i];
	float		plo[3],
				phi[3];
	bool		f_ok = true,
				d_ok = true;

	for (int k = 0; k < 3; k++)
	{
		plo[k] = p->lo[k];
		phi[k] = p->hi[k];
		f_ok &= fabsf(plo[k]) <= (float) POINT_FLOAT_SAFE && fabsf(phi[k]) <= (float) POINT_FLOAT_SAFE;
		d_ok &= fabs(p->c[k]) <= POINT_DOUBLE_SAFE;
	}
	uint32_t	c = exg_grid_cell_id(&in.g, exg_grid_axis(&in.g, 0, p->c[0] - in.origin[0]),
									 exg_grid_axis(&in.g, 1, p->c[1] - in.origin[1]), 0);
	uint32_t	e0 = in.cell_start[c],
				e1 = in.cell_start[c + 1];
	uint32_t	cur = 0xffffffffu;
	int			parity = 0,
				on = 0,
				unk = 0;
	unsigned long long tests = 0;

	for (uint32_t e = e0; e <= e1; e++)
	{
		uint32_t	t = e < e1 ? in.items[e] : 0xffffffffu;
		uint32_t	b = e < e1 ? in.body[t] : 0xffffffffu;

		if (b != cur)
		{
			if (cur != 0xffffffffu)
			{
				if (on || (parity && !unk))
					emit(hits, &counts->hits, cap, i, cur);
				else if (unk)
					emit(unknown, &counts->unknown, cap, i, cur);
			}
			cur = b;
			parity = on = unk = 0;
		}
		if (e == e1 || on)
			continue;
		const float *bx = &in.boxes[6 * (size_t) t];

		/* closed xy box, and the triangle not wholly below p */
		if (phi[0] < bx[0] || plo[0] > bx[3] || phi[1] < bx[1] || plo[1] > bx[4] || plo[2] > bx[5])
			continue;
		tests++;
		int			r = ray_verdict(in, p, f_ok, d_ok, in.prims[t]);

		if (r == EXG_RAY_ON)
			on = 1;
		else if (r == EXG_RAY_CROSS)
			parity ^= 1;
		else if (r == EXG_RAY_UNKNOWN)
			unk = 1;
	}
	if (tests)
		atomicAdd(&counts->tests, tests);
}

/* Sort each column's items (a segmented sort): one body's triangles together. */
static void
sort_columns(exg_gpu_side &tris, uint32_t ncells, cudaStream_t s)
{
	exg_dbuf<uint32_t> sorted(tris.nentries);
	exg_dbuf<uint8_t> tmp;
	size_t		bytes = 0;

	if (tris.nentries == 0)
		return;
	EXG_CUDA(cub::DeviceSegmentedSort::SortKeys(nullptr, bytes, tris.cell_items.p, sorted.p,
												(int) tris.nentries, (int) ncells,
												tris.cell_start.p, tris.cell_start.p + 1, s));
	tmp.alloc(bytes);
	EXG_CUDA(cub::DeviceSegmentedSort::SortKeys(tmp.p, bytes, tris.cell_items.p, sorted.p,
												(int) tris.nentries, (int) ncells,
												tris.cell_start.p, tris.cell_start.p + 1, s));
	std::swap(tris.cell_items.p, sorted.p);
	std::swap(tris.cell_items.n, sorted.n);
}

static void
sort_keys(exg_dbuf<uint64_t> &keys, uint64_t n, cudaStream_t s)
{
	exg_dbuf<uint64_t> out(n);
	exg_dbuf<uint8_t> tmp;
	size_t		bytes = 0;

	if (n < 2)
		return;
	EXG_CUDA(cub::DeviceRadixSort::SortKeys(nullptr, bytes, keys.p, out.p, (int) n, 0, 64, s));
	tmp.alloc(bytes);
	EXG_CUDA(cub::DeviceRadixSort::SortKeys(tmp.p, bytes, keys.p, out.p, (int) n, 0, 64, s));
	std::swap(keys.p, out.p);
	std::swap(keys.n, out.n);
}

static uint64_t
elapsed(uint64_t &t0, cudaStream_t s)
{
	EXG_CUDA(cudaStreamSynchronize(s));
	uint64_t	now = exg_now_ns(),
				d = now - t0;

	t0 = now;
	return d;
}

/* The whole location of points [0, npts) on the device; pairs appended to out. */
static void
run_locate(const double *pts, uint32_t npts, const exg_solid_set *S, const exg_join_options *opt,
		   std::vector<exg_pair> &out, exg_join_stats *st)
{
	exg_gpu_context *ctx = exg_gpu_context_get();
	cudaStream_t s = ctx->stream;
	uint64_t	t0 = exg_now_ns();
	exg_prim_set P = {pts, npts, nullptr, 0, 1};
	exg_gpu_side tris,
				points,
				none;
	exg_dbuf<uint32_t> body;

	snprintf(st->device_name, sizeof(st->device_name), "%s", ctx->name);
	exg_gpu_upload_side(tris, &S->tris, s);
	exg_gpu_upload_side(points, &P, s);
	exg_gpu_upload_array(body, S->body, S->tris.nprims, s);
	st->phase_ns[EXG_PHASE_UPLOAD] += elapsed(t0, s);

	/* origin at the bodies' centre; vertex records and classified triangles */
	exg_dbuf<double> misc(9);
	double	   *host = (double *) exg_pinned_get(EXG_PINNED_DOWNLOAD, 4096);
	double		origin[3],
				gbox[6],
				mean[3];

	none.nverts = 0;
	exg_gpu_vertex_box(tris, none, misc.p, s);
	EXG_CUDA(cudaMemsetAsync(misc.p + 6, 0, 3 * sizeof(double), s));
	EXG_CUDA(cudaMemcpyAsync(host, misc.p, 6 * sizeof(double), cudaMemcpyDeviceToHost, s));
	EXG_CUDA(cudaStreamSynchronize(s));
	for (int k = 0; k < 3; k++)
		origin[k] = host[k] + (host[3 + k] - host[k]) / 2;
	exg_gpu_prepare_side(tris, origin, misc.p + 6, s);
	exg_gpu_prepare_side(points, origin, misc.p + 6, s);
	EXG_CUDA(cudaMemcpyAsync(host + 6, misc.p + 6, 3 * sizeof(double), cudaMemcpyDeviceToHost, s));
	st->phase_ns[EXG_PHASE_CLASSIFY] += elapsed(t0, s);

	/* the column grid */
	for (int k = 0; k < 3; k++)
	{
		gbox[k] = host[k] - origin[k];
		gbox[3 + k] = host[3 + k] - origin[k];
		mean[k] = host[6 + k] / (double) S->tris.nprims;
	}
	exg_grid	g;

	exg_locate_grid(&g, gbox, mean, S->tris.nprims, opt->grid_cells);
	{
		/*
		 * Columns within a quarter of the device budget (start, count
		 * scratch, the sort's offsets; an entry and its sorted copy), and
		 * within the host budget, where the columns are copied when pairs
		 * are left to GMP.
		 */
		const exg_gpu_side *sides[1] = {&tris};
		double		extent[3] = {gbox[3] - gbox[0], gbox[4] - gbox[1], 0};
		size_t		budget = std::min(exg_gpu_budget(opt->gpu_memory_limit) / 4,
									  exg_memory_budget(opt->memory_limit));

		exg_gpu_grid_fit(sides, 1, g, extent, 12, 8, budget, s);
	}
	uint32_t	ncells = (uint32_t) g.dims[0] * (uint32_t) g.dims[1];

	memcpy(st->grid_dims, g.dims, sizeof(g.dims));
	exg_gpu_grid_side(tris, g, ncells, s);
	sort_columns(tris, ncells, s);
	st->grid_entries += tris.nentries;
	st->phase_ns[EXG_PHASE_GRID] += elapsed(t0, s);
	exg_gpu_check_cancel();

	/* walk the columns, in launches; grow the outputs and redo on overflow */
	locate_inputs in = {points.verts.p, tris.verts.p, tris.prims.p, tris.boxes.p, body.p,
						tris.cell_start.p, tris.cell_items.p, g, {origin[0], origin[1]},
						opt->filter == EXG_FILTER_DOUBLE};
	uint64_t	cap = std::max<uint64_t>(npts, 1u << 16);
	exg_dbuf<uint64_t> hits(cap),
				unknown(cap);
	exg_dbuf<locate_counts> counts_d(1);
	locate_counts counts;

	for (;;)
	{
		EXG_CUDA(cudaMemsetAsync(counts_d.p, 0, sizeof(locate_counts), s));
		for (uint32_t p0 = 0; p0 < npts; p0 += LOCATE_LAUNCH_POINTS)
		{
			uint32_t	p1 = std::min<uint64_t>((uint64_t) p0 + LOCATE_LAUNCH_POINTS, npts);

			k_locate<<<(p1 - p0 + LOCATE_THREADS - 1) / LOCATE_THREADS, LOCATE_THREADS, 0, s>>>(
				in, p0, p1, hits.p, unknown.p, cap, counts_d.p);
			EXG_CUDA(cudaGetLastError());
			EXG_CUDA(cudaStreamSynchronize(s));
			exg_gpu_check_cancel();
		}
		EXG_CUDA(cudaMemcpy(&counts, counts_d.p, sizeof(counts), cudaMemcpyDeviceToHost));
		if (counts.hits <= cap && counts.unknown <= cap)
			break;
		cap = std::max(counts.hits, counts.unknown);
		hits.alloc(cap);
		unknown.alloc(cap);
	}
	st->candidates += counts.tests;
	st->unknown_second += counts.unknown;
	st->phase_ns[EXG_PHASE_TEST] += elapsed(t0, s);

	sort_keys(hits, counts.hits, s);
	st->phase_ns[EXG_PHASE_DEDUPE] += elapsed(t0, s);

	/* download: sorted hits, and the undecided pairs with the grid they need */
	size_t		base = out.size();
	std::vector<uint64_t> unk_keys(counts.unknown);

	out.resize(base + counts.hits);
	static_assert(sizeof(exg_pair) == 8, "pairs are 8 bytes");
	EXG_CUDA(cudaMemcpyAsync(out.data() + base, hits.p, 8 * counts.hits, cudaMemcpyDeviceToHost, s));
	if (counts.unknown)
		EXG_CUDA(cudaMemcpyAsync(unk_keys.data(), unknown.p, 8 * counts.unknown,
								 cudaMemcpyDeviceToHost, s));
	std::vector<uint32_t> cell_start, items;

	if (counts.unknown)
	{
		cell_start.resize((size_t) ncells + 1);
		items.resize(tris.nentries);
		EXG_CUDA(cudaMemcpyAsync(cell_start.data(), tris.cell_start.p, 4 * ((size_t) ncells + 1),
								 cudaMemcpyDeviceToHost, s));
		EXG_CUDA(cudaMemcpyAsync(items.data(), tris.cell_items.p, 4 * tris.nentries,
								 cudaMemcpyDeviceToHost, s));
	}
	st->phase_ns[EXG_PHASE_DOWNLOAD] += elapsed(t0, s);
	/* keys are (point << 32 | body): as little-endian pairs that is (b, a) */
	for (size_t i = base; i < out.size(); i++)
		std::swap(out[i].a, out[i].b);

	if (counts.unknown)
	{
		std::vector<exg_pair> cand(counts.unknown),
					kept(counts.unknown);
		size_t		nkept = 0;
		uint64_t	gmp = 0;
		exg_error	err = {};

		for (size_t i = 0; i < counts.unknown; i++)
			cand[i] = {(uint32_t) (unk_keys[i] >> 32), (uint32_t) unk_keys[i]};
		if (exg_locate_exact_pairs(pts, S, &g, origin, cell_start.data(), items.data(), cand.data(),
								   cand.size(), opt->worker_threads, kept.data(), &nkept, &gmp,
								   &err) != EXG_OK)
		{
			exg_gpu_error e;

			e.status = err.status;
			snprintf(e.message, sizeof(e.message), "%s", err.message);
			throw		e;
		}
		st->exact_pairs += gmp;
		out.insert(out.end(), kept.begin(), kept.begin() + nkept);
		std::sort(out.begin() + base, out.end(), [](const exg_pair &x, const exg_pair &y) {
			return x.a != y.a ? x.a < y.a : x.b < y.b;
		});
		st->phase_ns[EXG_PHASE_EXACT] += elapsed(t0, s);
	}
	exg_counters_local()->gpu_pair_tests += counts.tests;
	exg_counters_local()->gpu_unknown += counts.unknown;
}

/* Locate, halving the points while the device is out of memory. */
static void
locate_or_split(const double *pts, uint32_t npts, uint32_t first, const exg_solid_set *S,
				const exg_join_options *opt, std::vector<exg_pair> &out, exg_join_stats *st)
{
	size_t		base = out.size();

	try
	{
		run_locate(pts, npts, S, opt, out, st);
	}
	catch (exg_gpu_oom &)
	{
		if (npts < 2)
			throw;
		exg_gpu_room_check();
		out.resize(base);
		st->splits++;
		locate_or_split(pts, npts / 2, first, S, opt, out, st);
		locate_or_split(pts + 3 * (size_t) (npts / 2), npts - npts / 2, first + npts / 2, S, opt,
						out, st);
		return;
	}
	for (size_t i = base; i < out.size(); i++)
		out[i].a += first;
	st->waves++;
}

extern "C" exg_status
exg_gpu_locate(const double *pts, uint32_t npts, const exg_solid_set *S,
			   const exg_join_options *opt, exg_pair **pairs_out, size_t *npairs_out,
			   exg_join_stats *stats, exg_error *err)
{
	exg_status	rc = exg_gpu_guard(err, "locating points", [&] {
		std::vector<exg_pair> out;

		exg_gpu_room_check();
		locate_or_split(pts, npts, 0, S, opt, out, stats);
		*pairs_out = (exg_pair *) malloc(sizeof(exg_pair) * (out.size() ? out.size() : 1));
		if (*pairs_out == nullptr)
			throw		std::bad_alloc();
		memcpy(*pairs_out, out.data(), sizeof(exg_pair) * out.size());
		*npairs_out = out.size();
		stats->used_gpu = true;
		return EXG_OK;
	});

	exg_gpu_stream_idle();
	return rc;
}
