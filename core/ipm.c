/*
 * ipm.c — Mehrotra's predictor-corrector interior-point method on the
 * normal equations (see ipm.h).
 *
 * One step (Wright, Primal-Dual Interior-Point Methods, 1997, ch. 10; the
 * paper's section 4.3 in the infeasible form):
 *   residuals  rp = b - A x,  rd = c - A^T y - s,  mu = x.s / n;
 *   predictor  the Newton step to x.s = 0 (the affine-scaling direction);
 *   centring   sigma = (mu_aff / mu)^3 from how far the predictor got;
 *   corrector  the Newton step to x.s = sigma mu minus the predictor's
 *              second-order term, on the same factorization;
 *   step       a fraction of the way to the boundary, primal and dual
 *              separately.
 * Each Newton system  A dx + J dz = rp,  A^T dy + ds = rd,  dz - J^T dy = rz,
 * S dx + X ds = rxs  is reduced to
 *     (A D A^T + J J^T) dy = rp + A (D rd - S^-1 rxs) - J rz,  D = X S^-1,
 * then ds = rd - A^T dy, dx = S^-1 (rxs - X ds), dz = rz + J^T dy.  The
 * m x m matrix is formed in O(n m^2) and factored in O(m^3) with m <= 10.
 * With free variables (a QP) the primal and dual take the same step, since
 * z = J^T y ties them together.
 *
 * Near the optimum D spans many orders of magnitude and A D A^T becomes
 * nearly singular in the directions of the optimal face.  Two rounds of
 * iterative refinement of each direction, on the same factor, keep the
 * iterates primal feasible to rounding (without them the primal residual
 * grows to 1e-6 on touching shapes).  A pivot that is zero or negative
 * (a row dependent from the start, such as a coordinate that is 0 on every
 * vertex of a flat scene) is treated as infinite, following Wright
 * ("Modified Cholesky factorizations in interior-point algorithms", 1999):
 * that component of dy is 0.
 *
 * ipm_project, the purification of a nearly optimal primal iterate, uses
 * the same factorization with the weights as the scaling.
 */
#include <assert.h>
#include <float.h>
#include <math.h>
#include <string.h>

#include "ipm.h"

/* A pivot below this fraction of its diagonal entry counts as zero: only
 * exact dependence, since refinement copes with ill-conditioning. */
#define IPM_PIVOT_RATIO 1e-30

/* In a projection, directions this close to dependent on the support are
 * left alone: the target is consistent in them up to rounding. */
#define IPM_PROJECT_PIVOT_RATIO 1e-13

/* Active-set passes of a projection (each drops the columns that went
 * negative). */
#define IPM_PROJECT_PASSES 4

/* A projected weight this far below 0, relative to the largest, is
 * rounding. */
#define IPM_PROJECT_ROUNDING 1e-12

/* Rounds of iterative refinement of each Newton direction. */
#define IPM_REFINE 2

/* Fraction of the way to the boundary that a step goes. */
#define IPM_STEP_FRACTION 0.99

/* A step shorter than this (both primal and dual) makes no progress. */
#define IPM_MIN_STEP 1e-10

/* Complementarity (n mu, the duality gap of a feasible iterate) at this
 * fraction of the data's scale is as far as doubles go: past it the normal
 * equations are so ill-conditioned that the residuals grow again. */
#define IPM_OPTIMAL_GAP 1e-15

typedef struct ipm_factor {
	int m;
	double l[IPM_MAX_ROWS][IPM_MAX_ROWS];
	int skip[IPM_MAX_ROWS];
} ipm_factor;

/* K = sum_{j < n} d_j a_j a_j^T + J J^T (J: the first nfree rows; lower
 * triangle), then its Cholesky factor. */
