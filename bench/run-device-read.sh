#!/bin/sh
# On the GPU machine (device tool), in one go (< 5 minutes on an H100 + 16
# cores): the batch join's read path against PostgreSQL's own floor.
#   1. the `paper` (10^6 triangles) and `large` (10^7) mines, loaded once;
#   2. per mine (bench/sql/read.sql): the single-backend detoast floor
#      (sum(length(geom::bytea))), then ST_ExactIntersects3DJoin on the GPU
#      and on the CPU (16 threads), each with the parallel read and with the
#      serial one (max_parallel_workers_per_gather = 0): read / upload / join
#      / result rows / total, read against the floor, pairs;
#   3. on the large mine: ST_3DBoxJoin (TOAST rows boxed by parallel
#      workers) and the ST_ExactBatch form (detoasted by the aggregate,
#      parsed on the thread pool), parallel and serial, with the read split;
#   4. the large bodies re-stored with lz4 compression and with STORAGE
#      EXTERNAL (no compression): floor and GPU join again (README, storage);
#   5. a statement_timeout landing in the parallel read of the large mine:
#      how long the cancel took, and parallel workers left afterwards;
#   6. the first GPU join in a fresh backend (CUDA context), with
#      CUDA_MODULE_LOADING=LAZY and EAGER, and a 400-hole join under
#      exactgpu.device = auto (stays on the CPU below gpu_min_primitives),
#      per call with worker_threads = 0 (sized to the input), 1 and 16.
# The read's NOTICE (detail) splits it: query, rows flattened by workers,
# gathered, workers and shared memory released.
# Carried: .carry/pgbundle.tar.xz (PostgreSQL with this branch's exactgpu
# installed, built with CUDA: bench/lib/pg-bundle.sh after make install).
# PG_EXTRA: extra postmaster options (default -c min_dynamic_shared_memory=4GB
# -c shared_preload_libraries=postgis-3,exactgpu,
# as README recommends; PG_EXTRA= for PostgreSQL's defaults).
# demo/bin/minegen is built here if absent. Results: $OUT/read.md.
set -eu
cd "$(dirname "$0")/.."
out=${OUT:-/tmp/out}
mkdir -p "$out"
sizes=${SIZES:-paper large}
[ -x demo/bin/minegen ] || make -s demo/bin/minegen
. bench/lib/pg-cluster.sh
work=/tmp/exactgpu-read
pg_cluster_init "$work" bench
ncores=$(nproc)
pgopts="-c shared_buffers=16GB -c work_mem=256MB -c max_wal_size=16GB -c wal_level=minimal -c max_wal_senders=0 \
 -c synchronous_commit=off -c max_worker_processes=$((ncores + 8)) -c max_parallel_workers=$ncores \
 -c max_parallel_workers_per_gather=$((ncores - 1)) -c exactgpu.worker_threads=0 ${PG_EXTRA-"-c min_dynamic_shared_memory=4GB -c shared_preload_libraries=postgis-3,exactgpu"}"
pg_cluster_start "$pgopts"
export PGHOST=/tmp PGUSER=pg PGDATABASE=postgres
q() { pg_psql "$*"; }
q "-q -c 'CREATE EXTENSION exactgpu CASCADE'"

report="$out/read.md"
{
	echo "# exactgpu batch join: the read path against the detoast floor"
	echo
	echo "Device: $(nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader 2>/dev/null || echo none);" \
		"host: $ncores cores; date (UTC): $(date -u +%Y-%m-%dT%H:%MZ); PostgreSQL: $(as_pg 'postgres --version')"
	echo
	echo "/dev/shm (the parallel read's shared memory): $(df -h /dev/shm | tail -1)"
	echo
	echo "Settings: max_parallel_workers_per_gather = $((ncores - 1)), max_parallel_workers = $ncores, shared_buffers = 16GB (tables cached); extra postmaster options (PG_EXTRA): ${PG_EXTRA-"-c min_dynamic_shared_memory=4GB -c shared_preload_libraries=postgis-3,exactgpu"} (README: the parallel read's shared memory set aside at start)."
	echo
} > "$report"

