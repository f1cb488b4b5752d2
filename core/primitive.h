/*
 * primitive.h — exact primitives (sphere, box, capsule, cylinder, cone,
 * ellipsoid) by their analytic support mappings (internal to the core; see
 * primitive.c and clash.h, "Exact primitives", for the axis convention).
 *
 * Queries never see a primitive as such: primitive_lower() turns it into
 * what the methods already take.  A box is its 8 corners; a sphere or a
 * capsule whose pose is a similarity is a point or a segment grown by its
 * scaled radius (exact answers, depth included); everything else is
 * curved, and stays a primitive whose support frame (support.h) evaluates
 * the analytic mapping (support_primitive3, by primitive_local_support).
 */
#ifndef CLASH_PRIMITIVE_H
#define CLASH_PRIMITIVE_H

#include "clash.h"

/* *out = s as the methods take it: s itself for a polytope, else the
 * lowered form in *buf (a polytope borrowing static unit vertices, or the
 * curved primitive with its pose made explicit: posed = 1).  CLASH_EINVAL
 * for an unknown kind or bad params, CLASH_EDIM for a primitive not 3-D.
 * box_only (the LP methods, which take no curved shape): CLASH_ENOTSUP
 * for every kind but the box. */
int primitive_lower(const clash_shape *s, clash_shape *buf, const clash_shape **out, int box_only);

/* sigma when the 3x3 linear part l (column-major) is a similarity,
 * L^T L = sigma^2 I within a relative 1e-13 (a rotation from a normalized
 * quaternion is one to a few ulps), else 0. */
double primitive_similarity_scale(const double *l);

/* The support point p of a primitive of the kind and params in its own
 * coordinates, in local direction e (any length; e = 0 gives the
 * origin, a point of every primitive). */
void primitive_local_support(int kind, const double *prm, const double *e, double *p);

/* The box [lo, hi] of the primitive in its own coordinates. */
void primitive_local_box(const clash_shape *s, double *lo, double *hi);

/* The world support point of primitive s (any kind, its pose applied,
 * its radius excluded) in world direction d; returns d.x. */
double primitive_support_world(const clash_shape *s, const double *d, double *x);

/* An upper bound on |x - o| over the points x of primitive s (radius
 * excluded). */
double primitive_reach(const clash_shape *s, const double *o);

/* Whether primitives a and b (same kind) coincide within tol: sizes equal
 * within tol and the world images of the local origin and of the three
 * half-axis points within tol of each other (a shape turned about its own
 * symmetry axis is not recognized: conservative). */
int primitive_same(const clash_shape *a, const clash_shape *b, double tol);

#endif
