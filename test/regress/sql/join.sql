-- Batch joins: ST_ExactIntersects3DJoin / ST_ExactIntersectsJoin over inner
-- queries and over ST_ExactBatch aggregates. They must return exactly the
-- pairs of the row-by-row predicates, whatever the device and settings.
CREATE TABLE holes (id bigint, geom geometry);
CREATE TABLE bodies (id int, geom geometry);
-- 400 vertical holes on a 5 m grid, and 100 small closed tetrahedra; holes
-- end exactly on faces, pass exactly through vertices and along edges.
INSERT INTO holes
	SELECT i * 20 + j, ST_MakeLine(ST_MakePoint(i * 5 + 0.5, j * 5 + 0.5, 10), ST_MakePoint(i * 5 + 0.5, j * 5 + 0.5, -1 + (i % 3)))
	FROM generate_series(0, 19) i, generate_series(0, 19) j;
INSERT INTO holes VALUES
	(1000, 'LINESTRING Z(0 0 5, 0 0 -5)'),         -- through the vertex (0 0 -1) of body 0
	(1001, 'LINESTRING Z(1 0 -1, 2 0 -1)'),        -- along an edge of body 0
	(1002, 'LINESTRING Z(1 1 5, 1 1 -1)'),         -- ends exactly on the base face of body 0
	(1003, ST_MakeLine(ST_MakePoint(1, 1, 5), ST_MakePoint(1, 1, -1 + 2^(-40)))),  -- stops just above it
	(1004, NULL),                                  -- skipped
	(1005, 'POINT Z(10 10 -1)');                   -- a point at a vertex of body 11
INSERT INTO bodies
	SELECT i * 10 + j, ST_GeomFromText(format(
		'TIN Z(((%1$s %2$s -1, %3$s %2$s -1, %1$s %4$s -1, %1$s %2$s -1)), ((%1$s %2$s -1, %1$s %2$s 1, %3$s %2$s -1, %1$s %2$s -1)), ((%1$s %2$s -1, %1$s %4$s -1, %1$s %2$s 1, %1$s %2$s -1)), ((%3$s %2$s -1, %1$s %2$s 1, %1$s %4$s -1, %3$s %2$s -1)))',
		i * 10, j * 10, i * 10 + 3, j * 10 + 3))
	FROM generate_series(0, 9) i, generate_series(0, 9) j;

CREATE TEMP TABLE row_by_row AS
	SELECT h.id AS left_id, b.id::bigint AS right_id
	FROM holes h JOIN bodies b ON ST_ExactIntersects3D(h.geom, b.geom);
SELECT count(*) AS pairs FROM row_by_row;
SELECT * FROM row_by_row WHERE left_id >= 1000 ORDER BY 1, 2;

-- The SQL-text form, on the default device and forced on the CPU.
CREATE FUNCTION pg_temp.differs(q text) RETURNS bigint LANGUAGE plpgsql AS $$
DECLARE n bigint;
BEGIN
	EXECUTE format('SELECT count(*) FROM ((%s) EXCEPT SELECT * FROM row_by_row) a', q) INTO n;
	RETURN n + (SELECT count(*) FROM (SELECT * FROM row_by_row EXCEPT SELECT * FROM pg_temp.run(q)) b);
END $$;
CREATE FUNCTION pg_temp.run(q text) RETURNS TABLE (l bigint, r bigint) LANGUAGE plpgsql AS $$
BEGIN
	RETURN QUERY EXECUTE q;
