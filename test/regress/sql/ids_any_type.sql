-- Batch functions with ids of any type (issue 30): every function, with
-- integer, bigint, text and uuid ids, through inner queries and through
-- exactgpu_batch values, gives the pairs of the same join with integer ids
-- (mapped back through the tables, compared as sets, never against pairs
-- copied from output). Then one test per new error message.
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS postgis;
CREATE EXTENSION IF NOT EXISTS exactgpu;
RESET client_min_messages;

CREATE FUNCTION ida_cube(x float8, y float8, z float8, s float8) RETURNS text LANGUAGE sql AS $$
	SELECT string_agg(format('((%s %s %s, %s %s %s, %s %s %s, %s %s %s))',
		x + s * a[1], y + s * a[2], z + s * a[3], x + s * a[4], y + s * a[5], z + s * a[6],
		x + s * a[7], y + s * a[8], z + s * a[9], x + s * a[1], y + s * a[2], z + s * a[3]), ',')
	FROM (VALUES (ARRAY[0,0,0, 0,1,0, 1,1,0]), (ARRAY[0,0,0, 1,1,0, 1,0,0]),
	             (ARRAY[0,0,1, 1,0,1, 1,1,1]), (ARRAY[0,0,1, 1,1,1, 0,1,1]),
	             (ARRAY[0,0,0, 1,0,0, 1,0,1]), (ARRAY[0,0,0, 1,0,1, 0,0,1]),
	             (ARRAY[0,1,0, 0,1,1, 1,1,1]), (ARRAY[0,1,0, 1,1,1, 1,1,0]),
	             (ARRAY[0,0,0, 0,0,1, 0,1,1]), (ARRAY[0,0,0, 0,1,1, 0,1,0]),
	             (ARRAY[1,0,0, 1,1,0, 1,1,1]), (ARRAY[1,0,0, 1,1,1, 1,0,1])) t(a)
$$;

-- holes (lines), points, bodies (closed cubes); each row has an integer,
-- a bigint, a text and a uuid id
CREATE TABLE ida_holes AS
SELECT i AS id, i::bigint * 10000000000 AS bid, 'MXD-' || lpad(i::text, 4, '0') AS tid,
       md5('hole' || i)::uuid AS uid,
       ST_MakeLine(ST_MakePoint(i * 0.7, i * 0.3, 9), ST_MakePoint(i * 0.7 + 1, i * 0.3 - 1, -3)) AS geom
FROM generate_series(1, 30) i;
CREATE TABLE ida_points AS
SELECT i AS id, i::bigint * 10000000000 AS bid, 'S-' || i AS tid, md5('point' || i)::uuid AS uid,
       ST_MakePoint((i % 7) * 1.3, (i % 5) * 1.9, (i % 3) * 2.1) AS geom
FROM generate_series(1, 40) i;
CREATE TABLE ida_bodies AS
SELECT i AS id, i::bigint * 10000000000 AS bid, 'ore ' || chr(64 + i) AS tid, md5('body' || i)::uuid AS uid,
       ('TIN Z(' || ida_cube(i * 2.5 - 1, (i % 3) * 2.0, 0, 3) || ')')::geometry AS geom
FROM generate_series(1, 8) i;

-- The typed join mapped back to integer ids equals the integer join: the
-- count of pairs (never 0) and whether they are the same.
CREATE FUNCTION ida_same(fn text, lt text, rt text, lcol text, rcol text, ltype text, rtype text,
                         extra text DEFAULT '''''', batch boolean DEFAULT false)
RETURNS text LANGUAGE plpgsql AS $$
DECLARE
	typed text[];
	ints text[];
	lin text;
	rin text;
BEGIN
	IF batch THEN
		lin := format('(SELECT ST_ExactBatch(%I, geom) FROM %I)', lcol, lt);
		rin := format('(SELECT ST_ExactBatch(%I, geom) FROM %I)', rcol, rt);
	ELSE
		lin := quote_literal(format('SELECT %I, geom FROM %I', lcol, lt));
		rin := quote_literal(format('SELECT %I, geom FROM %I', rcol, rt));
	END IF;
	EXECUTE format('SELECT coalesce(array_agg(s ORDER BY s), ''{}'') FROM
	                (SELECT l.id || '':'' || r.id || '':'' || %s AS s
	                 FROM %s(%s, %s, NULL::%s, NULL::%s) j
	                 JOIN %I l ON l.%I = j.left_key JOIN %I r ON r.%I = j.right_key) q',
	               extra, fn, lin, rin, ltype, rtype, lt, lcol, rt, rcol) INTO typed;
	EXECUTE format('SELECT coalesce(array_agg(s ORDER BY s), ''{}'') FROM
	                (SELECT j.l || '':'' || j.r || '':'' || %s AS s FROM %s(%s, %s) AS j(l, r)) q',
	               extra, fn, quote_literal(format('SELECT id, geom FROM %I', lt)),
	               quote_literal(format('SELECT id, geom FROM %I', rt))) INTO ints;
	RETURN format('%s pairs, same: %s', cardinality(ints), typed = ints);
