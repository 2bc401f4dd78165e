/*
 * test_geom_packed.c — a prepared geometry packed into a block and borrowed
 * back answers as the original does (geom_packed.h): the resident store
 * keeps prepared bodies in shared memory this way.
 *
 *   - bumpy spheres and tori (harness meshes) at UTM-sized offsets, their 3D
 *     view built and indexed, packed, the block copied to another address
 *     (as another process would map it) and the original freed: segments
 *     and points tested against the borrowed body and against a freshly
 *     prepared one give the same answers (intersects, intersects-solid);
 *   - a borrowed body builds the views it lacks in its own memory (the 2D
 *     view after packing only the 3D one) and frees only those;
 *   - torn blocks (truncated, wrong magic, an offset out of range) are
 *     refused, never read.
 */
#include <stdlib.h>
#include <string.h>

#include "harness.h"

#include "geom_packed.h"
#include "geom_prepared.h"
#include "solid.h"

static test_rng rng = {20261127};

static void
segment_shape(exg_shape *s, const double *a, const double *b)
{
	exg_error	err;

	exg_shape_init(s);
	s->has_z = true;
	s->geom_type = 2;
	exg_shape_begin_comp(s, EXG_COMP_LINE, false, &err);
	exg_shape_begin_ring(s, &err);
	exg_shape_add_vertex(s, a[0], a[1], a[2], &err);
	exg_shape_add_vertex(s, b[0], b[1], b[2], &err);
}

/* A random point near the body's box (lo, hi), often on a vertex of it. */
static void
probe_point(const test_mesh *m, const double *lo, const double *hi, double *p)
{
	if (rng_below(&rng, 4) == 0)
	{
		const double *v = &m->xyz[3 * rng_below(&rng, m->nv)];

		memcpy(p, v, 3 * sizeof(double));
		return;
	}
	for (int k = 0; k < 3; k++)
	{
		double		w = hi[k] - lo[k];

		p[k] = lo[k] - 0.2 * w + 1.4 * w * rng_uniform(&rng);
	}
}

static void
test_same_answers(void)
{
	test_mesh	m = {0};
	double		o[3] = {500000.25, 7000000.5, -300.0},
				c[3] = {0, 0, 0};
	int			mismatches = 0,
				probes = 0,
				hits = 0;

	printf("== borrowed bodies answer as freshly prepared ones\n");
	test_mesh_add_round(&m, o, c, 40, 0, false, 24, 16, 0.15, &rng);
	m.nbodies++;
	c[0] = 150;
	test_mesh_add_round(&m, o, c, 40, 12, true, 24, 16, 0.15, &rng);
	m.nbodies++;
	for (uint32_t body = 0; body < m.nbodies; body++)
	{
		exg_shape	s,
					s2;
		exg_prepared orig,
					fresh,
					borrowed;
		exg_error	err;
		const exg_view *view;
		double		lo[3],
					hi[3];
		size_t		size;
		void	   *block,
				   *moved;

		test_mesh_body_shape(&m, body, &s);
		test_mesh_body_shape(&m, body, &s2);
		exg_shape_extent(&s, lo, hi);
		exg_prepared_init(&orig, &s, EXG_NONPLANAR_ERROR);
		exg_prepared_init(&fresh, &s2, EXG_NONPLANAR_ERROR);
		CHECK(exg_prepared_view3d(&orig, true, &view, &err) == EXG_OK, "3D view: %s", err.message);
		size = exg_prepared_packed_size(&orig);
		block = aligned_alloc(8, (size + 7) & ~(size_t) 7);
		exg_prepared_pack(&orig, block);
		/* another process maps the block elsewhere; the original is gone */
		moved = aligned_alloc(8, (size + 7) & ~(size_t) 7);
		memcpy(moved, block, size);
		memset(block, 0xa5, size);
		free(block);
		exg_prepared_free(&orig);
		CHECK(exg_prepared_borrow(moved, size, &borrowed, &err) == EXG_OK, "borrow: %s", err.message);
		CHECK(borrowed.view3d.built && borrowed.view3d.indexed, "the packed 3D view and index come back");
		CHECK(borrowed.shape.nverts == fresh.shape.nverts, "vertex count");

		for (int i = 0; i < 400; i++)
		{
			double		a[3],
						b[3];
			bool		r1 = false,
						r2 = false,
						v1 = false,
						v2 = false;
			exg_shape	seg1,
						seg2;
			exg_prepared p1,
						p2;

			probe_point(&m, lo, hi, a);
			probe_point(&m, lo, hi, b);
			segment_shape(&seg1, a, b);
			segment_shape(&seg2, a, b);
			exg_prepared_init(&p1, &seg1, EXG_NONPLANAR_ERROR);
			exg_prepared_init(&p2, &seg2, EXG_NONPLANAR_ERROR);
			CHECK(exg_intersects_3d(&borrowed, &p1, &r1, &err) == EXG_OK, "%s", err.message);
			CHECK(exg_intersects_3d(&fresh, &p2, &r2, &err) == EXG_OK, "%s", err.message);
			CHECK(exg_intersects_solid_3d(&borrowed, &p1, &v1, &err) == EXG_OK, "%s", err.message);
			CHECK(exg_intersects_solid_3d(&fresh, &p2, &v2, &err) == EXG_OK, "%s", err.message);
			mismatches += (r1 != r2) + (v1 != v2);
			hits += r2 + v2;
			probes += 2;
			exg_prepared_free(&p1);
			exg_prepared_free(&p2);
		}

		/* a view the block lacks is built in the borrower's own memory */
		CHECK(!borrowed.view2d.built, "the 2D view was not packed");
		CHECK(exg_prepared_view(&borrowed, 2, true, &err) == EXG_OK, "2D view: %s", err.message);
		CHECK(exg_prepared_view(&fresh, 2, true, &err) == EXG_OK, "2D view: %s", err.message);
		CHECK(borrowed.view2d.prims.nprims == fresh.view2d.prims.nprims &&
			  memcmp(borrowed.view2d.prims.boxes, fresh.view2d.prims.boxes,
					 6 * sizeof(double) * fresh.view2d.prims.nprims) == 0,
			  "the 2D view built on a borrowed body equals the fresh one");
		exg_prepared_free(&borrowed);	/* frees the 2D view only */
		exg_prepared_free(&fresh);
		free(moved);
	}
	CHECK(mismatches == 0, "%d of %d answers differ between borrowed and fresh bodies",
		  mismatches, probes);
	/* the probes must meet the bodies often and miss them often */
	CHECK(hits > probes / 5 && hits < probes * 4 / 5, "%d of %d probes meet: not a test", hits, probes);
	printf("   %d probes, %d meet, %d differ\n", probes, hits, mismatches);
	test_mesh_free(&m);
}

