/*
 * test_batch_packed.c — a flattened batch packed into a block and borrowed
 * back joins as the original does (batch_packed.h): the resident store keeps
 * a join side of bodies this way.
 *
 *   - bodies (harness meshes, one per row, some rows empty) and segments;
 *     the bodies' batch packed, moved to another address, the original
 *     freed; the borrowed batch's arrays equal a fresh batch's, and its
 *     joins (as surfaces and as volumes) give the same row pairs;
 *   - torn or foreign blocks are refused: truncated, another policy or
 *     axes, a vertex index or owner out of range;
 *   - arrays borrowed on trust (exg_batch_borrow_arrays, the GPU service's
 *     sides) are checked by exg_batch_check: an index or owner out of
 *     range, or owners out of row order, refused; intact ones taken.
 */
#include <stdlib.h>
#include <string.h>

#include "harness.h"

#include "batch.h"
#include "batch_packed.h"
#include "geom_shape.h"

static test_rng rng = {27};

static void
add_body(exg_batch *b, const test_mesh *m, uint32_t body)
{
	exg_shape	s;
	exg_error	err;

	test_mesh_body_shape(m, body, &s);
	CHECK(exg_batch_add(b, &s, &err) == EXG_OK, "add body: %s", err.message);
	exg_shape_free(&s);
}

static void
add_empty(exg_batch *b)
{
	exg_shape	s;
	exg_error	err;

	exg_shape_init(&s);
	s.has_z = true;
	CHECK(exg_batch_add(b, &s, &err) == EXG_OK, "add empty: %s", err.message);
	exg_shape_free(&s);
}

static void
make_bodies(exg_batch *b, const test_mesh *m)
{
	exg_batch_init(b, 3, EXG_NONPLANAR_ERROR);
	for (uint32_t body = 0; body < m->nbodies; body++)
	{
		if (body == 2)
			add_empty(b);
		add_body(b, m, body);
	}
}

static void
make_holes(exg_batch *h, int n)
{
	exg_batch_init(h, 3, EXG_NONPLANAR_ERROR);
	for (int i = 0; i < n; i++)
	{
		exg_shape	s;
		exg_error	err;
		double		x = 200 * rng_uniform(&rng) - 20,
					y = 60 * rng_uniform(&rng) - 30;

		exg_shape_init(&s);
		s.has_z = true;
		s.geom_type = 2;
		exg_shape_begin_comp(&s, EXG_COMP_LINE, false, &err);
		exg_shape_begin_ring(&s, &err);
		exg_shape_add_vertex(&s, x, y, -60, &err);
		exg_shape_add_vertex(&s, x + 3, y + 1, 60, &err);
		CHECK(exg_batch_add(h, &s, &err) == EXG_OK, "add hole: %s", err.message);
		exg_shape_free(&s);
	}
}

static int
same_pairs(exg_batch *holes, exg_batch *a, exg_batch *b, bool volumes, size_t *npairs)
{
	uint64_t   *pa = NULL,
			   *pb = NULL;
	size_t		na = 0,
				nb = 0;
	exg_error	err;
	int			same;

	if (volumes)
	{
		exg_batch_set_volumes(a);
		exg_batch_set_volumes(b);
	}
	CHECK(exg_batch_join(holes, a, NULL, &pa, &na, NULL, &err) == EXG_OK, "join: %s", err.message);
	CHECK(exg_batch_join(holes, b, NULL, &pb, &nb, NULL, &err) == EXG_OK, "join: %s", err.message);
	same = na == nb && (na == 0 || memcmp(pa, pb, na * sizeof(uint64_t)) == 0);
	*npairs = na;
	free(pa);
	free(pb);
	return same;
}

