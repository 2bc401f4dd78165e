-- The join options take effect in every batch path (the one driver,
-- join_driver.c): the SQL joins, the box joins, the intercepts joins, the
-- custom scans and the validity functions' self-join. Under
-- exactgpu.device = auto a join of fewer primitives (or boxes) than
-- exactgpu.gpu_min_primitives runs on the CPU, and
-- exactgpu_last_join_stats().device says why; at 0 the engine picks the
-- device itself (the GPU where there is one, the CPU here, with no reason
-- of ours). exactgpu.worker_threads shows in the threads the CPU ran.
CREATE TABLE jo_bodies (id bigint, geom geometry);
INSERT INTO jo_bodies VALUES
	(1, 'POLYHEDRALSURFACE Z(((0 0 0, 0 1 0, 1 1 0, 1 0 0, 0 0 0)), ((0 0 1, 1 0 1, 1 1 1, 0 1 1, 0 0 1)),
	  ((0 0 0, 1 0 0, 1 0 1, 0 0 1, 0 0 0)), ((0 1 0, 0 1 1, 1 1 1, 1 1 0, 0 1 0)),
	  ((0 0 0, 0 0 1, 0 1 1, 0 1 0, 0 0 0)), ((1 0 0, 1 1 0, 1 1 1, 1 0 1, 1 0 0)))'),
	(2, 'POLYHEDRALSURFACE Z(((2 0 0, 2 1 0, 3 1 0, 3 0 0, 2 0 0)), ((2 0 1, 3 0 1, 3 1 1, 2 1 1, 2 0 1)),
	  ((2 0 0, 3 0 0, 3 0 1, 2 0 1, 2 0 0)), ((2 1 0, 2 1 1, 3 1 1, 3 1 0, 2 1 0)),
	  ((2 0 0, 2 0 1, 2 1 1, 2 1 0, 2 0 0)), ((3 0 0, 3 1 0, 3 1 1, 3 0 1, 3 0 0)))');
CREATE TABLE jo_holes AS
	SELECT x::bigint AS id, ST_MakeLine(ST_MakePoint(x * 0.5, 0.5, 2), ST_MakePoint(x * 0.5, 0.5, -1)) AS geom
	FROM generate_series(0, 7) x;
SET exactgpu.worker_threads = 1;

-- below exactgpu.gpu_min_primitives (65536 by default): the CPU, and why
SET exactgpu.gpu_min_primitives = 65536;
SELECT count(*) FROM ST_ExactIntersects3DJoin('SELECT id, geom FROM jo_holes', 'SELECT id, geom FROM jo_bodies');
SELECT semantics, device FROM exactgpu_last_join_stats();
SELECT count(*) FROM ST_3DBoxJoin('SELECT id, geom FROM jo_holes', 'SELECT id, geom FROM jo_bodies');
SELECT semantics, device FROM exactgpu_last_join_stats();
SELECT count(*) FROM ST_ExactIntercepts3DJoin('SELECT id, geom FROM jo_holes', 'SELECT id, geom FROM jo_bodies');
SELECT semantics, device FROM exactgpu_last_join_stats();
-- (ST_ExactIsValidSolid's verdict comes from the engine's solid check,
-- which takes these options too but reports no join of its own: the
-- validity path shown is ST_ExactSelfIntersections3D's self-join)
SELECT ST_ExactIsValidSolid(geom) FROM jo_bodies WHERE id = 1;
SELECT count(*) FROM ST_ExactSelfIntersections3D((SELECT geom FROM jo_bodies WHERE id = 2));
SELECT semantics, device FROM exactgpu_last_join_stats();
-- the custom scans, below it too
SET exactgpu.enable_batch_join = on;
SELECT count(*) FROM jo_holes h JOIN jo_bodies b ON ST_ExactIntersects3D(h.geom, b.geom);
SELECT semantics, device FROM exactgpu_last_join_stats();
SELECT count(*) FROM jo_holes h JOIN jo_bodies b ON h.geom &&& b.geom;
SELECT semantics, device FROM exactgpu_last_join_stats();

-- at 0 no join is below it: the device is the engine's choice in every path
SET exactgpu.gpu_min_primitives = 0;
SELECT count(*) FROM ST_ExactIntersects3DJoin('SELECT id, geom FROM jo_holes', 'SELECT id, geom FROM jo_bodies');
SELECT semantics, device LIKE '%gpu_min_primitives%' AS below_minimum FROM exactgpu_last_join_stats();
SELECT count(*) FROM ST_3DBoxJoin('SELECT id, geom FROM jo_holes', 'SELECT id, geom FROM jo_bodies');
SELECT semantics, device LIKE '%gpu_min_primitives%' AS below_minimum FROM exactgpu_last_join_stats();
SELECT count(*) FROM ST_ExactIntercepts3DJoin('SELECT id, geom FROM jo_holes', 'SELECT id, geom FROM jo_bodies');
SELECT semantics, device LIKE '%gpu_min_primitives%' AS below_minimum FROM exactgpu_last_join_stats();
SELECT ST_ExactIsValidSolid(geom) FROM jo_bodies WHERE id = 1;
SELECT count(*) FROM ST_ExactSelfIntersections3D((SELECT geom FROM jo_bodies WHERE id = 2));
SELECT semantics, device LIKE '%gpu_min_primitives%' AS below_minimum FROM exactgpu_last_join_stats();

-- exactgpu.device = cpu: the setting's device, no reason added
SET exactgpu.gpu_min_primitives = 65536;
SET exactgpu.device = cpu;
SELECT count(*) FROM ST_3DBoxJoin('SELECT id, geom FROM jo_holes', 'SELECT id, geom FROM jo_bodies');
SELECT semantics, device FROM exactgpu_last_join_stats();
SELECT count(*) FROM ST_ExactIntercepts3DJoin('SELECT id, geom FROM jo_holes', 'SELECT id, geom FROM jo_bodies');
SELECT semantics, device FROM exactgpu_last_join_stats();
SELECT ST_ExactIsValidSolid(geom) FROM jo_bodies WHERE id = 1;
RESET exactgpu.device;
RESET exactgpu.gpu_min_primitives;
RESET exactgpu.worker_threads;
RESET exactgpu.enable_batch_join;
DROP TABLE jo_holes, jo_bodies;
