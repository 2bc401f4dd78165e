/*
 * test_join.c — the red-blue join against brute force, on random and exactly
 * degenerate data, across every option that must not change the answer
 * (dedupe rule, first stage of candidates, grid resolution, thread count,
 * back-end).
 *
 *   test_join          CPU back-end (and the GPU too when one is usable)
 *   test_join --gpu    require the GPU: fail if none is usable
 */
#define _GNU_SOURCE				/* memfd_create */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "gpu.h"
#include "interval_double.h"
#include "join_data.h"
#include "join_internal.h"
#include "harness.h"

static bool require_gpu;

#if defined(__SSE2__)
/* MXCSR the joins are called with (0: as is), and its control bits */
static unsigned caller_csr;
#define CSR_CONTROL 0xffc0u
#endif

/* Every intersecting pair by testing all pairs whose boxes meet. */
static size_t
brute_force(const exg_prim_set *A, const exg_prim_set *B, exg_pair **out)
{
	exg_prim   *pa = malloc(sizeof(exg_prim) * (A->nprims + 1));
	exg_prim   *pb = malloc(sizeof(exg_prim) * (B->nprims + 1));
	double	   *ba = malloc(sizeof(double) * 6 * (A->nprims + 1));
	double	   *bb = malloc(sizeof(double) * 6 * (B->nprims + 1));
	size_t		n = 0,
				cap = 1024;
	exg_round_state saved = exg_round_up_enter();
	uint32_t	i,
				j;

	*out = malloc(sizeof(exg_pair) * cap);
	for (i = 0; i < A->nprims; i++)
		exg_join_classify(A, i, &pa[i], &ba[6 * i]);
	for (j = 0; j < B->nprims; j++)
		exg_join_classify(B, j, &pb[j], &bb[6 * j]);
	for (i = 0; i < A->nprims; i++)
		for (j = 0; j < B->nprims; j++)
		{
			const double *a = &ba[6 * i],
					   *b = &bb[6 * j];

			if (a[0] > b[3] || b[0] > a[3] || a[1] > b[4] || b[1] > a[4] ||
				a[2] > b[5] || b[2] > a[5])
				continue;
			if (!exg_join_pair_meets(A, &pa[i], B, &pb[j]))
				continue;
			if (n == cap)
				*out = realloc(*out, sizeof(exg_pair) * (cap *= 2));
			(*out)[n].a = i;
			(*out)[n].b = j;
			n++;
		}
	exg_round_restore(saved);
	free(pa);
	free(pb);
	free(ba);
	free(bb);
	return n;
}

static void
check_join(const char *name, const exg_prim_set *A, const exg_prim_set *B,
		   const exg_pair *expect, size_t nexpect, const exg_join_options *opt,
		   const char *variant)
{
	exg_pair   *got = NULL;
	size_t		ngot = 0;
	exg_join_stats st;
	exg_error	err = {0};

	exg_status	rc;
#if defined(__SSE2__)
	unsigned	own_csr = _mm_getcsr(),
				after;

	if (caller_csr)
		_mm_setcsr(caller_csr);
	rc = exg_join(A, B, opt, &got, &ngot, &st, &err);
	after = _mm_getcsr();
	_mm_setcsr(own_csr);
	if (caller_csr && (after & CSR_CONTROL) != (caller_csr & CSR_CONTROL))
	{
		fprintf(stderr, "FAIL %s [%s]: MXCSR %#x on return, %#x before\n", name, variant,
				after, caller_csr);
		test_failures++;
	}
#else
	rc = exg_join(A, B, opt, &got, &ngot, &st, &err);
#endif
	if (rc != EXG_OK)
	{
		fprintf(stderr, "FAIL %s [%s]: %s\n", name, variant, err.message);
		test_failures++;
		return;
	}
	if (ngot != nexpect || (ngot && memcmp(got, expect, ngot * sizeof(exg_pair)) != 0))
	{
		fprintf(stderr, "FAIL %s [%s]: %zu pairs, brute force %zu\n", name, variant, ngot, nexpect);
		test_failures++;
	}
	else
		printf("  %-28s %-30s %8zu pairs  %9llu candidates  grid %ux%ux%u  %s  %.1f ms\n",
			   name, variant, ngot, (unsigned long long) st.candidates, st.grid_dims[0],
			   st.grid_dims[1], st.grid_dims[2], st.used_gpu ? "GPU" : "CPU",
			   st.total_ns / 1e6);
	exg_join_pairs_free(got);
}

/*
 * On opt's device: sort-dedupe, then both first stages (every pair of a
 * cell, and the box join), each with the device's other knob (CPU: one
 * thread; GPU: double filter) and three grid sizes.
 */
