-- The GPU service (exactgpu.gpu_service = on in this cluster, exactgpu
-- preloaded; without a GPU the service joins on its CPU pool, which is how
-- its plumbing is tested where there is no GPU). Every join the service
-- runs must give the pairs the backend gives joining itself
-- (exactgpu.device = 'cpu' keeps a join in the backend).
SET client_min_messages = warning;
-- the probe join answers a few rows against resident bodies on the CPU,
-- before any GPU: off here, so that these joins reach the service
SET exactgpu.probe_join = off;
SELECT setseed(0.25);
SELECT running, starts >= 1 AS started, state, lanes >= 1 AS has_lanes FROM exactgpu_gpu_service;
CREATE TEMP TABLE served0 AS SELECT joins_served, joins_cancelled FROM exactgpu_gpu_service;

\set cube_fn sv_cube
\i test/regress/fixtures/subdivided_cube.sql
-- 12 closed bodies of 1,200 triangles (out of line), holes, points, 2D parcels
CREATE TABLE sv_bodies (id int PRIMARY KEY, geom geometry);
INSERT INTO sv_bodies SELECT i, sv_cube(2 * i, 0, 0, 1.5, 10) FROM generate_series(0, 11) i;
CREATE TABLE sv_holes (id int, geom geometry);
INSERT INTO sv_holes SELECT i, ST_MakeLine(ST_MakePoint(x, y, -1), ST_MakePoint(x + 0.3, y + 0.1, 2.5))
FROM (SELECT i, 24 * random() AS x, 1.6 * random() AS y FROM generate_series(1, 300) i) s;
-- holes on the bodies' faces and edges: degenerate contacts
INSERT INTO sv_holes SELECT 1000 + i, ST_MakeLine(ST_MakePoint(2 * i, 0, -1), ST_MakePoint(2 * i, 0, 3))
FROM generate_series(0, 11) i;
CREATE TABLE sv_points (id bigint, geom geometry);
INSERT INTO sv_points SELECT i, ST_MakePoint(24 * random(), 1.6 * random(), 1.6 * random())
FROM generate_series(1, 2000) i;
INSERT INTO sv_points SELECT 5000 + i, ST_MakePoint(2 * i + 1.5, 0.75, 0.75) FROM generate_series(0, 11) i;
CREATE TABLE sv_parcels (id int, geom geometry);
INSERT INTO sv_parcels SELECT i, ST_Buffer(ST_MakePoint(10 * random(), 10 * random()), random(), 3)
FROM generate_series(1, 400) i;
SELECT count(*) AS bodies, bool_and(pg_column_size(geom) > 8200) AS out_of_line FROM sv_bodies;
ANALYZE sv_bodies, sv_holes, sv_points, sv_parcels;

-- The same join in the service and in the backend: pairs equal, and the
-- service's run named in exactgpu_last_join_stats().device.
CREATE FUNCTION sv_same(what text, q text) RETURNS TABLE (label text, pairs bigint, same boolean, served boolean)
LANGUAGE plpgsql AS $$
DECLARE
	via text;
BEGIN
	SET LOCAL exactgpu.gpu_min_primitives = 0;
	EXECUTE 'CREATE TEMP TABLE sv_a ON COMMIT DROP AS ' || q;
	SELECT device INTO via FROM exactgpu_last_join_stats();
	SET LOCAL exactgpu.device = 'cpu';
	EXECUTE 'CREATE TEMP TABLE sv_b ON COMMIT DROP AS ' || q;
	RETURN QUERY SELECT $1, (SELECT count(*) FROM sv_a),
		NOT EXISTS (SELECT * FROM sv_a EXCEPT ALL SELECT * FROM sv_b)
		AND NOT EXISTS (SELECT * FROM sv_b EXCEPT ALL SELECT * FROM sv_a),
		via LIKE '%via the GPU service%';
	DROP TABLE sv_a, sv_b;
