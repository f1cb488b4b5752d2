/*
 * mesh.h — the layout of a built triangle mesh (internal to the core).
 *
 * A clash_mesh lives in the caller's storage, at its first 64-byte
 * boundary: this header, then the triangles' corner coordinates in tree
 * order (9 doubles each, so a leaf's triangles are read contiguously),
 * then the tree's nodes (32 bytes each, from a 64-byte boundary), then one
 * triangle of each connected part, then each triangle's input index (tree
 * order; 4 bytes a triangle), then, for a mesh that is not closed,
 * the far field of the winding number (from a 64-byte boundary), then an
 * oriented box per node (mesh_fit.c; 64 bytes each, fitted lazily).  The tree is a binary bounding-volume
 * hierarchy of axis-aligned boxes in the mesh's own coordinates: the root
 * is node 0 (node 1 is padding), and the two children of an inner node are
 * a pair at an even index, `first` and `first + 1`, so they share one
 * cache line; pairs are laid out depth first.  Boxes are floats relative
 * to `origin`, rounded outward.  Built by core/mesh_build.c, read by
 * core/mesh_query.c.
 */
#ifndef CLASH_MESH_H
#define CLASH_MESH_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include <float.h>
#include <math.h>

#include "affine.h"
#include "clash.h"
#include "mesh_topo.h"

/* Largest triangles in one leaf. */
#define MESH_LEAF_MAX 4

typedef struct mesh_node {
	float lo[3], hi[3]; /* relative to the mesh's origin, rounded outward */
	uint32_t first;     /* leaf: first triangle (tree order); inner: left child */
	uint32_t count;     /* leaf: its triangles (>= 1); inner: 0 */
} mesh_node;

/* An oriented box: centre c (relative to the mesh's origin) plus s_i a_i
 * with |s_i| <= h_i, the rows a_i of `a` orthonormal up to float rounding.
 * Fitted (core/mesh_fit.c) so that, read as that parallelepiped with the
 * axes as stored, it holds every corner of the node's triangles. */
typedef struct mesh_obb {
	float a[9]; /* rows: the axes, right-handed */
	float c[3];
	float h[3];
	float pad;
} mesh_obb;

struct clash_mesh {
	uint64_t magic;
	const double *positions;
	const uint32_t *indices; /* as given (borrowed), or NULL */
	size_t nvertices, ntriangles, nnodes;
	size_t bytes;  /* of storage in use, this header included */
	size_t welded; /* vertices moved by the weld (clash_mesh_welded) */
	int solid;
	/* Signed volume of the triangles as turned (> 0: they face outward),
	 * in the mesh's coordinates; its sign tells which way a closed mesh
	 * faces. */
	double volume;
	int depth;        /* of the tree (a root alone: 1) */
	double origin[3]; /* the root box's centre: node boxes are relative */
	mesh_node *nodes;
	double *tri; /* 9 per triangle, tree order */
	/* One triangle (tree order) of each connected part (triangles joined
	 * through vertices of equal coordinates): when the surfaces of two
	 * shapes are apart, each part lies wholly inside or outside the
	 * other, so its first corner decides for it. */
	uint32_t *reps;
	size_t nreps;
	/* The input index (the order given to the build) of each triangle in
	 * tree order, after the parts: answers name triangles by it. */
	uint32_t *input;
	/* The edge census (after the weld) and the triangles turned over. */
	mesh_topo topo;
	/* The far field of the winding number (winding.h), after the parts;
	 * NULL when the mesh is closed (rays decide inside it). */
	const void *far;
	/* The mean distance of the winding number from an integer just off
	 * the surface (mesh_solid.h); 0 when closed. */
	double leak;
	/* The holes of a mesh that is not closed (mesh_topo.h), after the
	 * parts; none (NULL) when closed or when they were too many to list. */
	const mesh_hole *holes;
	size_t nholes;
	const mesh_hole_edge *hole_edges;   /* after the holes */
	const struct hole_node *hole_nodes; /* their tree (mesh_holes.h), after the edges */
	int capped;                         /* not closed, its holes all listed (maybe none) */
	/* An oriented box per node (mesh_fit.c), indexed as the nodes, last
	 * in the storage (from a 64-byte boundary): room reserved by the
	 * build, fitted by the first query with a rotation that needs them
	 * (mesh_fit_get), so a mesh only translated or never turned does not
	 * pay for them.  `fit` tells their state (MESH_FIT_*), atomic as
	 * `self` below. */
	const mesh_obb *obbs;
	_Atomic int fit;
	/* Pairs of its triangles that cross (mesh_self.h), worked out on
	 * the first request: 0 not yet, else count << 2 | capped << 1 | 1.
	 * Atomic: a mesh serves many threads; two that count at once store
	 * the same value. */
	_Atomic uint64_t self;
};

