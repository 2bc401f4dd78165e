-- Exact volumes (ST_ExactVolume), outward orientation (ST_ExactForceOutward)
-- and inside-out bodies in validity. Every expected volume is computed
-- independently here in SQL numeric (exact on these decimal coordinates,
-- each an exact double) and converted to float8 once, so "=" checks that
-- the volume is the exact value rounded once.
SET extra_float_digits = 3;

-- A box lo..hi as a POLYHEDRALSURFACE with outward faces.
CREATE FUNCTION pg_temp.box(x0 numeric, y0 numeric, z0 numeric, x1 numeric, y1 numeric, z1 numeric)
RETURNS geometry LANGUAGE sql IMMUTABLE AS $$
SELECT format('POLYHEDRALSURFACE Z( ((%1$s %2$s %3$s, %1$s %5$s %3$s, %4$s %5$s %3$s, %4$s %2$s %3$s, %1$s %2$s %3$s)), ((%1$s %2$s %3$s, %1$s %2$s %6$s, %1$s %5$s %6$s, %1$s %5$s %3$s, %1$s %2$s %3$s)), ((%1$s %2$s %3$s, %4$s %2$s %3$s, %4$s %2$s %6$s, %1$s %2$s %6$s, %1$s %2$s %3$s)), ((%4$s %5$s %6$s, %4$s %2$s %6$s, %4$s %2$s %3$s, %4$s %5$s %3$s, %4$s %5$s %6$s)), ((%4$s %5$s %6$s, %4$s %5$s %3$s, %1$s %5$s %3$s, %1$s %5$s %6$s, %4$s %5$s %6$s)), ((%4$s %5$s %6$s, %1$s %5$s %6$s, %1$s %2$s %6$s, %4$s %2$s %6$s, %4$s %5$s %6$s)) )',
              x0, y0, z0, x1, y1, z1)::geometry
$$;

-- Boxes: ordinary, at UTM offsets, large, 2^-20 m thin, one ulp thick.
CREATE TABLE vol_boxes (name text, x0 numeric, y0 numeric, z0 numeric, x1 numeric, y1 numeric, z1 numeric);
INSERT INTO vol_boxes VALUES
	('unit',     0, 0, 0, 1, 1, 1),
	('utm',      500000.125, 7000000.25, -500.5, 500123.375, 7000456.5, -321.75),
	('large',    500000, 7000000, -2000, 510000, 7010000, 0),
	('thin',     500000.125, 7000000.25, -500.5, 500000.12500095367431640625, 7000000.5, -500),
	('one_ulp',  500000.125, 7000000.25, -500.5, 500001.125, 7000001.25, -500.49999999999994315658113919198513031005859375);
SELECT name, ST_ExactVolume(pg_temp.box(x0, y0, z0, x1, y1, z1)) AS volume,
       ST_ExactVolume(pg_temp.box(x0, y0, z0, x1, y1, z1)) = ((x1 - x0) * (y1 - y0) * (z1 - z0))::float8 AS exact
FROM vol_boxes ORDER BY name COLLATE "C";

-- Tetrahedra (|det| / 6) and triangular prisms (base area x height) as TINs
-- at UTM offsets; faces outward.
CREATE TABLE vol_tetra (name text, ax numeric, ay numeric, az numeric, bx numeric, by_ numeric, bz numeric,
                        cx numeric, cy numeric, cz numeric, dx numeric, dy numeric, dz numeric);
INSERT INTO vol_tetra VALUES
	('origin', 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1),
	('utm',    500000.125, 7000000.25, -500.5, 500010.5, 7000001.75, -499.25,
	           500002.375, 7000012.125, -498.5, 500003.25, 7000003.5, -480.125),
	('flat',   500000.125, 7000000.25, -500.5, 500100.5, 7000000.75, -500.5,
	           500000.375, 7000100.125, -500.5, 500033.25, 7000033.5, -500.499755859375);
