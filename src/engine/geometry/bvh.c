/*
 * bvh.c — building and querying the bounding-volume hierarchy.
 *
 * Built top-down by median split on the widest axis of the box centres, so
 * the depth is at most ceil(log2(n / LEAF_SIZE)) + 1 whatever the data's
 * distribution (a uniform grid degrades on the long thin shapes drill holes
 * are). The split keys are rounded sums, which only affects balance: the
 * boxes themselves are exact min/max of input doubles.
 */
#include "bvh.h"

#include <stdlib.h>
#include <string.h>

#define LEAF_SIZE 4
#define MAX_DEPTH 64

typedef struct build_task
{
	uint32_t	node;
	uint32_t	start;
	uint32_t	end;
} build_task;

static void
node_bounds(exg_bvh_node *nd, const double *boxes, const uint32_t *order,
			uint32_t start, uint32_t end)
{
	uint32_t	t;
	int			k;

	for (k = 0; k < 3; k++)
	{
		nd->lo[k] = boxes[6 * order[start] + k];
		nd->hi[k] = boxes[6 * order[start] + 3 + k];
	}
	for (t = start + 1; t < end; t++)
	{
		const double *b = &boxes[6 * order[t]];

		for (k = 0; k < 3; k++)
		{
			if (b[k] < nd->lo[k])
				nd->lo[k] = b[k];
			if (b[3 + k] > nd->hi[k])
				nd->hi[k] = b[3 + k];
		}
	}
}

static inline double
centre_key(const double *boxes, uint32_t prim, int axis)
{
	return boxes[6 * prim + axis] + boxes[6 * prim + 3 + axis];
}

/* Reorder order[start, end) so that slot mid holds the median key (Hoare select). */
static void
select_median(uint32_t *order, const double *boxes, int axis,
			  uint32_t start, uint32_t end, uint32_t mid)
{
	uint32_t	lo = start,
				hi = end - 1;

	while (lo < hi)
	{
		double		pivot = centre_key(boxes, order[lo + (hi - lo) / 2], axis);
		uint32_t	i = lo,
					j = hi;

		while (i <= j)
		{
			while (centre_key(boxes, order[i], axis) < pivot)
				i++;
			while (centre_key(boxes, order[j], axis) > pivot)
				j--;
			if (i <= j)
			{
				uint32_t	tmp = order[i];

				order[i] = order[j];
				order[j] = tmp;
				i++;
				if (j == 0)
					break;
				j--;
			}
		}
		if (mid <= j)
			hi = j;
		else if (mid >= i)
			lo = i;
		else
			break;
	}
}

static int
widest_centre_axis(const double *boxes, const uint32_t *order, uint32_t start,
				   uint32_t end)
{
	double		lo[3],
				hi[3];
	uint32_t	t;
	int			k,
				best = 0;

	for (k = 0; k < 3; k++)
		lo[k] = hi[k] = centre_key(boxes, order[start], k);
	for (t = start + 1; t < end; t++)
		for (k = 0; k < 3; k++)
		{
			double		c = centre_key(boxes, order[t], k);

			if (c < lo[k])
				lo[k] = c;
			if (c > hi[k])
				hi[k] = c;
		}
	for (k = 1; k < 3; k++)
		if (hi[k] - lo[k] > hi[best] - lo[best])
			best = k;
	return best;
}

exg_status
exg_bvh_build(exg_bvh *bvh, const double *boxes, uint32_t n, exg_error *err)
{
	build_task	stack[MAX_DEPTH];
	int			top = 0;
	uint32_t	t;

	memset(bvh, 0, sizeof(*bvh));
	if (n == 0)
		return EXG_OK;
	if (n > UINT32_MAX / 2)
		return exg_fail(err, EXG_ERR_TOO_LARGE, "too many primitives to index");
	bvh->order = malloc(sizeof(uint32_t) * n);
	bvh->nodes = malloc(sizeof(exg_bvh_node) * (2 * (size_t) n));
	if (bvh->order == NULL || bvh->nodes == NULL)
	{
		exg_bvh_free(bvh);
		return exg_fail(err, EXG_ERR_NOMEM, "out of memory indexing geometry");
	}
	for (t = 0; t < n; t++)
		bvh->order[t] = t;
	bvh->nprims = n;
	bvh->nnodes = 1;
	stack[top++] = (build_task) {0, 0, n};

	while (top > 0)
	{
		build_task	task = stack[--top];
		exg_bvh_node *nd = &bvh->nodes[task.node];
		uint32_t	mid;
		uint32_t	left;

		node_bounds(nd, boxes, bvh->order, task.start, task.end);
		if (task.end - task.start <= LEAF_SIZE || top + 2 > MAX_DEPTH)
		{
			nd->first = task.start;
			nd->count = task.end - task.start;
			continue;
		}
		mid = task.start + (task.end - task.start) / 2;
		select_median(bvh->order, boxes,
					  widest_centre_axis(boxes, bvh->order, task.start, task.end),
					  task.start, task.end, mid);
		left = bvh->nnodes;
		bvh->nnodes += 2;
		nd->first = left;
		nd->count = 0;
		stack[top++] = (build_task) {left, task.start, mid};
		stack[top++] = (build_task) {left + 1, mid, task.end};
	}
	return EXG_OK;
}

void
exg_bvh_free(exg_bvh *bvh)
{
	free(bvh->order);
	free(bvh->nodes);
	memset(bvh, 0, sizeof(*bvh));
}

static inline int
node_meets(const exg_bvh_node *nd, const double *box)
{
	return nd->lo[0] <= box[3] && box[0] <= nd->hi[0] &&
		nd->lo[1] <= box[4] && box[1] <= nd->hi[1] &&
		nd->lo[2] <= box[5] && box[2] <= nd->hi[2];
}

int
exg_bvh_query(const exg_bvh *bvh, const double *box, exg_bvh_visit_fn visit, void *ctx)
{
	uint32_t	stack[MAX_DEPTH + 2];
	int			top = 0;

	if (bvh->nnodes == 0)
		return 0;
	stack[top++] = 0;
	while (top > 0)
	{
		const exg_bvh_node *nd = &bvh->nodes[stack[--top]];

		if (!node_meets(nd, box))
			continue;
		if (nd->count > 0)
		{
			uint32_t	t;

			for (t = nd->first; t < nd->first + nd->count; t++)
			{
				int			r = visit(ctx, bvh->order[t]);

				if (r != 0)
					return r;
			}
		}
		else
		{
			stack[top++] = nd->first;
			stack[top++] = nd->first + 1;
		}
	}
	return 0;
}