END $$;
SELECT pg_temp.differs($$SELECT * FROM ST_ExactIntersects3DJoin('SELECT id, geom FROM holes', 'SELECT id, geom FROM bodies')$$) AS auto_differs;
SET exactgpu.device = 'cpu';
SELECT pg_temp.differs($$SELECT * FROM ST_ExactIntersects3DJoin('SELECT id, geom FROM holes', 'SELECT id, geom FROM bodies')$$) AS cpu_differs;
SET exactgpu.grid_cells = 7;
SET exactgpu.worker_threads = 1;
SELECT pg_temp.differs($$SELECT * FROM ST_ExactIntersects3DJoin('SELECT id, geom FROM holes', 'SELECT id, geom FROM bodies')$$) AS coarse_grid_one_thread_differs;
RESET exactgpu.grid_cells;
RESET exactgpu.worker_threads;
RESET exactgpu.device;
-- Both first stages, on whatever device runs the join (and on the CPU).
SET exactgpu.join_first_stage = 'box_join';
SELECT pg_temp.differs($$SELECT * FROM ST_ExactIntersects3DJoin('SELECT id, geom FROM holes', 'SELECT id, geom FROM bodies')$$) AS box_join_stage_differs;
SET exactgpu.device = 'cpu';
SELECT pg_temp.differs($$SELECT * FROM ST_ExactIntersects3DJoin('SELECT id, geom FROM holes', 'SELECT id, geom FROM bodies')$$) AS cpu_box_join_stage_differs;
SET exactgpu.join_first_stage = 'cell_pairs';
SELECT pg_temp.differs($$SELECT * FROM ST_ExactIntersects3DJoin('SELECT id, geom FROM holes', 'SELECT id, geom FROM bodies')$$) AS cpu_cell_pairs_stage_differs;
RESET exactgpu.device;
RESET exactgpu.join_first_stage;
SET exactgpu.gpu_memory_limit = '64MB';
SET exactgpu.filter_precision = 'double';
SELECT pg_temp.differs($$SELECT * FROM ST_ExactIntersects3DJoin('SELECT id, geom FROM holes', 'SELECT id, geom FROM bodies')$$) AS limited_double_differs;
RESET exactgpu.gpu_memory_limit;
RESET exactgpu.filter_precision;

-- The aggregate form: any SQL feeds a batch.
SELECT pg_temp.differs($$SELECT * FROM ST_ExactIntersects3DJoin(
	(SELECT ST_ExactBatch(id, geom) FROM holes),
	(SELECT ST_ExactBatch(id, geom) FROM bodies))$$) AS batch_differs;
SELECT ST_ExactBatch(id, geom) FROM holes WHERE id >= 1000;
SELECT count(*) AS filtered_pairs FROM ST_ExactIntersects3DJoin(
	(SELECT ST_ExactBatch(id, geom) FROM holes WHERE id >= 1000),
	(SELECT ST_ExactBatch(id, geom) FROM bodies WHERE id < 20));

-- The last join's report.
SELECT device LIKE 'CPU%' OR device LIKE 'NVIDIA%' AS device_named, semantics, left_rows, right_rows,
       candidate_pairs >= primitive_hits AS counts_consistent, row_pairs,
       total_ms >= join_ms AS times_consistent
FROM exactgpu_last_join_stats();

-- 2D: polygons are areas (a point inside counts), Z ignored.
CREATE TABLE parcels (id int, geom geometry);
INSERT INTO parcels VALUES
	(1, 'POLYGON((0 0, 10 0, 10 10, 0 10, 0 0), (3 3, 7 3, 7 7, 3 7, 3 3))'),
	(2, 'MULTIPOLYGON(((20 0, 30 0, 30 10, 20 0)), ((40 40, 41 40, 41 41, 40 40)))'),
	(3, 'LINESTRING(-5 5, 100 5)');
CREATE TABLE wells (id int, geom geometry);
INSERT INTO wells VALUES
	(1, 'POINT(5 5)'),                   -- in the hole of parcel 1
	(2, 'POINT(1 1)'),                   -- inside parcel 1
	(3, 'POINT Z(30 10 -7)'),            -- on parcel 2's vertex, Z ignored
	(4, 'LINESTRING(4 4, 6 6)'),         -- inside the hole
	(5, 'POLYGON((2 2, 8 2, 8 8, 2 8, 2 2))'),   -- around the hole: touches parcel 1
	(6, 'TIN Z(((40.5 40.2 1, 40.9 40.2 1, 40.9 40.6 1, 40.5 40.2 1)))');
SELECT w.id AS well, p.id AS parcel FROM wells w JOIN parcels p ON ST_ExactIntersects(w.geom, p.geom) ORDER BY 1, 2;
SELECT * FROM ST_ExactIntersectsJoin('SELECT id, geom FROM wells', 'SELECT id, geom FROM parcels') ORDER BY 1, 2;
SELECT * FROM ST_ExactIntersectsJoin((SELECT ST_ExactBatch(id, geom) FROM wells),
                                     (SELECT ST_ExactBatch(id, geom) FROM parcels)) ORDER BY 1, 2;

