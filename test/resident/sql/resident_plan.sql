-- The planner prices the probe join where the executor will take it (the
-- one rule, exactgpu_probe_rule, asked of the estimates): with the bodies
-- kept in the store, a plain JOIN of a few holes against them is planned as
-- Custom Scan (ExactJoin), which probes them, and gives the nested loop's
-- rows; a join the probe does not take keeps the plan it has with
-- exactgpu.probe_join off; bodies not kept are priced as the probe will
-- run them (prepared and kept first).
SET client_min_messages = warning;
SELECT exactgpu_resident_evict() >= 0 AS evicted;
\set cube_fn pl_cube
\i test/regress/fixtures/subdivided_cube.sql
-- 6 cubes of 1200 triangles (~115 kB each, out of line) in a row along x
CREATE TABLE pl_bodies (id int PRIMARY KEY, geom geometry);
ALTER TABLE pl_bodies ALTER COLUMN geom SET STORAGE EXTERNAL;
INSERT INTO pl_bodies SELECT i, pl_cube(5 * i, 0, 0, 4, 10) FROM generate_series(0, 5) i;
-- 6 small cubes (12 triangles, in line)
CREATE TABLE pl_small (id int PRIMARY KEY, geom geometry);
INSERT INTO pl_small SELECT i, pl_cube(5 * i, 0, 0, 4, 1) FROM generate_series(0, 5) i;
-- 2,000 holes of 5 segments over the row of cubes (x from 0 to 30), some
-- through them, some between: a few of them are far fewer bytes than the
-- bodies, all of them more than a quarter
CREATE TABLE pl_holes (id int PRIMARY KEY, geom geometry);
INSERT INTO pl_holes
SELECT i, ST_MakeLine(ARRAY(SELECT ST_MakePoint(x + 0.06 * k, y, 5 - 1.2 * k) FROM generate_series(0, 5) k))
FROM (SELECT i, (i * 0.29) % 30 AS x, (i * 0.37) % 4 AS y FROM generate_series(1, 2000) i) s;
CREATE INDEX ON pl_bodies USING gist (geom gist_geometry_ops_nd);
CREATE INDEX ON pl_small USING gist (geom gist_geometry_ops_nd);
CREATE INDEX ON pl_holes USING gist (geom gist_geometry_ops_nd);
ANALYZE pl_bodies, pl_small, pl_holes;
SELECT bool_and(pg_column_size(geom) > 8200) AS bodies_out_of_line,
	(SELECT bool_and(pg_column_size(geom) < 2000) FROM pl_small) AS small_in_line
FROM pl_bodies;

