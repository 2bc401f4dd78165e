-- Plans for the join shapes users write (issue 26), on a mine with more big
-- bodies than a call site's geometry cache holds (8): each shape's plan
-- family (a nested loop calling the predicate per pair re-reads a body per
-- call there, and is priced so: nestloop_cost.c), and the same rows as the
-- plan PostgreSQL makes without the batch join (ps_same: the row counts
-- and the rows one has and the other lacks, both 0).
-- The fixture of the plan_shapes tests: a small mine with more big bodies
-- than the per-call geometry cache holds (14 closed cubes of 588 triangles,
-- about 60 kB each, kept out of line), 300 drill holes, 200 samples, the
-- holes' collars and four tenements.
SET exactgpu.device = 'cpu';
-- a point's text, moved by under 1e-6 as a function of the point itself:
-- shared vertices stay shared (the cube stays closed) and the coordinates
-- do not compress, so that the bodies are kept out of line as surveyed
-- ones are
CREATE FUNCTION ps_pt(x float8, y float8, z float8) RETURNS text LANGUAGE sql IMMUTABLE AS $$
SELECT format('%s %s %s', x + 1e-6 * (h - floor(h)), y + 1e-6 * (h * 7 - floor(h * 7)), z + 1e-6 * (h * 13 - floor(h * 13)))
FROM (SELECT sin(x * 12.9898 + y * 78.233 + z * 37.719) * 43758.5453 AS h) q $$;
CREATE FUNCTION ps_cube(x0 float8, y0 float8, z0 float8, s float8, n int) RETURNS geometry
LANGUAGE plpgsql IMMUTABLE AS $$
DECLARE
	t text[] := '{}';
	p text[];
	u float8[];
BEGIN
	FOR f IN 0..5 LOOP
		FOR i IN 0..n - 1 LOOP
			FOR j IN 0..n - 1 LOOP
				u := ARRAY[s * i / n, s * (i + 1) / n, s * j / n, s * (j + 1) / n];
				p := '{}';
				FOR c IN 0..3 LOOP
					DECLARE a float8 := u[CASE WHEN c IN (0, 3) THEN 1 ELSE 2 END];
						b float8 := u[CASE WHEN c IN (0, 1) THEN 3 ELSE 4 END];
					BEGIN
						p := p || CASE f
							WHEN 0 THEN ps_pt(x0 + a, y0 + b, z0)
							WHEN 1 THEN ps_pt(x0 + a, y0 + b, z0 + s)
							WHEN 2 THEN ps_pt(x0 + a, y0, z0 + b)
							WHEN 3 THEN ps_pt(x0 + a, y0 + s, z0 + b)
							WHEN 4 THEN ps_pt(x0, y0 + a, z0 + b)
							ELSE ps_pt(x0 + s, y0 + a, z0 + b) END;
					END;
				END LOOP;
				t := t || format('((%s, %s, %s, %s))', p[1], p[2], p[3], p[1])
					|| format('((%s, %s, %s, %s))', p[1], p[3], p[4], p[1]);
			END LOOP;
		END LOOP;
	END LOOP;
	RETURN ST_GeomFromText('TIN Z(' || array_to_string(t, ', ') || ')');
END $$;
-- bodies 1..14: cubes [10k, 10k + 4] x [0, 4] x [0, 4]; ten are ore
CREATE TABLE ps_bodies (body_id int PRIMARY KEY, kind text, geom geometry);
INSERT INTO ps_bodies SELECT k, CASE WHEN k % 3 <> 0 THEN 'ore' ELSE 'waste' END,
	ps_cube(10 * k, 0, 0, 4, 7) FROM generate_series(1, 14) k;
-- holes 1..300 from z = 10 down to z = -5, x spread over [5, 155); hole 300
-- has no geometry
CREATE TABLE ps_holes (hole_id int PRIMARY KEY, name text, geom geometry);
INSERT INTO ps_holes SELECT i, 'H' || i,
	CASE WHEN i < 300 THEN ST_MakeLine(ARRAY[
		ST_MakePoint(5 + (i * 7.31) % 150, (i * 3.17) % 8 - 2, 10),
		ST_MakePoint(5.5 + (i * 7.31) % 150, (i * 3.17) % 8 - 2, 2),
		ST_MakePoint(5 + (i * 7.31) % 150, (i * 3.17) % 8 - 1.5, -5)]) END
	FROM generate_series(1, 300) i;
