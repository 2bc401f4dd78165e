#!/bin/sh
# The exactgpu demo, on a fresh Debian 12 machine:
#   1. install build and runtime dependencies (apt), if missing;
#   2. build and install the extension;
#   3. generate a mine (drill holes at UTM coordinates, closed ore bodies)
#      with deliberate exact degeneracies (test/fixtures/mine.h);
#   4. on a throwaway PostgreSQL 15 cluster: load it, run the exact join,
#      and show where PostGIS's floating-point ST_3DIntersects is wrong.
# Options: MINE_SIZE=tiny|demo|paper (default demo), MINE_SEED=N.
set -eu
cd "$(dirname "$0")/.."
SUDO=""
[ "$(id -u)" = 0 ] || SUDO=sudo
size=${MINE_SIZE:-demo}
seed=${MINE_SEED:-1}

sh test/install-deps.sh
make -s -j"$(nproc)" all demo/bin/minegen
$SUDO make -s install
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
chmod 755 "$out"
demo/bin/minegen --size "$size" --seed "$seed" --out "$out"
pg_virtualenv -v 15 psql -X -q -v mine="$out" -v repo="$PWD" -f demo/demo.sql
