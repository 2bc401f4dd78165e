-- exactgpu: exact geometric predicates over PostGIS geometries.
-- The source of the install script: the Makefile builds sql/exactgpu--$(EXTVERSION).sql
-- from it. Every change here ships too in the upgrade script of this version
-- step (sql/exactgpu--<old>--<new>.sql); the regress test `upgrade` checks that
-- both routes give the same catalog.
\echo Use "CREATE EXTENSION exactgpu CASCADE" to load this file. \quit

-- ---------------------------------------------------------------------------
-- Orientation predicates: the exact sign of a determinant over the input
-- doubles. NULL when a point is empty.
-- ---------------------------------------------------------------------------

-- Sign of (b - a) x (c - a) in the xy plane (Z ignored):
--   1 = counter-clockwise (left turn), -1 = clockwise (right turn), 0 = collinear.
CREATE FUNCTION ST_ExactOrientation2D(a geometry, b geometry, c geometry)
	RETURNS integer
	AS 'MODULE_PATHNAME', 'exactgpu_orientation_2d'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

-- Sign of ((b - a) x (c - a)) . (d - a): 1 when d is on the side the normal of
-- the counter-clockwise triangle abc points to, -1 on the other side, 0 coplanar.
-- Points without Z have z = 0.
CREATE FUNCTION ST_ExactOrientation3D(a geometry, b geometry, c geometry, d geometry)
	RETURNS integer
	AS 'MODULE_PATHNAME', 'exactgpu_orientation_3d'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

-- ---------------------------------------------------------------------------
-- Intersection predicates on closed sets (touching counts). Planner support
-- adds the box-overlap index condition, as PostGIS does for its own.
-- ---------------------------------------------------------------------------

CREATE FUNCTION exactgpu_support_3d(internal)
	RETURNS internal
	AS 'MODULE_PATHNAME', 'exactgpu_support_3d'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE FUNCTION exactgpu_support_2d(internal)
	RETURNS internal
	AS 'MODULE_PATHNAME', 'exactgpu_support_2d'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

-- 3D: points, linework and surfaces (TRIANGLE, TIN, POLYHEDRALSURFACE and
-- planar POLYGON faces), every surface as a surface (volumes: see
-- ST_ExactIntersectsSolid3D); a geometry without Z against one with Z is an
-- error.
CREATE FUNCTION ST_ExactIntersects3D(geom1 geometry, geom2 geometry)
	RETURNS boolean
	AS 'MODULE_PATHNAME', 'exactgpu_intersects_3d'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE
	SUPPORT exactgpu_support_3d
	COST 10000;

-- 2D (Z ignored): polygons and triangles are areas, so containment counts.
CREATE FUNCTION ST_ExactIntersects(geom1 geometry, geom2 geometry)
	RETURNS boolean
	AS 'MODULE_PATHNAME', 'exactgpu_intersects_2d'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE
	SUPPORT exactgpu_support_2d
	COST 10000;

-- ---------------------------------------------------------------------------
-- Counters: how often the filters decided and exact arithmetic was needed
-- (this backend, since the last reset).
-- ---------------------------------------------------------------------------

CREATE FUNCTION exactgpu_stats(
	OUT predicates bigint,         -- orientation predicates evaluated on the CPU
	OUT filter_decided bigint,     -- decided by the double interval filter
	OUT exact_evaluations bigint,  -- re-evaluated with GMP
	OUT exact_ms float8,           -- time spent in GMP
	OUT exact_fraction float8,     -- exact_evaluations / predicates
	OUT pair_tests bigint,         -- primitive pairs tested after box culling
	OUT gpu_calls bigint,          -- engine calls that ran on the GPU
	OUT gpu_pair_tests bigint,     -- pair tests run on the GPU
	OUT gpu_unknown bigint)        -- GPU pair tests left to the CPU by the filter
	RETURNS record
	AS 'MODULE_PATHNAME', 'exactgpu_stats'
	LANGUAGE C VOLATILE PARALLEL RESTRICTED;

CREATE FUNCTION exactgpu_stats_reset()
	RETURNS void
	AS 'MODULE_PATHNAME', 'exactgpu_stats_reset'
	LANGUAGE C VOLATILE PARALLEL RESTRICTED;

-- ---------------------------------------------------------------------------
-- Batch joins: every pair of rows whose geometries intersect, decided exactly,
-- on the GPU when one is usable (exactgpu.device), else on the CPU. Each
-- inner query returns (id integer or bigint, geom geometry); rows with a NULL
-- geometry are skipped, a NULL id with a geometry is an error, rows sharing
-- an id count as one object.
-- ---------------------------------------------------------------------------

CREATE FUNCTION ST_ExactIntersects3DJoin(left_sql text, right_sql text)
	RETURNS TABLE (left_id bigint, right_id bigint)
	AS 'MODULE_PATHNAME', 'exactgpu_join3d_sql'
	LANGUAGE C VOLATILE STRICT PARALLEL RESTRICTED
	ROWS 1000;

CREATE FUNCTION ST_ExactIntersectsJoin(left_sql text, right_sql text)
	RETURNS TABLE (left_id bigint, right_id bigint)
	AS 'MODULE_PATHNAME', 'exactgpu_join2d_sql'
	LANGUAGE C VOLATILE STRICT PARALLEL RESTRICTED
	ROWS 1000;

-- A batch of (id, geometry) rows, built by the aggregate ST_ExactBatch and
-- consumed by the join functions (limited to 1 GB like any value).
CREATE TYPE exactgpu_batch;

CREATE FUNCTION exactgpu_batch_in(cstring) RETURNS exactgpu_batch
	AS 'MODULE_PATHNAME', 'exactgpu_batch_in' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION exactgpu_batch_out(exactgpu_batch) RETURNS cstring
	AS 'MODULE_PATHNAME', 'exactgpu_batch_out' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION exactgpu_batch_recv(internal) RETURNS exactgpu_batch
	AS 'MODULE_PATHNAME', 'exactgpu_batch_recv' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION exactgpu_batch_send(exactgpu_batch) RETURNS bytea
	AS 'MODULE_PATHNAME', 'exactgpu_batch_send' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

-- Text form {id:hexewkb,...} and binary form (ids and EWKB), both read back
-- through PostGIS's input: batches survive pg_dump / pg_restore and COPY.
CREATE TYPE exactgpu_batch (
	INPUT = exactgpu_batch_in,
	OUTPUT = exactgpu_batch_out,
	RECEIVE = exactgpu_batch_recv,
	SEND = exactgpu_batch_send,
	INTERNALLENGTH = VARIABLE,
	ALIGNMENT = double,
	STORAGE = extended
);

CREATE FUNCTION exactgpu_batch_accum(internal, bigint, geometry) RETURNS internal
	AS 'MODULE_PATHNAME', 'exactgpu_batch_accum' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE FUNCTION exactgpu_batch_final(internal) RETURNS exactgpu_batch
	AS 'MODULE_PATHNAME', 'exactgpu_batch_final' LANGUAGE C IMMUTABLE PARALLEL SAFE;

COMMENT ON FUNCTION exactgpu_batch_recv(internal) IS
	'Binary input of exactgpu_batch: a row count, then per row the id and the geometry as EWKB.';
COMMENT ON FUNCTION exactgpu_batch_send(exactgpu_batch) IS
	'Binary output of exactgpu_batch: a row count, then per row the id and the geometry as EWKB.';

CREATE AGGREGATE ST_ExactBatch(id bigint, geom geometry) (
	SFUNC = exactgpu_batch_accum,
	STYPE = internal,
	FINALFUNC = exactgpu_batch_final
);

CREATE FUNCTION ST_ExactIntersects3DJoin(left_batch exactgpu_batch, right_batch exactgpu_batch)
	RETURNS TABLE (left_id bigint, right_id bigint)
	AS 'MODULE_PATHNAME', 'exactgpu_join3d_batch'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE
	ROWS 1000;

CREATE FUNCTION ST_ExactIntersectsJoin(left_batch exactgpu_batch, right_batch exactgpu_batch)
	RETURNS TABLE (left_id bigint, right_id bigint)
	AS 'MODULE_PATHNAME', 'exactgpu_join2d_batch'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE
	ROWS 1000;

-- The last batch join of this backend, phase by phase (NULL before the first).
CREATE FUNCTION exactgpu_last_join_stats(
	OUT device text,
	OUT semantics text,
	OUT left_rows bigint,
	OUT right_rows bigint,
	OUT left_primitives bigint,
	OUT right_primitives bigint,
	OUT grid text,
	OUT candidate_pairs bigint,
	OUT primitive_hits bigint,
	OUT undecided_first_filter bigint,
	OUT undecided_double bigint,
	OUT gmp_pairs bigint,
	OUT row_pairs bigint,
	OUT read_ms float8,
	OUT upload_ms float8,
	OUT prepare_ms float8,
	OUT test_ms float8,
	OUT exact_ms float8,
	OUT output_ms float8,
	OUT join_ms float8,
	OUT total_ms float8,
	OUT waves integer,
	OUT splits integer,
	OUT contained_pairs bigint,
	OUT read_path text,
	OUT read_workers integer,
	OUT resident_sides integer,
	OUT resident_rows bigint,
	OUT resident_bytes bigint,
	OUT read_bytes bigint)
	RETURNS record
	AS 'MODULE_PATHNAME', 'exactgpu_last_join_stats'
	LANGUAGE C VOLATILE PARALLEL RESTRICTED;
