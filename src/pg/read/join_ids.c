/*
 * join_ids.c — the ids of a batch join's rows, of any type with equality.
 *
 * Integer ids (smallint, integer, bigint) are the rows' ids themselves, as
 * they always were. Ids of any other type (text, uuid, numeric, ...) are
 * interned: each distinct value, by its type's hash equality, is kept once
 * as a Datum in the rows' memory context, and the rows carry its ordinal.
 * The engine, the parallel read and the pair sorting thus only ever see
 * int64 ids; the Datums come back out in the result rows and in messages.
 * Ordinals are renumbered in the type's btree order once every row is in,
 * so that results come in id order as with integer ids.
 */
#include "exactgpu.h"

#include "catalog/pg_type.h"
#include "parser/parse_coerce.h"
#include "utils/builtins.h"
#include "utils/datum.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/typcache.h"

#include "join_rows.h"

struct ExactgpuIdKeys
{
	Oid			type;			/* the base type of the ids */
	int16		typlen;
	bool		typbyval;
	Oid			collation;
	TypeCacheEntry *tc;			/* its hash, equality and (maybe) btree order */
	Datum	   *key;			/* each distinct id once, by ordinal */
	uint32	   *hash;
	size_t		n;
	size_t		cap;
	uint32	   *slot;			/* open addressing: ordinal + 1, 0 empty */
	size_t		nslots;			/* a power of two, at least 2n */
	FmgrInfo	out;
};

bool
exactgpu_id_is_integer(Oid typid)
{
	typid = getBaseType(typid);
	return typid == INT8OID || typid == INT4OID || typid == INT2OID;
}

Oid
exactgpu_rows_id_type(const ExactgpuRows *rows)
{
	if (rows->keys)
		return rows->keys->type;
	return OidIsValid(rows->idtype) ? getBaseType(rows->idtype) : INT8OID;
}

bool
exactgpu_id_fits(Oid idtype, Oid restype)
{
	idtype = getBaseType(idtype);
	if (idtype == restype)
		return true;
	/* integer ids into a wider integer column */
	if (restype == INT8OID)
		return idtype == INT4OID || idtype == INT2OID;
	if (restype == INT4OID)
		return idtype == INT2OID;
	if (exactgpu_id_is_integer(idtype) || exactgpu_id_is_integer(restype))
		return false;
	/* varchar ids as text, and the like */
	return IsBinaryCoercible(idtype, restype);
}

void
exactgpu_rows_check_id_type(const ExactgpuRows *rows, Oid idtype, const char *which)
{
	Oid			want = rows->want_idtype;

	if (!OidIsValid(want) || exactgpu_id_fits(idtype, want))
		return;
	if (want == INT8OID)
		/* the forms that return bigint ids (the message those forms always gave) */
		ereport(ERROR,
				(errcode(ERRCODE_DATATYPE_MISMATCH),
				 errmsg("%s: the %s query must return two columns (id integer or bigint, geom geometry)",
						rows->context, which),
				 errhint("For ids of type %s, pass a value of the ids' types after the two inputs, e.g. %s(..., ..., NULL::%s, NULL::%s): that form returns left_key and right_key of those types.",
						 format_type_be(idtype), rows->context, format_type_be(idtype),
						 format_type_be(idtype))));
	ereport(ERROR,
			(errcode(ERRCODE_DATATYPE_MISMATCH),
			 errmsg("%s: the %s ids are of type %s, but the type given for them is %s",
					rows->context, which, format_type_be(idtype), format_type_be(want)),
			 errhint("Pass NULL::%s for the %s ids' type.", format_type_be(idtype), which)));
}

static ExactgpuIdKeys *
keys_create(ExactgpuRows *rows, Oid keytype)
{
	ExactgpuIdKeys *k = MemoryContextAllocZero(rows->mcxt, sizeof(ExactgpuIdKeys));
	Oid			outfn;
	bool		varlena;

	k->type = getBaseType(keytype);
	get_typlenbyval(k->type, &k->typlen, &k->typbyval);
	k->tc = lookup_type_cache(k->type, TYPECACHE_HASH_PROC_FINFO | TYPECACHE_EQ_OPR_FINFO |
							  TYPECACHE_CMP_PROC_FINFO);
	if (!OidIsValid(k->tc->hash_proc_finfo.fn_oid) || !OidIsValid(k->tc->eq_opr_finfo.fn_oid))
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_FUNCTION),
				 errmsg("%s: ids of type %s cannot be used: the type has no hash equality",
						rows->context, format_type_be(k->type)),
				 errhint("Return the ids as text (id::text) or as an integer.")));
	k->collation = k->tc->typcollation;
	getTypeOutputInfo(k->type, &outfn, &varlena);
	fmgr_info_cxt(outfn, &k->out, rows->mcxt);
	k->nslots = 1024;
	k->slot = MemoryContextAllocZero(rows->mcxt, k->nslots * sizeof(uint32));
	rows->keys = k;
	return k;
}

static void
keys_grow_slots(ExactgpuIdKeys *k, MemoryContext cxt)
{
	size_t		nslots = 2 * k->nslots;
	uint32	   *slot = MemoryContextAllocExtended(cxt, nslots * sizeof(uint32),
												  MCXT_ALLOC_HUGE | MCXT_ALLOC_ZERO);

	for (size_t i = 0; i < k->n; i++)
	{
		size_t		s = k->hash[i] & (nslots - 1);

		while (slot[s] != 0)
			s = (s + 1) & (nslots - 1);
		slot[s] = (uint32) i + 1;
	}
	pfree(k->slot);
	k->slot = slot;
	k->nslots = nslots;
}

