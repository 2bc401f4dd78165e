/*
 * geom_packed.c — packing a prepared geometry into one block and borrowing
 * it back (geom_packed.h).
 *
 * Layout: a header, then each array at an 8-byte aligned offset from the
 * block's start, in a fixed order (shape: vertices, ring starts, components;
 * then per built view: primitives, boxes, components, index order, index
 * nodes). The header repeats every count, so a reader checks that the
 * arrays it will read lie inside the block before pointing at them.
 */
#include "geom_packed.h"

#include <stdint.h>
#include <string.h>

#define PACK_MAGIC	 0x45584750u	/* "EXGP" */
#define PACK_VERSION 1u
#define NVIEWS		 3

typedef struct packed_view
{
	uint8_t		built;
	uint8_t		indexed;
	uint8_t		has_comp;
	uint64_t	nprims;
	uint32_t	nnodes;
	double		box[6];
	uint64_t	off_prims,
				off_boxes,
				off_comp,
				off_order,
				off_nodes;
} packed_view;

typedef struct packed_header
{
	uint32_t	magic;
	uint32_t	version;
	uint64_t	size;			/* the whole block */
	int32_t		srid;
	uint32_t	geom_type;
	uint8_t		has_z,
				has_m,
				is_solid;
	int8_t		closed;
	int32_t		policy;
	uint64_t	nverts,
				nrings,
				ncomps;
	uint64_t	off_xyz,
				off_rings,
				off_comps;
	packed_view views[NVIEWS];
} packed_header;

static size_t
align8(size_t n)
{
	return (n + 7) & ~(size_t) 7;
}

static const exg_view *
view_at(const exg_prepared *g, int i)
{
	return i == 0 ? &g->view3d : i == 1 ? &g->view2d : &g->areas2d;
}

static exg_view *
view_at_mut(exg_prepared *g, int i)
{
	return i == 0 ? &g->view3d : i == 1 ? &g->view2d : &g->areas2d;
}

/* Lay out g (sizes only when block is NULL); returns the total size. */
static size_t
layout(const exg_prepared *g, packed_header *h, uint8_t *block)
{
	size_t		off = align8(sizeof(packed_header));

#define PUT(field, src, bytes) \
	do { \
		size_t b_ = (bytes); \
		(field) = off; \
		if (block != NULL && b_ > 0) \
			memcpy(block + off, (src), b_); \
		off = align8(off + b_); \
	} while (0)

	PUT(h->off_xyz, g->shape.xyz, sizeof(double) * 3 * g->shape.nverts);
	PUT(h->off_rings, g->shape.ring_start,
		g->shape.nrings ? sizeof(size_t) * (g->shape.nrings + 1) : 0);
	PUT(h->off_comps, g->shape.comps, sizeof(exg_comp) * g->shape.ncomps);
	for (int i = 0; i < NVIEWS; i++)
	{
		const exg_view *v = view_at(g, i);
		packed_view *pv = &h->views[i];

		memset(pv, 0, sizeof(*pv));
		if (!v->built)
			continue;
		pv->built = 1;
		pv->indexed = v->indexed;
		pv->has_comp = v->prims.comp != NULL;
		pv->nprims = v->prims.nprims;
		memcpy(pv->box, v->prims.box, sizeof(pv->box));
		PUT(pv->off_prims, v->prims.prims, sizeof(exg_prim) * v->prims.nprims);
		PUT(pv->off_boxes, v->prims.boxes, sizeof(double) * 6 * v->prims.nprims);
		PUT(pv->off_comp, v->prims.comp, pv->has_comp ? sizeof(uint32_t) * v->prims.nprims : 0);
		if (v->indexed)
		{
			pv->nnodes = v->bvh.nnodes;
			PUT(pv->off_order, v->bvh.order, sizeof(uint32_t) * v->bvh.nprims);
			PUT(pv->off_nodes, v->bvh.nodes, sizeof(exg_bvh_node) * v->bvh.nnodes);
		}
	}
#undef PUT
	return off;
}

size_t
exg_prepared_packed_size(const exg_prepared *g)
{
	packed_header h;

	return layout(g, &h, NULL);
}

void
exg_prepared_pack(const exg_prepared *g, void *block)
{
	packed_header h;

	memset(&h, 0, sizeof(h));
	h.magic = PACK_MAGIC;
	h.version = PACK_VERSION;
	h.srid = g->shape.srid;
	h.geom_type = g->shape.geom_type;
	h.has_z = g->shape.has_z;
	h.has_m = g->shape.has_m;
	h.is_solid = g->shape.is_solid;
	h.closed = g->closed;
	h.policy = (int32_t) g->policy;
	h.nverts = g->shape.nverts;
	h.nrings = g->shape.nrings;
	h.ncomps = g->shape.ncomps;
	h.size = layout(g, &h, block);
	memcpy(block, &h, sizeof(h));
}

