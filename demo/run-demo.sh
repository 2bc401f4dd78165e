#!/bin/sh
# The exactgpu demo, on a fresh Debian 12 machine:
#   1. install build and runtime dependencies (apt), if missing;
#   2. build and install the extension;
#   3. generate a mine as exploration data arrive (demo/survey_files.h):
#      collar and survey tables (CSV), the ore bodies and a fault as OBJ
#      files, and holes built to touch bodies exactly (test/fixtures/mine.h);
#   4. on a throwaway PostgreSQL 15 cluster: import the meshes, desurvey the
#      holes, run the exact join, the intercepts and composites, the fault
#      crossings, show where PostGIS's floating-point ST_3DIntersects is
#      wrong, and cut a section (ST_ExactSection) drawn as SVG from SQL;
#   5. draw a plan view and the section (demo/plot.py, python3-matplotlib).
# The text output and the drawings go to demo/out/ (demo.txt, section.svg,
# mine.png).
# Options: MINE_SIZE=tiny|demo|paper (default demo), MINE_SEED=N. (The large
# mine's bodies.obj holds more triangles than one mesh import reads.)
set -eu
cd "$(dirname "$0")/.."
SUDO=""
[ "$(id -u)" = 0 ] || SUDO=sudo
size=${MINE_SIZE:-demo}
seed=${MINE_SEED:-1}

sh test/install-deps.sh
# the drawing: Debian's matplotlib (run with Debian's python3, not a pyenv one)
if ! dpkg-query -W -f='${Status}' python3-matplotlib 2>/dev/null | grep -q "install ok installed"; then
	$SUDO apt-get update -qq
	DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends python3-matplotlib
fi
make -s -j"$(nproc)" all demo/bin/minegen
$SUDO make -s install
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
chmod 755 "$out"
demo/bin/minegen --size "$size" --seed "$seed" --format survey --out "$out"
mkdir -p demo/out
chmod 777 demo/out   # psql (run by pg_virtualenv, maybe as postgres) writes the drawing's data here
pg_virtualenv -v 15 psql -X -q -v mine="$out" -v repo="$PWD" -v out="$PWD/demo/out" -f demo/demo.sql \
	2>&1 | tee demo/out/demo.txt
/usr/bin/python3 demo/plot.py demo/out
