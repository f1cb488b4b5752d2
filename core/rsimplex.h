/*
 * rsimplex.h — a small revised simplex method with Bland's rule (internal
 * to the core; used by lp_simplex.c).
 *
 * It solves  min c.x  subject to  A x = b, x >= 0  for A with at most
 * RSIMPLEX_MAX_ROWS rows and any number of columns, starting from a primal
 * feasible basis the caller supplies.  The columns are never stored: the
 * caller's callback produces column j (and its cost) whenever the method
 * needs it, so a problem whose columns are the vertices of posed shapes is
 * priced straight from the borrowed vertex arrays, with no copy and no
 * allocation.  All state is one fixed-size struct: the basis, its explicit
 * inverse (m <= 10: a dense inverse is the simplest and the cheapest), the
 * basic values and the duals.
 *
 * Pivoting (Kreuzer 2016, "Remarks"): Bland's rule, which cannot cycle, or
 * Dantzig's until the first pivot that does not lower the objective and
 * Bland's from there on (RSIMPLEX_DANTZIG_BLAND); Dantzig's alone is for
 * tests.  The inverse is refactored every RSIMPLEX_REFACTOR pivots and
 * before optimality is declared (unless lp.priced_ok): docs/design.md.
 */
#ifndef CLASH_RSIMPLEX_H
#define CLASH_RSIMPLEX_H

#include <stddef.h>

#include "clash.h"

/* Rows: the dimension, plus the two convexity rows of the collision LP. */
#define RSIMPLEX_MAX_ROWS (CLASH_MAX_DIM + 2)

/* Pivots between two refactorizations of the basis inverse. */
#define RSIMPLEX_REFACTOR 16

/* Column j of the problem: writes its m coefficients to a and returns its
 * cost.  Must be pure: the same j always gives the same column. */
typedef double (*rsimplex_column_fn)(const void *ctx, size_t j, double *a);

typedef struct rsimplex_lp {
	int m;    /* rows, 1..RSIMPLEX_MAX_ROWS */
	size_t n; /* columns, n >= m */
	double b[RSIMPLEX_MAX_ROWS];
	rsimplex_column_fn column;
	const void *ctx;
	/* Reduced costs above -tol_cost count as non-negative (optimality);
	 * in the units of the costs. */
	double tol_cost;
	/* Cooperative cancellation (clash_options.cancel): read before each
	 * pivot; NULL for none. */
	const volatile int *cancel;
	/* Optional, for Bland's rule: the lowest-numbered column j >= from
	 * whose reduced cost c_j - y.a_j is below -tol, or n if none, found
	 * without building the columns (say by a scan of the vertices the
	 * columns come from).  It may return a basic column (whose reduced
	 * cost is 0 up to rounding); the caller skips it.  NULL: price
	 * column by column. */
	size_t (*bland)(const void *ctx, const double *y, double tol, size_t from);
	/* Optional, for Dantzig's rule (RSIMPLEX_DANTZIG_BLAND): the column
	 * of least reduced cost, found without pricing column by column (say
	 * by support scans of the vertices the columns come from).  Writes
	 * its m coefficients to a, its cost to *c and its reduced cost
	 * c - y.a (from the written column, in that order) to *d.  It may
	 * return a basic column (reduced cost 0 up to rounding).  NULL: price
	 * column by column. */
	size_t (*dantzig)(const void *ctx, const double *y, double *a, double *c, double *d);
	/* The largest |entry| of any column, when the caller knows a bound
	 * (0: unknown).  With it, a solution found optimal before a
	 * refactorization is confirmed from how far the duals moved instead
	 * of by pricing every column again (rsimplex_run). */
	double col_max;
	/* Early stop (Kreuzer's first stopping rule: the minimum is already
	 * small enough to decide): when has_target, rsimplex_run returns
	 * RSIMPLEX_TARGET as soon as the objective is <= target. */
	int has_target;
	double target;
	/* When set, a run whose pricing finds no entering column on duals
	 * that were updated since the last factorization returns
	 * RSIMPLEX_PRICED instead of refactoring to confirm: a caller whose
	 * answer rests on certificates of its own (bounds recomputed from the
	 * data, true whatever round-off did to the basis) may not need the
	 * confirmation.  Running again resumes there: the refactorization,
	 * then optimality or more pivots. */
	int priced_ok;
} rsimplex_lp;

/* RSIMPLEX_DANTZIG_BLAND: Dantzig's rule as long as every pivot lowers
 * the objective, Bland's from the first one that does not (for good, in
 * this and later runs of the same rsimplex).  It cannot cycle: until the
 * switch the objective falls strictly, so no basis comes back; after it,
 * Bland's rule. */
enum rsimplex_rule {
	RSIMPLEX_BLAND,
	RSIMPLEX_DANTZIG,
	RSIMPLEX_DANTZIG_BLAND
};

enum rsimplex_status {
	RSIMPLEX_OPTIMAL = 0,
	RSIMPLEX_CAPPED,    /* the pivot cap ended the search: x is feasible, not optimal */
	RSIMPLEX_UNBOUNDED, /* a column with negative reduced cost and no blocking row */
	RSIMPLEX_SINGULAR,  /* the basis became numerically singular */
	RSIMPLEX_CANCELED,  /* *lp->cancel was set */
	RSIMPLEX_TARGET,    /* the objective reached lp->target: x is feasible, maybe not optimal */
	RSIMPLEX_PRICED     /* lp->priced_ok: no column enters, not yet confirmed (see there) */
};

typedef struct rsimplex {
	int m;
	size_t basis[RSIMPLEX_MAX_ROWS];                    /* the column basic in each row */
	double cb[RSIMPLEX_MAX_ROWS];                       /* their costs */
	double binv[RSIMPLEX_MAX_ROWS * RSIMPLEX_MAX_ROWS]; /* B^-1, row-major */
	double x[RSIMPLEX_MAX_ROWS];                        /* basic values, B^-1 b (>= 0) */
	double y[RSIMPLEX_MAX_ROWS];                        /* duals, c_B B^-1 */
	double objective;                                   /* c_B . x */
	int iterations;                                     /* pivots made */
	int since_refactor;
	int degenerate; /* a pivot did not lower the objective */
	int priced;     /* the last run returned RSIMPLEX_PRICED */
} rsimplex;

/* Set up the basis `basis` (m distinct column indices) and factor it.
 * Returns RSIMPLEX_OPTIMAL (0) when it is non-singular, else
 * RSIMPLEX_SINGULAR.  Negative basic values (an infeasible start, or
 * round-off) are clamped to 0. */
int rsimplex_start(rsimplex *s, const rsimplex_lp *lp, const size_t *basis);

/* The same from an inverse the caller knows in closed form (binv: B^-1,
 * row-major m x m, which may be s->binv itself, written in place; cb: the
 * basic columns' costs), without elimination. */
int rsimplex_start_inverse(rsimplex *s, const rsimplex_lp *lp, const size_t *basis,
                           const double *binv, const double *cb);

/* Pivot by `rule` until optimal, or at most max_pivots more pivots.
 * Returns an rsimplex_status. */
int rsimplex_run(rsimplex *s, const rsimplex_lp *lp, enum rsimplex_rule rule, int max_pivots);

/* The value of column j in the current solution (0 when non-basic). */
double rsimplex_value(const rsimplex *s, size_t j);

#endif /* CLASH_RSIMPLEX_H */
