-- The resident store (exactgpu.resident_memory = 4 MB in this cluster, with
-- exactgpu preloaded): row-level predicates borrow prepared bodies from
-- shared memory. Every answer must equal the one without the store
-- (exactgpu.resident = off), through updates, deletes, vacuum, truncate and
-- table rewrites; the budget evicts, and a body too big to keep is used as
-- without the store.
SET client_min_messages = warning;
-- batch joins here flatten their sides (the side kept flattened is what they
-- test); the probe join of a few holes against kept bodies has its own test
-- (resident_probe.sql)
SET exactgpu.probe_join = off;
SELECT setseed(0.5);
SELECT enabled, capacity_bytes = 4 * 1024 * 1024 AS four_mb, entries FROM exactgpu_resident;

-- 40 bodies of 200 random tetrahedra, each in a cell of its own so that
-- the shells do not overlap (800 triangles, 77 kB, ~26 kB compressed: out
-- of line, as PostGIS's storage 'main' keeps smaller compressed values in
-- line)
CREATE TABLE rs_bodies (id int PRIMARY KEY, geom geometry);
INSERT INTO rs_bodies
SELECT i, ST_GeomFromText('TIN Z (' || string_agg(format(
		'((%1$s,%2$s,%3$s,%1$s)),((%1$s,%2$s,%4$s,%1$s)),((%1$s,%3$s,%4$s,%1$s)),((%2$s,%3$s,%4$s,%2$s))',
		a, b, c, d), ',') || ')')
FROM (SELECT i, format('%s %s %s', x0 + (t % 20 + 0.001 + 0.998 * random()) / 20, (t / 20 + 0.001 + 0.998 * random()) / 10, random()) AS a,
		format('%s %s %s', x0 + (t % 20 + 0.001 + 0.998 * random()) / 20, (t / 20 + 0.001 + 0.998 * random()) / 10, random()) AS b,
		format('%s %s %s', x0 + (t % 20 + 0.001 + 0.998 * random()) / 20, (t / 20 + 0.001 + 0.998 * random()) / 10, random()) AS c,
		format('%s %s %s', x0 + (t % 20 + 0.001 + 0.998 * random()) / 20, (t / 20 + 0.001 + 0.998 * random()) / 10, random()) AS d
	FROM (SELECT i, (i % 20)::float8 AS x0 FROM generate_series(0, 39) i) c,
		generate_series(0, 199) t) v
GROUP BY i;
CREATE TABLE rs_holes (id int, geom geometry);
INSERT INTO rs_holes SELECT i, ST_MakeLine(ST_MakePoint(x, y, -1), ST_MakePoint(x + 0.2, y, 2))
FROM (SELECT i, 20 * random() AS x, random() AS y FROM generate_series(1, 60) i) s;
SELECT count(*) AS bodies, bool_and(pg_column_size(geom) > 8200) AS each_out_of_line FROM rs_bodies;

-- row by row: every hole against every body, alternating over 40 bodies
-- (more than the 8 a call site keeps), with and without the store
CREATE FUNCTION rs_pairs() RETURNS TABLE (b int, h int) LANGUAGE sql AS $$
	SELECT b.id, h.id FROM rs_holes h, rs_bodies b
	WHERE ST_ExactIntersects3D(b.geom, h.geom) AND ST_ExactIntersectsSolid3D(b.geom, h.geom) IS NOT NULL
$$;
-- ... and batch joins (the SRF), whose side of bodies the store keeps
-- flattened: bodies 0-19 fit (~1.4 MB < half the store), all 40 do not
CREATE FUNCTION rs_batch(bodies text) RETURNS TABLE (l bigint, r bigint) LANGUAGE sql AS $$
	SELECT * FROM ST_ExactIntersects3DJoin('SELECT id, geom FROM rs_holes',
		'SELECT id, geom FROM rs_bodies WHERE ' || bodies)
$$;
CREATE FUNCTION rs_same(what text)
	RETURNS TABLE (label text, pairs bigint, same boolean, batch_same boolean)
LANGUAGE plpgsql AS $$
DECLARE
	n_on bigint;
	n_off bigint;
	n_diff bigint;
	b_diff bigint;
