-- The exactgpu demo: which drill holes cut which ore bodies, exactly.
-- Run by demo/run-demo.sh on a throwaway cluster, after minegen wrote the mine.
\set ON_ERROR_STOP on
\pset footer off
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS exactgpu CASCADE;
\echo
\echo '== Loading the mine (UTM zone 19S, SRID 32719) as a geologist receives it:'
\echo '   collar and survey tables (CSV), wireframes (OBJ), a few calibration holes as coordinates'
\ir :mine/load.sql
SELECT (SELECT count(*) FROM collars) AS collars, (SELECT count(*) FROM surveys) AS surveys,
       (SELECT count(*) FROM calibration_holes) AS calibration_holes;

\echo
\echo '== Ore bodies and the fault from mesh files: ST_ExactMeshImportBodies (every coordinate bit for bit)'
\lo_import bodies.obj
\set bodies_obj :LASTOID
\lo_import faults.obj
\set faults_obj :LASTOID
\timing on
CREATE TEMP TABLE imported_bodies AS
	SELECT * FROM ST_ExactMeshImportBodies(lo_get(:bodies_obj), 'obj', 32719);
\timing off
CREATE TABLE ore_bodies (
	body_id bigint PRIMARY KEY,
	name text NOT NULL,
	geom geometry(TinZ, 32719) NOT NULL
);
INSERT INTO ore_bodies SELECT body, name, geom FROM imported_bodies ORDER BY body;
CREATE TABLE faults AS
	SELECT body AS fault_id, name, geom::geometry(TinZ, 32719) AS geom, triangles, closed, boundary_edges
	FROM ST_ExactMeshImportBodies(lo_get(:faults_obj), 'obj', 32719);
SELECT lo_unlink(:bodies_obj) + lo_unlink(:faults_obj) AS unlinked \gset
SELECT 'bodies.obj' AS file, count(*) AS bodies, sum(triangles) AS triangles, sum(vertices) AS vertices,
       count(*) FILTER (WHERE closed) AS closed, sum(boundary_edges) AS boundary_edges,
       sum(misoriented_edges) AS misoriented_edges
FROM imported_bodies
UNION ALL
SELECT 'faults.obj', count(*), sum(triangles), NULL, count(*) FILTER (WHERE closed), sum(boundary_edges), NULL
FROM faults;

\echo
\echo '== Drill holes: collars and surveys desurveyed by minimum curvature (ST_ExactDesurvey), M = depth'
CREATE TABLE drill_holes (
	hole_id bigint PRIMARY KEY,
	name text NOT NULL,
	geom geometry(LineStringZM, 32719) NOT NULL
);
\timing on
INSERT INTO drill_holes
	SELECT c.hole_id, c.name,
	       ST_ExactDesurvey(ST_SetSRID(ST_MakePoint(c.easting, c.northing, c.elevation), 32719),
	                        array_agg(s.depth ORDER BY s.depth), array_agg(s.azimuth ORDER BY s.depth),
	                        array_agg(s.dip ORDER BY s.depth), 'minimum_curvature', c.end_depth)
	FROM collars c JOIN surveys s USING (hole_id)
	GROUP BY c.hole_id;
\timing off
-- The deliberate holes sit on a body's vertex or face, or one ulp off, to
-- the last bit; no survey puts them there (its sines and cosines round), so
-- they come as coordinates, M their 3D length.
INSERT INTO drill_holes SELECT hole_id, name, geom FROM calibration_holes;
\echo 'One hole: its surveys, and the trace (a vertex per station; M is the depth as surveyed):'
SELECT c.name AS hole, count(*) AS surveys, c.end_depth,
       ST_NPoints(h.geom) AS trace_vertices, ST_M(ST_EndPoint(h.geom)) AS toe_m,
       round(ST_3DLength(h.geom)::numeric, 4) AS chord_length_m,
       ST_AsText(ST_EndPoint(h.geom), 3) AS toe
