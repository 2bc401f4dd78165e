/*
 * mesh_convert.c — tetgen output (prefix.node + prefix.face) to the binary
 * mesh form the benchmark reads: mesh_convert PREFIX OUT.exgm
 */
#include <stdio.h>

#include "mesh_io.h"

int
main(int argc, char **argv)
{
	bench_mesh	m;

	if (argc != 3)
	{
		fprintf(stderr, "usage: mesh_convert TETGEN_PREFIX OUT.exgm\n");
		return 2;
	}
	if (mesh_read_tetgen(argv[1], &m) != 0 || mesh_write_bin(argv[2], &m) != 0)
	{
		fprintf(stderr, "mesh_convert: failed on %s\n", argv[1]);
		return 1;
	}
	printf("%s: %u vertices, %u triangles\n", argv[2], m.nverts, m.ntris);
	mesh_free(&m);
	return 0;
}