int64
exactgpu_rows_key(ExactgpuRows *rows, Oid keytype, Datum key)
{
	ExactgpuIdKeys *k = rows->keys ? rows->keys : keys_create(rows, keytype);
	uint32		h;
	size_t		s;

	/* a toasted or short-header value: the plain one is hashed and kept */
	if (k->typlen == -1)
		key = PointerGetDatum(PG_DETOAST_DATUM_PACKED(key));
	h = DatumGetUInt32(FunctionCall1Coll(&k->tc->hash_proc_finfo, k->collation, key));
	for (s = h & (k->nslots - 1); k->slot[s] != 0; s = (s + 1) & (k->nslots - 1))
	{
		uint32		i = k->slot[s] - 1;

		if (k->hash[i] == h &&
			DatumGetBool(FunctionCall2Coll(&k->tc->eq_opr_finfo, k->collation, k->key[i], key)))
			return (int64) i;
	}
	if (k->n == k->cap)
	{
		k->cap = k->cap ? 2 * k->cap : 1024;
		k->key = k->key ? repalloc_huge(k->key, k->cap * sizeof(Datum))
			: MemoryContextAllocHuge(rows->mcxt, k->cap * sizeof(Datum));
		k->hash = k->hash ? repalloc_huge(k->hash, k->cap * sizeof(uint32))
			: MemoryContextAllocHuge(rows->mcxt, k->cap * sizeof(uint32));
	}
	if (k->n >= PG_UINT32_MAX - 1)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("%s: more than 2^32 distinct ids in one input", rows->context)));
	{
		MemoryContext old = MemoryContextSwitchTo(rows->mcxt);

		k->key[k->n] = datumCopy(key, k->typbyval, k->typlen);
		MemoryContextSwitchTo(old);
	}
	k->hash[k->n] = h;
	k->slot[s] = (uint32) k->n + 1;
	k->n++;
	if (2 * k->n > k->nslots)
		keys_grow_slots(k, rows->mcxt);
	return (int64) (k->n - 1);
}

static int
cmp_keys(const void *x, const void *y, void *arg)
{
	const ExactgpuIdKeys *k = arg;
	uint32		a = *(const uint32 *) x,
				b = *(const uint32 *) y;

	return DatumGetInt32(FunctionCall2Coll(&k->tc->cmp_proc_finfo, k->collation, k->key[a],
										   k->key[b]));
}

void
exactgpu_rows_order_keys(ExactgpuRows *rows)
{
	ExactgpuIdKeys *k = rows->keys;
	uint32	   *by_key,
			   *rank;
	Datum	   *key;
	size_t		i;

	if (k == NULL || k->n < 2 || !OidIsValid(k->tc->cmp_proc_finfo.fn_oid))
		return;
	by_key = palloc_extended(k->n * sizeof(uint32), MCXT_ALLOC_HUGE);
	for (i = 0; i < k->n; i++)
		by_key[i] = (uint32) i;
	qsort_interruptible(by_key, k->n, sizeof(uint32), cmp_keys, k);
	rank = palloc_extended(k->n * sizeof(uint32), MCXT_ALLOC_HUGE);
	key = MemoryContextAllocHuge(rows->mcxt, k->cap * sizeof(Datum));
	for (i = 0; i < k->n; i++)
	{
		rank[by_key[i]] = (uint32) i;
		key[i] = k->key[by_key[i]];
	}
	for (i = 0; i < rows->n; i++)
		rows->ids[i] = rank[rows->ids[i]];
	for (i = 0; i < rows->ntoast; i++)
		rows->toast[i].id = rank[rows->toast[i].id];
	for (i = 0; i < rows->nskipped; i++)
		if (!rows->skipped[i].id_null)
			rows->skipped[i].id = rank[rows->skipped[i].id];
	pfree(k->key);
	k->key = key;
	/* the hash table is not needed once every row is in */
	pfree(k->slot);
	k->slot = NULL;
	k->nslots = 0;
	pfree(by_key);
	pfree(rank);
}

char *
exactgpu_rows_id_text(const ExactgpuRows *rows, int64 id)
{
	if (rows->keys == NULL)
		return psprintf(INT64_FORMAT, id);
	Assert(id >= 0 && (size_t) id < rows->keys->n);
	return OutputFunctionCall(&rows->keys->out, rows->keys->key[id]);
}

Datum
exactgpu_rows_id_datum(const ExactgpuRows *rows, int64 id, Oid restype)
{
	if (rows->keys)
		return rows->keys->key[id];
	if (restype == INT4OID)
		return Int32GetDatum((int32) id);
	if (restype == INT2OID)
		return Int16GetDatum((int16) id);
	return Int64GetDatum(id);
}

void
exactgpu_rows_name_id(const ExactgpuRows *rows, int64 id, exg_error *err)
{
	size_t		len = strlen(err->message);
	char	   *text;

	if (rows->side_name == NULL)
		return;
	text = exactgpu_rows_id_text(rows, id);
	snprintf(err->message + len, sizeof(err->message) - len, " (id %s of the %s)", text,
			 rows->side_name);
	pfree(text);
}

void
exactgpu_rows_name_row(const ExactgpuRows *rows, size_t i, exg_error *err)
{
	if (i < rows->n)
		exactgpu_rows_name_id(rows, rows->ids[i], err);
}

void
exactgpu_rows_report(const ExactgpuRows *rows, exg_error *err)
{
	if (err->row > 0)
		exactgpu_rows_name_row(rows, err->row - 1, err);
	exactgpu_report(err, rows->context);
}
