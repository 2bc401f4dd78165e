/*
 * batch_rows.c — parsing many serialized rows at once, on all cores.
 *
 * A reader hands over the bytes of every row; parsing them (and, for exact
 * joins, triangulating their faces exactly) is the costly part of reading
 * a join input, and rows are independent. Rows are cut into chunks in row
 * order; the first chunk is parsed into the batch itself, each other one
 * into its own batch, and those are then appended in order, so the result
 * equals row-by-row exg_batch_add.
 */
#include "batch.h"

#include <stdlib.h>
#include <string.h>

#include "cancel.h"
#include "gserialized_read.h"
#include "parallel.h"

/* Chunks per thread: rows differ in size, so more chunks balance better. */
#define CHUNKS_PER_THREAD 8
/* Below this many rows, and this many bytes, one thread does it all. */
#define PARALLEL_MIN_ROWS 2048
#define PARALLEL_MIN_BYTES ((size_t) 1 << 20)

typedef struct row_chunk
{
	size_t		first;
	size_t		end;
	exg_status	st;
	exg_error	err;			/* err.row: 1 + the failing row */
} row_chunk;

/* What each chunk does with row's bytes (scratch: a shape reused by the chunk). */
typedef exg_status (*row_fn) (void *arg, size_t chunk, size_t row, const uint8_t *data,
							  size_t size, exg_shape *scratch, exg_error *err);

/* A few big rows (12 bodies of 10^5 triangles) are worth threads too. */
static size_t
chunk_count(const exg_row_bytes *rows, int threads)
{
	size_t		n = rows->n,
				c = (size_t) threads * CHUNKS_PER_THREAD;

	if (threads <= 1 || n <= 1 ||
		(n < PARALLEL_MIN_ROWS && rows->off[n] - rows->off[0] < PARALLEL_MIN_BYTES))
		return n ? 1 : 0;
	return c < n ? c : n;
}

/*
 * The first row of chunk c of nchunks: chunks hold equal shares of the
 * BYTES, not of the rows. A mine's 100 bodies after its 20,000 holes fell
 * into one chunk of 157 rows when chunks were cut by row count, and one
 * thread parsed all 10^7 triangles (the serial read took 3.3 s on 16
 * threads). A row larger than a share leaves the chunks after it empty.
 */
