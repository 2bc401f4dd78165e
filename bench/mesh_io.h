/*
 * mesh_io.h — triangle meshes for the benchmarks: tetgen's .node/.face
 * output (every face of every tetrahedron, as the papers used) and a compact
 * binary form of it that travels to the GPU machine.
 */
#ifndef EXG_BENCH_MESH_IO_H
#define EXG_BENCH_MESH_IO_H

#include <stdint.h>

typedef struct bench_mesh
{
	double	   *xyz;			/* 3 per vertex */
	uint32_t	nverts;
	uint32_t   *tri;			/* 3 per triangle */
	uint32_t	ntris;
} bench_mesh;

/* Read <prefix>.node and <prefix>.face; 0 on success, -1 with a message on stderr. */
int			mesh_read_tetgen(const char *prefix, bench_mesh *m);

/* Binary form: "EXGMESH1", uint32 nverts, uint32 ntris, xyz doubles, indices. */
int			mesh_write_bin(const char *path, const bench_mesh *m);
int			mesh_read_bin(const char *path, bench_mesh *m);

void		mesh_free(bench_mesh *m);

/*
 * A join's two inputs for a peer program (bench/cgal/bench_cgal_join.cpp):
 * "EXGJOIN1", then for each side: uint32 arity (2 segments, 3 triangles),
 * uint32 nverts, uint32 nprims, xyz doubles, arity * nprims uint32 indices.
 */
int			join_input_write(const char *path, const double *const xyz[2],
							 const uint32_t nverts[2], const uint32_t *const idx[2],
							 const uint32_t nprims[2], const int arity[2]);

#endif							/* EXG_BENCH_MESH_IO_H */