-- q's plan, as EXPLAIN (COSTS OFF) prints it; its top join node; the total
-- cost of its first ExactJoin
CREATE FUNCTION pl_plan(q text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
	r text;
	p text := '';
BEGIN
	FOR r IN EXECUTE 'EXPLAIN (COSTS OFF) ' || q LOOP
		p := p || r || E'\n';
	END LOOP;
	RETURN p;
END $$;
CREATE FUNCTION pl_node(plan text) RETURNS text LANGUAGE sql AS $$
	SELECT (regexp_match(plan, '(Nested Loop|Hash Join|Merge Join|Custom Scan \(\w+\))'))[1] $$;
CREATE FUNCTION pl_join(q text) RETURNS text LANGUAGE sql AS $$ SELECT pl_node(pl_plan(q)) $$;
CREATE FUNCTION pl_exact_join_cost(q text) RETURNS float8 LANGUAGE plpgsql AS $$
DECLARE
	p json;
BEGIN
	-- the ExactJoin planned whatever else is cheaper
	SET LOCAL enable_nestloop = off;
	SET LOCAL enable_hashjoin = off;
	SET LOCAL enable_mergejoin = off;
	EXECUTE 'EXPLAIN (FORMAT JSON) ' || q INTO p;
	RETURN (SELECT (n->>'Total Cost')::float8 FROM jsonb_path_query(p::jsonb, 'strict $.**') n
		WHERE jsonb_typeof(n) = 'object' AND n->>'Custom Plan Provider' = 'ExactJoin' LIMIT 1);
END $$;
-- q as planned (its join node, whether it probed) against the same query
-- with the batch join off: the row pairs one has and the other lacks
CREATE FUNCTION pl_same(q text) RETURNS TABLE (join_node text, probed boolean, pairs bigint, differ bigint)
LANGUAGE plpgsql AS $$
BEGIN
	join_node := pl_join(q);
	EXECUTE 'CREATE TEMP TABLE pl_on AS ' || q;
	-- (the stats are the last batch join's: this one's where it ran one)
	SELECT join_node = 'Custom Scan (ExactJoin)' AND device LIKE 'CPU probe%' INTO probed
	FROM exactgpu_last_join_stats();
	SET LOCAL exactgpu.enable_batch_join = off;
	EXECUTE 'CREATE TEMP TABLE pl_off AS ' || q;
	RESET exactgpu.enable_batch_join;
	SELECT count(*) INTO pairs FROM pl_on;
	SELECT count(*) INTO differ FROM ((TABLE pl_on EXCEPT ALL TABLE pl_off) UNION ALL (TABLE pl_off EXCEPT ALL TABLE pl_on)) d;
	DROP TABLE pl_on, pl_off;
	RETURN NEXT;
END $$;
-- the plan with exactgpu.probe_join off (the batch join priced as flattening)
CREATE FUNCTION pl_plan_probe_off(q text) RETURNS text LANGUAGE plpgsql AS $$
BEGIN
	SET LOCAL exactgpu.probe_join = off;
	RETURN pl_plan(q);
END $$;

\set few 'SELECT h.id AS h, b.id AS b FROM pl_holes h JOIN pl_bodies b ON ST_ExactIntersects3D(h.geom, b.geom) WHERE h.id BETWEEN 100 AND 199'
\set few_exists 'SELECT h.id AS h FROM pl_holes h WHERE h.id BETWEEN 100 AND 199 AND EXISTS (SELECT FROM pl_bodies b WHERE ST_ExactIntersects3D(h.geom, b.geom))'
\set few_small 'SELECT h.id AS h, b.id AS b FROM pl_holes h JOIN pl_small b ON ST_ExactIntersects3D(h.geom, b.geom) WHERE h.id BETWEEN 100 AND 199'
\set all_holes 'SELECT h.id AS h, b.id AS b FROM pl_holes h JOIN pl_bodies b ON ST_ExactIntersects3D(h.geom, b.geom)'

-- cold: the bodies' preparation is the probe's price
SELECT pl_exact_join_cost(:'few') AS cold_cost \gset
-- warm: the bodies kept, the probe borrows them
SELECT count(*) FILTER (WHERE exactgpu_resident_keep(geom)) AS kept FROM pl_bodies;
SELECT pl_exact_join_cost(:'few') < :cold_cost / 2 AS warm_priced_below_cold;
SELECT * FROM pl_same(:'few');
SELECT pl_node(pl_plan_probe_off(:'few')) AS plan_probe_off;
SELECT * FROM pl_same(:'few_exists');
-- joins the probe does not take keep their plans: bodies in line (without
-- a resident identity), and every hole (more than a quarter of the bodies'
-- bytes)
SELECT pl_plan(:'few_small') = pl_plan_probe_off(:'few_small') AS same_plan_in_line_bodies;
SELECT pl_plan(:'all_holes') = pl_plan_probe_off(:'all_holes') AS same_plan_all_holes;
SELECT * FROM pl_same(:'all_holes');
-- no pin outlives its transaction
SELECT count(*) FILTER (WHERE pins > 0) AS pinned FROM exactgpu_resident_entries();

DROP FUNCTION pl_same(text), pl_plan_probe_off(text), pl_exact_join_cost(text), pl_join(text), pl_node(text), pl_plan(text);
DROP TABLE pl_bodies, pl_small, pl_holes;
DROP FUNCTION pl_cube(float8, float8, float8, float8, int);
