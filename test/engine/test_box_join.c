/*
 * test_box_join.c — exg_box_join against an O(n m) brute force written
 * plainly here, on data made to break a grid: integer boxes whose faces,
 * edges and corners coincide (and lie on cell walls for many grid sizes),
 * duplicates, zero-width boxes and points, one box covering everything, all
 * boxes in one cell, and UTM coordinates one ulp apart. The pair set must be
 * the brute force's, each pair once, for every grid, thread count, memory
 * limit (the GPU's chunking and overflow re-runs) and back-end. Also: the
 * sink's chunks, a sink that stops the join, cancel, invalid input, and the
 * caller's floating-point mode (rounding, FTZ/DAZ): it must not change the
 * pairs and is the one the sink runs in.
 *
 *   test_box_join          CPU (and the GPU too when one is usable)
 *   test_box_join --gpu    fail if no GPU is usable
 */
#include <fenv.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "box_join.h"
#include "cancel.h"
#include "gpu.h"
#include "harness.h"

#if defined(__SSE2__)
#include <xmmintrin.h>
#define FTZ_DAZ 0x8040u			/* MXCSR flush-to-zero | denormals-are-zero */
#define CALLER_MODES 3
#else
#define CALLER_MODES 2
#endif

static bool have_gpu;
static test_rng rng = {0x243f6a8885a308d3ull};

static double
uniform(void)
{
	return rng_uniform(&rng);
}

static int
below(int n)
{
	return (int) rng_below(&rng, (uint64_t) n);
}

/* A set of n boxes of naxes axes (box i at box[2 naxes i]). */
typedef struct boxes
{
	exg_box_set set;
	double	   *box;
	int			naxes;
} boxes;

static boxes
boxes_new(uint32_t n, int naxes)
{
	boxes		b = {{NULL, n}, malloc(sizeof(double) * 2 * naxes * ((size_t) n + 1)), naxes};

	b.set.box = b.box;
	return b;
}

static double *
box_at(boxes *b, uint32_t i)
{
	return &b->box[2 * b->naxes * (size_t) i];
}

/* Boxes with low corners uniform in [0, span) (rounded to step if > 0) and
 * sides uniform in [0, size) (likewise). */
static boxes
boxes_random(uint32_t n, int naxes, double origin, double span, double size, double step)
{
	boxes		b = boxes_new(n, naxes);

	for (uint32_t i = 0; i < n; i++)
		for (int k = 0; k < naxes; k++)
		{
			double		lo = uniform() * span,
						w = uniform() * size;

			if (step > 0)
			{
				lo = floor(lo / step) * step;
				w = floor(w / step) * step;
			}
			box_at(&b, i)[k] = origin + lo;
			box_at(&b, i)[naxes + k] = origin + lo + w;
		}
	return b;
}

/* ---- the expected answer and the check ---- */

typedef struct expected
{
	uint8_t    *bit;			/* na * nb bits: pair expected */
	uint32_t	na,
				nb;
	size_t		n;
} expected;

static expected
brute_force(const boxes *A, const boxes *B)
{
	expected	e = {calloc((size_t) A->set.n * B->set.n / 8 + 1, 1), A->set.n, B->set.n, 0};
	int			d = A->naxes;

	for (uint32_t i = 0; i < A->set.n; i++)
		for (uint32_t j = 0; j < B->set.n; j++)
		{
			const double *a = &A->box[2 * d * (size_t) i],
					   *b = &B->box[2 * d * (size_t) j];
			bool		meet = true;

			for (int k = 0; k < d; k++)
				if (a[k] > b[d + k] || b[k] > a[d + k])
					meet = false;
			if (meet)
			{
				size_t		p = (size_t) i * B->set.n + j;

				e.bit[p / 8] |= (uint8_t) (1u << (p % 8));
				e.n++;
			}
		}
	return e;
}

