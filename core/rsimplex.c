/*
 * rsimplex.c — the revised simplex method with Bland's rule (see rsimplex.h).
 *
 * One iteration: duals y = c_B B^-1; pricing d_j = c_j - y.a_j over the
 * non-basic columns (Bland: the first with d_j < -tol; Dantzig: the least);
 * the entering column's image alpha = B^-1 a_q; the ratio test over rows
 * with alpha_i > 0; the pivot, which updates B^-1 and x in place (the
 * product form applied to the dense inverse, O(m^2)).  Every
 * RSIMPLEX_REFACTOR pivots, and before declaring optimality, B^-1 is
 * rebuilt from the columns by Gauss-Jordan elimination with partial
 * pivoting and x = B^-1 b recomputed, so round-off cannot accumulate over
 * long runs; a solution is only called optimal when freshly factored.
 */
#include <assert.h>
#include <float.h>
#include <math.h>
#include <string.h>

#include "rsimplex.h"

/* A pivot element below this fraction of the largest |alpha_i| is not
 * used: dividing by it would amplify round-off. */
#define RSIMPLEX_PIVOT_RATIO 1e-11

/* Gauss-Jordan: a pivot below this fraction of the largest entry of B
 * means the basis is singular to working precision. */
#define RSIMPLEX_SINGULAR_RATIO 1e-14

/* Two ratios within this relative difference are a tie (degeneracy), for
 * Bland's choice of the leaving row. */
#define RSIMPLEX_TIE 1e-12

static int is_basic(const rsimplex *s, size_t j)
{
	for (int i = 0; i < s->m; i++)
		if (s->basis[i] == j)
			return 1;
	return 0;
}

static void update_duals(rsimplex *s)
{
	int m = s->m;
	s->objective = 0.0;
	for (int i = 0; i < m; i++)
		s->objective += s->cb[i] * s->x[i];
	for (int k = 0; k < m; k++) {
		double v = 0.0;
		for (int i = 0; i < m; i++)
			v += s->cb[i] * s->binv[i * m + k];
		s->y[k] = v;
	}
}

