# test/resident/run.sh's steps (sourced by it: bindir, pg_start, pg_stop,
# as_owner, RESIDENT_WORK and PGHOST/PGPORT/PGUSER are set).
pgxs=$(dirname "$("$PG_CONFIG" --pgxs)")
out=$RESIDENT_WORK/out
mkdir -p "$out"
[ "$(id -u)" = 0 ] && chown postgres "$out"
fail() { echo "resident: FAILED: $*"; echo "resident: 0 passed, 1 failed"; exit 1; }

echo "== resident: pg_regress"
if ! "$pgxs/../test/regress/pg_regress" --inputdir=test/resident --outputdir="$out" \
	--bindir="$bindir" --dbname=resident_regression \
	--load-extension=postgis --load-extension=exactgpu resident resident_probe resident_plan; then
	cat "$out/regression.diffs" 2>/dev/null || true
	fail "pg_regress"
fi

db=resident_stress
q() { "$bindir/psql" -X -q -v ON_ERROR_STOP=1 -d "$db" "$@"; }
"$bindir/psql" -X -q -d postgres -c "DROP DATABASE IF EXISTS $db" -c "CREATE DATABASE $db"
q -c "CREATE EXTENSION postgis" -c "CREATE EXTENSION exactgpu"
q <<'SQL'
SELECT setseed(0.75);
CREATE TABLE bodies (id int PRIMARY KEY, geom geometry);
INSERT INTO bodies
SELECT i, ST_GeomFromText('TIN Z (' || string_agg(format(
		'((%1$s,%2$s,%3$s,%1$s)),((%1$s,%2$s,%4$s,%1$s)),((%1$s,%3$s,%4$s,%1$s)),((%2$s,%3$s,%4$s,%2$s))',
		a, b, c, d), ',') || ')')
FROM (SELECT i, format('%s %s %s', x0 + random(), random(), random()) AS a,
		format('%s %s %s', x0 + random(), random(), random()) AS b,
		format('%s %s %s', x0 + random(), random(), random()) AS c,
		format('%s %s %s', x0 + random(), random(), random()) AS d
	FROM (SELECT i, (i % 20)::float8 AS x0 FROM generate_series(0, 19) i) c,
		generate_series(1, 200) t) v
GROUP BY i;
CREATE TABLE holes (id int, geom geometry);
INSERT INTO holes SELECT i, ST_MakeLine(ST_MakePoint(x, y, -1), ST_MakePoint(x + 0.2, y, 2))
FROM (SELECT i, 20 * random() AS x, random() AS y FROM generate_series(1, 100) i) s;
-- the store's answer and the answer without it, in one snapshot
CREATE FUNCTION check_same() RETURNS bigint LANGUAGE plpgsql AS $$
DECLARE
	n_on bigint;
	n_off bigint;
	sum_on bigint;
	sum_off bigint;
BEGIN
	SET LOCAL enable_hashjoin = off;
	SET LOCAL enable_mergejoin = off;
	SET LOCAL exactgpu.enable_batch_join = off;
	SET LOCAL exactgpu.resident = on;
	SELECT count(*), coalesce(sum(b.id * 1000 + h.id), 0) INTO n_on, sum_on
		FROM holes h, bodies b WHERE ST_ExactIntersects3D(b.geom, h.geom);
	SET LOCAL exactgpu.resident = off;
	SELECT count(*), coalesce(sum(b.id * 1000 + h.id), 0) INTO n_off, sum_off
		FROM holes h, bodies b WHERE ST_ExactIntersects3D(b.geom, h.geom);
	IF n_on <> n_off OR sum_on <> sum_off THEN
		RAISE EXCEPTION 'resident store: % pairs (sum %) against % (sum %) without it',
			n_on, sum_on, n_off, sum_off;
	END IF;
	RETURN n_on;
END
$$;
-- the same for a batch join (the SRF), whose side of bodies the store keeps
CREATE FUNCTION check_same_batch() RETURNS bigint LANGUAGE plpgsql AS $$
DECLARE
	n_on bigint;
	n_off bigint;
	sum_on bigint;
	sum_off bigint;
