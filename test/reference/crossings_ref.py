#!/usr/bin/env python3
"""crossings_ref.py — where a hole meets an open surface, in exact rationals.

An independent reference for ST_ExactCrossings3D, written from its
specification (docs/geologists.md), not from its code, in Python's
fractions.Fraction (exact), brute force over every (segment, face) pair:

* The hole meets a face in a closed parameter interval of each segment:
  off the face's plane, the one point where the segment crosses the plane,
  kept if it lies in the closed triangle (three exact side tests); in the
  plane, the candidates t = 0, t = 1 and where the segment's line meets each
  edge's line, of which the extreme ones inside the triangle bound the
  interval (the engine clips half-planes instead).
* Positions along the hole: (segment, t), the end of a segment written as
  the start of the next. The union of the intervals falls into connected
  pieces: positive length is 'along'.
* A one-point piece is a 'touch' at the hole's first or last vertex and on
  the surface's rim (an edge used by one face); elsewhere it is 'through'
  when points of the hole just before and just after it, joined by a path
  moved off by a small random rational vector (numerically, not
  symbolically as the engine does), cross the faces there an odd number of
  times, every crossing proper (a degenerate draw is drawn again).
* Numbers rounded once: the point (float(Fraction) rounds to nearest),
  the depth from M (exact interpolation rounded once), or without M the
  documented double formula: the segments' lengths sqrt((dx dx + dy dy) +
  dz dz) summed in order, plus t rounded times the segment's length.

Run as a script it writes test/regress/sql/crossings.sql.
"""
from fractions import Fraction as F
import math
import random
import sys


def sub(a, b):
    return (a[0] - b[0], a[1] - b[1], a[2] - b[2])


def add(a, b):
    return (a[0] + b[0], a[1] + b[1], a[2] + b[2])


def mul(a, s):
    return (a[0] * s, a[1] * s, a[2] * s)


def cross(u, v):
    return (u[1] * v[2] - u[2] * v[1], u[2] * v[0] - u[0] * v[2], u[0] * v[1] - u[1] * v[0])


def dot(u, v):
    return u[0] * v[0] + u[1] * v[1] + u[2] * v[2]


def fr(p):
    return tuple(F(c) for c in p)


def in_triangle(x, a, b, c, n):
    """x in the plane of abc (normal n != 0): inside the closed triangle?"""
    return (dot(n, cross(sub(b, a), sub(x, a))) >= 0 and
            dot(n, cross(sub(c, b), sub(x, b))) >= 0 and
            dot(n, cross(sub(a, c), sub(x, c))) >= 0)


def meet(p, q, tri):
    """[t0, t1] where segment pq meets the closed triangle, or None."""
    a, b, c = tri
    n = cross(sub(b, a), sub(c, a))
    if n == (0, 0, 0):
        return None
    dp, dq = dot(n, sub(p, a)), dot(n, sub(q, a))
    if (dp > 0 and dq > 0) or (dp < 0 and dq < 0):
        return None
    d = sub(q, p)
    if dp != 0 or dq != 0:
        t = dp / (dp - dq)
        return (t, t) if in_triangle(add(p, mul(d, t)), a, b, c, n) else None
    cand = {F(0), F(1)}
    for e0, e1 in ((a, b), (b, c), (c, a)):
        # side(t) = n . ((e1 - e0) x (p + t d - e0)), linear in t
        g0 = dot(n, cross(sub(e1, e0), sub(p, e0)))
        g1 = dot(n, cross(sub(e1, e0), d))
        if g1 != 0:
            t = -g0 / g1
            if 0 <= t <= 1:
                cand.add(t)
    inside = [t for t in cand if in_triangle(add(p, mul(d, t)), a, b, c, n)]
    return (min(inside), max(inside)) if inside else None


def proper_cross(p, q, tri):
    """Does pq cross the triangle properly? None if the contact is degenerate."""
    a, b, c = tri
    n = cross(sub(b, a), sub(c, a))
    dp, dq = dot(n, sub(p, a)), dot(n, sub(q, a))
    if dp == 0 or dq == 0:
        return None if meet(p, q, tri) else False
    if (dp > 0) == (dq > 0):
        return False
    s = [dot(cross(sub(q, p), sub(e0, p)), sub(e1, p)) for e0, e1 in ((a, b), (b, c), (c, a))]
    if all(v > 0 for v in s) or all(v < 0 for v in s):
        return True
    if any(v == 0 for v in s) and meet(p, q, tri):
        return None
    return False


