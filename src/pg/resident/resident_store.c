/*
 * resident_store.c — the shared store of prepared geometry
 * (resident_store.h).
 *
 * One region of the main shared memory, sized at server start: a hash of
 * entries (key → block) and a DSA area laid out in place over the rest, so
 * that blocks come and go with PostgreSQL's own allocator and every process
 * sees them at one address. One LWLock guards the hash: a lookup of a
 * present entry takes it shared (many backends at once), and pins the
 * entry, stamps its use and counts the hit with atomic operations; only an
 * insert or an eviction takes it exclusive. Blocks are written before they
 * are published (ready) and never after, so reading one needs no lock,
 * only a pin. A pin is taken under the lock (shared or exclusive) and
 * released without it: eviction, under the exclusive lock, sees every pin
 * taken, and one released meanwhile only makes it skip an entry it could
 * have evicted.
 *
 * Eviction: least recently used first among the entries no one has pinned,
 * when an allocation, or the hash of entries, finds no room. Pins are
 * released at the end of the transaction that took them (commit, abort, a
 * parallel worker's end), so an error or a cancel leaks none; a crash
 * restart reinitialises the shared memory, and the store starts empty.
 */
#include "postgres.h"

#include "access/detoast.h"
#include "access/genam.h"
#include "access/heapam.h"
#include "access/htup_details.h"
#include "access/table.h"
#include "access/toast_internals.h"
#include "access/xact.h"
#include "common/hashfn.h"
#include "miscadmin.h"
#include "port/atomics.h"
#include "storage/ipc.h"
#include "storage/lwlock.h"
#include "storage/shmem.h"
#include "utils/dsa.h"
#include "utils/fmgroids.h"
#include "utils/guc.h"
#include "utils/hsearch.h"
#include "utils/memutils.h"
#include "utils/rel.h"
#include "utils/snapmgr.h"

#include "resident_store.h"

int			exactgpu_resident_memory_mb = 0;
bool		exactgpu_resident_use = true;

typedef struct ResidentEntry
{
	ResidentKey key;			/* hash key: first */
	dsa_pointer block;
	Size		size;
	Size		covers;			/* the stored values' bytes it stands for */
	Oid			dbid;			/* ... in this database (the planner's summary) */
	dsa_pointer note;			/* exactgpu_resident_note_set's, or invalid */
	Size		note_size;
	pg_atomic_uint32 pins;
	bool		ready;			/* written: readable by anyone who pins it */
	pg_atomic_uint64 last_used;
} ResidentEntry;

/*
 * The planner's summary: per relation (its TOAST table, in a database),
 * the bytes of stored values kept, as prepared geometries and as join
 * sides. Changed with the entries, under the exclusive lock.
 */
#define RESIDENT_RELATIONS 64

typedef struct ResidentRelation
{
	Oid			dbid;
	Oid			toastrelid;		/* InvalidOid: a free slot */
	int64		entries;
	uint64		geometry_bytes;
	uint64		side_bytes;
} ResidentRelation;

typedef struct ResidentShared
{
	LWLock	   *lock;
	int			dsa_tranche;
	bool		area_made;
	Size		arena_size;
	pg_atomic_uint64 tick;
	/* what the view shows (hits and misses counted under the shared lock) */
	pg_atomic_uint64 hits,
				misses,
				notes_found;
	uint64		inserts,
				evictions,
				not_kept,
				notes_kept;
	Size		bytes;
	int64		entries;
	ResidentRelation relations[RESIDENT_RELATIONS];
	/* the DSA area lives here, in place, MAXALIGNed */
	char		arena[FLEXIBLE_ARRAY_MEMBER];
} ResidentShared;

static ResidentShared *shared = NULL;
static HTAB *resident_hash = NULL;
static dsa_area *area = NULL;

static shmem_request_hook_type prev_shmem_request_hook = NULL;
static shmem_startup_hook_type prev_shmem_startup_hook = NULL;

/*
 * This backend's pins, released at the end of its transaction: one shared
 * pin per entry however often the transaction takes it (a nested loop whose
 * inner bodies overflow the 8-entry call-site cache gets each body once per
 * outer row: 51,200 pins on 256 entries for 200 rows, a list growing with
 * every call), and how many times it took it, for
 * exactgpu_resident_unpin. Keyed by the block's address.
 */