CREATE FUNCTION pg_temp.tin(VARIADIC pts numeric[]) RETURNS geometry LANGUAGE sql IMMUTABLE AS $$
SELECT ('TIN Z(' || string_agg(format('((%s %s %s, %s %s %s, %s %s %s, %s %s %s))',
          pts[i], pts[i+1], pts[i+2], pts[i+3], pts[i+4], pts[i+5], pts[i+6], pts[i+7], pts[i+8], pts[i], pts[i+1], pts[i+2]), ',' ORDER BY i) || ')')::geometry
FROM generate_series(1, array_length(pts, 1), 9) i
$$;
WITH t AS (
	SELECT name, ax, ay, az, bx, by_, bz, cx, cy, cz, dx, dy, dz,
	       (bx - ax) * ((cy - ay) * (dz - az) - (cz - az) * (dy - ay))
	     - (by_ - ay) * ((cx - ax) * (dz - az) - (cz - az) * (dx - ax))
	     + (bz - az) * ((cx - ax) * (dy - ay) - (cy - ay) * (dx - ax)) AS det
	FROM vol_tetra)
SELECT name, det > 0 AS positive,
       ST_ExactVolume(pg_temp.tin(bx, by_, bz, cx, cy, cz, dx, dy, dz,   ax, ay, az, dx, dy, dz, cx, cy, cz,
                                  ax, ay, az, bx, by_, bz, dx, dy, dz,   ax, ay, az, cx, cy, cz, bx, by_, bz)) AS volume,
       ST_ExactVolume(pg_temp.tin(bx, by_, bz, cx, cy, cz, dx, dy, dz,   ax, ay, az, dx, dy, dz, cx, cy, cz,
                                  ax, ay, az, bx, by_, bz, dx, dy, dz,   ax, ay, az, cx, cy, cz, bx, by_, bz))
         = (det / 6)::float8 AS exact
FROM t ORDER BY name COLLATE "C";

-- A prism: base (counter-clockwise from above) between z0 and z1.
WITH p(ax, ay, bx, by_, cx, cy, z0, z1) AS (VALUES
	(500000.125, 7000000.25, 500210.5, 7000030.75, 500050.375, 7000170.125, -512.5, -300.25),
	(500000.125, 7000000.25, 500210.5, 7000030.75, 500050.375, 7000170.125, -512.5, -512.49999999999988631316227838397026062011718750))
SELECT ST_ExactVolume(pg_temp.tin(ax, ay, z1, bx, by_, z1, cx, cy, z1,   ax, ay, z0, cx, cy, z0, bx, by_, z0,
                                  ax, ay, z0, bx, by_, z0, bx, by_, z1,   ax, ay, z0, bx, by_, z1, ax, ay, z1,
                                  bx, by_, z0, cx, cy, z0, cx, cy, z1,   bx, by_, z0, cx, cy, z1, bx, by_, z1,
                                  cx, cy, z0, ax, ay, z0, ax, ay, z1,   cx, cy, z0, ax, ay, z1, cx, cy, z1)) AS volume,
       ST_ExactVolume(pg_temp.tin(ax, ay, z1, bx, by_, z1, cx, cy, z1,   ax, ay, z0, cx, cy, z0, bx, by_, z0,
                                  ax, ay, z0, bx, by_, z0, bx, by_, z1,   ax, ay, z0, bx, by_, z1, ax, ay, z1,
                                  bx, by_, z0, cx, cy, z0, cx, cy, z1,   bx, by_, z0, cx, cy, z1, bx, by_, z1,
                                  cx, cy, z0, ax, ay, z0, ax, ay, z1,   cx, cy, z0, ax, ay, z1, cx, cy, z1))
         = (((bx - ax) * (cy - ay) - (by_ - ay) * (cx - ax)) / 2 * (z1 - z0))::float8 AS exact
FROM p;

