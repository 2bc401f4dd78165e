-- Functions that treat a body as a volume refuse what ST_ExactIsValidSolid
-- refuses, with its reason; errors say what is wrong (issue 30). Each
-- message once.
SET exactgpu.device = 'cpu';
-- A 2 m cube as a closed, outward TIN of 12 triangles, at (x, y, z).
CREATE FUNCTION se_cube(x float8, y float8, z float8) RETURNS geometry
LANGUAGE sql IMMUTABLE AS $$
	SELECT ST_Translate('TIN Z (((0 0 0,0 2 0,2 2 0,0 0 0)),((0 0 0,2 2 0,2 0 0,0 0 0)),
	((0 0 2,2 0 2,2 2 2,0 0 2)),((0 0 2,2 2 2,0 2 2,0 0 2)),((0 0 0,2 0 0,2 0 2,0 0 0)),((0 0 0,2 0 2,0 0 2,0 0 0)),
	((2 0 0,2 2 0,2 2 2,2 0 0)),((2 0 0,2 2 2,2 0 2,2 0 0)),((2 2 0,0 2 0,0 2 2,2 2 0)),((2 2 0,0 2 2,2 2 2,2 2 0)),
	((0 2 0,0 0 0,0 0 2,0 2 0)),((0 2 0,0 0 2,0 2 2,0 2 0)))'::geometry, x, y, z) $$;
-- Two TINs as one (faces of a, then faces of b).
CREATE FUNCTION se_merge(a geometry, b geometry) RETURNS geometry
LANGUAGE sql IMMUTABLE AS $$
	SELECT ('TIN Z (' || substr(ST_AsText(a), 8, length(ST_AsText(a)) - 8) || ','
	        || substr(ST_AsText(b), 8, length(ST_AsText(b)) - 8) || ')')::geometry $$;
-- The issue's body: two overlapping 2 m cubes merged into one closed TIN.
-- Each shell is closed and outward, so only the self-intersection test sees
-- it: the signed sum is 16 (the union is 12) and parity puts the overlap
-- outside.
CREATE TABLE se_body AS SELECT 1 AS id, se_merge(se_cube(0, 0, 0), se_cube(1, 0, 0)) AS geom;
SELECT ST_NumGeometries(geom) AS faces, ST_ExactIsValidSolid(geom) AS valid FROM se_body;
SELECT ST_ExactIsValidSolidReason(geom) FROM se_body;
SELECT ST_ExactVolume(geom) FROM se_body;
SELECT ST_ExactLocate3D(geom, 'POINT Z (1.5 1 1)') FROM se_body;
SELECT ST_ExactIntersectsSolid3D(geom, 'POINT Z (1.5 1 1)') FROM se_body;
SELECT * FROM se_body, ST_ExactIntercepts3D('LINESTRING Z (1.5 1 -1, 1.5 1 3)', geom);
SELECT from_m FROM se_body, ST_ExactInterceptPieces3D('LINESTRING Z (1.5 1 -1, 1.5 1 3)', geom);
-- The face pair named is one that really crosses: checked with PostGIS on
-- the two faces (they meet, and share no vertex).
DO $$
DECLARE
	msg text;
	a int;
	b int;
	g geometry := (SELECT geom FROM se_body);
BEGIN
	BEGIN
		PERFORM ST_ExactVolume(g);
	EXCEPTION WHEN invalid_parameter_value THEN
		GET STACKED DIAGNOSTICS msg = MESSAGE_TEXT;
	END;
	a := (regexp_match(msg, 'faces (\d+) and (\d+)'))[1]::int;
	b := (regexp_match(msg, 'faces (\d+) and (\d+)'))[2]::int;
	RAISE NOTICE 'named pair crosses: %, shares no vertex: %',
		ST_3DIntersects(ST_GeometryN(g, a), ST_GeometryN(g, b)),
		NOT EXISTS (SELECT 1 FROM ST_DumpPoints(ST_GeometryN(g, a)) p, ST_DumpPoints(ST_GeometryN(g, b)) q
		            WHERE ST_Equals(p.geom, q.geom) AND ST_Z(p.geom) = ST_Z(q.geom));
END $$;
-- Batch and join forms refuse it too.
CREATE TABLE se_samples AS SELECT 7 AS id, 'POINT Z (1.5 1 1)'::geometry AS geom
	UNION ALL SELECT 8, 'LINESTRING Z (1.5 1 -1, 1.5 1 3)';
SELECT * FROM ST_ExactIntersectsSolid3DJoin('SELECT id, geom FROM se_body', 'SELECT id, geom FROM se_samples');
SELECT * FROM ST_ExactLocate3DJoin('SELECT id, geom FROM se_samples WHERE id = 7', 'SELECT id, geom FROM se_body');
SELECT * FROM ST_ExactIntercepts3DJoin('SELECT id, geom FROM se_samples WHERE id = 8', 'SELECT id, geom FROM se_body');
SELECT b.id, s.id FROM se_body b JOIN se_samples s ON ST_ExactIntersectsSolid3D(b.geom, s.geom);
-- The same two cubes apart are a valid solid of two shells: volume 16,
-- located, intersected and intercepted as before.
CREATE TABLE se_apart AS SELECT se_merge(se_cube(0, 0, 0), se_cube(3, 0, 0)) AS geom;
SELECT ST_ExactIsValidSolidReason(geom), ST_ExactVolume(geom) = 16 AS volume_16,
       ST_ExactLocate3D(geom, 'POINT Z (1.5 1 1)') AS p1, ST_ExactLocate3D(geom, 'POINT Z (2.5 1 1)') AS p2,
       ST_ExactIntersectsSolid3D(geom, 'POINT Z (4 1 1)') AS p3
