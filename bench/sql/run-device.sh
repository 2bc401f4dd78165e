#!/bin/sh
# On the GPU machine (device tool): PostgreSQL from the bundle, then
#   1. the whole pg_regress suite with the GPU as the default device;
#   2. the SQL-level benchmark (bench/sql/run.sh) at three mine sizes;
#   3. 10^4 GPU batch joins in one backend: GPU memory in use before and after;
#   4. a long GPU join and a long GPU box join canceled by statement_timeout:
#      how long the cancel took.
# Carried from the build machine: .carry/pgbundle.tar.xz (bench/lib/pg-bundle.sh
# after make install), demo/bin/minegen. Results go to $OUT.
set -eu
cd "$(dirname "$0")/../.."
out=${OUT:-/tmp/out}
mkdir -p "$out"
. bench/lib/pg-cluster.sh
work=/tmp/exactgpu-device
pg_cluster_init "$work" test bench demo
pg_cluster_start -c shared_buffers=4GB -c work_mem=256MB -c max_wal_size=8GB
export PGHOST=/tmp PGUSER=pg PGDATABASE=postgres
pg_psql "-q -c 'CREATE EXTENSION exactgpu CASCADE' -c 'CREATE EXTENSION postgis_sfcgal'"

touch "$out/device-sql.md"
if [ -z "${SKIP_REGRESS:-}" ]; then
echo "== pg_regress with the GPU" | tee -a "$out/device-sql.md"
tests=$(cd test/regress/sql && ls *.sql | sed 's/\.sql$//' | tr "\n" " ")
# gpu_min_primitives = 0: the suite's small joins go to the GPU under exactgpu.device = auto
pg_cluster_regress -e "PGOPTIONS='-c exactgpu.gpu_min_primitives=0'" $tests 2>&1 | tee -a "$out/device-sql.md" | tail -3 || true
[ -f "$work/regression.diffs" ] && cp "$work/regression.diffs" "$out/" || true
fi

if [ -z "${SKIP_SQLBENCH:-}" ]; then
echo "== SQL benchmark" | tee -a "$out/device-sql.md"
as_pg "export PGHOST=/tmp PGDATABASE=postgres; cd $work &&
	PG_TIMEOUT=${PG_TIMEOUT:-240000} bench/sql/run.sh demo/bin/minegen $work/sqlbench.csv \
	micro:20:2:400 small:200:6:20000 demo:2000:20:200000" 2>&1 | tee -a "$out/device-sql.md"
cp "$work/sqlbench.csv" "$out/"
fi

echo "== 10^4 GPU batch joins in one backend" | tee -a "$out/device-sql.md"
pg_psql "" <<'SQL' 2>&1 | tee -a "$out/device-sql.md"
\pset footer off
-- 400 short holes and 100 tetrahedra (as in sql/join.sql): a join of a few ms
CREATE TEMP TABLE few_holes AS SELECT i * 20 + j AS id,
	ST_MakeLine(ST_MakePoint(i * 5 + 0.5, j * 5 + 0.5, 10), ST_MakePoint(i * 5 + 0.5, j * 5 + 0.5, -1 + (i % 3))) AS geom
	FROM generate_series(0, 19) i, generate_series(0, 19) j;
CREATE TEMP TABLE few_bodies AS SELECT i * 10 + j AS id, ST_GeomFromText(format(
	'TIN Z(((%1$s %2$s -1, %3$s %2$s -1, %1$s %4$s -1, %1$s %2$s -1)), ((%1$s %2$s -1, %1$s %2$s 1, %3$s %2$s -1, %1$s %2$s -1)), ((%1$s %2$s -1, %1$s %4$s -1, %1$s %2$s 1, %1$s %2$s -1)), ((%3$s %2$s -1, %1$s %2$s 1, %1$s %4$s -1, %3$s %2$s -1)))',
	i * 10, j * 10, i * 10 + 3, j * 10 + 3)) AS geom
	FROM generate_series(0, 9) i, generate_series(0, 9) j;
SET exactgpu.device = 'gpu';
SELECT count(*) AS first_join_pairs FROM ST_ExactIntersects3DJoin('SELECT id, geom FROM few_holes', 'SELECT id, geom FROM few_bodies');
SELECT round(gpu_memory_in_use_mb::numeric, 3) AS in_use_mb_after_1, round(gpu_memory_pooled_mb::numeric, 1) AS pooled_mb_after_1 FROM exactgpu_device_info();
\timing on
DO $$ BEGIN FOR i IN 1..10000 LOOP
	PERFORM count(*) FROM ST_ExactIntersects3DJoin('SELECT id, geom FROM few_holes', 'SELECT id, geom FROM few_bodies');