-- The same sum of signed tetrahedra as the engine, written again in SQL
-- numeric over the triangles of real-shaped bodies (coordinates of at most
-- 15 digits, so float8 -> numeric is exact): an independent check.
CREATE TABLE vol_bodies (name text PRIMARY KEY, geom geometry);
INSERT INTO vol_bodies VALUES
	('octahedron', pg_temp.tin(
		500010, 7000000, -500,  500000, 7000010, -500,  500000, 7000000, -490,
		500000, 7000010, -500,  499990, 7000000, -500,  500000, 7000000, -490,
		499990, 7000000, -500,  500000, 6999990, -500,  500000, 7000000, -490,
		500000, 6999990, -500,  500010, 7000000, -500,  500000, 7000000, -490,
		500000, 7000010, -500,  500010, 7000000, -500,  500000, 7000000, -510,
		499990, 7000000, -500,  500000, 7000010, -500,  500000, 7000000, -510,
		500000, 6999990, -500,  499990, 7000000, -500,  500000, 7000000, -510,
		500010, 7000000, -500,  500000, 6999990, -500,  500000, 7000000, -510)),
	('utm_box', pg_temp.box(500000.125, 7000000.25, -500.5, 500123.375, 7000456.5, -321.75));
WITH pts AS (
	SELECT b.name, d.path[1] AS face, ST_PointN(ST_ExteriorRing(d.geom), 1) AS a,
	       ST_PointN(ST_ExteriorRing(d.geom), 2) AS p2, ST_PointN(ST_ExteriorRing(d.geom), 3) AS p3
	FROM vol_bodies b, ST_Dump(b.geom) d WHERE b.name = 'octahedron'),
dets AS (
	SELECT name,
	       ST_X(a)::numeric * (ST_Y(p2)::numeric * ST_Z(p3)::numeric - ST_Z(p2)::numeric * ST_Y(p3)::numeric)
	     - ST_Y(a)::numeric * (ST_X(p2)::numeric * ST_Z(p3)::numeric - ST_Z(p2)::numeric * ST_X(p3)::numeric)
	     + ST_Z(a)::numeric * (ST_X(p2)::numeric * ST_Y(p3)::numeric - ST_Y(p2)::numeric * ST_X(p3)::numeric) AS det
	FROM pts)
SELECT d.name, ST_ExactVolume(b.geom) AS volume, ST_ExactVolume(b.geom) = (sum(d.det) / 6)::float8 AS exact
FROM dets d JOIN vol_bodies b USING (name) GROUP BY d.name, b.geom;

-- Inside out: every face reversed. The volume refuses it (never a negative
-- tonnage by surprise), validity names the repair, and the repair gives back
-- the original faces.
SELECT ST_ExactVolume(ST_Reverse(geom)) FROM vol_bodies WHERE name = 'utm_box';
SELECT name, ST_ExactIsValidSolid(ST_Reverse(geom)) AS valid, ST_ExactIsValidSolidReason(ST_Reverse(geom)) AS reason
FROM vol_bodies ORDER BY name COLLATE "C";
SELECT name, ST_ExactIsValidSolidReason(geom) AS reason,
       ST_AsText(ST_ExactForceOutward(ST_Reverse(geom))) = ST_AsText(geom) AS repaired,
       ST_ExactVolume(ST_ExactForceOutward(ST_Reverse(geom))) = ST_ExactVolume(geom) AS same_volume,
       ST_ExactForceOutward(geom) = geom AS outward_unchanged
FROM vol_bodies ORDER BY name COLLATE "C";
-- One face reversed: inconsistent orientation; the repair flips just that face.
SELECT ST_ExactVolume(g) FROM (SELECT pg_temp.tin(0,0,0, 0,1,0, 1,0,0,   0,0,0, 1,0,0, 0,0,1,
                                                  0,0,0, 0,0,1, 0,1,0,   1,0,0, 0,0,1, 0,1,0) AS g) s;
