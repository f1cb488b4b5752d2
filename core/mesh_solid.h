/*
 * mesh_solid.h — when a mesh counts as a solid (internal to the core;
 * core/mesh_solid.c, called by mesh_build.c once the far field is built).
 *
 * Just off a closed, consistently oriented surface the winding number is
 * an integer on both sides.  A hole moves it toward a half-integer, by
 * the part of the view from that point the hole takes up: the leak.  A
 * mesh is a solid when it is closed (after the weld and the turns), or
 * when its leak, averaged over its area, is under MESH_SOLID_LEAK.  The
 * threshold lies between the parts meant as solids that lose a triangle
 * (a cube: 0.045; a 10 x 10 x 0.3 slab, half of a big face gone: 0.14)
 * and the open ones (a hemisphere: 0.18, a sieve of a sphere with every
 * third triangle gone: 0.17, a single sheet: 0.5); a cube without its lid
 * (0.10) is a solid, a cube with two faces gone (0.22) is not.  Table in
 * docs/shapes.md.
 */
#ifndef CLASH_MESH_SOLID_H
#define CLASH_MESH_SOLID_H

#include "mesh.h"

#define MESH_SOLID_LEAK 0.15

/* The mean leak of m over its area (m built, its far field too): 0 for a
 * closed mesh, up to 1/2. */
double mesh_leak(const clash_mesh *m);

/* 1 when m counts as a solid (closed, or m->leak under the threshold). */
int mesh_solid_rule(const clash_mesh *m);

#endif
