/*
 * batch_type.c — exactgpu_batch: (id, serialized geometry) rows in one
 * varlena, built by the aggregate ST_ExactBatch(id, geom), so that any SQL
 * can feed a batch join.
 */
#include "exactgpu.h"

#include <ctype.h>

#include "access/genam.h"
#include "access/htup_details.h"
#include "access/table.h"
#include "catalog/pg_extension.h"
#include "catalog/pg_type.h"
#include "commands/extension.h"
#include "fmgr.h"
#include "lib/stringinfo.h"
#include "libpq/pqformat.h"
#include "miscadmin.h"
#include "parser/parse_type.h"
#include "utils/builtins.h"
#include "utils/fmgroids.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/rel.h"
#include "utils/syscache.h"

#include "join_rows.h"

PG_FUNCTION_INFO_V1(exactgpu_batch_in);
PG_FUNCTION_INFO_V1(exactgpu_batch_out);
PG_FUNCTION_INFO_V1(exactgpu_batch_accum);
PG_FUNCTION_INFO_V1(exactgpu_batch_accum_key);
PG_FUNCTION_INFO_V1(exactgpu_batch_final);
PG_FUNCTION_INFO_V1(exactgpu_batch_recv);
PG_FUNCTION_INFO_V1(exactgpu_batch_send);
PG_FUNCTION_INFO_V1(exactgpu_batch_combine);
PG_FUNCTION_INFO_V1(exactgpu_batch_serialize);
PG_FUNCTION_INFO_V1(exactgpu_batch_deserialize);

#define BATCH_MAGIC 0x45584742	/* "EXGB" */

/*
 * Version 0 (every batch before ids of other types; its version word was
 * padding, always 0): per row int64 id, uint32 bytes, uint32 pad, the
 * geometry varlena, padded to 8. Version 1 (ids of another type, e.g. text
 * or uuid): after the header the ids' type (Oid, uint32 pad), then per row
 * uint32 key bytes, uint32 geometry bytes, the key (its varlena, or its
 * typlen bytes), padded to 8, the geometry varlena, padded to 8. Values of
 * version 0 read as they always did.
 */
#define BATCH_KEYED 1

/* The binary form's first word for ids of another type (never a row count). */
#define BATCH_BINARY_KEYED 0xFFFFFFFFu

typedef struct BatchHeader
{
	int32		vl_len_;
	uint32		magic;
	uint32		nrows;
	uint32		version;
} BatchHeader;

typedef struct BatchKeyType
{
	Oid			keytype;
	uint32		pad;
} BatchKeyType;

/* Where a batch's rows start. */
static Size
batch_rows_start(const BatchHeader *b)
{
	return sizeof(BatchHeader) + (b->version == BATCH_KEYED ? sizeof(BatchKeyType) : 0);
}

static Oid
batch_key_type(const BatchHeader *b)
{
	BatchKeyType kt;

	if (b->version != BATCH_KEYED)
		return INT8OID;
	memcpy(&kt, (const char *) b + sizeof(BatchHeader), sizeof(kt));
	return kt.keytype;
}

/* A key Datum's bytes as a batch keeps them (a varlena detoasted, in full). */
static Size
key_bytes(Datum key, int16 typlen, bool typbyval, const char **p)
{
	if (typbyval)
	{
		*p = (const char *) DatumGetPointer(key);
		return 0;				/* stored as the Datum itself */
	}
	*p = DatumGetPointer(key);
	return typlen == -1 ? VARSIZE(DatumGetPointer(key)) :
		typlen == -2 ? strlen(*p) + 1 : (Size) typlen;
}

void
exactgpu_read_batch_rows(Datum batch, const char *which, ExactgpuRows *rows)
{
	const char *context = rows->context;
	const BatchHeader *b = (const BatchHeader *) PG_DETOAST_DATUM(batch);
	const char *p;
	const char *end = (const char *) b + VARSIZE(b);
	bool		keyed;
	Oid			keytype = INT8OID;
	int16		typlen = 8;
	bool		typbyval = true;
	uint32		r;

	if (VARSIZE(b) < sizeof(BatchHeader) || b->magic != BATCH_MAGIC ||
		(b->version != 0 && b->version != BATCH_KEYED) || VARSIZE(b) < batch_rows_start(b))
		ereport(ERROR,
				(errcode(ERRCODE_DATA_CORRUPTED),
				 errmsg("%s: the %s batch is not an exactgpu_batch", context, which)));
	keyed = b->version == BATCH_KEYED;
	p = (const char *) b + batch_rows_start(b);
	if (keyed)
	{
		keytype = batch_key_type(b);
		get_typlenbyval(keytype, &typlen, &typbyval);
	}
	/* the aggregate over no rows writes an unkeyed batch whatever its ids'
	 * type: an empty batch has no ids, and fits any type given for them */
	if (b->nrows == 0 && !keyed && OidIsValid(rows->want_idtype))
		keytype = rows->want_idtype;
	exactgpu_rows_check_id_type(rows, keytype, which);
	rows->idtype = keytype;
	for (r = 0; r < b->nrows; r++)
	{
		int64		id;
		uint32		bytes,
					kbytes = 0;

		if ((r & 1023) == 0)
			CHECK_FOR_INTERRUPTS();
		if (end - p < 16)
			ereport(ERROR, (errcode(ERRCODE_DATA_CORRUPTED),
							errmsg("%s: truncated %s batch", context, which)));
		if (keyed)
		{
			Datum		key;

			memcpy(&kbytes, p, 4);
			memcpy(&bytes, p + 4, 4);
			p += 8;
			if ((size_t) (end - p) < TYPEALIGN(8, kbytes) + (Size) bytes)
				ereport(ERROR, (errcode(ERRCODE_DATA_CORRUPTED),
								errmsg("%s: truncated %s batch", context, which)));
			if (typbyval)
				memcpy(&key, p, sizeof(Datum));
			else
				key = PointerGetDatum(p);
			id = exactgpu_rows_key(rows, keytype, key);
			p += TYPEALIGN(8, kbytes);
		}
		else
		{
			memcpy(&id, p, 8);
			memcpy(&bytes, p + 8, 4);
			p += 16;
		}
		if ((size_t) (end - p) < bytes || bytes < VARHDRSZ)
			ereport(ERROR, (errcode(ERRCODE_DATA_CORRUPTED),
							errmsg("%s: truncated %s batch", context, which)));
		exactgpu_rows_add_named(rows, id, (const uint8 *) p + VARHDRSZ, bytes - VARHDRSZ);
		p += TYPEALIGN(8, bytes);
	}
	exactgpu_rows_order_keys(rows);
}


