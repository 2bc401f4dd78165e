/*
 * join.c — the join's entry point: validation, choice of back-end, and the
 * CPU pieces both back-ends share (exact classification, exact pair test,
 * the GMP worker pool, final ordering).
 */
#include "join_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cancel.h"
#include "gpu.h"
#include "parallel.h"
#include "predicates_cpu.h"
#include "stats.h"

bool
exg_pair_reserve(exg_pair_buffer *h, size_t room)
{
	if (h->cap - h->n < room)
	{
		size_t		ncap = h->cap ? 2 * h->cap : 256;
		exg_pair   *np;

		if (ncap < h->n + room)
			ncap = h->n + room;
		np = realloc(h->p, ncap * sizeof(exg_pair));
		if (np == NULL)
			return false;
		h->p = np;
		h->cap = ncap;
	}
	return true;
}

bool
exg_pair_push(exg_pair_buffer *h, uint32_t a, uint32_t b)
{
	if (!exg_pair_reserve(h, 1))
		return false;
	h->p[h->n].a = a;
	h->p[h->n].b = b;
	h->n++;
	return true;
}

void
exg_join_options_default(exg_join_options *opt)
{
	memset(opt, 0, sizeof(*opt));
	opt->device = EXG_DEVICE_AUTO;
	opt->filter = EXG_FILTER_FLOAT;
	opt->dedupe = EXG_DEDUPE_REFERENCE_CELL;
}

exg_status
exg_prim_set_check(const exg_prim_set *S, const char *name, exg_error *err)
{
	uint64_t	i,
				n;

	if (S->arity < 1 || S->arity > 3)
		return exg_fail(err, EXG_ERR_ARGUMENT, "%s: primitives must have 1 to 3 vertices", name);
	if (S->nprims > 0 && (S->xyz == NULL || S->vidx == NULL))
		return exg_fail(err, EXG_ERR_ARGUMENT, "%s: missing arrays", name);
	n = (uint64_t) S->nprims * (uint64_t) S->arity;
	for (i = 0; i < n; i++)
		if (S->vidx[i] >= S->nverts)
			return exg_fail(err, EXG_ERR_ARGUMENT, "%s: vertex index %u out of range", name,
							S->vidx[i]);
	return EXG_OK;
}

void
exg_join_classify(const exg_prim_set *S, uint32_t i, exg_prim *out, double *box)
{
	const uint32_t *vi = &S->vidx[(size_t) i * S->arity];
	const double *x = S->xyz;
	exg_cpu_simplex sx = {0};
	int			t,
				k;

	if (S->arity == 3)
		exg_cpu_classify_triangle(&x[3 * vi[0]], &x[3 * vi[1]], &x[3 * vi[2]], 3, &sx);
	else
		exg_cpu_classify_segment(&x[3 * vi[0]], &x[3 * vi[S->arity - 1]], 3, &sx);
	out->kind = (int8_t) sx.kind;
	out->k = (int8_t) (sx.kind == EXG_SIMPLEX_TRIANGLE ? sx.k : 0);
	out->s = (int8_t) sx.s;
	out->naxes = 3;
	for (t = 0; t < 3; t++)
		out->v[t] = (uint32_t) ((sx.v[t] - x) / 3);
	for (k = 0; k < 3; k++)
	{
		box[k] = box[3 + k] = x[3 * vi[0] + k];
		for (t = 1; t < S->arity; t++)
		{
			double		c = x[3 * vi[t] + k];

			box[k] = c < box[k] ? c : box[k];
			box[3 + k] = c > box[3 + k] ? c : box[3 + k];
		}
	}
}

bool
exg_join_pair_meets(const exg_prim_set *A, const exg_prim *pa, const exg_prim_set *B,
					const exg_prim *pb)
{
	exg_cpu_simplex sa,
				sb;
	exg_counters *c = exg_counters_local();
	uint64_t	gmp_before = c->orient_exact;
	bool		meets;

	exg_cpu_simplex_of(A->xyz, pa, &sa);
	exg_cpu_simplex_of(B->xyz, pb, &sb);
	meets = exg_cpu_simplex_simplex_3d(&sa, &sb) == EXG_RESULT_INTERSECTS;
	/* the pairs GMP decided, as the GPU join counts them (stats->exact_pairs) */
	c->exact_pairs += c->orient_exact != gmp_before;
	return meets;
}

