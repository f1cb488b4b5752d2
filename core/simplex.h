/*
 * simplex.h — Johnson's distance sub-algorithm (GJK88 section V) and the
 * backup procedure (GJK88 section VI, eq. (38)), internal to the core.
 *
 * Given up to CLASH_MAX_DIM + 1 points Y = {y_1..y_n}, find the point v of
 * their convex hull nearest the origin as v = sum lambda_i y_i over an affinely
 * independent subset Y_s (eq. (29)).  All three users — the sub-algorithm, the
 * backup procedure and the penetration bound d- of eq. (32) — read the same
 * table of cofactors Delta_i(Y_s) (eq. (30)), computed once per point set.
 */
#ifndef CLASH_SIMPLEX_H
#define CLASH_SIMPLEX_H

#include "clash.h"

#define SIMPLEX_MAX_POINTS (CLASH_MAX_DIM + 1)

/* Cofactors Delta_i(Y_s) for every subset s of the points, indexed by the
 * subset's bit mask: delta[s][i] for each i in s.  Masks are filled in
 * increasing order, which is an order of increasing inclusion. */
typedef struct simplex_table {
	int n;   /* number of points */
	int dim; /* their dimension */
	const double *y[SIMPLEX_MAX_POINTS];
	double delta[1u << SIMPLEX_MAX_POINTS][SIMPLEX_MAX_POINTS];
	double sum[1u << SIMPLEX_MAX_POINTS]; /* Delta(Y_s) */
} simplex_table;

/* The nearest point found over one subset. */
typedef struct simplex_solution {
	unsigned mask;                     /* the subset Y_s */
	double lambda[SIMPLEX_MAX_POINTS]; /* weights, 0 outside the subset */
	double v[CLASH_MAX_DIM];           /* sum lambda_i y_i */
	double vv;                         /* |v|^2 */
} simplex_solution;

/* Fill the cofactor table for n points y[0..n-1] of dimension dim. */
void simplex_cofactors(simplex_table *t, const double *const *y, int n, int dim);

/* Johnson's sub-algorithm: the subset satisfying the conditions of GJK88
 * Theorem 3.  Returns 1 and fills *sol, or 0 when rounding left no subset
 * satisfying them (the "failure" exit of step 4). */
int simplex_johnson(const simplex_table *t, simplex_solution *sol);

/* Backup procedure, eq. (38): among subsets of at most max_points points
 * whose v(aff Y_s) lies in the relative interior of co Y_s, the one whose
 * affine hull is nearest the origin, with v and the weights from
 * simplex_project.  The paper reads "relative interior" off the signs of
 * the cofactors (Delta > 0 and all Delta_i > 0); here it is read off the
 * projection's weights (all > 0, subsets too thin to project left out),
 * because the backup is what runs when the cofactors could not be
 * trusted: on a flat simplex their recursion loses every digit (their sum
 * can come out negative around a simplex that holds the origin).  In exact
 * arithmetic both choose v(co Y).  Always succeeds (singletons qualify);
 * uses only t->n, t->dim and t->y.  Costs a projection per subset:
 * 2^n - 1 of them, which is why it is only the fallback. */
void simplex_backup(const simplex_table *t, int max_points, simplex_solution *sol);

/* Every weight of the subset sol->mask positive (condition 2 of Theorem
 * 3, read off a projection); n is the number of points. */
int simplex_weights_positive(const simplex_solution *sol, int n);

/* Recompute v = v(aff Y_s) and the weights for the subset sol->mask by an
 * orthogonal projection (QR by Gram-Schmidt, each step done twice), which
 * keeps v orthogonal to the subset's edges to working precision however
 * small |v| is; the cofactors of eq. (30) lose that when the origin is
 * close to aff Y_s.  Returns 0, leaving *sol as it was, when the subset is
 * numerically affinely dependent (thinner than rounding). */
int simplex_project(const simplex_table *t, simplex_solution *sol);

/* GJK88 eq. (32): when the n = dim + 1 points form a simplex holding the
 * origin, the distance from the origin to its nearest facet's affine hull:
 * a lower bound on the penetration depth.  0 if some facet is degenerate. */
double simplex_depth_bound(const simplex_table *t);

/* The sub-algorithm of one GJK step in 3-D (simplex3.c): y[0..n-1] (n = 1..4,
 * points of dimension 3) are Vbar + {w}, w = y[n-1] the new support point.
 * Chooses the face of co Y that carries v(co Y) among those containing w
 * by region tests (the conditions of GJK88 Theorem 3 for those faces) and
 * projects onto it as simplex_project does.  Returns 1 and fills *sol, or 0
 * when the choice is not clear-cut (degenerate faces, a face without w):
 * then the caller runs simplex_cofactors and simplex_johnson. */
int simplex3_step(const double *const *y, int n, simplex_solution *sol);

/* simplex_depth_bound for four points in 3-D (simplex3.c), from the facets'
 * planes directly. */
double simplex3_depth_bound(const double *const *y);

/* Bits set in a subset mask (at most SIMPLEX_MAX_POINTS of them).  Written
 * out: __builtin_popcount is a call into libgcc on x86-64 without -mpopcnt,
 * and this runs a few times per GJK iteration. */
static inline int simplex_popcount(unsigned m)
{
	m = m - ((m >> 1) & 0x55555555u);
	m = (m & 0x33333333u) + ((m >> 2) & 0x33333333u);
	m = (m + (m >> 4)) & 0x0f0f0f0fu;
	return (int)((m * 0x01010101u) >> 24);
}

#endif
