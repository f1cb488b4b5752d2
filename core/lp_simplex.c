/*
 * lp_simplex.c — method "simplex": intersection of two posed polytopes as a
 * linear program over their vertices (Kreuzer 2016, problems P1 and P2 and
 * "Remarks"), solved by the revised simplex method (rsimplex.c).
 *
 * The LP is Kreuzer's P2 in a symmetric form, two residual columns per
 * coordinate row, so that its minimum is the 1-norm distance d1 of the
 * hulls, 0 iff they intersect.  Every answer is certified from the vertices,
 * not the LP's arithmetic: a slab of width h >= d1 / sqrt(n) from the duals
 * (the distance lower bound) and the primal pair's distance above.  With
 * radii it solves again in rotated bases, each round also projecting its
 * optimal basis's vertices exactly (basis_nearest), until the bounds put
 * ra + rb on one side; after LP_SIMPLEX_ROUNDS rounds it answers
 * CLASH_ENOTSUP and never guesses.  As in gjk.c it works in a frame centred
 * between the shapes and scaled by a power of two, with columns made on
 * the fly from the borrowed vertices, so a query allocates nothing.
 *
 * The LP, the bound (and why P2 as written gives none), radii, numerics:
 * docs/design.md, "core/lp_simplex.c, rsimplex.c".
 */
#include <assert.h>
#include <float.h>
#include <math.h>
#include <string.h>

#include "clash.h"
#include "lanes.h"
#include "pair.h"
#include "rsimplex.h"
#include "support.h"
#include "vec.h"

/* Forced inlining where a caller passes the dimension as a constant. */
#if defined(__GNUC__)
#define LP_INLINE static inline __attribute__((always_inline))
#else
#define LP_INLINE static inline
#endif

/* Default tolerance, relative to the size of the shapes (as gjk). */
#define LP_SIMPLEX_RELATIVE_TOLERANCE 1e-12

/* No tolerance below this many ulps of the scene is meaningful. */
#define LP_SIMPLEX_ROUNDOFF_ULPS 8.0

/* Optimality tolerance on reduced costs, in frame units (columns have
 * entries <= 1 and costs 0 or 1, so reduced costs are O(1)). */
#define LP_SIMPLEX_TOL_COST 1e-13

/* LPs solved at most per query (rounds of the rotated basis). */
#define LP_SIMPLEX_ROUNDS 8

/* Fewest pivots the default cap allows. */
#define LP_SIMPLEX_MIN_PIVOTS 64

typedef struct lp_query {
	support_frame fa, fb;
	int n;
	size_t na, nb;
	int rotated;
	double basis[CLASH_MAX_DIM * CLASH_MAX_DIM]; /* row k: q_k (when rotated) */
	const volatile int *cancel;                  /* clash_options.cancel */
	struct lp_priced *priced;                    /* lp_dantzig's record of its last pricing */
} lp_query;

/* The last Dantzig pricing (lp_dantzig): the duals it priced and the
 * support points it found along them, of a along u and of b along -u,
 * which also bound the slab along u: certify takes them instead of
 * scanning again when the duals are still those. */
typedef struct lp_priced {
	int valid;
	int turn; /* the shape lp_dantzig scans first next time */
	double y[RSIMPLEX_MAX_ROWS];
	size_t idx[2]; /* vertex of a along u, of b along -u */
} lp_priced;

/* The LP's column j: vertices of a (lambda), of b (mu), then u_0, w_0,
 * u_1, w_1 ...  This order is Bland's numbering. */
/* The first n entries of the column of frame point x, a vertex of a
 * (from_a) or of b: x in the basis q_k, negated for b. */
LP_INLINE void point_column(const lp_query *q, const double *x, int from_a, double *col)
{
	const int n = q->n;
	const double sg = from_a ? 1.0 : -1.0;
	if (!q->rotated) { /* sg * x_k is x_k or -x_k exactly */
		for (int k = 0; k < n; k++)
			col[k] = from_a ? x[k] : -x[k];
		return;
	}
	for (int k = 0; k < n; k++)
		col[k] = sg * vec_dot(q->basis + k * n, x, n);
}

static double lp_column(const void *ctx, size_t j, double *col)
{
	const lp_query *q = ctx;
	int n = q->n;
	if (j < q->na + q->nb) {
		int from_a = j < q->na;
		double x[CLASH_MAX_DIM];
		support_point(from_a ? &q->fa : &q->fb, from_a ? j : j - q->na, x);
		point_column(q, x, from_a, col);
		col[n] = from_a ? 1.0 : 0.0;
		col[n + 1] = from_a ? 0.0 : 1.0;
		return 0.0;
	}
	size_t s = j - q->na - q->nb;
	vec_zero(col, n + 2);
	col[s / 2] = (s & 1) ? -1.0 : 1.0;
	return 1.0;
}

/* support_eval3 for side 0 (a) or 1 (b) of a 3-D query. */
LP_INLINE size_t lp_eval3(const lp_query *q, int side, const double *d, double *x)
{
	return support_eval3(side ? &q->fb : &q->fa, d, x);
}

