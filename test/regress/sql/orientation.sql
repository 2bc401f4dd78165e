-- ST_ExactOrientation2D / 3D: exact signs over the input doubles.
SET extra_float_digits = 1;

-- Sign conventions: 2D is (b - a) x (c - a), positive counter-clockwise.
SELECT ST_ExactOrientation2D('POINT(0 0)', 'POINT(1 0)', 'POINT(0 1)') AS ccw,
       ST_ExactOrientation2D('POINT(0 0)', 'POINT(0 1)', 'POINT(1 0)') AS cw,
       ST_ExactOrientation2D('POINT(0 0)', 'POINT(1 1)', 'POINT(3 3)') AS collinear,
       ST_ExactOrientation2D('POINT Z(0 0 5)', 'POINT Z(1 0 -7)', 'POINT Z(0 1 1)') AS z_ignored;

-- 3D is ((b - a) x (c - a)) . (d - a): positive on the side the normal of the
-- counter-clockwise triangle abc points to.
SELECT ST_ExactOrientation3D('POINT Z(0 0 0)', 'POINT Z(1 0 0)', 'POINT Z(0 1 0)', 'POINT Z(0 0 1)') AS above,
       ST_ExactOrientation3D('POINT Z(0 0 0)', 'POINT Z(1 0 0)', 'POINT Z(0 1 0)', 'POINT Z(0 0 -1)') AS below,
       ST_ExactOrientation3D('POINT Z(0 0 0)', 'POINT Z(1 0 0)', 'POINT Z(0 1 0)', 'POINT Z(5 7 0)') AS coplanar,
       ST_ExactOrientation3D('POINT(0 0)', 'POINT(1 0)', 'POINT(0 1)', 'POINT(9 9)') AS two_d_inputs_are_z0;

-- Swapping two points flips the sign; an even permutation keeps it.
SELECT ST_ExactOrientation3D(a, b, c, d) AS abcd, ST_ExactOrientation3D(b, a, c, d) AS bacd,
       ST_ExactOrientation3D(b, c, a, d) AS bcad
FROM (SELECT 'POINT Z(0.1 0.2 0.3)'::geometry a, 'POINT Z(1.7 0.4 -2.2)'::geometry b,
             'POINT Z(-0.5 3.1 1.1)'::geometry c, 'POINT Z(2 2 2)'::geometry d) s;

-- Kettner et al.'s classroom example: points p = (0.5 + i u, 0.5 + j u),
-- u = 2^(-53), against q = (12, 12), r = (24, 24). The naive double formula
-- gets many signs wrong. On the diagonal (px = py) the points lie exactly on
-- the line qr, so the exact answer is known in closed form there: 0.
WITH g AS (
	SELECT i, j, 0.5 + i * 2^(-53) AS px, 0.5 + j * 2^(-53) AS py
	FROM generate_series(0, 31) i, generate_series(0, 31) j),
s AS (
	SELECT i, j, px, py,
	       ST_ExactOrientation2D(ST_MakePoint(px, py), 'POINT(12 12)', 'POINT(24 24)') AS exact_sign,
	       sign((12 - px) * (24 - py) - (12 - py) * (24 - px))::int AS naive_sign
	FROM g)
SELECT count(*) AS points,
       count(*) FILTER (WHERE px = py AND exact_sign <> 0) AS exact_wrong_on_line,
       count(*) FILTER (WHERE exact_sign <> naive_sign) AS naive_differs,
       count(*) FILTER (WHERE exact_sign = 0) AS exact_collinear
FROM s;

-- Signs are consistent where they must be: exchanging q and r flips every sign.
WITH g AS (
	SELECT ST_MakePoint(0.5 + i * 2^(-53), 0.5 + j * 2^(-53)) p
	FROM generate_series(0, 15) i, generate_series(0, 15) j)
SELECT count(*) FILTER (WHERE ST_ExactOrientation2D(p, 'POINT(12 12)', 'POINT(24 24)')
                             <> -ST_ExactOrientation2D(p, 'POINT(24 24)', 'POINT(12 12)')) AS inconsistent
FROM g;

-- One ulp decides: a point exactly on the plane x + y + z = 1.5 and one ulp off it.
SELECT ST_ExactOrientation3D('POINT Z(1.5 0 0)', 'POINT Z(0 1.5 0)', 'POINT Z(0 0 1.5)',
                             'POINT Z(0.5 0.5 0.5)') AS on_plane,
       ST_ExactOrientation3D('POINT Z(1.5 0 0)', 'POINT Z(0 1.5 0)', 'POINT Z(0 0 1.5)',
                             ST_MakePoint(0.5, 0.5, 0.5 + 2^(-53))) AS one_ulp_above;

-- Empty points give NULL; NULL gives NULL (STRICT).
SELECT ST_ExactOrientation2D('POINT EMPTY', 'POINT(1 0)', 'POINT(0 1)') IS NULL AS empty_is_null,
       ST_ExactOrientation3D(NULL, 'POINT(1 0)', 'POINT(0 1)', 'POINT(1 1)') IS NULL AS null_is_null;

-- Wrong argument types are errors.
SELECT ST_ExactOrientation2D('LINESTRING(0 0, 1 1)', 'POINT(1 0)', 'POINT(0 1)');
SELECT ST_ExactOrientation3D('POINT(0 0)', 'POINT(1 0)', 'POINT(0 1)', 'MULTIPOINT((1 1))');
SELECT ST_ExactOrientation2D('SRID=32719;POINT(0 0)', 'POINT(1 0)', 'POINT(0 1)');