static int factor(const ipm_lp *lp, int n, int nfree, const double *d, double ratio,
                  ipm_factor *f)
{
	int m = lp->m;
	double k[IPM_MAX_ROWS][IPM_MAX_ROWS];
	memset(k, 0, sizeof k);
	for (int j = 0; j < n; j++) {
		const double *a = lp->a + (size_t)j * IPM_MAX_ROWS;
		for (int r = 0; r < m; r++) {
			double dr = d[j] * a[r];
			if (dr == 0.0)
				continue;
			for (int q = 0; q <= r; q++)
				k[r][q] += dr * a[q];
		}
	}
	for (int r = 0; r < nfree; r++)
		k[r][r] += 1.0;
	f->m = m;
	for (int j = 0; j < m; j++) {
		double v = k[j][j];
		for (int q = 0; q < j; q++)
			v -= f->l[j][q] * f->l[j][q];
		f->skip[j] = !(v > ratio * k[j][j]);
		if (!isfinite(v))
			return -1;
		if (f->skip[j]) {
			for (int r = j; r < m; r++)
				f->l[r][j] = 0.0;
			continue;
		}
		double p = sqrt(v);
		f->l[j][j] = p;
		for (int r = j + 1; r < m; r++) {
			double s = k[r][j];
			for (int q = 0; q < j; q++)
				s -= f->l[r][q] * f->l[j][q];
			f->l[r][j] = s / p;
		}
	}
	return 0;
}

/* Solve L L^T z = r in place; skipped pivots give 0 components. */
static void solve(const ipm_factor *f, double *z)
{
	int m = f->m;
	for (int j = 0; j < m; j++) {
		if (f->skip[j]) {
			z[j] = 0.0;
			continue;
		}
		double s = z[j];
		for (int q = 0; q < j; q++)
			s -= f->l[j][q] * z[q];
		z[j] = s / f->l[j][j];
	}
	for (int j = m - 1; j >= 0; j--) {
		if (f->skip[j]) {
			z[j] = 0.0;
			continue;
		}
		double s = z[j];
		for (int r = j + 1; r < m; r++)
			s -= f->l[r][j] * z[r];
		z[j] = s / f->l[j][j];
	}
}

/* The Newton direction for complementarity target rxs (see the top). */
static void direction(const ipm_lp *lp, const ipm_factor *f, const double *rp,
                      const double *rd, const double *rz, const double *d,
                      const double *rxs, double *dx, double *dy, double *ds, double *dz)
{
	int m = lp->m, n = lp->n;
	for (int r = 0; r < m; r++)
		dy[r] = rp[r] - (r < lp->nfree ? rz[r] : 0.0);
	for (int j = 0; j < n; j++) {
		const double *a = lp->a + (size_t)j * IPM_MAX_ROWS;
		double t = d[j] * rd[j] - rxs[j] / lp->s[j];
		for (int r = 0; r < m; r++)
			dy[r] += t * a[r];
	}
	solve(f, dy);
	for (int j = 0; j < n; j++) {
		const double *a = lp->a + (size_t)j * IPM_MAX_ROWS;
		double t = rd[j];
		for (int r = 0; r < m; r++)
			t -= a[r] * dy[r];
		ds[j] = t;
		dx[j] = (rxs[j] - lp->x[j] * t) / lp->s[j];
	}
	for (int r = 0; r < lp->nfree; r++)
		dz[r] = rz[r] + dy[r];
	/* Iterative refinement: near the optimum D spans many orders of
	 * magnitude and A dx + J dz drifts from rp by far more than the
	 * rounding of rp itself; solving for the defect with the same factor
	 * and correcting (dy += e, ds -= A^T e, dx += D A^T e, dz += e) keeps
	 * the iterates primal feasible, which is what the primal certificate
	 * needs. */
	for (int round = 0; round < IPM_REFINE; round++) {
		double e[IPM_MAX_ROWS];
		for (int r = 0; r < m; r++)
			e[r] = rp[r] - (r < lp->nfree ? dz[r] : 0.0);
		for (int j = 0; j < n; j++) {
			const double *a = lp->a + (size_t)j * IPM_MAX_ROWS;
			for (int r = 0; r < m; r++)
				e[r] -= a[r] * dx[j];
		}
		solve(f, e);
		for (int r = 0; r < m; r++)
			dy[r] += e[r];
		for (int r = 0; r < lp->nfree; r++)
			dz[r] += e[r];
		for (int j = 0; j < n; j++) {
			const double *a = lp->a + (size_t)j * IPM_MAX_ROWS;
			double t = 0.0;
			for (int r = 0; r < m; r++)
				t += a[r] * e[r];
			ds[j] -= t;
			dx[j] += d[j] * t;
		}
	}
}

