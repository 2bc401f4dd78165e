/*
 * mine.h — deterministic synthetic mine: drill holes and ore bodies.
 *
 * Used by the README demo (demo/minegen.c), the engine tests and the
 * benchmarks. Plain C11 with libc and libm only; it knows nothing of
 * PostgreSQL or of the engine.
 *
 * WHAT IS GENERATED
 *
 * Drill holes are polylines (LINESTRING Z): a collar on a gently undulating
 * topography (z about surface_z), then one vertex per survey station. The
 * drilling grid is a jittered grid of pierce points over the deposit
 * footprint, as mine geologists lay them out: a node over a body is drilled
 * so that the hole passes through that body near the node (the collar moved
 * up-dip, the length chosen to end 10 to 60 m below the deepest body on the
 * way), a node over barren ground is a step-out hole collared at the node, and
 * only every other such node is drilled. About 40 % of the holes meet ore.
 * Each hole has an azimuth (mostly the campaign azimuth, a few drilled back,
 * a fifth vertical), a dip between -50 and -90 degrees, a length of 100 to
 * 1200 m and a survey interval of 10 to 60 m, and its dip and azimuth drift a
 * little from station to station (lift and walk, as in real down-hole
 * surveys). About one site in ten is a fan: 3 to 5 holes in one vertical plane
 * from one collar, whose first vertices are the same doubles. Grid holes go
 * strictly down (every segment has dz < 0).
 *
 * Ore bodies are closed triangle meshes (TIN Z) of genus 0, outward oriented
 * (counter-clockwise seen from outside), every undirected edge in exactly two
 * triangles, in opposite directions. A lens is an ellipsoid (diameter 50 to
 * 600 m, flattened, tilted and turned) whose radius is modulated by smooth
 * low-frequency noise of at most 20 %, sampled on latitude rings whose vertex
 * counts follow the ring circumference. Such a mesh is star-shaped from the
 * body's centre: every vertex lies on its own ray from the centre and the
 * rays' spherical triangles tile the sphere once, whatever the (positive)
 * radii, and a linear map keeps that, so the mesh cannot self-intersect.
 * test/engine/test_mine.c checks it on the final doubles: every triangle is
 * certified to face away from the centre and their solid angles add up to one
 * turn. Bodies lie between body_z_bottom and body_z_top and their bounding
 * boxes are pairwise disjoint, so bodies never meet.
 *
 * A body with N ring vertices has 2N triangles (V - E + F = 2), so any even
 * count is reachable; the triangle target is split over the bodies by
 * surface area and met exactly (an odd target is rounded down to even).
 *
 * DELIBERATE EXACT DEGENERACIES
 *
 * The product exists for the cases that floating point gets wrong, so every
 * mine holds n_degenerate_sets sets of nine deliberate holes, named
 * "DEG-<set>-<kind>", listed in mine.degenerate with the expected answer of
 * "does the closed hole polyline meet the closed solid body?". Each set owns a
 * calibration body "flat-<set>": an untilted, noise-free ellipsoid whose top
 * cap (north pole plus first ring) is flattened onto the plane z = z1, a
 * single double, so that the cap triangles lie EXACTLY in that horizontal
 * plane and nothing else of the body reaches it. No other body comes within
 * 100 m of its vertical column (in x and y), which holds all of the set's
 * calibration holes. Every case is exact in doubles, not merely close:
 *
 *   MINE_DEG_VERTEX_TOUCH (1 per set, intersects): a hole that comes down from
 *     the north-east and leaves to the south-east, whose interior vertex IS the
 *     east-most vertex V of a lens (the same three doubles, copied); every
 *     other vertex of the hole has x > V.x. The body lies in x <= V.x
 *     (it is inside the hull of its vertices), so hole and body share exactly
 *     the point V.
 *   MINE_DEG_VERTEX_TOUCH_MISS (1, misses): the same hole with its kink at
 *     (nextafter(V.x, +inf), V.y, V.z): every vertex has x > V.x, the gap is
 *     one ulp.
 *   MINE_DEG_VERTEX_END (1, intersects): a vertical hole (all vertices share
 *     P.x and P.y) ending exactly at the top-most vertex P of a lens; every
 *     other vertex has z > P.z = max z of the body.
 *   MINE_DEG_VERTEX_END_MISS (1, misses): the same, ending at
 *     nextafter(P.z, +inf).
 *   MINE_DEG_COPLANAR (1, intersects): a hole that comes down to z1 west of the
 *     calibration body and then runs horizontally (both endpoints z == z1, the
 *     same y) across the flat cap: the segment lies in the plane of the cap
 *     triangles and crosses their interiors.
 *   MINE_DEG_COPLANAR_MISS (1, misses): the same at z = nextafter(z1, +inf).
 *   MINE_DEG_FACE_END (1, intersects): a vertical hole ending at z == z1 on a
 *     point strictly inside a cap triangle (a face, not an edge or vertex).
 *   MINE_DEG_FACE_END_MISS (1, misses): the same ending at nextafter(z1, +inf).
 *   MINE_DEG_VERTEX_PIERCE (1, intersects): a vertical hole with a vertex
 *     exactly at the cap's pole (x, y, z copied), continuing through the body
 *     and out of its bottom.
 *
 * The lens cases use the first lens (in body order, not used by an earlier
 * set) whose hole stays clear of every other body's bounding box, segment by
 * segment; if no lens qualifies they fall back on the set's calibration
 * body. Apart from the named contacts, a degenerate hole meets no body.
 * Coordinates must be written with 17 significant digits ("%.17g") for these
 * contacts to survive a text round trip.
 *
 * DETERMINISM
 *
 * Everything follows from the seed through a private splitmix64 generator
 * (no rand()), with separate streams for layout, for each body and for each
 * hole, so that e.g. adding holes leaves the bodies unchanged. The layout uses
 * only + - * /, floor and sqrt (all correctly rounded in IEEE 754) and its own
 * sin/cos polynomials, never the platform's sin/cos, so the doubles do not
 * depend on the libm version. This needs binary64 evaluation
 * (FLT_EVAL_METHOD == 0, which mine.c checks: any x86-64 build) and no fused
 * multiply-add contraction: mine.c turns it off by pragma, which GCC honours
 * even under -ffp-contract=fast and -march=native, and Clang honours except
 * under -ffp-contract=fast (don't use that flag with Clang here), and refuses
 * -ffast-math. The same parameters give the same bits on every x86-64 Linux;
 * test_mine.c pins the hashes of reference mines and fails otherwise.
 *
 * Coordinates are UTM-like metres; the default SRID used by minegen, 32719
 * (WGS 84 / UTM zone 19S), matches an easting of about 500000 and a northing
 * of about 7000000.
 */
