/*
 * test_differential.c — the engine's predicates against the independent GMP
 * reference, over every adversarial family, plus invariants of the engine
 * alone.
 *
 * For each (family, predicate) cell it generates cases (adversarial.c),
 * compares exg_* with ref_* and checks that the engine answers the same for
 * inputs that denote the same question:
 *   perm    vertex order permuted inside each primitive, primitives swapped
 *           when they have the same shape (orientation: sign times parity);
 *   axes    coordinate axes permuted and negated (orientation: times det);
 *   scale   all coordinates times 2^s, when that is exact;
 *   shift   all coordinates plus a constant, when that is exact (TwoSum);
 *   lift    a 2D case as the same case at z = 0 and at z = c in 3D
 *           (orient2d(a,b,c) = orient3d(a,b,c,a + (0,0,1)));
 *   flat    a 3D case whose points share one coordinate, against the 2D
 *           predicate on the other two.
 * Every disagreement is printed with all coordinates in C99 hex floats; the
 * program exits 1 if there is any.
 *
 *   gcc -std=c11 -O2 -Wall -Wextra -fopenmp -frounding-math -Isrc/engine \
 *       -Itest/reference -Itest/engine test/engine/test_differential.c \
 *       test/engine/adversarial.c test/reference/ref_exact.c src/engine/[a-z]*.c \
 *       -lgmp -lm -o test/engine/bin/test_differential
 *   test/engine/bin/test_differential [--cases N] [--quick] [--threads T]
 *       [--seed S] [--family NAME] [--pred NAME] [--show K]
 */
#define _POSIX_C_SOURCE 200809L	/* clock_gettime under -std=c11 */

#include "adversarial.h"
#include "predicates.h"
#include "ref_exact.h"
#include "harness.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#define MAXC 18					/* coordinates in a case: 6 points x 3 */
#define MAXREC 8				/* failures remembered per cell */

typedef enum check_kind
{
	CHK_REFERENCE,
	CHK_PERM,
	CHK_AXES,
	CHK_SCALE,
	CHK_SHIFT,
	CHK_LIFT,
	CHK_FLAT,
	CHK_N
} check_kind;

static const char *const check_names[CHK_N] = {
	"reference", "perm", "axes", "scale", "shift", "lift", "flat"
};

typedef struct failure
{
	uint64_t	index;
	check_kind	kind;
	int			engine,
				expected;
	int			npts,
				dim;			/* of the transformed case */
	int			pred;			/* predicate the transformed case was asked of */
	double		x[MAXC];
} failure;

typedef struct cell
{
	long		cases;
	long		outcome[3];		/* orient: -, 0, +; tests: false, true, - */
	long		disagree;
	long		invariant;
	long		invariant_checks;
	double		seconds;
	int			nrec;
	failure		rec[MAXREC];
} cell;

/* ------------------------------------------------------------------ */

#define P(i) (x + (i) * dim)

static int
eval_engine(adv_pred p, const double *x)
{
	int			dim = adv_preds[p].dim;

	switch (p)
	{
		case ADV_ORIENT2D:
			return exg_orient2d(P(0), P(1), P(2));
		case ADV_ORIENT3D:
			return exg_orient3d(P(0), P(1), P(2), P(3));
		case ADV_POINT_POINT_3D:
			return exg_point_point_3d(P(0), P(1));
		case ADV_POINT_SEGMENT_3D:
			return exg_point_segment_3d(P(0), P(1), P(2));
		case ADV_POINT_TRIANGLE_3D:
			return exg_point_triangle_3d(P(0), P(1), P(2), P(3));
		case ADV_SEGMENT_SEGMENT_3D:
			return exg_segment_segment_3d(P(0), P(1), P(2), P(3));
		case ADV_SEGMENT_TRIANGLE_3D:
			return exg_segment_triangle_3d(P(0), P(1), P(2), P(3), P(4));
		case ADV_TRIANGLE_TRIANGLE_3D:
			return exg_triangle_triangle_3d(P(0), P(1), P(2), P(3), P(4), P(5));
		case ADV_POINT_SEGMENT_2D:
			return exg_point_segment_2d(P(0), P(1), P(2));
		case ADV_POINT_TRIANGLE_2D:
			return exg_point_triangle_2d(P(0), P(1), P(2), P(3));
		case ADV_SEGMENT_SEGMENT_2D:
			return exg_segment_segment_2d(P(0), P(1), P(2), P(3));
		case ADV_SEGMENT_TRIANGLE_2D:
			return exg_segment_triangle_2d(P(0), P(1), P(2), P(3), P(4));
		case ADV_TRIANGLE_TRIANGLE_2D:
			return exg_triangle_triangle_2d(P(0), P(1), P(2), P(3), P(4), P(5));
		default:
			abort();
	}
}