/* The sink: records the pairs (as a bitmap), duplicates, strays, chunks. */
typedef struct collector
{
	const expected *e;
	uint8_t    *seen;
	size_t		n,
				dups,
				strays;
	int			chunks;
	int			fail_at;		/* chunk number (1-based) that returns fail_with; 0 never */
	exg_status	fail_with;
} collector;

static exg_status
collect(void *arg, const exg_pair *pairs, size_t n)
{
	collector  *c = arg;

	c->chunks++;
	if (c->fail_at && c->chunks >= c->fail_at)
		return c->fail_with;
	for (size_t t = 0; t < n; t++)
	{
		size_t		p = (size_t) pairs[t].a * c->e->nb + pairs[t].b;

		if (pairs[t].a >= c->e->na || pairs[t].b >= c->e->nb || !(c->e->bit[p / 8] & (1u << (p % 8))))
			c->strays++;
		else if (c->seen[p / 8] & (1u << (p % 8)))
			c->dups++;
		else
		{
			c->seen[p / 8] |= (uint8_t) (1u << (p % 8));
			c->n++;
		}
	}
	return EXG_OK;
}

static void
check_memory(const char *name)
{
	size_t		in_use,
				reserved,
				free_bytes;

	exg_gpu_memory_info(&in_use, &reserved, &free_bytes);
	if (in_use != 0)
	{
		printf("FAIL %s: %zu bytes of GPU memory still in use after the join\n", name, in_use);
		test_failures++;
	}
}

/*
 * Floating-point modes a caller may have left on: upward rounding (the
 * engine's own interval filters), downward, and flush-to-zero with
 * denormals-are-zero (a library built with -ffast-math sets them).
 */
static const char *const caller_mode_name[3] = {
	"caller rounding upward", "caller rounding downward", "caller FTZ and DAZ"
};

static void
caller_mode_set(int m, bool on)
{
	if (m < 2)
		fesetround(on ? (m == 0 ? FE_UPWARD : FE_DOWNWARD) : FE_TONEAREST);
#if defined(__SSE2__)
	else
		_mm_setcsr(on ? _mm_getcsr() | FTZ_DAZ : _mm_getcsr() & ~FTZ_DAZ);
#endif
}


/* One join; true when it gave exactly the expected pairs. */
static bool
run_one(const char *name, const char *variant, const boxes *A, const boxes *B,
		const expected *e, const exg_join_options *opt, exg_join_stats *st, int *chunks)
{
	collector	c = {e, calloc((size_t) e->na * e->nb / 8 + 1, 1), 0, 0, 0, 0, 0, EXG_OK};
	exg_error	err;
	exg_status	rc = exg_box_join(&A->set, &B->set, A->naxes, opt, collect, &c, st, &err);
	bool		ok = rc == EXG_OK && c.n == e->n && c.dups == 0 && c.strays == 0;

	if (!ok)
	{
		printf("FAIL %s [%s]: %s; %zu of %zu pairs, %zu duplicates, %zu not meeting\n", name,
			   variant, rc == EXG_OK ? "ok" : err.message, c.n, e->n, c.dups, c.strays);
		test_failures++;
	}
	if (opt->device == EXG_DEVICE_GPU)
		check_memory(name);
	if (chunks)
		*chunks = c.chunks;
	free(c.seen);
	return ok;
}

/*
 * The join under every option that must not change the answer; grids up
 * to max_cells cells (a fine grid enters big boxes in very many cells).
 */
