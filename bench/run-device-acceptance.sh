#!/bin/sh
# On the GPU machine (device tool), in one call: every GPU engine test
# (make gpu-check, on the binaries built and carried from the build
# machine), then the resident store's benchmark on the large mine with the
# full join's pairs on the GPU and the CPU, store off and on
# (run-device-resident.sh). Carried: .carry/pgbundle.tar.xz,
# .carry/bin-gpu.tar.xz (test/engine/bin-gpu stripped: make gpu-tests, then
# strip and tar the folder as bingpu/), demo/bin. Results:
# $OUT/gpu-check.log, $OUT/resident.md.
set -u
cd "$(dirname "$0")/.."
out=${OUT:-/tmp/out}
mkdir -p "$out"
tar -xJf .carry/pgbundle.tar.xz -C / && /opt/pgbundle/activate >/dev/null && . /opt/pgbundle/env
rm -rf test/engine/bin-gpu && tar -xJf .carry/bin-gpu.tar.xz -C test/engine && mv test/engine/bingpu test/engine/bin-gpu
{
	echo "# gpu-check, $(date -u +%Y-%m-%dT%H:%MZ)"
	# the carried binaries: no rebuild (-o), GMP from the bundle
	make -s -o gpu-tests gpu-check 2>&1
	echo "gpu-check rc=$?"
} > "$out/gpu-check.log" 2>&1
tail -40 "$out/gpu-check.log"
sh bench/run-device-resident.sh
