#!/bin/sh
# On the GPU machine (device tool): the GPU service (issue 28) against
# backends that each use the GPU themselves, on the large mine (and the
# paper mine for its 16-client join), resident store on in both:
#   1. the first GPU join of a fresh backend against the same join in a warm
#      one (3 fresh connections);
#   2. the full join (SRF) and 500 holes (SRF), warm, 5 runs;
#   3. pgbench: 1 and 8 clients each joining 500 new holes against every
#      body; 1 and 16 clients on the paper mine's full join;
#   4. GPU memory (nvidia-smi) with 1, 16 and 48 connected backends that
#      each ran a GPU join;
#   5. service only: SIGKILL of the service while 8 clients join: the
#      clients' errors, the server's restart, GPU memory after it, the same
#      pairs after it.
# The cluster restarts between the two settings (exactgpu.gpu_service is a
# server setting). Carried: .carry/pgbundle.tar.xz (bench/lib/pg-bundle.sh
# after make install of a CUDA build), demo/bin/minegen.
# Results: $OUT/service.md.
set -eu
cd "$(dirname "$0")/.."
out=${OUT:-/tmp/out}
mkdir -p "$out"
size=${SIZE:-large}
secs=${SECONDS_EACH:-10}
[ -x demo/bin/minegen ] || make -s demo/bin/minegen
. bench/lib/pg-cluster.sh
work=/tmp/exactgpu-service
pg_cluster_init "$work" bench
ncores=$(nproc)
report="$out/service.md"
opts="$(pg_mine_opts 16GB 4GB ${STORE_MB:-16384}) -c max_connections=120 -c restart_after_crash=on"
gpu_mem() { nvidia-smi --query-gpu=memory.used --format=csv,noheader 2>/dev/null | tr '\n' ' '; }
{
	echo "# exactgpu: the GPU service ($size mine)"
	echo
	echo "Device: $(nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader 2>/dev/null | head -1 || echo none)," \
		"$(nvidia-smi -L 2>/dev/null | wc -l) GPU(s); host: $ncores cores; date (UTC): $(date -u +%Y-%m-%dT%H:%MZ)"
	echo
} > "$report"

pg_cluster_start -e OMP_WAIT_POLICY=${OMP_WAIT_POLICY:-passive} "$opts -c exactgpu.gpu_service=off"
pg_psql "-q -c 'CREATE EXTENSION exactgpu CASCADE' -c 'CREATE DATABASE paper'"
as_pg "psql -X -h /tmp -d paper -q -c 'CREATE EXTENSION exactgpu CASCADE'"
t0=$(date +%s)
mkdir -p "$work/mine" "$work/paper"
demo/bin/minegen --size "$size" --out "$work/mine" >/dev/null
demo/bin/minegen --size paper --out "$work/paper" >/dev/null
chown -R pg "$work/mine" "$work/paper"
pg_psql "-q -v dir=$work/mine -v replace=1 -f $work/mine/load.sql" >/dev/null
as_pg "psql -X -h /tmp -d paper -q -v dir=$work/paper -v replace=1 -f $work/paper/load.sql" >/dev/null
pg_psql "-q -c 'VACUUM ANALYZE drill_holes' -c 'VACUUM ANALYZE ore_bodies'"
as_pg "psql -X -h /tmp -d paper -q -c 'VACUUM ANALYZE'"
echo "mines generated and loaded in $(( $(date +%s) - t0 )) s" >> "$report"

