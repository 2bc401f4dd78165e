-- Exact compositing: ST_ExactComposite weighs each assay interval by the
-- part of it inside the intercept (not by the midpoint rule, which it
-- reports beside for comparison). The expected grades are hand-computed
-- fractions of binary-exact inputs.

-- Intercept [1.5, 3.5]; assays [0, 2] @ 4, [2, 3] @ 1, [3, 5] @ 10. Inside
-- parts 0.5, 1, 0.5: (0.5*4 + 1*1 + 0.5*10) / 2 = 8 / 2 = 4. Midpoints 1,
-- 2.5, 4: only [2, 3] counts: 1 m @ 1.
SELECT (ST_ExactComposite(a, b, g, 1.5, 3.5)).*
FROM (VALUES (0::float8, 2::float8, 4::float8), (2, 3, 1), (3, 5, 10)) v(a, b, g);

-- Intercept [0.25, 2.75]; assays [0, 1] @ 1, [1, 2] @ 2, [2, 3] @ 8: inside
-- 0.75, 1, 0.75: (0.75 + 2 + 6) / 2.5 = 3.5. Midpoint rule: all three whole,
-- (1 + 2 + 8) / 3 = 11/3.
SELECT (c).grade = 3.5 AS exact_is_7_2, (c).midpoint_grade = 11::float8 / 3 AS midpoint_is_11_3,
       (c).sampled_m, (c).midpoint_m, (c).intervals, ST_ExactCompositeLabel(c) AS label
FROM (SELECT ST_ExactComposite(a, b, g, 0.25, 2.75) AS c
      FROM (VALUES (0::float8, 1::float8, 1::float8), (1, 2, 2), (2, 3, 8)) v(a, b, g)) s;

-- A grade of 1/3: one metre @ 1 in three sampled metres; rounded once.
SELECT grade = 1::float8 / 3 AS one_third
FROM (SELECT (ST_ExactComposite(a, b, g, 0, 3)).grade
      FROM (VALUES (0::float8, 1::float8, 1::float8), (1, 2, 0), (2, 3, 0)) v(a, b, g)) s;

-- An unsampled gap: intercept [0.5, 2.5], assays [0, 1] @ 2 and [2, 3] @ 4:
-- 0.5 m of each sampled, (1 + 2) / 1 = 3 over 1 sampled metre of 2. The
-- midpoint rule counts [0, 1] (midpoint 0.5 is in [0.5, 2.5)) but not
-- [2, 3] (midpoint 2.5 is not): 1 m @ 2.
SELECT (ST_ExactComposite(a, b, g, 0.5, 2.5)).*
FROM (VALUES (0::float8, 1::float8, 2::float8), (2, 3, 4)) v(a, b, g);

-- Intervals far from the intercept and touching it add nothing; no assays
-- at all (an outer join's NULLs) give a NULL grade.
SELECT (ST_ExactComposite(a, b, g, 1, 2)).*
FROM (VALUES (0::float8, 1::float8, 5::float8), (2, 3, 7), (5, 6, 9)) v(a, b, g);
SELECT (ST_ExactComposite(NULL, NULL, NULL, 1::float8, 2::float8)).*;

-- End to end: a hole through a 4 m cube has the intercept [1, 5]; assays
-- every 1.5 m from the collar @ 1, 2, 3, 8. Inside: 0.5*1 + 1.5*2 + 1.5*3 +
-- 0.5*8 = 12 over 4 m: 3. Midpoints 0.75, 2.25, 3.75, 5.25: the middle two,
-- (3 + 4.5) / 3 = 2.5.
CREATE TABLE cmp_body AS SELECT 'TIN Z (((0 0 0,0 4 0,4 4 0,0 0 0)),((0 0 0,4 4 0,4 0 0,0 0 0)),
	((0 0 4,4 0 4,4 4 4,0 0 4)),((0 0 4,4 4 4,0 4 4,0 0 4)),((0 0 0,4 0 0,4 0 4,0 0 0)),((0 0 0,4 0 4,0 0 4,0 0 0)),
	((4 0 0,4 4 0,4 4 4,4 0 0)),((4 0 0,4 4 4,4 0 4,4 0 0)),((4 4 0,0 4 0,0 4 4,4 4 0)),((4 4 0,0 4 4,4 4 4,4 4 0)),
	((0 4 0,0 0 0,0 0 4,0 4 0)),((0 4 0,0 0 4,0 4 4,0 4 0)))'::geometry AS geom;
CREATE TABLE cmp_holes AS SELECT 'DDH-001'::text AS name, 1 AS hole_id, 'LINESTRING Z(1 1 5, 1 1 -1)'::geometry AS geom;
CREATE TABLE cmp_assays (hole_id int, from_m float8, to_m float8, au float8);
INSERT INTO cmp_assays VALUES (1, 0, 1.5, 1), (1, 1.5, 3, 2), (1, 3, 4.5, 3), (1, 4.5, 6, 8);
SELECT h.name, (c).grade, (c).midpoint_grade, ST_ExactCompositeLabel(c) AS exact, ST_ExactCompositeLabel(c, '% Cu') AS other_unit
FROM (SELECT i.hole_id, ST_ExactComposite(a.from_m, a.to_m, a.au, i.from_m, i.to_m) AS c
      FROM ST_ExactIntercepts3DJoin('SELECT hole_id, geom FROM cmp_holes', 'SELECT 1, geom FROM cmp_body') i
      LEFT JOIN cmp_assays a ON a.hole_id = i.hole_id AND a.from_m <= i.to_m AND a.to_m >= i.from_m
      GROUP BY i.hole_id, i.solid_id, i.from_m, i.to_m) s
JOIN cmp_holes h USING (hole_id);

-- Errors.
SELECT ST_ExactComposite(a, b, 1, f, t)
FROM (VALUES (0::float8, 1::float8, 0::float8, 1::float8), (0, 1, 0, 2)) v(a, b, f, t);
SELECT ST_ExactComposite(2, 1, 1, 0, 3);
SELECT ST_ExactComposite(0, 1, 1, 3, 0);
SELECT ST_ExactComposite(0, 1, 'NaN', 0, 3);
SELECT ST_ExactComposite(0, 1, 1, NULL, 3);

DROP TABLE cmp_assays, cmp_holes, cmp_body;
