-- The batch joins' parallel read (join_read_parallel.c): geometries stored
-- out of line are detoasted, parsed and flattened by parallel workers. The
-- pairs must be those of the serial read; errors, cancels and timeouts must
-- leave no worker behind (a leaked parallel context or DSM segment would
-- also show here as a WARNING at the end of the transaction).
SET client_min_messages = warning;
SELECT setseed(0.25);
-- 240 bodies of 100 random tetrahedra (400 triangles, closed) in the cells
-- of a 16 x 15 grid: about 40 kB each, stored out of line (random doubles
-- do not compress). Each tetrahedron keeps to its own column of a 10 x 10
-- grid in the cell, so that no body overlaps itself (point location
-- refuses a self-intersecting body).
CREATE TABLE pr_bodies (id bigint, geom geometry);
INSERT INTO pr_bodies
SELECT i, ST_GeomFromText('TIN Z (' || string_agg(format(
		'((%1$s,%2$s,%3$s,%1$s)),((%1$s,%2$s,%4$s,%1$s)),((%1$s,%3$s,%4$s,%1$s)),((%2$s,%3$s,%4$s,%2$s))',
		a, b, c, d), ',') || ')')
FROM (SELECT i, format('%s %s %s', x0 + 0.09 * random(), y0 + 0.09 * random(), random()) AS a,
		format('%s %s %s', x0 + 0.09 * random(), y0 + 0.09 * random(), random()) AS b,
		format('%s %s %s', x0 + 0.09 * random(), y0 + 0.09 * random(), random()) AS c,
		format('%s %s %s', x0 + 0.09 * random(), y0 + 0.09 * random(), random()) AS d
	FROM (SELECT i, t, (i % 16) + (t % 10) / 10.0 AS x0, (i / 16) + (t / 10) / 10.0 AS y0
	      FROM generate_series(0, 239) i, generate_series(0, 99) t) c) v
GROUP BY i;
-- 2000 vertical holes, and 2000 points, over the grid
CREATE TABLE pr_holes (id bigint, geom geometry);
INSERT INTO pr_holes SELECT i, ST_MakeLine(ST_MakePoint(x, y, -1), ST_MakePoint(x, y, 2))
FROM (SELECT i, 16 * random() AS x, 15 * random() AS y FROM generate_series(1, 2000) i) s;
CREATE TABLE pr_points (id bigint, geom geometry);
INSERT INTO pr_points SELECT i, ST_MakePoint(16 * random(), 15 * random(), random()) FROM generate_series(1, 2000) i;
-- a body in the middle that cannot be read: a non-planar polygon face
CREATE TABLE pr_bad (id bigint, geom geometry);
INSERT INTO pr_bad SELECT id, geom FROM pr_bodies;
INSERT INTO pr_bad SELECT 1000, ST_Collect(ARRAY[
	(SELECT ST_Collect(ARRAY(SELECT ST_GeometryN(geom, k) FROM pr_bodies, generate_series(1, 400) k WHERE id = 7))),
	'POLYGON Z ((0 0 0, 1 0 0, 1 1 1, 0 1 0, 0 0 0))'::geometry]);
ANALYZE pr_bodies;
ANALYZE pr_bad;
SELECT count(*) AS bodies, sum(pg_column_size(geom)) > 8000000 AS out_of_line_mb,
	bool_and(pg_column_size(geom) > 8000) AS each_toasted FROM pr_bodies;

-- serial: no workers allowed
SET max_parallel_workers_per_gather = 0;
CREATE TEMP TABLE pr_serial AS
	SELECT * FROM ST_ExactIntersects3DJoin('SELECT id, geom FROM pr_holes', 'SELECT id, geom FROM pr_bodies');
SELECT read_path, read_workers FROM exactgpu_last_join_stats();
CREATE TEMP TABLE pr_serial2d AS
	SELECT * FROM ST_ExactIntersectsJoin('SELECT id, geom FROM pr_holes', 'SELECT id, geom FROM pr_bodies');
CREATE TEMP TABLE pr_serial_in AS
	SELECT * FROM ST_ExactLocate3DJoin('SELECT id, geom FROM pr_points', 'SELECT id, geom FROM pr_bodies');

