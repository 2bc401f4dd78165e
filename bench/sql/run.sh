#!/bin/sh
# SQL-level benchmark on a running PostgreSQL with exactgpu, PostGIS and
# postgis_sfcgal: for each mine size, the batch join (GPU, CPU on 2 threads,
# CPU on all cores), the row-by-row ST_ExactIntersects3D join, PostGIS's
# ST_3DIntersects join and the SFCGAL exact route, all on the same tables,
# with the GiST &&& index a PostGIS user would have. One CSV line per run:
#   size,holes,segments,bodies,triangles,method,ms,pairs,status,differences_vs_exact
# usage: bench/sql/run.sh MINEGEN OUT.csv SIZE...  with SIZE = name:holes:bodies:triangles
# Env: PG_TIMEOUT (ms, default 300000) bounds each PostGIS and SFCGAL run;
# SFCGAL_MAX_TRIANGLES (default 5000) skips SFCGAL on larger mines (SFCGAL
# does not check for interrupts, so a timed-out run still runs to its end).
set -eu
minegen=$1
csv=$2
shift 2
here=$(cd "$(dirname "$0")" && pwd)
timeout=${PG_TIMEOUT:-300000}
psql="psql -X -q -v ON_ERROR_STOP=1"
$psql -c "CREATE EXTENSION IF NOT EXISTS postgis" -c "CREATE EXTENSION IF NOT EXISTS postgis_sfcgal" \
	-c "CREATE EXTENSION IF NOT EXISTS exactgpu"
[ -f "$csv" ] || echo "size,holes,segments,bodies,triangles,method,ms,pairs,status,differences_vs_exact" > "$csv"

# run METHOD SETTINGS QUERY [REPEAT]: time QUERY (the last of REPEAT runs),
# count its pairs and the pairs it gets different from the exact answer.
run() {
	reps=${4:-1}
	timed=""
	i=0
	while [ $i -lt "$reps" ]; do
		timed="$timed
SELECT ms, pairs, status FROM pg_temp.bench_pairs(\$q\$$3\$q\$);"
		i=$((i + 1))
	done
	out=$($psql -At -F, <<SQL
$2;
\i $here/bench.sql
$timed
SELECT (SELECT count(*) FROM (SELECT * FROM last_pairs EXCEPT SELECT * FROM exact_pairs) x) +
       (SELECT count(*) FROM (SELECT * FROM exact_pairs EXCEPT SELECT * FROM last_pairs) y);
SQL
)
	line=$(echo "$out" | tail -2 | tr '\n' ',' | sed 's/,$//')
	echo "$name,$holes,$segs,$bodies,$tris,$1,$line" >> "$csv"
	echo "$name $1: $line" >&2
}

for spec in "$@"; do
	name=${spec%%:*}; rest=${spec#*:}
	holes=${rest%%:*}; rest=${rest#*:}
	bodies=${rest%%:*}; tris=${rest#*:}
	dir=$(mktemp -d)
	chmod 755 "$dir"
	"$minegen" --holes "$holes" --bodies "$bodies" --triangles "$tris" --sets 1 --seed 7 --out "$dir" >&2
	$psql -v dir="$dir" -v replace=1 -f "$dir/load.sql"
	$psql -c "ANALYZE drill_holes" -c "ANALYZE ore_bodies"
	segs=$($psql -At -c "SELECT sum(ST_NPoints(geom) - 1) FROM drill_holes")
	$psql -c "DROP TABLE IF EXISTS exact_pairs" -c "CREATE TABLE exact_pairs (hole_id bigint, body_id bigint)"
	$psql -c "INSERT INTO exact_pairs SELECT h.hole_id, b.body_id FROM ore_bodies b JOIN drill_holes h ON ST_ExactIntersects3D(h.geom, b.geom)"
	batch="SELECT left_id, right_id FROM ST_ExactIntersects3DJoin('SELECT hole_id, geom FROM drill_holes', 'SELECT body_id, geom FROM ore_bodies')"
	run row_by_row_exact "SET exactgpu.device = 'cpu'" \
		"SELECT h.hole_id, b.body_id FROM ore_bodies b JOIN drill_holes h ON ST_ExactIntersects3D(h.geom, b.geom)"
	if [ "$($psql -At -c 'SELECT gpus FROM exactgpu_device_info()')" -gt 0 ]; then
		run batch_gpu_first_call "SET exactgpu.device = 'gpu'" "$batch"
		run batch_gpu "SET exactgpu.device = 'gpu'" "$batch" 3
	fi
	run batch_cpu_2_threads "SET exactgpu.device = 'cpu'; SET exactgpu.worker_threads = 2" "$batch" 2
	run batch_cpu_all_cores "SET exactgpu.device = 'cpu'" "$batch" 2
	run postgis_st_3dintersects "SET statement_timeout = $timeout" \
		"SELECT h.hole_id, b.body_id FROM ore_bodies b JOIN drill_holes h ON ST_3DIntersects(h.geom, b.geom)"
	if [ "$tris" -le "${SFCGAL_MAX_TRIANGLES:-5000}" ]; then
		run sfcgal_3dintersection "SET statement_timeout = $timeout" \
			"SELECT h.hole_id, b.body_id FROM ore_bodies b JOIN drill_holes h ON h.geom &&& b.geom AND NOT ST_IsEmpty(ST_3DIntersection(h.geom, b.geom))"
	fi
	$psql -c "DROP TABLE exact_pairs"
	rm -rf "$dir"
done
