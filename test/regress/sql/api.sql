-- API conventions (issue 18): container first, one naming scheme for the
-- outputs of new joins, 2D inputs refused by 3D functions, a comment on
-- every function and type, and planner support for the volume predicate.

-- Every function, aggregate and type of the extension has a comment.
SELECT pg_describe_object(d.classid, d.objid, d.objsubid) AS uncommented
FROM pg_depend d
JOIN pg_extension e ON e.oid = d.refobjid AND e.extname = 'exactgpu'
WHERE d.deptype = 'e'
  AND d.classid IN ('pg_proc'::regclass, 'pg_type'::regclass)
  AND obj_description(d.objid, (SELECT relname FROM pg_class WHERE oid = d.classid)) IS NULL
  AND NOT EXISTS (SELECT 1 FROM pg_type t WHERE d.classid = 'pg_type'::regclass AND t.oid = d.objid
                  AND t.typelem <> 0)   -- the implicit array type of a base type
ORDER BY 1;
SELECT obj_description('ST_ExactLocate3DJoin(text, text)'::regprocedure, 'pg_proc') LIKE 'Deprecated%' AS deprecated;

-- New joins name their outputs left_id / right_id (first and second argument).
SELECT p.oid::regprocedure AS join_function, array_agg(a.name ORDER BY a.n) AS outputs
FROM pg_proc p
JOIN pg_depend d ON d.objid = p.oid AND d.classid = 'pg_proc'::regclass AND d.deptype = 'e'
JOIN pg_extension e ON e.oid = d.refobjid AND e.extname = 'exactgpu'
CROSS JOIN LATERAL unnest(p.proargnames, p.proargmodes::text[]) WITH ORDINALITY AS a(name, mode, n)
WHERE p.proname LIKE '%join' AND a.mode = 't'
GROUP BY p.oid ORDER BY p.oid::regprocedure::text COLLATE "C";

-- A geometry without Z meeting one with Z in a 3D function is an error with
-- a hint (PostGIS guesses "any z" with a NOTICE; z = 0 would silently answer
-- 0 hits for a lease outline against holes at depth).
SELECT ST_ExactIntersects3D('POLYGON((0 0, 10 0, 10 10, 0 10, 0 0))', 'LINESTRING Z(5 5 -100, 5 5 -200)');
SELECT ST_ExactIntersectsSolid3D('TIN Z(((0 0 0, 1 0 0, 0 1 0, 0 0 0)), ((0 0 0, 0 0 1, 1 0 0, 0 0 0)), ((0 0 0, 0 1 0, 0 0 1, 0 0 0)), ((1 0 0, 0 0 1, 0 1 0, 1 0 0)))',
                                 'POINT(0.1 0.1)');
SELECT ST_ExactLocate3D('TIN Z(((0 0 0, 1 0 0, 0 1 0, 0 0 0)), ((0 0 0, 0 0 1, 1 0 0, 0 0 0)), ((0 0 0, 0 1 0, 0 0 1, 0 0 0)), ((1 0 0, 0 0 1, 0 1 0, 1 0 0)))',
                        'POINT(0.1 0.1)');
SELECT ST_ExactOrientation3D('POINT Z(0 0 0)', 'POINT(1 0)', 'POINT(0 1)', 'POINT(0 0)');
SELECT * FROM ST_ExactIntersects3DJoin($$SELECT 1::bigint, 'POLYGON((0 0, 10 0, 10 10, 0 10, 0 0))'::geometry$$,
                                       $$SELECT 2::bigint, 'LINESTRING Z(5 5 -100, 5 5 -200)'::geometry$$);
SELECT * FROM ST_ExactIntersectsSolid3DJoin($$SELECT 1::bigint, 'TIN Z(((0 0 0, 1 0 0, 0 1 0, 0 0 0)), ((0 0 0, 0 0 1, 1 0 0, 0 0 0)), ((0 0 0, 0 1 0, 0 0 1, 0 0 0)), ((1 0 0, 0 0 1, 0 1 0, 1 0 0)))'::geometry$$,
                                            $$SELECT 2::bigint, 'POINT(0.1 0.1)'::geometry$$);
