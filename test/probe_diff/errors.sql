-- test/probe_diff/errors.sql: bad rows. Each kind of bad row is added to an
-- adversarial input (near the other rows, or far from every box, so that
-- no box meets it), the joins that read it are run with
-- exactgpu.invalid_rows = error (the same SQLSTATE, message and detail with
-- the probe on and off) and = skip (the same pairs and the same rows
-- skipped), and the bad rows are taken out again.

-- Add geometry g to table tab with a fresh id (NULL: a NULL id).
CREATE FUNCTION pd_add_bad(tab text, g geometry, n int, null_id boolean DEFAULT false) RETURNS void
LANGUAGE plpgsql AS $$
BEGIN
	EXECUTE format('INSERT INTO %I VALUES (%s, $1)', tab,
		CASE WHEN null_id THEN 'NULL' ELSE format('%L::%s', pd_key(pd_key_type(tab), 100000 + n), pd_key_type(tab)) END)
		USING g;
END $$;

CREATE FUNCTION pd_remove_bad(tab text) RETURNS void
LANGUAGE plpgsql AS $$
BEGIN
	EXECUTE format('DELETE FROM %I WHERE k IS NULL OR k IN (SELECT pd_key(%L, 100000 + n)::%s FROM generate_series(0, 9) n)',
		tab, pd_key_type(tab), pd_key_type(tab));
END $$;

-- The joins of one bad input, in both modes.
CREATE FUNCTION pd_check_bad(input text, joins text[]) RETURNS void
LANGUAGE plpgsql AS $$
DECLARE
	mode text;
BEGIN
	FOREACH mode IN ARRAY ARRAY['error', 'skip'] LOOP
		IF 'intersects3d' = ANY (joins) THEN
			PERFORM pd_check(input, 'ST_ExactIntersects3DJoin', 'pd_holes', 'pd_solids', 'ST_ExactIntersects3D($L, $R)', false, mode);
			PERFORM pd_check(input, 'ST_ExactIntersects3DJoin', 'pd_solids', 'pd_holes', 'ST_ExactIntersects3D($L, $R)', false, mode);
		END IF;
		IF 'intersects2d' = ANY (joins) THEN
			PERFORM pd_check(input, 'ST_ExactIntersectsJoin', 'pd_holes', 'pd_solids', 'ST_ExactIntersects($L, $R)', false, mode);
			PERFORM pd_check(input, 'ST_ExactIntersectsJoin', 'pd_rows2d', 'pd_areas', 'ST_ExactIntersects($L, $R)', false, mode);
		END IF;
		IF 'volumes' = ANY (joins) THEN
			PERFORM pd_check(input, 'ST_ExactIntersectsSolid3DJoin', 'pd_solids', 'pd_holes', 'ST_ExactIntersectsSolid3D($L, $R)', false, mode);
			PERFORM pd_check(input, 'ST_ExactIntersectsSolid3DJoin', 'pd_solids', 'pd_points', 'ST_ExactIntersectsSolid3D($L, $R)', false, mode);
		END IF;
		IF 'locate' = ANY (joins) THEN
			PERFORM pd_check(input, 'ST_ExactLocate3DJoin', 'pd_points', 'pd_solids',
				'ST_ExactLocate3D($R, $L) <> ''outside''', false, mode, 'ST_ExactIntersectsSolid3D($R, $L)');
		END IF;
	END LOOP;
END $$;

-- Every kind of bad row, near (in the first cell) and far (x + 10^4; store
-- off only).
CREATE FUNCTION pd_check_errors(seed int, store boolean) RETURNS void
LANGUAGE plpgsql AS $$
DECLARE
	input text := pd_make_adversarial(seed, store);
	ox float8;
	oy float8;
	oz float8;
	far float8;
	label text;
	open_box text[];
