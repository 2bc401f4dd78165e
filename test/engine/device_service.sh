#!/bin/sh
# On the GPU machine (device tool), in one call: test_gpu_service --gpu
# --bench (threads, kept bodies, joins over every GPU, and their timings),
# then the engine's other GPU tests, from binaries built here and carried.
#
# The device tool sends the checkout the session started in, not a helper's
# worktree: copy this script, bin-gpu.tar.xz (make gpu-tests; the folder
# test/engine/bin-gpu stripped and tarred as bingpu/) and, where the bundle
# may lack them, lib/ (libgmp.so.10, libgomp.so.1) into one folder under
# that checkout's ignored .carry/ (e.g. .carry/gpuctx), carry that folder
# and .carry/pgbundle.tar.xz (bench/lib/pg-bundle.sh), and run
# `sh .carry/gpuctx/device_service.sh`. Stops starting tests after
# $BUDGET_S seconds. Results: $OUT/service.log, $OUT/gpu-tests.log.
set -u
here=$(cd "$(dirname "$0")" && pwd)
root=$here
while [ "$root" != / ] && [ ! -d "$root/.carry" ]; do root=$(dirname "$root"); done
cd "$root"
bins=$here/bin-gpu.tar.xz
[ -f "$bins" ] || bins=$root/.carry/bin-gpu.tar.xz
out=${OUT:-/tmp/out}
budget=${BUDGET_S:-250}
mkdir -p "$out"
start=$(date +%s)
tar -xJf .carry/pgbundle.tar.xz -C / && /opt/pgbundle/activate >/dev/null && . /opt/pgbundle/env
# GMP and OpenMP as built here, where the bundle lacks them
[ -d "$here/lib" ] && export LD_LIBRARY_PATH="${LD_LIBRARY_PATH:+$LD_LIBRARY_PATH:}$here/lib"
rm -rf /tmp/bingpu && tar -xJf "$bins" -C /tmp
nvidia-smi -L > "$out/gpus.txt" 2>&1
ldd /tmp/bingpu/test_gpu_service | grep -i "not found" >> "$out/gpus.txt"
cat "$out/gpus.txt"
timeout 150 /tmp/bingpu/test_gpu_service --gpu --bench > "$out/service.log" 2>&1
echo "test_gpu_service rc=$?" >> "$out/service.log"
cat "$out/service.log"
: > "$out/gpu-tests.log"
for t in "test_join --gpu" "test_box_join --gpu" "test_locate_join" "test_memory_limits" \
		 "test_solid_differential --gpu" "test_pairs_differential --gpu --cases 20000" \
		 "test_overlay" "test_batch_join_as" "test_batch_borrow" "test_batch_packed" \
		 "test_host_alloc" "test_host_copy" "test_mine" "test_intercepts" "test_solid" \
		 "test_volume" "test_static_filter" "test_differential" "test_solid_check" \
		 "test_worker_signals" "test_worker_limits" "test_batch_flatten" "test_batch_probe"; do
	now=$(date +%s)
	if [ $((now - start)) -gt "$budget" ]; then
		echo "skipped (time): $t" >> "$out/gpu-tests.log"
		continue
	fi
	set -- $t
	bin=$1
	shift
	t0=$(date +%s)
	timeout 120 /tmp/bingpu/$bin "$@" > "$out/$bin.log" 2>&1
	rc=$?
	echo "$([ $rc -eq 0 ] && echo ok || echo FAIL) $t (rc $rc, $(( $(date +%s) - t0 )) s)" >> "$out/gpu-tests.log"
	[ $rc -eq 0 ] || tail -15 "$out/$bin.log" >> "$out/gpu-tests.log"
done
cat "$out/gpu-tests.log"