static void
check(const char *name, const boxes *A, const boxes *B, uint32_t max_cells)
{
	static const uint32_t grids[] = {0, 1, 7, 16, 64, 256, 1024, 4096, 32768, 1u << 20};
	expected	e = brute_force(A, B);
	exg_join_options opt;
	exg_join_stats st;
	int			nok = 0,
				nrun = 0,
				chunks = 0;

	for (int dev = 0; dev < 1 + have_gpu; dev++)
	{
		exg_join_options_default(&opt);
		opt.device = dev ? EXG_DEVICE_GPU : EXG_DEVICE_CPU;
		for (size_t g = 0; g < sizeof(grids) / sizeof(grids[0]); g++)
		{
			char		v[64];

			if (grids[g] > max_cells)
				continue;
			opt.grid_cells = grids[g];
			snprintf(v, sizeof(v), "%s, %u cells", dev ? "GPU" : "CPU", grids[g]);
			nok += run_one(name, v, A, B, &e, &opt, &st, NULL);
			nrun++;
		}
		opt.grid_cells = 0;
		/* whatever mode the caller left on, bounds and cells come out the same */
		for (int m = 0; m < CALLER_MODES; m++)
		{
			char		v[64];

			opt.worker_threads = dev ? 0 : 1 + m;
			snprintf(v, sizeof(v), "%s, %s", dev ? "GPU" : "CPU", caller_mode_name[m]);
			caller_mode_set(m, true);
			nok += run_one(name, v, A, B, &e, &opt, &st, NULL);
			caller_mode_set(m, false);
			nrun++;
		}
		opt.worker_threads = 0;
		if (dev)
		{
			/* a few MiB: the smallest output buffers, many chunks, overflow re-runs */
			opt.gpu_memory_limit = 3u << 20;
			nok += run_one(name, "GPU, 3 MiB", A, B, &e, &opt, &st, &chunks);
			nrun++;
		}
	}
	printf("%s %-44s %8zu pairs, %d/%d variants%s", nok == nrun ? "ok  " : "FAIL", name, e.n,
		   nok, nrun, have_gpu ? "" : "\n");
	if (have_gpu)
		printf(" (GPU at 3 MiB: %d chunks, %u re-runs)\n", chunks, st.splits);
	free(e.bit);
}

static void
check_free(const char *name, boxes A, boxes B)
{
	check(name, &A, &B, UINT32_MAX);
	free(A.box);
	free(B.box);
}

/* ---- data ---- */

/* Copies of a few boxes: identical boxes on both sides. */
static boxes
boxes_duplicated(uint32_t n, int naxes, uint32_t distinct, uint64_t seed)
{
	test_rng	saved = rng;
	boxes		proto,
				b = boxes_new(n, naxes);

	rng.state = seed;
	proto = boxes_random(distinct, naxes, 0, 40, 6, 1);
	rng = saved;
	for (uint32_t i = 0; i < n; i++)
		memcpy(box_at(&b, i), box_at(&proto, (uint32_t) below((int) distinct)),
			   sizeof(double) * 2 * naxes);
	free(proto.box);
	return b;
}

/* Integer boxes, a third of them flat on some axes, some points. */
static boxes
boxes_degenerate(uint32_t n, int naxes)
{
	boxes		b = boxes_random(n, naxes, 0, 32, 4, 1);

	for (uint32_t i = 0; i < n; i++)
		for (int k = 0; k < naxes; k++)
			if (below(3) == 0 || i % 7 == 0)
				box_at(&b, i)[naxes + k] = box_at(&b, i)[k];
	/* pin the domain to [0, 32] so that cell walls fall on integers */
	for (int k = 0; k < naxes; k++)
	{
		box_at(&b, 0)[k] = box_at(&b, 0)[naxes + k] = 0;
		box_at(&b, 1)[k] = box_at(&b, 1)[naxes + k] = 32;
	}
	return b;
}

/* Boxes with corners at small multiples of a subnormal, zero included:
 * bounds that read as zero under denormals-are-zero. */
static boxes
boxes_subnormal(uint32_t n, int naxes)
{
	boxes		b = boxes_new(n, naxes);

	for (uint32_t i = 0; i < n; i++)
		for (int k = 0; k < naxes; k++)
		{
			double		x = (below(7) - 3) * 1e-310,
						y = (below(7) - 3) * 1e-310;

			box_at(&b, i)[k] = x < y ? x : y;
			box_at(&b, i)[naxes + k] = x < y ? y : x;
		}
	return b;
}