-- exactgpu.parallel_read = off: serial even where workers are allowed
SET max_parallel_workers_per_gather = 2;
SET exactgpu.parallel_read = off;
SELECT count(*) = (SELECT count(*) FROM pr_serial) AS same_pairs
FROM ST_ExactIntersects3DJoin('SELECT id, geom FROM pr_holes', 'SELECT id, geom FROM pr_bodies');
SELECT read_path, read_workers FROM exactgpu_last_join_stats();
-- From here on workers whenever PostgreSQL grants them (the default, auto,
-- also weighs their start-up as last measured, which varies by machine:
-- 9.6 MB are read serially in less than twice a slow start-up).
SET exactgpu.parallel_read = always;

-- parallel (9.6 MB out of line is over the 8 MB threshold), the leader
-- leaving every row to the workers so that they do take part
SET parallel_leader_participation = off;
CREATE TEMP TABLE pr_par AS
	SELECT * FROM ST_ExactIntersects3DJoin('SELECT id, geom FROM pr_holes', 'SELECT id, geom FROM pr_bodies');
SELECT read_path, read_workers > 0 AS workers_took_part, right_rows, right_primitives FROM exactgpu_last_join_stats();
CREATE TEMP TABLE pr_par2d AS
	SELECT * FROM ST_ExactIntersectsJoin('SELECT id, geom FROM pr_holes', 'SELECT id, geom FROM pr_bodies');
SELECT read_path FROM exactgpu_last_join_stats();
CREATE TEMP TABLE pr_par_in AS
	SELECT * FROM ST_ExactLocate3DJoin('SELECT id, geom FROM pr_points', 'SELECT id, geom FROM pr_bodies');
SELECT read_path FROM exactgpu_last_join_stats();
-- the leader taking part too (the default)
RESET parallel_leader_participation;
CREATE TEMP TABLE pr_par_lead AS
	SELECT * FROM ST_ExactIntersects3DJoin('SELECT id, geom FROM pr_holes', 'SELECT id, geom FROM pr_bodies');

-- the bodies (TOAST rows only) are laid out in place by the processes
-- that flattened them; with exactgpu.read_in_place = off the leader
-- gathers them instead (the workers alone reading, so that they do)
SET parallel_leader_participation = off;
SET exactgpu.read_in_place = off;
CREATE TEMP TABLE pr_par_gather AS
	SELECT * FROM ST_ExactIntersects3DJoin('SELECT id, geom FROM pr_holes', 'SELECT id, geom FROM pr_bodies');
SELECT read_path FROM exactgpu_last_join_stats();
RESET exactgpu.read_in_place;
-- the readers take the biggest rows first; in query order (a developer
-- option, for benchmarks) the pairs are the same
SET exactgpu.read_biggest_first = off;
CREATE TEMP TABLE pr_par_query AS
	SELECT * FROM ST_ExactIntersects3DJoin('SELECT id, geom FROM pr_holes', 'SELECT id, geom FROM pr_bodies');
SELECT read_path FROM exactgpu_last_join_stats();
RESET exactgpu.read_biggest_first;
-- both sides laid out in place (a self-join of the bodies)
CREATE TEMP TABLE pr_par_self AS
	SELECT * FROM ST_ExactIntersects3DJoin('SELECT id, geom FROM pr_bodies WHERE id % 2 = 0', 'SELECT id, geom FROM pr_bodies');
SELECT read_path FROM exactgpu_last_join_stats();
RESET parallel_leader_participation;
SET max_parallel_workers_per_gather = 0;
CREATE TEMP TABLE pr_serial_self AS
	SELECT * FROM ST_ExactIntersects3DJoin('SELECT id, geom FROM pr_bodies WHERE id % 2 = 0', 'SELECT id, geom FROM pr_bodies');
SET max_parallel_workers_per_gather = 2;
SELECT (SELECT count(*) FROM pr_serial_self) >= 120 AS pairs_self,
	(SELECT count(*) FROM (SELECT * FROM pr_serial_self EXCEPT SELECT * FROM pr_par_self) a) +
	(SELECT count(*) FROM (SELECT * FROM pr_par_self EXCEPT SELECT * FROM pr_serial_self) b) AS differences_self;

