#!/bin/sh
# On a GPU machine with several GPUs (device tool, e.g. nvidia-h100-x2 or
# -x4): the mine sharded by spatial tile over one PostgreSQL cluster per GPU
# (CUDA_VISIBLE_DEVICES), through postgres_fdw, the recipe of
# docs/sharding.md, against one server with one GPU (issue 29, deliverable 5).
#
# For each mine of MINES (default "large double": both in one call, about
# 5-8 minutes on 2 H100s and 32 cores; "double" is twice large, the same
# density over twice the footprint: 40,000 holes, 200 bodies, 2*10^7
# triangles, minegen --size large --holes 40000 --bodies 200 --triangles
# 20000000, generated in the background while large runs):
#   1. the coordinator cluster, on GPU 0, loads the mine (its own copy) and
#      times the natural JOIN ... ON ST_ExactIntersects3D(h.geom, b.geom)
#      there: the one-server baseline (REPS runs in one session, the best and
#      all kept);
#   2. SHARDS shard clusters (default: one per GPU), shard k on GPU k-1 only,
#      get the bodies split into SHARDS tiles by x and the holes routed to
#      the shards whose bodies' extent they meet (ST_ExactShardsFor), the
#      shards loaded at once;
#   3. the coordinator (its baseline session closed, so GPU 0 is the shards')
#      times SELECT ... FROM hole_body_pairs (the shards joining at once);
#      the shards log, by auto_explain, the plan and duration of the cursor
#      postgres_fdw declared (it must be the batch join: Custom Scan
#      (ExactJoin), Device: GPU); the coordinator's bytes received (the
#      loopback's counters in /proc/net/dev, both directions and headers
#      included: no tool needed; and tcp_info through ss where installed)
#      and its backend's own CPU time (/proc/PID/schedstat) per join;
#   4. the pairs of both are compared (they must be the same).
# A mine after the first starts only before START_BEFORE_S (300) seconds
# are gone, and $OUT/shards.md is written after each mine: a call cut off
# at the device tool's 10 minutes still returns what it measured.
# Targets (issue 29): two shards on two H100s, the double mine in <= 0.6x the
# one-server time; coordinator <= 5 ms of its own a join plus the pairs;
# bytes <= 1.2x the pairs.
#
# Carried: .carry/pgbundle.tar.xz with exactgpu built WITH CUDA from this
# branch and installed (bench/lib/pg-bundle.sh after make install),
# demo/bin/minegen. Results go to $OUT/shards.md.
# Conventions of bench/lib/pg-cluster.sh (the bundle, user pg, sockets in
# /tmp), with one cluster per GPU plus the coordinator: shards listen on
# 127.0.0.1, the coordinator on its socket only.
set -eu
cd "$(dirname "$0")/.."
out=${OUT:-/tmp/out}
mkdir -p "$out"
. bench/lib/pg-cluster.sh
pg_bin=${BENCH_PG_BIN:-$pg_bin}	# a dry run: another PostgreSQL 15 tree with this exactgpu
pg_bundle_activate
if [ -n "$pg_bundled" ]; then
	pkill -x postgres 2>/dev/null && sleep 2 || true
fi

ngpu=$(nvidia-smi -L 2>/dev/null | wc -l)
SHARDS=${SHARDS:-$ngpu}
MINES=${MINES:-large double}
REPS=${REPS:-3}
LOAD_PARALLEL=${LOAD_PARALLEL:-6}
[ "$SHARDS" -ge 1 ] || { echo "run-device-shards.sh: no GPU found (SHARDS=N to force)" >&2; exit 2; }
work=/tmp/exactgpu-shards
coord_port=${COORD_PORT:-5432}
shard_port() { echo $((${SHARD_PORT_BASE:-5500} + $1)); }
# a dry run on a build machine without user pg: BENCH_USER=postgres SHARDS=2
# MINES=tiny COORD_PORT=... SHARD_PORT_BASE=... (free ports)
if [ -n "${BENCH_USER-}" ]; then
	as_pg() { su "$BENCH_USER" -c "$pg_env; $1"; }
fi

t_start=$(date +%s)
rm -rf "$work" && mkdir -p "$work" && cp -r demo "$work/" && chown -R "${BENCH_USER:-pg}" "$work"
stop_all() {
	for d in "$work"/c_*; do
		[ -f "$d/postmaster.pid" ] && as_pg "pg_ctl -D $d -m fast -w stop" >/dev/null 2>&1 || true
	done
}
trap stop_all EXIT
trap 'exit 129' HUP
trap 'exit 130' INT
trap 'exit 143' TERM

