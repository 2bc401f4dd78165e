-- exactgpu's fuzzer, the part that runs inside the server (loaded by
-- test/fuzz/fuzz.sh into a scratch database). Every SQL function of the
-- extension is found in the catalog and called with mutated EWKB and nasty
-- shapes; ordinary errors (22023, 0A000, 54000, ...) are fine, an internal
-- error (class XX) is a failure, and a crash or a hang is seen by the driver.
CREATE SCHEMA fuzz;

-- Seeds: one geometry of every kind, 2D and 3D, and the shapes audits
-- found nasty (empty of every type, nested collections, huge, tiny,
-- repeated points, bow-ties, holes outside shells, non-planar faces).
CREATE TABLE fuzz.seeds (id serial, ewkb bytea);
INSERT INTO fuzz.seeds (ewkb)
SELECT ST_AsEWKB(g::geometry) FROM unnest(ARRAY[
	'POINT(1 2)', 'POINT Z(1 2 3)', 'POINT EMPTY', 'POINT Z EMPTY', 'POINT M(1 2 3)', 'POINT ZM(1 2 3 4)',
	'SRID=32719;POINT(500000 7000000)',
	'LINESTRING(0 0, 1 1, 2 0)', 'LINESTRING Z(0 0 0, 1 1 1)', 'LINESTRING EMPTY', 'LINESTRING(1 1, 1 1)',
	'LINESTRING Z(0.5 0.5 2, 0.5 0.5 -1)',
	'POLYGON((0 0, 2 0, 2 2, 0 2, 0 0))', 'POLYGON((0 0,2 2,2 0,0 2,0 0))',
	'POLYGON((0 0, 4 0, 4 4, 0 4, 0 0), (1 1, 2 1, 2 2, 1 2, 1 1))',
	'POLYGON((0 0, 4 0, 4 4, 0 4, 0 0), (3 3, 5 3, 5 5, 3 3))',
	'POLYGON((0 0, 1 0, 2 0, 0 0))', 'POLYGON EMPTY',
	'POLYGON Z((0 0 0, 1 0 0, 1 1 1, 0 1 0, 0 0 0))',
	'MULTIPOINT(0 0, 1 1, 1 1)', 'MULTILINESTRING((0 0, 1 1), (1 0, 0 1))',
	'MULTIPOLYGON(((0 0, 1 0, 1 1, 0 0)), ((1 1, 2 1, 2 2, 1 1)))', 'MULTIPOLYGON EMPTY',
	'GEOMETRYCOLLECTION(POINT(0 0), LINESTRING(0 0, 1 1), GEOMETRYCOLLECTION(POLYGON((0 0, 1 0, 1 1, 0 0))))',
	'GEOMETRYCOLLECTION(GEOMETRYCOLLECTION(GEOMETRYCOLLECTION(GEOMETRYCOLLECTION(POINT EMPTY))))',
	'GEOMETRYCOLLECTION EMPTY',
	'TRIANGLE((0 0, 1 0, 0 1, 0 0))', 'TRIANGLE Z((0 0 0, 1 0 0, 0 1 1, 0 0 0))',
	'TIN Z(((0 0 0, 1 0 0, 0 1 0, 0 0 0)), ((0 0 0, 0 1 0, 0 0 1, 0 0 0)), ((0 0 0, 0 0 1, 1 0 0, 0 0 0)), ((1 0 0, 0 0 1, 0 1 0, 1 0 0)))',
	'TIN Z(((0 0 0, 1 0 0, 0 1 0, 0 0 0)))', 'TIN EMPTY',
	'POLYHEDRALSURFACE Z(((0 0 0, 0 1 0, 1 1 0, 1 0 0, 0 0 0)), ((0 0 1, 1 0 1, 1 1 1, 0 1 1, 0 0 1)),
		((0 0 0, 1 0 0, 1 0 1, 0 0 1, 0 0 0)), ((0 1 0, 0 1 1, 1 1 1, 1 1 0, 0 1 0)),
		((0 0 0, 0 0 1, 0 1 1, 0 1 0, 0 0 0)), ((1 0 0, 1 1 0, 1 1 1, 1 0 1, 1 0 0)))',
	'POLYHEDRALSURFACE Z(((0 0 0, 0 1 0, 1 1 0.000001, 1 0 0, 0 0 0)))', 'POLYHEDRALSURFACE EMPTY',
	'CIRCULARSTRING(0 0, 1 1, 2 0)', 'CURVEPOLYGON(CIRCULARSTRING(0 0, 4 0, 4 4, 0 4, 0 0))',
	'POINT(1e308 -1e308)', 'LINESTRING(5e-324 5e-324, -5e-324 1e-300)',
	'LINESTRING Z(1e300 1e300 1e300, -1e300 -1e300 -1e300)',
	'POLYGON((0 0, 1e-310 0, 1e-310 1e-310, 0 0))'
]) g;
-- huge inputs: a 2000-vertex ring, a 200-hole polygon, a 300-triangle TIN
INSERT INTO fuzz.seeds (ewkb)
SELECT ST_AsEWKB(ST_Buffer('POINT(0 0)'::geometry, 10, 500));
INSERT INTO fuzz.seeds (ewkb)
SELECT ST_AsEWKB(ST_MakePolygon(ST_ExteriorRing(ST_MakeEnvelope(-1, -1, 201, 3)),
	array_agg(ST_ExteriorRing(ST_MakeEnvelope(i, 0, i + 0.5, 0.5)))))
