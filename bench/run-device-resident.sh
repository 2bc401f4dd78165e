#!/bin/sh
# On the GPU machine (device tool): the resident store (issue 27) on one
# mine (large by default): bench/sql/resident.sql with the store off and on,
# on the GPU and on the CPU, then N clients (pgbench) each joining 500 holes
# against every body, store on, against one client.
# Carried: .carry/pgbundle.tar.xz (bench/lib/pg-bundle.sh after make install
# of a CUDA build), demo/bin/minegen. Results: $OUT/resident.md.
set -eu
cd "$(dirname "$0")/.."
out=${OUT:-/tmp/out}
mkdir -p "$out"
size=${SIZE:-large}
devices=${DEVICES:-gpu cpu}
store_mb=${STORE_MB:-16384}
[ -x demo/bin/minegen ] || make -s demo/bin/minegen
. bench/lib/pg-cluster.sh
work=/tmp/exactgpu-resident
pg_cluster_init "$work" bench
ncores=$(nproc)
pg_cluster_start "$(pg_mine_opts 16GB 4GB $store_mb) -c max_connections=100"
report="$out/resident.md"
{
	echo "# exactgpu: the resident store ($size mine)"
	echo
	echo "Device: $(nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader 2>/dev/null || echo none);" \
		"host: $ncores cores; date (UTC): $(date -u +%Y-%m-%dT%H:%MZ); exactgpu.resident_memory = $store_mb MB"
	echo
} > "$report"
pg_psql "-q -c 'CREATE EXTENSION exactgpu CASCADE'"
t0=$(date +%s)
pg_mine_load postgres "$work/mine" --size "$size"
echo "$size mine generated and loaded in $(( $(date +%s) - t0 )) s" >> "$report"
# the full join's pairs on each device, store off and on: one digest
echo '## pairs of the full join (SRF), every device and store setting' >> "$report"
echo '```' >> "$report"
for d in $devices; do
	for s in off on on; do
		pg_psql "-At -c \"SET exactgpu.device = '$d'\" -c \"SET exactgpu.resident = $s\" -c \"SELECT '$d, store $s: ' || count(*) || ' pairs, md5 ' || md5(string_agg(left_id || ':' || right_id, ',' ORDER BY left_id, right_id)) FROM ST_ExactIntersects3DJoin('SELECT hole_id, geom FROM drill_holes', 'SELECT body_id, geom FROM ore_bodies')\"" 2>&1 | tee -a "$report"
	done
done
echo '```' >> "$report"
echo '```' >> "$report"
pg_psql "-q -f $work/bench/sql/resident.sql"
for d in $devices; do
	for q in 'full join (SRF)' '500 holes (SRF)' '500 holes (plain JOIN)' '50 holes (plain JOIN)'; do
		for s in off on; do
			pg_psql "-q -c \"SET statement_timeout = '${TIMEOUT:-60s}'\" -c \"SELECT bench.run('$q', '$d', '$s', ${REPS:-5})\"" 2>&1 |
				sed "s/^/$d, $s, $q: /" | tee -a "$report"
		done
	done
done
pg_psql "-v report=1 -f $work/bench/sql/resident.sql" 2>&1 | tee -a "$report"
echo '```' >> "$report"

# concurrency: each client joins 500 holes (its own range) against every body
cat > "$work/q500.sql" <<'SQL'
\set lo random(1, 19000)
SELECT count(*) FROM ST_ExactIntersects3DJoin(format('SELECT hole_id, geom FROM drill_holes WHERE hole_id BETWEEN %s AND %s', :lo, :lo + 499), 'SELECT body_id, geom FROM ore_bodies');
SQL
chown pg "$work/q500.sql"
echo "## clients each joining 500 holes against every body (SRF, GPU, store on)" >> "$report"
echo '```' >> "$report"
pg_psql "-q -c 'SELECT exactgpu_resident_keep(geom) FROM ore_bodies LIMIT 0'" >/dev/null
for c in 1 8; do
	as_pg "pgbench -n -h /tmp -d postgres -c $c -j $c -T ${SECONDS_EACH:-15} -f $work/q500.sql" 2>&1 |
		grep -E '^(number of clients|tps|latency average|number of transactions actually)' |
		sed "s/^/clients=$c: /" | tee -a "$report"
done
echo '```' >> "$report"
pg_psql "-c 'SELECT * FROM exactgpu_resident'" | tee -a "$report"