static int
eval_reference(adv_pred p, const double *x)
{
	int			dim = adv_preds[p].dim;

	switch (p)
	{
		case ADV_ORIENT2D:
			return ref_orient2d(P(0), P(1), P(2));
		case ADV_ORIENT3D:
			return ref_orient3d(P(0), P(1), P(2), P(3));
		case ADV_POINT_POINT_3D:
			return ref_point_point_3d(P(0), P(1));
		case ADV_POINT_SEGMENT_3D:
			return ref_point_segment_3d(P(0), P(1), P(2));
		case ADV_POINT_TRIANGLE_3D:
			return ref_point_triangle_3d(P(0), P(1), P(2), P(3));
		case ADV_SEGMENT_SEGMENT_3D:
			return ref_segment_segment_3d(P(0), P(1), P(2), P(3));
		case ADV_SEGMENT_TRIANGLE_3D:
			return ref_segment_triangle_3d(P(0), P(1), P(2), P(3), P(4));
		case ADV_TRIANGLE_TRIANGLE_3D:
			return ref_triangle_triangle_3d(P(0), P(1), P(2), P(3), P(4), P(5));
		case ADV_POINT_SEGMENT_2D:
			return ref_point_segment_2d(P(0), P(1), P(2));
		case ADV_POINT_TRIANGLE_2D:
			return ref_point_triangle_2d(P(0), P(1), P(2), P(3));
		case ADV_SEGMENT_SEGMENT_2D:
			return ref_segment_segment_2d(P(0), P(1), P(2), P(3));
		case ADV_SEGMENT_TRIANGLE_2D:
			return ref_segment_triangle_2d(P(0), P(1), P(2), P(3), P(4));
		case ADV_TRIANGLE_TRIANGLE_2D:
			return ref_triangle_triangle_2d(P(0), P(1), P(2), P(3), P(4), P(5));
		default:
			abort();
	}
}

#undef P

/* The 3D predicate of the same shape as a 2D one, and back. */
static adv_pred
lifted(adv_pred p)
{
	switch (p)
	{
		case ADV_ORIENT2D:
			return ADV_ORIENT3D;
		case ADV_POINT_SEGMENT_2D:
			return ADV_POINT_SEGMENT_3D;
		case ADV_POINT_TRIANGLE_2D:
			return ADV_POINT_TRIANGLE_3D;
		case ADV_SEGMENT_SEGMENT_2D:
			return ADV_SEGMENT_SEGMENT_3D;
		case ADV_SEGMENT_TRIANGLE_2D:
			return ADV_SEGMENT_TRIANGLE_3D;
		case ADV_TRIANGLE_TRIANGLE_2D:
			return ADV_TRIANGLE_TRIANGLE_3D;
		default:
			return ADV_NPREDS;
	}
}

static adv_pred
flattened(adv_pred p)
{
	for (int q = 0; q < ADV_NPREDS; q++)
		if (lifted((adv_pred) q) == p && q != ADV_ORIENT2D)
			return (adv_pred) q;
	return ADV_NPREDS;
}

/* ------------------------------------------------------------------ */

