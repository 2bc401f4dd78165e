/*
 * geom_cache.c — detoasting, parsing and caching geometry arguments.
 */
#include "geom_cache.h"

#include "access/detoast.h"
#include "common/hashfn.h"
#include "utils/memutils.h"

#include "exactgpu_engine.h"
#include "join_options.h"
#include "resident_store.h"

#define GEOM_CACHE_ENTRIES EXACTGPU_GEOM_CACHE_ENTRIES
/* Prepared geometries kept per call site; a 10^6-triangle body is ~150 MB. */
#define GEOM_CACHE_BUDGET ((Size) 1024 * 1024 * 1024)

typedef struct GeomCacheEntry
{
	bool		valid;
	bool		by_toast;		/* identity is the TOAST pointer, else the bytes */
	bool		by_raw;			/* ... the bytes as stored in line (maybe compressed) */
	Oid			toastrelid;
	Oid			valueid;
	int32		extsize;		/* TOAST: the stored (maybe compressed) size */
	Size		len;
	char	   *bytes;			/* detoasted copy, in the cache context */
	int			policy;
	Size		footprint;
	uint64		last_used;
	bool		resident;		/* prep borrows a block of the resident store */
	uint64		resident_gen;	/* ... pinned in this generation of pins */
	const void *block;			/* ... that block (its solid verdicts kept beside it) */
	exg_prepared prep;
} GeomCacheEntry;

typedef struct GeomCache
{
	MemoryContext mcxt;
	uint64		tick;
	Size		footprint;
	GeomCacheEntry entries[GEOM_CACHE_ENTRIES];
	MemoryContextCallback free_cb;
} GeomCache;

static void
entry_release(GeomCache *cache, GeomCacheEntry *e)
{
	if (!e->valid)
		return;
	exg_prepared_free(&e->prep);
	if (e->bytes)
		pfree(e->bytes);
	cache->footprint -= e->footprint;
	memset(e, 0, sizeof(*e));
}

/* The engine's memory is malloc'ed: free it when the query's context goes. */
static void
cache_free_callback(void *arg)
{
	GeomCache  *cache = arg;
	int			i;

	for (i = 0; i < GEOM_CACHE_ENTRIES; i++)
		if (cache->entries[i].valid)
		{
			exg_prepared_free(&cache->entries[i].prep);
			cache->entries[i].valid = false;
		}
}

static GeomCache *
cache_get(FunctionCallInfo fcinfo)
{
	GeomCache  *cache = fcinfo->flinfo->fn_extra;

	if (cache == NULL)
	{
		cache = MemoryContextAllocZero(fcinfo->flinfo->fn_mcxt, sizeof(GeomCache));
		cache->mcxt = fcinfo->flinfo->fn_mcxt;
		cache->free_cb.func = cache_free_callback;
		cache->free_cb.arg = cache;
		MemoryContextRegisterResetCallback(cache->mcxt, &cache->free_cb);
		fcinfo->flinfo->fn_extra = cache;
	}
	return cache;
}

static void
parse_bytes(const struct varlena *v, exg_shape *out, const char *context)
{
	exg_error	err = {0};

	exg_shape_init(out);
	if (exg_gserialized_read((const uint8_t *) VARDATA(v), VARSIZE(v) - VARHDRSZ,
							 out, &err) != EXG_OK)
		exactgpu_report(&err, context);
}

void
exactgpu_geom_parse(Datum d, exg_shape *out, const char *context)
{
	struct varlena *v = PG_DETOAST_DATUM(d);

	parse_bytes(v, out, context);
	if ((Pointer) v != DatumGetPointer(d))
		pfree(v);
}

void
exactgpu_check_srids(const exg_shape *a, const exg_shape *b, const char *context)
{
	if (a->srid != b->srid)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("%s: operation on mixed SRID geometries (%d and %d)",
						context, a->srid, b->srid),
				 errhint("Transform one geometry with ST_Transform, or set the SRID with ST_SetSRID.")));
}

