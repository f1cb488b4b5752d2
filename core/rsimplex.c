/*
 * rsimplex.c — the revised simplex method with Bland's rule (see rsimplex.h).
 *
 * One iteration: pricing d_j = c_j - y.a_j over the non-basic columns
 * (Bland: the first with d_j < -tol; Dantzig: the least); the entering
 * column's image alpha = B^-1 a_q; the ratio test over rows with
 * alpha_i > 0; the pivot, which updates B^-1 and x in place (the product
 * form applied to the dense inverse, O(m^2)) and the duals y = c_B B^-1
 * and the objective by their rank-one updates (O(m)).  Every
 * RSIMPLEX_REFACTOR pivots, and before declaring optimality, B^-1 is
 * rebuilt from the columns by Gauss-Jordan elimination with partial
 * pivoting and x, y recomputed.  The collision LP of 3-D shapes has m = 5
 * rows: the loops per pivot are compiled with m = 5 known and unrolled
 * (RS_INLINE).  The shortcuts a caller may take (rsimplex_start_inverse,
 * lp.has_target, bounded columns) are rsimplex.h's; the pivot rules:
 * docs/design.md, "core/lp_simplex.c, rsimplex.c".
 */
#include <assert.h>
#include <float.h>
#include <math.h>
#include <string.h>

#include "cancel.h"
#include "lanes.h"
#include "gauss.h"
#include "rsimplex.h"

/* A pivot element below this fraction of the largest |alpha_i| is not
 * used: dividing by it would amplify round-off. */
#define RSIMPLEX_PIVOT_RATIO 1e-11

/* Two ratios within this relative difference are a tie (degeneracy), for
 * Bland's choice of the leaving row. */
#define RSIMPLEX_TIE 1e-12

/* Forced inlining of the per-pivot work with m as a compile-time constant
 * for the common m = 5 (3-D collision LPs): the loops over rows unroll. */
#if defined(__GNUC__)
#define RS_INLINE static inline __attribute__((always_inline))
#else
#define RS_INLINE static inline
#endif
/* ... and those loops unrolled where m is known: the Makefile compiles
 * this file with -funroll-loops (a hint, not needed for correctness). */

/* Whether column j is basic; m = s->m, a constant where inlined. */
RS_INLINE int is_basic_m(const rsimplex *s, size_t j, const int m)
{
	int found = 0;
	for (int i = 0; i < m; i++)
		found |= s->basis[i] == j;
	return found;
}

static int is_basic(const rsimplex *s, size_t j)
{
	return is_basic_m(s, j, s->m);
}

RS_INLINE void update_duals(rsimplex *s, const int m)
{
	s->objective = 0.0;
	for (int i = 0; i < m; i++)
		s->objective += s->cb[i] * s->x[i];
	/* Rows of zero cost add nothing (in the collision LP, the vertex
	 * columns'): skipped. */
	double y[RSIMPLEX_MAX_ROWS] = {0};
	for (int i = 0; i < m; i++)
		if (s->cb[i] != 0.0)
			for (int k = 0; k < m; k++)
				y[k] += s->cb[i] * s->binv[i * m + k];
	memcpy(s->y, y, sizeof(double) * (size_t)m);
}

/* Rebuild B^-1 from the basic columns, then x and y. */
RS_INLINE int refactor_m(rsimplex *s, const rsimplex_lp *lp, const int m)
{
	double bm[RSIMPLEX_MAX_ROWS * RSIMPLEX_MAX_ROWS]; /* row-major B */
	double col[RSIMPLEX_MAX_ROWS];
	for (int c = 0; c < m; c++) {
		s->cb[c] = lp->column(lp->ctx, s->basis[c], col);
		for (int r = 0; r < m; r++)
			bm[r * m + c] = col[r];
	}
	double *inv = s->binv;
	if (gauss_invert(bm, inv, m, m, 1) != 0)
		return RSIMPLEX_SINGULAR;
	for (int i = 0; i < m; i++) {
		double v = 0.0;
		for (int k = 0; k < m; k++)
			v += inv[i * m + k] * lp->b[k];
		/* A basic value a rounding error below 0 is 0: the basis is
		 * feasible by construction, the sign is noise. */
		s->x[i] = v > 0.0 ? v : 0.0;
	}
	update_duals(s, m);
	s->since_refactor = 0;
	return RSIMPLEX_OPTIMAL;
}

