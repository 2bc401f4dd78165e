-- ST_ExactIntersects: the 2D predicate, Z ignored, polygons and triangles as areas.
CREATE TABLE areas2d (name text PRIMARY KEY, geom geometry);
INSERT INTO areas2d VALUES
	('square',        'POLYGON((0 0, 10 0, 10 10, 0 10, 0 0))'),
	('square_cw',     'POLYGON((0 0, 0 10, 10 10, 10 0, 0 0))'),
	('donut',         'POLYGON((0 0, 10 0, 10 10, 0 10, 0 0), (3 3, 7 3, 7 7, 3 7, 3 3))'),
	('two_islands',   'MULTIPOLYGON(((0 0, 2 0, 2 2, 0 2, 0 0)), ((8 8, 10 8, 10 10, 8 10, 8 8)))'),
	('triangle',      'TRIANGLE((0 0, 10 0, 0 10, 0 0))'),
	('tin_z',         'TIN Z(((0 0 5, 10 0 -5, 0 10 100, 0 0 5)))'),
	('vertical_face', 'TRIANGLE Z((0 0 0, 10 10 0, 5 5 9, 0 0 0))');

CREATE TABLE probes2d (name text PRIMARY KEY, geom geometry);
INSERT INTO probes2d VALUES
	('point_center',        'POINT(5 5)'),
	('point_on_boundary',   'POINT(10 5)'),
	('point_at_corner',     'POINT(10 10)'),
	('point_outside',       'POINT(11 5)'),
	('point_one_ulp_out',   ST_MakePoint(10 + 2^(-49), 5)),
	('line_inside',         'LINESTRING(4 4, 6 6)'),
	('line_crossing',       'LINESTRING(-5 5, 15 5)'),
	('line_touching_edge',  'LINESTRING(10 5, 15 5)'),
	('line_outside',        'LINESTRING(11 0, 11 10)'),
	('square_inside',       'POLYGON((4 4, 6 4, 6 6, 4 6, 4 4))'),
	('square_around',       'POLYGON((-1 -1, 11 -1, 11 11, -1 11, -1 -1))'),
	('square_touching',     'POLYGON((10 0, 12 0, 12 2, 10 2, 10 0))'),
	('point_z_ignored',     'POINT Z(5 5 1000)'),
	('collection_far_near', 'GEOMETRYCOLLECTION(POINT(50 50), LINESTRING(9 1, 9 2))');

SELECT a.name AS area, p.name AS probe, ST_ExactIntersects(a.geom, p.geom) AS exact
FROM areas2d a CROSS JOIN probes2d p
ORDER BY a.name COLLATE "C", p.name COLLATE "C";

-- Symmetric, and (GEOS being robust in 2D) in agreement with ST_Intersects on
-- these inputs, except for TIN/TRIANGLE areas which GEOS does not take.
SELECT count(*) AS asymmetric
FROM areas2d a CROSS JOIN probes2d p
WHERE ST_ExactIntersects(a.geom, p.geom) <> ST_ExactIntersects(p.geom, a.geom);

SELECT a.name AS area, p.name AS probe
FROM areas2d a CROSS JOIN probes2d p
WHERE a.name IN ('square', 'square_cw', 'donut', 'two_islands')
  AND ST_ExactIntersects(a.geom, p.geom) IS DISTINCT FROM ST_Intersects(a.geom, p.geom);

-- Holes: a point or polygon in the hole does not intersect; touching the hole's ring does.
SELECT ST_ExactIntersects(geom, 'POINT(5 5)') AS in_hole,
       ST_ExactIntersects(geom, 'POINT(3 5)') AS on_hole_ring,
       ST_ExactIntersects(geom, 'POLYGON((4 4, 6 4, 6 6, 4 6, 4 4))') AS polygon_in_hole,
       ST_ExactIntersects(geom, 'POLYGON((4 4, 7 4, 6 6, 4 6, 4 4))') AS polygon_touching_hole_ring
FROM areas2d WHERE name = 'donut';

-- Empty geometries intersect nothing.
SELECT ST_ExactIntersects('POLYGON EMPTY', 'POINT(0 0)') AS empty_polygon,
       ST_ExactIntersects('MULTIPOLYGON EMPTY', 'POLYGON((0 0, 1 0, 1 1, 0 0))') AS empty_multipolygon;

DROP TABLE areas2d, probes2d;
