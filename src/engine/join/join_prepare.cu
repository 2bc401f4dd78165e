/*
 * join_prepare.cu — from raw input on the device to classified primitives
 * with outward-rounded float boxes, and the uniform grid as ragged arrays
 * (count, exclusive scan, fill).
 */
#include "grid_build.cuh"
#include "join_gpu.cuh"

/* Largest magnitudes for which a filter cannot overflow (see interval_gpu.cuh):
 * orient3d of translated float coordinates below 2^40 stays below 2^127. */
#define FLOAT_SAFE 0x1p40
#define DOUBLE_SAFE 0x1p300

__device__ static void
atomic_min_double(double *addr, double v)
{
	unsigned long long *a = reinterpret_cast<unsigned long long *>(addr);
	unsigned long long old = *a;

	while (v < __longlong_as_double(old))
	{
		unsigned long long seen = atomicCAS(a, old, __double_as_longlong(v));

		if (seen == old)
			break;
		old = seen;
	}
}

__device__ static void
atomic_max_double(double *addr, double v)
{
	unsigned long long *a = reinterpret_cast<unsigned long long *>(addr);
	unsigned long long old = *a;

	while (v > __longlong_as_double(old))
	{
		unsigned long long seen = atomicCAS(a, old, __double_as_longlong(v));

		if (seen == old)
			break;
		old = seen;
	}
}

__global__ static void
k_box_init(double *box)
{
	if (threadIdx.x < 3)
	{
		box[threadIdx.x] = INFINITY;
		box[3 + threadIdx.x] = -INFINITY;
	}
}

