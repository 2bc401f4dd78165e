/*
 * known_bodies.c — the memo of bodies found good (known_bodies.h).
 */
#include "known_bodies.h"

#include <stdlib.h>
#include <string.h>

#define KNOWN_SLOTS 1024			/* the double mine's 200 bodies, and more */

typedef struct known
{
	double	   *coords;			/* 9 per triangle, malloc'ed; NULL: free slot */
	size_t		ntris;
	uint64_t	hash;
	uint64_t	last_used;
} known;

static known slots[KNOWN_SLOTS];
static size_t bytes_kept;
static uint64_t tick;

/* The coordinates of triangle t, as the memo compares them. */
static inline const double *
vertex(const double *xyz, const uint32_t *vidx, size_t t, int k)
{
	return &xyz[3 * (size_t) vidx[3 * t + k]];
}

static uint64_t
body_hash(const double *xyz, const uint32_t *vidx, size_t first, size_t n)
{
	uint64_t	h = 0x9e3779b97f4a7c15ull ^ n;

	for (size_t t = first; t < first + n; t++)
		for (int k = 0; k < 3; k++)
		{
			uint64_t	w[3];

			memcpy(w, vertex(xyz, vidx, t, k), sizeof(w));
			for (int c = 0; c < 3; c++)
			{
				h ^= w[c];
				h *= 0xff51afd7ed558ccdull;
				h ^= h >> 32;
			}
		}
	return h;
}

static bool
same_body(const known *kb, const double *xyz, const uint32_t *vidx, size_t first, size_t n)
{
	if (kb->ntris != n)
		return false;
	for (size_t t = 0; t < n; t++)
		for (int k = 0; k < 3; k++)
			if (memcmp(&kb->coords[9 * t + 3 * k], vertex(xyz, vidx, first + t, k),
					   3 * sizeof(double)) != 0)
				return false;
	return true;
}

int
exg_known_body_find(const double *xyz, const uint32_t *vidx, size_t first, size_t n,
					uint64_t *hash)
{
	*hash = 0;
	if (n < EXG_KNOWN_MIN_TRIANGLES)
		return -1;
	*hash = body_hash(xyz, vidx, first, n);
	for (int i = 0; i < KNOWN_SLOTS; i++)
		if (slots[i].coords != NULL && slots[i].hash == *hash &&
			same_body(&slots[i], xyz, vidx, first, n))
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

static void
drop(known *kb)
{
	bytes_kept -= sizeof(double) * 9 * kb->ntris;
	free(kb->coords);
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
	size_t		need = sizeof(double) * 9 * n;
	known	   *kb;

	if (n < EXG_KNOWN_MIN_TRIANGLES || need > EXG_KNOWN_BUDGET)
		return;
	for (;;)
	{
		known	   *victim = NULL;

		kb = NULL;
		for (int i = 0; i < KNOWN_SLOTS; i++)
		{
			if (slots[i].coords == NULL)
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
	kb->coords = malloc(need);
	if (kb->coords == NULL)
		return;					/* a memo only: nothing is lost but time */
	for (size_t t = 0; t < n; t++)
		for (int k = 0; k < 3; k++)
			memcpy(&kb->coords[9 * t + 3 * k], vertex(xyz, vidx, first + t, k), 3 * sizeof(double));
	kb->ntris = n;
	kb->hash = hash;
	kb->last_used = ++tick;
	bytes_kept += need;
}

void
exg_known_bodies_clear(void)
{
	for (int i = 0; i < KNOWN_SLOTS; i++)
		if (slots[i].coords != NULL)
			drop(&slots[i]);
}
