/*
 * shape_text.h — a deterministic text dump of a parsed shape.
 *
 * For the engine tests (test_gserialized): two shapes are equal (bit for
 * bit in their coordinates, which %.17g round-trips) exactly when their
 * dumps are equal.
 */
#ifndef EXG_SHAPE_TEXT_H
#define EXG_SHAPE_TEXT_H

#include "geom_shape.h"

#ifdef __cplusplus
extern "C" {
#endif

/*
 * The dump, malloc'ed (the caller frees it), or NULL when out of memory.
 * Format, one item per line, each line ending in '\n':
 *
 *   shape srid=<int> type=<int> z=<0|1> m=<0|1> solid=<0|1> comps=<n>
 *   comp <POINT|LINE|POLYGON|TRIANGLE> patch=<0|1> rings=<n>
 *   ring <nverts>: <x> <y> <z>, <x> <y> <z>, ...
 *
 * Every coordinate, z included (0 when the input had none), is printed
 * with %.17g. A component kind outside the enum prints as KIND<n>.
 */
char	   *exg_shape_to_text(const exg_shape *s);

#ifdef __cplusplus
}
#endif

#endif							/* EXG_SHAPE_TEXT_H */