typedef struct LocalPin
{
	const void *block;			/* hash key: first */
	ResidentEntry *entry;
	int64		uses;
} LocalPin;

static HTAB *local_pins = NULL;
static uint64 generation = 1;
static bool callbacks_set = false;

static Size
arena_size(void)
{
	return (Size) exactgpu_resident_memory_mb * 1024 * 1024;
}

/* Entries the hash can hold: one per 32 kB of blocks, within bounds. */
static long
max_entries(void)
{
	long		n = (long) (arena_size() / 32768);

	return Max(256, Min(n, 1L << 20));
}

static Size
shared_size(void)
{
	return add_size(offsetof(ResidentShared, arena) + MAXIMUM_ALIGNOF, arena_size());
}

static void
resident_shmem_request(void)
{
	if (prev_shmem_request_hook)
		prev_shmem_request_hook();
	RequestAddinShmemSpace(add_size(shared_size(),
									hash_estimate_size(max_entries(), sizeof(ResidentEntry))));
	RequestNamedLWLockTranche("exactgpu_resident", 1);
}

static void
resident_shmem_startup(void)
{
	HASHCTL		info;
	bool		found;

	if (prev_shmem_startup_hook)
		prev_shmem_startup_hook();
	LWLockAcquire(AddinShmemInitLock, LW_EXCLUSIVE);
	shared = ShmemInitStruct("exactgpu resident store", shared_size(), &found);
	if (!found)
	{
		memset(shared, 0, offsetof(ResidentShared, arena));
		pg_atomic_init_u64(&shared->tick, 0);
		pg_atomic_init_u64(&shared->hits, 0);
		pg_atomic_init_u64(&shared->misses, 0);
		pg_atomic_init_u64(&shared->notes_found, 0);
		shared->lock = &(GetNamedLWLockTranche("exactgpu_resident"))->lock;
		shared->dsa_tranche = LWLockNewTrancheId();
		shared->arena_size = arena_size();
	}
	memset(&info, 0, sizeof(info));
	info.keysize = sizeof(ResidentKey);
	info.entrysize = sizeof(ResidentEntry);
	resident_hash = ShmemInitHash("exactgpu resident entries", max_entries(), max_entries(),
								  &info, HASH_ELEM | HASH_BLOBS | HASH_FIXED_SIZE);
	LWLockRelease(AddinShmemInitLock);
}

void
exactgpu_resident_init(void)
{
	DefineCustomBoolVariable("exactgpu.resident",
							 "Use the resident store of prepared geometry in this session.",
							 "Off prepares every geometry in the session, as without the store "
							 "(to compare, or to keep a one-off query from evicting others).",
							 &exactgpu_resident_use,
							 true,
							 PGC_USERSET, 0,
							 NULL, NULL, NULL);
	/* a server setting: defined only where it can take effect (at start) */
	if (!process_shared_preload_libraries_in_progress)
		return;
	DefineCustomIntVariable("exactgpu.resident_memory",
							"Shared memory for prepared geometry kept between queries (the resident store).",
							"Prepared bodies are kept here and shared by every backend, so that queries "
							"do not detoast and parse them again. Needs exactgpu in shared_preload_libraries; "
							"0 keeps nothing.",
							&exactgpu_resident_memory_mb,
							0, 0, INT_MAX / 2,
							PGC_POSTMASTER, GUC_UNIT_MB,
							NULL, NULL, NULL);
	if (exactgpu_resident_memory_mb > 0)
	{
		prev_shmem_request_hook = shmem_request_hook;
		shmem_request_hook = resident_shmem_request;
		prev_shmem_startup_hook = shmem_startup_hook;
		shmem_startup_hook = resident_shmem_startup;
	}
}

static void
release_pins(void)
{
	if (local_pins != NULL && hash_get_num_entries(local_pins) > 0 && shared != NULL)
	{
		HASH_SEQ_STATUS seq;
		LocalPin   *lp;

		/* no lock: a pinned entry is not evicted, so lp->entry is there */
		hash_seq_init(&seq, local_pins);
		while ((lp = hash_seq_search(&seq)) != NULL)
		{
			Assert(pg_atomic_read_u32(&lp->entry->pins) > 0);
			pg_atomic_fetch_sub_u32(&lp->entry->pins, 1);
			hash_search(local_pins, &lp->block, HASH_REMOVE, NULL);
		}
	}
	generation++;
}

