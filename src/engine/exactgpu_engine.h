/*
 * exactgpu_engine.h — the engine as the PostgreSQL layer sees it: the one
 * engine header that src/pg includes (test/layout/check_cycles.py checks
 * it). The engine stays free of PostgreSQL headers; everything the layer
 * above may call is declared through here, so what crosses the boundary is
 * visible in one place.
 */
#ifndef EXACTGPU_ENGINE_H
#define EXACTGPU_ENGINE_H

/*
 * runtime: status codes, cancel, statistics, the GPU, and the host's doors
 * onto the worker pool, the memory budget and page mapping (engine_host.h)
 * instead of the runtime's internal headers. parallel.h and host_alloc.h
 * stay until the parallel read (src/pg/read) calls exg_engine_cpus and
 * exg_engine_prefault for exg_cpu_count and exg_host_populate.
 */
#include "exg_status.h"
#include "cancel.h"
#include "stats.h"
#include "engine_host.h"
#include "gpu.h"
#include "parallel.h"
#include "host_alloc.h"
#include "host_copy.h"

/* exact predicates */
#include "predicates.h"

/* geometry: PostGIS bytes, primitives, prepared geometries, mesh edges */
#include "gserialized_read.h"
#include "gserialized_box.h"
#include "gserialized_write.h"
#include "geom_prims.h"
#include "geom_prepared.h"
#include "geom_packed.h"
#include "mesh_edges.h"

/* joins: primitive join, box join, batches of rows (called by one file,
 * src/pg/exec/join_driver.c) */
#include "join.h"
#include "box_join.h"
#include "batch.h"
#include "batch_packed.h"
#include "batch_probe.h"

/* solids: volumes, orientation, self-intersection, intercepts, composites */
#include "solid.h"
#include "solid_check.h"
#include "volume.h"
#include "outward.h"
#include "self_intersect.h"
#include "intercepts.h"
#include "composite.h"

/* drill holes: desurvey, crossings with open surfaces, sections */
#include "desurvey.h"
#include "hole_read.h"
#include "crossings.h"
#include "section.h"

/* meshes: OBJ, PLY, STL and DXF files in and out */
#include "mesh.h"

#endif							/* EXACTGPU_ENGINE_H */
