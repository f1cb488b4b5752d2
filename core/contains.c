/*
 * contains.c — containment of one posed, rounded polytope in another
 * (Kreuzer 2016, IsSubsetOf), clash_contains().
 *
 * inner = co(I) + B(ri) lies in outer = co(O) + B(ro) iff every vertex of I
 * has a signed distance from co(O) of at most rho = ro - ri (their support
 * functions nest).  For rho >= 0 that is one point query per vertex,
 * Kreuzer's IsSubsetOf: GJK up to 5-D, warm-started from the previous
 * vertex, the LP of method "simplex" from 6-D (CONTAINS_LP_MIN_DIM).  For
 * rho < 0 each facet of co(O) is checked by one support scan of I, the
 * facets found without storage among the dim-subsets of O (within
 * CONTAINS_FACET_BUDGET, else CLASH_ENOTSUP).  An "outside" counts only with
 * its certificate: a vertex neither method decides makes the answer "not
 * shown to be contained" (converged 0), never a wrong "not contained".
 * Compound inner shapes are checked leaf by leaf (compound_foreach_leaf); a
 * compound outer is CLASH_ENOTSUP.  Nothing is allocated.
 *
 * The derivation: docs/design.md, "core/contains.c".
 */
#include <float.h>
#include <math.h>
#include <string.h>

#include "clash.h"
#include "compound.h"
#include "primitive.h"
#include "support.h"
#include "vec.h"

/* Default tolerance relative to the size of the shapes (as gjk.c). */
#define CONTAINS_RELATIVE_TOLERANCE 1e-12

/* From this dimension on, a point is tested against the hull by the LP of
 * method "simplex" rather than by GJK, whose sub-algorithm visits 2^(dim+1)
 * subsets: on 20 inner vertices against 40 and 200 outer ones GJK is the
 * faster up to 5-D, the LP from 6-D on. */
#define CONTAINS_LP_MIN_DIM 6

/* The facet enumeration may take this many vertex operations at most
 * (about a tenth of a second); beyond it the answer is CLASH_ENOTSUP. */
#define CONTAINS_FACET_BUDGET 3e7

/* A dim-subset whose spanned directions have a residual below this (in
 * frame units, shapes of size ~1) is affinely dependent: no facet. */
#define CONTAINS_DEGENERATE 1e-10

typedef struct contains_query {
	const clash_shape *outer; /* the hull: outer with radius 0 */
	double ro;
	int dim;
	const clash_options *opt;
	double tol; /* absolute, world units */
	int iterations;
	int unsure;    /* vertices no point query could place */
	int facets;    /* supporting planes of outer the last inside_facets met */
	int has_point; /* a curved inner's point outside: point */
	double point[CLASH_MAX_DIM];
} contains_query;

/* World coordinates of vertex i of a (non-compound) shape. */
static void world_point(const clash_shape *s, size_t i, double *x)
{
	support_pose_point(s, s->vertices + i * (size_t)s->dim, x);
}

/* h_S(u) over the vertices, and the vertex attaining it (an exact
 * primitive: its analytic support, vertex 0). */
static double support_value(const clash_shape *s, const double *u, size_t *arg)
{
	double best = -INFINITY, x[CLASH_MAX_DIM];
	*arg = 0;
	if (s->kind)
		return primitive_support_world(s, u, x);
	for (size_t i = 0; i < s->count; i++) {
		world_point(s, i, x);
		double h = vec_dot(u, x, s->dim);
		if (h > best) {
			best = h;
			*arg = i;
		}
	}
	return best;
}

/* For a curved inner (no vertex to name): the point of leaf (its radius
 * included) farthest along unit u, which lies beyond outer. */
static void outside_point(contains_query *q, const clash_shape *leaf, const double *u)
{
	if (!leaf->kind)
		return;
	primitive_support_world(leaf, u, q->point);
	vec_axpy(q->point, leaf->radius, u, q->dim);
	q->has_point = 1;
}

/* The cheap test along +-e_k.  Returns 1 and the vertex when it proves
 * the leaf is not contained. */
