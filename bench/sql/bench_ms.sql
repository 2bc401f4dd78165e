-- bench_ms(query, reps): run a query returning one count reps times in this
-- session; its count, each run's ms and their median (the device service
-- benches: run-device-service.sh, run-device-service-gpus.sh).
CREATE OR REPLACE FUNCTION bench_ms(q text, reps int) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
	t timestamptz;
	ms float8[] := '{}';
	n bigint;
BEGIN
	FOR i IN 1..reps LOOP
		t := clock_timestamp();
		EXECUTE q INTO n;
		ms := ms || (extract(epoch FROM clock_timestamp() - t) * 1000)::float8;
	END LOOP;
	RETURN format('%s rows; ms: %s; median %s', n,
		array_to_string(ARRAY(SELECT round(x::numeric, 1) FROM unnest(ms) x), ' '),
		(SELECT round(percentile_cont(0.5) WITHIN GROUP (ORDER BY x)::numeric, 1) FROM unnest(ms) x));
END $$;
