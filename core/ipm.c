/*
 * ipm.c — Mehrotra's predictor-corrector interior-point method (see ipm.h).
 *
 * One step (Wright, Primal-Dual Interior-Point Methods, 1997, ch. 10; the
 * 2005 paper's section 4.3 in the infeasible form): residuals rp = b - A x,
 * rd = c - A^T y - s, mu = x.s / n; the predictor, the Newton step to
 * x.s = 0; centring sigma = (mu_aff / mu)^3; the corrector, the Newton step
 * to x.s = sigma mu minus the predictor's second-order term, on the same
 * factorization; a fraction of the way to the boundary, primal and dual
 * separately (with free variables, a QP, the same step: z = J^T y).
 * Each Newton system  A dx + J dz = rp,  A^T dy + ds = rd,  dz - J^T dy = rz,
 * S dx + X ds = rxs  (D = X S^-1) is reduced to the augmented system of the
 * columns whose D_j exceeds 1 (the support S, at most IPM_MAX_AUG of them;
 * the rest N are eliminated into a normal matrix):
 *     [ A_N D_N A_N^T + J J^T   A_S     ] [ dy   ]   [ rp - J rz + A_N (D rd - S^-1 rxs)_N ]
 *     [ -A_S^T                  D_S^-1  ] [ dx_S ] = [ (X^-1 rxs - rd)_S                   ]
 * then ds = rd - A^T dy, dx_N = S^-1 (rxs - X ds), dz = rz + J^T dy; at
 * most m + IPM_MAX_AUG <= 20 rows, by Gaussian elimination with partial
 * pivoting.  Why not the paper's normal equations: docs/design.md.
 */
#include <assert.h>
#include <float.h>
#include <math.h>
#include <string.h>

#include "ipm.h"

/* A pivot below this fraction of its diagonal entry (of its column's largest
 * entry, in the Newton system) counts as zero: only exact dependence, since
 * refinement copes with ill-conditioning. */
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

/* Columns kept in the augmented block of the Newton system (a vertex of the
 * feasible set has at most m nonzero columns), and the system's size. */
#define IPM_MAX_AUG IPM_MAX_ROWS
#define IPM_MAX_KKT (IPM_MAX_ROWS + IPM_MAX_AUG)

/* Rounds of iterative refinement of each Newton direction. */
#define IPM_REFINE 2

/* Fraction of the way to the boundary that a step goes. */
#define IPM_STEP_FRACTION 0.99

/* A step shorter than this (both primal and dual) makes no progress. */
#define IPM_MIN_STEP 1e-10

/* Complementarity (n mu, the duality gap of a feasible iterate) at this
 * fraction of the data's scale is as far as doubles go: past it the Newton
 * systems are so ill-conditioned that the residuals grow again. */
#define IPM_OPTIMAL_GAP 1e-15

/* ---- the projection's factorization ----------------------------------------
 *
 * K = sum_j w_j a_j a_j^T, Cholesky-factored with the rows taken last
 * first: where the support leaves rows dependent, the pivot that is skipped
 * is then a leading row's (the collision LP's coordinates) and the trailing
 * ones (its sum-of-weights rows) are kept, so a projection keeps the
 * weights of each shape summing to 1 and leaves an offset the support
 * cannot move in the coordinates. */

typedef struct ipm_factor {
	int m;
	double l[IPM_MAX_ROWS][IPM_MAX_ROWS]; /* indices: row m - 1 - i */
	int skip[IPM_MAX_ROWS];
} ipm_factor;

static int factor(const ipm_lp *lp, int n, const double *d, double ratio, ipm_factor *f)
{
	int m = lp->m;
	double k[IPM_MAX_ROWS][IPM_MAX_ROWS];
	memset(k, 0, sizeof k);
	for (int j = 0; j < n; j++) {
		const double *a = lp->a + (size_t)j * IPM_MAX_ROWS;
		for (int r = 0; r < m; r++) {
			double dr = d[j] * a[m - 1 - r];
			if (dr == 0.0)
				continue;
			for (int q = 0; q <= r; q++)
				k[r][q] += dr * a[m - 1 - q];
		}
	}
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

/* Solve K x = r in place; skipped pivots give 0 components. */
static void solve(const ipm_factor *f, double *r)
{
	int m = f->m;
	double z[IPM_MAX_ROWS];
	for (int j = 0; j < m; j++)
		z[j] = r[m - 1 - j];
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
		for (int q = j + 1; q < m; q++)
			s -= f->l[q][j] * z[q];
		z[j] = s / f->l[j][j];
	}
	for (int j = 0; j < m; j++)
		r[m - 1 - j] = z[j];
}

