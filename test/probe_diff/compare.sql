-- test/probe_diff/compare.sql: the comparison of one join on one input.
--
-- pd_check(input, fn, ltab, rtab, ref) answers the batch join fn over
-- tables ltab and rtab (columns k: the id, of any type; geom) in up to
-- seven independent ways and records each difference in pd_failure:
--   on, off      the SRF with exactgpu.probe_join on / off (the SQL text
--                form; ids of type integer through the bigint form, others
--                through the typed form, NULL::type);
--   warm         the SRF, probe on, again (the store-on run: bodies now
--                borrowed from the resident store);
--   ref          a plain nested loop calling the row-level predicate ref
--                ($L and $R stand for the left and right geometry) with
--                exactgpu.enable_batch_join = off: no batch join at all;
--   scan_on,     the same plain join with nested loops disabled, so that
--   scan_off     the planner takes Custom Scan (ExactJoin), probe on / off
--                (when the planner does not take it, the answer is the
--                nested loop's again and is compared all the same);
--   value        the exactgpu_batch value form (ST_ExactBatch), probe on
--                (its errors compared by SQLSTATE: ST_ExactBatch raises its
--                own for a NULL id).
-- The rows are handed to the SRFs in an order fixed by a hash of the ids
-- (not the ids' order, not insertion order), the same for on and off, so a
-- "first bad row" is the same row in both.
-- An answer is its outcome ('ok', or the SQLSTATE and message of its error,
-- plus, under exactgpu.invalid_rows = skip, the rows skipped) and its pairs
-- (ids as text). on, off and warm must agree exactly, as must the scans
-- with each other; ref, value and the scans must give the SRF's pairs
-- whenever it succeeds (the row-level functions and plain joins raise
-- their own messages for bad rows, and have no ids to refuse, so only the
-- SRFs' errors are compared with each other).
-- The probe must have run with probe_join on where expect_probe says so, and
-- never with it off; every probe run is counted in pd_result.

CREATE TABLE pd_result (
	phase text, input text, fn text, lr text,
	outcome text, pairs bigint, probed boolean, scan_probed boolean,
	scan_taken boolean, resident_hits bigint, answers int, expect_probe boolean, invalid_rows text);
CREATE TABLE pd_failure (phase text, input text, fn text, lr text, what text);
-- the phase (store off / store on) the results are recorded under
CREATE TABLE pd_phase (name text, store boolean);

-- One answer: run sql (returning (a text, b text)) into temp table tab;
-- returns 'ok' or the error, then the skipped rows when there are any.
CREATE FUNCTION pd_answer(tab text, sql text) RETURNS text
LANGUAGE plpgsql AS $$
DECLARE
	st text;
	msg text;
	det text;
	skipped text;
BEGIN
	EXECUTE format('DROP TABLE IF EXISTS %I', tab);
	BEGIN
		EXECUTE format('CREATE TEMP TABLE %I AS %s', tab, sql);
	EXCEPTION WHEN OTHERS THEN
		GET STACKED DIAGNOSTICS st = RETURNED_SQLSTATE, msg = MESSAGE_TEXT, det = PG_EXCEPTION_DETAIL;
		EXECUTE format('CREATE TEMP TABLE %I (a text, b text)', tab);
		RETURN format('ERROR %s: %s%s', st, msg, coalesce(' DETAIL: ' || nullif(det, ''), ''));
	END;
	IF current_setting('exactgpu.invalid_rows') = 'skip' THEN
		SELECT string_agg(format('%s %s: %s', side, id, reason), '; ' ORDER BY side, id, reason)
			INTO skipped FROM exactgpu_last_join_skipped();
		RETURN 'ok' || coalesce(', skipped ' || skipped, '');
	END IF;
	RETURN 'ok';
END $$;

-- Pairs in one answer and not the other (as multisets), at most 5 shown.
CREATE FUNCTION pd_pairs_differ(x text, y text) RETURNS text
LANGUAGE plpgsql AS $$
DECLARE
	d text;
	n bigint;
BEGIN
	EXECUTE format('SELECT count(*), string_agg(w || ''('' || a || '','' || b || '')'', '' '') FILTER (WHERE i <= 5)
		FROM (SELECT w, a, b, row_number() OVER () AS i FROM (
			(SELECT %1$L AS w, a, b FROM %1$I EXCEPT ALL SELECT %1$L, a, b FROM %2$I)
			UNION ALL
			(SELECT %2$L, a, b FROM %2$I EXCEPT ALL SELECT %2$L, a, b FROM %1$I)) e) f', x, y)
		INTO n, d;
	RETURN CASE WHEN n = 0 THEN NULL ELSE format('%s pairs differ, e.g. only in %s', n, d) END;
END $$;

CREATE FUNCTION pd_rows(tab text) RETURNS bigint
LANGUAGE plpgsql AS $$
DECLARE
	n bigint;
BEGIN
	EXECUTE format('SELECT count(*) FROM %I', tab) INTO n;
	RETURN n;
END $$;

CREATE FUNCTION pd_key_type(tab text) RETURNS text
LANGUAGE sql STABLE AS $$
	SELECT format_type(atttypid, atttypmod) FROM pg_attribute
	WHERE attrelid = tab::regclass AND attname = 'k'
$$;

CREATE FUNCTION pd_fail(input text, fn text, lr text, what text) RETURNS void
LANGUAGE sql AS $$
	INSERT INTO pd_failure SELECT (SELECT name FROM pd_phase), input, fn, lr,
		format('[invalid_rows = %s] %s', current_setting('exactgpu.invalid_rows'), what)
$$;

CREATE FUNCTION pd_pairs_fail(input text, fn text, lr text, x text, y text, label text) RETURNS void
LANGUAGE plpgsql AS $$
DECLARE
	d text := pd_pairs_differ(x, y);
BEGIN
	IF d IS NOT NULL THEN
		PERFORM pd_fail(input, fn, lr, label || d);
	END IF;
END $$;

-- fn: the SRF's name; ltab, rtab: its left and right tables; ref: the
-- row-level predicate over $L and $R; invalid_rows: 'error' or 'skip';
-- scan_pred: the plain join's predicate when it is not ref (the custom scan
-- takes ST_ExactIntersects3D, ST_ExactIntersects, ST_ExactIntersectsSolid3D).
CREATE FUNCTION pd_check(input text, fn text, ltab text, rtab text, ref text,
	expect_probe boolean DEFAULT false, invalid_rows text DEFAULT 'error', scan_pred text DEFAULT NULL,
	dup_ids boolean DEFAULT false)
RETURNS void LANGUAGE plpgsql AS $$
DECLARE
	lr text := ltab || ' x ' || rtab;
	lt text := pd_key_type(ltab);
	rt text := pd_key_type(rtab);
	typed text := '';
	lsql text := format('SELECT k, geom FROM %I ORDER BY md5(k::text), k', ltab);
	rsql text := format('SELECT k, geom FROM %I ORDER BY md5(k::text), k', rtab);
	srf text;
	value_sql text;
	plain text;
	plain_scan text;
	store boolean := (SELECT store FROM pd_phase);
	o_on text; o_off text; o_warm text; o_ref text; o_son text; o_soff text; o_val text;
	dev_on text; dev_off text; dev_warm text; dev_son text;
	res_rows bigint;
	taken boolean;
	plan text;
	d text;
	n_on bigint;
	n_distinct bigint;
	answers int := 0;
	-- a body of several rows is one volume, which no row-level call sees
	ref_comparable boolean := NOT dup_ids OR fn IN ('ST_ExactIntersects3DJoin', 'ST_ExactIntersectsJoin');
BEGIN
	IF lt NOT IN ('integer', 'bigint') OR rt NOT IN ('integer', 'bigint') THEN
		typed := format(', NULL::%s, NULL::%s', lt, rt);
	END IF;
	srf := format('SELECT t.a::text AS a, t.b::text AS b FROM %s(%L, %L%s) AS t(a, b)', fn, lsql, rsql, typed);
	-- (ST_ExactBatch keeps integer ids as bigint)
	value_sql := format('SELECT t.a::text AS a, t.b::text AS b FROM %s((SELECT ST_ExactBatch(k, geom ORDER BY md5(k::text), k) FROM %I), (SELECT ST_ExactBatch(k, geom ORDER BY md5(k::text), k) FROM %I)%s) AS t(a, b)',
		fn, ltab, rtab, replace(typed, 'integer', 'bigint'));
	-- rows sharing an id are one object: its pairs are its rows' pairs, once
	plain := format('SELECT %s l.k::text AS a, r.k::text AS b FROM %I l JOIN %I r ON %s',
		CASE WHEN dup_ids THEN 'DISTINCT' ELSE '' END,
		ltab, rtab, replace(replace(ref, '$L', 'l.geom'), '$R', 'r.geom'));
	plain_scan := format('SELECT ' || CASE WHEN dup_ids THEN 'DISTINCT' ELSE '' END
		|| ' l.k::text AS a, r.k::text AS b FROM %I l JOIN %I r ON %s',
		ltab, rtab, replace(replace(coalesce(scan_pred, ref), '$L', 'l.geom'), '$R', 'r.geom'));
	PERFORM set_config('exactgpu.invalid_rows', invalid_rows, true);

	PERFORM set_config('exactgpu.probe_join', 'off', true);
	o_off := pd_answer('pd_off', srf);
	SELECT device INTO dev_off FROM exactgpu_last_join_stats();
	PERFORM set_config('exactgpu.probe_join', 'on', true);
	o_on := pd_answer('pd_on', srf);
	SELECT device INTO dev_on FROM exactgpu_last_join_stats();
	answers := 2;
	IF store THEN
		-- the store's hits during the warm run: bodies borrowed
		SELECT hits INTO res_rows FROM exactgpu_resident;
		o_warm := pd_answer('pd_warm', srf);
		SELECT device INTO dev_warm FROM exactgpu_last_join_stats();
		res_rows := (SELECT hits FROM exactgpu_resident) - res_rows;
		answers := answers + 1;
	END IF;

	IF o_on <> o_off THEN
		PERFORM pd_fail(input, fn, lr, format('probe on: %s; probe off: %s', o_on, o_off));
	END IF;
	PERFORM pd_pairs_fail(input, fn, lr, 'pd_on', 'pd_off', 'probe on / off: ');
	IF store THEN
		IF o_warm <> o_off THEN
			PERFORM pd_fail(input, fn, lr, format('probe on, warm: %s; probe off: %s', o_warm, o_off));
		END IF;
		PERFORM pd_pairs_fail(input, fn, lr, 'pd_warm', 'pd_off', 'probe warm / off: ');
	END IF;
	-- each pair once
	SELECT count(*), count(DISTINCT (a, b)) INTO n_on, n_distinct FROM pd_on;
	IF n_on <> n_distinct THEN
		PERFORM pd_fail(input, fn, lr, format('probe on: %s pairs, %s distinct', n_on, n_distinct));
	END IF;
	-- the probe ran where it should, and only there
	IF o_on LIKE 'ok%' AND expect_probe AND dev_on NOT LIKE 'CPU probe%' THEN
		PERFORM pd_fail(input, fn, lr, 'probe expected, ran: ' || coalesce(dev_on, 'NULL'));
	END IF;
	IF o_off LIKE 'ok%' AND dev_off LIKE 'CPU probe%' THEN
		PERFORM pd_fail(input, fn, lr, 'probe ran with exactgpu.probe_join = off: ' || dev_off);
	END IF;
	IF store AND dev_on LIKE 'CPU probe%' AND dev_warm NOT LIKE 'CPU probe%' THEN
		PERFORM pd_fail(input, fn, lr, 'probe cold, not warm: ' || coalesce(dev_warm, 'NULL'));
	END IF;

	-- the row-level predicate, row by row
	PERFORM set_config('exactgpu.enable_batch_join', 'off', true);
	o_ref := pd_answer('pd_ref', plain);
	PERFORM set_config('exactgpu.enable_batch_join', 'on', true);
	answers := answers + 1;
	-- (under skip, the joins leave out rows the row-level predicates see)
	IF o_on LIKE 'ok%' AND invalid_rows = 'error' AND ref_comparable THEN
		IF o_ref <> 'ok' THEN
			PERFORM pd_fail(input, fn, lr, format('joins: %s; row by row: %s', o_on, o_ref));
		ELSE
			PERFORM pd_pairs_fail(input, fn, lr, 'pd_on', 'pd_ref', 'probe on / row by row: ');
		END IF;
	END IF;

	-- the plain join as Custom Scan (ExactJoin), probe on and off; the
	-- skip mode is the SRFs' only (plain joins raise), so not here
	IF invalid_rows = 'error' THEN
		PERFORM set_config('enable_nestloop', 'off', true);
		taken := false;
		FOR plan IN EXECUTE 'EXPLAIN (COSTS OFF) ' || plain_scan LOOP
			taken := taken OR position('ExactJoin' IN plan) > 0;
		END LOOP;
		o_son := pd_answer('pd_son', plain_scan);
		SELECT device INTO dev_son FROM exactgpu_last_join_stats();
		PERFORM set_config('exactgpu.probe_join', 'off', true);
		o_soff := pd_answer('pd_soff', plain_scan);
		PERFORM set_config('exactgpu.probe_join', 'on', true);
		PERFORM set_config('enable_nestloop', 'on', true);
		answers := answers + 2;
		IF o_son <> o_soff THEN
			PERFORM pd_fail(input, fn, lr, format('scan, probe on: %s; off: %s', o_son, o_soff));
		END IF;
		PERFORM pd_pairs_fail(input, fn, lr, 'pd_son', 'pd_soff', 'scan, probe on / off: ');
		IF o_on LIKE 'ok%' AND ref_comparable THEN
			IF o_son <> 'ok' THEN
				PERFORM pd_fail(input, fn, lr, format('SRF: %s; scan: %s', o_on, o_son));
			ELSE
				PERFORM pd_pairs_fail(input, fn, lr, 'pd_on', 'pd_son', 'SRF / scan: ');
			END IF;
		END IF;
	END IF;

	-- the exactgpu_batch value form (ST_ExactBatch takes bigint, text, uuid
	-- ids; it raises its own error for a NULL id, so errors are compared by
	-- SQLSTATE; skip mode is the SQL text form's)
	-- (an empty batch has no ids to take a type from: not compared)
	IF lt IN ('integer', 'bigint', 'text', 'uuid') AND rt IN ('integer', 'bigint', 'text', 'uuid')
		AND invalid_rows = 'error' AND pd_rows(ltab) > 0 AND pd_rows(rtab) > 0 THEN
		o_val := pd_answer('pd_val', value_sql);
		answers := answers + 1;
		IF left(o_val, 11) <> left(o_on, 11) THEN
			PERFORM pd_fail(input, fn, lr, format('batch value: %s; SQL text: %s', o_val, o_on));
		ELSE
			PERFORM pd_pairs_fail(input, fn, lr, 'pd_on', 'pd_val', 'SQL text / batch value: ');
		END IF;
	END IF;

	INSERT INTO pd_result SELECT (SELECT name FROM pd_phase), input, fn, lr, o_on,
		(SELECT count(*) FROM pd_on), coalesce(dev_on LIKE 'CPU probe%', false),
		coalesce(taken AND dev_son LIKE 'CPU probe%', false), taken, res_rows, answers, expect_probe, invalid_rows;
END $$;
