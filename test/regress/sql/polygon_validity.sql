-- One validity rule for polygons in every form (issue 16): row-by-row 2D and
-- 3D, the batch joins over SQL text and over ST_ExactBatch. The rule lives in
-- the triangulator, which every form uses:
--   * repeated consecutive points are ignored;
--   * an exterior ring that bounds no area (all its points collinear) makes a
--     degenerate polygon that stands for its rings' linework (PostGIS calls it
--     invalid; we keep it, as zero-area faces of surfaces); no hole of it may
--     bound area;
--   * otherwise every ring is simple (no self-crossing, self-touching or
--     spike), every hole bounds area, lies inside the exterior and outside the
--     other holes, rings meet only at points (a hole may touch the exterior
--     or another hole at a point, as in OGC), and the interior is connected;
--   * anything else is ERROR 22023 with the hint ST_MakeValid, in every form.
-- PostGIS's ST_IsValid and ST_Intersects are the independent cross-check.
CREATE TABLE pv_cases (name text, poly geometry, probe geometry);
INSERT INTO pv_cases VALUES
	-- the audit's two polygons
	('bow-tie (audit)', 'POLYGON((0 0,2 2,2 0,0 2,0 0))', 'POINT(0.5 1)'),
	('bow-tie, probe at the crossing', 'POLYGON((0 0,2 2,2 0,0 2,0 0))', 'POINT(1 1)'),
	('zero-area hole partly outside (audit)', 'POLYGON((0 0,4 0,4 4,0 4,0 0),(2 2,6 2,4 2,2 2))', 'POINT(5 2)'),
	('zero-area hole inside', 'POLYGON((0 0,4 0,4 4,0 4,0 0),(1 1,2 2,3 3,1 1))', 'POINT(2 2)'),
	('one-point hole', 'POLYGON((0 0,4 0,4 4,0 4,0 0),(1 1,1 1,1 1,1 1))', 'POINT(2 2)'),
	('hole crossing the exterior', 'POLYGON((0 0,4 0,4 4,0 4,0 0),(3 1,5 1,5 3,3 3,3 1))', 'POINT(4.5 2)'),
	('hole outside the exterior', 'POLYGON((0 0,4 0,4 4,0 4,0 0),(5 5,6 5,6 6,5 6,5 5))', 'POINT(5.5 5.5)'),
	('hole inside a hole', 'POLYGON((0 0,10 0,10 10,0 10,0 0),(1 1,9 1,9 9,1 9,1 1),(3 3,6 3,6 6,3 6,3 3))', 'POINT(4 4)'),
	('hole along an exterior edge', 'POLYGON((0 0,4 0,4 4,0 4,0 0),(0 1,2 1,2 3,0 3,0 1))', 'POINT(1 2)'),
	('ring touching itself', 'POLYGON((0 0,4 0,2 2,4 4,0 4,2 2,0 0))', 'POINT(1 2)'),
	('spike', 'POLYGON((0 0,4 0,4 2,6 2,4 2,4 4,0 4,0 0))', 'POINT(5 2)'),
	('bow-tie in a multipolygon', 'MULTIPOLYGON(((10 10,11 10,11 11,10 11,10 10)),((0 0,2 2,2 0,0 2,0 0)))', 'POINT(10.5 10.5)'),
	-- valid polygons (OGC), with probes inside, outside and on the boundary
	('hole touching the exterior at a point, probe in the hole', 'POLYGON((0 0,4 0,4 4,0 4,0 0),(0 2,2 1,2 3,0 2))', 'POINT(1 2)'),
	('hole touching the exterior at a point, probe in the polygon', 'POLYGON((0 0,4 0,4 4,0 4,0 0),(0 2,2 1,2 3,0 2))', 'POINT(3 2)'),
	('hole touching the exterior at a point, probe at the touch', 'POLYGON((0 0,4 0,4 4,0 4,0 0),(0 2,2 1,2 3,0 2))', 'POINT(0 2)'),
	('holes touching at a point, probe at the touch', 'POLYGON((0 0,10 0,10 10,0 10,0 0),(2 2,5 2,5 5,2 5,2 2),(5 5,8 5,8 8,5 8,5 5))', 'POINT(5 5)'),
	('holes touching at a point, probe in a hole', 'POLYGON((0 0,10 0,10 10,0 10,0 0),(2 2,5 2,5 5,2 5,2 2),(5 5,8 5,8 8,5 8,5 5))', 'POINT(3 3)'),
	('repeated points', 'POLYGON((0 0,0 0,4 0,4 0,4 4,0 4,0 4,0 0))', 'POINT(2 2)'),
	('collinear vertices', 'POLYGON((0 0,1 0,2 0,3 0,4 0,4 4,0 4,0 2,0 0))', 'POINT(2 0)'),
	('comb, probe between teeth', 'POLYGON((0 0,5 0,5 3,4 3,4 1,3 1,3 3,2 3,2 1,1 1,1 3,0 3,0 0))', 'POINT(3.5 2)'),
	('comb, probe in a tooth', 'POLYGON((0 0,5 0,5 3,4 3,4 1,3 1,3 3,2 3,2 1,1 1,1 3,0 3,0 0))', 'POINT(2.5 2)'),
	-- degenerate exteriors: their linework
	('zero-area exterior, probe on it', 'POLYGON((0 0,1 1,2 2,0 0))', 'POINT(1 1)'),
	('zero-area exterior, probe off it', 'POLYGON((0 0,1 1,2 2,0 0))', 'POINT(1 0)'),
	('zero-area exterior with a hole of area', 'POLYGON((0 0,1 1,2 2,0 0),(0 1,1 2,0 2,0 1))', 'POINT(0.2 1.7)');

