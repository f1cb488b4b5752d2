/*
 * sphere_depth.h — the penetration depth of a closed mesh and a ball
 * (sphere_depth.c), tried by clash_mesh_depth (mesh_depth.c) for a mesh
 * leaf that is not convex against a ball.  Internal to the core.
 */
#ifndef CLASH_SPHERE_DEPTH_H
#define CLASH_SPHERE_DEPTH_H

#include "clash.h"

/* The depth of the mesh shape `mesh` (closed, radius 0) and the ball (c,
 * r) in world coordinates: r's depth, depth_normal (b's move), depth_a,
 * depth_b, converged and CLASH_HAS_DEPTH; ball_is_b says which side the
 * ball is.  CLASH_OK, CLASH_ENOMEM, CLASH_ECANCELED. */
int sphere_depth(const clash_shape *mesh, const double *c, double r, int ball_is_b,
                 const clash_options *opt, clash_result *res);

#endif
