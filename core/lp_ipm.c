/*
 * lp_ipm.c — method "ipm": intersection of two polytopes as a linear
 * program over their vertices, solved by a primal-dual interior-point
 * method (the 2005 interframe paper: "A Linear Programming Solution for
 * Exact Collision Detection", eqs. (8)-(16) and section 4).
 *
 * The LP (eqs. (8)-(11)) has optimum 0 exactly when the hulls meet, and a
 * dual p with  min b.p - max a.p > 0  proves them apart (eqs. (12),
 * (25)-(26)).  Each iterate of the solver (ipm.c: Mehrotra's method,
 * section 4.3) is judged by two certificates checked on every vertex, not
 * by the solver: a plane whose gap beats ra + rb + tolerance (separated),
 * or two hull points within that (intersecting).  It works on subsets of
 * at most LPIPM_SUBSET vertices per shape (section 4.2), starts from a
 * previous answer's plane (section 4.1), and for rounded or nearly
 * touching shapes asks a distance QP for the widest gap.  Unsettled, it
 * answers what the bounds prove: separated when the best plane's gap beats
 * ra + rb, else intersecting with no common point (converged 0).  No
 * allocation.  The LP, its dual, the QP, purification, memory and cost:
 * docs/design.md, "core/lp_ipm.c".
 */
#include <assert.h>
#include <float.h>
#include <math.h>
#include <string.h>

#include "cancel.h"
#include "clash.h"
#include "ipm.h"
#include "pair.h"
#include "support.h"
#include "vec.h"

/* Vertices per shape in the first LP (the paper's "20 vertices"). */
#define LPIPM_SUBSET 20
/* Most vertices per shape an LP ever holds. */
#define LPIPM_SUBSET_MAX 56
/* Violators that join a subset per re-check. */
#define LPIPM_ADD 4
/* Most LPs built per query (each re-check that grows a subset builds one):
 * a bound on cycling when full subsets trade vertices. */
#define LPIPM_MAX_ROUNDS 64

/* Hull points nearer than this (frame units, the paper's epsilon of
 * section 4.3) are worth purifying into a common point. */
#define LPIPM_PURIFY 1e-6

/* A support vertex whose difference from its side's first leaves less than
 * this fraction outside the span of the others is in that span (rounding of
 * coplanar vertices), in the dual purification. */
#define LPIPM_SPAN_RANK 1e-9

/* Default tolerance, relative to the size of the shapes (as gjk). */
#define LPIPM_DEFAULT_RELATIVE_TOLERANCE 1e-12
/* Rounding of the frame's coordinates and inner products, in ulps. */
#define LPIPM_ROUNDOFF_ULPS 8.0

/* The LP's columns: both subsets and the u column. */
typedef char lpipm_cols_fit[(2 * LPIPM_SUBSET_MAX + 1 <= IPM_MAX_COLS) ? 1 : -1];

/* One shape's working subset: vertex indices and their frame points. */
typedef struct lpipm_side {
	support_frame f;
	int n;
	size_t idx[LPIPM_SUBSET_MAX];
	double x[LPIPM_SUBSET_MAX][CLASH_MAX_DIM];
} lpipm_side;

typedef struct lpipm_query {
	int dim;
	lpipm_side sa, sb;
	ipm_lp lp;
	double rsum;  /* ra + rb, frame units */
	double tol;   /* touching tolerance, frame units */
	double floor; /* rounding of a gap, frame units */
	int iterations, max_iterations, rounds;
	/* clash_options.cancel, read before each interior-point step; set
	 * once it was found nonzero: the query answers CLASH_ECANCELED. */
	const volatile int *cancel;
	int canceled;
	/* The best certificates seen. */
	double lower;                 /* widest gap / |p| over all vertices */
	double normal[CLASH_MAX_DIM]; /* its unit normal */
	double ha, hb;                /* max a.normal, min b.normal over all vertices */
	double upper;                 /* nearest |x_b - x_a| of primal points */
	double pa[CLASH_MAX_DIM], pb[CLASH_MAX_DIM]; /* those points */
} lpipm_query;

