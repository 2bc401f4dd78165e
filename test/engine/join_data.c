/*
 * join_data.c — generators of deterministic primitive sets.
 */
#include "join_data.h"

#include <stdlib.h>
#include <string.h>

#include "harness.h"


static void
alloc(join_data *d, int arity, uint32_t nprims, uint32_t nverts)
{
	memset(d, 0, sizeof(*d));
	d->xyz = malloc(sizeof(double) * 3 * (nverts ? nverts : 1));
	d->vidx = malloc(sizeof(uint32_t) * arity * (nprims ? nprims : 1));
	d->set.xyz = d->xyz;
	d->set.vidx = d->vidx;
	d->set.nverts = nverts;
	d->set.nprims = nprims;
	d->set.arity = arity;
}

void
join_data_random(join_data *d, int arity, uint32_t n, const double origin[3],
				 double extent, double feature, uint64_t seed)
{
	test_rng	s = {seed};
	uint32_t	i;
	int			v,
				k;

	alloc(d, arity, n, n * arity);
	for (i = 0; i < n; i++)
	{
		double		c[3];

		for (k = 0; k < 3; k++)
			c[k] = origin[k] + rng_uniform(&s) * extent;
		for (v = 0; v < arity; v++)
		{
			for (k = 0; k < 3; k++)
				d->xyz[3 * (i * arity + v) + k] = c[k] + (rng_uniform(&s) - 0.5) * feature;
			d->vidx[i * arity + v] = i * arity + v;
		}
	}
}

void
join_data_terrain(join_data *d, uint32_t nx, uint32_t ny, double h, const double origin[3],
				  int zmode, uint64_t seed)
{
	test_rng	s = {seed};
	uint32_t	i,
				j,
				t = 0;

	alloc(d, 3, 2 * (nx - 1) * (ny - 1), nx * ny);
	for (j = 0; j < ny; j++)
		for (i = 0; i < nx; i++)
		{
			double	   *p = &d->xyz[3 * (j * nx + i)];

			p[0] = origin[0] + i * h;
			p[1] = origin[1] + j * h;
			/* zmode 0: flat; 1: small integer heights (exact coplanar pieces) */
			p[2] = origin[2] + (zmode == 0 ? 0 : (double) (rng_next(&s) % 3) * h);
		}
	for (j = 0; j + 1 < ny; j++)
		for (i = 0; i + 1 < nx; i++)
		{
			uint32_t	v00 = j * nx + i,
						v10 = v00 + 1,
						v01 = v00 + nx,
						v11 = v01 + 1;

			d->vidx[3 * t] = v00;
			d->vidx[3 * t + 1] = v10;
			d->vidx[3 * t + 2] = v11;
			t++;
			d->vidx[3 * t] = v00;
			d->vidx[3 * t + 1] = v11;
			d->vidx[3 * t + 2] = v01;
			t++;
		}
}

void
join_data_drills(join_data *d, uint32_t n, uint32_t nx, uint32_t ny, double h,
				 const double origin[3], uint64_t seed)
{
	test_rng	s = {seed};
	uint32_t	i;

	alloc(d, 2, n, 2 * n);
	for (i = 0; i < n; i++)
	{
		/* lattice point, edge midpoint or cell centre: half-integers of h */
		double		x = origin[0] + (double) (rng_next(&s) % (2 * (nx - 1) + 1)) * h / 2;
		double		y = origin[1] + (double) (rng_next(&s) % (2 * (ny - 1) + 1)) * h / 2;
		/* ends above the terrain, at a lattice height, or below */
		double		top = origin[2] + (double) (rng_next(&s) % 5) * h;
		double		bottom = origin[2] - (double) (rng_next(&s) % 3) * h;

		d->xyz[6 * i] = x;
		d->xyz[6 * i + 1] = y;
		d->xyz[6 * i + 2] = top;
		d->xyz[6 * i + 3] = x;
		d->xyz[6 * i + 4] = y;
		d->xyz[6 * i + 5] = bottom;
		d->vidx[2 * i] = 2 * i;
		d->vidx[2 * i + 1] = 2 * i + 1;
	}
}

void
join_data_free(join_data *d)
{
	free(d->xyz);
	free(d->vidx);
	memset(d, 0, sizeof(*d));
}
