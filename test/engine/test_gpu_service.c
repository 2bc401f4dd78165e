/*
 * test_gpu_service.c — what a process serving many joins asks of the
 * engine (the GPU service): joins cut over devices, threads joining side
 * by side, bodies kept on the device. The contract is one: the pairs are
 * exactly those exg_batch_join_as gives, in its order.
 *
 * Bodies: closed bumpy spheres, one a row (harness mesh builders); holes:
 * random segments, one a row; samples: random points, one a row. For every
 * join mode (holes meet bodies; bodies as volumes against holes, and
 * against points; points located in bodies):
 *
 *   always (CPU): exg_batch_join_devices with CPU ranges (device -1) cut in
 *     1, 2 and 3 ranges of either side, rows sharing places in the order
 *     included, equals exg_batch_join_as; a bad body gives the same error
 *     and row; a thread's cancel source is its own; without a GPU, binding
 *     says "no device";
 *   --gpu: two and four threads joining at once, bound to one or several
 *     devices, equal the sequential joins, and a cancelled thread stops
 *     alone; bodies kept on the device (exg_gpu_keep) are uploaded once
 *     (the next joins hit, pairs the same), evicted under a small budget
 *     (pairs the same), forgotten on demand; the join cut over 1, 2 ranges
 *     of one device, every device, and two devices when there are two,
 *     equals the one-device join. The pool's memory is back to zero after.
 *
 * A point at a sphere's centre lies inside it: the pairs of those points
 * are known without the engine, so an empty answer cannot pass.
 *
 * --bench (with --gpu) adds timings for the report: holes against a
 * million triangles kept or not, cut over devices, clients at once.
 *
 *   test_gpu_service [--gpu [--bench]] [seed]
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "batch.h"
#include "batch_packed.h"
#include "cancel.h"
#include "gpu.h"
#include "harness.h"
#include "parallel.h"

#define NBODIES 12
#define NHOLES 1500
#define NPOINTS 2000
#define SPACING 10.0

static uint64_t seed = 20261127;

/*
 * Rows of one closed bumpy sphere each, on a 4 x 3 grid of centres; nu x nv
 * quads each; all lengths times scale (vertices are snapped to 1/8: a finer
 * mesh needs larger spheres, or its vertices collapse).
 */
static void
make_bodies_fine(exg_batch *b, uint64_t s, int nu, int nv, double scale, double bump)
{
	test_rng	rng = {s};

	exg_batch_init(b, 3, EXG_NONPLANAR_ERROR);
	for (int k = 0; k < NBODIES; k++)
	{
		test_mesh	m = {0};
		const double o[3] = {0, 0, 0};
		const double c[3] = {scale * SPACING * (k % 4), scale * SPACING * (k / 4), 0};
		exg_flat_row row;
		exg_error	err = {0};

		test_mesh_add_round(&m, o, c, scale * (3.0 + (k % 3) * 0.5), 0, false, nu, nv, bump, &rng);
		row = (exg_flat_row) {m.xyz, m.tri, m.nv, m.nt, 0, 3};
		CHECK(exg_batch_append_flat(b, &row, 1, 1, &err) == EXG_OK, "%s", err.message);
		test_mesh_free(&m);
	}
}

static void
make_bodies(exg_batch *b, uint64_t s)
{
	make_bodies_fine(b, s, 24, 16, 1, 0.15);
}

static double
coord(test_rng *rng, double lo, double hi)
{
	/* multiples of 1/64: exact, and often on the bodies' grid of 1/8 */
	return lo + (double) (int64_t) (rng_uniform(rng) * (hi - lo) * 64) / 64;
}

/* Rows of one segment each over the bodies' domain; the first join neighbours. */
static void
make_holes_n(exg_batch *b, uint64_t s, int n, double scale)
{
	test_rng	rng = {s};
	static const uint32_t seg_tri[3] = {0, 1, 1};

	exg_batch_init(b, 3, EXG_NONPLANAR_ERROR);
	for (int i = 0; i < n; i++)
	{
		double		xyz[6];
		exg_flat_row row;
		exg_error	err = {0};

		if (i < NBODIES && i % 4 < 3)
		{
			/* centre of body i to centre of body i + 1: meets both */
			xyz[0] = scale * SPACING * (i % 4);
			xyz[1] = xyz[4] = scale * SPACING * (i / 4);
			xyz[2] = xyz[5] = 0.5;
			xyz[3] = xyz[0] + scale * SPACING;
		}
		else
		{
			xyz[0] = coord(&rng, -5 * scale, scale * (3 * SPACING + 5));
			xyz[1] = coord(&rng, -5 * scale, scale * (2 * SPACING + 5));
			xyz[2] = coord(&rng, -6 * scale, 6 * scale);
			for (int k = 0; k < 3; k++)
				xyz[3 + k] = xyz[k] + coord(&rng, -4 * scale, 4 * scale);
		}
		row = (exg_flat_row) {xyz, seg_tri, 2, 1, 0, 3};
		CHECK(exg_batch_append_flat(b, &row, 1, 1, &err) == EXG_OK, "%s", err.message);
	}
}

static void
make_holes(exg_batch *b, uint64_t s)
{
	make_holes_n(b, s, NHOLES, 1);
}

/* Rows of one point each; the first NBODIES at the bodies' centres. */
static void
make_points_n(exg_batch *b, uint64_t s, int n, double scale)
{
	test_rng	rng = {s};
	static const uint32_t pt_tri[3] = {0, 0, 0};

	exg_batch_init(b, 3, EXG_NONPLANAR_ERROR);
	for (int i = 0; i < n; i++)
	{
		double		xyz[3];
		exg_flat_row row;
		exg_error	err = {0};

		if (i < NBODIES)
		{
			xyz[0] = scale * SPACING * (i % 4);
			xyz[1] = scale * SPACING * (i / 4);
			xyz[2] = 0;
		}
		else
		{
			xyz[0] = coord(&rng, -5 * scale, scale * (3 * SPACING + 5));
			xyz[1] = coord(&rng, -5 * scale, scale * (2 * SPACING + 5));
			xyz[2] = coord(&rng, -5 * scale, 5 * scale);
		}
		row = (exg_flat_row) {xyz, pt_tri, 1, 1, 0, 3};
		CHECK(exg_batch_append_flat(b, &row, 1, 1, &err) == EXG_OK, "%s", err.message);
	}
}

static void
make_points(exg_batch *b, uint64_t s)
{
	make_points_n(b, s, NPOINTS, 1);
}

/* Rows are surfaces again (a volume join marks its left side's rows). */
static void
unmark_volumes(exg_batch *b)
{
	if (b->solid)
		memset(b->solid, 0, b->nrows);
	b->nsolid = 0;
}

/* The four joins: which batches, which mode. */
enum
{
	J_HOLES_BODIES,				/* INTERSECTS: holes (L) meet bodies (R) */
	J_VOLUMES_HOLES,			/* VOLUMES: bodies (L) as volumes against holes */
	J_VOLUMES_POINTS,			/* VOLUMES: bodies (L) against points: point in solid */
	J_POINTS_BODIES,			/* LOCATE: points (L) in bodies (R) */
	J_KINDS
};

static const char *const kind_name[J_KINDS] = {
	"holes x bodies", "volumes x holes", "volumes x points", "points in bodies"
};

typedef struct inputs
{
	exg_batch  *bodies;
	exg_batch  *holes;
	exg_batch  *points;
} inputs;

