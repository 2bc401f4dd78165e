-- Mesh export (docs/meshes.md): TIN Z -> OBJ, ASCII PLY, binary PLY (little
-- and big endian), and back: ST_ExactMeshImport(ST_ExactMeshExport(g)) is g
-- byte for byte (compared as EWKB) over doubles of every kind: UTM
-- coordinates with 17 significant digits, -0, subnormals, the largest
-- double, and 2,000 random triangles. Shared corners are written once
-- (checked against a count of distinct corners by PostGIS's ST_DumpPoints).
SET extra_float_digits = 3;

CREATE TABLE mesh_out (name text, geom geometry);
INSERT INTO mesh_out VALUES
	('tetrahedron', 'TIN Z (((0 0 0,0 1 0,1 0 0,0 0 0)),((0 0 0,1 0 0,0 0 1,0 0 0)),((0 0 0,0 0 1,0 1 0,0 0 0)),((1 0 0,0 1 0,0 0 1,1 0 0)))'),
	('utm', 'TIN Z (((500389.2469820779 7000575.499621968 -424.60435336166586,500417.7231933731 7000623.972181639 -382.68576216056556,500437.7195417484 7000547.023410672 -421.60435336166586,500389.2469820779 7000575.499621968 -424.60435336166586)),((500389.2469820779 7000575.499621968 -424.60435336166586,500437.7195417484 7000547.023410672 -421.60435336166586,500400.1 7000500.3 -400.7,500389.2469820779 7000575.499621968 -424.60435336166586)))'),
	('extremes', 'TIN Z (((-0 0 1.7976931348623157e308,4.9406564584124654e-324 -2.2250738585072014e-308 0.1,0.30000000000000004 1e-300 -1e300,-0 0 1.7976931348623157e308)))'),
	('triangulated surface', 'POLYHEDRALSURFACE Z (((0 0 0,0 1 0,1 0 0,0 0 0)),((0 0 0,1 0 0,0 0 1,0 0 0)))'),
	('empty', 'TIN Z EMPTY');
SELECT setseed(0.25);
INSERT INTO mesh_out
SELECT 'random', ('TIN Z (' || string_agg(format('((%s %s %s,%s %s %s,%s %s %s,%s %s %s))', x1, y1, z1, x2, y2, z2, x3, y3, z3, x1, y1, z1), ',') || ')')::geometry
FROM (SELECT 500000 + random() * 1000 AS x1, 7000000 + random() * 1000 AS y1, -random() * 500 AS z1,
             500000 + random() * 1000 AS x2, 7000000 + random() * 1000 AS y2, -random() * 500 AS z2,
             500000 + random() * 1000 AS x3, 7000000 + random() * 1000 AS y3, -random() * 500 AS z3
      FROM generate_series(1, 2000)) t;

-- The small body as written: 4 corners once each, 1-based faces; as PLY, 0-based.
SELECT ST_ExactMeshExport(geom) FROM mesh_out WHERE name = 'tetrahedron';
SELECT ST_ExactMeshExport(geom, 'ply') FROM mesh_out WHERE name = 'tetrahedron';
SELECT ST_ExactMeshExport(geom) FROM mesh_out WHERE name = 'extremes';

-- Round trips, byte for byte (a POLYHEDRALSURFACE of triangles comes back as
-- the TIN of the same triangles).
SELECT o.name, f.format,
       ST_AsEWKB(CASE f.kind WHEN 'text' THEN ST_ExactMeshImport(ST_ExactMeshExport(o.geom, f.format), f.format)
                               ELSE ST_ExactMeshImport(ST_ExactMeshExportBinary(o.geom, f.format), 'ply') END)
       = ST_AsEWKB(CASE WHEN ST_GeometryType(o.geom) = 'ST_PolyhedralSurface'
                        THEN ('TIN Z ' || substring(ST_AsText(o.geom) FROM '\(.*$'))::geometry ELSE o.geom END) AS same_bits
FROM mesh_out o,
     (VALUES ('obj', 'text'), ('ply', 'text'), ('ply', 'binary'), ('ply_le', 'binary'), ('ply_be', 'binary')) f(format, kind)
ORDER BY o.name, f.format, f.kind;

-- Corners welded: one "v" line per distinct corner, one "f" line per triangle.
SELECT o.name, regexp_count(ST_ExactMeshExport(o.geom), '^v ', 1, 'n') AS v_lines,
       (SELECT count(DISTINCT (ST_X(d.geom), ST_Y(d.geom), ST_Z(d.geom))) FROM ST_DumpPoints(o.geom) d) AS distinct_corners,
       regexp_count(ST_ExactMeshExport(o.geom), '^f ', 1, 'n') AS f_lines, ST_NumGeometries(o.geom) AS triangles
FROM mesh_out o WHERE name IN ('tetrahedron', 'utm', 'random') ORDER BY o.name;

-- Binary PLY: header, then 8 bytes a coordinate and 13 a triangle.
SELECT f, length(b) - position(convert_to(E'end_header\n', 'UTF8') IN b) - 10 AS data_bytes, 4 * 3 * 8 + 4 * 13 AS expected,
       convert_from(substring(b FROM 1 FOR position(convert_to(E'end_header\n', 'UTF8') IN b) + 10), 'UTF8') AS header
FROM (SELECT f, ST_ExactMeshExportBinary(geom, f) AS b FROM mesh_out, unnest(ARRAY['ply', 'ply_be']) f WHERE name = 'tetrahedron') s
ORDER BY f;
-- The big-endian file's first x is float8send's big-endian bytes of 0; its last
-- index int4send's of 3 (the last face, 1-based f 3 2 4 above, is 2 1 3).
SELECT substring(b FROM position(convert_to(E'end_header\n', 'UTF8') IN b) + 11 FOR 8) = float8send(0) AS first_x,
       substring(b FROM length(b) - 3) = int4send(3) AS last_index
FROM (SELECT ST_ExactMeshExportBinary(geom, 'ply_be') AS b FROM mesh_out WHERE name = 'tetrahedron') s;

-- The exported body still bounds its solid: the same volume read back.
SELECT ST_ExactVolume(ST_ExactMeshImport(ST_ExactMeshExport(geom), 'obj')) = ST_ExactVolume(geom) AS same_volume
FROM mesh_out WHERE name = 'tetrahedron';

-- ---- errors ----
\set VERBOSITY default
SELECT ST_ExactMeshExport('TIN (((0 0,0 1,1 0,0 0)))');
SELECT ST_ExactMeshExport('POLYHEDRALSURFACE Z (((0 0 0,0 1 0,1 1 0,1 0 0,0 0 0)))');
SELECT ST_ExactMeshExport('LINESTRING Z (0 0 0,1 1 1)');
SELECT ST_ExactMeshExport(geom, 'stl') FROM mesh_out WHERE name = 'tetrahedron';
SELECT ST_ExactMeshExportBinary(geom, 'obj') FROM mesh_out WHERE name = 'tetrahedron';

DROP TABLE mesh_out;
