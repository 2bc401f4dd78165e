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
	SELECT * FROM ST_ExactInterceptPieces3DJoin('SELECT hole_id, geom FROM drill_holes',
	                                           'SELECT body_id, geom FROM ore_bodies');
\timing off
SELECT b.name AS ore_body, count(DISTINCT i.hole_id) AS holes, round(sum(i.length_m)::numeric, 1) AS metres_of_ore
FROM intercepts i JOIN ore_bodies b USING (body_id)
GROUP BY b.name ORDER BY 3 DESC, 1 LIMIT 8;
SELECT kind, entry_contact, exit_contact, count(*) AS intercepts
FROM intercepts GROUP BY 1, 2, 3 ORDER BY 4 DESC, 1, 2, 3;
SELECT h.name AS hole, b.name AS ore_body, round(i.from_m::numeric, 2) AS from_m, round(i.to_m::numeric, 2) AS to_m,
       i.entry_contact, i.exit_contact, ST_NPoints(i.piece) AS piece_vertices
FROM intercepts i JOIN drill_holes h USING (hole_id) JOIN ore_bodies b USING (body_id)
ORDER BY i.length_m DESC, 1, 2 LIMIT 5;

\echo
\echo '== Composites: assay intervals over the intercepts, exact against the midpoint rule'
-- Assays, generated here deterministically: every hole that cuts ore is
-- sampled from its collar in intervals of 1, 1.5 or 2 m (by hole). Each body
-- has its own grade (2 to 8 g/t, varying smoothly along the hole), the rock
-- around it 0.05 g/t; a sample that straddles a contact assays as the mix
-- of what it holds, as a laboratory would measure it.
CREATE TEMP TABLE assays AS
WITH holes AS (
	SELECT h.hole_id, ST_3DLength(h.geom) AS depth, 1 + (h.hole_id % 3) * 0.5 AS step
	FROM drill_holes h WHERE h.hole_id IN (SELECT hole_id FROM intercepts)),
samples AS (
	SELECT hole_id, k, k * step AS from_m, least((k + 1) * step, depth) AS to_m
	FROM holes, generate_series(0, ceil(depth / step)::int - 1) k)
SELECT s.hole_id, s.from_m, s.to_m,
       (0.05 * (s.to_m - s.from_m - coalesce(sum(greatest(0, least(s.to_m, i.to_m) - greatest(s.from_m, i.from_m))), 0))
        + coalesce(sum(greatest(0, least(s.to_m, i.to_m) - greatest(s.from_m, i.from_m))
                       * (2 + (i.body_id * 37 % 61) / 10.0) * (0.8 + 0.2 * sin(s.k * 0.7 + s.hole_id))), 0))
       / (s.to_m - s.from_m) AS au
FROM samples s LEFT JOIN intercepts i ON i.hole_id = s.hole_id AND i.from_m < s.to_m AND i.to_m > s.from_m
GROUP BY s.hole_id, s.k, s.from_m, s.to_m;
SELECT count(*) AS assay_intervals, count(DISTINCT hole_id) AS holes FROM assays;
CREATE TEMP TABLE composites AS
	SELECT i.hole_id, i.body_id, ST_ExactComposite(a.from_m, a.to_m, a.au, i.from_m, i.to_m) AS c
	FROM intercepts i
	LEFT JOIN assays a ON a.hole_id = i.hole_id AND a.from_m <= i.to_m AND a.to_m >= i.from_m
	WHERE i.kind = 'through'
	GROUP BY i.hole_id, i.body_id, i.from_m, i.to_m;
\echo 'Per body: metres and gram-metres (length x g/t) by the exact composite and by the midpoint rule'
SELECT b.name AS ore_body, count(*) AS intercepts,
       round(sum((c).length_m)::numeric, 1) AS exact_m,
       round(sum((c).length_m * (c).grade)::numeric, 1) AS exact_gram_metres,
       round(sum((c).midpoint_m)::numeric, 1) AS midpoint_m,
       round(sum((c).midpoint_m * coalesce((c).midpoint_grade, 0))::numeric, 1) AS midpoint_gram_metres
