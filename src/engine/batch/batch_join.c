/*
 * batch_join.c — joins of batches mapped back to row pairs: the
 * primitive join with solids as volumes (what lies inside a body meets
 * it), the point-in-solid join with the points on either side, and the
 * choice between them for a join mode (exg_batch_join_as).
 */
#include "batch.h"

#include <stdlib.h>
#include <string.h>

#include "join_internal.h"
#include "locate_join.h"
#include "parallel.h"
#include "trace.h"

/* Where a row's pairs go in the output order (see exg_batch.order). */
static inline uint32_t
out_row(const exg_batch *b, uint32_t row)
{
	return b->order ? b->order[row] : row;
}

/*
 * The triangles of B's rows (all, or only those flagged solid), body = row;
 * *tri and *body are what was allocated for it (NULL when S uses B's arrays).
 */
static exg_status
solid_set_of(const exg_batch *B, bool only_flagged, exg_solid_set *S, uint32_t **tri,
			 uint32_t **body, exg_error *err)
{
	size_t		i,
				n = 0;
	bool		all = true;

	for (i = 0; i < B->nprims && only_flagged && all; i++)
		all = B->solid[B->owner[i]] != 0;
	S->tris.xyz = B->xyz;
	S->tris.nverts = (uint32_t) B->nverts;
	S->tris.arity = 3;
	S->tris.slice = false;
	S->nbodies = (uint32_t) B->nrows;
	*tri = NULL;
	*body = NULL;
	if (all)
	{
		/*
		 * Every triangle: B's own arrays, not copies, so that a GPU join
		 * finds the bodies the caller kept on the device (exg_gpu_keep).
		 */
		S->tris.vidx = B->tri;
		S->tris.nprims = (uint32_t) B->nprims;
		S->body = B->owner;
		return EXG_OK;
	}
	*tri = malloc(sizeof(uint32_t) * 3 * (B->nprims ? B->nprims : 1));
	*body = malloc(sizeof(uint32_t) * (B->nprims ? B->nprims : 1));
	if (*tri == NULL || *body == NULL)
		return exg_fail(err, EXG_ERR_NOMEM, "out of memory collecting solids");
	for (i = 0; i < B->nprims; i++)
	{
		if (only_flagged && !B->solid[B->owner[i]])
			continue;
		memcpy(&(*tri)[3 * n], &B->tri[3 * i], 3 * sizeof(uint32_t));
		(*body)[n++] = B->owner[i];
	}
	S->tris.vidx = *tri;
	S->tris.nprims = (uint32_t) n;
	S->body = *body;
	return EXG_OK;
}

/* The first vertex of every primitive of P, as points. */
static double *
points_of(const exg_batch *P)
{
	double	   *pts = malloc(sizeof(double) * 3 * (P->nprims ? P->nprims : 1));
	size_t		i;

	if (pts != NULL)
		for (i = 0; i < P->nprims; i++)
			memcpy(&pts[3 * i], &P->xyz[3 * (size_t) P->tri[3 * i]], 3 * sizeof(double));
	return pts;
}

/*
 * Append to *out (capacity grown as needed) the row pairs of points of P in
 * bodies of B; point_left says whether P is the left side of the pairs.
 */
static exg_status
append_located(const exg_batch *P, const exg_batch *B, bool only_flagged, bool point_left,
			   const exg_join_options *opt, exg_pair **out, size_t *n, exg_join_stats *stats,
			   exg_error *err)
{
	exg_solid_set S = {0};
	uint32_t   *tri = NULL,
			   *body = NULL;
	double	   *pts = NULL;
	exg_pair   *pairs = NULL,
			   *grown;
	size_t		np = 0,
				i;
	exg_status	st;

	if ((st = solid_set_of(B, only_flagged, &S, &tri, &body, err)) != EXG_OK)
		goto done;
	if ((pts = points_of(P)) == NULL)
	{
		st = exg_fail(err, EXG_ERR_NOMEM, "out of memory collecting points");
		goto done;
	}
	/* a batch's indices and owners (body ids) are checked where it was made */
	if ((st = exg_locate_join_checked_sets(pts, (uint32_t) P->nprims, &S, opt, &pairs, &np, stats,
										   err)) != EXG_OK)
	{
		if (err && err->row)
			err->side = point_left ? 1 : 0;
		goto done;
	}
	grown = realloc(*out, sizeof(exg_pair) * (*n + np + 1));
	if (grown == NULL)
	{
		st = exg_fail(err, EXG_ERR_NOMEM, "out of memory for join results");
		goto done;
	}
	*out = grown;
	for (i = 0; i < np; i++)
	{
		uint32_t	prow = out_row(P, P->owner[pairs[i].a]),
					brow = out_row(B, pairs[i].b);

		(*out)[(*n)++] = point_left ? (exg_pair) {prow, brow} : (exg_pair) {brow, prow};
	}
done:
	exg_join_pairs_free(pairs);
	free(pts);
	free(tri);
	free(body);
	return st;
}