enum lpipm_verdict {
	LPIPM_UNDECIDED,
	LPIPM_SEPARATED,
	LPIPM_INTERSECTING
};

/* ---- vertices ------------------------------------------------------------ */

/* The local direction whose raw inner products with the vertices order them
 * as the frame's inner products with d do (support.c: L^T d for a pose). */
static void local_direction(const support_frame *f, const double *d, double *e)
{
	int n = f->dim;
	if (!f->posed) {
		vec_copy(e, d, n);
		return;
	}
	for (int k = 0; k < n; k++)
		e[k] = vec_dot(f->lin + k * n, d, n);
}

/* The k vertices with the largest inner product with frame direction d,
 * best first (the first on ties).  Returns how many (min(k, count)). */
static int top_vertices(const support_frame *f, const double *d, int k, size_t *out)
{
	double e[CLASH_MAX_DIM], val[LPIPM_SUBSET_MAX];
	int n = f->dim, got = 0;
	assert(k >= 1 && k <= LPIPM_SUBSET_MAX);
	local_direction(f, d, e);
	for (size_t i = 0; i < f->count; i++) {
		double v = vec_dot(f->vertices + i * (size_t)n, e, n);
		if (got == k && !(v > val[k - 1]))
			continue;
		int at = got < k ? got++ : k - 1;
		while (at > 0 && v > val[at - 1]) {
			val[at] = val[at - 1];
			out[at] = out[at - 1];
			at--;
		}
		val[at] = v;
		out[at] = i;
	}
	return got;
}

static int side_has(const lpipm_side *s, size_t i)
{
	for (int j = 0; j < s->n; j++)
		if (s->idx[j] == i)
			return 1;
	return 0;
}

/* Put vertex i into the subset; when full, it replaces the member least
 * useful along d (the one with the smallest inner product: farthest from
 * the other shape, the paper's "largest positive slack"). */
static void side_add(lpipm_side *s, size_t i, const double *d, int dim)
{
	int at = s->n;
	if (at == LPIPM_SUBSET_MAX) {
		at = 0;
		double worst = vec_dot(s->x[0], d, dim);
		for (int j = 1; j < s->n; j++) {
			double v = vec_dot(s->x[j], d, dim);
			if (v < worst) {
				worst = v;
				at = j;
			}
		}
	} else {
		s->n++;
	}
	s->idx[at] = i;
	support_point(&s->f, i, s->x[at]);
}

/* Largest inner product with d over the subset. */
static double side_max(const lpipm_side *s, const double *d, int dim)
{
	double h = -INFINITY;
	for (int j = 0; j < s->n; j++)
		h = fmax(h, vec_dot(s->x[j], d, dim));
	return h;
}

/* Largest inner product with d over all the shape's vertices. */
static double shape_max(const support_frame *f, const double *d)
{
	double x[CLASH_MAX_DIM];
	support_eval(f, d, x);
	return vec_dot(x, d, f->dim);
}

/* The re-check of section 4.2 for one shape: the vertices beyond the
 * subset's extreme h along d join it, worst first.  Returns how many. */
static int side_recheck(lpipm_side *s, const double *d, double h, int dim)
{
	size_t cand[LPIPM_ADD];
	int k = top_vertices(&s->f, d, LPIPM_ADD, cand), added = 0;
	for (int j = 0; j < k; j++) {
		double x[CLASH_MAX_DIM];
		support_point(&s->f, cand[j], x);
		if (vec_dot(x, d, dim) > h && !side_has(s, cand[j])) {
			side_add(s, cand[j], d, dim);
			added++;
		}
	}
	return added;
}

/* ---- certificates -------------------------------------------------------- */

/* The primal certificate: normalized, the weights x of the subsets'
 * vertices give a point of each hull; keep the nearest pair seen.  Returns
 * 1 when this pair is nearer than any before. */
