-- exactgpu 0.1.0 -> 0.2.0. Every SQL change made to sql/exactgpu.sql after
-- 0.1.0 is repeated here, so that ALTER EXTENSION exactgpu UPDATE gives the
-- same catalog as a fresh install (checked by the regress test `upgrade`).
\echo Use "ALTER EXTENSION exactgpu UPDATE TO '0.2.0'" to load this file. \quit

-- ---- issue 18: volumes, validity, API (area: geo) ----

-- ---------------------------------------------------------------------------
-- Volumes (issue 18): solid semantics stated in the query, never read from
-- PostGIS's solid flag (lost by text, WKB, pg_dump and GDAL). Container
-- first, as PostGIS's ST_Contains(a, b). New joins name their outputs
-- left_id / right_id: the ids of the first and second argument.
-- ---------------------------------------------------------------------------

-- Does geom meet the closed volume bounded by the closed surface solid:
-- inside it or on its boundary? ERROR 22023 if solid is not closed.
CREATE FUNCTION ST_ExactIntersectsSolid3D(solid geometry, geom geometry)
	RETURNS boolean
	AS 'MODULE_PATHNAME', 'exactgpu_intersects_solid_3d'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE
	SUPPORT exactgpu_support_3d
	COST 10000;

-- The batch form: (left_id, right_id) = (solid row, geometry row) for every
-- geometry meeting the closed volume of a body, each pair once.
CREATE FUNCTION ST_ExactIntersectsSolid3DJoin(solids_sql text, geoms_sql text)
	RETURNS TABLE (left_id bigint, right_id bigint)
	AS 'MODULE_PATHNAME', 'exactgpu_join3d_volume_sql'
	LANGUAGE C VOLATILE STRICT PARALLEL RESTRICTED
	ROWS 1000;

CREATE FUNCTION ST_ExactIntersectsSolid3DJoin(solids exactgpu_batch, geoms exactgpu_batch)
	RETURNS TABLE (left_id bigint, right_id bigint)
	AS 'MODULE_PATHNAME', 'exactgpu_join3d_volume_batch'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE
	ROWS 1000;

-- The enclosed volume, exact and rounded once; never negative: open,
-- inconsistently oriented and inside-out bodies are ERROR 22023.
CREATE FUNCTION ST_ExactVolume(solid geometry)
	RETURNS float8
	AS 'MODULE_PATHNAME', 'exactgpu_volume'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE
	COST 1000;

-- The closed surface with every face's normal pointing out of the solid
-- (into cavities).
CREATE FUNCTION ST_ExactForceOutward(solid geometry)
	RETURNS geometry
	AS 'MODULE_PATHNAME', 'exactgpu_force_outward'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE
	COST 1000;

-- ---------------------------------------------------------------------------
-- Comments (issue 18): every function and type of the extension.
-- ---------------------------------------------------------------------------

COMMENT ON FUNCTION ST_ExactOrientation2D(geometry, geometry, geometry) IS
	'Exact sign of (b - a) x (c - a) in the xy plane: 1 counter-clockwise, -1 clockwise, 0 collinear; NULL for an empty point.';
COMMENT ON FUNCTION ST_ExactOrientation3D(geometry, geometry, geometry, geometry) IS
	'Exact sign of ((b - a) x (c - a)) . (d - a): 1 when d is on the side the normal of the counter-clockwise triangle abc points to, -1 the other side, 0 coplanar. Points with and without Z do not mix (ERROR 22023).';
COMMENT ON FUNCTION exactgpu_support_3d(internal) IS
	'Planner support of the 3D predicates: adds the lossy index condition &&& (or &&) and its selectivity.';
COMMENT ON FUNCTION exactgpu_support_2d(internal) IS
	'Planner support of ST_ExactIntersects: adds the lossy index condition && and its selectivity.';
COMMENT ON FUNCTION ST_ExactIntersects3D(geometry, geometry) IS
	'Exact 3D intersection on closed sets of points, linework and surfaces. Every surface is a surface (the PostGIS solid flag is ignored); for volumes use ST_ExactIntersectsSolid3D. A geometry without Z against one with Z is ERROR 22023.';
COMMENT ON FUNCTION ST_ExactIntersects(geometry, geometry) IS
	'Exact 2D intersection (Z ignored); polygons and triangles are areas, so containment counts.';
COMMENT ON FUNCTION exactgpu_stats() IS
	'This backend''s counters: predicates, interval-filter decisions, GMP evaluations and time, pair tests, GPU calls.';
COMMENT ON FUNCTION exactgpu_stats_reset() IS
	'Zero this backend''s counters.';
COMMENT ON FUNCTION ST_ExactIntersects3DJoin(text, text) IS
	'Batch 3D join: (left_id, right_id) for every pair of rows of the two queries (id, geom) whose geometries intersect, surfaces as surfaces, each pair once.';
COMMENT ON FUNCTION ST_ExactIntersectsJoin(text, text) IS
	'Batch 2D join: (left_id, right_id) for every pair of rows of the two queries (id, geom) whose geometries intersect in 2D, each pair once.';
COMMENT ON TYPE exactgpu_batch IS
	'Rows (id, geometry) packed by the aggregate ST_ExactBatch for the batch joins.';
COMMENT ON FUNCTION exactgpu_batch_in(cstring) IS
	'Input function of exactgpu_batch.';
