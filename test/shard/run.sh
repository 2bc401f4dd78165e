#!/bin/sh
# test/shard/run.sh — bodies sharded over three PostgreSQL servers through
# postgres_fdw, the recipe of docs/sharding.md, tested for real.
#
# As root, with exactgpu installed system-wide (make install), from anywhere:
#     flock /tmp/exactgpu-pg.lock sh -c 'make WITH_CUDA=0 install && sh test/shard/run.sh'
# Starts a coordinator and three shard clusters (initdb as postgres in a
# temporary directory; shards on 127.0.0.1, so that what they send the
# coordinator crosses the loopback; all stopped and removed on every exit),
# loads a small generated mine split by spatial tile (bodies) and routed by
# extent (holes), and checks:
#   - the natural queries (the documented view, and the join on the shard
#     key written out) give the pairs the coordinator computes from its own
#     single copy, for the surface and the volume predicate;
#   - EXPLAIN (VERBOSE): each shard's join is a Foreign Scan whose Remote SQL
#     has the predicate, run asynchronously, no ExactJoin on the coordinator;
#   - the shards plan postgres_fdw's cursors for all their rows: the
#     setting in postgres_fdw's sessions, the plan a shard logged for the
#     coordinator's cursor (auto_explain) = the whole query's, and on a shard
#     priced as a GPU's (EXPLAIN only) the cursor is ExactJoin, a nested loop
#     without the servers' option;
#   - the bytes on the loopback during the join (/proc/net/dev; and the
#     coordinator's bytes received from tcp_info where ss is installed) are
#     those of the pairs as postgres_fdw's text rows, far below the bodies'
#     size; the coordinator's own CPU time for the join (/proc/PID/schedstat)
#     is at most 5 ms + 2 us a pair;
#   - a shard stopped mid-query gives an error, not an answer; once it is
#     back, the same answer again;
#   - exactgpu_shard_setup names a server without exactgpu at setup time.
# Prints `shard: N passed, M failed`; exits 1 on any failure.
set -eu

root=$(cd "$(dirname "$0")/../.." && pwd)
# PG_BIN: another PostgreSQL 15 tree (e.g. a copy with exactgpu installed by
# make install DESTDIR=...); PostgreSQL finds its share directory beside it
bin=${PG_BIN:-/usr/lib/postgresql/15/bin}
[ "$(id -u)" = 0 ] || { echo "test/shard/run.sh: run as root (clusters run as postgres)" >&2; exit 2; }
[ -f "$("$bin/pg_config" --sharedir)/extension/exactgpu.control" ] ||
	{ echo "test/shard/run.sh: exactgpu is not installed (make install first)" >&2; exit 2; }

# mine size: small enough for ~1 minute on 2 cores, big enough for 3 tiles
HOLES=${SHARD_HOLES:-600}
BODIES=${SHARD_BODIES:-12}
TRIANGLES=${SHARD_TRIANGLES:-36000}

work=$(mktemp -d /tmp/exactgpu-shard.XXXXXX)
chmod 755 "$work"
chown postgres "$work"
names="coord s1 s2 s3"
passed=0
failed=0

