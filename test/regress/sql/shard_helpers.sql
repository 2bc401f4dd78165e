-- Sharding helpers (docs/sharding.md): routing by extent, ST_ExactBatch in
-- parts, the shard-side views, the coordinator's setup checks, and joins of
-- foreign tables left to their server. (test/shard/run.sh runs the whole
-- recipe on four clusters.)

-- ST_ExactShardsFor: closed boxes compared exactly on the doubles.
-- Extents: 1 = [0,10]^3, 2 = [10,20]x[0,10]x[0,10], 3 = [0,10]x[0,10]x[20,30].
CREATE TEMP TABLE sh_extents AS SELECT ARRAY[
	'BOX3D(0 0 0, 10 10 10)'::box3d, 'BOX3D(10 0 0, 20 10 10)'::box3d,
	'BOX3D(0 0 20, 10 10 30)'::box3d] AS e;
SELECT label, ST_ExactShardsFor(g, e) AS shards FROM sh_extents, (VALUES
	('inside 1',                  'POINT Z(5 5 5)'::geometry),
	('on the face x = 10: 1, 2',  'POINT Z(10 5 5)'),
	('one ulp past x = 10: 2',    ST_MakePoint(10 + 2.0^(-49), 5, 5)),
	('one ulp short of x = 10: 1', ST_MakePoint(10 - 2.0^(-49), 5, 5)),
	('a hole down through 1 and 3', 'LINESTRING Z(5 5 25, 5 5 -5)'),
	('between 1 and 3: none',     'LINESTRING Z(5 5 15, 6 6 19)'),
	('xy only without Z: 1, 3',   'POINT(5 5)'),
	('outside: none',             'POINT Z(50 50 50)')) v(label, g)
ORDER BY label COLLATE "C";
-- a box touching extents 1 and 2 at their corner (10 10 10), and 3 in xy only
SELECT ST_ExactShardsFor('BOX3D(10 10 10, 12 12 12)'::box3d, e) AS box_1_2,
	ST_ExactShardsFor('BOX3D(10 10 10, 12 12 12)'::box3d, e, false) AS box_xy_1_2_3,
	ST_ExactShardsFor('POINT EMPTY'::geometry, e) AS empty_none
FROM sh_extents;
SELECT ST_ExactShardsFor('POINT Z(1 1 1)'::geometry, ARRAY[NULL, 'BOX3D(0 0 0, 2 2 2)'::box3d]) AS null_extent_skipped,
	ST_ExactShardsFor('POINT Z(1 1 1)'::geometry, '{}'::box3d[]) AS no_extents;

-- ST_ExactBatch in parts gives the same pairs as in one piece: a
-- partitionwise aggregate grouped by another key (partial aggregates per
-- partition, combined), and a parallel aggregate (serialized partial states).
CREATE TABLE sh_holes (id bigint, part int, grp int, geom geometry) PARTITION BY LIST (part);
CREATE TABLE sh_holes_0 PARTITION OF sh_holes FOR VALUES IN (0);
CREATE TABLE sh_holes_1 PARTITION OF sh_holes FOR VALUES IN (1);
CREATE TABLE sh_holes_2 PARTITION OF sh_holes FOR VALUES IN (2);
CREATE TABLE sh_bodies (id bigint, geom geometry);
-- vertical holes on a 1 m grid; tetrahedra whose faces some holes end on,
-- some pass through vertices of
INSERT INTO sh_holes
	SELECT i * 40 + j, (i + j) % 3, 0, ST_MakeLine(ST_MakePoint(i, j, 5), ST_MakePoint(i, j, -1 + (i % 3)))
	FROM generate_series(0, 39) i, generate_series(0, 39) j;
INSERT INTO sh_bodies
	SELECT i * 10 + j, ST_GeomFromText(format(
		'TIN Z(((%1$s %2$s -1, %3$s %2$s -1, %1$s %4$s -1, %1$s %2$s -1)), ((%1$s %2$s -1, %1$s %2$s 1, %3$s %2$s -1, %1$s %2$s -1)), ((%1$s %2$s -1, %1$s %4$s -1, %1$s %2$s 1, %1$s %2$s -1)), ((%3$s %2$s -1, %1$s %2$s 1, %1$s %4$s -1, %3$s %2$s -1)))',
		i * 4, j * 4, i * 4 + 3, j * 4 + 3))
	FROM generate_series(0, 9) i, generate_series(0, 9) j;
