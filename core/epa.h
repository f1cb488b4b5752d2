/*
 * epa.h — penetration depth of two intersecting polytopes by the Expanding
 * Polytope Algorithm (internal to the core; see epa.c).
 *
 * GJK (gjk.c) decides that the hulls intersect and hands over its final
 * simplex face, the points of K = A - B whose convex hull holds the origin
 * (within the query's tolerance).  EPA grows that into a polytope P inside K
 * around the origin and expands P's face nearest the origin by the support
 * point in its normal until the face lies on the boundary of K: the distance
 * from the origin to that face is the penetration depth (the least
 * translation that parts the hulls), its normal the direction of that
 * translation.  Dimensions 1, 2 and 3; everything happens in the query's
 * working frame (support.h), in storage on the stack while it suffices.
 */
#ifndef CLASH_EPA_H
#define CLASH_EPA_H

#include <stddef.h>

#include "clash.h"
#include "support.h"

/* Largest dimension EPA handles. */
#define EPA_MAX_DIM 3

/* A point of K = A - B with the shapes' points that make it. */
typedef struct epa_vertex {
	double y[EPA_MAX_DIM]; /* a - b */
	double a[EPA_MAX_DIM];
	double b[EPA_MAX_DIM];
	size_t ia, ib; /* vertex indices in a and b */
} epa_vertex;

/* The answer, in frame units (radii not included). */
typedef struct epa_answer {
	/* Hull penetration depth, >= 0: the distance from the origin to the
	 * boundary of K.  When not converged, an upper bound that still parts
	 * the hulls: moving b by depth * normal leaves them touching at most. */
	double depth;
	double normal[EPA_MAX_DIM]; /* unit; b moves along it to part the hulls */
	/* The deepest points: pa on a's surface, pb on b's surface, with
	 * pa - pb = depth * normal (to rounding).  When not converged, pa is a
	 * point of a's surface extreme along normal and pb = pa - depth * normal
	 * lies on the plane touching b from the other side. */
	double pa[EPA_MAX_DIM];
	double pb[EPA_MAX_DIM];
	/* 3-D, when the seed was a full simplex taken as it is: the distance
	 * from the origin to the plane of its nearest facet (GJK88 eq. (32),
	 * a lower bound on the depth; >= 0), from the planes EPA computes for
	 * its first polytope anyway.  -1 otherwise. */
	double seed_bound;
	int converged;  /* depth is within tol of the true depth */
	int iterations; /* expansions (support evaluations of the main loop) */
} epa_answer;

/*
 * The penetration depth of the hulls of the shapes behind frames fa and fb
 * (dim 1..3).  seed[0..nseed-1] (nseed <= dim + 1) is GJK's final simplex
 * face, whose hull holds the origin within tol; common_a / common_b are
 * GJK's common point (on a and on b; equal within tol), the answer's points
 * when the hulls only touch.  tol is the absolute tolerance in frame units;
 * max_iterations caps the expansions (0: one per vertex of the two
 * shapes, at least CLASH_EPA_MAX_ITERATIONS, also the most it may be);
 * cancel (may be NULL), once nonzero, stops the search before its next
 * expansion with CLASH_ECANCELED.
 * In 3-D the frames' copies of their vertices (support_frame_keep_copy),
 * when they keep them, are turned into the relative scans' own.
 * Answers unless it returns CLASH_ENOMEM (its storage grows on the heap
 * past CLASH_EPA_FIXED_EXPANSIONS expansions) or CLASH_ECANCELED: a
 * degenerate polytope, a numerical inconsistency or the cap ends the
 * search with the best upper bound found and converged = 0.
 */
int epa_penetration(const support_frame *fa, const support_frame *fb, int dim,
                    const epa_vertex *seed, int nseed, const double *common_a,
                    const double *common_b, double tol, int max_iterations,
                    const volatile int *cancel, epa_answer *out);

#endif