/*
 * 3D functions refuse to meet a geometry without Z with one that has Z:
 * z = 0 would silently answer another question than the user's (a lease
 * outline against drill holes at depth meets nothing), and PostGIS's
 * "any z" reading is not an exact set.
 */
void
exactgpu_check_dims(bool a_z, bool a_flat, bool b_z, bool b_flat, const char *context)
{
	if ((a_z && b_flat) || (a_flat && b_z))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("%s: a geometry without Z meets a geometry with Z in a 3D function", context),
				 errdetail("exactgpu does not guess an elevation for 2D geometries."),
				 errhint("Give the 2D geometry its elevation with ST_Force3D(geom, z), or compare in 2D with ST_ExactIntersects / ST_ExactIntersectsJoin.")));
}

void
exactgpu_check_shape_dims(const exg_shape *a, const exg_shape *b, const char *context)
{
	if (!exg_shape_is_empty(a) && !exg_shape_is_empty(b))
		exactgpu_check_dims(a->has_z, !a->has_z, b->has_z, !b->has_z, context);
}

bool
exactgpu_shape_has_face(const exg_shape *s)
{
	for (size_t c = 0; c < s->ncomps; c++)
		if (s->comps[c].kind == EXG_COMP_POLYGON || s->comps[c].kind == EXG_COMP_TRIANGLE)
			return true;
	return false;
}

/*
 * A body that is no surface beside another argument that is one: the
 * arguments were swapped (a hole or a point where the body goes). Say the
 * expected order rather than "not a closed surface".
 */
void
exactgpu_check_body_arg(const exg_shape *body, int body_argno, bool other_is_surface,
						const char *signature, const char *context)
{
	if (exg_shape_is_empty(body) || exactgpu_shape_has_face(body) || !other_is_surface)
		return;
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
			 errmsg("%s: argument %d must be the body, a closed surface (TIN or POLYHEDRALSURFACE Z), but it is a %s and argument %d is a surface: are the arguments swapped?",
					context, body_argno + 1,
					body->comps[0].kind == EXG_COMP_POINT ? "point" : "line",
					body_argno == 0 ? 2 : 1),
			 errhint("The arguments are %s.", signature)));
}

/*
 * Bytes a prepared geometry will hold once its views and index are built:
 * about four times its serialized size (vertices, classified primitives with
 * boxes, index nodes). An estimate, made before the views exist.
 */
static Size
prepared_footprint(Size len)
{
	return 4 * len;
}

static GeomCacheEntry *
cache_victim(GeomCache *cache, const exg_prepared *keep)
{
	GeomCacheEntry *victim = NULL;
	int			i;

	for (i = 0; i < GEOM_CACHE_ENTRIES; i++)
	{
		GeomCacheEntry *e = &cache->entries[i];

		if (!e->valid)
			return e;
		if (&e->prep == keep)
			continue;
		if (victim == NULL || e->last_used < victim->last_used)
			victim = e;
	}
	return victim;
}

/*
 * The views the predicates read, built before a geometry is kept, so that
 * what is kept serves them: the 3D view and its index for a geometry with Z,
 * the 2D views otherwise. A view that fails to build (a non-planar face, an
 * invalid polygon) is left to the predicate, which reports it; the geometry
 * is then not kept.
 */
static bool
warm_views(exg_prepared *g)
{
	exg_error	err = {0};

	if (g->shape.has_z)
		return exg_prepared_view(g, 3, true, &err) == EXG_OK;
	return exg_prepared_view(g, 2, true, &err) == EXG_OK &&
		exg_prepared_areas2d(g, &err) == EXG_OK;
}

/* Over budget: drop the least recently used entries other than e and keep. */
static void
cache_trim(GeomCache *cache, GeomCacheEntry *e, const exg_prepared *keep)
{
	while (cache->footprint > GEOM_CACHE_BUDGET)
	{
		GeomCacheEntry *old = NULL;

		for (int i = 0; i < GEOM_CACHE_ENTRIES; i++)
		{
			GeomCacheEntry *c = &cache->entries[i];

			if (c->valid && c != e && &c->prep != keep &&
				(old == NULL || c->last_used < old->last_used))
				old = c;
		}
		if (old == NULL)
			break;
		entry_release(cache, old);
	}
}