# start NAME GPU PORT LISTEN: a cluster seeing only that GPU ('' for none)
start_cluster() {
	as_pg "initdb -D $work/c_$1 -A trust >/dev/null"
	as_pg "CUDA_VISIBLE_DEVICES=$2 pg_ctl -D $work/c_$1 -l $work/$1.log -w -o \"-k /tmp -p $3 -c listen_addresses=$4 \
		-c shared_preload_libraries=exactgpu -c shared_buffers=8GB -c work_mem=256MB -c max_wal_size=16GB \
		-c jit=off -c fsync=off\" start" >/dev/null
}
coord() { as_pg "PGOPTIONS='-c client_min_messages=warning' psql -X -At -q -v ON_ERROR_STOP=1 -h /tmp -p $coord_port -d postgres $*"; }
shard() { _k=$1; shift; as_pg "PGOPTIONS='-c client_min_messages=warning' psql -X -At -q -v ON_ERROR_STOP=1 -h 127.0.0.1 -p $(shard_port $_k) -d postgres $*"; }

md="$work/shards.md"
{
	echo "# The mine sharded over $SHARDS servers, one GPU each, through postgres_fdw"
	echo
	echo "Device: $(nvidia-smi --query-gpu=name,memory.total --format=csv,noheader 2>/dev/null | sort | uniq -c | tr '\n' ';')" \
		"host: $(nproc) cores; date (UTC): $(date -u +%Y-%m-%dT%H:%MZ); recipe: docs/sharding.md"
	echo
} > "$md"

start_cluster coord 0 $coord_port "''"
for k in $(seq 1 "$SHARDS"); do
	start_cluster s$k $((k - 1)) "$(shard_port $k)" 127.0.0.1
done
coord "-c 'CREATE EXTENSION postgis; CREATE EXTENSION exactgpu; CREATE EXTENSION postgres_fdw;'"
for k in $(seq 1 "$SHARDS"); do
	shard $k "-c 'CREATE EXTENSION postgis; CREATE EXTENSION exactgpu;'"
done

# best of REPS runs of a query, in ms (psql \timing, one session; the
# first run opens the coordinator's connections to the shards)
time_query() { # time_query NAME SQL
	_f="$work/time.sql"
	{ printf '%s\n' '\timing on'; for _i in $(seq 1 "$REPS"); do printf '%s\n' "$2"; done; } > "$_f"
	chown "${BENCH_USER:-pg}" "$_f"
	coord "-f $_f" | grep '^Time:' | awk '{print $2}' | tee "$work/$1.times" | sort -n | head -1
}

# the mines, generated at once in the background (minegen is one thread)
mine_args() {
	case $1 in
	tiny) echo "--size tiny" ;;
	large) echo "--size large" ;;
	double) echo "--size large --holes 40000 --bodies 200 --triangles 20000000" ;;
	*) echo "unknown mine $1" >&2; exit 2 ;;
	esac
}
for mine in $MINES; do
	args=$(mine_args "$mine")
	as_pg "$work/demo/bin/minegen $args --out $work/mine_$mine" > "$work/minegen_$mine.log" 2>&1 &
	eval "gen_$mine=$!"
done

# ss where installed: tcp_info bytes_received of the coordinator's sockets to the shards
have_ss=$(command -v ss >/dev/null 2>&1 && echo 1 || echo 0)
shard_ports=$(for k in $(seq 1 "$SHARDS"); do printf 'dport = :%s or ' "$(shard_port $k)"; done | sed 's/ or $//')
ss_sum="ss -tinH state established '( $shard_ports )' | grep -o 'bytes_received:[0-9]*' | cut -d: -f2 | awk '{s += \$1} END {print s + 0}'"
# /proc/net/dev: "    lo:" then received bytes (glued to the colon past 8 digits)
lo_rx="awk -F: '\$1 ~ /^ *lo\$/ {split(\$2, f, \" \"); print f[1]}' /proc/net/dev"

