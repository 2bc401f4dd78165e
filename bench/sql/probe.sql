-- The probe join (exactgpu.probe_join) on the mine loaded in drill_holes /
-- ore_bodies (demo/minegen), bodies kept in the resident store: 50 and 500
-- holes against every body, probe on and off, as run by
-- bench/run-device-probe.sh (and by hand on any server with exactgpu
-- preloaded and exactgpu.resident_memory set):
--   psql -f bench/sql/probe.sql                                   (tables, bench.probe_run)
--   psql -c "SELECT bench.probe_run('500 holes (SRF)', 'on', 10)"
--   psql -v report=1 -f bench/sql/probe.sql                       (the table of results)
-- Run 0 of each query and setting warms the store (the bodies' prepared
-- forms for the probe, the flattened side for the batch join) and is left
-- out of the medians. Each query's pairs (digest) must be the same on and off.
\set ON_ERROR_STOP on
\pset footer off
SET client_min_messages = warning;
\if :{?report}
SELECT format('%s bodies (%s MB), %s holes', (SELECT count(*) FROM ore_bodies),
	(SELECT round(sum(pg_column_size(geom)) / 1e6) FROM ore_bodies), (SELECT count(*) FROM drill_holes)) AS mine;
SELECT query,
	round((percentile_cont(0.5) WITHIN GROUP (ORDER BY ms) FILTER (WHERE probe = 'off' AND run > 0))::numeric, 1) AS off_ms,
	round((percentile_cont(0.5) WITHIN GROUP (ORDER BY ms) FILTER (WHERE probe = 'on' AND run > 0))::numeric, 1) AS on_ms,
	round((percentile_cont(0.5) WITHIN GROUP (ORDER BY ms) FILTER (WHERE probe = 'off' AND run > 0) /
		percentile_cont(0.5) WITHIN GROUP (ORDER BY ms) FILTER (WHERE probe = 'on' AND run > 0))::numeric, 1) AS speedup,
	round((min(ms) FILTER (WHERE probe = 'on' AND run = 0))::numeric, 1) AS on_first_ms,
	count(DISTINCT digest) = 1 AS same_pairs, max(n) AS pairs,
	max(device) FILTER (WHERE probe = 'on') AS device_on
FROM bench.probe_runs JOIN bench.probe_queries ON name = query
GROUP BY query, ord ORDER BY ord;
SELECT * FROM exactgpu_resident;
\else
CREATE SCHEMA IF NOT EXISTS bench;
DROP TABLE IF EXISTS bench.probe_runs, bench.probe_queries;
CREATE TABLE bench.probe_runs (query text, probe text, run int, ms float8, n bigint, digest text,
	device text, read_ms float8, join_ms float8);
-- %s: the pairs' consumer (count, or the digest); the holes from 1000 on
CREATE TABLE bench.probe_queries (name text, q text, ord int);
INSERT INTO bench.probe_queries VALUES
	('500 holes (SRF)', $q$SELECT %s FROM ST_ExactIntersects3DJoin('SELECT hole_id, geom FROM drill_holes WHERE hole_id BETWEEN 1000 AND 1499', 'SELECT body_id, geom FROM ore_bodies') t(l, r)$q$, 1),
	('50 holes (SRF)', $q$SELECT %s FROM ST_ExactIntersects3DJoin('SELECT hole_id, geom FROM drill_holes WHERE hole_id BETWEEN 1000 AND 1049', 'SELECT body_id, geom FROM ore_bodies') t(l, r)$q$, 2),
	('500 holes (plain JOIN)', $q$SELECT %s FROM (SELECT h.hole_id AS l, b.body_id AS r FROM drill_holes h JOIN ore_bodies b ON ST_ExactIntersects3D(h.geom, b.geom) WHERE h.hole_id BETWEEN 1000 AND 1499) t$q$, 3),
	('50 holes (plain JOIN)', $q$SELECT %s FROM (SELECT h.hole_id AS l, b.body_id AS r FROM drill_holes h JOIN ore_bodies b ON ST_ExactIntersects3D(h.geom, b.geom) WHERE h.hole_id BETWEEN 1000 AND 1049) t$q$, 4),
	('500 holes, bodies as volumes (SRF)', $q$SELECT %s FROM ST_ExactIntersectsSolid3DJoin('SELECT body_id, geom FROM ore_bodies', 'SELECT hole_id, geom FROM drill_holes WHERE hole_id BETWEEN 1000 AND 1499') t(l, r)$q$, 5);

CREATE OR REPLACE FUNCTION bench.probe_run(query text, probe text, reps int)
RETURNS void LANGUAGE plpgsql AS $$
DECLARE t0 timestamptz; ms float8; n bigint; dg text; r record; s record;
BEGIN
	PERFORM set_config('exactgpu.probe_join', probe, false);
	FOR r IN SELECT * FROM bench.probe_queries q WHERE q.name = query LOOP
		EXECUTE format(r.q, 'md5(string_agg(l || '':'' || r, '','' ORDER BY l, r))') INTO dg;
		FOR i IN 0..reps LOOP
			t0 := clock_timestamp();
			EXECUTE format(r.q, 'count(*)') INTO n;
			ms := extract(epoch FROM clock_timestamp() - t0) * 1000;
			SELECT * INTO s FROM exactgpu_last_join_stats();
			INSERT INTO bench.probe_runs VALUES (r.name, probe, i, ms, n, dg, s.device, s.read_ms, s.join_ms);
		END LOOP;
	END LOOP;
END $$;
\endif