static void
resident_xact_callback(XactEvent event, void *arg)
{
	switch (event)
	{
		case XACT_EVENT_COMMIT:
		case XACT_EVENT_PARALLEL_COMMIT:
		case XACT_EVENT_ABORT:
		case XACT_EVENT_PARALLEL_ABORT:
		case XACT_EVENT_PREPARE:
			release_pins();
			break;
		default:
			break;
	}
}

static void
resident_exit(int code, Datum arg)
{
	release_pins();
}

/* Attach this backend to the area (made by the first backend that needs it). */
static bool
attach(void)
{
	MemoryContext old;

	if (area != NULL)
		return true;
	if (shared == NULL || resident_hash == NULL)
		return false;
	if (!callbacks_set)
	{
		HASHCTL		ctl;

		memset(&ctl, 0, sizeof(ctl));
		ctl.keysize = sizeof(const void *);
		ctl.entrysize = sizeof(LocalPin);
		ctl.hcxt = TopMemoryContext;
		local_pins = hash_create("exactgpu resident pins", 64, &ctl,
								 HASH_ELEM | HASH_BLOBS | HASH_CONTEXT);
		RegisterXactCallback(resident_xact_callback, NULL);
		before_shmem_exit(resident_exit, (Datum) 0);
		callbacks_set = true;
	}
	old = MemoryContextSwitchTo(TopMemoryContext);
	LWLockAcquire(shared->lock, LW_EXCLUSIVE);
	PG_TRY();
	{
		void	   *place = (void *) MAXALIGN(shared->arena);

		if (!shared->area_made)
		{
			area = dsa_create_in_place(place, shared->arena_size, shared->dsa_tranche, NULL);
			/* never grow past the region reserved at start: no DSM segments */
			dsa_set_size_limit(area, shared->arena_size);
			shared->area_made = true;
		}
		else
			area = dsa_attach_in_place(place, NULL);
	}
	PG_FINALLY();
	{
		LWLockRelease(shared->lock);
		MemoryContextSwitchTo(old);
	}
	PG_END_TRY();
	return true;
}

bool
exactgpu_resident_enabled(void)
{
	return exactgpu_resident_use && shared != NULL && IsUnderPostmaster &&
		shared->arena_size > 0;
}

bool
exactgpu_resident_key(const struct varlena *raw, int32 kind, ResidentKey *key)
{
	struct varatt_external toast;
	Relation	toastrel;
	Relation   *toastidxs;
	int			nidx,
				valid;
	ScanKeyData skey;
	SysScanDesc scan;
	SnapshotData snap;
	HeapTuple	tup;
	bool		found = false;

	if (!VARATT_IS_EXTERNAL_ONDISK(raw))
		return false;
	VARATT_EXTERNAL_GET_POINTER(toast, raw);
	memset(key, 0, sizeof(*key));
	key->toastrelid = toast.va_toastrelid;
	key->valueid = toast.va_valueid;
	key->rawsize = toast.va_rawsize;
	key->extinfo = toast.va_extinfo;
	key->kind = kind;

	/* the first chunk, as detoasting would read it (same snapshot rule) */
	toastrel = table_open(toast.va_toastrelid, AccessShareLock);
	valid = toast_open_indexes(toastrel, AccessShareLock, &toastidxs, &nidx);
	init_toast_snapshot(&snap);
	ScanKeyInit(&skey, (AttrNumber) 1, BTEqualStrategyNumber, F_OIDEQ,
				ObjectIdGetDatum(toast.va_valueid));
	scan = systable_beginscan_ordered(toastrel, toastidxs[valid], &snap, 1, &skey);
	if ((tup = systable_getnext_ordered(scan, ForwardScanDirection)) != NULL)
	{
		bool		isnull;
		Datum		chunk = heap_getattr(tup, 3, RelationGetDescr(toastrel), &isnull);

		key->chunk_xmin = HeapTupleHeaderGetRawXmin(tup->t_data);
		if (!isnull)
		{
			struct varlena *c = (struct varlena *) DatumGetPointer(chunk);

			key->chunk_hash = hash_bytes((const unsigned char *) VARDATA_ANY(c),
										 (int) VARSIZE_ANY_EXHDR(c));
		}
		found = true;
	}
	systable_endscan_ordered(scan);
	toast_close_indexes(toastidxs, nidx, AccessShareLock);
	table_close(toastrel, AccessShareLock);
	return found;
}

