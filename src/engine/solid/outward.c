/*
 * outward.c — outward orientation of a closed surface (see outward.h).
 *
 * Vertices are matched exactly by coordinates, edges by their two vertex
 * ids, both through open-addressing hash tables (sorting took seconds for
 * 10^6 triangles); a parity union-find over faces records "same" or
 * "opposite" orientation across every 2-manifold edge, and a contradiction
 * is a non-orientable shell. Nesting tests one vertex per shell against the
 * shells whose boxes hold it (a BVH over the shell boxes), with one ray
 * over that shell's triangles per nested pair.
 */
#include "outward.h"

#include <stdlib.h>
#include <string.h>

#include "bvh.h"
#include "cancel.h"
#include "interval_double.h"
#include "predicates_cpu.h"
#include "volume_sum.h"

typedef struct edge_rec
{
	uint64_t	key;			/* lower id << 32 | higher id */
	uint32_t	prim;			/* the first use: triangle (index into tris) */
	int16_t		dir;			/* and its direction */
	uint16_t	uses;
} edge_rec;

static inline uint64_t
mix64(uint64_t z)
{
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static size_t
table_size(size_t n)
{
	size_t		c = 64;

	while (c < 2 * n)
		c *= 2;
	return c;
}

/* Bits of x with -0 as +0, so equal coordinates hash alike. */
static inline uint64_t
bits_of(double x)
{
	uint64_t	u;

	x += 0.0;
	memcpy(&u, &x, sizeof(u));
	return u;
}

/* vid[3 t + c]: an id per distinct position of corner c of triangle tris[t]. */
static exg_status
vertex_ids(const exg_prims *P, const uint32_t *tris, size_t ntri, uint32_t *vid, exg_error *err)
{
	size_t		nv = 3 * ntri,
				cap = table_size(nv);
	uint32_t   *slot = calloc(cap, sizeof(uint32_t));	/* 1 + a corner's vertex index */

	if (slot == NULL)
		return exg_fail(err, EXG_ERR_NOMEM, "out of memory orienting a surface");
	for (size_t i = 0; i < nv; i++)
	{
		uint32_t	v = P->prims[tris[i / 3]].v[i % 3];
		const double *p = &P->xyz[3 * (size_t) v];
		size_t		h = mix64(bits_of(p[0]) ^ mix64(bits_of(p[1]) ^ mix64(bits_of(p[2])))) & (cap - 1);

		for (;; h = (h + 1) & (cap - 1))
		{
			const double *q;

			if (slot[h] == 0)
			{
				slot[h] = v + 1;
				break;
			}
			q = &P->xyz[3 * (size_t) (slot[h] - 1)];
			if (q[0] == p[0] && q[1] == p[1] && q[2] == p[2])
				break;
		}
		vid[i] = (uint32_t) h;
	}
	free(slot);
	return EXG_OK;
}

/* Parity union-find: parent, and the parity of each node to its parent. */
static uint32_t
find(uint32_t *parent, uint8_t *par, uint32_t x, uint8_t *parity)
{
	uint8_t		p = 0;
	uint32_t	r = x;

	while (parent[r] != r)
	{
		p ^= par[r];
		r = parent[r];
	}
	/* compress: point x's chain at the root with its parity */
	{
		uint8_t		q = p;

		while (parent[x] != x)
		{
			uint32_t	next = parent[x];
			uint8_t		px = par[x];

			parent[x] = r;
			par[x] = q;
			q ^= px;
			x = next;
		}
	}
	*parity = p;
	return r;
}

/* Ray crossings of p's upward ray with the triangles of one shell: -1 if p is on it. */
static int
shell_parity(const exg_prims *P, const uint32_t *tri_of_shell, size_t n, const double *p)
{
	unsigned	crossings = 0;

	for (size_t i = 0; i < n; i++)
	{
		const exg_prim *pr = &P->prims[tri_of_shell[i]];
		const double *bx = &P->boxes[6 * (size_t) tri_of_shell[i]];
		exg_cpu_simplex sx;
		int			r;

		if (p[0] < bx[0] || p[0] > bx[3] || p[1] < bx[1] || p[1] > bx[4] || p[2] > bx[5])
			continue;
		exg_cpu_simplex_of(P->xyz, pr, &sx);
		r = exg_cpu_ray_simplex(p, &sx);
		if (r == EXG_RAY_ON)
			return -1;
		crossings += r == EXG_RAY_CROSS;
	}
	return (int) (crossings & 1);
}

/* Is shell s inside the shells whose boxes hold its first vertex? */
typedef struct nest_probe
{
	const exg_prims *P;
	const uint32_t *shell_start;
	const uint32_t *shell_tris;
	uint32_t	s;
	unsigned	depth;
	int			touching;
	int			unused;
} nest_probe;

static int
visit_nest(void *ctx, uint32_t t)
{
	nest_probe *np = ctx;
	const uint32_t *st = np->shell_start;
	int			inside = -1;

	if (t == np->s)
		return 0;
	/* a vertex of s not on t decides: in a valid solid shells do not cross */
	for (uint32_t i = st[np->s]; i < st[np->s + 1] && inside < 0; i++)
		for (int c = 0; c < 3 && inside < 0; c++)
			inside = shell_parity(np->P, &np->shell_tris[st[t]], st[t + 1] - st[t],
								  &np->P->xyz[3 * (size_t) np->P->prims[np->shell_tris[i]].v[c]]);
	if (inside < 0)
	{
		np->touching = 1;
		return 1;
	}
	np->depth += (unsigned) inside;
	return 0;
}

/* Faces f and g share an edge: they flip alike (rel 0) or oppositely (rel 1). */
static exg_status
relate(uint32_t *parent, uint8_t *par, uint32_t f, uint32_t g, uint8_t rel, exg_error *err)
{
	uint8_t		pf,
				pg;
	uint32_t	rf = find(parent, par, f, &pf),
				rg = find(parent, par, g, &pg);

	if (rf == rg)
	{
		if ((pf ^ pg) != rel)
			return exg_fail(err, EXG_ERR_NOT_SOLID,
							"not orientable: faces %u and %u cannot be oriented consistently",
							f + 1, g + 1);
		return EXG_OK;
	}
	parent[rf] = rg;
	par[rf] = pf ^ pg ^ rel;
	return EXG_OK;
}

exg_status
exg_outward_flips(const exg_prims *P, uint32_t nfaces, uint8_t *flip, exg_outward_report *rep,
				  exg_error *err)
{
	size_t		ntri = 0,
				nv,
				i;
	uint32_t   *tris = NULL,
			   *vid = NULL,
			   *parent = NULL,
			   *shell_of = NULL,
			   *shell_start = NULL,
			   *shell_tris = NULL,
			   *fill = NULL;
	uint8_t    *par = NULL,
			   *relflip = NULL;
	int8_t	   *sigma = NULL;
	double	   *sbox = NULL;
	uint32_t	nshells = 0;
	exg_status	st = EXG_OK;
	exg_round_state saved;
	bool		rounding = false;
	exg_bvh		sbvh = {0};

	memset(rep, 0, sizeof(*rep));
	memset(flip, 0, nfaces);
	for (i = 0; i < P->nprims; i++)
		ntri += P->prims[i].kind == EXG_SIMPLEX_TRIANGLE;
	nv = 3 * ntri;
	tris = malloc(sizeof(uint32_t) * (ntri + 1));
	vid = malloc(sizeof(uint32_t) * (nv + 1));
	parent = malloc(sizeof(uint32_t) * (nfaces + 1));
	par = calloc(nfaces + 1, 1);
	relflip = calloc(nfaces + 1, 1);
	shell_of = malloc(sizeof(uint32_t) * (nfaces + 1));
	if (!tris || !vid || !parent || !par || !relflip || !shell_of)
	{
		st = exg_fail(err, EXG_ERR_NOMEM, "out of memory orienting a surface");
		goto done;
	}
	ntri = 0;
	for (i = 0; i < P->nprims; i++)
		if (P->prims[i].kind == EXG_SIMPLEX_TRIANGLE)
			tris[ntri++] = (uint32_t) i;
	if (ntri == 0)
	{
		st = exg_fail(err, EXG_ERR_NOT_SOLID, "not a surface: no face with area");
		goto done;
	}

	/* 1. one id per distinct position among the triangles' corners */
	if ((st = vertex_ids(P, tris, ntri, vid, err)) != EXG_OK)
		goto done;
	if (exg_cancel_requested())
	{
		st = exg_fail(err, EXG_ERR_INTERRUPTED, "canceled");
		goto done;
	}

	/* 2-3. every edge's two uses paired through a hash table; each pair
	 * says "same" or "opposite" orientation of its two faces */
	for (i = 0; i < nfaces; i++)
		parent[i] = (uint32_t) i;
	{
		size_t		cap = table_size(nv);
		edge_rec   *slot = calloc(cap, sizeof(edge_rec));	/* count in dir's high bits */

		if (slot == NULL)
		{
			st = exg_fail(err, EXG_ERR_NOMEM, "out of memory orienting a surface");
			goto done;
		}
		for (i = 0; i < nv && st == EXG_OK; i++)
		{
			uint32_t	a = vid[i],
						b = vid[i - i % 3 + (i % 3 + 1) % 3];
			uint64_t	key = a < b ? ((uint64_t) a << 32) | b : ((uint64_t) b << 32) | a;
			int32_t		dir = a < b ? 1 : -1;
			size_t		h;

			if (a == b)
				continue;
			for (h = mix64(key + 1) & (cap - 1); slot[h].uses && slot[h].key != key; h = (h + 1) & (cap - 1))
				;
			if (slot[h].uses == 0)
			{
				slot[h].key = key;
				slot[h].prim = (uint32_t) (i / 3);
				slot[h].dir = dir;
				slot[h].uses = 1;
				continue;
			}
			if (++slot[h].uses > 2)
			{
				st = exg_fail(err, EXG_ERR_NOT_SOLID,
							  "not 2-manifold: an edge is shared by more than two faces, so its orientation is ambiguous");
				break;
			}
			st = relate(parent, par, P->comp[tris[slot[h].prim]], P->comp[tris[i / 3]],
						slot[h].dir == dir, err);
		}
		for (i = 0; i < cap && st == EXG_OK; i++)
			if (slot[i].uses == 1)
				st = exg_fail(err, EXG_ERR_NOT_SOLID, "not closed: an edge is used by one face only");
		free(slot);
	}
	if (st != EXG_OK)
		goto done;

	/* 4. shells: the roots of faces with triangles */
	for (i = 0; i < nfaces; i++)
		shell_of[i] = UINT32_MAX;
	{
		uint32_t   *root_shell = malloc(sizeof(uint32_t) * (nfaces + 1));

		if (root_shell == NULL)
		{
			st = exg_fail(err, EXG_ERR_NOMEM, "out of memory orienting a surface");
			goto done;
		}
		for (i = 0; i < nfaces; i++)
			root_shell[i] = UINT32_MAX;
		for (i = 0; i < ntri; i++)
		{
			uint32_t	f = P->comp[tris[i]];
			uint8_t		pf;
			uint32_t	r = find(parent, par, f, &pf);

			if (root_shell[r] == UINT32_MAX)
				root_shell[r] = nshells++;
			shell_of[f] = root_shell[r];
			relflip[f] = pf;
		}
		free(root_shell);
	}
	rep->shells = nshells;

	/* 5. triangles grouped by shell; each shell's exact volume sign and box */
	shell_start = calloc(nshells + 1, sizeof(uint32_t));
	shell_tris = malloc(sizeof(uint32_t) * (ntri + 1));
	fill = malloc(sizeof(uint32_t) * (nshells + 1));
	sigma = malloc(nshells + 1);
	sbox = malloc(sizeof(double) * 6 * (nshells + 1));
	if (!shell_start || !shell_tris || !fill || !sigma || !sbox)
	{
		st = exg_fail(err, EXG_ERR_NOMEM, "out of memory orienting a surface");
		goto done;
	}
	for (i = 0; i < ntri; i++)
		shell_start[shell_of[P->comp[tris[i]]] + 1]++;
	for (i = 0; i < nshells; i++)
		shell_start[i + 1] += shell_start[i];
	memcpy(fill, shell_start, sizeof(uint32_t) * nshells);
	for (i = 0; i < ntri; i++)
		shell_tris[fill[shell_of[P->comp[tris[i]]]]++] = tris[i];
	for (uint32_t s = 0; s < nshells; s++)
	{
		exg_volume_sum sum;
		double	   *bx = &sbox[6 * s];

		exg_volume_sum_init(&sum);
		for (i = shell_start[s]; i < shell_start[s + 1]; i++)
		{
			const exg_prim *pr = &P->prims[shell_tris[i]];
			const double *tb = &P->boxes[6 * (size_t) shell_tris[i]];

			exg_volume_sum_add(&sum, &P->xyz[3 * (size_t) pr->v[0]], &P->xyz[3 * (size_t) pr->v[1]],
							   &P->xyz[3 * (size_t) pr->v[2]], relflip[P->comp[shell_tris[i]]] ? -1 : 1);
			for (int k = 0; k < 3; k++)
			{
				if (i == shell_start[s] || tb[k] < bx[k])
					bx[k] = tb[k];
				if (i == shell_start[s] || tb[3 + k] > bx[3 + k])
					bx[3 + k] = tb[3 + k];
			}
		}
		sigma[s] = (int8_t) exg_volume_sum_sign(&sum);
		if (sigma[s] == 0)
		{
			st = exg_fail(err, EXG_ERR_NOT_SOLID, "a shell encloses no volume (face %u)",
						  P->comp[shell_tris[shell_start[s]]] + 1);
			goto done;
		}
	}

	/* 6. nesting depth of each shell (the shells whose boxes hold one of
	 * its vertices, through a BVH of the shell boxes); flip the shells
	 * oriented against it */
	if ((st = exg_bvh_build(&sbvh, sbox, nshells, err)) != EXG_OK)
		goto done;
	saved = exg_round_up_enter();
	rounding = true;
	for (uint32_t s = 0; s < nshells; s++)
	{
		nest_probe np = {P, shell_start, shell_tris, s, 0, 0, 0};
		const double *p0 = &P->xyz[3 * (size_t) P->prims[shell_tris[shell_start[s]]].v[0]];
		double		pbox[6] = {p0[0], p0[1], p0[2], p0[0], p0[1], p0[2]};
		uint8_t		shell_flip;

		if (exg_cancel_requested())
		{
			st = exg_fail(err, EXG_ERR_INTERRUPTED, "canceled");
			goto done;
		}
		exg_bvh_query(&sbvh, pbox, visit_nest, &np);
		if (np.touching)
		{
			st = exg_fail(err, EXG_ERR_NOT_SOLID,
						  "shells touch: every vertex of the shell of face %u lies on another shell",
						  P->comp[shell_tris[shell_start[s]]] + 1);
			goto done;
		}
		shell_flip = sigma[s] != ((np.depth & 1) ? -1 : 1);
		if (shell_flip && rep->inward_shells++ == 0)
			rep->first_inward_face = P->comp[shell_tris[shell_start[s]]] + 1;
		sigma[s] = (int8_t) shell_flip;	/* reused: the shell's flip */
	}
	for (i = 0; i < nfaces; i++)
		if (shell_of[i] != UINT32_MAX)
		{
			flip[i] = relflip[i] ^ (uint8_t) sigma[shell_of[i]];
			rep->flipped_faces += flip[i];
		}

done:
	if (rounding)
		exg_round_restore(saved);
	exg_bvh_free(&sbvh);
	free(tris);
	free(vid);
	free(parent);
	free(par);
	free(relflip);
	free(shell_of);
	free(shell_start);
	free(shell_tris);
	free(fill);
	free(sigma);
	free(sbox);
	return st;
}