for size in $sizes; do
	t0=$(date +%s)
	rm -rf "$work/mine-$size" && mkdir -p "$work/mine-$size"
	demo/bin/minegen --size "$size" --out "$work/mine-$size" >/dev/null
	chown -R pg "$work/mine-$size"
	q "-q -v dir=$work/mine-$size -v replace=1 -f $work/mine-$size/load.sql" >/dev/null
	q "-q -c 'VACUUM ANALYZE drill_holes' -c 'VACUUM ANALYZE ore_bodies'"
	echo "## $size mine (generated and loaded in $(( $(date +%s) - t0 )) s)" >> "$report"
	echo '```' >> "$report"
	q "-v label=$size/pglz -v devices='gpu cpu' -v reps=${REPS:-2} -v detail=1 -f $work/bench/sql/read.sql" 2>&1 | tee -a "$report"
	echo '```' >> "$report"
done

# box join and the ST_ExactBatch form, on the last mine loaded (large by default)
echo "## box join and ST_ExactBatch form" >> "$report"
echo '```' >> "$report"
q "" <<'SQL' 2>&1 | tee -a "$report"
\pset footer off
SET exactgpu.device = 'gpu';
SET exactgpu.progress = on;
SELECT count(*) AS box_pairs_parallel FROM ST_3DBoxJoin('SELECT hole_id, geom FROM drill_holes', 'SELECT body_id, geom FROM ore_bodies');
SELECT count(*) AS box_pairs_parallel FROM ST_3DBoxJoin('SELECT hole_id, geom FROM drill_holes', 'SELECT body_id, geom FROM ore_bodies');
SELECT read_path, read_workers, round(read_ms) AS read_ms, round(join_ms) AS join_ms, round(total_ms) AS total_ms FROM exactgpu_last_join_stats();
SET max_parallel_workers_per_gather = 0;
SELECT count(*) AS box_pairs_serial FROM ST_3DBoxJoin('SELECT hole_id, geom FROM drill_holes', 'SELECT body_id, geom FROM ore_bodies');
SELECT read_path, read_workers, round(read_ms) AS read_ms, round(join_ms) AS join_ms, round(total_ms) AS total_ms FROM exactgpu_last_join_stats();
RESET max_parallel_workers_per_gather;
-- a batch value holds at most 1 GB: half the bodies (~520 MB serialized),
-- the text form on the same rows beside it
SELECT count(*) AS text_form_pairs FROM ST_ExactIntersects3DJoin('SELECT hole_id, geom FROM drill_holes', 'SELECT body_id, geom FROM ore_bodies WHERE body_id % 2 = 0');
SELECT read_path, read_workers, round(read_ms) AS read_ms, round(join_ms) AS join_ms, round(total_ms) AS total_ms FROM exactgpu_last_join_stats();
\timing on
SELECT count(*) AS batch_form_pairs FROM ST_ExactIntersects3DJoin((SELECT ST_ExactBatch(hole_id, geom) FROM drill_holes), (SELECT ST_ExactBatch(body_id, geom) FROM ore_bodies WHERE body_id % 2 = 0));
SELECT count(*) AS batch_form_pairs FROM ST_ExactIntersects3DJoin((SELECT ST_ExactBatch(hole_id, geom) FROM drill_holes), (SELECT ST_ExactBatch(body_id, geom) FROM ore_bodies WHERE body_id % 2 = 0));
\timing off
SELECT read_path, read_workers, round(read_ms) AS read_ms_after_aggregate, round(join_ms) AS join_ms, round(total_ms) AS total_ms FROM exactgpu_last_join_stats();
SQL
echo '```' >> "$report"

