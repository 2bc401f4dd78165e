-- Mesh import (docs/meshes.md): OBJ, PLY (ASCII, binary little and big
-- endian), STL (ASCII, binary) and DXF 3DFACE files of one unit cube, and
-- vertex / triangle arrays, each read to a TIN Z that must be, byte for
-- byte, the reference TIN built here in SQL from the same corners and
-- faces by the documented quad rule ((a b c d) -> (a b c), (a c d)); the
-- binary files are built here byte by byte from float4send / float8send,
-- not by the exporter. Closedness against the cube's own counts (12
-- triangles, 8 corners, 18 edges), an open cube, bodies, precision,
-- errors naming the line.
SET extra_float_digits = 3;

CREATE TABLE mesh_corners (i int PRIMARY KEY, x float8, y float8, z float8);
INSERT INTO mesh_corners VALUES
	(1, 0, 0, 0), (2, 1, 0, 0), (3, 1, 1, 0), (4, 0, 1, 0),
	(5, 0, 0, 1), (6, 1, 0, 1), (7, 1, 1, 1), (8, 0, 1, 1);
-- the faces as quads, corners counter-clockwise seen from outside
CREATE TABLE mesh_quads (f int PRIMARY KEY, a int, b int, c int, d int);
INSERT INTO mesh_quads VALUES
	(1, 1, 4, 3, 2), (2, 5, 6, 7, 8), (3, 1, 2, 6, 5), (4, 2, 3, 7, 6), (5, 3, 4, 8, 7), (6, 4, 1, 5, 8);
-- the triangles of the documented rule, in file order
CREATE VIEW mesh_tris AS
	SELECT f, 1 AS h, a AS p, b AS q, c AS r FROM mesh_quads
	UNION ALL SELECT f, 2, a, c, d FROM mesh_quads;
CREATE FUNCTION pg_temp.pt(int) RETURNS text LANGUAGE sql AS
	$$ SELECT format('%s %s %s', x, y, z) FROM mesh_corners WHERE i = $1 $$;
CREATE TABLE mesh_ref AS
SELECT ('TIN Z (' || string_agg(format('((%s,%s,%s,%s))', pg_temp.pt(p), pg_temp.pt(q), pg_temp.pt(r), pg_temp.pt(p)),
                               ',' ORDER BY f, h) || ')')::geometry AS geom
FROM mesh_tris;
SELECT ST_AsText(geom) FROM mesh_ref;

-- ---- OBJ: comments, an object name, v/t/n corners, negative indices ----
CREATE TABLE mesh_files (format text, kind text, data bytea);
INSERT INTO mesh_files
SELECT 'obj', 'text', convert_to(
	E'# a unit cube\no cube\n' ||
	(SELECT string_agg(format('v %s %s %s', x, y, z), E'\n' ORDER BY i) FROM mesh_corners) ||
	E'\nvn 0 0 1\n' ||
	(SELECT string_agg(CASE f WHEN 4 THEN format('f %s/1 %s/2 %s/3 %s/4', a, b, c, d)
	                          WHEN 5 THEN format('f %s//1 %s//1 %s//1 %s//1', a, b, c, d)
	                          WHEN 6 THEN format('f %s %s %s %s   # negative: from the last vertex', a - 9, b - 9, c - 9, d - 9)
	                          ELSE format('f %s %s %s %s', a, b, c, d) END, E'\n' ORDER BY f) FROM mesh_quads) || E'\n', 'UTF8');

-- ---- PLY, ASCII, with a property more and CRLF line ends ----
INSERT INTO mesh_files
SELECT 'ply', 'ascii', convert_to(
	E'ply\r\nformat ascii 1.0\r\ncomment a unit cube\r\nelement vertex 8\r\nproperty float x\r\nproperty float y\r\nproperty float z\r\n'
	'property uchar red\r\nelement face 6\r\nproperty list uchar int vertex_indices\r\nend_header\r\n' ||
	(SELECT string_agg(format('%s %s %s 255', x, y, z), E'\r\n' ORDER BY i) FROM mesh_corners) || E'\r\n' ||
	(SELECT string_agg(format('4 %s %s %s %s', a - 1, b - 1, c - 1, d - 1), E'\r\n' ORDER BY f) FROM mesh_quads) || E'\r\n', 'UTF8');

