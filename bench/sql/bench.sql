-- SQL-level benchmark helper (bench/sql/run.sh): run one pair query into
-- last_pairs, timed, surviving a statement_timeout.
CREATE TEMP TABLE IF NOT EXISTS last_pairs (hole_id bigint, body_id bigint);
CREATE OR REPLACE FUNCTION pg_temp.bench_pairs(q text)
RETURNS TABLE (ms float8, pairs bigint, status text) LANGUAGE plpgsql AS $$
DECLARE
	t0 timestamptz := clock_timestamp();
BEGIN
	TRUNCATE last_pairs;
	EXECUTE 'INSERT INTO last_pairs ' || q;
	ms := extract(epoch FROM clock_timestamp() - t0) * 1000;
	pairs := (SELECT count(*) FROM last_pairs);
	status := 'ok';
	RETURN NEXT;
EXCEPTION WHEN query_canceled THEN
	ms := extract(epoch FROM clock_timestamp() - t0) * 1000;
	pairs := NULL;
	status := 'timeout';
	RETURN NEXT;
END $$;
