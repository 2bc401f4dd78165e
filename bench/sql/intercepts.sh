#!/bin/sh
# Intercepts join against the intersects join on a generated mine, in one
# session, alternating, N rounds; prints the median of each (ms).
# Usage: bench/sql/intercepts.sh MINE_DIR [ROUNDS]   (PSQL="psql -d db" to choose the server)
# MINE_DIR is what demo/bin/minegen --out wrote; the tables are (re)loaded.
# SETUP='SET exactgpu.device = cpu;' runs SQL first.
set -eu
mine=$1
rounds=${2:-7}
PSQL=${PSQL:-psql}
{
	echo '\set ON_ERROR_STOP on'
	echo 'SET client_min_messages = warning;'
	echo 'CREATE EXTENSION IF NOT EXISTS exactgpu CASCADE;'
	echo "${SETUP:-}"
	echo "\\set replace 1"
	echo "\\ir $mine/load.sql"
	echo 'CREATE TEMP TABLE t (what text, ms float8);'
	echo "CREATE FUNCTION pg_temp.timed(what text, q text) RETURNS void LANGUAGE plpgsql AS \$\$
DECLARE t0 timestamptz := clock_timestamp(); n bigint;
BEGIN EXECUTE 'SELECT count(*) FROM (' || q || ') s' INTO n;
INSERT INTO t VALUES (what, extract(epoch FROM clock_timestamp() - t0) * 1000); END \$\$;"
	i=0
	while [ "$i" -le "$rounds" ]; do
		echo "SELECT pg_temp.timed('intersects join', \$\$SELECT * FROM ST_ExactIntersects3DJoin('SELECT hole_id, geom FROM drill_holes', 'SELECT body_id, geom FROM ore_bodies')\$\$);"
		echo "SELECT pg_temp.timed('intercepts join', \$\$SELECT * FROM ST_ExactIntercepts3DJoin('SELECT hole_id, geom FROM drill_holes', 'SELECT body_id, geom FROM ore_bodies')\$\$);"
		echo "SELECT pg_temp.timed('intercept pieces join', \$\$SELECT * FROM ST_ExactInterceptPieces3DJoin('SELECT hole_id, geom FROM drill_holes', 'SELECT body_id, geom FROM ore_bodies')\$\$);"
		i=$((i + 1))
	done
	# the first round warms caches: left out
	echo "DELETE FROM t WHERE ctid IN (SELECT min(ctid) FROM t GROUP BY what);"
	echo "SELECT what, count(*) AS rounds, round(percentile_cont(0.5) WITHIN GROUP (ORDER BY ms)::numeric, 1) AS median_ms,
	       round((percentile_cont(0.5) WITHIN GROUP (ORDER BY ms) / (SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY ms) FROM t WHERE what = 'intersects join'))::numeric, 2) AS vs_intersects
	FROM t GROUP BY what ORDER BY 3;"
} | $PSQL -X -q
