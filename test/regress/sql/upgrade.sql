-- ALTER EXTENSION exactgpu UPDATE from 0.1.0 and from 0.2.0 must give the catalog of a fresh
-- install: every object, its definition and its comment. Runs in a scratch
-- database so that it neither needs nor disturbs the other tests' state.
\set regress_db :DBNAME
SET client_min_messages = warning;
DROP DATABASE IF EXISTS exactgpu_upgrade;
CREATE DATABASE exactgpu_upgrade;
\c exactgpu_upgrade
SET client_min_messages = warning;
CREATE EXTENSION postgis;
CREATE TABLE catalog_snapshot (route text, object text, definition text);
-- Each member of the extension with what defines it: functions by their full
-- definition (volatility, strictness, parallel safety, cost, config, body),
-- aggregates by their support functions, types by their I/O, and comments.
CREATE FUNCTION snapshot(route text) RETURNS void LANGUAGE sql AS $$
INSERT INTO catalog_snapshot
SELECT route, pg_describe_object(d.classid, d.objid, d.objsubid),
       concat_ws(' | ',
         CASE WHEN d.classid = 'pg_proc'::regclass AND p.prokind IN ('f', 'p')
              THEN pg_get_functiondef(d.objid) END,
         CASE WHEN d.classid = 'pg_proc'::regclass AND p.prokind = 'a'
              THEN (SELECT concat_ws(',', a.aggtransfn, a.aggfinalfn, a.aggcombinefn,
                                     a.aggserialfn, a.aggdeserialfn, a.aggtranstype::regtype)
                    FROM pg_aggregate a WHERE a.aggfnoid = d.objid)
                   || ' ' || pg_get_function_arguments(d.objid)
                   || ' ' || p.proparallel::text END,
         CASE WHEN d.classid = 'pg_type'::regclass
              THEN (SELECT concat_ws(',', t.typinput, t.typoutput, t.typreceive, t.typsend,
                                     t.typlen, t.typstorage, t.typalign)
                    FROM pg_type t WHERE t.oid = d.objid) END,
         'comment: ' || obj_description(d.objid, (SELECT relname FROM pg_class WHERE oid = d.classid)))
FROM pg_depend d
JOIN pg_extension e ON e.oid = d.refobjid AND e.extname = 'exactgpu'
LEFT JOIN pg_proc p ON d.classid = 'pg_proc'::regclass AND p.oid = d.objid
WHERE d.deptype = 'e'
$$;
CREATE EXTENSION exactgpu VERSION '0.1.0';
ALTER EXTENSION exactgpu UPDATE;
SELECT extversion = (SELECT default_version FROM pg_available_extensions
                     WHERE name = 'exactgpu') AS updated_to_default
FROM pg_extension WHERE extname = 'exactgpu';
SELECT snapshot('updated');
DROP EXTENSION exactgpu;
CREATE EXTENSION exactgpu;
SELECT snapshot('fresh');
SELECT count(*) > 30 AS has_objects FROM catalog_snapshot WHERE route = 'fresh';
-- What differs between the two routes (nothing).
SELECT * FROM (
(SELECT 'only after update' AS side, object, definition FROM catalog_snapshot WHERE route = 'updated'
 EXCEPT SELECT 'only after update', object, definition FROM catalog_snapshot WHERE route = 'fresh')
UNION ALL
(SELECT 'only in fresh install', object, definition FROM catalog_snapshot WHERE route = 'fresh'
 EXCEPT SELECT 'only in fresh install', object, definition FROM catalog_snapshot WHERE route = 'updated')) d
ORDER BY side COLLATE "C", object COLLATE "C";
-- The same from 0.2.0 as shipped (nothing differs either).
DROP EXTENSION exactgpu;
CREATE EXTENSION exactgpu VERSION '0.2.0';
ALTER EXTENSION exactgpu UPDATE;
SELECT snapshot('updated from 0.2.0');
SELECT * FROM (
(SELECT 'only after update' AS side, object, definition FROM catalog_snapshot WHERE route = 'updated from 0.2.0'
 EXCEPT SELECT 'only after update', object, definition FROM catalog_snapshot WHERE route = 'fresh')
UNION ALL
(SELECT 'only in fresh install', object, definition FROM catalog_snapshot WHERE route = 'fresh'
 EXCEPT SELECT 'only in fresh install', object, definition FROM catalog_snapshot WHERE route = 'updated from 0.2.0')) d
ORDER BY side COLLATE "C", object COLLATE "C";
\c :regress_db
SET client_min_messages = warning;
DROP DATABASE exactgpu_upgrade;
