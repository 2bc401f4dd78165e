-- Time of one call of the exact predicates by the size of a closed body
-- (a cube, each face an n x n grid of triangle pairs: 12 n^2 triangles),
-- against a point or a 30-vertex hole: the body cached (one body, many
-- calls: the time of 2,000 calls less that of 200) or not (9 bodies
-- cycling through the 8-entry geometry cache). "base" is the same scan with
-- a trivial condition. Markdown rows, for bench/sql/cost_model.sh.
\set ON_ERROR_STOP 1
SET max_parallel_workers_per_gather = 0;
SELECT setseed(0.25);
CREATE OR REPLACE FUNCTION grid_cube(x0 float8, y0 float8, z0 float8, s float8, n int) RETURNS geometry
LANGUAGE sql IMMUTABLE AS $$
WITH c AS (
  SELECT f, i, j, s * i / n AS a0, s * (i + 1) / n AS a1, s * j / n AS b0, s * (j + 1) / n AS b1
  FROM generate_series(0, 5) f, generate_series(0, n - 1) i, generate_series(0, n - 1) j),
q AS (
  SELECT f, i, j, k, CASE WHEN k IN (0, 3) THEN a0 ELSE a1 END AS a, CASE WHEN k IN (0, 1) THEN b0 ELSE b1 END AS b
  FROM c, generate_series(0, 3) k),
p AS (
  SELECT f, i, j, k, CASE f
    WHEN 0 THEN format('%s %s %s', x0 + a, y0 + b, z0)
    WHEN 1 THEN format('%s %s %s', x0 + b, y0 + a, z0 + s)
    WHEN 2 THEN format('%s %s %s', x0 + b, y0, z0 + a)
    WHEN 3 THEN format('%s %s %s', x0 + a, y0 + s, z0 + b)
    WHEN 4 THEN format('%s %s %s', x0, y0 + b, z0 + a)
    ELSE format('%s %s %s', x0 + s, y0 + a, z0 + b) END AS pt
  FROM q),
t AS (
  SELECT f, i, j, array_agg(pt ORDER BY k) AS v FROM p GROUP BY f, i, j)
SELECT ST_GeomFromText('TIN Z(' || string_agg(format('((%s, %s, %s, %s)), ((%s, %s, %s, %s))',
  v[1], v[2], v[3], v[1], v[1], v[3], v[4], v[1]), ', ') || ')') FROM t $$;
DROP TABLE IF EXISTS bod, pts, holes;
CREATE TABLE bod (n int, id int, geom geometry);
INSERT INTO bod SELECT n, id, ST_ExactForceOutward(grid_cube(id * 1e-3, 0, 0, 4, n))
  FROM unnest(ARRAY[1, 3, 5, 7, 9, 29, 91]) n, generate_series(1, 9) id;
CREATE TABLE pts (id int, geom geometry);
INSERT INTO pts SELECT i, ST_MakePoint(0.1 + 3.8 * random(), 0.1 + 3.8 * random(), 0.1 + 3.8 * random()) FROM generate_series(1, 20000) i;
-- 30-vertex holes, bent, through the cube
CREATE TABLE holes (id int, geom geometry);
INSERT INTO holes SELECT i, ST_MakeLine(array_agg(ST_MakePoint(0.5 + 3 * random() + 0.01 * k, 0.5 + (i % 30) * 0.1, -1 + k * 0.2) ORDER BY k))
  FROM generate_series(1, 2000) i, generate_series(0, 29) k GROUP BY i;
ANALYZE bod; ANALYZE pts; ANALYZE holes;
CREATE OR REPLACE FUNCTION call_ms(q text) RETURNS float8 LANGUAGE plpgsql AS $$
DECLARE t0 timestamptz; r float8 := 1e30; n bigint;
BEGIN
  FOR i IN 1..3 LOOP
    t0 := clock_timestamp();
    EXECUTE q INTO n;
    r := least(r, extract(epoch FROM clock_timestamp() - t0) * 1000);
  END LOOP;
  RETURN r;
END $$;
DROP TABLE IF EXISTS percall;
CREATE TABLE percall (pred text, n int, mode text, calls bigint, ms float8);
DO $$
DECLARE
  n int; pr text; other text; k int; q text; t1 float8; t2 float8;
  preds text[] := ARRAY['base|pts', 'ST_ExactIntersects3D|pts', 'ST_ExactIntersectsSolid3D|pts', 'ST_ExactIntersects3D|holes'];
  p text;
BEGIN
  FOREACH n IN ARRAY ARRAY[1, 3, 5, 7, 9, 29, 91] LOOP
    FOREACH p IN ARRAY preds LOOP
      pr := split_part(p, '|', 1); other := split_part(p, '|', 2);
      -- hit: one body, many calls (difference of two call counts removes the first parse)
      q := format('SELECT count(*) FROM (SELECT * FROM bod WHERE n = %s AND id = 1) b, LATERAL (SELECT 1 FROM %s p WHERE p.id <= %%s AND %s OFFSET 0) x',
        n, other, CASE pr WHEN 'base' THEN 'b.geom IS NOT NULL AND p.geom IS NOT NULL' ELSE pr || '(b.geom, p.geom)' END);
      t1 := call_ms(format(q, 200)); t2 := call_ms(format(q, 2000));
      INSERT INTO percall VALUES (p, n, 'hit', 1800, t2 - t1);
      -- miss: 9 bodies cycling through the 8-entry cache
      k := CASE WHEN n >= 91 THEN 1 WHEN n >= 29 THEN 4 WHEN n >= 9 THEN 40 ELSE 200 END;
      q := format('SELECT count(*) FROM (SELECT * FROM %s WHERE id <= %s) p, LATERAL (SELECT 1 FROM bod b WHERE b.n = %s AND %s OFFSET 0) x',
        other, k, n, CASE pr WHEN 'base' THEN 'b.geom IS NOT NULL AND p.geom IS NOT NULL' ELSE pr || '(b.geom, p.geom)' END);
      INSERT INTO percall VALUES (p, n, 'miss', 9 * k, call_ms(q));
    END LOOP;
  END LOOP;
END $$;
\pset tuples_only on
\pset format unaligned
SELECT E'\n| predicate, other argument | body triangles | body bytes | cached: us a call | not cached: us a call |\n|---|---|---|---|---|';
SELECT format('| %s | %s | %s | %s | %s |', pred, tris, bytes, round((1000 * h.ms / h.calls)::numeric, 2), round((1000 * m.ms / m.calls)::numeric, 2))
FROM percall h JOIN percall m USING (pred, n)
JOIN (SELECT n, min(ST_NumGeometries(geom)) AS tris, round(avg(octet_length(geom::bytea))) AS bytes FROM bod GROUP BY n) s USING (n)
WHERE h.mode = 'hit' AND m.mode = 'miss' ORDER BY pred, n;