/*
 * Pin e for this transaction (the lock held, shared or exclusive). The
 * local entry first: should it fail (out of memory, an ERROR under the
 * lock, which the abort releases) nothing is pinned.
 */
static void
pin(ResidentEntry *e)
{
	const void *block = dsa_get_address(area, e->block);
	bool		found;
	LocalPin   *lp = hash_search(local_pins, &block, HASH_ENTER, &found);

	if (!found)
	{
		lp->entry = e;
		lp->uses = 0;
		pg_atomic_fetch_add_u32(&e->pins, 1);
	}
	lp->uses++;
	/* racing stamps may land out of order: LRU is a hint, not a promise */
	pg_atomic_write_u64(&e->last_used, pg_atomic_add_fetch_u64(&shared->tick, 1));
}

const void *
exactgpu_resident_get(const ResidentKey *key, Size *size)
{
	ResidentEntry *e;
	const void *block = NULL;

	if (!exactgpu_resident_enabled() || !attach())
		return NULL;
	/* shared: lookups run side by side; only inserts and evictions exclude */
	LWLockAcquire(shared->lock, LW_SHARED);
	e = hash_search(resident_hash, key, HASH_FIND, NULL);
	if (e != NULL && e->ready)
	{
		pin(e);
		pg_atomic_fetch_add_u64(&shared->hits, 1);
		block = dsa_get_address(area, e->block);
		*size = e->size;
	}
	else
		pg_atomic_fetch_add_u64(&shared->misses, 1);
	LWLockRelease(shared->lock);
	return block;
}

/* The TOAST table whose values key's block stands for, if one. */
static Oid
key_relation(const ResidentKey *key)
{
	return (key->kind & RESIDENT_KIND_SIDE) ? key->side_toastrelid : key->toastrelid;
}

/*
 * The summary slot of e's relation (the exclusive lock held), or NULL: by
 * the database e was kept in, which need not be the evicting backend's.
 */
static ResidentRelation *
relation_slot(const ResidentEntry *e, bool add)
{
	ResidentRelation *free_slot = NULL;
	Oid			relid = key_relation(&e->key);

	if (relid == InvalidOid)
		return NULL;
	for (int i = 0; i < RESIDENT_RELATIONS; i++)
	{
		ResidentRelation *r = &shared->relations[i];

		if (r->toastrelid == relid && r->dbid == e->dbid)
			return r;
		if (r->toastrelid == InvalidOid && free_slot == NULL)
			free_slot = r;
	}
	if (!add || free_slot == NULL)
		return NULL;			/* more relations than slots: the planner sees none */
	free_slot->dbid = e->dbid;
	free_slot->toastrelid = relid;
	free_slot->entries = 0;
	free_slot->geometry_bytes = free_slot->side_bytes = 0;
	return free_slot;
}

/* Count e into (sign 1) or out of (-1) its relation's summary. */
static void
relation_count(ResidentEntry *e, int sign)
{
	ResidentRelation *r = relation_slot(e, sign > 0);
	uint64	   *bytes;

	if (r == NULL)
		return;
	bytes = (e->key.kind & RESIDENT_KIND_SIDE) ? &r->side_bytes : &r->geometry_bytes;
	if (sign > 0)
	{
		r->entries++;
		*bytes += e->covers;
	}
	else
	{
		r->entries--;
		*bytes -= Min(*bytes, e->covers);
		if (r->entries <= 0)
			r->toastrelid = InvalidOid;
	}
}

/*
 * Evict the least recently used entry no one has pinned (one whose fill
 * failed counts: unpinned and never ready). The lock is held.
 */