COMMENT ON FUNCTION exactgpu_batch_out(exactgpu_batch) IS
	'Output function of exactgpu_batch.';
COMMENT ON FUNCTION exactgpu_batch_accum(internal, bigint, geometry) IS
	'Transition function of ST_ExactBatch.';
COMMENT ON FUNCTION exactgpu_batch_final(internal) IS
	'Final function of ST_ExactBatch.';
COMMENT ON AGGREGATE ST_ExactBatch(bigint, geometry) IS
	'Pack (id, geometry) rows into an exactgpu_batch for the batch joins (one value, so at most 1 GB).';
COMMENT ON FUNCTION ST_ExactIntersects3DJoin(exactgpu_batch, exactgpu_batch) IS
	'Batch 3D join over two exactgpu_batch values: (left_id, right_id) for every intersecting pair, surfaces as surfaces.';
COMMENT ON FUNCTION ST_ExactIntersectsJoin(exactgpu_batch, exactgpu_batch) IS
	'Batch 2D join over two exactgpu_batch values: (left_id, right_id) for every intersecting pair.';
COMMENT ON FUNCTION exactgpu_last_join_stats() IS
	'The last batch join of this backend: device, semantics, rows, primitives, candidates, hits, filter and GMP counts, phase times.';
COMMENT ON FUNCTION exactgpu_device_info() IS
	'The GPU build and the GPUs this backend can use (or why none), with GPU memory in use, pooled and free.';
COMMENT ON FUNCTION ST_ExactLocate3D(geometry, geometry) IS
	'Where a point is relative to a closed surface (container first): inside, outside or boundary, exactly; ERROR 22023 if the surface is not closed.';
COMMENT ON FUNCTION ST_ExactIntercepts3D(geometry, geometry) IS
	'Drill-hole intercepts: the along-hole depth intervals (from_m, to_m) where the LINESTRING hole lies in the closed body, inside or on it.';
COMMENT ON FUNCTION ST_ExactLocate3DJoin(text, text) IS
	'Deprecated (points first, outputs point_id / solid_id): use ST_ExactIntersectsSolid3DJoin(solids_sql, points_sql), whose (left_id, right_id) are (solid, point). Batch point-in-solid: every point inside or on a closed body.';
COMMENT ON FUNCTION ST_ExactLocate3DJoin(exactgpu_batch, exactgpu_batch) IS
	'Deprecated (points first, outputs point_id / solid_id): use ST_ExactIntersectsSolid3DJoin(solids, points). Batch point-in-solid over two exactgpu_batch values.';
COMMENT ON FUNCTION ST_ExactIntercepts3DJoin(text, text) IS
	'Batch intercepts: (hole_id, solid_id, from_m, to_m) for every hole meeting a closed body, bodies as volumes.';
COMMENT ON FUNCTION ST_ExactSelfIntersections3D(geometry) IS
	'Pairs of faces (1-based) of a surface that meet other than in their shared edge or vertex.';
COMMENT ON FUNCTION ST_ExactIsValidSolid(geometry) IS
	'Does the surface bound a valid solid: closed, 2-manifold edges, consistently oriented, outward (exact signed volume), no degenerate or self-intersecting faces?';
COMMENT ON FUNCTION ST_ExactIsValidSolidReason(geometry) IS
	'Why the surface does not bound a valid solid (the first reason found, with an example), or ''valid solid''.';
COMMENT ON FUNCTION ST_BoxJoin(text, text) IS
	'Batch 2D box join: (left_id, right_id) for every pair of rows whose exact xy extents meet, touching included.';
COMMENT ON FUNCTION ST_3DBoxJoin(text, text) IS
	'Batch 3D box join: (left_id, right_id) for every pair of rows whose exact xyz extents meet, touching included.';
COMMENT ON FUNCTION ST_BoxJoin(exactgpu_batch, exactgpu_batch) IS
	'Batch 2D box join over two exactgpu_batch values.';
COMMENT ON FUNCTION ST_3DBoxJoin(exactgpu_batch, exactgpu_batch) IS
	'Batch 3D box join over two exactgpu_batch values.';
COMMENT ON FUNCTION ST_ExactIntersectsSolid3D(geometry, geometry) IS
	'Does geom meet the closed volume of the closed surface solid (inside or on)? Container first; the PostGIS solid flag plays no part. ERROR 22023 if solid is not closed.';
COMMENT ON FUNCTION ST_ExactIntersectsSolid3DJoin(text, text) IS
	'Batch volume join: (left_id, right_id) = (solid, geometry) for every geometry of geoms_sql meeting the closed volume of a body of solids_sql, each pair once.';
COMMENT ON FUNCTION ST_ExactIntersectsSolid3DJoin(exactgpu_batch, exactgpu_batch) IS
	'Batch volume join over two exactgpu_batch values: (left_id, right_id) = (solid, geometry).';
COMMENT ON FUNCTION ST_ExactVolume(geometry) IS
	'The volume a closed, consistently oriented, outward TIN or POLYHEDRALSURFACE encloses, computed exactly and rounded once; never negative (inside-out is ERROR 22023, repaired by ST_ExactForceOutward).';
COMMENT ON FUNCTION ST_ExactForceOutward(geometry) IS
	'The closed TIN or POLYHEDRALSURFACE with every face oriented outward (cavities inward to the solid), decided by edge adjacency and exact signed volumes; ERROR 22023 for open or non-manifold surfaces.';
