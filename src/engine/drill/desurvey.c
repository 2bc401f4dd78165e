/*
 * desurvey.c — collar + surveys -> a polyline with measured depth.
 *
 * A desurvey is a construction: its coordinates are rounded. What makes it
 * reproducible is that each operation and its order is fixed here (C with
 * -ffp-contract=off: no fused multiply-adds, no reassociation). For survey
 * k (k >= 1) after survey k-1, with unit directions t1 (k-1) and t2 (k),
 * and dmd = md[k] - md[k-1]:
 *
 *   minimum curvature (the default; the arc of constant curvature joining
 *   the two directions):
 *     s  = sqrt(((t2x - t1x)^2 + (t2y - t1y)^2) + (t2z - t1z)^2)
 *     c  = sqrt(((t2x + t1x)^2 + (t2y + t1y)^2) + (t2z + t1z)^2)
 *     h  = atan2(s, c)                 (h = beta / 2, beta the dogleg)
 *     rf = s == 0 ? 1 : (s / c) / h    (RF = tan(beta/2) / (beta/2))
 *     g  = (dmd * 0.5) * rf
 *     dx = g * (t1x + t2x), likewise y and z
 *   The dogleg comes from atan2 of the half-chord and half-sum lengths, not
 *   from acos(t1 . t2), which loses half the digits of a small dogleg; and
 *   s / c is tan(beta / 2) itself (|t2 - t1| = 2 sin(beta/2), |t2 + t1| =
 *   2 cos(beta/2)), so RF needs no tan and tends to exactly 1 as beta -> 0
 *   (atan2(s, c) of a tiny s / c is s / c). c == 0 is a reversal
 *   (beta = 180 degrees), where the arc is undefined: an error.
 *   balanced tangent: the same with rf = 1.
 *   tangent: dx = dmd * t2x (the lower survey's direction), likewise y, z.
 *   Then x[k] = x[k-1] + dx, likewise y and z; the depth is md[k] as given.
 *   Points between surveys (a step): put_steps.
 *
 * From the collar to a first survey deeper than 0, and from the last survey
 * to end_depth, the hole is straight along the nearest survey's direction:
 * dx = dmd * tx (what minimum curvature gives for t1 = t2, to the bit).
 *
 * Directions: exg_sincosd reduces the angle in degrees exactly (fmod and
 * symmetries, all exact in binary floating point) to [0, 45] before
 * converting to radians, so 0, 90, 180, 270 degrees give exactly 0 and +-1:
 * a vertical hole stays exactly above its collar.
 */
#include "desurvey.h"

#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "cancel.h"

void
exg_sincosd(double deg, double *s, double *c)
{
	/* pi / 180 rounded once to the nearest double */
	static const double rad_per_deg = 0.017453292519943295;
	double		r = fmod(deg, 360.0);	/* exact */
	double		ss = 1,
				cs = 1,
				sr,
				cr;
	int			swap = 0;

	if (r < 0)
	{
		r = -r;					/* sin odd, cos even */
		ss = -1;
	}
	/* r in [0, 360): fold to [0, 45] keeping the signs */
	if (r >= 180.0)
	{
		r -= 180.0;				/* exact (Sterbenz) */
		ss = -ss;
		cs = -cs;
	}
	if (r > 90.0)
	{
		r = 180.0 - r;			/* exact (Sterbenz): sin same, cos negated */
		cs = -cs;
	}
	if (r > 45.0)
	{
		r = 90.0 - r;			/* exact (Sterbenz): sin and cos swap */
		swap = 1;
	}
	if (r == 0)
	{
		sr = 0;
		cr = 1;
	}
	else
	{
		sr = sin(r * rad_per_deg);
		cr = cos(r * rad_per_deg);
	}
	if (swap)
	{
		double		tmp = sr;

		sr = cr;
		cr = tmp;
	}
	*s = ss * sr;
	*c = cs * cr;
}

static void
direction(double az, double dip, double t[3])
{
	double		sa,
				ca,
				sd,
				cd;

	exg_sincosd(az, &sa, &ca);
	exg_sincosd(dip, &sd, &cd);
	t[0] = cd * sa;
	t[1] = cd * ca;
	t[2] = sd;
}

/* The trace being written: points of (x, y, z, md), grown as needed. */
typedef struct trace
{
	double	   *v;
	size_t		n;
	size_t		cap;
	bool		interrupted;	/* the cancel callback said stop */
} trace;

