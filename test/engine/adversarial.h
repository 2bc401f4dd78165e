/*
 * adversarial.h — deterministic generators of hard inputs for every predicate
 * of src/engine/exact/predicates.h, for the CPU differential test and for
 * the GPU tests (which fill device arrays with the same cases).
 *
 * A case is identified by (family, predicate, seed, index) and nothing else:
 * each call seeds its own xoshiro256** state from a hash of those four, so
 * any case can be regenerated alone, in any order, on any thread.
 *
 * Most families build their points on an integer lattice first (local
 * coordinates u, v, w along a frame's small-integer axes) and map them to
 * doubles as N * 2^e with |N| < 2^53, so every "exactly coplanar", "exactly
 * on the edge", "exact midpoint" claim holds for the doubles themselves, at
 * any scale from subnormal to near overflow and at UTM offsets.
 */
#ifndef EXG_ADVERSARIAL_H
#define EXG_ADVERSARIAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum adv_pred
{
	ADV_ORIENT2D,
	ADV_ORIENT3D,
	ADV_POINT_POINT_3D,
	ADV_POINT_SEGMENT_3D,
	ADV_POINT_TRIANGLE_3D,
	ADV_SEGMENT_SEGMENT_3D,
	ADV_SEGMENT_TRIANGLE_3D,
	ADV_TRIANGLE_TRIANGLE_3D,
	ADV_POINT_SEGMENT_2D,
	ADV_POINT_TRIANGLE_2D,
	ADV_SEGMENT_SEGMENT_2D,
	ADV_SEGMENT_TRIANGLE_2D,
	ADV_TRIANGLE_TRIANGLE_2D,
	ADV_NPREDS
} adv_pred;

/*
 * Shape of a predicate's arguments. Orientation predicates take na points
 * (3 or 4) and nb = 0; intersection tests take primitive A (na points) then
 * primitive B (nb points), in predicates.h argument order.
 */
typedef struct adv_pred_info
{
	const char *name;			/* "segment_triangle_3d" */
	int			dim;			/* 2 or 3 */
	int			na;
	int			nb;
	bool		orient;			/* returns a sign, not a bool */
} adv_pred_info;

extern const adv_pred_info adv_preds[ADV_NPREDS];

typedef enum adv_family
{
	ADV_UNIFORM,				/* full-precision uniform in [-1, 1]^d, 30% snapped onto B */
	ADV_SMALL_GRID,				/* small integers: coincidences everywhere; some -0.0 */
	ADV_COPLANAR,				/* all points on one exact plane */
	ADV_COLLINEAR,				/* points on one exact line */
	ADV_SHARED_VERTEX,			/* a vertex in common (or one ulp apart) */
	ADV_SHARED_EDGE,			/* two vertices in common */
	ADV_VERTEX_ON_EDGE,			/* a vertex exactly on an edge or its line */
	ADV_VERTEX_ON_FACE,			/* a vertex exactly in a triangle's plane */
	ADV_TOUCHING,				/* contact in one plane, else strictly apart */
	ADV_COLLINEAR_OVERLAP,		/* edges on one line, intervals overlapping or not */
	ADV_COPLANAR_OVERLAP,		/* coplanar triangles: hexagram, medial, shifted */
	ADV_DEGENERATE,				/* zero-length segments, collinear triangles */
	ADV_UTM_RANDOM,				/* x ~ 5e5, y ~ 7e6, z ~ -500, 1 cm..10 m features; 30% snapped */
	ADV_UTM_DEGENERATE,			/* exact degeneracies at UTM offsets */
	ADV_ULP,					/* a degenerate case nudged by 1-2 ulps */
	ADV_KETTNER_GRID,			/* Kettner et al.'s 256 x 256 near-collinear grid */
	ADV_EXTREME,				/* 1e+-300, subnormals, wild exponent mixes */
	ADV_PERMUTED,				/* degenerate cases with vertex order shuffled */
	ADV_STATIC_BOUND,			/* at the CPU static filter's bound and range limits */
	ADV_NFAMILIES
} adv_family;

#define ADV_UNBOUNDED UINT64_MAX
#define ADV_DEFAULT_SEED UINT64_C(0x6578616374677075)	/* "exactgpu" */

const char *adv_family_name(adv_family f);

/* Number of points a case of p holds (na + nb); a case is that many times dim doubles. */
int			adv_npoints(adv_pred p);

/*
 * How many distinct cases (f, p) has: 0 when the family does not apply to
 * the predicate (e.g. a shared edge needs two primitives with edges), a grid
 * size for ADV_KETTNER_GRID, ADV_UNBOUNDED for the random families.
 */
uint64_t	adv_family_size(adv_family f, adv_pred p);

/*
 * Fill out[0 .. adv_npoints(p) * dim) with case `index` of family f for
 * predicate p. Returns false (and leaves out alone) when the family does not
 * apply or index is past a finite family's size. Deterministic and thread-safe.
 */
bool		adv_generate(adv_family f, adv_pred p, uint64_t seed, uint64_t index,
						 double *out);

/* count consecutive cases from `first`, packed; returns how many were written. */
size_t		adv_generate_batch(adv_family f, adv_pred p, uint64_t seed, uint64_t first,
							   size_t count, double *out);

#ifdef __cplusplus
}
#endif

#endif							/* EXG_ADVERSARIAL_H */
