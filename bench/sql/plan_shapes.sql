-- The query shapes of issue 26, each timed under the default plan and under
-- each forced alternative, on the mine in drill_holes / ore_bodies (minegen's
-- schema; bench/sql/plan_shapes.sh loads it). Derived here: samples (points
-- on the holes), collars (the holes' first points, 2D), four tenements over
-- the collars (in the collars' SRID), the view ore_view. psql variables: reps (default plan runs,
-- best kept), timeout_ms (a run past it counts as that), lo (first hole id
-- of the hole ranges), samples (how many), alts (which forced plans).
-- Markdown rows to stdout.
-- Every plan runs reps times (once when a run takes over 5 s or is
-- cancelled at timeout_ms), the best kept.
\set ON_ERROR_STOP 1
SET client_min_messages = warning;
SET exactgpu.progress = off;
\o /dev/null
DROP VIEW IF EXISTS ore_view;
DROP TABLE IF EXISTS samples, collars, tenements CASCADE;
CREATE TABLE samples AS SELECT row_number() OVER () AS sample_id, geom FROM (
  SELECT (ST_DumpPoints(geom)).geom FROM drill_holes ORDER BY hole_id LIMIT :samples) s;
CREATE TABLE collars AS SELECT hole_id, ST_Force2D(ST_StartPoint(geom)) AS geom FROM drill_holes;
CREATE TABLE tenements AS
  SELECT t AS tenement_id, 'T' || t AS name, ST_MakeEnvelope(x0 + (x1 - x0) * (t - 1) / 4, y0 - 1, x0 + (x1 - x0) * t / 4, y1 + 1, srid) AS geom
  FROM (SELECT ST_XMin(e) x0, ST_XMax(e) x1, ST_YMin(e) y0, ST_YMax(e) y1,
          (SELECT ST_SRID(geom) FROM collars LIMIT 1) srid FROM (SELECT ST_Extent(geom) e FROM collars) e) e,
    generate_series(1, 4) t;
CREATE INDEX ON samples USING gist (geom gist_geometry_ops_nd);
CREATE INDEX ON collars USING gist (geom);
CREATE INDEX ON tenements USING gist (geom);
-- the ore: a column with statistics, as a user's table has one
ALTER TABLE ore_bodies ADD COLUMN IF NOT EXISTS kind text;
UPDATE ore_bodies SET kind = CASE WHEN body_id % 2 = 0 THEN 'ore' ELSE 'waste' END;
ANALYZE ore_bodies;
CREATE VIEW ore_view AS SELECT * FROM ore_bodies WHERE kind = 'ore';
ANALYZE samples; ANALYZE collars; ANALYZE tenements;

CREATE TEMP TABLE shapes (ord serial, shape text, q text);
INSERT INTO shapes (shape, q) VALUES
('JOIN, 500 holes x every body', $$SELECT h.hole_id, b.body_id FROM drill_holes h JOIN ore_bodies b ON ST_ExactIntersects3D(h.geom, b.geom) WHERE h.hole_id BETWEEN {lo} AND {lo} + 499$$),
('JOIN, 50 holes x every body', $$SELECT h.hole_id, b.body_id FROM drill_holes h JOIN ore_bodies b ON ST_ExactIntersects3D(h.geom, b.geom) WHERE h.hole_id BETWEEN {lo} AND {lo} + 49$$),
('JOIN + filter (ore bodies)', $$SELECT h.hole_id, b.body_id FROM drill_holes h JOIN ore_bodies b ON ST_ExactIntersects3D(h.geom, b.geom) WHERE b.kind = 'ore'$$),
('EXISTS (holes in ore)', $$SELECT h.hole_id FROM drill_holes h WHERE EXISTS (SELECT 1 FROM ore_bodies b WHERE ST_ExactIntersects3D(b.geom, h.geom))$$),
('NOT EXISTS (holes that hit nothing)', $$SELECT h.hole_id FROM drill_holes h WHERE NOT EXISTS (SELECT 1 FROM ore_bodies b WHERE ST_ExactIntersects3D(b.geom, h.geom))$$),
('IN', $$SELECT h.hole_id FROM drill_holes h WHERE h.hole_id IN (SELECT h2.hole_id FROM drill_holes h2 JOIN ore_bodies b ON ST_ExactIntersects3D(h2.geom, b.geom) WHERE b.kind = 'ore')$$),
('EXISTS through a CTE', $$WITH ore AS (SELECT * FROM ore_bodies WHERE kind = 'ore') SELECT h.hole_id FROM drill_holes h WHERE EXISTS (SELECT 1 FROM ore o WHERE ST_ExactIntersects3D(o.geom, h.geom))$$),
('NOT EXISTS through a view', $$SELECT h.hole_id FROM drill_holes h WHERE NOT EXISTS (SELECT 1 FROM ore_view o WHERE ST_ExactIntersects3D(o.geom, h.geom))$$),
('samples in bodies', $$SELECT s.sample_id, b.body_id FROM samples s JOIN ore_bodies b ON ST_ExactIntersectsSolid3D(b.geom, s.geom)$$),
('samples in no body (NOT EXISTS)', $$SELECT s.sample_id FROM samples s WHERE NOT EXISTS (SELECT 1 FROM ore_bodies b WHERE ST_ExactIntersectsSolid3D(b.geom, s.geom))$$),
('ORDER BY ... LIMIT 10', $$SELECT h.hole_id, b.body_id FROM drill_holes h JOIN ore_bodies b ON ST_ExactIntersects3D(h.geom, b.geom) ORDER BY h.hole_id, b.body_id LIMIT 10$$),
('inner join (every hole x every body)', $$SELECT h.hole_id, b.body_id FROM drill_holes h JOIN ore_bodies b ON ST_ExactIntersects3D(h.geom, b.geom)$$),
('LEFT JOIN, holes that hit nothing', $$SELECT h.hole_id FROM drill_holes h LEFT JOIN ore_bodies b ON ST_ExactIntersects3D(h.geom, b.geom) WHERE b.body_id IS NULL$$),
('LEFT JOIN, every hole', $$SELECT h.hole_id, b.body_id FROM drill_holes h LEFT JOIN ore_bodies b ON ST_ExactIntersects3D(h.geom, b.geom)$$),
('RIGHT JOIN, every body', $$SELECT h.hole_id, b.body_id FROM drill_holes h RIGHT JOIN ore_bodies b ON ST_ExactIntersects3D(h.geom, b.geom) AND h.hole_id % 7 = 0$$),
('three-way: collars in tenement T1', $$SELECT h.hole_id, b.body_id FROM tenements t JOIN collars c ON ST_ExactIntersects(t.geom, c.geom) JOIN drill_holes h ON h.hole_id = c.hole_id JOIN ore_bodies b ON ST_ExactIntersects3D(h.geom, b.geom) WHERE t.name = 'T1'$$);

UPDATE shapes SET q = replace(q, '{lo}', :'lo');
SELECT set_config('plan_shapes.timeout_ms', :'timeout_ms', false);

CREATE TEMP TABLE alternatives (alt text, settings text[]);
INSERT INTO alternatives VALUES
('default', '{}'),
('batch off', '{exactgpu.enable_batch_join=off}'),
('nestloop off', '{enable_nestloop=off}'),
('hashjoin off', '{enable_hashjoin=off}'),
('nestloop+hashjoin off', '{enable_nestloop=off,enable_hashjoin=off}'),
('index scans off', '{enable_indexscan=off,enable_bitmapscan=off}');
-- alts: the alternatives to run, comma-separated ('all': every one)
DELETE FROM alternatives WHERE :'alts' <> 'all' AND alt <> 'default' AND alt <> ALL (string_to_array(:'alts', ','));

-- One run of shape ord under alternative alt: ms (timeout_ms where it was
-- cancelled), the plan's family, the rows' count and an order-free
-- checksum, into runs. Each run is a statement of its own (\gexec below),
-- so that statement_timeout, armed at a statement's start, bounds it; a
-- run is skipped once one of the same pair was cancelled or took over 5 s.
CREATE TEMP TABLE runs (ord int, shape text, alt text, ms float8, timed_out bool, family text,
  n bigint, sum numeric);
CREATE FUNCTION pg_temp.run(s_ord int, s_alt text) RETURNS void LANGUAGE plpgsql AS $f$
DECLARE t0 timestamptz; s text; line text; plan text := ''; q text; settings text[];
  r runs%ROWTYPE;
BEGIN
  IF EXISTS (SELECT 1 FROM runs WHERE ord = s_ord AND alt = s_alt AND (timed_out OR ms > 5000)) THEN
    RETURN;
  END IF;
  SELECT sh.q, sh.shape INTO q, r.shape FROM shapes sh WHERE sh.ord = s_ord;
  SELECT a.settings INTO settings FROM alternatives a WHERE a.alt = s_alt;
  r.ord := s_ord; r.alt := s_alt;
  -- each alternative from the session's settings (set_config is local to
  -- the transaction)
  FOREACH s IN ARRAY ARRAY['exactgpu.enable_batch_join', 'enable_nestloop', 'enable_hashjoin',
      'enable_mergejoin', 'enable_indexscan', 'enable_bitmapscan'] LOOP
    PERFORM set_config(s, 'on', true);
  END LOOP;
  FOREACH s IN ARRAY settings LOOP
    PERFORM set_config(split_part(s, '=', 1), split_part(s, '=', 2), true);
  END LOOP;
  FOR line IN EXECUTE 'EXPLAIN (COSTS OFF) ' || q LOOP plan := plan || line || E'\n'; END LOOP;
  r.family := CASE WHEN plan ~ 'ExactJoin' THEN 'ExactJoin' || CASE WHEN plan ~ 'Join Type: (\w+)' THEN ' ' || substring(plan FROM 'Join Type: (\w+)') ELSE '' END
    ELSE coalesce(substring(plan FROM '(Nested Loop|Hash Join|Merge Join|Hash Right Join|Hash Left Join|Hash Anti Join|Hash Semi Join)[^\n]*'), '?') END;
  r.timed_out := false;
  BEGIN
    t0 := clock_timestamp();
    EXECUTE 'SELECT count(*), sum(hashtext(s::text)::numeric) FROM (' || q || ') s' INTO r.n, r.sum;
    r.ms := extract(epoch FROM clock_timestamp() - t0) * 1000;
  EXCEPTION WHEN query_canceled THEN
    r.ms := current_setting('plan_shapes.timeout_ms')::float8; r.timed_out := true; r.n := NULL; r.sum := NULL;
  END;
  INSERT INTO runs SELECT r.*;
  -- progress, on stderr
  RAISE WARNING 'plan_shapes: % ms %', round(r.ms::numeric), r.family;