BEGIN
	SET LOCAL enable_hashjoin = off;
	SET LOCAL enable_mergejoin = off;
	SET LOCAL exactgpu.enable_batch_join = off;
	SET LOCAL exactgpu.resident = off;
	CREATE TEMP TABLE rs_off ON COMMIT DROP AS SELECT * FROM rs_pairs();
	CREATE TEMP TABLE rb_off ON COMMIT DROP AS
		SELECT 'few' AS s, * FROM rs_batch('id < 20') UNION ALL SELECT 'all', * FROM rs_batch('true');
	SET LOCAL exactgpu.resident = on;
	-- twice: the first keeps the side of bodies, the second borrows it
	-- (first: what this transaction pins below would leave it no room)
	CREATE TEMP TABLE rb_on ON COMMIT DROP AS
		SELECT 'few' AS s, * FROM rs_batch('id < 20') UNION ALL SELECT 'all', * FROM rs_batch('true');
	CREATE TEMP TABLE rb_on2 ON COMMIT DROP AS
		SELECT 'few' AS s, * FROM rs_batch('id < 20') UNION ALL SELECT 'all', * FROM rs_batch('true');
	CREATE TEMP TABLE rs_on ON COMMIT DROP AS SELECT * FROM rs_pairs();
	SELECT count(*) INTO n_on FROM rs_on;
	SELECT count(*) INTO n_off FROM rs_off;
	SELECT count(*) INTO n_diff FROM ((TABLE rs_on EXCEPT TABLE rs_off) UNION ALL (TABLE rs_off EXCEPT TABLE rs_on)) d;
	SELECT count(*) INTO b_diff FROM ((TABLE rb_on EXCEPT TABLE rb_off) UNION ALL (TABLE rb_off EXCEPT TABLE rb_on)
		UNION ALL (TABLE rb_on2 EXCEPT TABLE rb_off) UNION ALL (TABLE rb_off EXCEPT TABLE rb_on2)) d;
	DROP TABLE rs_on, rs_off, rb_on, rb_on2, rb_off;
	RETURN QUERY SELECT $1, n_on, n_on = n_off AND n_diff = 0, b_diff = 0;
END
$$;

SELECT exactgpu_resident_evict() >= 0 AS evicted;
SELECT * FROM rs_same('cold');
-- one transaction pins what it reads: what does not fit beside it is not kept
SELECT entries > 0 AS kept, inserts > 0 AS inserted, not_kept > 0 AS some_not_kept,
	bytes <= capacity_bytes AS within_budget FROM exactgpu_resident;