/* support_eval, the same way: any dimension. */
LP_INLINE size_t lp_eval(const lp_query *q, int side, const double *d, double *x)
{
	if (q->n == 3)
		return lp_eval3(q, side, d, x);
	return support_eval(side ? &q->fb : &q->fa, d, x);
}

/* The first vertex of a frame, from index `from` on, with g.v > thr: the
 * Bland scan of one shape's columns on the raw vertices. */
static size_t first_above(const support_frame *f, const double *g, double thr, size_t from)
{
	const int n = f->dim;
	const double *v = f->vertices;
	if (n == 3)
		return lanes_first_above3(v, from, f->count, g, thr);
	for (size_t i = from; i < f->count; i++)
		if (vec_dot(v + i * (size_t)n, g, n) > thr)
			return i;
	return f->count;
}

/* u.x for the frame point x of vertex v, as g.v + h: g = L^T u (or
 * scale u), h = u.off (or -scale u.shift). */
static double affine_of(const support_frame *f, const double *u, double *g)
{
	const int n = f->dim;
	if (!f->posed) {
		for (int k = 0; k < n; k++)
			g[k] = f->scale * u[k];
		return -f->scale * vec_dot(u, f->shift, n);
	}
	for (int k = 0; k < n; k++)
		g[k] = vec_dot(f->lin + k * n, u, n);
	return vec_dot(u, f->off, n);
}

/* Bland's pricing without building columns (rsimplex_lp.bland).  The
 * reduced cost of vertex i of a is -(u.x_i + y_n) and of vertex j of b
 * u.x_j - y_{n+1}, with u = sum_k y_k q_k (y itself unrotated): a scan for
 * the first vertex past a threshold, as cheap as a support scan.  The
 * residual columns (cost 1, +-e_k) are priced directly.  The affine form
 * rounds differently from the built column by a few ulps, far below tol: a
 * column found is checked on its built column by the caller, and one at
 * the threshold may go either way, which moves the optimum by no more than
 * that rounding. */
static size_t lp_bland(const void *ctx, const double *y, double tol, size_t from)
{
	const lp_query *q = ctx;
	const int n = q->n;
	double u[CLASH_MAX_DIM], g[CLASH_MAX_DIM];
	if (q->rotated) {
		vec_zero(u, n);
		for (int k = 0; k < n; k++)
			vec_axpy(u, y[k], q->basis + k * n, n);
	} else {
		vec_copy(u, y, n);
	}
	if (from < q->na) {
		double h = affine_of(&q->fa, u, g);
		size_t i = first_above(&q->fa, g, tol - h - y[n], from);
		if (i < q->na)
			return i;
		from = q->na;
	}
	if (from < q->na + q->nb) {
		/* u.x_j < y_{n+1} - tol  <=>  (-g).v_j > h - y_{n+1} + tol */
		double h = affine_of(&q->fb, u, g);
		for (int k = 0; k < n; k++)
			g[k] = -g[k];
		size_t j = first_above(&q->fb, g, h - y[n + 1] + tol, from - q->na);
		if (j < q->nb)
			return q->na + j;
		from = q->na + q->nb;
	}
	for (size_t j = from; j < q->na + q->nb + 2 * (size_t)n; j++) {
		size_t s = j - q->na - q->nb;
		double d = 1.0 - ((s & 1) ? -y[s / 2] : y[s / 2]);
		if (d < -tol)
			return j;
	}
	return q->na + q->nb + 2 * (size_t)n;
}

/* The least reduced cost among the vertices of one shape (side 0: a,
 * side 1: b) for duals y, u = sum_k y_k q_k (u = y unrotated): vertex i of
 * a has column (x_i; 1; 0) and reduced cost -(u.x_i + y_n), vertex j of b
 * (-x_j; 0; 1) and u.x_j - y_{n+1} (x in the basis q_k), so the least is
 * at the support point of a along u, of b along -u: one support scan.
 * Writes the vertex to *idx and its column's first n entries to col. */
LP_INLINE double price_side(const lp_query *q, int side, const double *u, const double *y,
                            double *col, size_t *idx, const int n, const int rotated)
{
	double e[CLASH_MAX_DIM], x[CLASH_MAX_DIM];
	if (n == 3 && !rotated) {
		/* The common case written out. */
		const double u0 = u[0], u1 = u[1], u2 = u[2];
		const double sg = side ? -1.0 : 1.0;
		e[0] = sg * u0, e[1] = sg * u1, e[2] = sg * u2;
		*idx = lp_eval3(q, side, e, x);
		col[0] = sg * x[0], col[1] = sg * x[1], col[2] = sg * x[2];
		const double ux = (u0 * x[0] + u1 * x[1]) + u2 * x[2];
		return side ? ux - y[4] : -ux - y[3];
	}
	for (int k = 0; k < n; k++)
		e[k] = side ? -u[k] : u[k];
	*idx = lp_eval(q, side, e, x);
	point_column(q, x, !side, col);
	const double ux = vec_dot(u, x, n);
	return side ? ux - y[n + 1] : -ux - y[n];
}

