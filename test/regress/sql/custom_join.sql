-- Plain SQL joins on ST_ExactIntersects3D / ST_ExactIntersects run as one
-- batch join (Custom Scan ExactJoin). Every form must return exactly the
-- rows of the same query run row by row (exactgpu.enable_batch_join = off)
-- and the pairs of the batch SRF.
-- ST_MakeSolid is postgis_sfcgal's: loaded if absent, and then dropped at the end
SELECT NOT EXISTS (SELECT FROM pg_extension WHERE extname = 'postgis_sfcgal') AS cj_own_sfcgal \gset
\if :cj_own_sfcgal
CREATE EXTENSION postgis_sfcgal;
\endif
SET exactgpu.device = 'cpu';
-- What the batch join does, not when the planner takes it (custom_join_cost,
-- bench/sql/cost_model.sh): on these few hundred rows both plans take under
-- a millisecond (batched 0.25, row by row 0.47 on the 2-core build machine,
-- where the planner expects 5 of the 75 pairs and takes the nested loop);
-- nested loops off, the plans below are the batch join's.
SET enable_nestloop = off;
-- Holes with text keys and columns of several types; closed tetrahedra as
-- bodies (one flagged solid); holes end on faces, pass through vertices and
-- along edges; a NULL and an empty geometry on each side.
CREATE TABLE cj_holes (id bigint, name text, depth numeric, drilled date, tags text[], geom geometry);
CREATE TABLE cj_bodies (id int, name varchar(10), grade float8, info jsonb, geom geometry);
INSERT INTO cj_holes
	SELECT i * 20 + j, format('MXDD%s', lpad((i * 20 + j)::text, 3, '0')), i + j / 10.0,
		date '2026-01-01' + i * 20 + j, ARRAY[format('row%s', i), format('col%s', j)],
		ST_MakeLine(ST_MakePoint(i * 5 + 0.5, j * 5 + 0.5, 10), ST_MakePoint(i * 5 + 0.5, j * 5 + 0.5, -1 + (i % 3)))
	FROM generate_series(0, 19) i, generate_series(0, 19) j;
INSERT INTO cj_holes VALUES
	(1000, 'MXDD1000', 1, NULL, NULL, 'LINESTRING Z(0 0 5, 0 0 -5)'),     -- through a vertex of body 0
	(1001, 'MXDD1001', 2, NULL, NULL, 'LINESTRING Z(1 0 -1, 2 0 -1)'),    -- along an edge of body 0
	(1002, 'MXDD1002', 3, NULL, NULL, 'LINESTRING Z(1 1 5, 1 1 -1)'),     -- ends exactly on its base
	(1003, 'MXDD1003', 4, NULL, NULL, ST_MakeLine(ST_MakePoint(1, 1, 5), ST_MakePoint(1, 1, -1 + 2^(-40)))),  -- just above
	(1004, 'MXDD1004', 5, NULL, NULL, NULL),
	(1005, 'MXDD1005', 6, NULL, NULL, 'LINESTRING Z EMPTY'),
	(1006, 'MXDD1006', 7, NULL, NULL, 'LINESTRING Z(31 31 -0.5, 31.2 31.2 -0.4)');  -- inside body 33 only
INSERT INTO cj_bodies
	SELECT i * 10 + j, format('B%s', i * 10 + j), i * 0.5 + j, jsonb_build_object('i', i, 'j', j),
		ST_GeomFromText(format(
		'TIN Z(((%1$s %2$s -1, %3$s %2$s -1, %1$s %4$s -1, %1$s %2$s -1)), ((%1$s %2$s -1, %1$s %2$s 1, %3$s %2$s -1, %1$s %2$s -1)), ((%1$s %2$s -1, %1$s %4$s -1, %1$s %2$s 1, %1$s %2$s -1)), ((%3$s %2$s -1, %1$s %2$s 1, %1$s %4$s -1, %3$s %2$s -1)))',
		i * 10, j * 10, i * 10 + 3, j * 10 + 3))
	FROM generate_series(0, 9) i, generate_series(0, 9) j;
