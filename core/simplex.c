/*
 * simplex.c — Johnson's distance sub-algorithm and its backup procedure
 * (GJK88 sections V and VI).  See simplex.h.
 *
 * The recursion of eq. (30),
 *     Delta_i({y_i}) = 1,
 *     Delta_j(Y_s + {y_j}) = sum_{i in s} Delta_i(Y_s) (y_i.y_k - y_i.y_j),
 * is evaluated with the difference taken before the inner product,
 * y_i.(y_k - y_j): when two simplex points are close (near-degenerate
 * simplices, shapes touching, coordinates far from the origin) the two inner
 * products nearly cancel and forming them separately loses every digit that
 * the difference keeps.
 */
#include <assert.h>
#include <float.h>
#include <math.h>

#include "simplex.h"
#include "vec.h"

void simplex_cofactors(simplex_table *t, const double *const *y, int n, int dim)
{
	assert(n >= 1 && n <= SIMPLEX_MAX_POINTS);
	assert(dim >= 1 && dim <= CLASH_MAX_DIM);
	t->n = n;
	t->dim = dim;
	for (int i = 0; i < n; i++)
		t->y[i] = y[i];

	/* diff[k][j] = y_k - y_j, shared by every subset. */
	double diff[SIMPLEX_MAX_POINTS][SIMPLEX_MAX_POINTS][CLASH_MAX_DIM];
	for (int k = 0; k < n; k++)
		for (int j = 0; j < n; j++)
			if (k != j)
				vec_sub(diff[k][j], y[k], y[j], dim);

	unsigned full = (1u << n) - 1;
	for (unsigned m = 1; m <= full; m++) {
		if ((m & (m - 1)) == 0) { /* singleton */
			int i = __builtin_ctz(m);
			t->delta[m][i] = 1.0;
			t->sum[m] = 1.0;
			continue;
		}
		double total = 0.0;
		for (int j = 0; j < n; j++) {
			if (!(m & (1u << j)))
				continue;
			unsigned s = m & ~(1u << j);
			int k = __builtin_ctz(s);
			double d = 0.0;
			for (int i = 0; i < n; i++)
				if (s & (1u << i))
					d += t->delta[s][i] * vec_dot(y[i], diff[k][j], dim);
			t->delta[m][j] = d;
			total += d;
		}
		t->sum[m] = total;
	}
}

/* v(aff Y_s) = sum (Delta_i / Delta) y_i, eq. (31); requires Delta > 0. */
static void solve_subset(const simplex_table *t, unsigned m, simplex_solution *sol)
{
	int dim = t->dim;
	double inv = 1.0 / t->sum[m];
	sol->mask = m;
	vec_zero(sol->v, dim);
	for (int i = 0; i < t->n; i++) {
		if (m & (1u << i)) {
			sol->lambda[i] = t->delta[m][i] * inv;
			vec_axpy(sol->v, sol->lambda[i], t->y[i], dim);
		} else {
			sol->lambda[i] = 0.0;
		}
	}
	sol->vv = vec_dot(sol->v, sol->v, dim);
}

/* Delta(Y_s) > 0 and Delta_i(Y_s) > 0 for every i in s: v(aff Y_s) lies in
 * the relative interior of co Y_s (conditions 1 and 2 of Theorem 3). */
static int interior(const simplex_table *t, unsigned m)
{
	if (!(t->sum[m] > 0.0))
		return 0;
	for (int i = 0; i < t->n; i++)
		if ((m & (1u << i)) && !(t->delta[m][i] > 0.0))
			return 0;
	return 1;
}

int simplex_johnson(const simplex_table *t, simplex_solution *sol)
{
	unsigned full = (1u << t->n) - 1;
	int found = 0;
	for (unsigned m = 1; m <= full; m++) {
		if (!interior(t, m))
			continue;
		/* Condition 3: adding any other point must not help. */
		int ok = 1;
		for (int j = 0; j < t->n && ok; j++)
			if (!(m & (1u << j)) && t->delta[m | (1u << j)][j] > 0.0)
				ok = 0;
		if (!ok)
			continue;
		/* Exactly one subset qualifies unless Y is affinely dependent;
		 * then every qualifying one gives the same v in exact
		 * arithmetic, and the nearest computed one is the safest. */
		simplex_solution cand;
		solve_subset(t, m, &cand);
		if (!found || cand.vv < sol->vv)
			*sol = cand;
		found = 1;
	}
	return found;
}

int simplex_weights_positive(const simplex_solution *sol, int n)
{
	for (int i = 0; i < n; i++)
		if ((sol->mask & (1u << i)) && !(sol->lambda[i] > 0.0))
			return 0;
	return 1;
}

/* An edge whose component off the span of the previous ones is below this
 * many ulps of the longest edge is rounding, not geometry. */
#define DEPENDENT_ULPS 64.0

/* The Gram-Schmidt factorization E = Q R of a subset's edges
 * y_idx[j] - y_idx[0], j = 1..s-1, built one edge at a time: simplex_project
 * builds it for one subset, the backup procedure extends one subset's into
 * its supersets' (the same operations in the same order, so both get the
 * same bits). */
typedef struct simplex_qr {
	double q[SIMPLEX_MAX_POINTS][CLASH_MAX_DIM];      /* orthonormal basis */
	double r[SIMPLEX_MAX_POINTS][SIMPLEX_MAX_POINTS]; /* upper triangle */
} simplex_qr;

/* Factor edge j (1-based: column j - 1) from the base point and point y;
 * *longest is the longest edge so far, updated.  Returns 0 when the edge
 * is off the span of the previous ones by less than rounding. */