static exg_batch_join_mode
mode_of(int kind)
{
	return kind == J_HOLES_BODIES ? EXG_BATCH_INTERSECTS
		: kind == J_POINTS_BODIES ? EXG_BATCH_LOCATE : EXG_BATCH_VOLUMES;
}

static void
sides_of(const inputs *in, int kind, exg_batch **L, exg_batch **R)
{
	switch (kind)
	{
		case J_HOLES_BODIES:
			*L = in->holes;
			*R = in->bodies;
			break;
		case J_VOLUMES_HOLES:
			*L = in->bodies;
			*R = in->holes;
			break;
		case J_VOLUMES_POINTS:
			*L = in->bodies;
			*R = in->points;
			break;
		default:
			*L = in->points;
			*R = in->bodies;
			break;
	}
}

typedef struct rows
{
	uint64_t   *p;
	size_t		n;
} rows;

/* exg_batch_join_as on the calling thread (volumes unmarked before and after). */
static exg_status
join_one(const inputs *in, int kind, const exg_join_options *opt, rows *out,
		 exg_join_stats *st, exg_error *err)
{
	exg_batch  *L,
			   *R;
	exg_status	rc;

	sides_of(in, kind, &L, &R);
	unmark_volumes(L);
	unmark_volumes(R);
	rc = exg_batch_join_as(L, R, mode_of(kind), opt, &out->p, &out->n, st, err);
	unmark_volumes(L);
	return rc;
}

static exg_status
join_devices(const inputs *in, int kind, const int *devices, int k, int split,
			 const exg_join_options *opt, rows *out, exg_join_stats *st,
			 exg_join_stats *per, exg_error *err)
{
	exg_batch  *L,
			   *R;
	exg_status	rc;

	sides_of(in, kind, &L, &R);
	unmark_volumes(L);
	unmark_volumes(R);
	rc = exg_batch_join_devices(L, R, mode_of(kind), devices, k, split, opt, &out->p, &out->n,
								st, per, err);
	unmark_volumes(L);
	return rc;
}

static bool
same_rows(const rows *a, const rows *b)
{
	return a->n == b->n && (a->n == 0 || memcmp(a->p, b->p, sizeof(uint64_t) * a->n) == 0);
}

/* The centre points' pairs (known without the engine) are among the rows. */
static void
check_centres(int kind, const rows *r, const char *what)
{
	size_t		found = 0;

	if (kind != J_POINTS_BODIES && kind != J_VOLUMES_POINTS)
		return;
	for (uint32_t k = 0; k < NBODIES; k++)
	{
		/* point row k is at body row k's centre; the body's place is (k + 1) / 2 (see main) */
		uint64_t	want = kind == J_POINTS_BODIES ? ((uint64_t) k << 32) | ((k + 1) / 2)
			: ((uint64_t) ((k + 1) / 2) << 32) | k;

		for (size_t i = 0; i < r->n; i++)
			found += r->p[i] == want;
	}
	CHECK(found == NBODIES, "%s: %zu of the %d centre points paired with their body", what,
		  found, NBODIES);
}

/* ---------------------------------------------------------------- CPU ---- */

static bool
always_cancel(void *arg)
{
	(void) arg;
	return true;
}

static void *
cancel_probe(void *arg)
{
	*(bool *) arg = exg_cancel_requested();
	return NULL;
}

static void
test_cancel_sources(void)
{
	pthread_t	t;
	bool		other = true;

	test_context = "cancel sources";
	CHECK(!exg_cancel_requested(), "nothing asks to stop at first");
	exg_set_thread_cancel(always_cancel, NULL);
	CHECK(exg_cancel_requested(), "this thread's source is polled");
	pthread_create(&t, NULL, cancel_probe, &other);
	pthread_join(t, NULL);
	CHECK(!other, "another thread does not see this thread's source");
	{
		exg_cancel_source s = exg_cancel_source_get(),
					saved;

		pthread_create(&t, NULL, cancel_probe, &other);
		pthread_join(t, NULL);
		saved = exg_cancel_source_adopt((exg_cancel_source) {NULL, NULL});
		CHECK(!exg_cancel_requested() && saved.fn == always_cancel && s.fn == always_cancel,
			  "a source adopted replaces the thread's own and gives the old one back");
		exg_cancel_source_adopt(saved);
	}
	exg_set_thread_cancel(NULL, NULL);
	CHECK(!exg_cancel_requested(), "cleared");
	test_context = NULL;
}

/* The cut join on CPU ranges equals the whole one, for every mode, cut and side. */
static void
test_cpu_ranges(const inputs *in)
{
	static const int cpu[3] = {-1, -1, -1};
	exg_join_options opt;

	exg_join_options_default(&opt);
	opt.device = EXG_DEVICE_CPU;
	opt.worker_threads = 2;
	for (int kind = 0; kind < J_KINDS; kind++)
	{
		rows		ref = {0};
		exg_error	err = {0};
		exg_join_stats ref_st;

		if (join_one(in, kind, &opt, &ref, &ref_st, &err) != EXG_OK)
		{
			FAIL("%s on the CPU: %s", kind_name[kind], err.message);
			continue;
		}
		CHECK(ref.n > 0, "%s: some pairs", kind_name[kind]);
		check_centres(kind, &ref, kind_name[kind]);
		for (int k = 1; k <= 3; k++)
			for (int split = -1; split <= 1; split++)
			{
				rows		got = {0};
				exg_join_stats st;

				if (join_devices(in, kind, cpu, k, split, &opt, &got, &st, NULL, &err) != EXG_OK)
					FAIL("%s, %d CPU ranges, side %d: %s", kind_name[kind], k, split, err.message);
				else
					CHECK(same_rows(&got, &ref), "%s, %d CPU ranges, side %d: %zu pairs, whole join %zu",
						  kind_name[kind], k, split, got.n, ref.n);
				CHECK(st.hits == ref_st.hits, "%s, %d CPU ranges, side %d: %llu hits, whole join %llu",
					  kind_name[kind], k, split, (unsigned long long) st.hits,
					  (unsigned long long) ref_st.hits);
				free(got.p);
			}
		printf("ok   CPU ranges: %-18s %zu pairs, cut 1-3 ways on either side\n", kind_name[kind],
			   ref.n);
		free(ref.p);
	}
}

/* A row that is no surface among the volumes: the same error and row, cut or not. */
static void
test_cpu_error(const inputs *in)
{
	static const int cpu[3] = {-1, -1, -1};
	static const uint32_t seg_tri[3] = {0, 1, 1};
	const double seg[6] = {0, 0, 0, 1, 1, 1};
	exg_batch	bad;
	exg_flat_row row = {seg, seg_tri, 2, 1, 0, 3};
	exg_join_options opt;
	exg_error	e1 = {0},
				e2 = {0};
	rows		r1 = {0},
				r2 = {0};
	exg_status	s1,
				s2;

	make_bodies(&bad, seed);
	/* the bad row last, so that the last range of a cut meets it */
	CHECK(exg_batch_append_flat(&bad, &row, 1, 1, &e1) == EXG_OK, "%s", e1.message);
	exg_join_options_default(&opt);
	opt.device = EXG_DEVICE_CPU;
	s1 = exg_batch_join_as(&bad, in->holes, EXG_BATCH_VOLUMES, &opt, &r1.p, &r1.n, NULL, &e1);
	unmark_volumes(&bad);
	s2 = exg_batch_join_devices(&bad, in->holes, EXG_BATCH_VOLUMES, cpu, 3, 0, &opt, &r2.p, &r2.n,
								NULL, NULL, &e2);
	CHECK(s1 != EXG_OK && s1 == s2 && e1.row == e2.row && e1.side == e2.side &&
		  strcmp(e1.message, e2.message) == 0,
		  "whole: %s row %llu side %d '%s'; cut: %s row %llu side %d '%s'", exg_status_name(s1),
		  (unsigned long long) e1.row, e1.side, e1.message, exg_status_name(s2),
		  (unsigned long long) e2.row, e2.side, e2.message);
	CHECK(e1.row == NBODIES + 1, "the bad row is named (%llu)", (unsigned long long) e1.row);
	printf("ok   CPU ranges: a bad body gives '%s', row %llu, cut or not\n", e2.message,
		   (unsigned long long) e2.row);
	free(r1.p);
	free(r2.p);
	exg_batch_free(&bad);
}

