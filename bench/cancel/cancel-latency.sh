#!/bin/sh
# Cancel latency per phase of the batch joins: each query runs once to time
# its phases (exactgpu.progress), then again under statement_timeouts that
# land in the middle of a phase; latency = time to the error - the timeout.
#
#   bench/cancel/cancel-latency.sh [repeats]          (default 3)
#
# Needs a running server (PGHOST/PGPORT/PGUSER as for psql); works in a
# scratch database. Prints a Markdown table (phase, timeout, worst latency).
set -u
R=${1:-3}
DB=${CANCEL_DB:-exactgpu_cancel}
psql -X -q -d postgres -c "SET client_min_messages = warning" -c "DROP DATABASE IF EXISTS $DB" -c "CREATE DATABASE $DB" || exit 2
psql -X -q -d "$DB" -v ON_ERROR_STOP=1 <<'SQL' || exit 2
SET client_min_messages = warning;
CREATE EXTENSION postgis;
CREATE EXTENSION exactgpu;
-- 4,500 x 4,500 overlapping boxes: 2 * 10^7 result pairs (the audit's spill case)
CREATE TABLE boxes AS SELECT i::bigint AS id, ST_MakeEnvelope(i * 0.01, 0, i * 0.01 + 100, 1) AS geom
	FROM generate_series(1, 4500) i;
-- segments on the line x = y and points on it: every candidate needs GMP
CREATE TABLE diag_segs AS SELECT i::bigint AS id,
	ST_MakeLine(ST_MakePoint(i * 0.1 + 0.01, i * 0.1 + 0.01), ST_MakePoint(i * 0.1 + 0.09, i * 0.1 + 0.09)) AS geom
	FROM generate_series(0, 99999) i;
CREATE TABLE diag_pts AS SELECT i::bigint AS id, ST_MakePoint(i * 0.01 + 0.003, i * 0.01 + 0.003) AS geom
	FROM generate_series(0, 999999) i;
-- prisms over the segments (closed bodies) and the points at z = 0.5: the
-- points lie exactly on the prisms' vertical faces, GMP for every pair
CREATE TABLE diag_prisms AS SELECT i::bigint AS id, format(
	'POLYHEDRALSURFACE Z(((%1$s %1$s 0,%2$s %1$s 0,%2$s %2$s 0,%1$s %1$s 0)),((%1$s %1$s 1,%2$s %2$s 1,%2$s %1$s 1,%1$s %1$s 1)),((%1$s %1$s 0,%2$s %2$s 0,%2$s %2$s 1,%1$s %1$s 1,%1$s %1$s 0)),((%2$s %2$s 0,%2$s %1$s 0,%2$s %1$s 1,%2$s %2$s 1,%2$s %2$s 0)),((%2$s %1$s 0,%1$s %1$s 0,%1$s %1$s 1,%2$s %1$s 1,%2$s %1$s 0)))',
	i * 0.1 + 0.01, i * 0.1 + 0.09)::geometry AS geom
	FROM generate_series(0, 99999) i;
CREATE TABLE diag_pts3d AS SELECT id, ST_Force3D(geom, 0.5) AS geom FROM diag_pts;
-- triangles that each cover the whole domain, for a grid of 2^25 cells
-- (exactgpu.grid_cells): cells by the million for every triangle, but for
-- the grid's fit to the memory budget
CREATE TABLE big_tris AS SELECT i::bigint AS id,
	ST_MakePolygon(ST_MakeLine(ARRAY[ST_MakePoint(i * 1e-3, 0, i * 1e-3), ST_MakePoint(1000, i * 1e-3, 0),
		ST_MakePoint(0, 1000, 1000 - i * 1e-3), ST_MakePoint(i * 1e-3, 0, i * 1e-3)])) AS geom
	FROM generate_series(1, 3000) i;
ANALYZE;
SQL

now_ms() { echo $(( $(date +%s%N) / 1000000 )); }

# run SQL under a timeout; prints the elapsed ms
timed() {
	t0=$(now_ms)
	psql -X -q -d "$DB" -c "SET exactgpu.device = cpu" -c "SET exactgpu.result_memory = '64MB'" \
		-c "SET statement_timeout = $1" -c "$2" >/dev/null 2>&1
	echo $(( $(now_ms) - t0 ))
}

# connection + planning overhead, subtracted from every measurement
base=$(timed 0 "SELECT 1")

# name|query|phases to hit (read, engine, results)
measure() {
	name=$1; q=$2
	# phase times from the progress NOTICEs: read ms, join ms, total ms
	out=$(psql -X -q -d "$DB" -c "SET exactgpu.device = cpu" -c "SET exactgpu.result_memory = '64MB'" \
		-c "SET exactgpu.progress = on" -c "$q" -c "SELECT read_ms, join_ms, total_ms FROM exactgpu_last_join_stats()" -At 2>&1 | tail -1)
	read_ms=$(echo "$out" | cut -d'|' -f1 | cut -d. -f1)
	join_ms=$(echo "$out" | cut -d'|' -f2 | cut -d. -f1)
	total_ms=$(echo "$out" | cut -d'|' -f3 | cut -d. -f1)
	for phase in reading engine results; do
		case $phase in
			reading) to=$(( read_ms / 2 )) ;;
			engine) to=$(( read_ms + join_ms / 2 )) ;;
			results) to=$(( read_ms + join_ms + (total_ms - read_ms - join_ms) / 2 )) ;;
		esac
		[ "$to" -gt 50 ] || continue
		worst=0
		i=0
		while [ $i -lt "$R" ]; do
			e=$(timed "$to" "$q")
			l=$(( e - to - base ))
			[ $l -gt $worst ] && worst=$l
			i=$((i + 1))
		done
		printf '| %s | %s | %d / %d / %d | %d | %d |\n' "$name" "$phase" "$read_ms" "$join_ms" "$total_ms" "$to" "$worst"
	done
}

echo "| query | phase | read / join / total ms | timeout ms | worst latency ms |"
echo "|---|---|---|---|---|"
measure "box join, 2*10^7 pairs" "SELECT count(*) FROM ST_BoxJoin('SELECT id, geom FROM boxes', 'SELECT id, geom FROM boxes')"
measure "2D join, GMP on every candidate" "SELECT count(*) FROM ST_ExactIntersectsJoin('SELECT id, geom FROM diag_segs', 'SELECT id, geom FROM diag_pts')"
measure "3D join, same shapes" "SELECT count(*) FROM ST_ExactIntersects3DJoin('SELECT id, geom FROM diag_segs', 'SELECT id, geom FROM diag_pts')"
measure "point-in-solid join, GMP on every pair" "SELECT count(*) FROM ST_ExactLocate3DJoin('SELECT id, geom FROM diag_pts3d', 'SELECT id, geom FROM diag_prisms')"
measure "3D join, grid_cells 2^25 over large triangles" "SET exactgpu.grid_cells = 33554432; SELECT count(*) FROM ST_ExactIntersects3DJoin('SELECT id, geom FROM big_tris', 'SELECT id, geom FROM big_tris')"
echo "(connection overhead $base ms subtracted; $R runs each)"