BEGIN
	SET LOCAL exactgpu.resident = on;
	SELECT count(*), coalesce(sum(right_id * 1000 + left_id), 0) INTO n_on, sum_on
		FROM ST_ExactIntersects3DJoin('SELECT id, geom FROM holes', 'SELECT id, geom FROM bodies WHERE id < 8');
	SET LOCAL exactgpu.resident = off;
	SELECT count(*), coalesce(sum(right_id * 1000 + left_id), 0) INTO n_off, sum_off
		FROM ST_ExactIntersects3DJoin('SELECT id, geom FROM holes', 'SELECT id, geom FROM bodies WHERE id < 8');
	IF n_on <> n_off OR sum_on <> sum_off THEN
		RAISE EXCEPTION 'resident store, batch join: % pairs (sum %) against % (sum %) without it',
			n_on, sum_on, n_off, sum_off;
	END IF;
	RETURN n_on;
END
$$;
SQL
cat > "$out/update.sql" <<'SQL'
\set id random(0, 19)
UPDATE bodies SET geom = ST_Translate(geom, 0.05, 0, 0) WHERE id = :id;
SQL
cat > "$out/vacuum.sql" <<'SQL'
VACUUM bodies;
SQL
cat > "$out/check_rr.sql" <<'SQL'
BEGIN ISOLATION LEVEL REPEATABLE READ;
SELECT check_same();
COMMIT;
SQL
cat > "$out/check_ser.sql" <<'SQL'
BEGIN ISOLATION LEVEL SERIALIZABLE READ ONLY;
SELECT check_same();
COMMIT;
SQL
echo "== resident: 4 clients updating, vacuuming and comparing for 20 s"
"$bindir/pgbench" -n -c 4 -j 2 -T 20 -d "$db" -f "$out/update.sql@3" -f "$out/vacuum.sql@1" \
	-f "$out/check_rr.sql@4" -f "$out/check_ser.sql@2" > "$out/pgbench.log" 2>&1 || true
cat "$out/pgbench.log" | grep -E 'transactions actually processed|aborted|ERROR|resident store' || true
grep -q 'aborted\|ERROR' "$out/pgbench.log" && fail "a client saw the store differ, or failed"
grep -q 'number of transactions actually processed' "$out/pgbench.log" || fail "pgbench did not run"
q -At -c "SELECT 'checks passed; store: ' || entries || ' entries, ' || hits || ' hits, ' || evictions || ' evictions' FROM exactgpu_resident"

# lookups of present entries take the store's lock shared: many readers at
# once, each comparing its answers with the store's off in one snapshot
cat > "$out/read_rows.sql" <<'SQL'
BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY;
SELECT check_same();
COMMIT;
SQL
cat > "$out/read_batch.sql" <<'SQL'
BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY;
SELECT check_same_batch();
COMMIT;
SQL
echo "== resident: 8 clients reading only for 10 s (row by row and batch joins)"
q -At -c "SELECT check_same_batch()" >/dev/null || fail "batch join differs with the store"
hits0=$(q -At -c "SELECT hits FROM exactgpu_resident")
"$bindir/pgbench" -n -c 8 -j 2 -T 10 -d "$db" -f "$out/read_rows.sql@1" -f "$out/read_batch.sql@1" \
	> "$out/pgbench_ro.log" 2>&1 || true
grep -E 'transactions actually processed|aborted|ERROR|resident store' "$out/pgbench_ro.log" || true
grep -q 'aborted\|ERROR' "$out/pgbench_ro.log" && fail "a read-only client saw the store differ, or failed"
grep -q 'number of transactions actually processed' "$out/pgbench_ro.log" || fail "read-only pgbench did not run"
hits1=$(q -At -c "SELECT hits FROM exactgpu_resident")
[ "$hits1" -gt "$hits0" ] || fail "8 readers found nothing in the store ($hits0 hits, then $hits1)"
pinned=$(q -At -c "SELECT count(*) FROM exactgpu_resident_entries() WHERE pins > 0")
[ "$pinned" = 0 ] || fail "$pinned entries pinned after the readers ended"
echo "read-only checks passed: $((hits1 - hits0)) hits in 10 s, no pin left"

