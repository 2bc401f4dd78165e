-- exactgpu 0.1.0 -> 0.2.0. Every SQL change made to sql/exactgpu.sql after
-- 0.1.0 is repeated here, so that ALTER EXTENSION exactgpu UPDATE gives the
-- same catalog as a fresh install (checked by the regress test `upgrade`).
\echo Use "ALTER EXTENSION exactgpu UPDATE TO '0.2.0'" to load this file. \quit

-- ---- Reliability and security (issue 16) ----

-- exactgpu_batch gets a real text form (the C input function now reads what
-- the output prints) and a binary form: batches survive pg_dump / pg_restore.
CREATE FUNCTION exactgpu_batch_recv(internal) RETURNS exactgpu_batch
	AS 'MODULE_PATHNAME', 'exactgpu_batch_recv' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION exactgpu_batch_send(exactgpu_batch) RETURNS bytea
	AS 'MODULE_PATHNAME', 'exactgpu_batch_send' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
ALTER TYPE exactgpu_batch SET (RECEIVE = exactgpu_batch_recv, SEND = exactgpu_batch_send);
COMMENT ON FUNCTION exactgpu_batch_recv(internal) IS
	'Binary input of exactgpu_batch: a row count, then per row the id and the geometry as EWKB.';
COMMENT ON FUNCTION exactgpu_batch_send(exactgpu_batch) IS
	'Binary output of exactgpu_batch: a row count, then per row the id and the geometry as EWKB.';

-- Batch intercepts: for every hole that meets a body or starts inside it
-- (bodies are volumes here, flagged solid or not), the along-hole intervals
-- inside the body. holes_sql / solids_sql yield (id bigint, geom geometry);
-- holes are LINESTRINGs, bodies closed surfaces.
-- Pinned search_path (pg_catalog first, then the extension's schema) and
-- qualified names: a function or operator that another role plants in a
-- schema of the caller's search_path never runs here. The inner queries run
-- under that path too: name tables outside the extension's schema with
-- their schema.
CREATE OR REPLACE FUNCTION ST_ExactIntercepts3DJoin(holes_sql text, solids_sql text)
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
