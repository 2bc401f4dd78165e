#!/bin/sh
# The resident store's 2-core target (issue 27): 100 new holes x 24 bodies
# of 82k triangles, warm, against PostgreSQL's own detoast of the bodies
# (SELECT sum(length(geom::bytea)) FROM ore_bodies). Needs exactgpu
# preloaded with a store that holds the bodies, so run it in a throwaway
# cluster made for it, under the install lock (the install is shared), from
# the repository root:
#   flock /tmp/exactgpu-pg.lock sh -c 'make WITH_CUDA=0 install >/dev/null &&
#     pg_virtualenv -v 15 -o shared_preload_libraries=exactgpu \
#       -o exactgpu.resident_memory=2048 sh bench/resident-2core.sh'
# Settings (environment): REPS (runs per median, default 5), MINE_DIR (the
# mine: demo/bin/minegen --bodies 24 --triangles 1968000 --holes 2000
# --seed 27, made there if absent; default /tmp/resident-2core-mine).
#
# Prints, per query, the median of REPS runs (and each run) with the store
# off, the first run after the store is emptied (cold) and the runs after
# it (warm); the plain JOIN's plan and cost, off and warm; what the warm
# join borrowed and read; then the measurement behind "are small in-line
# values worth keeping": a hole's share of the warm read against one store
# lookup; a big body's solid verdicts judged by one backend and found by the
# next.
set -eu
REPS=${REPS:-5}
MINE_DIR=${MINE_DIR:-/tmp/resident-2core-mine}
if [ ! -f "$MINE_DIR/load.sql" ]; then
	[ -x demo/bin/minegen ] || make demo/bin/minegen >/dev/null
	demo/bin/minegen --bodies 24 --triangles 1968000 --holes 2000 --seed 27 --out "$MINE_DIR" >/dev/null
fi
psql -X -q -c 'CREATE EXTENSION IF NOT EXISTS postgis' -c 'CREATE EXTENSION IF NOT EXISTS exactgpu'
psql -X -q -v dir="$MINE_DIR" -v replace=1 -f "$MINE_DIR/load.sql" >/dev/null
psql -X -q -c 'VACUUM ANALYZE drill_holes' -c 'VACUUM ANALYZE ore_bodies'

psql -X -At -v reps="$REPS" <<'SQL'
\set ON_ERROR_STOP on
SET client_min_messages = warning;
SELECT 'machine: ' || (SELECT count(*) FROM pg_stat_activity) || ' backends; ' ||
	current_setting('server_version') || '; exactgpu.resident_memory = ' ||
	current_setting('exactgpu.resident_memory');
SELECT format('mine: %s bodies, %s triangles (%s to %s a body), %s MB stored, %s MB detoasted; %s holes',
	count(*), sum(ST_NumGeometries(geom)), min(ST_NumGeometries(geom)), max(ST_NumGeometries(geom)),
	round(sum(pg_column_size(geom)) / 1e6), round(sum(ST_MemSize(geom)) / 1e6),
	(SELECT count(*) FROM drill_holes)) FROM ore_bodies;

-- runs of q: 'label: median ms (run ms ...)'; store: off, cold (emptied,
-- then one run) or warm (after a first run)
CREATE FUNCTION pg_temp.runs(label text, q text, store text, n int) RETURNS text LANGUAGE plpgsql AS $$
DECLARE t0 timestamptz; ms float8[] := '{}'; x bigint; k int := n;
BEGIN
	PERFORM set_config('exactgpu.resident', CASE WHEN store = 'off' THEN 'off' ELSE 'on' END, false);
	IF store <> 'off' THEN
		PERFORM exactgpu_resident_evict();
	END IF;
	IF store = 'cold' THEN
		k := 1;
	ELSE
		EXECUTE q INTO x;
	END IF;
	FOR i IN 1..k LOOP
		t0 := clock_timestamp();
		EXECUTE q INTO x;
		ms := ms || extract(epoch FROM clock_timestamp() - t0) * 1000;
	END LOOP;
	RETURN format('%s, store %s: %s ms (%s) -> %s', label, store,
		round((SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY m) FROM unnest(ms) m)::numeric, 1),
		(SELECT string_agg(round(m::numeric, 1)::text, ' ') FROM unnest(ms) m), x);