END LOOP; END $$;
\timing off
SELECT round(gpu_memory_in_use_mb::numeric, 3) AS in_use_mb_after_10001, round(gpu_memory_pooled_mb::numeric, 1) AS pooled_mb_after_10001 FROM exactgpu_device_info();
SELECT device, row_pairs FROM exactgpu_last_join_stats();
SQL

echo "== cancel of long GPU joins" | tee -a "$out/device-sql.md"
pg_psql "" <<'SQL' 2>&1 | tee -a "$out/device-sql.md"
\pset footer off
-- 1.2 * 10^6 segments 0.3 long in a unit cube on 64 grid cells: ~40,000 per
-- cell (a cell may hold 2^32 pairs), ~10^11 cell pairs to cull: GPU seconds
CREATE TABLE crowd AS SELECT i AS id, ST_MakeLine(p, ST_Translate(p, 0.3 * random() - 0.15, 0.3 * random() - 0.15, 0.3 * random() - 0.15)) AS geom
	FROM (SELECT i, ST_MakePoint(random(), random(), random()) AS p FROM generate_series(1, 1200000) i) s;
-- 2 * 10^6 tiny boxes on one grid cell: 4 * 10^12 box comparisons, GPU seconds
CREATE TABLE tiny_boxes AS SELECT i AS id, ST_MakeEnvelope(x, y, x + 1e-4, y + 1e-4) AS geom
	FROM (SELECT i, random() AS x, random() AS y FROM generate_series(1, 2000000) i) s;
-- how long a query ran, or how long it took to stop after its timeout
CREATE FUNCTION cancel_latency(q text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE t0 timestamptz := clock_timestamp();
BEGIN
	EXECUTE q;
	RETURN 'not canceled after ' || (clock_timestamp() - t0)::text;
EXCEPTION WHEN query_canceled THEN
	RETURN 'canceled after ' || (clock_timestamp() - t0)::text || ' (timeout ' ||
		current_setting('statement_timeout') || ')';
END $$;
\set join3d 'SELECT count(*) FROM ST_ExactIntersects3DJoin(''SELECT id, geom FROM crowd'', ''SELECT id, geom FROM crowd'')'
\set boxjoin 'SELECT count(*) FROM ST_BoxJoin(''SELECT id, geom FROM tiny_boxes'', ''SELECT id, geom FROM tiny_boxes'')'
SET exactgpu.device = 'gpu';
-- CUDA's start in this backend is not interruptible: pay it before the timed cancels
SELECT count(*) AS warm_up FROM ST_ExactIntersects3DJoin('SELECT id, geom FROM crowd LIMIT 10', 'SELECT id, geom FROM crowd LIMIT 10');
SET exactgpu.grid_cells = 64;
-- reading takes ~0.8 s, the join (box join first stage) ~0.9 s: the timeout lands in the join
SET statement_timeout = '1200ms';
SELECT cancel_latency(:'join3d') AS exact_3d_join;
SET exactgpu.join_first_stage = 'cell_pairs';
SELECT cancel_latency(:'join3d') AS exact_3d_join_cell_pairs;
RESET exactgpu.join_first_stage;
SET statement_timeout = '60s';
SELECT cancel_latency(:'join3d') AS exact_3d_join_uncanceled;
SELECT device, candidate_pairs, primitive_hits, round(read_ms) AS read_ms, round(join_ms) AS join_ms FROM exactgpu_last_join_stats();
SET exactgpu.grid_cells = 1;
SET statement_timeout = '2s';	-- leaves time to read the rows
SELECT cancel_latency(:'boxjoin') AS box_join;
SET statement_timeout = '120s';
SELECT cancel_latency(:'boxjoin') AS box_join_uncanceled;
SELECT device, candidate_pairs, row_pairs, round(read_ms) AS read_ms, round(join_ms) AS join_ms FROM exactgpu_last_join_stats();
RESET statement_timeout;
SELECT round(gpu_memory_in_use_mb::numeric, 3) AS in_use_mb_after FROM exactgpu_device_info();
SQL
pg_cluster_stop
