-- Plain SQL joins on ST_ExactIntersectsSolid3D (samples and holes in closed
-- bodies) run as one batch join (Custom Scan ExactJoin): the rows must be
-- those of the same query run row by row (exactgpu.enable_batch_join = off).
SET exactgpu.device = 'cpu';
\set cube_fn cjs_cube
\i test/regress/fixtures/cube.sql
-- bodies with text keys: cubes on a grid, one nested in another, one at UTM
-- coordinates; a NULL and an empty body
CREATE TABLE cjs_bodies (code text, grade float8, geom geometry);
INSERT INTO cjs_bodies
	SELECT format('OB-%s-%s', i, j), i + j / 10.0, cjs_cube(i * 6, j * 6, 0, 4)
	FROM generate_series(0, 4) i, generate_series(0, 4) j;
INSERT INTO cjs_bodies VALUES
	('OB-NESTED', 9, cjs_cube(1, 1, 1, 1)),
	('OB-UTM', 7, cjs_cube(500000, 7000000, -500, 2)),
	('OB-NULL', 0, NULL),
	('OB-EMPTY', 0, 'POLYHEDRALSURFACE Z EMPTY');
-- samples on a half-metre grid (many exactly on faces, edges and vertices),
-- at UTM coordinates, and a few holes (linestrings), a NULL and an empty one
CREATE TABLE cjs_samples (sid text, kind text, geom geometry);
INSERT INTO cjs_samples
	SELECT format('S%s', row_number() OVER ()), 'point', ST_MakePoint(x / 2.0, y / 2.0, z / 2.0)
	FROM generate_series(-1, 60) x, generate_series(-1, 20) y, generate_series(-1, 9) z;
INSERT INTO cjs_samples
	SELECT format('U%s', row_number() OVER ()), 'point', ST_MakePoint(500000 + x / 2.0, 7000000 + y / 2.0, -500 + z / 2.0)
	FROM generate_series(-1, 5) x, generate_series(-1, 5) y, generate_series(-1, 5) z;
INSERT INTO cjs_samples VALUES
	('H1', 'hole', 'LINESTRING Z(2 2 10, 2 2 -10)'),         -- through two nested cubes
	('H2', 'hole', 'LINESTRING Z(5 2 2, 5 2 3)'),            -- between cubes, touching none
	('H3', 'hole', 'LINESTRING Z(4 2 2, 6 2 2)'),            -- from one cube's face to the next's
	('H4', 'hole', 'LINESTRING Z(1.5 1.5 1.5, 1.6 1.6 1.6)'),-- inside the nested cube
	('HN', 'hole', NULL),
	('HE', 'hole', 'LINESTRING Z EMPTY');
CREATE INDEX ON cjs_bodies USING gist (geom gist_geometry_ops_nd);
CREATE INDEX ON cjs_samples USING gist (geom gist_geometry_ops_nd);
ANALYZE cjs_bodies;
ANALYZE cjs_samples;

