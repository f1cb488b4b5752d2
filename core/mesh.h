/*
 * mesh.h — the layout of a built triangle mesh (internal to the core).
 *
 * A clash_mesh lives at the start of the caller's storage: this header,
 * then the tree's nodes, then the triangles' corner coordinates in tree
 * order (9 doubles each, so a leaf's triangles are read contiguously), then
 * their original numbers, then one triangle of each connected part.  The tree is a binary bounding-volume hierarchy
 * of axis-aligned boxes in the mesh's own coordinates, stored depth first:
 * an inner node's first child follows it, its second is at `right`.
 * Built by core/mesh_build.c, read by core/mesh_query.c.
 */
#ifndef CLASH_MESH_H
#define CLASH_MESH_H

#include <stddef.h>
#include <stdint.h>

#include "clash.h"

/* Largest triangles in one leaf. */
#define MESH_LEAF_MAX 4

typedef struct mesh_node {
	double lo[3], hi[3];
	uint32_t first; /* leaf: first triangle (tree order); inner: right child */
	uint32_t count; /* leaf: its triangles (>= 1); inner: 0 */
} mesh_node;

struct clash_mesh {
	uint64_t magic;
	const double *positions;
	const uint32_t *indices; /* as given (borrowed), or NULL */
	size_t nvertices, ntriangles, nnodes;
	size_t bytes; /* of storage in use, this header included */
	int solid;
	int depth;      /* of the tree (a root alone: 1) */
	mesh_node *nodes;
	double *tri;    /* 9 per triangle, tree order */
	uint32_t *orig; /* original triangle number, tree order */
	/* One triangle (tree order) of each connected part (triangles joined
	 * through vertices of equal coordinates): when the surfaces of two
	 * shapes are apart, each part lies wholly inside or outside the
	 * other, so its first corner decides for it. */
	uint32_t *reps;
	size_t nreps;
};

#define MESH_MAGIC 0x6873656d68736163ull

/* The corners of triangle i (tree order). */
static inline const double *mesh_tri(const clash_mesh *m, size_t i)
{
	return m->tri + 9 * i;
}

/* 1 when m looks like a built mesh. */
static inline int mesh_valid(const clash_mesh *m)
{
	return m != NULL && m->magic == MESH_MAGIC;
}

#endif