END
$$;

-- through inner queries: each function, each id type
SELECT fn, lt, rt, ty, ida_same(fn, lt, rt, lc, rc, ty, ty2, ex)
FROM (VALUES ('ST_ExactIntersects3DJoin', 'ida_holes', 'ida_bodies', ''''''),
             ('ST_ExactIntersectsJoin', 'ida_holes', 'ida_bodies', ''''''),
             ('ST_ExactIntersectsSolid3DJoin', 'ida_bodies', 'ida_holes', ''''''),
             ('ST_ExactLocate3DJoin', 'ida_points', 'ida_bodies', ''''''),
             ('ST_BoxJoin', 'ida_holes', 'ida_bodies', ''''''),
             ('ST_3DBoxJoin', 'ida_points', 'ida_bodies', ''''''),
             ('ST_ExactIntercepts3DJoin', 'ida_holes', 'ida_bodies', 'from_m || '':'' || to_m'),
             ('ST_ExactInterceptPieces3DJoin', 'ida_holes', 'ida_bodies',
              'from_m || '':'' || to_m || '':'' || kind || '':'' || ST_AsEWKT(piece)')) f(fn, lt, rt, ex),
     (VALUES ('integer', 'id', 'id', 'integer'), ('bigint', 'bid', 'bid', 'bigint'),
             ('text', 'tid', 'tid', 'text'), ('uuid', 'uid', 'uid', 'uuid'),
             ('text', 'tid', 'uid', 'uuid')) t(ty, lc, rc, ty2)
ORDER BY 1, 2, 3, 4, ty2;

-- through exactgpu_batch values (ST_ExactBatch with bigint, text and uuid ids)
SELECT fn, ty, ida_same(fn, lt, rt, lc, rc, ty, ty, ex, true)
FROM (VALUES ('ST_ExactIntersects3DJoin', 'ida_holes', 'ida_bodies', ''''''),
             ('ST_ExactIntersectsJoin', 'ida_holes', 'ida_bodies', ''''''),
             ('ST_ExactIntersectsSolid3DJoin', 'ida_bodies', 'ida_holes', ''''''),
             ('ST_ExactLocate3DJoin', 'ida_points', 'ida_bodies', ''''''),
             ('ST_BoxJoin', 'ida_holes', 'ida_bodies', ''''''),
             ('ST_3DBoxJoin', 'ida_points', 'ida_bodies', ''''''),
             ('ST_ExactIntercepts3DJoin', 'ida_holes', 'ida_bodies', 'from_m || '':'' || to_m'),
             ('ST_ExactInterceptPieces3DJoin', 'ida_holes', 'ida_bodies', 'from_m || '':'' || to_m')) f(fn, lt, rt, ex),
     (VALUES ('bigint', 'bid', 'bid'), ('text', 'tid', 'tid'), ('uuid', 'uid', 'uid')) t(ty, lc, rc)
ORDER BY 1, 2;

-- the typed keys are the users' values, typed as asked
SELECT pg_typeof(left_key) AS l, pg_typeof(right_key) AS r, left_key, right_key
FROM ST_ExactIntercepts3DJoin('SELECT tid, geom FROM ida_holes WHERE id = 12', 'SELECT uid, geom FROM ida_bodies', NULL::text, NULL::uuid)
LIMIT 1;
-- varchar ids come back as text; ids shared by two rows are one object
SELECT count(*) = count(DISTINCT (left_key, right_key)) AS each_pair_once
FROM ST_ExactIntersects3DJoin('SELECT left(tid, 6)::varchar, geom FROM ida_holes', 'SELECT tid, geom FROM ida_bodies', NULL::text, NULL::text);
-- NULL inputs: no rows, as the STRICT forms
SELECT count(*) FROM ST_ExactIntersects3DJoin(NULL, 'SELECT tid, geom FROM ida_bodies', NULL::text, NULL::text);

-- keyed batches: text form round trip, and old (bigint) batches as before
SELECT (SELECT ST_ExactBatch(tid, geom) FROM ida_points WHERE id <= 2)::text::exactgpu_batch::text
     = (SELECT ST_ExactBatch(tid, geom) FROM ida_points WHERE id <= 2)::text AS text_round_trip;
SELECT left((SELECT ST_ExactBatch(tid, geom) FROM ida_points WHERE id = 1)::text, 26);
SELECT (SELECT ST_ExactBatch(uid, geom) FROM ida_points WHERE id <= 3)::text::exactgpu_batch::text
     = (SELECT ST_ExactBatch(uid, geom) FROM ida_points WHERE id <= 3)::text AS uuid_round_trip;
