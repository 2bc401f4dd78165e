#!/bin/sh
# exactgpu's fuzzer: every SQL function of the extension with mutated EWKB
# and nasty shapes (test/fuzz/fuzz.sql), in rounds of a fixed number of calls
# on `jobs` concurrent sessions, until `seconds` have passed.
#
#   test/fuzz/fuzz.sh [seconds [jobs [calls_per_round]]]     (default 60 2 2000)
#
# Needs a running server with exactgpu installed (PGHOST/PGPORT/PGUSER as
# for psql), e.g. on a throwaway cluster:  pg_virtualenv -v 15 test/fuzz/fuzz.sh 3600
# A round's internal error (SQLSTATE class XX), a hang (a round past
# ROUND_TIMEOUT, 120 s) or a crash (the session lost) is a failure; the
# last line is "fuzz: N passed, F failed" (N: calls without a failure) and
# the exit status is non-zero when F > 0. Failing inputs are printed (hex
# EWKB) and the seed of each round is kept in the log, so a round can be
# replayed: SELECT * FROM fuzz.round(<seed>, <calls>).
set -u
SECONDS_WANTED=${1:-60}
JOBS=${2:-2}
PER_ROUND=${3:-2000}
ROUND_TIMEOUT=${ROUND_TIMEOUT:-120s}
DB=${FUZZ_DB:-exactgpu_fuzz}
HERE=$(cd "$(dirname "$0")" && pwd)
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT

psql -X -q -d postgres -c "SET client_min_messages = warning" -c "DROP DATABASE IF EXISTS $DB" -c "CREATE DATABASE $DB" >/dev/null || exit 2
psql -X -q -d "$DB" -v ON_ERROR_STOP=1 -c "SET client_min_messages = warning" \
	-c "CREATE EXTENSION IF NOT EXISTS postgis" -c "CREATE EXTENSION IF NOT EXISTS exactgpu" \
	-f "$HERE/fuzz.sql" >/dev/null || exit 2
echo "fuzz: $(psql -X -At -d "$DB" -c "SELECT count(*) || ' functions: ' || string_agg(DISTINCT name, ', ') FROM fuzz.calls()")"

# One session: rounds until the deadline; one line per round in $WORK/job.N
job() {
	deadline=$(( $(date +%s) + SECONDS_WANTED ))
	r=0
	while [ "$(date +%s)" -lt "$deadline" ]; do
		seed=$(awk -v j="$1" -v r="$r" -v t="$(date +%s%N)" 'BEGIN { srand(t % 2147483647 + j * 7919 + r); printf "%.6f", rand() * 2 - 1 }')
		out=$(PGOPTIONS="-c statement_timeout=$ROUND_TIMEOUT -c client_min_messages=warning" \
			psql -X -At -F '|' -d "$DB" -c "SELECT calls, errors, failures, coalesce(first_failure, '') FROM fuzz.round($seed, $PER_ROUND)" 2>&1)
		rc=$?
		case "$rc:$out" in
			0:*) echo "$seed|$out" >> "$WORK/job.$1" ;;
			*"statement timeout"*) echo "$seed|0|0|1|hang: round past $ROUND_TIMEOUT" >> "$WORK/job.$1" ;;
			*) echo "$seed|0|0|1|crash or lost session: $(echo "$out" | tr '\n' ' ')" >> "$WORK/job.$1"
			   # the postmaster restarts after a crash: wait for it
			   for _ in 1 2 3 4 5 6 7 8 9 10; do psql -X -q -d "$DB" -c "SELECT 1" >/dev/null 2>&1 && break; sleep 1; done ;;
		esac
		r=$((r + 1))
	done
}

i=0
while [ $i -lt "$JOBS" ]; do job $i & i=$((i + 1)); done
wait

cat "$WORK"/job.* | awk -F'|' '
	{ calls += $2; errors += $3; fail += $4; rounds++
	  if ($4 > 0) { print "FAILED round (seed " $1 "): " substr($5, 1, 4000) } }
	END {
		printf "fuzz: %d rounds, %d calls, %d ordinary errors (refused input)\n", rounds, calls, errors
		printf "fuzz: %d passed, %d failed\n", calls - fail, fail
		exit fail > 0 || rounds == 0 }'
