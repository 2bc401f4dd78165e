/*
 * join_rows.h — the (id, geom) rows that feed a batch join, read from an
 * inner query or from an exactgpu_batch value and kept as raw serialized
 * bytes, so that the engine can parse them on all cores afterwards.
 */
#ifndef EXACTGPU_JOIN_ROWS_H
#define EXACTGPU_JOIN_ROWS_H

#include "exactgpu.h"

#include "access/detoast.h"

#include "exactgpu_engine.h"

/*
 * A row whose geometry is stored out of line (TOAST): its id and the TOAST
 * pointer, left to be detoasted and flattened by a parallel reader.
 */
typedef struct ExactgpuToastRow
{
	int64		id;				/* as ExactgpuRows.ids */
	char		ptr[TOAST_POINTER_SIZE];	/* the on-disk varlena pointer */
} ExactgpuToastRow;

/*
 * Ids of a type other than an integer (text, uuid, ...): each distinct id
 * (by its type's equality) is kept once as a Datum, and the rows carry its
 * ordinal instead, so that everything downstream (the engine, the
 * parallel read, sorting and deduplicating pairs) handles int64 ids only.
 * Ordinals follow the type's order where it has one (btree), so that the
 * pairs come out in id order as integer ids do.
 */
typedef struct ExactgpuIdKeys ExactgpuIdKeys;

/* A row left out of a join under exactgpu.invalid_rows = 'skip'. */
typedef struct ExactgpuSkippedRow
{
	int64		id;				/* as the rows' ids (an ordinal for keyed ids) */
	bool		id_null;		/* the row had a NULL id */
	char	   *reason;
} ExactgpuSkippedRow;

typedef struct ExactgpuRows
{
	MemoryContext mcxt;			/* the caller's, which outlives SPI's */
	const char *context;		/* function name for messages */
	uint8	   *data;			/* serialized geometries, back to back */
	Size		len;
	Size		data_cap;
	size_t	   *off;			/* n + 1 offsets into data */
	int64	   *ids;			/* the integer ids, or ordinals of keys */
	size_t		n;
	size_t		cap;
	size_t		n_inline;		/* the first rows, whose bytes are in data */
	int32		srid;			/* of every row (checked as rows arrive) */
	bool		have_srid;
	uint64		null_geoms;		/* rows skipped for a NULL geometry */
	/* rows kept as TOAST pointers (exactgpu_rows_defer_toast): */
	bool		defer_toast;
	ExactgpuToastRow *toast;
	size_t		ntoast;
	size_t		toast_cap;
	uint64		toast_bytes;	/* their detoasted size, from the pointers */
	/* shared memory the batch's arrays were laid out in (parallel read) */
	struct ExactgpuArena *arena;
	/* a side borrowed whole from the resident store: its block, which the
	 * GPU service keeps a device copy of under tag (the block's identity) */
	const void *kept_block;
	Size		kept_size;
	uint64		kept_tag;
	/* the ids: the type the rows came with, their Datums when not integers */
	Oid			idtype;			/* InvalidOid: not known (integers) */
	Oid			want_idtype;	/* the result's id column type (InvalidOid: any) */
	ExactgpuIdKeys *keys;		/* NULL: ids[] hold the integer ids */
	const char *side_name;		/* "left input", ...: ids are the user's, name
								 * failing rows by them (NULL: do not) */
	/* exactgpu.invalid_rows = 'skip': rows left out, and why */
	bool		skip_invalid;
	ExactgpuSkippedRow *skipped;
	size_t		nskipped;
	size_t		skipped_cap;
} ExactgpuRows;

void		exactgpu_rows_init(ExactgpuRows *rows, const char *context);

/* Add one row: gser/len are the serialized geometry without varlena header. */
void		exactgpu_rows_add(ExactgpuRows *rows, int64 id, const uint8 *gser, Size len);

/*
 * The row id of a key Datum of type keytype (not an integer type): its
 * ordinal among the distinct keys. The first call fixes the side's key type.
 */
int64		exactgpu_rows_key(ExactgpuRows *rows, Oid keytype, Datum key);

/* Once every row is in: ordinals in the keys' order (see ExactgpuIdKeys). */
void		exactgpu_rows_order_keys(ExactgpuRows *rows);

/* Is typid one of the integer types whose values are the ids themselves? */
bool		exactgpu_id_is_integer(Oid typid);

