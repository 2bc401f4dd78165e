-- Solids: exact point location in closed surfaces, bodies as volumes in
-- ST_ExactIntersectsSolid3D, and drill-hole intercepts.
\i test/regress/fixtures/sfcgal.sql
CREATE TABLE solid_bodies (name text PRIMARY KEY, geom geometry);
INSERT INTO solid_bodies VALUES
	-- a 4 m cube as a polyhedral surface (quad faces, triangulated exactly)
	('cube', 'POLYHEDRALSURFACE Z(((0 0 0, 0 4 0, 4 4 0, 4 0 0, 0 0 0)), ((0 0 4, 4 0 4, 4 4 4, 0 4 4, 0 0 4)),
	         ((0 0 0, 4 0 0, 4 0 4, 0 0 4, 0 0 0)), ((0 4 0, 0 4 4, 4 4 4, 4 4 0, 0 4 0)),
	         ((0 0 0, 0 0 4, 0 4 4, 0 4 0, 0 0 0)), ((4 0 0, 4 4 0, 4 4 4, 4 0 4, 4 0 0)))'),
	-- an octahedron at UTM coordinates, as a TIN: |x - x0| + |y - y0| + |z - z0| <= 8
	('octa', 'TIN Z(((500008 7000000 -500, 500000 7000008 -500, 500000 7000000 -492, 500008 7000000 -500)),
	               ((500000 7000008 -500, 499992 7000000 -500, 500000 7000000 -492, 500000 7000008 -500)),
	               ((499992 7000000 -500, 500000 6999992 -500, 500000 7000000 -492, 499992 7000000 -500)),
	               ((500000 6999992 -500, 500008 7000000 -500, 500000 7000000 -492, 500000 6999992 -500)),
	               ((500000 7000008 -500, 500008 7000000 -500, 500000 7000000 -508, 500000 7000008 -500)),
	               ((499992 7000000 -500, 500000 7000008 -500, 500000 7000000 -508, 499992 7000000 -500)),
	               ((500000 6999992 -500, 499992 7000000 -500, 500000 7000000 -508, 500000 6999992 -500)),
	               ((500008 7000000 -500, 500000 6999992 -500, 500000 7000000 -508, 500008 7000000 -500)))'),
	-- an open surface (one triangle): no inside
	('open', 'TIN Z(((0 0 0, 1 0 0, 0 1 0, 0 0 0)))');

-- Location of points: inside, outside, and on faces, edges and vertices.
SELECT b.name, p.label, ST_ExactLocate3D(b.geom, p.pt) AS location
FROM solid_bodies b, (VALUES
	('center',          'POINT Z(2 2 2)'::geometry),
	('on a face',       'POINT Z(4 1 3)'),
	('on a diagonal',   'POINT Z(1 1 0)'),
	('on an edge',      'POINT Z(4 4 2)'),
	('at a vertex',     'POINT Z(0 0 4)'),
	('outside',         'POINT Z(5 1 1)'),
	('one ulp above',   ST_MakePoint(2, 2, 4 + 2^(-50))),
	('one ulp below',   ST_MakePoint(2, 2, 4 - 2^(-50)))) p(label, pt)
WHERE b.name = 'cube' ORDER BY p.label COLLATE "C";
SELECT p.label, ST_ExactLocate3D(b.geom, p.pt) AS location
FROM solid_bodies b, (VALUES
	('center',            'POINT Z(500000 7000000 -500)'::geometry),
	('apex',              'POINT Z(500000 7000000 -492)'),
	('on a face',         'POINT Z(500002 7000002 -496)'),
	-- one ulp of 496 is 2^-44: the nearest doubles on either side of the face
	('one ulp outside',   ST_MakePoint(500002, 7000002, -496 + 2^(-44))),
	('one ulp inside',    ST_MakePoint(500002, 7000002, -496 - 2^(-44)))) p(label, pt)
WHERE b.name = 'octa' ORDER BY p.label COLLATE "C";

-- The surface must be closed (every edge shared by an even number of faces).
SELECT ST_ExactLocate3D(geom, 'POINT Z(0.1 0.1 0)') FROM solid_bodies WHERE name = 'open';
SELECT ST_ExactLocate3D(geom, 'LINESTRING Z(0 0 0, 1 1 1)') FROM solid_bodies WHERE name = 'cube';
SELECT ST_ExactLocate3D(geom, 'POINT EMPTY') FROM solid_bodies WHERE name = 'cube';

