/*
 * axisym.h — the penetration depth of two shapes that share an axis of
 * symmetry, in one meridian plane (internal to the core; see axisym.c).
 *
 * gjk.c asks this first for a pair with a curved side, and runs EPA
 * (epa.c) when it declines.
 */
#ifndef CLASH_AXISYM_H
#define CLASH_AXISYM_H

#include "epa.h"
#include "support.h"

/* The most support points of K one search takes. */
#define AXISYM_MAX_POINTS 256

/*
 * The depth of the shapes behind 3-D frames fa and fb (radii excluded)
 * when both are symmetric about one line (cylinders, cones, capsules,
 * ellipsoids with two equal radii, posed by a rotation and a scale;
 * points and segments of vertices), within tol / 8 of it, and the search
 * converges to tol within max_points support points (at most
 * AXISYM_MAX_POINTS): then 1, *out as epa_penetration answers (converged,
 * seed_bound -1).  Else 0, *out unspecified: the caller runs EPA.  The
 * shapes must intersect (GJK's verdict).  cancel (may be NULL), once
 * nonzero, gives 0 at the next round.
 */
int axisym_penetration(const support_frame *fa, const support_frame *fb, double tol, int max_points,
                       const volatile int *cancel, epa_answer *out);

#endif