-- same pairs on every path (and some pairs at all)
SELECT (SELECT count(*) FROM pr_serial) > 100 AS pairs_3d,
	(SELECT count(*) FROM (SELECT * FROM pr_serial EXCEPT SELECT * FROM pr_par) a) +
	(SELECT count(*) FROM (SELECT * FROM pr_par EXCEPT SELECT * FROM pr_serial) b) +
	(SELECT count(*) FROM (SELECT * FROM pr_serial EXCEPT SELECT * FROM pr_par_lead) c) +
	(SELECT count(*) FROM (SELECT * FROM pr_par_lead EXCEPT SELECT * FROM pr_serial) d) +
	(SELECT count(*) FROM (SELECT * FROM pr_serial EXCEPT SELECT * FROM pr_par_gather) e) +
	(SELECT count(*) FROM (SELECT * FROM pr_par_gather EXCEPT SELECT * FROM pr_serial) f) +
	(SELECT count(*) FROM (SELECT * FROM pr_serial EXCEPT SELECT * FROM pr_par_query) g) +
	(SELECT count(*) FROM (SELECT * FROM pr_par_query EXCEPT SELECT * FROM pr_serial) h) AS differences_3d;
SELECT (SELECT count(*) FROM pr_serial2d) > 100 AS pairs_2d,
	(SELECT count(*) FROM (SELECT * FROM pr_serial2d EXCEPT SELECT * FROM pr_par2d) a) +
	(SELECT count(*) FROM (SELECT * FROM pr_par2d EXCEPT SELECT * FROM pr_serial2d) b) AS differences_2d;
SELECT (SELECT count(*) FROM pr_serial_in) > 0 AS pairs_in_solid,
	(SELECT count(*) FROM (SELECT * FROM pr_serial_in EXCEPT SELECT * FROM pr_par_in) a) +
	(SELECT count(*) FROM (SELECT * FROM pr_par_in EXCEPT SELECT * FROM pr_serial_in) b) AS differences_in_solid;
-- and the row-by-row predicate agrees with a sample of them
SELECT count(*) AS disagreements FROM (
	SELECT h.id AS hid, b.id AS bid, ST_ExactIntersects3D(h.geom, b.geom) AS meets,
		EXISTS (SELECT 1 FROM pr_par p WHERE p.left_id = h.id AND p.right_id = b.id) AS in_join
	FROM pr_holes h, pr_bodies b WHERE h.id <= 40 AND b.geom &&& h.geom) s
WHERE meets <> in_join;