-- A hole wholly inside the cube: the surface misses it, the volume holds it.
-- ST_ExactIntersects3D treats every surface as a surface, flagged solid by
-- ST_MakeSolid or not (the flag does not survive text, WKB or pg_dump);
-- ST_ExactIntersectsSolid3D(solid, geom) says "volume" in the query.
SELECT kind,
       ST_ExactIntersects3D(geom, 'LINESTRING Z(1 1 1, 3 3 3)') AS surface_hole,
       ST_ExactIntersectsSolid3D(geom, 'LINESTRING Z(1 1 1, 3 3 3)') AS hole_inside,
       ST_ExactIntersectsSolid3D(geom, 'POINT Z(2 2 2)') AS sample_inside,
       ST_ExactIntersectsSolid3D(geom, 'POINT Z(4 2 2)') AS sample_on_face,
       ST_ExactIntersectsSolid3D(geom, 'LINESTRING Z(5 5 5, 6 6 6)') AS hole_outside
FROM (SELECT 'surface' AS kind, geom FROM solid_bodies WHERE name = 'cube'
      UNION ALL SELECT 'ST_MakeSolid', ST_MakeSolid(geom) FROM solid_bodies WHERE name = 'cube') b
ORDER BY kind COLLATE "C";
-- A triangle inside the octahedron, and one a hair above its apex.
SELECT ST_ExactIntersectsSolid3D(geom,
         'TRIANGLE Z((500000 7000000 -499, 500001 7000000 -499, 500000 7000001 -499, 500000 7000000 -499))') AS inside,
       ST_ExactIntersectsSolid3D(geom,
         ST_MakePolygon(ST_MakeLine(ARRAY[ST_MakePoint(500000, 7000000, -492 + 2^(-44)),
                                          ST_MakePoint(500001, 7000000, -491),
                                          ST_MakePoint(500000, 7000001, -491),
                                          ST_MakePoint(500000, 7000000, -492 + 2^(-44))]))) AS above_apex
FROM solid_bodies WHERE name = 'octa';
-- Two bodies: the small one nested in the big one meets its volume, not
-- its surface; the volume of the small one does not hold the big surface.
SELECT ST_ExactIntersectsSolid3D(a.geom, ST_Translate(ST_Scale(a.geom, 0.25, 0.25, 0.25), 1, 1, 1)) AS big_holds_small,
       ST_ExactIntersectsSolid3D(ST_Translate(ST_Scale(a.geom, 0.25, 0.25, 0.25), 1, 1, 1), a.geom) AS small_holds_big,
       ST_ExactIntersects3D(a.geom, ST_Translate(ST_Scale(a.geom, 0.25, 0.25, 0.25), 1, 1, 1)) AS surfaces_meet
FROM solid_bodies a WHERE a.name = 'cube';
-- The volume predicate needs a closed body.
SELECT ST_ExactIntersectsSolid3D(geom, 'POINT Z(0.1 0.1 0)') FROM solid_bodies WHERE name = 'open';

-- Drill-hole intercepts: depth intervals (along the 3D polyline) inside the body.
-- Straight through the cube: enters at 1 m, leaves at 5 m.
SELECT * FROM ST_ExactIntercepts3D('LINESTRING Z(2 2 5, 2 2 -1)', (SELECT geom FROM solid_bodies WHERE name = 'cube'));
-- A bent hole that leaves and re-enters; the kink lies outside.
SELECT * FROM ST_ExactIntercepts3D('LINESTRING Z(1 1 5, 1 1 1, 1 6 1, 3 6 1, 3 1 1)',
                                   (SELECT geom FROM solid_bodies WHERE name = 'cube'));
-- Starting inside, and lying along a face (the boundary counts as inside).
SELECT * FROM ST_ExactIntercepts3D('LINESTRING Z(2 2 2, 2 2 -3)', (SELECT geom FROM solid_bodies WHERE name = 'cube'));
SELECT * FROM ST_ExactIntercepts3D('LINESTRING Z(-1 0 2, 5 0 2)', (SELECT geom FROM solid_bodies WHERE name = 'cube'));
-- Grazing a vertex: a zero-length interval; missing by one ulp: nothing.
SELECT * FROM ST_ExactIntercepts3D('LINESTRING Z(-1 -1 3, 1 1 5)', (SELECT geom FROM solid_bodies WHERE name = 'cube'));
SELECT count(*) FROM ST_ExactIntercepts3D(ST_MakeLine(ST_MakePoint(-1, -1, 3.0), ST_MakePoint(1, 1, 5 + 2^(-50))),
                                          (SELECT geom FROM solid_bodies WHERE name = 'cube'));
-- Through the octahedron at UTM coordinates, along the x axis: in at 2 m, out at 18 m.
SELECT * FROM ST_ExactIntercepts3D('LINESTRING Z(499990 7000000 -500, 500010 7000000 -500)',
                                   (SELECT geom FROM solid_bodies WHERE name = 'octa'));
-- A face at x = 1/3 (its nearest double): entry depth 4/3 m, within one rounding.
SELECT abs(from_m - 4.0/3) < 3e-16 AS entry_exact_enough, to_m
FROM ST_ExactIntercepts3D('LINESTRING Z(-1 2 2, 5 2 2)',
                          (SELECT ST_Translate(geom, 1.0/3, 0, 0) FROM solid_bodies WHERE name = 'cube'));
