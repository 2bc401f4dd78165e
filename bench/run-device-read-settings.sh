#!/bin/sh
# On the GPU machine (device tool): the host settings the batch join's read
# path depends on, on one mine loaded once (large by default).
#   - the host: transparent huge pages, huge pages, /dev/shm;
#   - bench/probe/gpu_setup.cu: what a fresh process pays for the CUDA
#     context and for pinned buffers of a given size;
#   - bench/sql/read.sql (GPU, with the read's NOTICE split) under each
#     postmaster setting variant in VARIANTS (a |-separated list of extra
#     `-c name=value` options; the first, empty, is the default), e.g.
#     min_dynamic_shared_memory, which lets the parallel read's DSA
#     segments come from the main shared memory instead of new /dev/shm
#     segments that are faulted in and unmapped on every join.
# Carried: .carry/pgbundle.tar.xz. Results: $OUT/read-settings.md.
set -eu
cd "$(dirname "$0")/.."
out=${OUT:-/tmp/out}
mkdir -p "$out"
size=${SIZE:-large}
devices=${DEVICES:-gpu}
variants=${VARIANTS:-"|-c min_dynamic_shared_memory=4GB"}
[ -x demo/bin/minegen ] || make -s demo/bin/minegen
tar -xJf .carry/pgbundle.tar.xz -C /
/opt/pgbundle/activate >/dev/null
. /opt/pgbundle/env
work=/tmp/exactgpu-read
pkill -x postgres 2>/dev/null && sleep 2 || true
rm -rf "$work" && mkdir -p "$work" && cp -r bench "$work/" && chown -R pg "$work"
ncores=$(nproc)
pgopts="-k /tmp -c shared_buffers=16GB -c work_mem=256MB -c max_wal_size=16GB -c wal_level=minimal -c max_wal_senders=0 \
 -c synchronous_commit=off -c max_worker_processes=$((ncores + 8)) -c max_parallel_workers=$ncores \
 -c max_parallel_workers_per_gather=$((ncores - 1)) -c exactgpu.worker_threads=0"
start_pg() { su pg -c ". /opt/pgbundle/env; pg_ctl -D $work/data -l $work/pg.log -o '$pgopts $1' -w start" >/dev/null; }
stop_pg() { su pg -c ". /opt/pgbundle/env; pg_ctl -D $work/data -m fast -w stop" >/dev/null || true; }
q() { su pg -c ". /opt/pgbundle/env; psql -X -h /tmp -d postgres $*"; }
report="$out/read-settings.md"
{
	echo "# exactgpu read path: host settings"
	echo
	echo "Device: $(nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader 2>/dev/null || echo none);" \
		"host: $ncores cores; date (UTC): $(date -u +%Y-%m-%dT%H:%MZ)"
	echo
	echo '```'
	echo "transparent_hugepage/enabled: $(cat /sys/kernel/mm/transparent_hugepage/enabled 2>/dev/null)"
	echo "transparent_hugepage/defrag: $(cat /sys/kernel/mm/transparent_hugepage/defrag 2>/dev/null)"
	echo "transparent_hugepage/shmem_enabled: $(cat /sys/kernel/mm/transparent_hugepage/shmem_enabled 2>/dev/null)"
	grep -i huge /proc/meminfo || true
	echo "/dev/shm: $(df -h /dev/shm | tail -1)"
	echo "ulimit -l: $(ulimit -l)"
	echo '```'
	echo
	echo "## CUDA context and pinned buffers (bench/probe/gpu_setup.cu)"
	echo '```'
} > "$report"
if nvcc -O2 -o "$work/gpu_setup" bench/probe/gpu_setup.cu 2>>"$report"; then
	"$work/gpu_setup" >> "$report" 2>&1 || true
	"$work/gpu_setup" >> "$report" 2>&1 || true
fi
echo '```' >> "$report"

su pg -c ". /opt/pgbundle/env; initdb -D $work/data -A trust >/dev/null"
start_pg ""
q "-q -c 'CREATE EXTENSION exactgpu CASCADE'"
t0=$(date +%s)
mkdir -p "$work/mine" && demo/bin/minegen --size "$size" --out "$work/mine" >/dev/null && chown -R pg "$work/mine"
q "-q -v dir=$work/mine -v replace=1 -f $work/mine/load.sql" >/dev/null
q "-q -c 'VACUUM ANALYZE drill_holes' -c 'VACUUM ANALYZE ore_bodies'"
echo "## $size mine (generated and loaded in $(( $(date +%s) - t0 )) s)" >> "$report"
stop_pg

i=0
echo "$variants" | tr '|' '\n' | while IFS= read -r v; do
	i=$((i + 1))
	start_pg "$v"
	echo "### postmaster options: ${v:-(default)}" >> "$report"
	echo '```' >> "$report"
	q "-v label=$size/v$i -v devices='$devices' -v reps=${REPS:-2} -v detail=1 -f $work/bench/sql/read.sql" 2>&1 | tee -a "$report"
	echo '```' >> "$report"
	stop_pg
done

# the first GPU join of a fresh backend, under the last variant: what it
# pays to set the GPU up (the NOTICE's detail), then the same join again
v=$(echo "$variants" | tr '|' '\n' | tail -1)
start_pg "$v"
echo "## first GPU join in a fresh backend (postmaster options: ${v:-(default)})" >> "$report"
echo '```' >> "$report"
q "" <<'SQL' 2>&1 | tee -a "$report"
SET exactgpu.device = 'gpu';
SET exactgpu.progress = on;
\timing on
SELECT count(*) AS first_join_pairs FROM ST_ExactIntersects3DJoin('SELECT hole_id, geom FROM drill_holes', 'SELECT body_id, geom FROM ore_bodies');
SELECT count(*) AS second_join_pairs FROM ST_ExactIntersects3DJoin('SELECT hole_id, geom FROM drill_holes', 'SELECT body_id, geom FROM ore_bodies');
SQL
echo '```' >> "$report"
stop_pg