/* Dantzig's pricing without building every column (rsimplex_lp.dantzig),
 * by support scans (price_side) and, for the residual columns (cost 1,
 * +-e_k), directly: 1 - y_k and 1 + y_k.  Partial pricing: the shapes
 * take turns to be scanned first, and when the first has a column below
 * -LP_SIMPLEX_TOL_COST (so that it enters: the engine's test is no
 * stricter), the second is not scanned: a scan is most of a pivot's cost,
 * and the pivots this adds (GJK88 set: 4.5 per query against 4.3) cost
 * less than the scans saved.  When the first has none, the second is
 * scanned too, so "no column enters" is decided over all of them.  Ties
 * go to the lowest column. */
LP_INLINE size_t dantzig_n(const lp_query *q, const double *y, double *a, double *c, double *d,
                           const int n, const int rotated)
{
	lp_priced *pr = q->priced;
	const int m = n + 2;
	double u[CLASH_MAX_DIM];
	if (rotated) {
		vec_zero(u, n);
		for (int k = 0; k < n; k++)
			vec_axpy(u, y[k], q->basis + k * n, n);
	} else {
		vec_copy(u, y, n);
	}
	double col[2][CLASH_MAX_DIM], ds[2] = {INFINITY, INFINITY};
	size_t idx[2] = {0, 0};
	const int first = pr->turn;
	pr->turn ^= 1;
	ds[first] = price_side(q, first, u, y, col[first], &idx[first], n, rotated);
	pr->valid = 0;
	if (!(ds[first] < -LP_SIMPLEX_TOL_COST)) {
		ds[!first] = price_side(q, !first, u, y, col[!first], &idx[!first], n, rotated);
		/* Both scanned at these duals: certify may take the points. */
		vec_copy(pr->y, y, m);
		pr->idx[0] = idx[0];
		pr->idx[1] = idx[1];
		pr->valid = 1;
	}
	int side = ds[1] < ds[0];
	double best = ds[side];
	int rk = -1;
	for (int k = 0; k < n; k++) {
		double du = 1.0 - y[k], dw = 1.0 + y[k];
		if (du < best) {
			best = du;
			rk = 2 * k;
		}
		if (dw < best) {
			best = dw;
			rk = 2 * k + 1;
		}
	}
	*d = best;
	if (rk >= 0) {
		vec_zero(a, m);
		a[rk / 2] = (rk & 1) ? -1.0 : 1.0;
		*c = 1.0;
		return q->na + q->nb + (size_t)rk;
	}
	vec_copy(a, col[side], n);
	a[n] = side ? 0.0 : 1.0;
	a[n + 1] = side ? 1.0 : 0.0;
	*c = 0.0;
	return side ? q->na + idx[1] : idx[0];
}

/* The general case (the engine calls it through a pointer, so it stays
 * out of line). */
static size_t lp_dantzig(const void *ctx, const double *y, double *a, double *c, double *d)
{
	const lp_query *q = ctx;
	return dantzig_n(q, y, a, c, d, q->n, q->rotated);
}

/* The common case with its dimension known, unrolled: what solve_round
 * hands the engine for a 3-D query in the coordinate axes (one call per
 * pricing, not a dispatch and then the work). */
static size_t lp_dantzig3(const void *ctx, const double *y, double *a, double *c, double *d)
{
	return dantzig_n(ctx, y, a, c, d, 3, 0);
}

/* Orthonormal basis with q_0 = g (|g| = 1): the Householder reflection
 * H = I - 2 v v^T / v.v, v = e_0 - g, maps e_0 to g; its rows are the q_k. */
static void set_basis(lp_query *q, const double *g)
{
	int n = q->n;
	double v[CLASH_MAX_DIM];
	vec_copy(v, g, n);
	vec_scale(v, -1.0, n);
	v[0] += 1.0;
	double vv = vec_dot(v, v, n);
	if (vv <= 4.0 * DBL_EPSILON * DBL_EPSILON) { /* g = e_0 */
		q->rotated = 0;
		return;
	}
	q->rotated = 1;
	for (int r = 0; r < n; r++)
		for (int c = 0; c < n; c++)
			q->basis[r * n + c] = (r == c ? 1.0 : 0.0) - 2.0 * v[r] * v[c] / vv;
}

/* Vertices of a and of b at hand (frame points): the basis's vertices of
 * positive weight (primal_pair) and the dual slab's support points (slab
 * records them).  Along any direction they bound the
 * slab from above (max_i d.s_i is at least d.s for any vertex s of a, and
 * min_j d.t_j at most d.t for any vertex t of b), which can show that a
 * slab cannot beat the best one so far without scanning for it. */
typedef struct lp_seen {
	int na, nb;
	double a[RSIMPLEX_MAX_ROWS + 1][CLASH_MAX_DIM], b[RSIMPLEX_MAX_ROWS + 1][CLASH_MAX_DIM];
} lp_seen;