-- ---- binary PLY, little and big endian, built byte by byte ----
-- float8send and int4send give big-endian bytes; little endian reverses them.
CREATE FUNCTION pg_temp.le(b bytea) RETURNS bytea LANGUAGE sql AS
	$$ SELECT decode(string_agg(lpad(to_hex(get_byte(b, i)), 2, '0'), '' ORDER BY i DESC), 'hex')
	   FROM generate_series(0, length(b) - 1) i $$;
CREATE FUNCTION pg_temp.ply_binary(little boolean) RETURNS bytea LANGUAGE sql AS $$
SELECT convert_to(format(E'ply\nformat %s 1.0\nelement vertex 8\nproperty double x\nproperty double y\nproperty double z\n'
                         'element face 6\nproperty list uchar uint vertex_indices\nend_header\n',
                         CASE WHEN little THEN 'binary_little_endian' ELSE 'binary_big_endian' END), 'UTF8')
    || (SELECT string_agg(CASE WHEN little THEN pg_temp.le(float8send(x)) || pg_temp.le(float8send(y)) || pg_temp.le(float8send(z))
                               ELSE float8send(x) || float8send(y) || float8send(z) END, ''::bytea ORDER BY i) FROM mesh_corners)
    || (SELECT string_agg('\x04'::bytea || (SELECT string_agg(CASE WHEN little THEN pg_temp.le(int4send(v - 1)) ELSE int4send(v - 1) END,
                                                               ''::bytea ORDER BY k)
                                           FROM unnest(ARRAY[a, b, c, d]) WITH ORDINALITY u(v, k)),
                          ''::bytea ORDER BY f) FROM mesh_quads)
$$;
INSERT INTO mesh_files VALUES ('ply', 'binary le', pg_temp.ply_binary(true)), ('ply', 'binary be', pg_temp.ply_binary(false));

-- ---- STL, ASCII: each triangle's corners by value ----
INSERT INTO mesh_files
SELECT 'stl', 'ascii', convert_to(E'solid cube\n' ||
	string_agg(format(E'  facet normal 0 0 0\n    outer loop\n      vertex %s\n      vertex %s\n      vertex %s\n    endloop\n  endfacet',
	                  pg_temp.pt(p), pg_temp.pt(q), pg_temp.pt(r)), E'\n' ORDER BY f, h) || E'\nendsolid cube\n', 'UTF8')
FROM mesh_tris;

-- ---- STL, binary: 80-byte header, count, 50 bytes a triangle (float4 little endian) ----
CREATE FUNCTION pg_temp.f4(float8) RETURNS bytea LANGUAGE sql AS $$ SELECT pg_temp.le(float4send($1::float4)) $$;
CREATE FUNCTION pg_temp.corner4(int) RETURNS bytea LANGUAGE sql AS
	$$ SELECT pg_temp.f4(x) || pg_temp.f4(y) || pg_temp.f4(z) FROM mesh_corners WHERE i = $1 $$;
INSERT INTO mesh_files
SELECT 'stl', 'binary', convert_to(rpad('solid written as binary', 80), 'UTF8') || pg_temp.le(int4send(count(*)::int)) ||
	string_agg(decode(repeat('00', 12), 'hex') || pg_temp.corner4(p) || pg_temp.corner4(q) || pg_temp.corner4(r) || '\x0000'::bytea,
	           ''::bytea ORDER BY f, h)
FROM mesh_tris;

-- ---- DXF: one 3DFACE per face on layer ORE, the top face a triangle pair
-- given as two 3DFACEs whose 4th corner repeats the 3rd ----
CREATE FUNCTION pg_temp.dxf_corner(k int, c int) RETURNS text LANGUAGE sql AS
	$$ SELECT format(E' 1%s\n%s\n 2%s\n%s\n 3%s\n%s\n', k, x, k, y, k, z) FROM mesh_corners WHERE i = c $$;
INSERT INTO mesh_files
SELECT 'dxf', 'text', convert_to(E'  0\nSECTION\n  2\nENTITIES\n' ||
	string_agg(CASE WHEN f = 2 THEN
	                E'  0\n3DFACE\n  8\nORE\n' || pg_temp.dxf_corner(0, a) || pg_temp.dxf_corner(1, b) || pg_temp.dxf_corner(2, c) || pg_temp.dxf_corner(3, c) ||
	                E'  0\n3DFACE\n  8\nORE\n' || pg_temp.dxf_corner(0, a) || pg_temp.dxf_corner(1, c) || pg_temp.dxf_corner(2, d) || pg_temp.dxf_corner(3, d)
	           ELSE E'  0\n3DFACE\n  8\nORE\n' || pg_temp.dxf_corner(0, a) || pg_temp.dxf_corner(1, b) || pg_temp.dxf_corner(2, c) || pg_temp.dxf_corner(3, d) END,
	           '' ORDER BY f) || E'  0\nENDSEC\n  0\nEOF\n', 'UTF8')
