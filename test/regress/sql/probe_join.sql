-- The probe join (exactgpu.probe_join): a batch join of a few rows against
-- big bodies tests only the (row, body) pairs whose boxes meet, with the
-- row-level predicate (intersects in 3D and 2D, volumes, point in solid).
-- Its pairs must be the batch join's, in the same
-- order (ids out of order and repeated), and those the construction of the
-- rows says: each hole's expected bodies are written beside it, worked out
-- from the coordinates, not from any join. Without the resident store (no
-- preload here) the bodies are prepared for each join.
\set cube_fn pj_cube
\i test/regress/fixtures/subdivided_cube.sql
-- three bodies of 432 triangles: cubes of side 4 at the origin and at x = 10,
-- one of side 2 at y = 10 repeated under one id (rows that share an id are one
-- object); stored out of line
CREATE TABLE pj_bodies (id bigint, geom geometry);
ALTER TABLE pj_bodies ALTER COLUMN geom SET STORAGE EXTERNAL;
INSERT INTO pj_bodies VALUES
	(20, pj_cube(10, 0, 0, 4, 6)),
	(10, pj_cube(0, 0, 0, 4, 6)),
	(30, pj_cube(0, 10, 0, 2, 6)),
	(30, pj_cube(0, 10, 0, 2, 6));
-- holes, ids out of order and one id twice; expect: the bodies it meets as a
-- surface (a hole inside a body meets no surface)
CREATE TABLE pj_holes (id bigint, geom geometry, expect bigint[]);
INSERT INTO pj_holes VALUES
	(9, 'LINESTRING Z(2 2 -1, 2 2 5)', '{10}'),             -- through the middle
	(3, 'LINESTRING Z(0 0 -1, 0 0 5)', '{10}'),             -- along an edge
	(7, 'LINESTRING Z(3 3 5, 5 5 3)', '{10}'),              -- through the vertex (4 4 4) only
	(7, 'LINESTRING Z(2 2 10, 2 2 4)', '{10}'),             -- ending on the top face
	(5, 'LINESTRING Z(2 2 4.000000001, 2 2 10)', '{}'),     -- just above it
	(1, 'LINESTRING Z(5 1 1, 9 1 1)', '{}'),                -- between two bodies
	(2, 'LINESTRING Z(3 1 1, 11 1 1)', '{10,20}'),          -- through two
	(4, 'LINESTRING Z(1 1 1, 3 3 3)', '{}'),                -- inside, meeting no face
	(6, 'POINT Z(4 2 2)', '{10}'),                          -- on a face
	(8, 'POINT Z(14 4 4)', '{20}'),                         -- on a vertex
	(11, 'LINESTRING Z(2 12 0, 2 12 2)', '{30}'),           -- along an edge of the repeated body
	(12, 'LINESTRING Z(100 100 100, 101 101 101)', '{}'),   -- far away
	(13, 'LINESTRING Z(4 4 -1, 4 4 1, 10 4 1)', '{10,20}'), -- along an edge, then to a face
	(14, 'LINESTRING Z EMPTY', '{}');

-- the pairs with their places in the output, on and off
CREATE FUNCTION pj_pairs(l text, r text, fn text) RETURNS TABLE (ord bigint, left_id bigint, right_id bigint)
LANGUAGE plpgsql AS $$
BEGIN
	RETURN QUERY EXECUTE format('SELECT o, a, b FROM %s($1, $2) WITH ORDINALITY AS t(a, b, o)', fn) USING l, r;
END $$;
CREATE FUNCTION pj_compare(l text, r text, fn text) RETURNS TABLE (probed_on boolean, probed_off boolean, pairs bigint, differ bigint)
LANGUAGE plpgsql AS $$
DECLARE
	dev_on text;
	dev_off text;
BEGIN
	SET LOCAL exactgpu.probe_join = on;
	CREATE TEMP TABLE pj_on AS SELECT * FROM pj_pairs(l, r, fn);
	SELECT device INTO dev_on FROM exactgpu_last_join_stats();
	SET LOCAL exactgpu.probe_join = off;
	CREATE TEMP TABLE pj_off AS SELECT * FROM pj_pairs(l, r, fn);
	SELECT device INTO dev_off FROM exactgpu_last_join_stats();
	RETURN QUERY SELECT dev_on LIKE 'CPU probe%', dev_off LIKE 'CPU probe%',
		(SELECT count(*) FROM pj_on),
		(SELECT count(*) FROM ((TABLE pj_on EXCEPT TABLE pj_off) UNION ALL (TABLE pj_off EXCEPT TABLE pj_on)) d);
	DROP TABLE pj_on, pj_off;