/* ---- text and binary forms ----
 *
 * A batch is stored as PostGIS's internal serialization, which is no
 * exchange format. Its text form lists the rows as id:geometry with each
 * geometry in PostGIS's own text output (hex EWKB, exact to the bit):
 *     {1:0101000000000000000000F03F0000000000000040,2:...}
 * and its binary form is the row count, then per row the id and PostGIS's
 * binary output (EWKB). Both are read back through PostGIS's input
 * functions, so pg_dump / pg_restore and COPY round-trip a batch like they
 * round-trip a geometry column, and a typed-in batch is checked like a
 * typed-in geometry.
 */

/* The schema of extension ext (PostgreSQL 15 does not export its own). */
static Oid
extension_schema(Oid ext)
{
	Relation	rel = table_open(ExtensionRelationId, AccessShareLock);
	ScanKeyData key;
	SysScanDesc scan;
	HeapTuple	tup;
	Oid			nsp = InvalidOid;

	ScanKeyInit(&key, Anum_pg_extension_oid, BTEqualStrategyNumber, F_OIDEQ,
				ObjectIdGetDatum(ext));
	scan = systable_beginscan(rel, ExtensionOidIndexId, true, NULL, 1, &key);
	if (HeapTupleIsValid(tup = systable_getnext(scan)))
		nsp = ((Form_pg_extension) GETSTRUCT(tup))->extnamespace;
	systable_endscan(scan);
	table_close(rel, AccessShareLock);
	return nsp;
}

/* The geometry type of the installed PostGIS, found by its extension. */
static Oid
geometry_type(void)
{
	Oid			ext = get_extension_oid("postgis", true);
	Oid			typ = InvalidOid;

	if (OidIsValid(ext))
		typ = GetSysCacheOid2(TYPENAMENSP, Anum_pg_type_oid, CStringGetDatum("geometry"),
							  ObjectIdGetDatum(extension_schema(ext)));
	if (!OidIsValid(typ))
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_OBJECT),
				 errmsg("exactgpu_batch: the PostGIS type geometry was not found"),
				 errhint("CREATE EXTENSION postgis.")));
	return typ;
}

static StringInfo
batch_begin(void)
{
	StringInfo	state = makeStringInfo();
	BatchHeader h = {0};

	h.magic = BATCH_MAGIC;
	appendBinaryStringInfo(state, (const char *) &h, sizeof(h));
	return state;
}

/* A batch of ids of type keytype (version 1). */
static StringInfo
batch_begin_keyed(Oid keytype)
{
	StringInfo	state = batch_begin();
	BatchKeyType kt = {keytype, 0};

	((BatchHeader *) state->data)->version = BATCH_KEYED;
	appendBinaryStringInfo(state, (const char *) &kt, sizeof(kt));
	return state;
}

/* Append a row of a keyed batch; g is a detoasted geometry varlena. */
static void
batch_append_keyed(StringInfo state, Datum key, int16 typlen, bool typbyval,
				   const struct varlena *g, const char *context)
{
	static const char zeros[8] = {0};
	const char *kp;
	uint32		kbytes = (uint32) key_bytes(key, typlen, typbyval, &kp),
				bytes = VARSIZE(g);

	if (typbyval)
		kbytes = sizeof(Datum);
	if ((Size) state->len + 8 + TYPEALIGN(8, kbytes) + TYPEALIGN(8, bytes) >= MaxAllocSize)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("%s: the batch exceeds 1 GB", context),
				 errhint("Use the form that reads rows through an inner query (text).")));
	appendBinaryStringInfo(state, (const char *) &kbytes, 4);
	appendBinaryStringInfo(state, (const char *) &bytes, 4);
	if (typbyval)
		appendBinaryStringInfo(state, (const char *) &key, sizeof(Datum));
	else
		appendBinaryStringInfo(state, kp, kbytes);
	appendBinaryStringInfo(state, zeros, TYPEALIGN(8, kbytes) - kbytes);
	appendBinaryStringInfo(state, (const char *) g, bytes);
	appendBinaryStringInfo(state, zeros, TYPEALIGN(8, bytes) - bytes);
	((BatchHeader *) state->data)->nrows++;
}