FROM collars c JOIN surveys s USING (hole_id) JOIN drill_holes h USING (hole_id)
GROUP BY c.hole_id, c.name, c.end_depth, h.geom
ORDER BY c.end_depth DESC, c.hole_id LIMIT 1;
CREATE INDEX drill_holes_geom_idx ON drill_holes USING gist (geom gist_geometry_ops_nd);
CREATE INDEX ore_bodies_geom_idx ON ore_bodies USING gist (geom gist_geometry_ops_nd);
\cd :repo
ANALYZE drill_holes;
ANALYZE ore_bodies;
ANALYZE mine_degeneracies;
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
	SELECT h.hole_id, ST_M(ST_EndPoint(h.geom)) AS depth, 1 + (h.hole_id % 3) * 0.5 AS step
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
\echo '== Holes crossing the fault, an open surface (ST_ExactCrossings3D; depths from M)'
\timing on
CREATE TEMP TABLE fault_crossings AS
	SELECT h.hole_id, f.fault_id, c.*
	FROM drill_holes h JOIN faults f ON h.geom &&& f.geom
	CROSS JOIN LATERAL ST_ExactCrossings3D(h.geom, f.geom) c;
\timing off
SELECT f.name AS fault, c.kind, count(*) AS crossings, count(DISTINCT c.hole_id) AS holes,
       round(min(c.depth_m)::numeric, 1) AS shallowest_m, round(max(c.depth_m)::numeric, 1) AS deepest_m
FROM fault_crossings c JOIN faults f USING (fault_id)
GROUP BY 1, 2 ORDER BY 1, 2;
\echo 'Ore intercepts the fault cuts (a crossing between the intercept''s from and to):'
SELECT h.name AS hole, b.name AS ore_body, round(i.from_m::numeric, 2) AS from_m, round(i.to_m::numeric, 2) AS to_m,
       round(c.depth_m::numeric, 2) AS fault_at_m, c.kind,
       ST_AsText(c.point, 2) AS crossing_point
FROM fault_crossings c
JOIN intercepts i ON i.hole_id = c.hole_id AND c.depth_m > i.from_m AND c.depth_m < i.to_m
JOIN drill_holes h ON h.hole_id = c.hole_id JOIN ore_bodies b ON b.body_id = i.body_id
ORDER BY h.name, c.depth_m LIMIT 6;

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
\echo '== A section: the vertical east-west plane through the body with the most metres of ore (ST_ExactSection)'
-- The section line spans the drilled area at that body's northing, rounded
-- to the metre; the cut is in section coordinates (x along the line from its
-- west end, y elevation).
CREATE TEMP TABLE section AS
	SELECT s.body_id, s.y, e.x0, e.x1,
	       ST_SetSRID(ST_MakeLine(ST_MakePoint(e.x0, s.y), ST_MakePoint(e.x1, s.y)), 32719) AS line
	FROM (SELECT body_id, round(ST_Y(ST_Centroid(b.geom))) AS y FROM ore_bodies b
	      JOIN (SELECT body_id, sum(length_m) AS m FROM intercepts GROUP BY 1) m USING (body_id)
	      ORDER BY m.m DESC, body_id LIMIT 1) s,
	     (SELECT floor(ST_XMin(x)) - 20 AS x0, ceil(ST_XMax(x)) + 20 AS x1
	      FROM (SELECT ST_Extent(geom) AS x FROM drill_holes) d) e;
\timing on
CREATE TEMP TABLE section_cut AS
	SELECT 'body' AS what, b.body_id AS id, b.name, ST_ExactSection(b.geom, s.line, true) AS cut
	FROM ore_bodies b, section s
	UNION ALL
	SELECT 'fault', f.fault_id, f.name, ST_ExactSection(f.geom, s.line, true) FROM faults f, section s
	UNION ALL
	SELECT 'hole', h.hole_id, h.name, ST_ExactSection(h.geom, s.line, true) FROM drill_holes h, section s;
\timing off
DELETE FROM section_cut WHERE ST_IsEmpty(cut);
SELECT format('LINESTRING(%s %s, %s %s)', x0, y, x1, y) AS section_line, round(x1 - x0) AS length_m
FROM section;
\echo 'Bodies cut: the cut of a closed body is closed loops, exactly (shared edges give the same rounded point)'
SELECT c.name AS ore_body, ST_NumGeometries(c.cut) AS cut_segments, ST_NumGeometries(l.loops) AS loops,
       bool_and(ST_IsClosed(p.geom)) AS all_closed, round(ST_Area(ST_BuildArea(l.loops))::numeric) AS area_m2
