-- Mesh validity: self-intersections and valid solids, decided exactly.
CREATE TABLE meshes (name text PRIMARY KEY, geom geometry);
INSERT INTO meshes VALUES
	('cube', 'POLYHEDRALSURFACE Z(((0 0 0, 0 1 0, 1 1 0, 1 0 0, 0 0 0)), ((0 0 1, 1 0 1, 1 1 1, 0 1 1, 0 0 1)),
	  ((0 0 0, 1 0 0, 1 0 1, 0 0 1, 0 0 0)), ((0 1 0, 0 1 1, 1 1 1, 1 1 0, 0 1 0)),
	  ((0 0 0, 0 0 1, 0 1 1, 0 1 0, 0 0 0)), ((1 0 0, 1 1 0, 1 1 1, 1 0 1, 1 0 0)))'),
	-- the same with its top face turned over
	('flipped face', 'POLYHEDRALSURFACE Z(((0 0 0, 0 1 0, 1 1 0, 1 0 0, 0 0 0)), ((0 0 1, 0 1 1, 1 1 1, 1 0 1, 0 0 1)),
	  ((0 0 0, 1 0 0, 1 0 1, 0 0 1, 0 0 0)), ((0 1 0, 0 1 1, 1 1 1, 1 1 0, 0 1 0)),
	  ((0 0 0, 0 0 1, 0 1 1, 0 1 0, 0 0 0)), ((1 0 0, 1 1 0, 1 1 1, 1 0 1, 1 0 0)))'),
	-- without its top face
	('open box', 'POLYHEDRALSURFACE Z(((0 0 0, 0 1 0, 1 1 0, 1 0 0, 0 0 0)),
	  ((0 0 0, 1 0 0, 1 0 1, 0 0 1, 0 0 0)), ((0 1 0, 0 1 1, 1 1 1, 1 1 0, 0 1 0)),
	  ((0 0 0, 0 0 1, 0 1 1, 0 1 0, 0 0 0)), ((1 0 0, 1 1 0, 1 1 1, 1 0 1, 1 0 0)))'),
	-- two octahedra overlapping: closed, manifold and oriented, but they cross
	('two octahedra', 'TIN Z(((1 0 0, 0 1 0, 0 0 1, 1 0 0)), ((0 1 0, -1 0 0, 0 0 1, 0 1 0)), ((-1 0 0, 0 -1 0, 0 0 1, -1 0 0)),
	  ((0 -1 0, 1 0 0, 0 0 1, 0 -1 0)), ((0 1 0, 1 0 0, 0 0 -1, 0 1 0)), ((-1 0 0, 0 1 0, 0 0 -1, -1 0 0)),
	  ((0 -1 0, -1 0 0, 0 0 -1, 0 -1 0)), ((1 0 0, 0 -1 0, 0 0 -1, 1 0 0)),
	  ((1.5 0 0, 0.5 1 0, 0.5 0 1, 1.5 0 0)), ((0.5 1 0, -0.5 0 0, 0.5 0 1, 0.5 1 0)), ((-0.5 0 0, 0.5 -1 0, 0.5 0 1, -0.5 0 0)),
	  ((0.5 -1 0, 1.5 0 0, 0.5 0 1, 0.5 -1 0)), ((0.5 1 0, 1.5 0 0, 0.5 0 -1, 0.5 1 0)), ((-0.5 0 0, 0.5 1 0, 0.5 0 -1, -0.5 0 0)),
	  ((0.5 -1 0, -0.5 0 0, 0.5 0 -1, 0.5 -1 0)), ((1.5 0 0, 0.5 -1 0, 0.5 0 -1, 1.5 0 0)))'),
	-- two cubes sharing an edge: four faces at that edge
	('cubes on an edge', 'POLYHEDRALSURFACE Z(((0 0 0, 0 1 0, 1 1 0, 1 0 0, 0 0 0)), ((0 0 1, 1 0 1, 1 1 1, 0 1 1, 0 0 1)),
	  ((0 0 0, 1 0 0, 1 0 1, 0 0 1, 0 0 0)), ((0 1 0, 0 1 1, 1 1 1, 1 1 0, 0 1 0)),
	  ((0 0 0, 0 0 1, 0 1 1, 0 1 0, 0 0 0)), ((1 0 0, 1 1 0, 1 1 1, 1 0 1, 1 0 0)),
	  ((1 1 0, 1 2 0, 2 2 0, 2 1 0, 1 1 0)), ((1 1 1, 2 1 1, 2 2 1, 1 2 1, 1 1 1)),
	  ((1 1 0, 2 1 0, 2 1 1, 1 1 1, 1 1 0)), ((1 2 0, 1 2 1, 2 2 1, 2 2 0, 1 2 0)),
	  ((1 1 0, 1 1 1, 1 2 1, 1 2 0, 1 1 0)), ((2 1 0, 2 2 0, 2 2 1, 2 1 1, 2 1 0)))'),
	('point', 'POINT Z(0 0 0)');

