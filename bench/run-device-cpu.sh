#!/bin/sh
# On the GPU machine's host CPU (device tool, 16 cores): the CPU join
# against CGAL 5.5 (box_intersection_d + do_intersect, Epick) on the mesh
# pair, the mine and a triangle soup, at 1 thread and at THREADS (default
# every core), pair lists compared, ratios and the 1 -> THREADS scaling
# printed. Builds everything here with gcc/g++ (no PostgreSQL, no make/PGXS,
# no CUDA: the CPU engine only), in about a minute; runs in about 2-3.
# Needs: gcc, g++, GMP (libgmp-dev); CGAL's headers from libcgal-dev, or
# carried as .carry/cgal-include.tar.xz (bench/cgal/pack-headers.sh makes it
# on the build machine); the mesh .carry/data/armadillo-tet.exgm
# (bench/prepare-data.sh). Results go to $OUT/cpu-cgal.md.
set -eu
cd "$(dirname "$0")/.."
out=${OUT:-/tmp/out}
mesh=${MESH:-.carry/data/armadillo-tet.exgm}
[ -f "$mesh" ] || mesh=.data/armadillo-tet.exgm
threads=${THREADS:-$(nproc)}
bin=/tmp/exactgpu-cpu-bench
mkdir -p "$out" "$bin"

# The engine and the benchmark, with the extension's exactness flags.
cflags="-std=gnu11 -O2 -g -frounding-math -ffp-contract=off -fno-fast-math -fopenmp"
inc=$(for d in src/engine/*/; do printf -- '-I%s ' "${d%/}"; done)
gcc $cflags $inc -Ibench -Itest/fixtures -o "$bin/bench_join" bench/bench_join.c bench/mesh_io.c test/fixtures/mine.c \
	src/engine/*/*.c -lgmp -lm -lpthread &
gcc $cflags $inc -Itest/engine -Itest/reference -o "$bin/test_static_filter" \
	test/engine/test_static_filter.c test/engine/adversarial.c test/reference/ref_exact.c \
	src/engine/*/*.c -lgmp -lm -lpthread &

# CGAL: installed, carried, or absent (then the engine runs alone).
peer=-
cgal_inc=
if [ -f /usr/include/CGAL/version.h ]; then
	cgal_inc=/usr/include
elif [ -f .carry/cgal-include.tar.xz ]; then
	mkdir -p /tmp/cgal-include && tar -xJf .carry/cgal-include.tar.xz -C /tmp/cgal-include
	cgal_inc=/tmp/cgal-include
fi
if [ -n "$cgal_inc" ]; then
	g++ -std=c++17 -O3 -DNDEBUG -frounding-math -fopenmp -I"$cgal_inc" \
		-o "$bin/bench_cgal_join" bench/cgal/bench_cgal_join.cpp -lgmp && peer="$bin/bench_cgal_join"
fi
wait
{
	echo "# exactgpu CPU join against CGAL, 1 and $threads threads"
	echo
	echo "Host: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //');" \
		"date (UTC): $(date -u +%Y-%m-%dT%H:%MZ); CGAL: $( [ "$peer" = - ] && echo 'not available' ||
		grep -m1 'define CGAL_VERSION ' "$cgal_inc/CGAL/version.h" | awk '{print $3}')"
	echo
	echo '```'
	"$bin/test_static_filter" --cases 20000 | tail -2
	echo '```'
	"$bin/bench_join" --peer "$peer" --datasets mesh,mine,soup --mesh "$mesh" --threads "$threads" \
		--peer-repeat "${REPEAT:-2}" --soup "${SOUP:-500000}"
} 2>&1 | tee "$out/cpu-cgal.md"