-- The plans: a point in a small cube is a cheap call (about a microsecond,
-- priced from the arguments' widths), so each body probes the samples'
-- index (6 ms, against 39 ms batched); the semi join as a batch join (the
-- planner prices both within 1%: nested loops off, as the batch is faster,
-- 29 against 45 ms; bench/results/2026-11-24-cpu2-cost-model.md); off with
-- the GUC.
EXPLAIN (COSTS OFF)
SELECT s.sid, b.code FROM cjs_samples s JOIN cjs_bodies b ON ST_ExactIntersectsSolid3D(b.geom, s.geom);
SET enable_nestloop = off;
EXPLAIN (COSTS OFF)
SELECT s.sid FROM cjs_samples s WHERE EXISTS (SELECT FROM cjs_bodies b WHERE ST_ExactIntersectsSolid3D(b.geom, s.geom));
RESET enable_nestloop;
SET exactgpu.enable_batch_join = off;
EXPLAIN (COSTS OFF)
SELECT s.sid, b.code FROM cjs_samples s JOIN cjs_bodies b ON ST_ExactIntersectsSolid3D(b.geom, s.geom);

-- Heavy bodies (each face a 15 x 15 grid: 2,700 triangles, 250 kB a
-- body): the rows a probe returns are estimated from both columns'
-- statistics, not PostGIS's fixed 1e-4 of the table (2 rows), for small
-- and heavy bodies alike; a call on a point and a cached body stays cheap
-- and the body is parsed once a probe, so the nested loop is kept (6 ms,
-- against 450 ms batched; under the former 64 kB threshold each call was
-- priced at COST 10000 and the batch join was picked).
\set cube_fn cjs_heavy_cube
\i test/regress/fixtures/subdivided_cube.sql
CREATE TABLE cjs_heavy (code text, geom geometry);
INSERT INTO cjs_heavy SELECT format('HB-%s', i), cjs_heavy_cube(i * 12, 0, 0, 4, 15) FROM generate_series(0, 4) i;
CREATE INDEX ON cjs_heavy USING gist (geom gist_geometry_ops_nd);
ANALYZE cjs_heavy;
SELECT count(*) AS heavy_bodies, min(ST_NumGeometries(geom)) AS triangles, min(octet_length(geom::bytea)) > 65536 AS heavy FROM cjs_heavy;
CREATE FUNCTION cjs_probe_rows(q text) RETURNS float8 LANGUAGE plpgsql AS $$
DECLARE j json;
BEGIN
	EXECUTE 'EXPLAIN (FORMAT JSON) ' || q INTO j;
	RETURN (j->0->'Plan'->'Plans'->1->>'Plan Rows')::float8;
END $$;
SELECT cjs_probe_rows('SELECT s.sid, b.code FROM cjs_samples s JOIN cjs_bodies b ON ST_ExactIntersectsSolid3D(b.geom, s.geom)')
	BETWEEN 50 AND 50000 AS small_probe_estimated;
SELECT cjs_probe_rows('SELECT s.sid, b.code FROM cjs_samples s JOIN cjs_heavy b ON ST_ExactIntersectsSolid3D(b.geom, s.geom)')
	BETWEEN 50 AND 50000 AS heavy_probe_estimated;
-- Every row a probe returns is charged a call (0.5 units and more: 200
-- operators and the point's parse), not only the 2 PostGIS promised.
CREATE FUNCTION cjs_probe_charged(q text) RETURNS bool LANGUAGE plpgsql AS $$
DECLARE j json;
BEGIN
	EXECUTE 'EXPLAIN (FORMAT JSON) ' || q INTO j;
	RETURN (j->0->'Plan'->'Plans'->1->>'Total Cost')::float8 >=
		0.25 * (j->0->'Plan'->'Plans'->1->>'Plan Rows')::float8;
END $$;
SELECT cjs_probe_charged('SELECT s.sid, b.code FROM cjs_samples s JOIN cjs_heavy b ON ST_ExactIntersectsSolid3D(b.geom, s.geom)')
	AS index_probe_charged;
SET enable_indexscan = off;
SELECT cjs_probe_charged('SELECT s.sid, b.code FROM cjs_samples s JOIN cjs_heavy b ON ST_ExactIntersectsSolid3D(b.geom, s.geom)')
	AS bitmap_probe_charged;
RESET enable_indexscan;
DROP FUNCTION cjs_probe_charged(text);
RESET exactgpu.enable_batch_join;
EXPLAIN (COSTS OFF)
SELECT s.sid, b.code FROM cjs_samples s JOIN cjs_heavy b ON ST_ExactIntersectsSolid3D(b.geom, s.geom);
-- ... and so are bitmap probes, with index scans off (5 ms, against 430 ms)
SET enable_indexscan = off;
EXPLAIN (COSTS OFF)
SELECT s.sid, b.code FROM cjs_samples s JOIN cjs_heavy b ON ST_ExactIntersectsSolid3D(b.geom, s.geom);
RESET enable_indexscan;
SET exactgpu.enable_batch_join = off;
DROP FUNCTION cjs_probe_rows(text);

-- Row by row: every sample and hole in or on a body, and the samples in none.
CREATE TEMP TABLE cjs_rbr AS
	SELECT s.sid, s.kind, b.code, b.grade FROM cjs_samples s JOIN cjs_bodies b ON ST_ExactIntersectsSolid3D(b.geom, s.geom);
CREATE TEMP TABLE cjs_rbr_points AS
	SELECT s.sid, b.code FROM cjs_samples s JOIN cjs_bodies b ON ST_ExactIntersectsSolid3D(b.geom, s.geom)
	WHERE s.kind = 'point' AND b.grade > 1;
CREATE TEMP TABLE cjs_rbr_outside AS
	SELECT s.sid FROM cjs_samples s WHERE NOT EXISTS (SELECT FROM cjs_bodies b WHERE ST_ExactIntersectsSolid3D(b.geom, s.geom));
RESET exactgpu.enable_batch_join;
-- the batch forms below: the planner keeps nested loops on these cheap calls
SET enable_nestloop = off;
SELECT kind, count(*) AS pairs, count(DISTINCT sid) AS samples, count(DISTINCT code) AS bodies
FROM cjs_rbr GROUP BY kind ORDER BY kind COLLATE "C";
SELECT sid, code FROM cjs_rbr WHERE kind = 'hole' ORDER BY sid COLLATE "C", code COLLATE "C";

-- Plain JOIN = row by row: points and holes (the volume join) ...
SELECT count(*) AS differs FROM (
	(SELECT s.sid, s.kind, b.code, b.grade FROM cjs_samples s JOIN cjs_bodies b ON ST_ExactIntersectsSolid3D(b.geom, s.geom)
	 EXCEPT ALL SELECT * FROM cjs_rbr)
	UNION ALL
	(SELECT * FROM cjs_rbr EXCEPT ALL
	 SELECT s.sid, s.kind, b.code, b.grade FROM cjs_samples s JOIN cjs_bodies b ON ST_ExactIntersectsSolid3D(b.geom, s.geom))) d;
SELECT semantics FROM exactgpu_last_join_stats();
-- ... points only, filters on both sides (the point-in-solid join)
SELECT count(*) AS points_differ FROM (
	(SELECT s.sid, b.code FROM cjs_samples s JOIN cjs_bodies b ON ST_ExactIntersectsSolid3D(b.geom, s.geom)
	 WHERE s.kind = 'point' AND b.grade > 1
	 EXCEPT ALL SELECT * FROM cjs_rbr_points)
	UNION ALL
	(SELECT * FROM cjs_rbr_points EXCEPT ALL
	 SELECT s.sid, b.code FROM cjs_samples s JOIN cjs_bodies b ON ST_ExactIntersectsSolid3D(b.geom, s.geom)
	 WHERE s.kind = 'point' AND b.grade > 1)) d;
SELECT semantics, left_rows, right_rows, row_pairs = (SELECT count(*) FROM cjs_rbr_points) AS all_pairs
FROM exactgpu_last_join_stats();
-- ... semi and anti joins
SELECT count(*) AS semi_differs FROM (
	(SELECT s.sid FROM cjs_samples s WHERE EXISTS (SELECT FROM cjs_bodies b WHERE ST_ExactIntersectsSolid3D(b.geom, s.geom))
	 EXCEPT ALL SELECT DISTINCT sid FROM cjs_rbr)
	UNION ALL
	(SELECT DISTINCT sid FROM cjs_rbr EXCEPT ALL
	 SELECT s.sid FROM cjs_samples s WHERE EXISTS (SELECT FROM cjs_bodies b WHERE ST_ExactIntersectsSolid3D(b.geom, s.geom)))) d;
SELECT count(*) AS anti_differs FROM (
	(SELECT s.sid FROM cjs_samples s WHERE NOT EXISTS (SELECT FROM cjs_bodies b WHERE ST_ExactIntersectsSolid3D(b.geom, s.geom))
	 EXCEPT ALL SELECT * FROM cjs_rbr_outside)
	UNION ALL
	(SELECT * FROM cjs_rbr_outside EXCEPT ALL
	 SELECT s.sid FROM cjs_samples s WHERE NOT EXISTS (SELECT FROM cjs_bodies b WHERE ST_ExactIntersectsSolid3D(b.geom, s.geom)))) d;
-- ... and the same as the batch SRF
SELECT count(*) AS srf_differs FROM (
	(SELECT s.sid, b.code FROM cjs_samples s JOIN cjs_bodies b ON ST_ExactIntersectsSolid3D(b.geom, s.geom)
	 EXCEPT ALL
	 SELECT s.sid, b.code FROM ST_ExactIntersectsSolid3DJoin(
		'SELECT row_number() OVER (ORDER BY code), geom FROM cjs_bodies ORDER BY code',
		'SELECT row_number() OVER (ORDER BY sid), geom FROM cjs_samples ORDER BY sid') j
	 JOIN (SELECT row_number() OVER (ORDER BY code) AS n, code FROM cjs_bodies) b ON b.n = j.left_id
	 JOIN (SELECT row_number() OVER (ORDER BY sid) AS n, sid FROM cjs_samples) s ON s.n = j.right_id)) d;

-- A body that is not closed is an error, batched or row by row.
INSERT INTO cjs_bodies VALUES ('OB-OPEN', 1, 'TIN Z(((0 0 0, 1 0 0, 0 1 0, 0 0 0)))');
SELECT count(*) FROM cjs_samples s JOIN cjs_bodies b ON ST_ExactIntersectsSolid3D(b.geom, s.geom);
SET exactgpu.enable_batch_join = off;
SELECT count(*) FROM cjs_samples s JOIN cjs_bodies b ON ST_ExactIntersectsSolid3D(b.geom, s.geom);
RESET exactgpu.enable_batch_join;

RESET enable_nestloop;
DROP TABLE cjs_samples, cjs_bodies, cjs_heavy;
DROP FUNCTION cjs_heavy_cube(float8, float8, float8, float8, int);
DROP FUNCTION cjs_cube(float8, float8, float8, float8);
RESET exactgpu.device;