static void
check_device(const char *name, const exg_prim_set *A, const exg_prim_set *B,
			 const exg_pair *expect, size_t nexpect, exg_join_options *opt)
{
	static const uint32_t grids[3] = {1, 64, 200000};
	const char *dev = opt->device == EXG_DEVICE_GPU ? "gpu" : "cpu";
	char		v[64];

	opt->dedupe = EXG_DEDUPE_SORT;
	snprintf(v, sizeof(v), "%s sort-dedupe", dev);
	check_join(name, A, B, expect, nexpect, opt, v);
	opt->dedupe = EXG_DEDUPE_REFERENCE_CELL;
	for (int c = 0; c < 2; c++)
	{
		const char *cull = c ? "box join" : "cell pairs";

		opt->cull = c ? EXG_CULL_BOX_JOIN : EXG_CULL_CELL_PAIRS;
		snprintf(v, sizeof(v), "%s %s", dev, cull);
		check_join(name, A, B, expect, nexpect, opt, v);
		if (opt->device == EXG_DEVICE_GPU)
		{
			opt->filter = EXG_FILTER_DOUBLE;
			snprintf(v, sizeof(v), "%s %s double", dev, cull);
			check_join(name, A, B, expect, nexpect, opt, v);
			opt->filter = EXG_FILTER_FLOAT;
		}
		else
		{
			opt->worker_threads = 1;
			snprintf(v, sizeof(v), "%s %s 1 thread", dev, cull);
			check_join(name, A, B, expect, nexpect, opt, v);
			opt->worker_threads = 0;
		}
		for (int g = 0; g < 3; g++)
		{
			opt->grid_cells = grids[g];
			snprintf(v, sizeof(v), "%s %s %u cells", dev, cull, grids[g]);
			check_join(name, A, B, expect, nexpect, opt, v);
		}
		opt->grid_cells = 0;
	}
	opt->cull = EXG_CULL_AUTO;
}

static int
cmp_pair(const void *x, const void *y)
{
	const exg_pair *p = x,
			   *q = y;

	return p->a != q->a ? (p->a > q->a) - (p->a < q->a) : (p->b > q->b) - (p->b < q->b);
}

static int
cmp_left(const void *a, const void *b)
{
	const exg_pair *p = a,
			   *q = b;

	return (p->a > q->a) - (p->a < q->a);
}

/*
 * exg_pairs_sort_unique (radix sort from 2048 pairs, in parallel slices from
 * 2^17; run by run when in order of the left side) against qsort + unique,
 * on ids of every width, with repeats, sorted, reversed and constant runs,
 * and sorted by the left side only.
 */
static void
check_pair_sort(void)
{
	static const size_t sizes[] = {0, 1, 7, 2047, 2048, 2049, 100000, 300001};
	static const uint32_t masks[] = {0xffu, 0xffffffu, 0xffffffffu};
	uint64_t	r = 0x2545f4914f6cdd1dull;

	for (size_t si = 0; si < sizeof(sizes) / sizeof(sizes[0]); si++)
		for (int mi = 0; mi < 3; mi++)
			for (int order = 0; order < 5; order++)
			{
				size_t		n = sizes[si],
							m = 0;
				exg_pair   *p = malloc(sizeof(exg_pair) * (n + 1)),
						   *q = malloc(sizeof(exg_pair) * (n + 1));

				for (size_t i = 0; i < n; i++)
				{
					r ^= r << 13, r ^= r >> 7, r ^= r << 17;
					p[i].a = order == 3 ? 5 : (uint32_t) (r >> 32) & masks[mi];
					p[i].b = (uint32_t) r & masks[mi];
				}
				if (order == 4)
					qsort(p, n, sizeof(exg_pair), cmp_left);	/* the right sides stay shuffled */
				if (order == 1 || order == 2)
				{
					qsort(p, n, sizeof(exg_pair), cmp_pair);
					for (size_t i = 0; order == 2 && i < n / 2; i++)
					{
						exg_pair	t = p[i];

						p[i] = p[n - 1 - i];
						p[n - 1 - i] = t;
					}
				}
				memcpy(q, p, sizeof(exg_pair) * n);
				qsort(q, n, sizeof(exg_pair), cmp_pair);
				for (size_t i = 0; i < n; i++)
					if (m == 0 || cmp_pair(&q[i], &q[m - 1]) != 0)
						q[m++] = q[i];
				if (exg_pairs_sort_unique(p, n) != m || (m && memcmp(p, q, sizeof(exg_pair) * m)))
				{
					fprintf(stderr, "FAIL pair sort: %zu pairs, ids under %#x, order %d\n", n,
							masks[mi], order);
					test_failures++;
				}
				free(p);
				free(q);
			}
}

/*
 * The time a join reports for setting the GPU up (driver, context, pinned
 * buffers; shown by EXPLAIN ANALYZE and the progress NOTICE): none on the
 * CPU, none without a usable GPU (CUDA builds on machines without a driver
 * included), and on the GPU none for a join that finds everything ready:
 * the same join run again.
 */
