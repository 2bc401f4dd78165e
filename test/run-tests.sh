#!/bin/sh
# Every test of exactgpu, on a fresh Debian 12 machine:
#   1. install the build and test dependencies (apt), if missing;
#   2. build the extension (and the CUDA code, when nvcc is found);
#   3. run the engine tests (no PostgreSQL: predicates, differential check
#      against the independent GMP reference, reader, triangulation, ...);
#   4. install the extension and run the pg_regress suite on a throwaway
#      cluster (pg_virtualenv), which works as root too.
set -eu
cd "$(dirname "$0")/.."
SUDO=""
[ "$(id -u)" = 0 ] || SUDO=sudo

sh test/install-deps.sh
make -j"$(nproc)"
make engine-check
$SUDO make install
if ! pg_virtualenv -v 15 make installcheck; then
	cat regression.diffs 2>/dev/null || true
	exit 1
fi
echo "exactgpu: all tests passed"