END $$;

-- 3D, holes left and bodies right, then the other way round
SELECT * FROM pj_compare('SELECT id, geom FROM pj_holes', 'SELECT id, geom FROM pj_bodies', 'ST_ExactIntersects3DJoin');
SELECT * FROM pj_compare('SELECT id, geom FROM pj_bodies', 'SELECT id, geom FROM pj_holes', 'ST_ExactIntersects3DJoin');
-- against the construction (probe on), per hole id
SET exactgpu.probe_join = on;
WITH got AS (
	SELECT left_id AS id, array_agg(right_id ORDER BY right_id) AS bodies
	FROM ST_ExactIntersects3DJoin('SELECT id, geom FROM pj_holes', 'SELECT id, geom FROM pj_bodies')
	GROUP BY left_id),
want AS (
	SELECT id, coalesce(array_agg(DISTINCT b ORDER BY b) FILTER (WHERE b IS NOT NULL), '{}') AS bodies
	FROM pj_holes LEFT JOIN LATERAL unnest(expect) b ON true GROUP BY id)
SELECT want.id, want.bodies AS expected, coalesce(got.bodies, '{}') AS probed
FROM want LEFT JOIN got USING (id)
WHERE want.bodies IS DISTINCT FROM coalesce(got.bodies, '{}')
ORDER BY 1;
-- what exactgpu_last_join_stats() says of it: the 4 body rows near some hole
SELECT device ~ '^CPU probe \(\d+ threads?\): 4 of 4 bodies near the rows$' AS device_named,
	semantics, left_rows, right_rows, row_pairs
FROM exactgpu_last_join_stats();
-- and the row-level predicate
SELECT count(*) AS differ_from_row_level FROM (
	(SELECT * FROM ST_ExactIntersects3DJoin('SELECT id, geom FROM pj_holes', 'SELECT id, geom FROM pj_bodies')
	 EXCEPT SELECT DISTINCT h.id, b.id FROM pj_holes h, pj_bodies b WHERE ST_ExactIntersects3D(h.geom, b.geom))
	UNION ALL
	(SELECT DISTINCT h.id, b.id FROM pj_holes h, pj_bodies b WHERE ST_ExactIntersects3D(h.geom, b.geom)
	 EXCEPT SELECT * FROM ST_ExactIntersects3DJoin('SELECT id, geom FROM pj_holes', 'SELECT id, geom FROM pj_bodies'))) d;
-- through exactgpu_batch values too
SELECT count(*) AS differ_batch_values FROM (
	SELECT * FROM ST_ExactIntersects3DJoin((SELECT ST_ExactBatch(id, geom) FROM pj_holes),
										   (SELECT ST_ExactBatch(id, geom) FROM pj_bodies))
	EXCEPT SELECT * FROM ST_ExactIntersects3DJoin('SELECT id, geom FROM pj_holes', 'SELECT id, geom FROM pj_bodies')) d;
SELECT device LIKE 'CPU probe%' AS probed FROM exactgpu_last_join_stats();

-- a side too big to probe (holes against holes): the batch join, as ever
SELECT * FROM pj_compare('SELECT id, geom FROM pj_holes', 'SELECT id, geom FROM pj_holes', 'ST_ExactIntersects3DJoin');

-- 2D: long-edged squares (a point every 0.01), one with a hole
CREATE TABLE pj_areas (id bigint, geom geometry);
ALTER TABLE pj_areas ALTER COLUMN geom SET STORAGE EXTERNAL;
INSERT INTO pj_areas VALUES
	(2, ST_Segmentize('POLYGON((0 0, 4 0, 4 4, 0 4, 0 0))'::geometry, 0.01)),
	(1, ST_Segmentize('POLYGON((20 0, 24 0, 24 4, 20 4, 20 0), (21 1, 23 1, 23 3, 21 3, 21 1))'::geometry, 0.01));