static void
check_setup_time(const exg_prim_set *A, const exg_prim_set *B, bool have_gpu)
{
	static const exg_device devices[3] = {EXG_DEVICE_CPU, EXG_DEVICE_AUTO, EXG_DEVICE_GPU};

	for (int d = 0; d < 3; d++)
		for (int run = 0; run < 2; run++)
		{
			exg_join_options opt;
			exg_join_stats st;
			exg_pair   *p = NULL;
			size_t		n = 0;
			exg_error	err = {0};
			bool		may_set_up = have_gpu && d > 0 && run == 0;

			if (d == 2 && !have_gpu)
				break;
			exg_join_options_default(&opt);
			opt.device = devices[d];
			if (exg_join(A, B, &opt, &p, &n, &st, &err) != EXG_OK)
			{
				FAIL("setup time, device %d run %d: %s", d, run, err.message);
				continue;
			}
			exg_join_pairs_free(p);
			CHECK(may_set_up || st.gpu_setup_ns == 0,
				  "setup time, device %d (%s) run %d: %llu ns reported where nothing was set up",
				  d, st.used_gpu ? "GPU" : "CPU", run, (unsigned long long) st.gpu_setup_ns);
		}
}

/*
 * The GPU pair test with more pair keys (8 bytes each) than the upload ring
 * holds (4 pieces of at most 32 MB): the ring laps, and a piece refilled
 * before its copy was done would send the GPU other keys than the pairs
 * given. Half the pairs are hits, so wrong keys change answers; the GPU's
 * against the CPU's.
 */
static void
check_upload_ring_laps(void)
{
	const double utm[3] = {500000.0, 7000000.0, -500.0};
	const size_t n = ((size_t) 160 << 20) / sizeof(uint64_t) + 12345;
	join_data	a,
				b;
	exg_join_options opt;
	exg_pair   *hits = NULL,
			   *pairs = malloc(sizeof(exg_pair) * n);
	uint8_t    *got = malloc(n),
			   *want = malloc(n);
	size_t		nhits = 0,
				differ = 0;
	exg_error	err = {0};
	uint64_t	r = 0x9e3779b97f4a7c15ull;

	join_data_random(&a, 3, 3000, utm, 200, 8, 21);
	join_data_random(&b, 3, 3000, utm, 200, 8, 22);
	exg_join_options_default(&opt);
	opt.device = EXG_DEVICE_CPU;
	if (!pairs || !got || !want ||
		exg_join(&a.set, &b.set, &opt, &hits, &nhits, NULL, &err) != EXG_OK || nhits == 0)
	{
		FAIL("upload ring: setup (%s)", err.message);
		goto done;
	}
	for (size_t i = 0; i < n; i++)
	{
		r ^= r << 13, r ^= r >> 7, r ^= r << 17;
		if (i % 2)
			pairs[i] = hits[r % nhits];
		else
			pairs[i] = (exg_pair) {(uint32_t) (r >> 40) % a.set.nprims, (uint32_t) r % b.set.nprims};
	}
	if (exg_test_pairs(&a.set, &b.set, pairs, n, &opt, want, NULL, &err) != EXG_OK)
	{
		FAIL("upload ring: CPU pair test: %s", err.message);
		goto done;
	}
	opt.device = EXG_DEVICE_GPU;
	if (exg_test_pairs(&a.set, &b.set, pairs, n, &opt, got, NULL, &err) != EXG_OK)
	{
		FAIL("upload ring: GPU pair test: %s", err.message);
		goto done;
	}
	for (size_t i = 0; i < n; i++)
		differ += got[i] != want[i];
	CHECK(differ == 0, "upload ring: %zu of %zu pair answers differ between GPU and CPU", differ, n);
	if (differ == 0)
		printf("  upload ring laps: %zu pairs (%zu MB of keys) tested on the GPU as on the CPU\n",
			   n, n * sizeof(uint64_t) >> 20);
done:
	exg_join_pairs_free(hits);
	free(pairs);
	free(got);
	free(want);
	join_data_free(&a);
	join_data_free(&b);
}

/* Rows of n primitives in runs of 1 to `longest`, never decreasing; returns the row count. */
static uint32_t
make_owners(uint32_t *owner, uint32_t n, int longest, uint64_t seed)
{
	uint32_t	row = 0,
				left = 0;

	for (uint32_t i = 0; i < n; i++)
	{
		if (left == 0)
		{
			seed ^= seed << 13, seed ^= seed >> 7, seed ^= seed << 17;
			left = 1 + (uint32_t) (seed % (uint64_t) longest);
			row += i > 0;
		}
		owner[i] = row;
		left--;
	}
	return n ? row + 1 : 0;
}

/* The expected pairs mapped to rows here, as a caller would: sorted, each once. */
static size_t
rows_expected(const exg_prim_set *A, const exg_prim_set *B, const exg_pair *expect,
			  size_t nexpect, exg_pair *out)
{
	size_t		m = 0;

	for (size_t i = 0; i < nexpect; i++)
	{
		uint32_t	ra = A->owner[expect[i].a],
					rb = B->owner[expect[i].b];

		out[i] = (exg_pair) {A->order ? A->order[ra] : ra, B->order ? B->order[rb] : rb};
	}
	qsort(out, nexpect, sizeof(exg_pair), cmp_pair);
	for (size_t i = 0; i < nexpect; i++)
		if (m == 0 || cmp_pair(&out[i], &out[m - 1]) != 0)
			out[m++] = out[i];
	return m;
}