/* Without a usable GPU the service's entry points say so, and join nothing. */
static void
test_no_device(const inputs *in)
{
	static const int dev0[2] = {0, 0};
	exg_error	err = {0};
	exg_join_options opt;
	rows		r = {0};
	exg_gpu_keep_stats ks;

	if (exg_gpu_device_count(&err) > 0)
		return;
	memset(&err, 0, sizeof(err));
	CHECK(exg_gpu_thread_bind(0, &err) == EXG_ERR_DEVICE, "bind without a GPU: %s", err.message);
	CHECK(exg_gpu_thread_device() == -1);
	CHECK(exg_gpu_thread_prepare(1 << 20, 1 << 20, &err) == EXG_ERR_DEVICE, "prepare without a GPU");
	exg_join_options_default(&opt);
	CHECK(join_devices(in, J_HOLES_BODIES, dev0, 2, -1, &opt, &r, NULL, NULL, &err) == EXG_ERR_DEVICE,
		  "a join over devices without a GPU: %s", err.message);
	CHECK(r.p == NULL && r.n == 0);
	(void) exg_gpu_keep(in->bodies->xyz, 64, 1);
	exg_gpu_keep_info(0, &ks);
	CHECK(ks.bytes_kept == 0, "nothing on a device without one");
	exg_gpu_keep_forget(1);
	printf("ok   no GPU: bind and joins over devices say '%s'\n", err.message);
}

/* ---------------------------------------------------------------- GPU ---- */

typedef struct thread_job
{
	const inputs *in;
	int			kind;
	int			device;
	int			reps;
	bool		box_stage;		/* the box-join first stage instead of cell pairs */
	bool		cancel;			/* this thread's source asks to stop */
	rows		got[4];
	exg_status	status[4];
	exg_status	prepared;		/* exg_gpu_thread_prepare's */
	exg_error	err;
} thread_job;

static void *
thread_main(void *arg)
{
	thread_job *j = arg;
	exg_join_options opt;

	exg_join_options_default(&opt);
	opt.device = EXG_DEVICE_GPU;
	opt.worker_threads = 2;
	if (j->box_stage)
		opt.cull = EXG_CULL_BOX_JOIN;
	if (j->cancel)
		exg_set_thread_cancel(always_cancel, NULL);
	if (exg_gpu_thread_bind(j->device, &j->err) != EXG_OK)
	{
		for (int r = 0; r < j->reps; r++)
			j->status[r] = j->err.status;
		return NULL;
	}
	j->prepared = exg_gpu_thread_prepare((size_t) 8 << 20, (size_t) 64 << 20, &j->err);
	for (int r = 0; r < j->reps; r++)
		j->status[r] = join_one(j->in, j->kind, &opt, &j->got[r], NULL, &j->err);
	exg_gpu_thread_unbind();
	exg_set_thread_cancel(NULL, NULL);
	return NULL;
}

/* Each kind's pairs on one device, sequentially: what the others must give. */
static void
gpu_references(const inputs *in, rows *ref)
{
	exg_join_options opt;

	exg_join_options_default(&opt);
	opt.device = EXG_DEVICE_GPU;
	for (int kind = 0; kind < J_KINDS; kind++)
	{
		exg_error	err = {0};
		exg_join_stats st;
		rows		cpu = {0};

		if (join_one(in, kind, &opt, &ref[kind], &st, &err) != EXG_OK)
			FAIL("%s on the GPU: %s", kind_name[kind], err.message);
		CHECK(st.used_gpu, "%s ran on the GPU", kind_name[kind]);
		check_centres(kind, &ref[kind], kind_name[kind]);
		opt.device = EXG_DEVICE_CPU;
		if (join_one(in, kind, &opt, &cpu, NULL, &err) != EXG_OK)
			FAIL("%s on the CPU: %s", kind_name[kind], err.message);
		CHECK(same_rows(&cpu, &ref[kind]), "%s: GPU and CPU agree", kind_name[kind]);
		opt.device = EXG_DEVICE_GPU;
		free(cpu.p);
	}
}

/* nthreads threads at once, thread i on devices[i % ndev], every kind. */
static void
test_threads(const inputs *in, const rows *ref, int nthreads, int ndev, bool cancel_one)
{
	thread_job	jobs[8];
	pthread_t	tid[8];
	double		t0 = now_seconds();
	int			bad = 0;

	memset(jobs, 0, sizeof(jobs));
	for (int i = 0; i < nthreads; i++)
	{
		/* each thread its own batches: a volume join marks its left side */
		inputs	   *mine = malloc(sizeof(inputs));

		mine->bodies = malloc(sizeof(exg_batch));
		mine->holes = malloc(sizeof(exg_batch));
		mine->points = malloc(sizeof(exg_batch));
		make_bodies(mine->bodies, seed);
		make_holes(mine->holes, seed + 1);
		make_points(mine->points, seed + 2);
		mine->bodies->order = in->bodies->order;
		jobs[i] = (thread_job) {.in = mine, .kind = i % J_KINDS, .device = i % ndev, .reps = 3,
			.box_stage = i % 2 == 1, .cancel = cancel_one && i == 0};
	}
	for (int i = 0; i < nthreads; i++)
		pthread_create(&tid[i], NULL, thread_main, &jobs[i]);
	for (int i = 0; i < nthreads; i++)
		pthread_join(tid[i], NULL);
	for (int i = 0; i < nthreads; i++)
	{
		thread_job *j = &jobs[i];

		CHECK(j->prepared == EXG_OK, "thread %d: preparing its context: %s", i, j->err.message);
		for (int r = 0; r < j->reps; r++)
		{
			if (j->cancel)
				CHECK(j->status[r] == EXG_ERR_INTERRUPTED,
					  "thread %d (cancelled), join %d: %s", i, r, exg_status_name(j->status[r]));
			else if (j->status[r] != EXG_OK)
			{
				FAIL("thread %d on GPU %d, %s: %s", i, j->device, kind_name[j->kind], j->err.message);
				bad++;
			}
			else if (!same_rows(&j->got[r], &ref[j->kind]))
			{
				FAIL("thread %d on GPU %d, %s, join %d: %zu pairs, sequential %zu", i, j->device,
					 kind_name[j->kind], r, j->got[r].n, ref[j->kind].n);
				bad++;
			}
			free(j->got[r].p);
		}
		exg_batch_free(j->in->bodies);
		exg_batch_free(j->in->holes);
		exg_batch_free(j->in->points);
		free(j->in->bodies);
		free(j->in->holes);
		free(j->in->points);
		free((void *) j->in);
	}
	printf("%s %d threads on %d device%s at once%s: %d joins each, %.0f ms\n",
		   bad ? "FAIL" : "ok  ", nthreads, ndev, ndev == 1 ? "" : "s",
		   cancel_one ? " (thread 0 cancelled)" : "", 3, 1e3 * (now_seconds() - t0));
}