/*
 * Decide each pair exactly on the worker pool: result[t] = 1 when they meet.
 * The one CPU loop behind the GPU join's GMP stage and exg_test_pairs.
 */
static exg_status
decide_pairs(const exg_prim_set *A, const exg_prim_set *B, const exg_pair *pairs, size_t n,
			 int threads, uint8_t *result, exg_error *err)
{
	int			canceled = 0;

#pragma omp parallel num_threads(exg_threads(threads))
	{
		exg_round_state saved = exg_round_up_enter();
		long		t;

#pragma omp for schedule(dynamic, 64)
		for (t = 0; t < (long) n; t++)
		{
			exg_prim	pa,
						pb;
			double		box[6];

			if (exg_flag_get(&canceled))
				continue;
			if ((t & 1023) == 0 && exg_cancel_requested())
				exg_flag_set(&canceled);
			exg_join_classify(A, pairs[t].a, &pa, box);
			exg_join_classify(B, pairs[t].b, &pb, box);
			result[t] = exg_join_pair_meets(A, &pa, B, &pb);
		}
		exg_round_restore(saved);
	}
	return canceled ? exg_fail(err, EXG_ERR_INTERRUPTED, "canceled") : EXG_OK;
}

exg_status
exg_join_exact_batch(const exg_prim_set *A, const exg_prim_set *B, const exg_pair *cands,
					 size_t n, int threads, exg_pair *hits_out, size_t *nhits,
					 exg_error *err)
{
	uint8_t    *hit = calloc(n ? n : 1, 1);
	size_t		i,
				m = 0;
	exg_status	st;

	if (hit == NULL)
		return exg_fail(err, EXG_ERR_NOMEM, "out of memory for exact re-evaluation");
	if ((st = decide_pairs(A, B, cands, n, threads, hit, err)) != EXG_OK)
	{
		free(hit);
		return st;
	}
	for (i = 0; i < n; i++)
		if (hit[i])
			hits_out[m++] = cands[i];
	*nhits = m;
	free(hit);
	return EXG_OK;
}

void
exg_join_pairs_free(exg_pair *pairs)
{
	if (pairs != NULL && !exg_gpu_pairs_return(pairs))
		free(pairs);
}

exg_join_stats *
exg_join_begin(exg_join_options *opt, const exg_join_options *opt_in, exg_join_stats *stats,
			   exg_join_stats *local)
{
	if (opt_in)
		*opt = *opt_in;
	else
		exg_join_options_default(opt);
	if (stats == NULL)
		stats = local;
	memset(stats, 0, sizeof(*stats));
	return stats;
}

bool
exg_join_picks_gpu(const exg_join_options *opt, exg_status *st, exg_error *err)
{
	exg_error	gpu_err = {0};

	*st = EXG_OK;
	if (opt->device != EXG_DEVICE_CPU && exg_gpu_device_count(&gpu_err) > 0)
		return true;
	if (opt->device == EXG_DEVICE_GPU)
		*st = exg_fail(err, EXG_ERR_DEVICE, "GPU requested but none is usable: %s",
					   gpu_err.message);
	return false;
}

void
exg_join_name_cpu(exg_join_stats *stats, const exg_join_options *opt)
{
	snprintf(stats->device_name, sizeof(stats->device_name), "CPU (%d threads)",
			 exg_threads(opt->worker_threads));
}

/*
 * EXG_CULL_AUTO takes the box join on the GPU from this many primitives
 * (both sides) on. Measured on an H100 (bench/results/2026-11-23-h100-
 * first-stage.md): 16% faster on the 1.4 * 10^6-triangle mesh pair, 5x
 * less cull time on 10^8 triangles, 0.4 ms slower on the 10^6-triangle
 * mine (fixed costs). On the CPU the exact tests and the final sort
 * dominate and neither stage wins everywhere (-16% to +30%): cell pairs.
 */