/*
 * UTM boxes and, for each, partners one ulp apart on a random axis: a gap
 * of one ulp (must not meet), touching, and an overlap of one ulp (must).
 */
static void
utm_pair(int naxes, uint32_t n, boxes *A, boxes *B)
{
	static const double origin[3] = {500000.0, 7000000.0, -500.0};

	*A = boxes_new(n, naxes);
	*B = boxes_new(3 * n, naxes);
	for (uint32_t i = 0; i < n; i++)
	{
		double	   *a = box_at(A, i);

		for (int k = 0; k < naxes; k++)
		{
			a[k] = origin[k] + uniform() * 2000;
			a[naxes + k] = a[k] + uniform() * 20;
		}
		for (int t = 0; t < 3; t++)
		{
			double	   *b = box_at(B, 3 * i + t);
			int			k = below(naxes);
			bool		above = below(2);

			memcpy(b, a, sizeof(double) * 2 * naxes);
			if (above)
			{
				double		edge = a[naxes + k];

				b[k] = t == 0 ? nextafter(edge, INFINITY) : t == 1 ? edge : nextafter(edge, -INFINITY);
				b[naxes + k] = b[k] + uniform() * 20;
			}
			else
			{
				double		edge = a[k];

				b[naxes + k] = t == 0 ? nextafter(edge, -INFINITY) : t == 1 ? edge : nextafter(edge, INFINITY);
				b[k] = b[naxes + k] - uniform() * 20;
			}
		}
	}
}

/* ---- the sink's chunks, stopping, cancel, invalid input ---- */

static bool cancel_always(void) { return true; }

static void
check_control(void)
{
	boxes		A = boxes_random(4500, 2, 0, 100, 3, 0),
				B = boxes_random(4500, 2, 0, 100, 3, 0);
	expected	e = brute_force(&A, &B);
	exg_join_options opt;
	exg_join_stats st;
	exg_error	err;
	int			chunks;

	for (int dev = 0; dev < 1 + have_gpu; dev++)
	{
		const char *dn = dev ? "GPU" : "CPU";
		collector	c = {&e, calloc((size_t) e.na * e.nb / 8 + 1, 1), 0, 0, 0, 0, 0, EXG_OK};
		exg_status	rc;

		exg_join_options_default(&opt);
		opt.device = dev ? EXG_DEVICE_GPU : EXG_DEVICE_CPU;
		/* one or two cells: 2 x 10^7 comparisons, more than one CPU round or GPU chunk */
		opt.grid_cells = 1;
		if (dev)
			opt.gpu_memory_limit = 3u << 20;
		run_one("one cell, 4500 x 4500", dn, &A, &B, &e, &opt, &st, &chunks);
		printf("%s %s sink got %d chunks, %u waves\n", chunks > 1 ? "ok  " : "FAIL", dn, chunks,
			   st.waves);
		test_failures += chunks <= 1;

		/* a sink that fails at its second chunk stops the join with its status */
		c.fail_at = 2;
		c.fail_with = EXG_ERR_UNSUPPORTED;
		rc = exg_box_join(&A.set, &B.set, 2, &opt, collect, &c, &st, &err);
		printf("%s %s sink error stops the join: %s after %d chunks\n",
			   rc == EXG_ERR_UNSUPPORTED && c.chunks == 2 ? "ok  " : "FAIL", dn, exg_status_name(rc),
			   c.chunks);
		test_failures += !(rc == EXG_ERR_UNSUPPORTED && c.chunks == 2);
		if (dev)
			check_memory("sink error");

		exg_set_cancel_callback(cancel_always);
		rc = exg_box_join(&A.set, &B.set, 2, &opt, collect, &c, &st, &err);
		exg_set_cancel_callback(NULL);
		printf("%s %s cancel: %s\n", rc == EXG_ERR_INTERRUPTED ? "ok  " : "FAIL", dn, exg_status_name(rc));
		test_failures += rc != EXG_ERR_INTERRUPTED;
		if (dev)
			check_memory("cancel");
		free(c.seen);
	}
	free(e.bit);
	free(A.box);
	free(B.box);
}

