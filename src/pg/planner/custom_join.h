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
 *   custom_exprs       the join clause (a FuncExpr), then the other join
 *                      clauses, their Vars made INDEX_VAR references into
 *                      that scan tuple (the others are checked on each
 *                      joined row: exactgpu_join_init_filter);
 *   custom_private     integers, indexed by the ExactJoinPrivate enum.
 */
#ifndef EXACTGPU_CUSTOM_JOIN_H
#define EXACTGPU_CUSTOM_JOIN_H

#include "exactgpu.h"

#include "nodes/extensible.h"
#include "nodes/pathnodes.h"

#define EXACT_JOIN_NAME "ExactJoin"

/* The predicates the node batches. */
typedef enum ExactJoinPredicate
{
	EXACT_PRED_NONE = 0,
	EXACT_PRED_2D,				/* ST_ExactIntersects */
	EXACT_PRED_3D,				/* ST_ExactIntersects3D */
	EXACT_PRED_SOLID3D			/* ST_ExactIntersectsSolid3D(solid, geom) */
} ExactJoinPredicate;

typedef enum ExactJoinPrivate
{
	EJP_PREDICATE = 0,			/* an ExactJoinPredicate */
	EJP_SWAPPED,				/* 1: the clause's first argument is the inner side's */
	EJP_DEVICE,					/* exg_device planned: CPU for joins too small for a GPU */
	EJP_JOINTYPE,				/* JOIN_INNER, JOIN_SEMI or JOIN_ANTI */
	EJP_COUNT
} ExactJoinPrivate;

/* GUC exactgpu.enable_batch_join. */
extern bool exactgpu_enable_batch_join;

/* Install the planner hook and the plan node's methods (from _PG_init). */
void		exactgpu_custom_join_init(void);

/* Which of our predicates a function is, whatever its schema (custom_join.c). */
ExactJoinPredicate exactgpu_exact_predicate_of(Oid funcid);

/*
 * The average bytes of a geometry argument, as PostGIS's ANALYZE measures
 * them or a constant's own (custom_join.c): _known says whether the planner
 * can know it; exactgpu_geometry_width answers a default where it cannot.
 */
bool		exactgpu_geometry_width_known(PlannerInfo *root, Node *arg, double *width);
double		exactgpu_geometry_width(PlannerInfo *root, Node *arg);

/*
 * What one row-by-row call of a predicate costs, measured on the 2-core
 * build machine (bench/results/2026-11-24-cpu2-cost-model.md; one
 * cpu_operator_cost there is about 7 ns): the geometry cache keeps the
 * arguments that repeat from call to call, and a call whose larger
 * argument is cached (the body a nested loop holds outside, a probe's
 * parameter) takes about 1.5 us (EXACT_CALL_OPS) plus the parse of the
 * other, about 2 ns a byte (EXACT_CALL_BYTES_PER_OP): a point in a
 * cached 10 MB body 1 us, a 30-vertex hole 3 us. Parsing the larger one
 * is charged where a plan pays it (param_scan_cost.c).
 */
#define EXACT_CALL_OPS				200.0
#define EXACT_CALL_BYTES_PER_OP		4.0
#define exactgpu_call_parse_cost(width)	((width) / EXACT_CALL_BYTES_PER_OP * cpu_operator_cost)
#define exactgpu_call_cost(w0, w1) \
	(EXACT_CALL_OPS * cpu_operator_cost + exactgpu_call_parse_cost(Min((w0), (w1))))

/* Charge nested loops' parameterized index scans their predicate calls (param_scan_cost.c). */
void		exactgpu_param_scan_cost_init(void);

/* The executor's methods (custom_join_exec.c). */
extern const CustomScanMethods exactgpu_join_scan_methods;

#endif							/* EXACTGPU_CUSTOM_JOIN_H */
