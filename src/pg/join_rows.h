/*
 * join_rows.h — the (id, geom) rows that feed a batch join, read from an
 * inner query or from an exactgpu_batch value and kept as raw serialized
 * bytes, so that the engine can parse them on all cores afterwards.
 */
#ifndef EXACTGPU_JOIN_ROWS_H
#define EXACTGPU_JOIN_ROWS_H

#include "exactgpu.h"

#include "batch.h"

typedef struct ExactgpuRows
{
	MemoryContext mcxt;			/* the caller's, which outlives SPI's */
	const char *context;		/* function name for messages */
	uint8	   *data;			/* serialized geometries, back to back */
	Size		len;
	Size		data_cap;
	size_t	   *off;			/* n + 1 offsets into data */
	int64	   *ids;
	size_t		n;
	size_t		cap;
	int32		srid;			/* of every row (checked as rows arrive) */
	bool		have_srid;
	uint64		null_geoms;		/* rows skipped for a NULL geometry */
} ExactgpuRows;

void		exactgpu_rows_init(ExactgpuRows *rows, const char *context);

/* Add one row: gser/len are the serialized geometry without varlena header. */
void		exactgpu_rows_add(ExactgpuRows *rows, int64 id, const uint8 *gser, Size len);

/* The rows as the engine reads them (valid while rows is unchanged). */
exg_row_bytes exactgpu_rows_bytes(const ExactgpuRows *rows);

/*
 * Run an inner query that yields (id integer|bigint, geom geometry) and
 * collect its rows as the executor produces them (no tuple copies). Rows
 * with a NULL geometry are skipped; a NULL id is an error. Call between
 * SPI_connect and SPI_finish.
 */
void		exactgpu_read_query_rows(const char *sql, const char *which, ExactgpuRows *rows);

/* The rows of an exactgpu_batch value (ST_ExactBatch aggregate). */
void		exactgpu_read_batch_rows(Datum batch, const char *which, ExactgpuRows *rows);

/* Both inputs' SRIDs must agree. */
void		exactgpu_rows_check_srids(const ExactgpuRows *left, const ExactgpuRows *right);

#endif							/* EXACTGPU_JOIN_ROWS_H */