BEGIN
	-- (not the 2^600 body's corner: there + 1 is absorbed)
	SELECT ST_XMin(e), ST_YMin(e), ST_ZMin(e) INTO ox, oy, oz
		FROM (SELECT ST_3DExtent(geom) AS e FROM pd_solids WHERE ST_XMax(geom) - ST_XMin(geom) < 1e6) s;
	input := 'bad rows, ' || input;
	-- (far from every box in the first phase only, to keep the test short)
	FOREACH far IN ARRAY CASE WHEN store THEN ARRAY[0] ELSE ARRAY[0, 10000] END LOOP
		label := input || CASE WHEN far > 0 THEN ', far' ELSE ', near' END;
		-- an open body (a box missing a face) used as a volume
		open_box := pd_box_tris(ox + far, oy, oz, ox + far + 2, oy + 2, oz + 2);
		PERFORM pd_add_bad('pd_solids', pd_tin(open_box[1:10]), 0);
		PERFORM pd_check_bad(label || ': open body', ARRAY['volumes', 'locate', 'intersects3d']);
		PERFORM pd_remove_bad('pd_solids');
		-- a self-intersecting body: two overlapping boxes in one TIN
		PERFORM pd_add_bad('pd_solids', pd_tin(pd_box_tris(ox + far, oy, oz, ox + far + 2, oy + 2, oz + 2)
			|| pd_box_tris(ox + far + 1, oy + 1, oz + 1, ox + far + 3, oy + 3, oz + 3)), 0);
		PERFORM pd_check_bad(label || ': self-intersecting body', ARRAY['volumes', 'locate']);
		PERFORM pd_remove_bad('pd_solids');
		-- a body with faces that are not planar (one corner of a box raised)
		PERFORM pd_add_bad('pd_solids', ST_GeomFromText(replace(
			ST_AsText(pd_box_psurf(ox + far, oy, oz, ox + far + 2, oy + 2, oz + 2), 17),
			format('%s %s %s', ox + far + 2, oy + 2, oz + 2), format('%s %s %s', ox + far + 2, oy + 2, oz + 3))), 0);
		PERFORM pd_check_bad(label || ': non-planar faces', ARRAY['volumes', 'locate', 'intersects3d']);
		PERFORM pd_remove_bad('pd_solids');
		-- NaN coordinates, in a hole, a point, a 2D row, a body
		PERFORM pd_add_bad('pd_holes', ST_MakeLine(ST_MakePoint(ox + far + 1, oy + 1, oz - 1),
			ST_MakePoint('NaN'::float8, oy + 1, oz + 1)), 0);
		PERFORM pd_add_bad('pd_points', ST_MakePoint(ox + far + 1, 'NaN'::float8, oz + 1), 0);
		PERFORM pd_add_bad('pd_rows2d', ST_MakeLine(ST_MakePoint(ox + far, oy), ST_MakePoint(ox + far + 1, 'NaN'::float8)), 0);
		PERFORM pd_check_bad(label || ': NaN in rows', ARRAY['intersects3d', 'intersects2d', 'volumes', 'locate']);
		PERFORM pd_remove_bad('pd_holes');
		PERFORM pd_remove_bad('pd_points');
		PERFORM pd_remove_bad('pd_rows2d');
		PERFORM pd_add_bad('pd_solids', pd_tetra(ARRAY[ox + far, oy, oz], ARRAY[ox + far + 2, oy, oz],
			ARRAY[ox + far, oy + 2, oz], ARRAY[ox + far, oy, 'NaN'::float8]), 0);
		PERFORM pd_check_bad(label || ': NaN in a body', ARRAY['intersects3d', 'intersects2d', 'volumes', 'locate']);
		PERFORM pd_remove_bad('pd_solids');
		-- mixed SRIDs: one row of each side in another SRID
		PERFORM pd_add_bad('pd_holes', ST_SetSRID(ST_MakeLine(ST_MakePoint(ox + far + 1, oy + 1, oz - 1),
			ST_MakePoint(ox + far + 1, oy + 1, oz + 1)), 32719), 0);
		PERFORM pd_add_bad('pd_points', ST_SetSRID(ST_MakePoint(ox + far + 1, oy + 1, oz + 1), 4326), 0);
		PERFORM pd_add_bad('pd_rows2d', ST_SetSRID(ST_MakePoint(ox + far + 1, oy + 1), 3857), 0);
		PERFORM pd_check_bad(label || ': mixed SRIDs', ARRAY['intersects3d', 'intersects2d', 'volumes', 'locate']);
		PERFORM pd_remove_bad('pd_holes');
		PERFORM pd_remove_bad('pd_points');
		PERFORM pd_remove_bad('pd_rows2d');
		-- rows without Z in a 3D join (a line, a point, an empty collection)
		PERFORM pd_add_bad('pd_holes', ST_MakeLine(ST_MakePoint(ox + far + 1, oy - 1), ST_MakePoint(ox + far + 1, oy + 3)), 0);
		PERFORM pd_add_bad('pd_points', ST_MakePoint(ox + far + 1, oy + 1), 0);
		PERFORM pd_check_bad(label || ': rows without Z', ARRAY['intersects3d', 'volumes', 'locate']);
		PERFORM pd_remove_bad('pd_holes');
		PERFORM pd_remove_bad('pd_points');
		PERFORM pd_add_bad('pd_holes', 'GEOMETRYCOLLECTION EMPTY'::geometry, 0);
		PERFORM pd_check_bad(label || ': empty collection without Z', ARRAY['intersects3d', 'volumes']);
		PERFORM pd_remove_bad('pd_holes');
		-- inside out (every face reversed), and one face reversed
		PERFORM pd_add_bad('pd_solids', pd_tin(pd_box_tris(ox + far, oy, oz, ox + far + 2, oy + 2, oz + 2, true)), 0);
		PERFORM pd_check_bad(label || ': inside-out body', ARRAY['volumes', 'locate']);
		PERFORM pd_remove_bad('pd_solids');
		open_box := pd_box_tris(ox + far, oy, oz, ox + far + 2, oy + 2, oz + 2);
		PERFORM pd_add_bad('pd_solids', pd_tin(open_box[1:11]
			|| (pd_box_tris(ox + far, oy, oz, ox + far + 2, oy + 2, oz + 2, true))[12:12]), 0);
		PERFORM pd_check_bad(label || ': a face reversed', ARRAY['volumes', 'locate']);
		PERFORM pd_remove_bad('pd_solids');
		-- a body inside a collection
		PERFORM pd_add_bad('pd_solids', ST_ForceCollection(pd_tin(pd_box_tris(ox + far, oy, oz, ox + far + 2, oy + 2, oz + 2))), 0);
		PERFORM pd_check_bad(label || ': a body in a collection', ARRAY['volumes', 'locate', 'intersects3d']);
		PERFORM pd_remove_bad('pd_solids');
		-- curves, and measures without Z
		PERFORM pd_add_bad('pd_holes', ST_Translate('CIRCULARSTRING Z (-1 1 1, 1 2 1, 3 1 1)'::geometry, ox + far, oy, oz), 0);
		PERFORM pd_add_bad('pd_rows2d', ST_Translate('CIRCULARSTRING (-1 1, 1 2, 3 1)'::geometry, ox + far, oy), 0);
		PERFORM pd_check_bad(label || ': curves', ARRAY['intersects3d', 'intersects2d', 'volumes']);
		PERFORM pd_remove_bad('pd_holes');
		PERFORM pd_remove_bad('pd_rows2d');
		PERFORM pd_add_bad('pd_holes', ST_Translate('LINESTRING M (-1 1 5, 3 1 6)'::geometry, ox + far, oy), 0);
		PERFORM pd_check_bad(label || ': measures without Z', ARRAY['intersects3d', 'intersects2d', 'volumes']);
		PERFORM pd_remove_bad('pd_holes');
		-- a polygon whose ring touches itself (a spike of no area)
		PERFORM pd_add_bad('pd_areas', ST_Translate('POLYGON ((0 0, 4 0, 4 4, 2 4, 2 7, 2 4, 0 4, 0 0))'::geometry, ox + far, oy), 0);
		PERFORM pd_check_bad(label || ': a ring touching itself', ARRAY['intersects2d']);
		PERFORM pd_remove_bad('pd_areas');
		-- a line where points are wanted
		PERFORM pd_add_bad('pd_points', ST_MakeLine(ST_MakePoint(ox + far + 1, oy + 1, oz - 1),
			ST_MakePoint(ox + far + 1, oy + 1, oz + 1)), 0);
		PERFORM pd_check_bad(label || ': a line among the points', ARRAY['locate']);
		PERFORM pd_remove_bad('pd_points');
		-- a NULL id with a geometry, on the rows' side and on the bodies'
		PERFORM pd_add_bad('pd_holes', ST_MakeLine(ST_MakePoint(ox + far + 1, oy + 1, oz - 1),
			ST_MakePoint(ox + far + 1, oy + 1, oz + 1)), 0, true);
		PERFORM pd_check_bad(label || ': NULL hole id', ARRAY['intersects3d', 'volumes']);
		PERFORM pd_remove_bad('pd_holes');
		PERFORM pd_add_bad('pd_solids', pd_tin(pd_box_tris(ox + far, oy, oz, ox + far + 2, oy + 2, oz + 2)), 0, true);
		PERFORM pd_check_bad(label || ': NULL body id', ARRAY['intersects3d', 'volumes', 'locate']);
		PERFORM pd_remove_bad('pd_solids');
		-- two bad rows: the same one named first
		PERFORM pd_add_bad('pd_holes', ST_MakeLine(ST_MakePoint(ox + far + 1, oy - 1), ST_MakePoint(ox + far + 1, oy + 3)), 1);
		PERFORM pd_add_bad('pd_holes', ST_MakeLine(ST_MakePoint(ox + far + 1, oy + 1, oz - 1),
			ST_MakePoint('NaN'::float8, oy + 1, oz + 1)), 2);
		PERFORM pd_add_bad('pd_solids', pd_tin(open_box[1:10]), 3);
		PERFORM pd_check_bad(label || ': several bad rows', ARRAY['intersects3d', 'volumes']);
		PERFORM pd_remove_bad('pd_holes');
		PERFORM pd_remove_bad('pd_solids');
	END LOOP;
END $$;
