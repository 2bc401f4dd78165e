-- exactgpu 0.1.0: exact geometric predicates over PostGIS geometries.
\echo Use "CREATE EXTENSION exactgpu CASCADE" to load this file. \quit

-- ---------------------------------------------------------------------------
-- Orientation predicates: the exact sign of a determinant over the input
-- doubles. NULL when a point is empty.
-- ---------------------------------------------------------------------------

-- Sign of (b - a) x (c - a) in the xy plane (Z ignored):
--   1 = counter-clockwise (left turn), -1 = clockwise (right turn), 0 = collinear.
CREATE FUNCTION ST_ExactOrientation2D(a geometry, b geometry, c geometry)
	RETURNS integer
	AS 'MODULE_PATHNAME', 'exactgpu_orientation_2d'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

-- Sign of ((b - a) x (c - a)) . (d - a): 1 when d is on the side the normal of
-- the counter-clockwise triangle abc points to, -1 on the other side, 0 coplanar.
-- Points without Z have z = 0.
CREATE FUNCTION ST_ExactOrientation3D(a geometry, b geometry, c geometry, d geometry)
	RETURNS integer
	AS 'MODULE_PATHNAME', 'exactgpu_orientation_3d'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

-- ---------------------------------------------------------------------------
-- Intersection predicates on closed sets (touching counts). Planner support
-- adds the box-overlap index condition, as PostGIS does for its own.
-- ---------------------------------------------------------------------------

CREATE FUNCTION exactgpu_support_3d(internal)
	RETURNS internal
	AS 'MODULE_PATHNAME', 'exactgpu_support_3d'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE FUNCTION exactgpu_support_2d(internal)
	RETURNS internal
	AS 'MODULE_PATHNAME', 'exactgpu_support_2d'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

-- 3D: points, linework and surfaces (TRIANGLE, TIN, POLYHEDRALSURFACE and
-- planar POLYGON faces); 2D inputs have z = 0.
CREATE FUNCTION ST_ExactIntersects3D(geom1 geometry, geom2 geometry)
	RETURNS boolean
	AS 'MODULE_PATHNAME', 'exactgpu_intersects_3d'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE
	SUPPORT exactgpu_support_3d
	COST 10000;

-- 2D (Z ignored): polygons and triangles are areas, so containment counts.
CREATE FUNCTION ST_ExactIntersects(geom1 geometry, geom2 geometry)
	RETURNS boolean
	AS 'MODULE_PATHNAME', 'exactgpu_intersects_2d'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE
	SUPPORT exactgpu_support_2d
	COST 10000;

-- ---------------------------------------------------------------------------
-- Counters: how often the filters decided and exact arithmetic was needed
-- (this backend, since the last reset).
-- ---------------------------------------------------------------------------

CREATE FUNCTION exactgpu_stats(
	OUT predicates bigint,         -- orientation predicates evaluated on the CPU
	OUT filter_decided bigint,     -- decided by the double interval filter
	OUT exact_evaluations bigint,  -- re-evaluated with GMP
	OUT exact_ms float8,           -- time spent in GMP
	OUT exact_fraction float8,     -- exact_evaluations / predicates
	OUT pair_tests bigint,         -- primitive pairs tested after box culling
	OUT gpu_calls bigint,          -- engine calls that ran on the GPU
	OUT gpu_pair_tests bigint,     -- pair tests run on the GPU
	OUT gpu_unknown bigint)        -- GPU pair tests left to the CPU by the filter
	RETURNS record
	AS 'MODULE_PATHNAME', 'exactgpu_stats'
	LANGUAGE C VOLATILE PARALLEL RESTRICTED;

CREATE FUNCTION exactgpu_stats_reset()
	RETURNS void
	AS 'MODULE_PATHNAME', 'exactgpu_stats_reset'
	LANGUAGE C VOLATILE PARALLEL RESTRICTED;