-- a temporary table's rows cannot be read by workers: read here
CREATE TEMP TABLE pr_temp_bodies AS SELECT * FROM pr_bodies WHERE id < 40;
SELECT count(*) > 0 AS pairs FROM ST_ExactIntersects3DJoin('SELECT id, geom FROM pr_holes', 'SELECT id, geom FROM pr_temp_bodies');
SELECT read_path, read_workers FROM exactgpu_last_join_stats();
-- nor by the plain JOIN's (Custom Scan ExactJoin): it handed them the
-- pointers and they failed ("cannot access temporary tables during a
-- parallel operation"); the pairs are the serial read's
CREATE TEMP TABLE pr_temp_all AS SELECT * FROM pr_bodies;
ANALYZE pr_temp_all;
SET parallel_leader_participation = off;
EXPLAIN (COSTS OFF)
SELECT h.id, b.id FROM pr_holes h JOIN pr_temp_all b ON ST_ExactIntersects3D(h.geom, b.geom);
CREATE TEMP TABLE pr_temp_join AS
	SELECT h.id AS left_id, b.id AS right_id FROM pr_holes h JOIN pr_temp_all b ON ST_ExactIntersects3D(h.geom, b.geom);
RESET parallel_leader_participation;
-- the plain JOIN over the permanent table does read in parallel, and says
-- so in exactgpu_last_join_stats() (it said serial, 0 workers, always)
SET parallel_leader_participation = off;
CREATE TEMP TABLE pr_plain_join AS
	SELECT h.id AS left_id, b.id AS right_id FROM pr_holes h JOIN pr_bodies b ON ST_ExactIntersects3D(h.geom, b.geom);
SELECT read_path, read_workers > 0 AS workers_took_part, right_rows FROM exactgpu_last_join_stats();
RESET parallel_leader_participation;
SELECT (SELECT count(*) FROM (SELECT left_id, right_id FROM pr_serial EXCEPT ALL SELECT * FROM pr_plain_join) a) +
	(SELECT count(*) FROM (SELECT * FROM pr_plain_join EXCEPT ALL SELECT left_id, right_id FROM pr_serial) b) AS plain_join_differences;
SELECT (SELECT count(*) FROM pr_temp_join) > 100 AS pairs,
	(SELECT count(*) FROM (SELECT left_id, right_id FROM pr_serial EXCEPT ALL SELECT * FROM pr_temp_join) a) +
	(SELECT count(*) FROM (SELECT * FROM pr_temp_join EXCEPT ALL SELECT left_id, right_id FROM pr_serial) b) AS differences;

-- an error in the middle of the parallel read: the serial path's error
\set VERBOSITY terse
SELECT count(*) FROM ST_ExactIntersects3DJoin('SELECT id, geom FROM pr_holes', 'SELECT id, geom FROM pr_bad ORDER BY id DESC');
SELECT count(*) AS leftover_workers FROM pg_stat_activity WHERE backend_type = 'parallel worker';
SET max_parallel_workers_per_gather = 0;
SELECT count(*) FROM ST_ExactIntersects3DJoin('SELECT id, geom FROM pr_holes', 'SELECT id, geom FROM pr_bad ORDER BY id DESC');
SET max_parallel_workers_per_gather = 2;
-- two bad bodies, both out of line: a small one early in query order and
-- a big one last. The readers claim the biggest rows first, so the big one
-- fails first; the error is still the small one's, as the serial read says.
CREATE TABLE pr_bad2 (id bigint, geom geometry);
INSERT INTO pr_bad2 SELECT 2 * id, geom FROM pr_bodies;
INSERT INTO pr_bad2 SELECT 241, ST_Collect(ARRAY[
	(SELECT ST_Collect(ARRAY(SELECT ST_GeometryN(geom, k) FROM pr_bodies, generate_series(1, 400) k WHERE id = 3))),
	'POLYGON Z ((0 0 0, 1 0 0, 1 1 1, 0 1 3, 0 0 0))'::geometry]);
INSERT INTO pr_bad2 SELECT 1000, ST_Collect(ARRAY[
	(SELECT ST_Collect(ARRAY(SELECT ST_GeometryN(geom, k) FROM pr_bodies, generate_series(1, 400) k WHERE id BETWEEN 4 AND 11))),
	'POLYGON Z ((0 0 0, 1 0 0, 1 1 1, 0 1 0, 0 0 0))'::geometry]);
SELECT id, pg_column_size(geom) > 8000 AS toasted, ST_NumGeometries(geom) FROM pr_bad2 WHERE id IN (241, 1000) ORDER BY id;
SELECT count(*) FROM ST_ExactIntersects3DJoin('SELECT id, geom FROM pr_holes', 'SELECT id, geom FROM pr_bad2 ORDER BY id');
SELECT count(*) AS leftover_workers FROM pg_stat_activity WHERE backend_type = 'parallel worker';
SET max_parallel_workers_per_gather = 0;
SELECT count(*) FROM ST_ExactIntersects3DJoin('SELECT id, geom FROM pr_holes', 'SELECT id, geom FROM pr_bad2 ORDER BY id');
SET max_parallel_workers_per_gather = 2;
-- an unreadable body early and a body of another SRID late: the serial read
-- checks every row's SRID before it parses one, so the SRID is the error,
-- and the parallel read says the same (the review's case)
INSERT INTO pr_bad2 SELECT 5000, ST_SetSRID(geom, 3857) FROM pr_bodies WHERE id = 8;
SELECT count(*) FROM ST_ExactIntersects3DJoin('SELECT id, geom FROM pr_holes', 'SELECT id, geom FROM pr_bad2 ORDER BY id');
SELECT count(*) AS leftover_workers FROM pg_stat_activity WHERE backend_type = 'parallel worker';
SET max_parallel_workers_per_gather = 0;
SELECT count(*) FROM ST_ExactIntersects3DJoin('SELECT id, geom FROM pr_holes', 'SELECT id, geom FROM pr_bad2 ORDER BY id');
SET max_parallel_workers_per_gather = 2;
-- the same with the holes (in line) parsed by the leader beside the workers
-- and a bad hole among them
SELECT count(*) FROM ST_ExactIntersects3DJoin(
	'SELECT id, geom FROM pr_holes UNION ALL SELECT -1, ''POLYGON Z ((0 0 0, 1 0 0, 1 1 1, 0 1 0, 0 0 0))''::geometry',
	'SELECT id, geom FROM pr_bad2 ORDER BY id');
SET max_parallel_workers_per_gather = 0;
SELECT count(*) FROM ST_ExactIntersects3DJoin(
	'SELECT id, geom FROM pr_holes UNION ALL SELECT -1, ''POLYGON Z ((0 0 0, 1 0 0, 1 1 1, 0 1 0, 0 0 0))''::geometry',
	'SELECT id, geom FROM pr_bad2 ORDER BY id');
SET max_parallel_workers_per_gather = 2;
DROP TABLE pr_bad2;
\set VERBOSITY default
-- the same error caught in a subtransaction: the next statement is clean
SET client_min_messages = notice;
DO $$ BEGIN
	PERFORM count(*) FROM ST_ExactIntersects3DJoin('SELECT id, geom FROM pr_holes', 'SELECT id, geom FROM pr_bad');
EXCEPTION WHEN invalid_parameter_value THEN
	RAISE NOTICE 'caught: %', SQLSTATE;
END $$;
SET client_min_messages = warning;

-- a statement_timeout while the workers read: stops within a second
CREATE FUNCTION pg_temp.pr_cancel_latency() RETURNS text LANGUAGE plpgsql AS $$
DECLARE
	t0 timestamptz := clock_timestamp();
	n bigint;
BEGIN
	SELECT count(*) INTO n FROM ST_ExactIntersects3DJoin('SELECT id, geom FROM pr_holes', 'SELECT b.id, b.geom FROM pr_bodies b, generate_series(1, 8)');
	RETURN 'not canceled';
EXCEPTION WHEN query_canceled THEN
	RETURN CASE WHEN clock_timestamp() - t0 < interval '1.5 s' THEN 'canceled within 1 s of the timeout'
		ELSE 'canceled late: ' || (clock_timestamp() - t0)::text END;
END $$;
SET parallel_leader_participation = off;
SET exactgpu.device = 'cpu';
SET statement_timeout = '100ms';
SELECT pg_temp.pr_cancel_latency();
RESET statement_timeout;
RESET exactgpu.device;
SELECT pg_sleep(0.2);
SELECT count(*) AS leftover_workers FROM pg_stat_activity WHERE backend_type = 'parallel worker';
-- and a join after all that works, in parallel
SELECT count(*) = (SELECT count(*) FROM pr_serial) AS same_count
	FROM ST_ExactIntersects3DJoin('SELECT id, geom FROM pr_holes', 'SELECT id, geom FROM pr_bodies');
SELECT read_path FROM exactgpu_last_join_stats();
RESET parallel_leader_participation;

-- small inputs stay serial
SELECT count(*) > 0 AS pairs FROM ST_ExactIntersects3DJoin('SELECT id, geom FROM pr_holes', 'SELECT id, geom FROM pr_bodies WHERE id < 10');
SELECT read_path, read_workers FROM exactgpu_last_join_stats();
RESET max_parallel_workers_per_gather;

-- rows stored in line, parsed beside the TOAST rows' workers (by the
-- leader, or by the workers in chunks): a bad one among them is reported
-- as the serial read reports it
-- (the first bad row in query order), and a second bad row further on,
-- out of line, does not take its place
SET max_parallel_workers_per_gather = 2;
\set VERBOSITY terse
SELECT count(*) FROM ST_ExactIntersects3DJoin(
	'SELECT id, geom FROM pr_holes WHERE id <= 1000 UNION ALL SELECT -1, ''POLYGON Z ((0 0 0, 1 0 0, 1 1 1, 0 1 0, 0 0 0))''::geometry UNION ALL SELECT id, geom FROM pr_holes WHERE id > 1000 UNION ALL SELECT id + 10000, geom FROM pr_bad',
	'SELECT id, geom FROM pr_bodies');
SELECT count(*) AS leftover_workers FROM pg_stat_activity WHERE backend_type = 'parallel worker';
SET max_parallel_workers_per_gather = 0;
SELECT count(*) FROM ST_ExactIntersects3DJoin(
	'SELECT id, geom FROM pr_holes WHERE id <= 1000 UNION ALL SELECT -1, ''POLYGON Z ((0 0 0, 1 0 0, 1 1 1, 0 1 0, 0 0 0))''::geometry UNION ALL SELECT id, geom FROM pr_holes WHERE id > 1000 UNION ALL SELECT id + 10000, geom FROM pr_bad',
	'SELECT id, geom FROM pr_bodies');
-- rows with and without Z do not mix in a 3D join, whoever flattened them:
-- 2D bodies stored out of line (the parallel read did not count them)
CREATE TABLE pr_flat (id bigint, geom geometry);
INSERT INTO pr_flat SELECT id + 1000, ST_Force2D(geom) FROM pr_bodies WHERE id < 3;
SELECT bool_and(pg_column_size(geom) > 8000) AS flat_toasted FROM pr_flat;
SELECT count(*) FROM ST_ExactIntersects3DJoin('SELECT id, geom FROM pr_holes',
	'SELECT id, geom FROM pr_bodies UNION ALL SELECT id, geom FROM pr_flat');
SET max_parallel_workers_per_gather = 2;
SELECT count(*) FROM ST_ExactIntersects3DJoin('SELECT id, geom FROM pr_holes',
	'SELECT id, geom FROM pr_bodies UNION ALL SELECT id, geom FROM pr_flat');
-- and 2D holes read in line by the workers against 3D bodies
SELECT count(*) FROM ST_ExactIntersects3DJoin('SELECT id, ST_Force2D(geom) FROM pr_holes',
	'SELECT id, geom FROM pr_bodies');
\set VERBOSITY default
SELECT count(*) AS leftover_workers FROM pg_stat_activity WHERE backend_type = 'parallel worker';
-- the holes in line, parsed by the leader while the workers read the
-- bodies: the pairs of the serial read (ids spread over 4 copies)
CREATE TEMP TABLE pr_many_serial (left_id bigint, right_id bigint);
SET max_parallel_workers_per_gather = 0;
INSERT INTO pr_many_serial SELECT * FROM ST_ExactIntersects3DJoin(
	'SELECT h.id * 4 + k, ST_Translate(h.geom, k * 0.01, 0, 0) FROM pr_holes h, generate_series(0, 3) k',
	'SELECT id, geom FROM pr_bodies');
SET max_parallel_workers_per_gather = 2;
SET parallel_leader_participation = off;
CREATE TEMP TABLE pr_many_par AS SELECT * FROM ST_ExactIntersects3DJoin(
	'SELECT h.id * 4 + k, ST_Translate(h.geom, k * 0.01, 0, 0) FROM pr_holes h, generate_series(0, 3) k',
	'SELECT id, geom FROM pr_bodies');
SELECT read_path, read_workers > 0 AS workers_took_part, left_rows FROM exactgpu_last_join_stats();
RESET parallel_leader_participation;
SELECT (SELECT count(*) FROM pr_many_serial) > 400 AS pairs,
	(SELECT count(*) FROM (SELECT * FROM pr_many_serial EXCEPT ALL SELECT * FROM pr_many_par) a) +
	(SELECT count(*) FROM (SELECT * FROM pr_many_par EXCEPT ALL SELECT * FROM pr_many_serial) b) AS differences;
-- more in line than the leader's share of the work (half the bodies
-- computed, so in line): those go to the workers in chunks, several bodies
-- a chunk; the pairs are the serial read's
SET parallel_leader_participation = off;
CREATE TEMP TABLE pr_chunks_par AS SELECT * FROM ST_ExactIntersects3DJoin('SELECT id, geom FROM pr_holes',
	'SELECT id, geom FROM pr_bodies WHERE id < 120 UNION ALL SELECT id, ST_Translate(geom, 0, 0, 0) FROM pr_bodies WHERE id >= 120');