/* A scan's support point is the largest inner product up to round-off in
 * the local coordinates (a few ulps of frame units; frame points have norm
 * <= sqrt(n)): a seen vertex's inner product, computed in the frame, may
 * exceed the scanned one by that much.  Far more than that. */
#define LP_SIMPLEX_SEEN_MARGIN (512.0 * DBL_EPSILON)

/* Width of the slab {max_i d.s_i <= d.x <= min_j d.t_j} between the hulls
 * along d, over |d|: a lower bound on their distance when positive.  known
 * (or NULL): the support points along d already found, vertex known[0] of
 * a along d and known[1] of b along -d.  seen (or NULL): when its vertices
 * show the width is at most floor (less the margin), -INFINITY without
 * scanning the rest (the caller keeps the best slab, of width > floor, so
 * the answer is the same). */
static double slab(const lp_query *q, const double *d, const size_t *known, lp_seen *seen,
                   double floor)
{
	int n = q->n;
	double len = vec_norm(d, n);
	if (!(len > 0.0))
		return -INFINITY;
	double u[CLASH_MAX_DIM], nu[CLASH_MAX_DIM], x[CLASH_MAX_DIM];
	for (int k = 0; k < n; k++) {
		u[k] = d[k] / len;
		nu[k] = -u[k];
	}
	double sa = -INFINITY, sb = INFINITY;
	const int bound = floor > -INFINITY;
	if (seen && bound) {
		for (int i = 0; i < seen->na; i++) {
			double h = vec_dot(u, seen->a[i], n);
			sa = h > sa ? h : sa;
		}
		for (int i = 0; i < seen->nb; i++) {
			double h = vec_dot(u, seen->b[i], n);
			sb = h < sb ? h : sb;
		}
		if (sb - sa + LP_SIMPLEX_SEEN_MARGIN <= floor)
			return -INFINITY;
	}
	if (known)
		support_point(&q->fa, known[0], x);
	else
		lp_eval(q, 0, u, x);
	double ha = vec_dot(u, x, n);
	if (seen && bound && sb - ha + LP_SIMPLEX_SEEN_MARGIN <= floor)
		return -INFINITY;
	if (seen && !bound && seen->na <= RSIMPLEX_MAX_ROWS)
		vec_copy(seen->a[seen->na++], x, n);
	if (known)
		support_point(&q->fb, known[1], x);
	else
		lp_eval(q, 1, nu, x);
	double hb = vec_dot(u, x, n);
	if (seen && !bound && seen->nb <= RSIMPLEX_MAX_ROWS)
		vec_copy(seen->b[seen->nb++], x, n);
	return hb - ha;
}

/* What one LP round found, in frame units. */
typedef struct lp_round {
	int status; /* rsimplex_status */
	int pivots;
	double objective;        /* the LP's d1 */
	double p[CLASH_MAX_DIM]; /* primal pair: p in co(a), q in co(b) */
	double q[CLASH_MAX_DIM];
	double upper;                 /* |p - q|_2 */
	double lower;                 /* best slab width, -inf if none */
	double dir[CLASH_MAX_DIM];    /* its direction (unit, a towards b) */
	double dual[CLASH_MAX_DIM];   /* the dual direction (unit), */
	double primal[CLASH_MAX_DIM]; /* and q - p (unit; 0 if p = q) */
} lp_round;

/* The primal pair of the basis, renormalized (the weights sum to 1 up to
 * round-off; dividing keeps p and q inside their hulls), and |p - q|_2;
 * the vertices it takes go to seen (see slab). */
LP_INLINE void primal_pair(const lp_query *q, const rsimplex *s, const double *xs, const double *xt,
                           lp_seen *seen, lp_round *o)
{
	const int n = q->n;
	double sl = 0.0, sm = 0.0;
	seen->na = seen->nb = 0;
	vec_zero(o->p, n);
	vec_zero(o->q, n);
	for (int i = 0; i < s->m; i++) {
		size_t j = s->basis[i];
		double w = s->x[i];
		if (j >= q->na + q->nb || !(w > 0.0))
			continue;
		if (j < q->na) {
			double *x = seen->a[seen->na++];
			support_point(&q->fa, j, x);
			vec_axpy(o->p, w, x, n);
			sl += w;
		} else {
			double *x = seen->b[seen->nb++];
			support_point(&q->fb, j - q->na, x);
			vec_axpy(o->q, w, x, n);
			sm += w;
		}
	}
	if (sl > 0.0)
		vec_scale(o->p, 1.0 / sl, n);
	else
		vec_copy(o->p, xs, n);
	if (sm > 0.0)
		vec_scale(o->q, 1.0 / sm, n);
	else
		vec_copy(o->q, xt, n);
	double diff[CLASH_MAX_DIM];
	vec_sub(diff, o->q, o->p, n);
	o->upper = vec_norm(diff, n);
}

