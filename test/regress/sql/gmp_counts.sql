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
-- The point-in-solid joins: prisms over the triangles (a, a), (b, b), (b, a),
-- a = i + 0.1, b = i + 0.9, z from 0 to 1; the points above lie exactly on
-- their vertical face in the plane x = y, which only GMP certifies (the
-- audit: 0 GMP pairs from these joins on the CPU)
CREATE TABLE gmp_prisms AS
	SELECT i::bigint AS id, format('POLYHEDRALSURFACE Z(((%1$s %1$s 0,%2$s %1$s 0,%2$s %2$s 0,%1$s %1$s 0)),((%1$s %1$s 1,%2$s %2$s 1,%2$s %1$s 1,%1$s %1$s 1)),((%1$s %1$s 0,%2$s %2$s 0,%2$s %2$s 1,%1$s %1$s 1,%1$s %1$s 0)),((%2$s %2$s 0,%2$s %1$s 0,%2$s %1$s 1,%2$s %2$s 1,%2$s %2$s 0)),((%2$s %1$s 0,%1$s %1$s 0,%1$s %1$s 1,%2$s %1$s 1,%2$s %1$s 0)))',
		i + 0.1, i + 0.9)::geometry AS geom
	FROM generate_series(0, 49) i;
CREATE TABLE gmp_points3d AS
	SELECT id, ST_Force3D(geom, 0.5) AS geom FROM gmp_points;
-- every point is on its prism, as the row-level function says
SELECT count(*) AS on_faces FROM gmp_prisms s, gmp_points3d p
WHERE ST_ExactLocate3D(s.geom, p.geom) = 'boundary';
SELECT exactgpu_stats_reset();
SELECT count(*) AS located FROM ST_ExactLocate3DJoin('SELECT id, geom FROM gmp_points3d', 'SELECT id, geom FROM gmp_prisms');
SELECT gmp_pairs > 0 AS gmp_pairs_counted,
       gmp_pairs <= (SELECT exact_evaluations FROM exactgpu_stats()) AS at_most_the_evaluations,
       gmp_pairs <= candidate_pairs AS at_most_the_candidates
FROM exactgpu_last_join_stats();
SELECT exactgpu_stats_reset();
SELECT count(*) AS hits FROM ST_ExactIntersectsSolid3DJoin('SELECT id, geom FROM gmp_prisms', 'SELECT id, geom FROM gmp_points3d');
SELECT gmp_pairs > 0 AS gmp_pairs_counted,
       gmp_pairs <= (SELECT exact_evaluations FROM exactgpu_stats()) AS at_most_the_evaluations
FROM exactgpu_last_join_stats();
-- (the progress NOTICE prints the same field, exact_pairs)
RESET exactgpu.device;
DROP TABLE gmp_segments, gmp_points, gmp_prisms, gmp_points3d;
