/*
 * mesh_convex.h — whether a triangle mesh is convex (mesh_convex.c).
 * Internal to the core.
 */
#ifndef CLASH_MESH_CONVEX_H
#define CLASH_MESH_CONVEX_H

#include "clash.h"

/* m is convex: closed, one part, and every vertex on one side of each
 * face's plane (within 1e-12 of its size).  1, 0, or CLASH_ENOMEM; a
 * cancel seen on the way ends the walk early (the caller looks at it). */
int mesh_is_convex(const clash_mesh *m, const volatile int *cancel);

#endif /* CLASH_MESH_CONVEX_H */
