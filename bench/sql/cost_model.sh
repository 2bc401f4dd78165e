#!/bin/sh
# The planner's choice between the batch join (Custom Scan ExactJoin) and a
# nested loop of index probes, against both plans measured (forced with
# enable_nestloop = off and exactgpu.enable_batch_join = off), on the cases
# of bench/results/2026-11-24-cpu2-cost-model.md; and the time of one call
# of the predicates by geometry size, its larger argument cached or not.
#   usage: bench/sql/cost_model.sh MINEGEN OUT.md
#   env:   REPS (default 3), PARTS (default "calls a b c d"), a running
#          PostgreSQL with PostGIS and exactgpu (PGHOST, PGPORT, PGUSER); it
#          makes and drops databases cm_a .. cm_d.
# Runs with max_parallel_workers_per_gather = 0 and exactgpu's own threads
# (exactgpu.worker_threads as the server has it). Each case: its plans and
# times (the batch join forced on the planner's device, on the CPU, and on the
# GPU where there is one), then a table of the plan picked against the faster
# plan measured.
set -eu
minegen=$1
out=$2
reps=${REPS:-3}
parts=${PARTS:-calls a b c d}
here=$(cd "$(dirname "$0")/../.." && pwd)
psql="psql -X -q -v ON_ERROR_STOP=1"
verdicts=$(mktemp); chmod 666 "$verdicts"

newdb() {
	$psql -d postgres -c "DROP DATABASE IF EXISTS $1" -c "CREATE DATABASE $1" 2>/dev/null
	$psql -d "$1" -c "CREATE EXTENSION IF NOT EXISTS postgis"
	if [ -n "${EXACTGPU_INSTALL_SQL:-}" ]; then
		$psql -d "$1" -f "$EXACTGPU_INSTALL_SQL" >/dev/null 2>&1   # a build not installed
	else
		$psql -d "$1" -c "CREATE EXTENSION IF NOT EXISTS exactgpu CASCADE"
	fi
	$psql -d "$1" -f "$here/bench/sql/cost_model.sql"
}
mine() {  # DB HOLES BODIES TRIANGLES
	d=$(mktemp -d); chmod 755 "$d"
	"$minegen" --holes "$2" --bodies "$3" --triangles "$4" --seed 7 --out "$d" >/dev/null 2>&1
	chmod -R a+r "$d"
	$psql -d "$1" -v dir="$d" -f "$d/load.sql" >/dev/null
	$psql -d "$1" -c ANALYZE
	rm -rf "$d"
}
# case DB LABEL QUERY: its rows of the table, and its verdict
case_row() {
	$psql -d "$1" -At -F' | ' -v label="$2" -v q="$3" >> "$out" <<SQL
SELECT '| ' || :'label', form, plan, ms || ' |' FROM compare_plans(:'label', :'q', $reps);
\\o | cat >> $verdicts
SELECT * FROM plan_verdict();
SQL
}
{
	echo "Date (UTC): $(date -u +%Y-%m-%dT%H:%MZ); $(nproc) cores; load: $(cut -d' ' -f1-3 /proc/loadavg)"
	echo
	echo '| case | plan | cost and plan (rows are estimates) | ms |'
	echo '|---|---|---|---|'
} >> "$out"
join3d='SELECT h.hole_id, b.body_id FROM drill_holes h JOIN ore_bodies b ON ST_ExactIntersects3D(h.geom, b.geom)'