static void
test_borrowed_joins_as_original(void)
{
	test_mesh	m = {0};
	double		o[3] = {500000.5, 7000000.25, -200},
				c[3] = {0, 0, 0};
	exg_batch	orig,
				fresh,
				borrowed,
				holes;
	exg_error	err;
	size_t		size,
				npairs = 0;
	void	   *block,
			   *moved;

	printf("== a borrowed batch joins as a freshly flattened one\n");
	for (int i = 0; i < 5; i++)
	{
		c[0] = 40.0 * i;
		test_mesh_add_round(&m, o, c, 15, i % 2 ? 5 : 0, i % 2 == 1, 16, 12, 0.2, &rng);
		m.nbodies++;
	}
	/* the holes at the mesh's offset */
	make_holes(&holes, 400);
	for (size_t v = 0; v < holes.nverts; v++)
	{
		holes.xyz[3 * v] += o[0];
		holes.xyz[3 * v + 1] += o[1];
		holes.xyz[3 * v + 2] += o[2];
	}
	make_bodies(&orig, &m);
	make_bodies(&fresh, &m);
	size = exg_batch_packed_size(&orig);
	block = aligned_alloc(8, (size + 7) & ~(size_t) 7);
	exg_batch_pack(&orig, block);
	moved = aligned_alloc(8, (size + 7) & ~(size_t) 7);
	memcpy(moved, block, size);
	free(block);
	exg_batch_free(&orig);

	exg_batch_init(&borrowed, 3, EXG_NONPLANAR_ERROR);
	CHECK(exg_batch_borrow_packed(&borrowed, moved, size, 2, &err) == EXG_OK, "borrow: %s", err.message);
	CHECK(borrowed.borrowed && borrowed.nrows == fresh.nrows && borrowed.nverts == fresh.nverts &&
		  borrowed.nprims == fresh.nprims && borrowed.nrows_z == fresh.nrows_z,
		  "counts come back");
	CHECK(memcmp(borrowed.xyz, fresh.xyz, 24 * fresh.nverts) == 0 &&
		  memcmp(borrowed.tri, fresh.tri, 12 * fresh.nprims) == 0 &&
		  memcmp(borrowed.owner, fresh.owner, 4 * fresh.nprims) == 0, "arrays come back");
	CHECK(same_pairs(&holes, &borrowed, &fresh, false, &npairs), "surface join differs");
	CHECK(npairs > 20, "only %zu pairs: not a test", npairs);
	printf("   as surfaces: %zu pairs, same\n", npairs);
	CHECK(same_pairs(&holes, &borrowed, &fresh, true, &npairs), "volume join differs");
	printf("   as volumes: %zu pairs, same\n", npairs);
	CHECK(((uint8_t *) moved)[0] != 0, "the block is untouched");

	exg_batch_free(&borrowed);	/* frees its flags only */
	exg_batch_free(&fresh);
	exg_batch_free(&holes);
	free(moved);
	test_mesh_free(&m);
}

static void
test_torn_blocks(void)
{
	test_mesh	m = {0};
	double		o[3] = {0, 0, 0},
				c[3] = {0, 0, 0};
	exg_batch	b,
				r;
	exg_error	err;
	size_t		size;
	uint8_t    *block,
			   *bad;
	uint32_t	huge = 0x7fffffff;

	printf("== torn and foreign blocks are refused\n");
	test_mesh_add_round(&m, o, c, 5, 0, false, 8, 6, 0.1, &rng);
	m.nbodies++;
	make_bodies(&b, &m);
	size = exg_batch_packed_size(&b);
	block = aligned_alloc(8, (size + 7) & ~(size_t) 7);
	bad = aligned_alloc(8, (size + 7) & ~(size_t) 7);
	exg_batch_pack(&b, block);

	exg_batch_init(&r, 3, EXG_NONPLANAR_ERROR);
	CHECK(exg_batch_borrow_packed(&r, block, size - 8, 1, &err) == EXG_ERR_ARGUMENT, "truncated");
	exg_batch_free(&r);
	exg_batch_init(&r, 3, EXG_NONPLANAR_TRIANGULATE);
	CHECK(exg_batch_borrow_packed(&r, block, size, 1, &err) == EXG_ERR_ARGUMENT, "another policy");
	exg_batch_free(&r);
	exg_batch_init(&r, 2, EXG_NONPLANAR_ERROR);
	CHECK(exg_batch_borrow_packed(&r, block, size, 1, &err) == EXG_ERR_ARGUMENT, "other axes");
	exg_batch_free(&r);
	/* the last primitive's owner, then its first vertex, out of range */
	memcpy(bad, block, size);
	memcpy(bad + size - 4, &huge, 4);
	exg_batch_init(&r, 3, EXG_NONPLANAR_ERROR);
	CHECK(exg_batch_borrow_packed(&r, bad, size, 1, &err) == EXG_ERR_ARGUMENT, "owner out of range");
	exg_batch_free(&r);
	/* the first primitive's first vertex index (the indices come before the
	 * owners, each array 8-byte aligned, at the block's end) */
	memcpy(bad, block, size);
	memcpy(bad + size - ((4 * b.nprims + 7) & ~(size_t) 7) - ((12 * b.nprims + 7) & ~(size_t) 7),
		   &huge, 4);
	exg_batch_init(&r, 3, EXG_NONPLANAR_ERROR);
	CHECK(exg_batch_borrow_packed(&r, bad, size, 1, &err) == EXG_ERR_ARGUMENT, "vertex index out of range");
	exg_batch_free(&r);
	exg_batch_init(&r, 3, EXG_NONPLANAR_ERROR);
	CHECK(exg_batch_borrow_packed(&r, block, size, 1, &err) == EXG_OK, "the intact block: %s", err.message);
	exg_batch_free(&r);
	exg_batch_free(&b);
	free(block);
	free(bad);
	test_mesh_free(&m);
}

