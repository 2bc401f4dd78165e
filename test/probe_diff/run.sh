#!/bin/sh
# The probe join's differential test (exactgpu.probe_join): on random and
# adversarial inputs, each batch join (ST_ExactIntersects3DJoin,
# ST_ExactIntersectsJoin, ST_ExactIntersectsSolid3DJoin,
# ST_ExactLocate3DJoin) must give the same pairs, and for bad rows the same
# error (SQLSTATE, message, detail; under exactgpu.invalid_rows = skip the
# same rows skipped), with the probe on and off; and the same pairs as a
# plain nested loop over the row-level predicate (no batch join at all), as
# the plain join through Custom Scan (ExactJoin) (probe on and off) and as
# the exactgpu_batch value form. The probe must have run where the
# documented size rule says it is taken, never when off, and in each join
# and phase (compare.sql says how).
# Inputs:
#   - minegen mines of sizes drawn from the seed (demo/bin/minegen --seed,
#     with its deliberate degenerate sets, whose expected answers are
#     checked too), PROBE_DIFF_MINES of them;
#   - adversarial inputs built in SQL (adversarial.sql), PROBE_DIFF_SEEDS;
#   - on each of those, open surfaces cut from the bodies, faces of no
#     area, small bodies as rows, and ids shared by several rows (checks.sql);
#   - bad rows of every kind (errors.sql), PROBE_DIFF_BAD inputs;
#   - the differences found so far, reduced (known.sql): printed as KNOWN,
#     not counted, until fixed.
# Ids are integers, bigints, numerics, texts or uuids, handed to the joins
# in a hashed order. Everything runs twice on one throwaway cluster:
# without exactgpu preloaded (no resident store), then preloaded with
# exactgpu.resident_memory set (the probe borrows bodies from the store;
# each join runs cold, then warm; bodies prewarmed, evicted or left as they
# were, by seed). PROBE_DIFF_BASE_SEED shifts every seed (default 0: the
# same inputs every run). Run by test/run-tests.sh after `make install`;
# the last line says "probe_diff: N joins compared, M failed, K known
# differences (S s)".
set -eu
cd "$(dirname "$0")/../.."
PG_CONFIG=${PG_CONFIG:-pg_config}
export PG_CONFIG
MINES=${PROBE_DIFF_MINES:-8}
SEEDS=${PROBE_DIFF_SEEDS:-16}
BAD=${PROBE_DIFF_BAD:-1}
BASE=${PROBE_DIFF_BASE_SEED:-0}
start=$(date +%s)

make -s demo/bin/minegen >/dev/null
. test/lib/preloaded-cluster.sh
preloaded_cluster probe_diff "${PROBE_DIFF_PORT:-54397}"
# the first phase without the store: exactgpu loaded by CREATE EXTENSION only
echo "shared_preload_libraries = ''" >> "$work/data/postgresql.conf"
echo "max_parallel_workers_per_gather = 0" >> "$work/data/postgresql.conf"
pg_start

db=probe_diff
q() { PGOPTIONS="-c client_min_messages=warning" "$bindir/psql" -X -q -v ON_ERROR_STOP=1 -d "$db" "$@"; }
"$bindir/psql" -X -q -d postgres -c "CREATE DATABASE $db"
q -c "SET client_min_messages = warning" -c "CREATE EXTENSION postgis" -c "CREATE EXTENSION exactgpu"
q -v cube_fn=pd_cube -f test/regress/fixtures/subdivided_cube.sql \
	-f test/probe_diff/compare.sql -f test/probe_diff/adversarial.sql \
	-f test/probe_diff/checks.sql -f test/probe_diff/errors.sql -f test/probe_diff/known.sql

