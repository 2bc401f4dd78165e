-- test/probe_diff/adversarial.sql: random inputs built to hit the exact
-- predicates' degenerate cases, one input per seed (pd_make_adversarial).
--
-- Every coordinate is a double chosen so that the contacts are exact:
-- bodies have small integer (or dyadic) vertices, optionally shifted to
-- UTM-sized coordinates (500000, 7000000) where the shift keeps them
-- exact; the rows go through points of a pool taken from the bodies
-- themselves: vertices, edge midpoints (a + b) / 2 and face points
-- (a + b + 2c) / 4 (exact in doubles, so exactly on the edge / in the face's
-- plane), the same moved by one ulp, lattice points. So rows touch bodies
-- at vertices, run along edges, lie in faces' planes, end on faces, and
-- miss by one ulp, as often as they cross. Deliberate rows add the named
-- cases (a hole through many bodies, boxes meeting only at a face, nested
-- bodies, a cavity, empty geometries, NULL geometries).
-- Tables (k: the id, of a random type per table, in random order; geom):
--   pd_solids  closed bodies (TIN Z, POLYHEDRALSURFACE Z)
--   pd_holes   3D rows: lines, polylines, multilines, points, small
--              polygons, collections, empties
--   pd_points  3D points
--   pd_areas   2D areas: polygons (with holes), multipolygons, a TIN
--   pd_rows2d  2D rows: segments, points, small polygons, empties

-- a point as float8[3]
CREATE FUNCTION pd_tri(a float8[], b float8[], c float8[]) RETURNS text
LANGUAGE sql IMMUTABLE AS $$
	SELECT format('((%s %s %s, %s %s %s, %s %s %s, %s %s %s))',
		a[1], a[2], a[3], b[1], b[2], b[3], c[1], c[2], c[3], a[1], a[2], a[3])
$$;

-- the six faces of a box, outward, each as 4 corners
CREATE FUNCTION pd_box_quads(x0 float8, y0 float8, z0 float8, x1 float8, y1 float8, z1 float8)
RETURNS float8[][] LANGUAGE sql IMMUTABLE AS $$
	SELECT ARRAY[
		[x0, y0, z0, x0, y1, z0, x1, y1, z0, x1, y0, z0],
		[x0, y0, z1, x1, y0, z1, x1, y1, z1, x0, y1, z1],
		[x0, y0, z0, x1, y0, z0, x1, y0, z1, x0, y0, z1],
		[x0, y1, z0, x0, y1, z1, x1, y1, z1, x1, y1, z0],
		[x0, y0, z0, x0, y0, z1, x0, y1, z1, x0, y1, z0],
		[x1, y0, z0, x1, y1, z0, x1, y1, z1, x1, y0, z1]]
$$;

-- a box's 12 triangles (reversed: facing in, for a cavity)
CREATE FUNCTION pd_box_tris(x0 float8, y0 float8, z0 float8, x1 float8, y1 float8, z1 float8,
	reversed boolean DEFAULT false) RETURNS text[]
LANGUAGE plpgsql IMMUTABLE AS $$
DECLARE
	q float8[][] := pd_box_quads(x0, y0, z0, x1, y1, z1);
	t text[] := '{}';
	p1 float8[]; p2 float8[]; p3 float8[]; p4 float8[];
BEGIN
	FOR f IN 1..6 LOOP
		p1 := ARRAY[q[f][1], q[f][2], q[f][3]];
		p2 := ARRAY[q[f][4], q[f][5], q[f][6]];
		p3 := ARRAY[q[f][7], q[f][8], q[f][9]];
		p4 := ARRAY[q[f][10], q[f][11], q[f][12]];
		IF reversed THEN
			t := t || pd_tri(p1, p3, p2) || pd_tri(p1, p4, p3);
		ELSE
			t := t || pd_tri(p1, p2, p3) || pd_tri(p1, p3, p4);
		END IF;
	END LOOP;
	RETURN t;
END $$;

CREATE FUNCTION pd_box_psurf(x0 float8, y0 float8, z0 float8, x1 float8, y1 float8, z1 float8)
RETURNS geometry LANGUAGE sql IMMUTABLE AS $$
	SELECT ST_GeomFromText('POLYHEDRALSURFACE Z (' || string_agg(format(
		'((%s %s %s, %s %s %s, %s %s %s, %s %s %s, %s %s %s))',
		q[f][1], q[f][2], q[f][3], q[f][4], q[f][5], q[f][6], q[f][7], q[f][8], q[f][9],
		q[f][10], q[f][11], q[f][12], q[f][1], q[f][2], q[f][3]), ', ' ORDER BY f) || ')')
	FROM (SELECT pd_box_quads(x0, y0, z0, x1, y1, z1) AS q) s, generate_series(1, 6) f
