#!/bin/sh
# On the GPU machine (device tool): a GPU out of memory under a join (issue
# 28, faults). bench/faults/gpu_hog holds all but 64 MB of the GPU while the
# demo mine's full join runs (the batch join: exactgpu.probe_join = off),
# with the GPU service (auto) and without it (off), and a join allowed 1 MB
# of GPU memory (exactgpu.gpu_memory_limit): under exactgpu.device = auto
# the join must finish with the pairs it gives on a free GPU and say where
# it ran; under device = gpu fail with a clear error. Then every device
# allocation of a join refused (EXACTGPU_TEST_ALLOC_LIMIT), both ways.
# Carried: .carry/pgbundle.tar.xz, .carry/gpu_hog (nvcc -O2 -o .carry/gpu_hog
# bench/faults/gpu_hog.cu), demo/bin/minegen. Results: $OUT/faults.md.
set -eu
cd "$(dirname "$0")/.."
out=${OUT:-/tmp/out}
mkdir -p "$out"
[ -x demo/bin/minegen ] || make -s demo/bin/minegen
hog=${HOG:-.carry/gpu_hog}
. bench/lib/pg-cluster.sh
work=/tmp/exactgpu-faults
pg_cluster_init "$work"
report="$out/faults.md"
opts="-c shared_preload_libraries=exactgpu -c exactgpu.resident_memory=2048 -c max_connections=40"
{
	echo "# exactgpu: a GPU out of memory under a join (demo mine, batch join)"
	echo
	echo "Device: $(nvidia-smi --query-gpu=name,memory.total --format=csv,noheader 2>/dev/null | head -1 || echo none); date (UTC): $(date -u +%Y-%m-%dT%H:%MZ)"
	echo
} > "$report"
q="SELECT count(*) || ' pairs, md5 ' || md5(string_agg(left_id || ':' || right_id, ',' ORDER BY left_id, right_id)) || ', ' || (SELECT device FROM exactgpu_last_join_stats()) FROM ST_ExactIntersects3DJoin('SELECT hole_id, geom FROM drill_holes', 'SELECT body_id, geom FROM ore_bodies')"
for setting in auto off; do
	pg_cluster_start -e OMP_WAIT_POLICY=passive "$opts -c exactgpu.gpu_service=$setting"
	if [ $setting = auto ]; then
		pg_psql "-q -c 'CREATE EXTENSION exactgpu CASCADE'"
		pg_mine_load postgres "$work/mine" --size demo
	fi
	echo "## exactgpu.gpu_service = $setting" >> "$report"
	echo '```' >> "$report"
	pg_psql "-At -c 'SET exactgpu.probe_join = off' -c \"SELECT 'free GPU: ' || ($q)\"" 2>&1 | tee -a "$report"
	# a join allowed 1 MB of GPU memory splits until it cannot: the CPU then
	pg_psql "-At -c 'SET exactgpu.probe_join = off' -c 'SET exactgpu.gpu_memory_limit = 1' -c \"SELECT 'GPU memory limit 1 MB: ' || ($q)\"" 2>&1 | tee -a "$report"
	pg_psql "-At -c 'SET exactgpu.probe_join = off' -c 'SET exactgpu.gpu_memory_limit = 1' -c 'SET exactgpu.device = gpu' -c \"SELECT 'GPU memory limit 1 MB, device = gpu: ' || ($q)\"" 2>&1 | tee -a "$report"
	"$hog" 64 30 > "$work/hog.log" 2>&1 &
	sleep 8
	cat "$work/hog.log" | tee -a "$report"
	echo "GPU memory used: $(nvidia-smi --query-gpu=memory.used,memory.total --format=csv,noheader | tr '\n' ' ')" | tee -a "$report"
	pg_psql "-At -c 'SET exactgpu.probe_join = off' -c 'SET exactgpu.progress = on' -c \"SELECT 'GPU held by another process: ' || ($q)\"" 2>&1 | tee -a "$report"
	# a fresh backend too (under 'off' it makes its own context now)
	pg_psql "-At -c 'SET exactgpu.probe_join = off' -c \"SELECT 'GPU held, a fresh backend: ' || ($q)\"" 2>&1 | tee -a "$report"
	pg_psql "-At -c 'SELECT * FROM exactgpu_gpu_service'" 2>&1 | sed 's/^/service: /' | tee -a "$report"
	wait
	pg_psql "-At -c 'SET exactgpu.probe_join = off' -c \"SELECT 'GPU free again: ' || ($q)\"" 2>&1 | tee -a "$report"
	pg_psql "-At -c 'SELECT * FROM exactgpu_gpu_service'" 2>&1 | sed 's/^/service: /' | tee -a "$report"
	grep -E 'exactgpu|ERROR|FATAL|WARNING' "$work/pg.log" | tail -8 | tee -a "$report"
	echo '```' >> "$report"
	pg_cluster_stop
done
# every device allocation of a join refused (the engine's fault injection,
# EXACTGPU_TEST_ALLOC_LIMIT): the join halves as far as it goes, then runs
# on the CPU, in the GPU service (its redo) and in a backend
for setting in auto off; do
	pg_cluster_start -e OMP_WAIT_POLICY=passive -e EXACTGPU_TEST_ALLOC_LIMIT=4096 "$opts -c exactgpu.gpu_service=$setting"
	echo "## every join allocation refused (EXACTGPU_TEST_ALLOC_LIMIT=4096), exactgpu.gpu_service = $setting" >> "$report"
	echo '```' >> "$report"
	pg_psql "-At -c 'SET exactgpu.probe_join = off' -c 'SET exactgpu.progress = on' -c \"SELECT 'allocations refused: ' || ($q)\"" 2>&1 | tee -a "$report"
	pg_psql "-At -c 'SET exactgpu.probe_join = off' -c 'SET exactgpu.device = gpu' -c \"SELECT 'allocations refused, device = gpu: ' || ($q)\"" 2>&1 | tee -a "$report"
	pg_psql "-At -c 'SELECT * FROM exactgpu_gpu_service'" 2>&1 | sed 's/^/service: /' | tee -a "$report"
	echo '```' >> "$report"
	pg_cluster_stop
done