/*
 * exg_join_options.row_pairs: the pairs of the rows the primitives make
 * (owners in runs, one side's rows merged two by two or reversed by its
 * order), on the CPU and on the GPU (mapped on the device with the
 * reference-cell rule, on the host with the sort rule): the brute force's
 * pairs mapped here, and stats.hits still the primitive pairs.
 */
static void
check_rows(const char *name, const exg_prim_set *A0, const exg_prim_set *B0,
		   const exg_pair *expect, size_t nexpect, bool have_gpu)
{
	exg_prim_set A = *A0,
				B = *B0;
	uint32_t   *own_a = malloc(sizeof(uint32_t) * (A.nprims + 1)),
			   *own_b = malloc(sizeof(uint32_t) * (B.nprims + 1)),
			   *ord_a = malloc(sizeof(uint32_t) * (A.nprims + 1)),
			   *ord_b = malloc(sizeof(uint32_t) * (B.nprims + 1));
	exg_pair   *want = malloc(sizeof(exg_pair) * (nexpect + 1));
	uint32_t	nrows_a = make_owners(own_a, A.nprims, 4, 11),
				nrows_b = make_owners(own_b, B.nprims, 3, 12);

	for (uint32_t r = 0; r < nrows_a; r++)
		ord_a[r] = nrows_a - 1 - r;
	for (uint32_t r = 0; r < nrows_b; r++)
		ord_b[r] = r / 2;
	/* an empty set, as an empty batch, has no owners at all */
	A.owner = A.nprims ? own_a : NULL;
	B.owner = B.nprims ? own_b : NULL;
	for (int v = 0; v < 2; v++)
	{
		size_t		nwant;

		A.order = v ? ord_a : NULL;
		B.order = v ? NULL : ord_b;
		nwant = rows_expected(&A, &B, expect, nexpect, want);
		for (int run = 0; run < 4; run++)
		{
			static const char *const what[] = {"CPU", "GPU reference cell", "GPU box join",
			"GPU sort rule"};
			exg_join_options opt;
			exg_join_stats st;
			exg_error	err = {0};
			exg_pair   *got = NULL;
			size_t		ngot = 0;
			exg_status	rc;

			if (run > 0 && !have_gpu)
				break;
			exg_join_options_default(&opt);
			opt.row_pairs = true;
			opt.device = run ? EXG_DEVICE_GPU : EXG_DEVICE_CPU;
			opt.cull = run == 1 ? EXG_CULL_CELL_PAIRS : EXG_CULL_AUTO;
			opt.dedupe = run == 3 ? EXG_DEDUPE_SORT : EXG_DEDUPE_REFERENCE_CELL;
			rc = exg_join(&A, &B, &opt, &got, &ngot, &st, &err);
			if (rc != EXG_OK)
			{
				fprintf(stderr, "FAIL %s [rows, %s, order %s]: %s\n", name, what[run],
						v ? "left" : "right", err.message);
				test_failures++;
				continue;
			}
			if (ngot != nwant || (nwant && memcmp(got, want, sizeof(exg_pair) * nwant) != 0) ||
				st.hits != nexpect)
			{
				fprintf(stderr, "FAIL %s [rows, %s, order %s]: %zu row pairs, %zu expected; "
						"%llu primitive pairs counted, %zu expected; %u splits\n", name, what[run],
						v ? "left" : "right", ngot, nwant, (unsigned long long) st.hits, nexpect,
						st.splits);
				test_failures++;
			}
			exg_join_pairs_free(got);
		}
	}
	printf("  %s: row pairs as the brute force's mapped, %s\n", name, have_gpu ? "CPU and GPU" : "CPU");
	free(own_a);
	free(own_b);
	free(ord_a);
	free(ord_b);
	free(want);
}

/*
 * Row pairs of a GPU join that runs in parts: under budgets below its
 * boxes (48 bytes a primitive of 240,000), the join halves its inputs, each
 * half's rows made on the device and merged, each row pair once. Each
 * budget gives the CPU's pairs, or a clear out-of-memory error where even
 * halves do not fit; at least one must split and succeed.
 */