FROM section_cut c, LATERAL (SELECT ST_Multi(ST_LineMerge(c.cut)) AS loops) l, LATERAL ST_Dump(l.loops) p
WHERE c.what = 'body'
GROUP BY c.name, c.cut, l.loops ORDER BY 5 DESC, 1;
SELECT count(*) FILTER (WHERE what = 'hole') AS holes_piercing_the_plane,
       sum(ST_NumGeometries(cut)) FILTER (WHERE what = 'hole') AS piercing_points,
       sum(ST_NumGeometries(cut)) FILTER (WHERE what = 'fault') AS fault_trace_segments
FROM section_cut;

\echo
\echo '== Data for the drawings'
\if :{?out}
\cd :out
-- The section as SVG, from SQL: elevation up (ST_AsSVG writes -y), one
-- metre a unit; holes within 40 m of the plane projected onto it (as mining
-- packages draw them: ST_Affine makes northing the third coordinate, which
-- ST_LocateBetweenElevations clips), the intercepts on them in red, the
-- exact cut of the bodies and the fault, and where holes pierce the plane.
CREATE TEMP TABLE section_window AS
	SELECT 'hole' AS what, h.hole_id AS id,
	       ST_CollectionExtract(ST_Force2D(ST_LocateBetweenElevations(
	           ST_Affine(ST_Force3DZ(h.geom), 1, 0, 0, 0, 0, 1, 0, 1, 0, -s.x0, 0, 0), s.y - 40, s.y + 40)), 2) AS g
	FROM drill_holes h, section s
	WHERE ST_YMin(h.geom) <= s.y + 40 AND ST_YMax(h.geom) >= s.y - 40
	UNION ALL
	SELECT 'piece', i.hole_id,
	       ST_CollectionExtract(ST_Force2D(ST_LocateBetweenElevations(
	           ST_Affine(ST_Force3DZ(i.piece), 1, 0, 0, 0, 0, 1, 0, 1, 0, -s.x0, 0, 0), s.y - 40, s.y + 40)), 2)
	FROM intercepts i, section s
	WHERE ST_YMin(i.piece) <= s.y + 40 AND ST_YMax(i.piece) >= s.y - 40;
DELETE FROM section_window WHERE ST_IsEmpty(g);
CREATE TEMP TABLE svg_frame AS
	SELECT floor(ST_XMin(e)) - 60 AS v_xmin, ceil(ST_XMax(e)) + 20 AS v_xmax, floor(-ST_YMax(e)) - 50 AS v_top, ceil(-ST_YMin(e)) + 60 AS v_bottom
	FROM (SELECT ST_Extent(g) AS e FROM (SELECT cut AS g FROM section_cut WHERE what <> 'fault'
	                                     UNION ALL SELECT g FROM section_window) a) b;
