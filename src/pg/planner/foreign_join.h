/*
 * foreign_join.h — joins of foreign tables on exactgpu's predicates left to
 * the servers that hold the rows (postgres_fdw's foreign join, or a
 * partitionwise join of foreign partitions), so that neither ExactJoin nor
 * PostgreSQL's local joins pull their geometry.
 */
#ifndef EXACTGPU_FOREIGN_JOIN_H
#define EXACTGPU_FOREIGN_JOIN_H

#include "exactgpu.h"

#include "nodes/pathnodes.h"

extern bool exactgpu_join_leave_to_servers(PlannerInfo *root, RelOptInfo *joinrel,
										   RelOptInfo *outerrel, RelOptInfo *innerrel,
										   JoinType jointype, JoinPathExtraData *extra);

#endif