static void
pack_fill(void *dst, void *arg)
{
	exg_prepared_pack((const exg_prepared *) arg, dst);
}

const void *
exactgpu_geom_keep_prepared(const ResidentKey *rkey, exg_prepared *g, Size *size)
{
	if (!warm_views(g))
		return NULL;
	*size = exg_prepared_packed_size(g);
	return exactgpu_resident_put(rkey, *size, (Size) rkey->rawsize, pack_fill, g);
}

/*
 * The resident block of a TOASTed value, pinned: kept first if no backend
 * has. NULL when the value has no resident identity or cannot be kept (no
 * room, a body larger than half the store, a view that does not build);
 * then, if it was prepared here on the way (*prepared), mine holds it for
 * the caller, who would otherwise detoast and parse it again (a big body
 * cost twice as much with the store as without: 188 ms against 95 for 20
 * queries on the 2-core machine), else the caller prepares it itself.
 */
static const void *
resident_block(Datum d, const struct varlena *raw, Size *size, exg_prepared *mine,
			   bool *prepared, const char *context)
{
	ResidentKey rkey;
	const void *block;

	*prepared = false;
	if (!exactgpu_resident_key(raw, exactgpu_nonplanar_faces, &rkey))
		return NULL;
	block = exactgpu_resident_get(&rkey, size);
	if (block == NULL)
	{
		struct varlena *v = PG_DETOAST_DATUM(d);
		exg_shape	shape;

		parse_bytes(v, &shape, context);
		if ((Pointer) v != DatumGetPointer(d))
			pfree(v);
		exg_prepared_init(mine, &shape, (exg_nonplanar_policy) exactgpu_nonplanar_faces);
		PG_TRY();
		{
			block = exactgpu_geom_keep_prepared(&rkey, mine, size);
		}
		PG_CATCH();
		{
			exg_prepared_free(mine);
			PG_RE_THROW();
		}
		PG_END_TRY();
		if (block != NULL)
			exg_prepared_free(mine);
		else
			*prepared = true;
	}
	return block;
}

/*
 * A TOASTed argument borrowed from the resident store, or prepared here
 * when it could not be kept; NULL when it has no resident identity (see
 * above).
 */
static GeomCacheEntry *
resident_entry(GeomCache *cache, Datum d, struct varlena *raw, exg_prepared *keep,
			   const char *context)
{
	Size		size = 0;
	exg_prepared mine;
	bool		prepared;
	const void *block = resident_block(d, raw, &size, &mine, &prepared, context);
	GeomCacheEntry *e;
	exg_error	err = {0};
	struct varatt_external toast;

	if (block == NULL && !prepared)
		return NULL;
	VARATT_EXTERNAL_GET_POINTER(toast, raw);
	e = cache_victim(cache, keep);
	entry_release(cache, e);
	e->by_toast = true;
	e->toastrelid = toast.va_toastrelid;
	e->valueid = toast.va_valueid;
	/* the solid verdicts' memo reads these (as the path without the store) */
	e->extsize = VARATT_EXTERNAL_GET_EXTSIZE(toast);
	e->len = toast.va_rawsize;
	e->policy = exactgpu_nonplanar_faces;
	e->last_used = ++cache->tick;
	if (block == NULL)
	{
		/* not kept: this call site's own, as without the store */
		e->prep = mine;
		e->valid = true;
		e->footprint = prepared_footprint(e->len);
		cache->footprint += e->footprint;
		cache_trim(cache, e, keep);
		return e;
	}
	if (exg_prepared_borrow(block, size, &e->prep, &err) != EXG_OK)
		exactgpu_report(&err, context);
	e->resident = true;
	e->resident_gen = exactgpu_resident_generation();
	e->block = block;
	e->valid = true;
	e->footprint = 0;			/* in shared memory, counted by the store */
	return e;
}

