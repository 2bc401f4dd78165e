-- ST_ExactDesurvey as a geologist uses it: a collar table joined to a survey
-- table, one trace per hole; properties that follow from the formulas; and
-- every input error. (The numbers are checked against the independent
-- reference in desurvey.sql.)
CREATE TEMP TABLE collars (hole_id text PRIMARY KEY, geom geometry(PointZ, 32750), eoh float8);
CREATE TEMP TABLE surveys (hole_id text, depth float8, azimuth float8, dip float8);
INSERT INTO collars VALUES
  ('MXD-0421', ST_SetSRID(ST_MakePoint(500120.5, 7000210.25, 412.0), 32750), 180),
  ('MXD-0422', ST_SetSRID(ST_MakePoint(500180.0, 7000215.0, 410.5), 32750), 95.5),
  ('MXD-0423', ST_SetSRID(ST_MakePoint(500240.0, 7000220.0, 409.0), 32750), NULL);
INSERT INTO surveys VALUES
  ('MXD-0421', 0, 135, -60), ('MXD-0421', 48, 137.5, -58.5), ('MXD-0421', 99, 140, -57),
  ('MXD-0421', 151, 141, -55.5),
  ('MXD-0422', 0, 0, -90), ('MXD-0422', 60, 210, -90),          -- vertical: azimuth plays no part
  ('MXD-0423', 30, 45, -70), ('MXD-0423', 90, 45, -70);         -- first survey below the collar
CREATE TEMP TABLE holes AS
SELECT c.hole_id,
       ST_ExactDesurvey(c.geom,
                        array_agg(s.depth ORDER BY s.depth),
                        array_agg(s.azimuth ORDER BY s.depth),
                        array_agg(s.dip ORDER BY s.depth),
                        'minimum_curvature', c.eoh) AS geom
FROM collars c JOIN surveys s USING (hole_id)
GROUP BY c.hole_id, c.geom, c.eoh;
-- LINESTRING ZM with the collar's SRID; M is the depth: the collar, each
-- survey below it, then the end of hole when it is deeper
SELECT h.hole_id, GeometryType(h.geom), ST_Zmflag(h.geom) AS zm, ST_SRID(h.geom),
       ST_NPoints(h.geom) AS npoints,
       (ST_X(ST_StartPoint(h.geom)), ST_Y(ST_StartPoint(h.geom)), ST_Z(ST_StartPoint(h.geom)))
         = (ST_X(c.geom), ST_Y(c.geom), ST_Z(c.geom)) AS starts_at_collar,
       ST_M(ST_StartPoint(h.geom)) AS first_m, ST_M(ST_EndPoint(h.geom)) AS last_m
FROM holes h JOIN collars c USING (hole_id) ORDER BY h.hole_id;
-- every M is a given depth, in order
SELECT hole_id, array_agg(ST_M(geom) ORDER BY path) AS depths
FROM (SELECT hole_id, (ST_DumpPoints(geom)).* FROM holes) d GROUP BY hole_id ORDER BY hole_id;
-- a vertical hole stays exactly under its collar (sin and cos of -90 degrees are exact)
SELECT bool_and(ST_X(d.geom) = 500180.0 AND ST_Y(d.geom) = 7000215.0) AS exactly_vertical,
       bool_and(ST_Z(d.geom) = 410.5 - ST_M(d.geom)) AS exact_depths
FROM holes h, ST_DumpPoints(h.geom) d
WHERE h.hole_id = 'MXD-0422';
-- a straight hole: the three methods agree to the bit (RF = 1 exactly)
SELECT ST_AsEWKB(ST_ExactDesurvey('POINT Z (500000.125 7000000.5 300)', ARRAY[0, 10, 25, 70.5], ARRAY[33, 33, 33, 33], ARRAY[-55, -55, -55, -55]))
     = ST_AsEWKB(ST_ExactDesurvey('POINT Z (500000.125 7000000.5 300)', ARRAY[0, 10, 25, 70.5], ARRAY[33, 33, 33, 33], ARRAY[-55, -55, -55, -55], 'tangent')) AS mc_eq_tangent,
       ST_AsEWKB(ST_ExactDesurvey('POINT Z (500000.125 7000000.5 300)', ARRAY[0, 10, 25, 70.5], ARRAY[33, 33, 33, 33], ARRAY[-55, -55, -55, -55]))
     = ST_AsEWKB(ST_ExactDesurvey('POINT Z (500000.125 7000000.5 300)', ARRAY[0, 10, 25, 70.5], ARRAY[33, 33, 33, 33], ARRAY[-55, -55, -55, -55], 'balanced_tangent')) AS mc_eq_balanced;
-- a curved hole over one interval: each method's step has the length its
-- geometry says, from the dogleg beta of the textbook formula
-- cos(beta) = cos(I2 - I1) - sin(I1) sin(I2) (1 - cos(A2 - A1)), I = 90 + dip:
-- the arc's chord 2 sin(beta/2) / beta x 100 (minimum curvature), the mean
-- direction's cos(beta/2) x 100 (balanced tangent), 100 (tangent)
WITH t AS (SELECT m, ST_ExactDesurvey('POINT Z (0 0 0)', ARRAY[0, 100], ARRAY[0, 90], ARRAY[-45, -30], m) AS g
           FROM unnest(ARRAY['minimum_curvature', 'tangent', 'balanced_tangent']) m),