FROM mesh_quads;

-- Every file gives the reference TIN, byte for byte, and a valid solid of volume 1.
SELECT m.format, m.kind, length(m.data) AS bytes,
       ST_AsEWKB(ST_ExactMeshImport(m.data, m.format)) = ST_AsEWKB(r.geom) AS same_as_reference,
       ST_ExactVolume(ST_ExactMeshImport(m.data, m.format)) AS volume,
       ST_ExactIsValidSolid(ST_ExactMeshImport(m.data, m.format)) AS valid
FROM mesh_files m, mesh_ref r ORDER BY m.format, m.kind;
-- What the edges say: the cube has 12 triangles, 8 corners, 18 edges.
SELECT m.format, m.kind, (ST_ExactMeshInfo(ST_ExactMeshImport(m.data, m.format))).*
FROM mesh_files m ORDER BY m.format, m.kind;
-- The bodies: one per file (the OBJ's object "cube", the ASCII STL's solid, the DXF layer).
SELECT m.format, m.kind, b.body, b.name, b.triangles, b.vertices, b.edges, b.closed, b.boundary_edges,
       b.non_manifold_edges, b.misoriented_edges, b.degenerate_triangles, ST_AsEWKB(b.geom) = ST_AsEWKB(r.geom) AS same
FROM mesh_files m, mesh_ref r, ST_ExactMeshImportBodies(m.data, m.format) b ORDER BY m.format, m.kind, b.body;
-- The text form reads the same; the SRID is set.
SELECT ST_AsEWKB(ST_ExactMeshImport(convert_from(data, 'UTF8'), 'OBJ', 32632)) = ST_AsEWKB(ST_SetSRID(r.geom, 32632)) AS text_form,
       ST_SRID(ST_ExactMeshImport(data, 'obj', 32632)) AS srid
FROM mesh_files, mesh_ref r WHERE format = 'obj';

-- ---- the cube with its top face missing: not closed, 4 boundary edges ----
SELECT (ST_ExactMeshInfo(g)).*, ST_ExactIsValidSolidReason(g) LIKE 'not closed%' AS reason_not_closed
FROM (SELECT ST_ExactMeshImport(convert_to(
	(SELECT string_agg(format('v %s %s %s', x, y, z), E'\n' ORDER BY i) FROM mesh_corners) || E'\n' ||
	(SELECT string_agg(format('f %s %s %s %s', a, b, c, d), E'\n' ORDER BY f) FROM mesh_quads WHERE f <> 2), 'UTF8'), 'obj') AS g) s;
SELECT ST_ExactVolume(ST_ExactMeshImport(E'v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n', 'obj'));

-- ---- orientation is kept as given: one face turned (its 4 edges misoriented),
-- every face turned (inside out); ST_ExactForceOutward repairs both ----
CREATE FUNCTION pg_temp.cube_obj(flip int[]) RETURNS bytea LANGUAGE sql AS $$
SELECT convert_to((SELECT string_agg(format('v %s %s %s', x, y, z), E'\n' ORDER BY i) FROM mesh_corners) || E'\n' ||
	(SELECT string_agg(CASE WHEN f = ANY (flip) THEN format('f %s %s %s %s', d, c, b, a) ELSE format('f %s %s %s %s', a, b, c, d) END,
	                   E'\n' ORDER BY f) FROM mesh_quads), 'UTF8') $$;
SELECT which, (ST_ExactMeshInfo(g)).misoriented_edges, (ST_ExactMeshInfo(g)).closed, ST_ExactIsValidSolidReason(g),
       ST_ExactVolume(ST_ExactForceOutward(g)) AS volume_outward
FROM (VALUES ('one face turned', ST_ExactMeshImport(pg_temp.cube_obj('{3}'), 'obj')),
             ('inside out', ST_ExactMeshImport(pg_temp.cube_obj('{1,2,3,4,5,6}'), 'obj'))) v(which, g);

