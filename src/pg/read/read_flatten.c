/*
 * read_flatten.c — the batch joins' rows flattened into their batches
 * (exactgpu_rows_flatten): serially, or by parallel readers.
 *
 * A TOAST row is detoasted, parsed and flattened by whichever process
 * claims it, into a one-row batch copied into a DSA area (or, for a side
 * laid out in place, into the process's keep batch: read_in_place.c); the
 * leader takes the rows in order and copies them into the join's batch on
 * its thread pool. Nothing is parsed twice; worker threads never call
 * PostgreSQL (these are processes).
 *
 * Rows stored in line (drill holes: many small rows) are parsed by the
 * leader itself, on one thread, while the workers start on the TOAST rows,
 * when they are no more than its share of the work; else they go to the
 * workers too, in chunks of about INLINE_CHUNK_BYTES copied into the
 * segment. Either way one process per core parses. (The leader's thread
 * pool parsing them beside the workers ran 16 threads on cores the 15
 * workers held: 256 ms on the H100 machine; and there is no query time to
 * overlap the parsing with: the inner queries took 11 ms of a 1 s read.)
 */
#include "exactgpu.h"

#include "miscadmin.h"
#include "utils/memutils.h"

#include "join_options.h"
#include "read_parallel.h"
#include "resident_batch.h"

static uint8
batch_dims(const exg_batch *b)
{
	return b->nrows_z ? 3 : b->nrows_flat ? 2 : 0;
}

/* Parse one serialized geometry into the scratch's one-row batch. */
static exg_status
flatten_one(RowScratch *s, const uint8 *g, size_t len, exg_error *err)
{
	exg_batch_reset(&s->batch);
	return exg_batch_add_serialized(&s->batch, g, len, &s->shape, err);
}

/*
 * A TOAST row: detoast, parse and flatten it into the DSA area, or, if its
 * side is laid out in place, into this process's keep batch.
 */
static exg_status
flatten_toast(ReadTask *t, dsa_area *area, RowScratch *s, bool keep, exg_error *err)
{
	const uint8 *g;
	size_t		len;
	uint64		t0 = exg_now_ns(),
				t1;
	exg_status	st = exactgpu_read_detoast_geometry(t, s, &g, &len, err);

	t1 = exg_now_ns();
	s->detoast_ns += t1 - t0;
	if (keep)
	{
		/* appended to this process's keep batch, laid out later */
		exg_batch  *k = &s->keep;
		size_t		v0 = k->nverts,
					p0 = k->nprims,
					r0 = k->nrows,
					z0 = k->nrows_z,
					f0 = k->nrows_flat;

		if (st == EXG_OK)
			st = exg_batch_add_serialized(k, g, len, &s->shape, err);
		MemoryContextReset(s->cxt);
		s->parse_ns += exg_now_ns() - t1;
		if (st == EXG_OK)
		{
			t->keep_v0 = v0;
			t->keep_p0 = p0;
			t->nverts = k->nverts - v0;
			t->nprims = k->nprims - p0;
			t->solid = k->solid[r0];
			t->dims = k->nrows_z > z0 ? 3 : k->nrows_flat > f0 ? 2 : 0;
		}
		return st;
	}
	if (st == EXG_OK)
		st = flatten_one(s, g, len, err);
	MemoryContextReset(s->cxt);
	t0 = exg_now_ns();
	s->parse_ns += t0 - t1;
	if (st == EXG_OK)
	{
		size_t		vbytes = s->batch.nverts * 3 * sizeof(double),
					pbytes = s->batch.nprims * 3 * sizeof(uint32);

		t->flat = exactgpu_read_flat_allocate(area, vbytes + pbytes, err);
		if (!DsaPointerIsValid(t->flat))
			return EXG_ERR_NOMEM;
		memcpy(dsa_get_address(area, t->flat), s->batch.xyz, vbytes);
		memcpy((char *) dsa_get_address(area, t->flat) + vbytes, s->batch.tri, pbytes);
		t->nverts = s->batch.nverts;
		t->nprims = s->batch.nprims;
		t->solid = s->batch.solid[0];
		t->dims = batch_dims(&s->batch);
		s->copy_ns += exg_now_ns() - t0;
	}
	return st;
}

