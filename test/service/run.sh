#!/bin/sh
# The GPU service (exactgpu.gpu_service) needs exactgpu preloaded, so its
# tests run on a throwaway cluster of their own with the service on (on a
# machine without a GPU it joins on its CPU pool: the same plumbing):
#   1. pg_regress test/service: every kind of batch join gives, through the
#      service, the pairs the backend gives joining itself; resident bodies
#      go by address; EXPLAIN names the service; an engine failure names
#      its row; a cancel stops the service's join within a second;
#   2. concurrency: pgbench clients joining through the service at once,
#      each checking its pairs against the backend's own;
#   3. the service stopped (SIGTERM) in the middle of a join: the waiting
#      backend gets SQLSTATE 08006, the service is back within seconds and
#      serves the same pairs;
#   4. the service killed (SIGKILL) in the middle of a join: the server
#      restarts (a process attached to shared memory died), the service
#      comes back with it and serves the same pairs.
# The extension must be installed in the PostgreSQL of PG_CONFIG. As root
# the cluster runs as user postgres. The last line says
# "service: N passed, M failed".
set -eu
cd "$(dirname "$0")/../.."
PG_CONFIG=${PG_CONFIG:-pg_config}
export PG_CONFIG
pgxs=$(dirname "$("$PG_CONFIG" --pgxs)")
. test/lib/preloaded-cluster.sh
preloaded_cluster service "${SERVICE_PORT:-54393}"
cat >> "$work/data/postgresql.conf" <<CONF
exactgpu.gpu_service = on
exactgpu.resident_memory = 64
min_dynamic_shared_memory = 64MB
max_parallel_workers_per_gather = 0
restart_after_crash = on
CONF
pg_start
passed=0
failed=0
ok() { passed=$((passed + 1)); echo "service: ok: $*"; }
bad() { failed=$((failed + 1)); echo "service: FAILED: $*"; }
out=$work/out
mkdir -p "$out"
[ "$(id -u)" = 0 ] && chown postgres "$out"

echo "== service: pg_regress"
if "$pgxs/../test/regress/pg_regress" --inputdir=test/service --outputdir="$out" \
	--bindir="$bindir" --dbname=service_regression \
	--load-extension=postgis --load-extension=exactgpu service; then
	ok "pg_regress"
else
	cat "$out/regression.diffs" 2>/dev/null || true
	bad "pg_regress"
fi

db=service_stress
q() { "$bindir/psql" -X -q -At -v ON_ERROR_STOP=1 -d "$db" "$@"; }
"$bindir/psql" -X -q -d postgres -c "DROP DATABASE IF EXISTS $db" -c "CREATE DATABASE $db"
q -c "CREATE EXTENSION postgis" -c "CREATE EXTENSION exactgpu"
q <<'SQL'
SELECT setseed(0.75);
CREATE TABLE bodies (id int PRIMARY KEY, geom geometry);
INSERT INTO bodies
SELECT i, ST_GeomFromText('TIN Z (' || string_agg(format(
		'((%1$s,%2$s,%3$s,%1$s)),((%1$s,%2$s,%4$s,%1$s)),((%1$s,%3$s,%4$s,%1$s)),((%2$s,%3$s,%4$s,%2$s))',
		a, b, c, d), ',') || ')')
FROM (SELECT i, format('%s %s %s', i + random(), random(), random()) AS a,
		format('%s %s %s', i + random(), random(), random()) AS b,
		format('%s %s %s', i + random(), random(), random()) AS c,
		format('%s %s %s', i + random(), random(), random()) AS d
	FROM generate_series(0, 19) i, generate_series(1, 300) t) v
GROUP BY i;
CREATE TABLE holes (id int, geom geometry);
INSERT INTO holes SELECT i, ST_MakeLine(ST_MakePoint(x, y, -1), ST_MakePoint(x + 0.2, y, 2))
FROM (SELECT i, 20 * random() AS x, random() AS y FROM generate_series(1, 400) i) s;
CREATE TABLE crowd (id int, geom geometry);
INSERT INTO crowd SELECT i, ST_MakeLine(ARRAY[
	ST_MakePoint(random(), random(), random()), ST_MakePoint(random(), random(), random()),
	ST_MakePoint(random(), random(), random()), ST_MakePoint(random(), random(), random())])
	FROM generate_series(1, 40000) i;
-- the backend's own answer, to compare every client's with
SET exactgpu.device = 'cpu';
CREATE TABLE expected AS SELECT count(*) AS n, sum(hashint8(left_id * 100000 + right_id)) AS h
FROM ST_ExactIntersects3DJoin('SELECT id, geom FROM holes', 'SELECT id, geom FROM bodies');
CREATE FUNCTION served_join() RETURNS void LANGUAGE plpgsql AS $$
DECLARE
	got record;
	want record;
