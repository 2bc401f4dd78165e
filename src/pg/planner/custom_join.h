/*
 * custom_join.h — plain SQL joins on ST_ExactIntersects3D, ST_ExactIntersects
 * and ST_ExactIntersectsSolid3D run as one batch join: a CustomScan join provider (custom_join.c plans it,
 * custom_join_exec.c runs it and streams the joined rows; what it shares
 * with ExactBoxJoin is in custom_join_common.c).
 *
 * The plan node's fields, as both halves read them:
 *   custom_plans       the outer and the inner child plans, in that order;
 *   custom_scan_tlist  the outer child's target list, then the inner's: the
 *                      scan tuple is an outer row beside an inner row;
 *   custom_exprs       the join clause (a FuncExpr); then, for an outer,
 *                      semi or anti join with more ON clauses, those
 *                      clauses as one expression (TRUE when none: they
 *                      decide what matches, custom_join_outer.c); then the
 *                      other join clauses (an outer join's WHERE clauses
 *                      included), checked on each joined row
 *                      (exactgpu_join_init_filter); their Vars made
 *                      INDEX_VAR references into that scan tuple;
 *   custom_private     integers, indexed by the ExactJoinPrivate enum.
 * What the planner charges is in join_cost.[ch].
 */
#ifndef EXACTGPU_CUSTOM_JOIN_H
#define EXACTGPU_CUSTOM_JOIN_H

#include "exactgpu.h"

#include "exact_clause.h"

#include "nodes/extensible.h"
#include "nodes/pathnodes.h"

#define EXACT_JOIN_NAME "ExactJoin"

typedef enum ExactJoinPrivate
{
	EJP_PREDICATE = 0,			/* an ExactJoinPredicate */
	EJP_SWAPPED,				/* 1: the clause's first argument is the inner side's */
	EJP_DEVICE,					/* exg_device planned: CPU for joins too small for a GPU */
	EJP_JOINTYPE,				/* JOIN_INNER, _SEMI, _ANTI, _LEFT, _RIGHT or _FULL */
	EJP_COUNT
} ExactJoinPrivate;

/* GUC exactgpu.enable_batch_join (defined in custom_join.c, kept in custom_join_common.c). */
extern bool exactgpu_enable_batch_join;

/* Install the planner hook and the plan node's methods (from _PG_init). */
void		exactgpu_custom_join_init(void);

/* The executor's methods (custom_join_exec.c). */
extern const CustomScanMethods exactgpu_join_scan_methods;

#endif							/* EXACTGPU_CUSTOM_JOIN_H */