/* ---- the Newton system ----------------------------------------------------
 *
 * The reduced augmented system of the top comment: unknowns dy (m) and
 * dx_j of the columns in big[] (k), rows the primal equations and those
 * columns' complementarity equations divided by x_j. */

typedef struct ipm_kkt {
	int m, k, size;
	int big[IPM_MAX_AUG]; /* the columns of the augmented block */
	int in_big[IPM_MAX_COLS];
	double lu[IPM_MAX_KKT][IPM_MAX_KKT]; /* the system, then its LU factors */
	int swap[IPM_MAX_KKT];               /* row swapped with at each step */
	int pivcol[IPM_MAX_KKT];             /* pivot column of each step */
	int steps;
} ipm_kkt;

/* Build and factor the system for scaling d.  Returns -1 if the numbers
 * went bad. */
static int kkt_factor(const ipm_lp *lp, const double *d, ipm_kkt *k)
{
	int m = lp->m, n = lp->n;
	/* The support: the largest D_j above 1, at most IPM_MAX_AUG of them. */
	k->m = m;
	k->k = 0;
	for (int j = 0; j < n; j++) {
		k->in_big[j] = 0;
		if (!(d[j] > 1.0))
			continue;
		if (k->k == IPM_MAX_AUG && !(d[j] > d[k->big[IPM_MAX_AUG - 1]]))
			continue;
		int at = k->k < IPM_MAX_AUG ? k->k++ : IPM_MAX_AUG - 1;
		while (at > 0 && d[k->big[at - 1]] < d[j]) {
			k->big[at] = k->big[at - 1];
			at--;
		}
		k->big[at] = j;
	}
	for (int t = 0; t < k->k; t++)
		k->in_big[k->big[t]] = 1;
	int size = k->size = m + k->k;
	for (int r = 0; r < size; r++)
		for (int q = 0; q < size; q++)
			k->lu[r][q] = 0.0;
	for (int j = 0; j < n; j++) {
		if (k->in_big[j])
			continue;
		const double *a = lp->a + (size_t)j * IPM_MAX_ROWS;
		for (int r = 0; r < m; r++) {
			double dr = d[j] * a[r];
			if (dr == 0.0)
				continue;
			for (int q = 0; q < m; q++)
				k->lu[r][q] += dr * a[q];
		}
	}
	for (int r = 0; r < lp->nfree; r++)
		k->lu[r][r] += 1.0;
	for (int t = 0; t < k->k; t++) {
		int j = k->big[t];
		const double *a = lp->a + (size_t)j * IPM_MAX_ROWS;
		for (int r = 0; r < m; r++) {
			k->lu[r][m + t] = a[r];
			k->lu[m + t][r] = -a[r];
		}
		k->lu[m + t][m + t] = 1.0 / d[j];
	}
	/* Gaussian elimination with partial pivoting. */
	double colmax[IPM_MAX_KKT];
	for (int q = 0; q < size; q++) {
		colmax[q] = 0.0;
		for (int r = 0; r < size; r++)
			colmax[q] = fmax(colmax[q], fabs(k->lu[r][q]));
		if (!isfinite(colmax[q]))
			return -1;
	}
	int row = 0;
	for (int c = 0; c < size && row < size; c++) {
		int best = row;
		for (int r = row + 1; r < size; r++)
			if (fabs(k->lu[r][c]) > fabs(k->lu[best][c]))
				best = r;
		if (!(fabs(k->lu[best][c]) > IPM_PIVOT_RATIO * colmax[c]))
			continue; /* no pivot: this unknown is 0 */
		k->swap[row] = best;
		if (best != row) {
			for (int q = 0; q < size; q++) {
				double t = k->lu[row][q];
				k->lu[row][q] = k->lu[best][q];
				k->lu[best][q] = t;
			}
		}
		k->pivcol[row] = c;
		double piv = k->lu[row][c];
		for (int r = row + 1; r < size; r++) {
			double f = k->lu[r][c] / piv;
			k->lu[r][c] = f; /* the multiplier, where the eliminated entry was */
			if (f == 0.0)
				continue;
			for (int q = c + 1; q < size; q++)
				k->lu[r][q] -= f * k->lu[row][q];
		}
		row++;
	}
	k->steps = row;
	return 0;
}

