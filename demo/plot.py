#!/usr/bin/env python3
"""Draw the demo mine: a plan view and a vertical section with the ore
bodies, the drill holes, the exact intercepts and the pairs PostGIS gets
wrong (the section itself is also drawn by demo.sql, as section.svg). Reads the CSV files demo/demo.sql writes into the output folder and
writes mine.png beside them. Needs python3-matplotlib (Debian)."""
import csv
import re
import sys

import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.collections import LineCollection  # noqa: E402


def coords(wkt):
    """The vertex tuples of a LINESTRING/POLYGON WKT (first ring), any dims."""
    body = re.search(r"\(+([^()]*)\)", wkt)
    if body is None:
        return []
    return [tuple(float(v) for v in p.split()) for p in body.group(1).split(",")]


def lines(wkt):
    """The parts of a (MULTI)LINESTRING WKT as lists of (x, y)."""
    return [[tuple(float(v) for v in p.split()[:2]) for p in part.split(",")]
            for part in re.findall(r"\(([^()]*)\)", wkt)]


def rows(out, name):
    with open(f"{out}/{name}", newline="") as f:
        return list(csv.reader(f))


def main(out):
    bodies = rows(out, "plan_bodies.csv")
    holes = rows(out, "plan_holes.csv")
    pieces = rows(out, "pieces.csv")
    wrong = rows(out, "postgis_wrong.csv")
    sec_body, sec_y, sec_x0 = rows(out, "section.csv")[0]
    sec_y, sec_x0 = float(sec_y), float(sec_x0)
    sec_bodies = rows(out, "section_bodies.csv")
    sec_faults = rows(out, "section_faults.csv")
    sec_window = rows(out, "section_window.csv")

    x0 = min(c[0] for b in bodies for c in coords(b[2]))
    y0 = min(c[1] for b in bodies for c in coords(b[2]))

    fig, (plan, sec) = plt.subplots(1, 2, figsize=(16, 8.5), gridspec_kw={"width_ratios": [1, 1.15]})
    fig.suptitle("exactgpu demo mine: ore bodies, drill holes, exact intercepts", fontsize=14)

    # plan view
    plan.add_collection(LineCollection([[(c[0] - x0, c[1] - y0) for c in coords(h[1])] for h in holes],
                                       colors="0.6", linewidths=0.4, label="drill holes"))
    for b in bodies:
        ring = [(c[0] - x0, c[1] - y0) for c in coords(b[2])]
        plan.fill([p[0] for p in ring], [p[1] for p in ring], color="tab:orange", alpha=0.35, lw=0.8,
                  ec="tab:brown")
        cx = sum(p[0] for p in ring) / len(ring)
        cy = sum(p[1] for p in ring) / len(ring)
        plan.annotate(b[1], (cx, cy), fontsize=7, ha="center", color="tab:brown")
    plan.add_collection(LineCollection([[(c[0] - x0, c[1] - y0) for c in coords(p[2])] for p in pieces],
                                       colors="tab:red", linewidths=1.6, label="exact intercepts"))
    for w in wrong:
        plan.plot(float(w[2]) - x0, float(w[3]) - y0, marker="X", ms=11, mec="k",
                  mfc="yellow" if w[5] == "f" else "tab:blue", ls="none")
    plan.axhline(sec_y - y0, color="tab:green", ls="--", lw=1)
    plan.annotate("section", (0, sec_y - y0), color="tab:green", fontsize=9, va="bottom")
    plan.autoscale()
    plan.set_aspect("equal")
    plan.set_title("Plan view")
    plan.set_xlabel(f"easting - {x0:.0f} m (UTM 19S)")
    plan.set_ylabel(f"northing - {y0:.0f} m")
    handles = [plt.Line2D([], [], color="0.6", lw=1, label="drill holes"),
               plt.Rectangle((0, 0), 1, 1, fc="tab:orange", alpha=0.35, ec="tab:brown", label="ore bodies (outline)"),
               plt.Line2D([], [], color="tab:red", lw=2, label="exact intercepts"),
               plt.Line2D([], [], marker="X", color="yellow", mec="k", ms=10, ls="none",
                          label="PostGIS says they meet; they do not"),
               plt.Line2D([], [], marker="X", color="tab:blue", mec="k", ms=10, ls="none",
                          label="PostGIS says they miss; they meet")]
    plan.legend(handles=handles, loc="lower left", fontsize=8, framealpha=0.9)

    # section, in the section coordinates demo.sql wrote (x along the line from
    # its west end, elevation): the exact cut of bodies and fault
    # (ST_ExactSection), holes and intercepts within 40 m projected onto it
    sec.add_collection(LineCollection([line for w in sec_window if w[0] == "hole" for line in lines(w[2])],
                                      colors="0.5", linewidths=0.6))
    for b in sec_bodies:
        for ring in lines(b[2]):
            sec.fill([p[0] for p in ring], [p[1] for p in ring], color="tab:orange", alpha=0.35,
                     ec="tab:brown", lw=0.8)
        pts = [p for ring in lines(b[2]) for p in ring]
        sec.annotate(b[1], (sum(p[0] for p in pts) / len(pts), max(p[1] for p in pts)),
                     fontsize=7, ha="center", va="bottom", color="tab:brown")
    sec.add_collection(LineCollection([line for f in sec_faults for line in lines(f[2])],
                                      colors="navy", linewidths=1.2, linestyles="--"))
    sec.add_collection(LineCollection([line for w in sec_window if w[0] == "piece" for line in lines(w[2])],
                                      colors="tab:red", linewidths=2.2))
    for w in wrong:
        if abs(float(w[3]) - sec_y) <= 40:
            sec.plot(float(w[2]) - sec_x0, float(w[4]), marker="X", ms=11, mec="k",
                     mfc="yellow" if w[5] == "f" else "tab:blue", ls="none")
    sec.autoscale()
    sec.set_title(f"Section at northing {sec_y - y0:.0f} m (holes within 40 m of the plane)")
    sec.set_xlabel(f"easting - {sec_x0:.0f} m")
    sec.set_ylabel("elevation (m)")
    sec.set_aspect("equal", adjustable="datalim")

    fig.tight_layout()
    fig.savefig(f"{out}/mine.png", dpi=110)
    print(f"wrote {out}/mine.png")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "demo/out")