bool
exactgpu_geom_make_resident(Datum d, const char *context)
{
	Size		size;
	const void *block;
	exg_prepared mine;
	bool		prepared;

	if (!exactgpu_resident_enabled())
		return false;
	block = resident_block(d, (const struct varlena *) DatumGetPointer(d), &size, &mine,
						   &prepared, context);
	if (prepared)
		exg_prepared_free(&mine);
	if (block == NULL)
		return false;
	/* kept for later queries: this one does not read it */
	exactgpu_resident_unpin(block);
	return true;
}

exg_prepared *
exactgpu_geom_get(FunctionCallInfo fcinfo, int argno, exg_prepared *keep,
				  const char *context)
{
	GeomCache  *cache = cache_get(fcinfo);
	Datum		d = PG_GETARG_DATUM(argno);
	struct varlena *raw = (struct varlena *) DatumGetPointer(d);
	struct varlena *v = NULL;
	bool		by_toast = VARATT_IS_EXTERNAL_ONDISK(raw);

	/*
	 * A value stored in line is its own identity, compressed or not: PostGIS
	 * keeps geometries in line up to ~8 kB compressed (tens of kB of
	 * vertices), and decompressing one only to compare it took 6-12 us a
	 * call where the comparison of its compressed bytes takes well under 1.
	 * Two values with the same stored bytes are the same geometry; the same
	 * geometry stored differently only misses the cache.
	 */
	bool		by_raw = !VARATT_IS_EXTERNAL(raw);
	const char *key;
	Size		key_len;
	struct varatt_external toast = {0};
	GeomCacheEntry *e;
	exg_shape	shape;
	int			i;

	if (by_toast)
		VARATT_EXTERNAL_GET_POINTER(toast, raw);
	else if (!by_raw)
		v = PG_DETOAST_DATUM(d);
	key = by_raw ? (const char *) raw : (const char *) v;
	key_len = by_toast ? 0 : by_raw ? VARSIZE_ANY(raw) : VARSIZE(v);

	for (i = 0; i < GEOM_CACHE_ENTRIES; i++)
	{
		e = &cache->entries[i];
		if (!e->valid || e->by_toast != by_toast || e->by_raw != by_raw ||
			e->policy != exactgpu_nonplanar_faces)
			continue;
		if (by_toast ? (e->toastrelid == toast.va_toastrelid && e->valueid == toast.va_valueid)
			: (e->len == key_len && memcmp(e->bytes, key, key_len) == 0))
		{
			/* a resident block pinned by an earlier transaction may be gone */
			if (e->resident && e->resident_gen != exactgpu_resident_generation())
			{
				if (&e->prep == keep)
					ereport(ERROR,
							(errcode(ERRCODE_INTERNAL_ERROR),
							 errmsg("%s: a resident geometry outlived its transaction", context)));
				entry_release(cache, e);
				break;
			}
			e->last_used = ++cache->tick;
			return &e->prep;
		}
	}

	if (by_toast && exactgpu_resident_enabled())
	{
		e = resident_entry(cache, d, raw, keep, context);
		if (e != NULL)
			return &e->prep;
	}

	/* Miss: parse (detoasting now if we skipped it), then take a slot. */
	if (v == NULL)
		v = PG_DETOAST_DATUM(d);
	parse_bytes(v, &shape, context);

	e = cache_victim(cache, keep);
	entry_release(cache, e);
	e->by_toast = by_toast;
	e->by_raw = by_raw;
	e->toastrelid = toast.va_toastrelid;
	e->valueid = toast.va_valueid;
	e->extsize = by_toast ? VARATT_EXTERNAL_GET_EXTSIZE(toast) : 0;
	e->len = by_toast ? VARSIZE(v) : key_len;
	if (!by_toast)
	{
		e->bytes = MemoryContextAlloc(cache->mcxt, e->len);
		memcpy(e->bytes, key, e->len);
	}
	e->policy = exactgpu_nonplanar_faces;
	exg_prepared_init(&e->prep, &shape, (exg_nonplanar_policy) exactgpu_nonplanar_faces);
	e->valid = true;
	e->last_used = ++cache->tick;
	e->footprint = prepared_footprint(VARSIZE(v));
	cache->footprint += e->footprint;

	cache_trim(cache, e, keep);
	if ((Pointer) v != DatumGetPointer(d))
		pfree(v);
	return &e->prep;
}

