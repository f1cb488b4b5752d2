/*
 * compound.c — compound shapes: unions of convex parts (GJK88 section II,
 * eqs. (2)-(8)), answered by any per-pair method (see compound.h).
 *
 * A compound shape is a tree: inner nodes have parts, leaves are convex
 * polytopes.  By eq. (3) the distance of two unions is the least distance
 * over pairs of their members, and by eq. (8) spherical extensions carry
 * over leaf by leaf; so the layer flattens both trees into leaves, each a
 * clash_shape with its composed pose and summed radius that borrows the
 * leaf's vertex array (eqs. (9)-(10)), and asks the method about pairs of
 * leaves, in increasing order of a bound from their bounding balls, only
 * while a pair could still change the answer (worth()).  The union's answer
 * is read off the leaf answers' `has` bits, so one layer serves every
 * method.  The scratch is O(leaves), never O(pairs), in one allocation.
 *
 * Poses and radii, the pruning, and the union's semantics (depth, distance,
 * plane, iterations, warm starts): docs/design.md, "core/compound.c".
 */
#include <assert.h>
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "compound.h"
#include "primitive.h"
#include "support.h"
#include "vec.h"

/* A pair whose balls are apart by more than this (relative to the scene,
 * unless the query sets a tolerance) cannot touch within any method's
 * default tolerance (gjk: 1e-12 relative), so it may be skipped.  Larger
 * only costs evaluations of nearly touching pairs. */
#define COMPOUND_MARGIN_RELATIVE 1e-9

/* Balls are rounded up by this many ulps of their size and position, so
 * that rounding in support_bounds and in the bound itself never makes a
 * ball smaller than its leaf. */
#define COMPOUND_BALL_SLACK (16.0 * DBL_EPSILON)

/* ---- trees -------------------------------------------------------------- */

static int check_node(const clash_shape *s, int dim, int depth, size_t *leaves)
{
	if (s->dim != dim)
		return CLASH_EDIM;
	if (!(s->radius >= 0.0) || !isfinite(s->radius))
		return CLASH_ERADIUS;
	if (s->nparts == 0) {
		if (s->count == 0)
			return CLASH_EEMPTY;
		if (s->vertices == NULL)
			return CLASH_EINVAL;
		if (++*leaves > CLASH_COMPOUND_MAX_LEAVES)
			return CLASH_ELIMIT;
		return CLASH_OK;
	}
	if (depth >= CLASH_COMPOUND_MAX_DEPTH)
		return CLASH_ELIMIT;
	if (s->parts == NULL)
		return CLASH_EINVAL;
	/* The leaf count stops this loop within CLASH_COMPOUND_MAX_LEAVES
	 * leaves however large nparts claims to be. */
	for (size_t i = 0; i < s->nparts; i++) {
		int err = check_node(&s->parts[i], dim, depth + 1, leaves);
		if (err)
			return err;
	}
	return CLASH_OK;
}

int compound_check(const clash_shape *s, int dim, size_t *leaves)
{
	*leaves = 0;
	if (s == NULL)
		return CLASH_EINVAL;
	if (dim < 1 || dim > CLASH_MAX_DIM)
		return CLASH_EDIM;
	return check_node(s, dim, 0, leaves);
}

/* *out = part placed inside `outer` (whose pose and radius are already the
 * world's): the part's pose followed by outer's, the radii added. */
static int compose(clash_shape *out, const clash_shape *outer, const clash_shape *part)
{
	const int n = part->dim;
	*out = *part;
	out->radius = outer->radius + part->radius;
	if (!isfinite(out->radius))
		return CLASH_ERANGE;
	if (!outer->posed)
		return CLASH_OK;
	out->posed = 1;
	if (!part->posed) {
		memcpy(out->linear, outer->linear, (size_t)(n * n) * sizeof *out->linear);
		vec_copy(out->translation, outer->translation, n);
		return CLASH_OK;
	}
	/* Column-major: (Lo Lp)(r, c) = sum_k Lo(r, k) Lp(k, c). */
	for (int c = 0; c < n; c++)
		for (int r = 0; r < n; r++) {
			double x = 0.0;
			for (int k = 0; k < n; k++)
				x += outer->linear[k * n + r] * part->linear[c * n + k];
			out->linear[c * n + r] = x;
		}
	for (int r = 0; r < n; r++) {
		double x = outer->translation[r];
		for (int k = 0; k < n; k++)
			x += outer->linear[k * n + r] * part->translation[k];
		out->translation[r] = x;
	}
	if (!vec_isfinite(out->linear, n * n) || !vec_isfinite(out->translation, n))
		return CLASH_ERANGE;
	return CLASH_OK;
}