/* The id as its type's text output (palloc'ed), for messages. */
char	   *exactgpu_rows_id_text(const ExactgpuRows *rows, int64 id);

/* The id as a Datum of type restype (checked by exactgpu_rows_id_fits). */
Datum		exactgpu_rows_id_datum(const ExactgpuRows *rows, int64 id, Oid restype);

/* Can ids of type idtype be returned as restype? (the same type, or binary coercible) */
bool		exactgpu_id_fits(Oid idtype, Oid restype);

/*
 * The ids read must fit rows->want_idtype: an ERROR saying how to ask for
 * them otherwise (which: "left", "holes", ...).
 */
void		exactgpu_rows_check_id_type(const ExactgpuRows *rows, Oid idtype, const char *which);

/* The ids' type (bigint for integer ids read from a batch). */
Oid			exactgpu_rows_id_type(const ExactgpuRows *rows);

/*
 * Name row i (0-based, as in ids[]) of an engine failure: appends
 * " (id X of the left input)" to err->message where the ids are the user's.
 */
void		exactgpu_rows_name_row(const ExactgpuRows *rows, size_t i, exg_error *err);

/* The same for the row of id `id` (a row kept as a TOAST pointer). */
void		exactgpu_rows_name_id(const ExactgpuRows *rows, int64 id, exg_error *err);

/* exactgpu_report of a failure whose err->row counts the rows read in line. */
void		exactgpu_rows_report(const ExactgpuRows *rows, exg_error *err);

/* Skip mode: leave row i (0-based, in line) out, with why. */
void		exactgpu_rows_drop(ExactgpuRows *rows, size_t i, const char *reason);

/* Skip mode: remember a row never added (NULL id, SRID), with why. */
void		exactgpu_rows_note_skipped(ExactgpuRows *rows, int64 id, bool id_null,
									   const char *reason);

/*
 * exactgpu_rows_add for a row of the user's: one of another SRID than the
 * side's first is named by its id (or left out in skip mode).
 */
void		exactgpu_rows_add_named(ExactgpuRows *rows, int64 id, const uint8 *gser, Size len);

/* Add one row as its on-disk TOAST pointer (see exactgpu_rows_defer_toast). */
void		exactgpu_rows_add_toast(ExactgpuRows *rows, int64 id, const struct varlena *v);

/*
 * Let go of the shared memory the parallel read laid this side's batch out
 * in (exactgpu_rows_flatten): after exg_batch_free of that batch. Also done
 * when rows->mcxt is reset or deleted, errors included.
 */
void		exactgpu_rows_release(ExactgpuRows *rows);

/* The rows as the engine reads them (valid while rows is unchanged). */
exg_row_bytes exactgpu_rows_bytes(const ExactgpuRows *rows);

/*
 * Run an inner query that yields (id, geom geometry) and collect its rows
 * as the executor produces them (no tuple copies). Integer ids are the
 * rows' ids; ids of another type with hash equality are interned
 * (join_ids.c) where rows->want_idtype allows them. Rows with a NULL
 * geometry are skipped; a NULL id is an error (skip mode: left out). Call
 * between SPI_connect and SPI_finish.
 */
void		exactgpu_read_query_rows(const char *sql, const char *which, ExactgpuRows *rows);

/* The rows of an exactgpu_batch value (ST_ExactBatch aggregate). */
void		exactgpu_read_batch_rows(Datum batch, const char *which, ExactgpuRows *rows);

/*
 * Keep geometries stored out of line as TOAST pointers instead of
 * detoasting them while the query runs, so that exactgpu_rows_flatten can
 * detoast, parse and flatten them in parallel worker processes.
 */
void		exactgpu_rows_defer_toast(ExactgpuRows *rows);