COMMENT ON FUNCTION exactgpu_last_join_stats() IS
	'The last batch join of this backend: device, sizes, filter counts, phase times; read_path says whether out-of-line geometries were flattened by parallel workers (parallel) or by this backend (serial), read_workers how many workers took part; resident_sides, resident_rows and resident_bytes what was borrowed from the resident store (exactgpu.resident_memory) instead of read, read_bytes what was read (detoasted sizes)';

-- The GPU this backend can use, if any (initialises CUDA on first call).
-- Memory: in use by live join allocations (0 between joins), kept by the pool
-- for the next join, and free on the device.
CREATE FUNCTION exactgpu_device_info(OUT build text, OUT gpus integer, OUT detail text,
	OUT gpu_memory_in_use_mb float8, OUT gpu_memory_pooled_mb float8, OUT gpu_memory_free_mb float8)
	RETURNS record
	AS 'MODULE_PATHNAME', 'exactgpu_device_info'
	LANGUAGE C VOLATILE PARALLEL RESTRICTED;

-- ---------------------------------------------------------------------------
-- Solids: closed triangulated surfaces as volumes.
-- ---------------------------------------------------------------------------

-- Where a point is relative to a closed surface (TIN, POLYHEDRALSURFACE, ...):
-- 'inside', 'outside' or 'boundary' (on a face, an edge or a vertex), exactly.
-- ERROR 22023 if the surface is not closed.
CREATE FUNCTION ST_ExactLocate3D(solid geometry, point geometry)
	RETURNS text
	AS 'MODULE_PATHNAME', 'exactgpu_locate_3d'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

-- Drill-hole intercepts: the along-hole depth intervals (from the first vertex,
-- in the units of the coordinates) where a LINESTRING hole lies in a closed
-- solid, inside or on its boundary; a touch without entering is a zero-length
-- interval. Contacts are exact rationals, each depth rounded once.
CREATE FUNCTION ST_ExactIntercepts3D(hole geometry, solid geometry,
	OUT from_m float8, OUT to_m float8)
	RETURNS SETOF record
	AS 'MODULE_PATHNAME', 'exactgpu_intercepts_3d'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE
	ROWS 2;

-- Batch point-in-solid: (point row, body row) for every point inside or on a
-- closed body; points_sql / solids_sql yield (id bigint, geom geometry).
-- Deprecated (points first): ST_ExactIntersectsSolid3DJoin(solids, points).
CREATE FUNCTION ST_ExactLocate3DJoin(points_sql text, solids_sql text)
	RETURNS TABLE (point_id bigint, solid_id bigint)
	AS 'MODULE_PATHNAME', 'exactgpu_locate3d_sql'
	LANGUAGE C VOLATILE STRICT PARALLEL RESTRICTED
	ROWS 1000;

CREATE FUNCTION ST_ExactLocate3DJoin(points exactgpu_batch, solids exactgpu_batch)
	RETURNS TABLE (point_id bigint, solid_id bigint)
	AS 'MODULE_PATHNAME', 'exactgpu_locate3d_batch'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE
	ROWS 1000;

-- Mesh validity: face pairs (1-based, face_a < face_b) of a surface that meet
-- other than in their shared edge or vertex.
CREATE FUNCTION ST_ExactSelfIntersections3D(surface geometry, OUT face_a integer, OUT face_b integer)
	RETURNS SETOF record
	AS 'MODULE_PATHNAME', 'exactgpu_self_intersections_3d'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE
	ROWS 10;

-- Does the surface bound a valid solid: closed, 2-manifold at its edges,
-- consistently oriented, no degenerate or self-intersecting faces?
CREATE FUNCTION ST_ExactIsValidSolid(geometry)
	RETURNS boolean
	AS 'MODULE_PATHNAME', 'exactgpu_is_valid_solid'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE FUNCTION ST_ExactIsValidSolidReason(geometry)
	RETURNS text
	AS 'MODULE_PATHNAME', 'exactgpu_is_valid_solid_reason'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

-- Box joins: (left_id, right_id) for every pair of rows whose closed boxes
-- (the exact extents of their coordinates; xy, or xyz for ST_3DBoxJoin)
-- meet, touching included, each pair once. Inner queries as for the joins.
CREATE FUNCTION ST_BoxJoin(left_sql text, right_sql text)
	RETURNS TABLE (left_id bigint, right_id bigint)
	AS 'MODULE_PATHNAME', 'exactgpu_boxjoin2d_sql'
	LANGUAGE C VOLATILE STRICT PARALLEL RESTRICTED
	ROWS 1000;

CREATE FUNCTION ST_3DBoxJoin(left_sql text, right_sql text)
	RETURNS TABLE (left_id bigint, right_id bigint)
	AS 'MODULE_PATHNAME', 'exactgpu_boxjoin3d_sql'
	LANGUAGE C VOLATILE STRICT PARALLEL RESTRICTED
	ROWS 1000;

CREATE FUNCTION ST_BoxJoin(left_batch exactgpu_batch, right_batch exactgpu_batch)
	RETURNS TABLE (left_id bigint, right_id bigint)
	AS 'MODULE_PATHNAME', 'exactgpu_boxjoin2d_batch'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE
	ROWS 1000;

CREATE FUNCTION ST_3DBoxJoin(left_batch exactgpu_batch, right_batch exactgpu_batch)
	RETURNS TABLE (left_id bigint, right_id bigint)
	AS 'MODULE_PATHNAME', 'exactgpu_boxjoin3d_batch'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE
	ROWS 1000;

-- ---------------------------------------------------------------------------
-- Drill-hole intercepts and composites. A body is its volume here (by
-- definition, whatever its solid flag): it must be a closed surface.
-- ---------------------------------------------------------------------------

-- The intercepts of ST_ExactIntercepts3D with their entry and exit points,
-- contact kinds and the piece of the hole inside as a LINESTRING ZM (M = depth).
CREATE FUNCTION ST_ExactInterceptPieces3D(hole geometry, body geometry,
	OUT from_m float8, OUT to_m float8, OUT length_m float8, OUT kind text,
	OUT entry_contact text, OUT exit_contact text,
	OUT entry_point geometry, OUT exit_point geometry, OUT piece geometry)
	RETURNS SETOF record
	AS 'MODULE_PATHNAME', 'exactgpu_intercept_pieces_3d'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE
	ROWS 2;

-- Batch intercepts: for every hole that meets a body or lies in it, the
-- intercepts, computed in the engine (batch join, then each pair). Inner
-- queries yield (id integer or bigint, geom geometry), read by position.
CREATE FUNCTION ST_ExactIntercepts3DJoin(holes_sql text, solids_sql text)
	RETURNS TABLE (hole_id bigint, solid_id bigint, from_m float8, to_m float8)
	AS 'MODULE_PATHNAME', 'exactgpu_intercepts3d_join_sql'
	LANGUAGE C VOLATILE STRICT PARALLEL RESTRICTED
	ROWS 1000;

CREATE FUNCTION ST_ExactIntercepts3DJoin(holes exactgpu_batch, solids exactgpu_batch)
	RETURNS TABLE (hole_id bigint, solid_id bigint, from_m float8, to_m float8)
	AS 'MODULE_PATHNAME', 'exactgpu_intercepts3d_join_batch'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE
	ROWS 1000;

CREATE FUNCTION ST_ExactInterceptPieces3DJoin(holes_sql text, bodies_sql text)
	RETURNS TABLE (hole_id bigint, body_id bigint, from_m float8, to_m float8,
		length_m float8, kind text, entry_contact text, exit_contact text,
		entry_point geometry, exit_point geometry, piece geometry)
	AS 'MODULE_PATHNAME', 'exactgpu_intercept_pieces3d_join_sql'
	LANGUAGE C VOLATILE STRICT PARALLEL RESTRICTED
	ROWS 1000;

CREATE FUNCTION ST_ExactInterceptPieces3DJoin(holes exactgpu_batch, bodies exactgpu_batch)
	RETURNS TABLE (hole_id bigint, body_id bigint, from_m float8, to_m float8,
		length_m float8, kind text, entry_contact text, exit_contact text,
		entry_point geometry, exit_point geometry, piece geometry)
	AS 'MODULE_PATHNAME', 'exactgpu_intercept_pieces3d_join_batch'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE
	ROWS 1000;

-- Exact compositing of assay intervals over one intercept.
CREATE TYPE exactgpu_composite AS (
	from_m float8,
	to_m float8,
	length_m float8,
	sampled_m float8,
	grade float8,
	midpoint_m float8,
	midpoint_grade float8,
	intervals integer);

CREATE FUNCTION exactgpu_composite_trans(internal, float8, float8, float8, float8, float8)
	RETURNS internal
	AS 'MODULE_PATHNAME', 'exactgpu_composite_trans'
	LANGUAGE C IMMUTABLE PARALLEL SAFE;

CREATE FUNCTION exactgpu_composite_final(internal)
	RETURNS exactgpu_composite
	AS 'MODULE_PATHNAME', 'exactgpu_composite_final'
	LANGUAGE C IMMUTABLE PARALLEL SAFE;