def crossings(hole, faces, m=None, seed=1):
    """hole: [(x, y, z)] floats; faces: [[tri, ...]] per face (1-based order)."""
    rng = random.Random(seed)
    keep = [0]
    for i in range(1, len(hole)):
        if tuple(hole[i]) != tuple(hole[keep[-1]]):
            keep.append(i)
    hf = [hole[i] for i in keep]
    mf = [m[i] for i in keep] if m is not None else None
    P = [fr(v) for v in hf]
    nseg = len(P) - 1
    tris = []                       # (face number, triangle of Fractions)
    for fi, face in enumerate(faces):
        for t in face:
            tris.append((fi + 1, tuple(fr(v) for v in t)))
    edges = {}
    for fi, face in enumerate(faces):
        for t in face:
            for k in range(3):
                e = tuple(sorted((tuple(t[k]), tuple(t[(k + 1) % 3]))))
                edges[e] = edges.get(e, 0) + 1
    # face polygons may be fanned into triangles: their diagonals are inner
    # edges (used twice by the same face), which the count above respects

    def norm(seg, t):
        return (seg + 1, F(0)) if t == 1 and seg + 1 < nseg else (seg, t)

    def point(pos):
        s, t = pos
        return add(P[s], mul(sub(P[s + 1], P[s]), t))

    pieces = []
    for s in range(nseg):
        for fno, tri in tris:
            r = meet(P[s], P[s + 1], tri)
            if r:
                pieces.append((norm(s, r[0]), norm(s, r[1]), fno, tri, s))
    pieces.sort(key=lambda x: x[0])
    comps = []
    for pc in pieces:
        if comps and pc[0] <= comps[-1][1]:
            comps[-1][1] = max(comps[-1][1], pc[1])
        else:
            comps.append([pc[0], pc[1]])

    lens, cum = [], [0.0]
    for s in range(nseg):
        p, q = hf[s], hf[s + 1]
        dx, dy, dz = q[0] - p[0], q[1] - p[1], q[2] - p[2]
        lens.append(math.sqrt((dx * dx + dy * dy) + dz * dz))
        cum.append(cum[-1] + lens[-1])

    def depth(pos):
        s, t = pos
        if mf is not None:
            return float(F(mf[s]) + (F(mf[s + 1]) - F(mf[s])) * t)
        return cum[s] + float(t) * lens[s]

    rows = []
    for start, end in comps:
        x = point(start)
        fnos = [fno for fno, tri in tris
                if meet(x, x, tri) is not None]
        face = min(fnos)
        if start < end:
            kind = "along"
        elif start == (0, F(0)) or start == (nseg - 1, F(1)):
            kind = "touch"
        else:
            at = [tri for fno, tri in tris if meet(x, x, tri) is not None]
            rim = False
            for fno, tri in tris:
                if meet(x, x, tri) is None:
                    continue
                for k in range(3):
                    a, b = tri[k], tri[(k + 1) % 3]
                    key = tuple(sorted((tuple(float(c) for c in a), tuple(float(c) for c in b))))
                    if edges.get(key, 0) == 1 and meet(a, b, (x, x, x)) is None and \
                            on_segment(x, a, b):
                        rim = True
            kind = "touch" if rim else side_change(P, start, at, tris, rng)
        rows.append((depth(start), depth(end), kind, tuple(float(c) for c in x), face))
    return rows


def on_segment(x, a, b):
    u, w = sub(b, a), sub(x, a)
    return cross(u, w) == (0, 0, 0) and 0 <= dot(w, u) <= dot(u, u)


