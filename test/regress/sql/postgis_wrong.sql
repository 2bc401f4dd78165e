-- Cases where PostGIS's floating-point ST_3DIntersects is wrong, answered by
-- exactgpu and checked by an independent exact computation written here in
-- SQL: every double is converted EXACTLY to numeric (decoded from its IEEE
-- bits), and numeric arithmetic (+, -, *) is exact.
--
-- The coordinates are full-precision doubles at UTM scale, as real survey data
-- are; they were found by a random search near degeneracies (a segment
-- starting on a triangle's edge, a point on a segment), and are printed with
-- round-trip precision, so the literals below are the exact doubles.
SET extra_float_digits = 1;

-- The exact value of a double: sign * mantissa * 2^exponent from its bits.
CREATE FUNCTION pg_temp.exact(x float8) RETURNS numeric
LANGUAGE plpgsql IMMUTABLE STRICT AS $$
DECLARE
	b bytea := float8send(x);
	sgn int := get_byte(b, 0) >> 7;
	e int := ((get_byte(b, 0) & 127) << 4) | (get_byte(b, 1) >> 4);
	m numeric := get_byte(b, 1) & 15;
	v numeric;
BEGIN
	FOR k IN 2..7 LOOP
		m := m * 256 + get_byte(b, k);
	END LOOP;
	IF e = 2047 THEN
		RAISE EXCEPTION 'not finite';
	ELSIF e = 0 THEN
		e := 1;                       -- subnormal
	ELSE
		m := m + 4503599627370496;    -- implicit bit, 2^52
	END IF;
	e := e - 1075;
	IF e >= 0 THEN
		v := m * (2::numeric ^ e);
	ELSE                              -- 2^-k = 5^k / 10^k, both exact
		v := m * (5::numeric ^ (-e)) * ('1e' || e)::numeric;
	END IF;
	RETURN CASE WHEN sgn = 1 THEN -v ELSE v END;
END $$;

-- Exact vector helpers over numeric triples.
CREATE FUNCTION pg_temp.v(p geometry) RETURNS numeric[]
LANGUAGE sql IMMUTABLE AS $$
	SELECT ARRAY[pg_temp.exact(ST_X(p)), pg_temp.exact(ST_Y(p)), pg_temp.exact(ST_Z(p))] $$;
CREATE FUNCTION pg_temp.sub(a numeric[], b numeric[]) RETURNS numeric[]
LANGUAGE sql IMMUTABLE AS $$ SELECT ARRAY[a[1]-b[1], a[2]-b[2], a[3]-b[3]] $$;
CREATE FUNCTION pg_temp.scale(s numeric, a numeric[]) RETURNS numeric[]
LANGUAGE sql IMMUTABLE AS $$ SELECT ARRAY[s*a[1], s*a[2], s*a[3]] $$;
CREATE FUNCTION pg_temp.cross3(a numeric[], b numeric[]) RETURNS numeric[]
LANGUAGE sql IMMUTABLE AS $$
	SELECT ARRAY[a[2]*b[3]-a[3]*b[2], a[3]*b[1]-a[1]*b[3], a[1]*b[2]-a[2]*b[1]] $$;
CREATE FUNCTION pg_temp.dot3(a numeric[], b numeric[]) RETURNS numeric
LANGUAGE sql IMMUTABLE AS $$ SELECT a[1]*b[1]+a[2]*b[2]+a[3]*b[3] $$;

-- Segment pq against triangle abc, exactly, by a different route than
-- exactgpu's: locate the plane crossing X = p + s (q - p) and test X against
-- the three edges, all scaled by D = n.(p-a) - n.(q-a) to stay in integers.
-- (Only the non-coplanar case is needed for these data.)
CREATE FUNCTION pg_temp.segment_triangle_numeric(seg geometry, tri geometry) RETURNS boolean
LANGUAGE plpgsql IMMUTABLE AS $$
DECLARE
	p numeric[] := pg_temp.v(ST_PointN(seg, 1));
	q numeric[] := pg_temp.v(ST_PointN(seg, 2));
	ring geometry := ST_ExteriorRing(ST_GeometryN(tri, 1));
	a numeric[] := pg_temp.v(ST_PointN(ring, 1));
	b numeric[] := pg_temp.v(ST_PointN(ring, 2));
	c numeric[] := pg_temp.v(ST_PointN(ring, 3));
	n numeric[] := pg_temp.cross3(pg_temp.sub(b, a), pg_temp.sub(c, a));
	dp numeric := pg_temp.dot3(n, pg_temp.sub(p, a));
	dq numeric := pg_temp.dot3(n, pg_temp.sub(q, a));
	d numeric := dp - dq;
	verts numeric[][] := ARRAY[a, b, c];
	u numeric[];
	w numeric[];
	y numeric[];
BEGIN
	IF sign(dp) * sign(dq) > 0 THEN RETURN false; END IF;
	IF dp = 0 AND dq = 0 THEN RAISE EXCEPTION 'coplanar case not covered'; END IF;
	FOR k IN 1..3 LOOP
		u := verts[k:k][1:3];
		w := verts[k % 3 + 1:k % 3 + 1][1:3];
		u := ARRAY[u[1][1], u[1][2], u[1][3]];
		w := ARRAY[w[1][1], w[1][2], w[1][3]];
		-- y = D (X - u) = D (p - u) + dp (q - p)
		y := pg_temp.sub(pg_temp.scale(d, pg_temp.sub(p, u)), pg_temp.scale(-dp, pg_temp.sub(q, p)));
		IF sign(pg_temp.dot3(n, pg_temp.cross3(pg_temp.sub(w, u), y))) * sign(d) < 0 THEN
			RETURN false;
		END IF;
	END LOOP;
	RETURN true;
END $$;

-- Point p on segment ab, exactly: (b - a) x (p - a) = 0 and p within the box.
CREATE FUNCTION pg_temp.point_segment_numeric(seg geometry, pt geometry) RETURNS boolean
LANGUAGE sql IMMUTABLE AS $$
	SELECT pg_temp.cross3(pg_temp.sub(b, a), pg_temp.sub(p, a)) = ARRAY[0, 0, 0]::numeric[]
	   AND p[1] BETWEEN least(a[1], b[1]) AND greatest(a[1], b[1])
	   AND p[2] BETWEEN least(a[2], b[2]) AND greatest(a[2], b[2])
	   AND p[3] BETWEEN least(a[3], b[3]) AND greatest(a[3], b[3])
	FROM (SELECT pg_temp.v(ST_PointN(seg, 1)) a, pg_temp.v(ST_PointN(seg, 2)) b, pg_temp.v(pt) p) s $$;

-- The helper decodes doubles exactly (2^(-1074), the smallest subnormal, too).
SELECT pg_temp.exact(0.1) = 0.1000000000000000055511151231257827021181583404541015625 AS exact_tenth,
       pg_temp.exact('4.9e-324'::float8) * (2::numeric ^ 1074) = 1 AS exact_subnormal;

CREATE TABLE hole_vs_face (id int, face geometry, hole geometry);
INSERT INTO hole_vs_face VALUES
  (1, 'TIN Z (((500211.41504216753 7000891.92511637 -405.9379531600298,500231.19779775495 7000919.322392669 -356.2689581180122,500238.812318466 7000872.142360783 -402.9379531600298,500211.41504216753 7000891.92511637 -405.9379531600298)))',
      'LINESTRING Z (500228.05116381886 7000914.964597367 -364.1692804305725,500231.05116381886 7000907.964597367 -344.1692804305725)'),
  (2, 'TIN Z (((500650.8495171446 7000674.464553618 -486.2617806638792,500686.58697194775 7000678.635829268 -443.3116986098589,500655.0207927947 7000638.727098815 -483.2617806638792,500650.8495171446 7000674.464553618 -486.2617806638792)))',
      'LINESTRING Z (500669.8099051785 7000676.6776100695 -463.4747571806262,500672.8099051785 7000669.6776100695 -443.4747571806262)'),
  (3, 'TIN Z (((500999.56554707326 7000619.131409203 -494.6695843503784,501024.63202329713 7000630.728838252 -446.0452680247648,501011.16297612264 7000594.064932979 -491.6695843503784,500999.56554707326 7000619.131409203 -494.6695843503784)))',
      'LINESTRING Z (501013.92514895846 7000625.775121807 -466.814619091657,501016.92514895846 7000618.775121807 -446.814619091657)'),
  (4, 'TIN Z (((500389.2469820779 7000575.499621968 -424.60435336166586,500417.7231933731 7000623.972181639 -382.68576216056556,500437.7195417484 7000547.023410672 -421.60435336166586,500389.2469820779 7000575.499621968 -424.60435336166586)))',
      'LINESTRING Z (500412.8105052847 7000615.609743109 -389.91751646736765,500415.8105052847 7000608.609743109 -369.91751646736765)'),
  (5, 'TIN Z (((500317.1233666707 7000423.106393513 -453.46540725694666,500365.9698662752 7000467.194515502 -406.30110890198836,500361.21148865926 7000374.259893909 -450.46540725694666,500317.1233666707 7000423.106393513 -453.46540725694666)))',
      'LINESTRING Z (500334.4691640347 7000438.762451498 -436.71697351648027,500337.4691640347 7000431.762451498 -416.71697351648027)'),
  (6, 'TIN Z (((500489.2445445556 7000638.320660441 -479.3923840930224,500521.1093925041 7000651.911388206 -459.71073805182357,500502.8352723208 7000606.455812492 -476.3923840930224,500489.2445445556 7000638.320660441 -479.3923840930224)))',
      'LINESTRING Z (500497.977549973 7000642.0453886865 -473.9983548549312,500500.977549973 7000635.0453886865 -453.9983548549312)');

-- A hole segment starting on (or one rounding off) a face's edge.
SELECT id,
       pg_temp.segment_triangle_numeric(hole, face) AS exact_numeric,
       ST_ExactIntersects3D(face, hole) AS exactgpu,
       ST_3DIntersects(face, hole) AS postgis
FROM hole_vs_face ORDER BY id;

CREATE TABLE sample_vs_hole (id int, hole geometry, sample geometry);
INSERT INTO sample_vs_hole VALUES
  (1, 'LINESTRING Z (500110.7776848206 7000305.3794286605 -466.7239401741777,500111.36774746655 7000305.485945305 -433.10287289630224)',
      'POINT Z (500110.9271494238 7000305.40640964 -458.207624973001)'),
  (2, 'LINESTRING Z (500185.77762541355 7000860.704967446 -437.0197582404888,500190.3347451036 7000861.208880986 -426.67899443871784)',
      'POINT Z (500188.09630810056 7000860.961360888 -431.7583318070092)'),
  (3, 'LINESTRING Z (500060.41997409274 7000107.82759192 -450.60995405141387,500102.81195349013 7000144.966421178 -434.9786081709359)',
      'POINT Z (500066.8092680645 7000113.425134221 -448.25400687875486)');

-- A sample point computed as a + t (b - a): within rounding of the hole, not on it.
SELECT id,
       pg_temp.point_segment_numeric(hole, sample) AS exact_numeric,
       ST_ExactIntersects3D(hole, sample) AS exactgpu,
       ST_3DIntersects(hole, sample) AS postgis
FROM sample_vs_hole ORDER BY id;

-- Summary: exactgpu agrees with the exact computation everywhere, PostGIS does not.
SELECT count(*) FILTER (WHERE exactgpu <> exact_numeric) AS exactgpu_wrong,
       count(*) FILTER (WHERE postgis <> exact_numeric) AS postgis_wrong
FROM (SELECT pg_temp.segment_triangle_numeric(hole, face) exact_numeric,
             ST_ExactIntersects3D(face, hole) exactgpu, ST_3DIntersects(face, hole) postgis
      FROM hole_vs_face
      UNION ALL
      SELECT pg_temp.point_segment_numeric(hole, sample), ST_ExactIntersects3D(hole, sample),
             ST_3DIntersects(hole, sample)
      FROM sample_vs_hole) s;

DROP TABLE hole_vs_face, sample_vs_hole;