/* The bodies packed in one block and borrowed back, as the resident store keeps them. */
static void *
pack_bodies(const exg_batch *src, exg_batch *kept, size_t *size)
{
	void	   *block = NULL;
	exg_error	err = {0};

	*size = exg_batch_packed_size(src);
	if (posix_memalign(&block, 64, *size) != 0)
		return NULL;
	exg_batch_pack(src, block);
	exg_batch_init(kept, src->naxes, src->policy);
	CHECK(exg_batch_borrow_packed(kept, block, *size, 1, &err) == EXG_OK, "%s", err.message);
	kept->order = src->order;
	return block;
}

static void
pool_empty(const char *when)
{
	exg_error	err = {0};
	int			n = exg_gpu_device_count(&err);

	for (int d = 0; d < n; d++)
	{
		size_t		used,
					reserved,
					avail;

		exg_gpu_device_memory_info(d, &used, &reserved, &avail);
		CHECK(used == 0, "%s: GPU %d's pool still holds %zu bytes", when, d, used);
	}
}

static void
test_keep(const inputs *in, const rows *ref)
{
	exg_batch	kb,
				kb2,
				bodies2;
	size_t		size,
				size2;
	void	   *block = pack_bodies(in->bodies, &kb, &size);
	void	   *block2;
	inputs		kin = {&kb, in->holes, in->points};
	exg_join_options opt;
	exg_gpu_keep_stats k0,
				k1,
				k2;
	exg_join_stats s1,
				s2;
	rows		r = {0},
				ref2 = {0};
	exg_error	err = {0};

	exg_join_options_default(&opt);
	opt.device = EXG_DEVICE_GPU;
	exg_gpu_keep_budget((size_t) 1 << 30);
	CHECK(exg_gpu_keep(block, size, 1), "the packed bodies kept");

	/* the first join copies the block up whole; the second finds it there */
	exg_gpu_keep_info(0, &k0);
	CHECK(join_one(&kin, J_HOLES_BODIES, &opt, &r, &s1, &err) == EXG_OK, "%s", err.message);
	CHECK(same_rows(&r, &ref[J_HOLES_BODIES]), "first join against kept bodies: same pairs");
	free(r.p);
	exg_gpu_keep_info(0, &k1);
	CHECK(k1.misses == k0.misses + 1 && k1.bytes_uploaded == k0.bytes_uploaded + size &&
		  k1.bytes_kept == size + k1.derived_bytes,
		  "first join: one miss (%llu), the block (%zu bytes) uploaded (%llu)",
		  (unsigned long long) (k1.misses - k0.misses), size,
		  (unsigned long long) (k1.bytes_uploaded - k0.bytes_uploaded));
	/* the bodies, prepared first (more vertices than the holes), kept prepared */
	CHECK(k1.derived_made == k0.derived_made + 1 && k1.derived_bytes > 0,
		  "first join: the bodies' prepared block made (%llu, %zu bytes)",
		  (unsigned long long) (k1.derived_made - k0.derived_made), k1.derived_bytes);
	CHECK(join_one(&kin, J_HOLES_BODIES, &opt, &r, &s2, &err) == EXG_OK, "%s", err.message);
	CHECK(same_rows(&r, &ref[J_HOLES_BODIES]), "second join against kept bodies: same pairs");
	free(r.p);
	exg_gpu_keep_info(0, &k2);
	CHECK(k2.misses == k1.misses && k2.hits >= k1.hits + 2 && k2.bytes_uploaded == k1.bytes_uploaded,
		  "second join: no miss, the bodies' vertices and triangles from the copy (hits %llu)",
		  (unsigned long long) (k2.hits - k1.hits));
	CHECK(k2.bytes_in_use == 0, "no copy in use between joins");
	CHECK(k2.derived_hits == k1.derived_hits + 1 && k2.derived_made == k1.derived_made,
		  "second join: the bodies' prepared block reused (%llu), none made (%llu)",
		  (unsigned long long) (k2.derived_hits - k1.derived_hits),
		  (unsigned long long) (k2.derived_made - k1.derived_made));
	printf("ok   keep: first join uploaded the %zu-byte block (upload phase %.3f ms), the second "
		   "none of it (%llu bytes saved, upload phase %.3f ms)\n", size,
		   s1.phase_ns[EXG_PHASE_UPLOAD] / 1e6, (unsigned long long) (k2.bytes_saved - k1.bytes_saved),
		   s2.phase_ns[EXG_PHASE_UPLOAD] / 1e6);

	/* every mode through the copy: the located bodies' triangles and owners too */
	for (int kind = 0; kind < J_KINDS; kind++)
	{
		exg_gpu_keep_info(0, &k1);
		CHECK(join_one(&kin, kind, &opt, &r, NULL, &err) == EXG_OK, "%s", err.message);
		CHECK(same_rows(&r, &ref[kind]), "%s against kept bodies: same pairs", kind_name[kind]);
		free(r.p);
		exg_gpu_keep_info(0, &k2);
		CHECK(k2.misses == k1.misses && k2.hits >= k1.hits + (kind == J_HOLES_BODIES ? 2 : 3),
			  "%s: the bodies' arrays from the copy (%llu hits)", kind_name[kind],
			  (unsigned long long) (k2.hits - k1.hits));
	}
	pool_empty("after joins with kept bodies");

	/* a budget too small for the block: nothing kept, the same pairs */
	exg_gpu_keep_budget(1);
	exg_gpu_keep_info(0, &k1);
	CHECK(k1.bytes_kept == 0, "a budget of 1 byte evicts the copy (%zu kept)", k1.bytes_kept);
	CHECK(join_one(&kin, J_HOLES_BODIES, &opt, &r, NULL, &err) == EXG_OK, "%s", err.message);
	CHECK(same_rows(&r, &ref[J_HOLES_BODIES]), "no room to keep: same pairs");
	free(r.p);
	exg_gpu_keep_info(0, &k2);
	CHECK(k2.bytes_kept == 0 && k2.hits == k1.hits, "nothing kept under a 1-byte budget");

	/* two blocks, room for one: they evict each other, pairs unchanged */
	make_bodies(&bodies2, seed + 7);
	bodies2.order = in->bodies->order;
	block2 = pack_bodies(&bodies2, &kb2, &size2);
	{
		inputs		in2 = {&bodies2, in->holes, in->points};

		CHECK(join_one(&in2, J_HOLES_BODIES, &opt, &ref2, NULL, &err) == EXG_OK, "%s", err.message);
	}
	CHECK(exg_gpu_keep(block2, size2, 2));
	exg_gpu_keep_budget(size > size2 ? size : size2);
	exg_gpu_keep_info(0, &k1);
	for (int round = 0; round < 4; round++)
	{
		inputs		in2 = {&kb2, in->holes, in->points};

		CHECK(join_one(round % 2 ? &in2 : &kin, J_HOLES_BODIES, &opt, &r, NULL, &err) == EXG_OK,
			  "%s", err.message);
		CHECK(same_rows(&r, round % 2 ? &ref2 : &ref[J_HOLES_BODIES]),
			  "round %d under a one-block budget: same pairs", round);
		free(r.p);
	}
	exg_gpu_keep_info(0, &k2);
	CHECK(k2.evictions >= k1.evictions + 3 && k2.bytes_kept <= (size > size2 ? size : size2),
		  "alternating blocks under a one-block budget evict (%llu evictions, %zu bytes kept)",
		  (unsigned long long) (k2.evictions - k1.evictions), k2.bytes_kept);
	printf("ok   keep: under a one-block budget, 4 joins alternating two blocks: %llu evictions, "
		   "same pairs\n", (unsigned long long) (k2.evictions - k1.evictions));

	/* forgotten: its copy freed (no join uses it) */
	exg_gpu_keep_forget(2);
	exg_gpu_keep_info(0, &k1);
	CHECK(k1.ranges == 1, "one range left after forgetting the other (%llu)",
		  (unsigned long long) k1.ranges);
	exg_gpu_keep_budget((size_t) 1 << 30);

	/*
	 * The caller's bug, caught: the kept block overwritten with other bodies
	 * (as a freed block's memory given to another entry) without forgetting
	 * it. The copy on the device is the old bodies; the join must not use it.
	 */
	CHECK(join_one(&kin, J_HOLES_BODIES, &opt, &r, NULL, &err) == EXG_OK, "%s", err.message);
	free(r.p);
	exg_gpu_keep_info(0, &k1);
	CHECK(k1.bytes_kept == size + k1.derived_bytes, "the block's copy is on the device (%zu bytes)",
		  k1.bytes_kept);
	if (size2 == size)
	{
		exg_batch	reused;
		inputs		in3 = {&reused, in->holes, in->points};

		exg_batch_pack(&bodies2, block);
		exg_batch_init(&reused, bodies2.naxes, bodies2.policy);
		CHECK(exg_batch_borrow_packed(&reused, block, size, 1, &err) == EXG_OK, "%s", err.message);
		reused.order = in->bodies->order;
		CHECK(join_one(&in3, J_HOLES_BODIES, &opt, &r, NULL, &err) == EXG_OK, "%s", err.message);
		CHECK(same_rows(&r, &ref2), "a kept block rewritten unannounced: the new bodies' pairs "
			  "(%zu, the new bodies alone %zu, the old %zu)", r.n, ref2.n, ref[J_HOLES_BODIES].n);
		free(r.p);
		exg_gpu_keep_info(0, &k2);
		CHECK(k2.ranges == 0 && k2.bytes_kept == 0, "the rewritten range forgotten (%llu ranges, "
			  "%zu bytes kept)", (unsigned long long) k2.ranges, k2.bytes_kept);
		printf("ok   keep: a kept block rewritten without being forgotten is noticed, not served\n");
		exg_batch_free(&reused);
		exg_batch_pack(in->bodies, block);
	}
	else
		FAIL("the two bodies' blocks differ in size (%zu, %zu)", size, size2);
	free(ref2.p);
	exg_batch_free(&kb2);
	exg_batch_free(&bodies2);
	free(block2);

	/* forgotten before its memory goes: a later block at its address is another */
	exg_gpu_keep_forget(1);
	exg_gpu_keep_info(0, &k1);
	CHECK(k1.ranges == 0 && k1.bytes_kept == 0, "all forgotten: %llu ranges, %zu bytes kept",
		  (unsigned long long) k1.ranges, k1.bytes_kept);
	exg_batch_free(&kb);
	pool_empty("after the keep tests");
	free(block);
}