-- ---- bodies: OBJ groups (a group named again goes back to its body), STL solids, DXF layers ----
SELECT body, name, triangles, vertices, closed, boundary_edges, ST_AsText(geom)
FROM ST_ExactMeshImportBodies(E'v 0 0 0\nv 1 0 0\nv 0 1 0\nv 0 0 1\n'
	'g lens 1\nf 1 3 2\ng waste\nf 1 2 4\ng lens 1\nf 1 4 3\nf 2 3 4\n', 'obj', 2193);
SELECT body, name, triangles, closed
FROM ST_ExactMeshImportBodies(E'solid a\nfacet normal 0 0 0\nouter loop\nvertex 0 0 0\nvertex 1 0 0\nvertex 0 1 0\nendloop\nendfacet\nendsolid a\n'
	'solid b\nfacet normal 0 0 0\nouter loop\nvertex 5 0 0\nvertex 6 0 0\nvertex 5 1 0\nendloop\nendfacet\nendsolid b\n', 'stl');
-- faces before any o/g belong to an unnamed body (name NULL)
SELECT body, name IS NULL AS unnamed, triangles FROM ST_ExactMeshImportBodies(E'v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n', 'obj');

-- ---- faces of more than four corners: exactly planar and simple, triangulated
-- exactly: a hexagon in the plane x + y + z = 3 gives 4 triangles, its 6
-- sides on the boundary and 3 diagonals inside ----
SELECT (ST_ExactMeshInfo(g)).triangles, (ST_ExactMeshInfo(g)).boundary_edges, (ST_ExactMeshInfo(g)).edges
FROM (SELECT ST_ExactMeshImport(E'v 2 1 0\nv 1 2 0\nv 0 2 1\nv 0 1 2\nv 1 0 2\nv 2 0 1\nf 1 2 3 4 5 6\n', 'obj') g) s;
-- a non-planar pentagon is refused, naming its line
SELECT ST_ExactMeshImport(E'v 0 0 0\nv 1 0 0\nv 1 1 0.5\nv 0 1 0\nv 0 0.5 0\nf 1 2 3 4 5\n', 'obj');

-- ---- precision: decimals correctly rounded, every bit kept ----
SELECT ST_AsEWKB(ST_ExactMeshImport(E'v 500389.2469820779 7000575.499621968 -424.60435336166586\n'
	'v 500417.7231933731 7000623.972181639 -382.68576216056556\nv 500437.7195417484 7000547.023410672 -421.60435336166586\nf 1 2 3\n', 'obj'))
     = ST_AsEWKB('TIN Z (((500389.2469820779 7000575.499621968 -424.60435336166586,500417.7231933731 7000623.972181639 -382.68576216056556,500437.7195417484 7000547.023410672 -421.60435336166586,500389.2469820779 7000575.499621968 -424.60435336166586)))'::geometry) AS utm_bits;
-- 2^53 + 1 is a tie between 2^53 and 2^53 + 2: to even, 2^53; 40 digits of
-- 0.1's expansion round to the double 0.1; 2^-1074 is the least subnormal.
SELECT ST_X(p) = 9007199254740992 AS tie_to_even, ST_Y(p) = 0.1::float8 AS long_decimal, ST_Z(p) = 2 ^ -1074::float8 AS subnormal
FROM (SELECT ST_PointN(ST_ExteriorRing(ST_GeometryN(ST_ExactMeshImport(
	E'v 9007199254740993 0.1000000000000000055511151231257827021181 4.9406564584124654e-324\nv 1 0 0\nv 0 1 0\nf 1 2 3\n', 'obj'), 1)), 1) AS p) s;
-- binary STL floats are widened exactly: 0.1f is 0.100000001490116119384765625,
-- which is the float8 PostgreSQL's own float4 -> float8 cast gives, not 0.1
SELECT x = 0.1::float4::float8 AS widened_exactly, x <> 0.1::float8 AS not_the_decimal, x AS x
FROM (SELECT ST_X(ST_PointN(ST_ExteriorRing(ST_GeometryN(ST_ExactMeshImport(
	convert_to(repeat(' ', 80), 'UTF8') || pg_temp.le(int4send(1)) || decode(repeat('00', 12), 'hex') ||
	pg_temp.f4(0.1) || pg_temp.f4(0) || pg_temp.f4(0) || pg_temp.f4(1) || pg_temp.f4(0) || pg_temp.f4(0) ||
	pg_temp.f4(0) || pg_temp.f4(1) || pg_temp.f4(0) || '\x0000'::bytea, 'stl'), 1)), 1)) AS x) s;