SELECT * FROM ST_ExactLocate3DJoin($$SELECT 2::bigint, 'POINT(0.1 0.1)'::geometry$$,
                                   $$SELECT 1::bigint, 'TIN Z(((0 0 0, 1 0 0, 0 1 0, 0 0 0)), ((0 0 0, 0 0 1, 1 0 0, 0 0 0)), ((0 0 0, 0 1 0, 0 0 1, 0 0 0)), ((1 0 0, 0 0 1, 0 1 0, 1 0 0)))'::geometry$$);
-- What the hint says works: an explicit elevation, or the 2D predicate.
SELECT ST_ExactIntersects3D(ST_Force3D('POLYGON((0 0, 10 0, 10 10, 0 10, 0 0))', -150), 'LINESTRING Z(5 5 -100, 5 5 -200)') AS at_depth,
       ST_ExactIntersects('POLYGON((0 0, 10 0, 10 10, 0 10, 0 0))', 'LINESTRING Z(5 5 -100, 5 5 -200)') AS in_plan;
-- Both without Z: the plane z = 0, as before; empty geometries are neither.
SELECT ST_ExactIntersects3D('POLYGON((0 0, 10 0, 10 10, 0 10, 0 0))', 'POINT(5 5)') AS flat,
       ST_ExactIntersects3D('POINT EMPTY', 'POINT Z(5 5 5)') AS empty;

-- Planner support: the volume predicate gets the &&& index condition, with
-- the container on either side of the index.
CREATE TABLE api_bodies (id int PRIMARY KEY, geom geometry);
CREATE TABLE api_samples (id int PRIMARY KEY, geom geometry);
INSERT INTO api_bodies
	SELECT i, ST_Translate('TIN Z(((0 0 0, 1 0 0, 0 1 0, 0 0 0)), ((0 0 0, 0 0 1, 1 0 0, 0 0 0)), ((0 0 0, 0 1 0, 0 0 1, 0 0 0)), ((1 0 0, 0 0 1, 0 1 0, 1 0 0)))'::geometry, 2 * i, 0, 0)
	FROM generate_series(0, 99) i;
INSERT INTO api_samples
	SELECT i, ST_MakePoint(i / 50.0, 0.1, 0.1) FROM generate_series(0, 9999) i;
CREATE INDEX ON api_bodies USING gist (geom gist_geometry_ops_nd);
CREATE INDEX ON api_samples USING gist (geom gist_geometry_ops_nd);
ANALYZE api_bodies;
ANALYZE api_samples;
SET enable_seqscan = off;
EXPLAIN (COSTS OFF)
SELECT b.id, s.id FROM api_bodies b JOIN api_samples s ON ST_ExactIntersectsSolid3D(b.geom, s.geom) WHERE b.id = 3;
EXPLAIN (COSTS OFF)
SELECT b.id, s.id FROM api_samples s JOIN api_bodies b ON ST_ExactIntersectsSolid3D(b.geom, s.geom) WHERE s.id = 3;
RESET enable_seqscan;
-- the indexed join, the batch join and the deprecated points-first join agree
SELECT count(*) AS inside_or_on FROM api_bodies b JOIN api_samples s ON ST_ExactIntersectsSolid3D(b.geom, s.geom);
SELECT count(*) AS differs FROM (
	(SELECT b.id::bigint, s.id::bigint FROM api_bodies b JOIN api_samples s ON ST_ExactIntersectsSolid3D(b.geom, s.geom)
	 EXCEPT SELECT left_id, right_id FROM ST_ExactIntersectsSolid3DJoin('SELECT id, geom FROM api_bodies', 'SELECT id, geom FROM api_samples'))
	UNION ALL
	(SELECT left_id, right_id FROM ST_ExactIntersectsSolid3DJoin('SELECT id, geom FROM api_bodies', 'SELECT id, geom FROM api_samples')
	 EXCEPT SELECT solid_id, point_id FROM ST_ExactLocate3DJoin('SELECT id, geom FROM api_samples', 'SELECT id, geom FROM api_bodies'))) d;
DROP TABLE api_bodies, api_samples;
