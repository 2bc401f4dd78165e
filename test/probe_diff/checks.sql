-- test/probe_diff/checks.sql: the joins checked on every input, and the
-- minegen mines turned into the same tables.

-- Bytes of a table's geometries, detoasted (stored: as stored, maybe
-- compressed; the README does not say which the probe's rule reads).
CREATE FUNCTION pd_bytes(tab text, stored boolean DEFAULT false) RETURNS bigint
LANGUAGE plpgsql AS $$
DECLARE
	n bigint;
BEGIN
	EXECUTE format('SELECT coalesce(sum(%s), 0) FROM %I',
		CASE WHEN stored THEN 'pg_column_size(geom)' ELSE 'octet_length(geom::bytea)' END, tab) INTO n;
	RETURN n;
END $$;

-- The probe is documented to take a join of rows (at most a quarter of the
-- other side's bytes) against bodies under 1 MB in all (without the
-- resident store; with it, bodies stored out of line); where the sizes say
-- so under either measure of bytes, it must have run. With the store, this
-- expects it only where every body is surely out of line (over 2 kB,
-- stored EXTERNAL), as the mines' are: where bodies in line are mixed in,
-- the README does not say.
CREATE FUNCTION pd_probe_expected(rows_tab text, bodies_tab text) RETURNS boolean
LANGUAGE plpgsql AS $$
DECLARE
	smallest bigint;
BEGIN
	IF (SELECT store FROM pd_phase) THEN
		EXECUTE format('SELECT min(octet_length(geom::bytea)) FROM %I WHERE NOT ST_IsEmpty(geom)', bodies_tab)
			INTO smallest;
		IF smallest IS NULL OR smallest <= 2100 THEN
			RETURN false;
		END IF;
	END IF;
	-- the rule under either measure of bytes
	RETURN pd_bytes(rows_tab) > 0
		AND 4 * greatest(pd_bytes(rows_tab), pd_bytes(rows_tab, true))
			<= least(pd_bytes(bodies_tab), pd_bytes(bodies_tab, true))
		AND greatest(pd_bytes(bodies_tab), pd_bytes(bodies_tab, true)) < 1000000;
END $$;