ANALYZE sh_holes;
ANALYZE sh_bodies;
CREATE TEMP TABLE sh_row_by_row AS
	SELECT h.id AS left_id, b.id AS right_id FROM sh_holes h, sh_bodies b WHERE ST_ExactIntersects3D(h.geom, b.geom);
SELECT count(*) > 100 AS some_pairs FROM sh_row_by_row;

SET enable_partitionwise_aggregate = on;
SET max_parallel_workers_per_gather = 0;
EXPLAIN (COSTS OFF) SELECT grp, ST_ExactBatch(id, geom) FROM sh_holes GROUP BY grp;
CREATE TEMP TABLE sh_pairs_partial AS SELECT * FROM ST_ExactIntersects3DJoin(
	(SELECT ST_ExactBatch(id, geom) FROM sh_holes GROUP BY grp),
	(SELECT ST_ExactBatch(id, geom) FROM sh_bodies));
SELECT (SELECT count(*) FROM (TABLE sh_row_by_row EXCEPT ALL TABLE sh_pairs_partial) a) +
	(SELECT count(*) FROM (TABLE sh_pairs_partial EXCEPT ALL TABLE sh_row_by_row) b) AS partial_differences;
RESET enable_partitionwise_aggregate;

SET max_parallel_workers_per_gather = 2;
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SET enable_partitionwise_aggregate = off;
EXPLAIN (COSTS OFF) SELECT ST_ExactBatch(id, geom) FROM sh_holes_0;
CREATE TEMP TABLE sh_pairs_parallel AS SELECT * FROM ST_ExactIntersects3DJoin(
	(SELECT ST_ExactBatch(id, geom) FROM sh_holes_0),
	(SELECT ST_ExactBatch(id, geom) FROM sh_bodies));
SELECT (SELECT count(*) FROM (SELECT * FROM sh_row_by_row r WHERE r.left_id IN (SELECT id FROM sh_holes_0)
	                          EXCEPT ALL TABLE sh_pairs_parallel) a) +
	(SELECT count(*) FROM (TABLE sh_pairs_parallel EXCEPT ALL
	                       SELECT * FROM sh_row_by_row r WHERE r.left_id IN (SELECT id FROM sh_holes_0)) b) AS parallel_differences;
RESET max_parallel_workers_per_gather;
RESET parallel_setup_cost;
RESET parallel_tuple_cost;
RESET min_parallel_table_scan_size;
RESET enable_partitionwise_aggregate;

-- exactgpu_shard_expose: the shard number as a constant column in front
SELECT exactgpu_shard_expose(7, ARRAY['sh_bodies']::regclass[], 'sh_expose');
SELECT shard, count(*) FROM sh_expose.sh_bodies GROUP BY shard;
\set VERBOSITY terse
SELECT exactgpu_shard_expose(7, ARRAY['sh_holes']::regclass[], 'sh_expose');
CREATE TABLE sh_has_shard (shard int, geom geometry);
SELECT exactgpu_shard_expose(7, ARRAY['sh_has_shard']::regclass[], 'sh_expose');
DROP TABLE sh_has_shard;

-- exactgpu_shard_setup's checks before any connection
SELECT exactgpu_shard_setup(ARRAY['sh_a'], ARRAY['host=nowhere'], ARRAY['sh_bodies']::regclass[]);
CREATE EXTENSION postgres_fdw;
SELECT exactgpu_shard_setup(ARRAY['sh_a'], ARRAY['host=nowhere'], ARRAY['sh_bodies']::regclass[]);
SELECT exactgpu_shard_setup(ARRAY['sh_a'], ARRAY['host=nowhere'], ARRAY['sh_holes']::regclass[]);
CREATE TABLE sh_parted (shard int NOT NULL, id bigint, geom geometry) PARTITION BY LIST (shard);
SELECT exactgpu_shard_setup(ARRAY['sh_a', 'sh_b'], ARRAY['host=nowhere'], ARRAY['sh_parted']::regclass[]);
SELECT exactgpu_shard_setup(ARRAY['sh_a'], NULL, ARRAY['sh_parted']::regclass[]);
SELECT exactgpu_shard_setup(ARRAY['sh_a'], ARRAY['nowhere'], ARRAY['sh_parted']::regclass[]);
\set VERBOSITY default