/*
 * In-line rows row0 .. row1 - 1, flattened one after another into the
 * scratch batch (its buffers kept from task to task), then copied into one
 * DSA block with each row's indices made relative to its own vertices, as
 * a TOAST row's. Their SRIDs were checked as the query ran.
 */
static exg_status
flatten_inline(ReadTask *t, const InlineRows *ir, dsa_area *area, RowScratch *s,
			   exg_error *err)
{
	uint32		nr = t->row1 - t->row0;
	const uint64 *off = INLINE_OFF(ir) + t->row0;
	const uint8 *data = INLINE_DATA(ir);
	uint64	   *nv = palloc(sizeof(uint64) * nr),
			   *np = palloc(sizeof(uint64) * nr);
	uint8	   *meta = palloc(2 * nr);
	exg_batch  *all = &s->batch;
	exg_status	st = EXG_OK;
	Size		head = MAXALIGN(2 * sizeof(uint64) * nr + 2 * nr);

	exg_batch_reset(all);
	for (uint32 j = 0; j < nr && st == EXG_OK; j++)
	{
		size_t		v0 = all->nverts,
					p0 = all->nprims,
					z0 = all->nrows_z,
					f0 = all->nrows_flat;

		st = exg_batch_add_serialized(all, data + off[j], off[j + 1] - off[j], &s->shape, err);
		if (st != EXG_OK)
			break;
		nv[j] = all->nverts - v0;
		np[j] = all->nprims - p0;
		meta[j] = all->solid[j];
		/* as batch_dims of the row alone */
		meta[nr + j] = all->nrows_z > z0 ? 3 : all->nrows_flat > f0 ? 2 : 0;
	}
	if (st == EXG_OK)
	{
		size_t		vbytes = all->nverts * 3 * sizeof(double),
					pbytes = all->nprims * 3 * sizeof(uint32);

		t->flat = exactgpu_read_flat_allocate(area, head + vbytes + pbytes, err);
		if (!DsaPointerIsValid(t->flat))
			st = EXG_ERR_NOMEM;
		else
		{
			char	   *p = dsa_get_address(area, t->flat);
			uint32	   *dt = (uint32 *) (p + head + vbytes);
			size_t		k = 0;
			uint32		vbase = 0;

			memcpy(p, nv, sizeof(uint64) * nr);
			memcpy(p + sizeof(uint64) * nr, np, sizeof(uint64) * nr);
			memcpy(p + 2 * sizeof(uint64) * nr, meta, 2 * nr);
			memcpy(p + head, all->xyz, vbytes);
			for (uint32 j = 0; j < nr; j++)
			{
				for (size_t e = k + 3 * np[j]; k < e; k++)
					dt[k] = all->tri[k] - vbase;
				vbase += (uint32) nv[j];
			}
			t->nverts = all->nverts;
			t->nprims = all->nprims;
		}
	}
	pfree(nv);
	pfree(np);
	pfree(meta);
	return st;
}

/*
 * TASK_INLINE and TASK_TOAST: flatten the task's rows into the DSA area
 * (any process), or into the keep batch where its side is laid out in place.
 */
exg_status
exactgpu_read_flatten_work(const ReadShared *sh, ReadTask *t, dsa_area *area, InlineRows **inl,
						   RowScratch *s, exg_error *err)
{
	exg_status	st;

	if (t->kind == TASK_INLINE)
	{
		uint64		t0 = exg_now_ns();

		st = flatten_inline(t, inl[t->side], area, s, err);
		s->parse_ns += exg_now_ns() - t0;
	}
	else
		st = flatten_toast(t, area, s, sh->in_place[t->side], err);
	return st;
}