SELECT name, ST_ExactIsValidSolid(geom) AS valid, ST_ExactIsValidSolidReason(geom) AS reason
FROM meshes ORDER BY name COLLATE "C";
SELECT count(*) AS crossing_face_pairs FROM meshes, ST_ExactSelfIntersections3D(geom) WHERE name = 'two octahedra';
SELECT count(*) AS cube_pairs FROM meshes, ST_ExactSelfIntersections3D(geom) WHERE name = 'cube';

-- Contacts between two faces, one pair at a time:
SELECT label, (SELECT count(*) FROM ST_ExactSelfIntersections3D(g)) AS improper
FROM (VALUES
	-- a shared edge, not coplanar: proper
	('hinge', 'TIN Z(((0 0 0, 1 0 0, 0 1 0, 0 0 0)), ((1 0 0, 0 0 0, 0 -1 1, 1 0 0)))'::geometry),
	-- a shared edge, coplanar, third vertices on opposite sides: proper
	('flat neighbours', 'TIN Z(((0 0 0, 1 0 0, 0 1 0, 0 0 0)), ((1 0 0, 0 0 0, 0 -1 0, 1 0 0)))'),
	-- a shared edge, coplanar, third vertices on the same side: they overlap
	('folded flat', 'TIN Z(((0 0 0, 1 0 0, 0 1 0, 0 0 0)), ((1 0 0, 0 0 0, 0.25 0.25 0, 1 0 0)))'),
	-- a shared vertex only: proper
	('fan', 'TIN Z(((0 0 0, 2 0 0, 0 2 0, 0 0 0)), ((0 0 0, -1 -1 1, -1 0 1, 0 0 0)))'),
	-- a shared vertex, the other face passing through the first
	('pierced at a vertex', 'TIN Z(((0 0 0, 2 0 0, 0 2 0, 0 0 0)), ((0 0 0, 1 1 -1, 1 1 1, 0 0 0)))'),
	-- a shared vertex, coplanar, one inside the other
	('nested at a vertex', 'TIN Z(((0 0 0, 2 0 0, 0 2 0, 0 0 0)), ((0 0 0, 1 0.5 0, 0.5 1 0, 0 0 0)))'),
	-- a shared vertex, the other face's edge grazing the first's opposite edge
	('grazing', 'TIN Z(((0 0 0, 2 0 0, 0 2 0, 0 0 0)), ((0 0 0, 1 1 0, 1 1 1, 0 0 0)))'),
	-- nothing shared, touching at one point: improper
	('touching', 'TIN Z(((0 0 0, 2 0 0, 0 2 0, 0 0 0)), ((1 0.5 0, 1 0.5 1, 2 2 1, 1 0.5 0)))'),
	-- the same face twice
	('repeated', 'TIN Z(((0 0 0, 1 0 0, 0 1 0, 0 0 0)), ((0 1 0, 0 0 0, 1 0 0, 0 1 0)))'),
	-- one ulp apart from touching
	('one ulp off', ST_Collect(ARRAY['TRIANGLE Z((0 0 0, 2 0 0, 0 2 0, 0 0 0))'::geometry,
		ST_MakePolygon(ST_MakeLine(ARRAY[ST_MakePoint(1, 0.5, 2^(-52)), ST_MakePoint(1, 0.5, 1.0),
		                                 ST_MakePoint(2, 2, 1.0), ST_MakePoint(1, 0.5, 2^(-52))]))]))
	) c(label, g);