-- Joins of foreign tables (planned only: EXPLAIN without ANALYZE does not
-- connect). One server that ships exactgpu: postgres_fdw's foreign join, the
-- predicate in the Remote SQL, no ExactJoin pulling both sides.
CREATE SERVER sh_ships FOREIGN DATA WRAPPER postgres_fdw
	OPTIONS (dbname 'sh_nowhere', extensions 'postgis, exactgpu');
CREATE SERVER sh_plain FOREIGN DATA WRAPPER postgres_fdw OPTIONS (dbname 'sh_nowhere');
CREATE USER MAPPING FOR CURRENT_USER SERVER sh_ships;
CREATE USER MAPPING FOR CURRENT_USER SERVER sh_plain;
CREATE FOREIGN TABLE sh_f_holes (id bigint, geom geometry) SERVER sh_ships;
CREATE FOREIGN TABLE sh_f_bodies (id bigint, geom geometry) SERVER sh_ships;
EXPLAIN (VERBOSE, COSTS OFF)
SELECT h.id, b.id FROM sh_f_holes h JOIN sh_f_bodies b ON ST_ExactIntersects3D(h.geom, b.geom);
-- partitions of two tables, pair by pair on one such server: with
-- partitionwise join, each pair's join is shipped to its server
CREATE SERVER sh_ships2 FOREIGN DATA WRAPPER postgres_fdw
	OPTIONS (dbname 'sh_nowhere2', extensions 'postgis, exactgpu', async_capable 'true');
CREATE USER MAPPING FOR CURRENT_USER SERVER sh_ships2;
CREATE TABLE sh_p_holes (shard int NOT NULL, id bigint, geom geometry) PARTITION BY LIST (shard);
CREATE TABLE sh_p_bodies (shard int NOT NULL, id bigint, geom geometry) PARTITION BY LIST (shard);
CREATE FOREIGN TABLE sh_p_holes_1 PARTITION OF sh_p_holes FOR VALUES IN (1) SERVER sh_ships;
CREATE FOREIGN TABLE sh_p_holes_2 PARTITION OF sh_p_holes FOR VALUES IN (2) SERVER sh_ships2;
CREATE FOREIGN TABLE sh_p_bodies_1 PARTITION OF sh_p_bodies FOR VALUES IN (1) SERVER sh_ships;
CREATE FOREIGN TABLE sh_p_bodies_2 PARTITION OF sh_p_bodies FOR VALUES IN (2) SERVER sh_ships2;
SET enable_partitionwise_join = on;
EXPLAIN (VERBOSE, COSTS OFF)
SELECT h.id, b.id FROM sh_p_holes h JOIN sh_p_bodies b ON h.shard = b.shard AND ST_ExactIntersects3D(h.geom, b.geom);
RESET enable_partitionwise_join;
-- a server without exactgpu in its extensions cannot run the predicate: the
-- coordinator joins (the plan is PostgreSQL's or ExactJoin, whichever is
-- cheaper; only that no foreign join is offered is checked)
CREATE FOREIGN TABLE sh_g_holes (id bigint, geom geometry) SERVER sh_plain;
CREATE FOREIGN TABLE sh_g_bodies (id bigint, geom geometry) SERVER sh_plain;
CREATE FUNCTION pg_temp.sh_plan(q text) RETURNS SETOF text LANGUAGE plpgsql AS $$
DECLARE l text;
BEGIN
	FOR l IN EXECUTE 'EXPLAIN (VERBOSE, COSTS OFF) ' || q LOOP RETURN NEXT l; END LOOP;
END $$;
SELECT count(*) FILTER (WHERE p ~ 'Relations: .* INNER JOIN') AS foreign_joins,
	count(*) FILTER (WHERE p ~ 'Remote SQL: .*st_exactintersects3d') AS shipped_predicates
FROM pg_temp.sh_plan('SELECT h.id, b.id FROM sh_g_holes h JOIN sh_g_bodies b ON ST_ExactIntersects3D(h.geom, b.geom)') p;

SET client_min_messages = warning;
DROP SCHEMA sh_expose CASCADE;
DROP FOREIGN TABLE sh_f_holes, sh_f_bodies, sh_g_holes, sh_g_bodies;
DROP TABLE sh_p_holes, sh_p_bodies, sh_parted, sh_holes, sh_bodies;
DROP EXTENSION postgres_fdw CASCADE;
RESET client_min_messages;
