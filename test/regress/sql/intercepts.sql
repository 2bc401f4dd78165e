-- Intercepts as geometry: ST_ExactInterceptPieces3D gives each intercept's
-- entry and exit points, the contact kind at each (face, edge, vertex: how
-- many planes of the surface meet there; start/end: the hole begins or ends
-- inside), what the hole does (through, along the surface, grazing) and the
-- piece inside as a LINESTRING ZM whose M is the depth. Every expected value
-- below is worked out by hand from the cube's coordinates.
CREATE TABLE ic_body (name text PRIMARY KEY, geom geometry);
-- a 4 m cube as a TIN: each square face cut by a diagonal into two triangles
INSERT INTO ic_body VALUES ('cube', 'TIN Z (((0 0 0,0 4 0,4 4 0,0 0 0)),((0 0 0,4 4 0,4 0 0,0 0 0)),
	((0 0 4,4 0 4,4 4 4,0 0 4)),((0 0 4,4 4 4,0 4 4,0 0 4)),((0 0 0,4 0 0,4 0 4,0 0 0)),((0 0 0,4 0 4,0 0 4,0 0 0)),
	((4 0 0,4 4 0,4 4 4,4 0 0)),((4 0 0,4 4 4,4 0 4,4 0 0)),((4 4 0,0 4 0,0 4 4,4 4 0)),((4 4 0,0 4 4,4 4 4,4 4 0)),
	((0 4 0,0 0 0,0 0 4,0 4 0)),((0 4 0,0 0 4,0 4 4,0 4 0)))');
INSERT INTO ic_body SELECT 'utm cube', ST_Translate(geom, 500000, 7000000, -500) FROM ic_body WHERE name = 'cube';
INSERT INTO ic_body VALUES ('open box', 'TIN Z (((0 0 0,0 4 0,4 4 0,0 0 0)),((0 0 0,4 4 0,4 0 0,0 0 0)))');
CREATE TABLE ic_holes (case_name text PRIMARY KEY, body text, geom geometry);
INSERT INTO ic_holes VALUES
	('through two faces',        'cube', 'LINESTRING Z(1 1 5, 1 1 -1)'),
	('through face diagonals',   'cube', 'LINESTRING Z(2 2 5, 2 2 -1)'),
	('through two edges',        'cube', 'LINESTRING Z(5 2 5, -1 2 -1)'),
	('through two vertices',     'cube', 'LINESTRING Z(5 5 5, -1 -1 -1)'),
	('grazing a vertex',         'cube', 'LINESTRING Z(2 2 5, 4 4 4, 6 6 5)'),
	('grazing an edge',          'cube', 'LINESTRING Z(5 2 5, 4 2 4, 5 2 3)'),
	('grazing a face',           'cube', 'LINESTRING Z(1 1 5, 1.5 1 4, 2 1 5)'),
	('along a face',             'cube', 'LINESTRING Z(-1 2 4, 5 2 4)'),
	('along a face, then in',    'cube', 'LINESTRING Z(-1 1 4, 1 1 4, 1 1 -1)'),
	('starts inside',            'cube', 'LINESTRING Z(2 2 2, 2 2 6)'),
	('ends inside',              'cube', 'LINESTRING Z(2 2 6, 2 2 2)'),
	('wholly inside',            'cube', 'LINESTRING Z(1 1 1, 3 3 3)'),
	('misses',                   'cube', 'LINESTRING Z(5 5 5, 6 6 6)'),
	('in, out and in again',     'cube', 'LINESTRING Z(1 1 5, 1 1 2, 3 1 2, 3 1 -1)'),
	('out and back in',          'cube', 'LINESTRING Z(1 1 3, 1 1 5, 3 1 5, 3 1 3)'),
	('multilinestring, joined',  'cube', 'MULTILINESTRING Z((2 2 6, 2 2 3), (2 2 3, 2 2 1))'),
	('at UTM coordinates',       'utm cube', 'LINESTRING Z(500001 7000001 -495, 500001 7000001 -501)');

SELECT h.case_name, round(i.from_m::numeric, 12) AS from_m, round(i.to_m::numeric, 12) AS to_m,
       i.kind, i.entry_contact, i.exit_contact,
       ST_AsText(i.entry_point) AS entry_point, ST_AsText(i.exit_point) AS exit_point
FROM ic_holes h JOIN ic_body b ON b.name = h.body
LEFT JOIN LATERAL ST_ExactInterceptPieces3D(h.geom, b.geom) i ON true
ORDER BY h.case_name, i.from_m;

