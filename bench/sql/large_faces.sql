-- Large polygon faces (issue 16): one call of each predicate on a 10^5-vertex
-- face and on a face with 10^4 holes (the faces of test/regress/sql/
-- large_faces.sql), each in its own statement so that parsing, validation,
-- triangulation and indexing are all in the time; PostGIS alongside.
-- Run: psql -X [-v with_many=1] -f bench/sql/large_faces.sql  (a database
-- with exactgpu, psql on the server's machine: after each statement the
-- backend's CPU time so far is printed from /proc, since wall time on a
-- shared machine says little).
\set ON_ERROR_STOP 0
SET statement_timeout = '180s';
CREATE TEMP TABLE lf_faces (name text, face geometry);
INSERT INTO lf_faces
SELECT 'star', ST_MakePolygon(ST_MakeLine(pt ORDER BY i))
FROM (SELECT i, ST_MakePoint(500000 + r * cos(a), 7000000 + r * sin(a), 100) AS pt
	  FROM (SELECT i, 2 * pi() * (i % 100000) / 100000 AS a,
				   130 + 1170 * ((i * 7919) % 1000) / 1000.0 AS r
			FROM generate_series(0, 100000) i) s) p;
INSERT INTO lf_faces
SELECT 'holes', ST_MakePolygon(
	ST_MakeLine(ARRAY[ST_MakePoint(500000, 7000000, 100), ST_MakePoint(501000, 7000000, 100),
					  ST_MakePoint(501000, 7001000, 100), ST_MakePoint(500000, 7001000, 100),
					  ST_MakePoint(500000, 7000000, 100)]),
	array_agg(ST_MakeLine(ARRAY[ST_MakePoint(x + 3, y + 3, 100), ST_MakePoint(x + 7, y + 3, 100),
								ST_MakePoint(x + 7, y + 7, 100), ST_MakePoint(x + 3, y + 7, 100),
								ST_MakePoint(x + 3, y + 3, 100)])))
FROM (SELECT 500000 + 10 * i AS x, 7000000 + 10 * j AS y
	  FROM generate_series(0, 99) i, generate_series(0, 99) j) c;
SELECT name, ST_NPoints(face) FROM lf_faces ORDER BY name;
SELECT pg_backend_pid() AS backend_pid \gset
\setenv BACKEND_PID :backend_pid
\set cpu '\\! awk \'{printf "backend cpu %.2f s\\n", ($14 + $15) / 100}\' /proc/$BACKEND_PID/stat'
:cpu
\timing on
\echo star, 10^5 vertices: ST_ExactIntersects3D, ST_ExactIntersects, ST_3DIntersects, ST_Intersects (point inside)
SELECT ST_ExactIntersects3D(face, 'POINT Z(500000 7000000 100)') FROM lf_faces WHERE name = 'star';
:cpu
SELECT ST_ExactIntersects(face, 'POINT Z(500000 7000000 100)') FROM lf_faces WHERE name = 'star';
:cpu
SELECT ST_3DIntersects(face, 'POINT Z(500000 7000000 100)') FROM lf_faces WHERE name = 'star';
:cpu
SELECT ST_Intersects(face, 'POINT Z(500000 7000000 100)') FROM lf_faces WHERE name = 'star';
:cpu
\echo 10^4 holes: ST_ExactIntersects3D, ST_ExactIntersects, ST_3DIntersects, ST_Intersects (point between holes)
SELECT ST_ExactIntersects3D(face, 'POINT Z(500541 7000451 100)') FROM lf_faces WHERE name = 'holes';
:cpu
SELECT ST_ExactIntersects(face, 'POINT Z(500541 7000451 100)') FROM lf_faces WHERE name = 'holes';
:cpu
SELECT ST_3DIntersects(face, 'POINT Z(500541 7000451 100)') FROM lf_faces WHERE name = 'holes';
:cpu
SELECT ST_Intersects(face, 'POINT Z(500541 7000451 100)') FROM lf_faces WHERE name = 'holes';
:cpu
\if :{?with_many}
\echo row-by-row: 1000 probes against each face in one statement (parsed and indexed once)
SELECT name, count(*) FILTER (WHERE ST_ExactIntersects3D(face, p)) AS hits3d
FROM lf_faces, (SELECT ST_MakePoint(500000 + (i * 7) % 1000 + 0.5, 7000000 + (i * 13) % 1000 + 0.5, 100) AS p
				FROM generate_series(1, 1000) i) q GROUP BY name ORDER BY name;
:cpu
SELECT name, count(*) FILTER (WHERE ST_ExactIntersects(face, p)) AS hits2d
FROM lf_faces, (SELECT ST_MakePoint(500000 + (i * 7) % 1000 + 0.5, 7000000 + (i * 13) % 1000 + 0.5, 100) AS p
				FROM generate_series(1, 1000) i) q GROUP BY name ORDER BY name;
:cpu
\endif