/* The in-line rows of one side cut into tasks of about INLINE_CHUNK_BYTES. */
static uint32
inline_chunks(const ExactgpuRows *r, ReadTask *tasks, int side)
{
	uint32		nt = 0;
	size_t		row0 = 0;

	for (size_t i = 0; i < r->n; i++)
		if (i + 1 == r->n || r->off[i + 1] - r->off[row0] >= INLINE_CHUNK_BYTES)
		{
			if (tasks)
			{
				ReadTask   *t = &tasks[nt];

				t->kind = TASK_INLINE;
				t->side = (uint8) side;
				t->row0 = (uint32) row0;
				t->row1 = (uint32) (i + 1);
				t->work = r->off[i + 1] - r->off[row0];
			}
			nt++;
			row0 = i + 1;
		}
	return nt;
}

/* Parse the rows read in line, on the thread pool. */
static void
parse_inline(ExactgpuRows **rows, exg_batch **batch, int nsides)
{
	for (int k = 0; k < nsides; k++)
	{
		exg_row_bytes bytes = exactgpu_rows_bytes(rows[k]);
		exg_error	err = {0};

		if (exg_batch_add_rows(batch[k], &bytes,
							   exactgpu_threads_for(rows[k]->len, EXACTGPU_PARSE_BYTES_PER_THREAD),
							   &err) != EXG_OK)
			exactgpu_rows_report(rows[k], &err);
	}
}

/* Serially: detoast here, then parse everything on the thread pool. */
static void
flatten_serial(ExactgpuRows **rows, exg_batch **batch, int nsides, ExactgpuReadReport *rep)
{
	uint64		t0;

	exactgpu_read_detoast_here(rows, nsides, rep);
	t0 = exg_now_ns();
	parse_inline(rows, batch, nsides);
	rep->parse_ms = (exg_now_ns() - t0) / 1e6;
}

/* Task t's rows as flattened rows (pointers into the DSA area). */
static size_t
task_rows(const ReadTask *t, dsa_area *area, exg_flat_row *out)
{
	const char *p = dsa_get_address(area, t->flat);

	if (t->kind == TASK_TOAST)
	{
		out->nverts = t->nverts;
		out->nprims = t->nprims;
		out->solid = t->solid;
		out->dims = t->dims;
		out->xyz = (const double *) p;
		out->tri = (const uint32 *) (p + t->nverts * 3 * sizeof(double));
		return 1;
	}
	else
	{
		uint32		nr = t->row1 - t->row0;
		const uint64 *nv = (const uint64 *) p,
				   *np = nv + nr;
		const uint8 *meta = (const uint8 *) (np + nr);
		const double *xyz = (const double *) (p + MAXALIGN(2 * sizeof(uint64) * nr + 2 * nr));
		const uint32 *tri = (const uint32 *) (xyz + 3 * t->nverts);

		for (uint32 j = 0; j < nr; j++)
		{
			out[j].nverts = nv[j];
			out[j].nprims = np[j];
			out[j].solid = meta[j];
			out[j].dims = meta[nr + j];
			out[j].xyz = xyz;
			out[j].tri = tri;
			xyz += 3 * nv[j];
			tri += 3 * np[j];
		}
		return nr;
	}
}

/*
 * Both sides' rows to the workers: per side its in-line rows in chunks,
 * then its TOAST rows one by one, so that task order is batch row order and
 * the first failed task is the row a serial reading would have reported.
 * With leader_inline, the leader parses the in-line rows itself, on one
 * thread, while the workers start on the TOAST rows, then joins them.
 */
