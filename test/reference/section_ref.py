#!/usr/bin/env python3
"""section_ref.py — the cut of surfaces and holes by a plane, in rationals.

An independent reference for ST_ExactSection, written from its
specification (docs/geologists.md) in Python's fractions.Fraction:

* the plane is the one through three input points a, b, c; a vertex's side
  is the exact sign of n . (v - a), n = (b - a) x (c - a);
* a face crossing the plane gives the segment between its points on the
  plane (a vertex on it, or where an edge with ends on opposite sides meets
  the plane: u + (n . (a - u)) / (n . (v - u)) (v - u), another formula than
  the engine's for the same exact point); a face edge lying in the plane is a
  segment; faces lying in the plane give the edges used by one such face; a
  hole segment lying in the plane is a segment; a hole (or point) meeting
  the plane at one point gives that point; a face touching at one vertex
  gives nothing;
* every coordinate rounded once (float(Fraction) rounds to nearest); each
  segment once, ends in lexicographic order; no zero-length segment; no
  point at a segment's end;
* section-local coordinates (vertical sections): u = ((x - x0) dx + (y - y0)
  dy) / L, L = sqrt(dx dx + dy dy), y = z, in double arithmetic as
  documented.

Run as a script it writes test/regress/sql/section.sql.
"""
from fractions import Fraction as F
import math
import random
import sys


def sub(a, b):
    return tuple(x - y for x, y in zip(a, b))


def cross(u, v):
    return (u[1] * v[2] - u[2] * v[1], u[2] * v[0] - u[0] * v[2], u[0] * v[1] - u[1] * v[0])


def dot(u, v):
    return sum(x * y for x, y in zip(u, v))


def sign(x):
    return (x > 0) - (x < 0)


def section(faces, lines, plane):
    """faces: [(a, b, c)] triangles; lines: [[v, ...]] polylines; floats."""
    a, b, c = [tuple(F(t) for t in p) for p in plane]
    n = cross(sub(b, a), sub(c, a))
    side = lambda v: sign(dot(n, sub(tuple(F(t) for t in v), a)))

    def meet(u, v):
        U, V = tuple(F(t) for t in u), tuple(F(t) for t in v)
        s = dot(n, sub(a, U)) / dot(n, sub(V, U))
        return tuple(float(U[k] + s * (V[k] - U[k])) for k in range(3))

    segs, pts, flat = set(), set(), {}

    def seg(p, q):
        p, q = tuple(map(float, p)), tuple(map(float, q))
        if p != q:
            segs.add((min(p, q), max(p, q)))

    for tri in faces:
        s = [side(v) for v in tri]
        if s.count(0) == 3:
            for k in range(3):
                e = tuple(sorted((tuple(map(float, tri[k])), tuple(map(float, tri[(k + 1) % 3])))))
                flat[e] = flat.get(e, 0) + 1
        elif s.count(0) == 2:
            z = [tri[k] for k in range(3) if s[k] == 0]
            seg(z[0], z[1])
        elif 1 in s and -1 in s:
            ends = []
            for k in range(3):
                j = (k + 1) % 3
                if s[k] == 0:
                    ends.append(tuple(map(float, tri[k])))
                elif s[j] != 0 and s[j] != s[k]:
                    ends.append(meet(tri[k], tri[j]))
            seg(ends[0], ends[1])
    for e, cnt in flat.items():
        if cnt == 1:
            seg(e[0], e[1])
    for line in lines:
        if len(line) == 1:
            if side(line[0]) == 0:
                pts.add(tuple(map(float, line[0])))
            continue
        for u, v in zip(line, line[1:]):
            su, sv = side(u), side(v)
            if su == 0 and sv == 0:
                seg(u, v)
            elif su == 0 or sv == 0:
                pts.add(tuple(map(float, u if su == 0 else v)))
            elif su != sv:
                pts.add(meet(u, v))
    ends = {p for s in segs for p in s}
    return sorted(segs), sorted(p for p in pts if p not in ends)


def local(p, a, b):
    dx, dy = b[0] - a[0], b[1] - a[1]
    L = math.sqrt(dx * dx + dy * dy)
    return (((p[0] - a[0]) * dx + (p[1] - a[1]) * dy) / L, p[2])


def cube(x0, y0, z0, s):
    v = [(x0 + i * s, y0 + j * s, z0 + k * s) for i in (0, 1) for j in (0, 1) for k in (0, 1)]
    q = [(0, 1, 3, 2), (4, 6, 7, 5), (0, 4, 5, 1), (2, 3, 7, 6), (0, 2, 6, 4), (1, 5, 7, 3)]
    tris = []
    for a, b, c, d in q:
        tris.append((v[a], v[b], v[c]))
        tris.append((v[a], v[c], v[d]))
    return tris


