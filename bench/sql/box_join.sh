#!/bin/sh
# Plain SQL box joins on PostGIS's operators (Custom Scan ExactBoxJoin)
# against PostGIS's own GiST nested loop, in a running PostgreSQL with
# PostGIS and exactgpu (PGHOST etc. from the environment):
#   &&& : two tables of N random small 3D boxes (2-point LINESTRING Z, their
#         diagonals), GiST gist_geometry_ops_nd on both;
#   &&  : two tables of N random small 2D boxes (polygons), GiST 2D on both.
# Each: COUNT(*) of the plain JOIN with ExactBoxJoin on the GPU
# (exactgpu.device = auto: the planner's choice) and on the CPU (all
# cores), best of REPS runs; PostGIS's plan (enable_batch_join = off) once;
# the counts must be equal. Sizes are set for ~5 pairs per row (~5 * N).
#   usage: bench/sql/box_join.sh OUT.md N
#   env:   REPS (default 3), POSTGIS=0 skips PostGIS's run, PG_TIMEOUT_S
#          (default 200) bounds it, CANCEL=0 skips the cancel measurement
set -eu
out=$1
n=$2
reps=${REPS:-3}
# every session loads exactgpu: its planner hook is installed when the
# library loads, and a query on PostGIS's operators calls nothing of it
# (session_preload_libraries = 'exactgpu' does the same for all sessions)
export PGOPTIONS="${PGOPTIONS:-} -c session_preload_libraries=exactgpu"
psql="psql -X -q -v ON_ERROR_STOP=1"

$psql -c "CREATE EXTENSION IF NOT EXISTS exactgpu CASCADE"
# Uniform in a cube of side 1000; a pair meets on an axis with probability
# ~(mean side a + mean side b) / 1000: 3D sides up to 17 (mean 8.5) give
# 0.017^3 ~ 4.9e-6, 2D sides up to 2.24 give 0.00224^2 ~ 5e-6, so ~5 * N
# pairs for N * N rows at N = 10^6 (scaled so at other N: side * sqrt or
# cbrt of 10^6 / N keeps ~5 pairs a row).
$psql <<SQL
SELECT setseed(0.5);
DROP TABLE IF EXISTS bx3_a, bx3_b, bx2_a, bx2_b;
CREATE TABLE bx3_a AS SELECT i AS id, ST_MakeLine(ST_MakePoint(x, y, z), ST_MakePoint(x + s * random(), y + s * random(), z + s * random())) AS geom
	FROM (SELECT i, random() * 1000 AS x, random() * 1000 AS y, random() * 1000 AS z, 17 * cbrt(1e6 / $n) AS s FROM generate_series(1, $n) i) t;
CREATE TABLE bx3_b AS SELECT i AS id, ST_MakeLine(ST_MakePoint(x, y, z), ST_MakePoint(x + s * random(), y + s * random(), z + s * random())) AS geom
	FROM (SELECT i, random() * 1000 AS x, random() * 1000 AS y, random() * 1000 AS z, 17 * cbrt(1e6 / $n) AS s FROM generate_series(1, $n) i) t;
CREATE TABLE bx2_a AS SELECT i AS id, ST_MakeEnvelope(x, y, x + s * random(), y + s * random()) AS geom
	FROM (SELECT i, random() * 1000 AS x, random() * 1000 AS y, 2.24 * sqrt(1e6 / $n) AS s FROM generate_series(1, $n) i) t;
CREATE TABLE bx2_b AS SELECT i AS id, ST_MakeEnvelope(x, y, x + s * random(), y + s * random()) AS geom
	FROM (SELECT i, random() * 1000 AS x, random() * 1000 AS y, 2.24 * sqrt(1e6 / $n) AS s FROM generate_series(1, $n) i) t;
CREATE INDEX ON bx3_a USING gist (geom gist_geometry_ops_nd);
CREATE INDEX ON bx3_b USING gist (geom gist_geometry_ops_nd);
CREATE INDEX ON bx2_a USING gist (geom);
CREATE INDEX ON bx2_b USING gist (geom);
VACUUM ANALYZE bx3_a, bx3_b, bx2_a, bx2_b;
SQL

# run LABEL SETTINGS QUERY REPS: best and median ms, the count, the device used
run() {
	$psql -At -F' | ' <<SQL
$2;
CREATE FUNCTION pg_temp.time_ms(q text, run int, OUT ms float8, OUT n bigint) LANGUAGE plpgsql AS \$\$
DECLARE t0 timestamptz := clock_timestamp();
BEGIN
	EXECUTE q INTO n;
	ms := extract(epoch FROM clock_timestamp() - t0) * 1000;
END \$\$;
CREATE TEMP TABLE runs AS SELECT r, t.* FROM generate_series(1, $4) r, LATERAL pg_temp.time_ms(\$q\$$3\$q\$, r) t;
SELECT '$1', round(min(ms)::numeric, 1), round((percentile_cont(0.5) WITHIN GROUP (ORDER BY ms))::numeric, 1), max(n),
	CASE WHEN current_setting('exactgpu.enable_batch_join')::bool
		THEN coalesce((SELECT device FROM exactgpu_last_join_stats()), '?') ELSE 'PostGIS' END
	FROM runs;
SQL
}

