-- exactgpu.invalid_rows (issue 30): every batch function names the row it
-- cannot use by its id (of any type), and under 'skip' leaves such rows
-- out with one NOTICE. Skipping is exact: each join with skip over tables
-- with bad rows equals the same join, with errors on, over the tables
-- filtered to the rows that function can use.
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS postgis;
CREATE EXTENSION IF NOT EXISTS exactgpu;
RESET client_min_messages;

CREATE FUNCTION ir_cube(x float8, y float8, z float8, s float8, outward boolean DEFAULT true,
                        ntri integer DEFAULT 12) RETURNS text LANGUAGE sql AS $$
	SELECT string_agg(format('((%s %s %s, %s %s %s, %s %s %s, %s %s %s))',
		x + s * a[1], y + s * a[2], z + s * a[3],
		x + s * a[b1], y + s * a[b1 + 1], z + s * a[b1 + 2],
		x + s * a[b2], y + s * a[b2 + 1], z + s * a[b2 + 2],
		x + s * a[1], y + s * a[2], z + s * a[3]), ',' ORDER BY n)
	FROM (SELECT a, row_number() OVER () AS n,
	             CASE WHEN outward THEN 4 ELSE 7 END AS b1, CASE WHEN outward THEN 7 ELSE 4 END AS b2
	      FROM (VALUES (ARRAY[0,0,0, 0,1,0, 1,1,0]), (ARRAY[0,0,0, 1,1,0, 1,0,0]),
	                   (ARRAY[0,0,1, 1,0,1, 1,1,1]), (ARRAY[0,0,1, 1,1,1, 0,1,1]),
	                   (ARRAY[0,0,0, 1,0,0, 1,0,1]), (ARRAY[0,0,0, 1,0,1, 0,0,1]),
	                   (ARRAY[0,1,0, 0,1,1, 1,1,1]), (ARRAY[0,1,0, 1,1,1, 1,1,0]),
	                   (ARRAY[0,0,0, 0,0,1, 0,1,1]), (ARRAY[0,0,0, 0,1,1, 0,1,0]),
	                   (ARRAY[1,0,0, 1,1,0, 1,1,1]), (ARRAY[1,0,0, 1,1,1, 1,0,1])) v(a)) t
	WHERE n <= ntri
$$;

-- bodies: good cubes, and one of each kind of bad row; bad says why a
-- function may not use it (parse, srid: every join; z: the 3D joins that
-- check dimensions, not the intercepts; solid: where bodies are volumes). An inside-out body is a volume to the joins (only
-- ST_ExactVolume needs it outward): not bad.
CREATE TABLE ir_bodies (id integer, tid text, bad text, geom geometry);
INSERT INTO ir_bodies
SELECT i, 'ore ' || i, NULL, ('TIN Z(' || ir_cube(i * 2.5 - 1, (i % 3) * 2.0, 0, 3) || ')')::geometry
FROM generate_series(1, 6) i;
INSERT INTO ir_bodies VALUES
	(11, 'open', 'solid', ('TIN Z(' || ir_cube(1, 1, 1, 3, true, 11) || ')')::geometry),
	(12, 'merged', 'solid', ('TIN Z(' || ir_cube(1, 1, 1, 2) || ',' || ir_cube(2, 1, 1, 2) || ')')::geometry),
	(13, 'inside out', NULL, ('TIN Z(' || ir_cube(4, 1, 1, 2, false) || ')')::geometry),
	(14, 'flat', 'z', ST_Force2D(('TIN Z(' || ir_cube(3, 1, 0, 2) || ')')::geometry)),
	(15, 'srid', 'srid', ST_SetSRID(('TIN Z(' || ir_cube(3, 1, 0, 2) || ')')::geometry, 32719)),
	(16, 'nan', 'parse', ('TIN Z(((0 0 0, NaN 1 0, 1 0 0, 0 0 0)))')::geometry);
-- holes: good lines and bad ones (line: where a hole must be a line)
CREATE TABLE ir_holes (id integer, tid text, bad text, geom geometry);
INSERT INTO ir_holes
SELECT i, 'MXD-' || lpad(i::text, 4, '0'), NULL,
       ST_MakeLine(ST_MakePoint(i * 0.7, i * 0.3, 9), ST_MakePoint(i * 0.7 + 1, i * 0.3 - 1, -3))
FROM generate_series(1, 25) i;
INSERT INTO ir_holes VALUES
	(31, 'MXD-nan', 'parse', ST_MakeLine(ST_MakePoint('NaN', 1, 9), ST_MakePoint(2, 1, -3))),
	(32, 'MXD-flat', 'z', 'LINESTRING(2 1, 3 2)'),
	(33, 'MXD-srid', 'srid', ST_SetSRID(ST_MakeLine(ST_MakePoint(2, 1, 9), ST_MakePoint(2, 1, -3)), 32719)),
	(34, 'MXD-poly', 'line', 'POLYGON Z((2 1 1, 3 1 1, 3 2 1, 2 1 1))');
