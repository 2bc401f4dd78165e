-- Batch joins return their pairs sorted by (left id, right id), each once,
-- whatever order the rows come in and however many rows share an id: the
-- row pairs are sorted once, by the engine, in id order. Checked with no
-- ORDER BY, against the row-by-row predicates.
\i test/regress/fixtures/sfcgal.sql
-- strips of overlapping boxes, read in a shuffled id order, each id shared
-- by two rows far apart; and lines across them, ids decreasing
CREATE TABLE jo_strips (id bigint, geom geometry);
INSERT INTO jo_strips
SELECT (i * 37) % 50, ST_MakeEnvelope(i, 0, i + 2.5, 1 + i % 3)
FROM generate_series(0, 99) i;
CREATE TABLE jo_lines (id bigint, geom geometry);
INSERT INTO jo_lines
SELECT 1000 - i, ST_MakeLine(ST_MakePoint(i * 3.5, -1), ST_MakePoint(i * 3.5 + 4, 2 + i % 2))
FROM generate_series(0, 29) i;
CREATE FUNCTION jo_check(got regclass, want text) RETURNS TABLE (pairs bigint, missing bigint, extra bigint, out_of_order bigint)
LANGUAGE plpgsql AS $$
BEGIN
	RETURN QUERY EXECUTE format($q$
		WITH w AS (%s),
		     n AS (SELECT left_id, right_id, row_number() OVER () AS k FROM %s)
		SELECT (SELECT count(*) FROM n),
		       (SELECT count(*) FROM (SELECT * FROM w EXCEPT SELECT left_id, right_id FROM n) d),
		       (SELECT count(*) FROM (SELECT left_id, right_id FROM n EXCEPT SELECT * FROM w) d),
		       (SELECT count(*) FROM n a JOIN n b ON b.k = a.k + 1
		        WHERE (a.left_id, a.right_id) >= (b.left_id, b.right_id))$q$, want, got);
END $$;
CREATE TEMP TABLE jo_2d AS
SELECT * FROM ST_ExactIntersectsJoin('SELECT id, geom FROM jo_strips', 'SELECT id, geom FROM jo_lines');
SELECT * FROM jo_check('jo_2d', $$SELECT DISTINCT s.id, l.id FROM jo_strips s JOIN jo_lines l
                                  ON ST_ExactIntersects(s.geom, l.geom)$$);
CREATE TEMP TABLE jo_2d_rev AS
SELECT * FROM ST_ExactIntersectsJoin('SELECT id, geom FROM jo_lines', 'SELECT id, geom FROM jo_strips ORDER BY id DESC');
SELECT * FROM jo_check('jo_2d_rev', $$SELECT DISTINCT l.id, s.id FROM jo_strips s JOIN jo_lines l
                                      ON ST_ExactIntersects(s.geom, l.geom)$$);
-- 3D: points in cubes as volumes (found by containment alone: the
-- point-in-solid join with the bodies on the left), ids shuffled and shared
CREATE TABLE jo_cubes (id bigint, geom geometry);
INSERT INTO jo_cubes
SELECT 10 - i % 4, ST_MakeSolid(ST_Extrude(ST_MakeEnvelope(i * 2, 0, i * 2 + 3, 3), 0, 0, 3))
FROM generate_series(0, 7) i;
CREATE TABLE jo_points (id bigint, geom geometry);
INSERT INTO jo_points
SELECT (i * 13) % 40, ST_MakePoint(i * 0.4, 1 + (i % 5) * 0.5, (i % 7) * 0.5)
FROM generate_series(0, 59) i;
CREATE TEMP TABLE jo_3d AS
SELECT * FROM ST_ExactIntersectsSolid3DJoin('SELECT id, geom FROM jo_cubes', 'SELECT id, geom FROM jo_points ORDER BY id DESC');
SELECT * FROM jo_check('jo_3d', $$SELECT DISTINCT c.id, p.id FROM jo_points p JOIN jo_cubes c
                                  ON ST_ExactIntersectsSolid3D(c.geom, p.geom)$$);
-- points and short segments: the primitive join's pairs and those found by
-- containment, sorted apart and merged
CREATE TABLE jo_mixed AS
SELECT id, geom FROM jo_points
UNION ALL
SELECT 100 + (i * 7) % 11, ST_MakeLine(ST_MakePoint(i * 0.7, 1.5, 0.2 + (i % 3)), ST_MakePoint(i * 0.7 + 0.3, 1.7, 0.4 + (i % 3)))
FROM generate_series(0, 29) i;
CREATE TEMP TABLE jo_3d_mixed AS
SELECT * FROM ST_ExactIntersectsSolid3DJoin('SELECT id, geom FROM jo_cubes', 'SELECT id, geom FROM jo_mixed');
SELECT * FROM jo_check('jo_3d_mixed', $$SELECT DISTINCT c.id, m.id FROM jo_mixed m JOIN jo_cubes c
                                        ON ST_ExactIntersectsSolid3D(c.geom, m.geom)$$);
CREATE TEMP TABLE jo_locate AS
SELECT point_id AS left_id, solid_id AS right_id
FROM ST_ExactLocate3DJoin('SELECT id, geom FROM jo_points ORDER BY id DESC', 'SELECT id, geom FROM jo_cubes');
SELECT * FROM jo_check('jo_locate', $$SELECT DISTINCT p.id, c.id FROM jo_points p JOIN jo_cubes c
                                      ON ST_ExactIntersectsSolid3D(c.geom, p.geom)$$);
DROP TABLE jo_strips, jo_lines, jo_cubes, jo_points, jo_mixed, jo_2d, jo_2d_rev, jo_3d, jo_3d_mixed, jo_locate;
DROP FUNCTION jo_check(regclass, text);