/* Append a row; g is a detoasted geometry varlena. */
static void
batch_append(StringInfo state, int64 id, const struct varlena *g, const char *context)
{
	static const char zeros[8] = {0};
	uint32		bytes = VARSIZE(g),
				pad = 0;

	if ((Size) state->len + 16 + TYPEALIGN(8, bytes) >= MaxAllocSize)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("%s: the batch exceeds 1 GB", context),
				 errhint("Use the form ST_ExactIntersects3DJoin(left_sql, right_sql), which reads rows through cursors.")));
	appendBinaryStringInfo(state, (const char *) &id, 8);
	appendBinaryStringInfo(state, (const char *) &bytes, 4);
	appendBinaryStringInfo(state, (const char *) &pad, 4);
	appendBinaryStringInfo(state, (const char *) g, bytes);
	appendBinaryStringInfo(state, zeros, TYPEALIGN(8, bytes) - bytes);
	((BatchHeader *) state->data)->nrows++;
}

static Datum
batch_finish(StringInfo state)
{
	SET_VARSIZE(state->data, state->len);
	PG_RETURN_POINTER(state->data);
}

/* Walk a stored batch row by row (bounds checked: a batch read from disk). */
typedef struct BatchCursor
{
	const char *p;
	const char *end;
	uint32		left;
	bool		keyed;
	Oid			keytype;
	int16		typlen;
	bool		typbyval;
	Datum		key;			/* keyed: the row's key */
} BatchCursor;

static const BatchHeader *
batch_open(Datum d, BatchCursor *c)
{
	const BatchHeader *b = (const BatchHeader *) PG_DETOAST_DATUM(d);

	if (VARSIZE(b) < sizeof(BatchHeader) || b->magic != BATCH_MAGIC ||
		(b->version != 0 && b->version != BATCH_KEYED) || VARSIZE(b) < batch_rows_start(b))
		ereport(ERROR,
				(errcode(ERRCODE_DATA_CORRUPTED),
				 errmsg("exactgpu_batch: not an exactgpu_batch value")));
	c->p = (const char *) b + batch_rows_start(b);
	c->end = (const char *) b + VARSIZE(b);
	c->left = b->nrows;
	c->keyed = b->version == BATCH_KEYED;
	c->keytype = batch_key_type(b);
	if (c->keyed)
		get_typlenbyval(c->keytype, &c->typlen, &c->typbyval);
	return b;
}

static bool
batch_next(BatchCursor *c, int64 *id, const struct varlena **g)
{
	uint32		bytes;

	if (c->left == 0)
		return false;
	if (c->end - c->p < 16)
		ereport(ERROR, (errcode(ERRCODE_DATA_CORRUPTED), errmsg("exactgpu_batch: truncated value")));
	if (c->keyed)
	{
		uint32		kbytes;

		memcpy(&kbytes, c->p, 4);
		memcpy(&bytes, c->p + 4, 4);
		c->p += 8;
		if ((size_t) (c->end - c->p) < TYPEALIGN(8, kbytes))
			ereport(ERROR, (errcode(ERRCODE_DATA_CORRUPTED), errmsg("exactgpu_batch: truncated value")));
		if (c->typbyval)
			memcpy(&c->key, c->p, sizeof(Datum));
		else
			c->key = PointerGetDatum(c->p);
		c->p += TYPEALIGN(8, kbytes);
		*id = 0;
	}
	else
	{
		memcpy(id, c->p, 8);
		memcpy(&bytes, c->p + 8, 4);
		c->p += 16;
	}
	if ((size_t) (c->end - c->p) < bytes || bytes < VARHDRSZ)
		ereport(ERROR, (errcode(ERRCODE_DATA_CORRUPTED), errmsg("exactgpu_batch: truncated value")));
	*g = (const struct varlena *) c->p;
	c->p += TYPEALIGN(8, bytes);
	c->left--;
	return true;
}

static void
batch_syntax_error(const char *input, const char *at, const char *what)
{
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_TEXT_REPRESENTATION),
			 errmsg("invalid input syntax for type exactgpu_batch: %s at character %d",
					what, (int) (at - input) + 1),
			 errhint("The form is {id:hexewkb,...} as exactgpu_batch prints it, e.g. {1:0101000000000000000000F03F0000000000000040}; or build a batch with ST_ExactBatch(id, geom).")));
}

/*
 * A geometry read through PostGIS's input or receive function. PostGIS
 * reports malformed hex or WKB as an internal error (XX000); for our input
 * that is bad data, so it is re-raised as `code`.
 */
static Datum
read_geometry(FmgrInfo *flinfo, char *text, StringInfo wkb, Oid ioparam, int code)
{
	MemoryContext cxt = CurrentMemoryContext;
	Datum		g = (Datum) 0;

	PG_TRY();
	{
		g = text ? InputFunctionCall(flinfo, text, ioparam, -1)
			: ReceiveFunctionCall(flinfo, wkb, ioparam, -1);
	}
	PG_CATCH();
	{
		ErrorData  *ed;

		MemoryContextSwitchTo(cxt);
		ed = CopyErrorData();
		if (ed->sqlerrcode != ERRCODE_INTERNAL_ERROR)
			PG_RE_THROW();
		FlushErrorState();
		ed->sqlerrcode = code;
		if (ed->hint == NULL)
			ed->hint = pstrdup("A geometry of the batch is not valid EWKB.");
		ReThrowError(ed);
	}
	PG_END_TRY();
	return g;
}