SELECT read_path, read_workers > 0 AS workers_took_part, right_rows FROM exactgpu_last_join_stats();
RESET parallel_leader_participation;
CREATE TEMP TABLE pr_chunks_lead AS SELECT * FROM ST_ExactIntersects3DJoin('SELECT id, geom FROM pr_holes',
	'SELECT id, ST_Translate(geom, 0, 0, 0) FROM pr_bodies WHERE id < 120 UNION ALL SELECT id, geom FROM pr_bodies WHERE id >= 120');
SELECT (SELECT count(*) FROM (SELECT left_id, right_id FROM pr_serial EXCEPT ALL SELECT * FROM pr_chunks_par) a) +
	(SELECT count(*) FROM (SELECT * FROM pr_chunks_par EXCEPT ALL SELECT left_id, right_id FROM pr_serial) b) +
	(SELECT count(*) FROM (SELECT left_id, right_id FROM pr_serial EXCEPT ALL SELECT * FROM pr_chunks_lead) c) +
	(SELECT count(*) FROM (SELECT * FROM pr_chunks_lead EXCEPT ALL SELECT left_id, right_id FROM pr_serial) d) AS chunk_differences;

-- the box joins read their TOAST rows' boxes in parallel too
SET max_parallel_workers_per_gather = 0;
CREATE TEMP TABLE pr_box_serial AS
	SELECT * FROM ST_3DBoxJoin('SELECT id, geom FROM pr_holes', 'SELECT id, geom FROM pr_bodies');
