-- Box joins: every pair of rows whose closed boxes meet, each once, on the
-- exact double extents of the geometries.
CREATE TABLE bx_a (id bigint PRIMARY KEY, geom geometry);
CREATE TABLE bx_b (id bigint PRIMARY KEY, geom geometry);
SELECT setseed(0.25);
-- boxes on a 1/4 grid (so touching is common), as polygons, lines and points
INSERT INTO bx_a SELECT i, CASE i % 3
	WHEN 0 THEN ST_MakeEnvelope(x, y, x + w, y + h)
	WHEN 1 THEN ST_MakeLine(ST_MakePoint(x, y, z), ST_MakePoint(x + w, y + h, z + w))
	ELSE ST_MakePoint(x, y, z) END
FROM (SELECT i, floor(random() * 400) / 4 AS x, floor(random() * 400) / 4 AS y, floor(random() * 40) / 4 AS z,
             floor(random() * 12) / 4 AS w, floor(random() * 12) / 4 AS h
      FROM generate_series(1, 3000) i) r;
INSERT INTO bx_b SELECT i, CASE i % 2
	WHEN 0 THEN ST_MakeEnvelope(x, y, x + w, y + h)
	ELSE ST_MakeLine(ST_MakePoint(x, y, z), ST_MakePoint(x + w, y + h, z + h)) END
FROM (SELECT i, floor(random() * 400) / 4 AS x, floor(random() * 400) / 4 AS y, floor(random() * 40) / 4 AS z,
             floor(random() * 12) / 4 AS w, floor(random() * 12) / 4 AS h
      FROM generate_series(1, 3000) i) r;
INSERT INTO bx_b VALUES (100001, 'POLYGON EMPTY');

-- 2D: the same pairs as PostGIS's && (float boxes are exact on this grid),
-- on the default device and on the CPU
CREATE TABLE bx_ref AS SELECT a.id AS l, b.id AS r FROM bx_a a JOIN bx_b b ON a.geom && b.geom;
SELECT count(*) > 1000 AS many_pairs, count(*) FILTER (WHERE l % 3 = 2) > 0 AS with_points FROM bx_ref;
SELECT count(*) AS differs FROM (
	(SELECT * FROM ST_BoxJoin('SELECT id, geom FROM bx_a', 'SELECT id, geom FROM bx_b') EXCEPT SELECT * FROM bx_ref)
	UNION ALL
	(SELECT * FROM bx_ref EXCEPT SELECT * FROM ST_BoxJoin('SELECT id, geom FROM bx_a', 'SELECT id, geom FROM bx_b'))) d;
SELECT semantics, row_pairs = (SELECT count(*) FROM bx_ref) AS each_once FROM exactgpu_last_join_stats();
SET exactgpu.device = 'cpu';
SELECT count(*) AS cpu_differs FROM (
	(SELECT * FROM ST_BoxJoin('SELECT id, geom FROM bx_a', 'SELECT id, geom FROM bx_b') EXCEPT SELECT * FROM bx_ref)
	UNION ALL
	(SELECT * FROM bx_ref EXCEPT SELECT * FROM ST_BoxJoin('SELECT id, geom FROM bx_a', 'SELECT id, geom FROM bx_b'))) d;
RESET exactgpu.device;
-- 3D: as &&& on the rows with Z (for a row without Z, &&& matches any z;
-- exactgpu takes z = 0, as everywhere in 3D)
CREATE VIEW bx_a3 AS SELECT * FROM bx_a WHERE ST_NDims(geom) = 3;
CREATE VIEW bx_b3 AS SELECT * FROM bx_b WHERE ST_NDims(geom) = 3;
SELECT count(*) > 100 AS many_3d, count(*) FILTER (WHERE a.id % 3 = 2) > 0 AS with_points_3d
FROM bx_a3 a JOIN bx_b3 b ON a.geom &&& b.geom;
SELECT count(*) AS differs_3d FROM (
	(SELECT * FROM ST_3DBoxJoin('SELECT id, geom FROM bx_a3', 'SELECT id, geom FROM bx_b3')
	 EXCEPT SELECT a.id, b.id FROM bx_a3 a JOIN bx_b3 b ON a.geom &&& b.geom)
	UNION ALL
	(SELECT a.id, b.id FROM bx_a3 a JOIN bx_b3 b ON a.geom &&& b.geom
	 EXCEPT SELECT * FROM ST_3DBoxJoin('SELECT id, geom FROM bx_a3', 'SELECT id, geom FROM bx_b3'))) d;
