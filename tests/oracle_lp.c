/*
 * oracle_lp.c — the exact LP oracle (see oracle_lp.h) over GLPK.
 *
 * The LP, columns lambda_i (a), mu_j (b), u_k, w_k (k < dim):
 *   minimize sum (u_k + w_k)
 *   rows k < dim:  sum lambda_i a_ik - sum mu_j b_jk + u_k - w_k = 0
 *   row dim:       sum lambda_i = 1
 *   row dim + 1:   sum mu_j = 1
 * It is always feasible and bounded (the optimum is the 1-norm distance),
 * so any status other than optimal is a GLPK failure.  glp_simplex gives a
 * starting basis, glp_exact then re-solves in rational arithmetic from it.
 *
 * glp_exact converts a double that is not an integer to a "nicer" nearby
 * fraction (relative error up to 1e-9: set_d_eps in GLPK's exact.c), but
 * an integer exactly.  So every coordinate is first scaled by one common
 * power of two that makes all of them integers (exact in binary floating
 * point), and the optimum is scaled back: the LP is then the exact one.
 */
#include <glpk.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "oracle_lp.h"

int oracle_lp_distance1(int dim, const double *a, size_t na, const double *b, size_t nb, double *d1,
                        int *intersecting, double *p, double *q)
{
	if (dim < 1 || !a || !b || na == 0 || nb == 0 || !d1 || !intersecting)
		return ORACLE_LP_EINVAL;
	glp_term_out(GLP_OFF);
	/* The power of two 2^k that makes every coordinate an integer:
	 * v = f 2^e with 0.5 <= |f| < 1 has 53 significant bits, so v 2^k is
	 * integral once k >= 53 - e. */
	int k2 = INT_MIN, emax = INT_MIN;
	for (size_t i = 0; i < (na + nb) * (size_t)dim; i++) {
		double v = i < na * (size_t)dim ? a[i] : b[i - na * (size_t)dim];
		if (!isfinite(v))
			return ORACLE_LP_EINVAL;
		if (v == 0.0)
			continue;
		int e;
		frexp(v, &e);
		if (53 - e > k2)
			k2 = 53 - e;
		if (e > emax)
			emax = e;
	}
	if (k2 == INT_MIN)
		k2 = 0; /* all zero */
	if (emax != INT_MIN && emax + k2 > 1000)
		return ORACLE_LP_EINVAL; /* magnitudes too far apart to scale */
	size_t ncols = na + nb + 2 * (size_t)dim;
	size_t nnz = (na + nb) * (size_t)(dim + 1) + 2 * (size_t)dim;
	int *ia = malloc((nnz + 1) * sizeof *ia), *ja = malloc((nnz + 1) * sizeof *ja);
	double *ar = malloc((nnz + 1) * sizeof *ar), *as = malloc((nnz + 1) * sizeof *as);
	if (!ia || !ja || !ar || !as) {
		free(ia);
		free(ja);
		free(ar);
		free(as);
		return ORACLE_LP_EGLPK;
	}
	glp_prob *lp = glp_create_prob();
	glp_set_obj_dir(lp, GLP_MIN);
	glp_add_rows(lp, dim + 2);
	for (int k = 0; k < dim; k++)
		glp_set_row_bnds(lp, k + 1, GLP_FX, 0.0, 0.0);
	glp_set_row_bnds(lp, dim + 1, GLP_FX, 1.0, 1.0);
	glp_set_row_bnds(lp, dim + 2, GLP_FX, 1.0, 1.0);
	glp_add_cols(lp, (int)ncols);
	size_t e = 0;
	for (size_t j = 0; j < na + nb; j++) {
		int col = (int)j + 1;
		int from_a = j < na;
		const double *x = from_a ? a + j * (size_t)dim : b + (j - na) * (size_t)dim;
		glp_set_col_bnds(lp, col, GLP_LO, 0.0, 0.0);
		glp_set_obj_coef(lp, col, 0.0);
		for (int k = 0; k < dim; k++) {
			if (x[k] == 0.0)
				continue;
			e++;
			ia[e] = k + 1;
			ja[e] = col;
			ar[e] = from_a ? x[k] : -x[k];
			as[e] = ldexp(ar[e], k2);
		}
		e++;
		ia[e] = from_a ? dim + 1 : dim + 2;
		ja[e] = col;
		ar[e] = as[e] = 1.0;
	}
	for (int k = 0; k < dim; k++)
		for (int s = 0; s < 2; s++) {
			int col = (int)(na + nb) + 2 * k + s + 1;
			glp_set_col_bnds(lp, col, GLP_LO, 0.0, 0.0);
			glp_set_obj_coef(lp, col, 1.0);
			e++;
			ia[e] = k + 1;
			ja[e] = col;
			ar[e] = as[e] = s ? -1.0 : 1.0;
		}
	/* A basis from the floating-point simplex on the data as given, then
	 * the exact simplex from it on the integer-scaled data (the basis
	 * statuses survive reloading the matrix). */
	glp_load_matrix(lp, (int)e, ia, ja, ar);
	glp_smcp parm;
	glp_init_smcp(&parm);
	parm.msg_lev = GLP_MSG_OFF;
	if (glp_simplex(lp, &parm) != 0)
		glp_std_basis(lp);
	glp_load_matrix(lp, (int)e, ia, ja, as);
	free(ia);
	free(ja);
	free(ar);
	free(as);
	int rc = glp_exact(lp, &parm);
	if (rc != 0 || glp_get_status(lp) != GLP_OPT) {
		glp_delete_prob(lp);
		return ORACLE_LP_EGLPK;
	}
	*d1 = ldexp(glp_get_obj_val(lp), -k2);
	*intersecting = *d1 == 0.0;
	if (p || q) {
		if (p)
			memset(p, 0, (size_t)dim * sizeof *p);
		if (q)
			memset(q, 0, (size_t)dim * sizeof *q);
		for (size_t j = 0; j < na + nb; j++) {
			double w = glp_get_col_prim(lp, (int)j + 1);
			int from_a = j < na;
			double *out = from_a ? p : q;
			if (!out || w == 0.0)
				continue;
			const double *x = from_a ? a + j * (size_t)dim : b + (j - na) * (size_t)dim;
			for (int k = 0; k < dim; k++)
				out[k] += w * x[k];
		}
	}
	glp_delete_prob(lp);
	return ORACLE_LP_OK;
}

int oracle_lp_contains_point(int dim, const double *pts, size_t n, const double *p, int *inside)
{
	double d1;
	if (!inside)
		return ORACLE_LP_EINVAL;
	return oracle_lp_distance1(dim, pts, n, p, 1, &d1, inside, NULL, NULL);
}

void oracle_lp_release(void)
{
	glp_free_env();
}