static int primal_points(lpipm_query *q, const double *x)
{
	int n = q->dim;
	double pa[CLASH_MAX_DIM], pb[CLASH_MAX_DIM], d[CLASH_MAX_DIM];
	double wa = 0.0, wb = 0.0;
	vec_zero(pa, n);
	vec_zero(pb, n);
	for (int j = 0; j < q->sa.n; j++) {
		vec_axpy(pa, x[j], q->sa.x[j], n);
		wa += x[j];
	}
	for (int j = 0; j < q->sb.n; j++) {
		vec_axpy(pb, x[q->sa.n + j], q->sb.x[j], n);
		wb += x[q->sa.n + j];
	}
	if (!(wa > 0.0) || !(wb > 0.0) || !isfinite(wa) || !isfinite(wb))
		return 0;
	vec_scale(pa, 1.0 / wa, n);
	vec_scale(pb, 1.0 / wb, n);
	vec_sub(d, pb, pa, n);
	double dist = vec_norm(d, n);
	if (dist < q->upper && vec_isfinite(pa, n) && vec_isfinite(pb, n)) {
		q->upper = dist;
		vec_copy(q->pa, pa, n);
		vec_copy(q->pb, pb, n);
		return 1;
	}
	return 0;
}

/* The dual certificate for unit normal d, judged on every vertex. */
static void dual_plane(lpipm_query *q, const double *d)
{
	int n = q->dim;
	double nd[CLASH_MAX_DIM];
	for (int k = 0; k < n; k++)
		nd[k] = -d[k];
	double ha = shape_max(&q->sa.f, d), hb = -shape_max(&q->sb.f, nd);
	if (hb - ha > q->lower) {
		q->lower = hb - ha;
		q->ha = ha;
		q->hb = hb;
		vec_copy(q->normal, d, n);
	}
}

/* Separated when a plane's gap beats the radii by more than the tolerance
 * (shapes closer than that count as touching, as in gjk); intersecting when
 * two hull points are within the radii and the tolerance, or when the
 * bounds pin the distance down to the tolerance without a separation (the
 * shapes are then within twice the tolerance of touching). */
static enum lpipm_verdict verdict(const lpipm_query *q)
{
	if (q->lower > q->rsum + q->tol)
		return LPIPM_SEPARATED;
	if (q->upper <= q->rsum + q->tol || q->upper - q->lower <= q->tol)
		return LPIPM_INTERSECTING;
	return LPIPM_UNDECIDED;
}

/* ---- the LP -------------------------------------------------------------- */

/* Columns for the two subsets: (a_i, 1, 0) and (-b_j, 0, 1) of cost 0, and
 * their starting weights 1/n (eq. (13)-(14)); b = (0, .., 0, 1, 1).  The
 * dual starts at p = 0, pi4 = pi5 = -1 (eq. (16), with the sign that makes
 * it feasible: the frame's coordinates are at most 1). */
static void lp_vertices(lpipm_query *q)
{
	ipm_lp *lp = &q->lp;
	int n = q->dim;
	lp->m = n + 2;
	lp->n = 0;
	lp->nfree = 0;
	for (int side = 0; side < 2; side++) {
		const lpipm_side *s = side ? &q->sb : &q->sa;
		for (int j = 0; j < s->n; j++) {
			double *col = ipm_col(lp, lp->n);
			for (int k = 0; k < n; k++)
				col[k] = side ? -s->x[j][k] : s->x[j][k];
			col[n] = side ? 0.0 : 1.0;
			col[n + 1] = side ? 1.0 : 0.0;
			lp->c[lp->n] = 0.0;
			lp->x[lp->n] = 1.0 / s->n;
			lp->s[lp->n] = 1.0;
			lp->n++;
		}
	}
	for (int k = 0; k < n; k++)
		lp->b[k] = lp->y[k] = 0.0;
	lp->b[n] = lp->b[n + 1] = 1.0;
	lp->y[n] = lp->y[n + 1] = -1.0;
}

/* u = mean(b) - mean(a) over the subsets: the starting point's gap. */
static void subset_u(const lpipm_query *q, double *u)
{
	int n = q->dim;
	double ma[CLASH_MAX_DIM], mb[CLASH_MAX_DIM];
	vec_zero(ma, n);
	vec_zero(mb, n);
	for (int j = 0; j < q->sa.n; j++)
		vec_axpy(ma, 1.0 / q->sa.n, q->sa.x[j], n);
	for (int j = 0; j < q->sb.n; j++)
		vec_axpy(mb, 1.0 / q->sb.n, q->sb.x[j], n);
	vec_sub(u, mb, ma, n);
}

