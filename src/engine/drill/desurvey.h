/*
 * desurvey.h — drill-hole traces from a collar and downhole surveys.
 *
 * Conventions (docs/geologists.md): x east, y north, z up; azimuth in
 * degrees clockwise from grid north; dip in degrees from the horizontal,
 * negative downward (-90 is straight down). The direction of a survey is
 *   t = (cos(dip) sin(az), cos(dip) cos(az), sin(dip)).
 * Measured depths are along the hole from the collar (depth 0).
 */
#ifndef EXG_DESURVEY_H
#define EXG_DESURVEY_H

#include <stddef.h>

#include "exg_status.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum exg_desurvey_method
{
	EXG_DESURVEY_MINIMUM_CURVATURE = 0,
	EXG_DESURVEY_TANGENT = 1,
	EXG_DESURVEY_BALANCED_TANGENT = 2
} exg_desurvey_method;

/*
 * The trace of one hole: out (malloc'ed) receives *nout points of
 * (x, y, z, measured depth): the collar at depth 0, then one point per
 * survey depth > 0, then one at end_depth when end_depth > the last survey
 * depth (end_depth NaN: none). Depths must be finite, >= 0 and strictly
 * increasing, azimuths finite, dips finite in [-90, 90]; n >= 1. Every
 * floating-point operation and its order is spelled out in desurvey.c, so
 * the result is the same to the last bit wherever the C library's sin, cos
 * and atan2 give the same doubles (glibc's do on every x86-64 and arm64).
 */
exg_status	exg_desurvey(const double collar[3], const double *depths,
						 const double *azimuths, const double *dips, size_t n,
						 exg_desurvey_method method, double end_depth,
						 double step, double **out, size_t *nout, exg_error *err);

/* Sine and cosine of an angle in degrees, exact at multiples of 90. */
void		exg_sincosd(double deg, double *s, double *c);

#ifdef __cplusplus
}
#endif

#endif							/* EXG_DESURVEY_H */
