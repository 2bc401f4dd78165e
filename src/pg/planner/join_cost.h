/*
 * join_cost.h — what our predicates cost the plans that run them, in the
 * planner's units, kept in one place: a call row by row (support.c,
 * param_scan_cost.c, nestloop_cost.c) and the batch join (custom_join.c).
 *
 * Every constant is a measurement, in cpu_operator_cost units ("ops"; one
 * is about 7 ns on the 2-core build machine: 2026-11-24-cpu2-cost-model.md).
 * How each was measured is said beside it; bench/sql/cost_model_calls.sql re-measures
 * the row-by-row ones, bench/sql/plan_shapes.sh checks the plans they choose
 * against the forced alternatives (results: bench/results/).
 */
#ifndef EXACTGPU_JOIN_COST_H
#define EXACTGPU_JOIN_COST_H

#include "exactgpu.h"

#include "nodes/pathnodes.h"
#include "optimizer/cost.h"
#include "optimizer/optimizer.h"

#include "exact_clause.h"
#include "geom_cache.h"

/* ---- A call row by row ---- */

/*
 * A call whose larger argument the geometry cache holds (the body a nested
 * loop holds outside, a probe's parameter) takes about 1.5 us (EXACT_CALL_OPS)
 * plus the parse of the other argument, about 2 ns a byte
 * (EXACT_CALL_BYTES_PER_OP): a point in a cached 10 MB body 1 us, a
 * 30-vertex hole 3 us (2026-11-24-cpu2-cost-model.md).
 */
#define EXACT_CALL_OPS				200.0
#define EXACT_CALL_BYTES_PER_OP		4.0
#define exactgpu_call_parse_cost(width)	((width) / EXACT_CALL_BYTES_PER_OP * cpu_operator_cost)
#define exactgpu_call_cost(w0, w1) \
	(EXACT_CALL_OPS * cpu_operator_cost + exactgpu_call_parse_cost(Min((w0), (w1))))

/*
 * A call whose larger argument the cache does not hold detoasts, parses and
 * prepares it again: 2.2 ns a byte at 100 kB, 2.7 at 1 MB, 3.9 at 10 MB
 * (ST_ExactIntersects3D against a point or a hole; 2.7 to 6.5 for
 * ST_ExactIntersectsSolid3D), measured by bench/sql/cost_model_calls.sql
 * as the time a call of 9 bodies cycling through the cache less the same
 * call cached (2026-11-24-cpu2-cost-model.md, "not cached"); 2.5 bytes an
 * op is 2.9 ns a byte.
 */
#define EXACT_REPARSE_BYTES_PER_OP	2.5
#define exactgpu_call_reparse_cost(width) \
	((width) / EXACT_REPARSE_BYTES_PER_OP * cpu_operator_cost)

/*
 * The geometry cache of a call site (geom_cache.c) keeps this many prepared
 * arguments, least recently used out: a nested loop whose outer argument
 * stays and whose inner one cycles through more than EXACT_CACHE_ROOM
 * values (one entry is the outer's) misses on every call. A semi or anti
 * join stops at an outer row's first match, so the bodies late in the
 * inner order are touched less often than the last few outer values,
 * which then push them out: 1,000 holes against 6 cached bodies, NOT
 * EXISTS as a nested loop, took 52 us a call against 3.7 us when every
 * row visits every body (bench/sql/plan_shapes.sh's mine, 2026-11-27); half
 * the cache is what such a join can count on.
 */
#define EXACT_CACHE_ROOM			(EXACTGPU_GEOM_CACHE_ENTRIES - 1)
#define EXACT_CACHE_ROOM_EARLY_STOP	(EXACTGPU_GEOM_CACHE_ENTRIES / 2)

/*
 * What a join that calls the predicate on `calls` pairs re-reads beyond what
 * the call's price (exactgpu_call_cost) already has: the argument of the
 * side that changes from call to call (inner_width, cycling through
 * inner_values distinct values) where it is the larger, and the other
 * side's once per outer row; room: how many inner values the cache keeps
 * (EXACT_CACHE_ROOM, or _EARLY_STOP).
 */
Cost		exactgpu_reparse_cost(double calls, double outer_rows, double outer_width,
								  double inner_values, double inner_width, double room);

/* ---- What the resident store holds ---- */

/*
 * The share (0..1) of a geometry column's stored bytes that the resident
 * store keeps prepared (as_side false: for the predicates row by row) or
 * flattened as join sides (true: for the batch join), from the store's
 * per-relation summary (no pin, one shared lock); 0 without the store or
 * for anything but a plain table's column. The relation's bytes kept
 * against the bytes the query reads from it (its rows after their
 * restrictions, at the column's width): the store does not say which rows
 * it keeps, so this takes them to be the ones the query reads, as they are
 * when the query that warmed it is asked again.
 */
double		exactgpu_resident_share(PlannerInfo *root, Node *arg, bool as_side);

/* ---- The batch join (ExactJoin) ---- */

/*
 * The batch join of rows[k] rows of width[k] bytes (outer, inner) with
 * `pairs` row pairs estimated, children excluded, resident[k] of side k's
 * bytes borrowed from the resident store as flattened sides and kept[k] as
 * prepared geometries (exactgpu_resident_share, as_side true and false:
 * not detoasted nor parsed); *device: the device the executor will use.
 * Where the executor will run it as the probe join (exactgpu_probe_rule,
 * exec/join_probe.c: with the store on), the probe's price, on the CPU.
 */
Cost		exactgpu_batch_join_cost(ExactJoinPredicate pred, const double rows[2],
									 const double width[2], const double resident[2],
									 const double kept[2], double pairs, int *device);

/* ---- Core paths repriced (hooks installed by exactgpu_custom_join_init) ---- */

/* Nested loops' parameterized index scans: their predicate calls (param_scan_cost.c). */
void		exactgpu_param_scan_cost_init(void);

/* Joins that call a predicate per pair: what they re-read (nestloop_cost.c). */
void		exactgpu_nestloop_cost(PlannerInfo *root, RelOptInfo *joinrel, RelOptInfo *outerrel,
								   RelOptInfo *innerrel, JoinType jointype,
								   JoinPathExtraData *extra);

/* A geometry column without statistics: a few dozen vertices. */
#define EXACT_DEFAULT_WIDTH			1024

#endif							/* EXACTGPU_JOIN_COST_H */