static int axis_reject(contains_query *q, const clash_shape *leaf, double rho, size_t *vertex)
{
	int n = q->dim;
	for (int k = 0; k < n; k++)
		for (int sg = -1; sg <= 1; sg += 2) {
			double u[CLASH_MAX_DIM];
			vec_zero(u, n);
			u[k] = sg;
			size_t vi, vo;
			double hi = support_value(leaf, u, &vi);
			double ho = support_value(q->outer, u, &vo);
			/* World support values carry rounding of their own size. */
			double slack = 8.0 * DBL_EPSILON * (fabs(hi) + fabs(ho));
			if (hi - ho > rho + q->tol + slack) {
				*vertex = vi;
				outside_point(q, leaf, u);
				return 1;
			}
		}
	return 0;
}

/* What a point query proved about one vertex. */
enum reach {
	REACH_OUT,
	REACH_IN,
	REACH_UNSURE
};

/* The verdict of one point query, or REACH_UNSURE when it carries no
 * certificate.  "Intersecting" always does: GJK says so only with the
 * origin in its simplex or an upper bound |v| within reach (a capped or
 * unconverged run included; an unconverged penetration depth does not
 * matter here), the LP only with a primal pair within reach.
 * "Separated" does only when converged: GJK then has a plane with a gap
 * on every vertex, the LP a slab checked on the vertices; an unconverged
 * GJK distance is an upper bound, which proves nothing about "outside". */
static enum reach verdict_of(const clash_result *r)
{
	if (r->intersecting)
		return REACH_IN;
	return r->converged ? REACH_OUT : REACH_UNSURE;
}

/* The point pt against co(O) grown by rho, by Kreuzer's LP: *at is its
 * verdict, left REACH_UNSURE when the LP declines (CLASH_ENOTSUP: rounded,
 * too close to call).  Returns 0 or another error. */
static int lp_reach(contains_query *q, const clash_shape *pt, const clash_shape *grown,
                    const clash_options *lo, enum reach *at)
{
	clash_result r;
	int e = clash_lp_simplex(pt, grown, lo, &r);
	if (e == CLASH_ENOTSUP)
		return 0;
	if (e)
		return e;
	q->iterations += r.iterations;
	*at = verdict_of(&r);
	return 0;
}

/* rho >= 0: every vertex within rho of co(O), by point queries.  Returns 1
 * (every vertex within reach, or unsure: then q->unsure counts them), 0
 * (*vertex is outside) or an error. */
static int within_reach(contains_query *q, const clash_shape *leaf, double rho, size_t *vertex)
{
	clash_shape grown = *q->outer;
	grown.radius = rho;
	clash_options o;
	memset(&o, 0, sizeof o);
	if (q->opt) {
		o.tolerance = q->opt->tolerance;
		o.max_iterations = q->opt->max_iterations;
		o.cancel = q->opt->cancel; /* each point query checks it */
	}
	clash_options lo = o; /* the LP's: never warm */
	size_t warm_a[CLASH_MAX_DIM + 1] = {0}, warm_b[CLASH_MAX_DIM + 1];
	for (size_t i = 0; i < leaf->count; i++) {
		clash_shape pt = *leaf;
		pt.vertices = leaf->vertices + i * (size_t)leaf->dim;
		pt.count = 1;
		pt.radius = 0.0;
		pt.prepared = NULL; /* a preparation describes the whole array */
		clash_result r;
		enum reach at = REACH_UNSURE;
		int lp_tried = 0, e;
		if (q->dim >= CONTAINS_LP_MIN_DIM) {
			/* Kreuzer's own test: the point against the hull by LP. */
			lp_tried = 1;
			if ((e = lp_reach(q, &pt, &grown, &lo, &at)))
				return e;
			if (at != REACH_UNSURE)
				o.warm_count = 0;
		}
		if (at == REACH_UNSURE) {
			if ((e = clash_gjk(&pt, &grown, &o, &r)))
				return e;
			q->iterations += r.iterations;
			at = verdict_of(&r);
			/* The next vertex starts from this one's simplex on
			 * co(O). */
			if (r.has & CLASH_HAS_WARM) {
				memcpy(warm_b, r.warm_b, sizeof warm_b);
				o.warm_count = r.warm_count;
				o.warm_a = warm_a;
				o.warm_b = warm_b;
			}
		}
		if (at == REACH_UNSURE && !lp_tried) {
			/* GJK stopped without a certificate (its cap, or a
			 * simplex too flat for its sub-algorithm): an upper bound
			 * on the distance above rho is no proof that the vertex
			 * is outside.  The LP decides independently. */
			if ((e = lp_reach(q, &pt, &grown, &lo, &at)))
				return e;
		}
		if (at == REACH_OUT) {
			*vertex = i;
			return 0;
		}
		if (at == REACH_UNSURE)
			q->unsure++; /* go on: another vertex may be surely out */
	}
	return 1;
}