SELECT * FROM rs_same('warm');
SELECT hits > 0 AS hits FROM exactgpu_resident;
-- the side of bodies 0-19 was kept, and borrowed by the next join
SELECT count(*) FILTER (WHERE kind = 'join side') AS sides_kept FROM exactgpu_resident_entries();
SELECT hits AS hits_before FROM exactgpu_resident \gset
SELECT count(*) > 0 AS pairs FROM rs_batch('id < 20');
SELECT hits - :hits_before AS side_borrowed FROM exactgpu_resident;
-- a plain JOIN (Custom Scan ExactJoin) borrows the same side, and says so
CREATE FUNCTION rs_explain(q text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE l text; r text := '';
BEGIN
	FOR l IN EXECUTE 'EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) ' || q LOOP
		r := r || l || E'\n';
	END LOOP;
	RETURN r;
END
$$;
SET enable_nestloop = off;
SELECT position('Custom Scan (ExactJoin)' IN e) > 0 AS exact_join,
	position('Resident Sides: 1' IN e) > 0 AS side_borrowed
FROM rs_explain('SELECT h.id, b.id FROM rs_holes h JOIN rs_bodies b ON ST_ExactIntersects3D(h.geom, b.geom) WHERE b.id < 20') e;
-- ... and what it borrowed and read: its 20 bodies at their stored sizes
-- (detoasted, as ST_MemSize gives them: the bytes it did not read), the
-- holes read
SELECT e ~ 'Resident Rows: 20\n' AS rows_borrowed,
	substring(e FROM 'Resident Bytes: (\d+)')::bigint =
		(SELECT sum(ST_MemSize(geom)) FROM rs_bodies WHERE id < 20) AS bytes_borrowed,
	substring(e FROM 'Bytes Read: (\d+)')::bigint BETWEEN
		(SELECT sum(ST_MemSize(geom) - 4) FROM rs_holes) AND
		(SELECT sum(ST_MemSize(geom)) FROM rs_holes) AS holes_read
FROM rs_explain('SELECT h.id, b.id FROM rs_holes h JOIN rs_bodies b ON ST_ExactIntersects3D(h.geom, b.geom) WHERE b.id < 20') e;
RESET enable_nestloop;
-- the same in exactgpu_last_join_stats(), and the view's hits count the side
SELECT hits AS hits_before FROM exactgpu_resident \gset
SELECT count(*) > 0 AS pairs FROM rs_batch('id < 20');
SELECT s.resident_sides, s.resident_rows,
	s.resident_bytes = (SELECT sum(ST_MemSize(geom)) FROM rs_bodies WHERE id < 20) AS bytes_borrowed,
	s.read_bytes BETWEEN (SELECT sum(ST_MemSize(geom) - 4) FROM rs_holes) AND
		(SELECT sum(ST_MemSize(geom)) FROM rs_holes) AS holes_read,
	(SELECT hits - :hits_before FROM exactgpu_resident) AS hits_counted
FROM exactgpu_last_join_stats() s;
-- without the store every byte is read (with or without its header, as
-- the read takes it)
SET exactgpu.resident = off;
SELECT count(*) > 0 AS pairs FROM rs_batch('id < 20');
SELECT s.resident_sides, s.resident_rows, s.resident_bytes,
	s.read_bytes BETWEEN (SELECT sum(ST_MemSize(geom) - 4) FROM rs_bodies WHERE id < 20) +
		(SELECT sum(ST_MemSize(geom) - 4) FROM rs_holes) AND
		(SELECT sum(ST_MemSize(geom)) FROM rs_bodies WHERE id < 20) +
		(SELECT sum(ST_MemSize(geom)) FROM rs_holes) AS all_read
FROM exactgpu_last_join_stats() s;
RESET exactgpu.resident;

-- the planner prices a resident side as borrowed: the plain JOIN's cost
-- drops with the side of bodies 0-19 resident, and its plan is still the
-- batch join (without the store, or with exactgpu.resident off, the costs
-- are today's)
CREATE FUNCTION rs_plan(q text, OUT top text, OUT cost float8) LANGUAGE plpgsql AS $$
DECLARE j json;
BEGIN
	EXECUTE 'EXPLAIN (FORMAT JSON) ' || q INTO j;
	top := j->0->'Plan'->>'Custom Plan Provider';
	cost := (j->0->'Plan'->>'Total Cost')::float8;
END
$$;
SET exactgpu.resident = off;
SELECT top AS plan_off, cost AS cost_off FROM rs_plan('SELECT h.id, b.id FROM rs_holes h JOIN rs_bodies b ON ST_ExactIntersects3D(h.geom, b.geom) WHERE b.id < 20') \gset
RESET exactgpu.resident;
SELECT top AS plan_warm, :'plan_off' AS plan_off, cost < :cost_off AS cheaper_warm
FROM rs_plan('SELECT h.id, b.id FROM rs_holes h JOIN rs_bodies b ON ST_ExactIntersects3D(h.geom, b.geom) WHERE b.id < 20');
-- evicted, the side leaves the planner's summary: the cold cost again
SELECT exactgpu_resident_evict() > 0 AS evicted;
SELECT cost = :cost_off AS cold_cost_again
FROM rs_plan('SELECT h.id, b.id FROM rs_holes h JOIN rs_bodies b ON ST_ExactIntersects3D(h.geom, b.geom) WHERE b.id < 20');
-- (kept again for what follows)
SELECT count(*) > 0 AS pairs FROM rs_batch('id < 20');
DROP FUNCTION rs_plan(text);
DROP FUNCTION rs_explain(text);

-- no pins outlive the transactions that took them
SELECT count(*) FILTER (WHERE pins > 0) AS pinned, bool_and(ready) AS all_ready FROM exactgpu_resident_entries();
-- nor a statement cancelled while it holds them (statement_timeout in the
-- middle of a row-by-row join that pins every body it reads); the next
-- query answers as before
SET exactgpu.enable_batch_join = off;
SET statement_timeout = '300ms';
SELECT count(*) FROM rs_holes h, rs_bodies b
WHERE ST_ExactIntersects3D(b.geom, h.geom) AND pg_sleep(0.001) IS NOT NULL;
RESET statement_timeout;
RESET exactgpu.enable_batch_join;
SELECT count(*) FILTER (WHERE pins > 0) AS pinned, bool_and(ready) AS all_ready FROM exactgpu_resident_entries();
SELECT * FROM rs_same('after a cancel');

-- the prewarm keeps what fits; kept bodies are found by the next query
SELECT exactgpu_resident_evict() > 0 AS evicted;
SELECT entries FROM exactgpu_resident;
-- (the prewarm pins nothing: the budget evicts the least recently used)
SELECT exactgpu_prewarm('rs_bodies', 'geom') AS prewarmed;
SELECT entries BETWEEN 1 AND 39 AS some_kept, evictions > 0 AS evicted_under_budget,
	bytes <= capacity_bytes AS within_budget FROM exactgpu_resident;
SELECT * FROM rs_same('after prewarm');
SELECT exactgpu_resident_keep(geom) AS kept_in_line FROM rs_holes LIMIT 1;

-- an updated body is a new value; deleted ones are gone after VACUUM
UPDATE rs_bodies SET geom = ST_Translate(geom, 0.3, 0, 0) WHERE id % 3 = 0;
SELECT * FROM rs_same('after update');
DELETE FROM rs_bodies WHERE id % 5 = 0;
VACUUM rs_bodies;
SELECT * FROM rs_same('after delete and vacuum');
-- new bodies may now reuse freed TOAST space (never their OIDs: see the
-- forced-reuse test in test/resident/run.sh)
INSERT INTO rs_bodies SELECT id + 100, ST_Translate(geom, 0, 0.5, 0) FROM rs_bodies WHERE id < 10;
SELECT * FROM rs_same('after insert');
-- rewrites: VACUUM FULL keeps the value OIDs (the same bytes), ALTER TYPE makes new values
VACUUM FULL rs_bodies;
SELECT * FROM rs_same('after vacuum full');
ALTER TABLE rs_bodies ALTER COLUMN geom TYPE geometry USING ST_Translate(geom, 0, 0, 0.25);
SELECT * FROM rs_same('after alter type');
TRUNCATE rs_bodies;
SELECT * FROM rs_same('after truncate');

-- a body larger than half the store is not kept, and answers as ever
INSERT INTO rs_bodies
SELECT 1000, ST_GeomFromText('TIN Z (' || string_agg(format(
		'((%1$s,%2$s,%3$s,%1$s)),((%1$s,%2$s,%4$s,%1$s)),((%1$s,%3$s,%4$s,%1$s)),((%2$s,%3$s,%4$s,%2$s))',
		a, b, c, d), ',') || ')')
FROM (SELECT format('%s %s %s', (t % 300 + 0.001 + 0.998 * random()) / 15, (t / 300 + 0.001 + 0.998 * random()) / 10, random()) AS a,
		format('%s %s %s', (t % 300 + 0.001 + 0.998 * random()) / 15, (t / 300 + 0.001 + 0.998 * random()) / 10, random()) AS b,
		format('%s %s %s', (t % 300 + 0.001 + 0.998 * random()) / 15, (t / 300 + 0.001 + 0.998 * random()) / 10, random()) AS c,
		format('%s %s %s', (t % 300 + 0.001 + 0.998 * random()) / 15, (t / 300 + 0.001 + 0.998 * random()) / 10, random()) AS d
	FROM generate_series(0, 2999) t) v;
SELECT not_kept AS not_kept_before FROM exactgpu_resident \gset
SELECT exactgpu_resident_keep(geom) AS kept_big FROM rs_bodies WHERE id = 1000;
SELECT not_kept > :not_kept_before AS counted_not_kept FROM exactgpu_resident;
SELECT * FROM rs_same('big body');

-- small bodies fill the hash of entries (one per 32 kB of the store: 256
-- here) before the area: the hash evicts too, the least recently used first
CREATE TABLE rs_small (id int PRIMARY KEY, geom geometry);
ALTER TABLE rs_small ALTER COLUMN geom SET STORAGE EXTERNAL;
INSERT INTO rs_small
SELECT i, ST_GeomFromText('TIN Z (' || string_agg(format(
		'((%1$s,%2$s,%3$s,%1$s)),((%1$s,%2$s,%4$s,%1$s)),((%1$s,%3$s,%4$s,%1$s)),((%2$s,%3$s,%4$s,%2$s))',
		a, b, c, d), ',') || ')')
FROM (SELECT i, format('%s %s %s', i + random(), random(), random()) AS a,
		format('%s %s %s', i + random(), random(), random()) AS b,
		format('%s %s %s', i + random(), random(), random()) AS c,
		format('%s %s %s', i + random(), random(), random()) AS d
	FROM generate_series(0, 299) i, generate_series(1, 8) t) v
GROUP BY i;
SELECT exactgpu_resident_evict() >= 0 AS evicted;
SELECT evictions AS evictions_before, not_kept AS not_kept_before FROM exactgpu_resident \gset
SELECT exactgpu_prewarm('rs_small', 'geom') AS prewarmed_small;
SELECT entries AS entries_small, evictions - :evictions_before AS evicted_small,
	not_kept - :not_kept_before AS not_kept_small, bytes < capacity_bytes / 2 AS area_half_empty
FROM exactgpu_resident;
-- the last ones kept (in the prewarm's scan order) are the ones found
SELECT exactgpu_resident_evict() >= 0 AS evicted;
SELECT exactgpu_prewarm('rs_small', 'geom') AS prewarmed_again;
SELECT hits AS hits_before FROM exactgpu_resident \gset
SELECT count(*) FILTER (WHERE exactgpu_resident_keep(geom)) AS kept_again
FROM (SELECT geom FROM rs_small ORDER BY ctid OFFSET 200) s;
SELECT hits - :hits_before AS found_resident FROM exactgpu_resident;
-- a transaction pins an entry once however often it takes it: holes
-- outer, the 300 bodies inner (more than a call site keeps)
CREATE TABLE rs_small_holes AS SELECT i AS id,
	ST_MakeLine(ST_MakePoint(i * 15 + 0.5, 0.5, -1), ST_MakePoint(i * 15 + 0.6, 0.5, 2)) AS geom
FROM generate_series(0, 19) i;
BEGIN;
SET LOCAL exactgpu.enable_batch_join = off;
SELECT count(*) >= 0 AS joined FROM rs_small_holes h, LATERAL (SELECT b.id FROM rs_small b
	WHERE ST_ExactIntersects3D(b.geom, h.geom) AND h.id IS NOT NULL OFFSET 0) x;
SELECT max(pins) AS most_pins, count(*) FILTER (WHERE pins > 0) > 200 AS many_pinned
FROM exactgpu_resident_entries();
COMMIT;
SELECT count(*) FILTER (WHERE pins > 0) AS pinned_after FROM exactgpu_resident_entries();
DROP TABLE rs_small, rs_small_holes;

-- a join whose inner query changes exactgpu.nonplanar_faces after the join
-- made its batches: its side is kept under the batches' policy, which the
-- next joins (under the new setting) borrow or read, never refuse
CREATE TABLE rs_pb (id int PRIMARY KEY, geom geometry);
INSERT INTO rs_pb
SELECT i, ST_GeomFromText('TIN Z (' || string_agg(format(
		'((%1$s,%2$s,%3$s,%1$s)),((%1$s,%2$s,%4$s,%1$s)),((%1$s,%3$s,%4$s,%1$s)),((%2$s,%3$s,%4$s,%2$s))',
		a, b, c, d), ',') || ')')
FROM (SELECT i, format('%s %s %s', i + (t % 20 + 0.001 + 0.998 * random()) / 20, (t / 20 + 0.001 + 0.998 * random()) / 10, random()) AS a,
		format('%s %s %s', i + (t % 20 + 0.001 + 0.998 * random()) / 20, (t / 20 + 0.001 + 0.998 * random()) / 10, random()) AS b,
		format('%s %s %s', i + (t % 20 + 0.001 + 0.998 * random()) / 20, (t / 20 + 0.001 + 0.998 * random()) / 10, random()) AS c,
		format('%s %s %s', i + (t % 20 + 0.001 + 0.998 * random()) / 20, (t / 20 + 0.001 + 0.998 * random()) / 10, random()) AS d
	FROM generate_series(0, 3) i, generate_series(0, 199) t) v
GROUP BY i;
CREATE TABLE rs_ph (id int, geom geometry);
INSERT INTO rs_ph SELECT i, ST_MakeLine(ST_MakePoint(x, y, -1), ST_MakePoint(x + 0.2, y, 2))
FROM (SELECT i, 4 * random() AS x, random() AS y FROM generate_series(1, 30) i) s;
SET exactgpu.resident = off;
SELECT count(*) AS pairs_off FROM ST_ExactIntersects3DJoin('SELECT id, geom FROM rs_ph', 'SELECT id, geom FROM rs_pb') \gset
SET exactgpu.resident = on;
SELECT count(*) = :pairs_off AS same_changing FROM ST_ExactIntersects3DJoin(
	'SELECT id, geom FROM rs_ph WHERE set_config(''exactgpu.nonplanar_faces'', ''triangulate'', false) IS NOT NULL',
	'SELECT id, geom FROM rs_pb');
SHOW exactgpu.nonplanar_faces;
SELECT count(*) = :pairs_off AS same_after FROM ST_ExactIntersects3DJoin('SELECT id, geom FROM rs_ph', 'SELECT id, geom FROM rs_pb');
SELECT count(*) = :pairs_off AS same_again FROM ST_ExactIntersects3DJoin('SELECT id, geom FROM rs_ph', 'SELECT id, geom FROM rs_pb');
RESET exactgpu.nonplanar_faces;
SELECT count(*) = :pairs_off AS same_reset FROM ST_ExactIntersects3DJoin('SELECT id, geom FROM rs_ph', 'SELECT id, geom FROM rs_pb');
DROP TABLE rs_pb, rs_ph;

-- a body's solid verdicts are kept beside its resident block: a second
-- backend judging the same stored value takes them (verdicts_found)
-- instead of judging it again, and answers as without the store
-- (last: it reconnects)
CREATE TABLE rs_vb AS
SELECT ST_GeomFromText('TIN Z (' || string_agg(format(
		'((%1$s,%2$s,%3$s,%1$s)),((%1$s,%2$s,%4$s,%1$s)),((%1$s,%3$s,%4$s,%1$s)),((%2$s,%3$s,%4$s,%2$s))',
		a, b, c, d), ',') || ')') AS geom
FROM (SELECT format('%s %s %s', (t % 20 + 0.001 + 0.998 * random()) / 20, (t / 20 + 0.001 + 0.998 * random()) / 10, random()) AS a,
		format('%s %s %s', (t % 20 + 0.001 + 0.998 * random()) / 20, (t / 20 + 0.001 + 0.998 * random()) / 10, random()) AS b,
		format('%s %s %s', (t % 20 + 0.001 + 0.998 * random()) / 20, (t / 20 + 0.001 + 0.998 * random()) / 10, random()) AS c,
		format('%s %s %s', (t % 20 + 0.001 + 0.998 * random()) / 20, (t / 20 + 0.001 + 0.998 * random()) / 10, random()) AS d
	FROM generate_series(0, 199) t) v;
SELECT exactgpu_resident_evict() >= 0 AS evicted;
SELECT verdicts_kept AS kept_before, verdicts_found AS found_before FROM exactgpu_resident \gset
SELECT coalesce(ST_ExactIsValidSolidReason(geom), 'valid') AS reason_first, ST_ExactLocate3D(geom, 'POINT Z (0.5 0.5 0.5)') AS where_first
FROM rs_vb \gset
SELECT verdicts_kept - :kept_before AS verdicts_kept FROM exactgpu_resident;
\c
SET client_min_messages = warning;
SELECT verdicts_found AS found_before FROM exactgpu_resident \gset
SELECT coalesce(ST_ExactIsValidSolidReason(geom), 'valid') = :'reason_first' AS same_reason,
	ST_ExactLocate3D(geom, 'POINT Z (0.5 0.5 0.5)') = :'where_first' AS same_location,
	ST_ExactIntersectsSolid3D(geom, 'POINT Z (0.5 0.5 0.5)') IS NOT NULL AS answered
FROM rs_vb;
SELECT verdicts_found - :found_before AS verdicts_found FROM exactgpu_resident;
\c
SET client_min_messages = warning;
SET exactgpu.resident = off;
SELECT coalesce(ST_ExactIsValidSolidReason(geom), 'valid') = :'reason_first' AS same_reason_off,
	ST_ExactLocate3D(geom, 'POINT Z (0.5 0.5 0.5)') = :'where_first' AS same_location_off
FROM rs_vb;
RESET exactgpu.resident;
DROP TABLE rs_vb;

DROP FUNCTION rs_same(text);
DROP FUNCTION rs_batch(text);
DROP FUNCTION rs_pairs();
DROP TABLE rs_bodies, rs_holes;
SELECT exactgpu_resident_evict() >= 0 AS evicted;
SELECT entries, bytes FROM exactgpu_resident;