-- ---- vertex and triangle arrays, e.g. from two tables ----
SELECT ST_AsEWKB(ST_ExactMeshFromArrays(
	(SELECT array_agg(x ORDER BY i) FROM mesh_corners), (SELECT array_agg(y ORDER BY i) FROM mesh_corners),
	(SELECT array_agg(z ORDER BY i) FROM mesh_corners),
	(SELECT array_agg(v ORDER BY f, h, k) FROM mesh_tris, unnest(ARRAY[p, q, r]) WITH ORDINALITY u(v, k)),
	index_base => 1)) = ST_AsEWKB(r.geom) AS from_tables
FROM mesh_ref r;
-- a 2-D (n x 3) index array, 0-based
SELECT ST_AsText(ST_ExactMeshFromArrays('{0,1,0,0}', '{0,0,1,0}', '{0,0,0,1}', '{{0,2,1},{0,1,3}}', 4326));
SELECT ST_AsText(ST_ExactMeshFromArrays('{}', '{}', '{}', '{}'));

-- ---- errors: 22023, naming the line, byte or triangle ----
\set VERBOSITY default
SELECT ST_ExactMeshImport(E'v 0 0 0\n', 'off');
SELECT ST_ExactMeshImport(E'v 0 0 0\nv 1 0 0\nf 1 2 3\n', 'obj');
SELECT ST_ExactMeshImport(E'v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 0\n', 'obj');
SELECT ST_ExactMeshImport(E'v 0 0 0\nv 0 NaN 0\n', 'obj');
SELECT ST_ExactMeshImport(E'\nv 0 0 1e999\n', 'obj');
SELECT ST_ExactMeshImport(E'ply\nformat ascii 1.0\nelement vertex 3\nproperty float x\nproperty float y\nproperty float z\n'
	'element face 1\nproperty list uchar int vertex_indices\nend_header\n0 0 0\n1 0 0\n0 1 0\n3 0 1 3\n', 'ply');
SELECT ST_ExactMeshImport(substring(data from 1 for length(data) - 7), 'ply') FROM mesh_files WHERE kind = 'binary le';
SELECT ST_ExactMeshImport(E'ply\nformat binary_little_endian 1.0\nelement vertex 100000000\nproperty double x\nproperty double y\nproperty double z\nend_header\n', 'ply');
SELECT ST_ExactMeshImport(substring(data from 1 for length(data) - 1), 'stl') FROM mesh_files WHERE format = 'stl' AND kind = 'binary';
SELECT ST_ExactMeshImport(overlay(data placing pg_temp.f4('NaN') from 84 + 50 * 2 + 12 + 1), 'stl') FROM mesh_files WHERE format = 'stl' AND kind = 'binary';
SELECT ST_ExactMeshImport(E'solid a\nfacet normal 0 0 1\nouter loop\nvertex 0 0 0\nvertex 1 0 0\nendloop\nendfacet\nendsolid a\n', 'stl');
SELECT ST_ExactMeshImport(E'  0\n3DFACE\n 10\n0\n 20\n0\n 30\n0\n 11\n1\n 21\n0\n 12\n0\n 22\n1\n 32\n0\n  0\nEOF\n', 'dxf');
SELECT ST_ExactMeshImport(E'  0\nSECTION\n  2\nENTITIES\n  0\nPOLYLINE\n 70\n64\n  0\nSEQEND\n  0\nENDSEC\n  0\nEOF\n', 'dxf');
SELECT ST_ExactMeshImport(E'v 0 0 0\n', 'obj', -1);
SELECT ST_ExactMeshFromArrays('{0,1}', '{0,0}', '{0}', '{0,1,1}');
SELECT ST_ExactMeshFromArrays('{0,1,0}', '{0,0,1}', '{0,0,0}', '{0,1}');
SELECT ST_ExactMeshFromArrays('{0,1,0}', '{0,0,1}', '{0,0,0}', '{1,2,3}');
SELECT ST_ExactMeshFromArrays('{0,1,0}', '{0,0,1}', '{0,0,NaN}', '{0,1,2}');
SELECT ST_ExactMeshFromArrays('{0,1,NULL}', '{0,0,1}', '{0,0,0}', '{0,1,2}');

DROP FUNCTION pg_temp.pt(int), pg_temp.cube_obj(int[]), pg_temp.le(bytea), pg_temp.ply_binary(boolean), pg_temp.f4(float8),
	pg_temp.corner4(int), pg_temp.dxf_corner(int, int);
DROP VIEW mesh_tris;
DROP TABLE mesh_files, mesh_ref, mesh_quads, mesh_corners;
