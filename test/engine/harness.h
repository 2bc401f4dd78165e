/*
 * harness.h — what every engine test and benchmark shares: a seeded
 * random generator, a clock, checks that count failures, and the mesh
 * builders of the solid tests. Engine code only; the independent GMP
 * references (test/reference/) do not use it, so they stay independent.
 */
#ifndef EXG_TEST_HARNESS_H
#define EXG_TEST_HARNESS_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

/*
 * SplitMix64 (Steele et al. 2014): one 64-bit state advanced by the golden
 * ratio. Every test seeds its own, so runs are reproducible.
 */
typedef struct test_rng
{
	uint64_t	state;
} test_rng;

static inline uint64_t
rng_next(test_rng *r)
{
	uint64_t	z = (r->state += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

/* Uniform in [0, 1), 53 random bits. */
static inline double
rng_uniform(test_rng *r)
{
	return (double) (rng_next(r) >> 11) / 9007199254740992.0;
}

/* Uniform in [0, n) (modulo bias below 2^-40 for the n used here). */
static inline uint64_t
rng_below(test_rng *r, uint64_t n)
{
	return rng_next(r) % n;
}

/* Seconds on the monotonic clock. */
double		now_seconds(void);

/* The median of v[0 .. n) (n > 0), v sorted in place: the benches' timings. */
double		median_sorted(double *v, size_t n);

/* Failures counted by CHECK and FAIL (and by tests that count their own kinds). */
extern long test_failures;

/* What a test is checking now, named in failure messages when set. */
extern const char *test_context;

/*
 * Count a failure; print where and why (the first 50: a broken invariant
 * can fail a million times). fmt and its arguments may be left out.
 */
void		test_fail(const char *file, int line, const char *what, const char *fmt, ...);

/* A failure unless cond holds: CHECK(cond) or CHECK(cond, "fmt", args...). */
#define CHECK(cond, ...) \
	do { \
		if (!(cond)) \
			test_fail(__FILE__, __LINE__, #cond, "" __VA_ARGS__); \
	} while (0)

/* A failure, with its reason: FAIL("fmt", args...). */
#define FAIL(...) test_fail(__FILE__, __LINE__, NULL, __VA_ARGS__)

/* "name: N failures" on stdout; the exit status of a test (0 when none). */
int			test_summary(const char *name);

/* ---- meshes: triangles over a shared vertex array, grouped in bodies ---- */

typedef struct test_mesh
{
	double	   *xyz;
	uint32_t	nv,
				cv;
	uint32_t   *tri;
	uint32_t   *body;			/* body of each triangle */
	uint32_t	nt,
				ct;
	uint32_t	nbodies;
	bool		convex[64];		/* per body (the first 64), where a test notes it:
								 * convex with outward faces */
} test_mesh;

uint32_t	test_mesh_vertex(test_mesh *m, double x, double y, double z);
void		test_mesh_triangle(test_mesh *m, uint32_t a, uint32_t b, uint32_t c);
void		test_mesh_free(test_mesh *m);

/* Body `body` of m as a TIN Z shape (exg_shape_init'ed here; the caller frees it). */
struct exg_shape;
void		test_mesh_body_shape(const test_mesh *m, uint32_t body, struct exg_shape *s);

/*
 * A closed bumpy sphere (poles, nu x (nv - 1) grid) or torus (nu x nv grid,
 * wrapping in v too) around o + c, radii R (and r for the torus tube), the
 * radius scaled by 1 + bump * (uniform - 1/2); vertices snapped to
 * multiples of 1/8 relative to o, so coordinates are exact. Its triangles
 * get body m->nbodies: the caller ends the body.
 */
void		test_mesh_add_round(test_mesh *m, const double *o, const double *c, double R, double r,
						   bool torus, int nu, int nv, double bump, test_rng *rng);

#endif							/* EXG_TEST_HARNESS_H */