CREATE TABLE ps_samples (sample_id int PRIMARY KEY, geom geometry);
INSERT INTO ps_samples SELECT i, ST_MakePoint(5 + (i * 0.377) % 150, (i * 0.71) % 8 - 2, (i * 0.37) % 6 - 1)
	FROM generate_series(1, 200) i;
CREATE TABLE ps_collars (hole_id int, geom geometry);
INSERT INTO ps_collars SELECT hole_id, ST_Force2D(ST_StartPoint(geom)) FROM ps_holes WHERE geom IS NOT NULL;
CREATE TABLE ps_tenements (tenement_id int, name text, geom geometry);
INSERT INTO ps_tenements SELECT t, 'T' || t, ST_MakeEnvelope(40 * t - 40, -10, 40 * t, 10)
	FROM generate_series(1, 4) t;
CREATE INDEX ON ps_bodies USING gist (geom gist_geometry_ops_nd);
CREATE INDEX ON ps_holes USING gist (geom gist_geometry_ops_nd);
CREATE INDEX ON ps_samples USING gist (geom gist_geometry_ops_nd);
CREATE VIEW ps_ore AS SELECT * FROM ps_bodies WHERE kind = 'ore';
ANALYZE ps_bodies, ps_holes, ps_samples, ps_collars, ps_tenements;
-- q's rows under the default plan and with the batch join off, as counts
-- and as the rows one has and the other lacks (both 0 when they agree)
-- (a FULL JOIN has no plan without the batch join: ref, the same rows
-- written otherwise, is run instead)
CREATE FUNCTION ps_same(q text, ref text DEFAULT NULL,
	OUT n bigint, OUT only_default bigint, OUT only_forced bigint)
LANGUAGE plpgsql AS $$
BEGIN
	EXECUTE 'CREATE TEMP TABLE ps_a AS ' || q;
	PERFORM set_config('exactgpu.enable_batch_join', 'off', true);
	EXECUTE 'CREATE TEMP TABLE ps_b AS ' || coalesce(ref, q);
	PERFORM set_config('exactgpu.enable_batch_join', 'on', true);
	SELECT count(*) INTO n FROM ps_a;
	SELECT count(*) INTO only_default FROM (TABLE ps_a EXCEPT ALL TABLE ps_b) x;
	SELECT count(*) INTO only_forced FROM (TABLE ps_b EXCEPT ALL TABLE ps_a) x;
	DROP TABLE ps_a, ps_b;
END $$;
-- more bodies than the cache holds, big (as ANALYZE measures them,
-- detoasted), in the TOAST table, closed
SELECT count(*) AS bodies,
	(SELECT avg_width FROM pg_stats WHERE tablename = 'ps_bodies' AND attname = 'geom') > 40000 AS big,
	(SELECT pg_relation_size(reltoastrelid) FROM pg_class WHERE relname = 'ps_bodies') > 14 * 8192 AS out_of_line,
	bool_and(ST_IsClosed(geom)) AS closed FROM ps_bodies;

-- inner joins: every hole against every body, and against the ore bodies
EXPLAIN (COSTS OFF)
SELECT h.hole_id, b.body_id FROM ps_holes h JOIN ps_bodies b ON ST_ExactIntersects3D(h.geom, b.geom);
SELECT * FROM ps_same('SELECT h.hole_id, b.body_id FROM ps_holes h JOIN ps_bodies b ON ST_ExactIntersects3D(h.geom, b.geom)');
EXPLAIN (COSTS OFF)
SELECT h.hole_id, b.body_id FROM ps_holes h JOIN ps_bodies b ON ST_ExactIntersects3D(h.geom, b.geom) WHERE b.kind = 'ore';
SELECT * FROM ps_same($$SELECT h.hole_id, b.body_id FROM ps_holes h JOIN ps_bodies b ON ST_ExactIntersects3D(h.geom, b.geom) WHERE b.kind = 'ore'$$);