#ifndef EXG_DEMO_MINE_H
#define EXG_DEMO_MINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define MINE_NAME_LEN 48

/* Deliberate holes in each degenerate set, one of each kind. */
#define MINE_DEG_PER_SET 9

typedef struct mine_params
{
	uint64_t	seed;
	int64_t		n_holes;		/* all holes, degenerate ones included;
								 * ignored when target_segments > 0 */
	int64_t		target_segments;	/* > 0: generate grid holes until the mine
									 * has exactly this many segments (the last
									 * hole is cut short) */
	int64_t		n_bodies;		/* all bodies, calibration ones included */
	int64_t		target_triangles;	/* all bodies together; even */
	int64_t		n_degenerate_sets;	/* each: 9 holes and 1 calibration body */
	double		origin_x;		/* south-west corner of the deposit footprint */
	double		origin_y;
	double		surface_z;		/* mean topography */
	double		body_z_top;		/* bodies lie within [body_z_bottom, body_z_top] */
	double		body_z_bottom;
} mine_params;

typedef enum mine_body_kind
{
	MINE_BODY_LENS = 1,			/* noisy, tilted ellipsoid */
	MINE_BODY_CALIBRATION = 2	/* flat-topped ellipsoid of a degenerate set */
} mine_body_kind;

typedef enum mine_degenerate_kind
{
	MINE_DEG_VERTEX_TOUCH = 1,
	MINE_DEG_VERTEX_TOUCH_MISS,
	MINE_DEG_VERTEX_END,
	MINE_DEG_VERTEX_END_MISS,
	MINE_DEG_COPLANAR,
	MINE_DEG_COPLANAR_MISS,
	MINE_DEG_FACE_END,
	MINE_DEG_FACE_END_MISS,
	MINE_DEG_VERTEX_PIERCE
} mine_degenerate_kind;

