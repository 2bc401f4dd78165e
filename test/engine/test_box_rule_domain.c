/*
 * test_box_rule_domain.c — the box join's reference-point rule on a grid
 * chosen from one side alone (what a GPU join against kept bodies uses,
 * exg_box_kept_grid): its domain is that side's bounds, larger than the
 * intersection of both sides' bounds the rule was written for. Every pair
 * of boxes that meet must be reported in exactly one cell, for grids of
 * many sizes, on data made to sit on cell walls: integer boxes, coincident
 * faces, zero-width boxes, boxes partly or wholly outside the kept side's
 * bounds, one box over everything, and flat (2-axis) joins. The cells and
 * the rule are the engine's own (box_join_internal.h, the functions the
 * GPU kernels run); each pair is looked at in every cell both boxes are
 * entered in, as the per-cell work items do.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "box_join_internal.h"
#include "harness.h"

static test_rng rng = {0x9e3779b97f4a7c15ull};

/* n boxes of naxes axes over [lo, hi) per axis, integer corners (cell walls often) */
static double *
make_boxes(uint32_t n, int naxes, double lo, double hi, double max_size)
{
	double	   *b = malloc(sizeof(double) * 2 * naxes * n);

	for (uint32_t i = 0; i < n; i++)
		for (int k = 0; k < naxes; k++)
		{
			double		a = lo + (double) rng_below(&rng, (uint64_t) (hi - lo)),
						w = (double) rng_below(&rng, (uint64_t) max_size + 1);

			/* one in eight zero-width on this axis, one in sixteen a half step off the grid */
			if (rng_below(&rng, 8) == 0)
				w = 0;
			if (rng_below(&rng, 16) == 0)
				a += 0.5;
			b[2 * naxes * i + k] = a;
			b[2 * naxes * i + naxes + k] = a + w;
		}
	return b;
}

/* Times the rule reports (a, b): once per cell where both are entered and it holds. */
static int
reports(const exg_box_grid *bg, const double *a, const double *b)
{
	int32_t		alo[3],
				ahi[3],
				blo[3],
				bhi[3],
				cc[3];
	int			n = 0;

	if (!exg_box_cells(bg, a, alo, ahi) || !exg_box_cells(bg, b, blo, bhi))
		return 0;
	for (cc[2] = alo[2] > blo[2] ? alo[2] : blo[2]; cc[2] <= (ahi[2] < bhi[2] ? ahi[2] : bhi[2]); cc[2]++)
		for (cc[1] = alo[1] > blo[1] ? alo[1] : blo[1]; cc[1] <= (ahi[1] < bhi[1] ? ahi[1] : bhi[1]); cc[1]++)
			for (cc[0] = alo[0] > blo[0] ? alo[0] : blo[0]; cc[0] <= (ahi[0] < bhi[0] ? ahi[0] : bhi[0]); cc[0]++)
				n += exg_box_rule(exg_box_lo_mask(bg, a, cc), exg_box_lo_mask(bg, b, cc), bg->naxes);
	return n;
}

/*
 * A (nA boxes) against the kept side K (nK), on K's own grid of about
 * cells cells (0: the automatic size): every meeting pair exactly once.
 */
static void
check(const char *what, const double *A, uint32_t na, const double *K, uint32_t nk, int naxes,
	  uint32_t cells)
{
	exg_box_set sa = {A, na},
				sk = {K, nk};
	exg_box_summary suma,
				sumk;
	exg_box_grid bg;
	uint64_t	meeting = 0,
				wrong = 0;

	exg_box_summarize(&sa, naxes, 1, &suma);
	exg_box_summarize(&sk, naxes, 1, &sumk);
	if (!exg_box_grid_choose(&bg, naxes, &sumk, nk, &sumk, nk, EXG_BOX_OCCUPANCY_GPU, cells))
	{
		FAIL("%s: no grid for the kept side alone", what);
		return;
	}
	for (uint32_t i = 0; i < na; i++)
		for (uint32_t j = 0; j < nk; j++)
		{
			const double *a = &A[2 * naxes * (size_t) i],
					   *k = &K[2 * naxes * (size_t) j];

			if (!exg_box_meets(a, k, naxes))
				continue;
			meeting++;
			if (reports(&bg, a, k) != 1)
			{
				if (wrong++ < 3)
					FAIL("%s (grid %d x %d x %d): boxes %u and %u meet, reported %d times", what,
						 bg.g.dims[0], bg.g.dims[1], bg.g.dims[2], i, j, reports(&bg, a, k));
			}
		}
	CHECK(meeting > 0, "%s: some pairs meet", what);
	if (wrong == 0)
		printf("ok   %-40s grid %4d x %4d x %3d: %llu meeting pairs, each reported once\n", what,
			   bg.g.dims[0], bg.g.dims[1], bg.g.dims[2], (unsigned long long) meeting);
}

int
main(void)
{
	static const uint32_t cells[] = {0, 1, 8, 64, 512, 4096, 1u << 15};

	for (int naxes = 2; naxes <= 3; naxes++)
	{
		/* kept boxes over [0, 40); the others over [-20, 60): partly and wholly outside */
		double	   *K = make_boxes(700, naxes, 0, 40, 4);
		double	   *A = make_boxes(400, naxes, -20, 60, 8);
		char		what[64];

		/* one box over everything, one a point on the kept bounds' corner */
		for (int k = 0; k < naxes; k++)
		{
			A[k] = -100;
			A[naxes + k] = 100;
			A[2 * naxes + k] = A[3 * naxes + k] = 0;
		}
		for (size_t c = 0; c < sizeof(cells) / sizeof(cells[0]); c++)
		{
			snprintf(what, sizeof(what), "%d axes, %u cells asked", naxes, cells[c]);
			check(what, A, 400, K, 700, naxes, cells[c]);
		}
		/* the other way round: the wider side kept, its domain far beyond the other's */
		snprintf(what, sizeof(what), "%d axes, the wider side kept", naxes);
		check(what, K, 700, A, 400, naxes, 0);
		free(K);
		free(A);
	}
	{
		/* a flat kept layer (z = 0 everywhere) and boxes crossing it or stopping short */
		double	   *K = make_boxes(600, 3, 0, 30, 3);
		double	   *A = make_boxes(300, 3, -10, 40, 5);

		for (uint32_t j = 0; j < 600; j++)
			K[6 * j + 2] = K[6 * j + 5] = 0;
		for (uint32_t i = 0; i < 300; i++)
		{
			A[6 * i + 2] = -3 + (double) rng_below(&rng, 4);
			A[6 * i + 5] = A[6 * i + 2] + (double) rng_below(&rng, 6);
		}
		check("a flat kept layer, boxes across it", A, 300, K, 600, 3, 0);
		check("a flat kept layer, 4096 cells", A, 300, K, 600, 3, 4096);
		free(K);
		free(A);
	}
	return test_summary("test_box_rule_domain");
}
