-- ST_ExactCrossings3D as a geologist uses it, cross-checked against the
-- intercepts (another code path of the engine) on a closed body; empty
-- inputs; every input error. (Exactness against an independent Fraction
-- reference: crossings.sql.)
CREATE TEMP TABLE faults (fault_id text, geom geometry);
CREATE TEMP TABLE dh (hole_id text, geom geometry);
-- a fault sheet dipping east, open, in two triangles
INSERT INTO faults VALUES
  ('F1', 'SRID=32750;TIN Z (((500000 7000000 400,500100 7000000 300,500100 7000100 300,500000 7000000 400)),((500000 7000000 400,500100 7000100 300,500000 7000100 400,500000 7000000 400)))');
INSERT INTO dh VALUES
  ('MXD-0001', 'SRID=32750;LINESTRING ZM (500040 7000050 420 0,500060 7000050 300 121.6552506059644)'),
  ('MXD-0002', 'SRID=32750;LINESTRING Z (500200 7000050 420,500200 7000050 200)');
SELECT d.hole_id, f.fault_id, c.depth_m, c.to_m, c.kind, ST_AsText(c.point) AS point, ST_SRID(c.point), c.face
FROM dh d CROSS JOIN faults f CROSS JOIN LATERAL ST_ExactCrossings3D(d.geom, f.geom) c
ORDER BY d.hole_id, c.depth_m;
-- a closed cube: the through crossings are where the intercepts begin and end, to the bit
WITH cube AS (SELECT 'TIN Z (((0 0 0,0 10 0,10 10 0,0 0 0)),((0 0 0,10 10 0,10 0 0,0 0 0)),((0 0 10,10 0 10,10 10 10,0 0 10)),((0 0 10,10 10 10,0 10 10,0 0 10)),((0 0 0,10 0 0,10 0 10,0 0 0)),((0 0 0,10 0 10,0 0 10,0 0 0)),((0 10 0,0 10 10,10 10 10,0 10 0)),((0 10 0,10 10 10,10 10 0,0 10 0)),((0 0 0,0 0 10,0 10 10,0 0 0)),((0 0 0,0 10 10,0 10 0,0 0 0)),((10 0 0,10 10 0,10 10 10,10 0 0)),((10 0 0,10 10 10,10 0 10,10 0 0)))'::geometry AS g),
hole AS (SELECT 'LINESTRING Z (-3 2.5 13, 4 6 -1, 13 8.5 4.75)'::geometry AS h)
SELECT (SELECT array_agg(depth_m ORDER BY depth_m) FROM cube, hole, ST_ExactCrossings3D(h, g) WHERE kind = 'through')
     = (SELECT array_agg(d ORDER BY d) FROM cube, hole, ST_ExactIntercepts3D(h, g) i, LATERAL (VALUES (i.from_m), (i.to_m)) v(d))
       AS crossings_equal_intercepts,
       (SELECT count(*) FROM cube, hole, ST_ExactCrossings3D(h, g)) AS crossings;
-- empty inputs: no rows
SELECT count(*) FROM ST_ExactCrossings3D('LINESTRING Z EMPTY', 'TIN Z (((0 0 0,1 0 0,0 1 0,0 0 0)))');
SELECT count(*) FROM ST_ExactCrossings3D('LINESTRING Z (0 0 1, 0 0 -1)', 'TIN Z EMPTY');
-- errors: arguments swapped, no Z, mixed SRIDs, no faces, NaN, one vertex
SELECT * FROM ST_ExactCrossings3D('TIN Z (((0 0 0,1 0 0,0 1 0,0 0 0)))', 'LINESTRING Z (0 0 1, 0 0 -1)');
SELECT * FROM ST_ExactCrossings3D('LINESTRING (0 0, 1 1)', 'TIN Z (((0 0 0,1 0 0,0 1 0,0 0 0)))');
SELECT * FROM ST_ExactCrossings3D('LINESTRING Z (0 0 1, 0 0 -1)', 'TIN (((0 0,1 0,0 1,0 0)))');
SELECT * FROM ST_ExactCrossings3D('SRID=32750;LINESTRING Z (0 0 1, 0 0 -1)', 'SRID=4326;TIN Z (((0 0 0,1 0 0,0 1 0,0 0 0)))');
SELECT * FROM ST_ExactCrossings3D('LINESTRING Z (0 0 1, 0 0 -1)', 'LINESTRING Z (0 0 0, 1 1 0)');
SELECT * FROM ST_ExactCrossings3D('LINESTRING Z (0 0 NaN, 0 0 -1)', 'TIN Z (((0 0 0,1 0 0,0 1 0,0 0 0)))');
SELECT * FROM ST_ExactCrossings3D('LINESTRING Z (0 0 1, 0 0 1)', 'TIN Z (((0 0 0,1 0 0,0 1 0,0 0 0)))');
DROP TABLE faults, dh;
