/*
 * pairgen.h — the random shape pairs of the "random_pairs" suite, shared by
 * the suites that judge a method on them (check_random_pairs.c against the
 * qhull oracle, check_method_ipm.c against clash_gjk and the oracle).
 *
 * A pair is built from its seed alone, so a failing case is replayed from
 * the printed seed.  Shapes: points on spheres, in balls, box corners plus
 * extra points, elongated and thin ellipsoids; 4..40 vertices in 3-D, 3..40
 * in 2-D; scales 1e-3..1e3 with a size ratio up to 25 between the two;
 * posed by quaternion or angle + translation, by a homogeneous matrix with
 * non-uniform scale and shear, or given directly in world coordinates; a
 * fifth of the pairs sit ~1e5 away from the origin; some are rounded by
 * radii.  The placement is exact by construction: B is moved along the
 * normal ray of the nearest point of A - B (found by the oracle), which
 * sets the hull gap to any chosen value (separated, touching within
 * 1e-13..1e-4 of the size either way, or overlapping).  See
 * check_random_pairs.c for how answers are judged.
 */
#ifndef TESTS_PAIRGEN_H
#define TESTS_PAIRGEN_H

#include <stddef.h>
#include <stdint.h>

#include "clash.h"
#include "oracle.h"

#define PAIR_MAXV 40

enum pose_kind {
	POSE_NONE,
	POSE_ROTATION,
	POSE_MATRIX
};
enum shape_kind {
	SHAPE_SPHERE,
	SHAPE_BALL,
	SHAPE_BOX,
	SHAPE_ELONGATED,
	SHAPE_KINDS
};

/* One shape of a pair.  World point = lin·local + t, relative to the
 * pair's origin O; the core sees O + t as its translation (or, unposed,
 * O + world as its vertices). */
typedef struct pshape {
	int dim, shape, pose;
	size_t count;
	double local[PAIR_MAXV * 3];
	double radius;
	double q[4];      /* POSE_ROTATION in 3-D: (x, y, z, w) */
	double angle;     /* POSE_ROTATION in 2-D */
	double lin[9];    /* column-major dim x dim */
	double t[3];      /* relative to O */
	double extent;    /* half-diagonal of the world bounding box */
	double center[3]; /* centre of that box, relative to O */
	/* Filled by pshape_build: */
	double verts[PAIR_MAXV * 3]; /* what the core borrows */
	double world[PAIR_MAXV * 3]; /* relative to O, for the oracle */
	double mat[16];              /* POSE_MATRIX: homogeneous, column-major */
	double trans[3];             /* absolute translation O + t */
} pshape;

typedef struct pair {
	uint64_t seed;
	int dim;
	double O[3];
	double gap; /* the hull gap aimed at (negative: overlap) */
	const char *placement;
	pshape a, b;
} pair;

/* Build the pair for `seed` in dim 2 or 3, with the core's shapes in *ca
 * and *cb and the oracle's answer for them in *ans.  Returns 0, or -1 when
 * the oracle cannot judge it (a flat difference); a core error on a valid
 * shape fails the running Check test. */
int pair_make(pair *p, uint64_t seed, int dim, clash_shape *ca, clash_shape *cb,
              oracle_answer *ans);

/* Print the whole pair (seed, placement, poses, vertices) to stdout. */
void pair_dump(const pair *p);

/* The seed of pair i of a run whose seeds start from `base`. */
uint64_t pair_seed(uint64_t base, int i);

#endif