END $$;
-- the plan's nodes, outermost first, and its cost
CREATE FUNCTION pg_temp.plan(q text, store text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE l text; nodes text := ''; cost text;
BEGIN
	PERFORM set_config('exactgpu.resident', CASE WHEN store = 'off' THEN 'off' ELSE 'on' END, false);
	FOR l IN EXECUTE 'EXPLAIN ' || q LOOP
		IF cost IS NULL THEN
			cost := substring(l FROM '\.\.([0-9.]+) ');
		END IF;
		IF l ~ '(Join|Loop|Scan|Aggregate|Gather)' THEN
			nodes := nodes || CASE WHEN nodes = '' THEN '' ELSE ' > ' END ||
				trim(regexp_replace(regexp_replace(l, '\(cost.*', ''), '^[ ->]*', ''));
		END IF;
	END LOOP;
	RETURN format('plan, store %s: cost %s: %s', store, cost, nodes);
END $$;

\echo '== the floor: PostgreSQL detoasting the bodies'
SELECT pg_temp.runs('sum(length(geom::bytea)) FROM ore_bodies',
	'SELECT sum(length(geom::bytea)) FROM ore_bodies', 'off', :reps);

\echo '== 100 new holes x 24 bodies, plain JOIN'
\set q100 'SELECT count(*) FROM drill_holes h JOIN ore_bodies b ON ST_ExactIntersects3D(h.geom, b.geom) WHERE h.hole_id BETWEEN 1000 AND 1099'
SELECT pg_temp.plan(:'q100', 'off');
SELECT pg_temp.runs('plain JOIN', :'q100', 'off', :reps);
SELECT pg_temp.runs('plain JOIN', :'q100', 'cold', :reps);
SELECT pg_temp.runs('plain JOIN', :'q100', 'warm', :reps);
SELECT pg_temp.plan(:'q100', 'warm');
\echo '== the same as a batch join (enable_nestloop off): the ExactJoin path'
SET enable_nestloop = off;
SELECT pg_temp.plan(:'q100', 'off');
SELECT pg_temp.runs('plain JOIN, no nested loop', :'q100', 'off', :reps);
SELECT pg_temp.runs('plain JOIN, no nested loop', :'q100', 'warm', :reps);
SELECT pg_temp.plan(:'q100', 'warm');
SELECT format('warm ExactJoin: read %s ms, join %s ms; borrowed %s sides, %s rows, %s MB; read %s MB',
	round(read_ms::numeric, 1), round(join_ms::numeric, 1), resident_sides, resident_rows,
	round(resident_bytes / 1e6, 1), round(read_bytes / 1e6, 3)) FROM exactgpu_last_join_stats();
RESET enable_nestloop;

\echo '== the same through the SRF'
\set s100 'SELECT count(*) FROM ST_ExactIntersects3DJoin(''SELECT hole_id, geom FROM drill_holes WHERE hole_id BETWEEN 1000 AND 1099'', ''SELECT body_id, geom FROM ore_bodies'')'
SELECT pg_temp.runs('SRF', :'s100', 'off', :reps);
SELECT pg_temp.runs('SRF', :'s100', 'warm', :reps);
SELECT format('warm SRF: read %s ms, join %s ms', round(read_ms::numeric, 1), round(join_ms::numeric, 1))
FROM exactgpu_last_join_stats();

\echo '== in-line values: a hole read against a store lookup'
-- the warm read of 2,000 holes against that of 100 (the bodies borrowed in
-- both): what reading and parsing an in-line hole costs
\set s2000 'SELECT count(*) FROM ST_ExactIntersects3DJoin(''SELECT hole_id, geom FROM drill_holes'', ''SELECT body_id, geom FROM ore_bodies'')'
CREATE FUNCTION pg_temp.read_ms(q text, n int) RETURNS float8 LANGUAGE plpgsql AS $$
DECLARE x bigint; r float8[] := '{}';
BEGIN
	SET exactgpu.resident = on;
	EXECUTE q INTO x;
	FOR i IN 1..n LOOP
		EXECUTE q INTO x;
		r := r || (SELECT read_ms FROM exactgpu_last_join_stats());
	END LOOP;
	RETURN (SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY m) FROM unnest(r) m);