CREATE AGGREGATE ST_ExactComposite(assay_from float8, assay_to float8, grade float8,
	from_m float8, to_m float8) (
	SFUNC = exactgpu_composite_trans,
	STYPE = internal,
	FINALFUNC = exactgpu_composite_final,
	PARALLEL = SAFE);

-- "10.9 m @ 5.07 g/t from 134.4 m"
CREATE FUNCTION ST_ExactCompositeLabel(composite exactgpu_composite, unit text DEFAULT 'g/t')
	RETURNS text
	LANGUAGE sql IMMUTABLE PARALLEL SAFE
	SET search_path = pg_catalog
	AS $$
	SELECT CASE WHEN ($1).grade IS NULL THEN NULL
	       ELSE format('%s m @ %s %s from %s m', round(($1).length_m::numeric, 1),
	                   round(($1).grade::numeric, 2), $2, round(($1).from_m::numeric, 1)) END
$$;

COMMENT ON FUNCTION ST_ExactIntercepts3D(geometry, geometry) IS
'Depth intervals (from_m, to_m) where a LINESTRING hole (or a MULTILINESTRING whose parts join end to start) lies in the closed body, inside or on it; contacts exact, each depth rounded once; a touch is a zero-length interval';
COMMENT ON FUNCTION ST_ExactInterceptPieces3D(geometry, geometry) IS
'Intercepts of a hole in a closed body with entry and exit points, contact kinds (start, end, face, edge, vertex), kind (through, along, grazing) and the piece inside as LINESTRING ZM with M = depth';
COMMENT ON FUNCTION ST_ExactIntercepts3DJoin(text, text) IS
'Batch intercepts (hole_id, solid_id, from_m, to_m) of every hole that meets or lies in a body; inner queries return (id integer or bigint, geometry), read by position; bodies are volumes';
COMMENT ON FUNCTION ST_ExactIntercepts3DJoin(exactgpu_batch, exactgpu_batch) IS
'Batch intercepts over ST_ExactBatch values (holes, bodies)';
COMMENT ON FUNCTION ST_ExactInterceptPieces3DJoin(text, text) IS
'Batch form of ST_ExactInterceptPieces3D: (hole_id, body_id) and every intercept with its points, contact kinds and piece';
COMMENT ON FUNCTION ST_ExactInterceptPieces3DJoin(exactgpu_batch, exactgpu_batch) IS
'Batch form of ST_ExactInterceptPieces3D over ST_ExactBatch values (holes, bodies)';
COMMENT ON TYPE exactgpu_composite IS
'A composite over one intercept: the intercept, its sampled length, the exact length-weighted grade, and the midpoint-rule length and grade for comparison';
COMMENT ON FUNCTION exactgpu_composite_trans(internal, float8, float8, float8, float8, float8) IS
'Transition function of ST_ExactComposite';
COMMENT ON FUNCTION exactgpu_composite_final(internal) IS
'Final function of ST_ExactComposite';
COMMENT ON AGGREGATE ST_ExactComposite(float8, float8, float8, float8, float8) IS
'Length-weighted grade of assay intervals (assay_from, assay_to, grade) over one intercept (from_m, to_m): an interval cut by the intercept counts exactly its inside part; sums exact, grade rounded once; midpoint rule beside it';
COMMENT ON FUNCTION ST_ExactCompositeLabel(exactgpu_composite, text) IS
'The line geologists read: "10.9 m @ 5.07 g/t from 134.4 m"';

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
	'The last batch join of this backend: device, sizes, filter counts, phase times; read_path says whether out-of-line geometries were flattened by parallel workers (parallel) or by this backend (serial), read_workers how many workers took part; resident_sides, resident_rows and resident_bytes what was borrowed from the resident store (exactgpu.resident_memory) instead of read, read_bytes what was read (detoasted sizes)';
COMMENT ON FUNCTION exactgpu_device_info() IS
	'The GPU build and the GPUs this backend can use (or why none), with GPU memory in use, pooled and free.';
COMMENT ON FUNCTION ST_ExactLocate3D(geometry, geometry) IS
	'Where a point is relative to a closed surface (container first): inside, outside or boundary, exactly; ERROR 22023 if the surface is not closed.';
COMMENT ON FUNCTION ST_ExactLocate3DJoin(text, text) IS
	'Deprecated (points first, outputs point_id / solid_id): use ST_ExactIntersectsSolid3DJoin(solids_sql, points_sql), whose (left_id, right_id) are (solid, point). Batch point-in-solid: every point inside or on a closed body.';
COMMENT ON FUNCTION ST_ExactLocate3DJoin(exactgpu_batch, exactgpu_batch) IS
	'Deprecated (points first, outputs point_id / solid_id): use ST_ExactIntersectsSolid3DJoin(solids, points). Batch point-in-solid over two exactgpu_batch values.';
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

-- ---- sharding over postgres_fdw (docs/sharding.md) ----

-- ST_ExactBatch in parts: combine, serialize and deserialize its state, so
-- that parallel workers and partitionwise aggregates can build it in pieces.
-- The aggregate is recreated with them (CREATE AGGREGATE cannot be altered
-- to add support functions); a view using it must be recreated after an
-- update from 0.2.0.
CREATE FUNCTION exactgpu_batch_combine(internal, internal) RETURNS internal
	AS 'MODULE_PATHNAME', 'exactgpu_batch_combine' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE FUNCTION exactgpu_batch_serialize(internal) RETURNS bytea
	AS 'MODULE_PATHNAME', 'exactgpu_batch_serialize' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION exactgpu_batch_deserialize(bytea, internal) RETURNS internal
	AS 'MODULE_PATHNAME', 'exactgpu_batch_deserialize' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION exactgpu_batch_combine(internal, internal) IS
	'Combine function of ST_ExactBatch: the rows of two partial states, one after the other.';
COMMENT ON FUNCTION exactgpu_batch_serialize(internal) IS
	'Serialize function of ST_ExactBatch: a partial state (rows in line, TOAST pointers) as bytea.';
COMMENT ON FUNCTION exactgpu_batch_deserialize(bytea, internal) IS
	'Deserialize function of ST_ExactBatch.';

DROP AGGREGATE ST_ExactBatch(bigint, geometry);
CREATE AGGREGATE ST_ExactBatch(id bigint, geom geometry) (
	SFUNC = exactgpu_batch_accum,
	STYPE = internal,
	FINALFUNC = exactgpu_batch_final,
	COMBINEFUNC = exactgpu_batch_combine,
	SERIALFUNC = exactgpu_batch_serialize,
	DESERIALFUNC = exactgpu_batch_deserialize,
	PARALLEL = SAFE
);
COMMENT ON AGGREGATE ST_ExactBatch(bigint, geometry) IS
	'Pack (id, geometry) rows into an exactgpu_batch for the batch joins (one value, so at most 1 GB); can be computed in parts and combined.';

-- Routing: the shards (1-based positions in extents) whose extent the exact
-- double box of geom meets, touching included. A geometry without Z is
-- tested in xy only. Correct routing of joined rows needs each shard's
-- extent to contain the boxes of the rows it holds (e.g. ST_3DExtent of the
-- bodies placed there): a row meeting a body then meets its shard's extent.
-- The geometry's box is its vertices' exact extent (no PostGIS float box).
CREATE FUNCTION ST_ExactShardsFor(box box3d, extents box3d[], has_z boolean DEFAULT true)
	RETURNS integer[]
	AS 'MODULE_PATHNAME', 'exactgpu_shards_for_box'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION ST_ExactShardsFor(geom geometry, extents box3d[]) RETURNS integer[]
	AS 'MODULE_PATHNAME', 'exactgpu_shards_for_geom'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION ST_ExactShardsFor(box3d, box3d[], boolean) IS
	'The shards (1-based positions in extents) whose extent box meets, touching included, compared exactly on the doubles (xy only when has_z is false); {} when none.';
COMMENT ON FUNCTION ST_ExactShardsFor(geometry, box3d[]) IS
	'The shards (1-based positions in extents) whose extent the exact double box of geom meets, touching included (xy only for a geometry without Z): where to load a row that must meet the bodies of those shards.';

-- On each shard: views exposing the shard number as a constant column, for
-- the coordinator's foreign partitions. A constant (not a stored column)
-- lets the shard's planner fold the coordinator's shard-key equality to true
-- and join on the predicate alone (ExactJoin), instead of hashing on a
-- column equal in every row.
CREATE FUNCTION exactgpu_shard_expose(shard integer, tables regclass[],
									  remote_schema name DEFAULT 'exactgpu_shard')
	RETURNS SETOF text
	LANGUAGE plpgsql VOLATILE STRICT
	SET search_path = pg_catalog
	AS $$
DECLARE
	t regclass;
	v text;
BEGIN
	IF NOT EXISTS (SELECT FROM pg_namespace WHERE nspname = remote_schema) THEN
		EXECUTE format('CREATE SCHEMA %I', remote_schema);
	END IF;
	FOREACH t IN ARRAY tables LOOP
		IF EXISTS (SELECT FROM pg_attribute WHERE attrelid = t AND attname = 'shard'
				   AND attnum > 0 AND NOT attisdropped) THEN
			RAISE EXCEPTION 'exactgpu_shard_expose: table % already has a column "shard"', t
				USING ERRCODE = 'duplicate_column',
				      HINT = 'The view adds the shard number as column "shard"; rename the table''s column.';
		END IF;
		v := format('%I.%I', remote_schema, (SELECT relname FROM pg_class WHERE oid = t));
		EXECUTE format('CREATE OR REPLACE VIEW %s AS SELECT %s::integer AS shard, t.* FROM %s AS t',
					   v, shard, t);
		RETURN NEXT v;
	END LOOP;