/* Append a column (g, 0, 0) of cost c with weight w. */
static void lp_gap_column(ipm_lp *lp, const double *g, int dim, double c, double w)
{
	double *col = ipm_col(lp, lp->n);
	vec_copy(col, g, dim);
	col[dim] = col[dim + 1] = 0.0;
	lp->c[lp->n] = c;
	lp->x[lp->n] = w;
	lp->s[lp->n] = c; /* c - g.p with p = 0 */
	lp->n++;
}

/* The paper's LP over the subsets, at its feasible starting point. */
static void lp_paper(lpipm_query *q)
{
	double u[CLASH_MAX_DIM];
	subset_u(q, u);
	lp_vertices(q);
	double m = 0.0;
	for (int k = 0; k < q->dim; k++)
		m = fmax(m, fabs(u[k]));
	/* m = 0: the subsets' centroids coincide, a common point the primal
	 * certificate sees before any step; the column then only needs a
	 * positive cost to keep the start interior. */
	lp_gap_column(&q->lp, u, q->dim, m > 0.0 ? m : 1.0, 1.0);
}

/* The margin QP over the subsets: z = u makes the uniform weights
 * feasible; the dual starts at p = z (stationary) with pi4 and pi5 one
 * below the subsets' extremes along p, so that every slack is >= 1. */
static void lp_margin(lpipm_query *q)
{
	int n = q->dim;
	ipm_lp *lp = &q->lp;
	double u[CLASH_MAX_DIM], nu[CLASH_MAX_DIM];
	subset_u(q, u);
	lp_vertices(q);
	lp->nfree = n;
	for (int k = 0; k < n; k++) {
		lp->z[k] = lp->y[k] = u[k];
		nu[k] = -u[k];
	}
	lp->y[n] = -side_max(&q->sa, u, n) - 1.0;
	lp->y[n + 1] = -side_max(&q->sb, nu, n) - 1.0;
	for (int j = 0; j < lp->n; j++) {
		const double *col = ipm_col(lp, j);
		lp->s[j] = -vec_dot(col, lp->y, n + 2);
	}
}

/* A plane p (any length) judged: first on the subsets (only a plane that
 * separates them is worth the O(n) pass over every vertex), then on every
 * vertex.  Returns the verdict, or LPIPM_UNDECIDED with *grew set when the
 * re-check of section 4.2 moved violators into the subsets. */
static enum lpipm_verdict try_plane(lpipm_query *q, const double *p_in, int *grew)
{
	int n = q->dim;
	double p[CLASH_MAX_DIM], np[CLASH_MAX_DIM];
	double len = vec_norm(p_in, n);
	if (!(len > 0.0) || !isfinite(len))
		return LPIPM_UNDECIDED;
	for (int k = 0; k < n; k++) {
		p[k] = p_in[k] / len;
		np[k] = -p[k];
	}
	double ha = side_max(&q->sa, p, n), hb = -side_max(&q->sb, np, n);
	if (!(hb - ha > 0.0))
		return LPIPM_UNDECIDED;
	dual_plane(q, p);
	enum lpipm_verdict v = verdict(q);
	if (v != LPIPM_UNDECIDED)
		return v;
	int added = side_recheck(&q->sa, p, ha, n) + side_recheck(&q->sb, np, -hb, n);
	if (added)
		*grew = 1;
	return LPIPM_UNDECIDED;
}

/* p = b0 - a0 projected onto the complement of the span of basis[0..nb-1]
 * (orthonormal), twice for rounding; normalized.  Returns 0 if nothing is
 * left. */
