-- exactgpu 0.2.0 -> 0.3.0. Every SQL change made to sql/exactgpu.sql after
-- 0.2.0 is repeated here, so that ALTER EXTENSION exactgpu UPDATE gives the
-- same catalog as a fresh install (checked by the regress test `upgrade`,
-- from 0.1.0 and from 0.2.0). sql/exactgpu--0.2.0.sql is 0.2.0 as shipped.
\echo Use "ALTER EXTENSION exactgpu UPDATE TO '0.3.0'" to load this file. \quit

-- ---- Resident geometry (issue 27): prepared bodies kept in shared memory ----
CREATE FUNCTION exactgpu_resident_stats(
	OUT enabled boolean, OUT capacity_bytes bigint, OUT bytes bigint, OUT entries bigint,
	OUT hits bigint, OUT misses bigint, OUT inserts bigint, OUT evictions bigint,
	OUT not_kept bigint)
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
	LANGUAGE plpgsql VOLATILE STRICT AS
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
	'The resident store of prepared geometry (exactgpu.resident_memory): whether it is on in this session, its capacity and use, and its hits, misses, inserts, evictions and values it could not keep.';
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
