#!/bin/sh
# On the GPU machine (device tool): the probe join (exactgpu.probe_join) on
# one mine (large by default), bodies kept in the resident store:
#   1. bench/sql/probe.sql: 50 and 500 holes against every body (SRF and
#      plain JOIN; and 500 holes against the bodies as volumes), probe on
#      and off, the pairs' digests compared;
#   2. N clients (pgbench: CLIENTS, 1 8 16) each joining 500 random holes
#      against every body (SRF), probe on and off;
#   3. the paper mine's join (7,846 hole segments x 10^6 triangles), 1 and
#      16 clients, probe on and off;
#   4. the full join (SRF) on the GPU and on the CPU (exactgpu.device = cpu,
#      every core), with the engine's phases (exactgpu.progress).
# The server runs with exactgpu.gpu_service = GPU_SERVICE (auto: the
# product's default) and the README's shared_preload_libraries =
# 'postgis-3,exactgpu' (a fresh backend then does not load PostGIS).
# Carried: .carry/pgbundle.tar.xz (bench/lib/pg-bundle.sh after make install
# of a CUDA build), demo/bin/minegen. Results: $OUT/probe.md.
#   SIZE=large REPS=10 SECONDS_EACH=15 STORE_MB=16384 bench/run-device-probe.sh
set -eu
cd "$(dirname "$0")/.."
out=${OUT:-/tmp/out}
mkdir -p "$out"
size=${SIZE:-large}
store_mb=${STORE_MB:-16384}
reps=${REPS:-10}
[ -x demo/bin/minegen ] || make -s demo/bin/minegen
. bench/lib/pg-cluster.sh
work=/tmp/exactgpu-probe
pg_cluster_init "$work" bench
ncores=$(nproc)
pg_cluster_start -e OMP_WAIT_POLICY=${OMP_WAIT_POLICY:-passive} "$(pg_mine_opts 16GB 4GB $store_mb postgis-3,exactgpu) \
 -c max_connections=100 -c exactgpu.gpu_service=${GPU_SERVICE:-auto}"
report="$out/probe.md"
{
	echo "# exactgpu: the probe join ($size mine, store on)"
	echo
	echo "Device: $(nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader 2>/dev/null || echo none);" \
		"host: $ncores cores; date (UTC): $(date -u +%Y-%m-%dT%H:%MZ); exactgpu.resident_memory = $store_mb MB"
	echo
} > "$report"
pg_psql "-q -c 'CREATE EXTENSION exactgpu CASCADE'"
t0=$(date +%s)
pg_mine_load postgres "$work/mine" --size "$size"
echo "$size mine generated and loaded in $(( $(date +%s) - t0 )) s" >> "$report"

# the bodies' prepared forms kept (what the probe borrows); the batch join
# keeps its flattened side on its first run (run 0 of bench.probe_run)
pg_psql "-q -c 'SELECT count(*) FILTER (WHERE exactgpu_resident_keep(geom)) AS kept FROM ore_bodies'" | tee -a "$report"
echo '## 50 and 500 holes against every body, probe on and off (ms, medians)' >> "$report"
echo '```' >> "$report"
pg_psql "-q -f $work/bench/sql/probe.sql"
for q in '500 holes (SRF)' '50 holes (SRF)' '500 holes (plain JOIN)' '50 holes (plain JOIN)' \
	'500 holes, bodies as volumes (SRF)'; do
	for p in off on; do
		pg_psql "-qAt -c \"SET statement_timeout = '${TIMEOUT:-60s}'\" -c \"SELECT bench.probe_run('$q', '$p', $reps)\"" 2>&1 |
			grep -v '^$' | sed "s/^/probe $p, $q: /" | tee -a "$report"
	done
done
pg_psql "-v report=1 -f $work/bench/sql/probe.sql" 2>&1 | tee -a "$report"
# one join of each with the progress NOTICEs, for the phases
pg_psql "-q -c 'SET exactgpu.progress = on' -c \"SELECT count(*) FROM ST_ExactIntersects3DJoin('SELECT hole_id, geom FROM drill_holes WHERE hole_id BETWEEN 1000 AND 1499', 'SELECT body_id, geom FROM ore_bodies')\"" 2>&1 | tee -a "$report"
echo '```' >> "$report"

# concurrency: each client joins 500 holes (a random range) against every body
cat > "$work/q500.sql" <<'SQL'
\set lo random(1, 19000)
SELECT count(*) FROM ST_ExactIntersects3DJoin(format('SELECT hole_id, geom FROM drill_holes WHERE hole_id BETWEEN %s AND %s', :lo, :lo + 499), 'SELECT body_id, geom FROM ore_bodies');
SQL
chown pg "$work/q500.sql"
echo "## clients each joining 500 random holes against every body (SRF, store on)" >> "$report"
echo '```' >> "$report"
for p in off on; do
	for c in ${CLIENTS:-1 8 16}; do
		as_pg "PGOPTIONS='-c exactgpu.probe_join=$p' pgbench -n -h /tmp -d postgres -c $c -j $c -T ${SECONDS_EACH:-15} -f $work/q500.sql" 2>&1 |
			grep -E '^(number of clients|tps|latency average|number of transactions actually)' |
			sed "s/^/probe $p, clients=$c: /" | tee -a "$report"
	done
