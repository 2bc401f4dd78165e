/*
 * resident_store.h — prepared geometry kept in shared memory, shared by
 * every backend and parallel worker of the server (exactgpu.resident_memory,
 * which needs shared_preload_libraries; without it nothing is kept and
 * every path prepares its geometries as before).
 *
 * What is kept is opaque here: a block of bytes under a key (the engine's
 * packed prepared geometry, geom_packed.h). A block never changes once
 * published, so readers take no lock while they read it: a pin keeps it
 * from eviction until the end of the reader's transaction.
 *
 * The key is the stored value's identity, not its place: a TOASTed value
 * never changes, and its TOAST pointer (relation, value OID, sizes) names it
 * as long as it exists. An OID can be given again only after the value is
 * deleted and vacuumed away and the OID counter has wrapped round; the key
 * therefore also holds the raw xmin of the value's first chunk (the new value
 * is written by another transaction) and a hash of that chunk's bytes. An
 * updated row is a new value with a new OID. Values stored in line have no
 * such identity and are not kept (they are small: parsing them is cheap).
 */
#ifndef EXACTGPU_RESIDENT_STORE_H
#define EXACTGPU_RESIDENT_STORE_H

#include "postgres.h"

/* Zero-filled before use: the hash compares its bytes, padding included. */
typedef struct ResidentKey
{
	Oid			toastrelid;
	Oid			valueid;
	int32		rawsize;
	uint32		extinfo;
	TransactionId chunk_xmin;	/* raw xmin of the first chunk */
	uint32		chunk_hash;		/* hash_any of the first chunk's bytes */
	int32		kind;			/* what the block is: a prepared geometry's policy,
								 * | RESIDENT_KIND_SIDE for a join side */
	Oid			side_toastrelid;	/* a join side's rows' TOAST table, if one */
} ResidentKey;

/* ResidentKey.kind of a batch join's side (a geometry's kind is its policy, 0..255) */
#define RESIDENT_KIND_SIDE	0x100

/* GUCs: exactgpu.resident_memory (MB, at server start), exactgpu.resident (use it). */
extern int	exactgpu_resident_memory_mb;
extern bool exactgpu_resident_use;

/* _PG_init: the GUCs, and the shared memory when preloaded. */
void		exactgpu_resident_init(void);

/* Is the store there (preloaded, sized) and switched on for this session? */
bool		exactgpu_resident_enabled(void);

/*
 * The key of a value stored out of line on disk, or false (in line,
 * in memory, expanded). Reads the value's first chunk: one index probe.
 */
bool		exactgpu_resident_key(const struct varlena *raw, int32 kind, ResidentKey *key);

/*
 * The block kept under key, pinned until the end of the transaction, or
 * NULL (and a miss counted). *size is its size.
 */
const void *exactgpu_resident_get(const ResidentKey *key, Size *size);

/*
 * Keep a block of size bytes under key, standing for covers bytes of stored
 * values (their detoasted sizes: what the planner's summary counts):
 * fill(dst, arg) writes it (outside any lock). Returns the kept block pinned as exactgpu_resident_get does (the
 * one another backend kept first, if it won the race), or NULL when it
 * cannot be kept: larger than the store, or no room left after evicting
 * every block no one has pinned. Not being kept is never an error.
 */
const void *exactgpu_resident_put(const ResidentKey *key, Size size, Size covers,
								  void (*fill) (void *dst, void *arg), void *arg);

/*
 * A note kept beside a block this transaction has pinned, written once by
 * whoever learns it first (a big body's solid verdicts: judging it costs
 * far more than reading it, and the block itself never changes). get copies
 * it into out and says whether there was one of len bytes; set keeps a
 * copy unless the block has one already or there is no room (then nothing:
 * not keeping is never an error).
 */
bool		exactgpu_resident_note_get(const void *block, void *out, Size len);
void		exactgpu_resident_note_set(const void *block, const void *note, Size len);

/*
 * The planner's summary, read without pinning anything: the bytes of stored
 * values of the relation whose TOAST table is toastrelid (in this database)
 * kept as prepared geometries (row-level predicates) and as join sides.
 * False, and zeros, where the store is off.
 */
bool		exactgpu_resident_relation(Oid toastrelid, uint64 *geometry_bytes,
									   uint64 *side_bytes);

/* Release this backend's pin on block now (one that no one here reads on). */
void		exactgpu_resident_unpin(const void *block);

/*
 * Changes whenever this backend's pins are released (end of transaction):
 * a block got under an older generation may be evicted and must not be read.
 */
uint64		exactgpu_resident_generation(void);

/* What the view exactgpu_resident shows. */
typedef struct ResidentStats
{
	bool		enabled;
	Size		capacity,
				bytes;
	int64		entries;
	uint64		hits,
				misses,
				inserts,
				evictions,
				not_kept,
				notes_kept,		/* solid verdicts kept beside their blocks */
				notes_found;	/* ... and found there by a later query */
} ResidentStats;

typedef struct ResidentEntryInfo
{
	Oid			toastrelid;
	Oid			valueid;
	TransactionId chunk_xmin;
	int32		kind;
	Size		size;
	int32		pins;
	bool		ready;
	uint64		last_used;
} ResidentEntryInfo;

void		exactgpu_resident_stats(ResidentStats *out);
/* A palloc'ed copy of every entry; returns the count. */
int			exactgpu_resident_list(ResidentEntryInfo **out);
/* Evict every block no one has pinned; returns how many. */
int64		exactgpu_resident_evict_all(void);

#endif							/* EXACTGPU_RESIDENT_STORE_H */