b AS (SELECT acos(cosd(60 - 45) - sind(45) * sind(60) * (1 - cosd(90 - 0))) AS beta)
SELECT m, abs(ST_3DLength(g) - CASE m WHEN 'minimum_curvature' THEN 100 * 2 * sin(beta / 2) / beta
                                    WHEN 'balanced_tangent' THEN 100 * cos(beta / 2)
                                    ELSE 100 END) < 1e-9 AS length_as_expected,
       (SELECT count(DISTINCT ST_AsEWKB(g)) FROM t) AS distinct_traces
FROM t, b ORDER BY m;
-- a point every 10 m: M runs 0, 10, 20, ... with the survey stations kept, and
-- the stations are the same points, to the bit, as without a step
WITH s AS (SELECT ST_ExactDesurvey('POINT Z (500120.5 7000210.25 412)', ARRAY[0, 48, 99, 151],
                                   ARRAY[135, 137.5, 140, 141], ARRAY[-60, -58.5, -57, -55.5],
                                   'minimum_curvature', 180, 10) AS g,
                  ST_ExactDesurvey('POINT Z (500120.5 7000210.25 412)', ARRAY[0, 48, 99, 151],
                                   ARRAY[135, 137.5, 140, 141], ARRAY[-60, -58.5, -57, -55.5],
                                   'minimum_curvature', 180) AS plain)
SELECT (SELECT array_agg(ST_M(d.geom) ORDER BY d.path) FROM ST_DumpPoints(g) d) AS depths,
       (SELECT array_agg(ST_AsEWKB(d.geom) ORDER BY d.path) FROM ST_DumpPoints(g) d
         WHERE ST_M(d.geom) IN (0, 48, 99, 151, 180))
     = (SELECT array_agg(ST_AsEWKB(d.geom) ORDER BY d.path) FROM ST_DumpPoints(plain) d) AS stations_unchanged
FROM s;
-- NULL collar or surveys: NULL; NULL method or end depth: the defaults
SELECT ST_ExactDesurvey(NULL, ARRAY[0, 10], ARRAY[0, 0], ARRAY[-90, -90]) IS NULL AS null_collar,
       ST_AsText(ST_ExactDesurvey('POINT Z (1 2 3)', ARRAY[0, 10], ARRAY[0, 0], ARRAY[-90, -90], NULL, NULL)) AS defaults;
-- errors
SELECT ST_ExactDesurvey('POINT Z (0 0 0)', ARRAY[0, 10, NULL], ARRAY[0, 0, 0], ARRAY[-90, -90, -90]);
SELECT ST_ExactDesurvey('POINT Z (0 0 0)', ARRAY[0, 10], ARRAY[0, 0, 0], ARRAY[-90, -90]);
SELECT ST_ExactDesurvey('POINT Z (0 0 0)', ARRAY[0, 10, 10], ARRAY[0, 0, 0], ARRAY[-90, -90, -90]);
SELECT ST_ExactDesurvey('POINT Z (0 0 0)', ARRAY[-1, 10], ARRAY[0, 0], ARRAY[-90, -90]);
SELECT ST_ExactDesurvey('POINT Z (0 0 0)', ARRAY[0, 10], ARRAY[0, 0], ARRAY[-90, -95]);
SELECT ST_ExactDesurvey('POINT Z (0 0 0)', ARRAY[0, 10], ARRAY[0, 'NaN'::float8], ARRAY[-90, -90]);
SELECT ST_ExactDesurvey('POINT Z (0 0 0)', ARRAY[0, 'Infinity'::float8], ARRAY[0, 0], ARRAY[-90, -90]);
SELECT ST_ExactDesurvey('POINT Z (0 0 0)', ARRAY[0, 10], ARRAY[0, 0], ARRAY[-90, -90], 'mincurv');
SELECT ST_ExactDesurvey('POINT (0 0)', ARRAY[0, 10], ARRAY[0, 0], ARRAY[-90, -90]);
SELECT ST_ExactDesurvey('LINESTRING Z (0 0 0, 1 1 1)', ARRAY[0, 10], ARRAY[0, 0], ARRAY[-90, -90]);
SELECT ST_ExactDesurvey('POINT Z (0 0 0)', ARRAY[0, 10, 20], ARRAY[170, 170, 350], ARRAY[5, 5, -5]);
SELECT ST_ExactDesurvey('POINT Z (0 0 0)', ARRAY[0, 10], ARRAY[0, 0], ARRAY[-90, -90], 'tangent', 5);
SELECT ST_ExactDesurvey('POINT Z (0 0 0)', ARRAY[0], ARRAY[0], ARRAY[-90]);
SELECT ST_ExactDesurvey('POINT Z (0 0 0)', '{}'::float8[], '{}'::float8[], '{}'::float8[]);
SELECT ST_ExactDesurvey('POINT Z (0 0 0)', ARRAY[0, 10], ARRAY[0, 0], ARRAY[-90, -90], 'tangent', 'NaN');
SELECT ST_ExactDesurvey('POINT Z (0 0 0)', ARRAY[0, 10], ARRAY[0, 0], ARRAY[-90, -90], 'tangent', NULL, 0);
SELECT ST_ExactDesurvey('POINT Z (0 0 0)', ARRAY[0, 10], ARRAY[0, 0], ARRAY[-90, -90], 'tangent', NULL, 'NaN');
SELECT ST_ExactDesurvey('POINT Z (0 0 0)', ARRAY[0, 10], ARRAY[0, 0], ARRAY[-90, -90], 'tangent', NULL, 1e-9);
DROP TABLE collars, surveys, holes;
