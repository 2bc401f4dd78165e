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