/*
 * The GPU short of memory: a budget below the inputs' size, and allocations
 * that fail (EXACTGPU_TEST_ALLOC_LIMIT, the runtime's fault injection):
 * the larger input is joined in parts, with the same pairs.
 */
static void
check_split(void)
{
	boxes		A = boxes_random(60000, 2, 0, 1000, 10, 0),
				B = boxes_random(2000, 2, 0, 1000, 30, 0);
	expected	e = brute_force(&A, &B);
	exg_join_options opt;
	exg_join_stats st;

	exg_join_options_default(&opt);
	opt.device = EXG_DEVICE_GPU;
	opt.gpu_memory_limit = 3u << 19;
	if (run_one("GPU budget below the inputs", "1.5 MiB", &A, &B, &e, &opt, &st, NULL))
		printf("%s GPU budget below the inputs: %zu pairs, %u splits, %u chunks\n",
			   st.splits ? "ok  " : "FAIL", e.n, st.splits, st.waves);
	test_failures += st.splits == 0;
	opt.gpu_memory_limit = 0;
	setenv("EXACTGPU_TEST_ALLOC_LIMIT", "600000", 1);
	if (run_one("GPU allocations failing", "> 600 kB", &A, &B, &e, &opt, &st, NULL))
		printf("%s GPU allocations above 600 kB failing: %zu pairs, %u splits, %u chunks\n",
			   st.splits ? "ok  " : "FAIL", e.n, st.splits, st.waves);
	test_failures += st.splits == 0;
	unsetenv("EXACTGPU_TEST_ALLOC_LIMIT");
	free(e.bit);
	free(A.box);
	free(B.box);

	/*
	 * A chunk sized on the hit rate of a sparse start (tiny boxes in the
	 * first cells of a 2 x 2 grid) that meets a dense last cell overflows
	 * its buffer: it must be computed again in parts, no pair lost or repeated.
	 */
	A = boxes_random(2500, 2, 0, 100, 0.001, 0);
	B = boxes_random(2500, 2, 0, 100, 0.001, 0);
	for (uint32_t i = 0; i < 1000; i++)
		for (int k = 0; k < 2; k++)
		{
			box_at(i < 500 ? &A : &B, i % 500)[k] = 95 + uniform();
			box_at(i < 500 ? &A : &B, i % 500)[2 + k] = 99 + uniform();
		}
	e = brute_force(&A, &B);
	opt.gpu_memory_limit = 3u << 20;
	opt.grid_cells = 4;
	if (run_one("GPU chunk overflow", "3 MiB, 4 cells", &A, &B, &e, &opt, &st, NULL))
		printf("%s GPU chunk overflow: %zu pairs, %u chunks, %u computed again\n",
			   st.splits ? "ok  " : "FAIL", e.n, st.waves, st.splits);
	test_failures += st.splits == 0;
	free(e.bit);
	free(A.box);
	free(B.box);
}

/* The sink runs in the caller's floating-point mode, not the engine's. */
static int	sink_round;
static unsigned sink_csr;

static exg_status
note_mode(void *arg, const exg_pair *pairs, size_t n)
{
	(void) arg;
	(void) pairs;
	(void) n;
	sink_round = fegetround();
#if defined(__SSE2__)
	sink_csr = _mm_getcsr() & FTZ_DAZ;
#endif
	return EXG_OK;
}

