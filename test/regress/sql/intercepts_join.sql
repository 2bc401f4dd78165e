-- The batch intercepts, ST_ExactIntercepts3DJoin and
-- ST_ExactInterceptPieces3DJoin, over inner queries and exactgpu_batch
-- values: equal to the row-level functions on every (hole, body) pair;
-- inner queries read by position, whatever their column names, with a
-- trailing semicolon or comment; errors that name the row.
CREATE TABLE icj_bodies (body_no bigint, shape geometry);
\set cube_fn icj_cube
\i test/regress/fixtures/cube.sql
-- a 4 m cube, a 1 m cube nested in it, a 2 m cube touching it, a cube at UTM
-- coordinates, and an octahedron
INSERT INTO icj_bodies VALUES
	(10, icj_cube(0, 0, 0, 4)),
	(20, icj_cube(1, 1, 1, 1)),
	(30, icj_cube(4, 1, 1, 2)),
	(40, icj_cube(500000, 7000000, -500, 2)),
	(50, 'TIN Z(((10 2 2, 8 4 2, 8 2 4, 10 2 2)), ((8 4 2, 6 2 2, 8 2 4, 8 4 2)), ((6 2 2, 8 0 2, 8 2 4, 6 2 2)),
	            ((8 0 2, 10 2 2, 8 2 4, 8 0 2)), ((8 4 2, 10 2 2, 8 2 0, 8 4 2)), ((6 2 2, 8 4 2, 8 2 0, 6 2 2)),
	            ((8 0 2, 6 2 2, 8 2 0, 8 0 2)), ((10 2 2, 8 0 2, 8 2 0, 10 2 2)))');
CREATE TABLE icj_holes (hid integer, label text, trace geometry);
-- holes on a grid, vertical and slanted, many through edges and vertices;
-- a few bent ones, one wholly inside a body without touching it, one
-- MULTILINESTRING and one at UTM coordinates
INSERT INTO icj_holes
	SELECT row_number() OVER (), 'grid', ST_MakeLine(ST_MakePoint(x, y, 6), ST_MakePoint(x + dx, y, -1))
	FROM generate_series(-1, 11) x, generate_series(-1, 5) y, (VALUES (0), (1), (-2)) d(dx);
INSERT INTO icj_holes VALUES
	(1001, 'bent', 'LINESTRING Z(1 1 5, 1 1 2, 3 1 2, 3 1 -1)'),
	(1002, 'inside', 'LINESTRING Z(0.5 0.5 0.5, 3.5 0.5 0.5)'),
	(1003, 'multi', 'MULTILINESTRING Z((2 2 6, 2 2 3), (2 2 3, 9 2 3))'),
	(1004, 'utm', 'LINESTRING Z(500001 7000001 -495, 500001.5 7000001 -501)'),
	(1005, 'along', 'LINESTRING Z(-1 2 4, 5 2 4, 5 2 3, 6.5 2 3)'),
	(1006, 'no geometry', NULL);

-- the row-level functions on every pair (the reference)
CREATE TABLE icj_rows AS
	SELECT h.hid::bigint AS hole_id, b.body_no AS body_id, i.*
	FROM icj_holes h, icj_bodies b, ST_ExactInterceptPieces3D(h.trace, b.shape) i
	WHERE h.trace IS NOT NULL;
SELECT count(*) AS intercepts, count(DISTINCT (hole_id, body_id)) AS pairs,
       count(*) FILTER (WHERE kind = 'grazing') AS grazing, count(*) FILTER (WHERE kind = 'along') AS along,
       count(*) FILTER (WHERE entry_contact = 'edge' OR exit_contact = 'edge') AS at_edges,
       count(*) FILTER (WHERE entry_contact = 'vertex' OR exit_contact = 'vertex') AS at_vertices,
       count(*) FILTER (WHERE entry_contact = 'start') AS starting_inside
FROM icj_rows;

-- any column names, a trailing semicolon and comment
CREATE TABLE icj_join AS
	SELECT * FROM ST_ExactInterceptPieces3DJoin('SELECT hid, trace FROM icj_holes;  -- the holes',
	                                           'SELECT body_no, shape FROM icj_bodies -- bodies');
SELECT count(*) AS join_not_row FROM (
	SELECT hole_id, body_id, from_m, to_m, kind, entry_contact, exit_contact,
	       ST_AsEWKB(entry_point), ST_AsEWKB(exit_point), ST_AsEWKB(piece) FROM icj_join
	EXCEPT
	SELECT hole_id, body_id, from_m, to_m, kind, entry_contact, exit_contact,
	       ST_AsEWKB(entry_point), ST_AsEWKB(exit_point), ST_AsEWKB(piece) FROM icj_rows) d;
SELECT count(*) AS row_not_join FROM (
	SELECT hole_id, body_id, from_m, to_m, kind, entry_contact, exit_contact,
	       ST_AsEWKB(entry_point), ST_AsEWKB(exit_point), ST_AsEWKB(piece) FROM icj_rows
	EXCEPT
	SELECT hole_id, body_id, from_m, to_m, kind, entry_contact, exit_contact,
	       ST_AsEWKB(entry_point), ST_AsEWKB(exit_point), ST_AsEWKB(piece) FROM icj_join) d;
