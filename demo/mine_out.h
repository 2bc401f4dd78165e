/*
 * mine_out.h — the files minegen writes: open, write, close, and the
 * coordinate and psql-literal formats its formats share.
 */
#ifndef EXG_DEMO_MINE_OUT_H
#define EXG_DEMO_MINE_OUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "mine.h"

/* A buffered output file; a failed write is noticed at close. */
typedef struct out_file
{
	FILE	   *f;
	const char *path;
} out_file;

/* Create dir/name (path kept in pathbuf); false, with a message, if it cannot. */
bool		out_open(out_file *o, const char *dir, const char *name, char *pathbuf, size_t len);

/* Close; false, with a message, if any write or the close failed. */
bool		out_close(out_file *o);

/*
 * "x y z" with 17 significant digits, which make every double round-trip
 * exactly through text (the deliberate degeneracies depend on it); returns
 * the length.
 */
int			format_xyz(char *buf, size_t len, const double *p);

/* A string as a single-quoted psql meta-command argument. */
void		write_psql_quoted(FILE *f, const char *s);

/*
 * DIR/degeneracies.tsv: the deliberate exact cases (COPY text format):
 * hole_id, body_id, kind, expect_intersects, hole_point (1-based vertex of
 * the hole), body_triangle (1-based, or \N).
 */
bool		write_degeneracies_tsv(const char *dir, const mine *m);

#endif							/* EXG_DEMO_MINE_OUT_H */
