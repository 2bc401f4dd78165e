/*
 * invalid_rows.c — exactgpu.invalid_rows: what a batch join does with a row
 * it cannot use (a geometry that does not parse, NaN, no Z in a 3D join,
 * another SRID, an open, inside-out or self-intersecting body, a hole that
 * is no line, a NULL id).
 *
 *   'error' (the default): the join fails, naming the row by its id.
 *   'skip': the row is left out of the join, one NOTICE per join counts the
 *           rows left out per side and names the first few, and
 *           exactgpu_last_join_skipped() lists them all.
 *
 * Skipping is exact: a row left out is removed from its side before the
 * join that returns pairs runs, so the pairs are those of the same join
 * over the other rows (a pair depends on its two rows alone).
 */
#include "exactgpu.h"

#include "funcapi.h"
#include "utils/builtins.h"
#include "utils/guc.h"
#include "utils/memutils.h"

#include "invalid_rows.h"
#include "join_rows.h"

PG_FUNCTION_INFO_V1(exactgpu_last_join_skipped);

int			exactgpu_invalid_rows = EXACTGPU_INVALID_ROWS_ERROR;

static const struct config_enum_entry invalid_rows_options[] = {
	{"error", EXACTGPU_INVALID_ROWS_ERROR, false},
	{"skip", EXACTGPU_INVALID_ROWS_SKIP, false},
	{NULL, 0, false}
};

/* rows named in the NOTICE; the rest only in exactgpu_last_join_skipped() */
#define NOTICE_ROWS 5

/* The last batch join's rows left out, in TopMemoryContext. */
typedef struct LastSkipped
{
	char	   *side;
	char	   *id;				/* NULL for a NULL id */
	char	   *reason;
} LastSkipped;

static MemoryContext last_cxt = NULL;
static LastSkipped *last = NULL;
static size_t nlast = 0;

void
exactgpu_define_invalid_rows_guc(void)
{
	DefineCustomEnumVariable("exactgpu.invalid_rows",
							 "What the batch join functions do with a row they cannot use.",
							 "error: fail, naming the row by its id; skip: leave the row out of "
							 "the join, with a NOTICE counting such rows (exactgpu_last_join_skipped() "
							 "lists them).",
							 &exactgpu_invalid_rows,
							 EXACTGPU_INVALID_ROWS_ERROR,
							 invalid_rows_options,
							 PGC_USERSET, 0,
							 NULL, NULL, NULL);
}

static void
skipped_add(ExactgpuRows *rows, int64 id, bool id_null, const char *reason)
{
	ExactgpuSkippedRow *s;

	if (rows->nskipped == rows->skipped_cap)
	{
		rows->skipped_cap = rows->skipped_cap ? 2 * rows->skipped_cap : 16;
		rows->skipped = rows->skipped
			? repalloc_huge(rows->skipped, rows->skipped_cap * sizeof(ExactgpuSkippedRow))
			: MemoryContextAllocHuge(rows->mcxt, rows->skipped_cap * sizeof(ExactgpuSkippedRow));
	}
	s = &rows->skipped[rows->nskipped++];
	s->id = id;
	s->id_null = id_null;
	s->reason = MemoryContextStrdup(rows->mcxt, reason);
}

void
exactgpu_rows_note_skipped(ExactgpuRows *rows, int64 id, bool id_null, const char *reason)
{
	skipped_add(rows, id, id_null, reason);
}

void
exactgpu_rows_drop(ExactgpuRows *rows, size_t i, const char *reason)
{
	size_t		len;

	Assert(i < rows->n_inline && rows->n_inline == rows->n && rows->ntoast == 0);
	skipped_add(rows, rows->ids[i], false, reason);
	if (rows->off)
	{
		len = rows->off[i + 1] - rows->off[i];
		memmove(rows->data + rows->off[i], rows->data + rows->off[i + 1],
				rows->len - rows->off[i + 1]);
		for (size_t r = i + 1; r < rows->n; r++)
			rows->off[r] = rows->off[r + 1] - len;
		rows->len -= len;
	}
	memmove(&rows->ids[i], &rows->ids[i + 1], (rows->n - i - 1) * sizeof(int64));
	rows->n--;
	rows->n_inline--;
}

/* Forget the last join's list: a join has started. */
void
exactgpu_invalid_rows_reset(void)
{
	if (last_cxt)
		MemoryContextReset(last_cxt);
	last = NULL;
	nlast = 0;
}

void
exactgpu_invalid_rows_publish(ExactgpuRows *rows, int nsides, const char *context)
{
	StringInfoData detail;
	MemoryContext old;
	size_t		total = 0,
				k = 0;

	exactgpu_invalid_rows_reset();
	for (int s = 0; s < nsides; s++)
		total += rows[s].nskipped;
	if (total == 0)
		return;
	if (last_cxt == NULL)
		last_cxt = AllocSetContextCreate(TopMemoryContext, "exactgpu skipped rows",
										 ALLOCSET_DEFAULT_SIZES);
	old = MemoryContextSwitchTo(last_cxt);
	last = palloc_extended(total * sizeof(LastSkipped), MCXT_ALLOC_HUGE);
	for (int s = 0; s < nsides; s++)
		for (size_t i = 0; i < rows[s].nskipped; i++)
		{
			const ExactgpuSkippedRow *r = &rows[s].skipped[i];

			last[k].side = pstrdup(rows[s].side_name);
			last[k].id = r->id_null ? NULL : exactgpu_rows_id_text(&rows[s], r->id);
			last[k].reason = pstrdup(r->reason);
			k++;
		}
	nlast = k;
	MemoryContextSwitchTo(old);

	initStringInfo(&detail);
	for (k = 0; k < nlast && k < NOTICE_ROWS; k++)
		appendStringInfo(&detail, "%sid %s of the %s: %s", k ? "; " : "",
						 last[k].id ? last[k].id : "NULL", last[k].side, last[k].reason);
	if (nlast > NOTICE_ROWS)
		appendStringInfo(&detail, "; and %zu more", nlast - NOTICE_ROWS);
	ereport(NOTICE,
			(errmsg("%s: left out %zu invalid rows of the %s and %zu of the %s (exactgpu.invalid_rows = skip)",
					context, rows[0].nskipped, rows[0].side_name,
					nsides > 1 ? rows[1].nskipped : 0, nsides > 1 ? rows[1].side_name : "other input"),
			 errdetail_internal("%s.", detail.data),
			 errhint("exactgpu_last_join_skipped() lists every row left out.")));
	pfree(detail.data);
}

/* exactgpu_last_join_skipped() -> SETOF (side text, id text, reason text) */
Datum
exactgpu_last_join_skipped(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;

	InitMaterializedSRF(fcinfo, 0);
	for (size_t k = 0; k < nlast; k++)
	{
		Datum		values[3];
		bool		nulls[3] = {false, last[k].id == NULL, false};

		values[0] = CStringGetTextDatum(last[k].side);
		values[1] = last[k].id ? CStringGetTextDatum(last[k].id) : (Datum) 0;
		values[2] = CStringGetTextDatum(last[k].reason);
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
	}
	return (Datum) 0;
}
