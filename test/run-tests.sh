#!/bin/sh
# Every test of exactgpu, on a fresh Debian 12 machine:
#   1. install the build and test dependencies (apt), if missing;
#   2. build the extension (and the CUDA code, when nvcc is found), the
#      engine library and the engine tests, in one parallel make;
#   3. run the engine tests side by side (no PostgreSQL: predicates,
#      differential check against the independent GMP reference, reader,
#      triangulation, ...; one line each, logs in test/engine/log);
#   4. install the extension and run the pg_regress suite on a throwaway
#      cluster (pg_virtualenv), which works as root too;
#   5. the resident store's tests on a cluster with exactgpu preloaded
#      (test/resident/run.sh), the GPU service's (test/service/run.sh: on its CPU
#      pool where there is no GPU) and the sharding recipe on a coordinator and
#      three shard clusters (test/shard/run.sh);
#   5b. the probe join against the batch join, the row-level predicates and
#      the custom scan on random and adversarial inputs, without and with the
#      resident store (test/probe_diff/run.sh);
#   6. no include or call cycles (make check-cycles);
#   7. fuzz every SQL function for about a minute on another throwaway
#      cluster (test/fuzz/fuzz.sh; FUZZ_SECONDS to change, 0 to skip).
set -eu
cd "$(dirname "$0")/.."
SUDO=""
[ "$(id -u)" = 0 ] || SUDO=sudo

jobs=$(nproc)
sh test/install-deps.sh
make -j"$jobs" all engine-tests
make -j"$jobs" engine-check
$SUDO make install
if ! pg_virtualenv -v 15 make installcheck; then
	cat regression.diffs 2>/dev/null || true
	exit 1
fi
sh test/resident/run.sh
sh test/service/run.sh
sh test/shard/run.sh
sh test/probe_diff/run.sh
make check-cycles
if [ "${FUZZ_SECONDS:-60}" -gt 0 ]; then
	pg_virtualenv -v 15 test/fuzz/fuzz.sh "${FUZZ_SECONDS:-60}" 2 || exit 1
fi
echo "exactgpu: all tests passed"
