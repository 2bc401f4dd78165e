/*
 * bvh.h — a static bounding-volume hierarchy over axis-aligned boxes.
 *
 * Indexes the primitives of one geometry so that a query box visits only the
 * primitives whose boxes meet it: one 50-segment drill hole against a body
 * of 10^6 triangles costs about 50 log(10^6) node visits, not 5 * 10^7 tests.
 * Boxes are closed and compared exactly, so no candidate is ever lost.
 */
#ifndef EXG_BVH_H
#define EXG_BVH_H

#include <stddef.h>
#include <stdint.h>

#include "exg_status.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct exg_bvh_node
{
	double		lo[3];
	double		hi[3];
	uint32_t	first;			/* leaf: first slot in order[]; inner: left child */
	uint32_t	count;			/* leaf: number of primitives; inner: 0 */
} exg_bvh_node;

typedef struct exg_bvh
{
	uint32_t	nprims;
	uint32_t	nnodes;
	uint32_t   *order;			/* primitive ids in leaf order */
	exg_bvh_node *nodes;		/* nodes[0] is the root; right child = left + 1 */
} exg_bvh;

/* Box layout everywhere: lo x, lo y, lo z, hi x, hi y, hi z. */
exg_status	exg_bvh_build(exg_bvh *bvh, const double *boxes, uint32_t n, exg_error *err);
void		exg_bvh_free(exg_bvh *bvh);

/* Visitor: return non-zero to stop the query early. */
typedef int (*exg_bvh_visit_fn) (void *ctx, uint32_t prim);

/* Visit every primitive whose box meets the closed query box; returns the
 * visitor's non-zero value if it stopped the query, else 0. */
int			exg_bvh_query(const exg_bvh *bvh, const double *box,
						  exg_bvh_visit_fn visit, void *ctx);

static inline int
exg_boxes_meet(const double *a, const double *b)
{
	return a[0] <= b[3] && b[0] <= a[3] &&
		a[1] <= b[4] && b[1] <= a[4] &&
		a[2] <= b[5] && b[2] <= a[5];
}

#ifdef __cplusplus
}
#endif

#endif							/* EXG_BVH_H */