static void
flatten_parallel(ExactgpuRows **rows, exg_batch **batch, int nsides, int nworkers,
				 bool leader_inline, ExactgpuReadReport *rep)
{
	uint64		t0 = exg_now_ns();
	uint32		ntasks = 0,
				first[3];
	size_t		nflat = 0;
	ParallelContext *pcxt;
	ReadShared *sh;
	ReadTask   *tasks;
	InlineRows *inl[2] = {NULL, NULL};
	dsa_area   *area;
	RowScratch *s;
	exg_flat_row *flat;
	exg_flat_row *meta[2] = {NULL, NULL};	/* the rows of sides laid out in place */
	uint64		nv[2] = {0, 0},
				np[2] = {0, 0};
	bool	   *seen = palloc0(sizeof(bool) * nworkers);
	Size		tsize;
	exg_error	inline_err[2] = {{0}},
				later = {0};	/* the first row that did not parse */
	const char *later_context = NULL;

	for (int k = 0; k < nsides; k++)
	{
		uint64		nk = (leader_inline ? 0 : (uint64) inline_chunks(rows[k], NULL, k)) +
			rows[k]->ntoast;

		first[k] = ntasks;
		if (nk >= PG_UINT32_MAX - ntasks)
			ereport(ERROR,
					(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
					 errmsg("%s: too many rows in one join input", rows[k]->context)));
		ntasks += (uint32) nk;
		nflat = Max(nflat, rows[k]->n + rows[k]->ntoast);
	}
	first[nsides] = ntasks;
	tsize = tasks_size(ntasks);

	EnterParallelMode();
	pcxt = CreateParallelContext("exactgpu", "exactgpu_read_worker_main", nworkers);
	shm_toc_estimate_chunk(&pcxt->estimator, sizeof(ReadShared));
	shm_toc_estimate_chunk(&pcxt->estimator, tsize);
	shm_toc_estimate_chunk(&pcxt->estimator, dsa_minimum_size());
	shm_toc_estimate_keys(&pcxt->estimator, 3 + nsides);
	for (int k = 0; k < nsides; k++)
		if (rows[k]->n > 0 && !leader_inline)
			shm_toc_estimate_chunk(&pcxt->estimator, INLINE_SIZE(rows[k]->n, rows[k]->len));
	InitializeParallelDSM(pcxt);

	sh = exactgpu_read_shared_create(pcxt, batch[0]->naxes, (int) batch[0]->policy, ntasks);
	/* a side of TOAST rows only is laid out in place (read_in_place.c) */
	for (int k = 0; k < nsides; k++)
		if (exactgpu_read_in_place && rows[k]->n == 0 && rows[k]->ntoast > 0 &&
			batch[k]->nrows == 0)
		{
			sh->in_place[k] = true;
			sh->nplace += (uint32) rows[k]->ntoast;
			meta[k] = palloc_extended(sizeof(exg_flat_row) * rows[k]->ntoast, MCXT_ALLOC_HUGE);
		}
	tasks = shm_toc_allocate(pcxt->toc, tsize);
	memset(tasks, 0, tsize);
	for (int k = 0; k < nsides; k++)
	{
		ExactgpuRows *r = rows[k];
		uint32		nin = leader_inline ? 0 : inline_chunks(r, &tasks[first[k]], k);

		if (r->n > 0 && !leader_inline)
		{
			/* the bytes in line, as the receiver collected them */
			inl[k] = shm_toc_allocate(pcxt->toc, INLINE_SIZE(r->n, r->len));
			inl[k]->n = r->n;
			inl[k]->len = r->len;
			for (size_t i = 0; i <= r->n; i++)
				INLINE_OFF(inl[k])[i] = r->off[i];
			memcpy((uint8 *) INLINE_DATA(inl[k]), r->data, r->len);
			shm_toc_insert(pcxt->toc, READ_KEY_INLINE + k, inl[k]);
		}
		for (size_t i = 0; i < r->ntoast; i++)
		{
			ReadTask   *t = &tasks[first[k] + nin + i];

			t->kind = TASK_TOAST;
			t->side = (uint8) k;
			memcpy(t->ptr, r->toast[i].ptr, TOAST_POINTER_SIZE);
		}
	}
	area = exactgpu_read_launch(pcxt, sh, tasks, true, true);
	rep->workers_planned = nworkers;

	if (leader_inline)
	{
		uint64		tp = exg_now_ns();

		/* a row that does not parse is raised after the SRIDs (exactgpu_read_await_task) */
		for (int k = 0; k < nsides; k++)
		{
			exg_row_bytes bytes = exactgpu_rows_bytes(rows[k]);

			if (exg_batch_add_rows(batch[k], &bytes, 1, &inline_err[k]) != EXG_OK &&
				fails_at_once(&inline_err[k]))
				exactgpu_rows_report(rows[k], &inline_err[k]);
		}
		rep->parse_ms = (exg_now_ns() - tp) / 1e6;
	}

	/* the leader takes the rows in order, flattening unclaimed ones itself */
	s = exactgpu_read_scratch_create(sh);
	flat = palloc_extended(sizeof(exg_flat_row) * (nflat ? nflat : 1), MCXT_ALLOC_HUGE);
	for (int k = 0; k < nsides; k++)
	{
		size_t		nrows = 0;
		uint64		nbytes = 0;
		exg_error	err = {0};
		uint64		tg;

		/* the rows in batch order: the side's in-line rows come first */
		if (later.status == EXG_OK && inline_err[k].status != EXG_OK)
		{
			later = inline_err[k];
			later_context = rows[k]->context;
			if (later.row > 0)
				exactgpu_rows_name_row(rows[k], later.row - 1, &later);
		}
		for (uint32 i = first[k]; i < first[k + 1]; i++)
		{
			ReadTask   *t = &tasks[i];
			bool		failed_before = later.status != EXG_OK;

			if (exactgpu_read_await_task(pcxt, sh, tasks, i, area, inl, s, exactgpu_read_flatten_work,
										 rows[k]->context, seen, nworkers,
						   &later))
				rep->workers++;
			/* a TOAST row that did not parse: named by its id, as the serial read names it */
			if (!failed_before && later.status != EXG_OK && t->kind == TASK_TOAST)
			{
				/* the side's TOAST rows are its last tasks, in order */
				size_t		j = (size_t) (i - first[k]) -
					((size_t) (first[k + 1] - first[k]) - rows[k]->ntoast);

				if (j < rows[k]->ntoast)
					exactgpu_rows_name_id(rows[k], rows[k]->toast[j].id, &later);
			}
			if (later.status != EXG_OK && later_context == NULL)
				later_context = rows[k]->context;
			if (t->kind == TASK_TOAST && t->srid_read)
				/* the side's TOAST rows are its last tasks, in order */
				exactgpu_rows_note_srid(rows[k], t->srid,
										(size_t) (i - first[k]) -
										((size_t) (first[k + 1] - first[k]) - rows[k]->ntoast));
			if (later.status != EXG_OK)
				continue;		/* only the SRIDs are left to check */
			if (sh->in_place[k])
			{
				/* its place; laid out once every row is flattened */
				t->vbase = nv[k];
				t->pbase = np[k];
				t->row = (uint32) nrows;
				meta[k][nrows] = (exg_flat_row) {NULL, NULL, t->nverts, t->nprims, t->solid, t->dims};
				nv[k] += t->nverts;
				np[k] += t->nprims;
				nrows++;
				continue;
			}
			nrows += task_rows(t, area, &flat[nrows]);
			nbytes += t->nverts * 24 + t->nprims * 16;
		}
		if (later.status != EXG_OK)
			continue;
		Assert(nrows == (leader_inline ? 0 : rows[k]->n) + rows[k]->ntoast);
		if (sh->in_place[k])
			continue;

		/* one copy into the batch, on the thread pool (no PostgreSQL calls) */
		tg = exg_now_ns();
		if (exg_batch_append_flat(batch[k], flat, nrows,
								  nbytes >= FLAT_PARALLEL_MIN_BYTES ? exactgpu_threads() : 1,
								  &err) != EXG_OK)
			exactgpu_report(&err, rows[k]->context);
		exactgpu_rows_append_toast_ids(rows[k]);
		rep->gather_ms += (exg_now_ns() - tg) / 1e6;
	}
	if (later.status != EXG_OK)
		exactgpu_report(&later, later_context);
	exactgpu_read_scratch_publish(s, sh);
	if (sh->nplace > 0)
	{
		uint64		tg = exg_now_ns();

		exactgpu_read_place_sides(pcxt, sh, tasks, s, rows, batch, nsides, meta, nv, np, rep);
		rep->gather_ms += (exg_now_ns() - tg) / 1e6;
		rep->in_place = (int) sh->in_place[0] + (int) sh->in_place[1];
	}
	exactgpu_read_scratch_free(s);
	rep->wait_ms = (exg_now_ns() - t0) / 1e6 - rep->gather_ms - rep->parse_ms;
	pfree(flat);
	for (int k = 0; k < 2; k++)
		if (meta[k])
			pfree(meta[k]);
	pfree(seen);

	/*
	 * Unmapping the flattened rows and freeing the segments' pages is not
	 * free (~0.2 ms per MB on the H100 machine's tmpfs): timed on its own.
	 */
	t0 = exg_now_ns();
	exactgpu_read_finish(pcxt, area, sh, rep);
	rep->release_ms = (exg_now_ns() - t0) / 1e6;
	rep->parallel = rep->workers > 0;
}

