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
-- planar POLYGON faces); 2D inputs have z = 0.
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
	OUT read_workers integer)
	RETURNS record
	AS 'MODULE_PATHNAME', 'exactgpu_last_join_stats'
	LANGUAGE C VOLATILE PARALLEL RESTRICTED;
COMMENT ON FUNCTION exactgpu_last_join_stats() IS
	'The last batch join of this backend: device, sizes, filter counts, phase times; read_path says whether out-of-line geometries were flattened by parallel workers (parallel) or by this backend (serial), read_workers how many workers took part';

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

-- Batch intercepts: for every hole that meets a body or starts inside it
-- (bodies are volumes here, flagged solid or not), the along-hole intervals
-- inside the body. holes_sql / solids_sql yield (id bigint, geom geometry);
-- holes are LINESTRINGs, bodies closed surfaces.
-- Pinned search_path (pg_catalog first, then the extension's schema) and
-- qualified names: a function or operator that another role plants in a
-- schema of the caller's search_path never runs here. The inner queries run
-- under that path too: name tables outside the extension's schema with
-- their schema.
CREATE FUNCTION ST_ExactIntercepts3DJoin(holes_sql text, solids_sql text)
	RETURNS TABLE (hole_id bigint, solid_id bigint, from_m float8, to_m float8)
	LANGUAGE plpgsql VOLATILE STRICT PARALLEL RESTRICTED
	SET search_path = pg_catalog, @extschema@
	ROWS 1000
	AS $$
DECLARE
	postgis text := (SELECT n.nspname FROM pg_catalog.pg_extension e
	                 JOIN pg_catalog.pg_namespace n ON n.oid OPERATOR(pg_catalog.=) e.extnamespace
	                 WHERE e.extname OPERATOR(pg_catalog.=) 'postgis');
	exg text := (SELECT n.nspname FROM pg_catalog.pg_extension e
	             JOIN pg_catalog.pg_namespace n ON n.oid OPERATOR(pg_catalog.=) e.extnamespace
	             WHERE e.extname OPERATOR(pg_catalog.=) 'exactgpu');
	collars text := pg_catalog.format('SELECT id, %I.ST_StartPoint(geom) FROM (%s) AS holes',
	                                  postgis, holes_sql);
BEGIN
	RETURN QUERY EXECUTE pg_catalog.format(
		'WITH h AS MATERIALIZED (%s), s AS MATERIALIZED (%s),
		 pairs AS (SELECT left_id AS hid, right_id AS sid FROM %I.ST_ExactIntersects3DJoin(%L, %L)
		           UNION
		           SELECT point_id, solid_id FROM %I.ST_ExactLocate3DJoin(%L, %L))
		 SELECT p.hid, p.sid, i.from_m, i.to_m
		 FROM pairs p
		 JOIN h ON h.id OPERATOR(pg_catalog.=) p.hid
		 JOIN s ON s.id OPERATOR(pg_catalog.=) p.sid
		 CROSS JOIN LATERAL %I.ST_ExactIntercepts3D(h.geom, s.geom) i
		 ORDER BY 1, 2, 3',
		holes_sql, solids_sql, exg, holes_sql, solids_sql, exg, collars, solids_sql, exg);
END;
$$;

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
