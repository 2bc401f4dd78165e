#!/bin/sh
# On a GPU machine with several GPUs (device tool, nvidia-h100-x2): one join
# over every GPU of the host through the GPU service (issue 28, deliverable
# 4). The double mine (twice large: 40,000 holes, 200 bodies, 2*10^7
# triangles, minegen --size large --holes 40000 --bodies 200 --triangles
# 20000000) and the large one, resident store on, the service with
# CUDA_VISIBLE_DEVICES=0 (one GPU) and then with every GPU:
#   1. the full join (SRF) warm, 5 runs, and its pairs' md5 (the same on
#      one GPU and on all);
#   2. 8 clients each joining 500 new holes against every body, against 1.
# Target: on two H100s the double mine in <= 0.6x the time one H100 takes
# for it. Carried: .carry/pgbundle.tar.xz (CUDA build), demo/bin/minegen.
# Results: $OUT/service-gpus.md.
set -eu
cd "$(dirname "$0")/.."
out=${OUT:-/tmp/out}
mkdir -p "$out"
secs=${SECONDS_EACH:-8}
[ -x demo/bin/minegen ] || make -s demo/bin/minegen
. bench/lib/pg-cluster.sh
work=/tmp/exactgpu-service-gpus
pg_cluster_init "$work" bench
ncores=$(nproc)
ngpus=$(nvidia-smi -L 2>/dev/null | wc -l)
report="$out/service-gpus.md"
opts="$(pg_mine_opts 24GB 8GB 32768) -c max_connections=60"
{
	echo "# exactgpu: one join over every GPU through the GPU service"
	echo
	echo "Device: $ngpus x $(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1); host: $ncores cores; date (UTC): $(date -u +%Y-%m-%dT%H:%MZ)"
	echo
} > "$report"
pg_cluster_start -e OMP_WAIT_POLICY=passive "$opts"
pg_psql "-q -c 'CREATE EXTENSION exactgpu CASCADE' -c 'CREATE DATABASE large'"
as_pg "psql -X -h /tmp -d large -q -c 'CREATE EXTENSION exactgpu CASCADE'"
t0=$(date +%s)
mkdir -p "$work/double" "$work/large"
demo/bin/minegen --size large --holes 40000 --bodies 200 --triangles 20000000 --out "$work/double" >/dev/null &
demo/bin/minegen --size large --out "$work/large" >/dev/null
wait
chown -R pg "$work/double" "$work/large"
pg_psql "-q -v dir=$work/double -v replace=1 -f $work/double/load.sql" >/dev/null &
as_pg "psql -X -h /tmp -d large -q -v dir=$work/large -v replace=1 -f $work/large/load.sql" >/dev/null
wait
pg_psql "-q -c 'VACUUM ANALYZE drill_holes' -c 'VACUUM ANALYZE ore_bodies'"
as_pg "psql -X -h /tmp -d large -q -c 'VACUUM ANALYZE drill_holes' -c 'VACUUM ANALYZE ore_bodies'"
echo "mines generated and loaded in $(( $(date +%s) - t0 )) s" >> "$report"
cat > "$work/q500.sql" <<'SQL'
\set lo random(1, 39000)
SELECT count(*) FROM ST_ExactIntersects3DJoin(format('SELECT hole_id, geom FROM drill_holes WHERE hole_id BETWEEN %s AND %s', :lo, :lo + 499), 'SELECT body_id, geom FROM ore_bodies');
SQL
chown pg "$work/q500.sql"
full="SELECT count(*) FROM ST_ExactIntersects3DJoin(''SELECT hole_id, geom FROM drill_holes'', ''SELECT body_id, geom FROM ore_bodies'')"
md5q="SELECT count(*) || ' pairs, md5 ' || md5(string_agg(left_id || ':' || right_id, ',' ORDER BY left_id, right_id)) FROM ST_ExactIntersects3DJoin('SELECT hole_id, geom FROM drill_holes', 'SELECT body_id, geom FROM ore_bodies')"
run() {
	label=$1
	echo "## $label" >> "$report"
	echo '```' >> "$report"
	for db in postgres large; do
		as_pg "psql -X -h /tmp -d $db -q -f $work/bench/sql/bench_ms.sql"
		as_pg "psql -X -h /tmp -d $db -At -c \"SELECT '$db: service ' || gpus || ' GPU(s), ' || lanes || ' lanes' FROM exactgpu_gpu_service\"" | tee -a "$report"
		as_pg "psql -X -h /tmp -d $db -At -c \"SELECT 'full join: ' || bench_ms('$full', 6)\" -c \"SELECT 'device: ' || device FROM exactgpu_last_join_stats()\" -c \"$md5q\"" | sed "s/^/$db: /" | tee -a "$report"
	done
	for c in 1 8; do
		as_pg "pgbench -n -h /tmp -d postgres -c $c -j $c -T $secs -f $work/q500.sql" 2>&1 |
			grep -E '^(tps|latency average|number of failed)' | sed "s/^/double, 500 holes, clients=$c: /" | tee -a "$report"
	done
	echo '```' >> "$report"
}
pg_cluster_stop
pg_cluster_start -e OMP_WAIT_POLICY=passive -e CUDA_VISIBLE_DEVICES=0 "$opts"
sleep 3
run "one GPU (CUDA_VISIBLE_DEVICES=0)"
pg_cluster_stop
pg_cluster_start -e OMP_WAIT_POLICY=passive "$opts"
sleep 3
run "every GPU ($ngpus)"
pg_psql "-c 'SELECT * FROM exactgpu_gpu_service_devices()'" | tee -a "$report"
