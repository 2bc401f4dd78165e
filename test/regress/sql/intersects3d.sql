-- ST_ExactIntersects3D over every supported geometry type, on closed sets.
CREATE TABLE shapes3d (name text PRIMARY KEY, geom geometry);
INSERT INTO shapes3d VALUES
	-- the unit-ish reference face: triangle (0 0 0) (4 0 0) (0 4 0)
	('triangle',        'TRIANGLE Z((0 0 0, 4 0 0, 0 4 0, 0 0 0))'),
	('tin',             'TIN Z(((0 0 0, 4 0 0, 0 4 0, 0 0 0)), ((4 0 0, 4 4 0, 0 4 0, 4 0 0)))'),
	('polygon_face',    'POLYGON Z((0 0 0, 4 0 0, 4 4 0, 0 4 0, 0 0 0))'),
	('polygon_holed',   'POLYGON Z((0 0 0, 8 0 0, 8 8 0, 0 8 0, 0 0 0), (2 2 0, 6 2 0, 6 6 0, 2 6 0, 2 2 0))'),
	('polyhedral_cube', 'POLYHEDRALSURFACE Z(((0 0 0, 0 4 0, 4 4 0, 4 0 0, 0 0 0)), ((0 0 4, 4 0 4, 4 4 4, 0 4 4, 0 0 4)),
	                      ((0 0 0, 4 0 0, 4 0 4, 0 0 4, 0 0 0)), ((0 4 0, 0 4 4, 4 4 4, 4 4 0, 0 4 0)),
	                      ((0 0 0, 0 0 4, 0 4 4, 0 4 0, 0 0 0)), ((4 0 0, 4 4 0, 4 4 4, 4 0 4, 4 0 0)))'),
	('multipolygon',    'MULTIPOLYGON Z(((10 10 0, 12 10 0, 12 12 0, 10 10 0)), ((0 0 1, 4 0 1, 0 4 1, 0 0 1)))'),
	('collection',      'GEOMETRYCOLLECTION Z(POINT Z(20 20 20), LINESTRING Z(1 1 -1, 1 1 1), TRIANGLE Z((30 30 0, 31 30 0, 30 31 0, 30 30 0)))'),
	('flat_2d_polygon', 'POLYGON((0 0, 4 0, 4 4, 0 4, 0 0))');

CREATE TABLE probes3d (name text PRIMARY KEY, geom geometry);
INSERT INTO probes3d VALUES
	('point_inside_face',     'POINT Z(1 1 0)'),
	('point_on_edge',         'POINT Z(2 0 0)'),
	('point_at_vertex',       'POINT Z(0 0 0)'),
	('point_above',           'POINT Z(1 1 1e-300)'),
	('multipoint_one_on',     'MULTIPOINT Z((9 9 9), (4 0 0))'),
	('hole_piercing',         'LINESTRING Z(1 1 5, 1 1 -5)'),
	('hole_touching_down',    'LINESTRING Z(1 1 5, 1 1 0)'),
	('hole_ending_short',     'LINESTRING Z(1 1 5, 1 1 1e-9)'),
	('hole_through_vertex',   'LINESTRING Z(-1 -1 -1, 1 1 1)'),
	('hole_in_face_plane',    'LINESTRING Z(-1 1 0, 5 1 0)'),
	('hole_along_edge',       'LINESTRING Z(-3 0 0, 1 0 0)'),
	('hole_parallel_above',   'LINESTRING Z(-3 0 1e-12, 9 0 1e-12)'),
	('polyline_bent_through', 'LINESTRING Z(-1 -1 3, 3 3 3, 3 3 -3)'),
	('multiline_second_hits', 'MULTILINESTRING Z((50 50 50, 60 60 60), (0.5 0.5 1, 0.5 0.5 -1))'),
	('triangle_crossing',     'TRIANGLE Z((1 1 -1, 2 1 1, 1 2 1, 1 1 -1))'),
	('triangle_sharing_edge', 'TRIANGLE Z((0 0 0, 4 0 0, 2 -3 5, 0 0 0))'),
	('triangle_coplanar_in',  'TRIANGLE Z((0.5 0.5 0, 1 0.5 0, 0.5 1 0, 0.5 0.5 0))'),
	('triangle_far',          'TRIANGLE Z((100 100 100, 101 100 100, 100 101 100, 100 100 100))'),
	('degenerate_triangle',   'TRIANGLE Z((-1 2 0, 1 2 0, 3 2 0, -1 2 0))'),
	('zero_length_segment',   'LINESTRING Z(3 0.5 0, 3 0.5 0)'),
	('point_in_hole_region',  'POINT Z(4 4 0)'),
	('point_2d',              'POINT(1 1)');

-- Every shape against every probe: the full matrix. A geometry without Z
-- meets one with Z only through ST_Force3D (z = 0): exactgpu refuses to
-- guess an elevation (see api.sql).
SELECT s.name AS shape, p.name AS probe, ST_ExactIntersects3D(ST_Force3D(s.geom), ST_Force3D(p.geom)) AS exact
FROM shapes3d s CROSS JOIN probes3d p
ORDER BY 1, 2;

-- The predicate is symmetric.
SELECT count(*) AS asymmetric
FROM shapes3d s CROSS JOIN probes3d p
WHERE ST_ExactIntersects3D(ST_Force3D(s.geom), ST_Force3D(p.geom)) <> ST_ExactIntersects3D(ST_Force3D(p.geom), ST_Force3D(s.geom));

-- Where PostGIS's ST_3DIntersects answers differently:
--  * point_above (1e-300 above the face): PostGIS's squared distance
--    underflows to 0, so it reports a touch that is not there;
--  * hole_ending_short against the collection: two collinear vertical
--    segments overlapping on z in [1e-9, 1]; PostGIS misses the overlap;
--  * 2D inputs (flat_2d_polygon, point_2d): PostGIS treats a missing Z as
--    "any value"; exactgpu refuses the mix, so they are given z = 0 here.
SET client_min_messages = warning;  -- PostGIS's NOTICE about missing Z
SELECT s.name AS shape, p.name AS probe, ST_ExactIntersects3D(ST_Force3D(s.geom), ST_Force3D(p.geom)) AS exact,
       ST_3DIntersects(s.geom, p.geom) AS postgis
FROM shapes3d s CROSS JOIN probes3d p
WHERE ST_ExactIntersects3D(ST_Force3D(s.geom), ST_Force3D(p.geom)) IS DISTINCT FROM ST_3DIntersects(s.geom, p.geom)
ORDER BY 1, 2;
RESET client_min_messages;

-- Empty geometries intersect nothing (as in PostGIS).
SELECT ST_ExactIntersects3D('POINT EMPTY', 'POINT(0 0)') AS empty_point,
       ST_ExactIntersects3D('GEOMETRYCOLLECTION EMPTY', geom) AS empty_collection,
       ST_ExactIntersects3D('TIN EMPTY', geom) AS empty_tin,
       ST_ExactIntersects3D('GEOMETRYCOLLECTION Z(POINT Z EMPTY, LINESTRING Z(1 1 -1, 1 1 1))', geom) AS partly_empty
FROM shapes3d WHERE name = 'triangle';

-- Self-intersection of identical geometries, and a surface against itself.
SELECT name, ST_ExactIntersects3D(geom, geom) AS self FROM shapes3d ORDER BY name;

DROP TABLE shapes3d, probes3d;