cleanup() {
	for n in $names; do
		if [ -f "$work/$n/postmaster.pid" ]; then
			su postgres -c "$bin/pg_ctl -D $work/$n -m immediate -w stop" >/dev/null 2>&1 || true
		fi
	done
	rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 129' HUP
trap 'exit 130' INT
trap 'exit 143' TERM

ok() { passed=$((passed + 1)); echo "ok   $*"; }
bad() { failed=$((failed + 1)); echo "FAIL $*"; }
check() { # check DESCRIPTION EXPECTED ACTUAL
	if [ "$2" = "$3" ]; then ok "$1"; else bad "$1: expected '$2', got '$3'"; fi
}

# free TCP ports for the shards (the coordinator listens on its socket only)
port_free() { ! ss -ltnH "sport = :$1" 2>/dev/null | grep -q .; }
ports=
p=$((20000 + $$ % 20000))
while [ "$(echo $ports | wc -w)" -lt 3 ]; do
	p=$((p + 1))
	if port_free $p; then ports="$ports $p"; fi
done
set -- $ports
port_s1=$1 port_s2=$2 port_s3=$3

as_pg() { su postgres -c "$1"; }
# psql NAME ARGS...: psql -X -At -v ON_ERROR_STOP=1 on that cluster
psql_on() {
	_n=$1
	shift
	case $_n in
	coord) _h=$work _p=5432 ;;
	s1) _h=127.0.0.1 _p=$port_s1 ;;
	s2) _h=127.0.0.1 _p=$port_s2 ;;
	s3) _h=127.0.0.1 _p=$port_s3 ;;
	esac
	su postgres -c "$bin/psql -X -At -q -v ON_ERROR_STOP=1 -h $_h -p $_p -d postgres $(for a in "$@"; do printf "'%s' " "$(printf %s "$a" | sed "s/'/'\\\\''/g")"; done)"
}
start() { # start NAME
	case $1 in
	coord) _o="-c listen_addresses='' -p 5432" ;;
	s1) _o="-c listen_addresses=127.0.0.1 -p $port_s1" ;;
	s2) _o="-c listen_addresses=127.0.0.1 -p $port_s2" ;;
	s3) _o="-c listen_addresses=127.0.0.1 -p $port_s3" ;;
	esac
	as_pg "$bin/pg_ctl -D $work/$1 -l $work/$1.log -w -o \"-k $work $_o -c shared_buffers=32MB -c max_connections=20 -c fsync=off -c max_worker_processes=4 -c max_parallel_workers_per_gather=0 -c shared_preload_libraries=exactgpu\" start" >/dev/null
}

t0=$(date +%s)
echo "== four clusters in $work (shards on ports $port_s1 $port_s2 $port_s3)"
for n in $names; do
	as_pg "$bin/initdb -D $work/$n -A trust -E UTF8 --no-instructions" >/dev/null
	start $n
done

echo "== a mine: $HOLES holes, $BODIES bodies of $TRIANGLES triangles in all"
make -s -C "$root" demo/bin/minegen >/dev/null
"$root/demo/bin/minegen" --holes "$HOLES" --bodies "$BODIES" --triangles "$TRIANGLES" --out "$work/mine" >/dev/null
chown -R postgres "$work/mine"
psql_on coord -c "CREATE EXTENSION postgis; CREATE EXTENSION exactgpu; CREATE EXTENSION postgres_fdw;"
# the coordinator's single copy: the reference answer, and the loader's source
psql_on coord -v dir="$work/mine" -f "$work/mine/load.sql" >/dev/null

echo "== the recipe (docs/sharding.md): tiles, extents, load, expose, setup"
# bodies: three tiles by the x of their box centre; each shard's extent is
# the union of its bodies' boxes, so that a hole meeting a body meets it
psql_on coord -c "
CREATE TABLE body_tile AS
SELECT body_id, ntile(3) OVER (ORDER BY ST_XMin(Box3D(geom)) + ST_XMax(Box3D(geom)), body_id) AS shard
FROM ore_bodies;
CREATE TABLE shard_extent AS
SELECT t.shard, ST_3DExtent(b.geom) AS extent
FROM ore_bodies b JOIN body_tile t USING (body_id) GROUP BY t.shard;"
extents="(SELECT array_agg(extent ORDER BY shard) FROM shard_extent)"
for k in 1 2 3; do
	psql_on s$k -c "CREATE EXTENSION postgis; CREATE EXTENSION exactgpu;
CREATE TABLE drill_holes (hole_id bigint PRIMARY KEY, name text, geom geometry);
CREATE TABLE ore_bodies (body_id bigint PRIMARY KEY, name text, geom geometry);"
	psql_on coord -c "COPY (SELECT body_id, name, geom FROM ore_bodies JOIN body_tile USING (body_id)
	                       WHERE shard = $k) TO STDOUT" |
		psql_on s$k -c "COPY ore_bodies FROM STDIN"
	psql_on coord -c "COPY (SELECT hole_id, name, geom FROM drill_holes
	                       WHERE $k = ANY (ST_ExactShardsFor(geom, $extents))) TO STDOUT" |
		psql_on s$k -c "COPY drill_holes FROM STDIN"
	psql_on s$k -c "CREATE INDEX ON drill_holes USING gist (geom gist_geometry_ops_nd);
