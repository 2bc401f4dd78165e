-- Composites say how much core was not sampled, and refuse overlapping or
-- duplicate assay intervals unless asked to flag them (issue 30). Expected
-- values are hand-computed from binary-exact inputs.

-- The issue's label: a 119.5 m intercept of which 114.5 m is sampled (a
-- 5 m gap from 50 to 55) shows the sampled length beside it. Grade: 49.5 m
-- @ 4 and 65 m @ 6 over 114.5 m = (198 + 390) / 114.5 = 588 / 114.5.
SELECT (c).length_m, (c).sampled_m, (c).unsampled_m, (c).overlap_m,
       (c).grade = 588 / 114.5::float8 AS grade_588_over_114_5, ST_ExactCompositeLabel(c) AS label
FROM (SELECT ST_ExactComposite(a, b, g, 0.5, 120) AS c
      FROM (VALUES (0::float8, 50::float8, 4::float8), (55, 120, 6)) v(a, b, g)) s;
-- Fully sampled: no note on the label.
SELECT ST_ExactCompositeLabel(ST_ExactComposite(a, b, g, 0, 2)) AS label, (ST_ExactComposite(a, b, g, 0, 2)).unsampled_m
FROM (VALUES (0::float8, 1::float8, 1::float8), (1, 2, 3)) v(a, b, g);
-- Nothing sampled: all of it unsampled.
SELECT (ST_ExactComposite(NULL, NULL, NULL, 1::float8, 2.5::float8)).unsampled_m;
-- Unsampled length exact: the intercept [0.1, 0.7] (not binary) less the
-- assay [0.25, 0.5]; numeric of the doubles, rounded once, is the reference.
SELECT (ST_ExactComposite(0.25, 0.5, 1, 0.1, 0.7)).unsampled_m
       = ((0.7::float8)::numeric - (0.1::float8)::numeric - 0.25)::float8 AS exact_unsampled;

-- A duplicate assay (the same interval twice) is refused, named.
SELECT ST_ExactComposite(a, b, g, 0, 3)
FROM (VALUES (0::float8, 1::float8, 1::float8), (1, 2, 3), (1, 2, 3), (2, 3, 1)) v(a, b, g);
-- Overlapping assays too; touching ones are fine.
SELECT ST_ExactComposite(a, b, g, 0, 3)
FROM (VALUES (0::float8, 1.5::float8, 1::float8), (1, 2, 3), (2, 3, 1)) v(a, b, g);
SELECT (ST_ExactComposite(a, b, g, 0, 3, 'error')).grade
FROM (VALUES (0::float8, 1::float8, 1::float8), (1, 2, 4), (2, 3, 1)) v(a, b, g);
-- An overlap outside the intercept does not matter to it.
SELECT (ST_ExactComposite(a, b, g, 2, 3)).grade
FROM (VALUES (0::float8, 1.5::float8, 1::float8), (1, 2, 3), (2, 3, 5)) v(a, b, g);
-- Flagged: [0, 1.5] and [1, 2] share 0.5 m: sampled 3 (the union), overlap
-- 0.5; grade weighted by every interval as given:
-- (1.5*1 + 1*3 + 1*1) / 3.5 = 5.5 / 3.5.
SELECT (c).sampled_m, (c).unsampled_m, (c).overlap_m, (c).intervals,
       (c).grade = 5.5 / 3.5::float8 AS grade_5_5_over_3_5, ST_ExactCompositeLabel(c) AS label
FROM (SELECT ST_ExactComposite(a, b, g, 0, 3, 'flag') AS c
      FROM (VALUES (0::float8, 1.5::float8, 1::float8), (1, 2, 3), (2, 3, 1)) v(a, b, g)) s;
-- The option is checked.
SELECT ST_ExactComposite(0, 1, 1, 0, 1, 'ignore');
