/*
 * known_bodies.h — bodies of the batch joins already found to have a
 * well-defined inside (solid_check.h), remembered for the life of the
 * process, so that a body joined again is not judged again.
 *
 * A body is recognised by its triangles' coordinates, in order: the memo
 * keeps a copy of them (the range of vertices they use and each triangle's
 * three offsets into it: a third of 9 doubles a triangle) and compares it
 * in full before it trusts a match, so a match is never wrong and never
 * stale, whatever changed in the tables; a hash only picks the candidate.
 * Comparing is a pass over the body's vertices and indices, where judging
 * it is a self-join of its triangles (about 100 times as long at 10^5
 * triangles). Only bodies of at least EXG_KNOWN_MIN_TRIANGLES are kept,
 * within EXG_KNOWN_BUDGET bytes (the large mine's 10^7 triangles take
 * about 240 MB; least recently used out, never one the current check
 * looked up). Lookups (exg_known_body_find) may run on several threads at
 * once while nothing is added; the rest runs on the caller's thread.
 */
#ifndef EXG_KNOWN_BODIES_H
#define EXG_KNOWN_BODIES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define EXG_KNOWN_MIN_TRIANGLES 4096
#define EXG_KNOWN_BUDGET ((size_t) 512 * 1024 * 1024)

/*
 * Was the body of triangles vidx[3 first .. 3 (first + n)) over xyz found
 * good before? *hash receives its hash (for exg_known_body_add).
 */
bool		exg_known_body(const double *xyz, const uint32_t *vidx, size_t first, size_t n,
						   uint64_t *hash);

/*
 * exg_known_body in two steps, for a check of many bodies on several
 * threads: the slot that matches (-1: none), which only reads the memo (any
 * number of threads at once, while nothing is added); then, on one thread,
 * its use noted.
 */
int			exg_known_body_find(const double *xyz, const uint32_t *vidx, size_t first, size_t n,
								uint64_t *hash);
void		exg_known_body_touch(int slot);

/* The memo's clock: a check takes it before its lookups (exg_known_body_add). */
uint64_t	exg_known_bodies_tick(void);

/*
 * Remember that body as good (ignored when too small or too big). Room is
 * made by forgetting the least recently used bodies not looked up since
 * `since`: a check of more bodies than the memo holds keeps the first it
 * found, not a rotation of them (least recently used alone, a join of the
 * same bodies in the same order would then find none).
 */
void		exg_known_body_add(const double *xyz, const uint32_t *vidx, size_t first, size_t n,
							   uint64_t hash, uint64_t since);

/* Forget every body (tests). */
void		exg_known_bodies_clear(void);

#ifdef __cplusplus
}
#endif

#endif							/* EXG_KNOWN_BODIES_H */