static void
test_devices(const inputs *in, const rows *ref, int ndev)
{
	int			all[8],
				nall = ndev < 8 ? ndev : 8;
	const int	one[1] = {0},
				twice[2] = {0, 0},
				pair[2] = {0, 1},
				thrice[3] = {0, 0, 0};
	struct
	{
		const int  *dev;
		int			k;
		const char *name;
	}			cuts[5];
	int			ncuts = 0;
	uint64_t	whole_hits[J_KINDS];
	exg_join_options opt;
	exg_batch	kb;
	size_t		size;
	void	   *block = pack_bodies(in->bodies, &kb, &size);
	inputs		kin = {&kb, in->holes, in->points};

	for (int d = 0; d < nall; d++)
		all[d] = d;
	cuts[ncuts++] = (typeof(cuts[0])) {one, 1, "one range on GPU 0"};
	cuts[ncuts++] = (typeof(cuts[0])) {twice, 2, "two ranges on GPU 0"};
	cuts[ncuts++] = (typeof(cuts[0])) {thrice, 3, "three ranges on GPU 0"};
	cuts[ncuts++] = (typeof(cuts[0])) {all, nall, "a range per GPU"};
	if (ndev >= 2)
		cuts[ncuts++] = (typeof(cuts[0])) {pair, 2, "GPUs 0 and 1"};

	exg_join_options_default(&opt);
	opt.device = EXG_DEVICE_GPU;
	/* each kind's primitive (or located) pairs, whole: what the ranges' add up to */
	for (int kind = 0; kind < J_KINDS; kind++)
	{
		rows		whole = {0};
		exg_error	err = {0};
		exg_join_stats st;

		if (join_one(&kin, kind, &opt, &whole, &st, &err) != EXG_OK)
			FAIL("%s, whole: %s", kind_name[kind], err.message);
		whole_hits[kind] = st.hits;
		free(whole.p);
	}
	CHECK(exg_gpu_keep(block, size, 3), "the bodies kept for every device");
	/*
	 * Ranges of either side or of the larger (split -1), with the cell-pair
	 * cull and the box join (the mine's own size takes the cell pairs), the
	 * kept bodies' prepared blocks made on the first join and read by the
	 * next.
	 */
	for (int cull = 0; cull < 2; cull++)
	for (int kind = 0; kind < J_KINDS; kind++)
		for (int c = 0; c < ncuts; c++)
			for (int split = -1; split <= 1; split++)
			{
				rows		got = {0};
				exg_join_stats st,
							per[8];
				exg_error	err = {0};
				char		times[200] = "";

				opt.cull = cull ? EXG_CULL_BOX_JOIN : EXG_CULL_AUTO;
				if (join_devices(&kin, kind, cuts[c].dev, cuts[c].k, split, &opt, &got, &st, per,
								 &err) != EXG_OK)
				{
					FAIL("%s, %s, side %d, cull %d: %s", kind_name[kind], cuts[c].name, split, cull,
						 err.message);
					continue;
				}
				CHECK(same_rows(&got, &ref[kind]), "%s, %s, side %d, cull %d: %zu pairs, one device %zu",
					  kind_name[kind], cuts[c].name, split, cull, got.n, ref[kind].n);
				CHECK(st.used_gpu && st.hits == whole_hits[kind], "%s, %s, side %d: %llu hits, whole %llu",
					  kind_name[kind], cuts[c].name, split, (unsigned long long) st.hits,
					  (unsigned long long) whole_hits[kind]);
				for (int i = 0; i < cuts[c].k; i++)
					snprintf(times + strlen(times), sizeof(times) - strlen(times), " %d:%.2f",
							 cuts[c].dev[i], per[i].total_ns / 1e6);
				if (split == -1)
					printf("ok   devices: %-18s %-22s %s %6zu pairs, %.2f ms (ranges, GPU:ms%s) on %s\n",
						   kind_name[kind], cuts[c].name, cull ? "box join" : "auto    ", got.n,
						   st.total_ns / 1e6, times, st.device_name);
				free(got.p);
			}
	exg_gpu_keep_forget(3);
	exg_batch_free(&kb);
	free(block);
	pool_empty("after the joins over devices");
}

/*
 * Ranges of a side whose vertices are not in its rows' order (the holes'
 * vertex array reversed: the first rows read the last vertices, and one
 * row more reads the first and the last): each range's GPU copies the
 * vertices its indices name (exg_prim_set's slice), found from the
 * indices, not from where its rows would lie. Same pairs as unsplit.
 */
