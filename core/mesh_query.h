/*
 * mesh_query.h — queries with a triangle mesh on either side (internal;
 * clash_gjk sends them here once compounds are split into leaves).
 */
#ifndef CLASH_MESH_QUERY_H
#define CLASH_MESH_QUERY_H

#include "clash.h"
#include "compound.h"

/* clash_gjk's answer for a and b, neither compound, one or both meshes.
 * `convex` answers a triangle (or a point) against a convex side, the
 * method of clash_gjk's leaves, passed down as compound_query's is so
 * that this layer never calls back up into the dispatch. */
int mesh_query(const clash_shape *a, const clash_shape *b, const clash_options *opt,
               compound_pair_fn convex, clash_result *r);

/* Point p (in m's own coordinates) inside the closed mesh m: its winding
 * number, the signed count of a ray's crossings, not 0?  1 inside, 0
 * outside; CLASH_ECANCELED when *cancel is set, CLASH_ERANGE when every
 * ray grazed an edge (p on the surface). */
int mesh_point_inside(const clash_mesh *m, const double *p, const volatile int *cancel);

/* Point p inside the open mesh m by a ray over m capped at its holes: 1,
 * 0, or -1 when p is too near a hole for the caps to be left out (then
 * winding_inside decides); CLASH_ECANCELED. */
int mesh_point_inside_open(const clash_mesh *m, const double *p, const volatile int *cancel);

/* The winding number of the closed mesh m just in front of (side > 0) or
 * behind (side < 0) the interior of its triangle t (tree order), into *w:
 * CLASH_OK, CLASH_ECANCELED, or CLASH_ERANGE when t has no area or every
 * ray grazed an edge. */
int mesh_winding_beside(const clash_mesh *m, size_t t, int side, const volatile int *cancel,
                        int *w);

#endif
