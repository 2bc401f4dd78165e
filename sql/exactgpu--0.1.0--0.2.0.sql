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