static bool
evict_one(void)
{
	HASH_SEQ_STATUS seq;
	ResidentEntry *e,
			   *victim = NULL;

	hash_seq_init(&seq, resident_hash);
	while ((e = hash_seq_search(&seq)) != NULL)
		if (pg_atomic_read_u32(&e->pins) == 0 &&
			(victim == NULL ||
			 pg_atomic_read_u64(&e->last_used) < pg_atomic_read_u64(&victim->last_used)))
			victim = e;
	if (victim == NULL)
		return false;
	dsa_free(area, victim->block);
	if (DsaPointerIsValid(victim->note))
	{
		dsa_free(area, victim->note);
		shared->bytes -= victim->note_size;
	}
	if (victim->ready)
	{
		shared->bytes -= victim->size;
		shared->entries--;
		relation_count(victim, -1);
	}
	shared->evictions++;
	hash_search(resident_hash, &victim->key, HASH_REMOVE, NULL);
	return true;
}

const void *
exactgpu_resident_put(const ResidentKey *key, Size size, Size covers,
					  void (*fill) (void *dst, void *arg), void *arg)
{
	ResidentEntry *e;
	dsa_pointer dp = InvalidDsaPointer;
	bool		found;
	void	   *dst;

	if (!exactgpu_resident_enabled() || !attach())
		return NULL;
	LWLockAcquire(shared->lock, LW_EXCLUSIVE);
	e = hash_search(resident_hash, key, HASH_FIND, NULL);
	if (e != NULL && !e->ready && pg_atomic_read_u32(&e->pins) == 0)
	{
		/* abandoned: its filler's pin failed (pin()), so no fill is under way */
		dsa_free(area, e->block);
		shared->evictions++;
		hash_search(resident_hash, key, HASH_REMOVE, NULL);
		e = NULL;
	}
	if (e != NULL)
	{
		/* kept meanwhile by another backend (or being written: don't wait) */
		const void *block = NULL;

		if (e->ready)
		{
			pin(e);
			block = dsa_get_address(area, e->block);
		}
		LWLockRelease(shared->lock);
		return block;
	}
	if (size <= shared->arena_size / 2)
	{
		for (;;)
		{
			dp = dsa_allocate_extended(area, size, DSA_ALLOC_NO_OOM | DSA_ALLOC_HUGE);
			if (DsaPointerIsValid(dp) || !evict_one())
				break;
		}
	}
	/*
	 * The hash has room for one entry per 32 kB of the budget: blocks of small
	 * bodies fill it before the area, and then it is the hash that evicts
	 * (else nothing new would be kept again, however cold the entries).
	 */
	if (DsaPointerIsValid(dp))
		while ((e = hash_search(resident_hash, key, HASH_ENTER_NULL, &found)) == NULL &&
			   evict_one())
			;
	if (e == NULL)
	{
		if (DsaPointerIsValid(dp))
			dsa_free(area, dp);
		shared->not_kept++;
		LWLockRelease(shared->lock);
		return NULL;
	}
	e->block = dp;
	e->size = size;
	e->covers = covers;
	e->dbid = MyDatabaseId;
	e->note = InvalidDsaPointer;
	e->note_size = 0;
	e->ready = false;
	pg_atomic_init_u32(&e->pins, 0);
	pg_atomic_init_u64(&e->last_used, 0);
	pin(e);
	LWLockRelease(shared->lock);

	/* written outside the lock: no one reads it before it is ready */
	dst = dsa_get_address(area, dp);
	fill(dst, arg);

	LWLockAcquire(shared->lock, LW_EXCLUSIVE);
	e->ready = true;
	shared->inserts++;
	shared->bytes += size;
	shared->entries++;
	relation_count(e, 1);
	LWLockRelease(shared->lock);
	return dst;
}

uint64
exactgpu_resident_generation(void)
{
	return generation;
}

void
exactgpu_resident_stats(ResidentStats *out)
{
	memset(out, 0, sizeof(*out));
	out->enabled = exactgpu_resident_enabled();
	if (shared == NULL)
		return;
	LWLockAcquire(shared->lock, LW_SHARED);
	out->capacity = shared->arena_size;
	out->bytes = shared->bytes;
	out->entries = shared->entries;
	out->hits = pg_atomic_read_u64(&shared->hits);
	out->misses = pg_atomic_read_u64(&shared->misses);
	out->inserts = shared->inserts;
	out->evictions = shared->evictions;
	out->not_kept = shared->not_kept;
	out->notes_kept = shared->notes_kept;
	out->notes_found = pg_atomic_read_u64(&shared->notes_found);
	LWLockRelease(shared->lock);
}