case " $parts " in *" a "*)
	newdb cm_a
	sed -n '/^CREATE FUNCTION cjs_cube/,/^ANALYZE cjs_samples;/p;/^CREATE FUNCTION cjs_heavy_cube/,/^ANALYZE cjs_heavy;/p' \
		"$here/test/regress/sql/custom_join_solid.sql" | $psql -d cm_a >/dev/null
	case_row cm_a "a: one small body's samples" "SELECT s.sid FROM cjs_samples s JOIN cjs_bodies b ON ST_ExactIntersectsSolid3D(b.geom, s.geom) WHERE b.code = 'OB-2-2'"
	case_row cm_a "a: one heavy body's samples" "SELECT s.sid FROM cjs_samples s JOIN cjs_heavy b ON ST_ExactIntersectsSolid3D(b.geom, s.geom) WHERE b.code = 'HB-0'"
	case_row cm_a "a: 29 small bodies x samples" "SELECT s.sid, b.code FROM cjs_samples s JOIN cjs_bodies b ON ST_ExactIntersectsSolid3D(b.geom, s.geom)"
	case_row cm_a "a: 5 heavy bodies x samples" "SELECT s.sid, b.code FROM cjs_samples s JOIN cjs_heavy b ON ST_ExactIntersectsSolid3D(b.geom, s.geom)"
	case_row cm_a "a: samples in any small body (EXISTS)" "SELECT s.sid FROM cjs_samples s WHERE EXISTS (SELECT FROM cjs_bodies b WHERE ST_ExactIntersectsSolid3D(b.geom, s.geom))"
	$psql -d postgres -c "DROP DATABASE cm_a";;
esac
case " $parts " in *" b "*)
	newdb cm_b; mine cm_b 2000 30 200000
	case_row cm_b "b: 2000 holes x 30 bodies (730 kB)" "$join3d"
	$psql -d postgres -c "DROP DATABASE cm_b";;
esac
case " $parts " in *" c "*)
	for spec in 5000:200:40000 5000:100:40000 20000:100:50000 5000:100:100000; do
		h=${spec%%:*}; r=${spec#*:}; b=${r%%:*}; t=${r#*:}
		newdb cm_c; mine cm_c "$h" "$b" "$t"
		w=$($psql -d cm_c -Atc "SELECT round(avg(octet_length(geom::bytea)) / 1000) FROM ore_bodies")
		case_row cm_c "c: $h holes x $b bodies (${w} kB)" "$join3d"
		$psql -d postgres -c "DROP DATABASE cm_c"
	done;;
esac
case " $parts " in *" d "*)
	newdb cm_d
	$psql -d cm_d <<'SQL'
SELECT setseed(0.5);
CREATE TABLE dpts (id int, geom geometry);
INSERT INTO dpts SELECT i, ST_MakePoint(1000 * random(), 1000 * random()) FROM generate_series(1, 100000) i;
CREATE TABLE dpoly (id int, geom geometry);
INSERT INTO dpoly SELECT i, ST_Buffer(ST_MakePoint(1000 * random(), 1000 * random()), 5, 8) FROM generate_series(1, 2000) i;
CREATE INDEX ON dpts USING gist (geom);
CREATE INDEX ON dpoly USING gist (geom);
ANALYZE dpts;
ANALYZE dpoly;
SQL
	j2='SELECT p.id, g.id FROM dpts p JOIN dpoly g ON ST_ExactIntersects(p.geom, g.geom)'
	case_row cm_d "d: 100k points x 2000 33-gons (2D)" "$j2"
	case_row cm_d "d: 100k points x 20 33-gons" "$j2 WHERE g.id <= 20"
	case_row cm_d "d: 500 points x 2000 33-gons" "$j2 WHERE p.id <= 500"
	$psql -d postgres -c "DROP DATABASE cm_d";;
esac

if [ -s "$verdicts" ]; then
	{
		echo
		echo "Picked against measured (ms, best of $reps; the batch join on the device the planner gives it; within 10% a tie):"
		echo
		echo '| case | picked (cost) | its ms | nested loop | batch | batch, CPU | batch, GPU | faster | pick | picked once the GPU is set up |'
		echo '|---|---|---|---|---|---|---|---|---|---|'
		cat "$verdicts"
		echo
		echo "Right: $(grep -c '| right' "$verdicts") of $(grep -c '' "$verdicts")"
	} >> "$out"
fi
rm -f "$verdicts"

case " $parts " in *" calls "*)
	newdb cm_calls
	$psql -d cm_calls -f "$here/bench/sql/cost_model_calls.sql" >> "$out"
	$psql -d postgres -c "DROP DATABASE cm_calls";;
esac