def side_change(P, pos, at, tris, rng):
    """'through' or 'touch' at the one-point piece at position pos."""
    s, t = pos
    x = add(P[s], mul(sub(P[s + 1], P[s]), t))
    eta = F(1, 2 ** 12)
    while True:
        # just before and just after x along the hole
        before = add(x, mul(sub(P[s], x), eta)) if t > 0 else add(x, mul(sub(P[s - 1], x), eta))
        after = add(x, mul(sub(P[s + 1], x), eta))
        path = [before, x, after]
        # the stretch before..after meets the surface at x only
        clean = all((r is None or (r[0] == r[1] == 1 and i == 0) or (r[0] == r[1] == 0 and i == 1))
                    for i in range(2) for _, tri in tris
                    for r in [meet(path[i], path[i + 1], tri)])
        if clean:
            break
        eta /= 2
    scale = F(1, 2 ** 40)
    while True:
        r = tuple(F(rng.randint(-2 ** 20, 2 ** 20), 2 ** 20) * scale for _ in range(3))
        moved = [add(v, r) for v in path]
        # the short hops before -> before + r and after + r -> after cross nothing
        hops_clear = all(meet(a, b, tri) is None for a, b in ((path[0], moved[0]), (moved[2], path[2]))
                         for _, tri in tris)
        if not hops_clear:
            scale /= 2 ** 8
            continue
        count, ok = 0, True
        for i in range(2):
            for tri in at:
                c = proper_cross(moved[i], moved[i + 1], tri)
                if c is None:
                    ok = False
                elif c:
                    count += 1
        if ok:
            return "through" if count % 2 else "touch"


# ---- cases ----

def grid_tin(nx, ny, x0, y0, step, zf):
    faces = []
    for i in range(nx):
        for j in range(ny):
            a = (x0 + i * step, y0 + j * step)
            b = (x0 + (i + 1) * step, y0 + j * step)
            c = (x0 + (i + 1) * step, y0 + (j + 1) * step)
            d = (x0 + i * step, y0 + (j + 1) * step)
            A, B, C, D = [(p[0], p[1], zf(p[0], p[1])) for p in (a, b, c, d)]
            faces.append([(A, B, C)])
            faces.append([(A, C, D)])
    return faces


def tin_wkt(faces):
    return "TIN Z (" + ",".join("((%s))" % ",".join("%r %r %r" % tuple(map(float, v))
                                                    for v in (t[0], t[1], t[2], t[0]))
                                for f in faces for t in f) + ")"


def poly_wkt(polys):
    return "POLYHEDRALSURFACE Z (" + ",".join(
        "((%s))" % ",".join("%r %r %r" % tuple(map(float, v)) for v in list(p) + [p[0]])
        for p in polys) + ")"


def fan(p):
    return [(p[0], p[k], p[k + 1]) for k in range(1, len(p) - 1)]


def line_wkt(h, m=None):
    if m is None:
        return "LINESTRING Z (" + ",".join("%r %r %r" % tuple(map(float, v)) for v in h) + ")"
    return "LINESTRING ZM (" + ",".join("%r %r %r %r" % (float(v[0]), float(v[1]), float(v[2]), float(mm))
                                        for v, mm in zip(h, m)) + ")"


