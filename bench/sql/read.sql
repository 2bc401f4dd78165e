-- The batch join's read path against PostgreSQL's own floor, on the mine
-- loaded in drill_holes / ore_bodies (demo/minegen), as run by
-- bench/run-device-read.sh (and by hand on the build machine).
--   psql -v label=large -v devices='gpu cpu' [-v detail=1] -f bench/sql/read.sql
-- Each measurement runs twice in this backend; the second is kept (the
-- first pays for cold caches and, on the GPU, for the CUDA context).
-- Appends to the table read_results (created if missing).
\set ON_ERROR_STOP on
\pset footer off
\if :{?devices}
\else
\set devices 'cpu'
\endif
\if :{?reps}
\else
\set reps 2
\endif
SET client_min_messages = warning;
CREATE TABLE IF NOT EXISTS read_results (
	label text, run text, device text, read_path text, read_workers int,
	read_ms float8, upload_ms float8, join_ms float8, result_ms float8, total_ms float8,
	wall_ms float8, pairs bigint, at timestamptz DEFAULT clock_timestamp());

-- wall time of a statement, second of two runs
CREATE OR REPLACE FUNCTION pg_temp.wall_ms(q text) RETURNS float8 LANGUAGE plpgsql AS $$
DECLARE t0 timestamptz; ms float8;
BEGIN
	FOR i IN 1..2 LOOP
		t0 := clock_timestamp();
		EXECUTE q;
		ms := extract(epoch FROM clock_timestamp() - t0) * 1000;
	END LOOP;
	RETURN ms;
END $$;

-- one join under the given settings (name=value pairs), run reps times in
-- this backend: every run after the first is kept (the first pays for cold
-- caches and, on the GPU, for the CUDA context); the report gives medians
CREATE OR REPLACE FUNCTION pg_temp.join_run(label text, run text, settings text[], reps int)
RETURNS void LANGUAGE plpgsql AS $$
DECLARE t0 timestamptz; ms float8; n bigint; kv text;
BEGIN
	FOREACH kv IN ARRAY settings LOOP
		PERFORM set_config(split_part(kv, '=', 1), split_part(kv, '=', 2), false);
	END LOOP;
	FOR i IN 1..greatest(reps, 2) LOOP
		t0 := clock_timestamp();
		SELECT count(*) INTO n FROM ST_ExactIntersects3DJoin('SELECT hole_id, geom FROM drill_holes',
			'SELECT body_id, geom FROM ore_bodies');
		ms := extract(epoch FROM clock_timestamp() - t0) * 1000;
		CONTINUE WHEN i = 1;
		INSERT INTO read_results (label, run, device, read_path, read_workers, read_ms, upload_ms,
			join_ms, result_ms, total_ms, wall_ms, pairs)
		SELECT label, run, s.device, s.read_path, s.read_workers, s.read_ms, s.upload_ms, s.join_ms,
			s.total_ms - s.read_ms - s.join_ms, s.total_ms, ms, n
		FROM exactgpu_last_join_stats() s;
	END LOOP;
	FOREACH kv IN ARRAY settings LOOP
		PERFORM set_config(split_part(kv, '=', 1), NULL, false);
	END LOOP;
END $$;

SELECT :'label' AS mine, (SELECT count(*) FROM drill_holes) AS holes,
	(SELECT count(*) FROM ore_bodies) AS bodies,
	pg_size_pretty(pg_total_relation_size('ore_bodies')) AS bodies_on_disk,
	(SELECT pg_size_pretty(sum(pg_column_size(geom))) FROM ore_bodies) AS bodies_stored,
	(SELECT pg_size_pretty(sum(length(geom::bytea))) FROM ore_bodies) AS bodies_serialized,
	(SELECT string_agg(DISTINCT coalesce(pg_column_compression(geom), 'none'), ',') FROM ore_bodies) AS compression;

-- the single-backend floor: detoast and decompress every geometry once
INSERT INTO read_results (label, run, wall_ms)
SELECT :'label', 'floor: sum(length(geom::bytea)), both tables',
	pg_temp.wall_ms('SELECT sum(length(geom::bytea)) FROM ore_bodies') +
	pg_temp.wall_ms('SELECT sum(length(geom::bytea)) FROM drill_holes');