static void
check_rows_halves(void)
{
	static const size_t budgets_mb[] = {12, 16, 24, 48};
	const double utm[3] = {500000.0, 7000000.0, -500.0};
	join_data	a,
				b;
	uint32_t   *own_a,
			   *own_b,
			   *ord_b;
	exg_pair   *want = NULL;
	size_t		nwant = 0;
	exg_join_options opt;
	exg_join_stats cpu;
	exg_error	err = {0};
	uint32_t	nrows_b;
	int			split_ok = 0;

	/* rows of up to 400 and 40 triangles, the right's merged 50 to a place: rows met more than once */
	join_data_random(&a, 3, 120000, utm, 600, 8, 31);
	join_data_random(&b, 3, 120000, utm, 600, 8, 32);
	own_a = malloc(sizeof(uint32_t) * a.set.nprims);
	own_b = malloc(sizeof(uint32_t) * b.set.nprims);
	ord_b = malloc(sizeof(uint32_t) * b.set.nprims);
	(void) make_owners(own_a, a.set.nprims, 400, 33);
	nrows_b = make_owners(own_b, b.set.nprims, 40, 34);
	for (uint32_t r = 0; r < nrows_b; r++)
		ord_b[r] = r / 50;
	a.set.owner = own_a;
	b.set.owner = own_b;
	b.set.order = ord_b;
	exg_join_options_default(&opt);
	opt.row_pairs = true;
	opt.device = EXG_DEVICE_CPU;
	if (exg_join(&a.set, &b.set, &opt, &want, &nwant, &cpu, &err) != EXG_OK)
		FAIL("rows in halves: the CPU's join: %s", err.message);
	for (size_t k = 0; k < sizeof(budgets_mb) / sizeof(budgets_mb[0]) && nwant > 0; k++)
	{
		exg_pair   *got = NULL;
		size_t		ngot = 0;
		exg_join_stats gpu;
		exg_status	rc;

		opt.device = EXG_DEVICE_GPU;
		opt.cull = EXG_CULL_BOX_JOIN;
		opt.gpu_memory_limit = budgets_mb[k] << 20;
		rc = exg_join(&a.set, &b.set, &opt, &got, &ngot, &gpu, &err);
		if (rc == EXG_ERR_DEVICE_MEMORY)
			printf("  rows in halves, %zu MB: %s\n", budgets_mb[k], err.message);
		else if (rc != EXG_OK)
			FAIL("rows in halves, %zu MB: %s", budgets_mb[k], err.message);
		else
		{
			CHECK(ngot == nwant && memcmp(got, want, sizeof(exg_pair) * nwant) == 0 &&
				  gpu.hits == cpu.hits,
				  "rows in halves, %zu MB: %zu row pairs (%llu primitive pairs), the CPU's %zu (%llu)",
				  budgets_mb[k], ngot, (unsigned long long) gpu.hits, nwant,
				  (unsigned long long) cpu.hits);
			printf("  rows in halves, %zu MB: %zu row pairs of %llu primitive pairs, %u splits, as on the CPU\n",
				   budgets_mb[k], ngot, (unsigned long long) gpu.hits, gpu.splits);
			split_ok += gpu.splits > 0;
		}
		exg_join_pairs_free(got);
	}
	CHECK(nwant > 0 && split_ok > 0 && cpu.hits > nwant,
		  "rows in halves: no budget made a split join succeed (%zu row pairs of %llu)", nwant,
		  (unsigned long long) cpu.hits);
	exg_join_pairs_free(want);
	free(own_a);
	free(own_b);
	free(ord_b);
	join_data_free(&a);
	join_data_free(&b);
}

static void
run_case(const char *name, const exg_prim_set *A, const exg_prim_set *B)
{
	exg_pair   *expect = NULL;
	size_t		nexpect = brute_force(A, B, &expect);
	exg_join_options opt;
	exg_error	err = {0};
	bool		have_gpu = exg_gpu_device_count(&err) > 0;

	exg_pairs_sort_unique(expect, nexpect);
	exg_join_options_default(&opt);
	opt.device = EXG_DEVICE_CPU;
	check_device(name, A, B, expect, nexpect, &opt);
	if (have_gpu)
	{
		opt.device = EXG_DEVICE_GPU;
		check_device(name, A, B, expect, nexpect, &opt);
	}
	else if (require_gpu)
	{
		fprintf(stderr, "FAIL %s: --gpu given but no GPU is usable: %s\n", name, err.message);
		test_failures++;
	}
	check_rows(name, A, B, expect, nexpect, have_gpu);
	free(expect);
}

/* The set that reads A's arrays at `at` (vertices, then indices, adjacent
 * as the parallel read lays them out). */
static exg_prim_set
laid_at(const exg_prim_set *A, const char *at)
{
	exg_prim_set s = *A;

	s.xyz = (const double *) at;
	s.vidx = (const uint32_t *) (at + sizeof(double) * 3 * A->nverts);
	return s;
}

/* A's arrays copied to at: the set that reads them there. */
static exg_prim_set
lay_out(const exg_prim_set *A, char *at)
{
	exg_prim_set s = laid_at(A, at);

	memcpy(at, A->xyz, sizeof(double) * 3 * A->nverts);
	memcpy((char *) s.vidx, A->vidx, sizeof(uint32_t) * A->arity * A->nprims);
	return s;
}