CREATE INDEX ON ore_bodies USING gist (geom gist_geometry_ops_nd);
ANALYZE drill_holes; ANALYZE ore_bodies;
SELECT exactgpu_shard_expose($k, ARRAY['drill_holes', 'ore_bodies']::regclass[]);" >/dev/null
done
counts=$(for k in 1 2 3; do psql_on s$k -c "SELECT (SELECT count(*) FROM ore_bodies) || '/' || (SELECT count(*) FROM drill_holes)"; done | tr '\n' ' ')
echo "   bodies/holes per shard: $counts"
psql_on coord -c "
CREATE SCHEMA sharded;
CREATE TABLE sharded.drill_holes (shard integer NOT NULL, LIKE public.drill_holes) PARTITION BY LIST (shard);
CREATE TABLE sharded.ore_bodies (shard integer NOT NULL, LIKE public.ore_bodies) PARTITION BY LIST (shard);
SELECT exactgpu_shard_setup(ARRAY['s1', 's2', 's3'],
       ARRAY['host=127.0.0.1 port=$port_s1 dbname=postgres', 'host=127.0.0.1 port=$port_s2 dbname=postgres',
             'host=127.0.0.1 port=$port_s3 dbname=postgres'],
       ARRAY['sharded.drill_holes', 'sharded.ore_bodies']::regclass[]);
ALTER DATABASE postgres SET enable_partitionwise_join = on;
-- the natural queries: views that hide the shard key
CREATE VIEW hole_body_pairs AS
SELECT h.hole_id, b.body_id
FROM sharded.drill_holes h JOIN sharded.ore_bodies b
  ON h.shard = b.shard AND ST_ExactIntersects3D(h.geom, b.geom);
CREATE VIEW hole_body_solid_pairs AS
SELECT h.hole_id, b.body_id
FROM sharded.drill_holes h JOIN sharded.ore_bodies b
  ON h.shard = b.shard AND ST_ExactIntersectsSolid3D(b.geom, h.geom);
-- the pairs packed into one row a shard, two arrays of ids (postgres_fdw
-- sends text rows: a row a pair costs ~15 bytes of row framing besides its
-- digits), unpacked on the coordinator
ALTER DATABASE postgres SET enable_partitionwise_aggregate = on;
CREATE VIEW hole_body_pairs_packed AS
SELECT h.shard, array_agg(h.hole_id) AS hole_ids, array_agg(b.body_id) AS body_ids
FROM sharded.drill_holes h JOIN sharded.ore_bodies b
  ON h.shard = b.shard AND ST_ExactIntersects3D(h.geom, b.geom)
GROUP BY h.shard;
CREATE VIEW hole_body_pairs_compact AS
SELECT u.hole_id, u.body_id
FROM hole_body_pairs_packed p, unnest(p.hole_ids, p.body_ids) AS u(hole_id, body_id);" >/dev/null

# SHARD_DEBUG=FILE: run FILE (sh) here, with psql_on and the ports, then go on
if [ -n "${SHARD_DEBUG-}" ]; then . "$SHARD_DEBUG"; fi

echo "== same pairs as one server"
# reference: the coordinator's own copy, joined locally
psql_on coord -c "
CREATE TABLE ref_surface AS SELECT h.hole_id, b.body_id FROM drill_holes h JOIN ore_bodies b ON ST_ExactIntersects3D(h.geom, b.geom);
CREATE TABLE ref_solid AS SELECT h.hole_id, b.body_id FROM drill_holes h JOIN ore_bodies b ON ST_ExactIntersectsSolid3D(b.geom, h.geom);"
nref=$(psql_on coord -c "SELECT count(*) FROM ref_surface")
nref_solid=$(psql_on coord -c "SELECT count(*) FROM ref_solid")
[ "$nref" -gt 0 ] && [ "$nref_solid" -ge "$nref" ] && ok "reference: $nref surface pairs, $nref_solid volume pairs" ||
	bad "reference pairs: $nref surface, $nref_solid volume (expected some, at least as many by volume)"