typedef struct mine_hole
{
	int64_t		id;				/* 1-based, in array order */
	char		name[MINE_NAME_LEN];
	size_t		first_vertex;	/* into mine.hole_xyz, in vertices */
	size_t		nvertices;		/* >= 2; segments = nvertices - 1 */
	int64_t		fan;			/* holes of one fan share it; -1 if none */
	int64_t		degenerate;		/* index into mine.degenerate, or -1 */
} mine_hole;

typedef struct mine_body
{
	int64_t		id;				/* 1-based, in array order */
	char		name[MINE_NAME_LEN];	/* "lens-07", "flat-01" */
	mine_body_kind kind;
	size_t		first_vertex;	/* into mine.body_xyz, in vertices */
	size_t		nvertices;
	size_t		first_triangle; /* into mine.body_tri, in triangles */
	size_t		ntriangles;
	double		bbox_min[3];	/* exact min and max of the vertices */
	double		bbox_max[3];
	double		center[3];		/* the body is star-shaped from here */
} mine_body;

typedef struct mine_degenerate
{
	mine_degenerate_kind kind;
	int64_t		set;			/* 1-based degenerate set */
	size_t		hole;			/* index into mine.holes */
	size_t		body;			/* index into mine.bodies */
	size_t		hole_vertex;	/* local to the hole: the vertex at (or one ulp
								 * off) the contact; for the coplanar kinds the
								 * first vertex of the flat last segment */
	int64_t		body_vertex;	/* local vertex touched, or -1 */
	int64_t		body_triangle;	/* local cap triangle under the contact, or -1 */
	bool		expect_intersects;	/* closed hole meets closed solid body */
} mine_degenerate;

typedef struct mine
{
	mine_params params;			/* as used, defaults filled in */

	double	   *hole_xyz;		/* 3 per vertex */
	size_t		n_hole_vertices;
	mine_hole  *holes;
	size_t		n_holes;
	size_t		n_segments;		/* sum of nvertices - 1 */

	double	   *body_xyz;		/* 3 per vertex */
	size_t		n_body_vertices;
	uint32_t   *body_tri;		/* 3 per triangle, local to the body's vertices */
	size_t		n_triangles;
	mine_body  *bodies;
	size_t		n_bodies;

	mine_degenerate *degenerate;
	size_t		n_degenerate;

	double		footprint_min[2];	/* the drilled area */
	double		footprint_max[2];
} mine;

/*
 * Fill *p with the defaults of a named size: "tiny" (50 holes, 3 bodies,
 * 2000 triangles, 1 degenerate set: tests), "demo" (2000 holes, 20 bodies,
 * 200000 triangles, 2 sets), "paper" (7846 segments and 1000000 triangles, the
 * scale of the Menezes et al. mining dataset; 12 bodies, 2 sets), "large"
 * (20000 holes, 100 bodies, 10000000 triangles, 4 sets). Returns false, with
 * *p untouched, for an unknown name.
 */
bool		mine_params_for_size(mine_params *p, const char *size, uint64_t seed);

/*
 * Generate the mine. On success returns 0 and *out owns all arrays (free with
 * mine_free). On failure (inconsistent parameters, out of memory) returns -1,
 * leaves *out NULL and writes a message into errbuf (errlen bytes, may be 0).
 */
int			mine_generate(const mine_params *p, mine **out, char *errbuf,
						  size_t errlen);

void		mine_free(mine *m);

/* "vertex-touch", "coplanar-miss", ... as used in hole names. */
const char *mine_degenerate_kind_name(mine_degenerate_kind kind);

/* Deterministic trigonometry used by the generator (radians). */
double		mine_sin(double x);
double		mine_cos(double x);

#ifdef __cplusplus
}
#endif

#endif							/* EXG_DEMO_MINE_H */
