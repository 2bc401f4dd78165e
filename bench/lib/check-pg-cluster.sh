#!/bin/sh
# Exercises bench/lib/pg-cluster.sh on a build machine (its own PostgreSQL 15,
# no bundle): as root from the repository root, with a user pg and PGPORT a
# free port, e.g.  PGPORT=54329 sh bench/lib/check-pg-cluster.sh
# Checks that the postmaster gets the options and environment it is given,
# that stop and start again work, and that an error, or a TERM, in a script
# that sourced it stops the cluster. With REGRESS=TEST (the installed
# exactgpu: hold /tmp/exactgpu-pg.lock) it also creates the extensions and
# runs pg_regress on test/regress's TEST.
set -eu
cd "$(dirname "$0")/../.."
: "${PGPORT:?set PGPORT to a free port}"
work=/tmp/exactgpu-pg-cluster-check
fail() { echo "FAIL: $*"; exit 1; }
running() { [ -f "$1/data/postmaster.pid" ] && kill -0 "$(head -1 "$1/data/postmaster.pid")" 2>/dev/null; }

. bench/lib/pg-cluster.sh
pg_cluster_init "$work" test
[ "$(stat -c %U "$work/test")" = pg ] || fail "the copies are not pg's"
pg_cluster_start -e EXG_CHECK=lazy -c shared_buffers=48MB -c work_mem=7MB
running "$work" || fail "no postmaster after pg_cluster_start"
[ "$(pg_psql "-At -c 'SHOW shared_buffers' -c 'SHOW work_mem'" | tr '\n' ' ')" = "48MB 7MB " ] ||
	fail "the postmaster options did not arrive"
tr '\0' '\n' < "/proc/$(head -1 "$work/data/postmaster.pid")/environ" | grep -qx EXG_CHECK=lazy ||
	fail "the postmaster environment did not arrive"
pg_cluster_stop
! running "$work" || fail "postmaster still running after pg_cluster_stop"
pg_cluster_stop	# none running: nothing, no error
pg_cluster_start -c shared_buffers=32MB
[ "$(pg_psql "-At -c 'SHOW shared_buffers'")" = 32MB ] || fail "restart with other options"
if [ -n "${REGRESS:-}" ]; then
	pg_psql "-q -c 'CREATE EXTENSION exactgpu CASCADE'"
	[ "$(pg_psql "-At -c \"SELECT extversion FROM pg_extension WHERE extname = 'exactgpu'\"")" != "" ] ||
		fail "CREATE EXTENSION exactgpu"
	pg_cluster_regress -e "PGOPTIONS='-c exactgpu.device=cpu'" "$REGRESS" > "$work/regress.log" 2>&1 || true
	grep -q "All 1 tests passed" "$work/regress.log" || { cat "$work/regress.log"; fail "pg_regress $REGRESS"; }
fi
pg_cluster_stop
echo "ok: start, options, environment, stop, restart${REGRESS:+, extension and pg_regress $REGRESS}"

# an error under set -e, then a TERM, in a script that sourced the file
for how in error term; do
	w=$work-$how
	sh -c 'set -eu; . bench/lib/pg-cluster.sh; pg_cluster_init "$1"; pg_cluster_start
		if [ "$2" = error ]; then false; fi
		sleep 20 & wait $!' sh "$w" "$how" &
	child=$!
	if [ "$how" = term ]; then
		i=0
		until running "$w"; do
			i=$((i + 1)); [ $i -lt 100 ] || fail "no postmaster in the TERM case"; sleep 0.2
		done
		kill -TERM "$child"
	fi
	rc=0; wait "$child" || rc=$?
	[ $rc -ne 0 ] || fail "the $how case exited 0"
	! running "$w" || fail "postmaster still running after the $how (exit $rc)"
	rm -rf "$w"
	echo "ok: $how stops the cluster (exit $rc)"
done
rm -rf "$work"
