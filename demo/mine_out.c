/*
 * mine_out.c — the files minegen writes (mine_out.h).
 */
#include "mine_out.h"

#include <errno.h>
#include <limits.h>
#include <string.h>

bool
out_open(out_file *o, const char *dir, const char *name, char *pathbuf, size_t len)
{
	snprintf(pathbuf, len, "%s/%s", dir, name);
	o->path = pathbuf;
	o->f = fopen(pathbuf, "w");
	if (o->f == NULL)
	{
		fprintf(stderr, "minegen: cannot create %s: %s\n", pathbuf, strerror(errno));
		return false;
	}
	setvbuf(o->f, NULL, _IOFBF, 1 << 22);
	return true;
}

bool
out_close(out_file *o)
{
	bool		ok = !ferror(o->f);

	if (fclose(o->f) != 0)
		ok = false;
	if (!ok)
		fprintf(stderr, "minegen: error writing %s: %s\n", o->path, strerror(errno));
	return ok;
}

int
format_xyz(char *buf, size_t len, const double *p)
{
	return snprintf(buf, len, "%.17g %.17g %.17g", p[0], p[1], p[2]);
}

void
write_psql_quoted(FILE *f, const char *s)
{
	fputc('\'', f);
	for (; *s; s++)
	{
		if (*s == '\'')
			fputs("''", f);
		else if (*s == '\\')
			fputs("\\\\", f);
		else
			fputc(*s, f);
	}
	fputc('\'', f);
}

bool
write_degeneracies_tsv(const char *dir, const mine *m)
{
	char		path[PATH_MAX + 32];
	out_file	o;

	if (!out_open(&o, dir, "degeneracies.tsv", path, sizeof(path)))
		return false;
	for (size_t i = 0; i < m->n_degenerate; i++)
	{
		const mine_degenerate *d = &m->degenerate[i];

		fprintf(o.f, "%lld\t%lld\t%s\t%s\t%zu\t", (long long) m->holes[d->hole].id,
				(long long) m->bodies[d->body].id, mine_degenerate_kind_name(d->kind),
				d->expect_intersects ? "t" : "f", d->hole_vertex + 1);
		if (d->body_triangle >= 0)
			fprintf(o.f, "%lld\n", (long long) d->body_triangle + 1);
		else
			fputs("\\N\n", o.f);
	}
	return out_close(&o);
}
