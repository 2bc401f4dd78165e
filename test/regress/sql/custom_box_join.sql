-- Plain SQL joins on PostGIS's geometry && and &&& run as one batch box join
-- (Custom Scan ExactBoxJoin). The plan must return exactly the rows of
-- PostGIS's own operator (exactgpu.enable_batch_join = off, same query):
-- PostGIS compares float boxes rounded outward (BOX2DF for &&, GIDX for
-- &&&), not the exact double extents, so rows whose boxes touch only after
-- that rounding are pairs, and &&& compares only the axes both boxes have.
-- The planner hook lives in exactgpu's library: a session that calls no
-- exactgpu function loads it with LOAD (or session_preload_libraries).
LOAD 'exactgpu';
SET exactgpu.device = 'cpu';
SELECT setseed(0.17);

-- bj_same(q): q's rows with the batch join allowed, and the plan it got,
-- against q's rows with it off, pair for pair. The reference evaluates
-- PostGIS's operator itself (GiST index scans off): PostGIS's GiST keys
-- differ from the operator for NaN coordinates (the 2D index widens a NaN
-- bound to +-FLT_MAX, the N-D index drops the row), and the operator is
-- what the batch join answers.
CREATE FUNCTION bj_same(q text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
	guc text := current_setting('exactgpu.enable_batch_join');
	l text;
	node text := 'no ExactBoxJoin';
	n_on bigint;
	n_off bigint;
	only_on bigint;
	only_off bigint;
BEGIN
	PERFORM set_config('exactgpu.enable_batch_join', 'on', false);
	FOR l IN EXECUTE 'EXPLAIN (COSTS OFF) ' || q LOOP
		IF l LIKE '%Custom Scan (ExactBoxJoin)%' THEN node := 'ExactBoxJoin'; END IF;
	END LOOP;
	EXECUTE 'CREATE TEMP TABLE bj_on AS ' || q;
	PERFORM set_config('exactgpu.enable_batch_join', 'off', false);
	PERFORM set_config('enable_indexscan', 'off', true);
	PERFORM set_config('enable_bitmapscan', 'off', true);
	FOR l IN EXECUTE 'EXPLAIN (COSTS OFF) ' || q LOOP
		IF l LIKE '%ExactBoxJoin%' THEN node := node || ' (also with the GUC off!)'; END IF;
	END LOOP;
	EXECUTE 'CREATE TEMP TABLE bj_off AS ' || q;
	PERFORM set_config('exactgpu.enable_batch_join', guc, false);
	SELECT count(*) INTO n_on FROM bj_on;
	SELECT count(*) INTO n_off FROM bj_off;
	SELECT count(*) INTO only_on FROM (TABLE bj_on EXCEPT ALL TABLE bj_off) s;
	SELECT count(*) INTO only_off FROM (TABLE bj_off EXCEPT ALL TABLE bj_on) s;
	DROP TABLE bj_on;
	DROP TABLE bj_off;
	RETURN format('%s: %s rows, PostGIS %s rows, %s', node, n_on, n_off,
		CASE WHEN only_on = 0 AND only_off = 0 THEN 'same' ELSE format('DIFFER: %s only batch, %s only PostGIS', only_on, only_off) END);
END $$;

-- Left: random boxes, linestrings and points, 2D and 3D, at UTM coordinates
-- with 0.1-spaced ends (not floats: a float near 5e5 is a multiple of
-- 1/32, near 7e6 of 1/2), so outward rounding decides many pairs.
CREATE TABLE bj_left (id int, name text, grp int, geom geometry);
CREATE TABLE bj_right (id int, name text, grp int, geom geometry);
INSERT INTO bj_left
	SELECT i, format('L%s', lpad(i::text, 4, '0')), i % 7,
		CASE i % 4
		WHEN 0 THEN ST_MakeEnvelope(x, y, x + dx, y + dy)
		WHEN 1 THEN ST_MakeLine(ST_MakePoint(x, y, z), ST_MakePoint(x + dx, y + dy, z + dy))
		WHEN 2 THEN ST_MakePoint(x, y)
		ELSE ST_MakeLine(ARRAY[ST_MakePoint(x, y, z), ST_MakePoint(x + dx, y, z), ST_MakePoint(x + dx, y + dy, z - dx)])
		END
	FROM (SELECT i, 500000 + round(random() * 400) / 10 AS x, 7000000 + round(random() * 400) / 10 AS y,
			round(random() * 400) / 10 AS z, round(random() * 30) / 10 AS dx, round(random() * 30) / 10 AS dy
		FROM generate_series(1, 1200) i) s;
INSERT INTO bj_right
	SELECT i, format('R%s', lpad(i::text, 4, '0')), i % 5,
		CASE i % 3
		WHEN 0 THEN ST_MakeEnvelope(x, y, x + dx, y + dy)
		WHEN 1 THEN ST_MakeLine(ST_MakePoint(x, y, z), ST_MakePoint(x - dx, y + dy, z + dx))
		ELSE ST_MakePoint(x, y, z)
		END
	FROM (SELECT i, 500000 + round(random() * 400) / 10 AS x, 7000000 + round(random() * 400) / 10 AS y,
			round(random() * 400) / 10 AS z, round(random() * 30) / 10 AS dx, round(random() * 30) / 10 AS dy
		FROM generate_series(1, 1000) i) s;
-- Constructed rows (ids from 5001 left, 6001 right):
INSERT INTO bj_left VALUES
	-- touch only after rounding: 500000.05 rounds up to 500000.0625, 500000.07 down to it
	(5001, 'touch-rounded', 1, 'LINESTRING(499999 7000020.3, 500000.05 7000020.3)'),
	-- touch exactly, shared edges and corners (closed boxes)
	(5002, 'edge', 1, 'POLYGON((10 10, 11 10, 11 11, 10 11, 10 10))'),
	(5003, 'corner', 1, 'POINT(12 12)'),
	-- empty and NULL geometries meet nothing
	(5004, 'empty', 1, 'POINT EMPTY'),
	(5005, 'empty-coll', 1, 'GEOMETRYCOLLECTION EMPTY'),
	(5006, 'null', 1, NULL),
	-- 2D under &&& meets 3D rows whatever their z
	(5007, 'flat', 2, 'LINESTRING(500010 7000010, 500030 7000030)'),
	-- XYM: &&& pads its z (never filters) and compares m with rows that have m
	(5008, 'xym', 2, 'LINESTRING M (500010 7000010 5, 500030 7000030 6)'),
	(5009, 'xyzm', 2, 'LINESTRING ZM (500010 7000010 1 5, 500030 7000030 2 6)'),
	-- a polygon and an arc without their cached box: PostGIS computes it
	-- (the arc's box reaches y = 1, above its vertices)
	(5010, 'arc', 3, postgis_dropbbox('CIRCULARSTRING(-1 0, -0.7071067811865476 0.7071067811865476, 0.7071067811865476 0.7071067811865476)')),
	(5011, 'poly-nobox', 3, postgis_dropbbox('POLYGON((20 20, 22 20, 22 22, 20 20))')),
	-- NaN: an empty BOX2DF for && when it is xmin; an axis that never filters for &&&
	(5012, 'nan-x', 4, ST_MakePoint('NaN', 0.5)),
	(5013, 'nan-y', 4, ST_MakePoint(0.5, 'NaN')),
	-- beyond FLT_MAX: &&& skips an axis whose max rounds to FLT_MAX
	(5014, 'huge-z', 4, 'POINT Z (0.5 0.5 1e39)'),
	(5015, 'z-far', 4, 'POINT Z (0.5 0.5 1e30)'),
	-- large polygons stored out of line (TOAST): the box from the header's
	-- slice, or (without a cached box) from the whole value
	(5016, 'toasted', 5, ST_Buffer('POINT(30 30)', 5, 3000)),
	(5017, 'toasted-nobox', 5, postgis_dropbbox(ST_Buffer('POINT(30 40)', 5, 3000)));
INSERT INTO bj_right VALUES
	(6001, 'touch-rounded', 1, 'POINT(500000.07 7000020.3)'),
	(6002, 'miss-rounded', 1, 'POINT(500000.1 7000020.3)'),
	(6003, 'edge', 1, 'POLYGON((11 10, 12 10, 12 11, 11 11, 11 10))'),
	(6004, 'corner', 1, 'POLYGON((11 11, 12 11, 12 12, 11 12, 11 11))'),
	(6005, 'empty', 1, 'LINESTRING Z EMPTY'),
	(6006, 'null', 1, NULL),
	(6007, 'xyz-high', 2, 'POINT Z (500020 7000020 1000)'),
	(6008, 'xym-5', 2, 'POINT M (500020 7000020 5.5)'),
	(6009, 'xym-9', 2, 'POINT M (500020 7000020 9)'),
	(6010, 'xyzm', 2, 'POINT ZM (500020 7000020 1.5 5.5)'),
	(6011, 'xyzm-z-off', 2, 'POINT ZM (500020 7000020 100 5.5)'),
	(6012, 'above-arc', 3, 'POINT(0 0.9)'),
	(6013, 'in-poly-box', 3, 'POINT(21.5 20.5)'),
	(6014, 'origin', 4, 'POINT Z (0.5 0.5 3)'),
	(6015, 'nan-m', 2, ST_MakePoint(500020, 7000020, 1.5, 'NaN')),
	(6016, 'near-toasted', 5, 'POINT(34.99 34.99)'),
	(6017, 'in-toasted-box', 5, 'LINESTRING(25 45, 24 46)'),
	(6018, 'beside-toasted', 5, 'POINT(35.01 40)');
CREATE INDEX ON bj_left USING gist (geom);
CREATE INDEX ON bj_right USING gist (geom);
CREATE INDEX ON bj_left USING gist (geom gist_geometry_ops_nd);
CREATE INDEX ON bj_right USING gist (geom gist_geometry_ops_nd);
ANALYZE bj_left;
ANALYZE bj_right;
SELECT id, pg_column_size(geom) > 8000 AS large, postgis_hasbbox(geom) AS cached_box
FROM bj_left WHERE id IN (5016, 5017) ORDER BY id;

-- The plan: the box join over two ordinary scans.
EXPLAIN (COSTS OFF)
SELECT l.name, r.name FROM bj_left l JOIN bj_right r ON l.geom && r.geom;
EXPLAIN (COSTS OFF)
SELECT l.name, r.name FROM bj_left l JOIN bj_right r ON r.geom &&& l.geom
WHERE l.grp < 5 AND r.grp > 0 AND l.id + r.id > 100;
-- the GUC turns it off: PostGIS's nested loop over the GiST index
SET exactgpu.enable_batch_join = off;
EXPLAIN (COSTS OFF)
SELECT l.name, r.name FROM bj_left l JOIN bj_right r ON l.geom && r.geom;
RESET exactgpu.enable_batch_join;

-- The constructed pairs, as PostGIS's operator gives them row by row (a
-- join it cannot batch: the join clause is wrapped in an OR).
SELECT l.name AS left_row, r.name AS right_row, l.geom && r.geom AS "&&", l.geom &&& r.geom AS "&&&"
FROM bj_left l, bj_right r
WHERE l.id > 5000 AND r.id > 6000 AND ((l.geom && r.geom) OR (l.geom &&& r.geom))
ORDER BY l.id, r.id;
-- the batch joins give the same constructed pairs
SELECT l.name AS left_row, r.name AS right_row FROM bj_left l JOIN bj_right r ON l.geom && r.geom
WHERE l.id > 5000 AND r.id > 6000 ORDER BY l.id, r.id;
SELECT l.name AS left_row, r.name AS right_row FROM bj_left l JOIN bj_right r ON l.geom &&& r.geom
WHERE l.id > 5000 AND r.id > 6000 ORDER BY l.id, r.id;

-- Every pair, against PostGIS's operator.
SELECT bj_same('SELECT l.id AS lid, r.id AS rid FROM bj_left l JOIN bj_right r ON l.geom && r.geom');
SELECT bj_same('SELECT l.id AS lid, r.id AS rid FROM bj_left l JOIN bj_right r ON l.geom &&& r.geom');
SELECT bj_same('SELECT l.id AS lid, r.id AS rid FROM bj_left l JOIN bj_right r ON r.geom &&& l.geom');
-- text keys, other columns, filters on both sides and a join filter beside the operator
SELECT bj_same('SELECT l.name, r.name AS rname, l.grp + r.grp AS g FROM bj_left l JOIN bj_right r ON l.geom && r.geom
	WHERE l.grp < 5 AND r.grp > 0 AND l.name < r.name');
SELECT bj_same('SELECT l.name, r.name AS rname, r.geom AS rgeom FROM bj_left l JOIN bj_right r ON r.geom &&& l.geom
	WHERE l.grp IN (1, 2, 3) AND r.name LIKE ''R%'' AND l.id + r.id > 100');
-- an expression as an argument (the distance-join pattern), read per row
SELECT bj_same('SELECT l.id AS lid, r.id AS rid FROM bj_left l JOIN bj_right r ON ST_Expand(l.geom, 0.55) &&& r.geom');
-- a self join, and one side a subquery with an aggregate
SELECT bj_same('SELECT a.id AS aid, b.id AS bid FROM bj_left a JOIN bj_left b ON a.geom &&& b.geom');
-- (7 large rows against 1,015: a nested loop over the index is cheaper)
SELECT bj_same('SELECT s.grp, r.id FROM (SELECT grp, ST_Collect(ST_Force2D(geom)) AS geom FROM bj_left GROUP BY grp) s
	JOIN bj_right r ON s.geom && r.geom');
-- semi and anti joins
SELECT bj_same('SELECT l.id FROM bj_left l WHERE EXISTS (SELECT FROM bj_right r WHERE l.geom && r.geom)');
SELECT bj_same('SELECT l.id FROM bj_left l WHERE NOT EXISTS (SELECT FROM bj_right r WHERE l.geom &&& r.geom)');
SELECT bj_same('SELECT r.name FROM bj_right r WHERE NOT EXISTS (SELECT FROM bj_left l WHERE r.geom && l.geom)');
SELECT bj_same('SELECT count(*) FROM bj_right r WHERE EXISTS (SELECT FROM bj_left l WHERE r.geom &&& l.geom)');
EXPLAIN (COSTS OFF)
SELECT l.id FROM bj_left l WHERE NOT EXISTS (SELECT FROM bj_right r WHERE l.geom &&& r.geom);

-- LIMIT stops the streaming (the plan's rows are then any 7 of them)
SET enable_nestloop = off;
EXPLAIN (COSTS OFF)
SELECT l.id, r.id FROM bj_left l JOIN bj_right r ON l.geom && r.geom LIMIT 7;
SELECT count(*) FROM (SELECT l.id, r.id FROM bj_left l JOIN bj_right r ON l.geom && r.geom LIMIT 7) s;
SELECT count(*) AS not_pairs FROM (SELECT l.geom AS a, r.geom AS b FROM bj_left l JOIN bj_right r ON l.geom &&& r.geom LIMIT 50) s
WHERE NOT (a &&& b);
RESET enable_nestloop;

-- A prepared statement, through its custom and its generic plans.
PREPARE bj_q(int) AS SELECT count(*) FROM bj_left l JOIN bj_right r ON l.geom &&& r.geom WHERE l.grp = $1;
EXECUTE bj_q(1);
EXECUTE bj_q(2);
EXECUTE bj_q(3);
EXECUTE bj_q(4);
EXECUTE bj_q(5);
EXECUTE bj_q(6);
EXPLAIN (COSTS OFF) EXECUTE bj_q(1);
SET exactgpu.enable_batch_join = off;
SET enable_indexscan = off;
SET enable_bitmapscan = off;
SELECT l.grp, count(*) FROM bj_left l JOIN bj_right r ON l.geom &&& r.geom WHERE l.grp BETWEEN 1 AND 6 GROUP BY l.grp ORDER BY l.grp;
RESET exactgpu.enable_batch_join;
RESET enable_indexscan;
RESET enable_bitmapscan;
DEALLOCATE bj_q;

-- EXPLAIN ANALYZE shows the engine's counts (times and the device's
-- thread count left out: they vary). The constructed rows under &&&: rows
-- that filter on z are joined on 3 axes, every other pairing on 2 (three
-- engine calls); m is then checked where both rows have it (Box Pairs
-- against Pairs Kept).
CREATE FUNCTION pg_temp.explain_keys(q text) RETURNS SETOF text LANGUAGE plpgsql AS $$
DECLARE
	plan jsonb;
BEGIN
	EXECUTE 'EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF, FORMAT JSON) ' || q INTO plan;
	plan := plan -> 0 -> 'Plan';
	WHILE plan ->> 'Node Type' <> 'Custom Scan' LOOP
		plan := plan -> 'Plans' -> 0;
	END LOOP;
	RETURN QUERY SELECT k || ': ' || CASE WHEN k IN ('Candidates', 'Waves', 'Splits')
		THEN jsonb_typeof(plan -> k) ELSE plan ->> k END
		FROM unnest(ARRAY['Custom Plan Provider', 'Box Operator', 'Boxes', 'Device', 'Engine Calls',
			'Outer Rows Read', 'Inner Rows Read', 'Outer Boxes', 'Inner Boxes', 'Candidates', 'Box Pairs',
			'Pairs Kept', 'Waves', 'Splits', 'Actual Rows']) k;
END $$;
SET enable_nestloop = off;
SELECT pg_temp.explain_keys('SELECT l.name, r.name FROM bj_left l JOIN bj_right r ON l.geom &&& r.geom
	WHERE l.id > 5000 AND r.id > 6000');
SELECT semantics, left_rows, right_rows, left_primitives AS left_boxes, right_primitives AS right_boxes, row_pairs
FROM exactgpu_last_join_stats();
RESET enable_nestloop;

-- Inside a CTE, and twice in a subplan (rescans keep the join).
SELECT bj_same('WITH p AS MATERIALIZED (SELECT l.id AS lid, r.id AS rid FROM bj_left l JOIN bj_right r ON l.geom && r.geom)
	SELECT lid, count(*) FROM p GROUP BY lid');

DROP FUNCTION bj_same(text);
DROP TABLE bj_left;
DROP TABLE bj_right;
RESET exactgpu.device;
