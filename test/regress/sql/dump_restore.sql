-- No answer depends on PostGIS's solid flag: pg_dump writes geometries as
-- (E)WKB, which has no such flag, so a body made with ST_MakeSolid comes back
-- a plain surface. This test computes every documented query on a small
-- mine (bodies flagged solid and not, samples, holes), stores the answers,
-- dumps the schema with pg_dump -Fc, restores it with pg_restore into a
-- second database of this cluster and computes the answers again there:
-- they must be identical, row for row.
\set regress_db :DBNAME
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS postgis_sfcgal;
DROP SCHEMA IF EXISTS dr CASCADE;
CREATE SCHEMA dr;
CREATE TABLE dr.bodies (id bigint PRIMARY KEY, geom geometry);
-- a 4 m cube flagged solid, the same cube unflagged at 10 m, an octahedron,
-- a cube with a cavity (inner shell pointing into the cavity), and a cube
-- at UTM coordinates
INSERT INTO dr.bodies VALUES
	(1, ST_MakeSolid(ST_Scale('POLYHEDRALSURFACE Z(((0 0 0, 0 1 0, 1 1 0, 1 0 0, 0 0 0)), ((0 0 1, 1 0 1, 1 1 1, 0 1 1, 0 0 1)),
		 ((0 0 0, 1 0 0, 1 0 1, 0 0 1, 0 0 0)), ((0 1 0, 0 1 1, 1 1 1, 1 1 0, 0 1 0)),
		 ((0 0 0, 0 0 1, 0 1 1, 0 1 0, 0 0 0)), ((1 0 0, 1 1 0, 1 1 1, 1 0 1, 1 0 0)))'::geometry, 4, 4, 4))),
	(2, ST_Translate(ST_Scale('POLYHEDRALSURFACE Z(((0 0 0, 0 1 0, 1 1 0, 1 0 0, 0 0 0)), ((0 0 1, 1 0 1, 1 1 1, 0 1 1, 0 0 1)),
		 ((0 0 0, 1 0 0, 1 0 1, 0 0 1, 0 0 0)), ((0 1 0, 0 1 1, 1 1 1, 1 1 0, 0 1 0)),
		 ((0 0 0, 0 0 1, 0 1 1, 0 1 0, 0 0 0)), ((1 0 0, 1 1 0, 1 1 1, 1 0 1, 1 0 0)))'::geometry, 4, 4, 4), 10, 0, 0)),
	(3, ST_MakeSolid('TIN Z(((10 2 2, 8 4 2, 8 2 4, 10 2 2)), ((8 4 2, 6 2 2, 8 2 4, 8 4 2)), ((6 2 2, 8 0 2, 8 2 4, 6 2 2)),
	           ((8 0 2, 10 2 2, 8 2 4, 8 0 2)), ((8 4 2, 10 2 2, 8 2 0, 8 4 2)), ((6 2 2, 8 4 2, 8 2 0, 6 2 2)),
	           ((8 0 2, 6 2 2, 8 2 0, 8 0 2)), ((10 2 2, 8 0 2, 8 2 0, 10 2 2)))')),
	(4, ST_MakeSolid('POLYHEDRALSURFACE Z(((20 0 0, 20 4 0, 24 4 0, 24 0 0, 20 0 0)), ((20 0 4, 24 0 4, 24 4 4, 20 4 4, 20 0 4)),
		 ((20 0 0, 24 0 0, 24 0 4, 20 0 4, 20 0 0)), ((20 4 0, 20 4 4, 24 4 4, 24 4 0, 20 4 0)),
		 ((20 0 0, 20 0 4, 20 4 4, 20 4 0, 20 0 0)), ((24 0 0, 24 4 0, 24 4 4, 24 0 4, 24 0 0)),
		 ((21 1 1, 22 1 1, 22 2 1, 21 2 1, 21 1 1)), ((21 1 2, 21 2 2, 22 2 2, 22 1 2, 21 1 2)),
		 ((21 1 1, 21 1 2, 22 1 2, 22 1 1, 21 1 1)), ((21 2 1, 22 2 1, 22 2 2, 21 2 2, 21 2 1)),
		 ((21 1 1, 21 2 1, 21 2 2, 21 1 2, 21 1 1)), ((22 1 1, 22 1 2, 22 2 2, 22 2 1, 22 1 1)))')),
	(5, ST_MakeSolid(ST_Translate(ST_Scale('POLYHEDRALSURFACE Z(((0 0 0, 0 1 0, 1 1 0, 1 0 0, 0 0 0)), ((0 0 1, 1 0 1, 1 1 1, 0 1 1, 0 0 1)),
		 ((0 0 0, 1 0 0, 1 0 1, 0 0 1, 0 0 0)), ((0 1 0, 0 1 1, 1 1 1, 1 1 0, 0 1 0)),
		 ((0 0 0, 0 0 1, 0 1 1, 0 1 0, 0 0 0)), ((1 0 0, 1 1 0, 1 1 1, 1 0 1, 1 0 0)))'::geometry, 2, 2, 2), 500000, 7000000, -500)));
-- assay samples on a half-metre grid (many exactly on faces, edges and
-- vertices), and drill holes, some wholly inside a body
CREATE TABLE dr.samples (id bigint PRIMARY KEY, geom geometry);
INSERT INTO dr.samples
	SELECT row_number() OVER (), ST_MakePoint(x / 2.0, y / 2.0, z / 2.0)
	FROM generate_series(-1, 50) x, generate_series(-1, 9) y, generate_series(-1, 9) z;
INSERT INTO dr.samples
	SELECT 100000 + row_number() OVER (), ST_MakePoint(500000 + x / 2.0, 7000000 + y / 2.0, -500 + z / 2.0)
	FROM generate_series(-1, 5) x, generate_series(-1, 5) y, generate_series(-1, 5) z;
CREATE TABLE dr.holes (id bigint PRIMARY KEY, geom geometry);
INSERT INTO dr.holes VALUES
	(1, 'LINESTRING Z(1.5 1.5 1.5, 1.5 1.5 2.5)'),     -- inside cube 1
	(2, 'LINESTRING Z(2 2 5, 2 2 -1)'),                -- through cube 1
	(3, 'LINESTRING Z(12 2 1.5, 12 2 2.5)'),           -- inside the unflagged cube
	(4, 'LINESTRING Z(8 2 1.5, 8 2 2.5)'),             -- inside the octahedron
	(5, 'LINESTRING Z(21.5 1.5 1.2, 21.5 1.5 1.8)'),   -- inside the cavity
	(6, 'LINESTRING Z(21.5 1.5 5, 21.5 1.5 -1)'),      -- through the cavity
	(7, 'LINESTRING Z(500001 7000001 -499.5, 500001 7000001 -498.5)'),
	(8, 'LINESTRING Z(40 40 40, 41 41 41)');
CREATE INDEX ON dr.bodies USING gist (geom gist_geometry_ops_nd);
CREATE INDEX ON dr.samples USING gist (geom gist_geometry_ops_nd);

-- Every documented query, one answer per row.
CREATE FUNCTION dr.answers() RETURNS TABLE (query text, answer text) LANGUAGE sql STABLE AS $$
	SELECT 'ST_ExactIntersects3D', concat_ws(',', b.id, h.id) FROM dr.bodies b, dr.holes h
	WHERE ST_ExactIntersects3D(b.geom, h.geom)
	UNION ALL
	SELECT 'ST_ExactIntersectsSolid3D holes', concat_ws(',', b.id, h.id) FROM dr.bodies b, dr.holes h
	WHERE ST_ExactIntersectsSolid3D(b.geom, h.geom)
	UNION ALL
	SELECT 'ST_ExactIntersectsSolid3D samples (indexed JOIN)', concat_ws(',', b.id, s.id)
	FROM dr.bodies b JOIN dr.samples s ON ST_ExactIntersectsSolid3D(b.geom, s.geom)
	UNION ALL
	SELECT 'ST_ExactLocate3D', concat_ws(',', b.id, s.id, ST_ExactLocate3D(b.geom, s.geom))
	FROM dr.bodies b JOIN dr.samples s ON b.geom &&& s.geom
	UNION ALL
	SELECT 'ST_ExactIntersects3DJoin', concat_ws(',', left_id, right_id)
	FROM ST_ExactIntersects3DJoin('SELECT id, geom FROM dr.bodies', 'SELECT id, geom FROM dr.holes')
	UNION ALL
	SELECT 'ST_ExactIntersectsSolid3DJoin holes', concat_ws(',', left_id, right_id)
	FROM ST_ExactIntersectsSolid3DJoin('SELECT id, geom FROM dr.bodies', 'SELECT id, geom FROM dr.holes')
	UNION ALL
	SELECT 'ST_ExactIntersectsSolid3DJoin samples', concat_ws(',', left_id, right_id)
	FROM ST_ExactIntersectsSolid3DJoin((SELECT ST_ExactBatch(id, geom) FROM dr.bodies),
	                                   (SELECT ST_ExactBatch(id, geom) FROM dr.samples))
	UNION ALL
	SELECT 'ST_ExactLocate3DJoin', concat_ws(',', point_id, solid_id)
	FROM ST_ExactLocate3DJoin('SELECT id, geom FROM dr.samples', 'SELECT id, geom FROM dr.bodies')
	UNION ALL
	SELECT 'ST_ExactIntercepts3D', concat_ws(',', b.id, h.id, i::text)
	FROM dr.bodies b, dr.holes h, ST_ExactIntercepts3D(h.geom, b.geom) i
	UNION ALL
	SELECT 'ST_ExactIntercepts3DJoin', j::text
	FROM ST_ExactIntercepts3DJoin('SELECT id, geom FROM dr.holes', 'SELECT id, geom FROM dr.bodies') j
	UNION ALL
	SELECT 'validity', concat_ws(',', id, ST_ExactIsValidSolid(geom), ST_ExactIsValidSolidReason(geom)) FROM dr.bodies
	UNION ALL
	SELECT 'ST_ExactVolume', concat_ws(',', id, ST_ExactVolume(geom)::text) FROM dr.bodies
	UNION ALL
	SELECT 'ST_ExactForceOutward', concat_ws(',', id, ST_AsText(ST_ExactForceOutward(ST_Reverse(geom)))) FROM dr.bodies
	UNION ALL
	SELECT 'ST_ExactSelfIntersections3D', concat_ws(',', id, (SELECT count(*) FROM ST_ExactSelfIntersections3D(geom)))
	FROM dr.bodies
$$;
CREATE TABLE dr.saved AS SELECT * FROM dr.answers();
RESET client_min_messages;
SELECT query, count(*) AS answers FROM dr.saved GROUP BY 1 ORDER BY 1;

-- pg_dump -Fc, then pg_restore into a second database of this cluster.
\set dumpfile '/tmp/exactgpu_dump_restore_' :PORT '.dump'
\setenv PGHOST :HOST
\setenv PGPORT :PORT
\setenv DR_SOURCE :DBNAME
\setenv DR_FILE :dumpfile
SET client_min_messages = warning;
DROP DATABASE IF EXISTS exactgpu_dump_restore;
CREATE DATABASE exactgpu_dump_restore;
\! PGBIN=$(pg_config --bindir 2>/dev/null || echo /usr/lib/postgresql/15/bin); "$PGBIN/pg_dump" -Fc -n dr -f "$DR_FILE" "$DR_SOURCE" && echo dumped
\c exactgpu_dump_restore
SET client_min_messages = warning;
CREATE EXTENSION postgis;
CREATE EXTENSION exactgpu;
\! PGBIN=$(pg_config --bindir 2>/dev/null || echo /usr/lib/postgresql/15/bin); "$PGBIN/pg_restore" --exit-on-error -d exactgpu_dump_restore "$DR_FILE" && echo restored && rm -f "$DR_FILE"
RESET client_min_messages;
SELECT count(*) AS bodies FROM dr.bodies;
-- The same answers after the round trip, in both directions (and the
-- "samples inside the bodies" of the issue: not 0 after the restore).
SELECT count(*) AS lost FROM (SELECT * FROM dr.saved EXCEPT ALL SELECT * FROM dr.answers()) d;
SELECT count(*) AS gained FROM (SELECT * FROM dr.answers() EXCEPT ALL SELECT * FROM dr.saved) d;
SELECT count(*) AS samples_in_bodies FROM dr.answers() WHERE query = 'ST_ExactIntersectsSolid3DJoin samples';
\c :regress_db
SET client_min_messages = warning;
DROP DATABASE exactgpu_dump_restore;
DROP SCHEMA dr CASCADE;
