/*
 * known_bodies.c — the memo of bodies found good (known_bodies.h).
 */
#include "known_bodies.h"

#include <stdlib.h>
#include <string.h>

#define KNOWN_SLOTS 1024			/* the double mine's 200 bodies, and more */

typedef struct known
{
	double	   *verts;			/* the body's vertex range, 3 per vertex, malloc'ed;
								 * NULL: free slot */
	uint32_t   *rel;			/* 3 per triangle: its vertices in that range */
	size_t		nverts;
	size_t		ntris;
	uint64_t	hash;
	uint64_t	last_used;
} known;

static known slots[KNOWN_SLOTS];
static size_t bytes_kept;
static uint64_t tick;

/*
 * A body as the memo keeps it: the vertices its triangles use, as the range
 * [lo, lo + nverts) of the batch's vertex array they lie in (a row's
 * vertices are together), and each triangle's three as offsets into it.
 * Equal forms give equal triangles' coordinates in order, so a match is
 * never wrong; the same triangles over vertices laid out otherwise only miss.
 * A third of the triangles' 9 doubles each, and two plain comparisons.
 */
typedef struct body_form
{
	const double *verts;
	size_t		lo,
				nverts;
} body_form;

static body_form
form_of(const double *xyz, const uint32_t *vidx, size_t first, size_t n)
{
	uint32_t	lo = UINT32_MAX,
				hi = 0;

	for (size_t i = 3 * first; i < 3 * (first + n); i++)
	{
		lo = vidx[i] < lo ? vidx[i] : lo;
		hi = vidx[i] > hi ? vidx[i] : hi;
	}
	return (body_form) {&xyz[3 * (size_t) lo], lo, (size_t) hi - lo + 1};
}

static uint64_t
mix(uint64_t h, uint64_t w)
{
	h ^= w;
	h *= 0xff51afd7ed558ccdull;
	return h ^ (h >> 32);
}

static uint64_t
body_hash(const body_form *f, const uint32_t *vidx, size_t first, size_t n)
{
	uint64_t	h = 0x9e3779b97f4a7c15ull ^ n ^ ((uint64_t) f->nverts << 32);

	for (size_t i = 0; i < 3 * f->nverts; i++)
	{
		uint64_t	w;

		memcpy(&w, &f->verts[i], sizeof(w));
		h = mix(h, w);
	}
	for (size_t i = 3 * first; i < 3 * (first + n); i++)
		h = mix(h, vidx[i] - f->lo);
	return h;
}

static bool
same_body(const known *kb, const body_form *f, const uint32_t *vidx, size_t first, size_t n)
{
	if (kb->ntris != n || kb->nverts != f->nverts ||
		memcmp(kb->verts, f->verts, sizeof(double) * 3 * f->nverts) != 0)
		return false;
	for (size_t i = 0; i < 3 * n; i++)
		if (kb->rel[i] != vidx[3 * first + i] - f->lo)
			return false;
	return true;
}

int
exg_known_body_find(const double *xyz, const uint32_t *vidx, size_t first, size_t n,
					uint64_t *hash)
{
	body_form	f;

	*hash = 0;
	if (n < EXG_KNOWN_MIN_TRIANGLES)
		return -1;
	f = form_of(xyz, vidx, first, n);
	*hash = body_hash(&f, vidx, first, n);
	for (int i = 0; i < KNOWN_SLOTS; i++)
		if (slots[i].verts != NULL && slots[i].hash == *hash &&
			same_body(&slots[i], &f, vidx, first, n))
			return i;
	return -1;
}

void
exg_known_body_touch(int slot)
{
	if (slot >= 0 && slot < KNOWN_SLOTS)
		slots[slot].last_used = ++tick;
}

bool
exg_known_body(const double *xyz, const uint32_t *vidx, size_t first, size_t n, uint64_t *hash)
{
	int			slot = exg_known_body_find(xyz, vidx, first, n, hash);

	exg_known_body_touch(slot);
	return slot >= 0;
}

static size_t
kept_bytes(size_t nverts, size_t ntris)
{
	return sizeof(double) * 3 * nverts + sizeof(uint32_t) * 3 * ntris;
}

static void
drop(known *kb)
{
	bytes_kept -= kept_bytes(kb->nverts, kb->ntris);
	free(kb->verts);
	free(kb->rel);
	memset(kb, 0, sizeof(*kb));
}

uint64_t
exg_known_bodies_tick(void)
{
	return tick;
}

void
exg_known_body_add(const double *xyz, const uint32_t *vidx, size_t first, size_t n,
				   uint64_t hash, uint64_t since)
{
	body_form	f;
	size_t		need;
	known	   *kb;

	if (n < EXG_KNOWN_MIN_TRIANGLES)
		return;
	f = form_of(xyz, vidx, first, n);
	need = kept_bytes(f.nverts, n);
	if (need > EXG_KNOWN_BUDGET)
		return;
	for (;;)
	{
		known	   *victim = NULL;

		kb = NULL;
		for (int i = 0; i < KNOWN_SLOTS; i++)
		{
			if (slots[i].verts == NULL)
			{
				if (kb == NULL)
					kb = &slots[i];
			}
			else if (slots[i].last_used <= since &&
					 (victim == NULL || slots[i].last_used < victim->last_used))
				victim = &slots[i];
		}
		if (kb != NULL && bytes_kept + need <= EXG_KNOWN_BUDGET)
			break;
		if (victim == NULL)
			return;
		drop(victim);
	}
	kb->verts = malloc(sizeof(double) * 3 * f.nverts);
	kb->rel = malloc(sizeof(uint32_t) * 3 * n);
	if (kb->verts == NULL || kb->rel == NULL)
	{
		/* a memo only: nothing is lost but time */
		free(kb->verts);
		free(kb->rel);
		kb->verts = NULL;
		kb->rel = NULL;
		return;
	}
	memcpy(kb->verts, f.verts, sizeof(double) * 3 * f.nverts);
	for (size_t i = 0; i < 3 * n; i++)
		kb->rel[i] = vidx[3 * first + i] - (uint32_t) f.lo;
	kb->nverts = f.nverts;
	kb->ntris = n;
	kb->hash = hash;
	kb->last_used = ++tick;
	bytes_kept += need;
}

void
exg_known_bodies_clear(void)
{
	for (int i = 0; i < KNOWN_SLOTS; i++)
		if (slots[i].verts != NULL)
			drop(&slots[i]);
}
