-- Batch joins with solids: point-in-solid, solids as volumes in the
-- intersection join, and intercepts over two tables. Each batch result is
-- checked against the row-by-row functions, on the default device (the GPU
-- where there is one) and on the CPU.
\i test/regress/fixtures/sfcgal.sql
CREATE TABLE sj_ore (id bigint PRIMARY KEY, geom geometry);
-- a 4 m cube, a 1 m cube nested in it, a 2 m cube sharing part of a face
-- with it, an octahedron, and a cube at UTM coordinates
\set cube_fn cube_at
\i test/regress/fixtures/cube.sql
INSERT INTO sj_ore VALUES
	(1, cube_at(0, 0, 0, 4)),
	(2, cube_at(1, 1, 1, 1)),
	(3, cube_at(4, 1, 1, 2)),
	(4, 'TIN Z(((10 2 2, 8 4 2, 8 2 4, 10 2 2)), ((8 4 2, 6 2 2, 8 2 4, 8 4 2)), ((6 2 2, 8 0 2, 8 2 4, 6 2 2)),
	           ((8 0 2, 10 2 2, 8 2 4, 8 0 2)), ((8 4 2, 10 2 2, 8 2 0, 8 4 2)), ((6 2 2, 8 4 2, 8 2 0, 6 2 2)),
	           ((8 0 2, 6 2 2, 8 2 0, 8 0 2)), ((10 2 2, 8 0 2, 8 2 0, 10 2 2)))'),
	(5, cube_at(500000, 7000000, -500, 2));
-- samples on a half-metre grid (many exactly on faces, edges, vertices and
-- straight below them), and a few at UTM coordinates
CREATE TABLE sj_samples (id bigint PRIMARY KEY, geom geometry);
INSERT INTO sj_samples
	SELECT row_number() OVER (), ST_MakePoint(x / 2.0, y / 2.0, z / 2.0)
	FROM generate_series(-1, 22) x, generate_series(-1, 10) y, generate_series(-1, 10) z;
INSERT INTO sj_samples
	SELECT 100000 + row_number() OVER (), ST_MakePoint(500000 + x / 2.0, 7000000 + y / 2.0, -500 + z / 2.0)
	FROM generate_series(-1, 5) x, generate_series(-1, 5) y, generate_series(-1, 5) z;

-- point-in-solid, batch against row by row
CREATE TABLE sj_located AS
	SELECT s.id AS point_id, o.id AS solid_id FROM sj_samples s, sj_ore o
	WHERE ST_ExactLocate3D(o.geom, s.geom) <> 'outside';
SELECT count(*) AS in_or_on, count(DISTINCT solid_id) AS bodies FROM sj_located;
SELECT count(*) AS batch_differs FROM (
	(SELECT * FROM ST_ExactLocate3DJoin('SELECT id, geom FROM sj_samples', 'SELECT id, geom FROM sj_ore')
	 EXCEPT SELECT * FROM sj_located)
	UNION ALL
	(SELECT * FROM sj_located
	 EXCEPT SELECT * FROM ST_ExactLocate3DJoin('SELECT id, geom FROM sj_samples', 'SELECT id, geom FROM sj_ore'))) d;
SELECT semantics, row_pairs FROM exactgpu_last_join_stats();
SET exactgpu.device = 'cpu';
SELECT count(*) AS cpu_batch_differs FROM (
	(SELECT * FROM ST_ExactLocate3DJoin('SELECT id, geom FROM sj_samples', 'SELECT id, geom FROM sj_ore')
	 EXCEPT SELECT * FROM sj_located)
	UNION ALL
	(SELECT * FROM sj_located
	 EXCEPT SELECT * FROM ST_ExactLocate3DJoin('SELECT id, geom FROM sj_samples', 'SELECT id, geom FROM sj_ore'))) d;
RESET exactgpu.device;
-- the aggregate form
SELECT count(*) AS aggregate_form
FROM ST_ExactLocate3DJoin((SELECT ST_ExactBatch(id, geom) FROM sj_samples WHERE id < 100000),
                          (SELECT ST_ExactBatch(id, geom) FROM sj_ore WHERE id = 1));
SELECT count(*) AS row_form FROM sj_located WHERE point_id < 100000 AND solid_id = 1;

-- Bodies as volumes in ST_ExactIntersectsSolid3DJoin(solids, geoms): holes
-- wholly inside a body are found, as by the row-by-row volume predicate;
-- ST_ExactIntersects3DJoin keeps surfaces as surfaces, flagged or not.
CREATE TABLE sj_holes (id bigint PRIMARY KEY, geom geometry);
INSERT INTO sj_holes VALUES
	(1, 'LINESTRING Z(1.5 1.5 1.5, 1.5 1.5 2.5)'),   -- starts inside cube 2, ends inside cube 1
	(2, 'LINESTRING Z(0.5 0.5 0.5, 3.5 3.5 0.5)'),   -- inside cube 1 only
	(3, 'LINESTRING Z(2 2 5, 2 2 -1)'),              -- through cubes 1 and 2
	(4, 'LINESTRING Z(8 2 1.5, 8 2 2.5)'),           -- inside the octahedron
	(5, 'LINESTRING Z(20 20 20, 21 21 21)'),         -- nowhere
	(6, 'LINESTRING Z(500001 7000001 -499.5, 500001 7000001 -498.5)');  -- inside the UTM cube
