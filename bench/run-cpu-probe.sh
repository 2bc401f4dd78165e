#!/bin/sh
# On a build machine (no GPU; its own PostgreSQL 15 with this branch's
# exactgpu installed): bench/sql/probe.sql on a throwaway cluster with
# exactgpu preloaded and the resident store on (test/lib/preloaded-cluster.sh,
# as the resident and service suites: as user postgres when run as root),
# then pgbench clients each joining 500 random holes, probe on and off.
# Results on stdout.
#   SIZE=demo REPS=10 SECONDS_EACH=10 CLIENTS="1 2" bench/run-cpu-probe.sh
set -eu
cd "$(dirname "$0")/.."
PG_CONFIG=${PG_CONFIG:-pg_config}
size=${SIZE:-demo}
reps=${REPS:-10}
. test/lib/preloaded-cluster.sh
preloaded_cluster probe "${PROBE_PORT:-54393}"
cat >> "$work/data/postgresql.conf" <<CONF
exactgpu.resident_memory = ${STORE_MB:-1024}
shared_buffers = 512MB
CONF
pg_start
psql() { "$bindir/psql" -X -d postgres "$@"; }
[ -x demo/bin/minegen ] || make -s demo/bin/minegen
mkdir -p "$work/mine" && demo/bin/minegen --size "$size" --out "$work/mine" >/dev/null
[ "$(id -u)" = 0 ] && chown -R postgres "$work/mine"
psql -q -c 'CREATE EXTENSION exactgpu CASCADE'
psql -q -v dir="$work/mine" -v replace=1 -f "$work/mine/load.sql" >/dev/null
psql -q -c 'VACUUM ANALYZE drill_holes' -c 'VACUUM ANALYZE ore_bodies'
echo "host: $(nproc) cores; date (UTC): $(date -u +%Y-%m-%dT%H:%MZ); $size mine; exactgpu.resident_memory = ${STORE_MB:-1024} MB"
psql -q -c 'SELECT count(*) FILTER (WHERE exactgpu_resident_keep(geom)) AS bodies_kept FROM ore_bodies'
psql -q -f bench/sql/probe.sql
for q in '500 holes (SRF)' '50 holes (SRF)' '500 holes (plain JOIN)' '50 holes (plain JOIN)' \
	'500 holes, bodies as volumes (SRF)'; do
	for p in off on; do
		psql -q -c "SELECT bench.probe_run('$q', '$p', $reps)"
	done
done
psql -v report=1 -f bench/sql/probe.sql
psql -q -c 'SET exactgpu.progress = on' -c "SELECT count(*) FROM ST_ExactIntersects3DJoin('SELECT hole_id, geom FROM drill_holes WHERE hole_id BETWEEN 1000 AND 1499', 'SELECT body_id, geom FROM ore_bodies')" 2>&1
nholes=$(psql -At -c 'SELECT max(hole_id) - 500 FROM drill_holes')
cat > "$work/q500.sql" <<SQL
\set lo random(1, $nholes)
SELECT count(*) FROM ST_ExactIntersects3DJoin(format('SELECT hole_id, geom FROM drill_holes WHERE hole_id BETWEEN %s AND %s', :lo, :lo + 499), 'SELECT body_id, geom FROM ore_bodies');
SQL
for p in off on; do
	for c in ${CLIENTS:-1 2}; do
		PGOPTIONS="-c exactgpu.probe_join=$p" "$bindir/pgbench" -n -d postgres -c "$c" -j "$c" \
			-T "${SECONDS_EACH:-10}" -f "$work/q500.sql" 2>&1 |
			grep -E '^(tps|latency average|number of transactions actually)' | sed "s/^/probe $p, clients=$c: /"
	done
done
