-- Large polygon faces answer (issue 16): a 10^5-vertex face and a face with
-- 10^4 holes, in the 2D and 3D predicates and the batch joins. The answers
-- are checked against PostGIS (ST_Intersects, ST_3DIntersects), which is
-- right here: no probe lies near the boundary. No timing is asserted (see
-- bench/results/2026-11-23-cpu2-large-faces.md).
CREATE TABLE lf_faces (name text, face geometry);
-- A jagged star at UTM coordinates: 10^5 vertices, radii 130 m to 1300 m.
INSERT INTO lf_faces
SELECT 'star, 10^5 vertices', ST_MakePolygon(ST_MakeLine(pt ORDER BY i))
FROM (SELECT i, ST_MakePoint(500000 + r * cos(a), 7000000 + r * sin(a), 100) AS pt
	  FROM (SELECT i, 2 * pi() * (i % 100000) / 100000 AS a,
				   130 + 1170 * ((i * 7919) % 1000) / 1000.0 AS r
			FROM generate_series(0, 100000) i) s) p;
-- A 1 km square with 100 x 100 square holes of 4 m on a 10 m grid.
INSERT INTO lf_faces
SELECT '10^4 holes', ST_MakePolygon(
	ST_MakeLine(ARRAY[ST_MakePoint(500000, 7000000, 100), ST_MakePoint(501000, 7000000, 100),
					  ST_MakePoint(501000, 7001000, 100), ST_MakePoint(500000, 7001000, 100),
					  ST_MakePoint(500000, 7000000, 100)]),
	array_agg(ST_MakeLine(ARRAY[ST_MakePoint(x + 3, y + 3, 100), ST_MakePoint(x + 7, y + 3, 100),
								ST_MakePoint(x + 7, y + 7, 100), ST_MakePoint(x + 3, y + 7, 100),
								ST_MakePoint(x + 3, y + 3, 100)])))
FROM (SELECT 500000 + 10 * i AS x, 7000000 + 10 * j AS y
	  FROM generate_series(0, 99) i, generate_series(0, 99) j) c;
SELECT name, ST_NPoints(face), ST_NumInteriorRings(face), ST_IsValid(face) FROM lf_faces ORDER BY name;

CREATE TABLE lf_probes (id bigint, geom geometry);
INSERT INTO lf_probes VALUES
	(1, 'POINT Z(500000 7000000 100)'),                                -- star centre, a corner of the square
	(2, 'POINT Z(502000 7000000 100)'),                                -- outside both
	(3, 'LINESTRING Z(500001 7000001 0, 500002 7000002 200)'),         -- crosses the faces' plane inside both
	(4, 'LINESTRING Z(500544 7000454 0, 500546 7000456 200)'),         -- crosses it in a hole
	(5, 'POINT Z(500545 7000455 100)'),                                -- centre of a hole
	(6, 'POINT Z(500541 7000451 100)'),                                -- between holes
	(7, 'LINESTRING Z(500545 7000455 0, 500546 7000456 99)'),          -- below the faces
	(8, 'LINESTRING Z(501200 7000000 100, 501350 7000050 100)'),       -- across the star's jagged rim
	(9, 'POINT Z(500000 7001000 100)');                                -- a corner of the holed square

CREATE TEMP TABLE lf_answers AS
SELECT f.name, p.id,
	ST_ExactIntersects(f.face, p.geom) AS exact2d,
	ST_ExactIntersects3D(f.face, p.geom) AS exact3d,
	ST_Intersects(f.face, p.geom) AS postgis2d,
	ST_3DIntersects(f.face, p.geom) AS postgis3d
FROM lf_faces f, lf_probes p;
SELECT * FROM lf_answers ORDER BY name, id;
SELECT count(*) AS differ_from_postgis FROM lf_answers
WHERE exact2d <> postgis2d OR exact3d <> postgis3d;

-- The batch joins give the same pairs.
CREATE TEMP TABLE lf_faces_id AS SELECT row_number() OVER (ORDER BY name) AS id, name, face FROM lf_faces;
SELECT count(*) AS join2d_differs FROM (
	(SELECT left_id, right_id FROM ST_ExactIntersectsJoin('SELECT id, face FROM lf_faces_id', 'SELECT id, geom FROM lf_probes')
	 EXCEPT SELECT f.id, a.id FROM lf_answers a JOIN lf_faces_id f USING (name) WHERE a.exact2d)
	UNION ALL
	(SELECT f.id, a.id FROM lf_answers a JOIN lf_faces_id f USING (name) WHERE a.exact2d
	 EXCEPT SELECT left_id, right_id FROM ST_ExactIntersectsJoin('SELECT id, face FROM lf_faces_id', 'SELECT id, geom FROM lf_probes'))) d;
SELECT count(*) AS join3d_differs FROM (
	(SELECT left_id, right_id FROM ST_ExactIntersects3DJoin('SELECT id, face FROM lf_faces_id', 'SELECT id, geom FROM lf_probes')
	 EXCEPT SELECT f.id, a.id FROM lf_answers a JOIN lf_faces_id f USING (name) WHERE a.exact3d)
	UNION ALL
	(SELECT f.id, a.id FROM lf_answers a JOIN lf_faces_id f USING (name) WHERE a.exact3d
	 EXCEPT SELECT left_id, right_id FROM ST_ExactIntersects3DJoin('SELECT id, face FROM lf_faces_id', 'SELECT id, geom FROM lf_probes'))) d;

DROP TABLE lf_faces, lf_probes;