pg_psql "-q -f $work/bench/sql/bench_ms.sql"
as_pg "psql -X -h /tmp -d paper -q -f $work/bench/sql/bench_ms.sql"
q500="SELECT count(*) FROM ST_ExactIntersects3DJoin(''SELECT hole_id, geom FROM drill_holes WHERE hole_id BETWEEN 1000 AND 1499'', ''SELECT body_id, geom FROM ore_bodies'')"
qfull="SELECT count(*) FROM ST_ExactIntersects3DJoin(''SELECT hole_id, geom FROM drill_holes'', ''SELECT body_id, geom FROM ore_bodies'')"
cat > "$work/q500.sql" <<'SQL'
\set lo random(1, 19000)
SELECT count(*) FROM ST_ExactIntersects3DJoin(format('SELECT hole_id, geom FROM drill_holes WHERE hole_id BETWEEN %s AND %s', :lo, :lo + 499), 'SELECT body_id, geom FROM ore_bodies');
SQL
cat > "$work/qpaper.sql" <<'SQL'
SELECT count(*) FROM ST_ExactIntersects3DJoin('SELECT hole_id, geom FROM drill_holes', 'SELECT body_id, geom FROM ore_bodies');
SQL
chown pg "$work/q500.sql" "$work/qpaper.sql"

run_setting() {
	setting=$1
	echo "## exactgpu.gpu_service = $setting" >> "$report"
	echo '```' >> "$report"
	pg_psql "-At -c 'SELECT * FROM exactgpu_gpu_service'" | sed 's/^/service: /' | tee -a "$report"
	# warm the store and, for the service, its device pools
	pg_psql "-At -c \"SELECT count(*) FROM ST_ExactIntersects3DJoin('SELECT hole_id, geom FROM drill_holes', 'SELECT body_id, geom FROM ore_bodies')\"" >/dev/null
	for i in 1 2 3; do
		pg_psql "-At -c \"SELECT 'fresh backend $i, 500 holes: ' || bench_ms('$q500', 3)\"" | tee -a "$report"
	done
	pg_psql "-At -c \"SELECT 'full join: ' || bench_ms('$qfull', 5)\"" | tee -a "$report"
	pg_psql "-At -c \"SELECT 'full join, device: ' || device FROM (SELECT count(*) FROM ST_ExactIntersects3DJoin('SELECT hole_id, geom FROM drill_holes', 'SELECT body_id, geom FROM ore_bodies')) j, exactgpu_last_join_stats()\"" | tee -a "$report"
	pg_psql "-At -c \"SELECT 'pairs: ' || count(*) || ', md5 ' || md5(string_agg(left_id || ':' || right_id, ',' ORDER BY left_id, right_id)) FROM ST_ExactIntersects3DJoin('SELECT hole_id, geom FROM drill_holes', 'SELECT body_id, geom FROM ore_bodies')\"" | tee -a "$report"
	for c in 1 8; do
		as_pg "pgbench -n -h /tmp -d postgres -c $c -j $c -T $secs -f $work/q500.sql" 2>&1 |
			grep -E '^(tps|latency average|number of failed)' | sed "s/^/500 holes, clients=$c: /" | tee -a "$report"
	done
	as_pg "psql -X -h /tmp -d paper -At -c \"SELECT 'paper full join: ' || bench_ms('SELECT count(*) FROM ST_ExactIntersects3DJoin(''SELECT hole_id, geom FROM drill_holes'', ''SELECT body_id, geom FROM ore_bodies'')', 3)\"" | tee -a "$report"
	for c in 1 16; do
		as_pg "pgbench -n -h /tmp -d paper -c $c -j $c -T $secs -f $work/qpaper.sql" 2>&1 |
			grep -E '^(tps|latency average|number of failed)' | sed "s/^/paper join, clients=$c: /" | tee -a "$report"
	done
	# a small join beside big ones: 50 holes while 2 clients run full joins
	cat > "$work/q50.sql" <<'SQL'
\set lo random(1, 19900)
SELECT count(*) FROM ST_ExactIntersects3DJoin(format('SELECT hole_id, geom FROM drill_holes WHERE hole_id BETWEEN %s AND %s', :lo, :lo + 49), 'SELECT body_id, geom FROM ore_bodies');
SQL
	cat > "$work/qfull.sql" <<'SQL'
SELECT count(*) FROM ST_ExactIntersects3DJoin('SELECT hole_id, geom FROM drill_holes', 'SELECT body_id, geom FROM ore_bodies');
SQL
	chown pg "$work/q50.sql" "$work/qfull.sql"
	as_pg "pgbench -n -h /tmp -d postgres -c 1 -T $secs -f $work/q50.sql" 2>&1 |
		grep -E '^(latency average|tps)' | sed "s/^/50 holes alone: /" | tee -a "$report"
	as_pg "pgbench -n -h /tmp -d postgres -c 2 -j 2 -T $((secs + 4)) -f $work/qfull.sql" > "$work/big.log" 2>&1 &
	sleep 2
	as_pg "pgbench -n -h /tmp -d postgres -c 1 -T $secs -f $work/q50.sql" 2>&1 |
		grep -E '^(latency average|tps)' | sed "s/^/50 holes beside 2 clients of full joins: /" | tee -a "$report"
	wait
	grep -E '^(tps|latency average)' "$work/big.log" | sed "s/^/the 2 full-join clients meanwhile: /" | tee -a "$report"
	# GPU memory with N connected backends that each joined on the GPU
	for n in 1 16 48; do
		i=0
		while [ $i -lt $n ]; do
			as_pg "psql -X -h /tmp -d postgres -q -c \"SET exactgpu.gpu_min_primitives = 0\" -c \"SELECT count(*) FROM ST_ExactIntersects3DJoin('SELECT hole_id, geom FROM drill_holes WHERE hole_id <= 50', 'SELECT body_id, geom FROM ore_bodies WHERE body_id <= 2')\" -c 'SELECT pg_sleep(25)'" >/dev/null 2>&1 &
			i=$((i + 1))
		done
		sleep 15
		echo "GPU memory used with $n backends connected: $(gpu_mem) (nvidia-smi), $(nvidia-smi --query-compute-apps=pid --format=csv,noheader 2>/dev/null | wc -l) processes on the GPU" | tee -a "$report"
		wait
	done
	echo '```' >> "$report"
}

