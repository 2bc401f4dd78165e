-- Counters let users see how often exact arithmetic was needed.
SELECT exactgpu_stats_reset();
SELECT predicates, filter_decided, exact_evaluations FROM exactgpu_stats();

-- Well-separated inputs: the double interval filter decides everything.
SELECT ST_ExactOrientation3D('POINT Z(0 0 0)', 'POINT Z(1 0 0)', 'POINT Z(0 1 0)', 'POINT Z(0 0 1)');
SELECT predicates > 0 AS counted, filter_decided = predicates AS all_filtered, exact_evaluations
FROM exactgpu_stats();

-- Near-degenerate inputs (Kettner's grid) need GMP: the counters show it.
SELECT exactgpu_stats_reset();
SELECT count(*) FROM generate_series(0, 15) i, generate_series(0, 15) j
WHERE ST_ExactOrientation2D(ST_MakePoint(0.5 + i * 2^(-53), 0.5 + j * 2^(-53)), 'POINT(12 12)', 'POINT(24 24)') = 0;
SELECT predicates, exact_evaluations > 0 AS used_gmp,
       filter_decided + exact_evaluations = predicates AS balanced,
       exact_ms >= 0 AS timed, exact_fraction BETWEEN 0 AND 1 AS fraction_ok
FROM exactgpu_stats();

-- Pair tests count the primitive pairs that passed box culling.
SELECT exactgpu_stats_reset();
SELECT ST_ExactIntersects3D('TIN Z(((0 0 0, 1 0 0, 0 1 0, 0 0 0)))', 'LINESTRING Z(0.2 0.2 1, 0.2 0.2 -1)');
SELECT pair_tests FROM exactgpu_stats();
