-- A geologist's first mine, made in SQL (bench/sql/plan_shapes.sh, MINE=sql):
-- :bodies closed wireframes (cubes, each face an :grid x :grid grid of
-- triangle pairs: 12 :grid^2 triangles, kept out of line) in a row along x,
-- :holes bent drill holes of 30 vertices spread over them, in the schema
-- minegen loads (drill_holes, ore_bodies), GiST indexes, ANALYZE.
\set ON_ERROR_STOP 1
DROP TABLE IF EXISTS drill_holes, ore_bodies CASCADE;
-- a vertex's text, moved by under 1e-6 as a function of the vertex itself:
-- shared vertices stay shared (the cube stays closed) and the coordinates do
-- not compress, so that the bodies are kept out of line as surveyed ones are
-- (a body that compresses to under ~8 kB stays in line, and the geometry
-- cache then compares its bytes on every call)
CREATE OR REPLACE FUNCTION pg_temp.jitter(v float8[]) RETURNS text LANGUAGE sql IMMUTABLE AS $$
SELECT format('%s %s %s', v[1] + 1e-6 * (h - floor(h)), v[2] + 1e-6 * (h * 7 - floor(h * 7)), v[3] + 1e-6 * (h * 13 - floor(h * 13)))
FROM (SELECT sin(v[1] * 12.9898 + v[2] * 78.233 + v[3] * 37.719) * 43758.5453 AS h) q $$;
CREATE OR REPLACE FUNCTION pg_temp.grid_cube(x0 float8, y0 float8, z0 float8, s float8, n int)
RETURNS geometry LANGUAGE sql IMMUTABLE AS $$
WITH c AS (
  SELECT f, i, j, s * i / n AS a0, s * (i + 1) / n AS a1, s * j / n AS b0, s * (j + 1) / n AS b1
  FROM generate_series(0, 5) f, generate_series(0, n - 1) i, generate_series(0, n - 1) j),
q AS (
  SELECT f, i, j, k, CASE WHEN k IN (0, 3) THEN a0 ELSE a1 END AS a, CASE WHEN k IN (0, 1) THEN b0 ELSE b1 END AS b
  FROM c, generate_series(0, 3) k),
p AS (
  SELECT f, i, j, k, pg_temp.jitter(CASE f
    WHEN 0 THEN ARRAY[x0 + a, y0 + b, z0]
    WHEN 1 THEN ARRAY[x0 + b, y0 + a, z0 + s]
    WHEN 2 THEN ARRAY[x0 + b, y0, z0 + a]
    WHEN 3 THEN ARRAY[x0 + a, y0 + s, z0 + b]
    WHEN 4 THEN ARRAY[x0, y0 + b, z0 + a]
    ELSE ARRAY[x0 + s, y0 + a, z0 + b] END) AS pt
  FROM q),
t AS (
  SELECT f, i, j, array_agg(pt ORDER BY k) AS v FROM p GROUP BY f, i, j)
SELECT ST_GeomFromText('TIN Z(' || string_agg(format('((%s, %s, %s, %s)), ((%s, %s, %s, %s))',
  v[1], v[2], v[3], v[1], v[1], v[3], v[4], v[1]), ', ') || ')') FROM t $$;
CREATE TABLE ore_bodies (body_id bigint PRIMARY KEY, name text, geom geometry);
INSERT INTO ore_bodies SELECT k, 'B' || k, pg_temp.grid_cube(100 * k, 0, -50, 60, :grid)
  FROM generate_series(1, :bodies) k;
CREATE TABLE drill_holes (hole_id bigint PRIMARY KEY, name text, geom geometry);
INSERT INTO drill_holes SELECT i, 'H' || i, ST_MakeLine(array_agg(ST_MakePoint(
    20 + ((i * 37.123) % (100 * :bodies)) + 0.3 * k, ((i * 13.77) % 80) - 5 + 0.05 * k * k, 30 - 4 * k)
  ORDER BY k))
  FROM generate_series(1, :holes) i, generate_series(0, 29) k GROUP BY i;
CREATE INDEX ON drill_holes USING gist (geom gist_geometry_ops_nd);
CREATE INDEX ON ore_bodies USING gist (geom gist_geometry_ops_nd);
ANALYZE drill_holes;
ANALYZE ore_bodies;
