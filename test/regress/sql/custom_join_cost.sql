-- A call of an exact predicate is priced from its arguments' widths (the
-- support function's answer to SupportRequestCost), not at the declared
-- COST 10000 whatever the geometries: a point in a 12-triangle cube is a
-- cheap call, the same point against 250 kB bodies parses a body a call.
-- PostgreSQL runs a scan's cheaper conditions first, so the order of a
-- filter shows the price: cjc_check, costed between the two, comes after
-- the call on small bodies and before the call on heavy ones.
SET exactgpu.device = 'cpu';
\set cube_fn cjc_cube
\i test/regress/fixtures/subdivided_cube.sql
-- the same five bodies, as 12 triangles and as 2,700
CREATE TABLE cjc_small (id int, geom geometry);
CREATE TABLE cjc_heavy (id int, geom geometry);
INSERT INTO cjc_small SELECT i, cjc_cube(i * 6, 0, 0, 4, 1) FROM generate_series(0, 4) i;
INSERT INTO cjc_heavy SELECT i, cjc_cube(i * 6, 0, 0, 4, 15) FROM generate_series(0, 4) i;
ANALYZE cjc_small;
ANALYZE cjc_heavy;
SELECT (SELECT max(octet_length(geom::bytea)) FROM cjc_small) < 2000 AS small,
	(SELECT min(octet_length(geom::bytea)) FROM cjc_heavy) > 200000 AS heavy;
-- 3,000 operators (7.5 units): dearer than a call on a point and a small
-- body, cheaper than one that parses a 250 kB body (about 160 units)
CREATE FUNCTION cjc_check(i int) RETURNS bool LANGUAGE plpgsql IMMUTABLE COST 3000 AS $$ BEGIN RETURN i >= 0; END $$;

EXPLAIN (COSTS OFF)
SELECT id FROM cjc_small WHERE ST_ExactIntersects3D(geom, 'POINT Z(6 2 4)') AND cjc_check(id);
EXPLAIN (COSTS OFF)
SELECT id FROM cjc_heavy WHERE ST_ExactIntersects3D(geom, 'POINT Z(6 2 4)') AND cjc_check(id);
-- the 2D predicate and the point-in-solid one alike
EXPLAIN (COSTS OFF)
SELECT id FROM cjc_small WHERE ST_ExactIntersects(geom, 'POINT(6 2)') AND cjc_check(id);
EXPLAIN (COSTS OFF)
SELECT id FROM cjc_heavy WHERE ST_ExactIntersectsSolid3D(geom, 'POINT Z(6 2 4)') AND cjc_check(id);
-- a width the planner cannot know (an expression): the declared cost
EXPLAIN (COSTS OFF)
SELECT id FROM cjc_small WHERE ST_ExactIntersects3D(ST_Translate(geom, 0, 0, 0), 'POINT Z(6 2 4)') AND cjc_check(id);
-- the answers do not depend on the order: (6 2 4) is on an edge of body 1
-- (the cube [6, 10] x [0, 4] x [0, 4]), (6 2) in its 2D area, (7 2 2)
-- inside it; the other bodies are 2 apart
SELECT (SELECT array_agg(id ORDER BY id) FROM cjc_small WHERE ST_ExactIntersects3D(geom, 'POINT Z(6 2 4)') AND cjc_check(id)) AS small,
	(SELECT array_agg(id ORDER BY id) FROM cjc_heavy WHERE ST_ExactIntersects3D(geom, 'POINT Z(6 2 4)') AND cjc_check(id)) AS heavy,
	(SELECT array_agg(id ORDER BY id) FROM cjc_small WHERE ST_ExactIntersects(geom, 'POINT(6 2)') AND cjc_check(id)) AS small_2d,
	(SELECT array_agg(id ORDER BY id) FROM cjc_heavy WHERE ST_ExactIntersectsSolid3D(geom, 'POINT Z(7 2 2)') AND cjc_check(id)) AS heavy_solid;

DROP TABLE cjc_small, cjc_heavy;
DROP FUNCTION cjc_check(int);
DROP FUNCTION cjc_cube(float8, float8, float8, float8, int);

-- The batch join's parallel work (parsing, the grid, the tests) is divided
-- by what its threads gain (exactgpu.worker_threads, never more than the
-- machine's cores; this part expects at least 2). 8,000 points x 2,000
-- parcels: on one thread the nested loop of index probes is cheaper
-- (measured on the 2-core build machine: 43 ms against 52 ms batched), on
-- two the batch join (31 ms): bench/results/2026-11-24-cpu2-cost-model-threads.md.
CREATE TABLE cjc_points (id int, geom geometry);
CREATE TABLE cjc_parcels (id int, geom geometry);
INSERT INTO cjc_points SELECT k, ST_MakePoint((k * 7919 % 100003) / 100.003, (k * 104729 % 99991) / 99.991)
	FROM generate_series(1, 8000) k;
INSERT INTO cjc_parcels SELECT k, ST_Buffer(ST_MakePoint((k * 7907 % 1009) * 0.991, (k * 6007 % 1013) * 0.987), 5, 8)
	FROM generate_series(1, 2000) k;
CREATE INDEX ON cjc_points USING gist (geom);
CREATE INDEX ON cjc_parcels USING gist (geom);
ANALYZE cjc_points;
ANALYZE cjc_parcels;
SET exactgpu.worker_threads = 1;
EXPLAIN (COSTS OFF)
SELECT p.id, g.id FROM cjc_points p JOIN cjc_parcels g ON ST_ExactIntersects(p.geom, g.geom);
CREATE TEMP TABLE cjc_nested AS
SELECT p.id AS pid, g.id AS gid FROM cjc_points p JOIN cjc_parcels g ON ST_ExactIntersects(p.geom, g.geom);
SET exactgpu.worker_threads = 2;
EXPLAIN (COSTS OFF)
SELECT p.id, g.id FROM cjc_points p JOIN cjc_parcels g ON ST_ExactIntersects(p.geom, g.geom);
CREATE TEMP TABLE cjc_batched AS
SELECT p.id AS pid, g.id AS gid FROM cjc_points p JOIN cjc_parcels g ON ST_ExactIntersects(p.geom, g.geom);
-- more threads than cores are costed as the cores, as they run
SET exactgpu.worker_threads = 1024;
EXPLAIN (COSTS OFF)
SELECT p.id, g.id FROM cjc_points p JOIN cjc_parcels g ON ST_ExactIntersects(p.geom, g.geom);
-- both plans find the same pairs
SELECT (SELECT count(*) FROM cjc_nested) AS pairs,
	(SELECT count(*) FROM (SELECT * FROM cjc_nested EXCEPT SELECT * FROM cjc_batched) d) AS only_nested,
	(SELECT count(*) FROM (SELECT * FROM cjc_batched EXCEPT SELECT * FROM cjc_nested) d) AS only_batched;
RESET exactgpu.worker_threads;
DROP TABLE cjc_points, cjc_parcels, cjc_nested, cjc_batched;
RESET exactgpu.device;