echo "== resident: a crash restart starts the store empty and answers as before"
q -At -c "SELECT exactgpu_prewarm('bodies', 'geom')" >/dev/null
# a backend holding pins on every body when it is killed
q -c "SET exactgpu.enable_batch_join = off" -c "BEGIN" \
	-c "SELECT count(*) FROM holes h, bodies b WHERE ST_ExactIntersects3D(b.geom, h.geom)" \
	-c "SELECT pg_sleep(60)" >/dev/null 2>&1 &
victim=""
for i in $(seq 1 40); do
	victim=$(q -At -c "SELECT pid FROM pg_stat_activity WHERE query = 'SELECT pg_sleep(60)'")
	[ -n "$victim" ] && break
	sleep 0.25
done
[ -n "$victim" ] || fail "the pinning backend did not start"
pinned=$(q -At -c "SELECT count(*) FROM exactgpu_resident_entries() WHERE pins > 0")
[ "$pinned" -gt 0 ] || fail "the backend to kill holds no pins"
kill -9 "$victim"
wait 2>/dev/null || true
up=no
for i in $(seq 1 60); do
	if q -At -c "SELECT 1" >/dev/null 2>&1; then up=yes; break; fi
	sleep 0.5
done
[ "$up" = yes ] || fail "the server did not come back after the crash"
after=$(q -At -c "SELECT entries || ' ' || bytes || ' ' || hits FROM exactgpu_resident")
[ "$after" = "0 0 0" ] || fail "the store after a crash restart: $after (entries, bytes, hits), not empty"
q -At -c "BEGIN ISOLATION LEVEL REPEATABLE READ" -c "SELECT check_same()" -c "SELECT check_same()" -c "COMMIT" >/dev/null \
	|| fail "answers differ after the crash restart"
kept=$(q -At -c "SELECT entries > 0 AND hits > 0 FROM exactgpu_resident")
[ "$kept" = t ] || fail "the store keeps nothing after the crash restart"
echo "killed a backend holding $pinned pins: the store restarted empty, and keeps and answers as before"

echo "== resident: a TOAST value OID given again to another body"
q <<'SQL'
CREATE TABLE reuse (id int, geom geometry);
INSERT INTO reuse SELECT 1, geom FROM bodies WHERE id = 3;
SELECT exactgpu_resident_keep(geom) FROM reuse;
SQL
first=$(q -At -c "SELECT value_oid || ' ' || chunk_xmin FROM exactgpu_resident_entries()
	WHERE toast_relid = (SELECT reltoastrelid FROM pg_class WHERE relname = 'reuse')")
[ -n "$first" ] || fail "the first body was not kept"
set -- $first
oid=$1 xmin=$2
q -c "DELETE FROM reuse" -c "VACUUM reuse"
pg_stop
as_owner "'$bindir/pg_resetwal' -o $oid '$RESIDENT_WORK/data'" >/dev/null
pg_start
# the store is empty after the restart: keep the first body's identity by
# hand, as a backend that had kept it before the reuse would hold it
q -c "INSERT INTO reuse SELECT 2, ST_Translate(geom, 0.5, 0, 0) FROM bodies WHERE id = 7" \
	-c "SELECT exactgpu_resident_keep(geom) FROM reuse" >/dev/null
second=$(q -At -c "SELECT value_oid || ' ' || chunk_xmin FROM exactgpu_resident_entries()
	WHERE toast_relid = (SELECT reltoastrelid FROM pg_class WHERE relname = 'reuse')")
set -- $second
[ "$1" = "$oid" ] || fail "the OID was not given again ($1, not $oid): the test did not force a reuse"
[ "$2" != "$xmin" ] || fail "the second body has the first's identity (xmin $xmin)"
echo "value OID $oid given again: first body's chunks xmin $xmin, second's $2 (another key)"
same=$(q -At -c "SELECT (SELECT count(*) FROM holes h, reuse r
	WHERE ST_ExactIntersects3D(r.geom, h.geom)) = (SELECT count(*) FROM holes h, bodies b
	WHERE b.id = 7 AND ST_ExactIntersects3D(ST_Translate(b.geom, 0.5, 0, 0), h.geom))")
[ "$same" = t ] || fail "the second body's answers are not its own"
echo "resident: 5 passed, 0 failed"
