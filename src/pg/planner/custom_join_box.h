/*
 * custom_join_box.h — plain SQL joins on PostGIS's box operators (geometry
 * && geometry, geometry &&& geometry) run as one batch box join: a
 * CustomScan join provider (custom_join_box.c plans it, offered from
 * ExactJoin's join path hook; custom_join_box_exec.c runs it and streams
 * the joined rows; what it shares with ExactJoin is in
 * custom_join_common.c).
 *
 * The answer is the operator's, pair for pair: each row's box is the float
 * box PostGIS compares (postgis_box.h), not the exact double extent.
 *
 * The plan node's fields:
 *   custom_plans       the outer and the inner child plans, in that order;
 *   custom_scan_tlist  the outer child's target list, then the inner's;
 *   custom_exprs       the operator clause (an OpExpr), then the other
 *                      join clauses, their Vars made INDEX_VAR references
 *                      into the scan tuple;
 *   custom_private     integers, indexed by the ExactBoxJoinPrivate enum.
 */
#ifndef EXACTGPU_CUSTOM_JOIN_BOX_H
#define EXACTGPU_CUSTOM_JOIN_BOX_H

#include "exactgpu.h"

#include "nodes/extensible.h"
#include "optimizer/paths.h"

#define EXACT_BOX_JOIN_NAME "ExactBoxJoin"

typedef enum ExactBoxJoinPrivate
{
	EBP_ND = 0,					/* 1: &&& (GIDX, 2 to 4 axes); 0: && (BOX2DF) */
	EBP_SWAPPED,				/* 1: the clause's first argument is the inner side's */
	EBP_DEVICE,					/* exg_device planned: CPU for small joins */
	EBP_JOINTYPE,				/* JOIN_INNER, JOIN_SEMI or JOIN_ANTI */
	EBP_ADDBBOX,				/* Oid of PostGIS's postgis_addbbox(geometry) */
	EBP_COUNT
} ExactBoxJoinPrivate;

/* Register the plan node's methods (from _PG_init). */
void		exactgpu_box_join_init(void);

/* Offer the path, from the join path hook (custom_join.c). */
void		exactgpu_box_join_pathlist(PlannerInfo *root, RelOptInfo *joinrel,
									   RelOptInfo *outerrel, RelOptInfo *innerrel,
									   JoinType jointype, JoinPathExtraData *extra);

/* The executor's methods (custom_join_box_exec.c). */
extern const CustomScanMethods exactgpu_box_join_scan_methods;

#endif							/* EXACTGPU_CUSTOM_JOIN_BOX_H */
