-- Planner support: a plain JOIN ... ON ST_ExactIntersects3D / ST_ExactIntersects
-- uses a GiST index on either side, like ST_3DIntersects / ST_Intersects.
-- (These are the row-by-row plans: the batch join is custom_join's test.)
SET exactgpu.enable_batch_join = off;
CREATE TABLE holes (id int PRIMARY KEY, geom geometry);
CREATE TABLE bodies (id int PRIMARY KEY, geom geometry);
-- 400 short vertical holes on a grid and 100 small tetrahedral surfaces.
INSERT INTO holes
	SELECT i * 20 + j, ST_MakeLine(ST_MakePoint(i * 5 + 0.5, j * 5 + 0.5, 10), ST_MakePoint(i * 5 + 0.5, j * 5 + 0.5, -10))
	FROM generate_series(0, 19) i, generate_series(0, 19) j;
INSERT INTO bodies
	SELECT i * 10 + j, ST_GeomFromText(format(
		'TIN Z(((%1$s %2$s -1, %3$s %2$s -1, %1$s %4$s -1, %1$s %2$s -1)), ((%1$s %2$s -1, %1$s %2$s 1, %3$s %2$s -1, %1$s %2$s -1)), ((%1$s %2$s -1, %1$s %4$s -1, %1$s %2$s 1, %1$s %2$s -1)), ((%3$s %2$s -1, %1$s %2$s 1, %1$s %4$s -1, %3$s %2$s -1)))',
		i * 10, j * 10, i * 10 + 3, j * 10 + 3))
	FROM generate_series(0, 9) i, generate_series(0, 9) j;
ANALYZE holes;
ANALYZE bodies;

CREATE INDEX bodies_nd ON bodies USING gist (geom gist_geometry_ops_nd);
SET enable_seqscan = off;

-- 3D: the &&& condition is added and the body index is used.
EXPLAIN (COSTS OFF)
SELECT h.id, b.id FROM holes h JOIN bodies b ON ST_ExactIntersects3D(h.geom, b.geom);
-- Either argument order.
EXPLAIN (COSTS OFF)
SELECT h.id, b.id FROM holes h JOIN bodies b ON ST_ExactIntersects3D(b.geom, h.geom);

-- With a 2D index on the other table: a 2D box overlap is also necessary for 3D.
CREATE INDEX holes_2d ON holes USING gist (geom);
DROP INDEX bodies_nd;
EXPLAIN (COSTS OFF)
SELECT h.id, b.id FROM bodies b JOIN holes h ON ST_ExactIntersects3D(b.geom, h.geom);

-- 2D: only a 2D index helps (a 3D box overlap is not necessary for 2D intersection).
EXPLAIN (COSTS OFF)
SELECT h.id, b.id FROM bodies b JOIN holes h ON ST_ExactIntersects(b.geom, h.geom);
CREATE INDEX bodies_nd ON bodies USING gist (geom gist_geometry_ops_nd);
DROP INDEX holes_2d;
EXPLAIN (COSTS OFF)
SELECT h.id, b.id FROM bodies b JOIN holes h ON ST_ExactIntersects(b.geom, h.geom);

-- A constant argument becomes an index scan.
EXPLAIN (COSTS OFF)
SELECT id FROM bodies WHERE ST_ExactIntersects3D(geom, 'POINT Z(1 1 0)');

-- The index never changes the answer: same pairs with and without it.
CREATE TEMP TABLE with_index AS
	SELECT h.id AS hole, b.id AS body FROM holes h JOIN bodies b ON ST_ExactIntersects3D(h.geom, b.geom);
SET enable_seqscan = on;
SET enable_indexscan = off;
SET enable_bitmapscan = off;
CREATE TEMP TABLE without_index AS
	SELECT h.id AS hole, b.id AS body FROM holes h JOIN bodies b ON ST_ExactIntersects3D(h.geom, b.geom);
RESET enable_indexscan;
RESET enable_bitmapscan;
SELECT (SELECT count(*) FROM with_index) AS pairs,
       (SELECT count(*) FROM (SELECT * FROM with_index EXCEPT SELECT * FROM without_index) d) AS only_with,
       (SELECT count(*) FROM (SELECT * FROM without_index EXCEPT SELECT * FROM with_index) d) AS only_without;
-- Each hole at (i*5 + 0.5, j*5 + 0.5) hits the body whose base triangle
-- covers it: x, y in [10i', 10i' + 3] and x + y <= 10(i' + j') + 3.
SELECT count(*) AS expected_pairs
FROM holes h, bodies b
WHERE ST_X(ST_StartPoint(h.geom)) BETWEEN (b.id / 10) * 10 AND (b.id / 10) * 10 + 3
  AND ST_Y(ST_StartPoint(h.geom)) BETWEEN (b.id % 10) * 10 AND (b.id % 10) * 10 + 3
  AND ST_X(ST_StartPoint(h.geom)) - (b.id / 10) * 10 + ST_Y(ST_StartPoint(h.geom)) - (b.id % 10) * 10 <= 3;

DROP TABLE holes, bodies;
RESET exactgpu.enable_batch_join;