END
$$;
COMMENT ON FUNCTION exactgpu_shard_expose(integer, regclass[], name) IS
	'On a shard: for each table, a view remote_schema.<table> with the shard number as a constant first column "shard", for exactgpu_shard_setup''s foreign partitions; returns the views.';

-- On the coordinator: servers, user mappings and foreign partitions.
CREATE FUNCTION exactgpu_shard_setup(servers name[], conninfos text[], tables regclass[],
									 remote_schema name DEFAULT 'exactgpu_shard',
									 user_options text DEFAULT NULL)
	RETURNS SETOF text
	LANGUAGE plpgsql VOLATILE
	SET search_path = pg_catalog
	AS $$
DECLARE
	i integer;
	t regclass;
	opts text;
	kv text;
	probe text;
	ver text;
	ok boolean;
	part text;
	relname name;
	relschema name;
BEGIN
	IF servers IS NULL OR tables IS NULL THEN
		RAISE EXCEPTION 'exactgpu_shard_setup: servers and tables must not be NULL'
			USING ERRCODE = 'null_value_not_allowed';
	END IF;
	IF conninfos IS NOT NULL AND cardinality(conninfos) <> cardinality(servers) THEN
		RAISE EXCEPTION 'exactgpu_shard_setup: % servers but % connection strings',
			cardinality(servers), cardinality(conninfos)
			USING ERRCODE = 'invalid_parameter_value';
	END IF;
	IF NOT EXISTS (SELECT FROM pg_foreign_data_wrapper WHERE fdwname = 'postgres_fdw') THEN
		RAISE EXCEPTION 'exactgpu_shard_setup: postgres_fdw is not installed'
			USING ERRCODE = 'undefined_object', HINT = 'CREATE EXTENSION postgres_fdw;';
	END IF;
	FOREACH t IN ARRAY tables LOOP
		IF NOT EXISTS (SELECT FROM pg_partitioned_table p JOIN pg_attribute a
					   ON a.attrelid = p.partrelid AND a.attnum = p.partattrs[0]
					   WHERE p.partrelid = t AND p.partstrat = 'l' AND p.partnatts = 1
					   AND a.attname = 'shard') THEN
			RAISE EXCEPTION 'exactgpu_shard_setup: % is not partitioned by LIST (shard)', t
				USING ERRCODE = 'wrong_object_type',
				      HINT = 'CREATE TABLE ... (shard integer NOT NULL, LIKE ...) PARTITION BY LIST (shard);';
		END IF;
	END LOOP;

	FOR i IN 1 .. cardinality(servers) LOOP
		-- the server, with the options that let joins and predicates push down
		IF conninfos IS NOT NULL AND conninfos[i] IS NOT NULL THEN
			opts := '';
			FOREACH kv IN ARRAY regexp_split_to_array(btrim(conninfos[i]), '\s+') LOOP
				IF position('=' IN kv) = 0 THEN
					RAISE EXCEPTION 'exactgpu_shard_setup: "%" in the connection string of server % is not key=value', kv, servers[i]
						USING ERRCODE = 'invalid_parameter_value';
				END IF;
				opts := opts || format('%I %L, ', split_part(kv, '=', 1), substr(kv, position('=' IN kv) + 1));
			END LOOP;
			EXECUTE format('CREATE SERVER %I FOREIGN DATA WRAPPER postgres_fdw OPTIONS (%s'
						   'extensions %L, async_capable %L, fetch_size %L)',
						   servers[i], opts, 'postgis, exactgpu', 'true', '10000');
			EXECUTE format('CREATE USER MAPPING FOR CURRENT_USER SERVER %I%s', servers[i],
						   CASE WHEN user_options IS NULL THEN '' ELSE
						   ' OPTIONS (' || (SELECT string_agg(format('%I %L', split_part(u, '=', 1),
								substr(u, position('=' IN u) + 1)), ', ')
								FROM regexp_split_to_table(btrim(user_options), '\s+') AS u) || ')' END);
		ELSIF NOT EXISTS (SELECT FROM pg_foreign_server WHERE srvname = servers[i]) THEN
			RAISE EXCEPTION 'exactgpu_shard_setup: server % does not exist and no connection string was given', servers[i]
				USING ERRCODE = 'undefined_object';
		END IF;

		-- postgres_fdw reads a foreign join through a cursor (DECLARE), which
		-- the shard plans for its first cursor_tuple_fraction (0.1) of rows: a
		-- row-by-row nested loop over a batch join that yields nothing until
		-- it is done. The coordinator fetches every row, so its sessions plan
		-- for all of them (libpq's options, sent at connection start).
		SELECT (SELECT substr(o, 9) FROM unnest(s.srvoptions) AS o WHERE o LIKE 'options=%'),
			   pg_has_role(s.srvowner, 'MEMBER')
			INTO kv, ok FROM pg_foreign_server s WHERE s.srvname = servers[i];
		IF kv IS NOT NULL AND kv LIKE '%cursor_tuple_fraction%' THEN
			NULL;				-- the server's own choice
		ELSIF NOT ok THEN
			RAISE WARNING 'exactgpu_shard_setup: server % is not yours to alter: its shard plans postgres_fdw''s cursors for a tenth of their rows', servers[i]
				USING HINT = format('ALTER SERVER %I OPTIONS (ADD options %L);', servers[i], '-c cursor_tuple_fraction=1');
		ELSIF kv IS NULL THEN
			EXECUTE format('ALTER SERVER %I OPTIONS (ADD options %L)', servers[i], '-c cursor_tuple_fraction=1');
		ELSE
			EXECUTE format('ALTER SERVER %I OPTIONS (SET options %L)', servers[i], kv || ' -c cursor_tuple_fraction=1');
		END IF;

		-- exactgpu on the server (and postgis), read through a probe foreign table:
		-- a server without it would fail only at query time, or worse, not be
		-- shipped the predicate and send its geometry instead
		probe := format('public.%I', 'exactgpu_shard_probe_' || i);
		EXECUTE format('CREATE FOREIGN TABLE %s (extname name, extversion text) SERVER %I '
					   'OPTIONS (schema_name %L, table_name %L)', probe, servers[i], 'pg_catalog', 'pg_extension');
		EXECUTE format('SELECT extversion FROM %s WHERE extname = %L', probe, 'exactgpu') INTO ver;
		EXECUTE format('SELECT count(*) = 1 FROM %s WHERE extname = %L', probe, 'postgis') INTO ok;
		EXECUTE format('DROP FOREIGN TABLE %s', probe);
		IF ver IS NULL OR NOT ok THEN
			RAISE EXCEPTION 'exactgpu_shard_setup: server % does not have the % extension installed',
				servers[i], CASE WHEN ver IS NULL THEN 'exactgpu' ELSE 'postgis' END
				USING ERRCODE = 'undefined_object',
				      HINT = 'On that server: CREATE EXTENSION exactgpu CASCADE;';
		END IF;
		IF ver <> (SELECT extversion FROM pg_extension WHERE extname = 'exactgpu') THEN
			RAISE WARNING 'exactgpu_shard_setup: server % has exactgpu %, this server %',
				servers[i], ver, (SELECT extversion FROM pg_extension WHERE extname = 'exactgpu');
		END IF;

		-- one foreign partition per table, shard i, on the shard's view
		FOREACH t IN ARRAY tables LOOP
			SELECT c.relname, n.nspname INTO relname, relschema
			FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE c.oid = t;
			part := format('%I.%I', relschema, relname || '_' || servers[i]);
			EXECUTE format('CREATE FOREIGN TABLE %s PARTITION OF %s FOR VALUES IN (%s) SERVER %I '
						   'OPTIONS (schema_name %L, table_name %L)',
						   part, t, i, servers[i], remote_schema, relname);
			RETURN NEXT part;
		END LOOP;
	END LOOP;
END
$$;
COMMENT ON FUNCTION exactgpu_shard_setup(name[], text[], regclass[], name, text) IS
	'On the coordinator: for server i (shard i) of servers, creates it from conninfos[i] (''host=... port=... dbname=...''; NULL to use an existing server) with extensions ''postgis, exactgpu'', async_capable and fetch_size 10000, and (created or not) libpq options -c cursor_tuple_fraction=1 (the shard plans postgres_fdw''s cursors for all their rows), a user mapping for the current user (user_options ''user=... password=...''), checks that it has exactgpu and postgis (ERROR naming it otherwise), and creates for each table (PARTITION BY LIST (shard)) the foreign partition <table>_<server> FOR VALUES IN (i) on remote_schema.<table> (exactgpu_shard_expose); returns the partitions.';

-- ---- drill holes: desurvey, crossings with open surfaces, sections ----
-- (docs/geologists.md). Constructions are rounded and documented; every
-- decision (which face is crossed, through or touch, which face is cut) is
-- exact over the input doubles.

-- The trace of a hole from its collar (POINT Z) and surveys (depth along
-- the hole, azimuth degrees clockwise from grid north, dip degrees negative
-- downward), as a LINESTRING ZM with M = measured depth; step adds points
-- every step metres of depth. Not STRICT: a NULL method, end_depth or step
-- takes the default.
CREATE FUNCTION ST_ExactDesurvey(collar geometry, depths float8[], azimuths float8[],
	dips float8[], method text DEFAULT 'minimum_curvature', end_depth float8 DEFAULT NULL,
	step float8 DEFAULT NULL)
	RETURNS geometry
	AS 'MODULE_PATHNAME', 'exactgpu_desurvey'
	LANGUAGE C IMMUTABLE PARALLEL SAFE;

-- Every crossing of a hole with a surface that need not be closed.
CREATE FUNCTION ST_ExactCrossings3D(hole geometry, surface geometry,
	OUT depth_m float8, OUT to_m float8, OUT kind text, OUT point geometry, OUT face integer)
	RETURNS SETOF record
	AS 'MODULE_PATHNAME', 'exactgpu_crossings_3d'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE
	ROWS 2;

-- The cut of geom by the plane through a, b and c.
CREATE FUNCTION ST_ExactSection(geom geometry, a geometry, b geometry, c geometry)
	RETURNS geometry
	AS 'MODULE_PATHNAME', 'exactgpu_section_3points'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

-- The cut of geom by the vertical plane through the section line's ends.
CREATE FUNCTION ST_ExactSection(geom geometry, section_line geometry, local boolean DEFAULT false)
	RETURNS geometry
	AS 'MODULE_PATHNAME', 'exactgpu_section_vertical'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

COMMENT ON FUNCTION ST_ExactDesurvey(geometry, float8[], float8[], float8[], text, float8, float8) IS
	'Drill-hole trace from a collar POINT Z and surveys (depth, azimuth clockwise from grid north, dip negative down, degrees) as LINESTRING ZM, M = measured depth; method minimum_curvature (default), tangent or balanced_tangent; end_depth extends the last survey; step adds a point every step metres (on the arc for minimum curvature); formulas and operation order fixed (docs/geologists.md)';
COMMENT ON FUNCTION ST_ExactCrossings3D(geometry, geometry) IS
	'Every crossing of a hole (LINESTRING Z/ZM) with a surface (TIN Z, POLYHEDRALSURFACE Z, open or closed): depth (from M when present, else 3D length from the first vertex), kind through/touch/along decided exactly, the point rounded once, the face (1-based)';
COMMENT ON FUNCTION ST_ExactSection(geometry, geometry, geometry, geometry) IS
	'The cut of surfaces and holes by the plane through three POINT Z: MULTILINESTRING Z of cut segments, MULTIPOINT Z of piercings (a GEOMETRYCOLLECTION when both); which faces are cut is exact, new vertices rounded once';
COMMENT ON FUNCTION ST_ExactSection(geometry, geometry, boolean) IS
	'The cut of surfaces and holes by the vertical plane through the section line''s first and last points; local => section coordinates (x along the line from its first point, y = elevation) for drawing';

-- ---- meshes: OBJ, PLY, STL, DXF 3DFACE in; OBJ, PLY out (issue 30) ----
-- A mesh file (bytea, e.g. pg_read_binary_file, or text) -> TIN Z, every
-- coordinate bit for bit (decimals correctly rounded, binary floats widened
-- exactly), triangles in file order and orientation; docs/meshes.md.
CREATE FUNCTION ST_ExactMeshImport(data bytea, format text, srid integer DEFAULT 0)
	RETURNS geometry
	AS 'MODULE_PATHNAME', 'exactgpu_mesh_import'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE
	COST 1000;

CREATE FUNCTION ST_ExactMeshImport(data text, format text, srid integer DEFAULT 0)
	RETURNS geometry
	AS 'MODULE_PATHNAME', 'exactgpu_mesh_import'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE
	COST 1000;

-- One row per body (OBJ o/g, ASCII STL solid, DXF layer), with what its
-- edges say.
CREATE FUNCTION ST_ExactMeshImportBodies(data bytea, format text, srid integer DEFAULT 0,
	OUT body integer, OUT name text, OUT geom geometry,
	OUT triangles bigint, OUT vertices bigint, OUT edges bigint, OUT closed boolean,
	OUT boundary_edges bigint, OUT non_manifold_edges bigint,
	OUT misoriented_edges bigint, OUT degenerate_triangles bigint)
	RETURNS SETOF record
	AS 'MODULE_PATHNAME', 'exactgpu_mesh_import_bodies'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE
	COST 1000 ROWS 1;

CREATE FUNCTION ST_ExactMeshImportBodies(data text, format text, srid integer DEFAULT 0,
	OUT body integer, OUT name text, OUT geom geometry,
	OUT triangles bigint, OUT vertices bigint, OUT edges bigint, OUT closed boolean,
	OUT boundary_edges bigint, OUT non_manifold_edges bigint,
	OUT misoriented_edges bigint, OUT degenerate_triangles bigint)
	RETURNS SETOF record
	AS 'MODULE_PATHNAME', 'exactgpu_mesh_import_bodies'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE
	COST 1000 ROWS 1;

-- Vertex arrays and a triangle index array (flat or n x 3) -> TIN Z.
CREATE FUNCTION ST_ExactMeshFromArrays(vx float8[], vy float8[], vz float8[], tri integer[],
	srid integer DEFAULT 0, index_base integer DEFAULT 0)
	RETURNS geometry
	AS 'MODULE_PATHNAME', 'exactgpu_mesh_from_arrays'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE
	COST 1000;

-- What the edges of a triangulated surface say (closed, boundary, non-manifold).
CREATE FUNCTION ST_ExactMeshInfo(surface geometry,
	OUT triangles bigint, OUT vertices bigint, OUT edges bigint, OUT closed boolean,
	OUT boundary_edges bigint, OUT non_manifold_edges bigint,
	OUT misoriented_edges bigint, OUT degenerate_triangles bigint)
	RETURNS record
	AS 'MODULE_PATHNAME', 'exactgpu_mesh_info'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE
	COST 1000;

-- A TIN Z (or triangulated POLYHEDRALSURFACE Z) -> OBJ or ASCII PLY text,
-- or binary PLY; corners welded, coordinates that read back bit for bit.
CREATE FUNCTION ST_ExactMeshExport(surface geometry, format text DEFAULT 'obj')
	RETURNS text
	AS 'MODULE_PATHNAME', 'exactgpu_mesh_export'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE
	COST 1000;

CREATE FUNCTION ST_ExactMeshExportBinary(surface geometry, format text DEFAULT 'ply')
	RETURNS bytea
	AS 'MODULE_PATHNAME', 'exactgpu_mesh_export_binary'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE
	COST 1000;

COMMENT ON FUNCTION ST_ExactMeshImport(bytea, text, integer) IS
	'A mesh file (format ''obj'', ''ply'' (ASCII or binary), ''stl'' (ASCII or binary) or ''dxf'' (ASCII, 3DFACE entities)) as one TIN Z with the given SRID, coordinates bit for bit, orientation as in the file; quads split along the diagonal from their first to their third corner.';
COMMENT ON FUNCTION ST_ExactMeshImport(text, text, integer) IS
	'ST_ExactMeshImport over the file''s text (OBJ, ASCII PLY, ASCII STL, ASCII DXF).';
COMMENT ON FUNCTION ST_ExactMeshImportBodies(bytea, text, integer) IS
	'A mesh file as one TIN Z per body (OBJ o/g, ASCII STL solid, DXF layer), each with its triangles, distinct vertices, edges, closedness, boundary, non-manifold and misoriented edges and degenerate triangles.';
COMMENT ON FUNCTION ST_ExactMeshImportBodies(text, text, integer) IS
	'ST_ExactMeshImportBodies over the file''s text.';
COMMENT ON FUNCTION ST_ExactMeshFromArrays(float8[], float8[], float8[], integer[], integer, integer) IS
	'A TIN Z from vertex coordinate arrays and a triangle index array (flat or n x 3, indices counted from index_base, 0 or 1), coordinates bit for bit.';
COMMENT ON FUNCTION ST_ExactMeshInfo(geometry) IS
	'What the edges of a triangulated surface say, positions compared exactly: triangles, distinct vertices, edges, closed (no edge used an odd number of times), boundary edges (used once), non-manifold edges (used more than twice), misoriented edges, degenerate triangles.';
COMMENT ON FUNCTION ST_ExactMeshExport(geometry, text) IS
	'A TIN Z or triangulated POLYHEDRALSURFACE Z as OBJ or ASCII PLY text, shared corners welded, coordinates in the shortest decimal that reads back as the same double (ST_ExactMeshImport gives the geometry back bit for bit).';
COMMENT ON FUNCTION ST_ExactMeshExportBinary(geometry, text) IS
	'A TIN Z or triangulated POLYHEDRALSURFACE Z as binary PLY (''ply'' or ''ply_le'': little endian, ''ply_be'': big endian), double coordinates, shared corners welded.';

-- ---- Resident geometry (issue 27): prepared bodies kept in shared memory ----
CREATE FUNCTION exactgpu_resident_stats(
	OUT enabled boolean, OUT capacity_bytes bigint, OUT bytes bigint, OUT entries bigint,
	OUT hits bigint, OUT misses bigint, OUT inserts bigint, OUT evictions bigint,
	OUT not_kept bigint, OUT verdicts_kept bigint, OUT verdicts_found bigint)
	AS 'MODULE_PATHNAME', 'exactgpu_resident_stats_sql'
	LANGUAGE C VOLATILE STRICT PARALLEL SAFE;
CREATE VIEW exactgpu_resident AS SELECT * FROM exactgpu_resident_stats();
CREATE FUNCTION exactgpu_resident_entries(
	OUT kind text, OUT toast_relid regclass, OUT value_oid oid, OUT chunk_xmin xid,
	OUT bytes bigint, OUT pins integer, OUT ready boolean)
	RETURNS SETOF record
	AS 'MODULE_PATHNAME', 'exactgpu_resident_entries_sql'
	LANGUAGE C VOLATILE STRICT PARALLEL SAFE;
CREATE FUNCTION exactgpu_resident_keep(geom geometry) RETURNS boolean
	AS 'MODULE_PATHNAME', 'exactgpu_resident_keep'
	LANGUAGE C VOLATILE STRICT PARALLEL SAFE;
CREATE FUNCTION exactgpu_resident_evict() RETURNS bigint
	AS 'MODULE_PATHNAME', 'exactgpu_resident_evict'
	LANGUAGE C VOLATILE STRICT PARALLEL SAFE;
-- As pg_prewarm does for pages: every TOASTed value of a geometry column
-- prepared and kept, so that the first query finds its bodies resident.
CREATE FUNCTION exactgpu_prewarm(tab regclass, col name) RETURNS bigint
	LANGUAGE plpgsql VOLATILE STRICT SET search_path = pg_catalog, pg_temp AS
$$
DECLARE
	kept bigint;
BEGIN
	EXECUTE format('SELECT count(*) FILTER (WHERE @extschema@.exactgpu_resident_keep(%I)) FROM %s',
				   col, tab) INTO kept;
	RETURN kept;
END
$$;
COMMENT ON FUNCTION exactgpu_resident_stats() IS
	'The resident store of prepared geometry (exactgpu.resident_memory): whether it is on in this session, its capacity and use, and its hits, misses, inserts, evictions and values it could not keep; the solid verdicts kept beside their bodies and found there by later queries.';
COMMENT ON VIEW exactgpu_resident IS
	'The resident store of prepared geometry, as exactgpu_resident_stats() reports it.';
COMMENT ON FUNCTION exactgpu_resident_entries() IS
	'A row per block kept in the resident store: a prepared geometry, with its identity (TOAST table, value OID, raw xmin of its first chunk), or a batch join''s side of bodies kept flattened (kind ''join side''); bytes, current pins, and whether it is written.';
COMMENT ON FUNCTION exactgpu_resident_keep(geometry) IS
	'Prepare a TOASTed geometry and keep it in the resident store (true), or say why not (false: store off, value stored in line, no room).';
COMMENT ON FUNCTION exactgpu_resident_evict() IS
	'Evict every prepared geometry no query has pinned from the resident store; returns how many.';
COMMENT ON FUNCTION exactgpu_prewarm(regclass, name) IS
	'Prepare every TOASTed geometry of a column and keep it in the resident store, as pg_prewarm loads pages; returns how many are kept.';

-- ---- Valid solids, composites that show unsampled core, intercept depths from M (issue 30) ----
-- Every function that treats a body as a volume refuses, with the reason
-- ST_ExactIsValidSolidReason gives, a body without a well-defined inside
-- (locate, intersects-solid, intercepts, their joins: faces with Z, closed,
-- no overlapping shells) or, for the volume, any body that is no valid
-- solid: on overlapping shells parity gives the symmetric difference and
-- the signed sum counts the overlap twice, not the union. Composites report the unsampled and the overlapping core and
-- refuse overlapping assay intervals unless asked to flag them.
ALTER TYPE exactgpu_composite ADD ATTRIBUTE unsampled_m float8;
ALTER TYPE exactgpu_composite ADD ATTRIBUTE overlap_m float8;

CREATE FUNCTION exactgpu_composite_trans(internal, float8, float8, float8, float8, float8, text)
	RETURNS internal
	AS 'MODULE_PATHNAME', 'exactgpu_composite_trans'
	LANGUAGE C IMMUTABLE PARALLEL SAFE;

CREATE AGGREGATE ST_ExactComposite(assay_from float8, assay_to float8, grade float8,
	from_m float8, to_m float8, overlaps text) (
	SFUNC = exactgpu_composite_trans,
	STYPE = internal,
	FINALFUNC = exactgpu_composite_final,
	PARALLEL = SAFE);

-- "119.5 m @ 5.20 g/t from 134.4 m (114.5 m sampled)": unsampled core is
-- never hidden behind the intercept's length.
CREATE OR REPLACE FUNCTION ST_ExactCompositeLabel(composite exactgpu_composite, unit text DEFAULT 'g/t')
	RETURNS text
	LANGUAGE sql IMMUTABLE PARALLEL SAFE
	SET search_path = pg_catalog
	AS $$
	SELECT CASE WHEN ($1).grade IS NULL THEN NULL
	       ELSE format('%s m @ %s %s from %s m', round(($1).length_m::numeric, 1),
	                   round(($1).grade::numeric, 2), $2, round(($1).from_m::numeric, 1))
	            || CASE WHEN ($1).unsampled_m > 0
	                    THEN format(' (%s m sampled)', round(($1).sampled_m::numeric, 1)) ELSE '' END
	            || CASE WHEN ($1).overlap_m > 0
	                    THEN format(' (%s m of overlapping assays)', round(($1).overlap_m::numeric, 1)) ELSE '' END
	       END
$$;

COMMENT ON TYPE exactgpu_composite IS
'A composite over one intercept: the intercept (from_m, to_m, length_m), the length covered by assays (sampled_m) and by none (unsampled_m), the exact length-weighted grade, the midpoint-rule length and grade for comparison, the assay intervals counted, and the core covered more than once (overlap_m, 0 unless overlaps are flagged)';
COMMENT ON FUNCTION exactgpu_composite_trans(internal, float8, float8, float8, float8, float8, text) IS
'Transition function of ST_ExactComposite with its overlaps option';
COMMENT ON AGGREGATE ST_ExactComposite(float8, float8, float8, float8, float8) IS
'Length-weighted grade of assay intervals (assay_from, assay_to, grade) over one intercept (from_m, to_m): an interval cut by the intercept counts exactly its inside part; sums exact, grade rounded once; sampled_m and unsampled_m say how much core was assayed; midpoint rule beside it. Overlapping or duplicate assay intervals are ERROR 22023 naming two of them (see the six-argument form)';
COMMENT ON AGGREGATE ST_ExactComposite(float8, float8, float8, float8, float8, text) IS
'ST_ExactComposite with overlaps = ''error'' (refuse overlapping or duplicate assay intervals, naming two) or ''flag'' (return the composite, with the core counted more than once in overlap_m and the grade weighted by every interval as given)';
COMMENT ON FUNCTION ST_ExactCompositeLabel(exactgpu_composite, text) IS
'The line geologists read: "10.9 m @ 5.07 g/t from 134.4 m", with "(9.5 m sampled)" when part of the intercept is unsampled and the overlapping length when overlaps were flagged';
COMMENT ON FUNCTION ST_ExactLocate3D(geometry, geometry) IS
	'Where a point is relative to a closed surface (container first): inside, outside or boundary, exactly. ERROR 22023, with the reason, unless the body has a well-defined inside: faces with Z, closed, no overlapping shells (orientation does not matter; shells touching face to face are fine).';
COMMENT ON FUNCTION ST_ExactIntersectsSolid3D(geometry, geometry) IS
	'Does geom meet the closed volume of the closed surface solid (inside or on)? Container first; the PostGIS solid flag plays no part. ERROR 22023, with the reason, unless solid has a well-defined inside (faces with Z, closed, no overlapping shells).';
COMMENT ON FUNCTION ST_ExactVolume(geometry) IS
	'The volume a valid solid (closed, 2-manifold, consistently oriented, not self-intersecting, outward TIN or POLYHEDRALSURFACE) encloses, computed exactly and rounded once; never negative. Anything else is ERROR 22023 with ST_ExactIsValidSolidReason''s reason (inside out: repaired by ST_ExactForceOutward).';
COMMENT ON FUNCTION ST_ExactIsValidSolid(geometry) IS
	'Does the surface bound a valid solid: faces with Z, none degenerate, closed, 2-manifold edges, consistently oriented, not self-intersecting, outward (exact signed volume)? What every volume function requires.';
COMMENT ON FUNCTION ST_ExactIntercepts3D(geometry, geometry) IS
'Depth intervals (from_m, to_m) where a LINESTRING hole (or a MULTILINESTRING whose parts join end to start) lies in the body (with a well-defined inside: closed, no overlapping shells), inside or on it; depths are the hole''s M (measured depth) when it has M, else the 3D length from its first vertex; contacts exact, each depth rounded once; a touch is a zero-length interval';
COMMENT ON FUNCTION ST_ExactInterceptPieces3D(geometry, geometry) IS
'Intercepts of a hole in a body (closed, no overlapping shells) with entry and exit points (POINT Z), contact kinds (start, end, face, edge, vertex), kind (through, along, grazing) and the piece inside (LINESTRING ZM, M = depth); the three geometries carry the hole''s SRID; depths from M when the hole has it. For typed columns (GDAL, QGIS) cast in a view: entry_point::geometry(PointZ, srid), piece::geometry(LineStringZM, srid)';
COMMENT ON FUNCTION ST_ExactIntercepts3DJoin(text, text) IS
'Batch intercepts (hole_id, solid_id, from_m, to_m) of every hole that meets or lies in a body; inner queries return (id integer or bigint, geometry), read by position; bodies are volumes and must be closed without overlapping shells; depths from M when a hole has it';
COMMENT ON FUNCTION ST_ExactInterceptPieces3DJoin(text, text) IS
'Batch form of ST_ExactInterceptPieces3D: (hole_id, body_id) and every intercept with its points, contact kinds and piece; bodies must be closed without overlapping shells; depths from M when a hole has it';

-- ---- the GPU service ----

CREATE FUNCTION exactgpu_gpu_service_stats(
	OUT running boolean, OUT pid integer, OUT starts integer, OUT state text,
	OUT gpus integer, OUT lanes integer, OUT joins_served bigint, OUT joins_failed bigint,
	OUT joins_cancelled bigint, OUT queued integer, OUT running_joins integer,
	OUT setup_ms float8)
	AS 'MODULE_PATHNAME', 'exactgpu_gpu_service_stats'
	LANGUAGE C VOLATILE PARALLEL SAFE;
CREATE VIEW exactgpu_gpu_service AS SELECT * FROM exactgpu_gpu_service_stats();
CREATE FUNCTION exactgpu_gpu_service_devices(
	OUT device integer, OUT name text, OUT pool_in_use_bytes bigint,
	OUT pool_reserved_bytes bigint, OUT free_bytes bigint, OUT joins bigint,
	OUT kept_bytes bigint, OUT keep_hits bigint, OUT keep_misses bigint,
	OUT keep_bytes_saved bigint, OUT keep_evictions bigint,
	OUT kept_prepared_bytes bigint, OUT prepared_made bigint, OUT prepared_reused bigint,
	OUT pool_cached_bytes bigint)
	RETURNS SETOF record
	AS 'MODULE_PATHNAME', 'exactgpu_gpu_service_devices'
	LANGUAGE C VOLATILE PARALLEL SAFE;
COMMENT ON FUNCTION exactgpu_gpu_service_stats() IS
'The GPU service (exactgpu.gpu_service, needs shared_preload_libraries): whether it serves, its pid, how many times it started since the server did, its state, GPUs and lanes, joins served, failed and cancelled, joins queued and running now, and what setting its GPUs up cost at its start';
COMMENT ON VIEW exactgpu_gpu_service IS
'One row: the GPU service that runs every backend''s GPU joins (exactgpu_gpu_service_stats())';
COMMENT ON FUNCTION exactgpu_gpu_service_devices() IS
'A row per GPU the service owns: its name, the device memory its pool holds for live joins and keeps for reuse, the memory free on it, the joins it ran, and the device copies of resident bodies kept there (bytes, uploads they served and did not, bytes not uploaded thanks to them, evictions); of the bytes kept, those the joins prepared from the bodies and keep with them (classified primitives, exact boxes, the box join''s grid), and how many such blocks were made and reused; and of the pool''s memory, the small blocks the service''s threads keep for their next joins (free for any join, given back when an allocation fails)';
-- ---- Ids of any type and invalid rows in the batch functions (issue 30) ----

-- Every batch function has a form whose last two arguments are values of the
-- ids' types, usually NULLs (NULL::text, NULL::uuid, NULL::integer, ...), and
-- whose first two result columns left_key / right_key have those types: the
-- idiom of jsonb_populate_record(NULL::t, ...), the way PostgreSQL gives a
-- function's result the caller's type. Typed keys join back to the user's
-- tables without casts (and through their indexes), psycopg2 hands them over
-- as the Python values of their types, and the names left_key / right_key do
-- not collide with the users' own hole_id, body_id. The inner queries return
-- (id, geom) with ids of any type with hash equality.
CREATE FUNCTION ST_ExactIntersects3DJoin(left_sql text, right_sql text,
	left_key_type anyelement, right_key_type anycompatible)
	RETURNS TABLE (left_key anyelement, right_key anycompatible)
	AS 'MODULE_PATHNAME', 'exactgpu_join3d_sql'
	LANGUAGE C VOLATILE PARALLEL RESTRICTED
	ROWS 1000;
CREATE FUNCTION ST_ExactIntersectsJoin(left_sql text, right_sql text,
	left_key_type anyelement, right_key_type anycompatible)
	RETURNS TABLE (left_key anyelement, right_key anycompatible)
	AS 'MODULE_PATHNAME', 'exactgpu_join2d_sql'
	LANGUAGE C VOLATILE PARALLEL RESTRICTED
	ROWS 1000;
CREATE FUNCTION ST_ExactIntersectsSolid3DJoin(solids_sql text, geoms_sql text,
	left_key_type anyelement, right_key_type anycompatible)
	RETURNS TABLE (left_key anyelement, right_key anycompatible)
	AS 'MODULE_PATHNAME', 'exactgpu_join3d_volume_sql'
	LANGUAGE C VOLATILE PARALLEL RESTRICTED
	ROWS 1000;
CREATE FUNCTION ST_ExactLocate3DJoin(points_sql text, solids_sql text,
	left_key_type anyelement, right_key_type anycompatible)
	RETURNS TABLE (left_key anyelement, right_key anycompatible)
	AS 'MODULE_PATHNAME', 'exactgpu_locate3d_sql'
	LANGUAGE C VOLATILE PARALLEL RESTRICTED
	ROWS 1000;
CREATE FUNCTION ST_BoxJoin(left_sql text, right_sql text,
	left_key_type anyelement, right_key_type anycompatible)
	RETURNS TABLE (left_key anyelement, right_key anycompatible)
	AS 'MODULE_PATHNAME', 'exactgpu_boxjoin2d_sql'
	LANGUAGE C VOLATILE PARALLEL RESTRICTED
	ROWS 1000;
CREATE FUNCTION ST_3DBoxJoin(left_sql text, right_sql text,
	left_key_type anyelement, right_key_type anycompatible)
	RETURNS TABLE (left_key anyelement, right_key anycompatible)
	AS 'MODULE_PATHNAME', 'exactgpu_boxjoin3d_sql'
	LANGUAGE C VOLATILE PARALLEL RESTRICTED
	ROWS 1000;
CREATE FUNCTION ST_ExactIntercepts3DJoin(holes_sql text, solids_sql text,
	left_key_type anyelement, right_key_type anycompatible)
	RETURNS TABLE (left_key anyelement, right_key anycompatible, from_m float8, to_m float8)
	AS 'MODULE_PATHNAME', 'exactgpu_intercepts3d_join_sql'
	LANGUAGE C VOLATILE PARALLEL RESTRICTED
	ROWS 1000;
CREATE FUNCTION ST_ExactInterceptPieces3DJoin(holes_sql text, bodies_sql text,
	left_key_type anyelement, right_key_type anycompatible)
	RETURNS TABLE (left_key anyelement, right_key anycompatible, from_m float8, to_m float8,
		length_m float8, kind text, entry_contact text, exit_contact text,
		entry_point geometry, exit_point geometry, piece geometry)
	AS 'MODULE_PATHNAME', 'exactgpu_intercept_pieces3d_join_sql'
	LANGUAGE C VOLATILE PARALLEL RESTRICTED
	ROWS 1000;

-- The same over exactgpu_batch values.
CREATE FUNCTION ST_ExactIntersects3DJoin(left_batch exactgpu_batch, right_batch exactgpu_batch,
	left_key_type anyelement, right_key_type anycompatible)
	RETURNS TABLE (left_key anyelement, right_key anycompatible)
	AS 'MODULE_PATHNAME', 'exactgpu_join3d_batch'
	LANGUAGE C IMMUTABLE PARALLEL SAFE
	ROWS 1000;
CREATE FUNCTION ST_ExactIntersectsJoin(left_batch exactgpu_batch, right_batch exactgpu_batch,
	left_key_type anyelement, right_key_type anycompatible)
	RETURNS TABLE (left_key anyelement, right_key anycompatible)
	AS 'MODULE_PATHNAME', 'exactgpu_join2d_batch'
	LANGUAGE C IMMUTABLE PARALLEL SAFE
	ROWS 1000;
CREATE FUNCTION ST_ExactIntersectsSolid3DJoin(solids exactgpu_batch, geoms exactgpu_batch,
	left_key_type anyelement, right_key_type anycompatible)
	RETURNS TABLE (left_key anyelement, right_key anycompatible)
	AS 'MODULE_PATHNAME', 'exactgpu_join3d_volume_batch'
	LANGUAGE C IMMUTABLE PARALLEL SAFE
	ROWS 1000;
CREATE FUNCTION ST_ExactLocate3DJoin(points exactgpu_batch, solids exactgpu_batch,
	left_key_type anyelement, right_key_type anycompatible)
	RETURNS TABLE (left_key anyelement, right_key anycompatible)
	AS 'MODULE_PATHNAME', 'exactgpu_locate3d_batch'
	LANGUAGE C IMMUTABLE PARALLEL SAFE
	ROWS 1000;
CREATE FUNCTION ST_BoxJoin(left_batch exactgpu_batch, right_batch exactgpu_batch,
	left_key_type anyelement, right_key_type anycompatible)
	RETURNS TABLE (left_key anyelement, right_key anycompatible)
	AS 'MODULE_PATHNAME', 'exactgpu_boxjoin2d_batch'
	LANGUAGE C IMMUTABLE PARALLEL SAFE
	ROWS 1000;
CREATE FUNCTION ST_3DBoxJoin(left_batch exactgpu_batch, right_batch exactgpu_batch,
	left_key_type anyelement, right_key_type anycompatible)
	RETURNS TABLE (left_key anyelement, right_key anycompatible)
	AS 'MODULE_PATHNAME', 'exactgpu_boxjoin3d_batch'
	LANGUAGE C IMMUTABLE PARALLEL SAFE
	ROWS 1000;
CREATE FUNCTION ST_ExactIntercepts3DJoin(holes exactgpu_batch, solids exactgpu_batch,
	left_key_type anyelement, right_key_type anycompatible)
	RETURNS TABLE (left_key anyelement, right_key anycompatible, from_m float8, to_m float8)
	AS 'MODULE_PATHNAME', 'exactgpu_intercepts3d_join_batch'
	LANGUAGE C IMMUTABLE PARALLEL SAFE
	ROWS 1000;
CREATE FUNCTION ST_ExactInterceptPieces3DJoin(holes exactgpu_batch, bodies exactgpu_batch,
	left_key_type anyelement, right_key_type anycompatible)
	RETURNS TABLE (left_key anyelement, right_key anycompatible, from_m float8, to_m float8,
		length_m float8, kind text, entry_contact text, exit_contact text,
		entry_point geometry, exit_point geometry, piece geometry)
	AS 'MODULE_PATHNAME', 'exactgpu_intercept_pieces3d_join_batch'
	LANGUAGE C IMMUTABLE PARALLEL SAFE
	ROWS 1000;

-- ST_ExactBatch with text and uuid ids: a batch that keeps its ids' type
-- (stored in a second version of the value; batches of bigint ids are
-- stored as before).
CREATE FUNCTION exactgpu_batch_accum(internal, text, geometry) RETURNS internal
	AS 'MODULE_PATHNAME', 'exactgpu_batch_accum_key' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE FUNCTION exactgpu_batch_accum(internal, uuid, geometry) RETURNS internal
	AS 'MODULE_PATHNAME', 'exactgpu_batch_accum_key' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE AGGREGATE ST_ExactBatch(id text, geom geometry) (
	SFUNC = exactgpu_batch_accum,
	STYPE = internal,
	FINALFUNC = exactgpu_batch_final,
	COMBINEFUNC = exactgpu_batch_combine,
	SERIALFUNC = exactgpu_batch_serialize,
	DESERIALFUNC = exactgpu_batch_deserialize,
	PARALLEL = SAFE
);
CREATE AGGREGATE ST_ExactBatch(id uuid, geom geometry) (
	SFUNC = exactgpu_batch_accum,
	STYPE = internal,
	FINALFUNC = exactgpu_batch_final,
	COMBINEFUNC = exactgpu_batch_combine,
	SERIALFUNC = exactgpu_batch_serialize,
	DESERIALFUNC = exactgpu_batch_deserialize,
	PARALLEL = SAFE
);

-- exactgpu.invalid_rows = 'skip': the rows the last batch join of this
-- backend left out, by side, with their ids (as text) and why.
CREATE FUNCTION exactgpu_last_join_skipped(OUT side text, OUT id text, OUT reason text)
	RETURNS SETOF record
	AS 'MODULE_PATHNAME', 'exactgpu_last_join_skipped'
	LANGUAGE C VOLATILE STRICT PARALLEL RESTRICTED
	ROWS 10;

COMMENT ON FUNCTION ST_ExactIntersects3DJoin(text, text, anyelement, anycompatible) IS
	'ST_ExactIntersects3DJoin with ids of any type: (left_key, right_key) typed as the last two arguments (e.g. NULL::text, NULL::uuid), for every intersecting pair.';
COMMENT ON FUNCTION ST_ExactIntersectsJoin(text, text, anyelement, anycompatible) IS
	'ST_ExactIntersectsJoin with ids of any type: (left_key, right_key) typed as the last two arguments.';
COMMENT ON FUNCTION ST_ExactIntersectsSolid3DJoin(text, text, anyelement, anycompatible) IS
	'ST_ExactIntersectsSolid3DJoin with ids of any type: (left_key, right_key) = (solid, geometry), typed as the last two arguments.';
COMMENT ON FUNCTION ST_ExactLocate3DJoin(text, text, anyelement, anycompatible) IS
	'Deprecated (points first): ST_ExactLocate3DJoin with ids of any type, (left_key, right_key) = (point, solid) typed as the last two arguments.';
COMMENT ON FUNCTION ST_BoxJoin(text, text, anyelement, anycompatible) IS
	'ST_BoxJoin with ids of any type: (left_key, right_key) typed as the last two arguments.';
COMMENT ON FUNCTION ST_3DBoxJoin(text, text, anyelement, anycompatible) IS
	'ST_3DBoxJoin with ids of any type: (left_key, right_key) typed as the last two arguments.';
COMMENT ON FUNCTION ST_ExactIntercepts3DJoin(text, text, anyelement, anycompatible) IS
	'ST_ExactIntercepts3DJoin with ids of any type: (left_key, right_key) = (hole, body) typed as the last two arguments, then from_m, to_m.';
COMMENT ON FUNCTION ST_ExactInterceptPieces3DJoin(text, text, anyelement, anycompatible) IS
	'ST_ExactInterceptPieces3DJoin with ids of any type: (left_key, right_key) = (hole, body) typed as the last two arguments, then the pieces.';
COMMENT ON FUNCTION ST_ExactIntersects3DJoin(exactgpu_batch, exactgpu_batch, anyelement, anycompatible) IS
	'ST_ExactIntersects3DJoin over exactgpu_batch values with ids of any type: (left_key, right_key) typed as the last two arguments.';
COMMENT ON FUNCTION ST_ExactIntersectsJoin(exactgpu_batch, exactgpu_batch, anyelement, anycompatible) IS
	'ST_ExactIntersectsJoin over exactgpu_batch values with ids of any type: (left_key, right_key) typed as the last two arguments.';
COMMENT ON FUNCTION ST_ExactIntersectsSolid3DJoin(exactgpu_batch, exactgpu_batch, anyelement, anycompatible) IS
	'ST_ExactIntersectsSolid3DJoin over exactgpu_batch values with ids of any type: (left_key, right_key) = (solid, geometry).';
COMMENT ON FUNCTION ST_ExactLocate3DJoin(exactgpu_batch, exactgpu_batch, anyelement, anycompatible) IS
	'Deprecated (points first): ST_ExactLocate3DJoin over exactgpu_batch values with ids of any type.';
COMMENT ON FUNCTION ST_BoxJoin(exactgpu_batch, exactgpu_batch, anyelement, anycompatible) IS
	'ST_BoxJoin over exactgpu_batch values with ids of any type: (left_key, right_key) typed as the last two arguments.';
COMMENT ON FUNCTION ST_3DBoxJoin(exactgpu_batch, exactgpu_batch, anyelement, anycompatible) IS
	'ST_3DBoxJoin over exactgpu_batch values with ids of any type: (left_key, right_key) typed as the last two arguments.';
COMMENT ON FUNCTION ST_ExactIntercepts3DJoin(exactgpu_batch, exactgpu_batch, anyelement, anycompatible) IS
	'ST_ExactIntercepts3DJoin over exactgpu_batch values with ids of any type: (left_key, right_key) = (hole, body), then from_m, to_m.';
COMMENT ON FUNCTION ST_ExactInterceptPieces3DJoin(exactgpu_batch, exactgpu_batch, anyelement, anycompatible) IS
	'ST_ExactInterceptPieces3DJoin over exactgpu_batch values with ids of any type: (left_key, right_key) = (hole, body), then the pieces.';
COMMENT ON FUNCTION exactgpu_batch_accum(internal, text, geometry) IS
	'Transition function of ST_ExactBatch with text ids.';
COMMENT ON FUNCTION exactgpu_batch_accum(internal, uuid, geometry) IS
	'Transition function of ST_ExactBatch with uuid ids.';
COMMENT ON AGGREGATE ST_ExactBatch(text, geometry) IS
	'Pack (id, geometry) rows with text ids into an exactgpu_batch; join it with the forms that take the ids'' types (NULL::text).';
COMMENT ON AGGREGATE ST_ExactBatch(uuid, geometry) IS
	'Pack (id, geometry) rows with uuid ids into an exactgpu_batch; join it with the forms that take the ids'' types (NULL::uuid).';
COMMENT ON FUNCTION exactgpu_last_join_skipped() IS
	'The rows the last batch join of this backend left out under exactgpu.invalid_rows = ''skip'': side, id (as text; NULL for a NULL id) and the reason.';
