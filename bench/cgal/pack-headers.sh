#!/bin/sh
# On a machine with Debian's libcgal-dev (CGAL 5.5, boost): pack exactly the
# headers bench_cgal_join.cpp includes (CGAL, boost, GMP/MPFR C++ headers;
# about 1 MB compressed) into .carry/cgal-include.tar.xz, for a machine that
# has a compiler and GMP but no CGAL (bench/run-device-cpu.sh unpacks it).
set -eu
cd "$(dirname "$0")/../.."
[ -f /usr/include/CGAL/version.h ] || { echo "needs libcgal-dev (apt-get install -y libcgal-dev)" >&2; exit 1; }
mkdir -p .carry
list=$(mktemp)
trap 'rm -f "$list"' EXIT
${CXX:-g++} -std=c++17 -O3 -DNDEBUG -frounding-math -fopenmp -M bench/cgal/bench_cgal_join.cpp |
	tr ' \\' '\n\n' | grep -E '^/usr/include/(CGAL|boost)/|^/usr/include/(gmpxx|mpf2mpfr|mpfr)\.h$' |
	sort -u | sed 's|^/usr/include/||' >"$list"
tar -cJf .carry/cgal-include.tar.xz -C /usr/include -T "$list"
echo ".carry/cgal-include.tar.xz: $(wc -l <"$list") headers, $(du -k .carry/cgal-include.tar.xz | cut -f1) KiB"
