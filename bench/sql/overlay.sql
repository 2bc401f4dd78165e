-- Map overlay at SQL level: two layers of :n x :n lattice edges (10 m cells,
-- jittered, at UTM coordinates; the second rotated 0.1 degrees about the
-- centre), joined by PostGIS's ST_Intersects with GiST indexes and by
-- ST_ExactIntersectsJoin (GPU, then CPU). Pair sets compared.
\pset footer off
SELECT setseed(0.75);
DROP TABLE IF EXISTS lat_v, layer_a, layer_b;
CREATE TABLE lat_v AS SELECT i, j, 500000 + 10 * (i + 0.6 * (random() - 0.5)) AS x,
	7000000 + 10 * (j + 0.6 * (random() - 0.5)) AS y
FROM generate_series(0, :n - 1) i, generate_series(0, :n - 1) j;
CREATE TABLE layer_a AS
SELECT row_number() OVER () AS id, geom FROM (
	SELECT ST_MakeLine(ST_MakePoint(p.x, p.y), ST_MakePoint(q.x, q.y)) AS geom
	FROM lat_v p JOIN lat_v q ON q.i = p.i + 1 AND q.j = p.j
	UNION ALL
	SELECT ST_MakeLine(ST_MakePoint(p.x, p.y), ST_MakePoint(q.x, q.y))
	FROM lat_v p JOIN lat_v q ON q.i = p.i AND q.j = p.j + 1) edges;
CREATE TABLE layer_b AS
SELECT id, ST_Rotate(geom, radians(0.1), ST_MakePoint(500000 + 5 * (:n - 1), 7000000 + 5 * (:n - 1))) AS geom FROM layer_a;
CREATE INDEX ON layer_a USING gist (geom);
CREATE INDEX ON layer_b USING gist (geom);
ANALYZE layer_a;
ANALYZE layer_b;
SELECT count(*) AS segments_per_layer FROM layer_a;
\timing on
SELECT count(*) AS postgis_pairs FROM layer_a a JOIN layer_b b ON ST_Intersects(a.geom, b.geom);
SET exactgpu.device = 'gpu';
SELECT count(*) AS exact_gpu_pairs FROM ST_ExactIntersectsJoin('SELECT id, geom FROM layer_a', 'SELECT id, geom FROM layer_b');
SELECT count(*) AS exact_gpu_pairs FROM ST_ExactIntersectsJoin('SELECT id, geom FROM layer_a', 'SELECT id, geom FROM layer_b');
\timing off
SELECT device, round(read_ms) AS read_ms, round(join_ms::numeric, 1) AS join_ms, round(total_ms) AS total_ms, candidate_pairs, row_pairs FROM exactgpu_last_join_stats();
SET exactgpu.device = 'cpu';
\timing on
SELECT count(*) AS exact_cpu_pairs FROM ST_ExactIntersectsJoin('SELECT id, geom FROM layer_a', 'SELECT id, geom FROM layer_b');
\timing off
RESET exactgpu.device;
SELECT count(*) FILTER (WHERE src = 'postgis only') AS postgis_only, count(*) FILTER (WHERE src = 'exact only') AS exact_only FROM (
	(SELECT 'postgis only' AS src, * FROM (SELECT a.id, b.id FROM layer_a a JOIN layer_b b ON ST_Intersects(a.geom, b.geom)
	 EXCEPT SELECT * FROM ST_ExactIntersectsJoin('SELECT id, geom FROM layer_a', 'SELECT id, geom FROM layer_b')) x)
	UNION ALL
	(SELECT 'exact only', * FROM (SELECT * FROM ST_ExactIntersectsJoin('SELECT id, geom FROM layer_a', 'SELECT id, geom FROM layer_b')
	 EXCEPT SELECT a.id, b.id FROM layer_a a JOIN layer_b b ON ST_Intersects(a.geom, b.geom)) y)) d;
