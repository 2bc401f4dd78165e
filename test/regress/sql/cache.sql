-- Row-by-row joins reuse parsed and indexed geometries across calls. The
-- cache must never change an answer: compare a join (cache hits on the
-- repeated big body, TOASTed on disk) with one-call-per-row evaluation.
CREATE TABLE big_body (id int, geom geometry);
-- A 100 x 100 grid of triangle pairs on z = 0 (20000 triangles), stored TOASTed.
INSERT INTO big_body SELECT 1, ST_Collect(ARRAY(
	SELECT ST_GeomFromText(format('TRIANGLE Z((%1$s %2$s 0, %3$s %2$s 0, %1$s %4$s 0, %1$s %2$s 0))', i, j, i + 1, j + 1))
	FROM generate_series(0, 99) i, generate_series(0, 99) j));
SELECT ST_NumGeometries(geom) AS triangles, pg_column_size(geom) < ST_MemSize(geom) AS compressed_or_toasted
FROM big_body;
CREATE TABLE probes (id int, geom geometry);
INSERT INTO probes SELECT k, ST_MakeLine(ST_MakePoint(k * 0.37, k * 0.71, 1), ST_MakePoint(k * 0.37 + 0.5, k * 0.71 - 0.5, -1))
	FROM generate_series(0, 299) k;
-- Points exactly on the grid lines and vertices; and ones just above.
INSERT INTO probes SELECT 1000 + k, ST_MakePoint(k % 100, (k * 7) % 100, 0) FROM generate_series(0, 99) k;
INSERT INTO probes SELECT 2000 + k, ST_MakePoint(k % 100 + 0.5, (k * 7) % 100, 2^(-40)) FROM generate_series(0, 99) k;

-- Join (the body's cache entry is hit 500 times).
CREATE TEMP TABLE joined AS
	SELECT p.id, ST_ExactIntersects3D(b.geom, p.geom) AS hit FROM big_body b, probes p;
-- One call per statement (no cache reuse across statements).
CREATE FUNCTION pg_temp.one_call(pid int) RETURNS boolean LANGUAGE plpgsql AS $$
DECLARE r boolean;
BEGIN
	EXECUTE 'SELECT ST_ExactIntersects3D(b.geom, p.geom) FROM big_body b, probes p WHERE p.id = $1'
		INTO r USING pid;
	RETURN r;
END $$;
SELECT count(*) AS probes, count(*) FILTER (WHERE hit) AS hits,
       count(*) FILTER (WHERE hit <> pg_temp.one_call(id)) AS cache_disagrees
FROM joined;
-- The probes on the surface hit, the ones 2^(-40) above miss.
SELECT id / 1000 AS family, count(*) FILTER (WHERE hit) AS hits, count(*) AS n
FROM joined WHERE id >= 1000 GROUP BY 1 ORDER BY 1;

-- The same geometry on both sides, and alternating big arguments.
SELECT ST_ExactIntersects3D(geom, geom) AS self FROM big_body;
SELECT count(*) FILTER (WHERE ST_ExactIntersects3D(CASE WHEN p.id % 2 = 0 THEN b.geom ELSE p.geom END,
                                                   CASE WHEN p.id % 2 = 0 THEN p.geom ELSE b.geom END)
                        <> j.hit) AS order_matters
FROM big_body b, probes p JOIN joined j USING (id);

-- Bodies stored IN LINE, compressed (a compressible grid): their cache
-- identity is their stored bytes. Three bodies that differ only by a shift
-- (so their compressed bytes differ little), probed alternately row by
-- row: every answer equals the one-call-per-statement answer.
CREATE TABLE inline_bodies (id int, geom geometry);
INSERT INTO inline_bodies SELECT s, ST_Collect(ARRAY(
	SELECT ST_GeomFromText(format('TRIANGLE Z((%1$s %2$s 0, %3$s %2$s 0, %1$s %4$s 0, %1$s %2$s 0))', i + s, j, i + s + 1, j + 1))
	FROM generate_series(0, 11) i, generate_series(0, 11) j))
FROM generate_series(0, 2) s;
SELECT id, pg_column_compression(geom) IS NOT NULL AS compressed FROM inline_bodies ORDER BY id;
SELECT pg_relation_size(reltoastrelid) AS stored_out_of_line FROM pg_class WHERE relname = 'inline_bodies';
CREATE TEMP TABLE inline_joined AS
	SELECT b.id AS bid, p.id AS pid, ST_ExactIntersects3D(b.geom, p.geom) AS hit
	FROM probes p, inline_bodies b WHERE p.id >= 1000;
CREATE FUNCTION pg_temp.one_inline_call(bid int, pid int) RETURNS boolean LANGUAGE plpgsql AS $$
DECLARE r boolean;
BEGIN
	EXECUTE 'SELECT ST_ExactIntersects3D(b.geom, p.geom) FROM inline_bodies b, probes p WHERE b.id = $1 AND p.id = $2'
		INTO r USING bid, pid;
	RETURN r;
END $$;
SELECT bid, count(*) FILTER (WHERE hit) AS hits, count(*) AS n,
	count(*) FILTER (WHERE hit <> pg_temp.one_inline_call(bid, pid)) AS cache_disagrees
FROM inline_joined GROUP BY bid ORDER BY bid;

DROP TABLE big_body, probes, inline_bodies;
