#!/bin/sh
# Issue 17's 2-core criterion measured: on a minegen mine, the batch SRF,
# the plain JOIN (planner's choice, and the ExactJoin forced), row by row
# (exactgpu.enable_batch_join = off: the planner's nested loop) and row by
# row with the holes outside (a LATERAL subquery: the plan the issue timed,
# where every hole probes the bodies' index), against PostgreSQL's floor
# for reading the same rows (sum(length(geom::bytea)): detoast and
# decompress, in one backend). No plan can beat that floor, the nested
# loop included, which reads each body once.
#   usage: pg_virtualenv -v 15 sh bench/sql/row_by_row.sh MINEGEN [HOLES:BODIES:TRIANGLES]
#   env:   REPS (default 5)
set -eu
minegen=$1
spec=${2:-2000:30:200000}
reps=${REPS:-5}
holes=${spec%%:*}; rest=${spec#*:}
bodies=${rest%%:*}; tris=${rest#*:}
dir=$(mktemp -d); chmod 755 "$dir"
"$minegen" --holes "$holes" --bodies "$bodies" --triangles "$tris" --seed 7 --out "$dir" >/dev/null
chmod -R a+rX "$dir"
psql -X -q -c 'CREATE EXTENSION IF NOT EXISTS exactgpu CASCADE' >/dev/null
psql -X -q -v dir="$dir" -v replace=1 -f "$dir/load.sql" >/dev/null
psql -X -q -c 'VACUUM ANALYZE drill_holes' -c 'VACUUM ANALYZE ore_bodies'
rm -rf "$dir"
echo "$holes holes x $bodies bodies, $tris triangles; $(nproc) cores; load $(cut -d' ' -f1-3 /proc/loadavg); $(date -u +%Y-%m-%dT%H:%MZ)"
psql -X -v reps="$reps" <<'SQL'
\pset footer off
-- median of reps runs after one warm-up, the runs, and the rows returned
CREATE FUNCTION pg_temp.t(q text, n int, s text DEFAULT '') RETURNS text LANGUAGE plpgsql AS $$
DECLARE t0 timestamptz; ms float8[] := '{}'; c bigint;
BEGIN
	IF s <> '' THEN EXECUTE s; END IF;
	FOR i IN 0..n LOOP
		t0 := clock_timestamp();
		IF q LIKE 'SELECT sum%' THEN EXECUTE q INTO c;
		ELSE EXECUTE 'SELECT count(*) FROM (' || q || ') x' INTO c; END IF;
		IF i > 0 THEN ms := ms || extract(epoch FROM clock_timestamp() - t0) * 1000; END IF;
	END LOOP;
	RESET ALL;
	RETURN format('| %s | %s | %s |',
		round((SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY x) FROM unnest(ms) x)::numeric, 1),
		(SELECT string_agg(round(x::numeric)::text, ' ') FROM unnest(ms) x), c);
END $$;
\set join 'SELECT h.hole_id, b.body_id FROM drill_holes h JOIN ore_bodies b ON ST_ExactIntersects3D(h.geom, b.geom)'
\set lateral 'SELECT h.hole_id, b.body_id FROM drill_holes h CROSS JOIN LATERAL (SELECT body_id FROM ore_bodies b WHERE ST_ExactIntersects3D(h.geom, b.geom) OFFSET 0) b'
\pset format unaligned
\pset tuples_only on
SELECT '| form | median ms | runs | pairs (floor: bytes) |';
SELECT '|---|---|---|---|';
SELECT '| floor: both tables read (detoasted) in one backend ' || pg_temp.t('SELECT sum(length(geom::bytea)) FROM (SELECT geom FROM ore_bodies UNION ALL SELECT geom FROM drill_holes) g', :reps);
SELECT '| batch SRF ' || pg_temp.t($$SELECT * FROM ST_ExactIntersects3DJoin('SELECT hole_id, geom FROM drill_holes', 'SELECT body_id, geom FROM ore_bodies')$$, :reps);
SELECT '| plain JOIN (planner''s choice) ' || pg_temp.t(:'join', :reps);
SELECT '| plain JOIN, ExactJoin forced (enable_nestloop = off) ' || pg_temp.t(:'join', :reps, 'SET enable_nestloop = off');
SELECT '| row by row (enable_batch_join = off: the planner''s nested loop) ' || pg_temp.t(:'join', :reps, 'SET exactgpu.enable_batch_join = off');
SELECT '| row by row, holes outside (LATERAL: the issue''s plan) ' || pg_temp.t(:'lateral', 1, 'SET exactgpu.enable_batch_join = off');
\pset format aligned
\pset tuples_only off
\echo 'the plain JOIN, as planned:'
EXPLAIN (COSTS OFF) :join;
SET exactgpu.enable_batch_join = off;
\echo 'row by row:'
EXPLAIN (COSTS OFF) :join;
\echo 'holes outside:'
EXPLAIN (COSTS OFF) :lateral;
SQL