FROM generate_series(0, 199) i;
INSERT INTO fuzz.seeds (ewkb)
SELECT ST_AsEWKB(ST_Force3D(ST_DelaunayTriangles(ST_Collect(ST_MakePoint(random() * 10, random() * 10)), 0, 2)))
FROM generate_series(1, 160);

-- Doubles that break arithmetic, and counts that break readers.
CREATE FUNCTION fuzz.nasty_double() RETURNS bytea LANGUAGE sql AS $$
	SELECT (ARRAY['\x000000000000f87f', '\x000000000000f07f', '\x000000000000f0ff', '\xffffffffffffef7f',
	              '\xffffffffffffefff', '\x0100000000000000', '\x0000000000000080', '\x0000000000000000',
	              '\x000000000000f03f', '\x0000000000003043']::bytea[])[1 + floor(random() * 10)::int] $$;
CREATE FUNCTION fuzz.nasty_count() RETURNS bytea LANGUAGE sql AS $$
	SELECT (ARRAY['\x00000000', '\x01000000', '\x02000000', '\x03000000', '\xff000000', '\xffff0000',
	              '\xffffff7f', '\xffffffff', '\x00000100', '\x04000000']::bytea[])[1 + floor(random() * 10)::int] $$;

-- One mutation of an EWKB.
CREATE FUNCTION fuzz.mutate(b bytea, other bytea) RETURNS bytea LANGUAGE plpgsql AS $$
DECLARE
	n int := length(b);
	k int := floor(random() * 7)::int;
	at int;