$$;

CREATE FUNCTION pd_tin(t text[]) RETURNS geometry
LANGUAGE sql IMMUTABLE AS $$
	SELECT ST_GeomFromText('TIN Z (' || array_to_string(t, ', ') || ')')
$$;

-- a tetrahedron, faces outward; NULL when flat
CREATE FUNCTION pd_tetra(a float8[], b float8[], c float8[], d float8[]) RETURNS geometry
LANGUAGE plpgsql IMMUTABLE AS $$
DECLARE
	-- numeric: the corners' products under- and overflow doubles
	u numeric[] := ARRAY[b[1]::numeric - a[1]::numeric, b[2]::numeric - a[2]::numeric, b[3]::numeric - a[3]::numeric];
	v numeric[] := ARRAY[c[1]::numeric - a[1]::numeric, c[2]::numeric - a[2]::numeric, c[3]::numeric - a[3]::numeric];
	w numeric[] := ARRAY[d[1]::numeric - a[1]::numeric, d[2]::numeric - a[2]::numeric, d[3]::numeric - a[3]::numeric];
	det numeric := (u[2] * v[3] - u[3] * v[2]) * w[1] + (u[3] * v[1] - u[1] * v[3]) * w[2]
		+ (u[1] * v[2] - u[2] * v[1]) * w[3];
	t float8[];
BEGIN
	IF det = 0 THEN
		RETURN NULL;
	END IF;
	IF det < 0 THEN
		t := b; b := c; c := t;
	END IF;
	RETURN pd_tin(ARRAY[pd_tri(a, c, b), pd_tri(a, b, d), pd_tri(b, c, d), pd_tri(c, a, d)]);
END $$;

-- an octahedron of radius r (integer corners), faces outward
CREATE FUNCTION pd_octa(cx float8, cy float8, cz float8, r float8) RETURNS geometry
LANGUAGE plpgsql IMMUTABLE AS $$
DECLARE
	t text[] := '{}';
	px float8[]; py float8[]; pz float8[];
BEGIN
	FOR sx IN -1..1 BY 2 LOOP FOR sy IN -1..1 BY 2 LOOP FOR sz IN -1..1 BY 2 LOOP
		px := ARRAY[cx + sx * r, cy, cz];
		py := ARRAY[cx, cy + sy * r, cz];
		pz := ARRAY[cx, cy, cz + sz * r];
		t := t || CASE WHEN sx * sy * sz > 0 THEN pd_tri(px, py, pz) ELSE pd_tri(px, pz, py) END;
	END LOOP; END LOOP; END LOOP;
	RETURN pd_tin(t);
END $$;

-- random integer in [lo, hi]
CREATE FUNCTION pd_rint(lo int, hi int) RETURNS int
LANGUAGE sql VOLATILE AS $$ SELECT lo + floor(random() * (hi - lo + 1))::int $$;

-- the id expression of row number n for a key type (ids in no useful order)
CREATE FUNCTION pd_key(t text, n bigint) RETURNS text
LANGUAGE sql IMMUTABLE AS $$
	SELECT CASE t
		WHEN 'integer' THEN (n * 37 - 500)::text
		WHEN 'bigint' THEN (n * 8589934592 + 7)::text
		WHEN 'numeric' THEN (n / 3.0)::text
		WHEN 'uuid' THEN md5(n::text)::uuid::text
		ELSE 'r' || left(md5(n::text), 6) || '-' || n END
$$;

-- (re)create table tab (k key_type, geom) from the geometries of staging
-- table src (column g), ids in random order; storage: how geom is stored
CREATE FUNCTION pd_fill(tab text, src text, key_type text, storage text) RETURNS void
LANGUAGE plpgsql AS $$
BEGIN
	EXECUTE format('DROP TABLE IF EXISTS %I', tab);
	EXECUTE format('CREATE TABLE %I (k %s, geom geometry)', tab, key_type);
	EXECUTE format('ALTER TABLE %I ALTER COLUMN geom SET STORAGE %s', tab, storage);
	EXECUTE format('INSERT INTO %I SELECT pd_key(%L, n)::%s, g FROM (SELECT g, row_number() OVER (ORDER BY random()) AS n FROM %I) s ORDER BY random()',
		tab, key_type, key_type, src);
	EXECUTE format('ANALYZE %I', tab);
END $$;