/*
 * ---- Solid verdicts (solid_check.h) remembered for the backend's life ----
 *
 * The verdict rides with the prepared geometry, so within a query a body is
 * judged once. A query's cache dies with it, though, and judging a big body
 * (its self-intersection join) costs far more than reading it again, so the
 * verdicts of TOASTed values are also kept here, per backend, keyed by the
 * value's identity: TOAST relation, value id, raw and stored sizes, the
 * non-planar policy (which changes the triangles judged), and a 64-bit hash
 * of the parsed coordinates.
 *
 * Why it cannot go stale: a TOAST value is never changed in place (an
 * UPDATE writes a new value with a new id, VACUUM FULL and CLUSTER copy it
 * with its id and bytes), and a value id is not handed out again while the
 * old value's chunks are in its TOAST table; it could come back only after
 * the value is deleted and vacuumed away and the cluster's OID counter has
 * gone round all 2^32 values, for a value of exactly the same sizes; the
 * coordinate hash then has to collide as well. A backend sees one database,
 * so relation OIDs do not mix across databases.
 * Values stored in line are small (at most a few kB compressed) and cheap
 * to judge: they are not remembered.
 */
#define SOLID_MEMO_ENTRIES 64

typedef struct SolidMemoEntry
{
	bool		used;
	Oid			toastrelid;
	Oid			valueid;
	int32		extsize;
	Size		rawsize;
	int			policy;
	uint64		hash;
	uint64		last_used;
	char		solid_why[EXG_ERROR_MESSAGE_LEN];	/* "" or the reasons, as */
	char		inside_why[EXG_ERROR_MESSAGE_LEN];	/* exg_prepared keeps them */
} SolidMemoEntry;

static SolidMemoEntry solid_memo[SOLID_MEMO_ENTRIES];
static uint64 solid_memo_tick;

/*
 * A resident body's verdicts are also kept beside its block in the store,
 * for every backend: a second backend's ST_ExactVolume or ST_ExactLocate3D
 * on the same stored value takes them instead of judging it again. The
 * block is the value (its key is the value's identity) and its policy, so
 * the verdicts cannot be another value's.
 */
/* The resident block e borrows, if it is still pinned by this transaction. */
static const void *
entry_block(const GeomCacheEntry *e)
{
	return e != NULL && e->resident && e->resident_gen == exactgpu_resident_generation()
		? e->block : NULL;
}

/* The coordinates and the component structure: what the verdict reads. */
static uint64
shape_hash(const exg_shape *s)
{
	uint64		h = hash_bytes_extended((const unsigned char *) s->xyz,
										sizeof(double) * 3 * s->nverts, s->has_z);
	size_t		c;

	/* field by field: a struct's padding is not part of its value */
	for (c = 0; c < s->ncomps; c++)
	{
		uint32		f[3] = {(uint32) s->comps[c].kind, s->comps[c].first_ring, s->comps[c].nrings};

		h = hash_bytes_extended((const unsigned char *) f, sizeof(f), h);
	}
	return hash_bytes_extended((const unsigned char *) s->ring_start,
							   sizeof(s->ring_start[0]) * s->nrings, h);
}

static GeomCacheEntry *
entry_of(FunctionCallInfo fcinfo, const exg_prepared *g)
{
	GeomCache  *cache = fcinfo->flinfo->fn_extra;
	int			i;

	if (cache != NULL)
		for (i = 0; i < GEOM_CACHE_ENTRIES; i++)
			if (cache->entries[i].valid && &cache->entries[i].prep == g)
				return &cache->entries[i];
	return NULL;
}