UPDATE cj_bodies SET geom = ST_MakeSolid(geom) WHERE id = 33;
INSERT INTO cj_bodies VALUES (500, 'NULLBODY', 1, NULL, NULL), (501, 'EMPTY', 1, NULL, 'TIN Z EMPTY');
CREATE INDEX ON cj_bodies USING gist (geom gist_geometry_ops_nd);
CREATE INDEX ON cj_holes USING gist (geom gist_geometry_ops_nd);
ANALYZE cj_holes;
ANALYZE cj_bodies;

-- The plan: the batch join over two ordinary scans, each with its filter.
EXPLAIN (COSTS OFF)
SELECT h.name, b.name FROM cj_holes h JOIN cj_bodies b ON ST_ExactIntersects3D(h.geom, b.geom);
EXPLAIN (COSTS OFF)
SELECT h.name, b.name, b.grade FROM cj_holes h JOIN cj_bodies b ON ST_ExactIntersects3D(b.geom, h.geom)
WHERE h.depth < 15 AND b.grade > 2 AND h.name <> b.name;
-- the GUC turns it off, as enable_hashjoin does
SET exactgpu.enable_batch_join = off;
EXPLAIN (COSTS OFF)
SELECT h.name, b.name FROM cj_holes h JOIN cj_bodies b ON ST_ExactIntersects3D(h.geom, b.geom);

-- The row-by-row answers, with every column.
CREATE TEMP TABLE cj_rbr AS
	SELECT h.id AS hid, h.name AS hole, h.depth, h.drilled, h.tags, b.id AS bid, b.name AS body, b.grade, b.info
	FROM cj_holes h JOIN cj_bodies b ON ST_ExactIntersects3D(h.geom, b.geom);
CREATE TEMP TABLE cj_rbr_filtered AS
	SELECT h.name AS hole, b.name AS body, b.grade FROM cj_holes h JOIN cj_bodies b ON ST_ExactIntersects3D(b.geom, h.geom)
	WHERE h.depth < 15 AND b.grade > 2 AND h.name <> b.name;
RESET exactgpu.enable_batch_join;
SELECT count(*) AS pairs, count(*) FILTER (WHERE hid >= 1000) AS special FROM cj_rbr;
SELECT hole, body FROM cj_rbr WHERE hid >= 1000 ORDER BY hole COLLATE "C", body COLLATE "C";

-- Plain JOIN = row by row, every column of both sides.
SELECT count(*) AS differs FROM (
	(SELECT h.id, h.name, h.depth, h.drilled, h.tags, b.id, b.name, b.grade, b.info
	 FROM cj_holes h JOIN cj_bodies b ON ST_ExactIntersects3D(h.geom, b.geom)
	 EXCEPT ALL SELECT * FROM cj_rbr)
	UNION ALL
	(SELECT * FROM cj_rbr EXCEPT ALL
	 SELECT h.id, h.name, h.depth, h.drilled, h.tags, b.id, b.name, b.grade, b.info
	 FROM cj_holes h JOIN cj_bodies b ON ST_ExactIntersects3D(h.geom, b.geom))) d;
-- ... with filters on both sides and a further join clause, arguments swapped
SELECT count(*) AS filtered_differs FROM (
	(SELECT h.name, b.name, b.grade FROM cj_holes h JOIN cj_bodies b ON ST_ExactIntersects3D(b.geom, h.geom)
	 WHERE h.depth < 15 AND b.grade > 2 AND h.name <> b.name
	 EXCEPT ALL SELECT * FROM cj_rbr_filtered)
	UNION ALL
	(SELECT * FROM cj_rbr_filtered EXCEPT ALL
	 SELECT h.name, b.name, b.grade FROM cj_holes h JOIN cj_bodies b ON ST_ExactIntersects3D(b.geom, h.geom)
	 WHERE h.depth < 15 AND b.grade > 2 AND h.name <> b.name)) d;
