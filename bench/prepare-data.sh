#!/bin/sh
# Build the benchmark meshes: CGAL's armadillo (Debian's libcgal-dev /
# libcgal-demo data), tetrahedralized by Debian's tetgen as the papers did
# with gmsh, every tetrahedron face kept (-f). Output: .data/*.exgm (git-
# ignored; carried to the GPU machine). Needs: tetgen, and the data from
# libcgal-dev (older Debian) or libcgal-demo (Debian 12).
set -eu
cd "$(dirname "$0")/.."
mkdir -p .data bench/bin
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
data=/usr/share/doc/libcgal-dev/data.tar.gz
[ -f "$data" ] || data=/usr/share/doc/libcgal-demo/data.tar.gz
tar -xzf "$data" -C "$tmp" data/meshes/armadillo.off
make -s bench/bin/mesh_convert
# -q4.0 bounds the radius-edge ratio; on armadillo that gives ~0.7M faces,
# the dissertation's 0.6M-triangle scale.
tetgen -pq4.0fQ "$tmp/data/meshes/armadillo.off"
bench/bin/mesh_convert "$tmp/data/meshes/armadillo.1" .data/armadillo-tet.exgm
