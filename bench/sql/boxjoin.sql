-- Box join at SQL level: ST_BoxJoin (GPU, then CPU) against PostGIS's GiST
-- && join (default plan, 2 workers; then 8) on the same two tables of :n
-- boxes at coverage :cov of the unit square. Coordinates are multiples of
-- 2^-20, which floats hold exactly, so PostGIS's float boxes are the exact
-- boxes and the pair sets must agree.
-- Every timed query returns the pair count and a fingerprint of the pair set
-- (sum of a hash per pair); with :exact_check = 1 the sets are also compared
-- pair by pair (EXCEPT both ways), which costs two more GiST joins.
\pset footer off
SELECT setseed(0.5);
DROP TABLE IF EXISTS box_a, box_b;
CREATE TABLE box_a AS SELECT i AS id, ST_MakeEnvelope(x, y, x + w, y + h) AS geom
FROM (SELECT i, round(random() * (1 - s) * 1048576) / 1048576 AS x, round(random() * (1 - s) * 1048576) / 1048576 AS y,
             round(s * (0.5 + random()) * 1048576) / 1048576 AS w, round(s * (0.5 + random()) * 1048576) / 1048576 AS h
      FROM generate_series(1, :n) i, (SELECT sqrt(:cov / :n::float8) AS s) c) r;
CREATE TABLE box_b AS SELECT i AS id, ST_MakeEnvelope(x, y, x + w, y + h) AS geom
FROM (SELECT i, round(random() * (1 - s) * 1048576) / 1048576 AS x, round(random() * (1 - s) * 1048576) / 1048576 AS y,
             round(s * (0.5 + random()) * 1048576) / 1048576 AS w, round(s * (0.5 + random()) * 1048576) / 1048576 AS h
      FROM generate_series(1, :n) i, (SELECT sqrt(:cov / :n::float8) AS s) c) r;
CREATE INDEX ON box_a USING gist (geom);
CREATE INDEX ON box_b USING gist (geom);
VACUUM ANALYZE box_a;
VACUUM ANALYZE box_b;
EXPLAIN (COSTS OFF) SELECT count(*) FROM box_a a JOIN box_b b ON a.geom && b.geom;
\timing on
SELECT count(*) AS postgis_gist_pairs, sum(hashint8(a.id::int8 * 1000003 + b.id)) AS fingerprint
FROM box_a a JOIN box_b b ON a.geom && b.geom;
-- PostGIS with up to 8 parallel workers (the server's default ceiling)
SET max_parallel_workers_per_gather = 8;
SELECT count(*) AS postgis_gist_8_workers_pairs, sum(hashint8(a.id::int8 * 1000003 + b.id)) AS fingerprint
FROM box_a a JOIN box_b b ON a.geom && b.geom;
RESET max_parallel_workers_per_gather;
-- result rows in memory (a spill to a temporary file would double their cost)
SET exactgpu.result_memory = '4GB';
-- the NOTICEs split the join's time into engine and result rows
SET exactgpu.progress = on;
SET exactgpu.device = 'gpu';
SELECT count(*) AS boxjoin_gpu_pairs, sum(hashint8(left_id * 1000003 + right_id)) AS fingerprint
FROM ST_BoxJoin('SELECT id, geom FROM box_a', 'SELECT id, geom FROM box_b');
SELECT count(*) AS boxjoin_gpu_pairs, sum(hashint8(left_id * 1000003 + right_id)) AS fingerprint
FROM ST_BoxJoin('SELECT id, geom FROM box_a', 'SELECT id, geom FROM box_b');
\timing off
SELECT device, round(read_ms) AS read_ms, round(join_ms::numeric, 1) AS join_ms, round(total_ms) AS total_ms, row_pairs,
       waves AS chunks FROM exactgpu_last_join_stats();
SET exactgpu.device = 'cpu';
\timing on
SELECT count(*) AS boxjoin_cpu_pairs, sum(hashint8(left_id * 1000003 + right_id)) AS fingerprint
FROM ST_BoxJoin('SELECT id, geom FROM box_a', 'SELECT id, geom FROM box_b');
SELECT count(*) AS boxjoin_cpu_pairs, sum(hashint8(left_id * 1000003 + right_id)) AS fingerprint
FROM ST_BoxJoin('SELECT id, geom FROM box_a', 'SELECT id, geom FROM box_b');
\timing off
SELECT device, round(read_ms) AS read_ms, round(join_ms::numeric, 1) AS join_ms, round(total_ms) AS total_ms, row_pairs
FROM exactgpu_last_join_stats();
RESET exactgpu.device;
\if :exact_check
SELECT count(*) AS pairs_only_in_one FROM (
	(SELECT a.id, b.id FROM box_a a JOIN box_b b ON a.geom && b.geom
	 EXCEPT SELECT * FROM ST_BoxJoin('SELECT id, geom FROM box_a', 'SELECT id, geom FROM box_b'))
	UNION ALL
	(SELECT * FROM ST_BoxJoin('SELECT id, geom FROM box_a', 'SELECT id, geom FROM box_b')
	 EXCEPT SELECT a.id, b.id FROM box_a a JOIN box_b b ON a.geom && b.geom)) d;
\endif
