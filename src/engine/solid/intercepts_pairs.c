/*
 * intercepts_pairs.c — intercepts of many (hole, body) pairs on the worker
 * pool.
 *
 * The pairs come from the batch join (holes that meet a body, or lie in it).
 * Each body in them is parsed, checked (solid_check.h) and indexed once, before the
 * parallel part, so that the workers only read it; each hole is parsed by
 * the worker that takes its pair. Workers write their intercepts into their
 * own sets, tagged with the pair; the sets are merged in pair order at the
 * end, so the result does not depend on the schedule.
 */
#include "intercepts.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "bvh.h"
#include "cancel.h"
#include "gserialized_read.h"
#include "parallel.h"
#include "solid.h"
#include "solid_check.h"
#include "stats.h"

typedef struct pair_span
{
	size_t		thread;
	size_t		first;			/* in that thread's set */
	size_t		n;
} pair_span;

/*
 * Parse body row r, check that it bounds a valid solid (solid_check.h),
 * build its index. Called from the worker pool: the check's own join runs
 * on the CPU in this worker (a GPU context per worker would cost more than
 * the bodies of an intercepts call take).
 */
static exg_status
prepare_body(const exg_row_bytes *bodies, size_t r, exg_nonplanar_policy policy,
			 exg_prepared *g, exg_error *err)
{
	exg_shape	s;
	exg_status	st;
	const exg_view *v;
	exg_join_options opt;

	exg_shape_init(&s);
	st = exg_gserialized_read(bodies->data + bodies->off[r], bodies->off[r + 1] - bodies->off[r],
							  &s, err);
	exg_prepared_init(g, &s, policy);
	if (st != EXG_OK)
		return st;
	exg_join_options_default(&opt);
	opt.device = EXG_DEVICE_CPU;
	opt.worker_threads = 1;
	if ((st = exg_solid_require(g, &opt, EXG_SOLID_INSIDE, err)) != EXG_OK)
		return st;
	return exg_prepared_view3d(g, true, &v, err);
}

/* The intercepts of one pair, appended to out with .pair = k. */
static exg_status
one_pair(const exg_row_bytes *holes, size_t h, exg_prepared *g, size_t k, exg_shape *s,
		 exg_intercept_set *out, exg_error *err)
{
	double	   *xyz = NULL,
			   *md = NULL;
	size_t		n = 0,
				nmd = 0,
				i,
				before = out->n;
	const uint8_t *bytes = holes->data + holes->off[h];
	size_t		size = holes->off[h + 1] - holes->off[h];
	exg_status	st;

	exg_shape_clear(s);
	st = exg_gserialized_read(bytes, size, s, err);
	if (st == EXG_OK)
		st = exg_hole_polyline(s, &xyz, &n, err);
	/* depths from M when the hole has it */
	if (st == EXG_OK)
		st = exg_hole_measures(bytes, size, &md, &nmd, err);
	if (st == EXG_OK)
		st = exg_intercepts_detail_md(g, xyz, md != NULL && nmd == n ? md : NULL, n, out, err);
	free(xyz);
	free(md);
	for (i = before; i < out->n; i++)
		out->iv[i].pair = k;
	return st;
}

static int
cmp_u64(const void *x, const void *y)
{
	uint64_t	a = *(const uint64_t *) x,
				b = *(const uint64_t *) y;

	return (a > b) - (a < b);
}

/* Collect the bodies whose box holds a hole's first vertex. */
typedef struct collar_ctx
{
	uint64_t	hole;
	uint64_t   *rows;
	size_t		n;
	size_t		cap;
	bool		nomem;
} collar_ctx;

static int
visit_collar(void *ctx, uint32_t body)
{
	collar_ctx *cc = ctx;

	if (cc->n == cc->cap)
	{
		size_t		cap = cc->cap ? 2 * cc->cap : 1024;
		uint64_t   *grown = realloc(cc->rows, sizeof(uint64_t) * cap);

		if (grown == NULL)
		{
			cc->nomem = true;
			return 1;
		}
		cc->rows = grown;
		cc->cap = cap;
	}
	cc->rows[cc->n++] = (cc->hole << 32) | body;
	return 0;
}