SELECT read_path, read_workers FROM exactgpu_last_join_stats();
CREATE TEMP TABLE pr_box2d_serial AS
	SELECT * FROM ST_BoxJoin('SELECT id, geom FROM pr_bodies', 'SELECT id, geom FROM pr_bodies');
SET max_parallel_workers_per_gather = 2;
SET parallel_leader_participation = off;
CREATE TEMP TABLE pr_box_par AS
	SELECT * FROM ST_3DBoxJoin('SELECT id, geom FROM pr_holes', 'SELECT id, geom FROM pr_bodies');
SELECT read_path, read_workers > 0 AS workers_took_part, left_rows, right_rows FROM exactgpu_last_join_stats();
CREATE TEMP TABLE pr_box2d_par AS
	SELECT * FROM ST_BoxJoin('SELECT id, geom FROM pr_bodies', 'SELECT id, geom FROM pr_bodies');
SELECT read_path, read_workers > 0 AS workers_took_part FROM exactgpu_last_join_stats();
RESET parallel_leader_participation;
SELECT (SELECT count(*) FROM pr_box_serial) > 1000 AS pairs_3d,
	(SELECT count(*) FROM (SELECT * FROM pr_box_serial EXCEPT ALL SELECT * FROM pr_box_par) a) +
	(SELECT count(*) FROM (SELECT * FROM pr_box_par EXCEPT ALL SELECT * FROM pr_box_serial) b) AS differences_3d,
	(SELECT count(*) FROM pr_box2d_serial) >= 240 AS pairs_2d,
	(SELECT count(*) FROM (SELECT * FROM pr_box2d_serial EXCEPT ALL SELECT * FROM pr_box2d_par) a) +
	(SELECT count(*) FROM (SELECT * FROM pr_box2d_par EXCEPT ALL SELECT * FROM pr_box2d_serial) b) AS differences_2d;