/* Does [off, off + bytes) lie in a block of size bytes? (no overflow) */
static int
inside(uint64_t off, uint64_t count, uint64_t elem, uint64_t size)
{
	if (count == 0)
		return off <= size;
	if (count > size / elem)
		return 0;
	return off <= size && count * elem <= size - off;
}

exg_status
exg_prepared_borrow(const void *block, size_t size, exg_prepared *out, exg_error *err)
{
	const uint8_t *b = block;
	packed_header h;

	memset(out, 0, sizeof(*out));
	if (size < sizeof(h))
		return exg_fail(err, EXG_ERR_ARGUMENT, "packed geometry: block too small");
	memcpy(&h, b, sizeof(h));
	if (h.magic != PACK_MAGIC || h.version != PACK_VERSION || h.size != size ||
		!inside(h.off_xyz, h.nverts, 3 * sizeof(double), size) ||
		/* nrings + 1 ring starts: a count of all ones would wrap to none */
		h.nrings >= UINT64_MAX / sizeof(size_t) ||
		!inside(h.off_rings, h.nrings ? h.nrings + 1 : 0, sizeof(size_t), size) ||
		!inside(h.off_comps, h.ncomps, sizeof(exg_comp), size))
		return exg_fail(err, EXG_ERR_ARGUMENT, "packed geometry: not a block of this build");
	for (int i = 0; i < NVIEWS; i++)
	{
		const packed_view *pv = &h.views[i];

		if (pv->built &&
			(!inside(pv->off_prims, pv->nprims, sizeof(exg_prim), size) ||
			 !inside(pv->off_boxes, pv->nprims, 6 * sizeof(double), size) ||
			 (pv->has_comp && !inside(pv->off_comp, pv->nprims, sizeof(uint32_t), size)) ||
			 (pv->indexed && (pv->nprims > UINT32_MAX ||
							  !inside(pv->off_order, pv->nprims, sizeof(uint32_t), size) ||
							  !inside(pv->off_nodes, pv->nnodes, sizeof(exg_bvh_node), size)))))
			return exg_fail(err, EXG_ERR_ARGUMENT, "packed geometry: a view lies outside its block");
	}

	/* The engine reads these arrays through non-const pointers but never
	 * writes a built part: the borrowed flags keep exg_prepared_free off. */
	exg_shape_init(&out->shape);
	out->shape.srid = h.srid;
	out->shape.geom_type = h.geom_type;
	out->shape.has_z = h.has_z;
	out->shape.has_m = h.has_m;
	out->shape.is_solid = h.is_solid;
	out->shape.xyz = h.nverts ? (double *) (b + h.off_xyz) : NULL;
	out->shape.nverts = out->shape.verts_cap = h.nverts;
	out->shape.ring_start = h.nrings ? (size_t *) (b + h.off_rings) : NULL;
	out->shape.nrings = out->shape.rings_cap = h.nrings;
	out->shape.comps = h.ncomps ? (exg_comp *) (b + h.off_comps) : NULL;
	out->shape.ncomps = out->shape.comps_cap = h.ncomps;
	out->policy = (exg_nonplanar_policy) h.policy;
	out->closed = h.closed;
	out->borrowed = EXG_BORROWED_SHAPE;
	for (int i = 0; i < NVIEWS; i++)
	{
		const packed_view *pv = &h.views[i];
		exg_view   *v = view_at_mut(out, i);

		if (!pv->built)
			continue;
		v->built = true;
		v->prims.xyz = out->shape.xyz;
		v->prims.prims = (exg_prim *) (b + pv->off_prims);
		v->prims.nprims = v->prims.cap = pv->nprims;
		v->prims.boxes = (double *) (b + pv->off_boxes);
		v->prims.comp = pv->has_comp ? (uint32_t *) (b + pv->off_comp) : NULL;
		memcpy(v->prims.box, pv->box, sizeof(pv->box));
		if (pv->indexed)
		{
			v->indexed = true;
			v->bvh.nprims = (uint32_t) pv->nprims;
			v->bvh.nnodes = pv->nnodes;
			v->bvh.order = (uint32_t *) (b + pv->off_order);
			v->bvh.nodes = (exg_bvh_node *) (b + pv->off_nodes);
			out->borrowed |= EXG_BORROWED_INDEX3D << i;
		}
		out->borrowed |= EXG_BORROWED_VIEW3D << i;
	}
	return EXG_OK;
}
