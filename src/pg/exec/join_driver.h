/*
 * join_driver.h — the one batch-join driver of the PostgreSQL layer.
 *
 * Every batch join runs through here: the set-returning functions
 * (ST_Exact*Join, ST_BoxJoin / ST_3DBoxJoin, the intercepts joins), the
 * custom scans ExactJoin and ExactBoxJoin, and the self-intersection join
 * of the validity functions. The driver reads both sides (the parallel
 * read where it pays), checks SRIDs and Z once, builds the engine options
 * once (exactgpu_join_options), calls the engine, names a failing row by
 * its id, and fills exactgpu_last_join_stats() and the progress NOTICEs.
 * Its callers keep the Datum and tuple work: what rows go in, what the
 * pairs become. It is the only file outside the engine that calls the
 * engine's join entry points.
 */
#ifndef EXACTGPU_JOIN_DRIVER_H
#define EXACTGPU_JOIN_DRIVER_H

#include "exactgpu.h"

#include "join_rows.h"

/* What a batch join computes. */
typedef enum ExactgpuJoinKind
{
	EXACTGPU_JOIN_INTERSECTS,	/* rows whose geometries meet (surfaces as surfaces) */
	EXACTGPU_JOIN_VOLUME,		/* left rows are closed bodies as volumes */
	EXACTGPU_JOIN_LOCATE,		/* points (left) in closed bodies (right) */
	EXACTGPU_JOIN_INTERCEPTS,	/* drill holes (left) through bodies (right) */
	EXACTGPU_JOIN_BOXES			/* rows whose exact boxes meet */
} ExactgpuJoinKind;

/*
 * The pairs of a box join, a chunk at a time. It may raise an ERROR: the
 * driver catches it where the engine called back, and raises it again once
 * the engine has returned (an ERROR must not unwind through the engine).
 */
typedef void (*ExactgpuBoxEmit) (void *arg, const exg_pair *p, size_t n);

/*
 * One batch join: both sides' rows, their batches or boxes, and what the
 * engine returned. Made in the caller's memory context, whose reset frees
 * the engine's memory (errors included).
 */
typedef struct ExactgpuJoin
{
	ExactgpuJoinKind kind;
	int			naxes;
	const char *context;		/* the SQL name, for messages */
	const char *side_name[2];	/* in messages: "left input", "holes", ... */
	bool		name_rows;		/* ids are the user's: name a failing row by its id */
	bool		planned_cpu;	/* a custom scan planned for the CPU */
	bool		lazy;			/* no engine call when a side is empty, as a
								 * nested loop calls no predicate */
	ExactgpuRows rows[2];		/* as read; batch row i is the row of ids[i] */
	exg_batch	batch[2];
	/* the row pairs, (left row << 32) | right row, sorted (malloc'ed) */
	uint64_t   *pairs;
	size_t		npairs;
	int64	   *place_ids[2];	/* exactgpu_join_run(by_id): the id of each place */
	exg_intercept_set set;		/* EXACTGPU_JOIN_INTERCEPTS: the intercepts */
	/* EXACTGPU_JOIN_BOXES: the rows with a box (empty ones meet nothing) */
	double	   *box[2];			/* 2 * naxes doubles a row: lows, then highs */
	int64	   *box_ids[2];
	size_t		nbox[2];
	ExactgpuReadReport read;
	uint64		t_start;
	uint64		t_join;			/* the engine's start */
	MemoryContextCallback cb;
} ExactgpuJoin;

/* A join of this kind, its rows still to be read (context: the SQL name). */
ExactgpuJoin *exactgpu_join_new(ExactgpuJoinKind kind, int naxes, const char *context);

/*
 * Read both sides from two inner queries (id, geom), or from two
 * exactgpu_batch values (a custom scan adds its children's rows to
 * j->rows itself, exactgpu_rows_add / exactgpu_rows_add_toast). Big geometries stay TOAST pointers for the
 * parallel read, except for the intercepts, which read every row's bytes
 * again after the join.
 */
void		exactgpu_join_read_queries(ExactgpuJoin *j, const char *left_sql,
									   const char *right_sql);
void		exactgpu_join_read_batches(ExactgpuJoin *j, Datum left, Datum right);

/*
 * Flatten, check and join both sides (kinds INTERSECTS, VOLUME, LOCATE,
 * INTERCEPTS): j->pairs. With by_id the pairs come in the order of the
 * ids, each id pair once, and j->place_ids give the ids (rows that share an
 * id are one object); otherwise in batch row order. The intercepts of each
 * pair follow in j->set (pairs in id order).
 */
void		exactgpu_join_run(ExactgpuJoin *j, bool by_id);

/*
 * The exact box of every row (kind BOXES): j->box, j->box_ids, j->nbox;
 * then their box join, the pairs handed to emit chunk by chunk as engine
 * rows (box row i is the row of j->box_ids[k][i]).
 */
void		exactgpu_join_read_boxes(ExactgpuJoin *j);
void		exactgpu_join_boxes(ExactgpuJoin *j, ExactgpuBoxEmit emit, void *arg);

/* The pairs are out: row_pairs result rows. Completes exactgpu_last_join_stats(). */
void		exactgpu_join_done(ExactgpuJoin *j, uint64 row_pairs);

/* Give the engine's memory back now (also done when the context goes). */
void		exactgpu_join_free(ExactgpuJoin *j);

/*
 * ExactBoxJoin: boxes it read itself (PostGIS's float boxes), joined in one
 * or more engine calls, each axis group once; one report.
 */
typedef struct ExactgpuBoxCalls
{
	const char *context;
	exg_join_options opt;
	const char *cpu_because;	/* why the CPU was forced, or NULL */
	exg_join_stats stats;		/* summed over the calls */
	int			calls;
	uint64		t_start;
	uint64		t_join;
} ExactgpuBoxCalls;

/* Before the first call: nboxes boxes on both sides; t_start: the reading's start. */
void		exactgpu_box_calls_begin(ExactgpuBoxCalls *bc, const char *context, uint64 nboxes,
									 bool planned_cpu, uint64 t_start);
void		exactgpu_box_calls_join(ExactgpuBoxCalls *bc, const exg_box_set *A,
									const exg_box_set *B, int naxes, ExactgpuBoxEmit emit,
									void *arg);
/* After the last call: fills exactgpu_last_join_stats(). */
void		exactgpu_box_calls_end(ExactgpuBoxCalls *bc, const char *semantics, uint64 rows[2],
								   uint64 boxes[2], uint64 row_pairs);

/*
 * The face pairs of a surface's triangles (face: each triangle's face) that
 * meet improperly (validity): malloc'ed, sorted. Reported in
 * exactgpu_last_join_stats() as a self-join of one row.
 */
exg_pair   *exactgpu_join_self(const exg_prim_set *T, const uint32_t *face, size_t *n,
							   const char *context);

#endif							/* EXACTGPU_JOIN_DRIVER_H */