BEGIN
	SET LOCAL exactgpu.gpu_min_primitives = 0;
	SET LOCAL exactgpu.probe_join = off;	-- it would answer on the CPU, before the service
	SELECT count(*) AS n, sum(hashint8(left_id * 100000 + right_id)) AS h INTO got
	FROM ST_ExactIntersects3DJoin('SELECT id, geom FROM holes', 'SELECT id, geom FROM bodies');
	SELECT * INTO want FROM expected;
	IF got.n IS DISTINCT FROM want.n OR got.h IS DISTINCT FROM want.h THEN
		RAISE EXCEPTION 'the service gave % pairs (hash %), the backend % (hash %)', got.n, got.h, want.n, want.h;
	END IF;
	IF (SELECT device NOT LIKE '%via the GPU service%' FROM exactgpu_last_join_stats()) THEN
		RAISE EXCEPTION 'not run by the service: %', (SELECT device FROM exactgpu_last_join_stats());
	END IF;
END $$;
SQL

echo "== service: 8 clients at once"
echo "SELECT served_join();" > "$work/join.sql"
served0=$(q -c "SELECT joins_served FROM exactgpu_gpu_service")
if "$bindir/pgbench" -n -c 8 -j 2 -t 10 -f "$work/join.sql" "$db" > "$work/pgbench.log" 2>&1 &&
	grep -q "number of failed transactions: 0" "$work/pgbench.log"; then
	served1=$(q -c "SELECT joins_served FROM exactgpu_gpu_service")
	if [ $((served1 - served0)) -ge 80 ]; then ok "80 joins by 8 clients, all equal to the backend's"
	else bad "the service served $((served1 - served0)) of 80 joins"; fi
else
	cat "$work/pgbench.log"; bad "pgbench clients"
fi

# a long join in the service, then a signal to the service
long_join() {
	q -c "SET exactgpu.gpu_min_primitives = 0" \
	  -c "SELECT count(*) FROM ST_ExactIntersects3DJoin('SELECT id, geom FROM crowd', 'SELECT id, geom FROM crowd')" \
	  > "$work/long.out" 2>&1
}
service_pid() { q -c "SELECT coalesce(pid, 0) FROM exactgpu_gpu_service"; }
wait_serving() {
	i=0
	while [ $i -lt 300 ]; do
		r=$(q -c "SELECT running FROM exactgpu_gpu_service" 2>/dev/null || true)
		[ "$r" = t ] && return 0
		sleep 0.1; i=$((i + 1))
	done
	return 1
}
wait_running_join() {
	i=0
	while [ $i -lt 100 ]; do
		r=$(q -c "SELECT running_joins FROM exactgpu_gpu_service" 2>/dev/null || true)
		[ "$r" = 1 ] && return 0
		sleep 0.05; i=$((i + 1))
	done
	return 1
}

echo "== service: SIGTERM during a join"
starts0=$(q -c "SELECT starts FROM exactgpu_gpu_service")
pid=$(service_pid)
long_join & lj=$!
if wait_running_join; then
	kill -TERM "$pid"
	wait $lj || true
	if grep -q "stopped during the join" "$work/long.out"; then ok "the waiting backend: $(grep ERROR "$work/long.out" | head -1)"
	else cat "$work/long.out"; bad "the waiting backend got no clear error"; fi
	if wait_serving && [ "$(q -c "SELECT starts FROM exactgpu_gpu_service")" -gt "$starts0" ] &&
		[ "$(service_pid)" != "$pid" ]; then
		ok "the service is back (a new process)"
		if q -c "SELECT served_join()" >/dev/null; then ok "it serves the same pairs"; else bad "join after the restart"; fi
	else
		bad "the service did not come back"; tail -20 "$work/log"
	fi
else
	wait $lj || true; bad "the long join never ran in the service"
fi

echo "== service: SIGKILL during a join"
pid=$(service_pid)
long_join & lj=$!
if wait_running_join; then
	kill -KILL "$pid"
	wait $lj || true
	if grep -q -i "terminat\|server closed\|crash" "$work/long.out"; then ok "the waiting client: $(grep -i -m1 'terminat\|closed\|crash' "$work/long.out")"
	else cat "$work/long.out"; bad "the waiting client got no error"; fi
	if wait_serving; then
		ok "the server restarted and the service with it"
		if q -c "SELECT served_join()" >/dev/null; then ok "it serves the same pairs"; else bad "join after the crash restart"; fi
	else
		bad "the service did not come back after the crash restart"; tail -20 "$work/log"
	fi
else
	wait $lj || true; bad "the long join never ran in the service"
fi

echo "service: $passed passed, $failed failed"
[ "$failed" = 0 ]