END $f$;

SELECT format('SET statement_timeout = %s', :'timeout_ms'),
  format('SELECT pg_temp.run(%s, %L)', s.ord, a.alt),
  'SET statement_timeout = 0'
FROM shapes s, alternatives a, generate_series(1, :reps) rep ORDER BY rep, s.ord, a.alt \gexec

-- the best run of each pair
CREATE TEMP TABLE timings AS
  SELECT DISTINCT ON (ord, alt) * FROM runs ORDER BY ord, alt, ms;
\o
\pset tuples_only on
\pset format unaligned
-- ratio: the default run against the best forced run; plan ratio: the best
-- run of the default plan's family (whichever settings gave it) against the
-- best run of any other family, which reads the planner's choice through
-- the noise of a busy machine (the same plan's runs vary by several times
-- there)
SELECT '| shape | default plan | default ms | best forced | its ms | ratio | plan ratio | rows | same rows as every alternative |';
SELECT '|---|---|---|---|---|---|---|---|---|';
SELECT format('| %s | %s | %s | %s (%s) | %s | %s | %s | %s | %s |', d.shape, d.family,
    CASE WHEN d.timed_out THEN '> ' ELSE '' END || round(d.ms::numeric, 1),
    b.alt, b.family, CASE WHEN b.timed_out THEN '> ' ELSE '' END || round(b.ms::numeric, 1),
    round((d.ms / b.ms)::numeric, 2),
    round(((SELECT min(ms) FROM timings f WHERE f.ord = d.ord AND f.family = d.family) /
      least((SELECT min(ms) FROM timings f WHERE f.ord = d.ord AND f.family = d.family),
            coalesce((SELECT min(ms) FROM timings f WHERE f.ord = d.ord AND f.family <> d.family), 'infinity')))::numeric, 2),
    d.n,
    CASE WHEN bool_and(o.timed_out OR (o.n = d.n AND o.sum = d.sum)) THEN 'yes' ELSE 'NO' END)
