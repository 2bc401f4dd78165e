-- exactgpu 0.2.0 -> 0.3.0. Every SQL change made to sql/exactgpu.sql after
-- 0.2.0 is repeated here, so that ALTER EXTENSION exactgpu UPDATE gives the
-- same catalog as a fresh install (checked by the regress test `upgrade`,
-- from 0.1.0 and from 0.2.0). sql/exactgpu--0.2.0.sql is 0.2.0 as shipped.
\echo Use "ALTER EXTENSION exactgpu UPDATE TO '0.3.0'" to load this file. \quit

-- ---- drill holes: desurvey, crossings with open surfaces, sections ----
-- (docs/geologists.md). Constructions are rounded and documented; every
-- decision (which face is crossed, through or touch, which face is cut) is
-- exact over the input doubles.

-- The trace of a hole from its collar (POINT Z) and surveys (depth along
-- the hole, azimuth degrees clockwise from grid north, dip degrees negative
-- downward), as a LINESTRING ZM with M = measured depth; step adds points
-- every step metres of depth. Not STRICT: a NULL method, end_depth or step
-- takes the default.
CREATE FUNCTION ST_ExactDesurvey(collar geometry, depths float8[], azimuths float8[],
	dips float8[], method text DEFAULT 'minimum_curvature', end_depth float8 DEFAULT NULL,
	step float8 DEFAULT NULL)
	RETURNS geometry
	AS 'MODULE_PATHNAME', 'exactgpu_desurvey'
	LANGUAGE C IMMUTABLE PARALLEL SAFE;

-- Every crossing of a hole with a surface that need not be closed.
CREATE FUNCTION ST_ExactCrossings3D(hole geometry, surface geometry,
	OUT depth_m float8, OUT to_m float8, OUT kind text, OUT point geometry, OUT face integer)
	RETURNS SETOF record
	AS 'MODULE_PATHNAME', 'exactgpu_crossings_3d'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE
	ROWS 2;

-- The cut of geom by the plane through a, b and c.
CREATE FUNCTION ST_ExactSection(geom geometry, a geometry, b geometry, c geometry)
	RETURNS geometry
	AS 'MODULE_PATHNAME', 'exactgpu_section_3points'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

-- The cut of geom by the vertical plane through the section line's ends.
CREATE FUNCTION ST_ExactSection(geom geometry, section_line geometry, local boolean DEFAULT false)
	RETURNS geometry
	AS 'MODULE_PATHNAME', 'exactgpu_section_vertical'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

COMMENT ON FUNCTION ST_ExactDesurvey(geometry, float8[], float8[], float8[], text, float8, float8) IS
	'Drill-hole trace from a collar POINT Z and surveys (depth, azimuth clockwise from grid north, dip negative down, degrees) as LINESTRING ZM, M = measured depth; method minimum_curvature (default), tangent or balanced_tangent; end_depth extends the last survey; step adds a point every step metres (on the arc for minimum curvature); formulas and operation order fixed (docs/geologists.md)';
COMMENT ON FUNCTION ST_ExactCrossings3D(geometry, geometry) IS
	'Every crossing of a hole (LINESTRING Z/ZM) with a surface (TIN Z, POLYHEDRALSURFACE Z, open or closed): depth (from M when present, else 3D length from the first vertex), kind through/touch/along decided exactly, the point rounded once, the face (1-based)';
COMMENT ON FUNCTION ST_ExactSection(geometry, geometry, geometry, geometry) IS
	'The cut of surfaces and holes by the plane through three POINT Z: MULTILINESTRING Z of cut segments, MULTIPOINT Z of piercings (a GEOMETRYCOLLECTION when both); which faces are cut is exact, new vertices rounded once';
COMMENT ON FUNCTION ST_ExactSection(geometry, geometry, boolean) IS
	'The cut of surfaces and holes by the vertical plane through the section line''s first and last points; local => section coordinates (x along the line from its first point, y = elevation) for drawing';