static int project_out(const double *a0, const double *b0, double basis[][CLASH_MAX_DIM], int nb,
                       int n, double *p)
{
	vec_sub(p, b0, a0, n);
	for (int pass = 0; pass < 2; pass++)
		for (int k = 0; k < nb; k++)
			vec_axpy(p, -vec_dot(p, basis[k], n), basis[k], n);
	double len = vec_norm(p, n);
	if (!(len > 0.0) || !isfinite(len))
		return 0;
	vec_scale(p, 1.0 / len, n);
	return 1;
}

/* Dual purification: the normals of the optimal faces the iterate points
 * at, computed from the vertices rather than from the dual iterate.
 *
 * Near touching, the dual iterate p is a poor normal: the LP's optimum is
 * nearly degenerate (w* and the plane's gap are of the order of the
 * distance) and the margin QP's p is of the length of the distance, so p
 * points the right way only once mu is far below the distance; two balls
 * (one vertex each) whose radii leave a gap of 1% of their distance were
 * never settled by p alone.  The support, though, shows early: the columns
 * of the optimal faces have weights that stay while their slacks vanish, so
 * they lead when ranked by x_j / s_j.  A separating normal of two faces is
 * orthogonal to their affine spans V (every support vertex of a side lies
 * on its plane) and, within V's complement, along the difference of the
 * faces' points:
 *     p = (b0 - a0) projected onto the complement of V,
 * V spanned by a_i - a0 and b_j - b0 (a0, b0 the leading vertex of each
 * side).  Where V has dimension n - 1 (a vertex against a facet, two
 * crossing edges in 3-D) p is V's normal, as exact as the vertices; where
 * it has less (a vertex against a vertex, ...) the gap is second-order in
 * p's error, since the nearest feature then has a normal cone around p.
 * Which columns form the face is not known (a nearest point close to a
 * vertex gives its face's other vertices tiny weights), so the columns join
 * V in the order of x_j / s_j and every span on the way gives a plane: at
 * most n of them, each judged on the subsets, then on every vertex, like
 * any other plane (a wrong face costs only the work). */
static enum lpipm_verdict support_planes(lpipm_query *q, int *grew)
{
	int n = q->dim, ncols = q->sa.n + q->sb.n;
	const ipm_lp *lp = &q->lp;
	int order[IPM_MAX_COLS];
	double ratio[IPM_MAX_COLS];
	for (int j = 0; j < ncols; j++) {
		double rj = lp->x[j] / lp->s[j];
		int at = j;
		while (at > 0 && ratio[at - 1] < rj) {
			order[at] = order[at - 1];
			ratio[at] = ratio[at - 1];
			at--;
		}
		order[at] = j;
		ratio[at] = rj;
	}
	/* The leading vertex of each side, from the support (x_j >= s_j). */
	const double *base[2] = {NULL, NULL};
	for (int i = 0; i < ncols && ratio[i] >= 1.0; i++) {
		int side = order[i] >= q->sa.n;
		if (!base[side])
			base[side] = side ? q->sb.x[order[i] - q->sa.n] : q->sa.x[order[i]];
	}
	if (!base[0] || !base[1])
		return LPIPM_UNDECIDED;
	/* An orthonormal basis of V, by Gram-Schmidt twice (a vertex whose
	 * difference is in V to rounding adds nothing). */
	double basis[CLASH_MAX_DIM][CLASH_MAX_DIM], p[CLASH_MAX_DIM];
	int nb = 0;
	if (project_out(base[0], base[1], basis, 0, n, p)) {
		enum lpipm_verdict v = try_plane(q, p, grew);
		if (v != LPIPM_UNDECIDED || *grew)
			return v;
	}
	for (int i = 0; i < ncols && nb < n - 1; i++) {
		int side = order[i] >= q->sa.n;
		const double *x = side ? q->sb.x[order[i] - q->sa.n] : q->sa.x[order[i]];
		double v[CLASH_MAX_DIM];
		vec_sub(v, x, base[side], n);
		double len = vec_norm(v, n);
		if (!(len > 0.0))
			continue;
		for (int pass = 0; pass < 2; pass++)
			for (int k = 0; k < nb; k++)
				vec_axpy(v, -vec_dot(v, basis[k], n), basis[k], n);
		double rest = vec_norm(v, n);
		if (!(rest > LPIPM_SPAN_RANK * len))
			continue;
		vec_scale(v, 1.0 / rest, n);
		vec_copy(basis[nb++], v, n);
		if (project_out(base[0], base[1], basis, nb, n, p)) {
			enum lpipm_verdict verd = try_plane(q, p, grew);
			if (verd != LPIPM_UNDECIDED || *grew)
				return verd;
		}
	}
	return LPIPM_UNDECIDED;
}