def tin_wkt(tris):
    return "TIN Z (" + ",".join("((%s))" % ",".join("%r %r %r" % tuple(map(float, p))
                                                    for p in (t[0], t[1], t[2], t[0])) for t in tris) + ")"


def line_wkt(line):
    return "LINESTRING Z (" + ",".join("%r %r %r" % tuple(map(float, p)) for p in line) + ")"


def cases():
    rng = random.Random(20261127)
    out = []   # (name, kind 'plane'/'vertical', tris, lines, plane points or section line, local)
    c = cube(0.0, 0.0, 0.0, 10.0)
    out.append(("cube_generic", c, [], [(1.0, -1.0, 0.0), (9.0, 11.0, 0.0)], False))
    out.append(("cube_through_edges", c, [], [(0.0, 0.0, 0.0), (10.0, 10.0, 0.0)], False))
    out.append(("cube_in_face", c, [], [(0.0, -5.0, 0.0), (0.0, 15.0, 0.0)], False))
    out.append(("cube_touch_edge", c, [], [(-5.0, 5.0, 0.0), (5.0, -5.0, 0.0)], False))
    out.append(("cube_misses", c, [], [(11.0, 0.0, 0.0), (11.0, 10.0, 0.0)], False))
    out.append(("cube_local", c, [], [(1.0, -1.0, 0.0), (9.0, 11.0, 0.0)], True))
    out.append(("cube_inclined", c, [], ((0.0, 0.0, 3.0), (10.0, 0.0, 7.0), (0.0, 10.0, 5.0)), False))
    out.append(("cube_inclined_vertices", c, [], ((0.0, 0.0, 10.0), (10.0, 0.0, 0.0), (0.0, 10.0, 0.0)), False))
    holes = [[(2.0, 3.0, 12.0), (4.0, 5.0, 5.0), (7.0, 6.0, -3.0)],
             [(5.0, 5.0, 12.0), (5.0, 5.0, -2.0)],
             [(0.0, -5.0, 4.0), (0.0, 15.0, 4.0)],
             [(3.0, 1.0, 2.0), (5.0, 2.0, 1.0), (3.0, 3.0, 0.0)]]
    out.append(("holes_vertical", [], holes, [(0.0, -1.0, 0.0), (0.0, 1.0, 0.0)], False))
    out.append(("holes_plane", [], holes, ((0.0, 0.0, 4.0), (1.0, 0.0, 4.0), (0.0, 1.0, 4.0)), False))
    out.append(("body_and_holes", c, holes, [(5.0, -1.0, 0.0), (5.0, 11.0, 0.0)], False))
    # planes through three vertices of the cube (faces and edges in the plane)
    # and through grid points of a hole-and-body scene
    verts = sorted({p for t in c for p in t})
    k = 0
    while k < 8:
        a, b, d = rng.sample(verts, 3)
        if cross(sub(b, a), sub(d, a)) == (0, 0, 0):
            continue
        out.append(("cube_vertex_plane_%d" % k, c, holes, (a, b, d), False))
        k += 1
    # random bodies at UTM coordinates: an irregular octahedron, random planes
    for k in range(6):
        cx, cy, cz = rng.uniform(500000, 500500), rng.uniform(7000000, 7000500), rng.uniform(-300, 300)
        r = lambda: rng.uniform(20, 60)
        v = [(cx + r(), cy, cz), (cx - r(), cy, cz), (cx, cy + r(), cz), (cx, cy - r(), cz),
             (cx, cy, cz + r()), (cx, cy, cz - r())]
        oct_ = []
        for top in (4, 5):
            for i, j in ((0, 2), (2, 1), (1, 3), (3, 0)):
                oct_.append((v[i], v[j], v[top]) if top == 4 else (v[j], v[i], v[top]))
        if k % 2 == 0:
            ln = [(cx + rng.uniform(-80, -40), cy + rng.uniform(-30, 30), 0.0),
                  (cx + rng.uniform(40, 80), cy + rng.uniform(-30, 30), 0.0)]
            out.append(("random_body_vertical_%d" % k, oct_, [], ln, k == 2))
        else:
            pl = tuple((cx + rng.uniform(-50, 50), cy + rng.uniform(-50, 50), cz + rng.uniform(-20, 20))
                       for _ in range(3))
            out.append(("random_body_plane_%d" % k, oct_, [], pl, False))
    return out