CREATE FUNCTION pd_random_key_type() RETURNS text
LANGUAGE sql VOLATILE AS $$
	SELECT (ARRAY['integer', 'bigint', 'text', 'numeric', 'uuid', 'integer'])[pd_rint(1, 6)]
$$;

-- the neighbouring double of x, up (dir > 0) or down: the smallest power
-- of two that moves x moves it to its neighbour
CREATE FUNCTION pd_ulp(x float8, dir int) RETURNS float8
LANGUAGE plpgsql IMMUTABLE AS $$
DECLARE
	s float8 := CASE WHEN x = 0 THEN 2::float8 ^ -60
		ELSE 2::float8 ^ (floor(ln(abs(x)) / ln(2))::int - 55) END;
BEGIN
	WHILE x + sign(dir) * s = x LOOP
		s := 2 * s;
	END LOOP;
	RETURN x + sign(dir) * s;
END $$;

CREATE FUNCTION pd_make_adversarial(seed int, store boolean) RETURNS text
LANGUAGE plpgsql AS $$
DECLARE
	-- the origin: small, UTM-sized, or UTM-sized and off the integers
	ox float8 := (ARRAY[0, 500000, 500000.25])[1 + seed % 3];
	oy float8 := (ARRAY[0, 7000000, 7000000.5])[1 + seed % 3];
	oz float8 := (ARRAY[0, 0, -300.125])[1 + seed % 3];
	g geometry;
	n int;
	storage text;
	ta float8[]; tb float8[]; tc float8[];
