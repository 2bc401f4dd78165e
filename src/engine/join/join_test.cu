/*
 * join_test.cu — the interval tests of candidate pairs: one thread per
 * candidate, the shared closed-set logic with float (or double) interval
 * signs, sparse outputs appended with one atomic per warp.
 */
#include "join_gpu.cuh"

#ifndef EXG_TEST_MIN_BLOCKS
#define EXG_TEST_MIN_BLOCKS 1
#endif

struct test_side
{
	const exg_gvert *verts;
	const exg_gprim *prims;
	const float *normals;
};

/*
 * Sign of orient3d(T0, T1, T2, p) from T's stored normal: the same
 * cross-then-dot formula with the cross product evaluated once per triangle.
 */
__device__ __forceinline__ int
plane_side(const float *nrm, const exg_gvert *a, const exg_gvert *p)
{
	exg_fint	N[3] = {{nrm[0], nrm[3]}, {nrm[1], nrm[4]}, {nrm[2], nrm[5]}};
	exg_fint	A[3] = {EXG_GV_FINT(a, 0), EXG_GV_FINT(a, 1), EXG_GV_FINT(a, 2)};
	exg_fint	P[3] = {EXG_GV_FINT(p, 0), EXG_GV_FINT(p, 1), EXG_GV_FINT(p, 2)};
	exg_fint	d;

	EXG_PLANE_SIDE_FORMULA(exg_fint, iv_sub<float>, iv_mul<float>, iv_add<float>, N[0], N[1], N[2], A, P, d);
	return iv_sign<float>(d);
}

/* Are the n vertices of P strictly on one side of triangle T's plane? */
__device__ __forceinline__ bool
strictly_one_side(const test_side &ts, const exg_gprim &T, size_t ti, const test_side &ps,
				  const exg_gprim &P, int n)
{
	const float *nrm = &ts.normals[6 * ti];
	const exg_gvert *a = &ts.verts[T.v[0]];
	int			s0 = plane_side(nrm, a, &ps.verts[P.v[0]]);

	if (s0 != 1 && s0 != -1)
		return false;
	for (int e = 1; e < n; e++)
		if (plane_side(nrm, a, &ps.verts[P.v[e]]) != s0)
			return false;
	return true;
}

template <typename S>
__device__ __forceinline__ void
load_simplex(const test_side &side, const exg_gprim &P, S *sx)
{
	sx->kind = P.kind;
	sx->k = P.k;
	sx->s = P.s;
	sx->v[0] = &side.verts[P.v[0]];
	sx->v[1] = &side.verts[P.v[1]];
	sx->v[2] = &side.verts[P.v[2]];
}

/* A candidate key decoded: both primitive ids and records. */
struct candidate
{
	size_t		ia;
	size_t		ib;
	exg_gprim	PA;
	exg_gprim	PB;
};

__device__ __forceinline__ candidate
load_candidate(const test_side &A, const test_side &B, uint64_t key, int key_shift)
{
	candidate	c;

	c.ia = key >> key_shift;
	c.ib = key & ((1ull << key_shift) - 1);
	c.PA = A.prims[c.ia];
	c.PB = B.prims[c.ib];
	return c;
}

/* Append key to out at a slot reserved for the whole warp at once. */
__device__ __forceinline__ void
warp_append(bool want, uint64_t key, uint64_t *out, uint64_t cap, unsigned long long *counter)
{
	unsigned	mask = __ballot_sync(0xffffffffu, want);

	if (mask == 0)
		return;
	int			lane = threadIdx.x & 31;
	unsigned long long base = 0;

	if (lane == __ffs(mask) - 1)
		base = atomicAdd(counter, (unsigned long long) __popc(mask));
	base = __shfl_sync(0xffffffffu, base, __ffs(mask) - 1);
	if (want)
	{
		unsigned long long pos = base + __popc(mask & ((1u << lane) - 1));

		if (pos < cap)
			out[pos] = key;
	}
}