static uint64_t
mix64(uint64_t z)
{
	z += 0x9e3779b97f4a7c15ULL;
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static void
record(cell *c, uint64_t index, check_kind kind, int engine, int expected,
	   adv_pred p, const double *x)
{
	const adv_pred_info *pi = &adv_preds[p];

#pragma omp critical(record_failure)
	{
		if (kind == CHK_REFERENCE)
			c->disagree++;
		else
			c->invariant++;
		if (c->nrec < MAXREC)
		{
			failure    *f = &c->rec[c->nrec++];

			f->index = index;
			f->kind = kind;
			f->engine = engine;
			f->expected = expected;
			f->npts = pi->na + pi->nb;
			f->dim = pi->dim;
			f->pred = p;
			memcpy(f->x, x, sizeof(double) * f->npts * f->dim);
		}
	}
}

/* Random permutation of each primitive's points (+ swap); returns the parity sign. */
static int
permute_case(adv_pred p, uint64_t h, const double *x, double *y)
{
	const adv_pred_info *pi = &adv_preds[p];
	int			dim = pi->dim,
				n = pi->na + pi->nb;
	int			order[6];
	int			sign = 1;
	int			first[2] = {0, pi->na},
				count[2] = {pi->na, pi->nb};

	for (int i = 0; i < n; i++)
		order[i] = i;
	for (int g = 0; g < 2; g++)
		for (int i = count[g] - 1; i > 0; i--)
		{
			int			j = (int) (h % (uint64_t) (i + 1));

			h = mix64(h);
			if (j != i)
			{
				int			t = order[first[g] + i];

				order[first[g] + i] = order[first[g] + j];
				order[first[g] + j] = t;
				sign = -sign;
			}
		}
	bool		swap = !pi->orient && pi->na == pi->nb && (h & 1);

	for (int i = 0; i < n; i++)
	{
		int			src = order[swap ? (i + pi->na) % n : i];

		memcpy(y + i * dim, x + src * dim, sizeof(double) * dim);
	}
	return sign;
}

/* Permute and negate axes; returns the determinant's sign. */
static int
transform_axes(adv_pred p, uint64_t h, const double *x, double *y)
{
	const adv_pred_info *pi = &adv_preds[p];
	int			dim = pi->dim,
				n = pi->na + pi->nb;
	int			perm[3] = {0, 1, 2};
	int			sign = 1;
	int			neg[3];

	for (int i = dim - 1; i > 0; i--)
	{
		int			j = (int) (h % (uint64_t) (i + 1));

		h = mix64(h);
		if (j != i)
		{
			int			t = perm[i];

			perm[i] = perm[j];
			perm[j] = t;
			sign = -sign;
		}
	}
	for (int k = 0; k < dim; k++)
	{
		neg[k] = (h >> k) & 1;
		if (neg[k])
			sign = -sign;
	}
	for (int i = 0; i < n; i++)
		for (int k = 0; k < dim; k++)
		{
			double		v = x[i * dim + perm[k]];

			y[i * dim + k] = neg[k] ? -v : v;
		}
	return sign;
}

/* y = x * 2^s exactly, or false. */
static bool
scale_case(int ncoords, int s, const double *x, double *y)
{
	for (int i = 0; i < ncoords; i++)
	{
		y[i] = ldexp(x[i], s);
		if (!isfinite(y[i]) || ldexp(y[i], -s) != x[i])
			return false;
	}
	return true;
}

/* y = x + t exactly (checked with TwoSum's error term), or false. */
static bool
shift_case(int dim, int ncoords, const double *t, const double *x, double *y)
{
	for (int i = 0; i < ncoords; i++)
	{
		double		a = x[i],
					b = t[i % dim];
		double		s = a + b;
		double		bb = s - a;
		double		err = (a - (s - bb)) + (b - bb);

		if (!isfinite(s) || err != 0)
			return false;
		y[i] = s;
	}
	return true;
}

/*
 * All engine-only invariants for one case whose engine answer is e.
 */
static void
check_invariants(adv_pred p, uint64_t index, uint64_t h, const double *x, int e, cell *c)
{
	const adv_pred_info *pi = &adv_preds[p];
	int			dim = pi->dim,
				n = pi->na + pi->nb,
				nc = n * dim;
	double		y[MAXC],
				z[MAXC];
	int			got,
				want,
				sgn;
	long		checks = 0;

	/* perm */
	sgn = permute_case(p, mix64(h ^ 1), x, y);
	got = eval_engine(p, y);
	want = pi->orient ? sgn * e : e;
	checks++;
	if (got != want)
		record(c, index, CHK_PERM, got, want, p, y);

	/* axes */
	sgn = transform_axes(p, mix64(h ^ 2), x, y);
	got = eval_engine(p, y);
	want = pi->orient ? sgn * e : e;
	checks++;
	if (got != want)
		record(c, index, CHK_AXES, got, want, p, y);

	/* scale */
	{
		int			s = (int) (mix64(h ^ 3) % 7) - 3;

		if (s == 0)
			s = 64;
		if (scale_case(nc, s, x, y))
		{
			got = eval_engine(p, y);
			checks++;
			if (got != e)
				record(c, index, CHK_SCALE, got, e, p, y);
		}
	}

	/* shift */
	{
		static const double shifts[] = {1, -1, 0.5, -0.25, 1024, -3, 0x1p-20, 500000};
		uint64_t	hs = mix64(h ^ 4);
		double		t[3];

		for (int k = 0; k < dim; k++)
		{
			t[k] = shifts[hs % 8];
			hs = mix64(hs);
		}
		if (shift_case(dim, nc, t, x, y))
		{
			got = eval_engine(p, y);
			checks++;
			if (got != e)
				record(c, index, CHK_SHIFT, got, e, p, y);
		}
	}

	/* lift: 2D case at z = 0 and at z = -500 */
	if (dim == 2)
	{
		adv_pred	q = lifted(p);
		static const double zs[2] = {0, -500};

		for (int zi = 0; zi < 2; zi++)
		{
			for (int i = 0; i < n; i++)
			{
				z[3 * i] = x[2 * i];
				z[3 * i + 1] = x[2 * i + 1];
				z[3 * i + 2] = zs[zi];
			}
			if (p == ADV_ORIENT2D)
			{
				/* d = a + (0, 0, 1) */
				z[9] = x[0];
				z[10] = x[1];
				z[11] = zs[zi] + 1;
			}
			got = eval_engine(q, z);
			checks++;
			if (got != e)
				record(c, index, CHK_LIFT, got, e, q, z);
		}
	}

	/* flat: 3D points sharing one coordinate against the 2D predicate */
	if (dim == 3 && (p == ADV_ORIENT3D || flattened(p) != ADV_NPREDS))
	{
		for (int k = 0; k < 3; k++)
		{
			int			m = p == ADV_ORIENT3D ? 3 : n;	/* orient3d: a, b, c */
			bool		same = true;

			for (int i = 1; i < m; i++)
				if (x[3 * i + k] != x[k])
					same = false;
			if (!same)
				continue;
			int			k1 = (k + 1) % 3,
						k2 = (k + 2) % 3;	/* cyclic: keeps orientation */

			for (int i = 0; i < n; i++)
			{
				z[2 * i] = x[3 * i + k1];
				z[2 * i + 1] = x[3 * i + k2];
			}
			if (p == ADV_ORIENT3D)
			{
				/* ((b-a) x (c-a)) . (d-a) = orient2d(a,b,c) * (d_k - a_k) */
				int			o2 = exg_orient2d(&z[0], &z[2], &z[4]);
				int			dk = x[9 + k] > x[k] ? 1 : x[9 + k] < x[k] ? -1 : 0;

				checks++;
				if (o2 * dk != e)
					record(c, index, CHK_FLAT, e, o2 * dk, p, x);
			}
			else
			{
				got = eval_engine(flattened(p), z);
				checks++;
				if (got != e)
					record(c, index, CHK_FLAT, got, e, flattened(p), z);
			}
			break;
		}
	}
#pragma omp atomic
	c->invariant_checks += checks;
}

/* ------------------------------------------------------------------ */

typedef struct options
{
	long		total;
	int			threads;
	uint64_t	seed;
	int			family;			/* -1: all */
	int			pred;			/* -1: all */
	int			show;
	bool		no_invariants;
} options;

static void
usage(const char *argv0)
{
	fprintf(stderr,
			"usage: %s [--cases N] [--quick] [--threads T] [--seed S]\n"
			"          [--family NAME] [--pred NAME] [--show K] [--no-invariants]\n",
			argv0);
	exit(2);
}

static void
parse_options(int argc, char **argv, options *o)
{
	o->total = 1000000;
	o->threads = 0;
	o->seed = ADV_DEFAULT_SEED;
	o->family = -1;
	o->pred = -1;
	o->show = MAXREC;
	o->no_invariants = false;
	for (int i = 1; i < argc; i++)
	{
		const char *a = argv[i];

		if (strcmp(a, "--quick") == 0)
			o->total = 50000;
		else if (strcmp(a, "--no-invariants") == 0)
			o->no_invariants = true;
		else if (i + 1 < argc && strcmp(a, "--cases") == 0)
			o->total = atol(argv[++i]);
		else if (i + 1 < argc && strcmp(a, "--threads") == 0)
			o->threads = atoi(argv[++i]);
		else if (i + 1 < argc && strcmp(a, "--seed") == 0)
			o->seed = strtoull(argv[++i], NULL, 0);
		else if (i + 1 < argc && strcmp(a, "--show") == 0)
			o->show = atoi(argv[++i]);
		else if (i + 1 < argc && strcmp(a, "--family") == 0)
		{
			const char *name = argv[++i];

			for (int f = 0; f < ADV_NFAMILIES; f++)
				if (strcmp(name, adv_family_name((adv_family) f)) == 0)
					o->family = f;
			if (o->family < 0)
				usage(argv[0]);
		}
		else if (i + 1 < argc && strcmp(a, "--pred") == 0)
		{
			const char *name = argv[++i];

			for (int p = 0; p < ADV_NPREDS; p++)
				if (strcmp(name, adv_preds[p].name) == 0)
					o->pred = p;
			if (o->pred < 0)
				usage(argv[0]);
		}
		else
			usage(argv[0]);
	}
	if (o->total < 1)
		o->total = 1;
}


static void
print_case(const double *x, int npts, int dim)
{
	for (int i = 0; i < npts; i++)
	{
		printf("      {");
		for (int k = 0; k < dim; k++)
			printf("%s%a", k ? ", " : "", x[i * dim + k]);
		printf("}%s\n", i + 1 < npts ? "," : "");
	}
}

static const char *
answer_name(bool orient, int v)
{
	if (orient)
		return v > 0 ? "+1" : v < 0 ? "-1" : "0";
	return v ? "true" : "false";
}

int
main(int argc, char **argv)
{
	options		opt;
	static cell cells[ADV_NFAMILIES][ADV_NPREDS];
	long		count[ADV_NFAMILIES][ADV_NPREDS];
	int			ncells = 0;
	long		kettner_orient = 0;
	double		t0 = now_seconds();

	parse_options(argc, argv, &opt);
#ifdef _OPENMP
	if (opt.threads > 0)
		omp_set_num_threads(opt.threads);
#endif

	/*
	 * Budget: Kettner's orientation grids are run whole (they are cheap and
	 * the point of the family) once the run is 10^6 cases or more; the rest
	 * is shared equally by the other applicable cells.
	 */
	for (int f = 0; f < ADV_NFAMILIES; f++)
		for (int p = 0; p < ADV_NPREDS; p++)
		{
			count[f][p] = 0;
			if ((opt.family >= 0 && f != opt.family) || (opt.pred >= 0 && p != opt.pred))
				continue;
			uint64_t	size = adv_family_size((adv_family) f, (adv_pred) p);

			if (size == 0)
				continue;
			if (f == ADV_KETTNER_GRID && adv_preds[p].orient && opt.total >= 1000000)
			{
				count[f][p] = (long) size;
				kettner_orient += (long) size;
			}
			else
				ncells++;
		}
	long		per_cell = ncells ? (opt.total - kettner_orient + ncells - 1) / ncells : 0;

	if (per_cell < 1)
		per_cell = 1;
	for (int f = 0; f < ADV_NFAMILIES; f++)
		for (int p = 0; p < ADV_NPREDS; p++)
		{
			if ((opt.family >= 0 && f != opt.family) || (opt.pred >= 0 && p != opt.pred))
				continue;
			uint64_t	size = adv_family_size((adv_family) f, (adv_pred) p);

			if (size == 0 || count[f][p] > 0)
				continue;
			count[f][p] = per_cell;
			if (size != ADV_UNBOUNDED && (uint64_t) per_cell > size)
				count[f][p] = (long) size;
		}

	double		ref_seconds = 0,
				eng_seconds = 0;

	for (int f = 0; f < ADV_NFAMILIES; f++)
		for (int p = 0; p < ADV_NPREDS; p++)
		{
			long		ncase = count[f][p];
			cell	   *c = &cells[f][p];
			uint64_t	size = adv_family_size((adv_family) f, (adv_pred) p);
			const adv_pred_info *pi = &adv_preds[p];
			double		tc = now_seconds();
			long		o0 = 0,
						o1 = 0,
						o2 = 0;
			double		rs = 0,
						es = 0;

			if (ncase == 0)
				continue;
#pragma omp parallel for schedule(dynamic, 64) reduction(+:o0,o1,o2,rs,es)
			for (long t = 0; t < ncase; t++)
			{
				/* finite families: spread the sample over the whole grid */
				uint64_t	index = size == ADV_UNBOUNDED ? (uint64_t) t
					: (uint64_t) ((unsigned __int128) t * size / (uint64_t) ncase);
				double		x[MAXC];
				double		ta,
							tb,
							tcc;

				adv_generate((adv_family) f, (adv_pred) p, opt.seed, index, x);
				ta = now_seconds();
				int			e = eval_engine((adv_pred) p, x);

				tb = now_seconds();
				int			r = eval_reference((adv_pred) p, x);

				tcc = now_seconds();
				es += tb - ta;
				rs += tcc - tb;
				if (pi->orient)
				{
					if (r < 0)
						o0++;
					else if (r == 0)
						o1++;
					else
						o2++;
				}
				else if (r)
					o1++;
				else
					o0++;
				if (e != r)
					record(c, index, CHK_REFERENCE, e, r, (adv_pred) p, x);
				if (!opt.no_invariants)
					check_invariants((adv_pred) p, index,
									 mix64(opt.seed ^ mix64(index ^ ((uint64_t) f << 40) ^ ((uint64_t) p << 48))),
									 x, e, c);
			}
			c->cases = ncase;
			c->outcome[0] = o0;
			c->outcome[1] = o1;
			c->outcome[2] = o2;
			c->seconds = now_seconds() - tc;
			ref_seconds += rs;
			eng_seconds += es;
		}

	/* ---- report ---- */
	long		total_cases = 0,
				total_dis = 0,
				total_inv = 0,
				total_inv_checks = 0;

	printf("%-18s %-21s %8s %8s %8s %8s %6s %6s %7s\n", "family", "predicate", "cases",
		   "F / -", "T / 0", "- / +", "disagr", "invar", "sec");
	for (int f = 0; f < ADV_NFAMILIES; f++)
		for (int p = 0; p < ADV_NPREDS; p++)
		{
			cell	   *c = &cells[f][p];

			if (c->cases == 0)
				continue;
			char		third[16];

			if (adv_preds[p].orient)
				snprintf(third, sizeof third, "%ld", c->outcome[2]);
			else
				snprintf(third, sizeof third, "-");
			printf("%-18s %-21s %8ld %8ld %8ld %8s %6ld %6ld %7.2f%s\n",
				   adv_family_name((adv_family) f), adv_preds[p].name, c->cases,
				   c->outcome[0], c->outcome[1], third, c->disagree, c->invariant,
				   c->seconds, (c->disagree || c->invariant) ? "  <-- FAIL" : "");
			total_cases += c->cases;
			total_dis += c->disagree;
			total_inv += c->invariant;
			total_inv_checks += c->invariant_checks;
		}
	printf("\nper predicate:\n");
	for (int p = 0; p < ADV_NPREDS; p++)
	{
		long		cs = 0,
					o[3] = {0, 0, 0},
					d = 0,
					iv = 0;

		for (int f = 0; f < ADV_NFAMILIES; f++)
		{
			cs += cells[f][p].cases;
			for (int k = 0; k < 3; k++)
				o[k] += cells[f][p].outcome[k];
			d += cells[f][p].disagree;
			iv += cells[f][p].invariant;
		}
		if (cs == 0)
			continue;
		if (adv_preds[p].orient)
			printf("  %-21s %8ld cases   -:%ld 0:%ld +:%ld   disagreements %ld, invariant failures %ld\n",
				   adv_preds[p].name, cs, o[0], o[1], o[2], d, iv);
		else
			printf("  %-21s %8ld cases   false:%ld true:%ld   disagreements %ld, invariant failures %ld\n",
				   adv_preds[p].name, cs, o[0], o[1], d, iv);
	}

	/* failures, reproducible */
	if (total_dis || total_inv)
	{
		printf("\nfailures (first %d per cell; engine answer vs expected):\n", opt.show);
		for (int f = 0; f < ADV_NFAMILIES; f++)
			for (int p = 0; p < ADV_NPREDS; p++)
			{
				cell	   *c = &cells[f][p];

				for (int i = 0; i < c->nrec && i < opt.show; i++)
				{
					failure    *fl = &c->rec[i];
					bool		orient = adv_preds[fl->pred].orient;

					if (fl->kind == CHK_REFERENCE)
						printf("  [reference] family %s, case %llu: exg_%s = %s, reference %s\n",
							   adv_family_name((adv_family) f), (unsigned long long) fl->index,
							   adv_preds[fl->pred].name, answer_name(orient, fl->engine),
							   answer_name(orient, fl->expected));
					else
					{
						/* expected: what the engine said of the original case */
						double		x0[MAXC];

						adv_generate((adv_family) f, (adv_pred) p, opt.seed, fl->index, x0);
						printf("  [%s] family %s, case %llu: exg_%s = %s on the transformed case,"
							   " expected %s from exg_%s on the original\n",
							   check_names[fl->kind], adv_family_name((adv_family) f),
							   (unsigned long long) fl->index, adv_preds[fl->pred].name,
							   answer_name(orient, fl->engine), answer_name(orient, fl->expected),
							   adv_preds[p].name);
						printf("    original:\n");
						print_case(x0, adv_npoints((adv_pred) p), adv_preds[p].dim);
						printf("    transformed:\n");
					}
					print_case(fl->x, fl->npts, fl->dim);
				}
			}
	}

	double		wall = now_seconds() - t0;

	printf("\n%ld cases, %ld disagreements with the reference; %ld invariant checks, %ld failures\n",
		   total_cases, total_dis, total_inv_checks, total_inv);
	printf("time: %.1f s wall; reference %.1f s, engine %.2f s (CPU, summed over threads)\n",
		   wall, ref_seconds, eng_seconds);
	ref_exact_release_thread();
	return (total_dis || total_inv) ? 1 : 0;
}