static void
test_slice_vertices(const inputs *in)
{
	exg_batch	h;
	exg_join_options opt;
	rows		ref = {0};
	exg_error	err = {0};
	const int	dev0[3] = {0, 0, 0};
	uint32_t	last;

	make_holes(&h, seed + 1);
	last = (uint32_t) h.nverts - 1;
	for (size_t v = 0; v < h.nverts / 2; v++)
		for (int k = 0; k < 3; k++)
		{
			double		t = h.xyz[3 * v + k];

			h.xyz[3 * v + k] = h.xyz[3 * (last - v) + k];
			h.xyz[3 * (last - v) + k] = t;
		}
	for (size_t i = 0; i < 3 * h.nprims; i++)
		h.tri[i] = last - h.tri[i];
	/* the last row's last segment from the first vertex to the last */
	h.tri[3 * (h.nprims - 1)] = 0;
	h.tri[3 * (h.nprims - 1) + 1] = h.tri[3 * (h.nprims - 1) + 2] = last;

	exg_join_options_default(&opt);
	opt.device = EXG_DEVICE_GPU;
	CHECK(exg_batch_join_as(&h, in->bodies, EXG_BATCH_INTERSECTS, &opt, &ref.p, &ref.n, NULL,
							&err) == EXG_OK, "%s", err.message);
	for (int k = 2; k <= 3; k++)
		for (int cull = 0; cull < 2; cull++)
		{
			rows		got = {0};

			opt.cull = cull ? EXG_CULL_BOX_JOIN : EXG_CULL_AUTO;
			if (exg_batch_join_devices(&h, in->bodies, EXG_BATCH_INTERSECTS, dev0, k, 0, &opt,
									   &got.p, &got.n, NULL, NULL, &err) != EXG_OK)
				FAIL("reversed vertices, %d ranges: %s", k, err.message);
			else
				CHECK(same_rows(&got, &ref), "reversed vertices, %d ranges, cull %d: %zu pairs, unsplit %zu",
					  k, cull, got.n, ref.n);
			free(got.p);
		}
	printf("ok   ranges of holes with their vertices reversed: %zu pairs\n", ref.n);
	free(ref.p);
	exg_batch_free(&h);
}

/*
 * The context's cache of device blocks: a GPU join leaves its small
 * buffers there (counted free, never in use), the same join again reuses
 * them (the cache does not grow), joins of other kinds and sizes reuse
 * them too (a kernel that read memory it never wrote would show), a trim
 * gives them all back to the pool, and every join gives the CPU's pairs.
 */
static void
test_context_cache(const inputs *in, const rows *ref)
{
	exg_join_options opt;
	rows		cpu = {0},
				got[2] = {{0}, {0}};
	exg_error	err = {0};
	size_t		cached[2] = {0, 0},
				given;

	exg_join_options_default(&opt);
	opt.device = EXG_DEVICE_CPU;
	CHECK(exg_batch_join_as(in->holes, in->bodies, EXG_BATCH_INTERSECTS, &opt, &cpu.p, &cpu.n,
							NULL, &err) == EXG_OK, "CPU: %s", err.message);
	(void) exg_gpu_device_cache_trim(0);
	CHECK(exg_gpu_device_cached_bytes(0) == 0, "nothing cached after a trim");
	opt.device = EXG_DEVICE_GPU;
	for (int r = 0; r < 2; r++)
	{
		CHECK(exg_batch_join_as(in->holes, in->bodies, EXG_BATCH_INTERSECTS, &opt, &got[r].p,
								&got[r].n, NULL, &err) == EXG_OK, "GPU join %d: %s", r, err.message);
		CHECK(same_rows(&got[r], &cpu), "GPU join %d: %zu pairs, CPU %zu", r, got[r].n, cpu.n);
		cached[r] = exg_gpu_device_cached_bytes(0);
		pool_empty("after a join with the cache");
	}
	CHECK(cached[0] > 0, "the first join left no block in the cache");
	CHECK(cached[1] == cached[0], "the same join again: %zu bytes cached, first %zu", cached[1],
		  cached[0]);
	for (int kind = 1; kind < J_KINDS; kind++)
	{
		rows		other = {0};

		if (join_one(in, kind, &opt, &other, NULL, &err) != EXG_OK)
			FAIL("%s after a join of holes, cache kept: %s", kind_name[kind], err.message);
		else
			CHECK(same_rows(&other, &ref[kind]), "%s after a join of holes, cache kept: %zu pairs, "
				  "fresh %zu", kind_name[kind], other.n, ref[kind].n);
		free(other.p);
		pool_empty("after a join of another kind with the cache");
	}
	cached[1] = exg_gpu_device_cached_bytes(0);
	given = exg_gpu_device_cache_trim(0);
	CHECK(given == cached[1], "a trim gave %zu bytes of %zu cached", given, cached[1]);
	CHECK(exg_gpu_device_cached_bytes(0) == 0, "%zu bytes cached after a trim",
		  exg_gpu_device_cached_bytes(0));
	pool_empty("after the cache's trim");
	printf("ok   the context's cache: %zu bytes kept by a join, reused by the next, given back\n",
		   cached[0]);
	free(cpu.p);
	free(got[0].p);
	free(got[1].p);
}

/*
 * A kept layer of flat triangles (z = 0) joined by the box join against
 * segments in its plane (two axes), then against segments leaving it
 * (three), then in the plane again: the blocks kept with the layer are per
 * axis count, some segments lie wholly or partly outside the layer's
 * bounds (the kept grid's domain), and every join gives the pairs of the
 * same join with nothing kept.
 */
static void
test_keep_flat(void)
{
	exg_batch	layer,
				kl,
				segs[2];
	test_rng	rng = {seed + 11};
	exg_join_options opt;
	exg_gpu_keep_stats k0,
				k1;
	size_t		size;
	void	   *block;
	const uint32_t tri[6] = {0, 1, 2, 0, 2, 3};
	static const uint32_t seg_tri[3] = {0, 1, 1};

	exg_batch_init(&layer, 3, EXG_NONPLANAR_ERROR);
	for (int i = 0; i < 40; i++)
		for (int j = 0; j < 40; j++)
		{
			/* a unit square in two triangles, a row of its own */
			double		xyz[12] = {i, j, 0, i + 1, j, 0, i + 1, j + 1, 0, i, j + 1, 0};
			exg_flat_row row = {xyz, tri, 4, 2, 0, 3};
			exg_error	err = {0};

			CHECK(exg_batch_append_flat(&layer, &row, 1, 1, &err) == EXG_OK, "%s", err.message);
		}
	for (int k = 0; k < 2; k++)
	{
		exg_batch_init(&segs[k], 3, EXG_NONPLANAR_ERROR);
		for (int i = 0; i < 300; i++)
		{
			double		xyz[6];
			exg_flat_row row = {xyz, seg_tri, 2, 1, 0, 3};
			exg_error	err = {0};

			/*
			 * Short (as the layer's triangles: its own grid fits them), over
			 * the layer and beyond it; steep ones cross z = 0 or stop short
			 */
			xyz[0] = coord(&rng, -10, 50);
			xyz[1] = coord(&rng, -10, 50);
			xyz[3] = xyz[0] + coord(&rng, -2, 2);
			xyz[4] = xyz[1] + coord(&rng, -2, 2);
			xyz[2] = k ? coord(&rng, -3, 3) : 0;
			xyz[5] = k ? coord(&rng, -3, 3) : 0;
			CHECK(exg_batch_append_flat(&segs[k], &row, 1, 1, &err) == EXG_OK, "%s", err.message);
		}
	}
	block = pack_bodies(&layer, &kl, &size);
	exg_join_options_default(&opt);
	opt.device = EXG_DEVICE_GPU;
	opt.cull = EXG_CULL_BOX_JOIN;
	CHECK(exg_gpu_keep(block, size, 77), "the layer kept");
	exg_gpu_keep_info(0, &k0);
	for (int round = 0; round < 4; round++)
	{
		exg_batch  *seg = &segs[round % 2 == 1];
		rows		want = {0},
					got = {0};
		exg_error	err = {0};

		CHECK(exg_batch_join_as(seg, &layer, EXG_BATCH_INTERSECTS, &opt, &want.p, &want.n, NULL,
								&err) == EXG_OK, "%s", err.message);
		CHECK(exg_batch_join_as(seg, &kl, EXG_BATCH_INTERSECTS, &opt, &got.p, &got.n, NULL,
								&err) == EXG_OK, "%s", err.message);
		CHECK(want.n > 0 && same_rows(&got, &want), "flat layer kept, round %d (%s): %zu pairs, "
			  "not kept %zu", round, round % 2 ? "3 axes" : "2 axes", got.n, want.n);
		free(want.p);
		free(got.p);
	}
	exg_gpu_keep_info(0, &k1);
	/* the prepared records once; exact boxes and the kept grid once per axis count */
	CHECK(k1.derived_made >= k0.derived_made + 5 && k1.derived_hits > k0.derived_hits,
		  "flat and steep joins made their own kept blocks (%llu made, %llu reused)",
		  (unsigned long long) (k1.derived_made - k0.derived_made),
		  (unsigned long long) (k1.derived_hits - k0.derived_hits));
	printf("ok   keep: a flat layer kept, joined in its plane and across it: same pairs, "
		   "%llu blocks made, %llu reused\n",
		   (unsigned long long) (k1.derived_made - k0.derived_made),
		   (unsigned long long) (k1.derived_hits - k0.derived_hits));
	exg_gpu_keep_forget(77);
	exg_batch_free(&kl);
	free(block);
	exg_batch_free(&layer);
	exg_batch_free(&segs[0]);
	exg_batch_free(&segs[1]);
}