Datum
exactgpu_batch_in(PG_FUNCTION_ARGS)
{
	const char *input = PG_GETARG_CSTRING(0);
	const char *p = input;
	Oid			geom = geometry_type(),
				infn,
				ioparam;
	StringInfo	state = batch_begin();
	StringInfoData hex;
	FmgrInfo	flinfo;

	Oid			keytype = InvalidOid,
				keyio = InvalidOid;
	int16		typlen = 0;
	bool		typbyval = false;
	FmgrInfo	keyinfo;
	StringInfoData keytext;

	getTypeInputInfo(geom, &infn, &ioparam);
	fmgr_info(infn, &flinfo);
	initStringInfo(&hex);
	initStringInfo(&keytext);
	while (isspace((unsigned char) *p))
		p++;
	/* (type){"id":hexewkb,...}: ids of that type */
	if (*p == '(')
	{
		const char *close = strchr(p, ')');
		int32		typmod;
		Oid			keyin;

		if (close == NULL)
			batch_syntax_error(input, p, "expected \")\" after the ids' type");
		parseTypeString(pnstrdup(p + 1, close - p - 1), &keytype, &typmod, false);
		get_typlenbyval(keytype, &typlen, &typbyval);
		getTypeInputInfo(keytype, &keyin, &keyio);
		fmgr_info(keyin, &keyinfo);
		pfree(state->data);
		pfree(state);
		state = batch_begin_keyed(keytype);
		p = close + 1;
		while (isspace((unsigned char) *p))
			p++;
	}
	if (*p++ != '{')
		batch_syntax_error(input, p - 1, "expected \"{\"");
	while (isspace((unsigned char) *p))
		p++;
	if (*p == '}')
		p++;
	else
		for (;;)
		{
			char	   *endp;
			long long	id;
			Datum		g;

			CHECK_FOR_INTERRUPTS();
			id = 0;
			if (OidIsValid(keytype))
			{
				if (*p++ != '"')
					batch_syntax_error(input, p - 1, "expected a double-quoted id");
				resetStringInfo(&keytext);
				while (*p && *p != '"')
				{
					if (*p == '\\' && p[1])
						p++;
					appendStringInfoChar(&keytext, *p++);
				}
				if (*p++ != '"')
					batch_syntax_error(input, p - 1, "expected a closing double quote after the id");
			}
			else
			{
				errno = 0;
				id = strtoll(p, &endp, 10);
				if (endp == p || errno == ERANGE)
					batch_syntax_error(input, p, "expected a bigint id");
				p = endp;
			}
			while (isspace((unsigned char) *p))
				p++;
			if (*p++ != ':')
				batch_syntax_error(input, p - 1, "expected \":\" after the id");
			while (isspace((unsigned char) *p))
				p++;
			resetStringInfo(&hex);
			while (isxdigit((unsigned char) *p))
				appendStringInfoChar(&hex, *p++);
			if (hex.len == 0)
				batch_syntax_error(input, p, "expected a geometry in hex EWKB");
			g = read_geometry(&flinfo, hex.data, NULL, ioparam,
							  ERRCODE_INVALID_TEXT_REPRESENTATION);
			if (OidIsValid(keytype))
			{
				Datum		key = InputFunctionCall(&keyinfo, keytext.data, keyio, -1);

				if (typlen == -1)
					key = PointerGetDatum(PG_DETOAST_DATUM(key));
				batch_append_keyed(state, key, typlen, typbyval,
								   (const struct varlena *) PG_DETOAST_DATUM(g), "exactgpu_batch");
			}
			else
				batch_append(state, (int64) id, (const struct varlena *) PG_DETOAST_DATUM(g),
							 "exactgpu_batch");
			while (isspace((unsigned char) *p))
				p++;
			if (*p == ',')
			{
				p++;
				while (isspace((unsigned char) *p))
					p++;
				continue;
			}
			if (*p++ != '}')
				batch_syntax_error(input, p - 1, "expected \",\" or \"}\"");
			break;
		}
	while (isspace((unsigned char) *p))
		p++;
	if (*p != '\0')
		batch_syntax_error(input, p, "junk after \"}\"");
	return batch_finish(state);
}

/* A key in the text form: its type's output, double-quoted, " and \\ escaped. */
static void
append_quoted_key(StringInfo out, const char *text)
{
	appendStringInfoChar(out, '"');
	for (const char *q = text; *q; q++)
	{
		if (*q == '"' || *q == '\\')
			appendStringInfoChar(out, '\\');
		appendStringInfoChar(out, *q);
	}
	appendStringInfoChar(out, '"');
}

Datum
exactgpu_batch_out(PG_FUNCTION_ARGS)
{
	BatchCursor c;
	StringInfoData out;
	int64		id;
	const struct varlena *g;
	Oid			outfn,
				keyout = InvalidOid;
	bool		varlena;
	FmgrInfo	flinfo,
				keyinfo;
	bool		first = true;

	batch_open(PG_GETARG_DATUM(0), &c);
	getTypeOutputInfo(geometry_type(), &outfn, &varlena);
	fmgr_info(outfn, &flinfo);
	initStringInfo(&out);
	/* ids of another type: the form is (type){"id":hexewkb,...} */
	if (c.keyed)
	{
		getTypeOutputInfo(c.keytype, &keyout, &varlena);
		fmgr_info(keyout, &keyinfo);
		appendStringInfo(&out, "(%s)", format_type_be_qualified(c.keytype));
	}
	appendStringInfoChar(&out, '{');
	while (batch_next(&c, &id, &g))
	{
		CHECK_FOR_INTERRUPTS();
		if (!first)
			appendStringInfoChar(&out, ',');
		if (c.keyed)
			append_quoted_key(&out, OutputFunctionCall(&keyinfo, c.key));
		else
			appendStringInfo(&out, INT64_FORMAT, id);
		appendStringInfo(&out, ":%s", OutputFunctionCall(&flinfo, PointerGetDatum(g)));
		first = false;
	}
	appendStringInfoChar(&out, '}');
	PG_RETURN_CSTRING(out.data);
}