END $$;
BEGIN; SELECT * FROM sv_same('holes x bodies, surfaces', 'SELECT * FROM ST_ExactIntersects3DJoin(''SELECT id, geom FROM sv_holes'', ''SELECT id, geom FROM sv_bodies'')'); COMMIT;
-- twice: the second borrows the bodies' side from the resident store, which
-- the service reads by address in the main shared memory
BEGIN; SELECT * FROM sv_same('again, bodies resident', 'SELECT * FROM ST_ExactIntersects3DJoin(''SELECT id, geom FROM sv_holes'', ''SELECT id, geom FROM sv_bodies'')'); COMMIT;
-- (the bodies, 14,400 triangles, would be ~500 kB copied; holes and flags are)
SET exactgpu.gpu_min_primitives = 0;
SELECT count(*) FROM ST_ExactIntersects3DJoin('SELECT id, geom FROM sv_holes', 'SELECT id, geom FROM sv_bodies');
SELECT substring(device from 'queued [0-9.]+ ms, ([0-9]+) kB copied')::int < 100 AS bodies_by_address
FROM exactgpu_last_join_stats();
RESET exactgpu.gpu_min_primitives;
BEGIN; SELECT * FROM sv_same('holes in bodies as volumes', 'SELECT * FROM ST_ExactIntersectsSolid3DJoin(''SELECT id, geom FROM sv_bodies'', ''SELECT id, geom FROM sv_holes'')'); COMMIT;
BEGIN; SELECT * FROM sv_same('points in bodies', 'SELECT * FROM ST_ExactLocate3DJoin(''SELECT id, geom FROM sv_points'', ''SELECT id, geom FROM sv_bodies'')'); COMMIT;
BEGIN; SELECT * FROM sv_same('intercepts', 'SELECT * FROM ST_ExactIntercepts3DJoin(''SELECT id, geom FROM sv_holes'', ''SELECT id, geom FROM sv_bodies'')'); COMMIT;
BEGIN; SELECT * FROM sv_same('2D parcels', 'SELECT * FROM ST_ExactIntersectsJoin(''SELECT id, geom FROM sv_parcels'', ''SELECT id, geom FROM sv_parcels'')'); COMMIT;
BEGIN; SELECT * FROM sv_same('3D box join (SRF)', 'SELECT * FROM ST_3DBoxJoin(''SELECT id, geom FROM sv_holes'', ''SELECT id, geom FROM sv_bodies'')'); COMMIT;
-- plain SQL joins: planned for the GPU (the planner sees no GPU on a
-- machine without one; the service's 'on' mode then joins on its CPU)
SET exactgpu.device = 'gpu';
SET enable_nestloop = off;  -- 12 bodies: a nested loop would be cheaper
BEGIN; SELECT * FROM sv_same('plain JOIN (ExactJoin)', 'SELECT h.id AS h, b.id AS b FROM sv_holes h JOIN sv_bodies b ON ST_ExactIntersects3D(h.geom, b.geom)'); COMMIT;
BEGIN; SELECT * FROM sv_same('LEFT JOIN', 'SELECT h.id AS h, b.id AS b FROM sv_holes h LEFT JOIN sv_bodies b ON ST_ExactIntersects3D(h.geom, b.geom)'); COMMIT;

-- EXPLAIN (ANALYZE) names where the join ran
CREATE FUNCTION sv_explain(q text) RETURNS SETOF text LANGUAGE plpgsql AS $$
DECLARE
	l text;
BEGIN
	SET LOCAL exactgpu.gpu_min_primitives = 0;
	FOR l IN EXECUTE 'EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) ' || q LOOP
		RETURN NEXT l;
	END LOOP;
END $$;
SELECT count(*) AS lines_naming_the_service FROM sv_explain(
	'SELECT count(*) FROM sv_holes h JOIN sv_bodies b ON ST_ExactIntersects3D(h.geom, b.geom)') l
WHERE l LIKE '%via the GPU service%';

BEGIN; SELECT * FROM sv_same('plain && JOIN (ExactBoxJoin)', 'SELECT a.id AS a, b.id AS b FROM sv_parcels a JOIN sv_parcels b ON a.geom && b.geom'); COMMIT;
RESET exactgpu.device;
RESET enable_nestloop;

-- An engine failure in the service comes back with the row named: a body
-- that is not closed, joined as a volume
INSERT INTO sv_bodies VALUES (99, 'TIN Z (((0 0 0, 1 0 0, 0 1 0, 0 0 0)))');
SELECT count(*) FROM ST_ExactIntersectsSolid3DJoin('SELECT id, geom FROM sv_bodies', 'SELECT id, geom FROM sv_holes');
DELETE FROM sv_bodies WHERE id = 99;

-- A cancel (statement_timeout) stops the service's join within a second,
-- and the service serves the next one
CREATE TABLE sv_crowd (id int, geom geometry);
INSERT INTO sv_crowd SELECT i, ST_MakeLine(ARRAY[
	ST_MakePoint(random(), random(), random()), ST_MakePoint(random(), random(), random()),
	ST_MakePoint(random(), random(), random()), ST_MakePoint(random(), random(), random())])
	FROM generate_series(1, 20000) i;
CREATE FUNCTION sv_cancel_latency() RETURNS text LANGUAGE plpgsql AS $$
DECLARE
	t0 timestamptz := clock_timestamp();
	n bigint;
BEGIN
	SELECT count(*) INTO n FROM ST_ExactIntersects3DJoin('SELECT id, geom FROM sv_crowd', 'SELECT id, geom FROM sv_crowd');
	RETURN 'not canceled';
EXCEPTION WHEN query_canceled THEN
	RETURN CASE WHEN clock_timestamp() - t0 < interval '1.5 s' THEN 'canceled within 1 s of the timeout'
		ELSE 'canceled late: ' || (clock_timestamp() - t0)::text END;
END $$;
SET statement_timeout = '500ms';
SELECT sv_cancel_latency();
RESET statement_timeout;
SELECT s.joins_cancelled > z.joins_cancelled AS counted_cancelled, s.joins_served > z.joins_served AS counted_served,
	s.queued = 0 AS queue_empty, s.running_joins = 0 AS none_running
FROM exactgpu_gpu_service s, served0 z;
BEGIN; SELECT * FROM sv_same('after the cancel', 'SELECT * FROM ST_ExactIntersects3DJoin(''SELECT id, geom FROM sv_holes'', ''SELECT id, geom FROM sv_bodies'')'); COMMIT;

DROP TABLE sv_bodies, sv_holes, sv_points, sv_parcels, sv_crowd;
DROP FUNCTION sv_same(text, text), sv_explain(text), sv_cancel_latency(), sv_cube(float8, float8, float8, float8, int);