# run_phase NAME STORE(true|false)
run_phase() {
	q -c "DELETE FROM pd_phase" -c "INSERT INTO pd_phase VALUES ('$1', $2)"
	i=0
	while [ "$i" -le "$MINES" ]; do
		s=$((BASE + i))
		# sizes from the seed: 6-21 holes, 2-6 bodies, 400-3,400 triangles,
		# 0-2 sets; the first a bigger mine (bodies near 1 MB, two threads)
		holes=$((6 + s * 7 % 16)) bodies=$((2 + s * 3 % 5))
		tris=$((400 + s * 997 % 3000)) sets=$((s % 3))
		[ "$i" -gt 0 ] || { holes=60 bodies=8 tris=8000 sets=2; }
		[ "$holes" -ge $((9 * sets + 1)) ] || holes=$((9 * sets + 1))
		[ "$bodies" -ge $((sets + 1)) ] || bodies=$((sets + 1))
		demo/bin/minegen --seed "$s" --holes "$holes" --bodies "$bodies" --triangles "$tris" \
			--sets "$sets" --out "$work/mine" >/dev/null 2>&1
		q -v dir="$work/mine" -v replace=1 -f "$work/mine/load.sql" >/dev/null
		input="mine seed $s ($holes holes, $bodies bodies, $tris triangles, $sets sets)"
		q -c "SET client_min_messages = warning" -c "SELECT setseed(($s % 997) / 997.0)" \
			-c "SELECT pd_from_mine('$input', $2)" -c "SELECT pd_warmth($2, $s)" \
			-c "SELECT pd_check_all('$input', 1 + ($s + 1) % 2)" >/dev/null
		i=$((i + 1))
	done
	i=1
	while [ "$i" -le "$SEEDS" ]; do
		s=$((BASE + i))
		q >/dev/null <<SQL
SET client_min_messages = warning;
SELECT pd_make_adversarial($s, $2) AS input \\gset
SELECT pd_warmth($2, $s);
SELECT pd_check_all(:'input', 1 + $s % 2);
SQL
		i=$((i + 1))
	done
	echo "probe_diff: $1: mines and adversarial inputs done, $(($(date +%s) - start)) s"
	q -c "SELECT pd_check_known()" >/dev/null
	i=1
	while [ "$i" -le "$BAD" ]; do
		s=$((BASE + 500 + i))
		q -c "SET client_min_messages = warning" -c "SELECT pd_check_errors($s, $2)" >/dev/null
		i=$((i + 1))
	done
	q -At -c "SELECT format('probe_diff: %s: %s joins (%s with an error, %s under invalid_rows = skip), %s pairs, %s answers compared; probe runs: %s of the SRFs (%s where the size rule says it is taken; %s borrowing from the resident store), %s of %s custom scans; %s failures (known ones aside); %s s',
		'$1', count(*), count(*) FILTER (WHERE outcome NOT LIKE 'ok%'), count(*) FILTER (WHERE invalid_rows = 'skip'),
		sum(pairs), sum(answers), count(*) FILTER (WHERE probed), count(*) FILTER (WHERE expect_probe),
		count(*) FILTER (WHERE probed AND resident_hits > 0),
		count(*) FILTER (WHERE scan_probed), count(*) FILTER (WHERE scan_taken),
		(SELECT count(*) FROM pd_failure WHERE phase = '$1' AND input NOT IN (SELECT input FROM pd_known)),
		$(date +%s) - $start)
		FROM pd_result WHERE phase = '$1'"
}

run_phase "store off" false
# the first phase really had no store
[ "$(q -At -c "SELECT enabled FROM exactgpu_resident")" = f ] ||
	q -c "SELECT pd_fail('(phase)', '', '', 'the resident store was on without exactgpu preloaded')"
pg_stop
cat >> "$work/data/postgresql.conf" <<CONF
shared_preload_libraries = 'exactgpu'
exactgpu.resident_memory = 64
CONF
pg_start
run_phase "store on" true
[ "$(q -At -c "SELECT enabled FROM exactgpu_resident")" = t ] ||
	q -c "SELECT pd_fail('(phase)', '', '', 'the resident store was off with exactgpu preloaded')"
q -At -c "SELECT format('probe_diff: store on: resident hits %s, misses %s, inserts %s, evictions %s',
	hits, misses, inserts, evictions) FROM exactgpu_resident"

q -At <<'SQL'
-- errors of inputs that are not meant to be bad (the same with the probe on
-- and off, or they would be failures; listed to be read)
SELECT format('probe_diff: %s joins of good inputs raised: %s', count(*), outcome)
FROM pd_result WHERE outcome NOT LIKE 'ok%' AND input NOT LIKE 'bad rows%' GROUP BY outcome;
SELECT format('FAILED [%s] %s: %s(%s): %s', phase, input, fn, lr, what) FROM pd_failure
WHERE input NOT IN (SELECT input FROM pd_known) ORDER BY phase, input, fn;
SELECT format('KNOWN [%s] %s: %s(%s): %s', phase, input, fn, lr, what) FROM pd_failure
WHERE input IN (SELECT input FROM pd_known) ORDER BY phase, input, fn;
SELECT format('probe_diff: known difference no longer seen (remove it from known.sql): %s: %s', input, note)
FROM pd_known k WHERE NOT EXISTS (SELECT FROM pd_failure f WHERE f.input = k.input);
SQL
failed=$(q -At -c "SELECT count(*) FROM pd_failure WHERE input NOT IN (SELECT input FROM pd_known)")
known=$(q -At -c "SELECT count(*) FROM pd_failure WHERE input IN (SELECT input FROM pd_known)")
# a test whose probe never ran would compare the batch join with itself:
# in each phase, each of the four joins must have probed, the custom scan
# too, with the store some probe must have borrowed bodies from it, and of
# the joins that succeed at least a third must have probed
vacuous=$(q -At -c "SELECT (SELECT count(DISTINCT (phase, fn)) FROM pd_result WHERE probed) <> 8
	OR (SELECT count(DISTINCT phase) FROM pd_result WHERE scan_probed) <> 2
	OR NOT EXISTS (SELECT FROM pd_result WHERE phase = 'store on' AND probed AND resident_hits > 0)
	OR EXISTS (SELECT FROM pd_result WHERE outcome LIKE 'ok%' GROUP BY phase
		HAVING 3 * count(*) FILTER (WHERE probed) < count(*))")
total=$(q -At -c "SELECT count(*) FROM pd_result")
[ "$vacuous" = f ] || { echo "probe_diff: FAILED: the probe did not run in each join and phase, or never from the store, or in under a third of the joins"; failed=$((failed + 1)); }
echo "probe_diff: $total joins compared, $failed failed, $known known differences ($(($(date +%s) - start)) s)"
[ "$failed" = 0 ]
