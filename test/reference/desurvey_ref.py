#!/usr/bin/env python3
"""desurvey_ref.py — an independent desurvey in 60-digit decimal arithmetic.

Written from the textbook formulation (inclination I from vertical down,
azimuth A clockwise from north; e.g. Sawaryn & Thorogood, SPE 84246), not
from exactgpu's code, whose formulation differs (unit vectors, atan2 of
half-chord lengths): agreement checks both the formulas and the rounding.

    cos(beta) = cos(I2 - I1) - sin(I1) sin(I2) (1 - cos(A2 - A1))
    RF        = 2 / beta * tan(beta / 2)            (1 when beta = 0)
    dN = dMD / 2 (sin I1 cos A1 + sin I2 cos A2) RF
    dE = dMD / 2 (sin I1 sin A1 + sin I2 sin A2) RF
    dV = dMD / 2 (cos I1 + cos I2) RF                (down)

tangent: the lower station's direction over the whole interval; balanced
tangent: RF = 1. From the collar to a first survey below it, and past the
last survey to the end depth, the hole is straight. Dip d (degrees from the
horizontal, negative down) is I = 90 + d.

Trigonometry by Taylor series in decimal.Decimal at 60 digits (no mpmath),
so the reference is exact to far below a double's precision; the inputs are
the doubles as given (Decimal(float) is exact).

Run as a script, it writes test/regress/sql/desurvey.sql: random and chosen
holes with the reference's vertices, and queries comparing them with
ST_ExactDesurvey within TOL metres.
"""
from decimal import Decimal as D, getcontext
import random
import sys

getcontext().prec = 60
TOL = 1e-7   # metres: 0.1 micrometre, at UTM coordinates (ulp of 7e6 is 9.3e-10)


def _atan_small(x):
    # Taylor series, |x| <= 0.2 after reduction
    s, term, k, x2 = D(0), x, 1, x * x
    while True:
        t = term / k
        if abs(t) < D(10) ** -70:
            return s + t
        s += t
        term = -term * x2
        k += 2


def atan(x):
    # atan(x) = 2 atan(x / (1 + sqrt(1 + x^2))) until small
    n = 0
    while abs(x) > D("0.2"):
        x = x / (1 + (1 + x * x).sqrt())
        n += 1
    return _atan_small(x) * (2 ** n)


PI = 16 * _atan_small(D(1) / 5) - 4 * _atan_small(D(1) / 239)


def sin(x):
    x = x % (2 * PI)
    s, term, k = D(0), x, 1
    while abs(term) > D(10) ** -70:
        s += term
        term = -term * x * x / ((k + 1) * (k + 2))
        k += 2
    return s


def cos(x):
    return sin(x + PI / 2)


def acos(x):
    if x >= 1:
        return D(0)
    if x <= -1:
        return PI
    y = (1 - x * x).sqrt()
    if x > 0:
        return atan(y / x)
    if x < 0:
        return PI + atan(y / x)
    return PI / 2


def rad(deg):
    return D(deg) * PI / 180