static bool
put(trace *tr, const double p[3], double md)
{
	double	   *o;

	/* a small step can make millions of points: poll for a cancel */
	if ((tr->n & (EXG_CANCEL_STRIDE - 1)) == EXG_CANCEL_STRIDE - 1 && exg_cancel_requested())
	{
		tr->interrupted = true;
		return false;
	}
	if (tr->n == tr->cap)
	{
		size_t		cap = tr->cap ? 2 * tr->cap : 16;
		double	   *v = realloc(tr->v, cap * 4 * sizeof(double));

		if (v == NULL)
			return false;
		tr->v = v;
		tr->cap = cap;
	}
	o = &tr->v[4 * tr->n++];
	o[0] = p[0];
	o[1] = p[1];
	o[2] = p[2];
	o[3] = md;
	return true;
}

/*
 * The step over dmd from direction t1 to t2 (the header's formulas, in
 * their order); false for a reversal (c == 0) under minimum curvature or
 * balanced tangent. *h receives beta / 2 (0 for the tangent method).
 */
static bool
step_delta(const double t1[3], const double t2[3], double dmd, exg_desurvey_method method,
		   double d[3], double *h)
{
	double		s,
				cc,
				rf = 1,
				g;
	double		d0 = t2[0] - t1[0],
				d1 = t2[1] - t1[1],
				d2 = t2[2] - t1[2],
				e0 = t2[0] + t1[0],
				e1 = t2[1] + t1[1],
				e2 = t2[2] + t1[2];

	*h = 0;
	if (method == EXG_DESURVEY_TANGENT)
	{
		d[0] = dmd * t2[0];
		d[1] = dmd * t2[1];
		d[2] = dmd * t2[2];
		return true;
	}
	s = sqrt((d0 * d0 + d1 * d1) + d2 * d2);
	cc = sqrt((e0 * e0 + e1 * e1) + e2 * e2);
	if (cc == 0)
		return false;
	if (s != 0)
		*h = atan2(s, cc);
	if (method == EXG_DESURVEY_MINIMUM_CURVATURE && s != 0)
		rf = (s / cc) / *h;
	g = (dmd * 0.5) * rf;
	d[0] = g * e0;
	d[1] = g * e1;
	d[2] = g * e2;
	return true;
}

/*
 * The points at depths j * step strictly between md1 and md2 (the interval
 * from p1, direction t1, to the next station, direction t2): a point at
 * depth md is p1 + step_delta(t1, t, md - md1), with, for minimum
 * curvature, t the direction on the arc at f = (md - md1) / (md2 - md1):
 *   t = (sin((1 - f) beta) / sin(beta)) t1 + (sin(f beta) / sin(beta)) t2
 * (beta = 2 h; t = t1 when beta = 0): the arc from t1 to t is the same
 * circle, so the point lies on the trace's arc. Tangent and balanced
 * tangent (and straight stretches, t1 = t2) lie on the chord.
 */
static bool
put_steps(trace *tr, const double p1[3], const double t1[3], const double t2[3], double md1,
		  double md2, double h, exg_desurvey_method method, double step)
{
	double		j = floor(md1 / step) + 1,
				md;

	for (; (md = j * step) < md2; j++)
	{
		double		t[3],
					d[3],
					q[3],
					hh;
		int			c;

		if (!(md > md1))
			continue;
		memcpy(t, t2, sizeof(t));
		if (method == EXG_DESURVEY_MINIMUM_CURVATURE)
		{
			double		f = (md - md1) / (md2 - md1),
						beta = 2 * h;

			if (h == 0)
				memcpy(t, t1, sizeof(t));
			else
			{
				double		sb = sin(beta),
							a = sin((1 - f) * beta) / sb,
							b = sin(f * beta) / sb;

				for (c = 0; c < 3; c++)
					t[c] = a * t1[c] + b * t2[c];
			}
		}
		step_delta(t1, t, md - md1, method, d, &hh);
		for (c = 0; c < 3; c++)
			q[c] = p1[c] + d[c];
		if (!put(tr, q, md))
			return false;
	}
	return true;
}