CREATE TABLE ir_points (id integer, tid text, bad text, geom geometry);
INSERT INTO ir_points
SELECT i, 'S-' || i, NULL, ST_MakePoint((i % 7) * 1.3, (i % 5) * 1.9, (i % 3) * 2.1)
FROM generate_series(1, 40) i;
INSERT INTO ir_points VALUES (41, 'S-flat', 'z', 'POINT(1 1)'), (42, 'S-nan', 'parse', ST_MakePoint(1, 'NaN', 1)),
	(43, 'S-line', 'point', 'LINESTRING Z(1 1 1, 2 2 2)');

-- The join with skip over every row, mapped back to integer ids, equals
-- the join without skip over the rows without the listed kinds of bad;
-- and the rows left out are exactly the others.
CREATE FUNCTION ir_same(fn text, lt text, rt text, lbad text[], rbad text[], extra text DEFAULT '''''')
RETURNS text LANGUAGE plpgsql AS $$
DECLARE
	skipped text[];
	good text[];
	left_out text[];
	expect_out text[];
BEGIN
	SET LOCAL exactgpu.invalid_rows = skip;
	SET LOCAL client_min_messages = warning;
	EXECUTE format('SELECT coalesce(array_agg(s ORDER BY s), ''{}'') FROM
	                (SELECT l.id || '':'' || r.id || '':'' || %s AS s
	                 FROM %s(%L, %L, NULL::text, NULL::text) j
	                 JOIN %I l ON l.tid = j.left_key JOIN %I r ON r.tid = j.right_key) q',
	               extra, fn, format('SELECT tid, geom FROM %I', lt), format('SELECT tid, geom FROM %I', rt),
	               lt, rt) INTO skipped;
	SELECT coalesce(array_agg(id ORDER BY id), '{}') INTO left_out FROM exactgpu_last_join_skipped();
	SET LOCAL exactgpu.invalid_rows = error;
	EXECUTE format('SELECT coalesce(array_agg(s ORDER BY s), ''{}'') FROM
	                (SELECT j.l || '':'' || j.r || '':'' || %s AS s FROM %s(%L, %L) AS j(l, r)) q',
	               extra, fn,
	               format('SELECT id, geom FROM %I WHERE bad IS NULL OR bad <> ALL (%L)', lt, lbad),
	               format('SELECT id, geom FROM %I WHERE bad IS NULL OR bad <> ALL (%L)', rt, rbad)) INTO good;
	EXECUTE format('SELECT coalesce(array_agg(tid ORDER BY tid), ''{}'') FROM
	                (SELECT tid FROM %I WHERE bad = ANY (%L) UNION ALL SELECT tid FROM %I WHERE bad = ANY (%L)) q',
	               lt, lbad, rt, rbad) INTO expect_out;
	RETURN format('%s pairs, same: %s, left out as expected: %s', cardinality(good), skipped = good,
	              left_out = expect_out);
END
$$;

SELECT fn, ir_same(fn, lt, rt, lb, rb, ex)
FROM (VALUES
	('ST_ExactIntersects3DJoin', 'ir_holes', 'ir_bodies', '{parse,z,srid}'::text[], '{parse,z,srid}'::text[], ''''''),
	('ST_ExactIntersectsJoin', 'ir_holes', 'ir_bodies', '{parse,srid}', '{parse,srid}', ''''''),
	('ST_ExactIntersectsSolid3DJoin', 'ir_bodies', 'ir_holes', '{parse,z,srid,solid}', '{parse,z,srid}', ''''''),
	('ST_ExactLocate3DJoin', 'ir_points', 'ir_bodies', '{parse,z,point}', '{parse,z,srid,solid}', ''''''),
	('ST_BoxJoin', 'ir_holes', 'ir_bodies', '{parse,srid}', '{parse,srid}', ''''''),
	('ST_3DBoxJoin', 'ir_points', 'ir_bodies', '{parse}', '{parse,srid}', ''''''),
	('ST_ExactIntercepts3DJoin', 'ir_holes', 'ir_bodies', '{parse,z,srid,line}', '{parse,z,srid,solid}', 'from_m || '':'' || to_m'),
	('ST_ExactInterceptPieces3DJoin', 'ir_holes', 'ir_bodies', '{parse,z,srid,line}', '{parse,z,srid,solid}',
	 'from_m || '':'' || to_m || '':'' || ST_AsEWKT(piece)')) f(fn, lt, rt, lb, rb, ex)
ORDER BY 1;

-- the NOTICE and the list, once
SET exactgpu.invalid_rows = skip;
SELECT count(*) FROM ST_ExactIntersectsSolid3DJoin('SELECT tid, geom FROM ir_bodies ORDER BY id',
	'SELECT tid, geom FROM ir_holes ORDER BY id', NULL::text, NULL::text);