/* The Euclidean nearest points of the optimal basis's vertices: q - p for
 * the nearest p in the hull of its vertices of a and q in that of its
 * vertices of b (at most n + 2 points in all), into `near` (frame units).
 * The 1-norm optimum lies on a face of co(a) - co(b) spanned by these; when
 * the rounds have turned the basis close to the true normal, it is the face
 * of the Euclidean optimum too, and its exact nearest point gives an upper
 * bound and a slab direction that both meet the distance, where the 1-norm
 * pair alone closes in only slowly (rounded pairs within 1e-4 of touching
 * were left undecided).  The small hulls are solved by clash_gjk (Johnson's
 * sub-algorithm on at most n + 2 points); its points are convex
 * combinations of vertices of a and of b, so the bound holds whatever the
 * basis.  Returns 0 when the basis has no vertex of a or of b, or GJK fails. */
static int basis_nearest(const lp_query *q, const rsimplex *s, double *near)
{
	const int n = q->n;
	double va[RSIMPLEX_MAX_ROWS * CLASH_MAX_DIM], vb[RSIMPLEX_MAX_ROWS * CLASH_MAX_DIM];
	size_t ka = 0, kb = 0;
	for (int i = 0; i < n + 2; i++) {
		size_t j = s->basis[i];
		if (j < q->na)
			support_point(&q->fa, j, va + n * ka++);
		else if (j < q->na + q->nb)
			support_point(&q->fb, j - q->na, vb + n * kb++);
	}
	clash_shape a, b;
	clash_result r;
	if (ka == 0 || kb == 0 || clash_shape_init(&a, n, va, ka) ||
	    clash_shape_init(&b, n, vb, kb) || clash_gjk(&a, &b, NULL, &r))
		return 0;
	/* Intersecting sub-hulls (within GJK's tolerance): near = 0. */
	if (r.intersecting)
		vec_zero(near, n);
	else
		vec_sub(near, r.near_b, r.near_a, n);
	return 1;
}

/* The certificates of a round's basis s (into o): the primal pair and
 * |p - q|, and unless that is within reach, the slabs along the duals, q - p
 * and, for rounded shapes, the basis's nearest pair.  Every bound comes
 * from the vertices themselves, so it holds whatever round-off did to s. */
static void certify(const lp_query *q, const rsimplex *s, double reach, int rounded, lp_seen *seen,
                    lp_round *o)
{
	const int n = q->n;
	o->pivots = s->iterations;
	o->objective = s->objective;
	o->lower = -INFINITY;
	/* The primal pair within `reach` already decides "intersecting":
	 * then neither a slab (each costs a scan of both shapes) nor the
	 * directions of a next round are needed. */
	if (o->upper <= reach)
		return;
	double diff[CLASH_MAX_DIM];
	vec_sub(diff, o->q, o->p, n);

	/* Separating directions: the duals of the coordinate rows (back in
	 * frame coordinates) and the primal difference q - p. */
	double dual[CLASH_MAX_DIM];
	if (q->rotated) {
		vec_zero(dual, n);
		for (int k = 0; k < n; k++)
			vec_axpy(dual, s->y[k], q->basis + k * n, n);
	} else {
		vec_copy(dual, s->y, n);
	}
	double dl = vec_norm(dual, n), pl = vec_norm(diff, n);
	for (int k = 0; k < n; k++) {
		o->dual[k] = dl > 0.0 ? dual[k] / dl : 0.0;
		o->primal[k] = pl > 0.0 ? diff[k] / pl : 0.0;
	}
	double near[CLASH_MAX_DIM];
	int ncand = 2;
	if (rounded && basis_nearest(q, s, near)) {
		double len = vec_norm(near, n);
		if (len < o->upper) {
			o->upper = len;
			for (int k = 0; k < n; k++)
				o->primal[k] = len > 0.0 ? near[k] / len : 0.0;
		}
		if (o->upper <= reach)
			return;
		ncand = 3;
	}
	const double *cand[3] = {dual, diff, near};
	/* The last pricing scanned along these very duals (the separated
	 * class ends so): its support points give the dual slab.  They
	 * are the extremes along y rather than y / |y|, which can differ
	 * only between vertices whose inner products tie to round-off,
	 * below the slack the caller allows. */
	const lp_priced *pr = q->priced;
	const int known = pr && pr->valid && memcmp(pr->y, s->y, sizeof(double) * (size_t)n) == 0;
	/* The slabs past the first need not be scanned for when the vertices
	 * at hand (seen) show they are no wider than the best so far: the
	 * scan could not change the answer. */
	for (int c = 0; c < ncand; c++) {
		double h = slab(q, cand[c], c == 0 && known ? pr->idx : NULL, seen,
		                c == 0 ? -INFINITY : o->lower);
		if (h > o->lower) {
			o->lower = h;
			double len = vec_norm(cand[c], n);
			for (int k = 0; k < n; k++)
				o->dir[k] = cand[c][k] / len;
		}
	}
}

/* Solve the LP in the basis whose first axis is g (unit, from a towards b;
 * the coordinate axes unless rotate), starting from the vertex pair
 * extreme along g, or from start[] (vertex of a, vertex of b) when given.
 * For rounded shapes the basis's vertices are also projected exactly
 * (basis_nearest).  A round that the certificates decide (intersecting:
 * |p - q| within reach; separated: a slab wider than rsum by more than
 * slack, as clash_lp_simplex tests them) may end on an unconfirmed
 * optimum (status RSIMPLEX_PRICED). */
