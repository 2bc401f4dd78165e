/*
 * batch_flat.c — rows flattened elsewhere, gathered into one batch.
 *
 * Parallel reader processes (src/pg/read/read_flatten.c) detoast, parse
 * and flatten each row into a one-row batch in shared memory. Joining them
 * is then only copying: every row's place in the arrays is known from the
 * counts (a prefix sum), so the arrays are allocated once and each row is
 * copied, its indices shifted by the vertices before it, by any thread.
 */
#include "batch.h"

#include <stdlib.h>
#include <string.h>

#include "parallel.h"

exg_status
exg_batch_append_flat(exg_batch *b, const exg_flat_row *rows, size_t n, int threads,
					  exg_error *err)
{
	size_t	   *vbase,
			   *pbase;
	size_t		nv = b->nverts,
				np = b->nprims,
				nr = b->nrows + n,
				bad = SIZE_MAX;
	exg_status	st;
	int			t = exg_threads(threads);

	if (n == 0)
		return EXG_OK;
	vbase = malloc(sizeof(size_t) * n);
	pbase = malloc(sizeof(size_t) * n);
	if (vbase == NULL || pbase == NULL)
	{
		free(vbase);
		free(pbase);
		return exg_fail(err, EXG_ERR_NOMEM, "out of memory collecting join input");
	}
	for (size_t i = 0; i < n; i++)
	{
		vbase[i] = nv;
		pbase[i] = np;
		nv += rows[i].nverts;
		np += rows[i].nprims;
	}
	if (!exg_batch_counts_fit(nv, np, nr))
	{
		free(vbase);
		free(pbase);
		return exg_fail(err, EXG_ERR_TOO_LARGE, "too many vertices or primitives in one join input");
	}
	if ((st = exg_batch_reserve(b, nv, np, nr, err)) != EXG_OK)
	{
		free(vbase);
		free(pbase);
		return st;
	}

	/*
	 * Rows differ a lot in size (a body of 10^5 triangles, a hole of 30
	 * segments): dynamic scheduling over rows balances well enough. A bad
	 * index (a reader's bug, or corrupted shared memory) is the one error:
	 * the first such row is reported, as a sequential copy would.
	 */
#pragma omp parallel for schedule(dynamic, 1) num_threads(t) if (t > 1 && n > 1)
	for (size_t i = 0; i < n; i++)
	{
		const exg_flat_row *r = &rows[i];
		uint32_t	vb = (uint32_t) vbase[i];
		uint32_t   *dt = b->tri + 3 * pbase[i];
		uint32_t   *dow = b->owner + pbase[i];
		uint32_t	row = (uint32_t) (b->nrows + i);
		bool		ok = true;

		memcpy(b->xyz + 3 * vbase[i], r->xyz, r->nverts * 3 * sizeof(double));
		for (size_t k = 0; k < 3 * r->nprims; k++)
		{
			ok &= r->tri[k] < r->nverts;
			dt[k] = r->tri[k] + vb;
		}
		for (size_t k = 0; k < r->nprims; k++)
			dow[k] = row;
		b->solid[b->nrows + i] = b->naxes == 3 && r->solid;
		if (!ok)
		{
#pragma omp critical(exg_flat_bad)
			if (i < bad)
				bad = i;
		}
	}
	free(vbase);
	free(pbase);
	if (bad != SIZE_MAX)
	{
		exg_status	st = exg_fail(err, EXG_ERR_ARGUMENT,
								  "a flattened join input row refers to a vertex it does not have");

		if (err)
			err->row = b->nrows + bad + 1;
		return st;
	}
	for (size_t i = 0; i < n; i++)
	{
		b->nsolid += b->naxes == 3 && rows[i].solid;
		b->nrows_z += rows[i].dims == 3;
		b->nrows_flat += rows[i].dims == 2;
	}
	b->nverts = nv;
	b->nprims = np;
	b->nrows = nr;
	return EXG_OK;
}

exg_status
exg_batch_borrow(exg_batch *b, double *xyz, size_t nverts, uint32_t *tri, uint32_t *owner,
				 size_t nprims, const exg_flat_row *rows, size_t n, int threads,
				 exg_error *err)
{
	size_t		nv = 0,
				np = 0,
				bad = SIZE_MAX;
	uint8_t    *solid;

	if (b->nrows != 0 || b->nprims != 0 || b->nverts != 0)
		return exg_fail(err, EXG_ERR_ARGUMENT, "only an empty batch borrows rows laid out in place");
	for (size_t i = 0; i < n; i++)
	{
		nv += rows[i].nverts;
		np += rows[i].nprims;
	}
	if (nv != nverts || np != nprims)
		return exg_fail(err, EXG_ERR_ARGUMENT, "rows laid out in place disagree with their counts");
	if (!exg_batch_counts_fit(nv, np, n))
		return exg_fail(err, EXG_ERR_TOO_LARGE, "too many vertices or primitives in one join input");

	/*
	 * The readers that wrote the arrays are other processes: an index or
	 * owner out of range (their bug, or corrupted shared memory) would be
	 * read out of bounds by the join, so every one is checked, as
	 * exg_batch_append_flat checks the rows it copies.
	 */
	bad = exg_batch_arrays_first_bad(tri, owner, nprims, nverts, n, threads);
	/*
	 * Owners in order and in range: each row then owns exactly its own
	 * primitives if its first and last are its own (rows without any own
	 * none).
	 */
	if (bad == SIZE_MAX)
	{
		size_t		pb = 0;

		for (size_t i = 0; i < n && bad == SIZE_MAX; i++)
		{
			if (rows[i].nprims > 0 &&
				(owner[pb] != i || owner[pb + rows[i].nprims - 1] != i))
				bad = pb;
			pb += rows[i].nprims;
		}
	}
	if (bad != SIZE_MAX)
	{
		exg_status	st = exg_fail(err, EXG_ERR_ARGUMENT,
								  "a join input row laid out in place refers to a vertex or row it does not have");

		if (err)
			err->row = owner[bad] < n ? owner[bad] + 1 : 0;
		return st;
	}
	solid = realloc(b->solid, n ? n : 1);
	if (solid == NULL)
		return exg_fail(err, EXG_ERR_NOMEM, "out of memory collecting join input");
	b->solid = solid;
	b->solid_cap = n;
	if (!b->borrowed)
	{
		/* empty, it may have borrowed an empty layout: the caller's arrays */
		free(b->xyz);
		free(b->tri);
		free(b->owner);
	}
	b->xyz = xyz;
	b->tri = tri;
	b->owner = owner;
	b->verts_cap = nverts;
	b->prims_cap = nprims;
	b->nverts = nverts;
	b->nprims = nprims;
	b->borrowed = true;
	b->nsolid = 0;
	b->nrows_z = 0;
	b->nrows_flat = 0;
	for (size_t i = 0; i < n; i++)
	{
		b->solid[i] = b->naxes == 3 && rows[i].solid;
		b->nsolid += b->solid[i];
		b->nrows_z += rows[i].dims == 3;
		b->nrows_flat += rows[i].dims == 2;
	}
	b->nrows = n;
	return EXG_OK;
}
