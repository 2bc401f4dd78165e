#!/bin/sh
# On the GPU machine (device tool), in one go (< 5 min on an H100 with 16 cores):
#   1. PostgreSQL from the bundle (.carry/pgbundle.tar.xz, built after make install);
#   2. the intercepts regress tests (intercepts, intercepts_join, composite) with the
#      GPU as the default device (the candidate pairs come from the GPU batch join);
#   3. bench/sql/intercepts.sh on the demo mine: intercepts join against the
#      intersects join, GPU (auto) and CPU (16 threads).
# Needs demo/bin/minegen carried over. Results go to $OUT (device-intercepts.md).
set -eu
cd "$(dirname "$0")/.."
out=${OUT:-/tmp/out}
mkdir -p "$out"
tar -xJf .carry/pgbundle.tar.xz -C /
/opt/pgbundle/activate >/dev/null
. /opt/pgbundle/env
work=/tmp/exactgpu-intercepts
pkill -x postgres 2>/dev/null && sleep 2 || true
rm -rf "$work" && mkdir -p "$work" && cp -r test bench demo "$work/" && chown -R pg "$work"
su pg -c ". /opt/pgbundle/env; initdb -D $work/data -A trust >/dev/null &&
	pg_ctl -D $work/data -l $work/pg.log -o '-k /tmp -c shared_buffers=4GB -c work_mem=256MB' -w start >/dev/null"
log="$out/device-intercepts.md"
: > "$log"
echo "== pg_regress (intercepts, intercepts_join, composite) with the GPU" | tee -a "$log"
su pg -c ". /opt/pgbundle/env; cd $work && /usr/lib/postgresql/15/lib/pgxs/src/test/regress/pg_regress \
	--inputdir=test/regress --load-extension=postgis --load-extension=exactgpu --bindir=/usr/lib/postgresql/15/bin \
	--host=/tmp --user=pg intercepts intercepts_join composite" 2>&1 | tee -a "$log" | tail -3 || true
[ -f "$work/regression.diffs" ] && cp "$work/regression.diffs" "$out/" || true
echo "== demo mine" | tee -a "$log"
su pg -c "$work/demo/bin/minegen --size demo --seed 1 --out $work/mine" >/dev/null
for dev in auto cpu; do
	echo "-- exactgpu.device = $dev" | tee -a "$log"
	su pg -c ". /opt/pgbundle/env; cd $work && PSQL='psql -h /tmp -d postgres' SETUP='SET exactgpu.device = $dev;' \
		bench/sql/intercepts.sh $work/mine 7" 2>&1 | tee -a "$log"
done