def _steps(step, md1, md2):
    """The depths j * step (each rounded to a double) strictly between md1 and md2."""
    if step is None:
        return []
    out, j = [], int(md1 // step) + 1
    while float(j) * step < md2:
        if float(j) * step > md1:
            out.append(D(float(j) * step))
        j += 1
    return out


def desurvey(collar, depths, azimuths, dips, method="minimum_curvature", end_depth=None,
             step=None):
    """[(x, y, z, md)] as Decimals: collar, each survey below it, the end;
    with a step, the points at depths j * step between them: on the
    circular arc for minimum curvature, from its closed form
    p1 + L / (beta sin beta) ((cos((1 - f) beta) - cos beta) t1 + (1 - cos(f beta)) t2),
    f = (md - md1) / L; on the chord for the tangent methods."""
    x, y, z = (D(c) for c in collar)
    out = [(x, y, z, D(0))]

    def unit(k):
        i, a = rad(D(90) + D(dips[k])), rad(azimuths[k])
        return sin(i) * sin(a), sin(i) * cos(a), -cos(i)   # east, north, up

    if D(depths[0]) > 0:
        e, n, u = unit(0)
        for md in _steps(step, 0.0, depths[0]):
            out.append((x + md * e, y + md * n, z + md * u, md))
        md = D(depths[0])
        x, y, z = x + md * e, y + md * n, z + md * u
        out.append((x, y, z, md))
    for k in range(1, len(depths)):
        dmd = D(depths[k]) - D(depths[k - 1])
        i1, a1 = rad(D(90) + D(dips[k - 1])), rad(azimuths[k - 1])
        i2, a2 = rad(D(90) + D(dips[k])), rad(azimuths[k])
        if method == "tangent":
            de = dmd * sin(i2) * sin(a2)
            dn = dmd * sin(i2) * cos(a2)
            dv = dmd * cos(i2)
        else:
            rf = D(1)
            if method == "minimum_curvature":
                cb = cos(i2 - i1) - sin(i1) * sin(i2) * (1 - cos(a2 - a1))
                beta = acos(cb)
                if beta != 0:
                    rf = 2 / beta * (sin(beta / 2) / cos(beta / 2))
            h = dmd / 2 * rf
            dn = h * (sin(i1) * cos(a1) + sin(i2) * cos(a2))
            de = h * (sin(i1) * sin(a1) + sin(i2) * sin(a2))
            dv = h * (cos(i1) + cos(i2))
        md1 = D(depths[k - 1])
        t1 = (sin(i1) * sin(a1), sin(i1) * cos(a1), -cos(i1))
        t2 = (sin(i2) * sin(a2), sin(i2) * cos(a2), -cos(i2))
        for md in _steps(step, depths[k - 1], depths[k]):
            fr = (md - md1) / dmd
            if method == "minimum_curvature":
                cb = cos(i2 - i1) - sin(i1) * sin(i2) * (1 - cos(a2 - a1))
                beta = acos(cb)
                if beta == 0:
                    v = tuple((md - md1) * t for t in t1)
                else:
                    w1 = (cos((1 - fr) * beta) - cos(beta)) * dmd / (beta * sin(beta))
                    w2 = (1 - cos(fr * beta)) * dmd / (beta * sin(beta))
                    v = tuple(w1 * p + w2 * q for p, q in zip(t1, t2))
            elif method == "tangent":
                v = tuple((md - md1) * t for t in t2)
            else:
                v = tuple(fr * d for d in (de, dn, -dv))
            out.append((x + v[0], y + v[1], z + v[2], md))
        x, y, z = x + de, y + dn, z - dv
        out.append((x, y, z, D(depths[k])))
    if end_depth is not None and D(end_depth) > D(depths[-1]):
        i, a = rad(D(90) + D(dips[-1])), rad(azimuths[-1])
        for md in _steps(step, depths[-1], end_depth):
            dd = md - D(depths[-1])
            out.append((x + dd * sin(i) * sin(a), y + dd * sin(i) * cos(a), z - dd * cos(i), md))
        dmd = D(end_depth) - D(depths[-1])
        x, y, z = x + dmd * sin(i) * sin(a), y + dmd * sin(i) * cos(a), z - dmd * cos(i)
        out.append((x, y, z, D(end_depth)))
    return out


def _arr(v):
    return "ARRAY[" + ",".join(repr(float(t)) for t in v) + "]::float8[]"


def cases():
    rng = random.Random(20261127)
    cs = []
    # chosen: a straight inclined hole, a vertical one, the dogleg extremes
    cs.append(("straight", (500000.0, 7000000.0, 350.0), [0.0, 30.0, 60.0, 90.0],
               [45.0] * 4, [-60.0] * 4, None))
    cs.append(("vertical_end", (500010.5, 7000020.25, 351.0), [0.0, 100.0], [123.0, 77.0],
               [-90.0, -90.0], 250.0))
    cs.append(("tiny_dogleg", (500000.0, 7000000.0, 350.0), [0.0, 50.0, 100.0],
               [10.0, 10.000000001, 10.0], [-70.0, -70.0, -70.000000001], None))
    cs.append(("big_dogleg", (0.0, 0.0, 0.0), [0.0, 10.0, 20.0], [0.0, 170.0, 340.0],
               [-5.0, 5.0, -5.0], None))
    cs.append(("first_survey_below_collar", (1000.0, 2000.0, 300.0), [12.5, 60.0, 140.0],
               [270.0, 275.0, 281.5], [-55.0, -57.5, -61.0], 180.0))
    cs.append(("north_wrap", (0.0, 0.0, 0.0), [0.0, 25.0, 50.0, 75.0],
               [355.0, 2.0, -7.0, 359.5], [-45.0, -46.0, -44.0, -47.0], None))
    # points every step metres: on the arc, the chords, the straight ends
    cs.append(("step_1m", (500100.0, 7000200.0, 400.0), [5.0, 20.0, 33.5],
               [20.0, 35.0, 80.0], [-60.0, -40.0, -75.0], 40.0, 1.0))
    cs.append(("step_0_3m_big_dogleg", (0.0, 0.0, 0.0), [0.0, 6.0], [0.0, 150.0],
               [-10.0, 20.0], None, 0.3))
    cs.append(("step_tiny_dogleg", (500000.0, 7000000.0, 350.0), [0.0, 50.0],
               [10.0, 10.000000001], [-70.0, -70.0], None, 7.0))
    for h in range(8):
        n = rng.randint(3, 40)
        depths, d = [], 0.0
        if rng.random() < 0.5:
            depths.append(0.0)
        for _ in range(n):
            d += rng.choice([1.0, 3.0, 6.0, 10.0, 30.0, rng.uniform(0.5, 50.0)])
            depths.append(d)
        az0, dip0 = rng.uniform(0, 360), rng.uniform(-89, -30)
        az, dip = [], []
        for _ in depths:
            az0 = (az0 + rng.gauss(0, 3)) % 360.0
            dip0 = min(-1.0, max(-90.0, dip0 + rng.gauss(0, 1.5)))
            az.append(az0)
            dip.append(dip0)
        collar = (rng.uniform(400000, 600000), rng.uniform(6900000, 7100000),
                  rng.uniform(-100, 1500))
        cs.append(("random_%d" % h, collar, depths, az, dip,
                   depths[-1] + rng.uniform(0, 20) if rng.random() < 0.5 else None))
    return [c if len(c) == 7 else c + (None,) for c in cs]


def write_sql(f):
    w = f.write
    w("-- Generated by test/reference/desurvey_ref.py (do not edit): ST_ExactDesurvey\n"
      "-- against an independent 60-digit decimal desurvey written from the textbook\n"
      "-- formulas; every vertex within %g m, M equal to the given depths.\n" % TOL)
    w("CREATE TEMP TABLE ds_case (name text, method text, collar geometry, depths float8[],\n"
      "  azimuths float8[], dips float8[], end_depth float8, step float8);\n")
    w("CREATE TEMP TABLE ds_ref (name text, method text, i int, x float8, y float8, z float8, m float8);\n")
    for name, collar, depths, az, dip, end, step in cases():
        for method in ("minimum_curvature", "tangent", "balanced_tangent"):
            w("INSERT INTO ds_case VALUES ('%s', '%s', 'POINT Z (%r %r %r)', %s, %s, %s, %s, %s);\n"
              % (name, method, collar[0], collar[1], collar[2], _arr(depths), _arr(az),
                 _arr(dip), "NULL" if end is None else repr(float(end)),
                 "NULL" if step is None else repr(float(step))))
            ref = desurvey(collar, depths, az, dip, method, end, step)
            w("INSERT INTO ds_ref VALUES\n")
            w(",\n".join("  ('%s', '%s', %d, %r, %r, %r, %r)"
                         % (name, method, i + 1, float(p[0]), float(p[1]), float(p[2]),
                            float(p[3])) for i, p in enumerate(ref)))
            w(";\n")
    w("""-- one row per hole and method: the vertex counts match and every vertex is
-- within the tolerance (M exactly the given depth)
WITH got AS (
  SELECT c.name, c.method, (dp).path[1] AS i, ST_X((dp).geom) AS x, ST_Y((dp).geom) AS y,
         ST_Z((dp).geom) AS z, ST_M((dp).geom) AS m
  FROM ds_case c, ST_DumpPoints(ST_ExactDesurvey(c.collar, c.depths, c.azimuths, c.dips,
                                                  c.method, c.end_depth, c.step)) AS dp)
SELECT r.name, r.method, count(*) AS vertices,
       count(g.i) = count(*) AS all_present,
       bool_and(abs(g.x - r.x) <= %g AND abs(g.y - r.y) <= %g AND abs(g.z - r.z) <= %g) AS within_tol,
       bool_and(g.m = r.m) AS depths_exact
FROM ds_ref r LEFT JOIN got g USING (name, method, i)
GROUP BY r.name, r.method ORDER BY r.name, r.method;
SELECT (SELECT count(*) FROM ST_DumpPoints(ST_ExactDesurvey(c.collar, c.depths, c.azimuths,
          c.dips, c.method, c.end_depth, c.step))) = (SELECT count(*) FROM ds_ref r
          WHERE r.name = c.name AND r.method = c.method) AS same_vertex_count, count(*)
FROM ds_case c GROUP BY 1;
DROP TABLE ds_case, ds_ref;
""" % (TOL, TOL, TOL))


if __name__ == "__main__":
    write_sql(sys.stdout)