/*
 * Inputs in memory declared lasting (exg_host_lasting: the parallel read's
 * rows in PostgreSQL's main shared memory, a shared mapping): the GPU join
 * pins it on first use and copies from it unstaged. The pairs must stay
 * the CPU join's: at an odd offset; again, pinned already, with other rows
 * written there through a second mapping of the same pages (as the read's
 * worker processes write them: the pin must upload what is there now, not
 * what it found); then moved into a larger declared range that overlaps
 * the pinned one (the pins merged), and read by the pair tests too.
 */
static void
check_lasting_pins(void)
{
	const double utm[3] = {500000.0, 7000000.0, -500.0};
	const size_t region = (size_t) 96 << 20;
	const size_t offs[3] = {4096 + 8, 4096 + 8, ((size_t) 20 << 20) + 40};
	const size_t span[3] = {(size_t) 40 << 20, (size_t) 40 << 20, (size_t) 70 << 20};
	int			fd = memfd_create("exactgpu test_join", 0);
	char	   *base = MAP_FAILED,
			   *alias = MAP_FAILED;
	join_data	a,
				b,
				c;
	exg_join_options opt;
	exg_pair   *want = NULL,
			   *want_c = NULL;
	size_t		nwant = 0,
				nwant_c = 0;
	exg_error	err = {0};

	/* two mappings of the same pages, as each PostgreSQL process has its own */
	if (fd >= 0 && ftruncate(fd, (off_t) region) == 0)
	{
		base = mmap(NULL, region, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
		alias = mmap(NULL, region, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	}
	if (fd >= 0)
		close(fd);
	/* 400,000 triangles: 28.8 MB of vertices, 4.8 MB of indices */
	join_data_random(&a, 3, 400000, utm, 2000, 8, 31);
	join_data_random(&b, 3, 20000, utm, 2000, 8, 32);
	join_data_random(&c, 3, 400000, utm, 2000, 8, 33);
	exg_join_options_default(&opt);
	opt.device = EXG_DEVICE_CPU;
	if (base == MAP_FAILED || alias == MAP_FAILED ||
		exg_join(&a.set, &b.set, &opt, &want, &nwant, NULL, &err) != EXG_OK || nwant == 0 ||
		exg_join(&c.set, &b.set, &opt, &want_c, &nwant_c, NULL, &err) != EXG_OK || nwant_c == 0)
	{
		FAIL("lasting pins: setup (%s)", err.message);
		goto done;
	}
	/* else a pin that kept the first rows would pass the second round */
	CHECK(nwant_c != nwant || memcmp(want_c, want, nwant * sizeof(exg_pair)) != 0,
		  "lasting pins: the two inputs have the same pairs");
	opt.device = EXG_DEVICE_GPU;
	for (int round = 0; round < 3; round++)
	{
		const exg_pair *w = round == 1 ? want_c : want;
		size_t		nw = round == 1 ? nwant_c : nwant;
		exg_prim_set s;
		exg_pair   *got = NULL;
		size_t		ngot = 0;
		size_t		pinned;

		if (round == 1)
		{
			/* over the pinned rows of round 0, through the other mapping */
			lay_out(&c.set, alias + offs[round]);
			s = laid_at(&c.set, base + offs[round]);
		}
		else
			s = lay_out(&a.set, base + offs[round]);
		CHECK(exg_host_lasting(base + offs[round] - 8, span[round]),
			  "lasting pins: range %d not kept", round);
		if (exg_join(&s, &b.set, &opt, &got, &ngot, NULL, &err) != EXG_OK)
		{
			FAIL("lasting pins: GPU join, round %d: %s", round, err.message);
			break;
		}
		CHECK(ngot == nw && memcmp(got, w, ngot * sizeof(exg_pair)) == 0,
			  "lasting pins: round %d: %zu pairs on the GPU, %zu on the CPU", round, ngot, nw);
		exg_join_pairs_free(got);
		pinned = exg_host_lasting_pinned_bytes();
		CHECK(pinned >= span[round] && pinned <= ((size_t) 92 << 20),
			  "lasting pins: round %d: %zu bytes pinned", round, pinned);
		if (round == 2)
		{
			/* the pair tests upload the same arrays */
			uint8_t    *r_gpu = malloc(nwant),
					   *r_cpu = malloc(nwant);

			if (r_gpu && r_cpu &&
				exg_test_pairs(&s, &b.set, want, nwant, &opt, r_gpu, NULL, &err) == EXG_OK)
			{
				opt.device = EXG_DEVICE_CPU;
				if (exg_test_pairs(&a.set, &b.set, want, nwant, &opt, r_cpu, NULL, &err) == EXG_OK)
					CHECK(memcmp(r_gpu, r_cpu, nwant) == 0,
						  "lasting pins: pair tests differ between GPU and CPU");
				else
					FAIL("lasting pins: CPU pair test: %s", err.message);
			}
			else
				FAIL("lasting pins: GPU pair test: %s", err.message);
			free(r_gpu);
			free(r_cpu);
		}
	}
	if (test_failures == 0)
		printf("  lasting pins: %zu and %zu pairs from pinned shared memory, %zu MB pinned\n",
			   nwant, nwant_c, exg_host_lasting_pinned_bytes() >> 20);
done:
	/* lasting: never unmapped (the pins stay until the process ends) */
	exg_join_pairs_free(want);
	exg_join_pairs_free(want_c);
	join_data_free(&a);
	join_data_free(&b);
	join_data_free(&c);
}

int
main(int argc, char **argv)
{
	const double utm[3] = {500000.0, 7000000.0, -500.0};
	const double zero[3] = {0, 0, 0};
	join_data	a,
				b;
	exg_error	gpu_err = {0};
	bool		have_gpu;

	require_gpu = argc > 1 && strcmp(argv[1], "--gpu") == 0;
	have_gpu = exg_gpu_device_count(&gpu_err) > 0;
	check_pair_sort();
	if (have_gpu)
	{
		check_upload_ring_laps();
		check_lasting_pins();
		check_rows_halves();
	}

	join_data_random(&a, 3, 3000, utm, 200, 8, 1);
	join_data_random(&b, 3, 3000, utm, 200, 8, 2);
	run_case("random triangles (UTM)", &a.set, &b.set);
	check_setup_time(&a.set, &b.set, have_gpu);
	join_data_free(&b);
	join_data_random(&b, 2, 2000, utm, 200, 20, 3);
	run_case("random segments x triangles", &b.set, &a.set);
	join_data_free(&b);
	join_data_random(&b, 1, 2000, utm, 200, 0, 4);
	run_case("random points x triangles", &b.set, &a.set);
	join_data_free(&a);
	join_data_free(&b);

	/* Exactly coplanar overlapping surfaces sharing vertices and edges. */
	join_data_terrain(&a, 40, 40, 0.5, zero, 1, 5);
	join_data_terrain(&b, 40, 40, 0.5, zero, 1, 6);
	run_case("terrain x terrain (coplanar)", &a.set, &b.set);
	run_case("terrain x itself", &a.set, &a.set);
	join_data_free(&b);
	join_data_drills(&b, 1500, 40, 40, 0.5, zero, 7);
	run_case("drills x terrain (touching)", &b.set, &a.set);
	join_data_free(&a);
	join_data_free(&b);

	/* The same at UTM scale, where only exact arithmetic sees the touches. */
	join_data_terrain(&a, 30, 30, 0.25, utm, 1, 8);
	join_data_drills(&b, 1000, 30, 30, 0.25, utm, 9);
	run_case("drills x terrain (UTM)", &b.set, &a.set);
	join_data_free(&b);

	/* Empty inputs. */
	join_data_random(&b, 3, 0, utm, 1, 1, 10);
	run_case("empty x terrain", &b.set, &a.set);
	join_data_free(&a);
	join_data_free(&b);

	/*
	 * Subnormal coordinates, joined by a caller with upward rounding, FTZ
	 * and DAZ: the cells and the box join's domain must still see them
	 * (under DAZ, fmin/fmax of subnormals give zero).
	 */
	join_data_terrain(&a, 20, 20, 0.5, zero, 1, 5);
	join_data_drills(&b, 300, 20, 20, 0.5, zero, 7);
	for (size_t i = 0; i < 3 * (size_t) a.set.nverts; i++)
		a.xyz[i] *= 1e-310;
	for (size_t i = 0; i < 3 * (size_t) b.set.nverts; i++)
		b.xyz[i] *= 1e-310;
#if defined(__SSE2__)
	caller_csr = (_mm_getcsr() & ~0x6000u) | 0x4000u | 0x8040u;
#endif
	run_case("subnormal drills x terrain, caller DAZ", &b.set, &a.set);
#if defined(__SSE2__)
	caller_csr = 0;
#endif
	join_data_free(&a);
	join_data_free(&b);

	/* Boxes entered in the same cells that never meet: nothing to test. */
	{
		static const double xyz_a[] = {0, 0, 0, 1, 1, 1, 2, 2, 0, 3, 3, 1},
					xyz_b[] = {0, 2, 0, 1, 3, 1, 2, 0, 0, 3, 1, 1};
		static const uint32_t seg[] = {0, 1, 2, 3};
		exg_prim_set sa = {xyz_a, 4, seg, 2, 2, 0, NULL, NULL},
					sb = {xyz_b, 4, seg, 2, 2, 0, NULL, NULL};

		run_case("boxes in shared cells, none meet", &sa, &sb);
	}

	/*
	 * Every pair meets: 300 near copies of a flat triangle, pierced by 300
	 * near copies of an upright one. The GPU box join's pairs outnumber what
	 * its first chunk's buffer was sized for (a rate of pairs per comparison
	 * guessed for the exact join), so that chunk is computed again in parts.
	 */
	{
		enum {N = 300};
		double	   *xa = malloc(sizeof(double) * 9 * N),
				   *xb = malloc(sizeof(double) * 9 * N);
		uint32_t   *t = malloc(sizeof(uint32_t) * 3 * N);
		static const double flat[9] = {0, 0, 0, 1, 0, 0, 0, 1, 0},
					upright[9] = {0.25, 0.25, -1, 0.25, 0.25, 1, 0.5, 0.25, 1};

		for (int i = 0; i < N; i++)
			for (int k = 0; k < 9; k++)
			{
				xa[9 * i + k] = flat[k] + (k % 3 == 0 ? i * 1e-6 : 0);
				xb[9 * i + k] = upright[k] + (k % 3 == 1 ? i * 1e-6 : 0);
				t[3 * i + k / 3] = (uint32_t) (3 * i + k / 3);
			}
		{
			exg_prim_set sa = {xa, 3 * N, t, N, 3, 0, NULL, NULL},
						sb = {xb, 3 * N, t, N, 3, 0, NULL, NULL};

			run_case("stacked triangles, every pair meets", &sa, &sb);
		}
		free(xa);
		free(xb);
		free(t);
	}

	/* A non-finite coordinate: the box-join stage refuses it, on each device. */
	{
		static const double xyz[] = {0, 0, 0, 1, 1, 1, NAN, 0, 0, 1, 0, 0};
		static const uint32_t seg[] = {0, 1, 2, 3};
		exg_prim_set good = {xyz, 2, seg, 1, 2, 0, NULL, NULL},
					bad = {xyz, 4, seg + 2, 1, 2, 0, NULL, NULL};
		exg_join_options opt;
		exg_pair   *p = NULL;
		size_t		n = 0;
		exg_error	err = {0};

		exg_join_options_default(&opt);
		opt.cull = EXG_CULL_BOX_JOIN;
		for (int d = 0; d < 2; d++)
		{
			opt.device = d ? EXG_DEVICE_GPU : EXG_DEVICE_CPU;
			if (d && exg_gpu_device_count(&err) == 0)
				break;
			if (exg_join(&good, &bad, &opt, &p, &n, NULL, &err) != EXG_ERR_ARGUMENT)
			{
				fprintf(stderr, "FAIL NaN coordinate, box join stage on the %s: not refused\n",
						d ? "GPU" : "CPU");
				test_failures++;
				exg_join_pairs_free(p);
			}
			else
				printf("  NaN coordinate, box join stage on the %s: refused (%s)\n",
					   d ? "GPU" : "CPU", err.message);
		}
	}

	/*
	 * A vertex index out of range among 2^21 segments (checked on the
	 * threads): refused before either device runs, naming the first bad one.
	 */
	{
		size_t		ns = (size_t) 1 << 21;
		double	   *xyz = calloc(3 * (ns + 1), sizeof(double));
		uint32_t   *seg = malloc(2 * ns * sizeof(uint32_t));
		static const double one[] = {0, 0, 0, 1, 1, 1};
		static const uint32_t pair[] = {0, 1};
		exg_prim_set good = {one, 2, pair, 1, 2, 0, NULL, NULL},
					bad;
		exg_join_options opt;
		exg_pair   *p = NULL;
		size_t		n = 0;
		exg_error	err = {0};

		for (size_t i = 0; i < ns; i++)
		{
			xyz[3 * i] = (double) i;
			seg[2 * i] = (uint32_t) i;
			seg[2 * i + 1] = (uint32_t) i + 1;
		}
		seg[2 * (ns - 7) + 1] = (uint32_t) ns + 5;	/* the first bad index */
		seg[2 * (ns - 3)] = (uint32_t) ns + 9;
		bad = (exg_prim_set) {xyz, (uint32_t) ns + 1, seg, (uint32_t) ns, 2, 0, NULL, NULL};
		exg_join_options_default(&opt);
		for (int d = 0; d < 2; d++)
		{
			char		want[64];

			opt.device = d ? EXG_DEVICE_GPU : EXG_DEVICE_CPU;
			if (d && exg_gpu_device_count(&err) == 0)
				break;
			snprintf(want, sizeof(want), "vertex index %u out of range", (unsigned) ns + 5);
			if (exg_join(&good, &bad, &opt, &p, &n, NULL, &err) != EXG_ERR_ARGUMENT ||
				strstr(err.message, want) == NULL)
			{
				fprintf(stderr, "FAIL index out of range on the %s: not refused as the first bad one (%s)\n",
						d ? "GPU" : "CPU", err.message);
				test_failures++;
				exg_join_pairs_free(p);
			}
			else
				printf("  index out of range on the %s: refused (%s)\n", d ? "GPU" : "CPU", err.message);
		}
		free(xyz);
		free(seg);
	}

	if (test_failures)
	{
		fprintf(stderr, "test_join: %ld failures\n", test_failures);
		return 1;
	}
	printf("test_join: all joins equal brute force\n");
	return 0;
}