def cases():
    rng = random.Random(20261127)
    surfaces = []
    # 1 a flat fault sheet, 4 x 4 squares of 10 m, open (its rim is the square's edge)
    flat = grid_tin(4, 4, 0.0, 0.0, 10.0, lambda x, y: 0.0)
    surfaces.append(("flat_sheet", tin_wkt(flat), flat))
    # 2 a roof: two planes meeting at the ridge x = 20 (z = -|x - 20| / 2)
    roof = grid_tin(4, 2, 0.0, 0.0, 10.0, lambda x, y: -abs(x - 20.0) / 2)
    surfaces.append(("roof", tin_wkt(roof), roof))
    # 3 a peak: four triangles around the apex (5, 5, 5) over a 10 x 10 square
    apex = (5.0, 5.0, 5.0)
    sq = [(0.0, 0.0, 0.0), (10.0, 0.0, 0.0), (10.0, 10.0, 0.0), (0.0, 10.0, 0.0)]
    peak = [[(sq[k], sq[(k + 1) % 4], apex)] for k in range(4)]
    surfaces.append(("peak", tin_wkt(peak), peak))
    # 4 a POLYHEDRALSURFACE: two square faces folded along x = 10 (a step)
    quads = [[(0.0, 0.0, 0.0), (10.0, 0.0, 0.0), (10.0, 10.0, 0.0), (0.0, 10.0, 0.0)],
             [(10.0, 0.0, 0.0), (20.0, 0.0, 5.0), (20.0, 10.0, 5.0), (10.0, 10.0, 0.0)]]
    surfaces.append(("folded_quads", poly_wkt(quads), [fan(q) for q in quads]))
    # 5 a bumpy topography at UTM coordinates, random heights
    hz = {}

    def bump(x, y):
        return hz.setdefault((x, y), float(round(rng.uniform(300, 330), 3)))
    topo = grid_tin(6, 6, 500000.0, 7000000.0, 25.0, bump)
    surfaces.append(("topography", tin_wkt(topo), topo))

    holes = []   # (name, surface name, vertices, m or None)
    add_h = holes.append
    # flat sheet: adversarial
    add_h(("flat_face_through", "flat_sheet", [(3.0, 4.0, 5.0), (3.0, 4.0, -5.0)], None))
    add_h(("flat_diagonal_edge", "flat_sheet", [(5.0, 5.0, 5.0), (5.0, 5.0, -5.0)], None))
    add_h(("flat_grid_edge", "flat_sheet", [(10.0, 5.0, 5.0), (10.0, 5.0, -5.0)], None))
    add_h(("flat_inner_vertex", "flat_sheet", [(10.0, 10.0, 5.0), (11.0, 9.0, -5.0)], None))
    add_h(("flat_rim_edge", "flat_sheet", [(0.0, 5.0, 5.0), (0.0, 5.0, -5.0)], None))
    add_h(("flat_rim_corner", "flat_sheet", [(40.0, 40.0, 5.0), (40.0, 40.0, -5.0)], None))
    add_h(("flat_v_touch", "flat_sheet", [(15.0, 15.0, 5.0), (17.0, 13.0, 0.0), (19.0, 15.0, 5.0)], None))
    add_h(("flat_bend_through", "flat_sheet", [(15.0, 15.0, 5.0), (17.0, 13.0, 0.0), (19.0, 15.0, -5.0)], None))
    add_h(("flat_along_in_face", "flat_sheet", [(-5.0, 3.0, 0.0), (45.0, 3.0, 0.0)], None))
    add_h(("flat_along_diagonals", "flat_sheet", [(-5.0, -5.0, 0.0), (45.0, 45.0, 0.0)], None))
    add_h(("flat_dip_in_and_out", "flat_sheet", [(1.0, 1.0, 3.0), (4.0, 4.0, 0.0), (8.0, 8.0, 0.0), (12.0, 2.0, -3.0)], None))
    add_h(("flat_starts_on", "flat_sheet", [(12.0, 13.0, 0.0), (12.0, 13.0, -8.0)], None))
    add_h(("flat_ends_on", "flat_sheet", [(12.0, 13.0, 8.0), (12.0, 13.0, 0.0)], None))
    add_h(("flat_misses_by_ulp", "flat_sheet", [(3.0, 4.0, 5.0), (3.0, 4.0, 5e-324)], None))
    add_h(("flat_zigzag_m", "flat_sheet", [(2.0, 2.0, 4.0), (6.0, 3.0, -4.0), (9.0, 7.0, 4.0), (13.0, 9.0, -4.0)],
           [100.0, 110.5, 121.0, 135.25]))
    add_h(("flat_toe_first_m", "flat_sheet", [(3.0, 4.0, -5.0), (3.0, 4.0, 5.0)], [250.0, 240.0]))
    add_h(("flat_thirds", "flat_sheet", [(1.0, 1.0, 1.0), (2.0, 1.0, -2.0)], None))
    # roof: a ridge at x = 20
    add_h(("roof_ridge_touch", "roof", [(15.0, 5.0, 0.0), (25.0, 5.0, 0.0)], None))
    add_h(("roof_ridge_through", "roof", [(15.0, 5.0, -5.0), (25.0, 5.0, 5.0)], None))
    add_h(("roof_ridge_touch_below", "roof", [(15.0, 5.0, -5.0), (20.0, 5.0, 0.0), (25.0, 5.0, -5.0)], None))
    add_h(("roof_along_ridge", "roof", [(20.0, -5.0, 0.0), (20.0, 25.0, 0.0)], None))
    add_h(("roof_ridge_vertex_vertical", "roof", [(20.0, 10.0, 3.0), (20.0, 10.0, -3.0)], None))
    add_h(("roof_slope_along", "roof", [(2.0, 4.0, -9.0), (18.0, 4.0, -1.0)], None))
    # peak
    add_h(("peak_apex_vertical", "peak", [(5.0, 5.0, 10.0), (5.0, 5.0, -1.0)], None))
    add_h(("peak_apex_horizontal", "peak", [(0.0, 5.0, 5.0), (10.0, 5.0, 5.0)], None))
    add_h(("peak_apex_slanted_through", "peak", [(4.0, 5.0, 0.0), (6.0, 5.0, 10.0)], None))
    add_h(("peak_edge_horizontal", "peak", [(0.0, 0.0, 2.5), (5.0, 5.0, 2.5)], None))
    add_h(("peak_edge_vertical", "peak", [(2.5, 2.5, 9.0), (2.5, 2.5, -9.0)], None))
    # folded quads
    add_h(("quads_diagonal", "folded_quads", [(5.0, 5.0, 3.0), (5.0, 5.0, -3.0)], None))
    add_h(("quads_fold_through", "folded_quads", [(10.0, 5.0, 3.0), (10.0, 5.0, -3.0)], None))
    add_h(("quads_fold_touch", "folded_quads", [(5.0, 5.0, 1.0), (10.0, 5.0, 0.0), (15.0, 5.0, 4.0)], None))
    add_h(("quads_along_fold_line", "folded_quads", [(10.0, -2.0, 0.0), (10.0, 12.0, 0.0)], None))
    # random holes through the flat sheet, the roof and the topography
    for k in range(12):
        p = (rng.uniform(-5, 45), rng.uniform(-5, 45), rng.uniform(1, 20))
        pts = [p]
        for _ in range(rng.randint(1, 4)):
            p = (p[0] + rng.uniform(-8, 8), p[1] + rng.uniform(-8, 8), p[2] + rng.uniform(-15, 2))
            pts.append(p)
        add_h(("random_flat_%d" % k, "flat_sheet", pts, None))
    for k in range(8):
        p = (rng.uniform(0, 40), rng.uniform(0, 20), rng.uniform(-2, 6))
        pts = [p]
        for _ in range(rng.randint(1, 3)):
            p = (p[0] + rng.uniform(-10, 10), p[1] + rng.uniform(-5, 5), p[2] + rng.uniform(-10, 5))
            pts.append(p)
        add_h(("random_roof_%d" % k, "roof", pts, None))
    for k in range(10):
        x, y = rng.uniform(500005, 500145), rng.uniform(7000005, 7000145)
        pts, m, d = [(x, y, 400.0)], [0.0], 0.0
        for _ in range(rng.randint(2, 6)):
            x, y = x + rng.uniform(-3, 3), y + rng.uniform(-3, 3)
            z = pts[-1][2] - rng.uniform(5, 40)
            pts.append((x, y, z))
            d += rng.uniform(5, 40)
            m.append(round(d, 2))
        add_h(("random_topo_%d" % k, "topography", pts, m if k % 2 else None))
    # random adversarial holes: through (or bending at, or touching at) a
    # vertex, an edge point or a face point of a surface, with dyadic
    # coordinates so that the contact is exact
    small = [s for s in surfaces if s[0] != "topography"]
    for k in range(40):
        sname, _, faces = small[rng.randrange(len(small))]
        tri = rng.choice(faces)[0]
        pick = rng.randrange(3)
        if pick == 0:
            x = tri[rng.randrange(3)]
        else:
            wts = [rng.randint(0, 4) for _ in range(3)]
            if pick == 1:
                wts[rng.randrange(3)] = 0
            if sum(wts) == 0:
                wts = [1, 1, 0]
            sw = sum(wts)
            sw = 4 if sw <= 4 else 8 if sw <= 8 else 16
            wts[0] += sw - sum(wts)
            x = tuple(sum(wt * v[c] for wt, v in zip(wts, tri)) / sw for c in range(3))
        d = (float(rng.randint(-4, 4)), float(rng.randint(-4, 4)), float(rng.choice([-4, -2, -1, 0, 1, 2, 4])))
        if d == (0.0, 0.0, 0.0):
            d = (1.0, 0.0, -1.0)
        shape = rng.randrange(4)
        a = (x[0] - d[0], x[1] - d[1], x[2] - d[2])
        if shape == 0:      # straight through x
            pts = [a, (x[0] + d[0], x[1] + d[1], x[2] + d[2])]
        elif shape == 1:    # bends at x, back to the side it came from in z
            pts = [a, x, (x[0] + d[0], x[1] + d[1], x[2] - d[2])]
        elif shape == 2:    # bends at x in a random new direction
            e = (float(rng.randint(-4, 4)), float(rng.randint(-4, 4)), float(rng.randint(-4, 4)))
            pts = [a, x, (x[0] + e[0], x[1] + e[1], x[2] + e[2])]
        else:               # horizontal through x
            pts = [(x[0] - d[0], x[1] - d[1], x[2]), (x[0] + d[0], x[1] + d[1], x[2])]
        add_h(("random_adversarial_%d" % k, sname, pts, None))
    # topography: a hole collared exactly on a vertex of it, and one on a face
    v = topo[14][0][0]
    add_h(("topo_collar_on_vertex", "topography", [v, (v[0] + 1.0, v[1], v[2] - 50.0)], None))
    add_h(("topo_vertex_passing", "topography", [(v[0] - 1.0, v[1] - 1.0, v[2] + 20.0), v,
                                                  (v[0] + 1.0, v[1] + 1.0, v[2] - 20.0)], None))
    return surfaces, holes