/* How the rows of the last exactgpu_rows_flatten were read. */
typedef struct ExactgpuReadReport
{
	int			resident_sides; /* sides borrowed from the resident store */
	uint64		resident_rows;	/* ... their rows */
	uint64		resident_bytes; /* ... their stored values' detoasted bytes, not read */
	uint64		read_bytes;		/* the rows read: detoasted (out of line) or copied */
	int			workers;		/* parallel worker processes that flattened rows */
	int			workers_planned;
	bool		parallel;		/* deferred rows went to parallel workers */
	double		detoast_ms;		/* leader: serially detoasted deferred rows */
	double		parse_ms;		/* leader: rows in line parsed on the thread pool */
	double		wait_ms;		/* leader: waiting for and flattening deferred rows */
	double		gather_ms;		/* leader: copying flattened rows into the batch,
								 * or waiting for them laid out in place */
	int			in_place;		/* sides laid out in place by their readers */
	double		place_create_ms;	/* ... of gather_ms: their segments made */
	double		place_wait_ms;	/* ... the rows laid out (then the batch borrows) */
	double		release_ms;		/* leader: ending the workers, freeing shared memory */
	double		first_start_ms; /* launch to the first worker running our code */
	double		last_start_ms;	/* ... to the last one (workers that took part) */
	double		last_done_ms;	/* ... to the last process done with its rows */
	/* the flattening processes' time, leader included, summed over them */
	double		work_detoast_ms;
	double		work_parse_ms;
	double		work_copy_ms;	/* into shared memory */
} ExactgpuReadReport;

/*
 * Flatten the rows of `nsides` inputs into their batches (initialised by
 * the caller, empty). When there is enough to read and PostgreSQL grants
 * workers, parallel worker processes (PostgreSQL's ParallelContext; the
 * leader takes part) detoast, parse and flatten the rows kept as TOAST
 * pointers and parse the rows read in line, in chunks; else the TOAST rows
 * are detoasted here and every row parsed on the engine's thread pool. Batch row i is then the row of ids[i]: rows
 * kept as pointers come after the others, in query order. SRIDs are
 * checked across each side. Afterwards only ids and n are meaningful (the
 * serialized bytes may not cover the rows flattened by workers).
 */
void		exactgpu_rows_flatten(ExactgpuRows **rows, exg_batch **batch, int nsides,
								  ExactgpuReadReport *rep);

/*
 * Serialized bytes a pool thread parses (~1 ms) before another thread pays
 * for itself: the read sizes its threads by it, and the planner its cost.
 */
#define EXACTGPU_PARSE_BYTES_PER_THREAD	((uint64) 256 << 10)

/*
 * The parallel workers exactgpu_rows_flatten would ask for (0: the leader
 * reads alone) for toast_rows out-of-line rows and inline_bytes of rows in
 * line, `bytes` in all, as the planner can tell (the batch join's cost).
 */
int			exactgpu_read_workers_planned(double toast_rows, double inline_bytes, double bytes);

/*
 * The exact box of every row of `nsides` inputs (box joins): box[k] gets
 * lo then hi (naxes doubles each) per row, has_box[k] 0 for an empty
 * geometry (both palloc'ed). Rows kept as TOAST pointers are detoasted and
 * boxed by parallel workers as in exactgpu_rows_flatten, else here; they
 * come after the rows read in line, whose boxes the thread pool computes.
 */
void		exactgpu_rows_boxes(ExactgpuRows **rows, int nsides, int naxes, double **box,
								uint8 **has_box, ExactgpuReadReport *rep);

/*
 * Detoast n values kept as TOAST pointers (bytes: their detoasted size) in
 * order, by parallel workers when it pays, else here: emit(arg, i, value)
 * for each, in this process, the value valid for the call. Returns how many
 * parallel workers took part.
 */
int			exactgpu_detoast_rows(const ExactgpuToastRow *rows, size_t n, uint64 bytes,
								  void (*emit) (void *arg, size_t i, const struct varlena *v),
								  void *arg);

/* Both inputs' SRIDs must agree. */
void		exactgpu_rows_check_srids(const ExactgpuRows *left, const ExactgpuRows *right);

/*
 * For the parallel read (read_*.c): a TOAST row's SRID must be the side's;
 * toast_row is its index in rows->toast, named in the error (SIZE_MAX: not
 * known).
 */
void		exactgpu_rows_note_srid(ExactgpuRows *rows, int32 srid, size_t toast_row);

/* ... and once its TOAST rows are taken, their ids follow the others'. */
void		exactgpu_rows_append_toast_ids(ExactgpuRows *rows);

/*
 * The place of each row of a side in the result's order (exg_batch.order):
 * by id, rows that share an id at one place, so that the engine's one sort
 * of the row pairs leaves them in id order, each id pair once. *place_ids
 * gets the id of each place. NULL, with the rows' ids as place ids, when
 * the ids grow strictly with the rows, as they usually do.
 */
uint32	   *exactgpu_rows_order(const ExactgpuRows *rows, int64 **place_ids);

#endif							/* EXACTGPU_JOIN_ROWS_H */
