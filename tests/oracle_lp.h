/*
 * oracle_lp.h — an exact LP reference in any dimension, for tests only.
 *
 * The qhull oracle (oracle.h) is limited to 2-D and 3-D; this one answers
 * in any dimension by linear programming with GLPK, solved first in
 * floating point (glp_simplex) and then in exact rational arithmetic
 * (glp_exact), so its verdicts are the exact truth for the given doubles:
 *   - intersection: is there lambda, mu >= 0, sum lambda = sum mu = 1, with
 *     sum lambda_i a_i = sum mu_j b_j?  Answered through the 1-norm
 *     distance d1 = min |sum lambda_i a_i - sum mu_j b_j|_1, which is 0
 *     exactly when the hulls meet;
 *   - containment of a point in a hull (b = {p}).
 * GLPK shares nothing with core/ (no support mappings, no Bland's rule in
 * its exact solver), which is what makes it a fair judge of the "simplex"
 * method.  Not thread-safe (GLPK's environment is per thread and its
 * terminal output is switched off globally).
 */
#ifndef TESTS_ORACLE_LP_H
#define TESTS_ORACLE_LP_H

#include <stddef.h>

enum oracle_lp_error {
	ORACLE_LP_OK = 0,
	ORACLE_LP_EINVAL = -1, /* bad dimension, empty set, null pointer */
	ORACLE_LP_EGLPK = -2   /* GLPK failed to solve (should not happen) */
};

/* The 1-norm distance between the hulls of a (na points) and b (nb
 * points), dimension dim >= 1, row-major world coordinates: *d1 (the exact
 * optimum rounded to a double) and *intersecting (d1 == 0 exactly).  Also
 * the optimal pair: p (dim numbers) in co(a) and q in co(b), either may be
 * NULL.  Returns ORACLE_LP_OK or a negative code. */
int oracle_lp_distance1(int dim, const double *a, size_t na, const double *b, size_t nb, double *d1,
                        int *intersecting, double *p, double *q);

/* Whether p lies in the hull of pts (n points): *inside.  Returns
 * ORACLE_LP_OK or a negative code. */
int oracle_lp_contains_point(int dim, const double *pts, size_t n, const double *p, int *inside);

/* Release GLPK's per-thread environment (call at the end of a test so the
 * leak checker sees nothing left). */
void oracle_lp_release(void);

#endif
