/*
 * mesh_depth_parts.h — the penetration depth of two unions of convex
 * leaves when their deepest pair of leaves decides it
 * (mesh_depth_parts.c), tried by clash_mesh_depth (mesh_depth.c) before
 * its search over directions.  Internal to the core.
 */
#ifndef CLASH_MESH_DEPTH_PARTS_H
#define CLASH_MESH_DEPTH_PARTS_H

#include "clash.h"

/* b moved by v (its pose followed by the shift) into *out. */
void mesh_depth_shifted(const clash_shape *b, const double *v, clash_shape *out);

/* The depth of a and b (both solids that intersect) when every leaf of
 * both is convex (a hull, a primitive, a convex mesh) and one pair of
 * leaves decides it: the deepest pair's convex depth D is a lower bound
 * of the unions' (a move that parts them parts that pair), and when b
 * moved a hair past D along that pair's normal is clear of a, D is the
 * depth.  1 with r's depth members, converged, CLASH_HAS_DEPTH set (the
 * rest of r untouched); 0 when it does not apply or the move does not
 * clear a (r untouched: the search over directions answers); or an
 * error (CLASH_ECANCELED, CLASH_ENOMEM ...). */
int mesh_depth_parts(const clash_shape *a, const clash_shape *b, const clash_options *opt,
                     clash_result *r);

#endif /* CLASH_MESH_DEPTH_PARTS_H */