/* ------------------------------------------------------------- --bench ---- */

/*
 * Smooth spheres (no bumps) this large: vertices snapped to 1/8 on a finer
 * mesh make smaller or bumpy ones self-intersect near their poles, and the
 * point-in-solid join then refuses them (found on the device).
 */
#define BENCH_SCALE 100.0
#define BENCH_REPS 5
#define BENCH_CLIENTS 8
#define BENCH_CLIENT_HOLES 500
#define BENCH_CLIENT_JOINS 4

/* Median wall time of BENCH_REPS joins over devices (k < 1: exg_batch_join_as); same pairs. */
static double
bench_join(exg_batch *L, exg_batch *R, const int *devices, int k, int split,
		   const exg_join_options *opt, const rows *ref, exg_join_stats *last, const char *what)
{
	double		ms[BENCH_REPS];

	for (int r = 0; r < BENCH_REPS; r++)
	{
		rows		got = {0};
		exg_error	err = {0};
		exg_status	rc;
		double		t0 = now_seconds();

		if (k < 1)
			rc = exg_batch_join_as(L, R, EXG_BATCH_INTERSECTS, opt, &got.p, &got.n, last, &err);
		else
			rc = exg_batch_join_devices(L, R, EXG_BATCH_INTERSECTS, devices, k, split, opt,
										&got.p, &got.n, last, NULL, &err);
		ms[r] = 1e3 * (now_seconds() - t0);
		if (rc != EXG_OK)
			FAIL("bench %s: %s", what, err.message);
		else if (ref && !same_rows(&got, ref))
			FAIL("bench %s: %zu pairs, one device %zu", what, got.n, ref->n);
		free(got.p);
	}
	return median_sorted(ms, BENCH_REPS);
}

typedef struct client_job
{
	exg_batch  *holes;
	exg_batch  *bodies;
	int			device;
	int			threads;
	rows		got[BENCH_CLIENT_JOINS];
	exg_status	status;
} client_job;

static void *
client_main(void *arg)
{
	client_job *c = arg;
	exg_join_options opt;
	exg_error	err = {0};

	exg_join_options_default(&opt);
	opt.device = EXG_DEVICE_GPU;
	opt.worker_threads = c->threads;
	c->status = exg_gpu_thread_bind(c->device, &err);
	for (int j = 0; j < BENCH_CLIENT_JOINS && c->status == EXG_OK; j++)
		c->status = exg_batch_join_as(c->holes, c->bodies, EXG_BATCH_INTERSECTS, &opt,
									  &c->got[j].p, &c->got[j].n, NULL, &err);
	exg_gpu_thread_unbind();
	return NULL;
}

/* nclients threads at once, each BENCH_CLIENT_JOINS joins of its holes: joins a second. */
static double
bench_clients(client_job *jobs, int nclients, int ndev, const rows *ref)
{
	pthread_t	tid[BENCH_CLIENTS];
	double		t0 = now_seconds(),
				s;

	for (int i = 0; i < nclients; i++)
	{
		jobs[i].device = i % ndev;
		pthread_create(&tid[i], NULL, client_main, &jobs[i]);
	}
	for (int i = 0; i < nclients; i++)
		pthread_join(tid[i], NULL);
	s = now_seconds() - t0;
	for (int i = 0; i < nclients; i++)
		for (int j = 0; j < BENCH_CLIENT_JOINS; j++)
		{
			if (jobs[i].status != EXG_OK)
				FAIL("client %d: %s", i, exg_status_name(jobs[i].status));
			else if (ref && !same_rows(&jobs[i].got[j], &ref[i]))
				FAIL("client %d join %d: %zu pairs, alone %zu", i, j, jobs[i].got[j].n, ref[i].n);
			free(jobs[i].got[j].p);
			jobs[i].got[j] = (rows) {0};
		}
	return nclients * BENCH_CLIENT_JOINS / s;
}

