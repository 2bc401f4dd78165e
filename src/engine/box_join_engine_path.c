/*
 * box_join_engine_path.c — exg_box_join through the primitive join's
 * boxes_only mode: each box becomes a segment from its low to its high
 * corner, and the grid, culling and exact double comparisons of exg_join
 * (GPU or CPU) decide the pairs, handed to the sink in one chunk. To be
 * replaced by the dedicated tiled box join.
 */
#include <stdlib.h>
#include <string.h>
#include "box_join.h"

exg_status
exg_box_join(const exg_box_set *A, const exg_box_set *B, int naxes,
			 const exg_join_options *opt, exg_box_pair_sink sink, void *sink_arg,
			 exg_join_stats *stats, exg_error *err)
{
	const exg_box_set *S[2] = {A, B};
	double	   *xyz[2];
	uint32_t   *idx[2];
	exg_prim_set P[2];
	exg_join_options o = *opt;
	exg_pair   *pairs = NULL;
	size_t		n = 0;
	exg_status	st;

	for (int k = 0; k < 2; k++)
	{
		xyz[k] = calloc(6 * (size_t) S[k]->n + 1, sizeof(double));
		idx[k] = malloc((2 * (size_t) S[k]->n + 1) * sizeof(uint32_t));
		for (uint32_t i = 0; i < S[k]->n; i++)
		{
			for (int d = 0; d < naxes; d++)
			{
				xyz[k][6 * i + d] = S[k]->box[2 * naxes * i + d];
				xyz[k][6 * i + 3 + d] = S[k]->box[2 * naxes * i + naxes + d];
			}
			idx[k][2 * i] = 2 * i;
			idx[k][2 * i + 1] = 2 * i + 1;
		}
		P[k] = (exg_prim_set) {xyz[k], 2 * S[k]->n, idx[k], S[k]->n, 2};
	}
	o.boxes_only = true;
	st = exg_join(&P[0], &P[1], &o, &pairs, &n, stats, err);
	if (st == EXG_OK)
		st = sink(sink_arg, pairs, n);
	exg_join_pairs_free(pairs);
	for (int k = 0; k < 2; k++)
		free(xyz[k]), free(idx[k]);
	return st;
}