static void
check_sink_mode(void)
{
	boxes		A = boxes_random(200, 2, 0, 10, 3, 0),
				B = boxes_random(200, 2, 0, 10, 3, 0),
				H = boxes_new(1, 2);
	exg_join_options opt;
	exg_join_stats st;
	exg_error	err;

	/* one box over all doubles: extents saturate or overflow by mode */
	box_at(&H, 0)[0] = box_at(&H, 0)[1] = -DBL_MAX;
	box_at(&H, 0)[2] = box_at(&H, 0)[3] = DBL_MAX;
	for (int dev = 0; dev < 1 + have_gpu; dev++)
		for (int m = 0; m < CALLER_MODES; m++)
		{
			int			want_round;
			unsigned	want_csr = 0;
			exg_status	rc;
			uint64_t	entries;

			exg_join_options_default(&opt);
			opt.device = dev ? EXG_DEVICE_GPU : EXG_DEVICE_CPU;
			caller_mode_set(m, true);
			want_round = fegetround();
#if defined(__SSE2__)
			want_csr = _mm_getcsr() & FTZ_DAZ;
#endif
			sink_round = -1;
			rc = exg_box_join(&A.set, &B.set, 2, &opt, note_mode, NULL, &st, &err);
			opt.grid_cells = 7;
			if (rc == EXG_OK)
				rc = exg_box_join(&H.set, &H.set, 2, &opt, note_mode, NULL, &st, &err);
			entries = st.grid_entries;
			caller_mode_set(m, false);
			if (rc != EXG_OK || sink_round != want_round || sink_csr != want_csr || entries > 2)
			{
				printf("FAIL sink mode (%s, %s): %s, sink saw rounding %d (want %d), "
					   "FTZ/DAZ %#x (want %#x), %llu grid entries for one huge box a side\n",
					   dev ? "GPU" : "CPU", caller_mode_name[m],
					   rc == EXG_OK ? "ok" : err.message, sink_round, want_round, sink_csr,
					   want_csr, (unsigned long long) entries);
				test_failures++;
			}
			else
				printf("ok   sink mode (%s, %s): the caller's; a box over all doubles: %llu entries\n",
					   dev ? "GPU" : "CPU", caller_mode_name[m], (unsigned long long) entries);
		}
	free(A.box);
	free(B.box);
	free(H.box);
}

static void
expect_invalid(const char *what, const boxes *A, const boxes *B, int naxes, exg_device dev,
			   uint64_t row, int side)
{
	exg_join_options opt;
	exg_error	err;
	collector	c = {0};
	exg_status	rc;

	exg_join_options_default(&opt);
	opt.device = dev;
	rc = exg_box_join(&A->set, &B->set, naxes, &opt, collect, &c, NULL, &err);
	if (rc != EXG_ERR_ARGUMENT || err.row != row || err.side != side || c.chunks)
	{
		printf("FAIL invalid input (%s, %s): %s, row %llu side %d\n", what,
			   dev == EXG_DEVICE_GPU ? "GPU" : "CPU", exg_status_name(rc),
			   (unsigned long long) err.row, err.side);
		test_failures++;
	}
	else
		printf("ok   invalid input (%s, %s): %s\n", what, dev == EXG_DEVICE_GPU ? "GPU" : "CPU",
			   err.message);
}

static void
check_invalid(void)
{
	for (int dev = 0; dev < 1 + have_gpu; dev++)
	{
		exg_device	d = dev ? EXG_DEVICE_GPU : EXG_DEVICE_CPU;
		boxes		A = boxes_random(100, 3, 0, 10, 1, 0),
					B = boxes_random(100, 3, 0, 10, 1, 0),
					E = boxes_new(0, 3);

		box_at(&A, 41)[1] = NAN;
		expect_invalid("NaN", &A, &B, 3, d, 42, 0);
		box_at(&A, 41)[1] = 0;
		box_at(&B, 7)[5] = INFINITY;
		expect_invalid("infinity", &A, &B, 3, d, 8, 1);
		expect_invalid("infinity, other side empty", &E, &B, 3, d, 8, 1);
		box_at(&B, 7)[5] = box_at(&B, 7)[2];
		box_at(&B, 99)[0] = box_at(&B, 99)[3] + 1;
		expect_invalid("lo > hi", &A, &B, 3, d, 100, 1);
		box_at(&B, 99)[0] = box_at(&B, 99)[3];
		expect_invalid("4 axes", &A, &B, 4, d, 0, 0);
		free(A.box);
		free(B.box);
		free(E.box);
	}
}

