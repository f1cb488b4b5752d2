/*
 * world.h — a point of a shape's own coordinates in the world, for tests:
 * the shape's pose (clash_shape's linear part, column by column, then its
 * translation), or the point itself when the shape has no pose.
 */
#ifndef CLASH_TESTS_WORLD_H
#define CLASH_TESTS_WORLD_H

#include "clash.h"

static inline void world_of(const clash_shape *s, const double *p, double *x)
{
	for (int r = 0; r < 3; r++) {
		x[r] = s->posed ? s->translation[r] : 0.0;
		for (int c = 0; c < 3; c++)
			x[r] += (s->posed ? s->linear[3 * c + r] : (double)(r == c)) * p[c];
	}
}

#endif