-- semi and anti joins: EXISTS, NOT EXISTS, IN
EXPLAIN (COSTS OFF)
SELECT h.hole_id FROM ps_holes h WHERE EXISTS (SELECT 1 FROM ps_bodies b WHERE ST_ExactIntersects3D(b.geom, h.geom));
SELECT * FROM ps_same('SELECT h.hole_id FROM ps_holes h WHERE EXISTS (SELECT 1 FROM ps_bodies b WHERE ST_ExactIntersects3D(b.geom, h.geom))');
EXPLAIN (COSTS OFF)
SELECT h.hole_id FROM ps_holes h WHERE NOT EXISTS (SELECT 1 FROM ps_bodies b WHERE ST_ExactIntersects3D(b.geom, h.geom));
SELECT * FROM ps_same('SELECT h.hole_id FROM ps_holes h WHERE NOT EXISTS (SELECT 1 FROM ps_bodies b WHERE ST_ExactIntersects3D(b.geom, h.geom))');
EXPLAIN (COSTS OFF)
SELECT h.hole_id FROM ps_holes h WHERE h.hole_id IN
	(SELECT h2.hole_id FROM ps_holes h2 JOIN ps_bodies b ON ST_ExactIntersects3D(h2.geom, b.geom) WHERE b.kind = 'ore');
SELECT * FROM ps_same($$SELECT h.hole_id FROM ps_holes h WHERE h.hole_id IN
	(SELECT h2.hole_id FROM ps_holes h2 JOIN ps_bodies b ON ST_ExactIntersects3D(h2.geom, b.geom) WHERE b.kind = 'ore')$$);
-- ... with another clause in the subquery that reads both sides: it decides
-- what matches (custom_join_outer.c)
EXPLAIN (COSTS OFF)
SELECT h.hole_id FROM ps_holes h WHERE EXISTS
	(SELECT 1 FROM ps_bodies b WHERE ST_ExactIntersects3D(b.geom, h.geom) AND b.body_id % 3 <> h.hole_id % 3);