-- The pieces: LINESTRING ZM through the hole's vertices inside, M = depth
-- (a grazing contact is its point twice).
SELECT h.case_name, ST_AsText(i.piece) AS piece, GeometryType(i.piece) AS type, ST_Zmflag(i.piece) AS zm,
       ST_M(ST_StartPoint(i.piece)) = i.from_m AND ST_M(ST_EndPoint(i.piece)) = i.to_m AS m_is_depth,
       ST_SRID(i.piece) = ST_SRID(h.geom) AS same_srid
FROM ic_holes h JOIN ic_body b ON b.name = h.body,
     ST_ExactInterceptPieces3D(h.geom, b.geom) i
WHERE h.case_name IN ('in, out and in again', 'out and back in', 'grazing a vertex', 'multilinestring, joined', 'along a face, then in')
ORDER BY h.case_name, i.from_m;

-- PostGIS reads the pieces back: 3D length equals to_m - from_m here, and the
-- entry and exit points lie on the surface.
SELECT h.case_name, round(ST_3DLength(i.piece)::numeric, 12) = round((i.to_m - i.from_m)::numeric, 12) AS length_matches,
       ST_ExactLocate3D(b.geom, i.entry_point) AS entry, ST_ExactLocate3D(b.geom, i.exit_point) AS exit
FROM ic_holes h JOIN ic_body b ON b.name = h.body,
     ST_ExactInterceptPieces3D(h.geom, b.geom) i
WHERE i.kind = 'through'
ORDER BY h.case_name, i.from_m;

-- ST_ExactIntercepts3D gives the same intervals.
SELECT count(*) AS differences FROM (
	(SELECT h.case_name, i.from_m, i.to_m FROM ic_holes h JOIN ic_body b ON b.name = h.body,
	        ST_ExactInterceptPieces3D(h.geom, b.geom) i
	 EXCEPT
	 SELECT h.case_name, i.from_m, i.to_m FROM ic_holes h JOIN ic_body b ON b.name = h.body,
	        ST_ExactIntercepts3D(h.geom, b.geom) i)
	UNION ALL
	(SELECT h.case_name, i.from_m, i.to_m FROM ic_holes h JOIN ic_body b ON b.name = h.body,
	        ST_ExactIntercepts3D(h.geom, b.geom) i
	 EXCEPT
	 SELECT h.case_name, i.from_m, i.to_m FROM ic_holes h JOIN ic_body b ON b.name = h.body,
	        ST_ExactInterceptPieces3D(h.geom, b.geom) i)) d;

-- A crossing point that is not a double: the hole (0 0 5) -> (1 2 -1) meets
-- the top face at parameter 1/6, the point (1/6, 1/3, 4); the entry is that
-- point with each coordinate rounded once, its depth the parameter rounded
-- once times the segment's length sqrt(41).
SELECT ST_X(entry_point) = 1::float8 / 6 AND ST_Y(entry_point) = 1::float8 / 3 AND ST_Z(entry_point) = 4
         AS entry_rounded_once,
       from_m = (1::float8 / 6) * sqrt(41::float8) AS from_as_documented,
       to_m = (5::float8 / 6) * sqrt(41::float8) AS to_as_documented,
       entry_contact, exit_contact
FROM ST_ExactInterceptPieces3D('LINESTRING Z(0 0 5, 1 2 -1)', (SELECT geom FROM ic_body WHERE name = 'cube'));

-- Errors.
SELECT * FROM ST_ExactIntercepts3D('MULTILINESTRING Z((2 2 6, 2 2 3), (2 2 2, 2 2 1))', (SELECT geom FROM ic_body WHERE name = 'cube'));
SELECT * FROM ST_ExactInterceptPieces3D('POINT Z(2 2 2)', (SELECT geom FROM ic_body WHERE name = 'cube'));
SELECT * FROM ST_ExactInterceptPieces3D('LINESTRING Z(1 1 5, 1 1 -1)', (SELECT geom FROM ic_body WHERE name = 'open box'));
SELECT * FROM ST_ExactInterceptPieces3D(ST_SetSRID('LINESTRING Z(1 1 5, 1 1 -1)'::geometry, 32719), (SELECT geom FROM ic_body WHERE name = 'cube'));
-- empty inputs: no intercepts
SELECT count(*) FROM ST_ExactInterceptPieces3D('LINESTRING Z EMPTY', (SELECT geom FROM ic_body WHERE name = 'cube'));
SELECT count(*) FROM ST_ExactInterceptPieces3D('MULTILINESTRING Z(EMPTY, (2 2 6, 2 2 2))', (SELECT geom FROM ic_body WHERE name = 'cube'));

DROP TABLE ic_holes, ic_body;
