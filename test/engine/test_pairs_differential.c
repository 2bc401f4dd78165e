/*
 * test_pairs_differential.c — the join's cascade (GPU: float intervals ->
 * double intervals -> GMP; CPU: double intervals -> GMP) against the
 * independent GMP-only reference, on the adversarial families of every 3D
 * intersection predicate. Cases are batched: case i is the pair (A_i, B_i).
 *
 *   test_pairs_differential [--gpu] [--cases N]
 * --gpu requires the GPU (the device run); without it the CPU path runs.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "adversarial.h"
#include "gpu.h"
#include "join.h"
#include "ref_exact.h"

static bool
reference(adv_pred p, const double *x)
{
	const double *P = x;

	switch (p)
	{
		case ADV_POINT_POINT_3D:
			return ref_point_point_3d(P, P + 3);
		case ADV_POINT_SEGMENT_3D:
			return ref_point_segment_3d(P, P + 3, P + 6);
		case ADV_POINT_TRIANGLE_3D:
			return ref_point_triangle_3d(P, P + 3, P + 6, P + 9);
		case ADV_SEGMENT_SEGMENT_3D:
			return ref_segment_segment_3d(P, P + 3, P + 6, P + 9);
		case ADV_SEGMENT_TRIANGLE_3D:
			return ref_segment_triangle_3d(P, P + 3, P + 6, P + 9, P + 12);
		default:
			return ref_triangle_triangle_3d(P, P + 3, P + 6, P + 9, P + 12, P + 15);
	}
}

int
main(int argc, char **argv)
{
	const adv_pred preds[] = {ADV_POINT_POINT_3D, ADV_POINT_SEGMENT_3D, ADV_POINT_TRIANGLE_3D,
	ADV_SEGMENT_SEGMENT_3D, ADV_SEGMENT_TRIANGLE_3D, ADV_TRIANGLE_TRIANGLE_3D};
	uint64_t	per_cell = 2000;
	bool		want_gpu = false;
	uint64_t	total = 0,
				disagree = 0,
				unknown1 = 0,
				unknown2 = 0,
				exact = 0;
	int			i;

	for (i = 1; i < argc; i++)
	{
		if (strcmp(argv[i], "--gpu") == 0)
			want_gpu = true;
		else if (strcmp(argv[i], "--cases") == 0 && i + 1 < argc)
			per_cell = strtoull(argv[++i], NULL, 10);
	}

	for (size_t pi = 0; pi < sizeof(preds) / sizeof(preds[0]); pi++)
		for (int f = 0; f < ADV_NFAMILIES; f++)
		{
			adv_pred	p = preds[pi];
			const adv_pred_info *info = &adv_preds[p];
			uint64_t	size = adv_family_size((adv_family) f, p);
			uint64_t	n = size < per_cell ? size : per_cell;
			double	   *pts = malloc(sizeof(double) * 3 * adv_npoints(p) * (n ? n : 1));
			double	   *xa = malloc(sizeof(double) * 3 * info->na * (n ? n : 1));
			double	   *xb = malloc(sizeof(double) * 3 * info->nb * (n ? n : 1));
			uint32_t   *ia = malloc(sizeof(uint32_t) * info->na * (n ? n : 1));
			uint32_t   *ib = malloc(sizeof(uint32_t) * info->nb * (n ? n : 1));
			exg_pair   *pairs = malloc(sizeof(exg_pair) * (n ? n : 1));
			uint8_t    *got = malloc(n ? n : 1);
			exg_prim_set A,
						B;
			exg_join_options opt;
			exg_join_stats st;
			exg_error	err = {0};
			uint64_t	k,
						bad = 0;

			if (n == 0)
				goto next;
			n = adv_generate_batch((adv_family) f, p, ADV_DEFAULT_SEED, 0, n, pts);
			for (k = 0; k < n; k++)
			{
				const double *c = &pts[3 * adv_npoints(p) * k];

				memcpy(&xa[3 * info->na * k], c, sizeof(double) * 3 * info->na);
				memcpy(&xb[3 * info->nb * k], c + 3 * info->na, sizeof(double) * 3 * info->nb);
				for (int v = 0; v < info->na; v++)
					ia[info->na * k + v] = (uint32_t) (info->na * k + v);
				for (int v = 0; v < info->nb; v++)
					ib[info->nb * k + v] = (uint32_t) (info->nb * k + v);
				pairs[k].a = pairs[k].b = (uint32_t) k;
			}
			A = (exg_prim_set) {xa, (uint32_t) (info->na * n), ia, (uint32_t) n, info->na, 0, NULL, NULL};
			B = (exg_prim_set) {xb, (uint32_t) (info->nb * n), ib, (uint32_t) n, info->nb, 0, NULL, NULL};
			exg_join_options_default(&opt);
			opt.device = want_gpu ? EXG_DEVICE_GPU : EXG_DEVICE_CPU;
			if (exg_test_pairs(&A, &B, pairs, n, &opt, got, &st, &err) != EXG_OK)
			{
				fprintf(stderr, "FAIL %s/%s: %s\n", info->name,
						adv_family_name((adv_family) f), err.message);
				return 1;
			}
			for (k = 0; k < n; k++)
				if ((bool) got[k] != reference(p, &pts[3 * adv_npoints(p) * k]))
				{
					if (bad++ < 5)
					{
						fprintf(stderr, "DISAGREE %s/%s case %llu: engine %d:", info->name,
								adv_family_name((adv_family) f), (unsigned long long) k, got[k]);
						for (int v = 0; v < 3 * adv_npoints(p); v++)
							fprintf(stderr, " %a", pts[3 * adv_npoints(p) * k + v]);
						fprintf(stderr, "\n");
					}
				}
			printf("  %-22s %-18s %6llu cases  unknown float %6llu  double %5llu  exact %5llu  disagreements %llu\n",
				   info->name, adv_family_name((adv_family) f), (unsigned long long) n,
				   (unsigned long long) st.unknown_first, (unsigned long long) st.unknown_second,
				   (unsigned long long) st.exact_pairs, (unsigned long long) bad);
			total += n;
			disagree += bad;
			unknown1 += st.unknown_first;
			unknown2 += st.unknown_second;
			exact += st.exact_pairs;
	next:
			free(pts);
			free(xa);
			free(xb);
			free(ia);
			free(ib);
			free(pairs);
			free(got);
		}
	printf("%s path: %llu cases, %llu disagreements with the reference; undecided by float %llu, by double %llu, GMP %llu\n",
		   want_gpu ? "GPU" : "CPU", (unsigned long long) total, (unsigned long long) disagree,
		   (unsigned long long) unknown1, (unsigned long long) unknown2,
		   (unsigned long long) exact);
	return disagree ? 1 : 0;
}