int
main(int argc, char **argv)
{
	exg_error	err;
	boxes		A,
				B;

	have_gpu = exg_gpu_device_count(&err) > 0;
	if (argc > 1 && strcmp(argv[1], "--gpu") == 0 && !have_gpu)
	{
		printf("FAIL --gpu given but no GPU is usable: %s\n", err.message);
		return 1;
	}
	printf("test_box_join: CPU%s\n", have_gpu ? " and GPU" : " only (no GPU usable)");

	for (int d = 2; d <= 3; d++)
	{
		char		name[64];

#define NAME(s) (snprintf(name, sizeof(name), "%dD " s, d), name)
		check_free(NAME("random"), boxes_random(1500, d, 0, 100, 6, 0), boxes_random(1400, d, 0, 100, 6, 0));
		check_free(NAME("integer, touching"), boxes_random(1500, d, 0, 32, 4, 1), boxes_random(1500, d, 0, 32, 4, 1));
		check_free(NAME("zero-width and points on walls"), boxes_degenerate(1500, d), boxes_degenerate(1200, d));
		check_free(NAME("duplicates"), boxes_duplicated(1200, d, 150, 11), boxes_duplicated(1300, d, 150, 11));
		check_free(NAME("subnormal corners"), boxes_subnormal(300, d), boxes_subnormal(300, d));
		A = boxes_random(1200, d, 0, 100, 4, 0.5);
		for (int k = 0; k < d; k++)
		{
			box_at(&A, 600)[k] = -1000;
			box_at(&A, 600)[d + k] = 1000;
		}
		check_free(NAME("one box covering all"), A, boxes_random(1200, d, 0, 100, 4, 0.5));
		A = boxes_random(1000, d, 0, 1, 2, 0);
		B = boxes_random(1000, d, 0, 1, 2, 0);
		check(NAME("dense: all meet (many blocks per cell)"), &A, &B, 4096);
		free(A.box);
		free(B.box);
		/* sparse cells first (low ids), dense ones last: chunks sized on the
		 * sparse ones overflow on the dense ones */
		A = boxes_random(1500, d, 0, 100, 1, 0);
		B = boxes_random(1500, d, 0, 100, 1, 0);
		for (uint32_t i = 0; i < 1000; i++)
			for (int k = 0; k < d; k++)
			{
				box_at(i < 500 ? &A : &B, i % 500)[k] = 95 + uniform();
				box_at(i < 500 ? &A : &B, i % 500)[d + k] = 99 + uniform();
			}
		check_free(NAME("sparse, then a dense corner"), A, B);
		utm_pair(d, 600, &A, &B);
		check_free(NAME("UTM, one-ulp gaps and overlaps"), A, B);
		A = boxes_random(1000, d, 0, 50, 3, 1);
		for (uint32_t i = 0; i < 1000; i++)
			box_at(&A, i)[d + 1] = box_at(&A, i)[1] = 7;	/* all on one line */
		check_free(NAME("flat on one axis"), A, boxes_random(1000, d, 0, 50, 3, 1));
		check_free(NAME("empty x some"), boxes_new(0, d), boxes_random(10, d, 0, 5, 1, 0));
		check_free(NAME("some x empty"), boxes_random(10, d, 0, 5, 1, 0), boxes_new(0, d));
		check_free(NAME("one x one"), boxes_random(1, d, 0, 5, 5, 0), boxes_random(1, d, 0, 5, 5, 0));
		check_free(NAME("disjoint bounds"), boxes_random(100, d, 0, 5, 1, 0), boxes_random(100, d, 10, 5, 1, 0));
	}
	check_control();
	if (have_gpu)
		check_split();
	check_invalid();
	check_sink_mode();

	printf("test_box_join: %ld failures\n", test_failures);
	return test_failures != 0;
}