static void solve_round(lp_query *q, const double *g, const size_t *start, int rotate,
                        int max_pivots, double reach, double rsum, double slack, int rounded,
                        lp_round *o)
{
	int n = q->n, m = n + 2;
	memset(o, 0, sizeof *o);
	if (rotate)
		set_basis(q, g);
	else
		q->rotated = 0;

	rsimplex_lp lp;
	memset(&lp, 0, sizeof lp);
	lp.m = m;
	lp.n = q->na + q->nb + 2 * (size_t)n;
	lp.b[n] = lp.b[n + 1] = 1.0;
	lp.column = lp_column;
	lp.ctx = q;
	lp.cancel = q->cancel;
	lp.tol_cost = LP_SIMPLEX_TOL_COST;
	lp.bland = lp_bland;
	lp.dantzig = n == 3 && !q->rotated ? lp_dantzig3 : lp_dantzig;
	lp.priced_ok = 1;
	lp_priced priced;
	priced.valid = 0;
	priced.turn = 0;
	q->priced = &priced;
	/* Frame points have norm <= 1 (in any orthonormal basis), the
	 * residual and convexity entries are 0 or +-1. */
	lp.col_max = 1.0;

	/* Start: the vertices of a and b extreme along g (the nearest pair
	 * along it; given in start[] when already found), and for each row
	 * the residual column of the right sign. */
	double ng[CLASH_MAX_DIM], xs[CLASH_MAX_DIM], xt[CLASH_MAX_DIM], col[RSIMPLEX_MAX_ROWS];
	for (int k = 0; k < n; k++)
		ng[k] = -g[k];
	size_t basis[RSIMPLEX_MAX_ROWS];
	if (start) {
		basis[0] = start[0];
		basis[1] = q->na + start[1];
		support_point(&q->fa, start[0], xs);
		support_point(&q->fb, start[1], xt);
	} else {
		basis[0] = support_eval(&q->fa, g, xs);
		basis[1] = q->na + support_eval(&q->fb, ng, xt);
	}
	/* Their columns' first n entries (as lp_column builds them). */
	double cs[RSIMPLEX_MAX_ROWS];
	point_column(q, xs, 1, cs);
	point_column(q, xt, 0, col);
	/* Its inverse in closed form (no elimination needed): with columns
	 * (s; 1; 0), (-t; 0; 1) and sg_k e_k (sg_k = +-1), B z = r gives
	 * z_0 = r_n, z_1 = r_{n+1}, z_{2+k} = sg_k (r_k - s_k r_n - t_k r_{n+1})
	 * (col holds -t). */
	rsimplex s;
	double *binv = s.binv, cb[RSIMPLEX_MAX_ROWS]; /* in place (rsimplex_start_inverse) */
	if (m == 5)                                   /* a fixed size: stores, not a call */
		memset(binv, 0, sizeof(double) * 25);
	else
		memset(binv, 0, sizeof(double) * (size_t)(m * m));
	binv[0 * m + n] = 1.0;
	binv[1 * m + n + 1] = 1.0;
	cb[0] = cb[1] = 0.0;
	for (int k = 0; k < n; k++) {
		double res = cs[k] + col[k]; /* q_k.(s - t) */
		/* u_k - w_k = -res_k */
		int w = res > 0.0;
		double sg = w ? -1.0 : 1.0;
		basis[2 + k] = q->na + q->nb + 2 * (size_t)k + (size_t)w;
		cb[2 + k] = 1.0;
		binv[(2 + k) * m + k] = sg;
		binv[(2 + k) * m + n] = -sg * cs[k];
		binv[(2 + k) * m + n + 1] = -sg * col[k];
	}
	/* Kreuzer's first stopping rule: once the objective (the 1-norm of
	 * p - q in the basis q_k, at least its 2-norm) is within reach, the
	 * verdict "intersecting" is decided; the pivots that would only prove
	 * optimality (many degenerate, at objective 0) are not needed. */
	lp.has_target = 1;
	lp.target = reach;
	/* Dantzig's pricing in round 0; Bland's in the rotated rounds (they
	 * come only for rounded pairs the first did not decide): there the
	 * optimal basis Bland's rule reaches serves basis_nearest better (in
	 * the 100 000-pair cross-check, 152 rounded pairs declined, as with
	 * Bland's rule throughout, against 177 with Dantzig's in every
	 * round). */
	const enum rsimplex_rule rule = rotate ? RSIMPLEX_BLAND : RSIMPLEX_DANTZIG_BLAND;
	lp_seen seen;
	o->status = rsimplex_start_inverse(&s, &lp, basis, binv, cb);
	if (o->status == RSIMPLEX_OPTIMAL)
		o->status = rsimplex_run(&s, &lp, rule, max_pivots);
	for (;;) {
		primal_pair(q, &s, xs, xt, &seen, o);
		if (o->status == RSIMPLEX_TARGET && !(o->upper <= reach)) {
			/* Round-off in the objective's updates: the pair itself
			 * does not decide; go on to the optimum. */
			lp.has_target = 0;
			o->status = rsimplex_run(&s, &lp, rule, max_pivots - s.iterations);
			continue;
		}
		certify(q, &s, reach, rounded, &seen, o);
		/* Optimal on updated duals: when the certificates decide the
		 * query (as clash_lp_simplex tests them), the refactorization
		 * that would confirm optimality changes nothing; else resume. */
		if (o->status == RSIMPLEX_PRICED && !(o->upper <= reach) &&
		    !(o->lower - slack > rsum)) {
			o->status = rsimplex_run(&s, &lp, rule, max_pivots - s.iterations);
			continue;
		}
		q->priced = NULL; /* a local of this call */
		return;
	}
}