Datum
exactgpu_batch_send(PG_FUNCTION_ARGS)
{
	BatchCursor c;
	const BatchHeader *b = batch_open(PG_GETARG_DATUM(0), &c);
	StringInfoData buf;
	int64		id;
	const struct varlena *g;
	Oid			sendfn;
	bool		varlena;
	FmgrInfo	flinfo;

	FmgrInfo	keyinfo;

	getTypeBinaryOutputInfo(geometry_type(), &sendfn, &varlena);
	fmgr_info(sendfn, &flinfo);
	pq_begintypsend(&buf);
	/* ids of another type: a marker no row count can be, the type's name,
	 * then each id in its type's binary form */
	if (c.keyed)
	{
		Oid			keysend;

		getTypeBinaryOutputInfo(c.keytype, &keysend, &varlena);
		fmgr_info(keysend, &keyinfo);
		pq_sendint32(&buf, BATCH_BINARY_KEYED);
		pq_sendstring(&buf, format_type_be_qualified(c.keytype));
	}
	pq_sendint32(&buf, b->nrows);
	while (batch_next(&c, &id, &g))
	{
		bytea	   *wkb = SendFunctionCall(&flinfo, PointerGetDatum(g));

		CHECK_FOR_INTERRUPTS();
		if (c.keyed)
		{
			bytea	   *kb = SendFunctionCall(&keyinfo, c.key);

			pq_sendint32(&buf, VARSIZE(kb) - VARHDRSZ);
			pq_sendbytes(&buf, VARDATA(kb), VARSIZE(kb) - VARHDRSZ);
		}
		else
			pq_sendint64(&buf, id);
		pq_sendint32(&buf, VARSIZE(wkb) - VARHDRSZ);
		pq_sendbytes(&buf, VARDATA(wkb), VARSIZE(wkb) - VARHDRSZ);
	}
	PG_RETURN_BYTEA_P(pq_endtypsend(&buf));
}

Datum
exactgpu_batch_recv(PG_FUNCTION_ARGS)
{
	StringInfo	in = (StringInfo) PG_GETARG_POINTER(0);
	Oid			recvfn,
				ioparam;
	FmgrInfo	flinfo;
	StringInfo	state = batch_begin();
	uint32		nrows = pq_getmsgint(in, 4);
	Oid			keytype = InvalidOid,
				keyio = InvalidOid;
	int16		typlen = 0;
	bool		typbyval = false;
	FmgrInfo	keyinfo;

	getTypeBinaryInputInfo(geometry_type(), &recvfn, &ioparam);
	fmgr_info(recvfn, &flinfo);
	if (nrows == BATCH_BINARY_KEYED)
	{
		int32		typmod;
		Oid			keyrecv;

		parseTypeString(pq_getmsgstring(in), &keytype, &typmod, false);
		get_typlenbyval(keytype, &typlen, &typbyval);
		getTypeBinaryInputInfo(keytype, &keyrecv, &keyio);
		fmgr_info(keyrecv, &keyinfo);
		state = batch_begin_keyed(keytype);
		nrows = pq_getmsgint(in, 4);
	}
	for (uint32 r = 0; r < nrows; r++)
	{
		int64		id = 0;
		Datum		key = (Datum) 0;
		int			len;
		StringInfoData wkb;
		Datum		g;

		CHECK_FOR_INTERRUPTS();
		if (OidIsValid(keytype))
		{
			int			klen = pq_getmsgint(in, 4);
			StringInfoData kb;

			if (klen < 0 || klen > in->len - in->cursor)
				ereport(ERROR,
						(errcode(ERRCODE_INVALID_BINARY_REPRESENTATION),
						 errmsg("exactgpu_batch: truncated binary value")));
			initStringInfo(&kb);
			appendBinaryStringInfo(&kb, pq_getmsgbytes(in, klen), klen);
			key = ReceiveFunctionCall(&keyinfo, &kb, keyio, -1);
			if (typlen == -1)
				key = PointerGetDatum(PG_DETOAST_DATUM(key));
		}
		else
			id = pq_getmsgint64(in);
		len = pq_getmsgint(in, 4);
		if (len < 0 || len > in->len - in->cursor)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_BINARY_REPRESENTATION),
					 errmsg("exactgpu_batch: truncated binary value")));
		initStringInfo(&wkb);
		appendBinaryStringInfo(&wkb, pq_getmsgbytes(in, len), len);
		g = read_geometry(&flinfo, NULL, &wkb, ioparam, ERRCODE_INVALID_BINARY_REPRESENTATION);
		if (OidIsValid(keytype))
			batch_append_keyed(state, key, typlen, typbyval,
							   (const struct varlena *) PG_DETOAST_DATUM(g), "exactgpu_batch");
		else
			batch_append(state, id, (const struct varlena *) PG_DETOAST_DATUM(g), "exactgpu_batch");
		pfree(wkb.data);
	}
	return batch_finish(state);
}


/* ---- ST_ExactBatch(id, geom) aggregate ----
 *
 * Geometries stored out of line (ore bodies) are kept as TOAST pointers in
 * the transition state and detoasted by the final function, by parallel
 * workers when it pays (read/read_flatten.c): detoasting them is what the
 * aggregate costs, and a parallel aggregate could not spread it (a table of
 * 100 bodies is one heap block of pointers). The pointers stay valid until
 * the final function, in the same statement. Those rows come after the
 * others in the batch; the joins' results do not depend on row order.
 */

