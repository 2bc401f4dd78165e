#!/bin/sh
# On the GPU machine (device tool): the exact joins with both first stages
# (every pair sharing a cell, and the box join), in one run —
#   1. test_join --gpu, test_overlay, test_box_join --gpu: every variant
#      against brute force, GPU and CPU;
#   2. bench_join --stages-only on the mesh and mine datasets: both first
#      stages on the GPU and the CPU, pair sets compared;
#   3. bench_overlay: the map overlay with both first stages;
#   4. bench_join's large case (5·10^7 triangles a side, chunked) with both
#      (LARGE=0 skips it).
# Carried: .carry/bin (stripped test and bench binaries), .carry/data
# (bench/prepare-data.sh's mesh). Results go to $OUT.
set -eu
cd "$(dirname "$0")/.."
out=${OUT:-/tmp/out}
bin=${BIN:-.carry/bin}
mesh=${MESH:-.carry/data/armadillo-tet.exgm}
mkdir -p "$out"
{
	echo "# exactgpu: the exact joins' first stage, cell pairs vs the box join"
	echo
	echo "Device: $(nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader);" \
		"host: $(nproc) cores; date (UTC): $(date -u +%Y-%m-%dT%H:%MZ)"
	echo
	echo '```'
	"$bin/test_join" --gpu | grep -v '^  ' || echo "test_join FAILED"
	"$bin/test_overlay" || echo "test_overlay FAILED"
	"$bin/test_box_join" --gpu | tail -3 || echo "test_box_join FAILED"
	echo '```'
	"$bin/bench_join" --mesh "$mesh" --datasets mesh,mine --stages-only --repeat "${REPEAT:-5}" || echo "bench_join FAILED"
	echo
	echo '```'
	"$bin/bench_overlay" "${SIDE:-1361}" 0 "${REPEAT:-3}" "${OVERLAY_CELLS:-88000}" || echo "bench_overlay FAILED"
	echo '```'
	[ "${LARGE:-1}" = 0 ] || "$bin/bench_join" --mesh "$mesh" --datasets large || echo "bench_join large FAILED"
} 2>&1 | tee "$out/first-stage.md"
