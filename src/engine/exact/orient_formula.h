/*
 * orient_formula.h — the orientation determinants, written once.
 *
 * Every filter (double intervals on the CPU, float and double intervals on
 * the GPU) evaluates exactly these expressions over its own number type, so
 * they stay the same formula everywhere. The exact GMP path (orient_exact.c)
 * spells out the same expansion with mpz operations.
 *
 * The caller supplies:
 *   T                  the number type (an interval struct)
 *   DIFF(x, y)         T enclosing x - y for two input doubles
 *   MUL(t, u), SUB(t, u), ADD(t, u)   enclosing arithmetic on T
 *
 *   orient2d = ux vy - uy vx,           u = b - a, v = c - a
 *   orient3d = ((b-a) x (c-a)) . (d-a)
 *            = wx (uy vz - uz vy) + wy (uz vx - ux vz) + wz (ux vy - uy vx)
 *
 * orient3d is written as a cross product then a dot product so that a
 * filter can keep a triangle's normal and test many points against its
 * plane: the same expression, evaluated in the same order.
 */
#ifndef EXG_ORIENT_FORMULA_H
#define EXG_ORIENT_FORMULA_H

#define EXG_ORIENT2D_FORMULA(T, DIFF, MUL, SUB, a, b, c, i, j, out) \
	do { \
		T	ux_ = DIFF((b)[i], (a)[i]); \
		T	uy_ = DIFF((b)[j], (a)[j]); \
		T	vx_ = DIFF((c)[i], (a)[i]); \
		T	vy_ = DIFF((c)[j], (a)[j]); \
		(out) = SUB(MUL(ux_, vy_), MUL(uy_, vx_)); \
	} while (0)

/* n = (b - a) x (c - a): the normal of triangle abc (its plane's orientation). */
#define EXG_CROSS_FORMULA(T, DIFF, MUL, SUB, a, b, c, nx, ny, nz) \
	do { \
		T	ux_ = DIFF((b)[0], (a)[0]); \
		T	uy_ = DIFF((b)[1], (a)[1]); \
		T	uz_ = DIFF((b)[2], (a)[2]); \
		T	vx_ = DIFF((c)[0], (a)[0]); \
		T	vy_ = DIFF((c)[1], (a)[1]); \
		T	vz_ = DIFF((c)[2], (a)[2]); \
		(nx) = SUB(MUL(uy_, vz_), MUL(uz_, vy_)); \
		(ny) = SUB(MUL(uz_, vx_), MUL(ux_, vz_)); \
		(nz) = SUB(MUL(ux_, vy_), MUL(uy_, vx_)); \
	} while (0)

/* n . (d - a): orient3d once the normal of abc is known. */
#define EXG_PLANE_SIDE_FORMULA(T, DIFF, MUL, ADD, nx, ny, nz, a, d, out) \
	do { \
		T	wx_ = DIFF((d)[0], (a)[0]); \
		T	wy_ = DIFF((d)[1], (a)[1]); \
		T	wz_ = DIFF((d)[2], (a)[2]); \
		(out) = ADD(ADD(MUL(wx_, (nx)), MUL(wy_, (ny))), MUL(wz_, (nz))); \
	} while (0)

#define EXG_ORIENT3D_FORMULA(T, DIFF, MUL, SUB, ADD, a, b, c, d, out) \
	do { \
		T	nx__, ny__, nz__; \
		EXG_CROSS_FORMULA(T, DIFF, MUL, SUB, a, b, c, nx__, ny__, nz__); \
		EXG_PLANE_SIDE_FORMULA(T, DIFF, MUL, ADD, nx__, ny__, nz__, a, d, out); \
	} while (0)

#endif							/* EXG_ORIENT_FORMULA_H */
