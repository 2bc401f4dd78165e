-- exactgpu_batch values survive pg_dump / pg_restore (the audit: pg_restore
-- failed with "exactgpu_batch values cannot be typed in" and the table came
-- back empty), COPY in text and binary, and typing in.
\set regress_db :DBNAME
SET client_min_messages = warning;
DROP DATABASE IF EXISTS exactgpu_dump_src;
DROP DATABASE IF EXISTS exactgpu_dump_dst;
CREATE DATABASE exactgpu_dump_src;
CREATE DATABASE exactgpu_dump_dst;
\c exactgpu_dump_src
SET client_min_messages = warning;
CREATE EXTENSION postgis;
CREATE EXTENSION exactgpu;

-- a batch of triangles, segments, points (3D), one of polygons (2D), and
-- the join answers on them, all stored in tables
CREATE TABLE batches (name text PRIMARY KEY, b exactgpu_batch);
INSERT INTO batches
	SELECT 'tris', ST_ExactBatch(i, ST_Translate('TRIANGLE Z((0 0 0, 1 0 0.5, 0 1 1, 0 0 0))'::geometry,
	                                             (i % 7) * 0.5, (i / 7) * 0.5, 0))
	FROM generate_series(1, 60) i;
INSERT INTO batches
	SELECT 'lines', ST_ExactBatch(i, CASE WHEN i % 3 = 0 THEN ST_MakePoint(i * 0.1, i * 0.07, 0.25)
	                                 ELSE ST_MakeLine(ST_MakePoint(i * 0.1, 0, -1), ST_MakePoint(i * 0.05, 4, 2)) END)
	FROM generate_series(1, 80) i;
INSERT INTO batches
	SELECT 'polys', ST_ExactBatch(i, ST_Buffer(ST_MakePoint(i * 0.3, (i % 5) * 0.4), 0.35, 3))
	FROM generate_series(1, 40) i;
INSERT INTO batches
	SELECT 'points', ST_ExactBatch(i, ST_MakePoint(1 / 3.0 * i, 0.1 + 1 / 7.0 * i))
	FROM generate_series(1, 50) i;
INSERT INTO batches VALUES ('empty', (SELECT ST_ExactBatch(i, NULL::geometry) FROM generate_series(1, 3) i));
CREATE TABLE answers AS
	SELECT '3d' AS q, * FROM ST_ExactIntersects3DJoin((SELECT b FROM batches WHERE name = 'tris'),
	                                                  (SELECT b FROM batches WHERE name = 'lines'))
	UNION ALL
	SELECT '2d', * FROM ST_ExactIntersectsJoin((SELECT b FROM batches WHERE name = 'polys'),
	                                           (SELECT b FROM batches WHERE name = 'points'))
	UNION ALL
	SELECT 'box', * FROM ST_BoxJoin((SELECT b FROM batches WHERE name = 'polys'),
	                                (SELECT b FROM batches WHERE name = 'polys'));
SELECT q, count(*) FROM answers GROUP BY q ORDER BY q COLLATE "C";
CREATE TABLE texts AS SELECT name, b::text AS t FROM batches;

-- dump (custom format) and restore into an empty database
SELECT setting AS bindir FROM pg_config WHERE name = 'BINDIR' \gset
\setenv EXG_BINDIR :bindir
\set dumpfile '/tmp/exactgpu_regress_dump_' :PORT '.dump'
\setenv EXG_DUMP :dumpfile
\setenv EXG_SRC exactgpu_dump_src
\setenv EXG_DST exactgpu_dump_dst
\! "$EXG_BINDIR/pg_dump" -Fc -f "$EXG_DUMP" "$EXG_SRC" && "$EXG_BINDIR/pg_restore" --exit-on-error -d "$EXG_DST" "$EXG_DUMP" && echo restored; rm -f "$EXG_DUMP"

\c exactgpu_dump_dst
SET client_min_messages = warning;
SELECT name, (SELECT count(*) FROM regexp_matches(b::text, '[0-9]+:', 'g')) AS rows FROM batches ORDER BY name COLLATE "C";
-- the same text, and the same answers from the restored batches
SELECT count(*) AS text_differs FROM batches b JOIN texts t USING (name) WHERE b.b::text <> t.t;
CREATE TABLE answers_after AS
	SELECT '3d' AS q, * FROM ST_ExactIntersects3DJoin((SELECT b FROM batches WHERE name = 'tris'),
	                                                  (SELECT b FROM batches WHERE name = 'lines'))
	UNION ALL
	SELECT '2d', * FROM ST_ExactIntersectsJoin((SELECT b FROM batches WHERE name = 'polys'),
	                                           (SELECT b FROM batches WHERE name = 'points'))
	UNION ALL
	SELECT 'box', * FROM ST_BoxJoin((SELECT b FROM batches WHERE name = 'polys'),
	                                (SELECT b FROM batches WHERE name = 'polys'));
SELECT count(*) AS answers, (SELECT count(*) FROM answers_after) AS answers_after,
       (SELECT count(*) FROM ((TABLE answers EXCEPT TABLE answers_after)
                              UNION ALL (TABLE answers_after EXCEPT TABLE answers)) d) AS differ
FROM answers;

-- binary COPY round trip
\set binfile '/tmp/exactgpu_regress_batch_' :PORT '.bin'
COPY batches TO :'binfile' WITH (FORMAT binary);
CREATE TABLE batches_bin (LIKE batches);
COPY batches_bin FROM :'binfile' WITH (FORMAT binary);
\setenv EXG_BIN :binfile
\! rm -f "$EXG_BIN"
SELECT count(*) AS binary_differs FROM batches b JOIN batches_bin c USING (name) WHERE b.b::text <> c.b::text;
SELECT count(*) AS binary_rows FROM batches_bin;

-- typed in: the printed form, with spaces; bad forms are refused
SELECT '{}'::exactgpu_batch;
SELECT ' { 7 : 0101000000000000000000F03F0000000000000040 , -3:010100000000000000000000000000000000000000 } '::exactgpu_batch;
SELECT * FROM ST_BoxJoin('{1:0101000000000000000000F03F0000000000000040}'::exactgpu_batch,
                         '{2:0101000000000000000000F03F0000000000000040}'::exactgpu_batch);
SELECT 'exactgpu_batch(3 rows, 200 bytes)'::exactgpu_batch;
SELECT '{1:0101}'::exactgpu_batch;
SELECT '{1:0101000000000000000000F03F0000000000000040'::exactgpu_batch;
SELECT '{x:0101000000000000000000F03F0000000000000040}'::exactgpu_batch;
SELECT '{1:0101000000000000000000F03F0000000000000040} junk'::exactgpu_batch;

\c :regress_db
SET client_min_messages = warning;
DROP DATABASE exactgpu_dump_src;
DROP DATABASE exactgpu_dump_dst;