/* node: already composed into the world. */
static int walk(const clash_shape *node, size_t top, compound_leaf_fn fn, void *ctx)
{
	if (node->nparts == 0)
		return fn(node, top, ctx);
	for (size_t i = 0; i < node->nparts; i++) {
		clash_shape part;
		int err = compose(&part, node, &node->parts[i]);
		if (!err)
			err = walk(&part, top, fn, ctx);
		if (err)
			return err;
	}
	return CLASH_OK;
}

int compound_foreach_leaf(const clash_shape *s, compound_leaf_fn fn, void *ctx)
{
	if (s->nparts == 0)
		return fn(s, 0, ctx);
	for (size_t i = 0; i < s->nparts; i++) {
		clash_shape part;
		int err = compose(&part, s, &s->parts[i]);
		if (!err)
			err = walk(&part, i, fn, ctx);
		if (err)
			return err;
	}
	return CLASH_OK;
}

int clash_shape_init_compound(clash_shape *s, int dim, const clash_shape *parts, size_t nparts)
{
	if (s == NULL)
		return CLASH_EINVAL;
	memset(s, 0, sizeof *s);
	if (dim < 1 || dim > CLASH_MAX_DIM)
		return CLASH_EDIM;
	if (nparts == 0)
		return CLASH_EEMPTY;
	if (parts == NULL)
		return CLASH_EINVAL;
	for (size_t i = 0; i < nparts; i++)
		if (parts[i].dim != dim)
			return CLASH_EDIM;
	s->dim = dim;
	s->parts = parts;
	s->nparts = nparts;
	for (int i = 0; i < dim; i++)
		s->linear[i * dim + i] = 1.0;
	return CLASH_OK;
}

/* ---- leaves and their balls -------------------------------------------- */

typedef struct leaf {
	clash_shape shape; /* world pose, total radius, borrowed vertices */
	double center[CLASH_MAX_DIM];
	double reach; /* ball radius, shape radius included, rounded up */
	size_t top;   /* top-level part */
} leaf;

typedef struct side {
	leaf *leaves;
	size_t n, cap;
	double center[CLASH_MAX_DIM]; /* a ball holding every leaf's ball */
	double reach;
} side;

typedef struct ranked {
	double lb;
	size_t i;
} ranked;

static int collect(const clash_shape *s, size_t top, void *ctx)
{
	side *sd = ctx;
	assert(sd->n < sd->cap);
	leaf *l = &sd->leaves[sd->n];
	double hull;
	int err = support_bounds(s, l->center, &hull);
	if (err)
		return err;
	const int n = s->dim;
	double far = 0.0;
	for (int k = 0; k < n; k++)
		far = fmax(far, fabs(l->center[k]));
	l->reach = (hull + s->radius) * (1.0 + COMPOUND_BALL_SLACK) + COMPOUND_BALL_SLACK * far;
	if (!isfinite(l->reach))
		return CLASH_ERANGE;
	l->shape = *s;
	l->top = top;
	sd->n++;
	return CLASH_OK;
}

/* |ca - cb| - ra - rb; -inf when that is not a number, so a pair whose
 * bound cannot be computed is never skipped.  This runs for every pair the
 * search looks at, so the plain sum of squares is used unless it overflows
 * (an underflow only makes the bound smaller, which is safe). */
static double ball_bound(const double *ca, double ra, const double *cb, double rb, int n)
{
	double d[CLASH_MAX_DIM], ss = 0.0;
	for (int k = 0; k < n; k++) {
		d[k] = ca[k] - cb[k];
		ss += d[k] * d[k];
	}
	double lb = (isfinite(ss) ? sqrt(ss) : vec_norm(d, n)) - ra - rb;
	return isnan(lb) ? -INFINITY : lb;
}

/* The ball around all leaf balls of a side: centre of their bounding box. */
static void enclose(side *sd, int n)
{
	double lo[CLASH_MAX_DIM], hi[CLASH_MAX_DIM];
	for (int k = 0; k < n; k++) {
		lo[k] = INFINITY;
		hi[k] = -INFINITY;
	}
	for (size_t i = 0; i < sd->n; i++)
		for (int k = 0; k < n; k++) {
			const leaf *l = &sd->leaves[i];
			lo[k] = fmin(lo[k], l->center[k] - l->reach);
			hi[k] = fmax(hi[k], l->center[k] + l->reach);
		}
	for (int k = 0; k < n; k++)
		sd->center[k] = 0.5 * lo[k] + 0.5 * hi[k];
	double reach = 0.0;
	for (size_t i = 0; i < sd->n; i++) {
		double d[CLASH_MAX_DIM];
		vec_sub(d, sd->leaves[i].center, sd->center, n);
		reach = fmax(reach, vec_norm(d, n) + sd->leaves[i].reach);
	}
	sd->reach = reach * (1.0 + COMPOUND_BALL_SLACK);
}