-- ... and = the batch SRF
SELECT count(*) AS srf_differs FROM (
	(SELECT hid, bid::bigint FROM cj_rbr
	 EXCEPT SELECT * FROM ST_ExactIntersects3DJoin('SELECT id, geom FROM cj_holes', 'SELECT id, geom FROM cj_bodies'))
	UNION ALL
	(SELECT * FROM ST_ExactIntersects3DJoin('SELECT id, geom FROM cj_holes', 'SELECT id, geom FROM cj_bodies')
	 EXCEPT SELECT hid, bid::bigint FROM cj_rbr)) d;
-- the plain join reports to exactgpu_last_join_stats() too
SELECT count(*) FROM cj_holes h JOIN cj_bodies b ON ST_ExactIntersects3D(h.geom, b.geom);
SELECT semantics, left_rows, right_rows, row_pairs, contained_pairs FROM exactgpu_last_join_stats();

-- EXPLAIN ANALYZE: the engine's counts (times left out: they vary).
CREATE FUNCTION pg_temp.explain_keys(q text) RETURNS SETOF text LANGUAGE plpgsql AS $$
DECLARE
	plan jsonb;
BEGIN
	EXECUTE 'EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF, FORMAT JSON) ' || q INTO plan;
	plan := plan -> 0 -> 'Plan';
	WHILE plan ->> 'Node Type' <> 'Custom Scan' LOOP
		plan := plan -> 'Plans' -> 0;
	END LOOP;
	RETURN QUERY SELECT k || ': ' || CASE WHEN k IN ('Candidates', 'Primitive Hits', 'GMP Pairs', 'Waves', 'Splits')
		THEN jsonb_typeof(plan -> k) ELSE plan ->> k END
		FROM unnest(ARRAY['Custom Plan Provider', 'Exact Predicate', 'Device', 'Outer Rows Read', 'Inner Rows Read',
			'Candidates', 'Primitive Hits', 'GMP Pairs', 'Contained Pairs', 'Waves', 'Splits', 'Actual Rows']) k;
END $$;
SELECT pg_temp.explain_keys('SELECT h.name, b.name FROM cj_holes h JOIN cj_bodies b ON ST_ExactIntersects3D(h.geom, b.geom)');

-- LIMIT stops the streaming; the rows it gets are joined rows.
EXPLAIN (COSTS OFF)
SELECT h.name, b.name FROM cj_holes h JOIN cj_bodies b ON ST_ExactIntersects3D(h.geom, b.geom) LIMIT 5;
SELECT count(*) AS limited, bool_and((hole, body) IN (SELECT hole, body FROM cj_rbr)) AS all_joined
FROM (SELECT h.name AS hole, b.name AS body FROM cj_holes h JOIN cj_bodies b ON ST_ExactIntersects3D(h.geom, b.geom) LIMIT 5) l;

-- Prepared statements, through the custom plans and then the generic one.
PREPARE cj_q(float8, text) AS
	SELECT count(*) FROM cj_holes h JOIN cj_bodies b ON ST_ExactIntersects3D(h.geom, b.geom)
	WHERE b.grade > $1 AND h.name >= $2;
EXECUTE cj_q(0, 'MXDD');
EXECUTE cj_q(1, 'MXDD');
EXECUTE cj_q(2, 'MXDD1');
EXECUTE cj_q(3, 'MXDD');
EXECUTE cj_q(4, 'MXDD2');
EXECUTE cj_q(0, 'MXDD');
EXECUTE cj_q(0, 'MXDD');
EXECUTE cj_q(-1, 'A');
SELECT count(*) AS row_by_row FROM cj_rbr WHERE grade > -1 AND hole >= 'A';
SET plan_cache_mode = force_generic_plan;
EXPLAIN (COSTS OFF) EXECUTE cj_q(0, 'MXDD');
EXECUTE cj_q(2, 'MXDD1');
SELECT count(*) AS row_by_row FROM cj_rbr WHERE grade > 2 AND hole >= 'MXDD1';
RESET plan_cache_mode;
DEALLOCATE cj_q;

