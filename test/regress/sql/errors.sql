-- Bad input gets a clear ERROR with a SQLSTATE, never a crash or a wrong answer.
\set VERBOSITY default
\set SHOW_CONTEXT never

-- The SQLSTATE of each error, so the test pins the codes, not only the texts.
CREATE FUNCTION pg_temp.sqlstate_of(q text) RETURNS text LANGUAGE plpgsql AS $$
BEGIN
	EXECUTE q;
	RETURN 'no error';
EXCEPTION WHEN OTHERS THEN
	RETURN SQLSTATE || ': ' || SQLERRM;
END $$;

-- Mixed SRIDs (like PostGIS, SRID 0 against a real SRID is mixed too).
SELECT ST_ExactIntersects3D('SRID=32719;POINT(1 2)', 'SRID=4326;POINT(1 2)');
SELECT ST_ExactIntersects('SRID=32719;POINT(1 2)', 'POINT(1 2)');

-- Curves are not linearized silently.
SELECT ST_ExactIntersects3D('CIRCULARSTRING(0 0, 1 1, 2 0)', 'POINT(1 2)');
SELECT ST_ExactIntersects('CURVEPOLYGON(CIRCULARSTRING(0 0, 4 0, 4 4, 0 4, 0 0))', 'POINT(1 2)');
SELECT ST_ExactIntersects('MULTICURVE((0 0, 5 5), CIRCULARSTRING(4 0, 4 4, 8 4))', 'POINT(1 2)');

-- NaN and infinite coordinates.
SELECT ST_ExactIntersects3D(ST_MakePoint('NaN'::float8, 1, 2), 'POINT(1 1)');
SELECT ST_ExactIntersects(ST_MakeLine(ST_MakePoint(0, 0), ST_MakePoint('Infinity'::float8, 1)), 'POINT(1 1)');
SELECT ST_ExactOrientation2D(ST_MakePoint(0, '-Infinity'::float8), 'POINT(1 0)', 'POINT(0 1)');

-- A polygon face whose vertices are not exactly coplanar: an error by default...
SELECT ST_ExactIntersects3D('POLYGON Z((0 0 0, 4 0 0, 4 4 0.001, 0 4 0, 0 0 0))', 'POINT Z(1 1 0)');
-- ...or, on request, the triangles of its projection on the plane where it keeps its area.
SET exactgpu.nonplanar_faces = 'triangulate';
SELECT ST_ExactIntersects3D('POLYGON Z((0 0 0, 4 0 0, 4 4 0.001, 0 4 0, 0 0 0))', 'POINT Z(2 0 0)') AS on_boundary_edge;
RESET exactgpu.nonplanar_faces;
SELECT ST_ExactIntersects3D('POLYGON Z((0 0 0, 4 0 0, 4 4 0, 0 4 0, 0 0 0))', 'POINT Z(1 1 0)') AS planar_face_is_fine;
SET exactgpu.nonplanar_faces = 'sometimes';

-- A self-intersecting (bow-tie) face cannot be triangulated.
SELECT ST_ExactIntersects3D('POLYGON Z((0 0 0, 4 4 0, 4 0 0, 0 4 0, 0 0 0))', 'POINT Z(1 1 0)');

-- Every error above, with its SQLSTATE.
SELECT q, pg_temp.sqlstate_of(q) FROM (VALUES
	($$SELECT ST_ExactIntersects3D('SRID=32719;POINT(1 2)', 'SRID=4326;POINT(1 2)')$$),
	($$SELECT ST_ExactIntersects3D('CIRCULARSTRING(0 0, 1 1, 2 0)', 'POINT(1 2)')$$),
	($$SELECT ST_ExactIntersects3D(ST_MakePoint('NaN'::float8, 1, 2), 'POINT(1 1)')$$),
	($$SELECT ST_ExactIntersects3D('POLYGON Z((0 0 0, 4 0 0, 4 4 0.001, 0 4 0, 0 0 0))', 'POINT Z(1 1 0)')$$),
	($$SELECT ST_ExactIntersects3D('POLYGON Z((0 0 0, 4 4 0, 4 0 0, 0 4 0, 0 0 0))', 'POINT Z(1 1 0)')$$),
	($$SELECT ST_ExactOrientation2D('LINESTRING(0 0, 1 1)', 'POINT(1 0)', 'POINT(0 1)')$$),
	($$SET exactgpu.nonplanar_faces = 'sometimes'$$)
) v(q);

-- (Corrupted serialized bytes cannot be produced from SQL; the engine test
-- test_gserialized feeds every truncation and 10^5 random mutations of real
-- PostGIS bytes to the reader.)