/*
 * The result: sorted row pairs, each once, packed as (left << 32) | right
 * in place (a pair and its packed form have the same size).
 */
static uint64_t *
pack_rows(exg_pair *pairs, size_t n)
{
	uint64_t   *rows = (uint64_t *) pairs;

	for (size_t i = 0; i < n; i++)
	{
		exg_pair	p = pairs[i];
		uint64_t	packed = ((uint64_t) p.a << 32) | p.b;

		memcpy(&rows[i], &packed, sizeof(packed));
	}
	return rows;
}

/*
 * Merge the sorted, repeat-free runs x and y into out (capacity nx + ny),
 * each pair once; returns the count.
 */
static size_t
merge_unique(const exg_pair *x, size_t nx, const exg_pair *y, size_t ny, exg_pair *out)
{
	size_t		i = 0,
				j = 0,
				m = 0;

	while (i < nx || j < ny)
	{
		bool		take_x = j == ny ||
			(i < nx && (x[i].a < y[j].a || (x[i].a == y[j].a && x[i].b <= y[j].b)));
		exg_pair	p = take_x ? x[i++] : y[j++];

		if (m == 0 || p.a != out[m - 1].a || p.b != out[m - 1].b)
			out[m++] = p;
	}
	return m;
}

/* Name the row of a failure (see exg_error). */
static exg_status
row_error(exg_error *err, uint32_t row, int side)
{
	if (err)
	{
		err->row = (uint64_t) row + 1;
		err->side = side;
		return err->status;
	}
	return EXG_ERR_ARGUMENT;
}

/* Every row of B with primitives has a triangle with area (not just points and lines)? */
static exg_status
check_surfaces(const exg_batch *B, int side, exg_error *err)
{
	size_t		i;

	for (i = 0; i < B->nprims; i++)
	{
		bool		surface = false;
		size_t		j;

		for (j = i; j < B->nprims && B->owner[j] == B->owner[i]; j++)
			surface |= B->tri[3 * j] != B->tri[3 * j + 1] && B->tri[3 * j + 1] != B->tri[3 * j + 2];
		if (!surface)
		{
			/* bad data, not a bad call: what a body that is not closed gets;
			 * worded as the row-by-row check words it (volume.c, outward.c) */
			exg_status	st = exg_fail(err, EXG_ERR_NOT_SOLID, "not a surface: no face with area");

			row_error(err, B->owner[i], side);
			return st;
		}
		i = j - 1;
	}
	return EXG_OK;
}

exg_status
exg_batch_join(const exg_batch *L, const exg_batch *R, const exg_join_options *opt,
			   uint64_t **rows_out, size_t *nrows_out, exg_join_stats *stats, exg_error *err)
{
	exg_prim_set A = exg_batch_prims(L),
				B = exg_batch_prims(R);
	exg_join_options jopt;
	exg_pair   *pairs = NULL,
			   *rows,
			   *located = NULL,
			   *merged;
	exg_join_stats local;
	size_t		n = 0,
				nlocated = 0,
				i;
	exg_status	st;

	*rows_out = NULL;
	*nrows_out = 0;
	if (stats == NULL)
		stats = &local;
	if ((L->nsolid && (st = check_surfaces(L, 0, err)) != EXG_OK) ||
		(R->nsolid && (st = check_surfaces(R, 1, err)) != EXG_OK))
		return st;
	/*
	 * Rows are what is returned, and several primitives make a row: the
	 * join maps its primitive pairs to row pairs and sorts them once (on
	 * the GPU on the device, on the CPU with pair_sort.c's radix sort).
	 */
	if (opt)
		jopt = *opt;
	else
		exg_join_options_default(&jopt);
	jopt.unordered = true;
	/* the join returns row pairs, sorted, each once (on the GPU mapped there) */
	jopt.row_pairs = true;
	A.owner = L->owner;
	A.order = L->order;
	B.owner = R->owner;
	B.order = R->order;
	exg_trace_mark("rows: join begins");
	st = exg_join_checked_sets(&A, &B, &jopt, &pairs, &n, stats, err);
	exg_trace_mark("rows: join returned");
	if (st != EXG_OK)
		return st;
	/* out of the GPU's lent buffer: the caller frees what it gets */
	rows = malloc(sizeof(exg_pair) * (n ? n : 1));
	if (rows == NULL)
	{
		exg_join_pairs_free(pairs);
		return exg_fail(err, EXG_ERR_NOMEM, "out of memory for join results");
	}
	if (n > 0)
		memcpy(rows, pairs, sizeof(exg_pair) * n);
	exg_join_pairs_free(pairs);
	exg_trace_mark("rows: copied");

	/* solids are volumes: what lies inside one meets it without touching it */
	for (int side = 0; side < 2 && st == EXG_OK; side++)
	{
		const exg_batch *solids = side == 0 ? R : L;
		const exg_batch *others = side == 0 ? L : R;
		exg_join_stats ls = {0};	/* summed below even when the locate join fails early */

		if (solids->nsolid == 0 || others->nprims == 0)
			continue;
		st = append_located(others, solids, true, side == 0, opt, &located, &nlocated, &ls, err);
		for (int k = 0; k < EXG_JOIN_PHASES; k++)
			stats->phase_ns[k] += ls.phase_ns[k];
		stats->total_ns += ls.total_ns;
		stats->exact_pairs += ls.exact_pairs;
		stats->gpu_setup_ns += ls.gpu_setup_ns;
	}
	if (st != EXG_OK)
	{
		free(located);
		free(rows);
		return st;
	}
	stats->contained = 0;
	if (nlocated > 0)
	{
		/* the pairs found by containment are sorted apart, then merged in */
		nlocated = exg_pairs_sort_unique(located, nlocated);
		merged = malloc(sizeof(exg_pair) * (n + nlocated));
		if (merged == NULL)
		{
			free(located);
			free(rows);
			return exg_fail(err, EXG_ERR_NOMEM, "out of memory for join results");
		}
		i = merge_unique(rows, n, located, nlocated, merged);
		stats->contained = i - n;
		free(rows);
		rows = merged;
		n = i;
	}
	free(located);
	*rows_out = pack_rows(rows, n);
	*nrows_out = n;
	return EXG_OK;
}