static int qr_extend(simplex_qr *f, const double *base, const double *y, int j, int dim,
                     double *longest)
{
	double *u = f->q[j - 1];
	vec_sub(u, y, base, dim);
	*longest = fmax(*longest, vec_norm(u, dim));
	for (int l = 0; l < j; l++)
		f->r[l][j - 1] = 0.0;
	/* Twice is enough (Kahan-Parlett): the second pass removes what
	 * rounding left of the first. */
	for (int pass = 0; pass < 2; pass++)
		for (int l = 0; l < j - 1; l++) {
			double c = vec_dot(f->q[l], u, dim);
			f->r[l][j - 1] += c;
			vec_axpy(u, -c, f->q[l], dim);
		}
	double len = vec_norm(u, dim);
	if (!(len > DEPENDENT_ULPS * DBL_EPSILON * *longest))
		return 0;
	f->r[j - 1][j - 1] = len;
	vec_scale(u, 1.0 / len, dim);
	return 1;
}

/* v(aff Y_s) and the weights, for the subset idx[0..s-1] whose s - 1
 * edges f holds.  Leaves sol->mask alone. */
static void qr_solve(const simplex_qr *f, const simplex_table *t, const int *idx, int s,
                     simplex_solution *sol)
{
	const int dim = t->dim;
	const double *base = t->y[idx[0]];
	/* v = base - Q Q^T base, the part of base off the edges' span; coef
	 * collects Q^T base. */
	double v[CLASH_MAX_DIM], coef[SIMPLEX_MAX_POINTS] = {0};
	vec_copy(v, base, dim);
	for (int pass = 0; pass < 2; pass++)
		for (int l = 0; l < s - 1; l++) {
			double c = vec_dot(f->q[l], v, dim);
			coef[l] += c;
			vec_axpy(v, -c, f->q[l], dim);
		}
	/* The nearest point is base + E c with R c = -coef: back-substitute. */
	double c[SIMPLEX_MAX_POINTS];
	for (int l = s - 2; l >= 0; l--) {
		double x = -coef[l];
		for (int k = l + 1; k < s - 1; k++)
			x -= f->r[l][k] * c[k];
		c[l] = x / f->r[l][l];
	}
	double first = 1.0;
	for (int i = 0; i < t->n; i++)
		sol->lambda[i] = 0.0;
	for (int l = 0; l < s - 1; l++) {
		sol->lambda[idx[l + 1]] = c[l];
		first -= c[l];
	}
	sol->lambda[idx[0]] = first;
	vec_copy(sol->v, v, dim);
	sol->vv = vec_dot(v, v, dim);
}

int simplex_project(const simplex_table *t, simplex_solution *sol)
{
	int idx[SIMPLEX_MAX_POINTS] = {0}, s = 0;
	for (int i = 0; i < t->n; i++)
		if (sol->mask & (1u << i))
			idx[s++] = i;
	/* (A single point is its own nearest point, filled in all the same:
	 * a caller, simplex_depth_bound with its 1-D facets, may not have.) */
	simplex_qr f;
	double longest = 0.0;
	for (int j = 1; j < s; j++)
		if (!qr_extend(&f, t->y[idx[0]], t->y[idx[j]], j, t->dim, &longest))
			return 0;
	qr_solve(&f, t, idx, s, sol);
	return 1;
}

/* The backup procedure's search: every subset of at most max_points
 * points, depth first from its lowest point, each a superset of the one
 * before it on the path, so each costs one more edge of the factorization
 * and one solve (rather than a whole factorization: 2^9 - 1 subsets in
 * 8-D).  A subset too thin to project makes every superset built on it
 * too thin as well (simplex_project fails at the same edge): skipped. */
typedef struct backup_search {
	const simplex_table *t;
	int max_points;
	int idx[SIMPLEX_MAX_POINTS];
	simplex_qr f;
	simplex_solution *best;
	int found;
} backup_search;

static void backup_visit(backup_search *b, int s, double longest)
{
	const simplex_table *t = b->t;
	simplex_solution cand;
	cand.mask = 0;
	for (int k = 0; k < s; k++)
		cand.mask |= 1u << b->idx[k];
	qr_solve(&b->f, t, b->idx, s, &cand);
	/* The least |v|; equal ones go to the lower mask, as a scan of the
	 * masks in order would choose. */
	if (simplex_weights_positive(&cand, t->n) &&
	    (!b->found || cand.vv < b->best->vv ||
	     (cand.vv == b->best->vv && cand.mask < b->best->mask))) {
		*b->best = cand;
		b->found = 1;
	}
	if (s == b->max_points)
		return;
	for (int j = b->idx[s - 1] + 1; j < t->n; j++) {
		double l = longest;
		b->idx[s] = j;
		if (qr_extend(&b->f, t->y[b->idx[0]], t->y[j], s, t->dim, &l))
			backup_visit(b, s + 1, l);
	}
}

void simplex_backup(const simplex_table *t, int max_points, simplex_solution *sol)
{
	backup_search b;
	b.t = t;
	b.max_points = max_points;
	b.best = sol;
	b.found = 0;
	for (int i = 0; i < t->n; i++) {
		b.idx[0] = i;
		backup_visit(&b, 1, 0.0);
	}
	assert(b.found); /* every singleton qualifies */
}

double simplex_depth_bound(const simplex_table *t)
{
	assert(t->n == t->dim + 1);
	unsigned full = (1u << t->n) - 1;
	double best = INFINITY;
	for (int i = 0; i < t->n; i++) {
		unsigned f = full & ~(1u << i);
		simplex_solution s;
		s.mask = f;
		if (!(t->sum[f] > 0.0) || !simplex_project(t, &s))
			return 0.0;
		if (s.vv < best)
			best = s.vv;
	}
	return sqrt(best);
}