FROM se_apart;
SELECT i.* FROM se_apart, ST_ExactIntercepts3D('LINESTRING Z (-1 1 1, 6 1 1)', geom) i;
-- A body with a cavity (a mirrored cube, so facing inward, inside a 4 m
-- cube) stays valid: 64 - 8.
CREATE TABLE se_cavity AS SELECT se_merge(ST_Scale(se_cube(0, 0, 0), 2, 2, 2),
	ST_Translate(ST_Scale(se_cube(0, 0, 0), -1, 1, 1), 3, 1, 1)) AS geom;
SELECT ST_ExactIsValidSolidReason(geom), ST_ExactVolume(geom) = 56 AS volume_56,
       ST_ExactLocate3D(geom, 'POINT Z (2 2 2)') AS in_cavity, ST_ExactLocate3D(geom, 'POINT Z (0.5 2 2)') AS in_rock
FROM se_cavity;

-- Two cubes sharing a face (triangulated across it differently), as one
-- surface: no valid solid (the volume refuses it), but no point is inside
-- both, so their inside (the union) is well defined: located and
-- intercepted as before, the shared face a boundary inside the union.
CREATE TABLE se_touch AS SELECT se_merge(se_cube(0, 0, 0), se_cube(2, 0, 0)) AS geom;
SELECT ST_ExactIsValidSolid(geom) AS valid, ST_ExactLocate3D(geom, 'POINT Z (1 1 1)') AS a,
       ST_ExactLocate3D(geom, 'POINT Z (3 1 1)') AS b, ST_ExactLocate3D(geom, 'POINT Z (2 1 1)') AS shared_face,
       ST_ExactLocate3D(geom, 'POINT Z (5 1 1)') AS beyond
FROM se_touch;
SELECT i.* FROM se_touch, ST_ExactIntercepts3D('LINESTRING Z (-1 1 1, 5 1 1)', geom) i;
SELECT count(*) AS pairs FROM ST_ExactIntersectsSolid3DJoin('SELECT 1, geom FROM se_touch',
	'SELECT 2, ''POINT Z (3 1 1)''::geometry UNION ALL SELECT 3, ''POINT Z (5 1 1)''::geometry');
SELECT ST_ExactVolume(geom) FROM se_touch;

-- Swapped arguments: the expected order, not "not a closed surface".
SELECT ST_ExactLocate3D('POINT Z (1 1 1)', se_cube(0, 0, 0));
SELECT ST_ExactIntersectsSolid3D('LINESTRING Z (1 1 -1, 1 1 3)', se_cube(0, 0, 0));
SELECT * FROM ST_ExactIntercepts3D(se_cube(0, 0, 0), 'LINESTRING Z (1 1 -1, 1 1 3)');
SELECT * FROM ST_ExactInterceptPieces3D(se_cube(0, 0, 0), 'LINESTRING Z (1 1 -1, 1 1 3)');
-- A point or a line alone where a body is expected.
SELECT ST_ExactVolume('POINT Z (1 1 1)');
SELECT ST_ExactIsValidSolidReason('LINESTRING Z (1 1 -1, 1 1 3)');
-- A body whose Z was dropped (by an import): "has no Z", not "self-intersecting"
-- (against a geometry with Z, the dimensions that do not match are said).
SELECT ST_ExactIsValidSolidReason(ST_Force2D(se_cube(0, 0, 0)));
SELECT ST_ExactVolume(ST_Force2D(se_cube(0, 0, 0)));
SELECT ST_ExactLocate3D(ST_Force2D(se_cube(0, 0, 0)), 'POINT Z (1 1 1)');
SELECT ST_ExactIntersectsSolid3D(ST_Force2D(se_cube(0, 0, 0)), 'POINT Z (1 1 1)');
SELECT * FROM ST_ExactIntercepts3D('LINESTRING Z (1 1 -1, 1 1 3)', ST_Force2D(se_cube(0, 0, 0)));
-- 2D against 2D meets in the plane z = 0: the flattened cube is its square
-- twice, facing both ways (no inside), so a point on it is on the boundary.
SELECT ST_ExactLocate3D(ST_Force2D(se_cube(0, 0, 0)), 'POINT (1 1)') AS flat_cube;
-- A body flattened where its faces overlap: said as no Z.

SELECT ST_ExactLocate3D(ST_Force2D(se_merge(se_cube(0, 0, 0), ST_Translate(ST_RotateZ(se_cube(0, 0, 0), 0.5), 0.5, 0.5, 0.5))), 'POINT (1 1)');
-- Open and inside out, as before, with their reasons.
SELECT ST_ExactLocate3D(ST_GeometryN(se_cube(0, 0, 0), 1), 'POINT Z (1 1 1)');
SELECT ST_ExactLocate3D(ST_Scale(se_cube(0, 0, 0), -1, 1, 1), 'POINT Z (-1 1 1)');
DROP TABLE se_body, se_samples, se_apart, se_cavity, se_touch;
DROP FUNCTION se_cube(float8, float8, float8), se_merge(geometry, geometry);