-- Duplicate ids are one object: each (left_id, right_id) pair once.
SELECT * FROM ST_ExactIntersects3DJoin(
	$$SELECT 7, 'POINT Z(0 0 -1)'::geometry UNION ALL SELECT 7, 'POINT Z(3 0 -1)'::geometry$$,
	'SELECT id, geom FROM bodies WHERE id = 0');

-- Empty inputs give no rows.
SELECT count(*) AS none FROM ST_ExactIntersects3DJoin('SELECT id, geom FROM holes WHERE false', 'SELECT id, geom FROM bodies');

-- Bad inner queries.
\set VERBOSITY default
SELECT * FROM ST_ExactIntersects3DJoin('SELECT geom, id FROM holes', 'SELECT id, geom FROM bodies');
SELECT * FROM ST_ExactIntersects3DJoin('SELECT id FROM holes', 'SELECT id, geom FROM bodies');
SELECT * FROM ST_ExactIntersects3DJoin('SELECT NULL::bigint, geom FROM holes', 'SELECT id, geom FROM bodies');
SELECT * FROM ST_ExactIntersects3DJoin('SELECT id, geom FROM no_such_table', 'SELECT id, geom FROM bodies');
SELECT * FROM ST_ExactIntersects3DJoin('SELECT id, ST_SetSRID(geom, 32719) FROM holes', 'SELECT id, geom FROM bodies');
SELECT ST_ExactBatch(NULL, 'POINT(1 1)'::geometry);
SELECT 'x'::exactgpu_batch;

-- exactgpu.device = 'gpu' runs on the GPU or refuses clearly; never silently
-- on the CPU. (The same expected output on machines with and without a GPU.)
DO $$
DECLARE
	gpus int := (SELECT gpus FROM exactgpu_device_info());
	n bigint;
BEGIN
	SET LOCAL exactgpu.device = 'gpu';
	SELECT count(*) INTO n FROM ST_ExactIntersects3DJoin('SELECT id, geom FROM holes', 'SELECT id, geom FROM bodies');
	RAISE NOTICE 'gpu request: %', CASE WHEN gpus > 0 AND n = 75 AND
		(SELECT device NOT LIKE 'CPU%' FROM exactgpu_last_join_stats()) THEN 'as it should' ELSE 'ran without a GPU (wrong)' END;
EXCEPTION WHEN external_routine_exception THEN
	RAISE NOTICE 'gpu request: %', CASE WHEN gpus = 0 THEN 'as it should' ELSE 'refused on a GPU machine (wrong)' END;
END $$;

-- A cancel (here statement_timeout) stops a long join within a second.
CREATE TABLE crowd (id int, geom geometry);
SELECT setseed(0.5);
INSERT INTO crowd SELECT i, ST_MakeLine(ARRAY[
	ST_MakePoint(random(), random(), random()), ST_MakePoint(random(), random(), random()),
	ST_MakePoint(random(), random(), random()), ST_MakePoint(random(), random(), random())])
	FROM generate_series(1, 20000) i;
CREATE FUNCTION pg_temp.cancel_latency() RETURNS text LANGUAGE plpgsql AS $$
DECLARE
	t0 timestamptz := clock_timestamp();
	n bigint;
BEGIN
	SELECT count(*) INTO n FROM ST_ExactIntersects3DJoin('SELECT id, geom FROM crowd', 'SELECT id, geom FROM crowd');
	RETURN 'not canceled';
EXCEPTION WHEN query_canceled THEN
	RETURN CASE WHEN clock_timestamp() - t0 < interval '1.5 s' THEN 'canceled within 1 s of the timeout'
		ELSE 'canceled late: ' || (clock_timestamp() - t0)::text END;
END $$;
SET statement_timeout = '500ms';
SET exactgpu.device = 'cpu';
SELECT pg_temp.cancel_latency();
RESET statement_timeout;
RESET exactgpu.device;

DROP TABLE holes, bodies, parcels, wells, crowd;