static void
test_borrowed_arrays_checked(void)
{
	test_mesh	m = {0};
	double		o[3] = {0, 0, 0},
				c1[3] = {0, 0, 0},
				c2[3] = {20, 0, 0};
	exg_batch	b,
				v;
	exg_batch_counts counts;
	exg_error	err;
	uint32_t   *tri,
			   *owner;
	size_t		last;

	printf("== arrays borrowed on trust are checked by exg_batch_check\n");
	test_mesh_add_round(&m, o, c1, 5, 0, false, 8, 6, 0.1, &rng);
	m.nbodies++;
	test_mesh_add_round(&m, o, c2, 5, 0, false, 8, 6, 0.1, &rng);
	m.nbodies++;
	make_bodies(&b, &m);
	last = b.nprims - 1;
	tri = malloc(sizeof(uint32_t) * 3 * b.nprims);
	owner = malloc(sizeof(uint32_t) * b.nprims);
	memcpy(tri, b.tri, sizeof(uint32_t) * 3 * b.nprims);
	memcpy(owner, b.owner, sizeof(uint32_t) * b.nprims);
	counts = (exg_batch_counts) {b.nverts, b.nprims, b.nrows, b.nsolid, b.nrows_z, b.nrows_flat};
	exg_batch_init(&v, 3, EXG_NONPLANAR_ERROR);
	CHECK(exg_batch_borrow_arrays(&v, &counts, b.xyz, tri, owner, b.solid, &err) == EXG_OK,
		  "borrow: %s", err.message);
	CHECK(exg_batch_check(&v, 2, &err) == EXG_OK, "intact arrays: %s", err.message);
	tri[3 * last + 2] = (uint32_t) b.nverts;
	CHECK(exg_batch_check(&v, 2, &err) == EXG_ERR_ARGUMENT, "the last vertex index out of range");
	tri[3 * last + 2] = b.tri[3 * last + 2];
	owner[last] = (uint32_t) b.nrows;
	CHECK(exg_batch_check(&v, 2, &err) == EXG_ERR_ARGUMENT, "the last owner out of range");
	owner[last] = b.owner[last];
	CHECK(owner[0] < owner[last]);
	owner[0] = owner[last];		/* in range, but before rows it comes after */
	CHECK(exg_batch_check(&v, 1, &err) == EXG_ERR_ARGUMENT, "owners out of row order");
	owner[0] = b.owner[0];
	CHECK(exg_batch_check(&v, 1, &err) == EXG_OK, "restored: %s", err.message);
	exg_batch_free(&v);
	exg_batch_free(&b);
	free(tri);
	free(owner);
	test_mesh_free(&m);
}

int
main(void)
{
	test_borrowed_joins_as_original();
	test_torn_blocks();
	test_borrowed_arrays_checked();
	return test_summary("test_batch_packed");
}