/* Judge the current iterate.  Returns the verdict, or LPIPM_UNDECIDED with
 * *grew set when the re-check of all vertices moved some into the subsets
 * (the LP must then be built again). */
static enum lpipm_verdict judge(lpipm_query *q, int margin, int *grew)
{
	int n = q->dim;
	double p[CLASH_MAX_DIM];
	int nearer = primal_points(q, q->lp.x);
	enum lpipm_verdict v = verdict(q);
	if (v != LPIPM_UNDECIDED)
		return v;
	double gap = q->lower > 0.0 ? q->lower : 0.0;
	if (q->upper - gap < LPIPM_PURIFY) {
		/* The paper's "m w <= epsilon": near an intersection, or near
		 * touching, the iterate's own points stall at the solver's
		 * precision (the optimal face is degenerate).  Its weights moved
		 * onto  sum b beta - sum a alpha = target  (ipm_project), with the
		 * target 0 (the hulls meet; with crossover, rows the support
		 * cannot move keep the offset they have) or the best plane's gap
		 * along its normal, are hull points that near, to rounding. */
		double x[IPM_MAX_COLS], rhs[IPM_MAX_ROWS];
		for (int t = 0; t < (gap > 0.0 ? 2 : 1); t++) {
			for (int k = 0; k < n; k++)
				rhs[k] = -t * gap * q->normal[k];
			rhs[n] = rhs[n + 1] = 1.0;
			for (int crossover = 0; crossover < 2; crossover++) {
				if (ipm_project(&q->lp, q->sa.n + q->sb.n, rhs, crossover, x))
					nearer |= primal_points(q, x);
			}
		}
		if ((v = verdict(q)) != LPIPM_UNDECIDED)
			return v;
	}
	if (margin && nearer) {
		/* The direction between the nearest primal points is the widest
		 * gap's normal once they are the nearest points of the hulls
		 * (GJK's lower bound): worth a pass over the vertices. */
		vec_sub(p, q->pb, q->pa, n);
		vec_scale(p, 1.0 / q->upper, n);
		dual_plane(q, p);
		if ((v = verdict(q)) != LPIPM_UNDECIDED)
			return v;
	}
	v = support_planes(q, grew);
	if (v != LPIPM_UNDECIDED || *grew)
		return v;
	vec_copy(p, q->lp.y, n);
	return try_plane(q, p, grew);
}

/* Run the solver on the LP as built until a verdict, a re-check that grows
 * the subsets, the solver's end or the iteration cap.  *done is set when no
 * step is left to take (optimal, stalled or capped).  With `margin` unset
 * (the paper's LP) it also returns once the hulls are known to be apart
 * but rounded shapes are still in question: the paper's LP does not aim
 * at the widest gap, the margin QP does. */
static enum lpipm_verdict run(lpipm_query *q, int margin, int *grew, int *done)
{
	*grew = *done = 0;
	for (;;) {
		if (cancel_requested(q->cancel)) {
			q->canceled = *done = 1;
			return LPIPM_UNDECIDED;
		}
		enum lpipm_verdict v = judge(q, margin, grew);
		if (v != LPIPM_UNDECIDED || *grew)
			return v;
		if (!margin && q->rsum > 0.0 && q->lower > q->floor) {
			*done = 1;
			return LPIPM_UNDECIDED;
		}
		if (q->iterations >= q->max_iterations) {
			*done = 1;
			return LPIPM_UNDECIDED;
		}
		enum ipm_status st = ipm_step(&q->lp);
		if (st != IPM_CONTINUE) {
			*done = 1;
			return LPIPM_UNDECIDED;
		}
		q->iterations++;
	}
}

