#!/bin/sh
# On the GPU machine (device tool), in one go (< 5 min on an H100 with 16 cores):
#   1. PostgreSQL from the bundle (.carry/pgbundle.tar.xz, built after make install);
#   2. the intercepts regress tests (intercepts, intercepts_join, composite) with the
#      GPU as the default device (the candidate pairs come from the GPU batch join);
#   3. bench/sql/intercepts.sh on the demo mine: intercepts join against the
#      intersects join, GPU (auto) and CPU (16 threads).
# Needs demo/bin/minegen carried over. Results go to $OUT (device-intercepts.md).
set -eu
cd "$(dirname "$0")/.."
out=${OUT:-/tmp/out}
mkdir -p "$out"
. bench/lib/pg-cluster.sh
work=/tmp/exactgpu-intercepts
pg_cluster_init "$work" test bench demo
pg_cluster_start -c shared_buffers=4GB -c work_mem=256MB
log="$out/device-intercepts.md"
: > "$log"
echo "== pg_regress (intercepts, intercepts_join, composite) with the GPU" | tee -a "$log"
pg_cluster_regress intercepts intercepts_join composite 2>&1 | tee -a "$log" | tail -3 || true
[ -f "$work/regression.diffs" ] && cp "$work/regression.diffs" "$out/" || true
echo "== demo mine" | tee -a "$log"
as_pg "$work/demo/bin/minegen --size demo --seed 1 --out $work/mine" >/dev/null
for dev in auto cpu; do
	echo "-- exactgpu.device = $dev" | tee -a "$log"
	as_pg "cd $work && PSQL='psql -h /tmp -d postgres' SETUP='SET exactgpu.device = $dev;' \
		bench/sql/intercepts.sh $work/mine 7" 2>&1 | tee -a "$log"
done
