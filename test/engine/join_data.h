/*
 * join_data.h — deterministic primitive sets for join tests and benchmarks:
 * random triangle soups, exactly degenerate layouts (shared vertices, shared
 * edges, coplanar overlaps, segments lying in faces) and UTM offsets.
 */
#ifndef EXG_TEST_JOIN_DATA_H
#define EXG_TEST_JOIN_DATA_H

#include <stdint.h>

#include "join.h"

/* An owned primitive set (free with join_data_free). */
typedef struct join_data
{
	exg_prim_set set;
	double	   *xyz;
	uint32_t   *vidx;
} join_data;

/* n random triangles (arity 3), segments (2) or points (1) of size ~ feature
 * in the box [origin, origin + extent]^3; deterministic in seed. */
void		join_data_random(join_data *d, int arity, uint32_t n, const double origin[3],
							 double extent, double feature, uint64_t seed);

/* A triangulated height field over an nx x ny lattice with spacing h, z = f(x, y)
 * on integer values so that neighbouring surfaces can be exactly coplanar. */
void		join_data_terrain(join_data *d, uint32_t nx, uint32_t ny, double h,
							  const double origin[3], int zmode, uint64_t seed);

/* Vertical segments (arity 2) through lattice points, vertices and edge
 * midpoints of the terrain lattice: exact touches. */
void		join_data_drills(join_data *d, uint32_t n, uint32_t nx, uint32_t ny, double h,
							 const double origin[3], uint64_t seed);

void		join_data_free(join_data *d);

#endif							/* EXG_TEST_JOIN_DATA_H */