int
exactgpu_resident_list(ResidentEntryInfo **out)
{
	HASH_SEQ_STATUS seq;
	ResidentEntry *e;
	int			n = 0,
				cap;

	*out = NULL;
	if (shared == NULL)
		return 0;
	cap = (int) max_entries();
	*out = palloc(sizeof(ResidentEntryInfo) * cap);
	LWLockAcquire(shared->lock, LW_SHARED);
	hash_seq_init(&seq, resident_hash);
	while ((e = hash_seq_search(&seq)) != NULL)
	{
		ResidentEntryInfo *r;

		if (n == cap)
		{
			hash_seq_term(&seq);
			break;
		}
		r = &(*out)[n++];
		r->toastrelid = e->key.toastrelid;
		r->valueid = e->key.valueid;
		r->chunk_xmin = e->key.chunk_xmin;
		r->kind = e->key.kind;
		r->size = e->size;
		r->pins = (int32) pg_atomic_read_u32(&e->pins);
		r->ready = e->ready;
		r->last_used = pg_atomic_read_u64(&e->last_used);
	}
	LWLockRelease(shared->lock);
	return n;
}

int64
exactgpu_resident_evict_all(void)
{
	int64		n = 0;

	if (!exactgpu_resident_enabled() || !attach())
		return 0;
	LWLockAcquire(shared->lock, LW_EXCLUSIVE);
	while (evict_one())
		n++;
	LWLockRelease(shared->lock);
	return n;
}

void
exactgpu_resident_unpin(const void *block)
{
	LocalPin   *lp = local_pins ? hash_search(local_pins, &block, HASH_FIND, NULL) : NULL;

	/* another use of it in this transaction may still read it */
	if (lp == NULL || --lp->uses > 0)
		return;
	Assert(pg_atomic_read_u32(&lp->entry->pins) > 0);
	pg_atomic_fetch_sub_u32(&lp->entry->pins, 1);
	hash_search(local_pins, &block, HASH_REMOVE, NULL);
}

/* The entry of a block this transaction has pinned, or NULL. */
static ResidentEntry *
pinned_entry(const void *block)
{
	LocalPin   *lp = local_pins ? hash_search(local_pins, &block, HASH_FIND, NULL) : NULL;

	return lp ? lp->entry : NULL;
}

bool
exactgpu_resident_note_get(const void *block, void *out, Size len)
{
	ResidentEntry *e = pinned_entry(block);
	bool		found = false;

	if (e == NULL)
		return false;
	/* shared: a note is set once, under the exclusive lock, and never changed */
	LWLockAcquire(shared->lock, LW_SHARED);
	if (DsaPointerIsValid(e->note) && e->note_size == len)
	{
		memcpy(out, dsa_get_address(area, e->note), len);
		found = true;
	}
	LWLockRelease(shared->lock);
	if (found)
		pg_atomic_fetch_add_u64(&shared->notes_found, 1);
	return found;
}

void
exactgpu_resident_note_set(const void *block, const void *note, Size len)
{
	ResidentEntry *e = pinned_entry(block);
	dsa_pointer dp;

	if (e == NULL)
		return;
	LWLockAcquire(shared->lock, LW_EXCLUSIVE);
	/* no eviction for a note: it is small, and its block is the one that matters */
	if (!DsaPointerIsValid(e->note) &&
		DsaPointerIsValid(dp = dsa_allocate_extended(area, len, DSA_ALLOC_NO_OOM)))
	{
		memcpy(dsa_get_address(area, dp), note, len);
		e->note = dp;
		e->note_size = len;
		shared->bytes += len;
		shared->notes_kept++;
	}
	LWLockRelease(shared->lock);
}

bool
exactgpu_resident_relation(Oid toastrelid, uint64 *geometry_bytes, uint64 *side_bytes)
{
	*geometry_bytes = *side_bytes = 0;
	if (!exactgpu_resident_enabled() || toastrelid == InvalidOid)
		return false;
	LWLockAcquire(shared->lock, LW_SHARED);
	for (int i = 0; i < RESIDENT_RELATIONS; i++)
	{
		ResidentRelation *r = &shared->relations[i];

		if (r->toastrelid == toastrelid && r->dbid == MyDatabaseId)
		{
			*geometry_bytes = r->geometry_bytes;
			*side_bytes = r->side_bytes;
			break;
		}
	}
	LWLockRelease(shared->lock);
	return true;
}