SELECT position('gpu' IN :'devices') > 0 AS with_gpu \gset
\if :with_gpu
SELECT pg_temp.join_run(:'label', 'GPU, parallel read', ARRAY['exactgpu.device=gpu'], :reps);
SELECT pg_temp.join_run(:'label', 'GPU, parallel read, gathered', ARRAY['exactgpu.device=gpu', 'exactgpu.read_in_place=off'], :reps);
SELECT pg_temp.join_run(:'label', 'GPU, parallel read, query order', ARRAY['exactgpu.device=gpu', 'exactgpu.read_biggest_first=off'], :reps);
SELECT pg_temp.join_run(:'label', 'GPU, serial read', ARRAY['exactgpu.device=gpu', 'max_parallel_workers_per_gather=0'], :reps);
\endif
SELECT position('cpu' IN :'devices') > 0 AS with_cpu \gset
\if :with_cpu
SELECT pg_temp.join_run(:'label', 'CPU, parallel read', ARRAY['exactgpu.device=cpu'], :reps);
SELECT pg_temp.join_run(:'label', 'CPU, parallel read, gathered', ARRAY['exactgpu.device=cpu', 'exactgpu.read_in_place=off'], :reps);
SELECT pg_temp.join_run(:'label', 'CPU, parallel read, query order', ARRAY['exactgpu.device=cpu', 'exactgpu.read_biggest_first=off'], :reps);
SELECT pg_temp.join_run(:'label', 'CPU, serial read', ARRAY['exactgpu.device=cpu', 'max_parallel_workers_per_gather=0'], :reps);
\endif

-- where the read goes, from the join's own NOTICE (the parallel, then the serial read)
\if :{?detail}
SET client_min_messages = notice;
SET exactgpu.progress = on;
SET exactgpu.device = 'cpu';
SELECT count(*) AS pairs_serial_read FROM ST_ExactIntersects3DJoin('SELECT hole_id, geom FROM drill_holes', 'SELECT body_id, geom FROM ore_bodies');
SET max_parallel_workers_per_gather = 0;
SELECT count(*) AS pairs_serial_read FROM ST_ExactIntersects3DJoin('SELECT hole_id, geom FROM drill_holes', 'SELECT body_id, geom FROM ore_bodies');
RESET max_parallel_workers_per_gather;
\if :with_gpu
-- the GPU join's phases after the same parallel read
SET exactgpu.device = 'gpu';
SELECT count(*) AS pairs_gpu FROM ST_ExactIntersects3DJoin('SELECT hole_id, geom FROM drill_holes', 'SELECT body_id, geom FROM ore_bodies');
SELECT round(read_ms) AS read_ms, round(upload_ms::numeric, 1) AS upload_ms,
	round(prepare_ms::numeric, 1) AS prepare_ms, round(test_ms::numeric, 1) AS test_ms,
	round(exact_ms::numeric, 1) AS exact_ms, round(output_ms::numeric, 1) AS output_ms,
	round(join_ms::numeric, 1) AS join_ms, round(total_ms::numeric, 1) AS total_ms
FROM exactgpu_last_join_stats();
\endif
RESET exactgpu.device;
RESET exactgpu.progress;
SET client_min_messages = warning;
\endif

-- medians over the kept runs (n of them), total's range beside
SELECT r.run, r.device, r.read_path, round(percentile_cont(0.5) WITHIN GROUP (ORDER BY r.read_workers)) AS workers,
	round(percentile_cont(0.5) WITHIN GROUP (ORDER BY r.read_ms)) AS read_ms,
	round((percentile_cont(0.5) WITHIN GROUP (ORDER BY r.read_ms) / f.wall_ms)::numeric, 2) AS read_vs_floor,
	round(percentile_cont(0.5) WITHIN GROUP (ORDER BY r.upload_ms)::numeric, 1) AS upload_ms,
	round(percentile_cont(0.5) WITHIN GROUP (ORDER BY r.join_ms)) AS join_ms,
	round(percentile_cont(0.5) WITHIN GROUP (ORDER BY r.result_ms)) AS result_ms,
	round(percentile_cont(0.5) WITHIN GROUP (ORDER BY r.total_ms)) AS total_ms,
	round(min(r.total_ms)) || '-' || round(max(r.total_ms)) AS total_range, count(*) AS n,
	round(percentile_cont(0.5) WITHIN GROUP (ORDER BY r.wall_ms)) AS wall_ms, min(r.pairs) AS pairs
FROM read_results r,
	(SELECT wall_ms FROM read_results WHERE label = :'label' AND run LIKE 'floor%' ORDER BY at DESC LIMIT 1) f
WHERE r.label = :'label' AND r.at > now() - interval '1 hour' AND r.run NOT LIKE 'floor%'
GROUP BY r.run, r.device, r.read_path, f.wall_ms
ORDER BY min(r.at);
SELECT wall_ms AS floor_ms FROM read_results WHERE label = :'label' AND run LIKE 'floor%' ORDER BY at DESC LIMIT 1;
-- the GPU against the CPU's 16 threads, end to end (medians), per read
SELECT c.run, round((percentile_cont(0.5) WITHIN GROUP (ORDER BY c.total_ms) /
	(SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY g.total_ms) FROM read_results g
	 WHERE g.label = :'label' AND g.run = replace(c.run, 'CPU', 'GPU')))::numeric, 2) AS gpu_speedup
FROM read_results c WHERE c.label = :'label' AND c.run LIKE 'CPU%'
GROUP BY c.run ORDER BY c.run;
SELECT count(DISTINCT pairs) = 1 AS every_run_same_pair_count
FROM read_results WHERE label = :'label' AND pairs IS NOT NULL;
