-- Intercept depths from M (measured depth) when the hole has it, from the
-- first vertex otherwise; the pieces' geometries carry the hole's SRID
-- (issue 30). A 4 m cube [0, 4]^3; a vertical hole from z = 5 to z = -1
-- enters at z = 4 and leaves at z = 0: 1 m and 5 m along it.
SET exactgpu.device = 'cpu';
CREATE TABLE idp_body AS SELECT ST_SetSRID('TIN Z (((0 0 0,0 4 0,4 4 0,0 0 0)),((0 0 0,4 4 0,4 0 0,0 0 0)),
	((0 0 4,4 0 4,4 4 4,0 0 4)),((0 0 4,4 4 4,0 4 4,0 0 4)),((0 0 0,4 0 0,4 0 4,0 0 0)),((0 0 0,4 0 4,0 0 4,0 0 0)),
	((4 0 0,4 4 0,4 4 4,4 0 0)),((4 0 0,4 4 4,4 0 4,4 0 0)),((4 4 0,0 4 0,0 4 4,4 4 0)),((4 4 0,0 4 4,4 4 4,4 4 0)),
	((0 4 0,0 0 0,0 0 4,0 4 0)),((0 4 0,0 0 4,0 4 4,0 4 0)))'::geometry, 32750) AS geom;
-- No M: depths along the hole.
SELECT i.* FROM idp_body, ST_ExactIntercepts3D(ST_SetSRID('LINESTRING Z (1 1 5, 1 1 -1)'::geometry, 32750), geom) i;
-- M from 100 at the collar to 112 at the toe (2 m of depth per metre of
-- hole, as a survey would give it): the contacts at 1/6 and 5/6 of the way
-- are at 102 and 110.
SELECT i.* FROM idp_body, ST_ExactIntercepts3D(ST_SetSRID('LINESTRING ZM (1 1 5 100, 1 1 -1 112)'::geometry, 32750), geom) i;
-- Stored toe first (M decreasing): the same depths, from the shallower end,
-- entry at the top of the body.
SELECT from_m, to_m, length_m, kind, entry_contact, exit_contact, ST_AsText(entry_point) AS entry,
       ST_AsText(exit_point) AS exit, ST_AsText(piece) AS piece
FROM idp_body, ST_ExactInterceptPieces3D(ST_SetSRID('LINESTRING ZM (1 1 -1 112, 1 1 5 100)'::geometry, 32750), geom);
-- Without M, toe first: depths from the first vertex (the toe), as documented.
SELECT i.* FROM idp_body, ST_ExactIntercepts3D(ST_SetSRID('LINESTRING Z (1 1 -1, 1 1 5)'::geometry, 32750), geom) i;
-- The three geometries carry the hole's SRID and are geometry values.
SELECT ST_SRID(entry_point) AS entry_srid, ST_SRID(exit_point) AS exit_srid, ST_SRID(piece) AS piece_srid,
       GeometryType(entry_point) AS entry_type, GeometryType(piece) AS piece_type,
       pg_typeof(entry_point) AS typ, ST_M(ST_StartPoint(piece)) AS piece_m_start, ST_M(ST_EndPoint(piece)) AS piece_m_end
FROM idp_body, ST_ExactInterceptPieces3D(ST_SetSRID('LINESTRING ZM (1 1 5 100, 1 1 -1 112)'::geometry, 32750), geom);
-- Typed columns for clients (GDAL, QGIS) come from a cast in a view.
CREATE VIEW idp_pieces AS
SELECT from_m, to_m, entry_point::geometry(PointZ, 32750) AS entry_point,
       piece::geometry(LineStringZM, 32750) AS piece
FROM idp_body, ST_ExactInterceptPieces3D(ST_SetSRID('LINESTRING ZM (1 1 5 100, 1 1 -1 112)'::geometry, 32750), geom);
SELECT f_geometry_column, type, srid, coord_dimension FROM geometry_columns WHERE f_table_name = 'idp_pieces' ORDER BY 1;
-- A MULTILINESTRING hole whose M runs on across its parts.
SELECT i.* FROM idp_body, ST_ExactIntercepts3D(ST_SetSRID('MULTILINESTRING ZM ((1 1 5 100, 1 1 2 106), (1 1 2 106, 1 1 -1 112))'::geometry, 32750), geom) i;
-- The batch form reads M too.
CREATE TABLE idp_holes AS SELECT 1 AS id, ST_SetSRID('LINESTRING ZM (1 1 5 100, 1 1 -1 112)'::geometry, 32750) AS geom
	UNION ALL SELECT 2, ST_SetSRID('LINESTRING ZM (2 2 -1 112, 2 2 5 100)'::geometry, 32750);
SELECT * FROM ST_ExactIntercepts3DJoin('SELECT id, geom FROM idp_holes', 'SELECT 9, geom FROM idp_body') ORDER BY 1;
-- M that is no depth is refused.
SELECT i.* FROM idp_body, ST_ExactIntercepts3D(ST_SetSRID('LINESTRING ZM (1 1 5 100, 1 1 2 90, 1 1 -1 112)'::geometry, 32750), geom) i;
SELECT i.* FROM idp_body, ST_ExactIntercepts3D(ST_SetSRID('MULTILINESTRING ZM ((1 1 5 100, 1 1 2 106), (1 1 2 107, 1 1 -1 112))'::geometry, 32750), geom) i;
DROP VIEW idp_pieces;
DROP TABLE idp_body, idp_holes;