ratio() {
	awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1f", a / b }'
}

# bench OP TABLE_A TABLE_B TITLE
bench() {
	q="SELECT count(*) FROM $2 a JOIN $3 b ON a.geom $1 b.geom"
	gpu=$(run "ExactBoxJoin, exactgpu.device = auto" "SET exactgpu.device = auto" "$q" "$reps")
	cpu=$(run "ExactBoxJoin, CPU" "SET exactgpu.device = cpu" "$q" "$reps")
	if [ "${POSTGIS:-1}" != 0 ]; then
		pg=$(run "PostGIS (enable_batch_join = off)" \
			"SET exactgpu.enable_batch_join = off; SET statement_timeout = '${PG_TIMEOUT_S:-200}s'" "$q" 1) ||
			pg="PostGIS (enable_batch_join = off): canceled at statement_timeout ${PG_TIMEOUT_S:-200} s | | | |"
	else
		pg="PostGIS (skipped) | | | |"
	fi
	{
		echo "### \`$1\`: $n x $n rows ($4)"
		echo
		echo '| plan | best ms | median ms | count | device |'
		echo '|---|---|---|---|---|'
		for r in "$gpu" "$cpu" "$pg"; do echo "| $r |"; done
		echo
		gms=$(echo "$gpu" | cut -d'|' -f2 | tr -d ' ')
		cms=$(echo "$cpu" | cut -d'|' -f2 | tr -d ' ')
		pms=$(echo "$pg" | cut -d'|' -f2 | tr -d ' ')
		gn=$(echo "$gpu" | cut -d'|' -f4 | tr -d ' ')
		cn=$(echo "$cpu" | cut -d'|' -f4 | tr -d ' ')
		pn=$(echo "$pg" | cut -d'|' -f4 | tr -d ' ')
		if [ -n "$pms" ]; then
			echo "PostGIS / ExactBoxJoin (auto): **$(ratio "$pms" "$gms")x**;" \
				"PostGIS / ExactBoxJoin (CPU): $(ratio "$pms" "$cms")x;" \
				"counts equal: $([ "$gn" = "$pn" ] && [ "$cn" = "$pn" ] && echo yes || echo "**NO**")"
		else
			[ "${POSTGIS:-1}" = 0 ] || echo "PostGIS / ExactBoxJoin (auto): **> $(ratio "$(( ${PG_TIMEOUT_S:-200} * 1000 ))" "$gms")x** (PostGIS canceled);"
			echo "counts equal (ExactBoxJoin auto vs CPU): $([ "$gn" = "$cn" ] && echo yes || echo "**NO**")"
		fi
		# pair for pair, GPU against CPU (the CPU's pairs are PostGIS's in
		# pg_regress): a checksum of the id pairs, not timed
		sum="SELECT count(*) || ' pairs, checksum ' || sum(hashint8((a.id::bigint << 32) | b.id)) FROM $2 a JOIN $3 b ON a.geom $1 b.geom"
		sg=$($psql -At -c "SET exactgpu.device = auto" -c "$sum")
		sc=$($psql -At -c "SET exactgpu.device = cpu" -c "$sum")
		echo
		echo "Pairs of ExactBoxJoin (auto): $sg; (CPU): $sc: $([ "$sg" = "$sc" ] && echo equal || echo "**DIFFERENT**")"
		echo
		echo '```'
		$psql -c "SET exactgpu.device = auto" -c "EXPLAIN (ANALYZE, COSTS OFF) $q"
		$psql -c "SET exactgpu.enable_batch_join = off" -c "EXPLAIN (COSTS OFF) $q"
		echo '```'
		echo
	} >> "$out"
}

bench '&&&' bx3_a bx3_b "random 3D boxes as LINESTRING Z diagonals, GiST N-D"
bench '&&' bx2_a bx2_b "random 2D boxes as polygons, GiST 2D"

if [ "${CANCEL:-1}" != 0 ]; then
	# statement_timeout set to land in the middle of the CPU join
	$psql -At >> "$out" <<'SQL'
SET exactgpu.device = cpu;
SELECT count(*) FROM bx3_a a JOIN bx3_b b ON a.geom &&& b.geom \gset
SELECT coalesce(round(read_ms + join_ms / 2), 1000) AS timeout_ms, coalesce(round(read_ms), -1) AS read_ms, coalesce(round(join_ms), -1) AS join_ms FROM exactgpu_last_join_stats() \gset
CREATE FUNCTION pg_temp.cancel_latency(q text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE t0 timestamptz := clock_timestamp();
BEGIN
	EXECUTE q;
	RETURN format('not canceled: ran %s ms', round(extract(epoch FROM clock_timestamp() - t0) * 1000));
EXCEPTION WHEN query_canceled THEN
	RETURN format('canceled after %s ms (statement_timeout %s)',
		round(extract(epoch FROM clock_timestamp() - t0) * 1000), current_setting('statement_timeout'));
END $$;
SET statement_timeout = :timeout_ms;
SELECT format('Cancel (CPU &&& join: read %s ms, join %s ms): %s', :read_ms, :join_ms,
	pg_temp.cancel_latency('SELECT count(*) FROM bx3_a a JOIN bx3_b b ON a.geom &&& b.geom'));
SQL
	echo >> "$out"
fi