SELECT '(text){"a \"quoted\" \\ id":0101000080000000000000F03F00000000000000400000000000000840}'::exactgpu_batch;
SELECT left((SELECT ST_ExactBatch(id, geom) FROM ida_points WHERE id = 1)::text, 3);
-- binary form (COPY BINARY) round trip of keyed batches
CREATE TABLE ida_batches (k text, b exactgpu_batch);
INSERT INTO ida_batches SELECT 'text', ST_ExactBatch(tid, geom) FROM ida_points;
INSERT INTO ida_batches SELECT 'uuid', ST_ExactBatch(uid, geom) FROM ida_points;
INSERT INTO ida_batches SELECT 'bigint', ST_ExactBatch(bid, geom) FROM ida_points;
\copy ida_batches TO '/tmp/exactgpu_ida_batches.bin' WITH (FORMAT binary)
CREATE TABLE ida_batches2 (LIKE ida_batches);
\copy ida_batches2 FROM '/tmp/exactgpu_ida_batches.bin' WITH (FORMAT binary)
SELECT a.k, a.b::text = b.b::text AS binary_round_trip FROM ida_batches a JOIN ida_batches2 b USING (k) ORDER BY 1;
DROP TABLE ida_batches, ida_batches2;
-- a keyed ST_ExactBatch built in parallel parts (combine, serialize) joins
-- as one built serially
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SET max_parallel_workers_per_gather = 2;
CREATE TABLE ida_many AS SELECT i, 'P' || i AS tid, ST_MakePoint(i % 17, i % 13, i % 7) AS geom FROM generate_series(1, 20000) i;
ANALYZE ida_many;
EXPLAIN (COSTS OFF) SELECT ST_ExactBatch(tid, geom) FROM ida_many;
CREATE TABLE ida_parts AS SELECT ST_ExactBatch(tid, geom) AS b FROM ida_many;
RESET max_parallel_workers_per_gather;
RESET parallel_setup_cost;
RESET parallel_tuple_cost;
RESET min_parallel_table_scan_size;
SELECT count(*) AS pairs,
       count(*) = (SELECT count(*) FROM ST_ExactIntersectsSolid3DJoin('SELECT tid, geom FROM ida_bodies', 'SELECT tid, geom FROM ida_many', NULL::text, NULL::text)) AS same
FROM ST_ExactIntersectsSolid3DJoin((SELECT ST_ExactBatch(tid, geom) FROM ida_bodies), (SELECT b FROM ida_parts), NULL::text, NULL::text);
DROP TABLE ida_many, ida_parts;

-- Errors, one per message.
\set VERBOSITY default
-- text ids in a form that returns bigint ids: the old message, and how to ask for text
SELECT * FROM ST_ExactIntersects3DJoin('SELECT tid, geom FROM ida_holes', 'SELECT id, geom FROM ida_bodies');
-- ids of another type than the one given
SELECT * FROM ST_ExactIntersects3DJoin('SELECT tid, geom FROM ida_holes', 'SELECT id, geom FROM ida_bodies', NULL::uuid, NULL::integer);
-- bigint ids where integer was given (they may not fit)
SELECT * FROM ST_ExactIntersects3DJoin('SELECT bid, geom FROM ida_holes', 'SELECT id, geom FROM ida_bodies', NULL::integer, NULL::integer);
-- a batch of text ids where uuid was given
SELECT * FROM ST_ExactIntersects3DJoin((SELECT ST_ExactBatch(tid, geom) FROM ida_holes), (SELECT ST_ExactBatch(uid, geom) FROM ida_bodies), NULL::uuid, NULL::uuid);
-- a query of the wrong shape in a typed form
SELECT * FROM ST_ExactIntersects3DJoin('SELECT tid FROM ida_holes', 'SELECT tid, geom FROM ida_bodies', NULL::text, NULL::text);
-- ids of a type without hash equality
SELECT * FROM ST_ExactIntersects3DJoin('SELECT point(id, id), geom FROM ida_holes', 'SELECT tid, geom FROM ida_bodies', NULL::point, NULL::text);
-- keyed batch text form: unquoted id
SELECT '(text){a:0101000000000000000000F03F0000000000000040}'::exactgpu_batch;
SELECT '(text){"a:0101000000000000000000F03F0000000000000040}'::exactgpu_batch;
-- a batch of no rows (the aggregate over none) fits any ids' type
SELECT count(*) AS pairs FROM ST_ExactIntersects3DJoin((SELECT ST_ExactBatch(tid, geom) FROM ida_holes WHERE false), (SELECT ST_ExactBatch(uid, geom) FROM ida_bodies), NULL::text, NULL::uuid);

DROP FUNCTION ida_same(text, text, text, text, text, text, text, text, boolean);
DROP FUNCTION ida_cube(float8, float8, float8, float8);
DROP TABLE ida_holes, ida_points, ida_bodies;
