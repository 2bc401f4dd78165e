-- The exactgpu demo: which drill holes cut which ore bodies, exactly.
-- Run by demo/run-demo.sh on a throwaway cluster, after minegen wrote the mine.
\set ON_ERROR_STOP on
\pset footer off
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS exactgpu CASCADE;
\echo
\echo '== Loading the mine (UTM zone 19S, SRID 32719)'
\ir :mine/load.sql
\cd :repo
ANALYZE drill_holes;
ANALYZE ore_bodies;
SELECT (SELECT count(*) FROM drill_holes) AS drill_holes,
       (SELECT sum(ST_NPoints(geom) - 1) FROM drill_holes) AS segments,
       (SELECT count(*) FROM ore_bodies) AS ore_bodies,
       (SELECT sum(ST_NumGeometries(geom)) FROM ore_bodies) AS triangles;

\echo
\echo '== Exact join: a plain JOIN; the planner adds the &&& index condition'
EXPLAIN (COSTS OFF)
SELECT h.hole_id, b.body_id FROM ore_bodies b JOIN drill_holes h ON ST_ExactIntersects3D(h.geom, b.geom);
SELECT exactgpu_stats_reset();
\timing on
CREATE TEMP TABLE exact_hits AS
	SELECT h.hole_id, b.body_id FROM ore_bodies b JOIN drill_holes h ON ST_ExactIntersects3D(h.geom, b.geom);
\timing off
SELECT b.name AS ore_body, count(*) AS holes_cutting_it
FROM exact_hits JOIN ore_bodies b USING (body_id)
GROUP BY b.name ORDER BY count(*) DESC, b.name LIMIT 8;
SELECT count(*) AS hole_body_pairs FROM exact_hits;
\echo 'How often exact (GMP) arithmetic was needed:'
SELECT predicates, filter_decided, exact_evaluations, round(exact_ms::numeric, 3) AS exact_ms, pair_tests
FROM exactgpu_stats();

\echo
\echo '== The batch join: all rows at once, on the GPU when one is usable'
SELECT build, gpus, detail FROM exactgpu_device_info();
\timing on
CREATE TEMP TABLE batch_hits AS
	SELECT left_id AS hole_id, right_id AS body_id
	FROM ST_ExactIntersects3DJoin('SELECT hole_id, geom FROM drill_holes', 'SELECT body_id, geom FROM ore_bodies');
\timing off
SELECT device, left_primitives AS segments, right_primitives AS triangles, candidate_pairs,
       gmp_pairs, row_pairs, round(join_ms::numeric, 1) AS engine_ms, round(total_ms::numeric, 1) AS total_ms
FROM exactgpu_last_join_stats();
SELECT (SELECT count(*) FROM (SELECT * FROM batch_hits EXCEPT SELECT * FROM exact_hits) a) +
       (SELECT count(*) FROM (SELECT * FROM exact_hits EXCEPT SELECT * FROM batch_hits) b)
       AS batch_vs_row_by_row_differences;

\echo
\echo '== Ore bodies as volumes: are they valid solids, and where do holes run inside them?'
SELECT count(*) AS bodies, count(*) FILTER (WHERE ST_ExactIsValidSolid(geom)) AS valid_solids
FROM ore_bodies;
\timing on
CREATE TEMP TABLE intercepts AS
	SELECT * FROM ST_ExactIntercepts3DJoin('SELECT hole_id AS id, geom FROM drill_holes',
	                                       'SELECT body_id AS id, geom FROM ore_bodies');
\timing off
SELECT b.name AS ore_body, count(DISTINCT i.hole_id) AS holes, round(sum(i.to_m - i.from_m)::numeric, 1) AS metres_of_ore
FROM intercepts i JOIN ore_bodies b ON b.body_id = i.solid_id
GROUP BY b.name ORDER BY 3 DESC, 1 LIMIT 8;
SELECT h.name AS hole, b.name AS ore_body, round(i.from_m::numeric, 2) AS from_m, round(i.to_m::numeric, 2) AS to_m
FROM intercepts i JOIN drill_holes h ON h.hole_id = i.hole_id JOIN ore_bodies b ON b.body_id = i.solid_id
ORDER BY i.to_m - i.from_m DESC, 1, 2 LIMIT 5;

\echo
\echo '== The same join with PostGIS ST_3DIntersects (floating point; this takes a while)'
\timing on
CREATE TEMP TABLE postgis_hits AS
	SELECT h.hole_id, b.body_id FROM ore_bodies b JOIN drill_holes h ON ST_3DIntersects(h.geom, b.geom);
\timing off
\echo 'Pairs on which PostGIS disagrees with the exact answer:'
SELECT h.name AS hole, b.name AS ore_body,
       e.hole_id IS NOT NULL AS exact, p.hole_id IS NOT NULL AS postgis,
       d.kind AS deliberate_case, d.expect_intersects AS by_construction
FROM exact_hits e FULL JOIN postgis_hits p USING (hole_id, body_id)
JOIN drill_holes h ON h.hole_id = coalesce(e.hole_id, p.hole_id)
JOIN ore_bodies b ON b.body_id = coalesce(e.body_id, p.body_id)
LEFT JOIN mine_degeneracies d ON d.hole_id = h.hole_id AND d.body_id = b.body_id
WHERE e.hole_id IS NULL OR p.hole_id IS NULL
ORDER BY h.name;
\echo 'The deliberate cases, answered by construction, and by both:'
SELECT d.kind, d.expect_intersects AS by_construction,
       EXISTS (SELECT 1 FROM exact_hits e WHERE e.hole_id = d.hole_id AND e.body_id = d.body_id) AS exactgpu,
       EXISTS (SELECT 1 FROM postgis_hits p WHERE p.hole_id = d.hole_id AND p.body_id = d.body_id) AS postgis
FROM mine_degeneracies d ORDER BY d.hole_id;
SELECT count(*) FILTER (WHERE exactgpu <> by_construction) AS exactgpu_wrong,
       count(*) FILTER (WHERE postgis <> by_construction) AS postgis_wrong,
       count(*) AS deliberate_cases
FROM (SELECT d.expect_intersects AS by_construction,
             EXISTS (SELECT 1 FROM exact_hits e WHERE e.hole_id = d.hole_id AND e.body_id = d.body_id) AS exactgpu,
             EXISTS (SELECT 1 FROM postgis_hits p WHERE p.hole_id = d.hole_id AND p.body_id = d.body_id) AS postgis
      FROM mine_degeneracies d) s;
