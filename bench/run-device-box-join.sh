#!/bin/sh
# On the GPU machine (device tool): plain SQL joins on PostGIS's box
# operators as batch box joins (Custom Scan ExactBoxJoin), in one run of a
# few minutes (issue 17's acceptance: the &&& join of 10^6 x 10^6 boxes as a
# plain JOIN >= 50x PostGIS's GiST join end to end) —
#   1. pg_regress custom_box_join (CPU; the pairs equal PostGIS's operator);
#   2. bench/sql/box_join.sh at N = 10^6 (env N to change): &&& over 3D
#      boxes and && over 2D boxes, ExactBoxJoin on the GPU (the planner's
#      choice, exactgpu.device = auto) and on all CPU cores against PostGIS's
#      GiST nested loop (enable_batch_join = off), counts compared, plans,
#      and a cancel landing in the middle of a CPU join. PostGIS's runs are
#      bounded by statement_timeout (PG_TIMEOUT_S, default 150 s) so that
#      the whole script stays within 5 minutes; REPS (default 2) runs each.
# Carried: .carry/pgbundle.tar.xz with exactgpu built WITH CUDA from this
# branch and installed (bench/lib/pg-bundle.sh after make install). The
# report is written in the work dir (the benchmarks run as pg, who cannot
# write to $OUT) and copied to $OUT/box-join.md at the end.
set -eu
cd "$(dirname "$0")/.."
out=${OUT:-/tmp/out}
mkdir -p "$out"
. bench/lib/pg-cluster.sh
work=/tmp/exactgpu-box-join
pg_cluster_init "$work" test bench
pg_cluster_start -c shared_buffers=8GB -c work_mem=256MB -c maintenance_work_mem=2GB -c max_wal_size=16GB -c jit=off
md="$work/box-join.md"
{
	echo "# Plain JOIN on && / &&& as a batch box join (Custom Scan ExactBoxJoin)"
	echo
	echo "Device: $(nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader);" \
		"host: $(nproc) cores; date (UTC): $(date -u +%Y-%m-%dT%H:%MZ)"
	echo
	echo "## pg_regress"
	echo '```'
} > "$md"
chown pg "$md"
pg_cluster_regress custom_box_join 2>&1 | tail -3 >> "$md" || true
[ -f "$work/regression.diffs" ] && cp "$work/regression.diffs" "$out/" || true
echo '```' >> "$md"
echo >> "$md"
echo "## Benchmarks" >> "$md"
echo >> "$md"
as_pg "export PGHOST=/tmp PGDATABASE=postgres; cd $work &&
	REPS=${REPS:-2} PG_TIMEOUT_S=${PG_TIMEOUT_S:-150} bench/sql/box_join.sh $md ${N:-1000000}" 2>&1 | tail -20 || true
cp "$md" "$out/box-join.md"
cp "$work/pg.log" "$out/pg.log" 2>/dev/null || true
pg_cluster_stop
cat "$md"
