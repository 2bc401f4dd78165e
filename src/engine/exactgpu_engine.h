/*
 * exactgpu_engine.h — the engine as the PostgreSQL layer sees it: the one
 * engine header that src/pg includes (test/layout/check_cycles.py checks
 * it). The engine stays free of PostgreSQL headers; everything the layer
 * above may call is declared through here, so what crosses the boundary is
 * visible in one place.
 */
#ifndef EXACTGPU_ENGINE_H
#define EXACTGPU_ENGINE_H

/* runtime: status codes, cancel, statistics, threads, memory, the GPU */
#include "exg_status.h"
#include "cancel.h"
#include "stats.h"
#include "parallel.h"
#include "worker_signals.h"
#include "memory_budget.h"
#include "host_alloc.h"
#include "gpu.h"

/* exact predicates */
#include "predicates.h"

/* geometry: PostGIS bytes, primitives, prepared geometries, mesh edges */
#include "gserialized_read.h"
#include "geom_prims.h"
#include "geom_prepared.h"
#include "mesh_edges.h"

/* joins: primitive join, box join, batches of rows */
#include "join.h"
#include "box_join.h"
#include "batch.h"

/* solids: volumes, orientation, self-intersection, intercepts, composites */
#include "solid.h"
#include "solid_check.h"
#include "volume.h"
#include "outward.h"
#include "self_intersect.h"
#include "intercepts.h"
#include "composite.h"

#endif							/* EXACTGPU_ENGINE_H */
