/*
 * mesh_self.h — the pairs of triangles of one mesh that cross each other
 * (internal to the core; core/mesh_self.c, called by mesh_build.c once the
 * tree and the corners are in place).
 *
 * Two triangles cross when they share a point other than the corners and
 * edges they share after the weld: neighbours meeting only along their
 * common edge or at their common corner do not count; neighbours folded
 * over each other (sharing a corner yet meeting elsewhere, or sharing an
 * edge and lying flat on the same side of it) do.  Triangles of zero area
 * and triangles with all three corners alike take no part.  Decided by the
 * exact predicates (tri_overlap.h), so the count is exact for the double
 * coordinates the mesh holds, unless the work bound below was reached.
 */
#ifndef CLASH_MESH_SELF_H
#define CLASH_MESH_SELF_H

#include <stddef.h>

#include "mesh.h"

/* The crossing pairs of m (tree and corners built), found by traversing
 * the tree against itself.  The work is bounded (node pairs and triangle
 * pairs together, MESH_SELF_WORK plus MESH_SELF_WORK_PER per triangle):
 * when the bound is reached the count found so far is returned and
 * *capped set to 1 (a lower bound), else 0. */
#define MESH_SELF_WORK ((size_t)1 << 20)
#define MESH_SELF_WORK_PER 64
size_t mesh_self_crossings(const clash_mesh *m, int *capped);

/* The same, counted on the first call for m and kept in m->self: the
 * count costs about one build of the tree again, and only answers that
 * say how a mesh was read need it. */
size_t mesh_self_count(const clash_mesh *m, int *capped);

#endif