/* The verdict's tolerance in world units: opt's, else relative to the
 * pair's size, never below the round-off of the frame's extent. */
static double verdict_tolerance(const clash_options *opt, double size, double extent)
{
	double tol = (opt && opt->tolerance > 0.0) ? opt->tolerance
	                                           : LP_SIMPLEX_RELATIVE_TOLERANCE * size;
	double floor_tol = LP_SIMPLEX_ROUNDOFF_ULPS * DBL_EPSILON * extent;
	return tol < floor_tol ? floor_tol : tol;
}

/* The pivots a query may take: opt's cap, else the LP's cells (at most a
 * million, at least LP_SIMPLEX_MIN_PIVOTS). */
static int pivot_cap(const clash_options *opt, size_t na, size_t nb, int n)
{
	if (opt && opt->max_iterations > 0)
		return opt->max_iterations;
	double cells = (double)(na + nb + 2 * (size_t)n) * (n + 2);
	int max_pivots = cells > 1e6 ? 1000000 : (int)cells;
	return max_pivots < LP_SIMPLEX_MIN_PIVOTS ? LP_SIMPLEX_MIN_PIVOTS : max_pivots;
}

enum lp_verdict {
	LP_UNDECIDED,
	LP_INTERSECTING,
	LP_SEPARATED
};

/* What the rounds found: the verdict (LP_UNDECIDED when none decided),
 * the bounds on the 1-norm distance in frame units, the pivots, the last
 * round's status and objective. */
typedef struct lp_rounds_out {
	enum lp_verdict verdict;
	double lower, upper, objective;
	int pivots, status;
} lp_rounds_out;

/* Kreuzer's LP in rounds, from direction g (turned between rounds), until
 * one decides against the radii (rsum_f, within tol_f), the pivots run out
 * or round-off leaves no basis to trust.  CLASH_ECANCELED when stopped. */
static int run_rounds(lp_query *q, double *g, const size_t *start, int max_pivots, double rsum_f,
                      double tol_f, double slack, int rounded, lp_rounds_out *out)
{
	enum lp_verdict verdict = LP_UNDECIDED;
	double lower = 0.0, upper = INFINITY;
	int pivots = 0, status = RSIMPLEX_OPTIMAL;
	double objective = 0.0;
	for (int round = 0; round < LP_SIMPLEX_ROUNDS && verdict == LP_UNDECIDED; round++) {
		lp_round o;
		solve_round(q, g, round == 0 ? start : NULL, round > 0, max_pivots - pivots,
		            rsum_f + tol_f, rsum_f, slack, rounded, &o);
		pivots += o.pivots;
		status = o.status;
		objective = o.objective;
		if (status == RSIMPLEX_CANCELED)
			return CLASH_ECANCELED;
		upper = fmin(upper, o.upper);
		lower = fmax(lower, o.lower - slack);
		if (status == RSIMPLEX_SINGULAR || status == RSIMPLEX_UNBOUNDED)
			break; /* round-off beat the LP: no basis to trust */
		if (upper <= rsum_f + tol_f)
			verdict = LP_INTERSECTING;
		else if (lower > rsum_f)
			verdict = LP_SEPARATED;
		else if (status != RSIMPLEX_OPTIMAL) {
			/* An unconfirmed optimum only ends a decided round. */
			assert(status != RSIMPLEX_PRICED);
			break; /* capped */
		} else {
			/* Turn the basis: alternately to the dual direction (the
			 * normal of the face of co(a) - co(b) the optimum lies on)
			 * and to the primal difference (along which the 1-norm is
			 * the 2-norm).  Measured on the random pairs of the
			 * method_simplex suite, alternating leaves a fifth fewer
			 * queries undecided than either direction alone or the
			 * better slab's. */
			const double *next = (round & 1) ? o.primal : o.dual;
			vec_copy(g, vec_norm(next, q->n) > 0.0 ? next : o.dir, q->n);
		}
	}
	*out = (lp_rounds_out){verdict, lower, upper, objective, pivots, status};
	return CLASH_OK;
}

