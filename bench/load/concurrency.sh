#!/bin/sh
# N backends run the same exactgpu queries for S seconds; every answer must
# be identical (md5 of the ordered rows) across backends and repetitions,
# and the backends' RSS and thread counts are sampled every second.
#
#   bench/load/concurrency.sh [backends [seconds]]      (default 8 60)
#
# Needs a running server (PGHOST/PGPORT/PGUSER as for psql) with postgis and
# exactgpu installable; works in a scratch database. Prints one line per
# query with the number of distinct answers (must be 1), the peak RSS and
# threads per backend, and "load: N differences" last (exit 1 if N > 0).
set -u
N=${1:-8}
S=${2:-60}
DB=${LOAD_DB:-exactgpu_load}
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT

psql -X -q -d postgres -c "SET client_min_messages = warning" -c "DROP DATABASE IF EXISTS $DB" -c "CREATE DATABASE $DB" || exit 2
psql -X -q -d "$DB" -v ON_ERROR_STOP=1 <<'SQL' || exit 2
SET client_min_messages = warning;
CREATE EXTENSION postgis;
CREATE EXTENSION exactgpu;
-- 20,000 triangles of a wavy surface and 30,000 drill-hole segments through it
CREATE TABLE surf AS
	SELECT (x * 200 + y) * 2 + t AS id,
	       ST_MakePolygon(ST_MakeLine(ARRAY[
	           ST_MakePoint(x, y, sin(x / 7.0) * cos(y / 5.0)),
	           ST_MakePoint(x + 1, y + t, sin((x + 1) / 7.0) * cos((y + t) / 5.0)),
	           ST_MakePoint(x + 1 - t, y + 1, sin((x + 1 - t) / 7.0) * cos((y + 1) / 5.0)),
	           ST_MakePoint(x, y, sin(x / 7.0) * cos(y / 5.0))])) AS geom
	FROM generate_series(0, 99) x, generate_series(0, 99) y, generate_series(0, 1) t;
CREATE TABLE holes AS
	SELECT i AS id, ST_MakeLine(ST_MakePoint(random() * 100, random() * 100, 2),
	                            ST_MakePoint(random() * 100, random() * 100, -2)) AS geom
	FROM generate_series(1, 30000) i;
CREATE TABLE pts AS
	SELECT i AS id, ST_MakePoint(random() * 100, random() * 100) AS geom FROM generate_series(1, 50000) i;
CREATE TABLE polys AS
	SELECT i AS id, ST_Buffer(ST_MakePoint(random() * 100, random() * 100), 2, 4) AS geom FROM generate_series(1, 5000) i;
ANALYZE;
SQL

cat > "$WORK/queries" <<'EOF2'
3d_join|SELECT * FROM ST_ExactIntersects3DJoin('SELECT id, geom FROM holes', 'SELECT id, geom FROM surf') ORDER BY 1, 2
2d_join|SELECT * FROM ST_ExactIntersectsJoin('SELECT id, geom FROM polys', 'SELECT id, geom FROM pts') ORDER BY 1, 2
box_join|SELECT * FROM ST_BoxJoin('SELECT id, geom FROM polys', 'SELECT id, geom FROM polys') ORDER BY 1, 2
row_3d|SELECT h.id, s.id FROM holes h JOIN surf s ON ST_ExactIntersects3D(h.geom, s.geom) WHERE h.id <= 2000 ORDER BY 1, 2
batch_2d|SELECT * FROM ST_ExactIntersectsJoin((SELECT ST_ExactBatch(id, geom) FROM polys), (SELECT ST_ExactBatch(id, geom) FROM pts)) ORDER BY 1, 2
EOF2

worker() {
	end=$(( $(date +%s) + S ))
	while [ "$(date +%s)" -lt "$end" ]; do
		while IFS='|' read -r name q; do
			h=$(psql -X -At -d "$DB" -c "$q" 2>&1 | md5sum | cut -c1-32)
			echo "$name $h" >> "$WORK/answers.$1"
		done < "$WORK/queries"
	done
}

sampler() {
	while [ ! -f "$WORK/done" ]; do
		# backends of this database: RSS (kB) and threads
		ps -eo rss=,nlwp=,args= | awk -v db="$DB" '$0 ~ "postgres: .* " db " " { print $1, $2 }' >> "$WORK/samples"
		sleep 1
	done
}

sampler &
i=0
while [ "$i" -lt "$N" ]; do worker "$i" & i=$((i + 1)); done
sleep "$S"
# let the last round of every worker finish
while [ "$(ls "$WORK"/answers.* 2>/dev/null | wc -l)" -lt "$N" ]; do sleep 1; done
while pgrep -f "psql -X -At -d $DB" >/dev/null; do sleep 1; done
touch "$WORK/done"
wait

cat "$WORK"/answers.* | sort | uniq -c | awk '{ runs[$2] += $1; variants[$2]++ } END {
	for (q in runs) printf "%-10s %5d runs, %d distinct answer(s)\n", q, runs[q], variants[q] }' | sort
awk '{ if ($1 > rss) rss = $1; if ($2 > thr) thr = $2; n++ } END {
	printf "backends: %d samples, peak RSS %.0f MB, peak threads %d per backend\n", n, rss / 1024, thr }' "$WORK/samples"
diff=$(cat "$WORK"/answers.* | sort -u | awk '{ v[$1]++ } END { d = 0; for (q in v) d += v[q] - 1; print d }')
echo "load: $N backends, $S s, $diff differences"
[ "$diff" -eq 0 ]