/* Rebuild B^-1 from the basic columns, then x and y. */
static int refactor(rsimplex *s, const rsimplex_lp *lp)
{
	int m = s->m;
	double bm[RSIMPLEX_MAX_ROWS * RSIMPLEX_MAX_ROWS]; /* row-major B */
	double col[RSIMPLEX_MAX_ROWS];
	double big = 0.0;
	for (int c = 0; c < m; c++) {
		s->cb[c] = lp->column(lp->ctx, s->basis[c], col);
		for (int r = 0; r < m; r++) {
			bm[r * m + c] = col[r];
			big = fmax(big, fabs(col[r]));
		}
	}
	double *inv = s->binv;
	memset(inv, 0, sizeof(double) * (size_t)(m * m));
	for (int i = 0; i < m; i++)
		inv[i * m + i] = 1.0;
	for (int k = 0; k < m; k++) {
		int p = k;
		for (int r = k + 1; r < m; r++)
			if (fabs(bm[r * m + k]) > fabs(bm[p * m + k]))
				p = r;
		double piv = bm[p * m + k];
		if (!(fabs(piv) > RSIMPLEX_SINGULAR_RATIO * big))
			return RSIMPLEX_SINGULAR;
		if (p != k)
			for (int c = 0; c < m; c++) {
				double t = bm[k * m + c];
				bm[k * m + c] = bm[p * m + c];
				bm[p * m + c] = t;
				t = inv[k * m + c];
				inv[k * m + c] = inv[p * m + c];
				inv[p * m + c] = t;
			}
		for (int c = 0; c < m; c++) {
			bm[k * m + c] /= piv;
			inv[k * m + c] /= piv;
		}
		for (int r = 0; r < m; r++) {
			if (r == k)
				continue;
			double f = bm[r * m + k];
			if (f == 0.0)
				continue;
			for (int c = 0; c < m; c++) {
				bm[r * m + c] -= f * bm[k * m + c];
				inv[r * m + c] -= f * inv[k * m + c];
			}
		}
	}
	for (int i = 0; i < m; i++) {
		double v = 0.0;
		for (int k = 0; k < m; k++)
			v += inv[i * m + k] * lp->b[k];
		/* A basic value a rounding error below 0 is 0: the basis is
		 * feasible by construction, the sign is noise. */
		s->x[i] = v > 0.0 ? v : 0.0;
	}
	update_duals(s);
	s->since_refactor = 0;
	return RSIMPLEX_OPTIMAL;
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

/* Pricing: the entering column, or lp->n when every reduced cost is
 * non-negative (within tolerance); its coefficients go to a_out. */
static size_t price(const rsimplex *s, const rsimplex_lp *lp, enum rsimplex_rule rule,
                    double *a_out)
{
	int m = s->m;
	double a[RSIMPLEX_MAX_ROWS];
	size_t best = lp->n;
	double best_d = -lp->tol_cost;
	for (size_t j = 0; j < lp->n; j++) {
		if (is_basic(s, j))
			continue;
		double d = lp->column(lp->ctx, j, a);
		for (int k = 0; k < m; k++)
			d -= s->y[k] * a[k];
		if (d < best_d) {
			best = j;
			best_d = d;
			memcpy(a_out, a, sizeof(double) * (size_t)m);
			if (rule == RSIMPLEX_BLAND)
				break; /* the lowest-numbered improving column */
		}
	}
	return best;
}

/* Ratio test on alpha = B^-1 a_q: the leaving row, or -1 (unbounded). */
static int ratio_test(const rsimplex *s, const double *alpha)
{
	int m = s->m;
	double amax = 0.0;
	for (int i = 0; i < m; i++)
		amax = fmax(amax, alpha[i]);
	if (!(amax > 0.0))
		return -1;
	double floor_alpha = RSIMPLEX_PIVOT_RATIO * amax;
	double theta = INFINITY;
	for (int i = 0; i < m; i++)
		if (alpha[i] > floor_alpha)
			theta = fmin(theta, s->x[i] / alpha[i]);
	double tie = theta + RSIMPLEX_TIE * (1.0 + theta);
	int r = -1;
	for (int i = 0; i < m; i++) {
		if (!(alpha[i] > floor_alpha) || s->x[i] / alpha[i] > tie)
			continue;
		/* The lowest-numbered leaving column (Bland's tie rule, also
		 * the textbook's with Dantzig's entering rule). */
		if (r < 0 || s->basis[i] < s->basis[r])
			r = i;
	}
	return r;
}

static void pivot(rsimplex *s, int r, size_t q, double cq, const double *alpha)
{
	int m = s->m;
	double *inv = s->binv;
	double ar = alpha[r];
	double theta = s->x[r] / ar;
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
	s->x[r] = theta;
	s->basis[r] = q;
	s->cb[r] = cq;
	update_duals(s);
	s->iterations++;
	s->since_refactor++;
}

int rsimplex_run(rsimplex *s, const rsimplex_lp *lp, enum rsimplex_rule rule, int max_pivots)
{
	int m = s->m;
	double a[RSIMPLEX_MAX_ROWS], alpha[RSIMPLEX_MAX_ROWS];
	int pivots = 0;
	for (;;) {
		if (lp->cancel && *lp->cancel)
			return RSIMPLEX_CANCELED;
		if (s->since_refactor >= RSIMPLEX_REFACTOR && refactor(s, lp) != RSIMPLEX_OPTIMAL)
			return RSIMPLEX_SINGULAR;
		size_t q = price(s, lp, rule, a);
		if (q == lp->n) {
			if (s->since_refactor == 0)
				return RSIMPLEX_OPTIMAL;
			/* Only a freshly factored solution may be called optimal. */
			if (refactor(s, lp) != RSIMPLEX_OPTIMAL)
				return RSIMPLEX_SINGULAR;
			continue;
		}
		if (pivots >= max_pivots) {
			if (s->since_refactor > 0 && refactor(s, lp) != RSIMPLEX_OPTIMAL)
				return RSIMPLEX_SINGULAR;
			return RSIMPLEX_CAPPED;
		}
		for (int i = 0; i < m; i++) {
			double v = 0.0;
			for (int k = 0; k < m; k++)
				v += s->binv[i * m + k] * a[k];
			alpha[i] = v;
		}
		int r = ratio_test(s, alpha);
		if (r < 0)
			return RSIMPLEX_UNBOUNDED;
		double cq = lp->column(lp->ctx, q, a);
		pivot(s, r, q, cq, alpha);
		pivots++;
	}
}

double rsimplex_value(const rsimplex *s, size_t j)
{
	for (int i = 0; i < s->m; i++)
		if (s->basis[i] == j)
			return s->x[i];
	return 0.0;
}
