-- ST_ExactSection as a geologist uses it: a vertical section through
-- bodies and holes, in map coordinates and in section coordinates for
-- plotting; every input error. (Exactness against an independent Fraction
-- reference: section.sql.)
CREATE TEMP TABLE bodies (body_id text, geom geometry);
INSERT INTO bodies VALUES
  ('ore1', 'SRID=32750;TIN Z (((0 0 0,0 10 0,10 10 0,0 0 0)),((0 0 0,10 10 0,10 0 0,0 0 0)),((0 0 10,10 0 10,10 10 10,0 0 10)),((0 0 10,10 10 10,0 10 10,0 0 10)),((0 0 0,10 0 0,10 0 10,0 0 0)),((0 0 0,10 0 10,0 0 10,0 0 0)),((0 10 0,0 10 10,10 10 10,0 10 0)),((0 10 0,10 10 10,10 10 0,0 10 0)),((0 0 0,0 0 10,0 10 10,0 0 0)),((0 0 0,0 10 10,0 10 0,0 0 0)),((10 0 0,10 10 0,10 10 10,10 0 0)),((10 0 0,10 10 10,10 0 10,10 0 0)))'),
  ('waste', 'SRID=32750;TIN Z (((20 0 0,30 0 0,20 10 0,20 0 0)))');
-- the section line: west to east at y = 5; bodies away from it give empty linework
SELECT body_id, GeometryType(s), ST_NumGeometries(s) AS pieces, ST_SRID(s), ST_AsText(s)
FROM bodies, ST_ExactSection(geom, 'SRID=32750;LINESTRING(-5 5, 35 5)') s ORDER BY body_id;
-- section coordinates: x along the line from its first point, y = elevation;
-- there ST_LineMerge (which works in x and y) chains the pieces into the
-- body's outline
SELECT body_id, ST_AsText(ST_LineMerge(ST_ExactSection(geom, 'SRID=32750;LINESTRING(-5 5, 35 5)', true)))
FROM bodies WHERE body_id = 'ore1';
-- a hole pierces the section at one point
SELECT ST_AsText(ST_ExactSection('SRID=32750;LINESTRING Z (2 0 12, 4 10 -2)', 'SRID=32750;LINESTRING(-5 5, 35 5)'));
-- errors
SELECT ST_ExactSection('TIN Z (((0 0 0,1 0 0,0 1 0,0 0 0)))', 'POINT Z (0 0 0)', 'POINT Z (1 1 1)', 'POINT Z (2 2 2)');
SELECT ST_ExactSection('TIN Z (((0 0 0,1 0 0,0 1 0,0 0 0)))', 'POINT (0 0)', 'POINT Z (1 1 1)', 'POINT Z (2 2 3)');
SELECT ST_ExactSection('TIN Z (((0 0 0,1 0 0,0 1 0,0 0 0)))', 'LINESTRING(1 1, 5 2, 1 1)');
SELECT ST_ExactSection('TIN Z (((0 0 0,1 0 0,0 1 0,0 0 0)))', 'POINT(1 1)');
SELECT ST_ExactSection('TIN (((0 0,1 0,0 1,0 0)))', 'LINESTRING(0 0.5, 1 0.5)');
SELECT ST_ExactSection('SRID=32750;TIN Z (((0 0 0,1 0 0,0 1 0,0 0 0)))', 'LINESTRING(0 0.5, 1 0.5)');
DROP TABLE bodies;