CREATE TABLE pj_probes2d (id bigint, geom geometry, expect bigint[]);
INSERT INTO pj_probes2d VALUES
	(5, 'POINT(2 2)', '{2}'),                  -- inside
	(4, 'POINT(4 2)', '{2}'),                  -- on an edge
	(3, 'POINT(4 4)', '{2}'),                  -- on a corner
	(2, 'POINT(4.000000001 2)', '{}'),         -- just outside
	(1, 'LINESTRING(1 1, 2 2)', '{2}'),        -- inside (areas are areas in 2D)
	(6, 'POINT(22 2)', '{}'),                  -- in the hole
	(6, 'POINT(21 2)', '{1}'),                 -- on the hole's ring
	(7, 'LINESTRING(5 5, 20 4)', '{1}'),       -- ending on a corner
	(8, 'POLYGON((10 10, 11 10, 11 11, 10 11, 10 10))', '{}');
SELECT * FROM pj_compare('SELECT id, geom FROM pj_probes2d', 'SELECT id, geom FROM pj_areas', 'ST_ExactIntersectsJoin');
SELECT * FROM pj_compare('SELECT id, geom FROM pj_areas', 'SELECT id, geom FROM pj_probes2d', 'ST_ExactIntersectsJoin');
WITH got AS (
	SELECT left_id AS id, array_agg(right_id ORDER BY right_id) AS areas
	FROM ST_ExactIntersectsJoin('SELECT id, geom FROM pj_probes2d', 'SELECT id, geom FROM pj_areas')
	GROUP BY left_id),
want AS (
	SELECT id, coalesce(array_agg(DISTINCT b ORDER BY b) FILTER (WHERE b IS NOT NULL), '{}') AS areas
	FROM pj_probes2d LEFT JOIN LATERAL unnest(expect) b ON true GROUP BY id)
SELECT want.id, want.areas AS expected, coalesce(got.areas, '{}') AS probed
FROM want LEFT JOIN got USING (id)
WHERE want.areas IS DISTINCT FROM coalesce(got.areas, '{}')
ORDER BY 1;

-- volumes: the bodies as the closed volumes they bound; the one pair not
-- expected of the surfaces must be hole 4's with body 10 (inside it
-- without touching it)
SELECT * FROM pj_compare('SELECT id, geom FROM pj_bodies', 'SELECT id, geom FROM pj_holes', 'ST_ExactIntersectsSolid3DJoin');
SELECT * FROM pj_compare('SELECT id, geom FROM pj_bodies', 'SELECT id, geom FROM pj_holes WHERE GeometryType(geom) = ''POINT''', 'ST_ExactIntersectsSolid3DJoin');
SELECT h.id, array_agg(DISTINCT v.left_id ORDER BY v.left_id) AS bodies
FROM pj_holes h JOIN ST_ExactIntersectsSolid3DJoin('SELECT id, geom FROM pj_bodies', 'SELECT id, geom FROM pj_holes') v
	ON v.right_id = h.id
WHERE NOT (h.expect @> ARRAY[v.left_id]) GROUP BY h.id ORDER BY 1;
SELECT device LIKE 'CPU probe%' AS probed, semantics FROM exactgpu_last_join_stats();

-- point in solid: points inside, on faces, edges and vertices, just outside
CREATE TABLE pj_points (id bigint, geom geometry, expect bigint[]);
INSERT INTO pj_points VALUES
	(5, 'POINT Z(2 2 2)', '{10}'),                 -- inside
	(4, 'POINT Z(4 2 2)', '{10}'),                 -- on a face
	(3, 'POINT Z(4 4 2)', '{10}'),                 -- on an edge
	(3, 'POINT Z(10 0 0)', '{20}'),                -- on a vertex (id repeated)
	(2, 'POINT Z(4.000000001 2 2)', '{}'),         -- just outside
	(1, 'POINT Z(1 11 1)', '{30}'),                -- inside the repeated body
	(6, 'POINT Z(7 2 2)', '{}'),                   -- between bodies
	(7, 'MULTIPOINT Z((7 2 2), (12 2 2))', '{20}'); -- one of two inside
SELECT * FROM pj_compare('SELECT id, geom FROM pj_points', 'SELECT id, geom FROM pj_bodies', 'ST_ExactLocate3DJoin');
WITH got AS (
	SELECT point_id AS id, array_agg(solid_id ORDER BY solid_id) AS bodies
	FROM ST_ExactLocate3DJoin('SELECT id, geom FROM pj_points', 'SELECT id, geom FROM pj_bodies')
	GROUP BY point_id),