-- The outcome of a query: t, f, or the SQLSTATE of its error.
CREATE FUNCTION pg_temp.outcome(q text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE r boolean;
BEGIN
	EXECUTE q INTO r;
	RETURN r::text;
EXCEPTION WHEN OTHERS THEN
	RETURN SQLSTATE;
END $$;

CREATE TEMP TABLE pv_outcomes AS
SELECT name,
	pg_temp.outcome(format('SELECT ST_ExactIntersects(%L::geometry, %L::geometry)', poly, probe)) AS row2d,
	pg_temp.outcome(format('SELECT ST_ExactIntersects3D(%L::geometry, %L::geometry)', poly, probe)) AS row3d,
	pg_temp.outcome(format('SELECT count(*) > 0 FROM ST_ExactIntersectsJoin(%L, %L)',
		format('SELECT 1::bigint, %L::geometry', poly), format('SELECT 2::bigint, %L::geometry', probe))) AS join2d,
	pg_temp.outcome(format('SELECT count(*) > 0 FROM ST_ExactIntersects3DJoin(%L, %L)',
		format('SELECT 1::bigint, %L::geometry', poly), format('SELECT 2::bigint, %L::geometry', probe))) AS join3d,
	pg_temp.outcome(format($q$SELECT count(*) > 0 FROM ST_ExactIntersectsJoin(
		(SELECT ST_ExactBatch(1, %L::geometry)), (SELECT ST_ExactBatch(2, %L::geometry)))$q$, poly, probe)) AS batch2d,
	pg_temp.outcome(format($q$SELECT count(*) > 0 FROM ST_ExactIntersects3DJoin(
		(SELECT ST_ExactBatch(1, %L::geometry)), (SELECT ST_ExactBatch(2, %L::geometry)))$q$, poly, probe)) AS batch3d,
	(ST_IsValidDetail(poly)).valid AS postgis_valid,
	ST_Intersects(poly, probe) AS postgis_intersects
FROM pv_cases;

SELECT name, row2d, row3d, join2d, join3d, batch2d, batch3d, postgis_valid, postgis_intersects
FROM pv_outcomes ORDER BY name;

-- Every form gives the same answer or the same error.
SELECT count(*) AS forms_disagree FROM pv_outcomes
WHERE row2d <> ALL (ARRAY[row3d, join2d, join3d, batch2d, batch3d])
   OR row3d <> join2d OR row3d <> join3d OR row3d <> batch2d OR row3d <> batch3d;
-- Valid in PostGIS: the same answer as PostGIS. Invalid in PostGIS: 22023,
-- except the degenerate exteriors we keep as linework (listed).
SELECT count(*) AS differs_from_postgis FROM pv_outcomes
WHERE postgis_valid AND row2d <> postgis_intersects::text;
SELECT name, row2d FROM pv_outcomes
WHERE NOT postgis_valid AND row2d <> '22023' ORDER BY name;

-- The error itself, with its hint, in a row-by-row and a batch form.
SELECT ST_ExactIntersects('POLYGON((0 0,2 2,2 0,0 2,0 0))', 'POINT(0.5 1)');
SELECT * FROM ST_ExactIntersectsJoin('SELECT 1::bigint, ''POLYGON((0 0,4 0,4 4,0 4,0 0),(2 2,6 2,4 2,2 2))''::geometry',
	'SELECT 2::bigint, ''POINT(5 2)''::geometry');

DROP TABLE pv_cases;