END $$;
SELECT pg_temp.read_ms(:'s100', :reps) AS r100 \gset
SELECT pg_temp.read_ms(:'s2000', :reps) AS r2000 \gset
SELECT format('warm read: 100 holes %s ms, 2000 holes %s ms: %s us a hole (%s bytes on average, in line)',
	round(:r100::numeric, 2), round(:r2000::numeric, 2), round(((:r2000 - :r100) * 1000 / 1900)::numeric, 2),
	(SELECT round(avg(pg_column_size(geom))) FROM drill_holes));
-- one lookup of a resident value: its key (the first TOAST chunk's probe),
-- the shared hash probe, a pin and its release
SET exactgpu.resident = on;
SELECT exactgpu_prewarm('ore_bodies', 'geom') AS kept \gset
CREATE FUNCTION pg_temp.lookups(n int) RETURNS text LANGUAGE plpgsql AS $$
DECLARE t0 timestamptz; x bigint; h0 bigint; h1 bigint; ms float8;
BEGIN
	SELECT hits INTO h0 FROM exactgpu_resident;
	t0 := clock_timestamp();
	/* correlated, so that every body is looked up again for every g */
	SELECT count(*) INTO x FROM generate_series(1, n) g,
		LATERAL (SELECT b.geom FROM ore_bodies b WHERE g > 0 AND exactgpu_resident_keep(b.geom) OFFSET 0) s;
	ms := extract(epoch FROM clock_timestamp() - t0) * 1000;
	SELECT hits INTO h1 FROM exactgpu_resident;
	RETURN format('%s lookups (%s hits) in %s ms: %s us a lookup', x, h1 - h0, round(ms::numeric, 1),
		round((ms * 1000 / greatest(x, 1))::numeric, 2));
END $$;
SELECT :kept || ' bodies kept by exactgpu_prewarm; ' || pg_temp.lookups(200);
SELECT format('store: %s entries, %s MB, %s hits, %s misses, %s evictions, %s not kept',
	entries, round(bytes / 1e6), hits, misses, evictions, not_kept) FROM exactgpu_resident;
SQL

# A big body's solid verdicts kept beside its block: the largest body judged
# by one backend, then by a second (the verdicts found in the store), then
# by a third with the store off (judged again). Each psql is a new backend.
echo "== solid verdicts: ST_ExactIsValidSolid on the largest body, three backends"
big=$(psql -X -At -c "SELECT body_id FROM ore_bodies ORDER BY ST_NumGeometries(geom) DESC LIMIT 1")
psql -X -At -c "SELECT exactgpu_resident_evict()" >/dev/null
for step in "first, store on" "second, store on" "third, store off"; do
	case $step in *off) store=off ;; *) store=on ;; esac
	found0=$(psql -X -At -c "SELECT verdicts_found FROM exactgpu_resident")
	ms=$(psql -X -At -c "SET exactgpu.resident = $store" -c '\timing on' \
		-c "SELECT ST_ExactIsValidSolid(geom) FROM ore_bodies WHERE body_id = $big" |
		sed -n 's/^Time: \([0-9.]*\) ms.*/\1/p')
	found1=$(psql -X -At -c "SELECT verdicts_found FROM exactgpu_resident")
	echo "body $big ($step): $ms ms, verdicts found in the store: $((found1 - found0))"
done
