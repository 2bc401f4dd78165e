-- The extension is installed (pg_regress loads it, with its PostGIS dependency).
CREATE EXTENSION IF NOT EXISTS exactgpu CASCADE;
SELECT extname, extversion FROM pg_extension WHERE extname IN ('postgis', 'exactgpu') ORDER BY 1;
-- Predicates are IMMUTABLE STRICT PARALLEL SAFE; counters, reports and the
-- joins that read tables through SQL are not.
SELECT proname, provolatile, proisstrict, proparallel
FROM pg_proc p JOIN pg_depend d ON d.objid = p.oid
JOIN pg_extension e ON e.oid = d.refobjid AND e.extname = 'exactgpu'
ORDER BY proname, provolatile, proisstrict, proparallel;
