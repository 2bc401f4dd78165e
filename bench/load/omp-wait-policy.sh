#!/bin/sh
# The batch join under CPU load, with OpenMP's default wait policy (idle
# worker threads spin) and with OMP_WAIT_POLICY=passive in the server's
# environment (they sleep). On a throwaway cluster, as root, under the
# install lock:
#   flock /tmp/exactgpu-pg.lock sh bench/load/omp-wait-policy.sh
# Loads the `demo` mine (2,000 holes, 20 bodies, 200,000 triangles), then
# for each policy: 5 joins with exactgpu.worker_threads = 1 and 2, on an
# idle machine and beside one busy process (`yes`).
set -eu
cd "$(dirname "$0")/../.."
dir=$(mktemp -d)
trap 'rm -rf "$dir"; [ -f "$dir.yes" ] && kill "$(cat "$dir.yes")" 2>/dev/null || true' EXIT
demo/bin/minegen --size demo --out "$dir/mine" >/dev/null
cat > "$dir/inner.sh" <<'INNER'
#!/bin/sh
# inside pg_virtualenv: the policy into the cluster's environment file
if [ -n "$OMPSET" ]; then
	echo "$OMPSET" >> "$PG_CLUSTER_CONF_ROOT/15/regress/environment"
	pg_ctlcluster 15 regress restart
fi
psql -X -q -c 'CREATE EXTENSION exactgpu CASCADE' >/dev/null 2>&1
psql -X -q -v dir="$MINE" -v replace=1 -f "$MINE/load.sql" >/dev/null 2>&1
psql -X -q -c 'VACUUM ANALYZE drill_holes' -c 'VACUUM ANALYZE ore_bodies'
psql -X -At <<'SQL'
CREATE FUNCTION pg_temp.ms(t int, n int) RETURNS text LANGUAGE plpgsql AS $$
DECLARE r text := ''; t0 timestamptz; c bigint;
BEGIN
	PERFORM set_config('exactgpu.worker_threads', t::text, false);
	PERFORM set_config('exactgpu.device', 'cpu', false);
	PERFORM set_config('max_parallel_workers_per_gather', '0', false);
	PERFORM count(*) FROM ST_ExactIntersects3DJoin('SELECT hole_id, geom FROM drill_holes', 'SELECT body_id, geom FROM ore_bodies');
	FOR i IN 1..n LOOP
		t0 := clock_timestamp();
		SELECT count(*) INTO c FROM ST_ExactIntersects3DJoin('SELECT hole_id, geom FROM drill_holes', 'SELECT body_id, geom FROM ore_bodies');
		r := r || round(extract(epoch FROM clock_timestamp() - t0) * 1000) || ' ';
	END LOOP;
	RETURN 'worker_threads=' || t || ' pairs=' || c || ' ms: ' || r;
END $$;
SELECT pg_temp.ms(1, 5);
SELECT pg_temp.ms(2, 5);
SQL
INNER
chmod +x "$dir/inner.sh"
echo "date (UTC): $(date -u +%Y-%m-%dT%H:%MZ); cores: $(nproc); $(uptime)"
for load in idle busy; do
	if [ "$load" = busy ]; then yes > /dev/null & echo $! > "$dir.yes"; fi
	for policy in "" "OMP_WAIT_POLICY = 'passive'"; do
		echo "== $load machine, policy: ${policy:-(OpenMP default)}"
		OMPSET="$policy" MINE="$dir/mine" pg_virtualenv -t -v 15 "$dir/inner.sh" 2>&1 | grep "worker_threads="
	done
	if [ "$load" = busy ]; then kill "$(cat "$dir.yes")"; rm -f "$dir.yes"; fi
done
