/*
 * oracle.h — an independent reference for the collision core, for tests only.
 *
 * Given two point sets A and B (world coordinates, dimension 2 or 3), the
 * oracle builds the convex hull of their Minkowski difference {a - b} with
 * qhull (libqhull_r, triangulated output "Qt") and reads the answer off its
 * facets:
 *   - the origin is inside the hull (every facet offset <= 0): the hulls of
 *     A and B overlap; the penetration depth is the distance from the origin
 *     to the nearest facet plane (the minimal translation distance);
 *   - otherwise the hull distance is the smallest exact point-to-simplex
 *     distance from the origin over all facets (the nearest point of a convex
 *     polytope to an exterior point lies on a facet).
 * Nothing here shares code or ideas with core/ (no GJK, no support mapping),
 * which is what makes it a fair judge.  It is slow (|A|·|B| points through
 * qhull) and meant for shapes of up to a few dozen vertices.
 *
 * A difference that is not full-dimensional (coplanar shapes in 3-D,
 * collinear in 2-D) or that qhull cannot handle gives an error code; the
 * oracle never guesses.  qhull's output is discarded and all its memory is
 * released before returning.
 */
#ifndef TESTS_ORACLE_H
#define TESTS_ORACLE_H

#include <stddef.h>

enum oracle_error {
	ORACLE_OK = 0,
	ORACLE_EINVAL = -1, /* bad dimension, empty set, null pointer, too many points */
	ORACLE_ENOMEM = -2, /* allocation failed */
	ORACLE_EFLAT = -3,  /* the difference is not full-dimensional */
	ORACLE_EQHULL = -4  /* any other qhull failure (precision, topology ...) */
};

typedef struct oracle_answer {
	/* The convex hulls of A and B themselves (radii ignored). */
	int hull_overlap;     /* origin in the closed hull of A - B */
	double hull_distance; /* distance between the hulls; 0 when they overlap */
	double hull_depth;    /* minimal translation to part them; 0 when apart */
	/* The point a - b of hull(A - B) nearest the origin (the origin itself
	 * when the hulls overlap): moving B by +near brings it into contact
	 * with A. */
	double near[3];
	/* The shapes grown by their radii ra and rb. */
	int intersecting; /* hull_distance <= ra + rb (touching counts) */
	double distance;  /* max(0, hull_distance - ra - rb) */
	double depth;     /* penetration depth of the rounded shapes; 0 when apart */
	int facets;       /* number of simplicial facets examined */
} oracle_answer;

/* Answer for the convex hulls of a (na points) and b (nb points), dim 2 or
 * 3, row-major, grown by radii ra and rb (>= 0).  Returns ORACLE_OK or a
 * negative ORACLE_E* code (then *out is zeroed). */
int oracle_query(int dim, const double *a, size_t na, double ra, const double *b, size_t nb,
                 double rb, oracle_answer *out);

/* Distance from point p to the convex hull of pts (n points, dim 2 or 3):
 * oracle_query with B = {p}, so pts must span the space.  Returns ORACLE_OK
 * and stores the distance (0 inside) in *dist, or an ORACLE_E* code. */
int oracle_point_distance(int dim, const double *pts, size_t n, const double *p, double *dist);

/* The facet planes of the convex hull of pts (n points, dim 2 or 3), by
 * qhull: *planes (malloc'd, free() it) gets *count rows of dim + 1
 * numbers, the outward unit normal u and h = max over pts of u.x (the
 * plane is u.x = h; triangulated, so a facet may come as several rows).
 * Returns ORACLE_OK or an ORACLE_E* code (then *planes is NULL). */
int oracle_hull_planes(int dim, const double *pts, size_t n, double **planes, size_t *count);

/* Static message for an ORACLE_E* code. */
const char *oracle_strerror(int err);

#endif
