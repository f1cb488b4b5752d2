/*
 * motion.h — what the scene's broad phase needs to know about shapes in
 * motion (internal to the core; the public calls are in clash.h).
 *
 * A shape's "origin" is the point its pose puts its own origin at (the
 * pose's translation, or the world origin for an unposed shape): the point
 * the shape turns about during a motion (clash_motion).  Every bound here
 * is conservative: rounding is never allowed to make a box or a reach
 * smaller than the shape.
 */
#ifndef CLASH_MOTION_H
#define CLASH_MOTION_H

#include "clash.h"

/* CLASH_OK when m (NULL: rest) is a motion a shape of dimension dim can
 * make: finite, and turning only in 2-D and 3-D (CLASH_EINVAL otherwise,
 * CLASH_ERANGE when not finite). */
int motion_check(const clash_motion *m, int dim);

/* Whether m (NULL: rest) moves at all, and its angular speed |w| (radians
 * per unit of t; 0 when it does not turn). */
int motion_moves(const clash_motion *m, int dim);
double motion_spin(const clash_motion *m, int dim);

/* The world box [lo, hi] of shape s (convex or compound, radii included)
 * over the whole of motion m (NULL: at rest, the box where it is).  Exact
 * for rest and translation (the box of co(S u (S + d)) is the box of S and
 * S + d); with a turn, the box of the start and end grown by the most any
 * point strays from its chord (w^2 r / 8, from |x''| = w^2 r), and clipped
 * to the box of the capsule the origin's path sweeps with the shape's
 * reach.  Also *reach (may be NULL): the largest distance of a point of
 * the hulls (radii excluded) from the origin at the start.  Returns
 * CLASH_OK or an error of compound_check / CLASH_ERANGE. */
int motion_box(const clash_shape *s, const clash_motion *m, double *lo, double *hi, double *reach);

/*
 * Whether a and b, which clash_gjk found intersecting (its answer r, with
 * options opt), overlap deeper than tol > 0: by r's depth when it has one
 * (CLASH_HAS_DEPTH, exact), or when r's lower bound already exceeds tol;
 * else by probing: b moved by R = 2 sqrt(dim) tol along each axis, either
 * way, still meets a (2 dim GJK queries at a quarter of tol).  For convex
 * shapes a depth above R always passes (the probe points lie in the
 * Minkowski difference) and one of tol or less never does (they span a
 * cross-polytope holding the ball of radius 2 tol, so one of them lies
 * beyond any face within tol of the origin).  Returns 1, 0, or a negative
 * CLASH_E* code.
 */
int motion_deeper(const clash_shape *a, const clash_shape *b, const clash_options *opt,
                  const clash_result *r, double tol);

#endif /* CLASH_MOTION_H */
