/*
 * batch_probe.c — the probe join (batch_probe.h): candidate row pairs by
 * their exact boxes, each tested by the row-level exact predicate.
 *
 * Why the pairs equal the batch join's: both decide the closed-set
 * intersection of the same geometries exactly (the row-level predicates
 * and the primitive join share intersect_logic.h and its GMP fallback), and
 * a pair whose boxes do not meet cannot intersect (the boxes are the exact
 * double extremes of the views' vertices, compared closed: touching boxes
 * meet; a row inside a body as a volume lies inside its box). Pairs are
 * then given places and sorted once, as exg_batch_join gives them. The
 * volume form (exg_intersects_solid_3d: the surface met, or a vertex of
 * some component inside) is the batch join's (its primitive pairs, and a
 * vertex of each primitive located): without contact each component lies
 * wholly inside or outside.
 */
#include "batch_probe.h"

#include <stdlib.h>
#include <string.h>

#include "bvh.h"
#include "cancel.h"
#include "join_internal.h"
#include "parallel.h"
#include "solid.h"
#include "solid_check.h"
#include "stats.h"

static exg_status
ready_row(exg_prepared *g, exg_probe_predicate pred, exg_error *err)
{
	exg_status	st;

	/* both sides indexed: exg_intersects_* index the bigger one of a pair
	 * on demand, which would be a write inside the parallel tests */
	if (pred != EXG_PROBE_INTERSECTS_2D)
		return exg_prepared_view(g, 3, true, err);
	if ((st = exg_prepared_areas2d(g, err)) != EXG_OK)
		return st;
	return exg_prepared_view(g, 2, true, err);
}

/* The view whose box stands for the row (empty: none). */
static const exg_view *
row_view(const exg_prepared *g, exg_probe_predicate pred)
{
	return pred != EXG_PROBE_INTERSECTS_2D ? &g->view3d : &g->view2d;
}

/*
 * Every non-empty body of side k judged (in row order, so that the first
 * bad one is named, as the batch join names it); the verdicts stay with
 * the bodies, so the parallel tests only read them.
 */
static exg_status
judge_bodies(const exg_probe_side *s, int k, const exg_join_options *opt, exg_error *err)
{
	for (size_t i = 0; i < s->n; i++)
	{
		exg_prepared *g = s->rows[i];
		char		why[EXG_ERROR_MESSAGE_LEN];
		bool		ok;
		exg_status	st;

		if (exg_shape_is_empty(&g->shape))
			continue;
		if ((st = exg_solid_check(g, opt, EXG_SOLID_INSIDE, &ok, why, sizeof(why), err)) != EXG_OK)
			return st;
		if (!ok)
		{
			st = exg_fail(err, EXG_ERR_NOT_SOLID, "%s", why);
			if (err)
			{
				err->row = (uint64_t) i + 1;
				err->side = k;
			}
			return st;
		}
	}
	return EXG_OK;
}

exg_status
exg_probe_ready(const exg_probe_side *L, const exg_probe_side *R, exg_probe_predicate pred,
				int threads, const exg_join_options *solid_opt, exg_probe_stats *stats,
				exg_error *err)
{
	const exg_probe_side *side[2] = {L, R};
	uint64_t	t0 = exg_now_ns();
	int			t = exg_threads(threads);

	for (int k = 0; k < 2; k++)
	{
		const exg_probe_side *s = side[k];
		size_t		first_bad = s->n;
		exg_error	bad = {0};
		uint64_t	prims = 0;

		/* rows are independent: each thread builds only its row's views */
#pragma omp parallel for schedule(dynamic, 1) num_threads(t) if (t > 1 && s->n > 1)
		for (size_t i = 0; i < s->n; i++)
		{
			exg_error	e = {0};

			if (exg_cancel_requested() || ready_row(s->rows[i], pred, &e) != EXG_OK)
			{
				if (e.status == EXG_OK)
					exg_fail(&e, EXG_ERR_INTERRUPTED, "canceled");
#pragma omp critical (exg_probe_ready_error)
				if (i < first_bad)
				{
					first_bad = i;
					bad = e;
				}
			}
		}
		if (first_bad < s->n)
		{
			if (err)
			{
				*err = bad;
				if (bad.status != EXG_ERR_INTERRUPTED)
				{
					err->row = (uint64_t) first_bad + 1;
					err->side = k;
				}
			}
			return bad.status;
		}
		for (size_t i = 0; i < s->n; i++)
			prims += row_view(s->rows[i], pred)->prims.nprims +
				(pred == EXG_PROBE_INTERSECTS_2D ? s->rows[i]->areas2d.prims.nprims : 0);
		if (stats)
			stats->prims[k] = prims;
	}
	if (pred == EXG_PROBE_VOLUMES_LEFT || pred == EXG_PROBE_VOLUMES_RIGHT)
	{
		int			k = pred == EXG_PROBE_VOLUMES_LEFT ? 0 : 1;
		exg_status	st = judge_bodies(side[k], k, solid_opt, err);

		if (st != EXG_OK)
			return st;
	}
	if (stats)
	{
		stats->ready_ns = exg_now_ns() - t0;
		stats->threads = t;
	}
	return EXG_OK;
}