/* The unit normal of the hyperplane through the frame points p[0..n-1]
 * (Gram-Schmidt on the edge vectors, then the coordinate axis with the
 * largest residual).  Returns 0 when they are affinely dependent. */
static int hyperplane(const double *const *p, int n, double *normal)
{
	double e[CLASH_MAX_DIM][CLASH_MAX_DIM];
	for (int k = 1; k < n; k++) {
		double *v = e[k - 1];
		vec_sub(v, p[k], p[0], n);
		for (int pass = 0; pass < 2; pass++)
			for (int j = 0; j < k - 1; j++)
				vec_axpy(v, -vec_dot(v, e[j], n), e[j], n);
		double len = vec_norm(v, n);
		if (!(len > CONTAINS_DEGENERATE))
			return 0;
		vec_scale(v, 1.0 / len, n);
	}
	double best = 0.0;
	for (int axis = 0; axis < n; axis++) {
		double v[CLASH_MAX_DIM];
		vec_zero(v, n);
		v[axis] = 1.0;
		for (int pass = 0; pass < 2; pass++)
			for (int j = 0; j < n - 1; j++)
				vec_axpy(v, -vec_dot(v, e[j], n), e[j], n);
		double len = vec_norm(v, n);
		if (len > best) {
			best = len;
			vec_copy(normal, v, n);
			vec_scale(normal, 1.0 / len, n);
		}
	}
	return best > 0.5 / sqrt((double)n); /* some axis keeps >= 1/sqrt(n) */
}

/* rho < 0: co(I) + B(-rho) inside co(O), facet by facet.  Returns 1
 * (contained), 0 (not: *vertex), or CLASH_ENOTSUP over budget. */
static int inside_facets(contains_query *q, const clash_shape *leaf, double rho, size_t *vertex)
{
	int n = q->dim;
	const clash_shape *o = q->outer;
	size_t m = o->count;
	double need = -rho;
	q->facets = 0;
	if (n == 1) {
		/* The facets of an interval are its two ends. */
		size_t lo_i, hi_i;
		double plus = 1.0, minus = -1.0;
		double hi = support_value(o, &plus, &hi_i), lo = -support_value(o, &minus, &lo_i);
		size_t vi;
		if (support_value(leaf, &plus, &vi) + need > hi + q->tol ||
		    -support_value(leaf, &minus, &vi) - need < lo - q->tol) {
			*vertex = vi;
			return 0;
		}
		return 1;
	}
	/* Work in outer's frame: centred, scaled by a power of two. */
	double c[CLASH_MAX_DIM], rad;
	int e = support_bounds(o, c, &rad);
	if (e)
		return e;
	int ex = 0;
	if (rad > 0.0)
		frexp(rad, &ex);
	double scale = ldexp(1.0, -ex), unit = ldexp(1.0, ex);
	support_frame fo;
	support_frame_init(&fo, o, c, scale);
	if (m < (size_t)n) {
		*vertex = 0; /* fewer than dim vertices: flat, no room */
		return 0;
	}
	/* Cost: C(m, n) subsets, each checked against the m vertices. */
	double subsets = 1.0;
	for (int k = 0; k < n; k++)
		subsets = subsets * (double)(m - (size_t)k) / (double)(k + 1);
	if (subsets * (double)(m + (size_t)(n * n)) > CONTAINS_FACET_BUDGET)
		return CLASH_ENOTSUP;
	const double tol_f = fmax(q->tol * scale, 64.0 * DBL_EPSILON);
	size_t idx[CLASH_MAX_DIM];
	double pts[CLASH_MAX_DIM][CLASH_MAX_DIM];
	const double *pp[CLASH_MAX_DIM];
	for (int k = 0; k < n; k++) {
		idx[k] = (size_t)k;
		pp[k] = pts[k];
	}
	int facets = 0;
	for (;;) {
		for (int k = 0; k < n; k++)
			support_point(&fo, idx[k], pts[k]);
		double nrm[CLASH_MAX_DIM];
		if (hyperplane(pp, n, nrm)) {
			double off = vec_dot(nrm, pts[0], n), above = 0.0, below = 0.0,
			       x[CLASH_MAX_DIM];
			for (size_t i = 0; i < m && !(above > tol_f && below > tol_f); i++) {
				support_point(&fo, i, x);
				double d = vec_dot(nrm, x, n) - off;
				above = fmax(above, d);
				below = fmax(below, -d);
			}
			for (int side = 0; side < 2; side++) {
				/* A supporting hyperplane with O on this side. */
				if ((side ? above : below) > tol_f)
					continue;
				double un[CLASH_MAX_DIM];
				vec_copy(un, nrm, n);
				if (!side)
					vec_scale(un, -1.0, n); /* outward: O below the plane */
				/* World offset of the plane un.x = c_w. */
				double cw = (side ? off : -off) * unit + vec_dot(un, c, n);
				size_t vi;
				double h = support_value(leaf, un, &vi);
				facets++;
				double slack = 8.0 * DBL_EPSILON * (fabs(h) + fabs(cw));
				if (h + need > cw + q->tol + slack) {
					*vertex = vi;
					outside_point(q, leaf, un);
					return 0;
				}
			}
		}
		/* Next dim-subset in lexicographic order. */
		int k = n - 1;
		while (k >= 0 && idx[k] == m - (size_t)(n - k))
			k--;
		if (k < 0)
			break;
		idx[k]++;
		for (int j = k + 1; j < n; j++)
			idx[j] = idx[j - 1] + 1;
	}
	q->facets = facets;
	if (facets == 0) {
		*vertex = 0; /* not full-dimensional: no ball fits */
		return 0;
	}
	return 1;
}

