#!/bin/sh
# On the GPU machine (device tool): the solids on the GPU, in one run —
#   1. the GPU engine tests: pair differential, join, and test_locate_join
#      (GPU against the row-level exact location, and GPU against CPU);
#   2. bench_solids: 10^7 samples located in the 10^6 triangles of the
#      "paper" mine, and the self-intersection check of those 10^6 triangles;
#   3. then bench/sql/run-device.sh with SKIP_SQLBENCH=1 (the whole pg_regress
#      suite with the GPU as default device, 10^4 joins, cancel).
# Carried: test/engine/bin-gpu (make gpu-tests), bench/bin (make bench),
# demo/bin, .carry/pgbundle.tar.xz. Results go to $OUT.
set -eu
cd "$(dirname "$0")/.."
out=${OUT:-/tmp/out}
mkdir -p "$out"
{
	echo "# exactgpu solids on the GPU"
	echo
	echo "Device: $(nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader);" \
		"host: $(nproc) cores; date (UTC): $(date -u +%Y-%m-%dT%H:%MZ)"
	echo
	echo '```'
	test/engine/bin-gpu/test_pairs_differential --gpu --cases 20000 | tail -1
	test/engine/bin-gpu/test_join --gpu | tail -1
	test/engine/bin-gpu/test_locate_join
	test/engine/bin-gpu/test_solid_differential --gpu | tail -4
	echo
	bench/bin/bench_solids "${POINTS:-1e7}" "${REPEAT:-5}" "${CPU_POINTS:-1e6}"
	echo '```'
} 2>&1 | tee "$out/solids.md"
[ -n "${SKIP_SQL:-}" ] || SKIP_SQLBENCH=1 sh bench/sql/run-device.sh