/* The exact box of a row's view, false for an empty row. */
static bool
row_box(const exg_prepared *g, exg_probe_predicate pred, double *box)
{
	const exg_view *v = row_view(g, pred);

	if (exg_shape_is_empty(&g->shape) || v->prims.nprims == 0)
		return false;
	memcpy(box, v->prims.box, 6 * sizeof(double));
	if (pred == EXG_PROBE_INTERSECTS_2D && g->areas2d.prims.nprims > 0)
	{
		/* the areas are inside the rings' box; joined all the same, so the
		 * box can never be smaller than what the predicate reads */
		const double *a = g->areas2d.prims.box;

		for (int d = 0; d < 3; d++)
		{
			if (a[d] < box[d])
				box[d] = a[d];
			if (a[d + 3] > box[d + 3])
				box[d + 3] = a[d + 3];
		}
	}
	return true;
}

static inline uint32_t
place_of(const exg_probe_side *s, size_t row)
{
	return s->order ? s->order[row] : (uint32_t) row;
}

exg_status
exg_probe_join(const exg_probe_side *L, const exg_probe_side *R, exg_probe_predicate pred,
			   int threads, uint64_t **rows_out, size_t *nrows_out, exg_probe_stats *stats,
			   exg_error *err)
{
	uint64_t	t0 = exg_now_ns();
	int			t = exg_threads(threads);
	double	   *lbox = malloc(sizeof(double) * 6 * (L->n ? L->n : 1)),
			   *rbox = malloc(sizeof(double) * 6 * (R->n ? R->n : 1));
	uint8_t    *lhas = malloc(L->n ? L->n : 1),
			   *rhas = malloc(R->n ? R->n : 1),
			   *rnear = calloc(R->n ? R->n : 1, 1);
	size_t	   *count = calloc(L->n + 1, sizeof(size_t));
	exg_pair   *cand = NULL;
	uint8_t    *hit = NULL;
	size_t		ncand = 0,
				nhits = 0,
				first_bad;
	exg_error	bad = {0};
	exg_status	st = EXG_OK;
	uint64_t	lnear = 0,
				nnear = 0,
				exact_pairs = 0;
	exg_counters before,
				after;		/* the workers count in their own blocks */

	*rows_out = NULL;
	*nrows_out = 0;
	if (!lbox || !rbox || !lhas || !rhas || !rnear || !count)
	{
		st = exg_fail(err, EXG_ERR_NOMEM, "out of memory for the probe join's boxes");
		goto done;
	}
	for (size_t i = 0; i < L->n; i++)
		lhas[i] = row_box(L->rows[i], pred, &lbox[6 * i]);
	for (size_t j = 0; j < R->n; j++)
		rhas[j] = row_box(R->rows[j], pred, &rbox[6 * j]);

	/* candidates: counted per left row, then written at their offsets, so
	 * that they come in (left row, right row) order on any thread count */
#pragma omp parallel for schedule(static) num_threads(t) if (t > 1 && L->n * R->n > 65536)
	for (size_t i = 0; i < L->n; i++)
		if (lhas[i])
			for (size_t j = 0; j < R->n; j++)
				count[i + 1] += rhas[j] && exg_boxes_meet(&lbox[6 * i], &rbox[6 * j]);
	for (size_t i = 0; i < L->n; i++)
	{
		lnear += count[i + 1] > 0;
		count[i + 1] += count[i];
	}
	ncand = count[L->n];
	cand = malloc(sizeof(exg_pair) * (ncand ? ncand : 1));
	hit = calloc(ncand ? ncand : 1, 1);
	if (!cand || !hit)
	{
		st = exg_fail(err, EXG_ERR_NOMEM, "out of memory for the probe join's candidates");
		goto done;
	}
#pragma omp parallel for schedule(static) num_threads(t) if (t > 1 && L->n * R->n > 65536)
	for (size_t i = 0; i < L->n; i++)
	{
		size_t		k = count[i];

		if (lhas[i])
			for (size_t j = 0; j < R->n; j++)
				if (rhas[j] && exg_boxes_meet(&lbox[6 * i], &rbox[6 * j]))
					cand[k++] = (exg_pair) {(uint32_t) i, (uint32_t) j};
	}
	for (size_t c = 0; c < ncand; c++)
		rnear[cand[c].b] = 1;
	for (size_t j = 0; j < R->n; j++)
		nnear += rnear[j];

	/* the exact tests: one pair a task, the big ones dominate (a hole
	 * through a 10^5-triangle body), so dynamic */
	first_bad = ncand;
	exg_counters_snapshot(&before);
#pragma omp parallel for schedule(dynamic, 4) num_threads(t) if (t > 1 && ncand > 1)
	for (size_t c = 0; c < ncand; c++)
	{
		exg_error	e = {0};
		bool		meets = false;
		exg_status	s;
		exg_counters *cn = exg_counters_local();
		uint64_t	gmp_before = cn->orient_exact;

		if (first_bad < ncand)
			continue;
		if (exg_cancel_requested())
			s = exg_fail(&e, EXG_ERR_INTERRUPTED, "canceled");
		else if (pred == EXG_PROBE_INTERSECTS_3D)
			s = exg_intersects_3d(L->rows[cand[c].a], R->rows[cand[c].b], &meets, &e);
		else if (pred == EXG_PROBE_INTERSECTS_2D)
			s = exg_intersects_2d(L->rows[cand[c].a], R->rows[cand[c].b], &meets, &e);
		else if (pred == EXG_PROBE_VOLUMES_LEFT)
			s = exg_intersects_solid_3d(L->rows[cand[c].a], R->rows[cand[c].b], &meets, &e);
		else
			s = exg_intersects_solid_3d(R->rows[cand[c].b], L->rows[cand[c].a], &meets, &e);
		if (s != EXG_OK)
		{
#pragma omp critical (exg_probe_join_error)
			if (c < first_bad)
			{
				first_bad = c;
				bad = e;
			}
		}
		hit[c] = meets;
		/* the row pairs GMP decided, as the batch join counts its pairs */
		cn->exact_pairs += cn->orient_exact != gmp_before;
	}
	exg_counters_snapshot(&after);
	exact_pairs = after.exact_pairs - before.exact_pairs;
	if (first_bad < ncand)
	{
		if (err)
		{
			*err = bad;
			if (bad.status != EXG_ERR_INTERRUPTED)
			{
				err->row = (uint64_t) cand[first_bad].a + 1;
				err->side = 0;
			}
		}
		st = bad.status;
		goto done;
	}
	for (size_t c = 0; c < ncand; c++)
		if (hit[c])
			cand[nhits++] = (exg_pair) {place_of(L, cand[c].a), place_of(R, cand[c].b)};
	nhits = exg_pairs_sort_unique(cand, nhits);
	{
		uint64_t   *rows = (uint64_t *) cand;

		/* packed in place: a pair and its packed form have the same size */
		for (size_t c = 0; c < nhits; c++)
		{
			exg_pair	p = cand[c];
			uint64_t	packed = ((uint64_t) p.a << 32) | p.b;

			memcpy(&rows[c], &packed, sizeof(packed));
		}
		*rows_out = rows;
		*nrows_out = nhits;
		cand = NULL;
	}
done:
	if (stats)
	{
		stats->box_pairs = ncand;
		stats->exact_pairs = exact_pairs;
		stats->near[0] = lnear;
		stats->near[1] = nnear;
		stats->test_ns = exg_now_ns() - t0;
		stats->threads = t;
	}
	free(lbox);
	free(rbox);
	free(lhas);
	free(rhas);
	free(rnear);
	free(count);
	free(cand);
	free(hit);
	return st;
}