/* rho < 0 with a curved outer (an exact primitive: no facets): every
 * vertex at depth >= -rho inside it, by GJK and EPA from the point, the
 * depth of a point being its distance to the boundary.  A converged depth
 * decides; an unconverged one is an upper bound, which only proves
 * "outside" (else the vertex is unsure).  Returns 1, 0 (*vertex) or an
 * error. */
static int inside_curved(contains_query *q, const clash_shape *leaf, double rho, size_t *vertex)
{
	clash_options o;
	memset(&o, 0, sizeof o);
	if (q->opt) {
		o.tolerance = q->opt->tolerance;
		o.max_iterations = q->opt->max_iterations;
		o.cancel = q->opt->cancel;
	}
	const double need = -rho;
	for (size_t i = 0; i < leaf->count; i++) {
		clash_shape pt = *leaf;
		pt.vertices = leaf->vertices + i * (size_t)leaf->dim;
		pt.count = 1;
		pt.radius = 0.0;
		pt.prepared = NULL; /* a preparation describes the whole array */
		clash_result r;
		int e = clash_gjk(&pt, q->outer, &o, &r);
		if (e)
			return e;
		q->iterations += r.iterations;
		const double depth = r.intersecting && (r.has & CLASH_HAS_DEPTH) ? r.depth : 0.0;
		if (!r.intersecting && !r.converged) {
			q->unsure++;
		} else if (depth + q->tol < need) {
			*vertex = i;
			return 0;
		} else if (!r.converged && depth - q->tol < need) {
			q->unsure++;
		}
	}
	return 1;
}

/* A curved inner C + B(ri) (no vertices) in a polytope outer co(O) + B(ro):
 * contained iff h_C(u) + ri <= h_O(u) + ro for every u.  For rho <= 0 the
 * facet normals of co(O) decide exactly (inside_facets).  For rho > 0 a
 * facet of co(O) pushed out by rho that C crosses proves a point outside,
 * and C inside co(O) itself proves it contained; between the two, and for
 * a flat co(O), the answer is unsure.  Returns 1, 0 or an error. */
static int curved_inside(contains_query *q, const clash_shape *leaf, double rho, size_t *vertex)
{
	if (rho <= 0.0)
		return inside_facets(q, leaf, rho, vertex);
	int r = inside_facets(q, leaf, 0.0, vertex);
	if (r != 0)
		return r;
	q->has_point = 0;
	r = inside_facets(q, leaf, rho, vertex);
	if (r == 0 && q->facets > 0)
		return 0;
	if (r < 0)
		return r;
	q->has_point = 0;
	q->unsure++;
	return 1;
}

/* One non-compound inner shape.  Returns 1, 0 (with *vertex) or an error.
 * An exact primitive inner is taken lowered (a box by its corners, a
 * sphere or capsule as a rounded point or segment); a curved one by its
 * support mapping against the outer's facets (curved_inside), which a
 * curved outer does not have: CLASH_ENOTSUP. */