SELECT line FROM (
	-- the frame holds the bodies' cut and the holes; the fault runs out of it
	SELECT 0 AS layer, 0 AS k, format('<svg xmlns="http://www.w3.org/2000/svg" viewBox="%s %s %s %s" width="%s" height="%s" font-family="sans-serif">',
	       f.v_xmin, f.v_top, f.v_xmax - f.v_xmin, f.v_bottom - f.v_top, 1400, round(1400 * (f.v_bottom - f.v_top) / (f.v_xmax - f.v_xmin))) AS line
	FROM svg_frame f
	UNION ALL
	SELECT 1, 0, format('<rect x="%s" y="%s" width="%s" height="%s" fill="white"/>', f.v_xmin, f.v_top, f.v_xmax - f.v_xmin, f.v_bottom - f.v_top)
	FROM svg_frame f
	UNION ALL
	SELECT 2, 0, format('<text x="%s" y="%s" font-size="16">Section %s N (UTM 19S), looking north: exact cut by ST_ExactSection; holes within 40 m projected</text>',
	       f.v_xmin + 10, f.v_top + 22, s.y)
	FROM svg_frame f, section s
	UNION ALL
	SELECT 3, z, format('<text x="%s" y="%s" font-size="11" fill="#555">%s m</text><line x1="%s" y1="%s" x2="%s" y2="%s" stroke="#ddd" vector-effect="non-scaling-stroke"/>',
	       f.v_xmin + 2, -z + 4, z, f.v_xmin + 45, -z, f.v_xmax, -z)
	FROM svg_frame f, generate_series((ceil(-f.v_bottom / 100) * 100)::int, (floor(-f.v_top / 100) * 100)::int, 100) z
	UNION ALL
	SELECT 4, id, format('<path d="%s" fill="none" stroke="#999" stroke-width="0.7" vector-effect="non-scaling-stroke"/>', ST_AsSVG(g, 0, 2))
	FROM section_window WHERE what = 'hole'
	UNION ALL
	SELECT 5, id, format('<path d="%s" fill="#f0a040" fill-opacity="0.55" fill-rule="evenodd" stroke="#8b4513" stroke-width="1" vector-effect="non-scaling-stroke"><title>%s</title></path>',
	       ST_AsSVG(ST_LineMerge(cut), 0, 2), name)
	FROM section_cut WHERE what = 'body'
	UNION ALL
	SELECT 6, id, format('<text x="%s" y="%s" font-size="12" fill="#8b4513" text-anchor="middle">%s</text>',
	       round(((ST_XMin(cut) + ST_XMax(cut)) / 2)::numeric, 1), round((-ST_YMax(cut) - 4)::numeric, 1), name)
	FROM section_cut WHERE what = 'body'
	UNION ALL
	SELECT 7, id, format('<path d="%s" fill="none" stroke="#1f3b8c" stroke-width="1.5" stroke-dasharray="8 4" vector-effect="non-scaling-stroke"><title>%s</title></path>',
	       ST_AsSVG(cut, 0, 2), name)
	FROM section_cut WHERE what = 'fault'
	UNION ALL
	SELECT 8, id, format('<path d="%s" fill="none" stroke="#d62728" stroke-width="2.5" vector-effect="non-scaling-stroke"/>', ST_AsSVG(g, 0, 2))
	FROM section_window WHERE what = 'piece'
	UNION ALL
	SELECT 9, c.id, format('<circle cx="%s" cy="%s" r="3"><title>%s</title></circle>', round(ST_X(p.geom)::numeric, 2), round(-ST_Y(p.geom)::numeric, 2), c.name)
	FROM section_cut c, ST_DumpPoints(c.cut) p WHERE c.what = 'hole'
	UNION ALL
	SELECT 10, 0, format('<text x="%s" y="%s" font-size="12">metres along the section from %s E; orange: ore bodies cut; dashed blue: fault; red: intercepts; dots: holes piercing the plane</text>',
	       f.v_xmin + 10, f.v_bottom - 12, s.x0)
	FROM svg_frame f, section s
	UNION ALL
	SELECT 11, 0, '</svg>'
) svg ORDER BY layer, k
\g (format=unaligned tuples_only=on) section.svg
\echo 'The section is drawn in' :out/section.svg
\copy (SELECT body_id, name, ST_AsText(ST_ConvexHull(ST_Force2D(geom))) FROM ore_bodies) TO 'plan_bodies.csv' CSV
\copy (SELECT hole_id, ST_AsText(ST_Force2D(geom)) FROM drill_holes) TO 'plan_holes.csv' CSV
\copy (SELECT hole_id, body_id, ST_AsText(piece) FROM intercepts) TO 'pieces.csv' CSV
\copy (SELECT h.hole_id, b.name, ST_X(p), ST_Y(p), ST_Z(p), e.hole_id IS NOT NULL, d.kind FROM exact_hits e FULL JOIN postgis_hits q USING (hole_id, body_id) JOIN drill_holes h ON h.hole_id = coalesce(e.hole_id, q.hole_id) JOIN ore_bodies b ON b.body_id = coalesce(e.body_id, q.body_id) LEFT JOIN mine_degeneracies d ON d.hole_id = h.hole_id AND d.body_id = b.body_id, LATERAL (SELECT coalesce(ST_PointN(h.geom, d.hole_point), ST_StartPoint(h.geom)) AS p) pt WHERE e.hole_id IS NULL OR q.hole_id IS NULL) TO 'postgis_wrong.csv' CSV
-- the section for demo/plot.py, in section coordinates
\copy (SELECT body_id, y, x0 FROM section) TO 'section.csv' CSV
\copy (SELECT id, name, ST_AsText(ST_LineMerge(cut)) FROM section_cut WHERE what = 'body') TO 'section_bodies.csv' CSV
\copy (SELECT id, name, ST_AsText(cut) FROM section_cut WHERE what = 'fault') TO 'section_faults.csv' CSV
\copy (SELECT what, id, ST_AsText(g) FROM section_window) TO 'section_window.csv' CSV
\endif
