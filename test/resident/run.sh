#!/bin/sh
# The resident store (exactgpu.resident_memory) needs exactgpu preloaded, so
# its tests run on a throwaway cluster of their own, with a 4 MB store so
# that the budget evicts:
#   1. pg_regress test/resident: answers with the store equal those without,
#      through updates, deletes, vacuum, truncate and rewrites; eviction;
#      a body too big to keep; no pin outlives its transaction;
#   2. concurrency: pgbench clients update and vacuum bodies while others
#      join row by row in REPEATABLE READ and SERIALIZABLE transactions,
#      each comparing, in one snapshot, the store's answer with the answer
#      without it (a difference raises an error, which aborts the client);
#   2b. many clients reading only (lookups under the lock shared), row by
#      row and batch joins, each compared with the store off;
#   3. crash restart: a backend holding pins killed; the store comes back
#      empty, then keeps and answers as before;
#   4. identity: a TOAST value OID forced to be given again (DELETE, VACUUM,
#      pg_resetwal -o) to another body: the two bodies' keys differ (their
#      first chunks' xmin), and the answers are the second body's.
# The extension must be installed in the PostgreSQL of PG_CONFIG (default:
# pg_config on PATH). As root the cluster runs as user postgres. Run by
# test/run-tests.sh after `make install`; the last line says
# "resident: N passed, M failed".
set -eu
cd "$(dirname "$0")/../.."
PG_CONFIG=${PG_CONFIG:-pg_config}
export PG_CONFIG
bindir=$("$PG_CONFIG" --bindir)
work=$(mktemp -d /tmp/exactgpu-resident.XXXXXX)
port=${RESIDENT_PORT:-54391}
as_owner() { if [ "$(id -u)" = 0 ]; then su postgres -c "$*"; else sh -c "$*"; fi; }
[ "$(id -u)" = 0 ] && chown postgres "$work"
cleanup() {
	as_owner "'$bindir/pg_ctl' -D '$work/data' -m immediate stop" >/dev/null 2>&1 || true
	rm -rf "$work"
}
trap cleanup EXIT INT TERM
as_owner "'$bindir/initdb' -D '$work/data' -A trust -U postgres" >/dev/null
cat >> "$work/data/postgresql.conf" <<CONF
port = $port
unix_socket_directories = '$work'
listen_addresses = ''
shared_preload_libraries = 'exactgpu'
exactgpu.resident_memory = 4
max_parallel_workers_per_gather = 0
CONF
pg_start() { as_owner "'$bindir/pg_ctl' -D '$work/data' -l '$work/log' -w start" >/dev/null; }
pg_stop() { as_owner "'$bindir/pg_ctl' -D '$work/data' -m fast -w stop" >/dev/null; }
pg_start
export PGHOST="$work" PGPORT="$port" PGUSER=postgres
RESIDENT_WORK=$work
export RESIDENT_WORK
. test/resident/cluster.sh
