/*
 * batch.c — a batch of rows of geometries as one primitive set: its life
 * (init, borrow-or-own, reset, free) and what the joins read of it. Rows
 * are added in batch_add.c and joined in batch_join.c.
 */
#include "batch.h"

#include <stdlib.h>
#include <string.h>

#include "parallel.h"

void
exg_batch_init(exg_batch *b, int naxes, exg_nonplanar_policy policy)
{
	memset(b, 0, sizeof(*b));
	b->naxes = naxes;
	b->policy = policy;
}

void
exg_batch_free(exg_batch *b)
{
	if (!b->borrowed)
	{
		free(b->xyz);
		free(b->tri);
		free(b->owner);
	}
	free(b->solid);
	memset(b, 0, sizeof(*b));
}

size_t
exg_batch_arrays_first_bad(const uint32_t *tri, const uint32_t *owner, size_t nprims,
						   size_t nverts, size_t nrows, int threads)
{
	size_t		bad = SIZE_MAX;
	int			t = exg_threads(threads);

#pragma omp parallel for schedule(static) num_threads(t) if (t > 1 && nprims > 65536) reduction(min:bad)
	for (size_t q = 0; q < nprims; q++)
	{
		if (tri[3 * q] >= nverts || tri[3 * q + 1] >= nverts || tri[3 * q + 2] >= nverts ||
			owner[q] >= nrows || (q > 0 && owner[q] < owner[q - 1]))
			bad = q < bad ? q : bad;
	}
	return bad;
}

exg_status
exg_batch_check(const exg_batch *b, int threads, exg_error *err)
{
	if (!exg_batch_counts_fit(b->nverts, b->nprims, b->nrows))
		return exg_fail(err, EXG_ERR_TOO_LARGE, "too many vertices or primitives in one join input");
	if (b->nprims > 0 && (b->tri == NULL || b->owner == NULL || (b->nverts > 0 && b->xyz == NULL)))
		return exg_fail(err, EXG_ERR_ARGUMENT, "a join input is missing its arrays");
	if (exg_batch_arrays_first_bad(b->tri, b->owner, b->nprims, b->nverts, b->nrows, threads) !=
		SIZE_MAX)
		return exg_fail(err, EXG_ERR_ARGUMENT,
						"a join input refers to a vertex or row it does not have");
	return EXG_OK;
}

exg_status
exg_batch_own(exg_batch *b, exg_error *err)
{
	double	   *xyz;
	uint32_t   *tri,
			   *owner;

	if (!b->borrowed)
		return EXG_OK;
	xyz = malloc((b->nverts ? b->nverts : 1) * 3 * sizeof(double));
	tri = malloc((b->nprims ? b->nprims : 1) * 3 * sizeof(uint32_t));
	owner = malloc((b->nprims ? b->nprims : 1) * sizeof(uint32_t));
	if (!xyz || !tri || !owner)
	{
		free(xyz);
		free(tri);
		free(owner);
		return exg_fail(err, EXG_ERR_NOMEM, "out of memory collecting join input");
	}
	memcpy(xyz, b->xyz, b->nverts * 3 * sizeof(double));
	memcpy(tri, b->tri, b->nprims * 3 * sizeof(uint32_t));
	memcpy(owner, b->owner, b->nprims * sizeof(uint32_t));
	b->xyz = xyz;
	b->tri = tri;
	b->owner = owner;
	b->verts_cap = b->nverts;
	b->prims_cap = b->nprims;
	b->borrowed = false;
	return EXG_OK;
}

void
exg_batch_reset(exg_batch *b)
{
	if (b->borrowed)
	{
		/* the caller's arrays are not ours to reuse */
		b->xyz = NULL;
		b->tri = NULL;
		b->owner = NULL;
		b->verts_cap = 0;
		b->prims_cap = 0;
		b->borrowed = false;
	}
	b->nverts = 0;
	b->nprims = 0;
	b->nrows = 0;
	b->nsolid = 0;
	b->nrows_z = 0;
	b->nrows_flat = 0;
}

void
exg_batch_set_volumes(exg_batch *b)
{
	if (b->naxes != 3)
		return;
	memset(b->solid, 1, b->nrows);
	b->nsolid = b->nrows;
}

bool
exg_batch_only_points(const exg_batch *b)
{
	for (size_t i = 0; i < b->nprims; i++)
		if (b->tri[3 * i] != b->tri[3 * i + 1] || b->tri[3 * i] != b->tri[3 * i + 2])
			return false;
	return true;
}

exg_prim_set
exg_batch_prims(const exg_batch *b)
{
	exg_prim_set S = {b->xyz, (uint32_t) b->nverts, b->tri, (uint32_t) b->nprims, 3, b->slice, NULL, NULL};

	return S;
}