-- the aggregate form
SELECT count(*) = (SELECT count(*) FROM bx_ref) AS aggregate_form
FROM ST_BoxJoin((SELECT ST_ExactBatch(id, geom) FROM bx_a), (SELECT ST_ExactBatch(id, geom) FROM bx_b));

-- Exact, where PostGIS's boxes are floats rounded outward: two boxes at UTM
-- coordinates 2^-30 m apart. && says they meet; the exact extents do not.
SELECT ST_MakeEnvelope(500000, 7000000, 500001, 7000001) && ST_MakeEnvelope(500001 + 2^(-30), 7000000, 500002, 7000001) AS postgis_says,
       (SELECT count(*) FROM ST_BoxJoin(
		$$SELECT 1::bigint, ST_MakeEnvelope(500000, 7000000, 500001, 7000001)$$,
		$$SELECT 2::bigint, ST_MakeEnvelope(500001 + 2^(-30), 7000000, 500002, 7000001)$$)) AS exact_pairs,
       (SELECT count(*) FROM ST_BoxJoin(
		$$SELECT 1::bigint, ST_MakeEnvelope(500000, 7000000, 500001, 7000001)$$,
		$$SELECT 2::bigint, ST_MakeEnvelope(500001, 7000000, 500002, 7000001)$$)) AS touching_pairs;

-- Rows sharing an id are one object: each id pair once (the pairs are then
-- collected and deduplicated instead of streamed).
SELECT count(*) AS shared_id_pairs, count(DISTINCT (left_id, right_id)) AS distinct_pairs
FROM ST_BoxJoin($$SELECT 1::bigint, ST_MakeEnvelope(0, 0, 1, 1) UNION ALL SELECT 1, ST_MakeEnvelope(0.5, 0.5, 2, 2)$$,
		$$SELECT 7::bigint, ST_MakeEnvelope(0.75, 0.75, 3, 3)$$);
-- Ids in two increasing runs (a synchronized scan that began mid-table):
-- distinct ids stream, an id repeated across the runs is one object.
SELECT count(*) AS rotated_pairs, count(DISTINCT (left_id, right_id)) AS distinct_pairs
FROM ST_BoxJoin($$SELECT i::bigint, ST_MakeEnvelope(0, 0, 1, 1) FROM generate_series(1, 9) i ORDER BY (i + 4) % 9$$,
		$$SELECT 7::bigint, ST_MakeEnvelope(0.75, 0.75, 3, 3)$$);
SELECT count(*) AS rotated_shared_pairs, count(DISTINCT (left_id, right_id)) AS distinct_pairs
FROM ST_BoxJoin($$SELECT i::bigint, ST_MakeEnvelope(0, 0, 1, 1) FROM unnest(ARRAY[5, 6, 7, 8, 2, 3, 5, 9]) i$$,
		$$SELECT 7::bigint, ST_MakeEnvelope(0.75, 0.75, 3, 3)$$);
SELECT count(*) AS differs_unordered_ids FROM (
	(SELECT * FROM ST_BoxJoin('SELECT id, geom FROM bx_a ORDER BY random()', 'SELECT id, geom FROM bx_b ORDER BY id DESC') EXCEPT SELECT * FROM bx_ref)
	UNION ALL
	(SELECT * FROM bx_ref EXCEPT SELECT * FROM ST_BoxJoin('SELECT id, geom FROM bx_a ORDER BY random()', 'SELECT id, geom FROM bx_b ORDER BY id DESC'))) d;