-- Inside a CTE and a subquery.
WITH j AS (SELECT h.name AS hole, b.name AS body FROM cj_holes h JOIN cj_bodies b ON ST_ExactIntersects3D(h.geom, b.geom))
SELECT count(*) AS cte, count(DISTINCT hole) AS holes FROM j;
SELECT count(*) AS subquery FROM (SELECT b.name FROM cj_bodies b JOIN cj_holes h ON ST_ExactIntersects3D(h.geom, b.geom) WHERE h.depth > 3) s;
SELECT count(*) AS row_by_row FROM cj_rbr WHERE depth > 3;

-- An argument that is an expression, a side that is a subquery with a
-- computed geometry, and a side that is a materialized CTE.
EXPLAIN (COSTS OFF)
WITH bodies AS MATERIALIZED (SELECT name, grade, geom FROM cj_bodies WHERE grade < 9)
SELECT h.name, b.name FROM (SELECT name, ST_Translate(geom, 0, 0, 0) AS g FROM cj_holes WHERE depth < 12) h
JOIN bodies b ON ST_ExactIntersects3D(ST_Force3D(h.g), b.geom);
SELECT count(*) AS expression_differs FROM (
	(WITH bodies AS MATERIALIZED (SELECT name, grade, geom FROM cj_bodies WHERE grade < 9)
	 SELECT h.name, b.name FROM (SELECT name, ST_Translate(geom, 0, 0, 0) AS g FROM cj_holes WHERE depth < 12) h
	 JOIN bodies b ON ST_ExactIntersects3D(ST_Force3D(h.g), b.geom)
	 EXCEPT ALL SELECT hole, body FROM cj_rbr WHERE grade < 9 AND depth < 12)
	UNION ALL
	(SELECT hole, body FROM cj_rbr WHERE grade < 9 AND depth < 12 EXCEPT ALL
	 (WITH bodies AS MATERIALIZED (SELECT name, grade, geom FROM cj_bodies WHERE grade < 9)
	  SELECT h.name, b.name FROM (SELECT name, ST_Translate(geom, 0, 0, 0) AS g FROM cj_holes WHERE depth < 12) h
	  JOIN bodies b ON ST_ExactIntersects3D(ST_Force3D(h.g), b.geom)))) d;
SELECT count(*) AS row_by_row FROM cj_rbr WHERE grade < 9 AND depth < 12;

-- Geometries stored out of line (TOAST): read as pointers, detoasted by the
-- parallel reader; the same rows as row by row.
CREATE TABLE cj_long (name text, geom geometry);
ALTER TABLE cj_long ALTER COLUMN geom SET STORAGE EXTERNAL;
INSERT INTO cj_long SELECT format('L%s', k), ST_MakeLine(ARRAY(
	SELECT ST_MakePoint(k * 7 + i * 0.01, k * 3 + i * 0.02, 5 - i * 0.003) FROM generate_series(0, 2999) i))
	FROM generate_series(0, 11) k;
ANALYZE cj_long;
SELECT count(*) AS toasted FROM cj_long WHERE pg_column_size(geom) > 60000;
SET exactgpu.enable_batch_join = off;
CREATE TEMP TABLE cj_rbr_long AS SELECT l.name AS line, b.name AS body FROM cj_long l JOIN cj_bodies b ON ST_ExactIntersects3D(l.geom, b.geom);
RESET exactgpu.enable_batch_join;
SELECT count(*) AS long_pairs FROM cj_rbr_long;
SELECT count(*) AS long_differs FROM (
	(SELECT l.name, b.name FROM cj_long l JOIN cj_bodies b ON ST_ExactIntersects3D(l.geom, b.geom) EXCEPT ALL TABLE cj_rbr_long)
	UNION ALL
	(TABLE cj_rbr_long EXCEPT ALL SELECT l.name, b.name FROM cj_long l JOIN cj_bodies b ON ST_ExactIntersects3D(l.geom, b.geom))) d;
EXPLAIN (COSTS OFF) SELECT l.name, b.name FROM cj_long l JOIN cj_bodies b ON ST_ExactIntersects3D(l.geom, b.geom);
DROP TABLE cj_long;