/*
 * The point-in-solid join with the points on either side of the pairs: the
 * pairs are made in output order and sorted once (already sorted when the
 * points are on the left, one point per row; the sort checks that first).
 */
static exg_status
locate_rows(const exg_batch *P, const exg_batch *B, bool point_left,
			const exg_join_options *opt, uint64_t **rows_out, size_t *nrows_out,
			exg_join_stats *stats, exg_error *err)
{
	exg_pair   *rows = NULL;
	size_t		n = 0,
				i;
	exg_status	st;

	*rows_out = NULL;
	*nrows_out = 0;
	for (i = 0; i < P->nprims; i++)
		if (P->tri[3 * i] != P->tri[3 * i + 1] || P->tri[3 * i] != P->tri[3 * i + 2])
		{
			exg_fail(err, EXG_ERR_WRONG_KIND, "a row of the points is not a point");
			return row_error(err, P->owner[i], point_left ? 0 : 1);
		}
	if ((st = check_surfaces(B, point_left ? 1 : 0, err)) != EXG_OK)
		return st;
	st = append_located(P, B, false, point_left, opt, &rows, &n, stats, err);
	if (st != EXG_OK)
	{
		free(rows);
		return st;
	}
	n = exg_pairs_sort_unique(rows, n);
	*rows_out = pack_rows(rows, n);
	*nrows_out = n;
	return EXG_OK;
}

exg_status
exg_batch_locate(const exg_batch *P, const exg_batch *B, const exg_join_options *opt,
				 uint64_t **rows_out, size_t *nrows_out, exg_join_stats *stats, exg_error *err)
{
	return locate_rows(P, B, true, opt, rows_out, nrows_out, stats, err);
}

exg_status
exg_batch_locate_in(const exg_batch *B, const exg_batch *P, const exg_join_options *opt,
					uint64_t **rows_out, size_t *nrows_out, exg_join_stats *stats,
					exg_error *err)
{
	return locate_rows(P, B, false, opt, rows_out, nrows_out, stats, err);
}

exg_status
exg_batch_join_as(exg_batch *L, const exg_batch *R, exg_batch_join_mode mode,
				  const exg_join_options *opt, uint64_t **rows_out, size_t *nrows_out,
				  exg_join_stats *stats, exg_error *err)
{
	switch (mode)
	{
		case EXG_BATCH_LOCATE:
			return exg_batch_locate(L, R, opt, rows_out, nrows_out, stats, err);
		case EXG_BATCH_VOLUMES:
			if (exg_batch_only_points(R))
				return exg_batch_locate_in(L, R, opt, rows_out, nrows_out, stats, err);
			exg_batch_set_volumes(L);
			break;
		case EXG_BATCH_INTERSECTS:
			break;
	}
	return exg_batch_join(L, R, opt, rows_out, nrows_out, stats, err);
}