same_pairs() { # same_pairs DESCRIPTION REF QUERY
	_d=$(psql_on coord -c "SELECT (SELECT count(*) FROM ($3) q) || ' ' ||
		(SELECT count(*) FROM (($3) EXCEPT ALL (TABLE $2)) a) || ' ' ||
		(SELECT count(*) FROM ((TABLE $2) EXCEPT ALL ($3)) b)")
	check "$1" "$(psql_on coord -c "SELECT count(*) FROM $2") 0 0" "$_d"
}
same_pairs "view hole_body_pairs (surface)" ref_surface "SELECT hole_id, body_id FROM hole_body_pairs"
same_pairs "view hole_body_solid_pairs (volume)" ref_solid "SELECT hole_id, body_id FROM hole_body_solid_pairs"
same_pairs "view hole_body_pairs_compact (packed a row a shard)" ref_surface \
	"SELECT hole_id, body_id FROM hole_body_pairs_compact"
same_pairs "join written on the shard key (USING (shard))" ref_surface \
	"SELECT h.hole_id, b.body_id FROM sharded.drill_holes h JOIN sharded.ore_bodies b USING (shard) WHERE ST_ExactIntersects3D(h.geom, b.geom)"
same_pairs "view joined back to the coordinator's holes" ref_surface \
	"SELECT p.hole_id, p.body_id FROM hole_body_pairs p JOIN drill_holes h USING (hole_id)"

echo "== EXPLAIN (VERBOSE): the joins run on the shards"
plan=$(psql_on coord -c "EXPLAIN (VERBOSE, COSTS OFF) SELECT * FROM hole_body_pairs")
echo "$plan" > "$work/plan.txt"
sed 's/^/   /' "$work/plan.txt" | cut -c1-200
check "three foreign joins (Relations: holes_sK INNER JOIN bodies_sK)" 3 "$(grep -cE 'Relations: \(sharded\.(drill_holes|ore_bodies)_s([123]) [hb]_[0-9]+\) INNER JOIN \(sharded\.(drill_holes|ore_bodies)_s\2 [hb]_[0-9]+\)' "$work/plan.txt" || true)"
check "each Remote SQL joins on st_exactintersects3d" 3 "$(grep 'Remote SQL:' "$work/plan.txt" | grep -c 'INNER JOIN .*st_exactintersects3d(' || true)"
check "the shard scans are asynchronous" 3 "$(grep -c 'Async Foreign Scan' "$work/plan.txt" || true)"
check "no ExactJoin on the coordinator" 0 "$(grep -c 'ExactJoin' "$work/plan.txt" || true)"
plan=$(psql_on coord -c "EXPLAIN (VERBOSE, COSTS OFF) SELECT * FROM hole_body_solid_pairs")
check "volume join: Remote SQL has st_exactintersectssolid3d" 3 "$(echo "$plan" | grep 'Remote SQL:' | grep -c 'st_exactintersectssolid3d(' || true)"
# on a shard, the coordinator's shard equality folds away
remote_sql=$(grep -m1 'Remote SQL:' "$work/plan.txt" | sed 's/^ *Remote SQL: //')
splan=$(psql_on s1 -c "EXPLAIN (COSTS OFF) $remote_sql")
echo "$splan" | sed 's/^/   s1: /'
# (which join the shard picks, ExactJoin or a nested loop, is its cost
# model's business; what must not happen is a join on the shard column)
check "shard s1: the shard equality folded away (no Hash/Merge Cond, no shard in the plan)" 0 \
	"$(echo "$splan" | grep -cE 'Hash Cond|Merge Cond|shard' || true)"
echo "== the same join without the shard key: not pushed down (for the record)"
psql_on coord -c "EXPLAIN (VERBOSE, COSTS OFF) SELECT h.hole_id, b.body_id FROM sharded.drill_holes h JOIN sharded.ore_bodies b ON ST_ExactIntersects3D(h.geom, b.geom)" |
	grep -E 'Join|Scan|Remote SQL' | cut -c1-160 | sed 's/^/   /'

echo "== the shards plan postgres_fdw's cursors for all their rows"
# postgres_fdw reads a foreign join through DECLARE CURSOR, which a server
# plans for its first cursor_tuple_fraction (default 0.1) of rows: a
# fast-start nested loop calling the predicate row by row beats, so priced,
# the batch join that returns nothing until it is done (the device's 2
# shards ran 3.2x slower than one server so). exactgpu_shard_setup gives the
# servers the libpq option -c cursor_tuple_fraction=1; checked here where it
# acts: in the sessions postgres_fdw opens on the shards.
check "servers' options: -c cursor_tuple_fraction=1" 3 \
	"$(psql_on coord -c "SELECT count(*) FROM pg_foreign_server WHERE 'options=-c cursor_tuple_fraction=1' = ANY (srvoptions)")"
psql_on s1 -c "CREATE VIEW exactgpu_shard.session_setting AS SELECT current_setting('cursor_tuple_fraction') AS value"
psql_on coord -c "CREATE FOREIGN TABLE fdw_session_s1 (value text) SERVER s1 OPTIONS (schema_name 'exactgpu_shard', table_name 'session_setting')"
check "postgres_fdw's session on s1: cursor_tuple_fraction = 1" 1 "$(psql_on coord -c "SELECT value FROM fdw_session_s1")"
# what the shard actually ran for the coordinator: its cursor's plan, logged
# by auto_explain (PostgreSQL's contrib) in the sessions postgres_fdw opens
# from now on, is the plan of the same query run whole
psql_on s1 -c "ALTER DATABASE postgres SET session_preload_libraries = 'auto_explain'" \
	-c "ALTER DATABASE postgres SET auto_explain.log_min_duration = 0"
psql_on coord -c "SELECT count(*) FROM hole_body_pairs" >/dev/null
psql_on s1 -c "ALTER DATABASE postgres RESET session_preload_libraries" -c "ALTER DATABASE postgres RESET auto_explain.log_min_duration"
# plan node names, in order
nodes() { grep -oE '(Custom Scan \([A-Za-z]+\)|Nested Loop|Hash Join|Merge Join|Seq Scan|Index Scan|Bitmap Heap Scan|Materialize)' | paste -sd' ' -; }
logged=$(sed -n '/Query Text: DECLARE c[0-9]* CURSOR FOR/,/^[0-9][0-9-]* [0-9:.]* [A-Z]* \[/p' "$work/s1.log" | grep -A30 'st_exactintersects3d' | nodes)
echo "   s1 ran for the coordinator: $logged"
check "s1: the cursor postgres_fdw declared ran the plan of the whole query" "$(echo "$splan" | nodes)" "$logged"
# the same with a GPU's prices, where the two plans differ: a mine large
# enough for the batch join to win on a GPU (exactgpu.device = gpu prices it
# so; EXPLAIN only, no GPU here) in a database of its own on s1, the same
# Remote SQL declared as a cursor in a session with the servers' options and
# in one with PostgreSQL's default
"$root/demo/bin/minegen" --holes 24000 --bodies 10 --triangles 100000 --out "$work/gpumine" >/dev/null
chown -R postgres "$work/gpumine"
psql_on s1 -c "CREATE DATABASE gpuplan"
psql_on s1 -d gpuplan -c "CREATE EXTENSION postgis; CREATE EXTENSION exactgpu;"
psql_on s1 -d gpuplan -v dir="$work/gpumine" -f "$work/gpumine/load.sql" >/dev/null
psql_on s1 -d gpuplan -c "SELECT exactgpu_shard_expose(1, ARRAY['drill_holes', 'ore_bodies']::regclass[])" >/dev/null
srv_options=$(psql_on coord -c "SELECT substr(o, 9) FROM pg_foreign_server, unnest(srvoptions) o WHERE srvname = 's1' AND o LIKE 'options=%'")
printf '%s\n' 'SET exactgpu.device = gpu;' 'BEGIN;' "EXPLAIN DECLARE c1 CURSOR FOR $remote_sql;" 'COMMIT;' > "$work/gpuplan.sql"
chown postgres "$work/gpuplan.sql"
gpu_cursor_plan() { # gpu_cursor_plan PGOPTIONS
	su postgres -c "PGOPTIONS='$1' $bin/psql -X -At -q -v ON_ERROR_STOP=1 -h 127.0.0.1 -p $port_s1 -d gpuplan -f $work/gpuplan.sql" | nodes
}
with=$(gpu_cursor_plan "$srv_options")
without=$(gpu_cursor_plan "")
echo "   GPU-priced shard (24,000 holes, 10 bodies), postgres_fdw's cursor with the servers' options: $with"
echo "   ... with PostgreSQL's default cursor_tuple_fraction: $without"
check "GPU-priced shard: postgres_fdw's cursor is the batch join" "Custom Scan (ExactJoin) Seq Scan Seq Scan" "$with"
check "GPU-priced shard: without the option, a fast-start nested loop (what the option avoids)" "Nested Loop" "$(echo "$without" | cut -d' ' -f1-2)"

echo "== the coordinator's time (EXPLAIN ANALYZE, for the record)"
# the second run of a session: its connections to the shards already open
psql_on coord -c "EXPLAIN (ANALYZE, COSTS OFF) SELECT * FROM hole_body_pairs" -c "EXPLAIN (ANALYZE, COSTS OFF) SELECT * FROM hole_body_pairs" | sed -n '/Execution/,$p' | sed 1d |
	grep -E 'Append|Foreign Scan|Planning|Execution' | sed 's/^/   /'

echo "== bytes the coordinator received, and its own time, for the join"
# Bytes: the loopback interface's counters (/proc/net/dev, on any Linux, no
# tool needed): every byte on 127.0.0.1 while the query runs, both directions
# (the coordinator's DECLARE/FETCH/CLOSE too), TCP/IP headers and ACKs
# included: an upper bound on what the coordinator received. Where `ss` is
# installed, tcp_info's bytes_received of the coordinator's sockets to the
# shards is also read: the shards' replies alone. Time: the coordinator
# backend's own CPU time (/proc/PID/schedstat, nanoseconds on the CPU),
# planning and executing, not its waits for the shards. The second to fourth
# runs of one session (the first opens the connections); the least of each.
# (/proc/net/dev: "    lo:" then received bytes, glued to the colon past 8 digits)
have_ss=$(command -v ss >/dev/null 2>&1 && echo 1 || echo 0)
shard_ports="dport = :$port_s1 or dport = :$port_s2 or dport = :$port_s3"
ss_sum="ss -tinH state established '( $shard_ports )' | grep -o 'bytes_received:[0-9]*' | cut -d: -f2 | awk '{s += \$1} END {print s + 0}'"
{
	echo '\o /dev/null'
	echo 'SELECT hole_id, body_id FROM hole_body_pairs;'
	echo 'SELECT pg_backend_pid() AS pid \gset'
	echo '\setenv BACKEND :pid'
	for r in 1 2 3; do
		echo "\\! awk -F: '\$1 ~ /^ *lo\$/ {split(\$2, f, \" \"); print f[1]}' /proc/net/dev > $work/lo.$r.before; cut -d' ' -f1 /proc/\$BACKEND/schedstat > $work/cpu.$r.before"
		if [ "$have_ss" = 1 ]; then echo "\\! $ss_sum > $work/ss.$r.before"; fi
		echo "\\o $work/pairs.$r.out"
		echo 'SELECT hole_id, body_id FROM hole_body_pairs;'
		echo '\o /dev/null'
		if [ "$have_ss" = 1 ]; then echo "\\! $ss_sum > $work/ss.$r.after"; fi
		echo "\\! cut -d' ' -f1 /proc/\$BACKEND/schedstat > $work/cpu.$r.after; awk -F: '\$1 ~ /^ *lo\$/ {split(\$2, f, \" \"); print f[1]}' /proc/net/dev > $work/lo.$r.after"
	done
} > "$work/bytes.sql"
chown postgres "$work/bytes.sql"
psql_on coord -f "$work/bytes.sql" >/dev/null
least() { # least NAME: the least (after - before) over the runs
	for r in 1 2 3; do echo $(( $(cat "$work/$1.$r.after") - $(cat "$work/$1.$r.before") )); done | sort -n | head -1
}
lo=$(least lo)
cpu_us=$(( $(least cpu) / 1000 ))
npairs=$(wc -l < "$work/pairs.1.out")
# postgres_fdw's text rows of these pairs on the wire (the protocol's DataRow:
# type 1, length 4, column count 2, and per column length 4 + the text)
rows_bytes=$(awk -F'|' '{s += 15 + length($1) + length($2)} END {print s + 0}' "$work/pairs.1.out")
body_bytes=$(psql_on coord -c "SELECT sum(length(ST_AsBinary(geom))) FROM ore_bodies")
ratio() { echo "$1 $2" | awk '{printf "%.2f", $1 / ($2 > 0 ? $2 : 1)}'; }
echo "   $npairs pairs: $((npairs * 16)) bytes as two binary bigints, $rows_bytes as postgres_fdw's text rows; bodies $body_bytes bytes as WKB"
echo "   loopback, both directions, headers included: $lo bytes ($(ratio $lo $((npairs * 16)))x the binary pairs, $(ratio $lo $rows_bytes)x the text rows)"
if [ "$have_ss" = 1 ]; then
	received=$(least ss)
	echo "   received from the shards (ss, tcp_info): $received bytes ($(ratio $received $((npairs * 16)))x the binary pairs, $(ratio $received $rows_bytes)x the text rows)"
fi
echo "   coordinator CPU time: $cpu_us us for the join ($(ratio $cpu_us $npairs) us a pair)"
check "bytes: the pairs measured are the reference's" "$nref" "$npairs"
# the shards' replies are the text rows and a few hundred bytes a shard of
# cursor replies; all loopback traffic adds the requests, headers and ACKs
if [ "$lo" -gt 0 ] && [ "$lo" -le $((rows_bytes * 12 / 10 + 3 * 2048)) ]; then
	ok "bytes on the loopback: at most 1.2x the text rows + 2 kB a shard ($lo for $rows_bytes)"
else
	bad "bytes on the loopback: $lo for $rows_bytes bytes of text rows (expected at most 1.2x + 2 kB a shard)"
fi
if [ "$have_ss" = 1 ]; then
	if [ "$received" -gt 0 ] && [ "$received" -le $((rows_bytes * 11 / 10 + 3 * 512)) ]; then
		ok "bytes received (ss): at most 1.1x the text rows + 512 a shard ($received)"
	else
		bad "bytes received (ss): $received for $rows_bytes bytes of text rows"
	fi
fi
if [ "$cpu_us" -gt 0 ] && [ "$cpu_us" -le $((5000 + npairs * 2)) ]; then
	ok "coordinator's own time: at most 5 ms + 2 us a pair ($cpu_us us)"
else
	bad "coordinator's own time: $cpu_us us for $npairs pairs (expected at most 5 ms + 2 us a pair)"
fi

# The pairs packed a row a shard (hole_body_pairs_compact): each shard's
# Remote SQL aggregates its pairs into two arrays, so the coordinator
# receives the ids' digits and little else
cplan=$(psql_on coord -c "EXPLAIN (VERBOSE, COSTS OFF) SELECT * FROM hole_body_pairs_compact")
check "packed view: each shard packs its pairs (Remote SQL: array_agg ... GROUP BY)" 3 \
	"$(echo "$cplan" | grep 'Remote SQL:' | grep -c 'array_agg(.*GROUP BY' || true)"
check "packed view: the shards' joins stay foreign joins" 3 \
	"$(echo "$cplan" | grep -cE 'Relations: Aggregate on \(\(sharded\.' || true)"
sed -e 's/FROM hole_body_pairs;/FROM hole_body_pairs_compact;/' -e "s|$work/lo\.|$work/clo.|g" \
	-e "s|$work/pairs\.|$work/cpairs.|g" -e "s|$work/cpu\.|$work/ccpu.|g" -e "s|$work/ss\.|$work/css.|g" \
	"$work/bytes.sql" > "$work/cbytes.sql"
chown postgres "$work/cbytes.sql"
psql_on coord -f "$work/cbytes.sql" >/dev/null
clo=$(least clo)
check "packed view: the pairs measured are the reference's" "$nref" "$(wc -l < "$work/cpairs.1.out")"
echo "   packed a row a shard: loopback $clo bytes ($(ratio $clo $((npairs * 16)))x the binary pairs; a row a pair: $(ratio $lo $((npairs * 16)))x)"
if [ "$clo" -gt 0 ] && [ "$clo" -lt "$lo" ]; then
	ok "packed view: fewer bytes on the loopback than a row a pair ($clo against $lo)"
else
	bad "packed view: $clo bytes on the loopback against $lo for a row a pair"
fi
if [ "$have_ss" = 1 ]; then
	creceived=$(least css)
	echo "   packed a row a shard: received from the shards (ss) $creceived bytes ($(ratio $creceived $((npairs * 16)))x the binary pairs; a row a pair: $(ratio $received $((npairs * 16)))x)"
	if [ "$creceived" -gt 0 ] && [ "$creceived" -le $((npairs * 16 * 12 / 10 + 3 * 512)) ]; then
		ok "packed view: bytes received (ss) at most 1.2x the pairs as binary bigints + 512 a shard ($creceived for $((npairs * 16)))"
	else
		bad "packed view: $creceived bytes received (ss) for $((npairs * 16)) bytes of binary pairs"
	fi
fi

echo "== a shard stopped mid-query"
# one row a fetch and a slow consumer keep the query running; s2 is stopped
# (immediate: its backends killed) while it does
psql_on coord -c "ALTER SERVER s2 OPTIONS (SET fetch_size '1')"
( sleep 2; as_pg "$bin/pg_ctl -D $work/s2 -m immediate -w stop" >/dev/null ) &
stopper=$!
set +e
out=$(psql_on coord -c "SELECT count(*) FROM (SELECT hole_id, body_id, pg_sleep(0.02) FROM hole_body_pairs) q" 2>&1)
rc=$?
set -e
wait $stopper
echo "$out" | sed 's/^/   /' | head -5
if [ $rc -ne 0 ] && echo "$out" | grep -q 'ERROR' && ! echo "$out" | grep -qx '[0-9][0-9]*'; then
	ok "stopped shard: an error, no count"
else
	bad "stopped shard: rc $rc, output: $out"
fi
start s2
psql_on coord -c "ALTER SERVER s2 OPTIONS (SET fetch_size '10000')"
same_pairs "shard back: the same pairs again" ref_surface "SELECT hole_id, body_id FROM hole_body_pairs"

echo "== setup names a server without exactgpu"
psql_on s1 -c "CREATE DATABASE plain"
set +e
out=$(psql_on coord -c "CREATE TABLE lonely (shard integer NOT NULL, id bigint) PARTITION BY LIST (shard);
SELECT exactgpu_shard_setup(ARRAY['noexactgpu'], ARRAY['host=127.0.0.1 port=$port_s1 dbname=plain'], ARRAY['lonely']::regclass[]);" 2>&1)
set -e
if echo "$out" | grep -q 'server noexactgpu does not have the exactgpu extension installed'; then
	ok "setup: $(echo "$out" | grep -m1 ERROR)"
else
	bad "setup without exactgpu: $out"
fi
check "setup rolled back: no server noexactgpu left" 0 "$(psql_on coord -c "SELECT count(*) FROM pg_foreign_server WHERE srvname = 'noexactgpu'")"

# a server made by hand: setup keeps its libpq options and adds the cursor's
psql_on coord -c "CREATE SERVER byhand FOREIGN DATA WRAPPER postgres_fdw
	OPTIONS (host '127.0.0.1', port '$port_s1', dbname 'postgres', extensions 'postgis, exactgpu', options '-c work_mem=64MB');
CREATE USER MAPPING FOR CURRENT_USER SERVER byhand;
CREATE TABLE byhand_parts (shard integer NOT NULL, hole_id bigint) PARTITION BY LIST (shard);
SELECT exactgpu_shard_setup(ARRAY['byhand'], NULL, ARRAY['byhand_parts']::regclass[]);" >/dev/null
check "setup on a server made by hand: its options kept, the cursor's added" "options=-c work_mem=64MB -c cursor_tuple_fraction=1" \
	"$(psql_on coord -c "SELECT o FROM pg_foreign_server, unnest(srvoptions) o WHERE srvname = 'byhand' AND o LIKE 'options=%'")"

echo "== ($(( $(date +%s) - t0 )) s)"
echo "shard: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
