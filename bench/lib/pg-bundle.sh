#!/bin/sh
# Packs this build machine's PostgreSQL 15 server, with every extension
# installed into it (PostGIS, postgis_sfcgal, and exactgpu after
# `make install`), into one tarball for the GPU machine, which has no
# PostgreSQL. The device scripts unpack it there (bench/lib/pg-cluster.sh).
#
#   sh bench/lib/pg-bundle.sh [OUT.tar.xz [EXTRA.so...]]
#
# OUT defaults to .carry/pgbundle.tar.xz (git-ignored; the device tool carries
# .carry/). EXTRA.so: more modules to install beside the server's own. Run it
# right after installing the build to carry, under the install lock where the
# PostgreSQL install is shared, so that no other install lands in between:
#   flock /tmp/exactgpu-pg.lock sh -c 'make install && sh bench/lib/pg-bundle.sh'
# (with CUDA, `make` without WITH_CUDA=0, for the GPU joins to run there).
#
# The tarball keeps the server's own paths (/usr/lib/postgresql/15,
# /usr/share/postgresql/15, PROJ's proj.db in /usr/share/proj): nothing is
# relocated, so no compiled-in path can miss. It adds /opt/pgbundle:
#   all-libs/  every shared library the server, its modules and EXTRA load,
#              but glibc's and the GPU driver's, which must be the target's own
#   activate   run once on the target, as root: links into /opt/pgbundle/lib
#              the libraries the target lacks (those it has stay its own, so
#              its other programs are not handed ours), creates the
#              unprivileged user pg (PostgreSQL refuses to run as root), and
#              writes /opt/pgbundle/env (PATH and LD_LIBRARY_PATH) to source.
set -eu
pgv=15
bindir=/usr/lib/postgresql/$pgv/bin
libdir=/usr/lib/postgresql/$pgv/lib
sharedir=/usr/share/postgresql/$pgv
out=${1:-$(dirname "$0")/../../.carry/pgbundle.tar.xz}
[ $# -eq 0 ] || shift

[ -x "$bindir/postgres" ] || { echo "pg-bundle: no PostgreSQL $pgv server in $bindir" >&2; exit 1; }
[ -f "$libdir/exactgpu.so" ] && [ -f "$sharedir/extension/exactgpu.control" ] ||
	{ echo "pg-bundle: exactgpu is not installed (make install first)" >&2; exit 1; }
# gpu_absent.c's build info: the GPU back-end was left out
if grep -qa 'none (built without CUDA)' "$libdir/exactgpu.so"; then
	echo "pg-bundle: warning: the installed exactgpu has no GPU back-end (built WITH_CUDA=0)" >&2
fi
for f in "$@"; do
	[ -f "$f" ] || { echo "pg-bundle: no such module: $f" >&2; exit 1; }
done

mkdir -p "$(dirname "$out")"
out=$(cd "$(dirname "$out")" && pwd)/$(basename "$out")
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT

mkdir -p "$stage$bindir" "$stage$libdir" "$stage$sharedir" "$stage/opt/pgbundle/all-libs"
cp -a "$bindir/." "$stage$bindir/"
# -L: Debian links some modules from elsewhere; the target has no elsewhere
cp -aL "$libdir/." "$stage$libdir/"
# JIT (LLVM, and its bitcode) and PostGIS raster (GDAL) are never used by the
# benchmarks and would bring the largest libraries of all
rm -rf "$stage$libdir/bitcode" "$stage$libdir"/llvmjit* "$stage$libdir"/postgis_raster*
cp -aL "$sharedir/." "$stage$sharedir/"
if [ -f /usr/share/proj/proj.db ]; then
	mkdir -p "$stage/usr/share/proj"
	cp -L /usr/share/proj/proj.db "$stage/usr/share/proj/"
fi
for f in "$@"; do
	cp "$f" "$stage$libdir/"
done

# The libraries they load, resolved here (ldd's third field is the path).
for f in "$stage$bindir"/* "$stage$libdir"/*.so; do
	ldd "$f" 2>/dev/null | awk '$3 ~ /^\// { print $3 }'
done | sort -u |
	grep -v -E '/(libc|libm|libdl|libpthread|librt|libresolv|libutil|ld-linux[^/]*)\.so|/lib(cuda|nvidia)[^/]*\.so' |
	while read -r lib; do
		cp -L "$lib" "$stage/opt/pgbundle/all-libs/"
	done

cat > "$stage/opt/pgbundle/activate" <<'EOF'
#!/bin/sh
# Made by bench/lib/pg-bundle.sh; run once, as root, after unpacking into /.
set -eu
mkdir -p /opt/pgbundle/lib
for lib in /opt/pgbundle/all-libs/*; do
	name=$(basename "$lib")
	ldconfig -p | grep -q "^[[:space:]]*$name " || ln -sf "$lib" "/opt/pgbundle/lib/$name"
done
id pg >/dev/null 2>&1 || useradd -m pg 2>/dev/null || adduser --disabled-password --gecos '' pg
echo "export LD_LIBRARY_PATH=/opt/pgbundle/lib\${LD_LIBRARY_PATH:+:\$LD_LIBRARY_PATH} PATH=/usr/lib/postgresql/15/bin:\$PATH" \
	> /opt/pgbundle/env
EOF
chmod 755 "$stage/opt/pgbundle/activate"

XZ_OPT=${XZ_OPT:--T0} tar -C "$stage" -cJf "$out" usr opt
echo "$out: $(du -k "$out" | cut -f1) KiB, $(ls "$stage/opt/pgbundle/all-libs" | wc -l) libraries"