static SolidMemoEntry *
memo_find(const GeomCacheEntry *e, uint64 hash)
{
	int			i;

	for (i = 0; i < SOLID_MEMO_ENTRIES; i++)
	{
		SolidMemoEntry *m = &solid_memo[i];

		if (m->used && m->toastrelid == e->toastrelid && m->valueid == e->valueid &&
			m->extsize == e->extsize && m->rawsize == e->len && m->policy == e->policy &&
			m->hash == hash)
			return m;
	}
	return NULL;
}

static void
memo_store(const GeomCacheEntry *e, uint64 hash, const exg_prepared *g)
{
	SolidMemoEntry *m = NULL;
	int			i;

	for (i = 0; i < SOLID_MEMO_ENTRIES; i++)
		if (!solid_memo[i].used)
		{
			m = &solid_memo[i];
			break;
		}
		else if (m == NULL || solid_memo[i].last_used < m->last_used)
			m = &solid_memo[i];
	m->used = true;
	m->toastrelid = e->toastrelid;
	m->valueid = e->valueid;
	m->extsize = e->extsize;
	m->rawsize = e->len;
	m->policy = e->policy;
	m->hash = hash;
	m->last_used = ++solid_memo_tick;
	strlcpy(m->solid_why, g->solid_why, sizeof(m->solid_why));
	strlcpy(m->inside_why, g->inside_why, sizeof(m->inside_why));
}

bool
exactgpu_solid_verdict(FunctionCallInfo fcinfo, exg_prepared *g, bool need_valid, char *why,
					   size_t why_len, const char *context)
{
	exg_join_options opt;
	exg_error	err = {0};
	GeomCacheEntry *e = NULL;
	uint64		hash = 0;
	bool		ok;
	exg_solid_need need = need_valid ? EXG_SOLID_VALID : EXG_SOLID_INSIDE;
	ResidentVerdicts rv;
	const void *block = NULL;
	bool		shared_known = false;

	if (g->solid_judged == 0 && (e = entry_of(fcinfo, g)) != NULL && e->by_toast)
	{
		SolidMemoEntry *m;

		if ((block = entry_block(e)) != NULL &&
			exactgpu_resident_note_get(block, &rv, sizeof(rv)))
		{
			exg_solid_set_verdicts(g, rv.solid_why, rv.inside_why);
			shared_known = true;
		}
		else
		{
			hash = shape_hash(&g->shape);
			if ((m = memo_find(e, hash)) != NULL)
			{
				m->last_used = ++solid_memo_tick;
				exg_solid_set_verdicts(g, m->solid_why, m->inside_why);
			}
		}
	}
	if (g->solid_judged == 0)
	{
		/* a self-join of its faces: gpu_min_primitives as for any join */
		(void) exactgpu_join_options(&opt, 2 * (uint64) g->shape.ncomps, 0, false);
		if (exg_solid_check(g, &opt, need, &ok, NULL, 0, &err) != EXG_OK)
			exactgpu_report(&err, context);
		if (e != NULL && e->by_toast)
			memo_store(e, hash, g);
	}
	/* judged here (or known to this backend only): keep it for the others */
	if (block != NULL && !shared_known)
	{
		memset(&rv, 0, sizeof(rv));
		strlcpy(rv.solid_why, g->solid_why, sizeof(rv.solid_why));
		strlcpy(rv.inside_why, g->inside_why, sizeof(rv.inside_why));
		exactgpu_resident_note_set(block, &rv, sizeof(rv));
	}
	if (exg_solid_check(g, NULL, need, &ok, why, why_len, &err) != EXG_OK)
		exactgpu_report(&err, context);
	return ok;
}

void
exactgpu_require_solid(FunctionCallInfo fcinfo, exg_prepared *g, bool need_valid,
					   const char *context)
{
	char		why[EXG_ERROR_MESSAGE_LEN];

	if (!exactgpu_solid_verdict(fcinfo, g, need_valid, why, sizeof(why), context))
	{
		exg_error	err = {0};

		exg_fail(&err, EXG_ERR_NOT_SOLID, "%s", why);
		exactgpu_report(&err, context);
	}
}