exg_status
exg_desurvey(const double collar[3], const double *depths, const double *azimuths,
			 const double *dips, size_t n, exg_desurvey_method method, double end_depth,
			 double step, double **out, size_t *nout, exg_error *err)
{
	double		p[3],
				t1[3],
				t2[3],
				d[3],
				h;
	trace		tr = {NULL, 0, 0, false};
	size_t		k;
	int			c;
	bool		ok = true;
	bool		stepped = !isnan(step);

	*out = NULL;
	*nout = 0;
	if (n == 0)
		return exg_fail(err, EXG_ERR_ARGUMENT, "no surveys: a hole needs at least one survey");
	for (c = 0; c < 3; c++)
		if (!isfinite(collar[c]))
			return exg_fail(err, EXG_ERR_NONFINITE, "the collar has a NaN or infinite coordinate");
	for (k = 0; k < n; k++)
	{
		if (!isfinite(depths[k]) || !isfinite(azimuths[k]) || !isfinite(dips[k]))
			return exg_fail(err, EXG_ERR_NONFINITE,
							"survey %zu (depth %g) has a NaN or infinite value", k + 1, depths[k]);
		if (depths[k] < 0)
			return exg_fail(err, EXG_ERR_ARGUMENT, "survey %zu has a negative depth (%g)",
							k + 1, depths[k]);
		if (k > 0 && !(depths[k] > depths[k - 1]))
			return exg_fail(err, EXG_ERR_ARGUMENT,
							"survey depths must increase strictly: survey %zu (depth %g) follows depth %g",
							k + 1, depths[k], depths[k - 1]);
		if (dips[k] < -90.0 || dips[k] > 90.0)
			return exg_fail(err, EXG_ERR_ARGUMENT,
							"survey %zu (depth %g) has dip %g, outside [-90, 90]",
							k + 1, depths[k], dips[k]);
	}
	if (!isnan(end_depth) && !isfinite(end_depth))
		return exg_fail(err, EXG_ERR_NONFINITE, "the end depth is infinite");
	if (!isnan(end_depth) && end_depth < depths[n - 1])
		return exg_fail(err, EXG_ERR_ARGUMENT,
						"the end depth %g is above the last survey (depth %g)", end_depth,
						depths[n - 1]);
	if (stepped)
	{
		double		last = isnan(end_depth) ? depths[n - 1] : end_depth;

		if (!isfinite(step) || !(step > 0))
			return exg_fail(err, EXG_ERR_ARGUMENT, "the step must be positive (it is %g)", step);
		if (last / step > 1e7)
			return exg_fail(err, EXG_ERR_ARGUMENT,
							"a step of %g m gives more than 10 million points over %g m", step,
							last);
	}

	p[0] = collar[0];
	p[1] = collar[1];
	p[2] = collar[2];
	ok = put(&tr, p, 0.0);
	direction(azimuths[0], dips[0], t1);
	if (ok && depths[0] > 0)
	{
		if (stepped)
			ok = put_steps(&tr, p, t1, t1, 0.0, depths[0], 0, EXG_DESURVEY_TANGENT, step);
		for (c = 0; c < 3; c++)
			p[c] = p[c] + depths[0] * t1[c];
		ok = ok && put(&tr, p, depths[0]);
	}
	for (k = 1; k < n && ok; k++)
	{
		double		dmd = depths[k] - depths[k - 1];

		if ((k & (EXG_CANCEL_STRIDE - 1)) == 0 && exg_cancel_requested())
		{
			free(tr.v);
			return exg_fail(err, EXG_ERR_INTERRUPTED, "canceled");
		}
		direction(azimuths[k], dips[k], t2);
		if (!step_delta(t1, t2, dmd, method, d, &h))
		{
			free(tr.v);
			return exg_fail(err, EXG_ERR_ARGUMENT,
							"the hole turns back on itself between depths %g and %g (a dogleg of 180 degrees)",
							depths[k - 1], depths[k]);
		}
		if (stepped)
			ok = put_steps(&tr, p, t1, t2, depths[k - 1], depths[k], h, method, step);
		for (c = 0; c < 3; c++)
			p[c] = p[c] + d[c];
		ok = ok && put(&tr, p, depths[k]);
		memcpy(t1, t2, sizeof(t1));
	}
	if (ok && !isnan(end_depth) && end_depth > depths[n - 1])
	{
		double		dmd = end_depth - depths[n - 1];

		if (stepped)
			ok = put_steps(&tr, p, t1, t1, depths[n - 1], end_depth, 0, EXG_DESURVEY_TANGENT,
						   step);
		for (c = 0; c < 3; c++)
			p[c] = p[c] + dmd * t1[c];
		ok = ok && put(&tr, p, end_depth);
	}
	if (!ok)
	{
		free(tr.v);
		if (tr.interrupted)
			return exg_fail(err, EXG_ERR_INTERRUPTED, "canceled");
		return exg_fail(err, EXG_ERR_NOMEM, "out of memory for the trace");
	}
	if (tr.n < 2)
	{
		free(tr.v);
		return exg_fail(err, EXG_ERR_ARGUMENT,
						"the hole has no length: give a survey below the collar or an end depth");
	}
	*out = tr.v;
	*nout = tr.n;
	return EXG_OK;
}