BEGIN
	PERFORM setseed((seed % 1000) / 1000.0);
	storage := CASE WHEN store OR random() < 0.5 THEN 'external' ELSE 'extended' END;
	DROP TABLE IF EXISTS pd_s_solids, pd_s_holes, pd_s_points, pd_s_areas, pd_s_rows2d, pd_pool, pd_pool2d;
	CREATE TEMP TABLE pd_s_solids (g geometry);
	CREATE TEMP TABLE pd_s_holes (g geometry);
	CREATE TEMP TABLE pd_s_points (g geometry);
	CREATE TEMP TABLE pd_s_areas (g geometry);
	CREATE TEMP TABLE pd_s_rows2d (g geometry);

	-- bodies, each in its own 10 m cell along x (cells 0..11), some left out
	-- a box, a TIN or a polyhedral surface, and a box sharing its face x = 4
	IF random() < 0.5 THEN
		INSERT INTO pd_s_solids VALUES (pd_tin(pd_box_tris(ox, oy, oz, ox + 4, oy + 4, oz + 4)));
	ELSE
		INSERT INTO pd_s_solids VALUES (pd_box_psurf(ox, oy, oz, ox + 4, oy + 4, oz + 4));
	END IF;
	IF random() < 0.8 THEN
		INSERT INTO pd_s_solids VALUES (pd_tin(pd_box_tris(ox + 4, oy + pd_rint(0, 1), oz, ox + 8, oy + 4, oz + 4)));
	END IF;
	-- random tetrahedra with integer corners
	FOR i IN 1..pd_rint(1, 3) LOOP
		g := pd_tetra(ARRAY[ox + 20 + pd_rint(0, 8), oy + pd_rint(0, 8), oz + pd_rint(0, 8)],
			ARRAY[ox + 20 + pd_rint(0, 8), oy + pd_rint(0, 8), oz + pd_rint(0, 8)],
			ARRAY[ox + 20 + pd_rint(0, 8), oy + pd_rint(0, 8), oz + pd_rint(0, 8)],
			ARRAY[ox + 20 + pd_rint(0, 8), oy + pd_rint(0, 8), oz + pd_rint(0, 8)]);
		IF g IS NOT NULL THEN
			INSERT INTO pd_s_solids VALUES (g);
		END IF;
	END LOOP;
	-- nested bodies (one inside the other, inner touching the outer's face
	-- half of the time)
	INSERT INTO pd_s_solids VALUES (pd_tin(pd_box_tris(ox + 30, oy, oz, ox + 38, oy + 8, oz + 8)));
	n := pd_rint(0, 1) * 2;
	INSERT INTO pd_s_solids VALUES (pd_tin(pd_box_tris(ox + 30 + n, oy + 2, oz + 2, ox + 34, oy + 4, oz + 4)));
	-- coplanar faces: a cube of n x n squares a face
	INSERT INTO pd_s_solids VALUES (pd_cube(ox + 40, oy, oz, 4, pd_rint(2, 4)));
	-- an octahedron (tilted faces)
	IF random() < 0.8 THEN
		INSERT INTO pd_s_solids VALUES (pd_octa(ox + 54, oy + 2, oz + 2, 2));
	END IF;
	-- a box with a cavity (two shells, the inner one facing in)
	IF random() < 0.7 THEN
		INSERT INTO pd_s_solids VALUES (pd_tin(pd_box_tris(ox + 60, oy, oz, ox + 68, oy + 8, oz + 8)
			|| pd_box_tris(ox + 62, oy + 2, oz + 2, ox + 66, oy + 6, oz + 6, true)));
	END IF;
	-- a row of small boxes (a hole goes through all of them), some touching
	FOR i IN 0..4 LOOP
		n := pd_rint(0, 1);
		INSERT INTO pd_s_solids VALUES (pd_tin(pd_box_tris(ox + 70 + 2 * i + n, oy, oz, ox + 72 + 2 * i, oy + 2, oz + 2)));
	END LOOP;
	-- at the origin 0 only (elsewhere they would be absorbed): a tetrahedron
	-- of side 2^-660 (orientation products underflow, subnormals in
	-- reach) and, some of the time, one of side 2^600 (they overflow), both
	-- in the negative octant, a corner 0 or -0
	IF ox = 0 THEN
		INSERT INTO pd_s_solids VALUES (pd_tetra(ARRAY[-0.0::float8, -0.0::float8, -0.0::float8],
			ARRAY[-(2::float8 ^ -660), 0, 0], ARRAY[0, -(2::float8 ^ -660), 0], ARRAY[0, 0, -(2::float8 ^ -660)]));
		IF random() < 0.3 THEN
			INSERT INTO pd_s_solids VALUES (pd_tetra(ARRAY[-(2::float8 ^ 600), -(2::float8 ^ 600), -(2::float8 ^ 600)],
				ARRAY[-(2::float8 ^ 601), -(2::float8 ^ 600), -(2::float8 ^ 600)],
				ARRAY[-(2::float8 ^ 600), -(2::float8 ^ 601), -(2::float8 ^ 600)],
				ARRAY[-(2::float8 ^ 600), -(2::float8 ^ 600), -(2::float8 ^ 601)]));
		END IF;
	END IF;
	-- a flat sliver: one corner a tiny height over the base's plane
	INSERT INTO pd_s_solids VALUES (pd_tetra(ARRAY[ox + 90, oy, oz], ARRAY[ox + 94, oy, oz],
		ARRAY[ox + 90, oy + 4, oz], ARRAY[ox + 91, oy + 1, pd_ulp(oz, 1)]));
	-- the first body again under another id (the same value), and empty bodies
	INSERT INTO pd_s_solids SELECT s.g FROM pd_s_solids s LIMIT 1;
	INSERT INTO pd_s_solids VALUES ('TIN Z EMPTY'), ('POLYHEDRALSURFACE Z EMPTY');
	-- a heavy body (out of line, kept by the resident store)
	INSERT INTO pd_s_solids VALUES (pd_cube(ox + 100, oy, oz, 4, pd_rint(5, 7)));
	-- a tetrahedron whose box touches the first box's box only at its face
	-- y = 4 (corner (.., 4, ..) is in that face, the rest beyond)
	INSERT INTO pd_s_solids VALUES (pd_tetra(ARRAY[ox + 110, oy + 4, oz + 4], ARRAY[ox + 114, oy + 8, oz],
		ARRAY[ox + 110, oy + 8, oz], ARRAY[ox + 110, oy + 8, oz + 4]));

	-- the pool of points: body corners, edge midpoints, face points, one
	-- ulp off, lattice points
	CREATE TEMP TABLE pd_pool AS
	WITH tris AS (
		SELECT ST_PointN(ST_ExteriorRing(f.geom), 1) AS a, ST_PointN(ST_ExteriorRing(f.geom), 2) AS b,
			ST_PointN(ST_ExteriorRing(f.geom), 3) AS c
		FROM pd_s_solids s, ST_Dump(s.g) f
		ORDER BY random() LIMIT 80),
	base AS (
		SELECT ST_X(a) AS x, ST_Y(a) AS y, ST_Z(a) AS z FROM tris
		UNION ALL SELECT (ST_X(a) + ST_X(b)) / 2, (ST_Y(a) + ST_Y(b)) / 2, (ST_Z(a) + ST_Z(b)) / 2 FROM tris
		UNION ALL SELECT (ST_X(a) + ST_X(b) + 2 * ST_X(c)) / 4, (ST_Y(a) + ST_Y(b) + 2 * ST_Y(c)) / 4,
			(ST_Z(a) + ST_Z(b) + 2 * ST_Z(c)) / 4 FROM tris
		UNION ALL SELECT ox + pd_rint(-1, 116) / 2.0, oy + pd_rint(-2, 18) / 2.0, oz + pd_rint(-2, 18) / 2.0
			FROM generate_series(1, 30)),
	moved AS (
		SELECT x, y, z FROM base
		UNION ALL SELECT pd_ulp(x, d), y, z FROM base, (VALUES (-1), (1)) v(d) WHERE random() < 0.1
		UNION ALL SELECT x, y, pd_ulp(z, d) FROM base, (VALUES (-1), (1)) v(d) WHERE random() < 0.1)
	SELECT DISTINCT x, y, z FROM moved;
	ALTER TABLE pd_pool ADD COLUMN i serial;

	-- rows through pool points: segments, lines beyond both ends, polylines,
	-- multilines, points, triangles, collections
	INSERT INTO pd_s_holes
	SELECT CASE
		WHEN r < 0.45 THEN ST_MakeLine(p, q)
		WHEN r < 0.6 THEN ST_MakeLine(ST_MakePoint(2 * ST_X(p) - ST_X(q), 2 * ST_Y(p) - ST_Y(q), 2 * ST_Z(p) - ST_Z(q)),
			ST_MakePoint(2 * ST_X(q) - ST_X(p), 2 * ST_Y(q) - ST_Y(p), 2 * ST_Z(q) - ST_Z(p)))
		WHEN r < 0.72 THEN ST_MakeLine(ARRAY[p, q, s])
		WHEN r < 0.78 THEN ST_Collect(ST_MakeLine(p, q), ST_MakeLine(s, t))
		WHEN r < 0.84 THEN p
		WHEN r < 0.92 THEN ST_MakePolygon(ST_MakeLine(ARRAY[p, q, s, p]))
		ELSE ST_ForceCollection(ST_Collect(p, ST_MakeLine(q, s))) END
	FROM (SELECT random() AS r,
			(SELECT ST_MakePoint(x, y, z) FROM pd_pool WHERE i = 1 + (j * 7919 + 1) % (SELECT count(*) FROM pd_pool)) AS p,
			(SELECT ST_MakePoint(x, y, z) FROM pd_pool ORDER BY random() + j * 0 LIMIT 1) AS q,
			(SELECT ST_MakePoint(x, y, z) FROM pd_pool ORDER BY random() + j * 0 LIMIT 1) AS s,
			(SELECT ST_MakePoint(x, y, z) FROM pd_pool ORDER BY random() + j * 0 LIMIT 1) AS t
		FROM generate_series(1, 70) j) v
	WHERE p::bytea <> q::bytea;  -- (ST_Equals ignores Z: it would drop the vertical ones)
	-- the named cases against the first box [0, 4]^3 (o + ...)
	INSERT INTO pd_s_holes SELECT ST_Translate(ST_GeomFromText(w), ox, oy, oz) FROM (VALUES
		('LINESTRING Z (-1 -1 -1, 0 0 0)'),          -- touches a corner from outside
		('LINESTRING Z (-1 0 0, 9 0 0)'),            -- along an edge, through two bodies
		('LINESTRING Z (2 -1 -1, 2 1 1)'),           -- crosses an edge at its midpoint
		('LINESTRING Z (-1 2 0, 5 2 0)'),            -- in a face's plane, across it
		('LINESTRING Z (-1 -1 0, -1 5 0)'),          -- in a face's plane, beside it
		('LINESTRING Z (2 2 -1, 2 2 0)'),            -- ends on a face
		('LINESTRING Z (2 2 4, 2 2 9)'),             -- starts on a face
		('LINESTRING Z (4 1 -1, 4 1 5)'),            -- in the face two boxes share
		('LINESTRING Z (-1 1 1, 120 1 1)'),          -- through every cell
		('LINESTRING Z (69 1 1, 82 1 1)'),           -- through the row of small boxes
		('LINESTRING Z (33 3 3, 33.5 3.5 3.5)'),     -- inside the nested inner box
		('LINESTRING Z (64 4 4, 65 4 4)'),           -- in the cavity
		('LINESTRING Z (63 4 4, 66 4 4)'),           -- from the cavity to its wall
		('LINESTRING Z (112 5 2, 112 7 2)'),         -- box meets the tetrahedron's, not it
		('LINESTRING Z (4 4 4, 110 4 4)'),           -- from a corner to the tetrahedron's corner
		('LINESTRING Z (111 4 3, 113 4 1)'),         -- box on the tetrahedron's box face y = 4, not it
		('LINESTRING Z (109 4 4, 111 4 4)'),         -- box on that face, through its corner
		('LINESTRING Z (-2 1 1, 0 3 3)'),            -- box on the box's face x = 0, ends on the face
		('POINT Z (4 4 4)'),
		('LINESTRING ZM (-1 -1 -1 5, 0 0 0 6, 2 -1 0 7)'),  -- with measures, through a corner
		('POINT ZM (2 2 0 1)'),
		('MULTIPOINT Z ((0 0 0), (55 2 2))'),
		('POLYGON Z ((1 1 0, 3 1 0, 3 3 0, 1 1 0))'), -- in a face
		('POLYGON Z ((5 1 0, 6 1 0, 6 2 0, 5 1 0))'), -- in the plane of two faces
		('TRIANGLE Z ((4 -1 1, 4 5 1, 4 2 3, 4 -1 1))'),
		('LINESTRING Z EMPTY'),
		('POINT Z EMPTY')) v(w);
	-- one ulp short of the face z = 0, and one ulp into it
	INSERT INTO pd_s_holes VALUES
		(ST_MakeLine(ST_MakePoint(ox + 2, oy + 2, oz - 1), ST_MakePoint(ox + 2, oy + 2, pd_ulp(oz, -1)))),
		(ST_MakeLine(ST_MakePoint(ox + 2, oy + 2, oz - 1), ST_MakePoint(ox + 2, oy + 2, pd_ulp(oz, 1)))),
		(ST_MakeLine(ST_MakePoint(pd_ulp(ox, -1), oy - 1, oz + 1), ST_MakePoint(pd_ulp(ox, -1), oy + 5, oz + 1))),
		(NULL),
		-- a subnormal short of the face x = 0, -0 on it, and through the tiny
		-- tetrahedron's corner and its face x + y + z = -2^-660
		(ST_MakeLine(ST_MakePoint(-1, oy + 2, oz + 2), ST_MakePoint('-4.9e-324'::float8, oy + 2, oz + 2))),
		(ST_MakeLine(ST_MakePoint(-1, oy + 2, oz + 2), ST_MakePoint('-0'::float8, oy + 2, oz + 2))),
		(ST_MakeLine(ST_MakePoint(-1, -1, -1), ST_MakePoint(1, 1, 1))),
		(ST_MakeLine(ST_MakePoint(-(2::float8 ^ -661), -(2::float8 ^ -661), 1), ST_MakePoint(-(2::float8 ^ -661), -(2::float8 ^ -661), -1))),
		(ST_MakeLine(ST_MakePoint(-(2::float8 ^ -662), -(2::float8 ^ -662), -(2::float8 ^ -662)), ST_MakePoint(1e-300, 1e-300, 1e-300)));

	-- points: pool points, then the named ones
	INSERT INTO pd_s_points SELECT ST_MakePoint(x, y, z) FROM pd_pool ORDER BY random() LIMIT 60;
	INSERT INTO pd_s_points SELECT ST_Translate(ST_GeomFromText(w), ox, oy, oz) FROM (VALUES
		('POINT Z (0 0 0)'), ('POINT Z (2 0 0)'), ('POINT Z (2 2 0)'), ('POINT Z (2 2 2)'),
		('POINT Z (4 2 2)'), ('POINT Z (33 3 3)'), ('POINT Z (31 3 3)'), ('POINT Z (64 4 4)'),
		('POINT Z (62 4 4)'), ('POINT Z (61 4 4)'), ('POINT Z (54 2 2)'), ('POINT Z (55 2 2)'),
		('POINT Z (55 3 3)'), ('POINT Z (55 2.5 2.5)'), ('POINT Z (42 0 2)'), ('POINT Z (41 2 2)'),
		('POINT Z (110 4 4)'), ('POINT Z (112 5 2)'), ('POINT Z (91 1 0)'),
		('POINT Z EMPTY')) v(w);
	INSERT INTO pd_s_points VALUES
		(ST_MakePoint(pd_ulp(ox, -1), oy + 2, oz + 2)), (ST_MakePoint(pd_ulp(ox, 1), oy + 2, oz + 2)),
		(ST_MakePoint(ox + 91, oy + 1, pd_ulp(oz, 1))), (ST_MakePoint(ox + 91, oy + 1, pd_ulp(pd_ulp(oz, 1), 1))),
		(ST_MakePoint(ox + 91, oy + 1, pd_ulp(oz, -1))), (NULL),
		(ST_MakePoint('-0'::float8, oy + 2, oz + 2)), (ST_MakePoint('-4.9e-324'::float8, oy + 2, oz + 2)),
		(ST_MakePoint('4.9e-324'::float8, '4.9e-324'::float8, '4.9e-324'::float8)),
		(ST_MakePoint(-(2::float8 ^ -662), -(2::float8 ^ -662), -(2::float8 ^ -662))),
		(ST_MakePoint(-(2::float8 ^ -661), -(2::float8 ^ -661), '-0'::float8)),
		(ST_MakePoint(-(2::float8 ^ -661), -(2::float8 ^ -661), -(2::float8 ^ -1074))),
		(ST_MakePoint(-(2::float8 ^ -661), -(2::float8 ^ -661), 2::float8 ^ -1074)),
		(ST_MakePoint(-(2::float8 ^ 600) * 1.25, -(2::float8 ^ 600) * 1.25, -(2::float8 ^ 600) * 1.25));

	-- 2D areas: a square and one sharing its edge x = 4, a random triangle, a
	-- square with a hole, squares touching at a corner, a star of many
	-- vertices, a TIN whose upright faces are segments in 2D
	INSERT INTO pd_s_areas SELECT ST_Translate(ST_GeomFromText(w), ox, oy) FROM (VALUES
		('POLYGON ((0 0, 4 0, 4 4, 0 4, 0 0))'),
		('POLYGON ((4 1, 8 1, 8 4, 4 4, 4 1))'),
		('POLYGON ((20 0, 28 0, 28 8, 20 8, 20 0), (22 2, 22 6, 26 6, 26 2, 22 2))'),
		('MULTIPOLYGON (((30 0, 32 0, 32 2, 30 2, 30 0)), ((32 2, 34 2, 34 4, 32 4, 32 2)))'),
		-- a hole touching the outer ring at a corner
		('POLYGON ((36 0, 40 0, 40 4, 36 4, 36 0), (36 0, 38 1, 38 2, 36 0))')) v(w);
	LOOP
		ta := ARRAY[ox + 10 + pd_rint(0, 8), oy + pd_rint(0, 8)];
		tb := ARRAY[ox + 10 + pd_rint(0, 8), oy + pd_rint(0, 8)];
		tc := ARRAY[ox + 10 + pd_rint(0, 8), oy + pd_rint(0, 8)];
		EXIT WHEN (tb[1] - ta[1]) * (tc[2] - ta[2]) - (tb[2] - ta[2]) * (tc[1] - ta[1]) <> 0;
	END LOOP;
	INSERT INTO pd_s_areas VALUES (ST_MakePolygon(ST_MakeLine(ARRAY[ST_MakePoint(ta[1], ta[2]),
		ST_MakePoint(tb[1], tb[2]), ST_MakePoint(tc[1], tc[2]), ST_MakePoint(ta[1], ta[2])])));
	INSERT INTO pd_s_areas SELECT ST_MakePolygon(ST_MakeLine(array_agg(p ORDER BY j) || (array_agg(p ORDER BY j))[1]))
		FROM (SELECT j, ST_MakePoint(ox + 45 + (CASE WHEN j % 2 = 0 THEN 4 ELSE 2 END) * round(100 * cos(j * pi() / 20)) / 100,
				oy + 4 + (CASE WHEN j % 2 = 0 THEN 4 ELSE 2 END) * round(100 * sin(j * pi() / 20)) / 100) AS p
			FROM generate_series(0, 39) j) s;
	INSERT INTO pd_s_areas VALUES (pd_cube(ox + 50, oy, oz, 4, 2));

	CREATE TEMP TABLE pd_pool2d AS
	WITH segs AS (
		SELECT ST_PointN(r, j) AS a, ST_PointN(r, j + 1) AS b
		FROM (SELECT ST_ExteriorRing(f.geom) AS r FROM pd_s_areas s, ST_Dump(s.g) f
			UNION ALL SELECT ST_InteriorRingN(f.geom, 1) FROM pd_s_areas s, ST_Dump(s.g) f
			WHERE ST_NumInteriorRings(f.geom) > 0) rings,
			generate_series(1, ST_NPoints(r) - 1) j
		ORDER BY random() LIMIT 60),
	base AS (
		SELECT ST_X(a) AS x, ST_Y(a) AS y FROM segs
		UNION ALL SELECT (ST_X(a) + ST_X(b)) / 2, (ST_Y(a) + ST_Y(b)) / 2 FROM segs
		UNION ALL SELECT (3 * ST_X(a) + ST_X(b)) / 4, (3 * ST_Y(a) + ST_Y(b)) / 4 FROM segs
		UNION ALL SELECT ox + pd_rint(-1, 120) / 2.0, oy + pd_rint(-2, 18) / 2.0 FROM generate_series(1, 25)),
	moved AS (
		SELECT x, y FROM base
		UNION ALL SELECT pd_ulp(x, d), y FROM base, (VALUES (-1), (1)) v(d) WHERE random() < 0.1
		UNION ALL SELECT x, pd_ulp(y, d) FROM base, (VALUES (-1), (1)) v(d) WHERE random() < 0.1)
	SELECT DISTINCT x, y FROM moved;
	ALTER TABLE pd_pool2d ADD COLUMN i serial;
	INSERT INTO pd_s_rows2d
	SELECT CASE
		WHEN r < 0.45 THEN ST_MakeLine(p, q)
		WHEN r < 0.6 THEN ST_MakeLine(ST_MakePoint(2 * ST_X(p) - ST_X(q), 2 * ST_Y(p) - ST_Y(q)),
			ST_MakePoint(2 * ST_X(q) - ST_X(p), 2 * ST_Y(q) - ST_Y(p)))
		WHEN r < 0.7 THEN ST_MakeLine(ARRAY[p, q, s])
		WHEN r < 0.8 THEN p
		WHEN r < 0.9 THEN ST_MakePolygon(ST_MakeLine(ARRAY[p, q, s, p]))
		ELSE ST_Collect(ST_MakeLine(p, q), s) END
	FROM (SELECT random() AS r,
			(SELECT ST_MakePoint(x, y) FROM pd_pool2d WHERE i = 1 + (j * 7919 + 1) % (SELECT count(*) FROM pd_pool2d)) AS p,
			(SELECT ST_MakePoint(x, y) FROM pd_pool2d ORDER BY random() + j * 0 LIMIT 1) AS q,
			(SELECT ST_MakePoint(x, y) FROM pd_pool2d ORDER BY random() + j * 0 LIMIT 1) AS s
		FROM generate_series(1, 70) j) v
	WHERE NOT ST_Equals(p, q);
	INSERT INTO pd_s_rows2d SELECT ST_Translate(ST_GeomFromText(w), ox, oy) FROM (VALUES
		('LINESTRING (-1 -1, 0 0)'),                 -- touches a corner
		('LINESTRING (1 0, 3 0)'),                   -- on an edge
		('LINESTRING (-2 0, 9 0)'),                  -- along an edge, beyond it
		('LINESTRING (4 -3, 4 9)'),                  -- along the shared edge
		('LINESTRING (23 3, 25 5)'),                 -- in the square's hole
		('LINESTRING (22 3, 22 5)'),                 -- on the hole's ring
		('POINT (32 2)'),                            -- where the two squares touch
		('POINT (24 4)'),
		('POLYGON ((-2 0, 0 -2, 0 0, -2 0))'),       -- a triangle touching a corner
		('POLYGON ((21 1, 27 1, 27 7, 21 7, 21 1))'),-- around the hole
		('LINESTRING (-1 1, 200 1)'),                -- through every cell
		('LINESTRING (-3 4, 0 4)'),                  -- box on the square's, ends at its corner
		('LINESTRING (-3 3, 0 2)'),                  -- box on the square's box edge x = 0, ends on it
		('LINESTRING (-3 3, 0 5)'),                  -- box on that edge, the line beside the square
		('POINT EMPTY'), ('LINESTRING EMPTY'), ('POLYGON EMPTY')) v(w);
	INSERT INTO pd_s_rows2d VALUES
		(ST_MakeLine(ST_MakePoint(pd_ulp(ox + 4, 1), oy - 1), ST_MakePoint(pd_ulp(ox + 4, 1), oy + 5))),
		(ST_MakePoint(ox + 2, pd_ulp(oy, -1))), (ST_MakePoint(ox + 2, pd_ulp(oy, 1))), (NULL);

	PERFORM pd_fill('pd_solids', 'pd_s_solids', pd_random_key_type(), storage);
	PERFORM pd_fill('pd_holes', 'pd_s_holes', pd_random_key_type(), storage);
	PERFORM pd_fill('pd_points', 'pd_s_points', pd_random_key_type(), storage);
	PERFORM pd_fill('pd_areas', 'pd_s_areas', pd_random_key_type(), storage);
	PERFORM pd_fill('pd_rows2d', 'pd_s_rows2d', pd_random_key_type(), storage);
	RETURN format('adversarial seed %s (origin %s %s %s, ids %s/%s/%s/%s/%s)', seed, ox, oy, oz,
		pd_key_type('pd_solids'), pd_key_type('pd_holes'), pd_key_type('pd_points'),
		pd_key_type('pd_areas'), pd_key_type('pd_rows2d'));
END $$;