typedef struct BatchAggState
{
	StringInfo	buf;			/* the batch so far: header, rows in line */
	ExactgpuToastRow *toast;	/* rows kept as TOAST pointers, in order */
	size_t		ntoast;
	size_t		toast_cap;
	Size		toast_len;		/* their size once packed into the batch */
	uint64		toast_bytes;	/* their detoasted size */
	Oid			toastrel;		/* the last TOAST relation seen, and */
	bool		toastrel_shared;	/* whether parallel workers can read it */
} BatchAggState;

/* Keep v (an on-disk TOAST pointer) for the final function, if workers can read it. */
static bool
batch_defer(BatchAggState *st, int64 id, const struct varlena *v)
{
	struct varatt_external ext;
	Size		packed;

	VARATT_EXTERNAL_GET_POINTER(ext, v);
	if (ext.va_toastrelid != st->toastrel)
	{
		/* a temporary table's pages live in this backend's local buffers */
		st->toastrel = ext.va_toastrelid;
		st->toastrel_shared = get_rel_persistence(ext.va_toastrelid) != RELPERSISTENCE_TEMP;
	}
	if (!st->toastrel_shared)
		return false;
	packed = 16 + TYPEALIGN(8, (Size) ext.va_rawsize);
	if ((Size) st->buf->len + st->toast_len + packed >= MaxAllocSize)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("ST_ExactBatch: the batch exceeds 1 GB"),
				 errhint("Use the form ST_ExactIntersects3DJoin(left_sql, right_sql), which reads rows through cursors.")));
	if (st->ntoast == st->toast_cap)
	{
		st->toast_cap = st->toast_cap ? 2 * st->toast_cap : 64;
		st->toast = st->toast ? repalloc_huge(st->toast, st->toast_cap * sizeof(ExactgpuToastRow))
			: palloc(st->toast_cap * sizeof(ExactgpuToastRow));
	}
	st->toast[st->ntoast].id = id;
	memcpy(st->toast[st->ntoast].ptr, v, TOAST_POINTER_SIZE);
	st->ntoast++;
	st->toast_len += packed;
	st->toast_bytes += ext.va_rawsize;
	return true;
}

Datum
exactgpu_batch_accum(PG_FUNCTION_ARGS)
{
	MemoryContext aggcxt,
				old;
	BatchAggState *state;

	if (!AggCheckCallContext(fcinfo, &aggcxt))
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("ST_ExactBatch: called outside an aggregate")));
	if (PG_ARGISNULL(0))
	{
		old = MemoryContextSwitchTo(aggcxt);
		state = palloc0(sizeof(BatchAggState));
		state->buf = batch_begin();
		MemoryContextSwitchTo(old);
	}
	else
		state = (BatchAggState *) PG_GETARG_POINTER(0);
	if (PG_ARGISNULL(2))
		PG_RETURN_POINTER(state);	/* NULL geometries are skipped */
	if (PG_ARGISNULL(1))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("ST_ExactBatch: NULL id")));
	{
		struct varlena *v = (struct varlena *) DatumGetPointer(PG_GETARG_DATUM(2));
		bool		deferred;

		old = MemoryContextSwitchTo(aggcxt);
		deferred = VARATT_IS_EXTERNAL_ONDISK(v) &&
			VARSIZE_EXTERNAL(v) == TOAST_POINTER_SIZE &&
			batch_defer(state, PG_GETARG_INT64(1), v);
		MemoryContextSwitchTo(old);
		if (!deferred)
		{
			struct varlena *g = PG_DETOAST_DATUM(PG_GETARG_DATUM(2));

			if ((Size) state->buf->len + state->toast_len + 16 + TYPEALIGN(8, VARSIZE(g)) >=
				MaxAllocSize)
				ereport(ERROR,
						(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
						 errmsg("ST_ExactBatch: the batch exceeds 1 GB"),
						 errhint("Use the form ST_ExactIntersects3DJoin(left_sql, right_sql), which reads rows through cursors.")));
			old = MemoryContextSwitchTo(aggcxt);
			batch_append(state->buf, PG_GETARG_INT64(1), g, "ST_ExactBatch");
			MemoryContextSwitchTo(old);
		}
	}
	PG_RETURN_POINTER(state);
}

/*
 * ST_ExactBatch(id text | uuid, geom): a batch of version 1, its ids kept
 * as values of their type. Its geometries are detoasted here, row by row
 * (a keyed batch defers no TOAST pointer: their rows carry int64 ids).
 */