def write_sql(f):
    surfaces, holes = cases()
    by_name = {s[0]: s for s in surfaces}
    w = f.write
    w("-- Generated by test/reference/crossings_ref.py (do not edit): ST_ExactCrossings3D\n"
      "-- against an exact Fraction reference; every row must match to the bit.\n")
    w("SET extra_float_digits = 3;\n")
    w("CREATE TEMP TABLE cx_surface (name text PRIMARY KEY, geom geometry);\n")
    w("CREATE TEMP TABLE cx_hole (name text PRIMARY KEY, surface text, geom geometry);\n")
    w("CREATE TEMP TABLE cx_ref (hole text, seq int, depth_m float8, to_m float8, kind text,\n"
      "  x float8, y float8, z float8, face int);\n")
    for name, wkt, _ in surfaces:
        w("INSERT INTO cx_surface VALUES ('%s', '%s');\n" % (name, wkt))
    for name, sname, pts, m in holes:
        w("INSERT INTO cx_hole VALUES ('%s', '%s', '%s');\n" % (name, sname, line_wkt(pts, m)))
        rows = crossings(pts, by_name[sname][2], m)
        for k, (d0, d1, kind, x, face) in enumerate(rows):
            w("INSERT INTO cx_ref VALUES ('%s', %d, %r, %r, '%s', %r, %r, %r, %d);\n"
              % (name, k + 1, d0, d1, kind, x[0], x[1], x[2], face))
    w("""CREATE TEMP TABLE cx_got AS
SELECT h.name AS hole, row_number() OVER (PARTITION BY h.name ORDER BY c.depth_m, c.to_m)::int AS seq,
       c.depth_m, c.to_m, c.kind, ST_X(c.point) AS x, ST_Y(c.point) AS y, ST_Z(c.point) AS z, c.face
FROM cx_hole h JOIN cx_surface s ON s.name = h.surface,
     LATERAL ST_ExactCrossings3D(h.geom, s.geom) c;
-- the adversarial holes: engine and reference side by side
SELECT r.hole, r.seq, g.kind AS kind, r.kind AS ref_kind, g.depth_m, r.depth_m AS ref_depth_m, g.face, r.face AS ref_face
FROM cx_ref r FULL JOIN cx_got g USING (hole, seq)
WHERE coalesce(r.hole, g.hole) NOT LIKE 'random%'
ORDER BY coalesce(r.hole, g.hole), coalesce(r.seq, g.seq);
-- every row, random holes included, equal to the bit
SELECT count(*) AS rows_compared,
       count(*) FILTER (WHERE r.hole IS NULL OR g.hole IS NULL OR
                        (r.depth_m, r.to_m, r.kind, r.x, r.y, r.z, r.face) IS DISTINCT FROM
                        (g.depth_m, g.to_m, g.kind, g.x, g.y, g.z, g.face)) AS mismatches
FROM cx_ref r FULL JOIN cx_got g USING (hole, seq);
SELECT kind, count(*) FROM cx_ref GROUP BY kind ORDER BY kind;
DROP TABLE cx_surface, cx_hole, cx_ref, cx_got;
""")


if __name__ == "__main__":
    write_sql(sys.stdout)