FROM timings d
JOIN LATERAL (SELECT * FROM timings o WHERE o.ord = d.ord AND o.alt <> 'default' ORDER BY o.ms LIMIT 1) b ON true
JOIN timings o ON o.ord = d.ord AND o.alt <> 'default'
WHERE d.alt = 'default'
GROUP BY d.ord, d.shape, d.family, d.ms, d.timed_out, d.n, b.alt, b.family, b.ms, b.timed_out
ORDER BY d.ord;
SELECT '';
-- the LEFT JOIN that lists the holes hitting nothing against the inner
-- batch join of the same tables (target <= 1.5): the default run, and the
-- best run of the same plan family (the same plan's runs vary by several
-- times on a busy machine), against the best ExactJoin run of the inner join
SELECT format('LEFT JOIN listing the holes that hit nothing, default plan (%s): %s ms (best run of that plan %s ms); the inner join as a batch join (best ExactJoin run): %s ms; ratio %s (best runs: %s)',
    l.family, round(l.ms::numeric, 1), round(lb.ms::numeric, 1), round(i.ms::numeric, 1),
    round((l.ms / i.ms)::numeric, 2), round((lb.ms / i.ms)::numeric, 2))
FROM timings l,
  LATERAL (SELECT min(ms) AS ms FROM runs r WHERE r.ord = l.ord AND r.family = l.family) lb,
  (SELECT min(ms) AS ms FROM runs WHERE shape = 'inner join (every hole x every body)' AND family = 'ExactJoin') i
WHERE l.shape = 'LEFT JOIN, holes that hit nothing' AND l.alt = 'default';
SELECT '';
SELECT '<details><summary>every alternative (ms, plan)</summary>';
SELECT '';
SELECT '| shape | ' || string_agg(alt, ' | ' ORDER BY alt) || ' |' FROM (SELECT DISTINCT alt FROM timings) a;
SELECT '|---' || repeat('|---', (SELECT count(DISTINCT alt) FROM timings)::int) || '|';
SELECT '| ' || shape || ' | ' || string_agg(CASE WHEN timed_out THEN '> ' ELSE '' END || round(ms::numeric) || ' ' || family, ' | ' ORDER BY alt) || ' |'
  FROM timings GROUP BY ord, shape ORDER BY ord;
SELECT '';
SELECT '</details>';
