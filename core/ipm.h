/*
 * ipm.h — a small dense primal-dual interior-point LP solver (internal to
 * the core; used by lp_ipm.c).
 *
 * It solves   min c.x + |z|^2/2  s.t.  A x + J z = b,  x >= 0
 * and its dual max b.y - |z|^2/2  s.t.  A^T y + s = c,  s >= 0,  z = J^T y
 * where z is a vector of `nfree` free variables, one per leading row (J =
 * the first nfree columns of the identity): a plain LP with nfree = 0, a
 * convex QP with more.  It is meant for few rows (at most IPM_MAX_ROWS: the
 * collision LP has dim + 2) and a modest number of columns, by Mehrotra's
 * predictor-corrector method (the method the 2005 interframe paper cites,
 * section 4.3), its Newton systems in a reduced augmented form that stays
 * well conditioned near a degenerate optimum (ipm.c, docs/design.md).
 *
 * Everything lives in one fixed-size struct: no allocation.  The caller
 * drives the iterations one at a time (ipm_step), because the collision
 * method stops on certificates it checks between steps (the paper's step 5),
 * not on optimality.  Iterates may be primal or dual infeasible; the
 * residuals are driven to zero along the way.
 */
#ifndef CLASH_IPM_H
#define CLASH_IPM_H

#include "clash.h"

#define IPM_MAX_ROWS (CLASH_MAX_DIM + 2)
#define IPM_MAX_COLS 120

typedef struct ipm_lp {
	int m, n;  /* rows, columns */
	int nfree; /* leading rows with a free variable z_r of cost z_r^2/2 */
	/* Column j of A is a[j*IPM_MAX_ROWS .. + m - 1]. */
	double a[IPM_MAX_COLS * IPM_MAX_ROWS];
	double b[IPM_MAX_ROWS];
	double c[IPM_MAX_COLS];
	/* The iterate: x > 0 and s > 0 throughout. */
	double x[IPM_MAX_COLS], s[IPM_MAX_COLS], y[IPM_MAX_ROWS];
	double z[IPM_MAX_ROWS];
} ipm_lp;

enum ipm_status {
	IPM_CONTINUE = 0, /* took a step; more would help */
	IPM_OPTIMAL,      /* duality gap and residuals at rounding level: no progress left */
	IPM_STALLED       /* the step collapsed or the numbers went bad: the iterate is kept */
};

/* The column j of A. */
static inline double *ipm_col(ipm_lp *lp, int j)
{
	return lp->a + (size_t)j * IPM_MAX_ROWS;
}

/* One predictor-corrector iteration from the current (x, y, s). */
enum ipm_status ipm_step(ipm_lp *lp);

/* Mean complementarity x.s / n. */
double ipm_mu(const ipm_lp *lp);

/* Purification of the primal iterate: the weights of the first k columns
 * moved onto A x = rhs (the other columns and z dropped) by the least
 * change in the norm sum dx_j^2 / x_j, x' = x + X A^T l with
 * (A X A^T) l = rhs - A x, then clamped at 0.  Near an optimum whose
 * support lies in the first k columns, with rhs = b minus the other
 * columns' optimal part, the change is tiny and x' solves A x' = rhs to
 * rounding; elsewhere it is only a guess, which the caller must measure.
 * With `crossover`, the columns whose weight is below their slack, each
 * relative to the largest (x_j / max x < s_j / max s: the dual slacks of a
 * QP whose dual is short are all short), are first set to 0 (they leave
 * the optimal face), and directions the rest leave nearly dependent are not
 * moved in: of dependent rows the trailing ones are kept (the collision
 * LP's sums of weights), the leading ones keep the offset they have (its
 * coordinates).  Writes out[0..k-1]; returns 0 if the numbers went bad. */
int ipm_project(const ipm_lp *lp, int k, const double *rhs, int crossover, double *out);

#endif