/* Largest step keeping v + step * dv >= 0 (infinite if none is too long). */
static double max_step(const double *v, const double *dv, int n)
{
	double t = INFINITY;
	for (int j = 0; j < n; j++)
		if (dv[j] < 0.0 && -v[j] / dv[j] < t)
			t = -v[j] / dv[j];
	return t;
}

double ipm_mu(const ipm_lp *lp)
{
	double g = 0.0;
	for (int j = 0; j < lp->n; j++)
		g += lp->x[j] * lp->s[j];
	return g / lp->n;
}

enum ipm_status ipm_step(ipm_lp *lp)
{
	int m = lp->m, n = lp->n;
	assert(m >= 1 && m <= IPM_MAX_ROWS && n >= 1 && n <= IPM_MAX_COLS);
	double rp[IPM_MAX_ROWS], rd[IPM_MAX_COLS], d[IPM_MAX_COLS], rxs[IPM_MAX_COLS];
	double rz[IPM_MAX_ROWS];
	double rpn = 0.0, rdn = 0.0, scale = 1.0;
	assert(lp->nfree >= 0 && lp->nfree <= m);
	for (int r = 0; r < m; r++) {
		rp[r] = lp->b[r];
		scale = fmax(scale, fabs(lp->b[r]));
	}
	for (int r = 0; r < lp->nfree; r++) {
		rp[r] -= lp->z[r];
		rz[r] = lp->y[r] - lp->z[r];
		rdn = fmax(rdn, fabs(rz[r]));
	}
	for (int j = 0; j < n; j++) {
		const double *a = lp->a + (size_t)j * IPM_MAX_ROWS;
		double t = lp->c[j] - lp->s[j];
		for (int r = 0; r < m; r++) {
			rp[r] -= a[r] * lp->x[j];
			t -= a[r] * lp->y[r];
		}
		rd[j] = t;
		rdn = fmax(rdn, fabs(t));
		scale = fmax(scale, fabs(lp->c[j]));
		d[j] = lp->x[j] / lp->s[j];
		if (!(d[j] > 0.0) || !isfinite(d[j]))
			return IPM_STALLED;
	}
	for (int r = 0; r < m; r++)
		rpn = fmax(rpn, fabs(rp[r]));
	double mu = ipm_mu(lp);
	if (!isfinite(mu) || !isfinite(rpn) || !isfinite(rdn))
		return IPM_STALLED;
	if (mu * n <= IPM_OPTIMAL_GAP * scale)
		return IPM_OPTIMAL;

	ipm_factor f;
	if (factor(lp, n, lp->nfree, d, IPM_PIVOT_RATIO, &f))
		return IPM_STALLED;

	/* Predictor. */
	double dx[IPM_MAX_COLS], ds[IPM_MAX_COLS], dy[IPM_MAX_ROWS], dz[IPM_MAX_ROWS];
	for (int j = 0; j < n; j++)
		rxs[j] = -lp->x[j] * lp->s[j];
	direction(lp, &f, rp, rd, rz, d, rxs, dx, dy, ds, dz);
	double ap = fmin(1.0, max_step(lp->x, dx, n)), ad = fmin(1.0, max_step(lp->s, ds, n));
	if (lp->nfree)
		ap = ad = fmin(ap, ad);
	double gaff = 0.0;
	for (int j = 0; j < n; j++)
		gaff += (lp->x[j] + ap * dx[j]) * (lp->s[j] + ad * ds[j]);
	double sigma = gaff / n / mu;
	sigma = sigma * sigma * sigma;
	if (!(sigma <= 1.0))
		sigma = 1.0;