for mine in $MINES; do
	args=$(mine_args "$mine")
	echo "== $mine mine ($args)"
	eval "wait \$gen_$mine"
	# the device tool stops a call at 10 minutes: a mine after the first
	# starts only while there is time for it (double takes about twice large)
	if [ "$mine" != "$(echo $MINES | cut -d' ' -f1)" ] && [ $(( $(date +%s) - t_start )) -gt "${START_BEFORE_S:-300}" ]; then
		printf '## %s mine: not run (%s s gone, START_BEFORE_S=%s); run it alone: MINES=%s\n\n' \
			"$mine" $(( $(date +%s) - t_start )) "${START_BEFORE_S:-300}" "$mine" >> "$md"
		rm -rf "$work/mine_$mine"
		continue
	fi
	t_mine=$(date +%s)
	# the coordinator's copy: the tables of the mine's load.sql, the bodies
	# in LOAD_PARALLEL server-side COPYs at once (one COPY of the large
	# mine's 2.3 GB took a minute), then the GiST indexes and statistics
	# (the deliberate cases' table is not needed here)
	coord "-c 'DROP TABLE IF EXISTS mine_degeneracies, drill_holes, ore_bodies CASCADE;
		CREATE TABLE drill_holes (hole_id bigint PRIMARY KEY, name text, geom geometry(LineStringZ, 32719));
		CREATE TABLE ore_bodies (body_id bigint PRIMARY KEY, name text, geom geometry(TinZ, 32719));'"
	as_pg "split -n l/$LOAD_PARALLEL -d $work/mine_$mine/bodies.tsv $work/mine_$mine/bodies.part."
	rm -f "$work/mine_$mine/bodies.tsv"
	copiers=
	for part in "$work/mine_$mine"/bodies.part.* "$work/mine_$mine/holes.tsv"; do
		case $part in *holes.tsv) table=drill_holes ;; *) table=ore_bodies ;; esac
		coord "-c \"COPY $table FROM '$part'\"" >/dev/null &
		copiers="$copiers $!"
	done
	for p in $copiers; do wait "$p"; done
	coord "-c 'CREATE INDEX ON drill_holes USING gist (geom gist_geometry_ops_nd);
		CREATE INDEX ON ore_bodies USING gist (geom gist_geometry_ops_nd);
		ANALYZE drill_holes; ANALYZE ore_bodies;'" >/dev/null
	rm -rf "$work/mine_$mine"
	body_bytes=$(coord "-c 'SELECT sum(length(ST_AsBinary(geom))) FROM ore_bodies'")
	load_coord_s=$(( $(date +%s) - t_mine ))

	# 1. one server, one GPU (the shards idle)
	natural="SELECT h.hole_id, b.body_id FROM drill_holes h JOIN ore_bodies b ON ST_ExactIntersects3D(h.geom, b.geom)"
	one_ms=$(time_query one "SELECT count(*) FROM ($natural) q;")
	coord "-c \"COPY ($natural) TO STDOUT\"" | sort > "$work/one.pairs"
	one_plan=$(coord "-c \"EXPLAIN $natural\"" | grep -E 'Custom Scan|Nested Loop|Device' | head -3 | paste -sd' ')

	# 2. the recipe: tiles by x, extents, load (the shards at once), expose, setup
	coord "-c 'DROP SCHEMA IF EXISTS sharded CASCADE; DROP VIEW IF EXISTS hole_body_pairs;
		DROP TABLE IF EXISTS body_tile, shard_extent;
		CREATE TABLE body_tile AS SELECT body_id, ntile($SHARDS) OVER (ORDER BY ST_XMin(Box3D(geom)) + ST_XMax(Box3D(geom)), body_id) AS shard FROM ore_bodies;
		CREATE TABLE shard_extent AS SELECT t.shard, ST_3DExtent(b.geom) AS extent FROM ore_bodies b JOIN body_tile t USING (body_id) GROUP BY t.shard;'"
	for srv in $(coord "-c \"SELECT srvname FROM pg_foreign_server\""); do
		coord "-c 'DROP SERVER $srv CASCADE'" >/dev/null
	done
	extents="(SELECT array_agg(extent ORDER BY shard) FROM shard_extent)"
	servers= conns= t0=$(date +%s) loaders=
	for k in $(seq 1 "$SHARDS"); do
		(
			shard $k "-c 'DROP SCHEMA IF EXISTS exactgpu_shard CASCADE; DROP TABLE IF EXISTS drill_holes, ore_bodies;
				CREATE TABLE drill_holes (hole_id bigint PRIMARY KEY, name text, geom geometry);
				CREATE TABLE ore_bodies (body_id bigint PRIMARY KEY, name text, geom geometry);'"
			# the bodies in LOAD_PARALLEL pipes at once, beside the holes
			pipes=
			for j in $(seq 0 $((LOAD_PARALLEL - 1))); do
				coord "-c \"COPY (SELECT body_id, name, geom FROM ore_bodies JOIN body_tile USING (body_id)
					WHERE shard = $k AND body_id % $LOAD_PARALLEL = $j) TO STDOUT\"" |
					shard $k "-c 'COPY ore_bodies FROM STDIN'" &
				pipes="$pipes $!"
			done
			coord "-c \"COPY (SELECT hole_id, name, geom FROM drill_holes WHERE $k = ANY (ST_ExactShardsFor(geom, $extents))) TO STDOUT\"" |
				shard $k "-c 'COPY drill_holes FROM STDIN'"
			for p in $pipes; do wait "$p"; done
			shard $k "-c \"CREATE INDEX ON drill_holes USING gist (geom gist_geometry_ops_nd);
				CREATE INDEX ON ore_bodies USING gist (geom gist_geometry_ops_nd);
				ANALYZE drill_holes; ANALYZE ore_bodies;
				SELECT exactgpu_shard_expose($k, ARRAY['drill_holes', 'ore_bodies']::regclass[]);\"" >/dev/null
		) &
		loaders="$loaders $!"
		servers="$servers${servers:+, }'m${mine}_s$k'"
		conns="$conns${conns:+, }'host=127.0.0.1 port=$(shard_port $k) dbname=postgres'"
	done
	for p in $loaders; do wait "$p"; done
	load_s=$(( $(date +%s) - t0 ))
	coord "-c \"CREATE SCHEMA sharded;
		CREATE TABLE sharded.drill_holes (shard integer NOT NULL, LIKE public.drill_holes) PARTITION BY LIST (shard);
		CREATE TABLE sharded.ore_bodies (shard integer NOT NULL, LIKE public.ore_bodies) PARTITION BY LIST (shard);
		SELECT exactgpu_shard_setup(ARRAY[$servers], ARRAY[$conns], ARRAY['sharded.drill_holes', 'sharded.ore_bodies']::regclass[]);
		ALTER DATABASE postgres SET enable_partitionwise_join = on;
		CREATE VIEW hole_body_pairs AS SELECT h.hole_id, b.body_id FROM sharded.drill_holes h JOIN sharded.ore_bodies b
			ON h.shard = b.shard AND ST_ExactIntersects3D(h.geom, b.geom);\"" >/dev/null
	counts=$(for k in $(seq 1 "$SHARDS"); do shard $k "-c \"SELECT (SELECT count(*) FROM ore_bodies) || ' bodies / ' || (SELECT count(*) FROM drill_holes) || ' holes'\""; done | paste -sd';')
	srv_options=$(coord "-c \"SELECT o FROM pg_foreign_server, unnest(srvoptions) o WHERE o LIKE 'options=%' LIMIT 1\"")

	# 3. sharded: the shards join at once, the coordinator appends pairs; the
	# shards log the plans of postgres_fdw's cursors (auto_explain)
	for k in $(seq 1 "$SHARDS"); do
		shard $k "-c \"ALTER DATABASE postgres SET session_preload_libraries = 'auto_explain';
			ALTER DATABASE postgres SET auto_explain.log_min_duration = 0;\""
		: > "$work/s$k.log"	# pg_ctl's -l file, appended to: from here on
	done
	sharded="SELECT hole_id, body_id FROM hole_body_pairs"
	shard_ms=$(time_query sharded "SELECT count(*) FROM ($sharded) q;")
	for k in $(seq 1 "$SHARDS"); do
		shard $k "-c 'ALTER DATABASE postgres RESET session_preload_libraries; ALTER DATABASE postgres RESET auto_explain.log_min_duration;'"
	done
	coord "-c \"COPY ($sharded) TO STDOUT\"" | sort > "$work/sharded.pairs"
	plan=$(coord "-c \"EXPLAIN (ANALYZE, VERBOSE) $sharded\"")
	# bytes and the coordinator's CPU time: one session, its first run opens
	# the connections, then 2 runs measured (the least of each)
	{
		echo '\o /dev/null'
		echo "$sharded;"
		echo 'SELECT pg_backend_pid() AS pid \gset'
		echo '\setenv BACKEND :pid'
		for r in 1 2; do
			echo "\\! $lo_rx > $work/lo.$r.before; cut -d' ' -f1 /proc/\$BACKEND/schedstat > $work/cpu.$r.before"
			if [ "$have_ss" = 1 ]; then echo "\\! $ss_sum > $work/ss.$r.before"; fi
			echo "\\o $work/bytes.$r.pairs"
			echo "$sharded;"
			echo '\o /dev/null'
			if [ "$have_ss" = 1 ]; then echo "\\! $ss_sum > $work/ss.$r.after"; fi
			echo "\\! cut -d' ' -f1 /proc/\$BACKEND/schedstat > $work/cpu.$r.after; $lo_rx > $work/lo.$r.after"
		done
	} > "$work/bytes.sql"
	chown "${BENCH_USER:-pg}" "$work/bytes.sql"
	coord "-f $work/bytes.sql" >/dev/null
	least() { for r in 1 2; do echo $(( $(cat "$work/$1.$r.after") - $(cat "$work/$1.$r.before") )); done | sort -n | head -1; }
	lo=$(least lo)
	cpu_us=$(( $(least cpu) / 1000 ))
	ss_note="ss not installed"
	if [ "$have_ss" = 1 ]; then ss_note="$(least ss) bytes received (ss, tcp_info: the shards' replies alone)"; fi
	# postgres_fdw's text rows of the pairs (DataRow: 1 + 4 + 2, and 4 + the text a column)
	rows_bytes=$(awk -F'|' '{s += 15 + length($1) + length($2)} END {print s + 0}' "$work/bytes.1.pairs")

	# 4. same pairs?
	npairs=$(wc -l < "$work/one.pairs")
	same=$(cmp -s "$work/one.pairs" "$work/sharded.pairs" && echo yes || echo "NO ($(wc -l < "$work/sharded.pairs") sharded)")
	{
		echo "## $mine mine ($args): $SHARDS shards"
		echo
		echo "| | best of $REPS (ms) | all runs (ms) |"
		echo "|---|---|---|"
		echo "| one server, one GPU: natural JOIN ($one_plan) | $one_ms | $(paste -sd' ' "$work/one.times") |"
		echo "| $SHARDS shards, one GPU each: view hole_body_pairs | $shard_ms | $(paste -sd' ' "$work/sharded.times") |"
		echo
		echo "- ratio sharded / one server: $(echo "$shard_ms $one_ms" | awk '{printf "%.2f", $1 / $2}') (target for 2 shards on the double mine: <= 0.6)"
		echo "- pairs: $npairs; same pairs as one server: $same"
		echo "- bytes for one join: $lo on the loopback, both directions, headers included (/proc/net/dev); $ss_note;" \
			"the pairs are $((npairs * 16)) bytes as two binary bigints, $rows_bytes as postgres_fdw's text rows" \
			"(loopback / binary pairs: $(echo "$lo $npairs" | awk '{printf "%.2f", $1 / ($2 > 0 ? 16 * $2 : 1)}'));" \
			"bodies: $body_bytes bytes as WKB"
		echo "- coordinator's own CPU time for one join (/proc/PID/schedstat of its backend): $cpu_us us" \
			"($(echo "$cpu_us $npairs" | awk '{printf "%.2f", $1 / ($2 > 0 ? $2 : 1)}') us a pair)"
		echo "- split: $counts; coordinator's load $load_coord_s s, the shards' (at once) $load_s s; servers' $srv_options"
		echo
		echo "Each shard's plan of postgres_fdw's cursor, as it ran (auto_explain; duration = the shard's executor time):"
		echo
		echo '```'
		for k in $(seq 1 "$SHARDS"); do
			echo "-- s$k: durations (ms) $(grep -A1 'duration:' "$work/s$k.log" | grep -B1 'DECLARE' | grep -o 'duration: [0-9.]*' | cut -d' ' -f2 | paste -sd' ')"
			# the last cursor's plan: from its Query Text to the next log line
			awk '/Query Text: DECLARE/ {p = 1; b = ""; next}
				p && /^[0-9][0-9-]* [0-9:.]* [A-Z]* \[/ {p = 0; last = b}
				p {b = b $0 "\n"} END {if (p) last = b; printf "%s", last}' "$work/s$k.log" |
				grep -vE 'SELECT |^\s*$' | cut -c1-160
		done
		echo '```'
		echo
		echo "The coordinator's plan (EXPLAIN ANALYZE, VERBOSE):"
		echo
		echo '```'
		echo "$plan" | cut -c1-220
		echo '```'
		echo
		echo "$mine mine: $(( $(date +%s) - t_mine )) s in all"
		echo
	} >> "$md"
	tail -40 "$md"
	cp "$md" "$out/shards.md"	# what is measured comes back even if a later mine is cut off
	coord "-c 'DROP SCHEMA sharded CASCADE; DROP VIEW IF EXISTS hole_body_pairs; DROP TABLE drill_holes, ore_bodies CASCADE;'" >/dev/null 2>&1 || true
	for k in $(seq 1 "$SHARDS"); do
		shard $k "-c 'DROP SCHEMA exactgpu_shard CASCADE; DROP TABLE drill_holes, ore_bodies;'" >/dev/null 2>&1 || true
	done
done
echo "total: $(( $(date +%s) - t_start )) s" >> "$md"
cp "$md" "$out/shards.md"
