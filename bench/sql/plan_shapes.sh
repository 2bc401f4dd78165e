#!/bin/sh
# The query shapes users write (issue 26) timed under the default plan and
# under each forced alternative (batch join off, nested loops off, hash joins
# off, both, index scans off), in a running PostgreSQL with postgis and
# exactgpu; appends a Markdown report to OUT.md: per shape the default plan's
# family and time, the best forced plan and its time, their ratio (target
# <= 1.5), and whether every alternative returned the same rows.
#   usage: bench/sql/plan_shapes.sh OUT.md
#   env:   MINE=sql (default): bench/sql/plan_shapes_mine.sql makes BODIES
#            (12) closed cubes of 12 GRID^2 triangles (GRID 20: 4,800, ~0.5 MB
#            each) and HOLES (2000) bent 30-vertex holes;
#          MINE=minegen: MINEGEN (default demo/bin/minegen) --size SIZE
#            (default large) loaded as bench/sql/custom_join.sh does;
#          MINE=loaded: drill_holes and ore_bodies as they are.
#          REPS (3: runs of each plan, the best kept; one where a run
#          takes over 5 s), TIMEOUT_MS (30000: a run past it is cancelled and counted
#          as that), LO (first hole id of the 500- and 50-hole ranges, 1000),
#          ALTS (the forced plans to run, comma-separated, e.g. 'batch off,
#          nestloop off'; default all: batch off, nestloop off, hashjoin off,
#          nestloop+hashjoin off, index scans off),
#          SAMPLES (points sampled on the holes, 20000), DEVICE (exactgpu.device,
#          auto), SETTINGS (SQL run first in the session, e.g. 'SET jit = off').
# Here (2-core build machine, under the lock):
#   flock /tmp/exactgpu-pg.lock pg_virtualenv -v 15 sh -c 'make WITH_CUDA=0 install >/dev/null &&
#     psql -c "CREATE EXTENSION exactgpu CASCADE" && bench/sql/plan_shapes.sh /tmp/shapes.md'
# On the GPU machine: MINE=minegen SIZE=large, from a script like
# bench/run-device-custom-join.sh (as_pg, PGHOST=/tmp).
set -eu
out=$1
psql="psql -X -q -v ON_ERROR_STOP=1"
mine=${MINE:-sql}
$psql -c "CREATE EXTENSION IF NOT EXISTS exactgpu CASCADE"
case "$mine" in
sql)
	$psql -v bodies="${BODIES:-12}" -v grid="${GRID:-20}" -v holes="${HOLES:-2000}" \
		-f "$(dirname "$0")/plan_shapes_mine.sql" >/dev/null
	what="SQL mine: ${BODIES:-12} bodies of $((12 * ${GRID:-20} * ${GRID:-20})) triangles, ${HOLES:-2000} holes"
	;;
minegen)
	dir=$(mktemp -d)
	chmod 755 "$dir"
	"${MINEGEN:-demo/bin/minegen}" --size "${SIZE:-large}" --seed 7 --out "$dir" >&2
	$psql -v dir="$dir" -v replace=1 -f "$dir/load.sql" >/dev/null
	rm -rf "$dir"
	what="minegen --size ${SIZE:-large}"
	;;
loaded)
	what="drill_holes and ore_bodies as loaded"
	;;
esac
{
	echo "### Plan shapes: $what"
	echo
	echo "$(date -u +%Y-%m-%dT%H:%MZ), $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg)," \
		"exactgpu.device = ${DEVICE:-auto}"
	$psql -At -c "SELECT format('%s holes (%s MB), %s bodies (%s MB, %s triangles)',
		(SELECT count(*) FROM drill_holes), (SELECT round(sum(ST_MemSize(geom)) / 1e6, 1) FROM drill_holes),
		(SELECT count(*) FROM ore_bodies), (SELECT round(sum(ST_MemSize(geom)) / 1e6, 1) FROM ore_bodies),
		(SELECT sum(ST_NumGeometries(geom)) FROM ore_bodies))"
	echo
} >> "$out"
{
	echo "SET exactgpu.device = '${DEVICE:-auto}';"
	echo "${SETTINGS:-}"
	echo "\\i $(dirname "$0")/plan_shapes.sql"
} | $psql -v reps="${REPS:-3}" -v timeout_ms="${TIMEOUT_MS:-30000}" -v lo="${LO:-1000}" \
	-v samples="${SAMPLES:-20000}" -v alts="${ALTS:-all}" >> "$out"
echo >> "$out"