# storage settings, on the last mine loaded (large by default)
echo "## storage of the bodies: pglz (default) / lz4 / EXTERNAL (uncompressed)" >> "$report"
echo '```' >> "$report"
for storage in lz4 external; do
	t0=$(date +%s)
	if [ "$storage" = lz4 ]; then
		set_storage="ALTER TABLE ore_bodies_new ALTER geom SET COMPRESSION lz4"
	else
		set_storage="ALTER TABLE ore_bodies_new ALTER geom SET STORAGE EXTERNAL"
	fi
	q "-q" <<SQL >/dev/null
CREATE TABLE ore_bodies_new (LIKE ore_bodies INCLUDING ALL);
$set_storage;
-- a new value (ST_SetSRID copies it), so that it is compressed anew: an
-- INSERT ... SELECT would keep the pglz-compressed bytes as they are
INSERT INTO ore_bodies_new SELECT body_id, name, ST_SetSRID(geom, ST_SRID(geom)) FROM ore_bodies;
DROP TABLE ore_bodies CASCADE;
ALTER TABLE ore_bodies_new RENAME TO ore_bodies;
VACUUM ANALYZE ore_bodies;
SQL
	echo "(re-stored as $storage in $(( $(date +%s) - t0 )) s)" >> "$report"
	q "-v label=storage/$storage -v devices=gpu -f $work/bench/sql/read.sql" 2>&1 | tee -a "$report"
done
echo '```' >> "$report"