/* Solve the factored system for right-hand side v (in place). */
static void kkt_solve(const ipm_kkt *k, double *v)
{
	int size = k->size;
	double x[IPM_MAX_KKT];
	/* The row swaps were applied to whole rows, multipliers included, so
	 * they all come first (as LAPACK's getrs). */
	for (int t = 0; t < k->steps; t++) {
		int s = k->swap[t];
		double tmp = v[t];
		v[t] = v[s];
		v[s] = tmp;
	}
	for (int t = 0; t < k->steps; t++) {
		int c = k->pivcol[t];
		for (int r = t + 1; r < size; r++)
			v[r] -= k->lu[r][c] * v[t];
	}
	for (int q = 0; q < size; q++)
		x[q] = 0.0;
	for (int t = k->steps - 1; t >= 0; t--) {
		int c = k->pivcol[t];
		double sum = v[t];
		for (int q = c + 1; q < size; q++)
			sum -= k->lu[t][q] * x[q];
		x[c] = sum / k->lu[t][c];
	}
	for (int q = 0; q < size; q++)
		v[q] = x[q];
}

/* The Newton direction for complementarity target rxs (see the top):
 * the reduced system solved, then ds, dx and dz from dy; iterative
 * refinement on the primal rows and the support's rows. */
static void direction(const ipm_lp *lp, const ipm_kkt *k, const double *rp, const double *rd,
                      const double *rz, const double *d, const double *rxs, double *dx, double *dy,
                      double *ds, double *dz)
{
	int m = lp->m, n = lp->n;
	double v[IPM_MAX_KKT];
	for (int r = 0; r < m; r++)
		v[r] = rp[r] - (r < lp->nfree ? rz[r] : 0.0);
	for (int j = 0; j < n; j++) {
		if (k->in_big[j])
			continue;
		const double *a = lp->a + (size_t)j * IPM_MAX_ROWS;
		double t = d[j] * rd[j] - rxs[j] / lp->s[j];
		for (int r = 0; r < m; r++)
			v[r] += t * a[r];
	}
	for (int t = 0; t < k->k; t++) {
		int j = k->big[t];
		v[m + t] = rxs[j] / lp->x[j] - rd[j];
	}
	double sol[IPM_MAX_KKT];
	for (int q = 0; q < k->size; q++)
		sol[q] = 0.0;
	/* Round 0 solves; the others solve for the defect of the full Newton
	 * equations (A dx + J dz = rp and the support's complementarity rows)
	 * and correct: near the optimum the primal rows drift from rp by far
	 * more than the rounding of rp itself otherwise, and the primal
	 * certificate needs the iterates primal feasible. */
	for (int round = 0; round <= IPM_REFINE; round++) {
		kkt_solve(k, v);
		for (int q = 0; q < k->size; q++)
			sol[q] += v[q];
		for (int r = 0; r < m; r++)
			dy[r] = sol[r];
		for (int j = 0; j < n; j++) {
			const double *a = lp->a + (size_t)j * IPM_MAX_ROWS;
			double t = rd[j];
			for (int r = 0; r < m; r++)
				t -= a[r] * dy[r];
			ds[j] = t;
			if (!k->in_big[j])
				dx[j] = (rxs[j] - lp->x[j] * t) / lp->s[j];
		}
		for (int t = 0; t < k->k; t++)
			dx[k->big[t]] = sol[m + t];
		for (int r = 0; r < lp->nfree; r++)
			dz[r] = rz[r] + dy[r];
		if (round == IPM_REFINE)
			break;
		for (int r = 0; r < m; r++)
			v[r] = rp[r] - (r < lp->nfree ? dz[r] : 0.0);
		for (int j = 0; j < n; j++) {
			const double *a = lp->a + (size_t)j * IPM_MAX_ROWS;
			for (int r = 0; r < m; r++)
				v[r] -= a[r] * dx[j];
		}
		for (int t = 0; t < k->k; t++) {
			int j = k->big[t];
			v[m + t] = (rxs[j] - lp->s[j] * dx[j] - lp->x[j] * ds[j]) / lp->x[j];
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

	ipm_kkt f;
	if (kkt_factor(lp, d, &f))
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
	double w[IPM_MAX_COLS], xmax = 0.0, smax = 0.0;
	for (int j = 0; j < k; j++) {
		xmax = fmax(xmax, lp->x[j]);
		smax = fmax(smax, lp->s[j]);
	}
	for (int j = 0; j < k; j++)
		w[j] = !crossover || lp->x[j] * smax >= lp->s[j] * xmax ? lp->x[j] : 0.0;
	double ratio = crossover ? IPM_PROJECT_PIVOT_RATIO : IPM_PIVOT_RATIO;
	for (int pass = 0; pass < IPM_PROJECT_PASSES; pass++) {
		ipm_factor f;
		if (factor(lp, k, w, ratio, &f))
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
