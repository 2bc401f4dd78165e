#!/bin/sh
# On the GPU machine (the device tool): the GPU engine tests and the engine
# benchmark, in one run. Needs, carried from the build machine:
#   test/engine/bin-gpu (make gpu-tests), bench/bin (make bench),
#   .data/armadillo-tet.exgm (bench/prepare-data.sh).
# Writes everything to $OUT/results.md (or ./results.md).
set -eu
cd "$(dirname "$0")/.."
out=${OUT:-.}
{
	echo "# exactgpu engine: GPU tests and benchmark"
	echo
	echo "Device: $(nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader);" \
		"host: $(nproc) cores; date (UTC): $(date -u +%Y-%m-%dT%H:%MZ)"
	echo
	echo "## GPU engine tests"
	echo
	echo '```'
	test/engine/bin-gpu/test_pairs_differential --gpu --cases 20000 | tail -1
	test/engine/bin-gpu/test_join --gpu | tail -1
	echo '```'
	echo
	bench/bin/bench_join --datasets mesh,mine,large --repeat 10 --grid-sweep
} 2>&1 | tee "$out/results.md"
