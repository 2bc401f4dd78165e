-- Security: no search_path hijack of the extension's functions,
-- and settings that an unprivileged user cannot turn against the server.

-- 1. Every function of the extension not written in C pins its search_path.
SELECT p.oid::regprocedure AS unpinned_function
FROM pg_depend d
JOIN pg_extension e ON e.oid = d.refobjid AND e.extname = 'exactgpu'
JOIN pg_proc p ON p.oid = d.objid AND d.classid = 'pg_proc'::regclass
JOIN pg_language l ON l.oid = p.prolang
WHERE d.deptype = 'e' AND l.lanname NOT IN ('c', 'internal')
  AND NOT EXISTS (SELECT 1 FROM unnest(p.proconfig) c WHERE c LIKE 'search_path=%');
SELECT count(*) > 0 AS has_sql_functions
FROM pg_depend d
JOIN pg_extension e ON e.oid = d.refobjid AND e.extname = 'exactgpu'
JOIN pg_proc p ON p.oid = d.objid AND d.classid = 'pg_proc'::regclass
JOIN pg_language l ON l.oid = p.prolang
WHERE d.deptype = 'e' AND l.lanname NOT IN ('c', 'internal');

-- 2. The audit's hijack: an unprivileged role plants, in a schema of its
-- own, functions with the signatures that the extension's SQL function
-- ST_ExactCompositeLabel calls (format, round) and those that the former
-- PL/pgSQL ST_ExactIntercepts3DJoin called (now C: it must resolve no name
-- through the caller's search_path); a superuser whose search_path lists
-- that schema first runs them. None of the planted functions may run (they
-- would raise a NOTICE). An unpinned copy of the label function shows that
-- the plant does hijack what is not pinned, so the check can fail.
CREATE TABLE sec_holes (id bigint, geom geometry);
CREATE TABLE sec_bodies (id bigint, geom geometry);
INSERT INTO sec_holes VALUES (1, 'LINESTRING Z(0.5 0.5 2, 0.5 0.5 -1)'), (2, 'LINESTRING Z(5 5 5, 6 6 6)');
INSERT INTO sec_bodies VALUES (1, 'POLYHEDRALSURFACE Z(((0 0 0, 0 1 0, 1 1 0, 1 0 0, 0 0 0)), ((0 0 1, 1 0 1, 1 1 1, 0 1 1, 0 0 1)),
	((0 0 0, 1 0 0, 1 0 1, 0 0 1, 0 0 0)), ((0 1 0, 0 1 1, 1 1 1, 1 1 0, 0 1 0)),
	((0 0 0, 0 0 1, 0 1 1, 0 1 0, 0 0 0)), ((1 0 0, 1 1 0, 1 1 1, 1 0 1, 1 0 0)))');
CREATE ROLE regress_exg_planter;
CREATE SCHEMA sec_planted AUTHORIZATION regress_exg_planter;
SET ROLE regress_exg_planter;
CREATE FUNCTION sec_planted.ST_ExactIntersects3DJoin(text, text)
	RETURNS TABLE (left_id bigint, right_id bigint) LANGUAGE plpgsql AS
	$$BEGIN RAISE NOTICE 'planted ST_ExactIntersects3DJoin ran with superuser = %', (SELECT rolsuper FROM pg_catalog.pg_roles WHERE rolname = current_user); END$$;
CREATE FUNCTION sec_planted.ST_ExactLocate3DJoin(text, text)
	RETURNS TABLE (point_id bigint, solid_id bigint) LANGUAGE plpgsql AS
	$$BEGIN RAISE NOTICE 'planted ST_ExactLocate3DJoin ran with superuser = %', (SELECT rolsuper FROM pg_catalog.pg_roles WHERE rolname = current_user); END$$;
CREATE FUNCTION sec_planted.ST_ExactIntercepts3D(geometry, geometry, OUT from_m float8, OUT to_m float8)
	RETURNS SETOF record LANGUAGE plpgsql AS
	$$BEGIN RAISE NOTICE 'planted ST_ExactIntercepts3D ran with superuser = %', (SELECT rolsuper FROM pg_catalog.pg_roles WHERE rolname = current_user); END$$;
CREATE FUNCTION sec_planted.ST_StartPoint(geometry) RETURNS geometry LANGUAGE plpgsql AS
	$$BEGIN RAISE NOTICE 'planted ST_StartPoint ran with superuser = %', (SELECT rolsuper FROM pg_catalog.pg_roles WHERE rolname = current_user); RETURN NULL; END$$;
-- format() with exact argument types beats pg_catalog's VARIADIC "any"
CREATE FUNCTION sec_planted.format(text, numeric, numeric, text, numeric) RETURNS text LANGUAGE plpgsql AS
	$$BEGIN RAISE NOTICE 'planted format ran with superuser = %', (SELECT rolsuper FROM pg_catalog.pg_roles WHERE rolname = current_user); RETURN 'hijacked'; END$$;
RESET ROLE;
-- the label's body, not pinned
CREATE FUNCTION sec_unpinned_label(c exactgpu_composite, unit text DEFAULT 'g/t') RETURNS text
	LANGUAGE sql IMMUTABLE AS $$
	SELECT CASE WHEN ($1).grade IS NULL THEN NULL
	       ELSE format('%s m @ %s %s from %s m', round(($1).length_m::numeric, 1),
	                   round(($1).grade::numeric, 2), $2, round(($1).from_m::numeric, 1)) END
$$;
CREATE TEMP TABLE sec_comp AS SELECT ST_ExactComposite(a, b, g, 0.5, 4.5) AS c
FROM (VALUES (0.0::float8, 2.0::float8, 4.0::float8), (2.0, 5.0, 8.0)) v(a, b, g);
SET search_path = sec_planted, public;
SELECT ST_ExactCompositeLabel(c) AS pinned FROM sec_comp;
SELECT sec_unpinned_label(c) AS unpinned FROM sec_comp;
SELECT * FROM ST_ExactIntercepts3DJoin('SELECT id, geom FROM sec_holes', 'SELECT id, geom FROM sec_bodies');
RESET search_path;
-- the same answers without the planted schema
SELECT ST_ExactCompositeLabel(c) AS pinned, sec_unpinned_label(c) AS unpinned FROM sec_comp;
SELECT h.id, i.* FROM sec_holes h, sec_bodies b, ST_ExactIntercepts3D(h.geom, b.geom) i ORDER BY 1, 2;
DROP SCHEMA sec_planted CASCADE;
DROP FUNCTION sec_unpinned_label(exactgpu_composite, text);
DROP TABLE sec_comp;

-- 3. Settings: the memory budget is superuser's; thread counts are capped
-- at the cores; a grid of 2^25 cells (the audit: 19.7 GB, then the OOM
-- killer) is fitted to memory.
CREATE ROLE regress_exg_user;
GRANT SELECT ON sec_holes, sec_bodies TO regress_exg_user;
SET ROLE regress_exg_user;
SET exactgpu.memory_limit = '100GB';
SET exactgpu.device = cpu;
SET exactgpu.worker_threads = 0;
SELECT count(*) FROM ST_BoxJoin('SELECT id, geom FROM sec_holes', 'SELECT id, geom FROM sec_holes');
CREATE TEMP TABLE sec_threads AS SELECT device FROM exactgpu_last_join_stats();
SET exactgpu.worker_threads = 1024;
SELECT count(*) FROM ST_BoxJoin('SELECT id, geom FROM sec_holes', 'SELECT id, geom FROM sec_holes');
-- 1024 threads asked: the same pool as "all cores"
SELECT l.device = t.device AS capped_at_cores FROM exactgpu_last_join_stats() l, sec_threads t;
RESET exactgpu.worker_threads;
-- 300 x 300 boxes, each covering nearly the whole domain: 90,000 pairs
SET exactgpu.grid_cells = 33554432;
SELECT count(*) AS pairs FROM ST_BoxJoin(
	'SELECT i::bigint, ST_MakeEnvelope(i / 300.0, i / 300.0, 1000 + i / 300.0, 1000 + i / 300.0) FROM generate_series(1, 300) i',
	'SELECT i::bigint, ST_MakeEnvelope(0.5 + i / 300.0, 0.5 + i / 300.0, 1000.5 + i / 300.0, 1000.5 + i / 300.0) FROM generate_series(1, 300) i');
-- the grid was made coarser: a few cells, not 2^25 (each box would be in ~2^24)
SELECT (SELECT exp(sum(ln(d::float8))) FROM unnest(string_to_array(grid, 'x')) d) <= 10000 AS grid_fitted
FROM exactgpu_last_join_stats();
SELECT count(*) AS pairs FROM ST_ExactIntersectsJoin(
	'SELECT i::bigint, ST_MakeEnvelope(i / 300.0, i / 300.0, 1000 + i / 300.0, 1000 + i / 300.0) FROM generate_series(1, 300) i',
	'SELECT i::bigint, ST_MakeEnvelope(0.5 + i / 300.0, 0.5 + i / 300.0, 1000.5 + i / 300.0, 1000.5 + i / 300.0) FROM generate_series(1, 300) i');
RESET exactgpu.grid_cells;
RESET exactgpu.device;
DROP TABLE sec_threads;
RESET ROLE;
SHOW exactgpu.memory_limit;
DROP TABLE sec_holes, sec_bodies;
DROP ROLE regress_exg_user;
DROP ROLE regress_exg_planter;
