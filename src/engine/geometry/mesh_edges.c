/*
 * mesh_edges.c — edge use counts in linear time: vertices first get one id
 * per distinct coordinate triple (open addressing on the coordinates' bits,
 * tables split over threads by hash), then every use of an edge is filed
 * under its lower vertex id (count, scan, fill) and each vertex's few uses
 * are sorted and counted. Sorting 48-byte edge keys instead took seconds
 * for 10^6 triangles; one hash table of edges, a cache miss per use.
 */
#include "mesh_edges.h"

#include <stdlib.h>
#include <string.h>

#include "cancel.h"
#include "parallel.h"

static inline uint64_t
mix64(uint64_t z)
{
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

/* Bits of x with -0 turned into +0, so equal doubles hash alike. */
static inline uint64_t
bits_of(double x)
{
	uint64_t	u;

	x += 0.0;
	memcpy(&u, &x, sizeof(u));
	return u;
}

static size_t
table_size(size_t n)
{
	size_t		s = 1024;

	while (s < 2 * n)
		s *= 2;
	return s;
}

static inline uint64_t
vertex_hash(const double *p)
{
	return mix64(bits_of(p[0]) ^ mix64(bits_of(p[1]) ^ mix64(bits_of(p[2]))));
}

/*
 * One id per distinct vertex position; ids[v] for every input vertex. Work
 * is split by hash: thread t owns the vertices whose hash is t mod nparts,
 * in a table of its own, so no two threads touch the same slot or id.
 */
static void
vertex_ids_part(const exg_prim_set *T, const uint64_t *vh, uint32_t *ids, int part, int nparts,
				uint32_t *slot, size_t cap)
{
	for (uint32_t v = 0; v < T->nverts; v++)
	{
		const double *p = &T->xyz[3 * (size_t) v];
		uint64_t	h = vh[v];
		size_t		i;

		if ((int) (h % (uint64_t) nparts) != part)
			continue;
		for (i = (h >> 20) & (cap - 1);; i = (i + 1) & (cap - 1))
		{
			const double *q;

			if (slot[i] == 0)
			{
				slot[i] = v + 1;
				ids[v] = v;
				break;
			}
			q = &T->xyz[3 * (size_t) (slot[i] - 1)];
			if (q[0] == p[0] && q[1] == p[1] && q[2] == p[2])
			{
				ids[v] = slot[i] - 1;
				break;
			}
		}
	}
}

/* One use of an edge, filed under its lower end. */
typedef struct edge_use
{
	uint32_t	hi;
	uint32_t	body;
	int32_t		dir;			/* +1: used lo -> hi, -1: hi -> lo */
} edge_use;

static int
use_cmp(const edge_use *x, const edge_use *y)
{
	if (x->hi != y->hi)
		return x->hi < y->hi ? -1 : 1;
	return (x->body > y->body) - (x->body < y->body);
}

/* Fold one edge's use counts into its body's report. */
static void
report_edge(const exg_prim_set *T, uint32_t lo, uint32_t hi, int count, int balance,
			exg_edge_report *r)
{
	bool		odd = (count & 1) != 0,
				bad = odd || count != 2 || balance != 0;
	uint64_t	key = ((uint64_t) lo << 32) | hi;

	r->edges++;
	r->odd += odd;
	r->once += count == 1;
	r->non_manifold += count != 2;
	r->misoriented += count == 2 && balance != 0;
	r->unbalanced += balance != 0;
	/* the example: an odd edge if any, else a bad one; the least ids among
	 * those, so the choice does not depend on how threads split the work */
	if (bad && (r->example_kind < (odd ? 2 : 1) ||
				(r->example_kind == (odd ? 2 : 1) && key < r->example_key)))
	{
		r->example_kind = odd ? 2 : 1;
		r->example_key = key;
		memcpy(r->example, &T->xyz[3 * (size_t) lo], 3 * sizeof(double));
		memcpy(r->example + 3, &T->xyz[3 * (size_t) hi], 3 * sizeof(double));
	}
}

static void
merge_report(exg_edge_report *into, const exg_edge_report *r)
{
	into->edges += r->edges;
	into->odd += r->odd;
	into->once += r->once;
	into->non_manifold += r->non_manifold;
	into->misoriented += r->misoriented;
	into->unbalanced += r->unbalanced;
	if (r->example_kind > into->example_kind ||
		(r->example_kind == into->example_kind && r->example_kind &&
		 r->example_key < into->example_key))
	{
		into->example_kind = r->example_kind;
		into->example_key = r->example_key;
		memcpy(into->example, r->example, sizeof(r->example));
	}
}

exg_status
exg_mesh_edges(const exg_prim_set *T, const uint32_t *body, uint32_t nbodies,
			   exg_edge_report *out, exg_error *err)
{
	uint32_t   *ids = NULL,
			   *start = NULL;
	uint64_t   *vh = NULL;
	edge_use   *uses = NULL;
	int			failed = 0;
	exg_status	st = EXG_OK;
	size_t		nv = T->nverts;

	memset(out, 0, sizeof(exg_edge_report) * nbodies);
	if (T->arity != 3)
		return exg_fail(err, EXG_ERR_ARGUMENT, "edges need triangles");
	ids = malloc(sizeof(uint32_t) * (nv + 1));
	vh = malloc(sizeof(uint64_t) * (nv + 1));
	start = calloc(nv + 2, sizeof(uint32_t));
	uses = malloc(sizeof(edge_use) * 3 * ((size_t) T->nprims + 1));
	if (ids == NULL || vh == NULL || start == NULL || uses == NULL)
	{
		st = exg_fail(err, EXG_ERR_NOMEM, "out of memory checking edges");
		goto done;
	}

	/* 1. one id per distinct position: tables split by hash over threads */
#pragma omp parallel if (T->nprims >= 8192)
	{
		int			nparts = exg_team_size(),
					part = exg_thread_num();
		size_t		vcap = table_size(nv / nparts + 1);
		uint32_t   *vslot = calloc(vcap, sizeof(uint32_t));

		if (vslot == NULL)
			exg_flag_set(&failed);
#pragma omp for schedule(static)
		for (long v = 0; v < (long) nv; v++)
			vh[v] = vertex_hash(&T->xyz[3 * (size_t) v]);
		if (vslot != NULL)
			vertex_ids_part(T, vh, ids, part, nparts, vslot, vcap);
		free(vslot);
	}
	if (failed)
	{
		st = exg_fail(err, EXG_ERR_NOMEM, "out of memory checking edges");
		goto done;
	}

	/* 2. file each use of an edge under its lower end (count, scan, fill) */
	for (int pass = 0; pass < 2; pass++)
	{
		for (uint32_t t = 0; t < T->nprims; t++)
		{
			const uint32_t *v = &T->vidx[3 * (size_t) t];

			if ((t & (EXG_CANCEL_STRIDE - 1)) == 0 && exg_cancel_requested())
			{
				st = exg_fail(err, EXG_ERR_INTERRUPTED, "canceled");
				goto done;
			}
			for (int e = 0; e < 3; e++)
			{
				uint32_t	a = ids[v[e]],
							b = ids[v[(e + 1) % 3]],
							lo = a < b ? a : b;

				if (a == b)
					continue;
				if (pass == 0)
					start[lo + 2]++;
				else
				{
					edge_use   *u = &uses[start[lo + 1]++];

					u->hi = a < b ? b : a;
					u->body = body[t];
					u->dir = a < b ? 1 : -1;
				}
			}
		}
		if (pass == 0)
			for (size_t v = 0; v < nv; v++)
				start[v + 2] += start[v + 1];
	}

	/* 3. per lower end: sort its few uses, count each (hi, body) run */
#pragma omp parallel if (T->nprims >= 8192)
	{
		exg_edge_report *rep = calloc(nbodies ? nbodies : 1, sizeof(exg_edge_report));

		if (rep == NULL)
			exg_flag_set(&failed);
#pragma omp for schedule(dynamic, 4096)
		for (long lo = 0; lo < (long) nv; lo++)
		{
			edge_use   *u = &uses[lo == 0 ? 0 : start[lo]];
			size_t		n = start[lo + 1] - (lo == 0 ? 0 : start[lo]);

			if (rep == NULL)
				continue;
			for (size_t i = 1; i < n; i++)	/* insertion sort: runs are short */
			{
				edge_use	x = u[i];
				size_t		j = i;

				for (; j > 0 && use_cmp(&x, &u[j - 1]) < 0; j--)
					u[j] = u[j - 1];
				u[j] = x;
			}
			for (size_t i = 0, run; i < n; i += run)
			{
				int			balance = 0;

				for (run = 0; i + run < n && use_cmp(&u[i], &u[i + run]) == 0; run++)
					balance += u[i + run].dir;
				report_edge(T, (uint32_t) lo, u[i].hi, (int) run, balance, &rep[u[i].body]);
			}
		}
		if (rep != NULL)
		{
#pragma omp critical
			for (uint32_t b = 0; b < nbodies; b++)
				merge_report(&out[b], &rep[b]);
		}
		free(rep);
	}
	if (failed)
		st = exg_fail(err, EXG_ERR_NOMEM, "out of memory checking edges");
done:
	free(ids);
	free(vh);
	free(start);
	free(uses);
	return st;
}