/*
 * Plane prefilter: a candidate whose one primitive lies strictly on one side
 * of the other's plane (decided by float intervals on the stored normal) is
 * disjoint; the others survive to the full test. A small kernel, so it runs
 * at full occupancy over every candidate.
 */
__global__ static void
__launch_bounds__(256, 4)
k_prefilter(test_side A, test_side B, const uint64_t *keys, uint64_t n, int key_shift,
			uint64_t *survivors, unsigned long long *nsurvivors)
{
	uint64_t	i = (uint64_t) blockIdx.x * blockDim.x + threadIdx.x;
	bool		keep = false;
	uint64_t	key = 0;

	if (i < n)
	{
		key = keys[i];
		candidate	c = load_candidate(A, B, key, key_shift);

		keep = !((c.PA.flags & c.PB.flags & EXG_GPRIM_FLOAT_OK) &&
				 !((c.PA.flags | c.PB.flags) & EXG_GPRIM_UNCLASSIFIED) &&
				 ((c.PA.kind == EXG_SIMPLEX_TRIANGLE &&
				   strictly_one_side(A, c.PA, c.ia, B, c.PB, c.PB.kind + 1)) ||
				  (c.PB.kind == EXG_SIMPLEX_TRIANGLE &&
				   strictly_one_side(B, c.PB, c.ib, A, c.PA, c.PA.kind + 1))));
	}
	warp_append(keep, key, survivors, n, nsurvivors);
}

/*
 * The full case analysis, for the candidates the prefilter kept. Two
 * triangles take their plane signs from the stored normals (the same
 * cross-then-dot formula), the rest go through the generic dispatch.
 */
__device__ __forceinline__ static int
full_float(const test_side &A, exg_gprim PA, size_t ia, const test_side &B, exg_gprim PB,
		   size_t ib)
{
	gpuf_simplex sa,
				sb;

	load_simplex(A, PA, &sa);
	load_simplex(B, PB, &sb);
	if (PA.kind == EXG_SIMPLEX_TRIANGLE && PB.kind == EXG_SIMPLEX_TRIANGLE)
	{
		int			su[3],
					st[3];

		for (int e = 0; e < 3; e++)
		{
			su[e] = plane_side(&A.normals[6 * ia], sa.v[0], sb.v[e]);
			st[e] = plane_side(&B.normals[6 * ib], sb.v[0], sa.v[e]);
		}
		return gpuf_triangle_triangle_3d_signs(sa.v, sa.k, sa.s, sb.v, sb.k, sb.s, su, st);
	}
	return gpuf_simplex_simplex_3d(&sa, &sb);
}

__device__ __forceinline__ static int
full_double(const test_side &A, exg_gprim PA, const test_side &B, exg_gprim PB)
{
	gpud_simplex sa,
				sb;

	load_simplex(A, PA, &sa);
	load_simplex(B, PB, &sb);
	return gpud_simplex_simplex_3d(&sa, &sb);
}

__global__ static void
__launch_bounds__(256, EXG_TEST_MIN_BLOCKS)
k_test(test_side A, test_side B, const uint64_t *keys, uint64_t n,
	   const unsigned long long *n_dev, int key_shift, bool use_double, uint64_t *hits,
	   uint64_t hits_cap, unsigned long long *nhits, uint64_t *unknown,
	   unsigned long long *nunknown)
{
	uint64_t	i = (uint64_t) blockIdx.x * blockDim.x + threadIdx.x;
	int			r = EXG_RESULT_DISJOINT;
	uint64_t	key = 0;

	/* the keys an earlier kernel counted on the device (at most n) */
	if (n_dev && *n_dev < n)
		n = *n_dev;
	if (i < n)
	{
		key = keys[i];
		candidate	c = load_candidate(A, B, key, key_shift);
		uint8_t		both = c.PA.flags & c.PB.flags;

		r = EXG_RESULT_UNKNOWN;
		if ((c.PA.flags | c.PB.flags) & EXG_GPRIM_UNCLASSIFIED)
			;					/* degeneracy undecided: the CPU classifies exactly */
		else if (!use_double && (both & EXG_GPRIM_FLOAT_OK))
			r = full_float(A, c.PA, c.ia, B, c.PB, c.ib);
		else if (use_double && (both & EXG_GPRIM_DOUBLE_OK))
			r = full_double(A, c.PA, B, c.PB);
	}
	warp_append(r == EXG_RESULT_INTERSECTS, key, hits, hits_cap, nhits);
	warp_append(r == EXG_RESULT_UNKNOWN, key, unknown, n, nunknown);
}