-- Rescans: in a correlated subquery (a parameter changes: both sides read
-- again) and on a nested loop's inner side (no parameter: the rows again).
-- One body a grade: the planner probes the holes' index per body (0.4 ms,
-- against 0.9 ms batched); nested loops are off, to test the batch's rescans.
EXPLAIN (COSTS OFF)
SELECT b0.name, (SELECT count(*) FROM cj_holes h JOIN cj_bodies b ON ST_ExactIntersects3D(h.geom, b.geom) WHERE b.grade = b0.grade)
FROM cj_bodies b0 WHERE b0.id IN (0, 11, 33, 500);
SELECT b0.name, (SELECT count(*) FROM cj_holes h JOIN cj_bodies b ON ST_ExactIntersects3D(h.geom, b.geom) WHERE b.grade = b0.grade) AS batch,
	(SELECT count(*) FROM cj_rbr r WHERE r.grade = b0.grade) AS row_by_row
FROM cj_bodies b0 WHERE b0.id IN (0, 11, 33, 500) ORDER BY b0.name COLLATE "C";
-- the parameter in a clause of the join itself: the children do not change
EXPLAIN (COSTS OFF)
SELECT b0.name, (SELECT count(*) FROM cj_holes h JOIN cj_bodies b ON ST_ExactIntersects3D(h.geom, b.geom) WHERE h.depth + b.grade > b0.grade)
FROM cj_bodies b0 WHERE b0.id IN (0, 11, 33, 500);
SELECT b0.name, (SELECT count(*) FROM cj_holes h JOIN cj_bodies b ON ST_ExactIntersects3D(h.geom, b.geom) WHERE h.depth + b.grade > b0.grade) AS batch,
	(SELECT count(*) FROM cj_rbr r WHERE r.depth + r.grade > b0.grade) AS row_by_row
FROM cj_bodies b0 WHERE b0.id IN (0, 11, 33, 500) ORDER BY b0.name COLLATE "C";

-- EXISTS and NOT EXISTS: semi and anti joins; a hole without geometry has
-- no body, so NOT EXISTS keeps it.
EXPLAIN (COSTS OFF)
SELECT h.name FROM cj_holes h WHERE EXISTS (SELECT FROM cj_bodies b WHERE ST_ExactIntersects3D(h.geom, b.geom));
SELECT count(*) AS semi_differs FROM (
	(SELECT h.name FROM cj_holes h WHERE EXISTS (SELECT FROM cj_bodies b WHERE ST_ExactIntersects3D(h.geom, b.geom))
	 EXCEPT ALL SELECT DISTINCT hole FROM cj_rbr)
	UNION ALL
	(SELECT DISTINCT hole FROM cj_rbr EXCEPT ALL
	 SELECT h.name FROM cj_holes h WHERE EXISTS (SELECT FROM cj_bodies b WHERE ST_ExactIntersects3D(h.geom, b.geom)))) d;
SELECT count(*) AS anti, count(*) FILTER (WHERE h.geom IS NULL) AS without_geometry
FROM cj_holes h WHERE NOT EXISTS (SELECT FROM cj_bodies b WHERE ST_ExactIntersects3D(h.geom, b.geom));
SELECT count(*) AS row_by_row FROM cj_holes WHERE name NOT IN (SELECT hole FROM cj_rbr);

-- 2D: ST_ExactIntersects over polygons (areas: containment counts).
CREATE TABLE cj_parcels (code text, geom geometry);
CREATE TABLE cj_wells (code text, geom geometry);
INSERT INTO cj_parcels SELECT format('P%s-%s', i, j), ST_MakeEnvelope(i * 10, j * 10, i * 10 + 10, j * 10 + 10)
	FROM generate_series(0, 9) i, generate_series(0, 9) j;