SELECT ST_ExactIsValidSolidReason(g) AS reason, ST_AsText(ST_ExactForceOutward(g)) AS outward,
       ST_ExactVolume(ST_ExactForceOutward(g)) AS volume
FROM (SELECT pg_temp.tin(0,0,0, 0,1,0, 1,0,0,   0,0,0, 1,0,0, 0,0,1,
                         0,0,0, 0,0,1, 0,1,0,   1,0,0, 0,0,1, 0,1,0) AS g) s;

-- A body with a cavity: the inner shell's normals point into the cavity
-- (away from the material). Volume = outer - inner; with the inner shell
-- pointing out it is inside out, and the repair reverses that shell only.
CREATE FUNCTION pg_temp.surfaces(a geometry, b geometry) RETURNS geometry LANGUAGE sql IMMUTABLE AS $$
SELECT ('POLYHEDRALSURFACE Z (' || substr(ST_AsText(a), 22, length(ST_AsText(a)) - 22) || ','
        || substr(ST_AsText(b), 22, length(ST_AsText(b)) - 22) || ')')::geometry
$$;
CREATE TABLE vol_cavity AS
SELECT pg_temp.box(500000, 7000000, -500, 500100, 7000100, -400) AS outer_box,
       pg_temp.box(500010.5, 7000010.25, -490.125, 500090, 7000090, -410) AS inner_box;
SELECT ST_ExactVolume(pg_temp.surfaces(outer_box, ST_Reverse(inner_box))) AS volume,
       ST_ExactVolume(pg_temp.surfaces(outer_box, ST_Reverse(inner_box)))
         = (100 * 100 * 100 - (500090 - 500010.5) * (7000090 - 7000010.25) * (-410 + 490.125))::float8 AS exact,
       ST_ExactIsValidSolidReason(pg_temp.surfaces(outer_box, ST_Reverse(inner_box))) AS reason
FROM vol_cavity;
SELECT ST_ExactVolume(pg_temp.surfaces(outer_box, inner_box)) FROM vol_cavity;
SELECT ST_ExactIsValidSolidReason(pg_temp.surfaces(outer_box, inner_box)) AS reason,
       ST_AsText(ST_ExactForceOutward(pg_temp.surfaces(outer_box, inner_box)))
         = ST_AsText(pg_temp.surfaces(outer_box, ST_Reverse(inner_box))) AS cavity_turned_in,
       ST_AsText(ST_ExactForceOutward(pg_temp.surfaces(ST_Reverse(outer_box), inner_box)))
         = ST_AsText(pg_temp.surfaces(outer_box, ST_Reverse(inner_box))) AS both_repaired
FROM vol_cavity;

-- Errors: open surfaces, non-surfaces; empty is 0 (as PostGIS's ST_Volume).
SELECT ST_ExactVolume('TIN Z(((0 0 0, 1 0 0, 0 1 0, 0 0 0)))');
SELECT ST_ExactForceOutward('TIN Z(((0 0 0, 1 0 0, 0 1 0, 0 0 0)))');
SELECT ST_ExactVolume('LINESTRING Z(0 0 0, 1 1 1)');
SELECT ST_ExactForceOutward('MULTILINESTRING Z((0 0 0, 1 1 1))');
SELECT ST_ExactVolume('TIN EMPTY') AS empty_volume, ST_AsText(ST_ExactForceOutward('TIN EMPTY')) AS empty_outward;
-- The SRID is kept; the solid flag plays no part.
\i test/regress/fixtures/sfcgal.sql
SELECT ST_SRID(ST_ExactForceOutward(ST_SetSRID(ST_Reverse(geom), 32719))) AS srid,
       ST_ExactVolume(ST_MakeSolid(geom)) = ST_ExactVolume(geom) AS flag_ignored
FROM vol_bodies WHERE name = 'utm_box';

DROP TABLE vol_boxes, vol_tetra, vol_bodies, vol_cavity;
