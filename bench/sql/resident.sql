-- The resident store on the mine loaded in drill_holes / ore_bodies
-- (demo/minegen): each query with the store off and on, on the GPU and
-- the CPU, as run by bench/run-device-resident.sh (and by hand anywhere the
-- server has exactgpu preloaded with exactgpu.resident_memory set):
--   psql -f bench/sql/resident.sql                       (the tables, bench.run)
--   psql -c "SET statement_timeout = '60s'" -c "SELECT bench.run('500 holes (plain JOIN)', 'gpu', 'on', 5)"
--   psql -v report=1 -f bench/sql/resident.sql          (the table of results)
-- Off: every run reads every body. On: the first run keeps what it reads
-- (reported apart, as 'cold'); the runs after it are 'warm' (medians).
-- Every query's rows must be the same with the store on and off. A run
-- past statement_timeout leaves its query's row out (psql says so).
\set ON_ERROR_STOP on
\pset footer off
SET client_min_messages = warning;
\if :{?report}
SELECT format('%s bodies (%s MB), %s holes', (SELECT count(*) FROM ore_bodies),
	(SELECT round(sum(pg_column_size(geom)) / 1e6) FROM ore_bodies), (SELECT count(*) FROM drill_holes)) AS mine;

-- run 0 is the first of its query in this backend (off: cold caches; on:
-- the store empty, so it keeps what it reads); medians over runs 1..reps
SELECT query, device,
	round((percentile_cont(0.5) WITHIN GROUP (ORDER BY ms) FILTER (WHERE store = 'off' AND run > 0))::numeric, 1) AS off_ms,
	round((min(ms) FILTER (WHERE store = 'on' AND run = 0))::numeric, 1) AS on_cold_ms,
	round((percentile_cont(0.5) WITHIN GROUP (ORDER BY ms) FILTER (WHERE store = 'on' AND run > 0))::numeric, 1) AS on_warm_ms,
	round((percentile_cont(0.5) WITHIN GROUP (ORDER BY read_ms) FILTER (WHERE store = 'on' AND run > 0))::numeric, 1) AS warm_read_ms,
	round((percentile_cont(0.5) WITHIN GROUP (ORDER BY ms) FILTER (WHERE store = 'off' AND run > 0) /
		percentile_cont(0.5) WITHIN GROUP (ORDER BY ms) FILTER (WHERE store = 'on' AND run > 0))::numeric, 1) AS speedup,
	min(n) = max(n) AS same_rows, max(n) AS rows
FROM bench.resident_runs JOIN bench.resident_queries ON name = query
GROUP BY query, device, ord ORDER BY device, ord;
SELECT * FROM exactgpu_resident;
\else
CREATE SCHEMA IF NOT EXISTS bench;
DROP TABLE IF EXISTS bench.resident_runs, bench.resident_queries;
CREATE TABLE bench.resident_runs (query text, device text, store text, run int, ms float8, n bigint,
	read_ms float8, join_ms float8);
CREATE TABLE bench.resident_queries (name text, q text, ord int);
INSERT INTO bench.resident_queries VALUES
	('full join (SRF)', $q$SELECT count(*) FROM ST_ExactIntersects3DJoin('SELECT hole_id, geom FROM drill_holes', 'SELECT body_id, geom FROM ore_bodies')$q$, 1),
	('500 holes (SRF)', $q$SELECT count(*) FROM ST_ExactIntersects3DJoin('SELECT hole_id, geom FROM drill_holes WHERE hole_id BETWEEN 1000 AND 1499', 'SELECT body_id, geom FROM ore_bodies')$q$, 2),
	('500 holes (plain JOIN)', $q$SELECT count(*) FROM drill_holes h JOIN ore_bodies b ON ST_ExactIntersects3D(h.geom, b.geom) WHERE h.hole_id BETWEEN 1000 AND 1499$q$, 3),
	('50 holes (plain JOIN)', $q$SELECT count(*) FROM drill_holes h JOIN ore_bodies b ON ST_ExactIntersects3D(h.geom, b.geom) WHERE h.hole_id BETWEEN 1000 AND 1049$q$, 4);

CREATE OR REPLACE FUNCTION bench.run(query text, device text, store text, reps int)
RETURNS void LANGUAGE plpgsql AS $$
DECLARE t0 timestamptz; ms float8; n bigint; r record; s record;
BEGIN
	PERFORM set_config('exactgpu.device', device, false);
	PERFORM set_config('exactgpu.resident', CASE WHEN store = 'off' THEN 'off' ELSE 'on' END, false);
	FOR r IN SELECT * FROM bench.resident_queries q WHERE q.name = query LOOP
		IF store = 'on' THEN
			PERFORM exactgpu_resident_evict();
		END IF;
		FOR i IN 0..reps LOOP
			t0 := clock_timestamp();
			EXECUTE r.q INTO n;
			ms := extract(epoch FROM clock_timestamp() - t0) * 1000;
			SELECT * INTO s FROM exactgpu_last_join_stats();
			INSERT INTO bench.resident_runs VALUES (r.name, device, store, i, ms, n, s.read_ms, s.join_ms);
		END LOOP;
	END LOOP;
END $$;

\endif