/* The sides not taken from the resident store, read as below. */
static void flatten_read(ExactgpuRows **rows, exg_batch **batch, int nsides,
						 ExactgpuReadReport *rep);

/*
 * A side of bodies kept flattened in the resident store (resident_batch.h)
 * is borrowed from it, not read; the others are read, and a side that
 * qualifies but was not kept is kept once flattened.
 */
void
exactgpu_rows_flatten(ExactgpuRows **rows, exg_batch **batch, int nsides,
					  ExactgpuReadReport *rep)
{
	ResidentBatchWant want[2];
	ExactgpuRows *read_rows[2];
	exg_batch  *read_batch[2];
	int			nread = 0,
				resident = 0;
	uint64		resident_rows = 0,
				resident_bytes = 0,
				read_bytes = 0;

	Assert(nsides >= 1 && nsides <= 2);
	for (int k = 0; k < nsides; k++)
	{
		/* before the borrow, which moves the TOAST rows to the ids */
		uint64		ntoast = rows[k]->ntoast;

		if (exactgpu_resident_batch_get(rows[k], batch[k], &want[k]))
		{
			resident++;
			resident_rows += ntoast;
			resident_bytes += rows[k]->toast_bytes;
			continue;
		}
		read_bytes += rows[k]->toast_bytes + rows[k]->len;
		read_rows[nread] = rows[k];
		read_batch[nread++] = batch[k];
	}
	if (nread > 0)
		flatten_read(read_rows, read_batch, nread, rep);
	else
		memset(rep, 0, sizeof(*rep));
	rep->resident_sides = resident;
	rep->resident_rows = resident_rows;
	rep->resident_bytes = resident_bytes;
	rep->read_bytes = read_bytes;
	for (int k = 0; k < nsides; k++)
		if (want[k].wanted)
			exactgpu_resident_batch_keep(&want[k], rows[k], batch[k]);
}

