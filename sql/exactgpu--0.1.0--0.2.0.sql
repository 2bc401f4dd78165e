-- exactgpu 0.1.0 -> 0.2.0. Every SQL change made to sql/exactgpu.sql after
-- 0.1.0 is repeated here, so that ALTER EXTENSION exactgpu UPDATE gives the
-- same catalog as a fresh install (checked by the regress test `upgrade`).
\echo Use "ALTER EXTENSION exactgpu UPDATE TO '0.2.0'" to load this file. \quit

-- Parallel read of the batch joins' inputs (issue 14): exactgpu_last_join_stats
-- reports how the rows were read (read_path, read_workers).
DROP FUNCTION exactgpu_last_join_stats();
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

-- ---------------------------------------------------------------------------
-- Intercepts and composites (issue 18): ST_ExactIntercepts3DJoin(text, text)
-- becomes a C function (same signature), the rest is new.
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
CREATE OR REPLACE FUNCTION ST_ExactIntercepts3DJoin(holes_sql text, solids_sql text)
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
