/*
 * mesh_edges.h — the edges of triangulated surfaces, with vertices compared
 * exactly by coordinates (a TIN repeats its vertices per triangle): how many
 * triangles use each edge and in which directions. Closed (every edge used
 * an even number of times), 2-manifold edges (exactly twice) and consistent
 * orientation (once in each direction) are read from it.
 */
#ifndef EXG_MESH_EDGES_H
#define EXG_MESH_EDGES_H

#include <stdbool.h>
#include <stdint.h>

#include "exg_status.h"
#include "join.h"

#ifdef __cplusplus
extern "C" {
#endif

/* What the edges of one body say. */
typedef struct exg_edge_report
{
	uint64_t	edges;			/* distinct edges */
	uint64_t	odd;			/* used by an odd number of triangles: not closed */
	uint64_t	once;			/* used by one triangle: a boundary edge */
	uint64_t	non_manifold;	/* used by other than two triangles */
	uint64_t	misoriented;	/* used twice, both times in the same direction */
	uint64_t	unbalanced;		/* used more often in one direction than the
								 * other: the surface is no cycle, so no volume */
	int			example_kind;	/* 0 none, 1 a bad edge, 2 an odd one */
	double		example[6];		/* the ends of that edge */
	uint64_t	example_key;	/* (lower, higher vertex id): the least is kept */
} exg_edge_report;

/*
 * Edge reports of the bodies of the triangles T (arity 3), body[t] giving
 * each triangle's body (< nbodies); out holds nbodies reports. An edge whose
 * two ends coincide (a repeated vertex) is a point and is skipped.
 */
exg_status	exg_mesh_edges(const exg_prim_set *T, const uint32_t *body, uint32_t nbodies,
						   exg_edge_report *out, exg_error *err);

#ifdef __cplusplus
}
#endif

#endif							/* EXG_MESH_EDGES_H */
