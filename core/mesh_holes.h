/*
 * mesh_holes.h — a tree over the holes of an open mesh (internal to the
 * core; core/mesh_holes.c, built by mesh_build.c, read by mesh_query.c).
 *
 * The inside test of an open mesh counts a ray's crossings with the mesh
 * capped at its holes (mesh_topo.h); it needs, for a point, a bound on the
 * caps' winding number there, and, for a ray, the holes whose balls it
 * may meet.  A mesh with a thousand small holes would pay for both in a
 * scan of every hole: the tree (boxes of the holes' balls, split at the
 * median of their centres along the widest axis, up to HOLES_LEAF a leaf)
 * looks only at the near ones.
 */
#ifndef CLASH_MESH_HOLES_H
#define CLASH_MESH_HOLES_H

#include <stddef.h>
#include <stdint.h>

#include "mesh_topo.h"

#define HOLES_LEAF 4

typedef struct hole_node {
	double lo[3], hi[3];   /* the box of the balls below */
	double s;              /* sum of wind r^2 below (holes_wind) */
	double rmax;           /* the largest r below */
	uint32_t first, count; /* leaf: holes first .. + count; inner: children first, first + 1 */
} hole_node;

/* How many times a cap may cover a direction: (edges - 1) / 2 at least 1
 * (a closed polygon of that many sides winds no more about any point). */
double holes_wind(const mesh_hole *h);

/* Nodes the tree of n holes takes at most. */
size_t holes_tree_nodes(size_t n);

/* Order holes[0..n) for the tree and build it into nodes; its count. */
size_t holes_tree_build(mesh_hole *holes, size_t n, hole_node *nodes);

/* A bound on |the caps' winding number| at p, or INFINITY when p lies in
 * a hole's ball or the bound reaches `limit`. */
double holes_bound(const hole_node *nodes, const mesh_hole *holes, const double *p, double limit);

/* Calls fn(ctx, hole) for each hole whose ball segment s0 s1 may meet;
 * stops at the first non-zero return and returns it (else 0). */
int holes_on_segment(const hole_node *nodes, const mesh_hole *holes, const double *s0,
                     const double *s1, int (*fn)(void *ctx, const mesh_hole *h), void *ctx);

#endif
