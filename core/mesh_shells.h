/*
 * mesh_shells.h — whether a closed mesh bounds its solid once (internal to
 * the core; core/mesh_shells.c): its winding number is 0 or the sign of its
 * volume everywhere, never 2, so that the solid's boundary is the whole
 * surface and a volume read from the surface (overlap.c) is the solid's.
 */
#ifndef CLASH_MESH_SHELLS_H
#define CLASH_MESH_SHELLS_H

#include "mesh.h"

/* 1 when the closed mesh m bounds its solid once, 0 when its shells cross
 * or nest the same way round (or it is not closed, or a shell's test
 * triangle has no area: cannot tell), CLASH_ECANCELED.  The first call
 * for a mesh counts its self-crossings (clash_mesh_info_get). */
int mesh_shells_once(const clash_mesh *m, const volatile int *cancel);

#endif