Datum
exactgpu_batch_accum_key(PG_FUNCTION_ARGS)
{
	MemoryContext aggcxt,
				old;
	BatchAggState *state;
	Oid			keytype = get_fn_expr_argtype(fcinfo->flinfo, 1);
	int16		typlen;
	bool		typbyval;

	if (!AggCheckCallContext(fcinfo, &aggcxt))
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("ST_ExactBatch: called outside an aggregate")));
	keytype = getBaseType(keytype);
	get_typlenbyval(keytype, &typlen, &typbyval);
	if (PG_ARGISNULL(0))
	{
		old = MemoryContextSwitchTo(aggcxt);
		state = palloc0(sizeof(BatchAggState));
		state->buf = batch_begin_keyed(keytype);
		MemoryContextSwitchTo(old);
	}
	else
		state = (BatchAggState *) PG_GETARG_POINTER(0);
	if (PG_ARGISNULL(2))
		PG_RETURN_POINTER(state);	/* NULL geometries are skipped */
	if (PG_ARGISNULL(1))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("ST_ExactBatch: NULL id")));
	{
		struct varlena *g = PG_DETOAST_DATUM(PG_GETARG_DATUM(2));
		Datum		key = PG_GETARG_DATUM(1);

		if (typlen == -1)
			key = PointerGetDatum(PG_DETOAST_DATUM(key));
		old = MemoryContextSwitchTo(aggcxt);
		batch_append_keyed(state->buf, key, typlen, typbyval, g, "ST_ExactBatch");
		MemoryContextSwitchTo(old);
	}
	PG_RETURN_POINTER(state);
}

/* The final function's output: the batch, rows written in order at off. */
typedef struct BatchOut
{
	char	   *b;
	Size		off;
	Size		size;
	const BatchAggState *st;
} BatchOut;

static void
batch_out_row(void *arg, size_t i, const struct varlena *v)
{
	BatchOut   *o = arg;
	uint32		bytes = VARSIZE(v),
				pad = 0;
	int64		id = o->st->toast[i].id;

	/* sized from the TOAST pointers: a value of another size is corrupt */
	if (o->off + 16 + TYPEALIGN(8, bytes) > o->size)
		ereport(ERROR,
				(errcode(ERRCODE_DATA_CORRUPTED),
				 errmsg("ST_ExactBatch: a detoasted geometry is larger than its TOAST pointer says")));
	memcpy(o->b + o->off, &id, 8);
	memcpy(o->b + o->off + 8, &bytes, 4);
	memcpy(o->b + o->off + 12, &pad, 4);
	memcpy(o->b + o->off + 16, v, bytes);
	memset(o->b + o->off + 16 + bytes, 0, TYPEALIGN(8, bytes) - bytes);
	o->off += 16 + TYPEALIGN(8, bytes);
}

/* The state is left as it is (a window aggregate calls this again). */
Datum
exactgpu_batch_final(PG_FUNCTION_ARGS)
{
	BatchAggState *state;
	BatchHeader *b;
	BatchOut	o;

	if (PG_ARGISNULL(0))
	{
		b = palloc0(sizeof(BatchHeader));
		b->magic = BATCH_MAGIC;
		SET_VARSIZE(b, sizeof(BatchHeader));
		PG_RETURN_POINTER(b);
	}
	state = (BatchAggState *) PG_GETARG_POINTER(0);
	o.size = state->buf->len + state->toast_len;
	o.b = palloc(o.size);
	o.off = state->buf->len;
	o.st = state;
	memcpy(o.b, state->buf->data, state->buf->len);
	if (state->ntoast > 0)
		(void) exactgpu_detoast_rows(state->toast, state->ntoast, state->toast_bytes,
									 batch_out_row, &o);
	b = (BatchHeader *) o.b;
	b->nrows += (uint32) state->ntoast;
	SET_VARSIZE(b, o.off);
	PG_RETURN_POINTER(b);
}


/* ---- partial aggregation: combine, serialize, deserialize ----
 *
 * So that ST_ExactBatch can be computed in parts (parallel workers, a
 * partitionwise aggregate over partitions) and the parts combined. A part
 * is its rows in line plus its TOAST pointers; the pointers are passed on
 * as they are (a parallel worker's pointers name the same TOAST tables,
 * read by the leader under the same snapshot), so the combined state is
 * detoasted once, by the final function, as before. Rows keep their order
 * within a part; the joins' results do not depend on row order.
 */

static BatchAggState *
batch_state_new(void)
{
	BatchAggState *st = palloc0(sizeof(BatchAggState));

	st->buf = batch_begin();
	return st;
}

/* Append src's rows (in line, then its TOAST pointers) to dst, in dst's context. */
static void
batch_state_add(BatchAggState *dst, const BatchAggState *src)
{
	const BatchHeader *sh = (const BatchHeader *) src->buf->data;
	uint32		nrows = sh->nrows;
	Size		start = batch_rows_start(sh);

	/* a fresh state takes the parts' form (ids of another type: version 1) */
	if (((const BatchHeader *) dst->buf->data)->version != sh->version &&
		((const BatchHeader *) dst->buf->data)->nrows == 0 && dst->ntoast == 0)
	{
		pfree(dst->buf->data);
		pfree(dst->buf);
		dst->buf = sh->version == BATCH_KEYED ? batch_begin_keyed(batch_key_type(sh))
			: batch_begin();
	}
	if (((const BatchHeader *) dst->buf->data)->version != sh->version ||
		batch_key_type((const BatchHeader *) dst->buf->data) != batch_key_type(sh))
		ereport(ERROR,
				(errcode(ERRCODE_DATA_CORRUPTED),
				 errmsg("ST_ExactBatch: partial states with ids of different types")));
	if ((Size) dst->buf->len + dst->toast_len + (src->buf->len - start) +
		src->toast_len >= MaxAllocSize)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("ST_ExactBatch: the batch exceeds 1 GB"),
				 errhint("Use the form ST_ExactIntersects3DJoin(left_sql, right_sql), which reads rows through cursors.")));
	appendBinaryStringInfo(dst->buf, src->buf->data + start, src->buf->len - start);
	((BatchHeader *) dst->buf->data)->nrows += nrows;
	if (src->ntoast > 0)
	{
		if (dst->ntoast + src->ntoast > dst->toast_cap)
		{
			dst->toast_cap = Max(dst->ntoast + src->ntoast, 2 * dst->toast_cap);
			dst->toast = dst->toast
				? repalloc_huge(dst->toast, dst->toast_cap * sizeof(ExactgpuToastRow))
				: palloc_extended(dst->toast_cap * sizeof(ExactgpuToastRow), MCXT_ALLOC_HUGE);
		}
		memcpy(dst->toast + dst->ntoast, src->toast, src->ntoast * sizeof(ExactgpuToastRow));
		dst->ntoast += src->ntoast;
		dst->toast_len += src->toast_len;
		dst->toast_bytes += src->toast_bytes;
	}
	if (!OidIsValid(dst->toastrel))
	{
		dst->toastrel = src->toastrel;
		dst->toastrel_shared = src->toastrel_shared;
	}
}