BEGIN
	IF n < 2 THEN RETURN b; END IF;
	at := floor(random() * n)::int;
	CASE k
	WHEN 0 THEN			-- flip bytes
		FOR i IN 1 .. 1 + floor(random() * 4)::int LOOP
			at := floor(random() * n)::int;
			b := set_byte(b, at, floor(random() * 256)::int);
		END LOOP;
	WHEN 1 THEN			-- truncate
		b := substring(b FROM 1 FOR at);
	WHEN 2 THEN			-- a nasty double over a coordinate slot
		IF n >= 17 THEN
			at := 9 + 8 * floor(random() * ((n - 9) / 8))::int;
			b := overlay(b PLACING fuzz.nasty_double() FROM at + 1 FOR 8);
		END IF;
	WHEN 3 THEN			-- a nasty count over any 4 bytes after the header
		IF n >= 9 THEN
			at := 5 + floor(random() * (n - 8))::int;
			b := overlay(b PLACING fuzz.nasty_count() FROM at + 1 FOR 4);
		END IF;
	WHEN 4 THEN			-- splice two geometries
		b := substring(b FROM 1 FOR at) || substring(other FROM 1 + floor(random() * length(other))::int);
	WHEN 5 THEN			-- another type code (byte 1 is the type's low byte)
		b := set_byte(b, 1, floor(random() * 18)::int);
	ELSE				-- unchanged
		NULL;
	END CASE;
	RETURN b;
END $$;

-- The extension's functions, each with a statement that calls it: geometry
-- arguments from $1.. (scalar or set-returning alike), text arguments as
-- queries over fuzz.rows, batch arguments as batches of fuzz.rows.
CREATE TABLE fuzz.rows (id bigint, geom geometry);
CREATE FUNCTION fuzz.calls() RETURNS TABLE (name text, kind text, nargs int, stmt text) LANGUAGE sql AS $$
	SELECT p.proname::text,
	       CASE WHEN p.proargtypes::oid[] <@ ARRAY['geometry'::regtype::oid] THEN 'geometry'
	            WHEN p.proargtypes::oid[] <@ ARRAY['text'::regtype::oid] THEN 'query'
	            ELSE 'batch' END,
	       p.pronargs::int,
	       format('SELECT count(*) FROM %s(%s)', p.oid::regproc::text,
	              (SELECT string_agg(CASE t WHEN 'geometry'::regtype THEN '$' || o
	                                        WHEN 'text'::regtype THEN quote_literal('SELECT id, geom FROM fuzz.rows')
	                                        ELSE '(SELECT ST_ExactBatch(id, geom) FROM fuzz.rows)' END, ', ' ORDER BY o)
	               FROM unnest(p.proargtypes::oid[]) WITH ORDINALITY a(t, o)))
	FROM pg_proc p
	JOIN pg_depend d ON d.objid = p.oid AND d.classid = 'pg_proc'::regclass AND d.deptype = 'e'
	JOIN pg_extension e ON e.oid = d.refobjid AND e.extname = 'exactgpu'
	WHERE p.prokind = 'f' AND p.pronargs > 0
	  AND p.prorettype NOT IN ('cstring'::regtype, 'internal'::regtype)
	  AND (p.proargtypes::oid[] <@ ARRAY['geometry'::regtype::oid]
	       OR p.proargtypes::oid[] <@ ARRAY['text'::regtype::oid]
	       OR p.proargtypes::oid[] <@ ARRAY['exactgpu_batch'::regtype::oid])
	ORDER BY 1, 4 $$;

-- A round: `budget` calls of the extension's functions from random seed
-- `seed`. Returns the calls made, how many raised an ordinary error, how
-- many an internal one (class XX), and the first such failure with the
-- input that caused it.
CREATE FUNCTION fuzz.round(seed float8, budget int,
	OUT calls bigint, OUT errors bigint, OUT failures bigint, OUT first_failure text,
	OUT slowest_ms float8, OUT slowest text)
LANGUAGE plpgsql AS $$
DECLARE
	seeds bytea[] := ARRAY(SELECT ewkb FROM fuzz.seeds ORDER BY id);
	geoms geometry[] := '{}';
	names text[] := ARRAY(SELECT c.name FROM fuzz.calls() c ORDER BY c.stmt);
	kinds text[] := ARRAY(SELECT c.kind FROM fuzz.calls() c ORDER BY c.stmt);
	nargs int[] := ARRAY(SELECT c.nargs FROM fuzz.calls() c ORDER BY c.stmt);
	stmts text[] := ARRAY(SELECT c.stmt FROM fuzz.calls() c ORDER BY c.stmt);
	k int;
	t0 timestamptz;
	ms float8;
	args geometry[];
	b bytea;
	g geometry;
	n bigint;
	st text;
	msg text;
	batch_text text;
BEGIN
	calls := 0; errors := 0; failures := 0; slowest_ms := 0;
	PERFORM setseed(seed);
	WHILE calls < budget LOOP
		-- a fresh geometry: a seed, mutated one to three times
		b := seeds[1 + floor(random() * array_length(seeds, 1))::int];
		FOR i IN 1 .. floor(random() * 4)::int LOOP
			b := fuzz.mutate(b, seeds[1 + floor(random() * array_length(seeds, 1))::int]);
		END LOOP;
		BEGIN
			g := ST_GeomFromEWKB(b);
		EXCEPTION WHEN OTHERS THEN
			CONTINUE;			-- PostGIS refused it: not our input
		END;
		geoms := geoms[greatest(1, array_length(geoms, 1) - 38):] || g;
		-- settings that change paths, never answers
		PERFORM set_config('exactgpu.nonplanar_faces', (ARRAY['error', 'triangulate'])[1 + floor(random() * 2)::int], true);
		PERFORM set_config('exactgpu.grid_cells', (ARRAY['0', '0', '1', '64', '4096', '33554432'])[1 + floor(random() * 6)::int], true);
		PERFORM set_config('exactgpu.worker_threads', (ARRAY['0', '1', '2', '1024'])[1 + floor(random() * 4)::int], true);
		PERFORM set_config('exactgpu.join_first_stage', (ARRAY['auto', 'cell_pairs', 'box_join'])[1 + floor(random() * 3)::int], true);
		FOR k IN 1 .. array_length(stmts, 1) LOOP
			IF kinds[k] <> 'geometry' THEN
				CONTINUE;
			END IF;
			-- the new geometry in every position, the others from the recent ones
			args := ARRAY[]::geometry[];
			FOR i IN 1 .. nargs[k] LOOP
				args := args || CASE WHEN random() < 0.5 THEN g
				                     ELSE geoms[1 + floor(random() * array_length(geoms, 1))::int] END;
			END LOOP;
			calls := calls + 1;
			t0 := clock_timestamp();
			BEGIN
				CASE nargs[k]
				WHEN 1 THEN EXECUTE stmts[k] INTO n USING args[1];
				WHEN 2 THEN EXECUTE stmts[k] INTO n USING args[1], args[2];
				WHEN 3 THEN EXECUTE stmts[k] INTO n USING args[1], args[2], args[3];
				ELSE EXECUTE stmts[k] INTO n USING args[1], args[2], args[3], args[4];
				END CASE;
			EXCEPTION WHEN OTHERS THEN
				GET STACKED DIAGNOSTICS st = RETURNED_SQLSTATE, msg = MESSAGE_TEXT;
				IF st LIKE 'XX%' OR st = '57014' THEN
					failures := failures + 1;
					first_failure := coalesce(first_failure, format('%s: %s %s on %s', names[k], st, msg,
						(SELECT string_agg(coalesce(encode(ST_AsEWKB(a), 'hex'), 'NULL'), ' | ') FROM unnest(args) a)));
				ELSE
					errors := errors + 1;
				END IF;
			END;
			ms := extract(epoch FROM clock_timestamp() - t0) * 1000;
			IF ms > slowest_ms THEN
				slowest_ms := ms;
				slowest := format('%s on %s', names[k],
					(SELECT string_agg(coalesce(left(encode(ST_AsEWKB(a), 'hex'), 200), 'NULL'), ' | ') FROM unnest(args) a));
			END IF;
		END LOOP;
		-- every 40 geometries: the joins over them, and the batch text form
		IF array_length(geoms, 1) >= 40 AND random() < 0.05 THEN
			TRUNCATE fuzz.rows;
			INSERT INTO fuzz.rows SELECT o, x FROM unnest(geoms) WITH ORDINALITY u(x, o);
			FOR k IN 1 .. array_length(stmts, 1) LOOP
				IF kinds[k] = 'geometry' THEN
					CONTINUE;
				END IF;
				calls := calls + 1;
				t0 := clock_timestamp();
				BEGIN
					EXECUTE stmts[k] INTO n;
				EXCEPTION WHEN OTHERS THEN
					GET STACKED DIAGNOSTICS st = RETURNED_SQLSTATE, msg = MESSAGE_TEXT;
					IF st LIKE 'XX%' OR st = '57014' THEN
						failures := failures + 1;
						first_failure := coalesce(first_failure, format('%s: %s %s on rows %s', names[k], st, msg,
							(SELECT string_agg(encode(ST_AsEWKB(geom), 'hex'), ' | ') FROM fuzz.rows)));
					ELSE
						errors := errors + 1;
					END IF;
				END;
				ms := extract(epoch FROM clock_timestamp() - t0) * 1000;
				IF ms > slowest_ms THEN
					slowest_ms := ms;
					slowest := names[k] || ' on the 40 recent geometries';
				END IF;
			END LOOP;
			-- the text form, round trip and mutated
			BEGIN
				batch_text := (SELECT ST_ExactBatch(id, geom)::text FROM fuzz.rows);
				IF batch_text::exactgpu_batch::text <> batch_text THEN
					failures := failures + 1;
					first_failure := coalesce(first_failure, 'exactgpu_batch text form does not round-trip: ' || left(batch_text, 2000));
				END IF;
				batch_text := overlay(batch_text PLACING chr(32 + floor(random() * 95)::int)
				                      FROM 1 + floor(random() * length(batch_text))::int FOR floor(random() * 3)::int);
				calls := calls + 2;
				PERFORM batch_text::exactgpu_batch;
			EXCEPTION WHEN OTHERS THEN
				GET STACKED DIAGNOSTICS st = RETURNED_SQLSTATE, msg = MESSAGE_TEXT;
				IF st LIKE 'XX%' OR st = '57014' THEN
					failures := failures + 1;
					first_failure := coalesce(first_failure, format('exactgpu_batch_in: %s %s on %s', st, msg, left(batch_text, 2000)));
				ELSE
					errors := errors + 1;
				END IF;
			END;
		END IF;
	END LOOP;
END $$;
