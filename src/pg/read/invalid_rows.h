/*
 * invalid_rows.h — exactgpu.invalid_rows: fail on a row a batch join cannot
 * use, naming it, or leave it out and say so (invalid_rows.c).
 */
#ifndef EXACTGPU_INVALID_ROWS_H
#define EXACTGPU_INVALID_ROWS_H

#include "join_rows.h"

typedef enum ExactgpuInvalidRows
{
	EXACTGPU_INVALID_ROWS_ERROR,
	EXACTGPU_INVALID_ROWS_SKIP
} ExactgpuInvalidRows;

extern int	exactgpu_invalid_rows;

void		exactgpu_define_invalid_rows_guc(void);

/* A batch join starts: the last one's rows left out are forgotten. */
void		exactgpu_invalid_rows_reset(void);

/*
 * The join is done: keep the rows its sides left out for
 * exactgpu_last_join_skipped(), and say how many in one NOTICE.
 */
void		exactgpu_invalid_rows_publish(ExactgpuRows *rows, int nsides, const char *context);

#endif							/* EXACTGPU_INVALID_ROWS_H */