static int ranked_cmp(const void *x, const void *y)
{
	const ranked *p = x, *q = y;
	if (p->lb != q->lb)
		return p->lb < q->lb ? -1 : 1;
	return (p->i > q->i) - (p->i < q->i);
}

/* ---- the union of pair answers ----------------------------------------- */

typedef struct search {
	const side *a, *b;
	const clash_options *opt;
	compound_pair_fn pair;
	clash_result best; /* the answer of the reported pair */
	size_t best_i, best_j;
	int found;        /* some pair was evaluated */
	int intersecting; /* some pair intersects */
	int stop;         /* a verdict-only method found an intersection */
	double best_depth;
	double best_key;
	double margin;
	int iterations, backups, converged;
	size_t evaluated;
} search;

/* Could a pair with ball bound lb change the answer?  Monotone in lb: once
 * false, false for every larger lb. */
static int worth(const search *s, double lb)
{
	if (!s->found)
		return 1;
	if (s->stop)
		return 0;
	if (s->intersecting)
		return -lb > s->best_depth;
	return lb < s->best_key || lb <= s->margin;
}

static int evaluate(search *s, size_t i, size_t j, double lb)
{
	clash_result lr;
	int err = s->pair(&s->a->leaves[i].shape, &s->b->leaves[j].shape, s->opt, &lr);
	if (err)
		return err;
	s->evaluated++;
	s->iterations += lr.iterations;
	s->backups += lr.backups;
	s->converged = s->converged && lr.converged;
	int take = 0;
	if (lr.intersecting) {
		const unsigned depth_bits = CLASH_HAS_DEPTH | CLASH_HAS_DEPTH_BOUND;
		/* An unconverged EPA depth is an upper bound: not a bound here. */
		double depth = (lr.has & CLASH_HAS_DEPTH) && lr.converged ? lr.depth
		               : (lr.has & CLASH_HAS_DEPTH_BOUND)         ? lr.depth_lower_bound
		                                                          : 0.0;
		take = !s->intersecting || depth > s->best_depth;
		if (take)
			s->best_depth = depth;
		s->intersecting = 1;
		if (!(lr.has & depth_bits))
			s->stop = 1;
	} else if (!s->intersecting) {
		double key = (lr.has & CLASH_HAS_DISTANCE)         ? lr.distance
		             : (lr.has & CLASH_HAS_DISTANCE_BOUND) ? lr.distance_lower_bound
		                                                   : fmax(lb, 0.0);
		take = !s->found || key < s->best_key;
		if (take)
			s->best_key = key;
	}
	s->found = 1;
	if (take) {
		s->best = lr;
		s->best_i = i;
		s->best_j = j;
	}
	return CLASH_OK;
}

/* b's leaves sorted along one axis (the one their centres spread most
 * along), so that for a leaf of a only the leaves of b within reach along
 * that axis are looked at: |dx| - r_a - (largest r_b) bounds the bound of
 * every pair further out.  Exact, never a guess; only faster, and the
 * more so the longer the compounds. */
typedef struct sweep {
	const side *b;
	ranked *order; /* lb: centre coordinate, i: leaf of b */
	int axis;
	double reach_max;
} sweep;

static void sweep_init(sweep *w, const side *b, ranked *order, int n)
{
	double lo[CLASH_MAX_DIM], hi[CLASH_MAX_DIM];
	for (int k = 0; k < n; k++) {
		lo[k] = INFINITY;
		hi[k] = -INFINITY;
	}
	w->b = b;
	w->order = order;
	w->reach_max = 0.0;
	for (size_t j = 0; j < b->n; j++) {
		const leaf *l = &b->leaves[j];
		for (int k = 0; k < n; k++) {
			lo[k] = fmin(lo[k], l->center[k]);
			hi[k] = fmax(hi[k], l->center[k]);
		}
		w->reach_max = fmax(w->reach_max, l->reach);
	}
	w->axis = 0;
	for (int k = 1; k < n; k++)
		if (hi[k] - lo[k] > hi[w->axis] - lo[w->axis])
			w->axis = k;
	for (size_t j = 0; j < b->n; j++) {
		order[j].lb = b->leaves[j].center[w->axis];
		order[j].i = j;
	}
	qsort(order, b->n, sizeof *order, ranked_cmp);
}