SELECT * FROM exactgpu_last_join_skipped() ORDER BY side, id;
-- over batches too, and with a NULL id
SELECT count(*) FROM ST_ExactIntersects3DJoin((SELECT ST_ExactBatch(tid, geom) FROM ir_holes),
	(SELECT ST_ExactBatch(tid, geom) FROM ir_bodies), NULL::text, NULL::text);
SELECT * FROM exactgpu_last_join_skipped() ORDER BY side, id;
SELECT count(*) FROM ST_ExactIntersects3DJoin('SELECT tid, geom FROM ir_holes WHERE bad IS NULL',
	'SELECT NULL::text, geom FROM ir_bodies WHERE id = 1 UNION ALL SELECT tid, geom FROM ir_bodies WHERE id = 2', NULL::text, NULL::text);
SELECT * FROM exactgpu_last_join_skipped() ORDER BY side, id;
-- a join that leaves nothing out says nothing, and empties the list
SELECT count(*) FROM ST_ExactIntersects3DJoin('SELECT id, geom FROM ir_holes WHERE bad IS NULL', 'SELECT id, geom FROM ir_bodies WHERE bad IS NULL');
SELECT count(*) FROM exactgpu_last_join_skipped();
RESET exactgpu.invalid_rows;
SET exactgpu.invalid_rows = sometimes;

-- Errors name the row by its id, one test per message.
\set VERBOSITY default
-- another SRID than the side's first row
SELECT * FROM ST_ExactIntersects3DJoin('SELECT tid, geom FROM ir_holes WHERE id IN (1, 33) ORDER BY id', 'SELECT tid, geom FROM ir_bodies WHERE id = 1', NULL::text, NULL::text);
-- no Z in a 3D join
SELECT * FROM ST_ExactIntersects3DJoin('SELECT tid, geom FROM ir_holes WHERE id IN (1, 32)', 'SELECT tid, geom FROM ir_bodies WHERE id = 1', NULL::text, NULL::text);
-- NaN
SELECT * FROM ST_ExactIntersects3DJoin('SELECT tid, geom FROM ir_holes WHERE id IN (1, 31)', 'SELECT tid, geom FROM ir_bodies WHERE id = 1', NULL::text, NULL::text);
SELECT * FROM ST_3DBoxJoin('SELECT tid, geom FROM ir_holes WHERE id IN (1, 31)', 'SELECT tid, geom FROM ir_bodies WHERE id = 1', NULL::text, NULL::text);
-- open and self-intersecting bodies
SELECT * FROM ST_ExactIntersectsSolid3DJoin('SELECT tid, geom FROM ir_bodies WHERE id IN (1, 11)', 'SELECT tid, geom FROM ir_holes WHERE id = 1', NULL::text, NULL::text);
SELECT * FROM ST_ExactIntersectsSolid3DJoin('SELECT tid, geom FROM ir_bodies WHERE id IN (1, 12)', 'SELECT tid, geom FROM ir_holes WHERE id = 1', NULL::text, NULL::text);
SELECT * FROM ST_ExactLocate3DJoin('SELECT tid, geom FROM ir_points WHERE id = 1', 'SELECT tid, geom FROM ir_bodies WHERE id IN (1, 12)', NULL::text, NULL::text);
SELECT * FROM ST_ExactIntercepts3DJoin('SELECT tid, geom FROM ir_holes WHERE bad IS NULL', 'SELECT tid, geom FROM ir_bodies WHERE id IN (1, 11)', NULL::text, NULL::text);
-- a hole that is no line, a point that is no point
SELECT * FROM ST_ExactIntercepts3DJoin('SELECT tid, geom FROM ir_holes WHERE id IN (1, 34)', 'SELECT tid, geom FROM ir_bodies WHERE id = 1', NULL::text, NULL::text);
SELECT * FROM ST_ExactLocate3DJoin('SELECT tid, geom FROM ir_points WHERE id IN (1, 43)', 'SELECT tid, geom FROM ir_bodies WHERE id = 1', NULL::text, NULL::text);
-- uuid ids print as uuids
SELECT * FROM ST_ExactIntersectsSolid3DJoin('SELECT md5(tid)::uuid, geom FROM ir_bodies WHERE id = 11', 'SELECT tid, geom FROM ir_holes WHERE id = 1', NULL::uuid, NULL::text);
-- a NULL id (no id to name)
SELECT * FROM ST_ExactIntersects3DJoin('SELECT NULL::text, geom FROM ir_holes', 'SELECT tid, geom FROM ir_bodies WHERE id = 1', NULL::text, NULL::text);

DROP FUNCTION ir_same(text, text, text, text[], text[], text);
DROP FUNCTION ir_cube(float8, float8, float8, float8, boolean, integer);
DROP TABLE ir_bodies, ir_holes, ir_points;