/* States of a mesh's oriented boxes (clash_mesh.fit). */
enum {
	MESH_FIT_NONE,
	MESH_FIT_BUSY,
	MESH_FIT_DONE
};

#define MESH_MAGIC 0x6873656d68736163ull

/* The corners of triangle i (tree order). */
static inline const double *mesh_tri(const clash_mesh *m, size_t i)
{
	return m->tri + 9 * i;
}

/* Node n's box in the mesh's coordinates (rounded: within an ulp of
 * |lo|, |hi| of the float box it stands for). */
static inline void mesh_node_box(const clash_mesh *m, const mesh_node *n, double lo[3],
                                 double hi[3])
{
	for (int k = 0; k < 3; k++) {
		lo[k] = m->origin[k] + (double)n->lo[k];
		hi[k] = m->origin[k] + (double)n->hi[k];
	}
}

typedef struct obox {
	double c[3], h[3]; /* centre and half extents */
} obox;

/* The box of node n mapped by f (NULL: as it is), grown to hold the map
 * of every point of it despite rounding. */
static inline void mesh_node_obox(const clash_mesh *m, const mesh_node *n, const affine *f, obox *o)
{
	/* Float bounds: their half sum and half difference are exact in
	 * double; the origin's addition rounds within the growth below.
	 * Scalars throughout (no local arrays: stores then wide loads of
	 * them stall store forwarding). */
	if (f == NULL || f->shift) {
		const int shift = f != NULL;
		for (int k = 0; k < 3; k++) {
			const double lo = n->lo[k], hi = n->hi[k];
			const double c = m->origin[k] + 0.5 * (lo + hi), h = 0.5 * (hi - lo);
			const double t = shift ? f->t[k] : 0.0;
			o->c[k] = c + t;
			o->h[k] =
				h * (1.0 + 8 * DBL_EPSILON) + 8 * DBL_EPSILON * (fabs(c) + fabs(t));
		}
		return;
	}
	double c[3], h[3];
	for (int k = 0; k < 3; k++) {
		c[k] = m->origin[k] + 0.5 * ((double)n->lo[k] + (double)n->hi[k]);
		h[k] = 0.5 * ((double)n->hi[k] - (double)n->lo[k]);
	}
	affine_apply(f, c, o->c);
	for (int r = 0; r < 3; r++) {
		const double *l = f->l + 3 * r;
		double e = fabs(l[0]) * h[0] + fabs(l[1]) * h[1] + fabs(l[2]) * h[2];
		double mag =
			fabs(f->t[r]) + fabs(l[0] * c[0]) + fabs(l[1] * c[1]) + fabs(l[2] * c[2]);
		o->h[r] = e * (1.0 + 8 * DBL_EPSILON) + 8 * DBL_EPSILON * mag;
	}
}

/* The box of triangle t (9 coordinates), grown to hold it despite the
 * rounding of its centre and half extents. */
static inline void mesh_tri_obox(const double *t, obox *o)
{
	for (int k = 0; k < 3; k++) {
		double lo = t[k], hi = t[k];
		for (int c = 1; c < 3; c++) {
			lo = t[3 * c + k] < lo ? t[3 * c + k] : lo;
			hi = t[3 * c + k] > hi ? t[3 * c + k] : hi;
		}
		o->c[k] = 0.5 * lo + 0.5 * hi;
		o->h[k] = (0.5 * hi - 0.5 * lo) * (1.0 + 4 * DBL_EPSILON) +
		          4 * DBL_EPSILON * fabs(o->c[k]);
	}
}

/* 1 when m looks like a built mesh. */
static inline int mesh_valid(const clash_mesh *m)
{
	return m != NULL && m->magic == MESH_MAGIC;
}

#endif