-- the boxes are the exact extents of the bodies' doubles
SELECT count(*) AS box_disagreements FROM pr_box2d_par p
	JOIN pr_bodies a ON a.id = p.left_id JOIN pr_bodies b ON b.id = p.right_id
WHERE NOT (ST_XMin(a.geom) <= ST_XMax(b.geom) AND ST_XMin(b.geom) <= ST_XMax(a.geom) AND
	ST_YMin(a.geom) <= ST_YMax(b.geom) AND ST_YMin(b.geom) <= ST_YMax(a.geom));
-- a cancel while the workers box the rows, and nothing left behind
CREATE FUNCTION pg_temp.pr_box_cancel() RETURNS text LANGUAGE plpgsql AS $$
DECLARE
	t0 timestamptz := clock_timestamp();
	n bigint;
BEGIN
	SELECT count(*) INTO n FROM ST_3DBoxJoin('SELECT id, geom FROM pr_holes', 'SELECT b.id, b.geom FROM pr_bodies b, generate_series(1, 40)');
	RETURN 'not canceled';
EXCEPTION WHEN query_canceled THEN
	RETURN CASE WHEN clock_timestamp() - t0 < interval '1.5 s' THEN 'canceled within 1 s of the timeout'
		ELSE 'canceled late: ' || (clock_timestamp() - t0)::text END;