done
echo '```' >> "$report"
pg_psql "-c 'SELECT * FROM exactgpu_resident'" | tee -a "$report"

# the paper mine's join, 1 and 16 clients, probe on and off
pg_psql "-q -c 'CREATE DATABASE paper'"
as_pg "psql -X -h /tmp -d paper -q -c 'CREATE EXTENSION exactgpu CASCADE'"
pg_mine_load paper "$work/paper" --size paper
cat > "$work/qpaper.sql" <<'SQL'
SELECT count(*) FROM ST_ExactIntersects3DJoin('SELECT hole_id, geom FROM drill_holes', 'SELECT body_id, geom FROM ore_bodies');
SQL
chown pg "$work/qpaper.sql"
echo "## the paper mine's join (SRF, store on)" >> "$report"
echo '```' >> "$report"
for p in off on; do
	as_pg "psql -X -h /tmp -d paper -At -c 'SET exactgpu.probe_join = $p' -c \"SELECT 'probe $p, paper join: ' || count(*) || ' pairs, ' || (SELECT device FROM exactgpu_last_join_stats()) FROM ST_ExactIntersects3DJoin('SELECT hole_id, geom FROM drill_holes', 'SELECT body_id, geom FROM ore_bodies')\"" 2>&1 | tee -a "$report"
	for c in 1 16; do
		as_pg "PGOPTIONS='-c exactgpu.probe_join=$p' pgbench -n -h /tmp -d paper -c $c -j $c -T ${SECONDS_EACH:-15} -f $work/qpaper.sql" 2>&1 |
			grep -E '^(tps|latency average|number of failed)' | sed "s/^/probe $p, paper join, clients=$c: /" | tee -a "$report"
	done
done
echo '```' >> "$report"

# the full join on the GPU and on every core, with the engine's phases
echo "## the full join (SRF, store on), GPU and CPU" >> "$report"
echo '```' >> "$report"
pg_psql "-q -f $work/bench/sql/bench_ms.sql"
qfull="SELECT count(*) FROM ST_ExactIntersects3DJoin(''SELECT hole_id, geom FROM drill_holes'', ''SELECT body_id, geom FROM ore_bodies'')"
for d in gpu cpu; do
	for p in on off; do
		pg_psql "-At -c \"SET exactgpu.device = $d\" -c \"SET exactgpu.probe_join = $p\" -c \"SELECT 'full join, $d, probe $p: ' || bench_ms('$qfull', 5)\"" 2>&1 | tee -a "$report"
		pg_psql "-At -c \"SET exactgpu.device = $d\" -c \"SET exactgpu.probe_join = $p\" -c 'SET exactgpu.progress = on' -c \"SELECT count(*) FROM ST_ExactIntersects3DJoin('SELECT hole_id, geom FROM drill_holes', 'SELECT body_id, geom FROM ore_bodies')\"" 2>&1 | tee -a "$report"
	done
done
pg_psql "-At -c \"SELECT 'full join pairs, probe on: ' || md5(string_agg(left_id || ':' || right_id, ',' ORDER BY left_id, right_id)) FROM ST_ExactIntersects3DJoin('SELECT hole_id, geom FROM drill_holes', 'SELECT body_id, geom FROM ore_bodies')\"" 2>&1 | tee -a "$report"
pg_psql "-At -c 'SET exactgpu.probe_join = off' -c \"SELECT 'full join pairs, probe off: ' || md5(string_agg(left_id || ':' || right_id, ',' ORDER BY left_id, right_id)) FROM ST_ExactIntersects3DJoin('SELECT hole_id, geom FROM drill_holes', 'SELECT body_id, geom FROM ore_bodies')\"" 2>&1 | tee -a "$report"
# a fresh backend's first join against the same join in a warm one
q500="SELECT count(*) FROM ST_ExactIntersects3DJoin(''SELECT hole_id, geom FROM drill_holes WHERE hole_id BETWEEN 1000 AND 1499'', ''SELECT body_id, geom FROM ore_bodies'')"
for i in 1 2 3; do
	pg_psql "-At -c \"SELECT 'fresh backend $i, 500 holes: ' || bench_ms('$q500', 3)\"" 2>&1 | tee -a "$report"
	pg_psql "-At -c 'SET exactgpu.probe_join = off' -c \"SELECT 'fresh backend $i, 500 holes on the GPU (probe off): ' || bench_ms('$q500', 3)\"" 2>&1 | tee -a "$report"
	pg_psql "-At -c \"SELECT 'fresh backend $i, full join: ' || bench_ms('$qfull', 3)\"" 2>&1 | tee -a "$report"
done
# the plain JOINs' plans
for n in 49 499; do
	pg_psql "-c \"EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY ON) SELECT h.hole_id, b.body_id FROM drill_holes h JOIN ore_bodies b ON ST_ExactIntersects3D(h.geom, b.geom) WHERE h.hole_id BETWEEN 1000 AND 1000 + $n\"" 2>&1 | tee -a "$report"
done
echo '```' >> "$report"
pg_psql "-c 'SELECT * FROM exactgpu_gpu_service'" | tee -a "$report"
