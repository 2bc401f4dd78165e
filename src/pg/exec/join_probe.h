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
 * Run j as exactgpu_join_run(j, by_id) would, when the probe pays for it:
 * the same j->pairs (and j->place_ids with by_id), the same errors for the
 * same rows, exactgpu_last_join_stats() and the progress NOTICEs filled.
 * False, with j untouched, when it does not: the driver then flattens.
 */
bool		exactgpu_join_probe(ExactgpuJoin *j, bool by_id);

#endif							/* EXACTGPU_JOIN_PROBE_H */
