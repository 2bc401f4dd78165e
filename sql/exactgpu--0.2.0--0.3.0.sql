-- exactgpu 0.2.0 -> 0.3.0. Every SQL change made to sql/exactgpu.sql after
-- 0.2.0 is repeated here, so that ALTER EXTENSION exactgpu UPDATE gives the
-- same catalog as a fresh install (checked by the regress test `upgrade`,
-- from 0.1.0 and from 0.2.0). sql/exactgpu--0.2.0.sql is 0.2.0 as shipped.
\echo Use "ALTER EXTENSION exactgpu UPDATE TO '0.3.0'" to load this file. \quit

-- ---- geosolid: valid solids, composites that show unsampled core, intercept depths from M (issue 30) ----
-- Every function that treats a body as a volume refuses, with the reason
-- ST_ExactIsValidSolidReason gives, a body without a well-defined inside
-- (locate, intersects-solid, intercepts, their joins: faces with Z, closed,
-- no overlapping shells) or, for the volume, any body that is no valid
-- solid: on overlapping shells parity gives the symmetric difference and
-- the signed sum counts the overlap twice, not the union. Composites report the unsampled and the overlapping core and
-- refuse overlapping assay intervals unless asked to flag them.
ALTER TYPE exactgpu_composite ADD ATTRIBUTE unsampled_m float8;
ALTER TYPE exactgpu_composite ADD ATTRIBUTE overlap_m float8;

CREATE FUNCTION exactgpu_composite_trans(internal, float8, float8, float8, float8, float8, text)
	RETURNS internal
	AS 'MODULE_PATHNAME', 'exactgpu_composite_trans'
	LANGUAGE C IMMUTABLE PARALLEL SAFE;

CREATE AGGREGATE ST_ExactComposite(assay_from float8, assay_to float8, grade float8,
	from_m float8, to_m float8, overlaps text) (
	SFUNC = exactgpu_composite_trans,
	STYPE = internal,
	FINALFUNC = exactgpu_composite_final,
	PARALLEL = SAFE);

-- "119.5 m @ 5.20 g/t from 134.4 m (114.5 m sampled)": unsampled core is
-- never hidden behind the intercept's length.
CREATE OR REPLACE FUNCTION ST_ExactCompositeLabel(composite exactgpu_composite, unit text DEFAULT 'g/t')
	RETURNS text
	LANGUAGE sql IMMUTABLE PARALLEL SAFE
	SET search_path = pg_catalog
	AS $$
	SELECT CASE WHEN ($1).grade IS NULL THEN NULL
	       ELSE format('%s m @ %s %s from %s m', round(($1).length_m::numeric, 1),
	                   round(($1).grade::numeric, 2), $2, round(($1).from_m::numeric, 1))
	            || CASE WHEN ($1).unsampled_m > 0
	                    THEN format(' (%s m sampled)', round(($1).sampled_m::numeric, 1)) ELSE '' END
	            || CASE WHEN ($1).overlap_m > 0
	                    THEN format(' (%s m of overlapping assays)', round(($1).overlap_m::numeric, 1)) ELSE '' END
	       END
$$;

COMMENT ON TYPE exactgpu_composite IS
'A composite over one intercept: the intercept (from_m, to_m, length_m), the length covered by assays (sampled_m) and by none (unsampled_m), the exact length-weighted grade, the midpoint-rule length and grade for comparison, the assay intervals counted, and the core covered more than once (overlap_m, 0 unless overlaps are flagged)';
COMMENT ON FUNCTION exactgpu_composite_trans(internal, float8, float8, float8, float8, float8, text) IS
'Transition function of ST_ExactComposite with its overlaps option';
COMMENT ON AGGREGATE ST_ExactComposite(float8, float8, float8, float8, float8) IS
'Length-weighted grade of assay intervals (assay_from, assay_to, grade) over one intercept (from_m, to_m): an interval cut by the intercept counts exactly its inside part; sums exact, grade rounded once; sampled_m and unsampled_m say how much core was assayed; midpoint rule beside it. Overlapping or duplicate assay intervals are ERROR 22023 naming two of them (see the six-argument form)';
COMMENT ON AGGREGATE ST_ExactComposite(float8, float8, float8, float8, float8, text) IS
'ST_ExactComposite with overlaps = ''error'' (refuse overlapping or duplicate assay intervals, naming two) or ''flag'' (return the composite, with the core counted more than once in overlap_m and the grade weighted by every interval as given)';
COMMENT ON FUNCTION ST_ExactCompositeLabel(exactgpu_composite, text) IS
'The line geologists read: "10.9 m @ 5.07 g/t from 134.4 m", with "(9.5 m sampled)" when part of the intercept is unsampled and the overlapping length when overlaps were flagged';
COMMENT ON FUNCTION ST_ExactLocate3D(geometry, geometry) IS
	'Where a point is relative to a closed surface (container first): inside, outside or boundary, exactly. ERROR 22023, with the reason, unless the body has a well-defined inside: faces with Z, closed, no overlapping shells (orientation does not matter; shells touching face to face are fine).';
COMMENT ON FUNCTION ST_ExactIntersectsSolid3D(geometry, geometry) IS
	'Does geom meet the closed volume of the closed surface solid (inside or on)? Container first; the PostGIS solid flag plays no part. ERROR 22023, with the reason, unless solid has a well-defined inside (faces with Z, closed, no overlapping shells).';
COMMENT ON FUNCTION ST_ExactVolume(geometry) IS
	'The volume a valid solid (closed, 2-manifold, consistently oriented, not self-intersecting, outward TIN or POLYHEDRALSURFACE) encloses, computed exactly and rounded once; never negative. Anything else is ERROR 22023 with ST_ExactIsValidSolidReason''s reason (inside out: repaired by ST_ExactForceOutward).';
COMMENT ON FUNCTION ST_ExactIsValidSolid(geometry) IS
	'Does the surface bound a valid solid: faces with Z, none degenerate, closed, 2-manifold edges, consistently oriented, not self-intersecting, outward (exact signed volume)? What every volume function requires.';
COMMENT ON FUNCTION ST_ExactIntercepts3D(geometry, geometry) IS
'Depth intervals (from_m, to_m) where a LINESTRING hole (or a MULTILINESTRING whose parts join end to start) lies in the body (with a well-defined inside: closed, no overlapping shells), inside or on it; depths are the hole''s M (measured depth) when it has M, else the 3D length from its first vertex; contacts exact, each depth rounded once; a touch is a zero-length interval';
COMMENT ON FUNCTION ST_ExactInterceptPieces3D(geometry, geometry) IS
'Intercepts of a hole in a body (closed, no overlapping shells) with entry and exit points (POINT Z), contact kinds (start, end, face, edge, vertex), kind (through, along, grazing) and the piece inside (LINESTRING ZM, M = depth); the three geometries carry the hole''s SRID; depths from M when the hole has it. For typed columns (GDAL, QGIS) cast in a view: entry_point::geometry(PointZ, srid), piece::geometry(LineStringZM, srid)';
COMMENT ON FUNCTION ST_ExactIntercepts3DJoin(text, text) IS
'Batch intercepts (hole_id, solid_id, from_m, to_m) of every hole that meets or lies in a body; inner queries return (id integer or bigint, geometry), read by position; bodies are volumes and must be closed without overlapping shells; depths from M when a hole has it';
COMMENT ON FUNCTION ST_ExactInterceptPieces3DJoin(text, text) IS
'Batch form of ST_ExactInterceptPieces3D: (hole_id, body_id) and every intercept with its points, contact kinds and piece; bodies must be closed without overlapping shells; depths from M when a hole has it';
