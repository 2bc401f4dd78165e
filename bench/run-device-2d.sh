#!/bin/sh
# On the GPU machine (device tool): the 2D half, in one run —
#   1. test_overlay with the CUDA back-end (2D segments and boxes against
#      brute force, GPU and CPU);
#   2. bench_overlay: the map overlay at the dissertation's scale and box
#      joins of 2 x 5·10^6 boxes at three coverages (GPU and CPU compared);
#   3. bench/sql/overlay.sql: ST_ExactIntersectsJoin against PostGIS's
#      ST_Intersects join with GiST indexes on two lattice layers;
#   4. bench/sql/boxjoin.sql: ST_BoxJoin against PostGIS's GiST && join on
#      the same tables, per BOX_CASES (boxes per table:coverage).
# SKIP_ENGINE=1 skips 1-2, SKIP_SQL=1 skips 3-4.
# Carried: test/engine/bin-gpu, bench/bin, .carry/pgbundle.tar.xz. Results
# go to $OUT.
set -eu
cd "$(dirname "$0")/.."
out=${OUT:-/tmp/out}
mkdir -p "$out"
[ -n "${SKIP_ENGINE:-}" ] || {
	echo "# exactgpu 2D joins on the GPU"
	echo
	echo "Device: $(nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader);" \
		"host: $(nproc) cores; date (UTC): $(date -u +%Y-%m-%dT%H:%MZ)"
	echo
	echo '```'
	test/engine/bin-gpu/test_overlay
	echo
	bench/bin/bench_overlay "${SIDE:-1361}" "${BOXES:-5e6}" "${REPEAT:-3}" "${OVERLAY_CELLS:-88000}"
	echo '```'
} 2>&1 | tee "$out/overlay.md"
[ -z "${SKIP_SQL:-}" ] || exit 0
. bench/lib/pg-cluster.sh
work=/tmp/exactgpu-2d
pg_cluster_init "$work" bench/sql/boxjoin.sql bench/sql/overlay.sql
pg_cluster_start -c shared_buffers=8GB -c work_mem=1GB -c max_wal_size=8GB
pg_psql "-q -c 'CREATE EXTENSION exactgpu CASCADE'"
for n in ${OVERLAY_N:-300}; do
	[ "$n" = 0 ] && break
	echo "== map overlay SQL, $n x $n lattice" | tee -a "$out/overlay-sql.md"
	pg_psql "-v n=$n -f $work/overlay.sql" 2>&1 | tee -a "$out/overlay-sql.md"
done
# boxes per table:coverage; pair-by-pair comparison up to EXACT_CHECK_MAX
# (10^6) boxes a side (count and fingerprint are compared in every case)
for case in ${BOX_CASES:-1000000:0.1 1000000:1 1000000:4}; do
	n=${case%%:*} cov=${case#*:} check=$([ "$n" -le "${EXACT_CHECK_MAX:-1000000}" ] && echo 1 || echo 0)
	echo "== box join SQL, $n boxes per table, coverage $cov" | tee -a "$out/boxjoin-sql.md"
	pg_psql "-v n=$n -v cov=$cov -v exact_check=$check -f $work/boxjoin.sql" 2>&1 | tee -a "$out/boxjoin-sql.md"
done