INSERT INTO cj_wells SELECT format('W%s', k), ST_MakePoint((k * 7) % 101, (k * 13) % 103) FROM generate_series(0, 999) k;
ANALYZE cj_parcels;
ANALYZE cj_wells;
EXPLAIN (COSTS OFF)
SELECT p.code, w.code FROM cj_parcels p JOIN cj_wells w ON ST_ExactIntersects(p.geom, w.geom);
SET exactgpu.enable_batch_join = off;
CREATE TEMP TABLE cj_rbr2d AS SELECT p.code AS parcel, w.code AS well FROM cj_parcels p JOIN cj_wells w ON ST_ExactIntersects(p.geom, w.geom);
RESET exactgpu.enable_batch_join;
SELECT count(*) AS pairs_2d FROM cj_rbr2d;
SELECT count(*) AS differs_2d FROM (
	(SELECT p.code, w.code FROM cj_parcels p JOIN cj_wells w ON ST_ExactIntersects(p.geom, w.geom) EXCEPT ALL SELECT * FROM cj_rbr2d)
	UNION ALL
	(SELECT * FROM cj_rbr2d EXCEPT ALL SELECT p.code, w.code FROM cj_parcels p JOIN cj_wells w ON ST_ExactIntersects(p.geom, w.geom))) d;

-- In a parallel plan: the node is parallel restricted, so it runs once, in
-- the leader (a worker would not share the join with the others).
SET force_parallel_mode = on;
EXPLAIN (COSTS OFF) SELECT h.name, b.name FROM cj_holes h JOIN cj_bodies b ON ST_ExactIntersects3D(h.geom, b.geom);
SELECT count(*) AS in_worker FROM cj_holes h JOIN cj_bodies b ON ST_ExactIntersects3D(h.geom, b.geom);
RESET force_parallel_mode;

-- Mixed SRIDs are an error, as row by row.
CREATE TABLE cj_srid (name text, geom geometry);
INSERT INTO cj_srid SELECT format('S%s', k), ST_SetSRID(ST_MakePoint(k, k, 0), 4326) FROM generate_series(0, 99) k;
ANALYZE cj_srid;
SELECT count(*) FROM cj_srid s JOIN cj_bodies b ON ST_ExactIntersects3D(s.geom, b.geom);
SET exactgpu.enable_batch_join = off;
SELECT count(*) FROM cj_srid s JOIN cj_bodies b ON ST_ExactIntersects3D(s.geom, b.geom);
RESET exactgpu.enable_batch_join;

-- Cancel: statement_timeout stops a long join within 1 s.
CREATE TABLE cj_crowd (id int, geom geometry);
INSERT INTO cj_crowd SELECT i, ST_MakeLine(ARRAY[
	ST_MakePoint(random(), random(), random()), ST_MakePoint(random(), random(), random()),
	ST_MakePoint(random(), random(), random()), ST_MakePoint(random(), random(), random())])
	FROM generate_series(1, 20000) i;
ANALYZE cj_crowd;
CREATE FUNCTION pg_temp.cancel_latency() RETURNS text LANGUAGE plpgsql AS $$
DECLARE
	t0 timestamptz := clock_timestamp();
	n bigint;
BEGIN
	SELECT count(*) INTO n FROM cj_crowd a JOIN cj_crowd b ON ST_ExactIntersects3D(a.geom, b.geom);
	RETURN 'not canceled';
EXCEPTION WHEN query_canceled THEN
	RETURN CASE WHEN clock_timestamp() - t0 < interval '1.5 s' THEN 'canceled within 1 s of the timeout'
		ELSE 'canceled late: ' || (clock_timestamp() - t0)::text END;
END $$;
EXPLAIN (COSTS OFF) SELECT count(*) FROM cj_crowd a JOIN cj_crowd b ON ST_ExactIntersects3D(a.geom, b.geom);
SET statement_timeout = '500ms';
SELECT pg_temp.cancel_latency();
RESET statement_timeout;

RESET exactgpu.device;
RESET enable_nestloop;
DROP TABLE cj_holes, cj_bodies, cj_parcels, cj_wells, cj_srid, cj_crowd;
\if :cj_own_sfcgal
DROP EXTENSION postgis_sfcgal;
\endif