/* Phase 1: the paper's LP, rebuilt whenever the re-check grows a subset. */
static enum lpipm_verdict phase_paper(lpipm_query *q)
{
	while (q->rounds++ < LPIPM_MAX_ROUNDS) {
		int grew, done;
		lp_paper(q);
		enum lpipm_verdict v = run(q, 0, &grew, &done);
		if (v != LPIPM_UNDECIDED || done)
			return v;
	}
	return LPIPM_UNDECIDED;
}

/* Phase 2, when the LP's plane and points cannot settle it (radii, or
 * touching within the tolerance): the widest gap, from the margin QP,
 * rebuilt whenever the re-check grows a subset. */
static enum lpipm_verdict phase_margin(lpipm_query *q)
{
	while (q->rounds++ < LPIPM_MAX_ROUNDS) {
		int grew, done;
		lp_margin(q);
		enum lpipm_verdict v = run(q, 1, &grew, &done);
		if (v != LPIPM_UNDECIDED || done)
			return v;
	}
	return LPIPM_UNDECIDED;
}

/* ---- the query ----------------------------------------------------------- */

/* The common checks, and the warm plane, which only ipm reads. */
static int check_inputs(const clash_shape *a, const clash_shape *b, const clash_options *opt)
{
	int err = support_check_query(a, b, opt);
	if (err || opt == NULL)
		return err;
	if (opt->warm_plane) {
		double len = vec_norm(opt->warm_plane, a->dim);
		if (!vec_isfinite(opt->warm_plane, a->dim + 1) || !(len > 0.0))
			return CLASH_EINVAL;
	}
	return CLASH_OK;
}

/* clash_lp_ipm for two convex polytopes.  Long because it follows the
 * 2005 paper's section 4 in order (the frame, 4.1 the warm plane, 4.2 the
 * subsets, then the radii), with an early answer at each step; each part
 * is short and commented. */