	/* Corrector, on the same factor. */
	for (int j = 0; j < n; j++)
		rxs[j] = -lp->x[j] * lp->s[j] - dx[j] * ds[j] + sigma * mu;
	direction(lp, &f, rp, rd, rz, d, rxs, dx, dy, ds, dz);
	ap = fmin(1.0, IPM_STEP_FRACTION * max_step(lp->x, dx, n));
	ad = fmin(1.0, IPM_STEP_FRACTION * max_step(lp->s, ds, n));
	if (lp->nfree)
		ap = ad = fmin(ap, ad);
	for (int j = 0; j < n; j++)
		if (!isfinite(dx[j]) || !isfinite(ds[j]))
			return IPM_STALLED;
	for (int r = 0; r < m; r++)
		if (!isfinite(dy[r]) || (r < lp->nfree && !isfinite(dz[r])))
			return IPM_STALLED;
	if (ap < IPM_MIN_STEP && ad < IPM_MIN_STEP)
		return IPM_STALLED;

	for (int j = 0; j < n; j++) {
		double x = lp->x[j] + ap * dx[j], s = lp->s[j] + ad * ds[j];
		/* The fraction to the boundary keeps both positive, unless
		 * rounding lands exactly on 0: keep a floor there, so that D
		 * stays finite. */
		lp->x[j] = x > DBL_MIN ? x : DBL_MIN;
		lp->s[j] = s > DBL_MIN ? s : DBL_MIN;
	}
	for (int r = 0; r < m; r++)
		lp->y[r] += ad * dy[r];
	for (int r = 0; r < lp->nfree; r++)
		lp->z[r] += ap * dz[r];
	return IPM_CONTINUE;
}

int ipm_project(const ipm_lp *lp, int k, const double *rhs, int crossover, double *out)
{
	int m = lp->m;
	assert(k >= 1 && k <= lp->n);
	/* The support that moves: every column, or with crossover those whose
	 * weight is not below its slack (the others leave the optimal face). */
	double w[IPM_MAX_COLS];
	for (int j = 0; j < k; j++)
		w[j] = !crossover || lp->x[j] >= lp->s[j] ? lp->x[j] : 0.0;
	double ratio = crossover ? IPM_PROJECT_PIVOT_RATIO : IPM_PIVOT_RATIO;
	for (int pass = 0; pass < IPM_PROJECT_PASSES; pass++) {
		ipm_factor f;
		if (factor(lp, k, 0, w, ratio, &f))
			return 0;
		for (int j = 0; j < k; j++)
			out[j] = w[j];
		/* Two rounds: the second removes what rounding left of the first. */
		for (int round = 0; round < 2; round++) {
			double r[IPM_MAX_ROWS];
			for (int i = 0; i < m; i++)
				r[i] = rhs[i];
			for (int j = 0; j < k; j++) {
				const double *a = lp->a + (size_t)j * IPM_MAX_ROWS;
				for (int i = 0; i < m; i++)
					r[i] -= a[i] * out[j];
			}
			solve(&f, r);
			for (int j = 0; j < k; j++) {
				const double *a = lp->a + (size_t)j * IPM_MAX_ROWS;
				double t = 0.0;
				for (int i = 0; i < m; i++)
					t += a[i] * r[i];
				out[j] += w[j] * t;
			}
		}
		/* A weight pushed below 0 belongs to a column leaving the support:
		 * drop it and project again (an active-set step). */
		int dropped = 0;
		double big = 0.0, low = 0.0;
		for (int j = 0; j < k; j++) {
			if (!isfinite(out[j]))
				return 0;
			big = fmax(big, out[j]);
			low = fmin(low, out[j]);
		}
		/* Weights below 0 by rounding only are 0. */
		if (low >= -IPM_PROJECT_ROUNDING * big)
			break;
		for (int j = 0; j < k; j++) {
			if (out[j] < 0.0 && w[j] > 0.0) {
				w[j] = 0.0;
				dropped++;
			}
		}
		if (!dropped)
			break;
	}
	/* What is left below 0 goes to 0.  The caller measures what the
	 * weights give, so a bad guess only costs a worse point. */
	for (int j = 0; j < k; j++)
		if (out[j] < 0.0)
			out[j] = 0.0;
	return 1;
}
