/*
 * mesh_fit.h — oriented boxes fitted to a built mesh's tree nodes
 * (internal to the core): one per node, in the mesh's own frame, for
 * distance and intersection at any pose (core/mesh_query.c).
 */
#ifndef CLASH_MESH_FIT_H
#define CLASH_MESH_FIT_H

#include <stddef.h>

/* An oriented box: centre c (relative to the mesh's origin) plus s_i a_i
 * with |s_i| <= h_i, the rows a_i of `a` orthonormal up to float rounding.
 * Fitted so that, read as that parallelepiped with the axes as stored,
 * it holds every corner of the node's triangles (mesh_fit.c). */
typedef struct mesh_obb {
	float a[9]; /* rows: the axes, right-handed */
	float c[3];
	float h[3];
	float pad;
} mesh_obb;

struct clash_mesh;

/* Boxes for every node of m's tree (m->nnodes of them, the pad's zero)
 * into out, from the triangles as placed in tree order. */
void mesh_fit_obbs(const struct clash_mesh *m, mesh_obb *out);

#endif