/* Do count elements of elem bytes at p lie in [block, block + size)? (no overflow) */
static bool
lies_in(const void *p, uint64_t count, uint64_t elem, const uint8_t *block, size_t size)
{
	const uint8_t *q = p;

	if (count == 0)
		return true;
	if (q < block || q > block + size || count > (size - (size_t) (q - block)) / elem)
		return false;
	return true;
}

static void
test_torn_blocks(void)
{
	test_mesh	m = {0};
	double		o[3] = {0, 0, 0},
				c[3] = {0, 0, 0};
	exg_shape	s;
	exg_prepared g,
				b;
	exg_error	err;
	const exg_view *view;
	size_t		size;
	uint8_t    *block,
			   *bad;

	printf("== torn blocks are refused\n");
	test_mesh_add_round(&m, o, c, 10, 0, false, 12, 8, 0.1, &rng);
	m.nbodies++;
	test_mesh_body_shape(&m, 0, &s);
	exg_prepared_init(&g, &s, EXG_NONPLANAR_ERROR);
	exg_prepared_view3d(&g, true, &view, &err);
	size = exg_prepared_packed_size(&g);
	block = aligned_alloc(8, (size + 7) & ~(size_t) 7);
	bad = aligned_alloc(8, (size + 7) & ~(size_t) 7);
	exg_prepared_pack(&g, block);
	CHECK(exg_prepared_borrow(block, size, &b, &err) == EXG_OK, "intact block");
	exg_prepared_free(&b);
	CHECK(exg_prepared_borrow(block, size - 8, &b, &err) == EXG_ERR_ARGUMENT, "truncated block");
	CHECK(exg_prepared_borrow(block, 16, &b, &err) == EXG_ERR_ARGUMENT, "a header's worth short");
	memcpy(bad, block, size);
	bad[0] ^= 1;
	CHECK(exg_prepared_borrow(bad, size, &b, &err) == EXG_ERR_ARGUMENT, "wrong magic");
	/* every 8-byte word of the header, in turn, set out of range: 2^60, and
	 * all ones (a count whose "+ 1" wraps to 0) */
	for (int w = 0; w < 2; w++)
		for (size_t off = 8; off < 512 && off + 8 <= size; off += 8)
		{
			uint64_t	huge = w == 0 ? (uint64_t) 1 << 60 : UINT64_MAX;
			exg_status	st;

			memcpy(bad, block, size);
			memcpy(bad + off, &huge, 8);
			st = exg_prepared_borrow(bad, size, &b, &err);
			if (st == EXG_OK)
			{
				/* a word that is no count or offset (a box bound, a flag
				 * byte group): the borrowed arrays must still lie in the
				 * block */
				CHECK(lies_in(b.shape.xyz, b.shape.nverts, 3 * sizeof(double), bad, size),
					  "word %zu = %#llx: vertices outside the block", off,
					  (unsigned long long) huge);
				CHECK(b.shape.nrings == 0 ||
					  (b.shape.nrings < size &&
					   lies_in(b.shape.ring_start, b.shape.nrings + 1, sizeof(size_t), bad, size)),
					  "word %zu = %#llx: ring starts outside the block", off,
					  (unsigned long long) huge);
				CHECK(lies_in(b.shape.comps, b.shape.ncomps, sizeof(exg_comp), bad, size),
					  "word %zu = %#llx: components outside the block", off,
					  (unsigned long long) huge);
				CHECK(!b.view3d.built ||
					  (lies_in(b.view3d.prims.prims, b.view3d.prims.nprims, sizeof(exg_prim), bad, size) &&
					   lies_in(b.view3d.prims.boxes, b.view3d.prims.nprims, 6 * sizeof(double), bad, size)),
					  "word %zu = %#llx: primitives outside the block", off,
					  (unsigned long long) huge);
				exg_prepared_free(&b);
			}
		}
	exg_prepared_free(&g);
	free(block);
	free(bad);
	test_mesh_free(&m);
}

int
main(void)
{
	test_same_answers();
	test_torn_blocks();
	return test_summary("test_geom_packed");
}
