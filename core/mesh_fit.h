/*
 * mesh_fit.h — oriented boxes fitted to a built mesh's tree nodes
 * (internal to the core): one per node, in the mesh's own frame, for
 * distance and intersection at any pose (core/mesh_query.c).
 */
#ifndef CLASH_MESH_FIT_H
#define CLASH_MESH_FIT_H

struct clash_mesh;
struct mesh_obb; /* mesh.h */

/* Boxes for every node of m's tree (m->nnodes of them, the pad's zero)
 * into out, from the triangles as placed in tree order. */
void mesh_fit_obbs(const struct clash_mesh *m, struct mesh_obb *out);

/* m's boxes (in its storage, reserved by the build), or NULL while they
 * are not fitted.  The first caller fits them (and waits for that); a
 * caller that meets another thread fitting gets NULL at once and uses
 * the axis-aligned boxes for its query.  Safe from any number of
 * threads on a mesh otherwise read-only. */
const struct mesh_obb *mesh_fit_get(const struct clash_mesh *m);

#endif
