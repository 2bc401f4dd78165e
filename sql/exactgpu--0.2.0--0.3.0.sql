-- exactgpu 0.2.0 -> 0.3.0. Every SQL change made to sql/exactgpu.sql after
-- 0.2.0 is repeated here, so that ALTER EXTENSION exactgpu UPDATE gives the
-- same catalog as a fresh install (checked by the regress test `upgrade`,
-- from 0.1.0 and from 0.2.0). sql/exactgpu--0.2.0.sql is 0.2.0 as shipped.
\echo Use "ALTER EXTENSION exactgpu UPDATE TO '0.3.0'" to load this file. \quit

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

-- ---- geosolid: valid solids, composites that show unsampled core, intercept depths from M (issue 30) ----
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

-- ---- Resident geometry: what a join borrowed, verdicts kept beside their bodies (issue 27) ----
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
DROP VIEW exactgpu_resident;
DROP FUNCTION exactgpu_resident_stats();
CREATE FUNCTION exactgpu_resident_stats(
	OUT enabled boolean, OUT capacity_bytes bigint, OUT bytes bigint, OUT entries bigint,
	OUT hits bigint, OUT misses bigint, OUT inserts bigint, OUT evictions bigint,
	OUT not_kept bigint, OUT verdicts_kept bigint, OUT verdicts_found bigint)
	AS 'MODULE_PATHNAME', 'exactgpu_resident_stats_sql'
	LANGUAGE C VOLATILE STRICT PARALLEL SAFE;
CREATE VIEW exactgpu_resident AS SELECT * FROM exactgpu_resident_stats();
COMMENT ON FUNCTION exactgpu_resident_stats() IS
	'The resident store of prepared geometry (exactgpu.resident_memory): whether it is on in this session, its capacity and use, and its hits, misses, inserts, evictions and values it could not keep; the solid verdicts kept beside their bodies and found there by later queries.';
COMMENT ON VIEW exactgpu_resident IS
	'The resident store of prepared geometry, as exactgpu_resident_stats() reports it.';
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
	OUT keep_bytes_saved bigint, OUT keep_evictions bigint)
	RETURNS SETOF record
	AS 'MODULE_PATHNAME', 'exactgpu_gpu_service_devices'
	LANGUAGE C VOLATILE PARALLEL SAFE;
COMMENT ON FUNCTION exactgpu_gpu_service_stats() IS
'The GPU service (exactgpu.gpu_service, needs shared_preload_libraries): whether it serves, its pid, how many times it started since the server did, its state, GPUs and lanes, joins served, failed and cancelled, joins queued and running now, and what setting its GPUs up cost at its start';
COMMENT ON VIEW exactgpu_gpu_service IS
'One row: the GPU service that runs every backend''s GPU joins (exactgpu_gpu_service_stats())';
COMMENT ON FUNCTION exactgpu_gpu_service_devices() IS
'A row per GPU the service owns: its name, the device memory its pool holds for live joins and keeps for reuse, the memory free on it, the joins it ran, and the device copies of resident bodies kept there (bytes, uploads they served and did not, bytes not uploaded thanks to them, evictions)';
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

-- ---- the GPU service's view of the bodies kept prepared on its GPUs ----

DROP FUNCTION exactgpu_gpu_service_devices();
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
COMMENT ON FUNCTION exactgpu_gpu_service_devices() IS
'A row per GPU the service owns: its name, the device memory its pool holds for live joins and keeps for reuse, the memory free on it, the joins it ran, and the device copies of resident bodies kept there (bytes, uploads they served and did not, bytes not uploaded thanks to them, evictions); of the bytes kept, those the joins prepared from the bodies and keep with them (classified primitives, exact boxes, the box join''s grid), and how many such blocks were made and reused; and of the pool''s memory, the small blocks the service''s threads keep for their next joins (free for any join, given back when an allocation fails)';