static int leaf_contained(contains_query *q, const clash_shape *shape, size_t *vertex)
{
	clash_shape buf;
	const clash_shape *leaf;
	int e = primitive_lower(shape, &buf, &leaf, 0);
	if (e)
		return e;
	double rho = q->ro - leaf->radius;
	if (leaf->kind && q->outer->kind)
		return CLASH_ENOTSUP;
	if (axis_reject(q, leaf, rho, vertex))
		return 0;
	if (leaf->kind) {
		int r = curved_inside(q, leaf, rho, vertex);
		if (r == 0 && !q->has_point) { /* no room at all: any point of it */
			double zero[CLASH_MAX_DIM] = {0};
			primitive_support_world(leaf, zero, q->point);
			q->has_point = 1;
		}
		return r;
	}
	if (rho >= 0.0)
		return within_reach(q, leaf, rho, vertex);
	if (q->outer->kind)
		return inside_curved(q, leaf, rho, vertex);
	return inside_facets(q, leaf, rho, vertex);
}

/* compound_foreach_leaf callbacks. */
typedef struct leaf_walk {
	contains_query *q;
	size_t part, vertex;
	double size;
} leaf_walk;

static int leaf_visit(const clash_shape *leaf, size_t top, void *ctx)
{
	leaf_walk *w = ctx;
	size_t vertex = 0;
	int r = leaf_contained(w->q, leaf, &vertex);
	if (r == 1)
		return 0; /* this leaf fits: on to the next */
	if (r == 0) {
		w->part = top;
		w->vertex = vertex;
		return 1; /* stop: not contained */
	}
	return r;
}

/* The size of a leaf for the default tolerance: its bounding radius plus
 * its radius. */
static int leaf_size(const clash_shape *leaf, size_t top, void *ctx)
{
	(void)top;
	leaf_walk *w = ctx;
	double c[CLASH_MAX_DIM], r;
	int e = support_bounds(leaf, c, &r);
	if (e)
		return e;
	w->size = fmax(w->size, r + leaf->radius);
	return 0;
}

int clash_contains(const clash_shape *inner, const clash_shape *outer, const clash_options *opt,
                   clash_containment *out)
{
	if (out == NULL)
		return CLASH_EINVAL;
	memset(out, 0, sizeof *out);
	if (inner == NULL || outer == NULL)
		return CLASH_EINVAL;
	size_t leaves;
	int e = compound_check(outer, outer->dim, &leaves);
	if (e)
		return e;
	if ((e = compound_check(inner, outer->dim, &leaves)))
		return e;
	if (outer->nparts > 0 || outer->mesh)
		return CLASH_ENOTSUP; /* a union of convex shapes, or a mesh, is not convex */
	if (opt &&
	    (!(opt->tolerance >= 0.0) || !isfinite(opt->tolerance) || opt->max_iterations < 0))
		return CLASH_EINVAL;

	/* An exact primitive outer: lowered (its radius may grow), else
	 * curved, taken by its support mapping. */
	clash_shape lowered;
	const clash_shape *ol;
	if ((e = primitive_lower(outer, &lowered, &ol, 0)))
		return e;
	clash_shape hull = *ol;
	hull.radius = 0.0;
	contains_query q;
	memset(&q, 0, sizeof q);
	q.outer = &hull;
	q.ro = ol->radius;
	q.dim = outer->dim;
	q.opt = opt;
	leaf_walk w;
	memset(&w, 0, sizeof w);
	w.q = &q;
	if ((e = leaf_size(outer, 0, &w)) || (e = compound_foreach_leaf(inner, leaf_size, &w)))
		return e;
	q.tol = (opt && opt->tolerance > 0.0) ? opt->tolerance
	                                      : CONTAINS_RELATIVE_TOLERANCE * w.size;

	int r = compound_foreach_leaf(inner, leaf_visit, &w);
	if (r < 0)
		return r;
	/* A vertex surely outside decides; else an unsure one leaves the
	 * answer "not shown to be contained". */
	out->converged = r != 0 || q.unsure == 0;
	out->contained = r == 0 && q.unsure == 0;
	out->has_outside_vertex = r != 0 && !q.has_point;
	out->has_outside_point = r != 0 && q.has_point;
	if (out->has_outside_point)
		vec_copy(out->outside_point, q.point, q.dim);
	out->outside_part = r ? w.part : 0;
	out->outside_vertex = r && !q.has_point ? w.vertex : 0;
	out->iterations = q.iterations;
	return CLASH_OK;
}