exg_status
exg_intercepts_candidates(const exg_batch *holes, const exg_batch *bodies,
						  const exg_join_options *opt, uint64_t **rows_out, size_t *nrows_out,
						  exg_join_stats *stats, exg_error *err)
{
	exg_batch	H = *holes,
				B = *bodies;
	collar_ctx	cc = {0};
	exg_bvh		bvh = {0};
	double	   *box = NULL;
	uint8_t    *seen = NULL;
	uint64_t   *met = NULL,
			   *all;
	size_t		nmet = 0,
				i,
				m;
	exg_status	st;

	*rows_out = NULL;
	*nrows_out = 0;
	/* surfaces, whatever their flags: the volumes come from the collars below */
	H.nsolid = 0;
	B.nsolid = 0;
	if ((st = exg_batch_join(&H, &B, opt, &met, &nmet, stats, err)) != EXG_OK)
		return st;

	/*
	 * A hole that meets no surface lies wholly inside a body or wholly
	 * outside it; inside, its first vertex is in the body's box. Those pairs
	 * are candidates too: the intercepts of a pair outside are none.
	 */
	box = malloc(sizeof(double) * 6 * (bodies->nrows + 1));
	seen = calloc(holes->nrows + 1, 1);
	if (box == NULL || seen == NULL)
	{
		st = exg_fail(err, EXG_ERR_NOMEM, "out of memory for intercept candidates");
		goto done;
	}
	for (i = 0; i < bodies->nrows; i++)
	{
		box[6 * i] = box[6 * i + 1] = box[6 * i + 2] = INFINITY;
		box[6 * i + 3] = box[6 * i + 4] = box[6 * i + 5] = -INFINITY;
	}
	for (i = 0; i < 3 * bodies->nprims; i++)
	{
		double	   *b = &box[6 * (size_t) bodies->owner[i / 3]];
		const double *v = &bodies->xyz[3 * (size_t) bodies->tri[i]];

		for (int k = 0; k < 3; k++)
		{
			b[k] = v[k] < b[k] ? v[k] : b[k];
			b[3 + k] = v[k] > b[3 + k] ? v[k] : b[3 + k];
		}
	}
	if ((st = exg_bvh_build(&bvh, box, (uint32_t) bodies->nrows, err)) != EXG_OK)
		goto done;
	for (i = 0; i < holes->nprims && !cc.nomem; i++)
	{
		uint32_t	r = holes->owner[i];
		const double *v = &holes->xyz[3 * (size_t) holes->tri[3 * i]];
		double		pt[6] = {v[0], v[1], v[2], v[0], v[1], v[2]};

		if (seen[r])
			continue;
		seen[r] = 1;
		cc.hole = r;
		exg_bvh_query(&bvh, pt, visit_collar, &cc);
	}
	if (cc.nomem)
	{
		st = exg_fail(err, EXG_ERR_NOMEM, "out of memory for intercept candidates");
		goto done;
	}

	all = realloc(met, sizeof(uint64_t) * (nmet + cc.n + 1));
	if (all == NULL)
	{
		st = exg_fail(err, EXG_ERR_NOMEM, "out of memory for intercept candidates");
		goto done;
	}
	met = all;
	if (cc.n)
		memcpy(&met[nmet], cc.rows, sizeof(uint64_t) * cc.n);
	qsort(met, nmet + cc.n, sizeof(uint64_t), cmp_u64);
	for (i = 0, m = 0; i < nmet + cc.n; i++)
		if (m == 0 || met[i] != met[m - 1])
			met[m++] = met[i];
	if (stats)
		stats->contained = m - nmet;
	*rows_out = met;
	*nrows_out = m;
	met = NULL;
done:
	free(met);
	free(cc.rows);
	free(box);
	free(seen);
	exg_bvh_free(&bvh);
	return st;
}

