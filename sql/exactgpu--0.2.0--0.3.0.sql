-- exactgpu 0.2.0 -> 0.3.0. Every SQL change made to sql/exactgpu.sql after
-- 0.2.0 is repeated here, so that ALTER EXTENSION exactgpu UPDATE gives the
-- same catalog as a fresh install (checked by the regress test `upgrade`,
-- from 0.1.0 and from 0.2.0). sql/exactgpu--0.2.0.sql is 0.2.0 as shipped.
\echo Use "ALTER EXTENSION exactgpu UPDATE TO '0.3.0'" to load this file. \quit

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