static size_t
chunk_start(const exg_row_bytes *rows, size_t c, size_t nchunks)
{
	size_t		total = rows->off[rows->n] - rows->off[0],
				want,
				lo = 0,
				hi = rows->n;

	if (c >= nchunks)
		return rows->n;
	if (c == 0)
		return 0;
	/* avoid overflow of total * c for huge inputs: c < nchunks is small */
	want = rows->off[0] + (total / nchunks) * c + (total % nchunks) * c / nchunks;
	/* the first row that starts at or after want */
	while (lo < hi)
	{
		size_t		mid = lo + (hi - lo) / 2;

		if (rows->off[mid] < want)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/*
 * Run fn on every row, chunk by chunk, in parallel. Returns the status of
 * the first failing row in row order, with its error (chunks do not stop
 * each other, so that this is the row a sequential reading would report).
 */
static exg_status
for_each_row(const exg_row_bytes *rows, int threads, size_t nchunks, row_fn fn, void *arg,
			 exg_error *err)
{
	row_chunk  *ch = calloc(nchunks ? nchunks : 1, sizeof(row_chunk));

	if (ch == NULL)
		return exg_fail(err, EXG_ERR_NOMEM, "out of memory reading join input");
	for (size_t c = 0; c < nchunks; c++)
	{
		ch[c].first = chunk_start(rows, c, nchunks);
		ch[c].end = chunk_start(rows, c + 1, nchunks);
	}
#pragma omp parallel for schedule(dynamic, 1) num_threads(threads) if (nchunks > 1)
	for (size_t c = 0; c < nchunks; c++)
	{
		exg_shape	s;

		exg_shape_init(&s);
		for (size_t i = ch[c].first; i < ch[c].end && ch[c].st == EXG_OK; i++)
		{
			if ((i & (EXG_CANCEL_STRIDE - 1)) == 0 && exg_cancel_requested())
			{
				ch[c].st = exg_fail(&ch[c].err, EXG_ERR_INTERRUPTED, "canceled");
				break;
			}
			ch[c].st = fn(arg, c, i, rows->data + rows->off[i], rows->off[i + 1] - rows->off[i],
						  &s, &ch[c].err);
			if (ch[c].st != EXG_OK)
				ch[c].err.row = i + 1;
		}
		exg_shape_free(&s);
	}
	/* every chunk ran to its own first failure: the earliest chunk's is the first */
	for (size_t c = 0; c < nchunks; c++)
		if (ch[c].st != EXG_OK)
		{
			exg_status	st = ch[c].st;

			if (err)
				*err = ch[c].err;
			free(ch);
			return st;
		}
	free(ch);
	return EXG_OK;
}

/* ---- rows into a batch ---- */

/*
 * Chunk 0 flattens straight into the batch (its rows come first, and a
 * single chunk, the usual case of a few threads or a small input, then
 * costs no copy); every other chunk into a batch of its own, appended after.
 */
typedef struct batch_rows_arg
{
	exg_batch  *b;
	exg_batch  *part;			/* part[c] for chunk c >= 1 */
	const exg_row_bytes *rows;
	size_t		nchunks;
	uint8_t    *sized;			/* per chunk: its batch was sized */
} batch_rows_arg;

/*
 * Most vertices and primitives a row adds to a 3D batch, read off its first
 * bytes: a TIN's triangles, the vertices of linestrings (each segment two),
 * points; nothing for the other geometries (their arrays grow as they go).
 */
static void
row_bound(const uint8_t *data, size_t size, size_t *nv, size_t *np)
{
	exg_gs_simple it;

	if (!exg_gs_simple_begin(data, size, &it))
		return;
	if (it.member_type == 14)
	{
		*nv += 3 * (size_t) it.remaining;
		*np += it.remaining;
	}
	else
	{
		size_t		n = it.member_type == 2 ? (size - it.off) / it.stride : it.remaining;

		*nv += 2 * n;
		*np += n;
	}
}

/*
 * Size a chunk's batch once for the rows first .. end - 1, from their bytes,
 * where it grew by doubling (each step a copy and fresh pages: most of
 * parsing big bodies on two threads). Only capacity: if memory is short
 * here, adding the rows reports it.
 */
static void
size_chunk(exg_batch *b, const exg_row_bytes *rows, size_t first, size_t end)
{
	size_t		nv = 0,
				np = 0;

	if (b->naxes != 3)
		return;
	for (size_t i = first; i < end; i++)
		row_bound(rows->data + rows->off[i], rows->off[i + 1] - rows->off[i], &nv, &np);
	nv += b->nverts;
	np += b->nprims;
	if ((nv > b->verts_cap || np > b->prims_cap) && nv < UINT32_MAX && np < UINT32_MAX)
		(void) exg_batch_reserve(b, nv > b->verts_cap ? nv : b->verts_cap,
								 np > b->prims_cap ? np : b->prims_cap,
								 b->solid_cap > b->nrows + (end - first) ? b->solid_cap : b->nrows + (end - first),
								 NULL);
}

static exg_status
add_to_part(void *arg, size_t chunk, size_t row, const uint8_t *data, size_t size,
			exg_shape *scratch, exg_error *err)
{
	batch_rows_arg *a = arg;
	exg_batch  *b = chunk == 0 ? a->b : &a->part[chunk];

	if (!a->sized[chunk])
	{
		/* the chunk's first row: chunks run their rows in order */
		a->sized[chunk] = 1;
		size_chunk(b, a->rows, row, chunk_start(a->rows, chunk + 1, a->nchunks));
	}
	return exg_batch_add_serialized(b, data, size, scratch, err);
}

/*
 * Append parts 1 .. nparts - 1 to b, in order: each part's vertex indices
 * and rows shift by what b and the parts before it hold. Their places are
 * known from the counts, so the arrays are sized once and the parts copied
 * on `threads` threads (memory speed, not a serial concatenation).
 */
static exg_status
append_parts(exg_batch *b, const exg_batch *part, size_t nparts, int threads, exg_error *err)
{
	size_t	   *base;
	size_t		nv = b->nverts,
				np = b->nprims,
				nr = b->nrows;
	exg_status	st;

	if (nparts <= 1)
		return EXG_OK;
	base = malloc(sizeof(size_t) * 3 * nparts);
	if (base == NULL)
		return exg_fail(err, EXG_ERR_NOMEM, "out of memory reading join input");
	for (size_t c = 1; c < nparts; c++)
	{
		base[3 * c] = nv;
		base[3 * c + 1] = np;
		base[3 * c + 2] = nr;
		nv += part[c].nverts;
		np += part[c].nprims;
		nr += part[c].nrows;
	}
	if ((st = exg_batch_reserve(b, nv, np, nr, err)) != EXG_OK)
	{
		free(base);
		return st;
	}
#pragma omp parallel for schedule(dynamic, 1) num_threads(threads) if (threads > 1 && nparts > 2)
	for (size_t c = 1; c < nparts; c++)
	{
		const exg_batch *p = &part[c];
		uint32_t	vb = (uint32_t) base[3 * c],
					rb = (uint32_t) base[3 * c + 2];
		uint32_t   *dt = b->tri + 3 * base[3 * c + 1],
				   *dow = b->owner + base[3 * c + 1];

		memcpy(b->xyz + 3 * base[3 * c], p->xyz, p->nverts * 3 * sizeof(double));
		for (size_t i = 0; i < 3 * p->nprims; i++)
			dt[i] = p->tri[i] + vb;
		for (size_t i = 0; i < p->nprims; i++)
			dow[i] = p->owner[i] + rb;
		memcpy(b->solid + rb, p->solid, p->nrows);
	}
	for (size_t c = 1; c < nparts; c++)
	{
		b->nsolid += part[c].nsolid;
		b->nrows_z += part[c].nrows_z;
		b->nrows_flat += part[c].nrows_flat;
	}
	b->nverts = nv;
	b->nprims = np;
	b->nrows = nr;
	free(base);
	return EXG_OK;
}

exg_status
exg_batch_add_rows(exg_batch *b, const exg_row_bytes *rows, int threads, exg_error *err)
{
	int			t = exg_threads(threads);
	size_t		nchunks = chunk_count(rows, t);
	exg_batch	before;
	batch_rows_arg arg;
	exg_status	st;

	if ((st = exg_batch_own(b, err)) != EXG_OK)
		return st;
	before = *b;
	arg.b = b;
	arg.rows = rows;
	arg.nchunks = nchunks;
	arg.part = calloc(nchunks ? nchunks : 1, sizeof(exg_batch));
	arg.sized = calloc(nchunks ? nchunks : 1, 1);
	if (arg.part == NULL || arg.sized == NULL)
	{
		free(arg.part);
		free(arg.sized);
		return exg_fail(err, EXG_ERR_NOMEM, "out of memory reading join input");
	}
	for (size_t c = 1; c < nchunks; c++)
		exg_batch_init(&arg.part[c], b->naxes, b->policy);
	st = for_each_row(rows, t, nchunks, add_to_part, &arg, err);
	if (st == EXG_OK && before.nrows + rows->n >= UINT32_MAX - 1)
		st = exg_fail(err, EXG_ERR_TOO_LARGE, "too many rows in one join input");
	if (st == EXG_OK)
		st = append_parts(b, arg.part, nchunks, t, err);
	for (size_t c = 1; c < nchunks; c++)
		exg_batch_free(&arg.part[c]);
	free(arg.part);
	free(arg.sized);
	if (st != EXG_OK)
	{
		/* b holds its rows as before (chunk 0 may have added some) */
		b->nverts = before.nverts;
		b->nprims = before.nprims;
		b->nrows = before.nrows;
		b->nsolid = before.nsolid;
		b->nrows_z = before.nrows_z;
		b->nrows_flat = before.nrows_flat;
	}
	return st;
}

/* ---- rows into boxes ---- */

typedef struct box_rows_arg
{
	int			naxes;
	double	   *box;
	uint8_t    *has_box;
} box_rows_arg;

static exg_status
box_of_row(void *arg, size_t chunk, size_t row, const uint8_t *data, size_t size,
		   exg_shape *s, exg_error *err)
{
	box_rows_arg *a = arg;
	double		lo[3],
				hi[3];
	exg_status	st;

	(void) chunk;
	exg_shape_clear(s);
	if ((st = exg_gserialized_read(data, size, s, err)) != EXG_OK)
		return st;
	a->has_box[row] = exg_shape_extent(s, lo, hi);
	if (a->has_box[row])
	{
		memcpy(&a->box[2 * a->naxes * row], lo, a->naxes * sizeof(double));
		memcpy(&a->box[2 * a->naxes * row + a->naxes], hi, a->naxes * sizeof(double));
	}
	return EXG_OK;
}

exg_status
exg_rows_boxes(const exg_row_bytes *rows, int naxes, int threads, double *box,
			   uint8_t *has_box, exg_error *err)
{
	int			t = exg_threads(threads);
	box_rows_arg arg = {naxes, box, has_box};

	if (naxes != 2 && naxes != 3)
		return exg_fail(err, EXG_ERR_ARGUMENT, "boxes have 2 or 3 axes");
	return for_each_row(rows, t, chunk_count(rows, t), box_of_row, &arg, err);
}