__global__ static void
k_vertex_box(const double *xyz, uint32_t n, double *box)
{
	double		lo[3] = {INFINITY, INFINITY, INFINITY},
				hi[3] = {-INFINITY, -INFINITY, -INFINITY};

	for (uint32_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
		for (int k = 0; k < 3; k++)
		{
			lo[k] = fmin(lo[k], xyz[3 * i + k]);
			hi[k] = fmax(hi[k], xyz[3 * i + k]);
		}
	for (int k = 0; k < 3; k++)
		for (int off = 16; off > 0; off /= 2)
		{
			lo[k] = fmin(lo[k], __shfl_down_sync(0xffffffffu, lo[k], off));
			hi[k] = fmax(hi[k], __shfl_down_sync(0xffffffffu, hi[k], off));
		}
	if ((threadIdx.x & 31) == 0)
		for (int k = 0; k < 3; k++)
		{
			atomic_min_double(&box[k], lo[k]);
			atomic_max_double(&box[3 + k], hi[k]);
		}
}

void
exg_gpu_vertex_box(const exg_gpu_side &side, double *box_d, bool init, cudaStream_t s)
{
	if (init)
		k_box_init<<<1, 32, 0, s>>>(box_d);
	uint32_t	n = side.nverts - side.vfirst;

	if (n)
		k_vertex_box<<<(n + 255) / 256 < 1024 ? (n + 255) / 256 : 1024, 256, 0, s>>>(side.xyz.p + 3 * (size_t) side.vfirst, n, box_d);
	EXG_CUDA(cudaGetLastError());
}

void
exg_gpu_vertex_box(const exg_gpu_side &a, const exg_gpu_side &b, double *box_d, cudaStream_t s)
{
	exg_gpu_vertex_box(a, box_d, true, s);
	exg_gpu_vertex_box(b, box_d, false, s);
}

struct origin3
{
	double		o[3];
};

__global__ static void
k_prepare_verts(const double *xyz, uint32_t n, origin3 org, exg_gvert *out)
{
	uint32_t	i = blockIdx.x * blockDim.x + threadIdx.x;

	if (i >= n)
		return;
	exg_gvert	v;

	for (int k = 0; k < 3; k++)
	{
		double		c = xyz[3 * i + k];

		v.c[k] = c;
		/* Enclose c - origin in double, then round that enclosure outward to float. */
		v.lo[k] = __double2float_rd(__dsub_rd(c, org.o[k]));
		v.hi[k] = __double2float_ru(__dsub_ru(c, org.o[k]));
	}
	out[i] = v;
}

__global__ static void
k_classify(const exg_gvert *verts, const uint32_t *vidx, uint32_t n, int arity, origin3 org,
		   exg_gprim *prims, float *boxes, float *normals, double *extent_sum)
{
	uint32_t	i = blockIdx.x * blockDim.x + threadIdx.x;
	double		ext[3] = {0, 0, 0};

	if (i < n)
	{
		const uint32_t *vi = &vidx[(size_t) i * arity];
		exg_gprim	P;
		gpud_simplex sx;
		int			r;
		bool		float_ok = true,
					double_ok = true;

		if (arity == 3)
			r = gpud_classify_triangle(&verts[vi[0]], &verts[vi[1]], &verts[vi[2]], 3, &sx);
		else
		{
			gpud_classify_segment(&verts[vi[0]], &verts[vi[arity - 1]], 3, &sx);
			r = 0;
		}
		P.flags = 0;
		if (r == EXG_RESULT_UNKNOWN)
		{
			/* Left to the CPU's exact classification: keep the raw vertices. */
			P.flags |= EXG_GPRIM_UNCLASSIFIED;
			P.kind = EXG_SIMPLEX_TRIANGLE;
			P.k = 0;
			P.s = 0;
			for (int t = 0; t < 3; t++)
				P.v[t] = vi[t];
		}
		else
		{
			P.kind = (int8_t) sx.kind;
			P.k = (int8_t) (sx.kind == EXG_SIMPLEX_TRIANGLE ? sx.k : 0);
			P.s = (int8_t) sx.s;
			for (int t = 0; t < 3; t++)
				P.v[t] = (uint32_t) (sx.v[t] - verts);
		}

		double		lo[3],
					hi[3];

		for (int k = 0; k < 3; k++)
		{
			lo[k] = hi[k] = verts[vi[0]].c[k];
			for (int t = 1; t < arity; t++)
			{
				lo[k] = fmin(lo[k], verts[vi[t]].c[k]);
				hi[k] = fmax(hi[k], verts[vi[t]].c[k]);
			}
			float_ok &= fabs(lo[k] - org.o[k]) <= FLOAT_SAFE && fabs(hi[k] - org.o[k]) <= FLOAT_SAFE;
			double_ok &= fabs(lo[k]) <= DOUBLE_SAFE && fabs(hi[k]) <= DOUBLE_SAFE;
			/* The box in translated coordinates, rounded outward to float. */
			boxes[6 * (size_t) i + k] = __double2float_rd(__dsub_rd(lo[k], org.o[k]));
			boxes[6 * (size_t) i + 3 + k] = __double2float_ru(__dsub_ru(hi[k], org.o[k]));
			ext[k] = hi[k] - lo[k];
		}
		P.flags |= (float_ok ? EXG_GPRIM_FLOAT_OK : 0) | (double_ok ? EXG_GPRIM_DOUBLE_OK : 0);
		prims[i] = P;

		/* The triangle's normal, kept for the plane prefilter of the float test. */
		if (arity == 3 && float_ok && P.kind == EXG_SIMPLEX_TRIANGLE &&
			!(P.flags & EXG_GPRIM_UNCLASSIFIED))
		{
			const exg_gvert *a = &verts[P.v[0]],
					   *b = &verts[P.v[1]],
					   *c = &verts[P.v[2]];
			exg_fint	A[3] = {EXG_GV_FINT(a, 0), EXG_GV_FINT(a, 1), EXG_GV_FINT(a, 2)};
			exg_fint	B[3] = {EXG_GV_FINT(b, 0), EXG_GV_FINT(b, 1), EXG_GV_FINT(b, 2)};
			exg_fint	C[3] = {EXG_GV_FINT(c, 0), EXG_GV_FINT(c, 1), EXG_GV_FINT(c, 2)};
			exg_fint	nrm[3];

			EXG_CROSS_FORMULA(exg_fint, iv_sub<float>, iv_mul<float>, iv_sub<float>, A, B, C, nrm[0], nrm[1], nrm[2]);
			for (int k = 0; k < 3; k++)
			{
				normals[6 * (size_t) i + k] = nrm[k].lo;
				normals[6 * (size_t) i + 3 + k] = nrm[k].hi;
			}
		}
	}
	for (int k = 0; k < 3; k++)
	{
		for (int off = 16; off > 0; off /= 2)
			ext[k] += __shfl_down_sync(0xffffffffu, ext[k], off);
		if ((threadIdx.x & 31) == 0 && ext[k] != 0)
			atomicAdd(&extent_sum[k], ext[k]);
	}
}

void
exg_gpu_prepare_side(exg_gpu_side &side, const double *origin, double *extent_d, cudaStream_t s)
{
	origin3		org = {{origin[0], origin[1], origin[2]}};

	if (!side.verts.lent)
	{
		side.verts.alloc(side.nverts);
		side.prims.alloc(side.nprims);
		side.boxes.alloc((size_t) 6 * side.nprims);
		side.normals.alloc((size_t) 6 * side.nprims);
	}
	uint32_t	n = side.nverts - side.vfirst;

	/* the vertices its primitives read (a range's span) */
	if (n)
		k_prepare_verts<<<(n + 255) / 256, 256, 0, s>>>(side.xyz.p + 3 * (size_t) side.vfirst, n, org,
													   side.verts.p + side.vfirst);
	exg_trace_sync(s, "prepare: vertex records");
	if (side.nprims)
		k_classify<<<(side.nprims + 255) / 256, 256, 0, s>>>(side.verts.p, side.vidx.p, side.nprims,
															 side.arity, org, side.prims.p,
															 side.boxes.p, side.normals.p, extent_d);
	EXG_CUDA(cudaGetLastError());
	exg_trace_sync(s, "prepare: classified");
}

bool
exg_gpu_side_keep_key(const exg_gpu_side &side, int kind, int variant, uint64_t key[4])
{
	/* both arrays in one kept copy: a block lives and dies with the copy it hangs on */
	if (!side.may_keep || side.xyz.kept == nullptr || side.vidx.kept != side.xyz.kept ||
		side.nverts == 0 || side.nprims == 0)
		return false;
	key[0] = (uint64_t) kind << 32 | (uint64_t) variant << 8 | (uint64_t) side.arity;
	key[1] = (uint64_t) (uintptr_t) side.host_xyz;
	key[2] = (uint64_t) (uintptr_t) side.host_vidx;
	key[3] = (uint64_t) side.nverts << 32 | side.nprims;
	return true;
}

/* Offsets in a prepared block: its 9 doubles, then each array 256-aligned. */
struct prepared_layout
{
	size_t		verts,
				prims,
				boxes,
				normals,
				bytes;

	prepared_layout(uint32_t nverts, uint32_t nprims)
	{
		auto		up = [](size_t x) { return (x + 255) / 256 * 256; };

		verts = up(9 * sizeof(double));
		prims = verts + up(sizeof(exg_gvert) * (size_t) nverts);
		boxes = prims + up(sizeof(exg_gprim) * (size_t) nprims);
		normals = boxes + up(sizeof(float) * 6 * (size_t) nprims);
		bytes = normals + up(sizeof(float) * 6 * (size_t) nprims);
	}
};

void
exg_gpu_prepare_first(exg_gpu_side &side, bool keep, double *misc_d, double *host_misc,
					  double *origin, cudaStream_t s)
{
	prepared_layout at(side.nverts, side.nprims);
	exg_gpu_derived kept;
	uint64_t	key[4];

	side.may_keep = keep;
	if (exg_gpu_side_keep_key(side, EXG_KEPT_PREPARED, 0, key) &&
		kept.find(side.xyz.kept, key, at.bytes, s))
	{
		side.verts.lend((exg_gvert *) (kept.p + at.verts), side.nverts);
		side.prims.lend((exg_gprim *) (kept.p + at.prims), side.nprims);
		side.boxes.lend((float *) (kept.p + at.boxes), (size_t) 6 * side.nprims);
		side.normals.lend((float *) (kept.p + at.normals), (size_t) 6 * side.nprims);
	}
	if (kept.p && !kept.make)
	{
		/*
		 * made by an earlier join: its box and extents, as that join left
		 * them; the box from the host's copy of them where there is one
		 * (no copy back and wait)
		 */
		EXG_CUDA(cudaMemcpyAsync(misc_d, kept.p, 9 * sizeof(double), cudaMemcpyDeviceToDevice, s));
		if (!kept.head(host_misc, 6 * sizeof(double)))
		{
			EXG_CUDA(cudaMemcpyAsync(host_misc, misc_d, 6 * sizeof(double), cudaMemcpyDeviceToHost, s));
			EXG_CUDA(cudaStreamSynchronize(s));
		}
	}
	else
	{
		exg_gpu_vertex_box(side, misc_d, true, s);
		EXG_CUDA(cudaMemsetAsync(misc_d + 6, 0, 3 * sizeof(double), s));
		EXG_CUDA(cudaMemcpyAsync(host_misc, misc_d, 6 * sizeof(double), cudaMemcpyDeviceToHost, s));
		EXG_CUDA(cudaStreamSynchronize(s));
	}
	if (side.nverts == 0)
	{
		/* the first side has no vertex, nor then has the other: as if 0 */
		for (int k = 0; k < 6; k++)
			host_misc[k] = 0;
	}
	for (int k = 0; k < 3; k++)
		origin[k] = host_misc[k] + (host_misc[3 + k] - host_misc[k]) / 2;
	if (kept.p && !kept.make)
		return;
	exg_gpu_prepare_side(side, origin, misc_d + 6, s);
	if (kept.make)
	{
		EXG_CUDA(cudaMemcpyAsync(kept.p, misc_d, 9 * sizeof(double), cudaMemcpyDeviceToDevice, s));
		kept.set_head(host_misc, 6 * sizeof(double));
		kept.done();
	}
}

/* ---- grid: count, scan, fill (grid_build.cuh) ---- */

/* The cells a primitive's float box meets (it is rounded outward). */
struct float_box_ranges
{
	const float *boxes;
	exg_grid	g;

	__device__ bool operator() (uint32_t i, int32_t *lo, int32_t *hi) const
	{
		for (int k = 0; k < 3; k++)
		{
			lo[k] = exg_grid_axis(&g, k, (double) boxes[6 * (size_t) i + k]);
			hi[k] = exg_grid_axis(&g, k, (double) boxes[6 * (size_t) i + 3 + k]);
		}
		return true;
	}
};

void
exg_gpu_grid_fit(const exg_gpu_side *const *sides, int nsides, exg_grid &g, const double *extent,
				 double cell_bytes, double entry_bytes, size_t budget, cudaStream_t s)
{
	double		nboxes = 0;

	for (int k = 0; k < nsides; k++)
		nboxes += (double) sides[k]->nprims;
	for (;;)
	{
		double		entries = 0;

		for (int k = 0; k < nsides; k++)
			entries += (double) exg_gpu_grid_entries(float_box_ranges {sides[k]->boxes.p, g},
													 sides[k]->nprims, s);
		if (exg_grid_fits(&g, entries, nboxes, cell_bytes, entry_bytes, budget))
			return;
		exg_grid_cap_cells(&g, extent, (double) g.dims[0] * g.dims[1] * g.dims[2] / 2);
	}
}

void
exg_gpu_grid_side(exg_gpu_side &side, const exg_grid &g, uint32_t ncells, cudaStream_t s)
{
	float_box_ranges r = {side.boxes.p, g};
	exg_dbuf<uint32_t> counts;

	side.nentries = exg_gpu_grid_count(r, side.nprims, g, ncells, counts, side.cell_start, s);
	exg_gpu_grid_fill(r, side.nprims, g, ncells, side.nentries, counts, side.cell_start,
					  side.cell_items, s);
}