#define EXG_BOX_STAGE_MIN_PRIMS ((uint64_t) 1 << 20)

bool
exg_join_culls_by_box_join(const exg_join_options *opt, bool gpu, uint64_t nprims)
{
	/* the box join reports each pair once by its own rule, and only candidates */
	if (opt->dedupe != EXG_DEDUPE_REFERENCE_CELL || opt->boxes_only)
		return false;
	switch (opt->cull)
	{
		case EXG_CULL_CELL_PAIRS:
			return false;
		case EXG_CULL_BOX_JOIN:
			return true;
		case EXG_CULL_AUTO:
			break;
	}
	return gpu && nprims >= EXG_BOX_STAGE_MIN_PRIMS;
}

exg_status
exg_join(const exg_prim_set *A, const exg_prim_set *B, const exg_join_options *opt_in,
		 exg_pair **pairs_out, size_t *npairs_out, exg_join_stats *stats, exg_error *err)
{
	exg_join_options opt;
	exg_join_stats local;
	exg_status	st;
	uint64_t	t0 = exg_now_ns();

	stats = exg_join_begin(&opt, opt_in, stats, &local);
	*pairs_out = NULL;
	*npairs_out = 0;
	if ((st = exg_prim_set_check(A, "left input", err)) != EXG_OK ||
		(st = exg_prim_set_check(B, "right input", err)) != EXG_OK)
		return st;

	if (exg_join_picks_gpu(&opt, &st, err))
	{
		st = exg_gpu_join(A, B, &opt, pairs_out, npairs_out, stats, err);
		stats->used_gpu = (st == EXG_OK);
	}
	else if (st != EXG_OK)
		return st;
	else
	{
		exg_counters before,
					after;

		/* the workers count in their own blocks: the sum, before and after */
		exg_counters_snapshot(&before);
		st = exg_join_culls_by_box_join(&opt, false, (uint64_t) A->nprims + B->nprims)
			? exg_join_cpu_boxes(A, B, &opt, pairs_out, npairs_out, stats, err)
			: exg_join_cpu(A, B, &opt, pairs_out, npairs_out, stats, err);
		exg_counters_snapshot(&after);
		stats->exact_pairs = after.exact_pairs - before.exact_pairs;
		exg_join_name_cpu(stats, &opt);
	}
	stats->total_ns = exg_now_ns() - t0;
	if (st == EXG_OK)
	{
		exg_counters *c = exg_counters_local();

		stats->hits = *npairs_out;
		if (stats->used_gpu)
			c->gpu_calls++;
	}
	return st;
}

exg_status
exg_test_pairs(const exg_prim_set *A, const exg_prim_set *B, const exg_pair *pairs, size_t n,
			   const exg_join_options *opt, uint8_t *result, exg_join_stats *stats,
			   exg_error *err)
{
	exg_join_stats local;
	exg_status	st;
	size_t		i;

	if (stats == NULL)
		stats = &local;
	memset(stats, 0, sizeof(*stats));
	if ((st = exg_prim_set_check(A, "left input", err)) != EXG_OK ||
		(st = exg_prim_set_check(B, "right input", err)) != EXG_OK)
		return st;
	for (i = 0; i < n; i++)
		if (pairs[i].a >= A->nprims || pairs[i].b >= B->nprims)
			return exg_fail(err, EXG_ERR_ARGUMENT, "pair %zu out of range", i);
	if (exg_join_picks_gpu(opt, &st, err))
		return exg_gpu_test_pairs(A, B, pairs, n, opt, result, stats, err);
	if (st != EXG_OK)
		return st;

	if ((st = decide_pairs(A, B, pairs, n, opt->worker_threads, result, err)) != EXG_OK)
		return st;
	stats->candidates = n;
	snprintf(stats->device_name, sizeof(stats->device_name), "CPU");
	return EXG_OK;
}
