/*
 * mesh_io.c — reading tetgen output and the binary mesh form.
 */
#include "mesh_io.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char MAGIC[8] = {'E', 'X', 'G', 'M', 'E', 'S', 'H', '1'};

int
mesh_read_tetgen(const char *prefix, bench_mesh *m)
{
	char		path[4096];
	FILE	   *f;
	long		n,
				dim,
				nattr,
				marker,
				i,
				id,
				base = -1;

	memset(m, 0, sizeof(*m));
	snprintf(path, sizeof(path), "%s.node", prefix);
	if ((f = fopen(path, "r")) == NULL || fscanf(f, "%ld %ld %ld %ld", &n, &dim, &nattr, &marker) != 4 ||
		dim != 3)
	{
		fprintf(stderr, "cannot read %s\n", path);
		return -1;
	}
	m->nverts = (uint32_t) n;
	m->xyz = malloc(sizeof(double) * 3 * n);
	for (i = 0; i < n; i++)
	{
		double		skip;

		if (fscanf(f, "%ld %lf %lf %lf", &id, &m->xyz[3 * i], &m->xyz[3 * i + 1], &m->xyz[3 * i + 2]) != 4)
			return fclose(f), -1;
		if (i == 0)
			base = id;			/* tetgen numbers from 0 or 1, like its input */
		for (long a = 0; a < nattr + marker; a++)
			if (fscanf(f, "%lf", &skip) != 1)
				return fclose(f), -1;
	}
	fclose(f);

	snprintf(path, sizeof(path), "%s.face", prefix);
	if ((f = fopen(path, "r")) == NULL || fscanf(f, "%ld %ld", &n, &marker) != 2)
	{
		fprintf(stderr, "cannot read %s\n", path);
		return -1;
	}
	m->ntris = (uint32_t) n;
	m->tri = malloc(sizeof(uint32_t) * 3 * n);
	for (i = 0; i < n; i++)
	{
		long		v[3],
					skip;

		if (fscanf(f, "%ld %ld %ld %ld", &id, &v[0], &v[1], &v[2]) != 4)
			return fclose(f), -1;
		for (int k = 0; k < 3; k++)
			m->tri[3 * i + k] = (uint32_t) (v[k] - base);
		for (long a = 0; a < marker; a++)
			if (fscanf(f, "%ld", &skip) != 1)
				return fclose(f), -1;
	}
	fclose(f);
	return 0;
}

int
mesh_write_bin(const char *path, const bench_mesh *m)
{
	FILE	   *f = fopen(path, "wb");
	int			ok;

	if (f == NULL)
		return -1;
	ok = fwrite(MAGIC, 1, 8, f) == 8 &&
		fwrite(&m->nverts, 4, 1, f) == 1 && fwrite(&m->ntris, 4, 1, f) == 1 &&
		fwrite(m->xyz, sizeof(double), 3 * (size_t) m->nverts, f) == 3 * (size_t) m->nverts &&
		fwrite(m->tri, sizeof(uint32_t), 3 * (size_t) m->ntris, f) == 3 * (size_t) m->ntris;
	return (fclose(f) == 0 && ok) ? 0 : -1;
}

int
mesh_read_bin(const char *path, bench_mesh *m)
{
	FILE	   *f = fopen(path, "rb");
	char		magic[8];
	int			ok;

	memset(m, 0, sizeof(*m));
	if (f == NULL)
		return -1;
	ok = fread(magic, 1, 8, f) == 8 && memcmp(magic, MAGIC, 8) == 0 &&
		fread(&m->nverts, 4, 1, f) == 1 && fread(&m->ntris, 4, 1, f) == 1;
	if (ok)
	{
		m->xyz = malloc(sizeof(double) * 3 * (size_t) m->nverts);
		m->tri = malloc(sizeof(uint32_t) * 3 * (size_t) m->ntris);
		ok = fread(m->xyz, sizeof(double), 3 * (size_t) m->nverts, f) == 3 * (size_t) m->nverts &&
			fread(m->tri, sizeof(uint32_t), 3 * (size_t) m->ntris, f) == 3 * (size_t) m->ntris;
	}
	fclose(f);
	return ok ? 0 : -1;
}

int
join_input_write(const char *path, const double *const xyz[2], const uint32_t nverts[2],
				 const uint32_t *const idx[2], const uint32_t nprims[2], const int arity[2])
{
	FILE	   *f = fopen(path, "wb");
	int			ok;

	if (f == NULL)
		return -1;
	ok = fwrite("EXGJOIN1", 1, 8, f) == 8;
	for (int s = 0; ok && s < 2; s++)
	{
		uint32_t	head[3] = {(uint32_t) arity[s], nverts[s], nprims[s]};
		size_t		ni = (size_t) arity[s] * nprims[s];

		ok = fwrite(head, 4, 3, f) == 3 &&
			fwrite(xyz[s], sizeof(double), 3 * (size_t) nverts[s], f) == 3 * (size_t) nverts[s] &&
			fwrite(idx[s], sizeof(uint32_t), ni, f) == ni;
	}
	return (fclose(f) == 0 && ok) ? 0 : -1;
}

void
mesh_free(bench_mesh *m)
{
	free(m->xyz);
	free(m->tri);
	memset(m, 0, sizeof(*m));
}