END $$;
SET parallel_leader_participation = off;
SET statement_timeout = '50ms';
SELECT pg_temp.pr_box_cancel();
RESET statement_timeout;
RESET parallel_leader_participation;
SELECT pg_sleep(0.2);
SELECT count(*) AS leftover_workers FROM pg_stat_activity WHERE backend_type = 'parallel worker';

-- ST_ExactBatch keeps the bodies' TOAST pointers and its final function
-- detoasts them with parallel workers: the same batch, byte for byte, as
-- with none, and the pairs of the text form. (Workers from 3 on, or under
-- force_parallel_mode; a parallel-unsafe filter keeps the aggregate in
-- this backend, not in the worker force_parallel_mode would plan.)
CREATE FUNCTION pg_temp.pr_here() RETURNS bool LANGUAGE plpgsql PARALLEL UNSAFE AS $$ BEGIN RETURN true; END $$;
SET max_parallel_workers_per_gather = 0;
CREATE TEMP TABLE pr_batch_serial AS SELECT ST_ExactBatch(id, geom) AS b FROM pr_bodies;
SET max_parallel_workers_per_gather = 2;
SET parallel_leader_participation = off;
SET force_parallel_mode = on;
CREATE TEMP TABLE pr_batch_par AS SELECT ST_ExactBatch(id, geom) AS b FROM pr_bodies WHERE pg_temp.pr_here();
RESET force_parallel_mode;
RESET parallel_leader_participation;
SELECT md5(s.b::text) = md5(p.b::text) AS same_batch, length(p.b::text) > 9000000 AS holds_the_bodies
FROM pr_batch_serial s, pr_batch_par p;
CREATE TEMP TABLE pr_batch_pairs AS SELECT * FROM ST_ExactIntersects3DJoin(
	(SELECT ST_ExactBatch(id, geom) FROM pr_holes), (SELECT b FROM pr_batch_par));
SELECT (SELECT count(*) FROM (SELECT left_id, right_id FROM pr_serial EXCEPT ALL SELECT * FROM pr_batch_pairs) a) +
	(SELECT count(*) FROM (SELECT * FROM pr_batch_pairs EXCEPT ALL SELECT left_id, right_id FROM pr_serial) b) AS batch_form_differences;
-- in line and out of line rows mixed, ids out of order, a temporary
-- table's rows (detoasted as they come): the rows of the batch are those given
SELECT count(*) AS rows_in_batch, count(DISTINCT id) AS ids FROM (
	SELECT (regexp_matches(b::text, '(-?[0-9]+):', 'g'))[1]::bigint AS id FROM (
		SELECT ST_ExactBatch(id, geom) AS b FROM (
			SELECT id, geom FROM pr_bodies UNION ALL SELECT -id, geom FROM pr_holes WHERE id < 50
			UNION ALL SELECT id + 5000, geom FROM pr_temp_bodies) u) x) y;
-- a cancel while the workers detoast for the final function
CREATE FUNCTION pg_temp.pr_batch_cancel() RETURNS text LANGUAGE plpgsql AS $$
DECLARE
	t0 timestamptz := clock_timestamp();
	n int;
BEGIN
	SELECT length(ST_ExactBatch(b.id * 100 + g, b.geom)::text) INTO n FROM pr_bodies b, generate_series(1, 40) g
	WHERE pg_temp.pr_here();
	RETURN 'not canceled';
EXCEPTION WHEN query_canceled THEN
	RETURN CASE WHEN clock_timestamp() - t0 < interval '1.5 s' THEN 'canceled within 1 s of the timeout'
		ELSE 'canceled late: ' || (clock_timestamp() - t0)::text END;
END $$;
SET force_parallel_mode = on;
SET statement_timeout = '100ms';
SELECT pg_temp.pr_batch_cancel();
RESET statement_timeout;
RESET force_parallel_mode;
SELECT pg_sleep(0.2);
SELECT count(*) AS leftover_workers FROM pg_stat_activity WHERE backend_type = 'parallel worker';
RESET max_parallel_workers_per_gather;
RESET exactgpu.parallel_read;

DROP TABLE pr_bodies, pr_holes, pr_points, pr_bad, pr_flat;
