-- Review of the ExactJoin: cases found wrong, each against the same query
-- run row by row (exactgpu.enable_batch_join = off).
SET exactgpu.device = 'cpu';
CREATE TABLE cjr_h (id int, x float8, geom geometry);
CREATE TABLE cjr_b (id int, geom geometry);
INSERT INTO cjr_h SELECT i, i % 7, ST_MakeLine(ST_MakePoint(i % 30, i / 30, 5), ST_MakePoint(i % 30, i / 30, -5))
	FROM generate_series(0, 899) i;
INSERT INTO cjr_b SELECT i, ST_GeomFromText(format('POLYGON Z((%1$s %2$s 0, %3$s %2$s 0, %3$s %4$s 0, %1$s %4$s 0, %1$s %2$s 0))',
	(i % 6) * 5, (i / 6) * 5, (i % 6) * 5 + 2.5, (i / 6) * 5 + 2.5)) FROM generate_series(0, 35) i;
CREATE TABLE cjr_o (dx float8);
INSERT INTO cjr_o VALUES (0), (3), (100);
ANALYZE cjr_h;
ANALYZE cjr_b;
ANALYZE cjr_o;

-- A parameter in the clause's argument (an outer column of a correlated
-- subquery or a LATERAL side): the children do not change, the geometries
-- do, so a rescan must join again (it handed out the first run's pairs).
EXPLAIN (COSTS OFF)
SELECT o.dx, (SELECT count(*) FROM cjr_h h JOIN cjr_b b ON ST_ExactIntersects3D(ST_Translate(h.geom, o.dx, 0, 0), b.geom))
FROM cjr_o o;
SELECT o.dx, (SELECT count(*) FROM cjr_h h JOIN cjr_b b ON ST_ExactIntersects3D(ST_Translate(h.geom, o.dx, 0, 0), b.geom))
FROM cjr_o o ORDER BY 1;
SELECT o.dx, count(*) FROM cjr_o o, LATERAL (SELECT h.id FROM cjr_h h
	JOIN cjr_b b ON ST_ExactIntersects3D(ST_Translate(h.geom, o.dx, 0, 0), b.geom) LIMIT 100000) s
GROUP BY 1 ORDER BY 1;
SELECT count(*), sum(o.dx) FROM cjr_o o
WHERE EXISTS (SELECT FROM cjr_h h JOIN cjr_b b ON ST_ExactIntersects3D(ST_Translate(h.geom, o.dx, 0, 0), b.geom));
SET exactgpu.enable_batch_join = off;
SELECT o.dx, (SELECT count(*) FROM cjr_h h JOIN cjr_b b ON ST_ExactIntersects3D(ST_Translate(h.geom, o.dx, 0, 0), b.geom))
FROM cjr_o o ORDER BY 1;
SELECT o.dx, count(*) FROM cjr_o o, LATERAL (SELECT h.id FROM cjr_h h
	JOIN cjr_b b ON ST_ExactIntersects3D(ST_Translate(h.geom, o.dx, 0, 0), b.geom) LIMIT 100000) s
GROUP BY 1 ORDER BY 1;
SELECT count(*), sum(o.dx) FROM cjr_o o
WHERE EXISTS (SELECT FROM cjr_h h JOIN cjr_b b ON ST_ExactIntersects3D(ST_Translate(h.geom, o.dx, 0, 0), b.geom));
RESET exactgpu.enable_batch_join;

-- INSERT ... SELECT keeps the batch join (it planned row by row: only a
-- SELECT was accepted, though an INSERT's source rows are never rechecked);
-- UPDATE ... FROM, DELETE ... USING and FOR UPDATE do not (EvalPlanQual).
CREATE TABLE cjr_sink (hid int, bid int);
EXPLAIN (COSTS OFF)
INSERT INTO cjr_sink SELECT h.id, b.id FROM cjr_h h JOIN cjr_b b ON ST_ExactIntersects3D(h.geom, b.geom);
INSERT INTO cjr_sink SELECT h.id, b.id FROM cjr_h h JOIN cjr_b b ON ST_ExactIntersects3D(h.geom, b.geom)
ON CONFLICT DO NOTHING;
SET exactgpu.enable_batch_join = off;
SELECT count(*) AS pairs,
	(SELECT count(*) FROM ((SELECT * FROM cjr_sink EXCEPT ALL
		SELECT h.id, b.id FROM cjr_h h JOIN cjr_b b ON ST_ExactIntersects3D(h.geom, b.geom))
		UNION ALL (SELECT h.id, b.id FROM cjr_h h JOIN cjr_b b ON ST_ExactIntersects3D(h.geom, b.geom)
		EXCEPT ALL SELECT * FROM cjr_sink)) d) AS differs_from_row_by_row
FROM cjr_sink;
RESET exactgpu.enable_batch_join;
EXPLAIN (COSTS OFF)
UPDATE cjr_sink s SET bid = b.id FROM cjr_h h JOIN cjr_b b ON ST_ExactIntersects3D(h.geom, b.geom) WHERE s.hid = h.id;
EXPLAIN (COSTS OFF)
SELECT h.id FROM cjr_h h JOIN cjr_b b ON ST_ExactIntersects3D(h.geom, b.geom) FOR UPDATE OF h;

-- In a parallel plan the batch join runs once, in the leader: it was
-- parallel safe, and on the inner side of a parallel hash join the leader
-- and every worker each ran the whole join (EXPLAIN ANALYZE: loops=3).
CREATE TABLE cjr_big AS SELECT i % 900 AS hid FROM generate_series(1, 1000000) i;
ANALYZE cjr_big;
EXPLAIN (COSTS OFF)
SELECT count(*) FROM cjr_big g JOIN (SELECT h.id FROM cjr_h h JOIN cjr_b b ON ST_ExactIntersects3D(h.geom, b.geom)) s
	ON g.hid = s.id;
-- the same count as over the row-by-row pairs kept in cjr_sink above
SELECT (SELECT count(*) FROM cjr_big g JOIN (SELECT h.id FROM cjr_h h JOIN cjr_b b ON ST_ExactIntersects3D(h.geom, b.geom)) s
	ON g.hid = s.id) AS batch, (SELECT count(*) FROM cjr_big g JOIN cjr_sink s ON g.hid = s.hid) AS row_by_row;

DROP TABLE cjr_h, cjr_b, cjr_o, cjr_sink, cjr_big;