/* Box join: do the closed boxes (spanned by a primitive's vertices) meet?
 * Exact comparisons of the input doubles; every candidate is decided. */
__global__ static void
__launch_bounds__(256, 4)
k_box_test(test_side A, test_side B, const uint64_t *keys, uint64_t n, int key_shift,
		   uint64_t *hits, uint64_t hits_cap, unsigned long long *nhits)
{
	uint64_t	i = (uint64_t) blockIdx.x * blockDim.x + threadIdx.x;
	bool		meet = false;
	uint64_t	key = 0;

	if (i < n)
	{
		key = keys[i];
		candidate	c = load_candidate(A, B, key, key_shift);
		const exg_gvert *a0 = &A.verts[c.PA.v[0]],
				   *a1 = &A.verts[c.PA.v[c.PA.kind]],
				   *b0 = &B.verts[c.PB.v[0]],
				   *b1 = &B.verts[c.PB.v[c.PB.kind]];

		meet = true;
		for (int k = 0; k < 3; k++)
			meet &= fmax(a0->c[k], a1->c[k]) >= fmin(b0->c[k], b1->c[k]) &&
				fmax(b0->c[k], b1->c[k]) >= fmin(a0->c[k], a1->c[k]);
	}
	warp_append(meet, key, hits, hits_cap, nhits);
}

void
exg_gpu_test(const exg_gpu_side &a, const exg_gpu_side &b, const uint64_t *keys, uint64_t n,
			 int key_shift, bool use_double, uint64_t *hits, uint64_t hits_cap,
			 unsigned long long *nhits, uint64_t *unknown, unsigned long long *nunknown,
			 cudaStream_t s, bool boxes_only, const unsigned long long *n_dev)
{
	test_side	A = {a.verts.p, a.prims.p, a.normals.p},
				B = {b.verts.p, b.prims.p, b.normals.p};
	unsigned	blocks = (unsigned) ((n + 255) / 256);

	if (n == 0)
		return;
	if (boxes_only)
	{
		/* every caller counts its keys on the host */
		k_box_test<<<blocks, 256, 0, s>>>(A, B, keys, n, key_shift, hits, hits_cap, nhits);
		EXG_CUDA(cudaGetLastError());
		return;
	}
	if (!use_double && n_dev == nullptr)
	{
		/*
		 * Prefilter, then the full test on the survivors only, their count
		 * read on the device (launched for all n: the blocks past it return)
		 */
		exg_dbuf<uint64_t> survivors(n);
		exg_dbuf<unsigned long long> nsurv(1);

		EXG_CUDA(cudaMemsetAsync(nsurv.p, 0, sizeof(unsigned long long), s));
		k_prefilter<<<blocks, 256, 0, s>>>(A, B, keys, n, key_shift, survivors.p, nsurv.p);
		k_test<<<blocks, 256, 0, s>>>(A, B, survivors.p, n, nsurv.p, key_shift, false, hits,
									  hits_cap, nhits, unknown, nunknown);
		EXG_CUDA(cudaGetLastError());
		return;
	}
	k_test<<<blocks, 256, 0, s>>>(A, B, keys, n, n_dev, key_shift, use_double, hits, hits_cap,
								  nhits, unknown, nunknown);
	EXG_CUDA(cudaGetLastError());
}