-- sorted by hole, body, depth
SELECT count(*) AS out_of_order FROM (
	SELECT (hole_id, body_id, from_m) < lag((hole_id, body_id, from_m)) OVER () AS bad FROM icj_join) s
WHERE bad;
SELECT semantics, left_rows, right_rows, row_pairs FROM exactgpu_last_join_stats();

-- the short form (the signature of 0.1.0) and the exactgpu_batch forms
SELECT count(*) AS short_form_differs FROM (
	(SELECT * FROM ST_ExactIntercepts3DJoin('SELECT hid, trace FROM icj_holes', 'SELECT body_no, shape FROM icj_bodies;')
	 EXCEPT SELECT hole_id, body_id, from_m, to_m FROM icj_rows)
	UNION ALL
	(SELECT hole_id, body_id, from_m, to_m FROM icj_rows
	 EXCEPT SELECT * FROM ST_ExactIntercepts3DJoin('SELECT hid, trace FROM icj_holes', 'SELECT body_no, shape FROM icj_bodies;'))) d;
SELECT count(*) AS batch_form_differs FROM (
	(SELECT * FROM ST_ExactIntercepts3DJoin((SELECT ST_ExactBatch(hid, trace) FROM icj_holes),
	                                        (SELECT ST_ExactBatch(body_no, shape) FROM icj_bodies))
	 EXCEPT SELECT hole_id, body_id, from_m, to_m FROM icj_rows)
	UNION ALL
	(SELECT hole_id, body_id, from_m, to_m FROM icj_rows
	 EXCEPT SELECT hole_id, body_id, from_m, to_m FROM ST_ExactInterceptPieces3DJoin(
	        (SELECT ST_ExactBatch(hid, trace) FROM icj_holes), (SELECT ST_ExactBatch(body_no, shape) FROM icj_bodies)))) d;
-- the same on the CPU explicitly
SET exactgpu.device = cpu;
SELECT count(*) AS cpu_differs FROM (
	SELECT hole_id, body_id, from_m, to_m FROM ST_ExactInterceptPieces3DJoin('SELECT hid, trace FROM icj_holes', 'TABLE icj_bodies')
	EXCEPT SELECT hole_id, body_id, from_m, to_m FROM icj_rows) d;
RESET exactgpu.device;

-- a few rows as geologists see them
SELECT hole_id, body_id, round(from_m::numeric, 3) AS from_m, round(to_m::numeric, 3) AS to_m, kind,
       entry_contact, exit_contact, ST_AsText(piece) AS piece
FROM icj_join WHERE hole_id > 1000 ORDER BY 1, 2, 3;

-- Errors: they name the query and the row, never any SQL of ours.
SELECT * FROM ST_ExactIntercepts3DJoin('SELECT label, trace FROM icj_holes', 'SELECT body_no, shape FROM icj_bodies');
SELECT * FROM ST_ExactIntercepts3DJoin('SELECT hid, trace FROM no_such_table', 'SELECT body_no, shape FROM icj_bodies');
SELECT * FROM ST_ExactIntercepts3DJoin('SELECT hid, trace FROM icj_holes; SELECT 1', 'SELECT body_no, shape FROM icj_bodies');
SELECT * FROM ST_ExactIntercepts3DJoin('SELECT 7, ''POINT Z(2 2 2)''::geometry', 'SELECT body_no, shape FROM icj_bodies');
SELECT * FROM ST_ExactIntercepts3DJoin('SELECT 8, ''MULTILINESTRING Z((2 2 6, 2 2 3), (2 2 2, 2 2 1))''::geometry',
                                       'SELECT body_no, shape FROM icj_bodies');
SELECT * FROM ST_ExactIntercepts3DJoin('SELECT hid, trace FROM icj_holes',
                                       'SELECT 99, ''TIN Z(((0 0 0, 4 0 0, 0 4 0, 0 0 0)))''::geometry');
SELECT * FROM ST_ExactIntercepts3DJoin('SELECT hid, ST_SetSRID(trace, 32719) FROM icj_holes', 'SELECT body_no, shape FROM icj_bodies');
-- nothing to join
SELECT count(*) FROM ST_ExactIntercepts3DJoin('SELECT hid, trace FROM icj_holes WHERE false', 'SELECT body_no, shape FROM icj_bodies');

DROP TABLE icj_join, icj_rows, icj_holes, icj_bodies;
DROP FUNCTION icj_cube(float8, float8, float8, float8);

-- A hole without Z against bodies with Z is refused as row by row, naming
-- the hole (it would otherwise be read at z = 0)
SELECT * FROM ST_ExactIntercepts3DJoin('SELECT 1, ''LINESTRING (0.2 0.2, 0.3 0.3)''::geometry',
	'SELECT 2, ''TIN Z (((0 0 0,1 0 0,0 1 0,0 0 0)),((0 0 0,0 1 0,0 0 1,0 0 0)),((0 0 0,0 0 1,1 0 0,0 0 0)),((1 0 0,0 0 1,0 1 0,1 0 0)))''::geometry');
