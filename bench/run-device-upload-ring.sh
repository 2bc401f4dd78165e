#!/bin/sh
# On the GPU machine (device tool): the checks of the upload ring and of the
# GPU setup time (review of 2026-11-24), in one run of about a minute.
#   - test_join --gpu: every join against brute force on the GPU, the pinned
#     upload ring lapped by 21M pair keys (168 MB > 4 x 32 MB; GPU answers
#     against the CPU's), no setup time reported for a GPU join run again;
#   - test_locate_join, test_box_join: the other users of the ring and of
#     the box join's own staging slot;
#   - test_host_alloc: huge page advice on the host (THP "madvise" there).
# Carried: test/engine/bin-gpu (make gpu-tests) and test/engine/bin
# (make WITH_CUDA=0 test/engine/bin/test_host_alloc). Results: $OUT/upload-ring.md.
set -u
cd "$(dirname "$0")/.."
out=${OUT:-.}
{
	echo "# exactgpu: upload ring and GPU setup time"
	echo
	echo "Device: $(nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader 2>/dev/null || echo none);" \
		"host: $(nproc) cores; date (UTC): $(date -u +%Y-%m-%dT%H:%MZ)"
	echo
	echo '```'
	test/engine/bin-gpu/test_join --gpu > /tmp/test_join.log 2>&1; echo "test_join exit: $?"
	grep -E 'FAIL|upload ring' /tmp/test_join.log || true
	tail -1 /tmp/test_join.log
	test/engine/bin-gpu/test_locate_join 2>&1 | tail -1
	test/engine/bin-gpu/test_box_join 2>&1 | tail -1
	echo "THP: $(cat /sys/kernel/mm/transparent_hugepage/enabled 2>/dev/null)"
	test/engine/bin/test_host_alloc 2>&1 | tail -3
	echo '```'
} 2>&1 | tee "$out/upload-ring.md"
