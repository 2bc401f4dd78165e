/*
 * survey_files.h — the mine as exploration data arrive (minegen --format
 * survey): collar and survey tables, wireframes as mesh files.
 *
 *   DIR/collars.csv            hole_id,name,easting,northing,elevation,end_depth
 *   DIR/surveys.csv            hole_id,depth,azimuth,dip (a row per station)
 *   DIR/calibration_holes.tsv  hole_id, name, EWKT LINESTRING ZM (M = depth)
 *   DIR/bodies.obj             the ore bodies, one OBJ object ("o lens-07") each
 *   DIR/faults.obj             an open fault sheet ("o fault-1")
 *   DIR/degeneracies.tsv       the deliberate exact cases (mine_out.h)
 *   DIR/load.sql               creates and loads the tables; the mesh files
 *                              are left to ST_ExactMeshImportBodies
 *
 * The grid holes become collars and surveys: the collar rounded to the
 * millimetre, a station at each vertex of the generated hole (depth the
 * 3D length along it, rounded to the centimetre), its direction the
 * bisector of the hole's segments there, azimuth and dip rounded to 0.01
 * degree, as a survey tool reports them. Desurveyed by minimum curvature
 * (ST_ExactDesurvey), their stations lie within 25 cm of the generated
 * vertices (median 4 cm over the demo mine's holes); the survey is the hole
 * from then on.
 *
 * The deliberate holes of mine.h cannot be surveys: they sit on a body's
 * vertex or face to the last bit, and a survey's sines and cosines round.
 * They come as coordinates (calibration_holes.tsv), M their 3D length
 * summed as the intercepts sum it, so their depths are what they were.
 *
 * Bodies are written with "%.17g" coordinates, which ST_ExactMeshImport
 * reads back bit for bit (docs/meshes.md), so the degeneracies survive.
 * ST_ExactMeshImport reads at most 9,000,000 triangles a file: the tiny,
 * demo and paper mines fit in one bodies.obj, the large one does not.
 */
#ifndef EXG_DEMO_SURVEY_FILES_H
#define EXG_DEMO_SURVEY_FILES_H

#include <stdbool.h>
#include <stdint.h>

#include "mine.h"

bool		write_survey_files(const char *dir, const char *absdir, const mine *m,
							   const char *size, int64_t srid);

#endif							/* EXG_DEMO_SURVEY_FILES_H */
