-- The GMP counts of CPU joins: exactgpu_last_join_stats().gmp_pairs and the
-- progress NOTICE count the pairs that needed GMP (the audit: 0 while
-- exactgpu_stats() counted 10^6 GMP evaluations).
SET exactgpu.device = cpu;
-- points exactly on the line x = y, inside segments of that line: each
-- orientation is exactly zero, but the differences of 0.1-steps are
-- inexact, so the interval filter cannot certify it and GMP decides
CREATE TABLE gmp_segments AS
	SELECT i::bigint AS id, ST_MakeLine(ST_MakePoint(i + 0.1, i + 0.1), ST_MakePoint(i + 0.9, i + 0.9)) AS geom
	FROM generate_series(0, 49) i;
CREATE TABLE gmp_points AS
	SELECT (i * 100 + k)::bigint AS id, ST_MakePoint(i + k / 10.0, i + k / 10.0) AS geom
	FROM generate_series(0, 49) i, generate_series(3, 7, 4) k;
SELECT exactgpu_stats_reset();
SELECT count(*) AS hits FROM ST_ExactIntersectsJoin('SELECT id, geom FROM gmp_segments', 'SELECT id, geom FROM gmp_points');
SELECT gmp_pairs > 0 AS gmp_pairs_counted,
       gmp_pairs <= (SELECT exact_evaluations FROM exactgpu_stats()) AS at_most_the_evaluations,
       gmp_pairs <= candidate_pairs AS at_most_the_candidates
FROM exactgpu_last_join_stats();
SELECT (SELECT exact_evaluations FROM exactgpu_stats()) > 0 AS gmp_evaluated;
-- the same through the 3D join of the same shapes
SELECT exactgpu_stats_reset();
SELECT count(*) AS hits FROM ST_ExactIntersects3DJoin('SELECT id, geom FROM gmp_segments', 'SELECT id, geom FROM gmp_points');
SELECT gmp_pairs > 0 AS gmp_pairs_counted,
       gmp_pairs <= (SELECT exact_evaluations FROM exactgpu_stats()) AS at_most_the_evaluations
FROM exactgpu_last_join_stats();
-- (the progress NOTICE prints the same field, exact_pairs)
RESET exactgpu.device;
DROP TABLE gmp_segments, gmp_points;