static void
bench(int ndev)
{
	exg_batch	bodies,
				kb,
				holes,
				client_holes[BENCH_CLIENTS];
	client_job	jobs[BENCH_CLIENTS];
	rows		ref = {0},
				client_ref[BENCH_CLIENTS];
	exg_join_options opt;
	exg_join_stats st;
	exg_gpu_keep_stats ks;
	size_t		size;
	void	   *block;
	int			all[8],
				nall = ndev < 8 ? ndev : 8;
	const int	twice[2] = {0, 0};
	double		t0,
				ms,
				one_ms,
				rate1,
				rate;
	exg_error	err = {0};

	for (int d = 0; d < nall; d++)
		all[d] = d;
	t0 = now_seconds();
	make_bodies_fine(&bodies, seed, 256, 160, BENCH_SCALE, 0);
	make_holes_n(&holes, seed + 1, 8000, BENCH_SCALE);
	block = pack_bodies(&bodies, &kb, &size);
	printf("bench: %zu bodies, %zu triangles (packed %.1f MB); %zu holes; made in %.1f s\n",
		   kb.nrows, kb.nprims, size / 1e6, holes.nrows, now_seconds() - t0);
	exg_join_options_default(&opt);
	opt.device = EXG_DEVICE_GPU;
	CHECK(exg_batch_join_as(&holes, &kb, EXG_BATCH_INTERSECTS, &opt, &ref.p, &ref.n, &st, &err)
		  == EXG_OK, "%s", err.message);

	ms = bench_join(&holes, &kb, NULL, 0, 0, &opt, &ref, &st, "not kept");
	printf("bench: holes x bodies, one GPU, bodies not kept: %.2f ms (upload %.2f ms), %zu pairs\n",
		   ms, st.phase_ns[EXG_PHASE_UPLOAD] / 1e6, ref.n);
	CHECK(exg_gpu_keep(block, size, 42));
	t0 = now_seconds();
	{
		rows		r = {0};

		CHECK(exg_batch_join_as(&holes, &kb, EXG_BATCH_INTERSECTS, &opt, &r.p, &r.n, &st, &err)
			  == EXG_OK, "%s", err.message);
		CHECK(same_rows(&r, &ref));
		free(r.p);
	}
	printf("bench: first join keeping the bodies: %.2f ms\n", 1e3 * (now_seconds() - t0));
	one_ms = ms = bench_join(&holes, &kb, NULL, 0, 0, &opt, &ref, &st, "kept");
	printf("bench: holes x bodies, one GPU, bodies kept: %.2f ms; phases (ms):", ms);
	for (int k = 0; k < EXG_JOIN_PHASES; k++)
		printf(" %.2f", st.phase_ns[k] / 1e6);
	printf(" (upload classify grid cull test refine dedupe download exact merge)\n");
	{
		/* points in the kept bodies: how much of it is preparing the bodies (classify, grid) */
		exg_batch	pts;
		rows		r = {0};

		make_points_n(&pts, seed + 3, 20000, BENCH_SCALE);
		for (int rep = 0; rep < 3; rep++)
		{
			t0 = now_seconds();
			CHECK(exg_batch_join_as(&pts, &kb, EXG_BATCH_LOCATE, &opt, &r.p, &r.n, &st, &err) == EXG_OK,
				  "%s", err.message);
			ms = 1e3 * (now_seconds() - t0);
			free(r.p);
		}
		printf("bench: %zu points in the kept bodies: %.2f ms; phases (ms):", pts.nrows, ms);
		for (int k = 0; k < EXG_JOIN_PHASES; k++)
			printf(" %.2f", st.phase_ns[k] / 1e6);
		printf("\n");
		exg_batch_free(&pts);
	}
	ms = bench_join(&holes, &kb, twice, 2, 1, &opt, &ref, &st, "2 ranges on GPU 0");
	printf("bench: 2 ranges of bodies on GPU 0: %.2f ms\n", ms);
	for (int split = 0; split <= 1 && nall > 1; split++)
	{
		ms = bench_join(&holes, &kb, all, nall, split, &opt, &ref, &st, "every GPU");
		printf("bench: a range of %s per GPU, %d GPUs: %.2f ms (%.2fx one GPU)\n",
			   split ? "bodies" : "holes", nall, ms, one_ms / ms);
	}

	/* clients: 500 new holes each against every body, one at a time, then all at once */
	for (int i = 0; i < BENCH_CLIENTS; i++)
	{
		make_holes_n(&client_holes[i], seed + 100 + i, BENCH_CLIENT_HOLES, BENCH_SCALE);
		jobs[i] = (client_job) {.holes = &client_holes[i], .bodies = &kb,
		.threads = exg_cpu_count() / BENCH_CLIENTS > 0 ? exg_cpu_count() / BENCH_CLIENTS : 1};
		CHECK(exg_batch_join_as(&client_holes[i], &kb, EXG_BATCH_INTERSECTS, &opt, &client_ref[i].p,
								&client_ref[i].n, NULL, &err) == EXG_OK, "%s", err.message);
	}
	t0 = now_seconds();
	for (int i = 0; i < BENCH_CLIENTS; i++)
	{
		jobs[i].device = 0;
		client_main(&jobs[i]);
		for (int j = 0; j < BENCH_CLIENT_JOINS; j++)
		{
			CHECK(jobs[i].status == EXG_OK && same_rows(&jobs[i].got[j], &client_ref[i]));
			free(jobs[i].got[j].p);
			jobs[i].got[j] = (rows) {0};
		}
	}
	rate1 = BENCH_CLIENTS * BENCH_CLIENT_JOINS / (now_seconds() - t0);
	rate = bench_clients(jobs, BENCH_CLIENTS, 1, client_ref);
	printf("bench: %d-hole joins, bodies kept: one client %.1f joins/s; %d clients on GPU 0 %.1f "
		   "joins/s (%.2fx)\n", BENCH_CLIENT_HOLES, rate1, BENCH_CLIENTS, rate, rate / rate1);
	if (nall > 1)
	{
		rate = bench_clients(jobs, BENCH_CLIENTS, nall, client_ref);
		printf("bench: %d clients over %d GPUs: %.1f joins/s (%.2fx one client)\n", BENCH_CLIENTS,
			   nall, rate, rate / rate1);
	}
	for (int d = 0; d < nall; d++)
	{
		exg_gpu_keep_info(d, &ks);
		printf("bench: keep on GPU %d: %zu bytes kept, %llu hits, %llu misses, %.1f MB saved, "
			   "%.1f MB uploaded\n", d, ks.bytes_kept, (unsigned long long) ks.hits,
			   (unsigned long long) ks.misses, ks.bytes_saved / 1e6, ks.bytes_uploaded / 1e6);
	}
	exg_gpu_keep_forget(42);
	for (int i = 0; i < BENCH_CLIENTS; i++)
	{
		free(client_ref[i].p);
		exg_batch_free(&client_holes[i]);
	}
	free(ref.p);
	exg_batch_free(&kb);
	exg_batch_free(&bodies);
	exg_batch_free(&holes);
	free(block);
	pool_empty("after the bench");
}

int
main(int argc, char **argv)
{
	bool		gpu = false,
				timings = false;
	exg_batch	bodies,
				holes,
				points;
	uint32_t	order[NBODIES];
	inputs		in = {&bodies, &holes, &points};
	exg_error	err = {0};

	for (int i = 1; i < argc; i++)
		if (strcmp(argv[i], "--gpu") == 0)
			gpu = true;
		else if (strcmp(argv[i], "--bench") == 0)
			timings = true;
		else
			seed = strtoull(argv[i], NULL, 10);
	printf("test_gpu_service: seed %llu\n", (unsigned long long) seed);
	make_bodies(&bodies, seed);
	make_holes(&holes, seed + 1);
	make_points(&points, seed + 2);
	/*
	 * bodies two by two share a place in the result's order (their pairs
	 * merge): 1 and 2, 3 and 4, ..., so that cuts at even rows part them
	 */
	for (int k = 0; k < NBODIES; k++)
		order[k] = (uint32_t) (k + 1) / 2;
	bodies.order = order;

	test_cancel_sources();
	test_cpu_ranges(&in);
	test_cpu_error(&in);
	test_no_device(&in);

	if (gpu)
	{
		int			ndev = exg_gpu_device_count(&err);
		rows		ref[J_KINDS];

		if (ndev <= 0)
			FAIL("--gpu: no usable GPU: %s", err.message);
		else
		{
			memset(ref, 0, sizeof(ref));
			printf("%d GPU%s\n", ndev, ndev == 1 ? "" : "s");
			gpu_references(&in, ref);
			test_threads(&in, ref, 2, 1, false);
			test_threads(&in, ref, 4, ndev, false);
			test_threads(&in, ref, 4, ndev, true);
			test_keep(&in, ref);
			test_keep_flat();
			test_slice_vertices(&in);
			test_context_cache(&in, ref);
			test_devices(&in, ref, ndev);
			pool_empty("at the end");
			if (timings)
				bench(ndev);
			for (int kind = 0; kind < J_KINDS; kind++)
				free(ref[kind].p);
		}
	}
	exg_batch_free(&bodies);
	exg_batch_free(&holes);
	exg_batch_free(&points);
	return test_summary("test_gpu_service");
}