static void
flatten_read(ExactgpuRows **rows, exg_batch **batch, int nsides, ExactgpuReadReport *rep)
{
	uint64		ntoast = 0,
				ntasks = 0,
				toast_bytes = 0,
				inline_bytes = 0;
	int			nworkers;

	Assert(nsides >= 1 && nsides <= 2);
	memset(rep, 0, sizeof(*rep));
	for (int k = 0; k < nsides; k++)
	{
		ntoast += rows[k]->ntoast;
		ntasks += rows[k]->ntoast + inline_chunks(rows[k], NULL, k);
		toast_bytes += rows[k]->toast_bytes;
		inline_bytes += rows[k]->len;
	}
	nworkers = exactgpu_read_workers_wanted(ntoast, ntasks, toast_bytes + inline_bytes);

	/*
	 * The rows in line no more than the leader's share of the work (holes
	 * beside bodies): the leader parses them itself, straight into the
	 * batch, while the workers start; on the 2-core machine that read the
	 * 20,000-hole mine 14% faster than sending them through shared memory.
	 * More than its share: chunks to the workers too.
	 */
	if (nworkers > 0)
		flatten_parallel(rows, batch, nsides, nworkers,
						 inline_bytes * (uint64) (nworkers + 1) <= toast_bytes, rep);
	else
		flatten_serial(rows, batch, nsides, rep);
}