static int refactor(rsimplex *s, const rsimplex_lp *lp)
{
	if (s->m == 5)
		return refactor_m(s, lp, 5);
	return refactor_m(s, lp, s->m);
}

int rsimplex_start(rsimplex *s, const rsimplex_lp *lp, const size_t *basis)
{
	assert(lp->m >= 1 && lp->m <= RSIMPLEX_MAX_ROWS && lp->n >= (size_t)lp->m);
	memset(s, 0, sizeof *s);
	s->m = lp->m;
	for (int i = 0; i < lp->m; i++) {
		assert(basis[i] < lp->n);
		s->basis[i] = basis[i];
	}
	return refactor(s, lp);
}

RS_INLINE void start_inverse_m(rsimplex *s, const rsimplex_lp *lp, const size_t *basis,
                               const double *binv, const double *cb, const int m)
{
	s->m = m;
	s->iterations = 0;
	s->since_refactor = 0;
	s->degenerate = 0;
	s->priced = 0;
	if (binv != s->binv) /* the caller may have written it in place */
		memcpy(s->binv, binv, sizeof(double) * (size_t)(m * m));
	for (int i = 0; i < m; i++) {
		assert(basis[i] < lp->n);
		s->basis[i] = basis[i];
		s->cb[i] = cb[i];
	}
	/* x = B^-1 b over the non-zero entries of b (the collision LP's
	 * are its two convexity rows). */
	double x[RSIMPLEX_MAX_ROWS] = {0};
	for (int k = 0; k < m; k++)
		if (lp->b[k] != 0.0)
			for (int i = 0; i < m; i++)
				x[i] += binv[i * m + k] * lp->b[k];
	for (int i = 0; i < m; i++)
		s->x[i] = x[i] > 0.0 ? x[i] : 0.0;
	update_duals(s, m);
}

int rsimplex_start_inverse(rsimplex *s, const rsimplex_lp *lp, const size_t *basis,
                           const double *binv, const double *cb)
{
	assert(lp->m >= 1 && lp->m <= RSIMPLEX_MAX_ROWS && lp->n >= (size_t)lp->m);
	if (lp->m == 5)
		start_inverse_m(s, lp, basis, binv, cb, 5);
	else
		start_inverse_m(s, lp, basis, binv, cb, lp->m);
	return RSIMPLEX_OPTIMAL;
}

/* Pricing: the entering column, or lp->n when every reduced cost is
 * non-negative (within tolerance); its coefficients go to a_out, its cost
 * to *c_out and its reduced cost to *d_out. */
