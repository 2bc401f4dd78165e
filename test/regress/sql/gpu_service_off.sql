-- Without exactgpu in shared_preload_libraries there is no GPU service:
-- the view says so, lists no GPU, and joins run in the backend as ever
-- (test/service/run.sh tests the service on a cluster that preloads it).
SELECT running, pid, state, gpus, joins_served FROM exactgpu_gpu_service;
SELECT count(*) AS gpus_listed FROM exactgpu_gpu_service_devices();
SET exactgpu.gpu_min_primitives = 0;
SELECT count(*) FROM ST_ExactIntersects3DJoin(
	'SELECT 1, ''LINESTRING Z (0 0 -1, 0 0 1)''::geometry',
	'SELECT 2, ''TIN Z (((-1 -1 0, 1 -1 0, 0 1 0, -1 -1 0)))''::geometry');
SELECT device NOT LIKE '%via the GPU service%' AS in_the_backend FROM exactgpu_last_join_stats();