-- (the batch join counts the pairs it finds by containment; the probe join,
-- which these few rows would take, gives the same pairs: test probe_join)
SET exactgpu.probe_join = off;
SELECT left_id AS solid, right_id AS hole
FROM ST_ExactIntersectsSolid3DJoin('SELECT id, geom FROM sj_ore', 'SELECT id, geom FROM sj_holes') ORDER BY 1, 2;
SELECT semantics, contained_pairs FROM exactgpu_last_join_stats();
RESET exactgpu.probe_join;
SELECT count(*) AS differs_from_row_by_row FROM (
	(SELECT s.id, h.id FROM sj_holes h, sj_ore s WHERE ST_ExactIntersectsSolid3D(s.geom, h.geom)
	 EXCEPT SELECT * FROM ST_ExactIntersectsSolid3DJoin('SELECT id, geom FROM sj_ore', 'SELECT id, geom FROM sj_holes'))
	UNION ALL
	(SELECT * FROM ST_ExactIntersectsSolid3DJoin('SELECT id, geom FROM sj_ore', 'SELECT id, geom FROM sj_holes')
	 EXCEPT SELECT s.id, h.id FROM sj_holes h, sj_ore s WHERE ST_ExactIntersectsSolid3D(s.geom, h.geom))) d;
-- the batch form, and the ST_MakeSolid flag changing nothing
SELECT count(*) AS batch_form
FROM ST_ExactIntersectsSolid3DJoin((SELECT ST_ExactBatch(id, geom) FROM sj_ore),
                                   (SELECT ST_ExactBatch(id, geom) FROM sj_holes));
CREATE TABLE sj_solids AS SELECT id, ST_MakeSolid(geom) AS geom FROM sj_ore;
SELECT count(*) AS flagged_volume FROM ST_ExactIntersectsSolid3DJoin('SELECT id, geom FROM sj_solids', 'SELECT id, geom FROM sj_holes');
SELECT count(*) AS flagged_surfaces FROM ST_ExactIntersects3DJoin('SELECT id, geom FROM sj_holes', 'SELECT id, geom FROM sj_solids');
SELECT count(*) AS surfaces_only FROM ST_ExactIntersects3DJoin('SELECT id, geom FROM sj_holes', 'SELECT id, geom FROM sj_ore');
-- samples: the volume join over points is the point-in-solid join, container first
SELECT count(*) AS differs_from_locate FROM (
	(SELECT right_id, left_id FROM ST_ExactIntersectsSolid3DJoin('SELECT id, geom FROM sj_ore', 'SELECT id, geom FROM sj_samples')
	 EXCEPT SELECT * FROM sj_located)
	UNION ALL
	(SELECT * FROM sj_located
	 EXCEPT SELECT right_id, left_id FROM ST_ExactIntersectsSolid3DJoin('SELECT id, geom FROM sj_ore', 'SELECT id, geom FROM sj_samples'))) d;
SELECT semantics FROM exactgpu_last_join_stats();

-- Intercepts over two tables (bodies are volumes here, flagged or not).
SELECT * FROM ST_ExactIntercepts3DJoin('SELECT id, geom FROM sj_holes', 'SELECT id, geom FROM sj_ore');

-- What the batch point-in-solid refuses.
SELECT * FROM ST_ExactLocate3DJoin('SELECT id, geom FROM sj_holes', 'SELECT id, geom FROM sj_ore');
-- ... as bad input (22023), not an internal error
DO $$ BEGIN PERFORM * FROM ST_ExactLocate3DJoin('SELECT id, geom FROM sj_holes', 'SELECT id, geom FROM sj_ore');
EXCEPTION WHEN OTHERS THEN RAISE NOTICE 'SQLSTATE %', SQLSTATE; END $$;
SELECT * FROM ST_ExactLocate3DJoin('SELECT id, geom FROM sj_samples', 'SELECT id, geom FROM sj_holes');
SELECT * FROM ST_ExactLocate3DJoin('SELECT id, geom FROM sj_samples',
	$$SELECT 1::bigint, 'TIN Z(((0 0 0, 1 0 0, 0 1 0, 0 0 0)))'::geometry$$);
-- What the volume join refuses: an open body, a body that is no surface
-- (named by its id on the solids side, the left input).
SELECT * FROM ST_ExactIntersectsSolid3DJoin($$SELECT 7::bigint, 'TIN Z(((0 0 0, 1 0 0, 0 1 0, 0 0 0)))'::geometry$$,
	'SELECT id, geom FROM sj_holes');
SELECT * FROM ST_ExactIntersectsSolid3DJoin('SELECT id, geom FROM sj_holes', 'SELECT id, geom FROM sj_ore');
SELECT * FROM ST_ExactIntersectsSolid3DJoin('SELECT id, geom FROM sj_holes', 'SELECT id, geom FROM sj_samples');
-- an open surface flagged solid is just a surface to the intersection join
SELECT count(*) FROM ST_ExactIntersects3DJoin('SELECT id, geom FROM sj_holes',
	$$SELECT 1::bigint, ST_MakeSolid('TIN Z(((0 0 0, 1 0 0, 0 1 0, 0 0 0)))'::geometry)$$);
DROP TABLE sj_ore, sj_samples, sj_located, sj_holes, sj_solids;
DROP FUNCTION cube_at(float8, float8, float8, float8);