# cancel in the parallel read
echo "## statement_timeout during the parallel read" >> "$report"
echo '```' >> "$report"
q "" <<'SQL' 2>&1 | tee -a "$report"
\pset footer off
CREATE FUNCTION cancel_latency(q text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE t0 timestamptz := clock_timestamp();
BEGIN
	EXECUTE q;
	RETURN 'not canceled after ' || (clock_timestamp() - t0)::text;
EXCEPTION WHEN query_canceled THEN
	RETURN 'canceled after ' || (clock_timestamp() - t0)::text || ' (timeout ' ||
		current_setting('statement_timeout') || ')';
END $$;
SET exactgpu.device = 'gpu';
SELECT count(*) AS warm_up FROM ST_ExactIntersects3DJoin('SELECT hole_id, geom FROM drill_holes LIMIT 10', 'SELECT body_id, geom FROM ore_bodies LIMIT 1');
SET statement_timeout = '150ms';
SELECT cancel_latency('SELECT count(*) FROM ST_ExactIntersects3DJoin(''SELECT hole_id, geom FROM drill_holes'', ''SELECT body_id, geom FROM ore_bodies'')');
SET statement_timeout = '300ms';
SELECT cancel_latency('SELECT count(*) FROM ST_ExactIntersects3DJoin(''SELECT hole_id, geom FROM drill_holes'', ''SELECT body_id, geom FROM ore_bodies'')');
RESET statement_timeout;
SELECT pg_sleep(0.5);
SELECT count(*) AS parallel_workers_left FROM pg_stat_activity WHERE backend_type = 'parallel worker';
SELECT count(*) AS pairs_after_cancel, (SELECT read_path || ' / ' || read_workers FROM exactgpu_last_join_stats()) AS read
FROM ST_ExactIntersects3DJoin('SELECT hole_id, geom FROM drill_holes', 'SELECT body_id, geom FROM ore_bodies');
SQL
echo '```' >> "$report"

# the first GPU join in a fresh backend, and small joins under auto
echo "## first GPU join in a fresh backend; a small join under exactgpu.device = auto" >> "$report"
echo '```' >> "$report"
small_setup="CREATE TABLE IF NOT EXISTS few_holes AS SELECT i * 20 + j AS id,
	ST_MakeLine(ST_MakePoint(i * 5 + 0.5, j * 5 + 0.5, 10), ST_MakePoint(i * 5 + 0.5, j * 5 + 0.5, -1 + (i % 3))) AS geom
	FROM generate_series(0, 19) i, generate_series(0, 19) j;
CREATE TABLE IF NOT EXISTS few_bodies AS SELECT i * 10 + j AS id, ST_GeomFromText(format(
	'TIN Z(((%1\$s %2\$s -1, %3\$s %2\$s -1, %1\$s %4\$s -1, %1\$s %2\$s -1)), ((%1\$s %2\$s -1, %1\$s %2\$s 1, %3\$s %2\$s -1, %1\$s %2\$s -1)), ((%1\$s %2\$s -1, %1\$s %4\$s -1, %1\$s %2\$s 1, %1\$s %2\$s -1)), ((%3\$s %2\$s -1, %1\$s %2\$s 1, %1\$s %4\$s -1, %3\$s %2\$s -1)))',
	i * 10, j * 10, i * 10 + 3, j * 10 + 3)) AS geom
	FROM generate_series(0, 9) i, generate_series(0, 9) j;"
q "-q" <<SQL >/dev/null
$small_setup
SQL
first_join() {	# $1: label, $2: PGOPTIONS; a fresh backend each time
	for i in 1 2 3; do
		as_pg "PGOPTIONS='$2' psql -X -At -h /tmp -d postgres" <<'SQL' 2>&1 | tr '\n' ' '
\timing on
SELECT count(*) || ' pairs' FROM ST_ExactIntersects3DJoin('SELECT id, geom FROM few_holes', 'SELECT id, geom FROM few_bodies');
\timing off
SELECT 'on ' || device FROM exactgpu_last_join_stats();
SQL
		echo " ($1)"
	done
}
pg_cluster_stop; pg_cluster_start -e CUDA_MODULE_LOADING=LAZY "$pgopts"
echo "exactgpu.device = gpu, 400 holes x 100 tetrahedra, fresh backend, CUDA_MODULE_LOADING=LAZY:" | tee -a "$report"
first_join lazy "-c exactgpu.device=gpu -c exactgpu.progress=on" | tee -a "$report"
pg_cluster_stop; pg_cluster_start -e CUDA_MODULE_LOADING=EAGER "$pgopts"
echo "the same, CUDA_MODULE_LOADING=EAGER:" | tee -a "$report"
first_join eager "-c exactgpu.device=gpu -c exactgpu.progress=on" | tee -a "$report"
pg_cluster_stop; pg_cluster_start "$pgopts"
echo "exactgpu.device = auto (default gpu_min_primitives: the CPU), fresh backend:" | tee -a "$report"
first_join auto "" | tee -a "$report"
for t in 0 1 $ncores; do
	q "-At" <<SQL 2>&1 | tee -a "$report"
SET exactgpu.worker_threads = $t;
SELECT count(*) FROM ST_ExactIntersects3DJoin('SELECT id, geom FROM few_holes', 'SELECT id, geom FROM few_bodies');
DO \$\$ DECLARE t0 timestamptz := clock_timestamp(); BEGIN FOR i IN 1..300 LOOP
	PERFORM count(*) FROM ST_ExactIntersects3DJoin('SELECT id, geom FROM few_holes', 'SELECT id, geom FROM few_bodies');
END LOOP; RAISE NOTICE '400-hole join, worker_threads = $t: % ms a call', round((extract(epoch FROM clock_timestamp() - t0) * 1000 / 300)::numeric, 3); END \$\$;
SQL
done
q "" <<'SQL' 2>&1 | tee -a "$report"
\pset footer off
SELECT count(*) AS pairs FROM ST_ExactIntersects3DJoin('SELECT id, geom FROM few_holes', 'SELECT id, geom FROM few_bodies');
SELECT device, read_path, round(read_ms::numeric, 2) AS read_ms, round(join_ms::numeric, 2) AS join_ms,
	round(total_ms::numeric, 2) AS total_ms FROM exactgpu_last_join_stats();
\timing on
DO $$ BEGIN FOR i IN 1..200 LOOP
	PERFORM count(*) FROM ST_ExactIntersects3DJoin('SELECT id, geom FROM few_holes', 'SELECT id, geom FROM few_bodies');
END LOOP; END $$;
SQL
echo '```' >> "$report"
pg_cluster_stop
cp "$work/pg.log" "$out/read-pg.log" 2>/dev/null || true
