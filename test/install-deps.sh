#!/bin/sh
# Install what building and testing exactgpu needs on Debian 12, if missing.
# (nvcc is optional: the CUDA code is compiled when it is found.)
#   install-deps.sh            everything (the extension, pg_regress, fuzz)
#   install-deps.sh --engine   the engine tests only (make engine-check,
#                              make gpu-check): gcc and GMP, no PostgreSQL
set -eu
need="build-essential libgmp-dev"
[ "${1:-}" = --engine ] || need="$need postgresql-15 postgresql-server-dev-15 postgresql-common
      postgresql-15-postgis-3 postgresql-15-postgis-3-scripts iproute2 python3"
missing=""
for p in $need; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
[ -z "$missing" ] && exit 0
SUDO=""
[ "$(id -u)" = 0 ] || SUDO=sudo
echo "installing:$missing"
$SUDO apt-get update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends $missing
