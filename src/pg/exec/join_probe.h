/*
 * join_probe.h — the probe join: a batch join whose one side is a few rows
 * and whose other side is big bodies, run as row-level exact tests of the
 * (row, body) pairs whose boxes meet, against the bodies' prepared forms
 * (borrowed from the resident store where they are kept), instead of
 * flattening and gridding every body again (engine: batch/batch_probe.h).
 */
#ifndef EXACTGPU_JOIN_PROBE_H
#define EXACTGPU_JOIN_PROBE_H

#include "join_driver.h"

/*
 * What the probe's rule reads of one side of a join: the executor counts
 * it as read (exactgpu_join_probe), the planner estimates it
 * (exactgpu_batch_join_cost), so both take the same decision.
 */
typedef struct ExactgpuProbeSide
{
	double		rows;			/* all of the side's rows */
	double		bytes;			/* their bytes, detoasted */
	double		toast_rows;		/* how many are stored out of line */
	double		inline_bytes;	/* the bytes of those stored in line */
} ExactgpuProbeSide;

/*
 * The probe's rule: which side (0 or 1) is the bodies' when a join of this
 * kind (exactgpu.invalid_rows = 'skip': skip_invalid) of these sides is
 * probed, or -1 when it is left to the batch join; exactgpu.probe_join and
 * whether the resident store is on for this session are read here.
 */
int			exactgpu_probe_rule(ExactgpuJoinKind kind, int naxes, bool skip_invalid,
								const ExactgpuProbeSide side[2]);

/* The probe's threads are sized to the small side at about 24 bytes a vertex. */
#define EXACTGPU_PROBE_BYTES_PER_VERTEX	24

/*
 * Run j as exactgpu_join_run(j, by_id) would, when the probe pays for it:
 * the same j->pairs (and j->place_ids with by_id), the same errors for the
 * same rows, exactgpu_last_join_stats() and the progress NOTICEs filled.
 * False, with j untouched, when it does not: the driver then flattens.
 */
bool		exactgpu_join_probe(ExactgpuJoin *j, bool by_id);

#endif							/* EXACTGPU_JOIN_PROBE_H */
