/*
 * exact_clause.h — recognising our predicates in the planner's expressions
 * and the sizes of their arguments: what custom_join.c, param_scan_cost.c,
 * nestloop_cost.c and support.c ask of a clause before they price it.
 */
#ifndef EXACTGPU_EXACT_CLAUSE_H
#define EXACTGPU_EXACT_CLAUSE_H

#include "exactgpu.h"

#include "nodes/pathnodes.h"

/* The predicates the ExactJoin node batches. */
typedef enum ExactJoinPredicate
{
	EXACT_PRED_NONE = 0,
	EXACT_PRED_2D,				/* ST_ExactIntersects */
	EXACT_PRED_3D,				/* ST_ExactIntersects3D */
	EXACT_PRED_SOLID3D			/* ST_ExactIntersectsSolid3D(solid, geom) */
} ExactJoinPredicate;

/* Which of our predicates a function is, whatever its schema. */
ExactJoinPredicate exactgpu_exact_predicate_of(Oid funcid);

/* Which of our predicates a clause calls with two arguments (else NONE). */
ExactJoinPredicate exactgpu_exact_call_of(Node *clause);

/*
 * The average bytes of a geometry argument, as PostGIS's ANALYZE measures
 * them or a constant's own: _known says whether the planner can know it;
 * exactgpu_geometry_width answers a default where it cannot.
 */
bool		exactgpu_geometry_width_known(PlannerInfo *root, Node *arg, double *width);
double		exactgpu_geometry_width(PlannerInfo *root, Node *arg);

#endif							/* EXACTGPU_EXACT_CLAUSE_H */