RS_INLINE size_t price(const rsimplex *s, const rsimplex_lp *lp, enum rsimplex_rule rule,
                       const int m, double tol, double *a_out, double *c_out, double *d_out)
{
	double a[RSIMPLEX_MAX_ROWS];
	size_t best = lp->n;
	double best_d = -tol;
	if (rule == RSIMPLEX_DANTZIG_BLAND) {
		if (s->degenerate) {
			rule = RSIMPLEX_BLAND;
		} else if (lp->dantzig) {
			double c, d;
			size_t j = lp->dantzig(lp->ctx, s->y, a, &c, &d);
			if (!(d < best_d))
				return lp->n; /* the least reduced cost is >= -tol */
			if (!is_basic_m(s, j, m)) {
				memcpy(a_out, a, sizeof(double) * (size_t)m);
				*c_out = c;
				*d_out = d;
				return j;
			}
			/* A basic column priced below -tol: round-off beyond
			 * reason; let Bland's rule find an entering column. */
			rule = RSIMPLEX_BLAND;
		} else {
			rule = RSIMPLEX_DANTZIG;
		}
	}
	if (rule == RSIMPLEX_BLAND && lp->bland) {
		for (size_t from = 0; from < lp->n;) {
			size_t j = lp->bland(lp->ctx, s->y, tol, from);
			if (j >= lp->n)
				break;
			if (!is_basic(s, j)) {
				/* The scan's arithmetic is not the column's: keep
				 * the column's verdict on its reduced cost. */
				double c = lp->column(lp->ctx, j, a);
				double d = c;
				for (int k = 0; k < m; k++)
					d -= s->y[k] * a[k];
				if (d < best_d) {
					memcpy(a_out, a, sizeof(double) * (size_t)m);
					*c_out = c;
					*d_out = d;
					return j;
				}
			}
			from = j + 1;
		}
		return lp->n;
	}
	for (size_t j = 0; j < lp->n; j++) {
		if (is_basic(s, j))
			continue;
		double c = lp->column(lp->ctx, j, a);
		double d = c;
		for (int k = 0; k < m; k++)
			d -= s->y[k] * a[k];
		if (d < best_d) {
			best = j;
			best_d = d;
			memcpy(a_out, a, sizeof(double) * (size_t)m);
			*c_out = c;
			*d_out = d;
			if (rule == RSIMPLEX_BLAND)
				break; /* the lowest-numbered improving column */
		}
	}
	return best;
}

/* Ratio test on alpha = B^-1 a_q: the leaving row, or -1 (unbounded). */
RS_INLINE int ratio_test(const rsimplex *s, const double *alpha, const int m)
{
	double amax = 0.0;
	for (int i = 0; i < m; i++)
		if (alpha[i] > amax)
			amax = alpha[i];
	if (!(amax > 0.0))
		return -1;
	double floor_alpha = RSIMPLEX_PIVOT_RATIO * amax;
	double theta = INFINITY, ratio[RSIMPLEX_MAX_ROWS];
	for (int i = 0; i < m; i++) {
		/* Each ratio once (a division is slow); +inf for rows that
		 * do not block. */
		ratio[i] = alpha[i] > floor_alpha ? s->x[i] / alpha[i] : INFINITY;
		if (ratio[i] < theta)
			theta = ratio[i];
	}
	double tie = theta + RSIMPLEX_TIE * (1.0 + theta);
	int r = -1;
	for (int i = 0; i < m; i++) {
		if (!(ratio[i] <= tie))
			continue;
		/* The lowest-numbered leaving column (Bland's tie rule, also
		 * the textbook's with Dantzig's entering rule). */
		if (r < 0 || s->basis[i] < s->basis[r])
			r = i;
	}
	return r;
}

/* The end of a pivot (below): the entering column's value, cost and
 * place, the objective, the counts. */
RS_INLINE void pivot_finish(rsimplex *s, int r, size_t q, double cq, double dq, double theta)
{
	s->x[r] = theta;
	s->basis[r] = q;
	s->cb[r] = cq;
	const double objective = s->objective + theta * dq;
	if (!(objective < s->objective))
		s->degenerate = 1;
	s->objective = objective;
	s->iterations++;
	s->since_refactor++;
}

/* The pivot: column q (cost cq, reduced cost dq) enters in row r.  B^-1
 * and x by the product form; the duals and the objective by their rank-one
 * updates, y' = y + dq (row r of the new B^-1) and c.x' = c.x + theta dq,
 * O(m) instead of O(m^2) (refactor() recomputes both from scratch). */
RS_INLINE void pivot(rsimplex *s, int r, size_t q, double cq, double dq, const double *alpha,
                     const int m)
{
	double *inv = s->binv;
	double ar = alpha[r];
	double theta = s->x[r] / ar;
	if (m == 5) {
		/* The same operations, on five rows (lanes.h): the same bits. */
		lanes_pivot5(inv, r, alpha, theta, dq, s->x, s->y);
		pivot_finish(s, r, q, cq, dq, theta);
		return;
	}
	for (int c = 0; c < m; c++)
		inv[r * m + c] /= ar;
	for (int i = 0; i < m; i++) {
		if (i == r)
			continue;
		double f = alpha[i];
		if (f != 0.0)
			for (int c = 0; c < m; c++)
				inv[i * m + c] -= f * inv[r * m + c];
		double v = s->x[i] - theta * f;
		s->x[i] = v > 0.0 ? v : 0.0;
	}
	for (int k = 0; k < m; k++)
		s->y[k] += dq * inv[r * m + k];
	pivot_finish(s, r, q, cq, dq, theta);
}