SELECT * FROM ps_same('SELECT h.hole_id FROM ps_holes h WHERE EXISTS
	(SELECT 1 FROM ps_bodies b WHERE ST_ExactIntersects3D(b.geom, h.geom) AND b.body_id % 3 <> h.hole_id % 3)');
SELECT * FROM ps_same('SELECT h.hole_id FROM ps_holes h WHERE NOT EXISTS
	(SELECT 1 FROM ps_bodies b WHERE ST_ExactIntersects3D(b.geom, h.geom) AND b.body_id % 3 <> h.hole_id % 3)');

-- through a CTE and a view
EXPLAIN (COSTS OFF)
WITH ore AS (SELECT * FROM ps_bodies WHERE kind = 'ore')
SELECT h.hole_id FROM ps_holes h WHERE EXISTS (SELECT 1 FROM ore o WHERE ST_ExactIntersects3D(o.geom, h.geom));
SELECT * FROM ps_same($$WITH ore AS (SELECT * FROM ps_bodies WHERE kind = 'ore')
SELECT h.hole_id FROM ps_holes h WHERE EXISTS (SELECT 1 FROM ore o WHERE ST_ExactIntersects3D(o.geom, h.geom))$$);
EXPLAIN (COSTS OFF)
SELECT h.hole_id FROM ps_holes h WHERE NOT EXISTS (SELECT 1 FROM ps_ore o WHERE ST_ExactIntersects3D(o.geom, h.geom));
SELECT * FROM ps_same('SELECT h.hole_id FROM ps_holes h WHERE NOT EXISTS (SELECT 1 FROM ps_ore o WHERE ST_ExactIntersects3D(o.geom, h.geom))');

-- samples in bodies (point in solid)
EXPLAIN (COSTS OFF)
SELECT s.sample_id, b.body_id FROM ps_samples s JOIN ps_bodies b ON ST_ExactIntersectsSolid3D(b.geom, s.geom);
SELECT * FROM ps_same('SELECT s.sample_id, b.body_id FROM ps_samples s JOIN ps_bodies b ON ST_ExactIntersectsSolid3D(b.geom, s.geom)');
EXPLAIN (COSTS OFF)
SELECT s.sample_id FROM ps_samples s WHERE NOT EXISTS (SELECT 1 FROM ps_bodies b WHERE ST_ExactIntersectsSolid3D(b.geom, s.geom));
SELECT * FROM ps_same('SELECT s.sample_id FROM ps_samples s WHERE NOT EXISTS (SELECT 1 FROM ps_bodies b WHERE ST_ExactIntersectsSolid3D(b.geom, s.geom))');

-- ORDER BY ... LIMIT
EXPLAIN (COSTS OFF)
SELECT h.hole_id, b.body_id FROM ps_holes h JOIN ps_bodies b ON ST_ExactIntersects3D(h.geom, b.geom)
ORDER BY h.hole_id, b.body_id LIMIT 10;
SELECT * FROM ps_same('SELECT h.hole_id, b.body_id FROM ps_holes h JOIN ps_bodies b ON ST_ExactIntersects3D(h.geom, b.geom)
ORDER BY h.hole_id, b.body_id LIMIT 10');

-- three-way: the holes whose collar is in tenement T2, against the bodies
EXPLAIN (COSTS OFF)
SELECT h.hole_id, b.body_id FROM ps_tenements t JOIN ps_collars c ON ST_ExactIntersects(t.geom, c.geom)
JOIN ps_holes h ON h.hole_id = c.hole_id JOIN ps_bodies b ON ST_ExactIntersects3D(h.geom, b.geom) WHERE t.name = 'T2';
SELECT * FROM ps_same($$SELECT h.hole_id, b.body_id FROM ps_tenements t JOIN ps_collars c ON ST_ExactIntersects(t.geom, c.geom)
JOIN ps_holes h ON h.hole_id = c.hole_id JOIN ps_bodies b ON ST_ExactIntersects3D(h.geom, b.geom) WHERE t.name = 'T2'$$);

-- outer joins: the rows of the kept side that meet nothing come back with
-- NULLs (hole 300, without geometry, among them)
EXPLAIN (COSTS OFF)
SELECT h.hole_id FROM ps_holes h LEFT JOIN ps_bodies b ON ST_ExactIntersects3D(h.geom, b.geom) WHERE b.body_id IS NULL;
SELECT * FROM ps_same('SELECT h.hole_id FROM ps_holes h LEFT JOIN ps_bodies b ON ST_ExactIntersects3D(h.geom, b.geom) WHERE b.body_id IS NULL');
SELECT count(*) AS holes_that_hit_nothing, bool_or(h.hole_id = 300) AS hole_without_geometry
FROM ps_holes h LEFT JOIN ps_bodies b ON ST_ExactIntersects3D(h.geom, b.geom) WHERE b.body_id IS NULL;
EXPLAIN (COSTS OFF)
SELECT h.hole_id, b.body_id FROM ps_holes h LEFT JOIN ps_bodies b ON ST_ExactIntersects3D(h.geom, b.geom);
SELECT * FROM ps_same('SELECT h.hole_id, b.body_id FROM ps_holes h LEFT JOIN ps_bodies b ON ST_ExactIntersects3D(h.geom, b.geom)');
-- another ON clause reading both sides: a pair that fails it is no match
-- (its hole comes back null-extended if nothing else matched)
EXPLAIN (COSTS OFF)
SELECT h.hole_id, b.body_id FROM ps_holes h LEFT JOIN ps_bodies b
	ON ST_ExactIntersects3D(h.geom, b.geom) AND b.body_id % 3 <> h.hole_id % 3;
SELECT * FROM ps_same('SELECT h.hole_id, b.body_id FROM ps_holes h LEFT JOIN ps_bodies b
	ON ST_ExactIntersects3D(h.geom, b.geom) AND b.body_id % 3 <> h.hole_id % 3');
-- a WHERE clause on the nullable side filters the null-extended rows too
SELECT * FROM ps_same($$SELECT h.hole_id, b.body_id FROM ps_holes h LEFT JOIN ps_bodies b
	ON ST_ExactIntersects3D(h.geom, b.geom) WHERE coalesce(b.kind, 'none') <> 'waste'$$);
EXPLAIN (COSTS OFF)
SELECT h.hole_id, b.body_id FROM ps_holes h RIGHT JOIN ps_bodies b ON ST_ExactIntersects3D(h.geom, b.geom) AND h.hole_id % 7 = 0;
SELECT * FROM ps_same('SELECT h.hole_id, b.body_id FROM ps_holes h RIGHT JOIN ps_bodies b ON ST_ExactIntersects3D(h.geom, b.geom) AND h.hole_id % 7 = 0');
-- the batch path of a RIGHT JOIN (run as a LEFT one, its sides swapped; the
-- nested loop above keeps each body cached and is the planner's choice)
SET enable_nestloop = off;
EXPLAIN (COSTS OFF)
SELECT h.hole_id, b.body_id FROM ps_holes h RIGHT JOIN ps_bodies b ON ST_ExactIntersects3D(h.geom, b.geom) AND h.hole_id % 7 = 0;
SELECT * FROM ps_same('SELECT h.hole_id, b.body_id FROM ps_holes h RIGHT JOIN ps_bodies b ON ST_ExactIntersects3D(h.geom, b.geom) AND h.hole_id % 7 = 0');
RESET enable_nestloop;
-- FULL JOIN: PostgreSQL has no plan of its own for it (the clause is
-- neither merge- nor hash-joinable); the reference is a LEFT JOIN and the
-- bodies no hole meets
EXPLAIN (COSTS OFF)
SELECT h.hole_id, b.body_id FROM ps_holes h FULL JOIN ps_bodies b ON ST_ExactIntersects3D(h.geom, b.geom) AND h.hole_id % 7 = 0;
SELECT * FROM ps_same('SELECT h.hole_id, b.body_id FROM ps_holes h FULL JOIN ps_bodies b ON ST_ExactIntersects3D(h.geom, b.geom) AND h.hole_id % 7 = 0',
	'SELECT h.hole_id, b.body_id FROM ps_holes h LEFT JOIN ps_bodies b ON ST_ExactIntersects3D(h.geom, b.geom) AND h.hole_id % 7 = 0
	 UNION ALL SELECT NULL, b.body_id FROM ps_bodies b
	 WHERE NOT EXISTS (SELECT 1 FROM ps_holes h WHERE ST_ExactIntersects3D(h.geom, b.geom) AND h.hole_id % 7 = 0)');
SET exactgpu.enable_batch_join = off;
SELECT count(*) FROM ps_holes h FULL JOIN ps_bodies b ON ST_ExactIntersects3D(h.geom, b.geom);
RESET exactgpu.enable_batch_join;
-- under a LIMIT (the pairs stream; no unmatched row is handed out early)
SELECT count(*) FROM (SELECT h.hole_id, b.body_id FROM ps_holes h LEFT JOIN ps_bodies b
	ON ST_ExactIntersects3D(h.geom, b.geom) LIMIT 5) x;

-- A body of another SRID. Filtered out by a clause on its own table, even
-- in an outer join's ON clause, it never reaches the batch join; filtered
-- out only by a clause that reads both sides, the batch reads it and
-- raises the error a nested loop without an index would (custom_join_exec.c).
INSERT INTO ps_bodies VALUES (99, 'waste', ST_SetSRID(ps_cube(500, 0, 0, 1, 1), 4326));
SELECT count(*) FROM ps_holes h LEFT JOIN ps_bodies b ON ST_ExactIntersects3D(h.geom, b.geom) AND b.body_id <> 99;
SELECT count(*) FROM ps_holes h LEFT JOIN ps_bodies b ON ST_ExactIntersects3D(h.geom, b.geom) AND b.body_id <> h.hole_id + 99 - h.hole_id;

DROP VIEW ps_ore;
DROP TABLE ps_bodies, ps_holes, ps_samples, ps_collars, ps_tenements;
DROP FUNCTION ps_same(text, text);
DROP FUNCTION ps_cube(float8, float8, float8, float8, int);
DROP FUNCTION ps_pt(float8, float8, float8);
RESET exactgpu.device;
