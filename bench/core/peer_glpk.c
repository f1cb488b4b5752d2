/*
 * peer_glpk.c — GLPK 5.0's glp_simplex on the same LP as the core's method
 * "simplex" (core/lp_simplex.c): Kreuzer's problem P2 in the symmetric form,
 * built from the same vertices (posed into world coordinates):
 *
 *   minimize  sum_k (u_k + w_k)
 *   subject to  sum_i lambda_i a_ik - sum_j mu_j b_jk + u_k - w_k = 0   (k < 3)
 *               sum lambda_i = 1,  sum mu_j = 1,  all variables >= 0
 *
 * The minimum is 0 iff the hulls intersect.  The problem is built in
 * prepare (not timed); each timed query resets the basis to GLPK's
 * standard one (glp_std_basis; otherwise the second solve would start at
 * the optimum) and runs the primal simplex with default parameters and the
 * terminal output off.  The verdict: the optimum is below 1e-9 of the
 * scene size.
 */
#include <math.h>
#include <stdlib.h>

#include <glpk.h>

#include "bench.h"

typedef struct lp {
	glp_prob *p;
	glp_smcp parm;
	double tol;
} lp;

static void *prep(const bench_case *c)
{
	size_t na = c->a.m, nb = c->b.m;
	double *wa = malloc(3 * na * sizeof *wa), *wb = malloc(3 * nb * sizeof *wb);
	bench_world(&c->a, wa);
	bench_world(&c->b, wb);
	lp *h = calloc(1, sizeof *h);
	h->p = glp_create_prob();
	glp_set_obj_dir(h->p, GLP_MIN);
	glp_add_rows(h->p, 5);
	for (int r = 1; r <= 3; r++)
		glp_set_row_bnds(h->p, r, GLP_FX, 0.0, 0.0);
	glp_set_row_bnds(h->p, 4, GLP_FX, 1.0, 1.0);
	glp_set_row_bnds(h->p, 5, GLP_FX, 1.0, 1.0);
	int ncol = (int)(na + nb) + 6;
	glp_add_cols(h->p, ncol);
	int ind[5];
	double val[5];
	for (int j = 1; j <= ncol; j++) {
		glp_set_col_bnds(h->p, j, GLP_LO, 0.0, 0.0);
		size_t v = (size_t)j - 1;
		int len;
		if (v < na + nb) {
			int from_a = v < na;
			const double *x = from_a ? wa + 3 * v : wb + 3 * (v - na);
			for (int k = 0; k < 3; k++) {
				ind[k + 1] = k + 1;
				val[k + 1] = from_a ? x[k] : -x[k];
			}
			ind[4] = from_a ? 4 : 5;
			val[4] = 1.0;
			len = 4;
			glp_set_obj_coef(h->p, j, 0.0);
		} else {
			size_t s = v - na - nb;
			ind[1] = (int)(s / 2) + 1;
			val[1] = (s & 1) ? -1.0 : 1.0;
			len = 1;
			glp_set_obj_coef(h->p, j, 1.0);
		}
		glp_set_mat_col(h->p, j, len, ind, val);
	}
	free(wa);
	free(wb);
	glp_init_smcp(&h->parm);
	h->parm.msg_lev = GLP_MSG_OFF;
	h->tol = 1e-9 * c->size;
	return h;
}

static void query(void *p, bench_answer *out)
{
	lp *h = p;
	glp_std_basis(h->p);
	int rc = glp_simplex(h->p, &h->parm);
	out->distance = NAN;
	out->depth = NAN;
	if (rc != 0 || glp_get_status(h->p) != GLP_OPT) {
		out->intersecting = -1;
		return;
	}
	out->intersecting = glp_get_obj_val(h->p) <= h->tol;
}

static void release(void *p)
{
	lp *h = p;
	glp_delete_prob(h->p);
	free(h);
}

#define ALL ((1u << BENCH_SEPARATED) | (1u << BENCH_TOUCHING) | (1u << BENCH_INTERSECTING))

const bench_method bench_glpk[] = {{"glp_simplex (P2)", "GLPK", BENCH_LP, ALL, 0, 20000, prep,
                                    query, release},
                                   {NULL, NULL, 0, 0, 0, 0, NULL, NULL, NULL}};