run_setting off
pg_cluster_stop
pg_cluster_start -e OMP_WAIT_POLICY=${OMP_WAIT_POLICY:-passive} "$opts -c exactgpu.gpu_service=auto"
sleep 3
run_setting auto

echo "## faults: SIGKILL of the service while 8 clients join" >> "$report"
echo '```' >> "$report"
spid=$(pg_psql "-At -c 'SELECT pid FROM exactgpu_gpu_service'")
echo "service pid $spid; GPU memory before: $(gpu_mem)" | tee -a "$report"
as_pg "pgbench -n -h /tmp -d postgres -c 8 -j 8 -T 6 -f $work/q500.sql" > "$work/kill.log" 2>&1 &
sleep 2
kill -KILL "$spid"
wait || true
grep -E 'error|ERROR|terminat|FATAL|aborted' "$work/kill.log" | sort | uniq -c | head -8 | tee -a "$report"
for i in $(seq 1 60); do
	r=$(pg_psql "-At -c 'SELECT running FROM exactgpu_gpu_service'" 2>/dev/null || true)
	[ "$r" = t ] && break
	sleep 0.5
done
echo "after the restart: $(pg_psql "-At -c 'SELECT * FROM exactgpu_gpu_service'" 2>&1)" | tee -a "$report"
echo "GPU memory after the restart: $(gpu_mem); processes on the GPU: $(nvidia-smi --query-compute-apps=pid,used_memory --format=csv,noheader 2>/dev/null | tr '\n' ' ')" | tee -a "$report"
pg_psql "-At -c \"SELECT 'pairs after the restart: ' || count(*) || ', md5 ' || md5(string_agg(left_id || ':' || right_id, ',' ORDER BY left_id, right_id)) FROM ST_ExactIntersects3DJoin('SELECT hole_id, geom FROM drill_holes', 'SELECT body_id, geom FROM ore_bodies')\"" | tee -a "$report"
grep -E 'exactgpu gpu service|terminated by signal|restart' "$work/pg.log" | tail -8 | tee -a "$report"
echo '```' >> "$report"
