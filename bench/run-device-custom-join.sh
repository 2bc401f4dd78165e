#!/bin/sh
# On the GPU machine (device tool): plain SQL joins as batch joins (Custom
# Scan ExactJoin) on the GPU, in one run of a few minutes —
#   1. pg_regress custom_join and join (the test sets exactgpu.device = cpu
#      for its EXPLAIN output; the pairs must match all the same);
#   2. the demo-sized mine (2,000 holes x 30 bodies, 2*10^5 triangles) with
#      exactgpu.device = gpu: plain JOIN (the planner's choice, then the
#      ExactJoin forced with enable_nestloop = off, so that it runs on the
#      GPU), batch SRF and row by row, rows compared;
#   3. the large mine (20,000 holes x 100 bodies, 10^7 triangles) with
#      exactgpu.device = auto: the planner's choice for the plain JOIN
#      (EXPLAIN ANALYZE), plain JOIN against the batch SRF (acceptance: within
#      1.2x), and row by row once (ROW_BY_ROW=0 skips it).
# PARTS=large runs the large mine only (no pg_regress, no demo-sized mine).
# Carried: .carry/pgbundle.tar.xz with exactgpu built WITH CUDA from this
# branch and installed (bench/lib/pg-bundle.sh after make install),
# demo/bin/minegen. Results go to $OUT/custom-join.md: the report is
# written in the work dir (the benchmarks run as pg, who cannot write to
# $OUT, e.g. /root/out) and copied there by root at the end.
set -eu
cd "$(dirname "$0")/.."
out=${OUT:-/tmp/out}
mkdir -p "$out"
. bench/lib/pg-cluster.sh
work=/tmp/exactgpu-custom-join
pg_cluster_init "$work" test bench demo
pg_cluster_start -c shared_buffers=8GB -c work_mem=256MB -c max_wal_size=16GB -c jit=off
md="$work/custom-join.md"
{
	echo "# Plain JOIN as a batch join (Custom Scan ExactJoin) on the GPU"
	echo
	echo "Device: $(nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader);" \
		"host: $(nproc) cores; date (UTC): $(date -u +%Y-%m-%dT%H:%MZ)"
	echo
	echo "## pg_regress"
	echo '```'
} > "$md"
chown pg "$md"
[ "${PARTS:-all}" = large ] || pg_cluster_regress custom_join custom_join_solid join 2>&1 | tail -5 >> "$md" || true
[ -f "$work/regression.diffs" ] && cp "$work/regression.diffs" "$out/" || true
echo '```' >> "$md"
echo >> "$md"
echo "## Benchmarks" >> "$md"
echo >> "$md"
[ "${PARTS:-all}" = large ] || as_pg "export PGHOST=/tmp PGDATABASE=postgres; cd $work &&
	DEVICE=gpu bench/sql/custom_join.sh demo/bin/minegen $md 2000:30:200000 &&
	INDEXES=bodies DEVICE=gpu BATCH_SETTINGS='SET enable_nestloop = off' bench/sql/custom_join.sh demo/bin/minegen $md 2000:30:200000" 2>&1 | tail -20 || true
as_pg "export PGHOST=/tmp PGDATABASE=postgres; cd $work &&
	ROW_BY_ROW=${ROW_BY_ROW:-1} bench/sql/custom_join.sh demo/bin/minegen $md 20000:100:10000000" 2>&1 | tail -20 || true
cp "$md" "$out/custom-join.md"
cat "$md"
