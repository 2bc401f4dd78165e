#!/bin/sh
# The resident store (exactgpu.resident_memory) needs exactgpu preloaded, so
# its tests run on a throwaway cluster of their own, with a 4 MB store so
# that the budget evicts:
#   1. pg_regress test/resident: answers with the store equal those without,
#      through updates, deletes, vacuum, truncate and rewrites; eviction;
#      a body too big to keep; no pin outlives its transaction; the probe
#      join planned (Custom Scan ExactJoin) where it will run, warm;
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
. test/lib/preloaded-cluster.sh
preloaded_cluster resident "${RESIDENT_PORT:-54391}"
cat >> "$work/data/postgresql.conf" <<CONF
exactgpu.resident_memory = 4
max_parallel_workers_per_gather = 0
CONF
pg_start
RESIDENT_WORK=$work
export RESIDENT_WORK
. test/resident/cluster.sh