Datum
exactgpu_batch_combine(PG_FUNCTION_ARGS)
{
	MemoryContext aggcxt,
				old;
	BatchAggState *st;

	if (!AggCheckCallContext(fcinfo, &aggcxt))
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("ST_ExactBatch: called outside an aggregate")));
	if (PG_ARGISNULL(1))
	{
		if (PG_ARGISNULL(0))
			PG_RETURN_NULL();
		PG_RETURN_POINTER(PG_GETARG_POINTER(0));
	}
	old = MemoryContextSwitchTo(aggcxt);
	/* the second state may live in a shorter context (deserialized): copy it */
	st = PG_ARGISNULL(0) ? batch_state_new() : (BatchAggState *) PG_GETARG_POINTER(0);
	batch_state_add(st, (const BatchAggState *) PG_GETARG_POINTER(1));
	MemoryContextSwitchTo(old);
	PG_RETURN_POINTER(st);
}

/* Serialized: the in-line rows as a batch varlena's body, then the TOAST rows. */
typedef struct BatchStateWire
{
	uint64		buf_len;
	uint64		ntoast;
	uint64		toast_len;
	uint64		toast_bytes;
	Oid			toastrel;
	uint32		toastrel_shared;
} BatchStateWire;

Datum
exactgpu_batch_serialize(PG_FUNCTION_ARGS)
{
	const BatchAggState *st = (const BatchAggState *) PG_GETARG_POINTER(0);
	BatchStateWire w = {0};
	Size		size;
	bytea	   *out;
	char	   *p;

	if (!AggCheckCallContext(fcinfo, NULL))
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("ST_ExactBatch: called outside an aggregate")));
	w.buf_len = st->buf->len;
	w.ntoast = st->ntoast;
	w.toast_len = st->toast_len;
	w.toast_bytes = st->toast_bytes;
	w.toastrel = st->toastrel;
	w.toastrel_shared = st->toastrel_shared;
	size = VARHDRSZ + sizeof(w) + st->buf->len + st->ntoast * sizeof(ExactgpuToastRow);
	if (size >= MaxAllocSize)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("ST_ExactBatch: the partial batch exceeds 1 GB")));
	out = palloc(size);
	SET_VARSIZE(out, size);
	p = VARDATA(out);
	memcpy(p, &w, sizeof(w));
	memcpy(p + sizeof(w), st->buf->data, st->buf->len);
	if (st->ntoast > 0)
		memcpy(p + sizeof(w) + st->buf->len, st->toast, st->ntoast * sizeof(ExactgpuToastRow));
	PG_RETURN_BYTEA_P(out);
}

Datum
exactgpu_batch_deserialize(PG_FUNCTION_ARGS)
{
	bytea	   *in = PG_GETARG_BYTEA_PP(0);
	const char *p = VARDATA_ANY(in);
	Size		len = VARSIZE_ANY_EXHDR(in);
	BatchStateWire w;
	BatchAggState *st;

	if (!AggCheckCallContext(fcinfo, NULL))
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("ST_ExactBatch: called outside an aggregate")));
	if (len < sizeof(w))
		ereport(ERROR, (errcode(ERRCODE_DATA_CORRUPTED),
						errmsg("ST_ExactBatch: truncated partial state")));
	memcpy(&w, p, sizeof(w));
	if (w.buf_len < sizeof(BatchHeader) ||
		len != sizeof(w) + w.buf_len + w.ntoast * sizeof(ExactgpuToastRow))
		ereport(ERROR, (errcode(ERRCODE_DATA_CORRUPTED),
						errmsg("ST_ExactBatch: truncated partial state")));
	st = palloc0(sizeof(BatchAggState));
	st->buf = makeStringInfo();
	appendBinaryStringInfo(st->buf, p + sizeof(w), w.buf_len);
	if (((const BatchHeader *) st->buf->data)->magic != BATCH_MAGIC)
		ereport(ERROR, (errcode(ERRCODE_DATA_CORRUPTED),
						errmsg("ST_ExactBatch: not a partial exactgpu_batch state")));
	st->ntoast = st->toast_cap = w.ntoast;
	if (w.ntoast > 0)
	{
		st->toast = palloc_extended(w.ntoast * sizeof(ExactgpuToastRow), MCXT_ALLOC_HUGE);
		memcpy(st->toast, p + sizeof(w) + w.buf_len, w.ntoast * sizeof(ExactgpuToastRow));
	}
	st->toast_len = w.toast_len;
	st->toast_bytes = w.toast_bytes;
	st->toastrel = w.toastrel;
	st->toastrel_shared = w.toastrel_shared != 0;
	PG_RETURN_POINTER(st);
}
