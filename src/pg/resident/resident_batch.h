/*
 * resident_batch.h — a batch join's side of bodies kept flattened in the
 * resident store (resident_store.h), so that a join against bodies that
 * have not changed detoasts, parses and flattens none of them.
 *
 * A side qualifies when every row is a big value stored out of line (the
 * bodies; the holes, small and in line, are read as ever). Its identity is
 * the list of its rows' identities, in order: the same rows, read in the
 * same order, give the same flattened batch, row for row. The block holds
 * that list, compared in full on a hit (the hash only finds the entry).
 */
#ifndef EXACTGPU_RESIDENT_BATCH_H
#define EXACTGPU_RESIDENT_BATCH_H

#include "join_rows.h"
#include "resident_store.h"

typedef struct ResidentBatchWant
{
	bool		wanted;			/* not resident yet: keep it once flattened */
	ResidentKey key;			/* the side's */
	ResidentKey *rows;			/* its rows', in order */
	size_t		nrows;
	Size		covers;			/* its rows' detoasted bytes */
} ResidentBatchWant;

/*
 * Make batch (empty) the side's resident batch and take the rows' ids as a
 * flattened side would; false when the side does not qualify or is not
 * resident (then want says whether to keep it after flattening).
 */
bool		exactgpu_resident_batch_get(ExactgpuRows *rows, exg_batch *batch,
										ResidentBatchWant *want);

/* Keep the side flattened (as exactgpu_rows_flatten left it), if wanted. */
void		exactgpu_resident_batch_keep(const ResidentBatchWant *want, const ExactgpuRows *rows,
										 const exg_batch *batch);

#endif							/* EXACTGPU_RESIDENT_BATCH_H */
