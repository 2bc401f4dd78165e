-- The probe join with the resident store: a batch join of a few holes
-- against bodies stored out of line borrows the bodies' prepared forms from
-- the store (a body not kept yet is prepared once and kept), and its pairs,
-- in their order, are the batch join's (exactgpu.probe_join = off), through
-- an update of a body and an eviction of everything.
SET client_min_messages = warning;
SELECT exactgpu_resident_evict() >= 0 AS evicted;
\set cube_fn rp_cube
\i test/regress/fixtures/subdivided_cube.sql
-- 6 cubes of 1200 triangles (~115 kB each, out of line), ids out of order
CREATE TABLE rp_bodies (id int, geom geometry);
ALTER TABLE rp_bodies ALTER COLUMN geom SET STORAGE EXTERNAL;
INSERT INTO rp_bodies SELECT 60 - 10 * i, rp_cube(5 * i, 0, 0, 4, 10) FROM generate_series(0, 5) i;
-- 40 holes, some along faces and edges (x and y on the 0.4 grid of the faces)
CREATE TABLE rp_holes (id int, geom geometry);
INSERT INTO rp_holes
SELECT 41 - i, CASE WHEN i % 3 = 0
	THEN ST_MakeLine(ST_MakePoint(0.4 * i, 0.4 * (i % 11), -1), ST_MakePoint(0.4 * i, 0.4 * (i % 11), 5))
	ELSE ST_MakeLine(ST_MakePoint(0.7 * i, -1, 0.1 * i), ST_MakePoint(0.7 * i + 1, 5, 3)) END
FROM generate_series(1, 40) i;

CREATE FUNCTION rp_pairs(fn text, l text, r text) RETURNS TABLE (o bigint, a bigint, b bigint)
LANGUAGE plpgsql AS $$
BEGIN
	RETURN QUERY EXECUTE format('SELECT o, a, b FROM %s($1, $2) WITH ORDINALITY AS t(a, b, o)', fn) USING l, r;
END $$;
CREATE FUNCTION rp_same(what text, fn text DEFAULT 'ST_ExactIntersects3DJoin',
	l text DEFAULT 'SELECT id, geom FROM rp_holes', r text DEFAULT 'SELECT id, geom FROM rp_bodies')
	RETURNS TABLE (label text, probed boolean, pairs bigint, differ bigint)
LANGUAGE plpgsql AS $$
DECLARE
	dev text;
BEGIN
	SET LOCAL exactgpu.probe_join = off;
	CREATE TEMP TABLE rp_off AS SELECT * FROM rp_pairs(fn, l, r);
	SET LOCAL exactgpu.probe_join = on;
	CREATE TEMP TABLE rp_on AS SELECT * FROM rp_pairs(fn, l, r);
	SELECT device INTO dev FROM exactgpu_last_join_stats();
	RETURN QUERY SELECT what, dev LIKE 'CPU probe%', (SELECT count(*) FROM rp_on),
		(SELECT count(*) FROM ((TABLE rp_on EXCEPT TABLE rp_off) UNION ALL (TABLE rp_off EXCEPT TABLE rp_on)) d);
	DROP TABLE rp_on, rp_off;
END $$;

-- cold: the bodies are prepared and kept; warm: borrowed
SELECT * FROM rp_same('cold');
SELECT count(*) FILTER (WHERE kind <> 'join side') >= 6 AS bodies_kept FROM exactgpu_resident_entries();
SELECT hits AS hits_before FROM exactgpu_resident \gset
SELECT * FROM rp_same('warm');
SELECT hits - :hits_before >= 6 AS borrowed FROM exactgpu_resident;
-- an updated body is a new value: the probe reads the new one
UPDATE rp_bodies SET geom = rp_cube(1, 1, 1, 2, 10) WHERE id = 60;
SELECT * FROM rp_same('updated');
-- everything evicted between two joins
SELECT exactgpu_resident_evict() >= 0 AS evicted;
SELECT * FROM rp_same('evicted');
-- the store off for this session: bodies prepared for the join, or the
-- batch join (too big to prepare for one join): the same pairs either way
SET exactgpu.resident = off;
SELECT label, pairs, differ FROM rp_same('store off');
RESET exactgpu.resident;
-- volumes and point in solid: each body judged once, its verdicts kept
-- beside its block for the joins after it (the same pairs cold and warm)
SELECT * FROM rp_same('volumes', 'ST_ExactIntersectsSolid3DJoin', 'SELECT id, geom FROM rp_bodies', 'SELECT id, geom FROM rp_holes');
SELECT * FROM rp_same('volumes, warm', 'ST_ExactIntersectsSolid3DJoin', 'SELECT id, geom FROM rp_bodies', 'SELECT id, geom FROM rp_holes');
CREATE TABLE rp_points AS SELECT id, ST_StartPoint(geom) AS geom FROM rp_holes
	UNION ALL SELECT 100 + id, ST_LineInterpolatePoint(geom, 0.5) FROM rp_holes;
SELECT * FROM rp_same('point in solid', 'ST_ExactLocate3DJoin', 'SELECT id, geom FROM rp_points', 'SELECT id, geom FROM rp_bodies');
-- no pin outlives its transaction
SELECT count(*) FILTER (WHERE pins > 0) AS pinned FROM exactgpu_resident_entries();

DROP FUNCTION rp_same(text, text, text, text);
DROP FUNCTION rp_pairs(text, text, text);
DROP TABLE rp_bodies, rp_holes, rp_points;
DROP FUNCTION rp_cube(float8, float8, float8, float8, int);
