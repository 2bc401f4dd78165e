#!/bin/sh
# On the GPU machine (device tool): where a join's time goes with and
# without the GPU service, on the paper mine (12 bodies, 10^6 triangles,
# resident) and 500 holes of the large one: the progress NOTICEs (read,
# the service's lay-out, queue, engine phases, pairs back) of 4 warm runs
# each, service off then auto; the server started with OMP_WAIT_POLICY
# (default passive: idle OpenMP threads sleep at once). Carried as
# run-device-service.sh.
# Results: $OUT/service-phases.md.
set -eu
cd "$(dirname "$0")/.."
out=${OUT:-/tmp/out}
mkdir -p "$out"
[ -x demo/bin/minegen ] || make -s demo/bin/minegen
. bench/lib/pg-cluster.sh
work=/tmp/exactgpu-service-phases
pg_cluster_init "$work"
ncores=$(nproc)
report="$out/service-phases.md"
opts="-c shared_buffers=8GB -c max_wal_size=16GB -c wal_level=minimal -c max_wal_senders=0 \
 -c synchronous_commit=off -c max_worker_processes=$((ncores + 8)) -c max_parallel_workers=$ncores \
 -c max_parallel_workers_per_gather=$((ncores - 1)) -c min_dynamic_shared_memory=4GB \
 -c shared_preload_libraries=exactgpu -c exactgpu.resident_memory=8192"
echo "# exactgpu: a join's time with and without the GPU service ($(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1), $(date -u +%Y-%m-%dT%H:%MZ))" > "$report"
pg_cluster_start -e OMP_WAIT_POLICY=${OMP_WAIT_POLICY:-passive} "$opts -c exactgpu.gpu_service=off"
pg_psql "-q -c 'CREATE EXTENSION exactgpu CASCADE'"
mkdir -p "$work/paper" && demo/bin/minegen --size paper --out "$work/paper" >/dev/null && chown -R pg "$work/paper"
pg_psql "-q -v dir=$work/paper -v replace=1 -f $work/paper/load.sql" >/dev/null
pg_psql "-q -c 'VACUUM ANALYZE'"
q="SELECT count(*) FROM ST_ExactIntersects3DJoin('SELECT hole_id, geom FROM drill_holes', 'SELECT body_id, geom FROM ore_bodies')"
q500="SELECT count(*) FROM ST_ExactIntersects3DJoin('SELECT hole_id, geom FROM drill_holes WHERE hole_id BETWEEN 100 AND 599', 'SELECT body_id, geom FROM ore_bodies')"
for setting in off auto; do
	if [ $setting = auto ]; then
		pg_cluster_stop
		pg_cluster_start -e OMP_WAIT_POLICY=${OMP_WAIT_POLICY:-passive} "$opts -c exactgpu.gpu_service=auto"
		sleep 3
	fi
	echo "## exactgpu.gpu_service = $setting" >> "$report"
	echo '```' >> "$report"
	for qq in "$q" "$q500"; do
		pg_psql "-q -c \"$qq\" -c \"$qq\" -c 'SET exactgpu.progress = on' -c \"$qq\" -c \"$qq\" -c \"$qq\" -c \"$qq\" -c 'SELECT device, read_ms, upload_ms, prepare_ms, test_ms, exact_ms, join_ms, total_ms FROM exactgpu_last_join_stats()'" 2>&1 |
			grep -v '^ *count\|^---\|^ *[0-9]* *$\|row)' | tee -a "$report"
	done
	echo '```' >> "$report"
done
