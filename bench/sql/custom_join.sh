#!/bin/sh
# Plain SQL JOIN (Custom Scan ExactJoin) against the batch SRF and against
# the predicate row by row, on a minegen mine, in a running PostgreSQL with
# exactgpu and PostGIS. For each form: the best and the median of REPS runs
# (row by row: one run), the pairs, and whether the pairs equal the SRF's.
#   usage: bench/sql/custom_join.sh MINEGEN OUT.md HOLES:BODIES:TRIANGLES
#   env:   REPS (default 3), ROW_BY_ROW=0 skips the row-by-row run,
#          DEVICE (exactgpu.device, default auto), INDEXES: both (default:
#          GiST &&& on both tables, as minegen loads them) or bodies (on
#          ore_bodies only: the row-by-row plan then probes the bodies
#          once per hole), BATCH_SETTINGS: SQL run before the batch forms
#          (not row by row), e.g. 'SET enable_nestloop = off' to take the
#          ExactJoin where the planner would keep a nested loop
set -eu
minegen=$1
out=$2
spec=$3
reps=${REPS:-3}
device=${DEVICE:-auto}
holes=${spec%%:*}; rest=${spec#*:}
bodies=${rest%%:*}; tris=${rest#*:}
psql="psql -X -q -v ON_ERROR_STOP=1"
dir=$(mktemp -d)
chmod 755 "$dir"
"$minegen" --holes "$holes" --bodies "$bodies" --triangles "$tris" --seed 7 --out "$dir" >&2
$psql -c "CREATE EXTENSION IF NOT EXISTS exactgpu CASCADE"
echo "$(date -u +%T) generated; loading" >&2
$psql -v dir="$dir" -v replace=1 -f "$dir/load.sql" >/dev/null
echo "$(date -u +%T) loaded" >&2
indexes=${INDEXES:-both}
[ "$indexes" = both ] || $psql -c "DROP INDEX drill_holes_geom_idx"
$psql -c "ANALYZE drill_holes" -c "ANALYZE ore_bodies"
rm -rf "$dir"

srf="SELECT left_id, right_id FROM ST_ExactIntersects3DJoin('SELECT hole_id, geom FROM drill_holes', 'SELECT body_id, geom FROM ore_bodies')"
join="SELECT h.hole_id, b.body_id FROM drill_holes h JOIN ore_bodies b ON ST_ExactIntersects3D(h.geom, b.geom)"
# what a user wants: names; the SRF needs its ids joined back to the tables
srf_names="SELECT h.name AS hole, b.name AS body FROM ($srf) j JOIN drill_holes h ON h.hole_id = j.left_id JOIN ore_bodies b ON b.body_id = j.right_id"
join_names="SELECT h.name AS hole, b.name AS body FROM drill_holes h JOIN ore_bodies b ON ST_ExactIntersects3D(h.geom, b.geom)"

{
echo "### $holes holes x $bodies bodies, $tris triangles, GiST on $indexes (exactgpu.device = $device, $(nproc) cores${BATCH_SETTINGS:+; batch forms after: $BATCH_SETTINGS})"
echo
$psql -At <<SQL
SELECT format('%s segments, %s triangles', (SELECT sum(ST_NPoints(geom) - 1) FROM drill_holes), (SELECT sum(ST_NumGeometries(geom)) FROM ore_bodies));
SQL
echo
echo '| form | best ms | median ms | pairs | pairs equal the SRF |'
echo '|---|---|---|---|---|'
} >> "$out"

# time FORM QUERY REPS SETTINGS REFERENCE: a row of the table; its rows
# compared with REFERENCE's (the SRF's, as ids or names)
time_form() {
	echo "$(date -u +%T) $1" >&2
	$psql -At -F' | ' <<SQL >> "$out"
SET exactgpu.device = '$device';
$4;
CREATE TEMP TABLE srf_pairs AS $5;
CREATE TEMP TABLE form_rows AS $2;
CREATE FUNCTION pg_temp.time_ms(q text, run int, OUT ms float8, OUT n bigint) LANGUAGE plpgsql AS \$\$
DECLARE t0 timestamptz := clock_timestamp();
BEGIN
	EXECUTE 'SELECT count(*) FROM (' || q || ') s' INTO n;
	ms := extract(epoch FROM clock_timestamp() - t0) * 1000;
END \$\$;
CREATE TEMP TABLE runs AS SELECT r, t.* FROM generate_series(1, $3) r, LATERAL pg_temp.time_ms(\$q\$$2\$q\$, r) t;
SELECT '| $1', round(min(ms)::numeric, 1), round((percentile_cont(0.5) WITHIN GROUP (ORDER BY ms))::numeric, 1), max(n),
	CASE WHEN (SELECT count(*) FROM (TABLE form_rows EXCEPT ALL TABLE srf_pairs) a) = 0
		AND (SELECT count(*) FROM (TABLE srf_pairs EXCEPT ALL TABLE form_rows) b) = 0 THEN 'yes' ELSE 'NO' END || ' |'
	FROM runs;
SQL
}

none="SET exactgpu.progress = off; ${BATCH_SETTINGS:-}"
time_form "batch SRF (ids)" "$srf" "$reps" "$none" "$srf"
time_form "plain JOIN (ids)" "$join" "$reps" "$none" "$srf"
time_form "batch SRF joined back to the tables (names)" "$srf_names" "$reps" "$none" "$srf_names"
time_form "plain JOIN (names)" "$join_names" "$reps" "$none" "$srf_names"
if [ "${ROW_BY_ROW:-1}" != 0 ]; then
	time_form "row by row (ids, enable_batch_join off)" "$join" 1 "SET exactgpu.enable_batch_join = off" "$srf"
fi
echo >> "$out"
echo "The plain JOIN's plan, and the row-by-row plan (costs are the planner's estimates):" >> "$out"
echo >> "$out"
$psql -c "SET exactgpu.device = '$device'; ${BATCH_SETTINGS:-}" -c "EXPLAIN ANALYZE $join_names" | grep -v '^SET' | sed 's/^/    /' >> "$out"
if [ "${ROW_BY_ROW:-1}" != 0 ]; then
	$psql -c "SET exactgpu.enable_batch_join = off" -c "EXPLAIN $join_names" | grep -v '^SET' | sed 's/^/    /' >> "$out"
fi
echo >> "$out"