static int lp_ipm_convex(const clash_shape *a, const clash_shape *b, const clash_options *opt,
                         clash_result *r)
{
	if (r == NULL)
		return CLASH_EINVAL;
	memset(r, 0, sizeof *r);
	int err = check_inputs(a, b, opt);
	if (err)
		return err;
	const int n = a->dim;
	r->dim = n;

	/* The frame, as gjk's: origin between the shapes, unit a power of two
	 * near the scene's size, so every frame coordinate is at most 1. */
	support_pair_frame fr;
	if (pair_frame(&fr, &(pair_start){NULL, NULL, NULL, NULL}, a, b, opt, lp_ipm_convex, r,
	               &err))
		return err;
	const double ra = fr.ra, rb = fr.rb, half_gap = fr.half_gap, unit = fr.unit, inv = fr.inv;
	const double *shift = fr.shift, *dc = fr.dc;

	lpipm_query q;
	memset(&q, 0, sizeof q);
	q.dim = n;
	support_frame_init(&q.sa.f, a, shift, inv);
	support_frame_init(&q.sb.f, b, shift, inv);
	double size = ra + rb + a->radius + b->radius;
	double tol = (opt && opt->tolerance > 0.0) ? opt->tolerance
	                                           : LPIPM_DEFAULT_RELATIVE_TOLERANCE * size;
	double floor_w = LPIPM_ROUNDOFF_ULPS * DBL_EPSILON * (ra + rb + 2.0 * half_gap);
	if (tol < floor_w)
		tol = floor_w;
	/* Inner products of frame points (|x| <= 1) with a unit normal. */
	q.floor = floor_w * inv + 2.0 * (n + 2) * DBL_EPSILON;
	q.tol = fmax(tol * inv, q.floor);
	q.rsum = (a->radius + b->radius) * inv;
	q.max_iterations =
		(opt && opt->max_iterations > 0) ? opt->max_iterations : CLASH_GJK_MAX_ITERATIONS;
	q.lower = -INFINITY;
	q.upper = INFINITY;
	q.cancel = opt ? opt->cancel : NULL;

	/* Section 4.1: a previous plane that still separates answers alone. */
	double dir[CLASH_MAX_DIM];
	vec_copy(dir, dc, n);
	if (opt && opt->warm_plane) {
		/* A normal of unit length to rounding (a previous answer's) is
		 * taken as it is, so that an answer fed back comes back the same
		 * to the bit. */
		double len = vec_norm(opt->warm_plane, n);
		if (fabs(len - 1.0) <= 4.0 * DBL_EPSILON)
			len = 1.0;
		for (int k = 0; k < n; k++)
			dir[k] = opt->warm_plane[k] / len;
		dual_plane(&q, dir);
	}
	enum lpipm_verdict v = verdict(&q);

	if (v == LPIPM_UNDECIDED) {
		/* Section 4.2: the subsets, towards each other along dir. */
		double len = vec_norm(dir, n), nd[CLASH_MAX_DIM];
		if (len > 0.0)
			vec_scale(dir, 1.0 / len, n);
		else
			dir[0] = 1.0; /* same centres: any direction will do */
		for (int k = 0; k < n; k++)
			nd[k] = -dir[k];
		size_t idx[LPIPM_SUBSET];
		int k = top_vertices(&q.sa.f, dir, LPIPM_SUBSET, idx);
		for (int j = 0; j < k; j++)
			side_add(&q.sa, idx[j], dir, n);
		k = top_vertices(&q.sb.f, nd, LPIPM_SUBSET, idx);
		for (int j = 0; j < k; j++)
			side_add(&q.sb, idx[j], nd, n);
		v = phase_paper(&q);
		/* Hulls apart, but not by ra + rb + tolerance along the LP's
		 * plane; or the LP ran out of precision near touching. */
		if (v == LPIPM_UNDECIDED && !q.canceled && q.iterations < q.max_iterations &&
		    q.rounds < LPIPM_MAX_ROUNDS)
			v = phase_margin(&q);
	}
	if (q.canceled) {
		memset(r, 0, sizeof *r);
		return CLASH_ECANCELED;
	}

	r->iterations = q.iterations;
	r->converged = v != LPIPM_UNDECIDED;
	/* Unsettled: a plane whose gap beats the radii by more than rounding is
	 * still a proof of separation (see the top). */
	if (v == LPIPM_UNDECIDED && q.lower > q.rsum + q.floor)
		v = LPIPM_SEPARATED;
	if (v == LPIPM_SEPARATED) {
		/* The plane in the middle of the gap that is really there
		 * (along the normal, over every vertex, radii included). */
		for (int k = 0; k < n; k++)
			r->normal[k] = q.normal[k] + 0.0; /* no -0: normals are compared as text */
		r->offset = pair_plane_offset(r->normal, q.ha, q.hb, unit, shift, a, b);
		r->has = CLASH_HAS_PLANE;
	} else {
		r->intersecting = 1;
		if (v == LPIPM_INTERSECTING) {
			/* A common point: on the segment between the hull points,
			 * split in the ratio of the radii (within both shapes). */
			double rs = a->radius + b->radius, t = rs > 0.0 ? a->radius / rs : 0.5;
			for (int k = 0; k < n; k++) {
				double x = q.pa[k] + t * (q.pb[k] - q.pa[k]);
				r->near_a[k] = r->near_b[k] = x * unit + shift[k];
			}
			r->has = CLASH_HAS_DISTANCE;
		}
	}
	if (!isfinite(r->offset) || !vec_isfinite(r->normal, n) || !vec_isfinite(r->near_a, n)) {
		memset(r, 0, sizeof *r);
		return CLASH_ERANGE;
	}
	return CLASH_OK;
}

/* Compound shapes: the union of the convex leaf pairs' answers.  Exact
 * primitives: a box is its corners; a curved shape has no vertices for the
 * LP (CLASH_ENOTSUP), nor has a mesh (it is no convex hull of them). */
static const pair_method lp_ipm_method = {clash_lp_ipm, lp_ipm_convex, NULL, 0};

int clash_lp_ipm(const clash_shape *a, const clash_shape *b, const clash_options *opt,
                 clash_result *r)
{
	return pair_query(a, b, opt, &lp_ipm_method, r);
}