/* The first position in w->order at or after coordinate x. */
static size_t sweep_find(const sweep *w, double x)
{
	size_t lo = 0, hi = w->b->n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (w->order[mid].lb < x)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* The least bound of la's pairs with the leaves of b. */
static double least_bound(const sweep *w, const leaf *la, int n)
{
	const double x = la->center[w->axis], slack = la->reach + w->reach_max;
	const size_t p = sweep_find(w, x), nb = w->b->n;
	double least = INFINITY;
	for (size_t k = p; k < nb && w->order[k].lb - x - slack < least; k++) {
		const leaf *lb = &w->b->leaves[w->order[k].i];
		least = fmin(least, ball_bound(la->center, la->reach, lb->center, lb->reach, n));
	}
	for (size_t k = p; k-- > 0 && x - w->order[k].lb - slack < least;) {
		const leaf *lb = &w->b->leaves[w->order[k].i];
		least = fmin(least, ball_bound(la->center, la->reach, lb->center, lb->reach, n));
	}
	return least;
}

/* Into inner: la's pairs that are worth evaluating now.  Returns how many. */
static size_t gather(const search *s, const sweep *w, const leaf *la, int n, ranked *inner)
{
	const double x = la->center[w->axis], slack = la->reach + w->reach_max;
	const size_t p = sweep_find(w, x), nb = w->b->n;
	size_t m = 0;
	for (size_t k = p; k < nb && worth(s, w->order[k].lb - x - slack); k++) {
		const leaf *lb = &w->b->leaves[w->order[k].i];
		double bound = ball_bound(la->center, la->reach, lb->center, lb->reach, n);
		if (worth(s, bound))
			inner[m++] = (ranked){bound, w->order[k].i};
	}
	for (size_t k = p; k-- > 0 && worth(s, x - w->order[k].lb - slack);) {
		const leaf *lb = &w->b->leaves[w->order[k].i];
		double bound = ball_bound(la->center, la->reach, lb->center, lb->reach, n);
		if (worth(s, bound))
			inner[m++] = (ranked){bound, w->order[k].i};
	}
	return m;
}

static int run(search *s, ranked *outer, ranked *inner, ranked *order)
{
	const side *a = s->a, *b = s->b;
	const int n = a->leaves[0].shape.dim;
	sweep w;
	sweep_init(&w, b, order, n);
	/* Leaves of a by the least bound of their pairs, so that the first pair
	 * evaluated is the one of least bound overall, which usually leaves
	 * little to evaluate after it.  (A bound against one ball around all
	 * of b would be cheaper but order a's leaves too coarsely: for long
	 * compounds side by side it evaluates pairs all along them.) */
	for (size_t i = 0; i < a->n; i++) {
		outer[i].lb = least_bound(&w, &a->leaves[i], n);
		outer[i].i = i;
	}
	qsort(outer, a->n, sizeof *outer, ranked_cmp);
	for (size_t oi = 0; oi < a->n && worth(s, outer[oi].lb); oi++) {
		size_t m = gather(s, &w, &a->leaves[outer[oi].i], n, inner);
		qsort(inner, m, sizeof *inner, ranked_cmp);
		for (size_t t = 0; t < m && worth(s, inner[t].lb); t++) {
			int err = evaluate(s, outer[oi].i, inner[t].i, inner[t].lb);
			if (err)
				return err;
		}
	}
	assert(s->found);
	return CLASH_OK;
}

/* Does every leaf of sd other than `skip` lie in sign * (n.x - c) <= 0?
 * The skipped leaf is the method's own, already certified by it. */
static int plane_holds(const side *sd, size_t skip, const double *normal, double offset,
                       double sign)
{
	const int n = sd->leaves[0].shape.dim;
	double d[CLASH_MAX_DIM];
	for (int k = 0; k < n; k++)
		d[k] = sign * normal[k];
	const double c = sign * offset;
	for (size_t i = 0; i < sd->n; i++) {
		const leaf *l = &sd->leaves[i];
		if (i == skip || vec_dot(d, l->center, n) + l->reach <= c)
			continue;
		/* The ball reaches over: the leaf's support value decides. */
		const clash_shape *sh = &l->shape;
		if (sh->kind) { /* an exact primitive: its analytic support */
			double x[3];
			if (!(primitive_support_world(sh, d, x) + sh->radius <= c))
				return 0;
			continue;
		}
		double e[CLASH_MAX_DIM], base = 0.0;
		if (sh->posed) {
			for (int k = 0; k < n; k++)
				e[k] = vec_dot(sh->linear + k * n, d, n); /* (L^T d)_k */
			base = vec_dot(d, sh->translation, n);
		} else {
			vec_copy(e, d, n);
		}
		size_t v = support_max_dot(sh->vertices, sh->count, n, e);
		double h = vec_dot(e, sh->vertices + v * (size_t)n, n) + base + sh->radius;
		if (!(h <= c))
			return 0;
	}
	return 1;
}

/* The union's answer from the search. */
static void answer(const search *s, int n, clash_result *r)
{
	*r = s->best;
	r->dim = n;
	r->iterations = s->iterations;
	r->backups = s->backups;
	r->converged = s->converged;
	r->warm_count = 0;
	memset(r->warm_a, 0, sizeof r->warm_a);
	memset(r->warm_b, 0, sizeof r->warm_b);
	r->has &= ~(unsigned)(CLASH_HAS_WARM | CLASH_HAS_DEPTH);
	if (r->intersecting) {
		if (s->best.has & (CLASH_HAS_DEPTH | CLASH_HAS_DEPTH_BOUND)) {
			r->has |= CLASH_HAS_DEPTH_BOUND;
			r->depth_lower_bound = s->best_depth;
		}
		/* The deepest pair's own depth, when the search was not cut
		 * short by a pair without one. */
		if ((s->best.has & CLASH_HAS_DEPTH) && !s->stop) {
			r->has |= CLASH_HAS_PAIR_DEPTH;
		} else {
			r->depth = 0.0;
			vec_zero(r->depth_normal, n);
			vec_zero(r->depth_a, n);
			vec_zero(r->depth_b, n);
		}
	} else if (r->has & CLASH_HAS_PLANE) {
		if (!plane_holds(s->a, s->best_i, r->normal, r->offset, 1.0) ||
		    !plane_holds(s->b, s->best_j, r->normal, r->offset, -1.0)) {
			r->has &= ~(unsigned)CLASH_HAS_PLANE;
			vec_zero(r->normal, n);
			r->offset = 0.0;
		}
	}
	r->has |= CLASH_HAS_PARTS;
	r->part_a = s->a->leaves[s->best_i].top;
	r->part_b = s->b->leaves[s->best_j].top;
}

int compound_query(const clash_shape *a, const clash_shape *b, const clash_options *opt,
                   compound_pair_fn pair, clash_result *r, compound_stats *stats)
{
	if (r == NULL)
		return CLASH_EINVAL;
	memset(r, 0, sizeof *r);
	if (stats)
		memset(stats, 0, sizeof *stats);
	if (a == NULL || b == NULL || pair == NULL)
		return CLASH_EINVAL;
	const int n = a->dim;
	size_t na, nb;
	int err = compound_check(a, n, &na);
	if (!err)
		err = compound_check(b, n, &nb);
	if (err)
		return err;
	if (opt && opt->warm_count > 0)
		return CLASH_ENOTSUP;

	/* One block: the leaves of both sides, then the rankings (a's leaves,
	 * b's for one of a's, b's along the sweep axis). */
	size_t bytes = (na + nb) * sizeof(leaf) + (na + 2 * nb) * sizeof(ranked);
	leaf *block = malloc(bytes);
	if (block == NULL)
		return CLASH_ENOMEM;
	side sa = {.leaves = block, .cap = na}, sb = {.leaves = block + na, .cap = nb};
	ranked *outer = (ranked *)(block + na + nb), *inner = outer + na, *order = inner + nb;

	search s = {.a = &sa, .b = &sb, .opt = opt, .pair = pair, .converged = 1};
	err = compound_foreach_leaf(a, collect, &sa);
	if (!err)
		err = compound_foreach_leaf(b, collect, &sb);
	if (!err) {
		assert(sa.n == na && sb.n == nb);
		enclose(&sa, n);
		enclose(&sb, n);
		double gap[CLASH_MAX_DIM];
		vec_sub(gap, sa.center, sb.center, n);
		s.margin = (opt && opt->tolerance > 0.0)
		                   ? opt->tolerance
		                   : COMPOUND_MARGIN_RELATIVE *
		                             (sa.reach + sb.reach + vec_norm(gap, n));
		if (!(s.margin >= 0.0)) /* NaN from infinite scenes: skip nothing near */
			s.margin = INFINITY;
		err = run(&s, outer, inner, order);
	}
	if (stats) {
		stats->leaves_a = na;
		stats->leaves_b = nb;
		stats->pairs_evaluated = s.evaluated;
	}
	if (!err)
		answer(&s, n, r); /* reads the leaves: before they are freed */
	free(block);
	return err;
}