FROM composites JOIN ore_bodies b USING (body_id)
GROUP BY b.name ORDER BY 4 DESC, 1 LIMIT 8;
SELECT count(*) AS intercepts,
       round(sum((c).length_m * (c).grade)::numeric, 1) AS exact_gram_metres,
       round(sum((c).midpoint_m * coalesce((c).midpoint_grade, 0))::numeric, 1) AS midpoint_gram_metres,
       count(*) FILTER (WHERE (c).midpoint_m = 0) AS midpoint_rule_finds_nothing,
       count(*) FILTER (WHERE abs((c).midpoint_grade - (c).grade) > 0.1 * (c).grade) AS grade_off_by_over_10pct
FROM composites;
\echo 'The intercepts where the two rules differ most, as geologists read them:'
SELECT h.name AS hole, b.name AS ore_body, ST_ExactCompositeLabel(c) AS exact,
       CASE WHEN (c).midpoint_m > 0
            THEN format('%s m @ %s g/t', round((c).midpoint_m::numeric, 1), round((c).midpoint_grade::numeric, 2))
            ELSE 'nothing' END AS midpoint_rule
FROM composites JOIN drill_holes h USING (hole_id) JOIN ore_bodies b USING (body_id)
ORDER BY abs((c).length_m * (c).grade - (c).midpoint_m * coalesce((c).midpoint_grade, 0)) DESC, 1 LIMIT 6;

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

\echo
\echo '== Data for the drawing (demo/out/*.csv, drawn by demo/plot.py)'
\if :{?out}
\cd :out
\copy (SELECT body_id, name, ST_AsText(ST_ConvexHull(ST_Force2D(geom))) FROM ore_bodies) TO 'plan_bodies.csv' CSV
\copy (SELECT hole_id, ST_AsText(ST_Force2D(geom)) FROM drill_holes) TO 'plan_holes.csv' CSV
\copy (SELECT hole_id, body_id, ST_AsText(piece) FROM intercepts) TO 'pieces.csv' CSV
\copy (SELECT h.hole_id, b.name, ST_X(p), ST_Y(p), ST_Z(p), e.hole_id IS NOT NULL, d.kind FROM exact_hits e FULL JOIN postgis_hits q USING (hole_id, body_id) JOIN drill_holes h ON h.hole_id = coalesce(e.hole_id, q.hole_id) JOIN ore_bodies b ON b.body_id = coalesce(e.body_id, q.body_id) LEFT JOIN mine_degeneracies d ON d.hole_id = h.hole_id AND d.body_id = b.body_id, LATERAL (SELECT coalesce(ST_PointN(h.geom, d.hole_point), ST_StartPoint(h.geom)) AS p) pt WHERE e.hole_id IS NULL OR q.hole_id IS NULL) TO 'postgis_wrong.csv' CSV
-- the section: the vertical plane y = y0 through the body with the most metres of ore
CREATE TEMP TABLE section AS
	SELECT body_id, ST_Y(ST_Centroid(b.geom)) AS y FROM ore_bodies b
	JOIN (SELECT body_id, sum(length_m) AS m FROM intercepts GROUP BY 1) m USING (body_id)
	ORDER BY m.m DESC, body_id LIMIT 1;
\copy (SELECT b.body_id, b.name, ST_AsText(ST_ConvexHull(ST_Collect(ST_MakePoint(ST_X(d.geom), ST_Z(d.geom))))) FROM ore_bodies b, section s, ST_DumpPoints(b.geom) d WHERE abs(ST_Y(d.geom) - s.y) < 60 GROUP BY 1, 2) TO 'section_bodies.csv' CSV
\copy (SELECT h.hole_id, ST_AsText(h.geom) FROM drill_holes h, section s WHERE ST_YMin(h.geom) <= s.y + 40 AND ST_YMax(h.geom) >= s.y - 40) TO 'section_holes.csv' CSV
\copy (SELECT body_id, y FROM section) TO 'section.csv' CSV
\endif