/* clash_lp_simplex for two convex polytopes. */
static int lp_simplex_convex(const clash_shape *a, const clash_shape *b, const clash_options *opt,
                             clash_result *r)
{
	if (r == NULL)
		return CLASH_EINVAL;
	memset(r, 0, sizeof *r);
	int err = support_check_query(a, b, opt);
	if (err)
		return err;
	const int n = a->dim;

	/* The frame, exactly as gjk.c sets it up, and as gjk.c does, in the
	 * same pass over the vertices the start of round 0: the vertices
	 * extreme along a direction between guesses of the shapes' centres,
	 * of a towards b and of b back (the nearest pair along it).  The
	 * guess: a posed shape's local origin (shapes are usually modelled
	 * about it; the GJK88 set's are centred on it), else the mean of a
	 * few vertices: it starts round 0 as near the optimum as the bounding
	 * balls' centres would, without their second pass over the vertices
	 * (bench/results/history.md). */
	double sa[CLASH_MAX_DIM], sb[CLASH_MAX_DIM], g[CLASH_MAX_DIM];
	const double origin[CLASH_MAX_DIM] = {0};
	if (a->posed)
		support_pose_point(a, origin, sa);
	else
		support_sample_centre(a, sa);
	if (b->posed)
		support_pose_point(b, origin, sb);
	else
		support_sample_centre(b, sb);
	support_centre_direction(sa, sb, g, n);
	/* 3-D pricing scans each shape a few times (GJK88 set: 4 to 6 scans
	 * per query): the frames keep copies of the vertices by coordinate,
	 * made by the pass that sets up the frame when it is the AVX scan
	 * (else by the first pricing scan). */
	support_copy copy[2];
	support_pair_frame fr;
	size_t start[2];
	if (pair_frame(&fr, &(pair_start){g, &start[0], &start[1], copy}, a, b, opt,
	               lp_simplex_convex, r, &err))
		return err;
	const double ra = fr.ra, rb = fr.rb, half_gap = fr.half_gap, unit = fr.unit, inv = fr.inv;
	const double *shift = fr.shift;

	lp_query q; /* not zeroed (1.5 KB): every member is set here or by support_frame_init */
	q.n = n;
	q.rotated = 0;
	q.na = a->count;
	q.nb = b->count;
	q.cancel = opt ? opt->cancel : NULL;
	q.priced = NULL;
	support_frame_init(&q.fa, a, shift, inv);
	support_frame_init(&q.fb, b, shift, inv);
	support_frame_keep_pair_copy(&q.fa, &copy[0]);
	support_frame_keep_pair_copy(&q.fb, &copy[1]);

	const double tol_f =
		verdict_tolerance(opt, ra + rb + a->radius + b->radius, ra + rb + 2.0 * half_gap) *
		inv;
	const double rsum = a->radius + b->radius;
	const double rsum_f = rsum * inv;
	/* Slab widths are differences of inner products of frame points of
	 * norm <= 1: this much of them may be round-off. */
	const double slack = 16.0 * n * DBL_EPSILON;
	const int max_pivots = pivot_cap(opt, q.na, q.nb, n);
	lp_rounds_out o;
	if (run_rounds(&q, g, start, max_pivots, rsum_f, tol_f, slack, rsum > 0.0, &o) !=
	    CLASH_OK) {
		memset(r, 0, sizeof *r);
		return CLASH_ECANCELED;
	}
	enum lp_verdict verdict = o.verdict;
	const int status = o.status;
	const double lower = o.lower;
	const int pivots = o.pivots;
	const double objective = o.objective;

	int converged = 1;
	if (verdict == LP_UNDECIDED) {
		if (rsum > 0.0 && status == RSIMPLEX_OPTIMAL)
			return CLASH_ENOTSUP; /* within the LP's reach of ra + rb */
		/* The article's decision on the LP's own minimum (for radius 0,
		 * or when the cap or round-off ended the search): the answer
		 * is not certified. */
		converged = 0;
		verdict = (status == RSIMPLEX_OPTIMAL && objective <= tol_f) ? LP_INTERSECTING
		                                                             : LP_SEPARATED;
	}

	r->dim = n;
	r->has = CLASH_HAS_DISTANCE_BOUND;
	r->intersecting = verdict == LP_INTERSECTING;
	r->distance_lower_bound = r->intersecting ? 0.0 : fmax(0.0, lower * unit - rsum);
	r->iterations = pivots;
	r->converged = converged;
	if (!isfinite(r->distance_lower_bound)) {
		memset(r, 0, sizeof *r);
		return CLASH_ERANGE;
	}
	return CLASH_OK;
}

/* Unions of convex parts: the compound layer calls back with leaves
 * (intersecting iff some pair is, the least pair bound for the union).
 * Exact primitives: a box is its corners; a curved shape has no vertices
 * for the LP (CLASH_ENOTSUP), nor has a mesh (it is no convex hull of
 * them). */
static const pair_method lp_simplex_method = {clash_lp_simplex, lp_simplex_convex, NULL, 0};

int clash_lp_simplex(const clash_shape *a, const clash_shape *b, const clash_options *opt,
                     clash_result *r)
{
	return pair_query(a, b, opt, &lp_simplex_method, r);
}