def write_sql(f):
    w = f.write
    w("-- Generated by test/reference/section_ref.py (do not edit): ST_ExactSection\n"
      "-- against an exact Fraction reference; every vertex equal to the bit.\n")
    w("SET extra_float_digits = 3;\n")
    w("CREATE TEMP TABLE sx_case (name text PRIMARY KEY, geom geometry, line geometry,\n"
      "  a geometry, b geometry, c geometry, local boolean);\n")
    w("CREATE TEMP TABLE sx_ref (name text, kind text, x0 float8, y0 float8, z0 float8,\n"
      "  x1 float8, y1 float8, z1 float8);\n")
    for name, tris, lines, plane, loc in cases():
        parts = ([tin_wkt(tris)] if tris else []) + [line_wkt(l) for l in lines]
        geom = parts[0] if len(parts) == 1 else "GEOMETRYCOLLECTION Z (" + ",".join(parts) + ")"
        if len(plane) == 2:
            a, b = plane
            pts3 = ((a[0], a[1], 0.0), (b[0], b[1], 0.0), (a[0], a[1], 1.0))
            w("INSERT INTO sx_case VALUES ('%s', '%s', 'LINESTRING(%r %r, %r %r)', NULL, NULL, NULL, %s);\n"
              % (name, geom, a[0], a[1], b[0], b[1], "true" if loc else "false"))
        else:
            pts3 = plane
            w("INSERT INTO sx_case VALUES ('%s', '%s', NULL, %s, false);\n"
              % (name, geom, ", ".join("'POINT Z (%r %r %r)'" % p for p in plane)))
        segs, pts = section(tris, lines, pts3)
        if loc:
            segs = [(local(p, plane[0], plane[1]) + (0.0,), local(q, plane[0], plane[1]) + (0.0,))
                    for p, q in segs]
            pts = [local(p, plane[0], plane[1]) + (0.0,) for p in pts]
        for p, q in segs:
            w("INSERT INTO sx_ref VALUES ('%s', 'segment', %r, %r, %r, %r, %r, %r);\n"
              % ((name,) + tuple(p) + tuple(q)))
        for p in pts:
            w("INSERT INTO sx_ref VALUES ('%s', 'point', %r, %r, %r, NULL, NULL, NULL);\n"
              % ((name,) + tuple(p)))
    w("""CREATE TEMP TABLE sx_got AS
WITH cut AS (
  SELECT name, local, CASE WHEN line IS NOT NULL THEN ST_ExactSection(geom, line, local)
                           ELSE ST_ExactSection(geom, a, b, c) END AS g
  FROM sx_case),
parts AS (
  SELECT name, local, (ST_Dump(g)).geom AS p FROM cut)
SELECT name,
       CASE WHEN GeometryType(p) = 'LINESTRING' THEN 'segment' ELSE 'point' END AS kind,
       ST_X(ST_PointN(p, 1)) AS x0, ST_Y(ST_PointN(p, 1)) AS y0,
       CASE WHEN local THEN 0 ELSE ST_Z(ST_PointN(p, 1)) END AS z0,
       ST_X(ST_PointN(p, 2)) AS x1, ST_Y(ST_PointN(p, 2)) AS y1,
       CASE WHEN local THEN 0 ELSE ST_Z(ST_PointN(p, 2)) END AS z1
FROM parts WHERE GeometryType(p) = 'LINESTRING'
UNION ALL
SELECT name, 'point', ST_X(p), ST_Y(p), CASE WHEN local THEN 0 ELSE ST_Z(p) END, NULL, NULL, NULL
FROM parts WHERE GeometryType(p) = 'POINT';
-- per case: pieces in the reference, in the result, and how many differ
SELECT c.name,
       (SELECT count(*) FROM sx_ref r WHERE r.name = c.name) AS ref_pieces,
       (SELECT count(*) FROM sx_got g WHERE g.name = c.name) AS pieces,
       (SELECT count(*) FROM ((SELECT kind, x0, y0, z0, x1, y1, z1 FROM sx_ref r WHERE r.name = c.name
                               EXCEPT ALL
                               SELECT kind, x0, y0, z0, x1, y1, z1 FROM sx_got g WHERE g.name = c.name)
                              UNION ALL
                              (SELECT kind, x0, y0, z0, x1, y1, z1 FROM sx_got g WHERE g.name = c.name
                               EXCEPT ALL
                               SELECT kind, x0, y0, z0, x1, y1, z1 FROM sx_ref r WHERE r.name = c.name)) d)
         AS differences
FROM sx_case c ORDER BY c.name;
-- a closed body cut in general position gives closed loops: every end twice
SELECT name, bool_and(n = 2) AS loops_closed
FROM (SELECT name, x, y, z, count(*) AS n
      FROM (SELECT name, x0 AS x, y0 AS y, z0 AS z FROM sx_got WHERE kind = 'segment'
            UNION ALL SELECT name, x1, y1, z1 FROM sx_got WHERE kind = 'segment') e
      GROUP BY name, x, y, z) v
WHERE name IN ('cube_generic', 'cube_inclined') OR name LIKE 'random_body%'
GROUP BY name ORDER BY name;
DROP TABLE sx_case, sx_ref, sx_got;
""")


if __name__ == "__main__":
    write_sql(sys.stdout)
