#!/bin/sh
# On a GPU machine with several GPUs (device tool, nvidia-h100-x2): where a
# join split over every GPU (exactgpu.gpu_split_primitives) spends its time
# against the same join on one GPU, on the double mine (40,000 holes, 200
# bodies, 2*10^7 triangles), bodies resident, one server start: the setting
# is changed by ALTER SYSTEM and a reload. For each: the full join (SRF)
# warm, 6 runs, the pairs' md5, and one run with the progress NOTICEs (the
# service's lay-out, queue, engine phases summed over the ranges).
# Carried: .carry/pgbundle.tar.xz (CUDA build), demo/bin/minegen.
# Results: $OUT/split.md.
set -eu
cd "$(dirname "$0")/.."
out=${OUT:-/tmp/out}
mkdir -p "$out"
[ -x demo/bin/minegen ] || make -s demo/bin/minegen
. bench/lib/pg-cluster.sh
work=/tmp/exactgpu-split
pg_cluster_init "$work" bench
ncores=$(nproc)
report="$out/split.md"
opts="$(pg_mine_opts 24GB 8GB 32768) -c max_connections=60"
{
	echo "# exactgpu: a join split over every GPU, where the time goes (double mine)"
	echo
	echo "Device: $(nvidia-smi -L | wc -l) x $(nvidia-smi --query-gpu=name --format=csv,noheader | head -1); host: $ncores cores; date (UTC): $(date -u +%Y-%m-%dT%H:%MZ)"
	echo
} > "$report"
pg_cluster_start -e OMP_WAIT_POLICY=passive "$opts"
pg_psql "-q -c 'CREATE EXTENSION exactgpu CASCADE'"
t0=$(date +%s)
pg_mine_load postgres "$work/double" --size large --holes 40000 --bodies 200 --triangles 20000000
pg_psql "-q -f $work/bench/sql/bench_ms.sql"
echo "mine generated and loaded in $(( $(date +%s) - t0 )) s" >> "$report"
full="SELECT count(*) FROM ST_ExactIntersects3DJoin(''SELECT hole_id, geom FROM drill_holes'', ''SELECT body_id, geom FROM ore_bodies'')"
md5q="SELECT count(*) || ' pairs, md5 ' || md5(string_agg(left_id || ':' || right_id, ',' ORDER BY left_id, right_id)) FROM ST_ExactIntersects3DJoin('SELECT hole_id, geom FROM drill_holes', 'SELECT body_id, geom FROM ore_bodies')"
echo '```' >> "$report"
for split in 0 1000000 0; do
	pg_psql "-q -c 'ALTER SYSTEM SET exactgpu.gpu_split_primitives = $split' -c 'SELECT pg_reload_conf()'" >/dev/null
	sleep 2
	pg_psql "-At -c \"SELECT 'split at $split: full join: ' || bench_ms('$full', 6)\" -c \"SELECT 'device: ' || device FROM exactgpu_last_join_stats()\" -c \"$md5q\"" 2>&1 | tee -a "$report"
	pg_psql "-At -c 'SET exactgpu.progress = on' -c \"SELECT count(*) FROM ST_ExactIntersects3DJoin('SELECT hole_id, geom FROM drill_holes', 'SELECT body_id, geom FROM ore_bodies')\"" 2>&1 | tee -a "$report"
done
echo '```' >> "$report"
pg_psql "-c 'SELECT * FROM exactgpu_gpu_service_devices()'" | tee -a "$report"