exg_status
exg_intercepts_pairs(const exg_row_bytes *holes, const exg_row_bytes *bodies,
					 const uint64_t *pairs, size_t npairs, exg_nonplanar_policy policy,
					 int threads, exg_intercept_set *out, exg_error *err)
{
	int			nt = exg_threads(threads);
	exg_prepared *body = NULL;
	uint8_t    *need = NULL;
	exg_intercept_set *sets = NULL;
	pair_span  *span = NULL;
	exg_error  *errs = NULL;
	exg_status *sts = NULL;
	int			stop = 0;
	exg_status	st = EXG_OK;
	size_t		k,
				r;
	uint64_t	t0,
				t1,
				t2;

	memset(out, 0, sizeof(*out));
	if (npairs == 0)
		return EXG_OK;
	body = calloc(bodies->n, sizeof(exg_prepared));
	need = calloc(bodies->n, 1);
	sets = calloc(nt, sizeof(exg_intercept_set));
	span = calloc(npairs, sizeof(pair_span));
	errs = calloc(nt, sizeof(exg_error));
	sts = calloc(nt, sizeof(exg_status));
	if (!body || !need || !sets || !span || !errs || !sts)
	{
		st = exg_fail(err, EXG_ERR_NOMEM, "out of memory for intercepts");
		goto done;
	}
	for (k = 0; k < npairs; k++)
		need[pairs[k] & 0xffffffffu] = 1;
	t0 = exg_now_ns();

	/* bodies first: afterwards the workers only read them */
#pragma omp parallel for schedule(dynamic, 1) num_threads(nt)
	for (r = 0; r < bodies->n; r++)
	{
		int			t = exg_thread_num();

		if (!need[r] || __atomic_load_n(&stop, __ATOMIC_RELAXED) || exg_cancel_requested())
			continue;
		if ((sts[t] = prepare_body(bodies, r, policy, &body[r], &errs[t])) != EXG_OK)
		{
			errs[t].row = r + 1;
			errs[t].side = 1;
			exg_flag_set(&stop);
		}
	}

	t1 = exg_now_ns();
	if (!stop)
#pragma omp parallel num_threads(nt)
	{
		int			t = exg_thread_num();
		exg_shape	s;

		exg_shape_init(&s);
#pragma omp for schedule(dynamic, 4)
		for (k = 0; k < npairs; k++)
		{
			size_t		h = pairs[k] >> 32,
						before = sets[t].n;

			if (__atomic_load_n(&stop, __ATOMIC_RELAXED))
				continue;
			if (exg_cancel_requested())
			{
				sts[t] = exg_fail(&errs[t], EXG_ERR_INTERRUPTED, "canceled");
				exg_flag_set(&stop);
				continue;
			}
			if ((sts[t] = one_pair(holes, h, &body[pairs[k] & 0xffffffffu], k, &s, &sets[t],
								   &errs[t])) != EXG_OK)
			{
				if (errs[t].status != EXG_ERR_INTERRUPTED)
				{
					errs[t].row = h + 1;
					errs[t].side = 0;
				}
				exg_flag_set(&stop);
				continue;
			}
			span[k].thread = t;
			span[k].first = before;
			span[k].n = sets[t].n - before;
		}
		exg_shape_free(&s);
	}
	if (stop || exg_cancel_requested())
	{
		for (int t = 0; t < nt; t++)
			if (sts[t] != EXG_OK)
			{
				if (err)
					*err = errs[t];
				st = sts[t];
				goto done;
			}
		st = exg_fail(err, EXG_ERR_INTERRUPTED, "canceled");
		goto done;
	}

	/* merge in pair order, the vertices renumbered into one array */
	t2 = exg_now_ns();
	{
		size_t		ni = 0,
					nv = 0;

		for (int t = 0; t < nt; t++)
		{
			ni += sets[t].n;
			nv += sets[t].nv;
		}
		out->iv = malloc(sizeof(exg_intercept) * (ni ? ni : 1));
		out->xyzm = malloc(sizeof(double) * 4 * (nv ? nv : 1));
		if (out->iv == NULL || out->xyzm == NULL)
		{
			st = exg_fail(err, EXG_ERR_NOMEM, "out of memory for intercepts");
			goto done;
		}
		out->cap = ni;
		out->vcap = nv;
		for (k = 0; k < npairs; k++)
			for (size_t j = 0; j < span[k].n; j++)
			{
				const exg_intercept_set *src = &sets[span[k].thread];
				exg_intercept iv = src->iv[span[k].first + j];

				memcpy(&out->xyzm[4 * out->nv], &src->xyzm[4 * iv.first_vertex],
					   sizeof(double) * 4 * iv.nvertices);
				iv.first_vertex = out->nv;
				out->nv += iv.nvertices;
				out->iv[out->n++] = iv;
			}
		out->prepare_ns = t1 - t0;
		out->pairs_ns = t2 - t1;
	}

done:
	if (st != EXG_OK)
		exg_intercept_set_free(out);
	if (body)
		for (r = 0; r < bodies->n; r++)
			if (need[r])
				exg_prepared_free(&body[r]);
	if (sets)
		for (int t = 0; t < nt; t++)
			exg_intercept_set_free(&sets[t]);
	free(body);
	free(need);
	free(sets);
	free(span);
	free(errs);
	free(sts);
	return st;
}