-- A result larger than exactgpu.result_memory spills to a temporary file.
SET exactgpu.result_memory = 64;
SELECT count(*) AS spilled_pairs, count(DISTINCT (left_id, right_id)) AS distinct_pairs
FROM ST_BoxJoin('SELECT i, ST_MakeEnvelope(0, 0, 1, 1) FROM generate_series(1, 300) i',
				'SELECT i, ST_MakeEnvelope(1, 1, 2, 2) FROM generate_series(1, 300) i');
RESET exactgpu.result_memory;
-- Empty geometries have no box; rows with a NULL geometry are skipped, even
-- with a NULL id (as ST_ExactBatch does).
SELECT count(*) AS empty_pairs FROM ST_BoxJoin($$SELECT 1::bigint, 'POLYGON EMPTY'::geometry UNION ALL SELECT 2, NULL
		UNION ALL SELECT NULL, NULL$$, 'SELECT id, geom FROM bx_b');
-- one statement that returns rows, nothing else
SELECT * FROM ST_BoxJoin('SELECT id, geom FROM bx_a; SELECT id, geom FROM bx_b', 'SELECT id, geom FROM bx_b');
CREATE TEMP TABLE bx_ref_before AS SELECT count(*) AS n FROM bx_ref;
SELECT * FROM ST_BoxJoin('DELETE FROM bx_ref RETURNING 1::bigint, NULL::geometry', 'SELECT id, geom FROM bx_b');
SELECT * FROM ST_BoxJoin('SELECT id, geom FROM bx_a', 'WITH d AS (DELETE FROM bx_ref RETURNING 1) SELECT id, geom FROM bx_b');
SELECT (SELECT count(*) FROM bx_ref) = n AS bx_ref_untouched FROM bx_ref_before;
SELECT * FROM ST_BoxJoin('EXPLAIN SELECT id, geom FROM bx_a', 'SELECT id, geom FROM bx_b');
-- Large geometries stored out of line (TOAST) and compressed ones are read
-- whole, by the box join and the exact join alike.
CREATE TABLE bx_big (id bigint, geom geometry);
ALTER TABLE bx_big ALTER COLUMN geom SET STORAGE EXTERNAL;
INSERT INTO bx_big VALUES (1, ST_Buffer(ST_MakePoint(0, 0), 10, 1000));
ALTER TABLE bx_big ALTER COLUMN geom SET STORAGE EXTENDED;
INSERT INTO bx_big SELECT 2, ST_Collect(array_fill(ST_MakePoint(100, 0), ARRAY[3000]));
SELECT id, pg_column_size(geom) > 8192 AS out_of_line, pg_column_compression(geom) IS NOT NULL AS compressed
FROM bx_big ORDER BY id;
SELECT * FROM ST_BoxJoin('SELECT id, geom FROM bx_big',
		$$SELECT 7::bigint, 'POINT(9 9)'::geometry UNION ALL SELECT 8, 'POINT(100 0)'$$) ORDER BY 1, 2;
SELECT * FROM ST_ExactIntersectsJoin('SELECT id, geom FROM bx_big',
		$$SELECT 7::bigint, 'POINT(9 9)'::geometry UNION ALL SELECT 8, 'POINT(5 5)' UNION ALL SELECT 9, 'POINT(100 0)'$$)
ORDER BY 1, 2;
-- The geometry column is PostGIS's geometry or a domain over it, not any
-- type that happens to be named geometry.
CREATE DOMAIN bx_geom AS geometry;
SELECT count(*) = (SELECT count(*) FROM bx_ref) AS domain_pairs_as_ref
FROM ST_BoxJoin('SELECT id, geom::bx_geom FROM bx_a', 'SELECT id, geom FROM bx_b');
CREATE SCHEMA bx_fake;
CREATE TYPE bx_fake.geometry AS ENUM ('x');
SELECT * FROM ST_BoxJoin($$SELECT 1::bigint, 'x'::bx_fake.geometry$$, 'SELECT id, geom FROM bx_b');