-- Every join on the current pd_* tables; threads: exactgpu.worker_threads.
CREATE FUNCTION pd_check_all(input text, threads int) RETURNS void
LANGUAGE plpgsql AS $$
BEGIN
	PERFORM set_config('exactgpu.worker_threads', threads::text, false);
	-- 3D intersects, surfaces as surfaces, both ways round
	PERFORM pd_check(input, 'ST_ExactIntersects3DJoin', 'pd_holes', 'pd_solids',
		'ST_ExactIntersects3D($L, $R)', pd_probe_expected('pd_holes', 'pd_solids'));
	PERFORM pd_check(input, 'ST_ExactIntersects3DJoin', 'pd_solids', 'pd_holes',
		'ST_ExactIntersects3D($L, $R)', pd_probe_expected('pd_holes', 'pd_solids'));
	PERFORM pd_check(input, 'ST_ExactIntersects3DJoin', 'pd_points', 'pd_solids',
		'ST_ExactIntersects3D($L, $R)', pd_probe_expected('pd_points', 'pd_solids'));
	-- bodies against bodies (touching, nested): the probe's size rule says no
	PERFORM pd_check(input, 'ST_ExactIntersects3DJoin', 'pd_solids', 'pd_solids',
		'ST_ExactIntersects3D($L, $R)');
	-- 2D intersects (Z ignored), both ways round, and the 3D tables in 2D
	PERFORM pd_check(input, 'ST_ExactIntersectsJoin', 'pd_rows2d', 'pd_areas',
		'ST_ExactIntersects($L, $R)', pd_probe_expected('pd_rows2d', 'pd_areas'));
	PERFORM pd_check(input, 'ST_ExactIntersectsJoin', 'pd_areas', 'pd_rows2d',
		'ST_ExactIntersects($L, $R)', pd_probe_expected('pd_rows2d', 'pd_areas'));
	PERFORM pd_check(input, 'ST_ExactIntersectsJoin', 'pd_holes', 'pd_solids',
		'ST_ExactIntersects($L, $R)', pd_probe_expected('pd_holes', 'pd_solids'));
	-- bodies as volumes
	PERFORM pd_check(input, 'ST_ExactIntersectsSolid3DJoin', 'pd_solids', 'pd_holes',
		'ST_ExactIntersectsSolid3D($L, $R)', pd_probe_expected('pd_holes', 'pd_solids'));
	PERFORM pd_check(input, 'ST_ExactIntersectsSolid3DJoin', 'pd_solids', 'pd_points',
		'ST_ExactIntersectsSolid3D($L, $R)', pd_probe_expected('pd_points', 'pd_solids'));
	-- points in solids: the reference is ST_ExactLocate3D, the plain join's
	-- custom scan ST_ExactIntersectsSolid3D
	PERFORM pd_check(input, 'ST_ExactLocate3DJoin', 'pd_points', 'pd_solids',
		'ST_ExactLocate3D($R, $L) <> ''outside''', pd_probe_expected('pd_points', 'pd_solids'),
		'error', 'ST_ExactIntersectsSolid3D($R, $L)');

	-- open surfaces: a random part of each body's faces (boundary edges
	-- inside the body's box), as surfaces in 3D and areas in 2D
	PERFORM pd_derive('pd_surfaces', format(
		'SELECT k, (SELECT ST_Collect(f.geom) FROM ST_Dump(s.geom) f WHERE random() < 0.6) AS geom FROM pd_solids s'));
	-- and faces of no area: a triangle whose corners are on one line, a
	-- polygon that doubles back
	EXECUTE format('INSERT INTO pd_surfaces SELECT %s, ST_SetSRID(ST_Translate(ST_GeomFromText(w), o.x, o.y, o.z), o.srid)
		FROM (SELECT ST_XMin(e) AS x, ST_YMin(e) AS y, ST_ZMin(e) AS z, srid
			FROM (SELECT ST_3DExtent(geom) AS e, max(ST_SRID(geom)) AS srid FROM pd_solids) s) o,
		(VALUES (1, ''TIN Z (((0 0 0, 2 2 2, 4 4 4, 0 0 0)))''), (2, ''POLYGON Z ((1 1 0, 3 3 0, 2 2 0, 1 1 0))''),
			(3, ''TIN Z (((4 0 0, 4 4 4, 4 2 2, 4 0 0)), ((4 0 0, 4 4 0, 4 4 4, 4 0 0)))'')) v(i, w)',
		format('pd_key(%L, 200000 + i)::%s', pd_key_type('pd_surfaces'), pd_key_type('pd_surfaces')));
	-- bodies as rows: the small bodies (nested, touching, in a cavity)
	-- against every body, as volumes and as surfaces
	PERFORM pd_derive('pd_small', 'SELECT k, geom FROM pd_solids WHERE ST_NPoints(geom) < 100');
	PERFORM pd_check(input, 'ST_ExactIntersectsSolid3DJoin', 'pd_solids', 'pd_small',
		'ST_ExactIntersectsSolid3D($L, $R)', pd_probe_expected('pd_small', 'pd_solids'));
	PERFORM pd_check(input, 'ST_ExactIntersects3DJoin', 'pd_small', 'pd_solids',
		'ST_ExactIntersects3D($L, $R)', pd_probe_expected('pd_small', 'pd_solids'));
	PERFORM pd_check(input, 'ST_ExactIntersects3DJoin', 'pd_holes', 'pd_surfaces',
		'ST_ExactIntersects3D($L, $R)', pd_probe_expected('pd_holes', 'pd_surfaces'));
	PERFORM pd_check(input, 'ST_ExactIntersects3DJoin', 'pd_points', 'pd_surfaces',
		'ST_ExactIntersects3D($L, $R)', pd_probe_expected('pd_points', 'pd_surfaces'));
	PERFORM pd_check(input, 'ST_ExactIntersectsJoin', 'pd_holes', 'pd_surfaces',
		'ST_ExactIntersects($L, $R)', pd_probe_expected('pd_holes', 'pd_surfaces'));

	-- rows sharing an id are one object: some ids given to two or three rows
	PERFORM pd_derive('pd_holes_dup', 'SELECT CASE WHEN random() < 0.3 THEN ks[1 + floor(random() * cardinality(ks))::int] ELSE k END AS k, geom
		FROM pd_holes, (SELECT array_agg(k) AS ks FROM pd_holes) a');
	PERFORM pd_derive('pd_solids_dup', 'SELECT CASE WHEN random() < 0.3 THEN ks[1 + floor(random() * cardinality(ks))::int] ELSE k END AS k, geom
		FROM pd_solids, (SELECT array_agg(k) AS ks FROM pd_solids) a');
	PERFORM pd_check(input, 'ST_ExactIntersects3DJoin', 'pd_holes_dup', 'pd_solids_dup',
		'ST_ExactIntersects3D($L, $R)', false, 'error', NULL, true);
	PERFORM pd_check(input, 'ST_ExactIntersectsJoin', 'pd_solids_dup', 'pd_holes_dup',
		'ST_ExactIntersects($L, $R)', false, 'error', NULL, true);
	PERFORM pd_check(input, 'ST_ExactIntersectsSolid3DJoin', 'pd_solids_dup', 'pd_holes_dup',
		'ST_ExactIntersectsSolid3D($L, $R)', false, 'error', NULL, true);
	PERFORM pd_check(input, 'ST_ExactLocate3DJoin', 'pd_points', 'pd_solids_dup',
		'ST_ExactLocate3D($R, $L) <> ''outside''', false, 'error', 'ST_ExactIntersectsSolid3D($R, $L)', true);
END $$;

-- (Re)create table tab from a query giving (k, geom), stored as pd_solids is.
CREATE FUNCTION pd_derive(tab text, sql text) RETURNS void
LANGUAGE plpgsql AS $$
BEGIN
	EXECUTE format('DROP TABLE IF EXISTS %I', tab);
	EXECUTE format('CREATE TABLE %I AS %s WITH NO DATA', tab, sql);
	EXECUTE format('ALTER TABLE %I ALTER COLUMN geom SET STORAGE EXTERNAL', tab);
	EXECUTE format('INSERT INTO %I %s', tab, sql);
	EXECUTE format('ANALYZE %I', tab);
END $$;

-- A minegen mine (drill_holes, ore_bodies, mine_degeneracies loaded) as the
-- pd_* tables: holes, their vertices as points (the deliberate contacts
-- among them), bodies as solids and as 2D areas. Also checks the
-- generator's own expectations for its deliberate cases (an oracle that
-- owes nothing to exactgpu) against the probe's answer.
CREATE FUNCTION pd_from_mine(input text, store boolean) RETURNS void
LANGUAGE plpgsql AS $$
DECLARE
	storage text := CASE WHEN store OR random() < 0.5 THEN 'external' ELSE 'extended' END;
	wrong text;
BEGIN
	DROP TABLE IF EXISTS pd_s_solids, pd_s_holes, pd_s_points, pd_s_areas, pd_s_rows2d;
	CREATE TEMP TABLE pd_s_solids AS SELECT geom AS g FROM ore_bodies;
	CREATE TEMP TABLE pd_s_holes AS SELECT geom AS g FROM drill_holes;
	CREATE TEMP TABLE pd_s_points AS
		SELECT ST_PointN(h.geom, d.hole_point) AS g FROM mine_degeneracies d JOIN drill_holes h USING (hole_id)
		UNION ALL (SELECT (ST_DumpPoints(geom)).geom FROM drill_holes ORDER BY random() LIMIT 150);
	CREATE TEMP TABLE pd_s_areas AS SELECT geom AS g FROM ore_bodies;
	CREATE TEMP TABLE pd_s_rows2d AS SELECT geom AS g FROM drill_holes;
	PERFORM pd_fill('pd_solids', 'pd_s_solids', pd_random_key_type(), storage);
	PERFORM pd_fill('pd_holes', 'pd_s_holes', pd_random_key_type(), storage);
	PERFORM pd_fill('pd_points', 'pd_s_points', pd_random_key_type(), storage);
	PERFORM pd_fill('pd_areas', 'pd_s_areas', pd_random_key_type(), storage);
	PERFORM pd_fill('pd_rows2d', 'pd_s_rows2d', pd_random_key_type(), storage);

	SET LOCAL exactgpu.probe_join = on;
	SELECT string_agg(format('%s hole %s body %s expects %s', d.kind, d.hole_id, d.body_id, d.expect_intersects), '; ')
	INTO wrong
	FROM mine_degeneracies d
	LEFT JOIN ST_ExactIntersects3DJoin('SELECT hole_id, geom FROM drill_holes',
			'SELECT body_id, geom FROM ore_bodies') j ON j.left_id = d.hole_id AND j.right_id = d.body_id
	WHERE (j.left_id IS NOT NULL) <> d.expect_intersects;
	IF wrong IS NOT NULL THEN
		PERFORM pd_fail(input, 'ST_ExactIntersects3DJoin', 'drill_holes x ore_bodies',
			'minegen''s deliberate cases, probe on (' || (SELECT device FROM exactgpu_last_join_stats()) || '): ' || wrong);
	END IF;
	SET LOCAL exactgpu.probe_join = off;
	SELECT string_agg(format('%s hole %s body %s expects %s', d.kind, d.hole_id, d.body_id, d.expect_intersects), '; ')
	INTO wrong
	FROM mine_degeneracies d
	LEFT JOIN ST_ExactIntersects3DJoin('SELECT hole_id, geom FROM drill_holes',
			'SELECT body_id, geom FROM ore_bodies') j ON j.left_id = d.hole_id AND j.right_id = d.body_id
	WHERE (j.left_id IS NOT NULL) <> d.expect_intersects;
	IF wrong IS NOT NULL THEN
		PERFORM pd_fail(input, 'ST_ExactIntersects3DJoin', 'drill_holes x ore_bodies',
			'minegen''s deliberate cases, probe off: ' || wrong);
	END IF;
END $$;

-- With the store: bodies prewarmed, everything evicted, or left as the
-- last input left the store (each join then runs cold, then warm).
CREATE FUNCTION pd_warmth(store boolean, seed int) RETURNS text
LANGUAGE plpgsql AS $$
BEGIN
	IF NOT store THEN
		RETURN 'no store';
	ELSIF seed % 3 = 0 THEN
		RETURN format('prewarmed %s bodies', exactgpu_prewarm('pd_solids', 'geom') + exactgpu_prewarm('pd_areas', 'geom'));
	ELSIF seed % 3 = 1 THEN
		RETURN format('evicted %s', exactgpu_resident_evict());
	END IF;
	RETURN 'as left';
END $$;