want AS (
	SELECT id, coalesce(array_agg(DISTINCT b ORDER BY b) FILTER (WHERE b IS NOT NULL), '{}') AS bodies
	FROM pj_points LEFT JOIN LATERAL unnest(expect) b ON true GROUP BY id)
SELECT want.id, want.bodies AS expected, coalesce(got.bodies, '{}') AS probed
FROM want LEFT JOIN got USING (id)
WHERE want.bodies IS DISTINCT FROM coalesce(got.bodies, '{}')
ORDER BY 1;
SELECT device LIKE 'CPU probe%' AS probed, semantics FROM exactgpu_last_join_stats();
-- a line among the points, and a body that is no closed surface: the
-- same errors, naming the same rows
INSERT INTO pj_points VALUES (8, 'LINESTRING Z(0 0 0, 1 1 1)', '{}');
SET exactgpu.probe_join = on;
SELECT * FROM ST_ExactLocate3DJoin('SELECT id, geom FROM pj_points', 'SELECT id, geom FROM pj_bodies');
SET exactgpu.probe_join = off;
SELECT * FROM ST_ExactLocate3DJoin('SELECT id, geom FROM pj_points', 'SELECT id, geom FROM pj_bodies');
-- a zero-length line is a line, not its point (as ST_ExactLocate3D says;
-- the batch join's flattening reads it as its point: test/probe_diff)
UPDATE pj_points SET geom = 'LINESTRING Z(0.25 0.25 0.25, 0.25 0.25 0.25)' WHERE id = 8;
SET exactgpu.probe_join = on;
SELECT * FROM ST_ExactLocate3DJoin('SELECT id, geom FROM pj_points', 'SELECT id, geom FROM pj_bodies');
SET exactgpu.probe_join = off;
SELECT * FROM ST_ExactLocate3DJoin('SELECT id, geom FROM pj_points', 'SELECT id, geom FROM pj_bodies');
SET exactgpu.invalid_rows = skip;
SELECT count(*) FROM ST_ExactLocate3DJoin('SELECT id, geom FROM pj_points', 'SELECT id, geom FROM pj_bodies');
SELECT * FROM exactgpu_last_join_skipped();
RESET exactgpu.invalid_rows;
DELETE FROM pj_points WHERE id = 8;
INSERT INTO pj_bodies VALUES (40, 'TIN Z(((0 0 20, 1 0 20, 0 1 20, 0 0 20)))');
SET exactgpu.probe_join = on;
SELECT * FROM ST_ExactLocate3DJoin('SELECT id, geom FROM pj_points', 'SELECT id, geom FROM pj_bodies');
SET exactgpu.probe_join = off;
SELECT * FROM ST_ExactLocate3DJoin('SELECT id, geom FROM pj_points', 'SELECT id, geom FROM pj_bodies');
DELETE FROM pj_bodies WHERE id = 40;
RESET exactgpu.probe_join;

-- errors name the same row as the batch join
INSERT INTO pj_holes VALUES (99, 'SRID=4326;LINESTRING Z(0 0 0, 1 1 1)', '{}');
SET exactgpu.probe_join = on;
SELECT * FROM ST_ExactIntersects3DJoin('SELECT id, geom FROM pj_holes', 'SELECT id, geom FROM pj_bodies');
SET exactgpu.probe_join = off;
SELECT * FROM ST_ExactIntersects3DJoin('SELECT id, geom FROM pj_holes', 'SELECT id, geom FROM pj_bodies');
DELETE FROM pj_holes WHERE id = 99;
INSERT INTO pj_holes VALUES (98, 'LINESTRING(0 0, 1 1)', '{}');
SET exactgpu.probe_join = on;
SELECT * FROM ST_ExactIntersects3DJoin('SELECT id, geom FROM pj_holes', 'SELECT id, geom FROM pj_bodies');
SET exactgpu.probe_join = off;
SELECT * FROM ST_ExactIntersects3DJoin('SELECT id, geom FROM pj_holes', 'SELECT id, geom FROM pj_bodies');
RESET exactgpu.probe_join;

DROP FUNCTION pj_compare(text, text, text);
DROP FUNCTION pj_pairs(text, text, text);
DROP TABLE pj_bodies, pj_holes, pj_areas, pj_probes2d, pj_points;
DROP FUNCTION pj_cube(float8, float8, float8, float8, int);