RS_INLINE void ftran(const rsimplex *s, const double *a, double *alpha, const int m)
{
	for (int i = 0; i < m; i++) {
		double v = 0.0;
		for (int k = 0; k < m; k++)
			v += s->binv[i * m + k] * a[k];
		alpha[i] = v;
	}
}

RS_INLINE int run_m(rsimplex *s, const rsimplex_lp *lp, enum rsimplex_rule rule, int max_pivots,
                    const int m)
{
	double a[RSIMPLEX_MAX_ROWS], alpha[RSIMPLEX_MAX_ROWS];
	int pivots = 0;
	for (;;) {
		if (cancel_requested(lp->cancel))
			return RSIMPLEX_CANCELED;
		if (lp->has_target && s->objective <= lp->target)
			return RSIMPLEX_TARGET;
		if (s->since_refactor >= RSIMPLEX_REFACTOR && refactor(s, lp) != RSIMPLEX_OPTIMAL)
			return RSIMPLEX_SINGULAR;
		double cq = 0.0, dq = 0.0;
		/* Between refactorizations, with the columns' entries bounded,
		 * price to 7/8 of the tolerance: then when no column enters,
		 * the refactored duals y' may call the solution optimal
		 * without pricing again, as long as |y' - y|_1 col_max <= tol/8
		 * (every reduced cost moves by at most that). */
		const int margin = s->since_refactor > 0 && lp->col_max > 0.0;
		const double tol = margin ? 0.875 * lp->tol_cost : lp->tol_cost;
		/* Resuming after RSIMPLEX_PRICED: that pricing stands. */
		size_t q = s->priced ? lp->n : price(s, lp, rule, m, tol, a, &cq, &dq);
		if (q == lp->n) {
			if (s->since_refactor == 0)
				return RSIMPLEX_OPTIMAL;
			if (lp->priced_ok && !s->priced) {
				s->priced = 1;
				return RSIMPLEX_PRICED;
			}
			s->priced = 0;
			/* Only a freshly factored solution may be called optimal. */
			double y[RSIMPLEX_MAX_ROWS];
			memcpy(y, s->y, sizeof(double) * (size_t)m);
			if (refactor(s, lp) != RSIMPLEX_OPTIMAL)
				return RSIMPLEX_SINGULAR;
			if (margin) {
				double dy = 0.0;
				for (int k = 0; k < m; k++)
					dy += fabs(s->y[k] - y[k]);
				if (dy * lp->col_max <= 0.125 * lp->tol_cost)
					return RSIMPLEX_OPTIMAL;
			}
			continue;
		}
		if (pivots >= max_pivots) {
			if (s->since_refactor > 0 && refactor(s, lp) != RSIMPLEX_OPTIMAL)
				return RSIMPLEX_SINGULAR;
			return RSIMPLEX_CAPPED;
		}
		ftran(s, a, alpha, m);
		int r = ratio_test(s, alpha, m);
		if (r < 0)
			return RSIMPLEX_UNBOUNDED;
		pivot(s, r, q, cq, dq, alpha, m);
		pivots++;
	}
}

int rsimplex_run(rsimplex *s, const rsimplex_lp *lp, enum rsimplex_rule rule, int max_pivots)
{
	/* The same code; with m = 5 known, the compiler unrolls it. */
	if (s->m == 5)
		return run_m(s, lp, rule, max_pivots, 5);
	return run_m(s, lp, rule, max_pivots, s->m);
}

double rsimplex_value(const rsimplex *s, size_t j)
{
	for (int i = 0; i < s->m; i++)
		if (s->basis[i] == j)
			return s->x[i];
	return 0.0;
}
